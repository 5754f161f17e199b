//! JSON-RPC 2.0: ids, messages, error objects, and decoding frames from bytes.
//!
//! Decoding keeps `params`, `result` and `error.data` as borrowed [`RawValue`]s: nothing is
//! parsed into a `serde_json::Value` on the way in; a handler decodes its typed params
//! straight from the raw JSON.
//!
//! ```
//! use mcp_core::jsonrpc::{decode, Message, Frame, DecodeOptions};
//!
//! let frame = br#"{"jsonrpc":"2.0","id":"7","method":"tools/list"}"#;
//! let Frame::Single(Ok(Message::Request(req))) = decode(frame, DecodeOptions::default()) else {
//!     panic!()
//! };
//! assert_eq!(req.method, "tools/list");
//! assert_eq!(req.id.to_string(), "\"7\""); // a string id stays a string
//! ```

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::value::RawValue;

/// `-32700`: the frame is not valid JSON (or not UTF-8, or nested too deeply).
pub const PARSE_ERROR: i32 = -32700;
/// `-32600`: valid JSON, but not a valid JSON-RPC message.
pub const INVALID_REQUEST: i32 = -32600;
/// `-32601`: the method does not exist or is not offered.
pub const METHOD_NOT_FOUND: i32 = -32601;
/// `-32602`: invalid method parameters.
pub const INVALID_PARAMS: i32 = -32602;
/// `-32603`: an internal error.
pub const INTERNAL_ERROR: i32 = -32603;
/// `-32002`: resource not found (legacy revisions; 2026-07-28 uses `-32602`).
pub const RESOURCE_NOT_FOUND: i32 = -32002;
/// `-32020`: an HTTP header does not match the body, or is missing or malformed (2026).
pub const HEADER_MISMATCH: i32 = -32020;
/// `-32021`: the request needs a client capability the client did not declare (2026).
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i32 = -32021;
/// `-32022`: the requested protocol revision is not served (2026).
pub const UNSUPPORTED_PROTOCOL_VERSION: i32 = -32022;
/// `-32042`: a URL-mode elicitation is required first (2025-11-25 only).
pub const URL_ELICITATION_REQUIRED: i32 = -32042;

/// The maximum nesting depth of a frame, counted in arrays and objects.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// A JSON-RPC request id: a string or an integer, keeping its JSON type.
///
/// `"1"` and `1` are different ids, and each is echoed as it came.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RequestId {
    /// An integer id.
    Number(i64),
    /// A string id.
    String(Arc<str>),
}

impl From<i64> for RequestId {
    fn from(n: i64) -> Self {
        RequestId::Number(n)
    }
}

impl From<&str> for RequestId {
    fn from(s: &str) -> Self {
        RequestId::String(s.into())
    }
}

impl From<String> for RequestId {
    fn from(s: String) -> Self {
        RequestId::String(s.into())
    }
}

impl fmt::Display for RequestId {
    /// Formats the id as JSON (`7` or `"7"`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestId::Number(n) => write!(f, "{n}"),
            RequestId::String(s) => write!(f, "{}", serde_json::Value::from(&**s)),
        }
    }
}

impl Serialize for RequestId {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            RequestId::Number(n) => s.serialize_i64(*n),
            RequestId::String(v) => s.serialize_str(v),
        }
    }
}

impl<'de> Deserialize<'de> for RequestId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IdVisitor;
        impl Visitor<'_> for IdVisitor {
            type Value = RequestId;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<RequestId, E> {
                Ok(RequestId::Number(v))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<RequestId, E> {
                i64::try_from(v)
                    .map(RequestId::Number)
                    .map_err(|_| E::custom("integer id out of range"))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<RequestId, E> {
                Ok(RequestId::String(v.into()))
            }
        }
        d.deserialize_any(IdVisitor)
    }
}

/// A JSON-RPC error object: `{code, message, data?}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorObject {
    /// The error code.
    pub code: i32,
    /// A short description.
    pub message: String,
    /// Additional information, as the code defines it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<serde_json::Value>,
}

impl ErrorObject {
    /// An error with a code and message and no data.
    pub fn new(code: i32, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// The same error with `data` attached.
    pub fn with_data(mut self, data: serde_json::Value) -> Self {
        self.data = Some(data);
        self
    }

    /// `-32700 Parse error`.
    pub fn parse_error() -> Self {
        Self::new(PARSE_ERROR, "Parse error")
    }
    /// `-32600 Invalid Request`, with a reason.
    pub fn invalid_request(reason: impl Into<String>) -> Self {
        Self::new(INVALID_REQUEST, reason)
    }
    /// `-32601 Method not found`.
    pub fn method_not_found(method: &str) -> Self {
        Self::new(METHOD_NOT_FOUND, format!("Method not found: {method}"))
    }
    /// `-32602`, with a reason.
    pub fn invalid_params(reason: impl Into<String>) -> Self {
        Self::new(INVALID_PARAMS, reason)
    }
    /// `-32603 Internal error`, with no detail: internal text never reaches the wire.
    pub fn internal() -> Self {
        Self::new(INTERNAL_ERROR, "Internal error")
    }
}

impl fmt::Display for ErrorObject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: {}", self.code, self.message)
    }
}

impl std::error::Error for ErrorObject {}

/// A decoded request: it has an id and expects exactly one response.
#[derive(Debug, Clone)]
pub struct Request<'a> {
    /// The id to echo.
    pub id: RequestId,
    /// The method name.
    pub method: Cow<'a, str>,
    /// The params, undecoded.
    pub params: Option<&'a RawValue>,
}

/// A decoded notification: no id, never answered.
#[derive(Debug, Clone)]
pub struct Notification<'a> {
    /// The method name.
    pub method: Cow<'a, str>,
    /// The params, undecoded.
    pub params: Option<&'a RawValue>,
}

/// A decoded response to a request this side sent.
#[derive(Debug, Clone)]
pub struct Response<'a> {
    /// The id of the request answered; `None` when the peer could not read it.
    pub id: Option<RequestId>,
    /// The result, undecoded, or the error.
    pub outcome: Result<&'a RawValue, ErrorObject>,
}

/// One JSON-RPC message.
#[derive(Debug, Clone)]
pub enum Message<'a> {
    /// A request.
    Request(Request<'a>),
    /// A notification.
    Notification(Notification<'a>),
    /// A response (result or error).
    Response(Response<'a>),
}

impl Message<'_> {
    /// The method name, for requests and notifications.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request(r) => Some(&r.method),
            Message::Notification(n) => Some(&n.method),
            Message::Response(_) => None,
        }
    }
}

/// Why a frame or batch element could not be decoded, with what to answer.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodeError {
    /// The error to send back (-32700 or -32600).
    pub error: ErrorObject,
    /// The request id, when it could be read; the error response echoes it.
    pub id: Option<RequestId>,
    /// Whether the faulty message was a notification (then nothing may be answered).
    pub was_notification: bool,
}

impl DecodeError {
    fn parse(reason: &str) -> Self {
        Self {
            error: ErrorObject::new(PARSE_ERROR, format!("Parse error: {reason}")),
            id: None,
            was_notification: false,
        }
    }
    fn invalid(reason: impl Into<String>, id: Option<RequestId>) -> Self {
        Self {
            error: ErrorObject::invalid_request(format!("Invalid Request: {}", reason.into())),
            id,
            was_notification: false,
        }
    }

    /// Whether a reply should be sent at all (never to a notification).
    pub fn should_reply(&self) -> bool {
        !self.was_notification
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for DecodeError {}

/// Options for [`decode`].
#[derive(Debug, Clone, Copy)]
pub struct DecodeOptions {
    /// Whether a top-level array (a batch) is accepted. Only 2025-03-26 allows them.
    pub allow_batch: bool,
    /// The maximum nesting depth of arrays and objects.
    pub max_depth: usize,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        Self {
            allow_batch: false,
            max_depth: DEFAULT_MAX_DEPTH,
        }
    }
}

/// What one frame decoded to.
#[derive(Debug)]
pub enum Frame<'a> {
    /// One message, or why it is not one.
    Single(Result<Message<'a>, DecodeError>),
    /// A batch: each element decoded on its own (2025-03-26).
    Batch(Vec<Result<Message<'a>, DecodeError>>),
}

/// The fields of a message object, each kept raw so that every failure can be named.
#[derive(Deserialize)]
struct RawFields<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    jsonrpc: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

/// Keeps a present field even when it is `null` (plain `Option` would turn `null` into
/// "absent", and `"id": null` must be told apart from no id).
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// Decodes one frame (a line on stdio, a POST body) into a message or a batch.
///
/// Each failure gets its code: invalid UTF-8, invalid JSON and excessive nesting are -32700;
/// a value that is not an object, a wrong or missing `"jsonrpc"`, an `id` that is `null` or of
/// the wrong type, and a `method` that is not a string are -32600, with the id when readable.
pub fn decode(bytes: &[u8], opts: DecodeOptions) -> Frame<'_> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(_) => return Frame::Single(Err(DecodeError::parse("invalid UTF-8"))),
    };
    if let Err(e) = check_depth(text.as_bytes(), opts.max_depth) {
        return Frame::Single(Err(e));
    }
    let trimmed = text.trim_start_matches([' ', '\t', '\n', '\r']);
    match trimmed.as_bytes().first() {
        Some(b'{') => Frame::Single(decode_object_str(text)),
        Some(b'[') => decode_batch(text, opts),
        _ => Frame::Single(match serde_json::from_str::<de::IgnoredAny>(text) {
            Ok(_) => Err(DecodeError::invalid("not a JSON object", None)),
            Err(e) => Err(DecodeError::parse(&e.to_string())),
        }),
    }
}

fn decode_batch(text: &str, opts: DecodeOptions) -> Frame<'_> {
    let items: Vec<&RawValue> = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return Frame::Single(Err(DecodeError::parse(&e.to_string()))),
    };
    if !opts.allow_batch {
        return Frame::Single(Err(DecodeError::invalid(
            "batches are not supported by this protocol revision",
            None,
        )));
    }
    if items.is_empty() {
        return Frame::Single(Err(DecodeError::invalid("empty batch", None)));
    }
    Frame::Batch(
        items
            .into_iter()
            .map(|raw| {
                let s = raw.get();
                if s.starts_with('{') {
                    decode_object_str(s)
                } else {
                    Err(DecodeError::invalid("batch element is not an object", None))
                }
            })
            .collect(),
    )
}

/// Rejects frames nested deeper than `max` before serde sees them, so the limit is ours
/// and not serde_json's fixed recursion limit.
fn check_depth(bytes: &[u8], max: usize) -> Result<(), DecodeError> {
    let mut depth = 0usize;
    let mut i = 0usize;
    while let Some(&b) = bytes.get(i) {
        i += 1;
        match b {
            // A string: jump to its closing quote (word by word, then one search, so a large
            // text argument costs a memchr pass).
            b'"' => match crate::fast_json::string_close(bytes, i) {
                Some((close, _)) => i = close + 1,
                // Unterminated: serde reports it.
                None => return Ok(()),
            },
            b'{' | b'[' => {
                depth += 1;
                if depth > max {
                    return Err(DecodeError::parse("nesting too deep"));
                }
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    Ok(())
}

fn decode_object_str(text: &str) -> Result<Message<'_>, DecodeError> {
    let fields: RawFields<'_> = match serde_json::from_str(text) {
        Ok(f) => f,
        Err(e) => {
            // A data error on valid JSON (a duplicate key) is an invalid request; anything
            // else is a parse error.
            return Err(match serde_json::from_str::<de::IgnoredAny>(text) {
                Ok(_) => DecodeError::invalid(e.to_string(), None),
                Err(e) => DecodeError::parse(&e.to_string()),
            });
        }
    };
    classify(fields)
}

fn read_id(raw: &RawValue) -> Result<RequestId, &'static str> {
    let s = raw.get();
    match s.as_bytes().first() {
        Some(b'"') => serde_json::from_str::<String>(s)
            .map(RequestId::from)
            .map_err(|_| "invalid id"),
        Some(b'n') => Err("id must not be null"),
        Some(b'-' | b'0'..=b'9') => serde_json::from_str::<i64>(s)
            .map(RequestId::Number)
            .map_err(|_| "id must be a string or an integer"),
        _ => Err("id must be a string or an integer"),
    }
}

fn classify(f: RawFields<'_>) -> Result<Message<'_>, DecodeError> {
    // Read the id first so that every later error can echo it.
    // `"id": null` is only valid on an error response to an unreadable request.
    let null_id = f.id.is_some_and(|raw| raw.get() == "null");
    if null_id && f.method.is_none() && f.error.is_some() && f.result.is_none() {
        return match serde_json::from_str::<ErrorObject>(f.error.map_or("", RawValue::get)) {
            Ok(err) if f.jsonrpc.map(RawValue::get) == Some("\"2.0\"") => {
                Ok(Message::Response(Response {
                    id: None,
                    outcome: Err(err),
                }))
            }
            Ok(_) => Err(DecodeError::invalid("\"jsonrpc\" must be \"2.0\"", None)),
            Err(_) => Err(DecodeError::invalid("malformed error object", None)),
        };
    }
    let id = match f.id {
        None => None,
        Some(raw) => match read_id(raw) {
            Ok(id) => Some(id),
            Err(why) => return Err(DecodeError::invalid(why, None)),
        },
    };
    match f.jsonrpc.map(RawValue::get) {
        Some("\"2.0\"") => {}
        Some(_) => return Err(DecodeError::invalid("\"jsonrpc\" must be \"2.0\"", id)),
        None => return Err(DecodeError::invalid("missing \"jsonrpc\": \"2.0\"", id)),
    }
    if let Some(method) = f.method {
        let method: Cow<'_, str> = match Cow::<str>::deserialize(method) {
            Ok(m) if method.get().starts_with('"') => m,
            _ => {
                return Err(DecodeError {
                    was_notification: id.is_none(),
                    ..DecodeError::invalid("\"method\" must be a string", id)
                });
            }
        };
        if f.result.is_some() || f.error.is_some() {
            return Err(DecodeError {
                was_notification: id.is_none(),
                ..DecodeError::invalid("a request cannot carry \"result\" or \"error\"", id)
            });
        }
        if let Some(p) = f.params
            && !matches!(p.get().as_bytes().first(), Some(b'{' | b'['))
        {
            return Err(DecodeError {
                was_notification: id.is_none(),
                ..DecodeError::invalid("\"params\" must be an object or an array", id)
            });
        }
        return Ok(match id {
            Some(id) => Message::Request(Request {
                id,
                method,
                params: f.params,
            }),
            None => Message::Notification(Notification {
                method,
                params: f.params,
            }),
        });
    }
    match (f.result, f.error) {
        (Some(result), None) => match id {
            Some(id) => Ok(Message::Response(Response {
                id: Some(id),
                outcome: Ok(result),
            })),
            None => Err(DecodeError::invalid("a result needs an id", None)),
        },
        (None, Some(error)) => match serde_json::from_str::<ErrorObject>(error.get()) {
            Ok(err) => Ok(Message::Response(Response {
                id,
                outcome: Err(err),
            })),
            Err(_) => Err(DecodeError::invalid("malformed error object", id)),
        },
        (Some(_), Some(_)) => Err(DecodeError::invalid(
            "a response has exactly one of \"result\" and \"error\"",
            id,
        )),
        (None, None) => Err(DecodeError::invalid(
            "neither a request, a notification nor a response",
            id,
        )),
    }
}

/// Encodes `{"jsonrpc":"2.0","id":…,"result":…}` where the result is already JSON.
pub fn encode_result(id: &RequestId, result: &RawValue) -> Vec<u8> {
    let mut out = Vec::with_capacity(result.get().len() + 40);
    write_result(&mut out, id, result.get());
    out
}

/// Appends `{"jsonrpc":"2.0","id":…,"result":<result_json>}` to `out`.
pub fn write_result(out: &mut Vec<u8>, id: &RequestId, result_json: &str) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    write_id(out, id);
    out.extend_from_slice(b",\"result\":");
    out.extend_from_slice(result_json.as_bytes());
    out.push(b'}');
}

/// Appends an error response to `out`. With `id: None` the `id` is `null`, as JSON-RPC 2.0
/// requires when the request id could not be read (every revision's schema accepts it).
pub fn write_error(out: &mut Vec<u8>, id: Option<&RequestId>, error: &ErrorObject) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    match id {
        Some(id) => write_id(out, id),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"error\":");
    serde_json::to_writer(&mut *out, error).expect("error objects always serialize");
    out.push(b'}');
}

/// Appends a request `{"jsonrpc":"2.0","id":…,"method":…,"params":…}` to `out`.
pub fn write_request(out: &mut Vec<u8>, id: &RequestId, method: &str, params_json: Option<&str>) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
    write_id(out, id);
    write_method_params(out, method, params_json);
}

/// Appends a notification `{"jsonrpc":"2.0","method":…,"params":…}` to `out`.
pub fn write_notification(out: &mut Vec<u8>, method: &str, params_json: Option<&str>) {
    out.extend_from_slice(b"{\"jsonrpc\":\"2.0\"");
    write_method_params(out, method, params_json);
}

fn write_method_params(out: &mut Vec<u8>, method: &str, params_json: Option<&str>) {
    out.extend_from_slice(b",\"method\":");
    serde_json::to_writer(&mut *out, method).expect("strings always serialize");
    if let Some(p) = params_json {
        out.extend_from_slice(b",\"params\":");
        out.extend_from_slice(p.as_bytes());
    }
    out.push(b'}');
}

fn write_id(out: &mut Vec<u8>, id: &RequestId) {
    match id {
        RequestId::Number(n) => {
            use std::io::Write;
            write!(out, "{n}").expect("writing to a Vec cannot fail");
        }
        RequestId::String(s) => {
            serde_json::to_writer(&mut *out, &**s).expect("strings always serialize")
        }
    }
}

/// The `"jsonrpc": "2.0"` marker of an owned message; any other value fails to deserialize.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct V2;

impl Serialize for V2 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str("2.0")
    }
}

impl<'de> Deserialize<'de> for V2 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = Cow::<'de, str>::deserialize(d)?;
        if s == "2.0" {
            Ok(V2)
        } else {
            Err(de::Error::custom("\"jsonrpc\" must be \"2.0\""))
        }
    }
}

/// An owned, typed request `{jsonrpc, id, method, params}`: for building messages and for
/// tests. The hot path uses [`decode`] and the `write_*` functions instead.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub struct TypedRequest<P> {
    /// Always `"2.0"`.
    pub jsonrpc: V2,
    /// The request id.
    pub id: RequestId,
    /// The method name.
    pub method: String,
    /// The params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// An owned, typed notification `{jsonrpc, method, params}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(bound(deserialize = "P: Deserialize<'de>"))]
pub struct TypedNotification<P> {
    /// Always `"2.0"`.
    pub jsonrpc: V2,
    /// The method name.
    pub method: String,
    /// The params.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub params: Option<P>,
}

/// An owned, typed result response `{jsonrpc, id, result}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TypedResponse<R> {
    /// Always `"2.0"`.
    pub jsonrpc: V2,
    /// The id of the request answered.
    pub id: RequestId,
    /// The result.
    pub result: R,
}

/// An owned error response `{jsonrpc, id?, error}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorResponse {
    /// Always `"2.0"`.
    pub jsonrpc: V2,
    /// The id of the request answered; absent when it could not be read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<RequestId>,
    /// The error.
    pub error: ErrorObject,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(bytes: &[u8]) -> Result<Message<'_>, DecodeError> {
        match decode(bytes, DecodeOptions::default()) {
            Frame::Single(m) => m,
            Frame::Batch(_) => panic!("unexpected batch"),
        }
    }

    fn code(bytes: &[u8]) -> (i32, Option<RequestId>) {
        let e = one(bytes).expect_err("should fail");
        (e.error.code, e.id)
    }

    #[test]
    fn ids_keep_their_json_type() {
        let Message::Request(a) = one(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).unwrap()
        else {
            panic!()
        };
        let Message::Request(b) = one(br#"{"jsonrpc":"2.0","id":"1","method":"ping"}"#).unwrap()
        else {
            panic!()
        };
        assert_ne!(a.id, b.id);
        let mut out = Vec::new();
        write_result(&mut out, &a.id, "{}");
        write_result(&mut out, &b.id, "{}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            r#"{"jsonrpc":"2.0","id":1,"result":{}}{"jsonrpc":"2.0","id":"1","result":{}}"#
        );
    }

    #[test]
    fn decoding_failures_have_their_codes() {
        let cases: &[(&[u8], i32, Option<RequestId>)] = &[
            (b"{not json", PARSE_ERROR, None),
            (b"", PARSE_ERROR, None),
            (b"\xff\xfe{}", PARSE_ERROR, None),
            (b"42", INVALID_REQUEST, None),
            (b"\"x\"", INVALID_REQUEST, None),
            (
                br#"{"id":1,"method":"ping"}"#,
                INVALID_REQUEST,
                Some(1.into()),
            ),
            (
                br#"{"jsonrpc":"1.0","id":"a","method":"ping"}"#,
                INVALID_REQUEST,
                Some("a".into()),
            ),
            (
                br#"{"jsonrpc":2.0,"id":3,"method":"ping"}"#,
                INVALID_REQUEST,
                Some(3.into()),
            ),
            (
                br#"{"jsonrpc":"2.0","id":null,"method":"ping"}"#,
                INVALID_REQUEST,
                None,
            ),
            (
                br#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
                INVALID_REQUEST,
                None,
            ),
            (
                br#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
                INVALID_REQUEST,
                None,
            ),
            (
                br#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
                INVALID_REQUEST,
                None,
            ),
            (
                br#"{"jsonrpc":"2.0","id":4,"method":5}"#,
                INVALID_REQUEST,
                Some(4.into()),
            ),
            (
                br#"{"jsonrpc":"2.0","id":4,"method":null}"#,
                INVALID_REQUEST,
                Some(4.into()),
            ),
            (
                br#"{"jsonrpc":"2.0","id":4,"method":"x","params":3}"#,
                INVALID_REQUEST,
                Some(4.into()),
            ),
            (
                br#"{"jsonrpc":"2.0","id":4}"#,
                INVALID_REQUEST,
                Some(4.into()),
            ),
            (
                br#"{"jsonrpc":"2.0","id":4,"result":{},"error":{"code":1,"message":"x"}}"#,
                INVALID_REQUEST,
                Some(4.into()),
            ),
            (br#"{"jsonrpc":"2.0","result":{}}"#, INVALID_REQUEST, None),
            (
                br#"{"jsonrpc":"2.0","id":4,"id":5,"method":"x"}"#,
                INVALID_REQUEST,
                None,
            ),
            (b"[]", INVALID_REQUEST, None),
            (
                br#"[{"jsonrpc":"2.0","id":1,"method":"ping"}]"#,
                INVALID_REQUEST,
                None,
            ),
            (b"[1,", PARSE_ERROR, None),
        ];
        for (bytes, want, id) in cases {
            let (got, got_id) = code(bytes);
            assert_eq!(got, *want, "{}", String::from_utf8_lossy(bytes));
            assert_eq!(&got_id, id, "{}", String::from_utf8_lossy(bytes));
            // Decoding is per frame: the next frame decodes as if nothing had happened.
            assert!(
                matches!(
                    one(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#),
                    Ok(Message::Request(_))
                ),
                "after {}",
                String::from_utf8_lossy(bytes)
            );
        }
    }

    #[test]
    fn nesting_too_deep_is_a_parse_error() {
        let deep = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{{\"a\":{}{}}}}}",
            "[".repeat(200),
            "]".repeat(200)
        );
        assert_eq!(code(deep.as_bytes()).0, PARSE_ERROR);
        // Brackets inside strings do not count.
        let s = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{{\"a\":\"{}\\\"\"}}}}",
            "[".repeat(200)
        );
        assert!(one(s.as_bytes()).is_ok());
        // An escaped backslash ends before the quote; the brackets after the string count.
        let deep_after = format!(
            "{{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\",\"params\":{{\"a\":\"\\\\\",\"b\":{}{}}}}}",
            "[".repeat(20),
            "]".repeat(20)
        );
        let shallow = DecodeOptions {
            max_depth: 10,
            ..DecodeOptions::default()
        };
        match decode(deep_after.as_bytes(), shallow) {
            Frame::Single(Err(e)) => assert!(e.error.message.contains("nesting"), "{e:?}"),
            other => panic!("expected the depth error, got {other:?}"),
        }
        assert!(one(deep_after.as_bytes()).is_ok());
        // A frame cut inside a string, even right after a backslash, is a parse error.
        for cut in [
            &b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"x\\"[..],
            b"{\"a\":\"\\\\\\",
        ] {
            assert_eq!(code(cut).0, PARSE_ERROR, "{}", String::from_utf8_lossy(cut));
        }
    }

    #[test]
    fn a_bad_notification_is_not_answered() {
        let e = one(br#"{"jsonrpc":"2.0","method":7}"#).unwrap_err();
        assert!(!e.should_reply());
    }

    #[test]
    fn messages_of_each_kind() {
        assert!(matches!(
            one(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#).unwrap(),
            Message::Notification(_)
        ));
        let Message::Response(r) = one(br#"{"jsonrpc":"2.0","id":9,"result":{"a":1}}"#).unwrap()
        else {
            panic!()
        };
        assert_eq!(r.outcome.unwrap().get(), r#"{"a":1}"#);
        let Message::Response(r) =
            one(br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#)
                .unwrap()
        else {
            panic!()
        };
        assert_eq!(r.id, None);
        assert_eq!(r.outcome.unwrap_err().code, PARSE_ERROR);
        // Escaped method names are decoded.
        let Message::Request(r) =
            one(br#"{"jsonrpc":"2.0","id":1,"method":"tools\/list"}"#).unwrap()
        else {
            panic!()
        };
        assert_eq!(r.method, "tools/list");
        // Unknown fields are tolerated.
        assert!(one(br#"{"jsonrpc":"2.0","id":1,"method":"ping","extra":true}"#).is_ok());
    }

    #[test]
    fn params_stay_borrowed_raw() {
        let frame = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{"a":1}}}"#;
        let Message::Request(r) = one(frame).unwrap() else {
            panic!()
        };
        let p = r.params.unwrap().get();
        assert_eq!(p, r#"{"name":"add","arguments":{"a":1}}"#);
        let start = frame.as_ptr() as usize;
        let at = p.as_ptr() as usize;
        assert!(
            at > start && at < start + frame.len(),
            "params point into the frame"
        );
    }

    #[test]
    fn batches_when_allowed() {
        let opts = DecodeOptions {
            allow_batch: true,
            ..Default::default()
        };
        let Frame::Batch(items) = decode(
            br#"[{"jsonrpc":"2.0","id":1,"method":"ping"},5,{"jsonrpc":"2.0","method":"n"}]"#,
            opts,
        ) else {
            panic!()
        };
        assert_eq!(items.len(), 3);
        assert!(matches!(items[0], Ok(Message::Request(_))));
        assert_eq!(items[1].as_ref().unwrap_err().error.code, INVALID_REQUEST);
        assert!(matches!(items[2], Ok(Message::Notification(_))));
        let Frame::Single(Err(e)) = decode(b"[]", opts) else {
            panic!()
        };
        assert_eq!(e.error.code, INVALID_REQUEST);
    }

    #[test]
    fn the_next_frame_still_decodes_after_each_failure() {
        // Decoding is per frame and stateless: a failure cannot poison what follows.
        for bad in [&b"{oops"[..], b"\xc3\x28", b"[]", b"null"] {
            assert!(one(bad).is_err());
            assert!(one(br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#).is_ok());
        }
    }

    #[test]
    fn encoders_write_valid_json_rpc() {
        let mut out = Vec::new();
        write_error(&mut out, None, &ErrorObject::parse_error());
        let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["id"], serde_json::Value::Null);
        assert_eq!(v["error"]["code"], PARSE_ERROR);
        out.clear();
        write_request(&mut out, &"r-1".into(), "ping", None);
        assert_eq!(out, br#"{"jsonrpc":"2.0","id":"r-1","method":"ping"}"#);
        out.clear();
        write_notification(
            &mut out,
            "notifications/progress",
            Some(r#"{"progress":1}"#),
        );
        assert_eq!(
            out,
            br#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}}"#
        );
    }
}
