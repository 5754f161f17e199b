//! The 2026-07-28 request `_meta` envelope: reserved keys, typed parsing, stamping.
//!
//! On the modern era every client request carries its protocol revision, capabilities and
//! (should) identity in `params._meta`. [`RequestMeta::from_params`] reads that envelope from a
//! request's raw params without decoding the rest of the params: only the `_meta` member is
//! parsed, the other members are skipped by the JSON scanner.
//!
//! ```
//! use mcp_core::meta::{RequestMeta, carries_modern_envelope};
//! use mcp_core::params::Params;
//! use serde_json::value::RawValue;
//!
//! let params: &RawValue = serde_json::from_str(
//!     r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
//!         "io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}}"#,
//! )
//! .unwrap();
//! assert!(carries_modern_envelope(Some(params)));
//! let meta = RequestMeta::from_params(Some(&Params::from(params))).unwrap().unwrap();
//! assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
//! assert_eq!(meta.progress_token, Some(7.into()));
//! ```

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::params::{Index, Members, Params, Span};

use crate::jsonrpc::{ErrorObject, RequestId};
use crate::types::{Meta, ProgressToken};
use crate::version::ProtocolVersion;

/// `_meta` key of the request's protocol revision (2026, required on requests).
pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
/// `_meta` key of the request's client capabilities (2026, required on requests).
pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
/// `_meta` key of the client's `Implementation` (2026, SHOULD on every request).
pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
/// `_meta` key of the request-scoped minimum log level (2026, optional, deprecated feature).
pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
/// `_meta` key of the server's `Implementation` on results (2026, SHOULD).
pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
/// `_meta` key naming the `subscriptions/listen` stream a notification belongs to (2026).
pub const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";
/// `_meta` key tying a message to a task: `{taskId}` (2025-11-25 tasks).
pub const RELATED_TASK: &str = "io.modelcontextprotocol/related-task";
/// `_meta` key naming the request a log message or a server-to-client request
/// (elicitation, sampling, roots) belongs to: the request's id. Ours, not the
/// specification's: over stdio such a message says nothing of its request, so our servers
/// add this on byte streams and our client (a proxy's above all) routes the message by it
/// to the request's `RequestOptions::on_log` or `RequestOptions::handler`; other peers
/// ignore an unknown key.
pub const RELATED_REQUEST: &str = "dev.mcp-framework/related-request";
/// `_meta` key opting a request into progress notifications (all revisions).
pub const PROGRESS_TOKEN: &str = "progressToken";
/// `_meta` key of the W3C trace context `traceparent` (2026, SEP-414).
pub const TRACEPARENT: &str = "traceparent";
/// `_meta` key of the W3C trace context `tracestate` (2026, SEP-414).
pub const TRACESTATE: &str = "tracestate";
/// `_meta` key of the W3C `baggage` (2026, SEP-414).
pub const BAGGAGE: &str = "baggage";

/// The `LoggingLevel` values (RFC 5424 severities), as the wire spells them.
pub const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The typed view of a request's `params._meta`.
///
/// Every field is `None` when its key is absent. The `_meta` object is kept as sent, undecoded
/// ([`raw`](Self::raw)), typed keys included, so unknown and extension keys pass through
/// untouched and are decoded only when asked for ([`get`](Self::get), [`to_map`](Self::to_map)).
/// `clientInfo` and `clientCapabilities` are read in place from it
/// ([`client_info`](Self::client_info), [`client_capabilities`](Self::client_capabilities)).
///
/// ```
/// use mcp_core::meta::RequestMeta;
/// use serde_json::value::RawValue;
///
/// let meta: &RawValue = serde_json::from_str(
///     r#"{"io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},"com.example/k":[1]}"#,
/// )
/// .unwrap();
/// let m = RequestMeta::from_raw_meta(meta).unwrap();
/// assert_eq!(m.client_info().unwrap().get(), r#"{"name":"c","version":"1"}"#);
/// assert_eq!(m.get("com.example/k").unwrap().get(), "[1]");
/// assert_eq!(m.to_map().len(), 2);
/// ```
#[derive(Debug, Clone)]
pub struct RequestMeta {
    /// `io.modelcontextprotocol/protocolVersion`, exactly as sent.
    pub protocol_version: Option<String>,
    /// The same value parsed; `None` when absent or not a known revision.
    pub version: Option<ProtocolVersion>,
    /// `io.modelcontextprotocol/logLevel`: one of [`LOG_LEVELS`].
    pub log_level: Option<String>,
    /// `progressToken`: a string or an integer, with its JSON type kept.
    pub progress_token: Option<ProgressToken>,
    /// `io.modelcontextprotocol/subscriptionId`: a JSON-RPC id (string or integer).
    pub subscription_id: Option<RequestId>,
    /// `traceparent` (W3C trace context).
    pub traceparent: Option<String>,
    /// `tracestate` (W3C trace context).
    pub tracestate: Option<String>,
    /// `baggage` (W3C baggage).
    pub baggage: Option<String>,
    /// The text `_meta` was read from.
    source: Source,
    /// Where `clientInfo`'s object is in the source, when present.
    client_info: Option<Span>,
    /// Where `clientCapabilities`'s object is in the source, when present.
    client_capabilities: Option<Span>,
}

/// The text a [`RequestMeta`] was read from, as sent.
#[derive(Debug, Clone)]
enum Source {
    /// The `_meta` object itself ([`RequestMeta::from_raw_meta`]).
    Meta(Box<RawValue>),
    /// The whole params object ([`RequestMeta::from_params`], read in one pass): `_meta`
    /// is located in it again only when its text is asked for. Shared with whoever holds
    /// the same [`Params`], so no second copy is made.
    Params(Params),
}

impl Default for RequestMeta {
    /// An empty envelope: `{}`, every field `None`.
    fn default() -> Self {
        Self {
            protocol_version: None,
            version: None,
            log_level: None,
            progress_token: None,
            subscription_id: None,
            traceparent: None,
            tracestate: None,
            baggage: None,
            source: Source::Meta(RawValue::from_string("{}".to_owned()).expect("an object")),
            client_info: None,
            client_capabilities: None,
        }
    }
}

impl PartialEq for RequestMeta {
    /// Equal when the typed fields are equal and `_meta` was sent with the same text.
    fn eq(&self, other: &Self) -> bool {
        self.protocol_version == other.protocol_version
            && self.version == other.version
            && self.log_level == other.log_level
            && self.progress_token == other.progress_token
            && self.subscription_id == other.subscription_id
            && self.traceparent == other.traceparent
            && self.tracestate == other.tracestate
            && self.baggage == other.baggage
            && self.raw().get() == other.raw().get()
    }
}

/// The error for a reserved `_meta` key whose value has the wrong type:
/// `-32602` with message `invalid _meta field: <key>`.
pub fn invalid_field(key: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("invalid _meta field: {key}"))
}

/// The error for a required `_meta` key that is absent:
/// `-32602` with message `missing required _meta field: <key>`.
pub fn missing_field(key: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("missing required _meta field: {key}"))
}

/// Keeps a present member even when it is `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// Only the `_meta` member of a params object; every other member is skipped unparsed.
#[derive(Deserialize)]
struct ParamsProbe<'a> {
    #[serde(rename = "_meta", borrow, default, deserialize_with = "present")]
    meta: Option<&'a RawValue>,
}

/// Only whether the `_meta` member of a params object carries a protocol version; every
/// other member is skipped unparsed.
#[derive(Deserialize)]
struct EnvelopeProbe {
    #[serde(rename = "_meta", default)]
    meta: Option<EnvelopeMark>,
}

/// Whether a `_meta` object has a non-null `protocolVersion`, read in the same pass as the
/// params (a `_meta` that is not an object fails, which reads as "not modern").
struct EnvelopeMark(bool);

impl<'de> Deserialize<'de> for EnvelopeMark {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct MarkVisitor;
        impl<'de> Visitor<'de> for MarkVisitor {
            type Value = EnvelopeMark;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a `_meta` object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<EnvelopeMark, A::Error> {
                let mut version: Option<Option<IgnoredAny>> = None;
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::ProtocolVersion if version.is_some() => {
                            return Err(de::Error::duplicate_field(PROTOCOL_VERSION));
                        }
                        Key::ProtocolVersion => version = Some(map.next_value()?),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(EnvelopeMark(matches!(version, Some(Some(_)))))
            }
        }
        d.deserialize_map(MarkVisitor)
    }
}

/// Where the `_meta` object of some params is, if anywhere.
pub(crate) enum MetaLocation<'a> {
    /// No params, or params without `_meta` (or with `"_meta": null`).
    Absent,
    /// The raw `_meta` member.
    Present(&'a RawValue),
}

/// Params at least this long are searched for `_meta` by [`crate::fast_json::find_member`].
const SCAN_FROM: usize = 1024;

/// Finds the raw `_meta` member of a params object. Fails with -32602 when the params are
/// not an object (or not valid JSON, or `_meta` is duplicated).
pub(crate) fn locate_meta(params: Option<&RawValue>) -> Result<MetaLocation<'_>, ErrorObject> {
    let Some(params) = params else {
        return Ok(MetaLocation::Absent);
    };
    crate::passes::params_pass();
    if !params.get().starts_with('{') {
        return Err(ErrorObject::invalid_params("params must be an object"));
    }
    // Large params (a big argument) are answered by a scan that skips each string with one
    // search; small ones by the serde probe, which then costs less than scan plus parse. The
    // probe also names what the scan cannot decide.
    if params.get().len() >= SCAN_FROM {
        match crate::fast_json::find_member(params.get(), "_meta") {
            Ok(None | Some("null")) => return Ok(MetaLocation::Absent),
            Ok(Some(text)) => {
                if let Ok(raw) = serde_json::from_str::<&RawValue>(text) {
                    return Ok(MetaLocation::Present(raw));
                }
            }
            Err(_) => {}
        }
    }
    let probe: ParamsProbe<'_> = serde_json::from_str(params.get())
        .map_err(|e| ErrorObject::invalid_params(format!("invalid params: {e}")))?;
    Ok(match probe.meta {
        Some(raw) if raw.get() != "null" => MetaLocation::Present(raw),
        _ => MetaLocation::Absent,
    })
}

/// The reserved `_meta` keys the typed view reads; any other key is skipped unparsed.
#[derive(Clone, Copy)]
enum Key {
    ProtocolVersion,
    ClientCapabilities,
    ClientInfo,
    LogLevel,
    ProgressToken,
    SubscriptionId,
    Traceparent,
    Tracestate,
    Baggage,
    Other,
}

impl Key {
    fn of(key: &str) -> Self {
        match key {
            PROTOCOL_VERSION => Key::ProtocolVersion,
            CLIENT_CAPABILITIES => Key::ClientCapabilities,
            CLIENT_INFO => Key::ClientInfo,
            LOG_LEVEL => Key::LogLevel,
            PROGRESS_TOKEN => Key::ProgressToken,
            SUBSCRIPTION_ID => Key::SubscriptionId,
            TRACEPARENT => Key::Traceparent,
            TRACESTATE => Key::Tracestate,
            BAGGAGE => Key::Baggage,
            _ => Key::Other,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Key::ProtocolVersion => PROTOCOL_VERSION,
            Key::ClientCapabilities => CLIENT_CAPABILITIES,
            Key::ClientInfo => CLIENT_INFO,
            Key::LogLevel => LOG_LEVEL,
            Key::ProgressToken => PROGRESS_TOKEN,
            Key::SubscriptionId => SUBSCRIPTION_ID,
            Key::Traceparent => TRACEPARENT,
            Key::Tracestate => TRACESTATE,
            Key::Baggage => BAGGAGE,
            Key::Other => "_meta",
        }
    }
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a `_meta` key")
            }
            // Borrowed or unescaped, the key is only compared: never copied.
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Key, E> {
                Ok(Key::of(v))
            }
        }
        d.deserialize_str(KeyVisitor)
    }
}

/// The typed fields of one `_meta` object, read in a single pass over its text.
///
/// A value of the wrong type stops the pass with the key that had it (the text itself is
/// valid JSON: it was scanned as a raw value before).
#[derive(Debug, Default, Clone)]
pub(crate) struct Fields {
    pub(crate) protocol_version: Option<String>,
    /// The scan saw `protocolVersion` more than once (it keeps the last, as a decoded map
    /// does; [`carries_modern_envelope`]'s probe refuses the repeat, so the era choice
    /// asks the probe).
    pub(crate) version_repeated: bool,
    log_level: Option<String>,
    progress_token: Option<ProgressToken>,
    subscription_id: Option<RequestId>,
    traceparent: Option<String>,
    tracestate: Option<String>,
    baggage: Option<String>,
    client_info: Option<Span>,
    client_capabilities: Option<Span>,
}

impl Fields {
    /// The same fields read from a text whose bytes from `at` on moved by `delta`.
    pub(crate) fn shifted(&self, at: usize, delta: isize) -> Fields {
        Fields {
            client_info: self.client_info.map(|s| s.shifted(at, delta)),
            client_capabilities: self.client_capabilities.map(|s| s.shifted(at, delta)),
            ..self.clone()
        }
    }
}

/// Where a pass over params or `_meta` is, so that a failure names what failed.
#[derive(Clone, Copy)]
enum At {
    /// Among the params' own members.
    Params,
    /// In `_meta`: at the value of this reserved key, or elsewhere (`None`).
    Meta(Option<Key>),
}

/// Reads [`Fields`] out of a `_meta` object inside the text that starts at `base`.
struct FieldsVisitor<'a> {
    base: &'a str,
    at: &'a std::cell::Cell<At>,
}

impl<'de> Visitor<'de> for FieldsVisitor<'_> {
    type Value = Fields;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a `_meta` object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Fields, A::Error> {
        let mut f = Fields::default();
        while let Some(key) = map.next_key::<Key>()? {
            self.at.set(At::Meta(Some(key)));
            // A repeated key keeps its last value, as a decoded map would.
            match key {
                Key::ProtocolVersion => f.protocol_version = Some(map.next_value()?),
                Key::LogLevel => f.log_level = Some(map.next_value()?),
                Key::Traceparent => f.traceparent = Some(map.next_value()?),
                Key::Tracestate => f.tracestate = Some(map.next_value()?),
                Key::Baggage => f.baggage = Some(map.next_value()?),
                Key::ProgressToken => f.progress_token = Some(map.next_value()?),
                Key::SubscriptionId => f.subscription_id = Some(map.next_value()?),
                Key::ClientInfo => f.client_info = Some(self.object_span(map.next_value()?)?),
                Key::ClientCapabilities => {
                    f.client_capabilities = Some(self.object_span(map.next_value()?)?)
                }
                Key::Other => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            self.at.set(At::Meta(None));
        }
        Ok(f)
    }
}

impl FieldsVisitor<'_> {
    /// Where a member's value sits in the `_meta` text; it must be an object.
    fn object_span<E: de::Error>(&self, value: &RawValue) -> Result<Span, E> {
        let text = value.get();
        if !text.starts_with('{') {
            return Err(E::custom("not an object"));
        }
        // `value` borrows from the text being read, so its offset is a pointer difference.
        let start = text.as_ptr() as usize - self.base.as_ptr() as usize;
        Ok(Span {
            start,
            end: start + text.len(),
        })
    }
}

/// Reads the `_meta` member of a params object in the params' pass: `None` when absent or
/// `null`; every other member is skipped unparsed.
struct ParamsVisitor<'a> {
    base: &'a str,
    at: &'a std::cell::Cell<At>,
}

impl<'de> Visitor<'de> for ParamsVisitor<'_> {
    type Value = Option<Fields>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a params object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<Fields>, A::Error> {
        let mut meta: Option<Option<Fields>> = None;
        while let Some(is_meta) = map.next_key::<IsMeta>()? {
            if !is_meta.0 {
                map.next_value::<IgnoredAny>()?;
                continue;
            }
            if meta.is_some() {
                return Err(de::Error::duplicate_field("_meta"));
            }
            self.at.set(At::Meta(None));
            meta = Some(map.next_value_seed(MetaSeed {
                base: self.base,
                at: self.at,
            })?);
            self.at.set(At::Params);
        }
        Ok(meta.flatten())
    }
}

/// Whether a params member is `_meta` (escapes included).
struct IsMeta(bool);

impl<'de> Deserialize<'de> for IsMeta {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct IsMetaVisitor;
        impl Visitor<'_> for IsMetaVisitor {
            type Value = IsMeta;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a member name")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<IsMeta, E> {
                Ok(IsMeta(v == "_meta"))
            }
        }
        d.deserialize_str(IsMetaVisitor)
    }
}

/// The `_meta` value of a params object: `null` is absent, an object is read, anything
/// else fails.
struct MetaSeed<'a> {
    base: &'a str,
    at: &'a std::cell::Cell<At>,
}

impl<'de> de::DeserializeSeed<'de> for MetaSeed<'_> {
    type Value = Option<Fields>;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Option<Fields>, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'de> Visitor<'de> for MetaSeed<'_> {
    type Value = Option<Fields>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a `_meta` object or null")
    }

    fn visit_none<E: de::Error>(self) -> Result<Option<Fields>, E> {
        Ok(None)
    }

    fn visit_unit<E: de::Error>(self) -> Result<Option<Fields>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<Fields>, D::Error> {
        d.deserialize_map(FieldsVisitor {
            base: self.base,
            at: self.at,
        })
        .map(Some)
    }
}

/// Finds one member of a `_meta` object's text, undecoded.
struct FindVisitor<'k> {
    key: &'k str,
}

impl<'de> Visitor<'de> for FindVisitor<'_> {
    type Value = Option<&'de RawValue>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a `_meta` object")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            if key == self.key {
                // A repeated key keeps its last value, as a decoded map would.
                found = Some(map.next_value::<&'de RawValue>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(found)
    }
}

/// The one scan of a params object ([`Params`] keeps what it finds): the `_meta` fields
/// (`None` inside when `_meta` is absent or `null`) and the recorded [`Members`], skipping
/// each string with one search. `None` when the scan leaves the question to serde: a key written with escapes
/// (it may spell a reserved one), a repeated `_meta` or recorded member, a `_meta` that is
/// not an object, or a reserved value that needs decoding or fails its type (serde words
/// that error). `text` is valid JSON (a `RawValue`'s text).
pub(crate) fn scan_params(text: &str) -> Option<Index> {
    crate::passes::params_pass();
    // Whether `_meta` was seen, and whether it is an object (else `null`).
    let mut meta: Option<bool> = None;
    let mut members = Members::default();
    let mut dup = false;
    let mut fields = Fields::default();
    let mut meta_span = None;
    let b = text.as_bytes();
    each_member(text, 0, |key, start| {
        if key == "_meta" {
            if meta.is_some() {
                return None;
            }
            if b[start..].starts_with(b"null") {
                meta = Some(false);
                return Some(start + 4);
            }
            meta = Some(true);
            let end = scan_meta(text, start, &mut fields)?;
            meta_span = Some(Span { start, end });
            return Some(end);
        }
        let end = skip_value(b, start)?;
        if let Some(slot) = members.slot(key) {
            dup |= slot.is_some();
            *slot = Some(Span { start, end });
        }
        Some(end)
    })?;
    // A repeated recorded member is an error only serde words (NameArgs and the like).
    if dup {
        return None;
    }
    Some(Index {
        meta: meta.unwrap_or(false).then_some(fields),
        meta_span,
        members,
    })
}

/// The index just past the JSON value that starts at `i` (valid JSON assumed).
pub(crate) fn skip_value(b: &[u8], mut i: usize) -> Option<usize> {
    use crate::fast_json::string_close;
    match *b.get(i)? {
        b'"' => Some(string_close(b, i + 1)?.0 + 1),
        b'{' | b'[' => {
            let mut depth = 0usize;
            while let Some(&c) = b.get(i) {
                i += 1;
                match c {
                    b'"' => i = string_close(b, i)?.0 + 1,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i);
                        }
                    }
                    _ => {}
                }
            }
            None
        }
        _ => {
            // A number or a literal: up to the next delimiter.
            while !matches!(
                b.get(i),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                i += 1;
            }
            Some(i)
        }
    }
}

/// Calls `f(key, value_start)` for each member of the object at `b[at..]`; `f` returns the
/// index just past the value. Returns the index past the object; `None` when a key has
/// escapes, the text is not an object, or `f` says `None`.
pub(crate) fn each_member<'a>(
    text: &'a str,
    at: usize,
    mut f: impl FnMut(&'a str, usize) -> Option<usize>,
) -> Option<usize> {
    use crate::fast_json::{skip_ws, string_close};
    let b = text.as_bytes();
    let mut i = skip_ws(b, at);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let (key_end, escaped) = string_close(b, i + 1)?;
        if escaped {
            return None;
        }
        // Both ends are quotes, so the slice is on character boundaries.
        let key = text.get(i + 1..key_end)?;
        i = skip_ws(b, key_end + 1);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let end = f(key, skip_ws(b, i + 1))?;
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Reads the typed fields of the `_meta` object at `text[at..]` into `f`; returns the index
/// past it, `None` when serde must decide (see [`scan_params`]).
fn scan_meta(text: &str, at: usize, f: &mut Fields) -> Option<usize> {
    use crate::fast_json::string_close;
    let b = text.as_bytes();
    // A string without escapes, unquoted, and the index past it.
    let plain = |start: usize| -> Option<(String, usize)> {
        if b.get(start) != Some(&b'"') {
            return None;
        }
        let (close, escaped) = string_close(b, start + 1)?;
        (!escaped).then(|| (text[start + 1..close].to_owned(), close + 1))
    };
    // A string or a non-negative integer that fits an `i64` (read the same way by the
    // serde pass without doubt); anything else goes to serde.
    let id = |start: usize| -> Option<(RequestId, usize)> {
        if b.get(start) == Some(&b'"') {
            return plain(start).map(|(s, end)| (RequestId::String(s.into()), end));
        }
        let end = skip_value(b, start)?;
        let v = &text[start..end];
        if v.bytes().all(|c| c.is_ascii_digit()) && (v == "0" || !v.starts_with('0')) {
            return v.parse::<i64>().ok().map(|n| (RequestId::Number(n), end));
        }
        None
    };
    let object = |start: usize| -> Option<(Span, usize)> {
        if b.get(start) != Some(&b'{') {
            return None;
        }
        let end = skip_value(b, start)?;
        Some((Span { start, end }, end))
    };
    each_member(text, at, |key, start| {
        // A repeated key keeps its last value, as the serde pass does.
        Some(match Key::of(key) {
            Key::ProtocolVersion => {
                f.version_repeated |= f.protocol_version.is_some();
                set(&mut f.protocol_version, plain(start)?)
            }
            Key::LogLevel => set(&mut f.log_level, plain(start)?),
            Key::Traceparent => set(&mut f.traceparent, plain(start)?),
            Key::Tracestate => set(&mut f.tracestate, plain(start)?),
            Key::Baggage => set(&mut f.baggage, plain(start)?),
            Key::ProgressToken => set(&mut f.progress_token, id(start)?),
            Key::SubscriptionId => set(&mut f.subscription_id, id(start)?),
            Key::ClientInfo => set(&mut f.client_info, object(start)?),
            Key::ClientCapabilities => set(&mut f.client_capabilities, object(start)?),
            Key::Other => skip_value(b, start)?,
        })
    })
}

/// Stores a scanned value; returns the index past it.
fn set<T>(slot: &mut Option<T>, (value, end): (T, usize)) -> usize {
    *slot = Some(value);
    end
}

impl RequestMeta {
    /// Reads the `_meta` envelope of a request's raw params.
    ///
    /// `Ok(None)` when there are no params or they have no `_meta` (a `"_meta": null` counts
    /// as absent). Only `_meta` is parsed; the other members are skipped.
    ///
    /// Errors (all `-32602`): params that are not an object; `_meta` that is not an object
    /// (`invalid _meta field: _meta`); a reserved key of the wrong type
    /// (`invalid _meta field: <key>`): `protocolVersion`, `logLevel`, `traceparent`,
    /// `tracestate`, `baggage` must be strings, `logLevel` one of [`LOG_LEVELS`],
    /// `clientInfo` and `clientCapabilities` objects, `progressToken` and `subscriptionId`
    /// a string or an integer. Required keys are not checked here (see
    /// [`RequestMeta::require_envelope`]).
    pub fn from_params(params: Option<&Params>) -> Result<Option<Self>, ErrorObject> {
        let Some(params) = params else {
            return Ok(None);
        };
        let text = params.get().get();
        if !text.starts_with('{') {
            return Err(ErrorObject::invalid_params("params must be an object"));
        }
        // The usual envelope is read from the params' one scan (made now, or by an earlier
        // reader); the serde pass below decides everything the scan leaves open (and words
        // the errors).
        if let Some(index) = params.index() {
            return match &index.meta {
                None => Ok(None),
                Some(fields) => {
                    Self::from_fields(fields.clone(), Source::Params(params.clone())).map(Some)
                }
            };
        }
        Self::read_params_serde(params)
    }

    /// The serde pass of [`from_params`](Self::from_params): decides every case, and words
    /// every error.
    fn read_params_serde(params: &Params) -> Result<Option<Self>, ErrorObject> {
        crate::passes::params_pass();
        let text = params.get().get();
        // One pass: `_meta`'s members are read where they stand in the params.
        let at = std::cell::Cell::new(At::Params);
        let mut de = serde_json::Deserializer::from_str(text);
        let read = de::Deserializer::deserialize_map(
            &mut de,
            ParamsVisitor {
                base: text,
                at: &at,
            },
        )
        .and_then(|f| de.end().map(|()| f));
        let fields = match (read, at.get()) {
            (Ok(None), _) => return Ok(None),
            (Ok(Some(fields)), _) => fields,
            (Err(e), At::Params) => {
                return Err(ErrorObject::invalid_params(format!("invalid params: {e}")));
            }
            (Err(_), At::Meta(key)) => {
                return Err(invalid_field(key.map_or("_meta", Key::name)));
            }
        };
        Self::from_fields(fields, Source::Params(params.clone())).map(Some)
    }

    /// Reads an already located raw `_meta` value (see [`RequestMeta::from_params`]).
    ///
    /// One pass over the text: the typed keys are read, every other member is skipped, and
    /// the text is kept as is (one copy) for [`raw`](Self::raw).
    pub fn from_raw_meta(raw: &RawValue) -> Result<Self, ErrorObject> {
        let text = raw.get();
        if !text.starts_with('{') {
            return Err(invalid_field("_meta"));
        }
        let at = std::cell::Cell::new(At::Meta(None));
        let mut de = serde_json::Deserializer::from_str(text);
        let fields = de::Deserializer::deserialize_map(
            &mut de,
            FieldsVisitor {
                base: text,
                at: &at,
            },
        )
        .and_then(|f| de.end().map(|()| f))
        .map_err(|_| match at.get() {
            At::Meta(Some(key)) => invalid_field(key.name()),
            _ => invalid_field("_meta"),
        })?;
        Self::from_fields(fields, Source::Meta(raw.to_owned()))
    }

    /// The typed view of what a pass read, with the checks no type expresses.
    fn from_fields(fields: Fields, source: Source) -> Result<Self, ErrorObject> {
        if fields
            .log_level
            .as_deref()
            .is_some_and(|level| !LOG_LEVELS.contains(&level))
        {
            return Err(invalid_field(LOG_LEVEL));
        }
        Ok(Self {
            version: fields
                .protocol_version
                .as_deref()
                .and_then(ProtocolVersion::parse),
            protocol_version: fields.protocol_version,
            log_level: fields.log_level,
            progress_token: fields.progress_token,
            subscription_id: fields.subscription_id,
            traceparent: fields.traceparent,
            tracestate: fields.tracestate,
            baggage: fields.baggage,
            source,
            client_info: fields.client_info,
            client_capabilities: fields.client_capabilities,
        })
    }

    /// Builds the typed view from a decoded `_meta` object, checking the reserved keys' types
    /// (the same checks as [`RequestMeta::from_raw_meta`], which it encodes the map for).
    pub fn from_map(map: Meta) -> Result<Self, ErrorObject> {
        let raw = serde_json::value::to_raw_value(&map).map_err(|_| invalid_field("_meta"))?;
        Self::from_raw_meta(&raw)
    }

    /// Checks the keys every 2026 request must carry: `protocolVersion` and
    /// `clientCapabilities`. A missing one is `-32602 missing required _meta field: <key>`.
    pub fn require_envelope(&self) -> Result<(), ErrorObject> {
        if self.protocol_version.is_none() {
            return Err(missing_field(PROTOCOL_VERSION));
        }
        if self.client_capabilities.is_none() {
            return Err(missing_field(CLIENT_CAPABILITIES));
        }
        Ok(())
    }

    /// The whole `_meta` object as sent, typed keys included.
    pub fn raw(&self) -> &RawValue {
        let params = match &self.source {
            Source::Meta(meta) => return meta,
            Source::Params(params) => params,
        };
        // Where the params' one scan found it (its text alone checked to be a value), else
        // located anew.
        let text = params.get().get();
        let scanned = (params.index().and_then(|i| i.meta_span))
            .and_then(|s| serde_json::from_str(&text[s.start..s.end]).ok());
        match scanned {
            Some(meta) => meta,
            None => match locate_meta(Some(params.get())) {
                Ok(MetaLocation::Present(meta)) => meta,
                _ => unreachable!("these params were read with a `_meta` object"),
            },
        }
    }

    /// The source text (the spans index into it).
    fn source_text(&self) -> &str {
        match &self.source {
            Source::Meta(text) => text.get(),
            Source::Params(text) => text.get().get(),
        }
    }

    /// One member of `_meta`, undecoded (any key, typed or not); `None` when absent. The
    /// last one wins when a key is repeated.
    pub fn get(&self, key: &str) -> Option<&RawValue> {
        let mut de = serde_json::Deserializer::from_str(self.raw().get());
        de::Deserializer::deserialize_map(&mut de, FindVisitor { key })
            .ok()
            .flatten()
    }

    /// The whole `_meta` object decoded (every key, typed ones included).
    pub fn to_map(&self) -> Meta {
        serde_json::from_str(self.raw().get()).expect("`_meta` was read as an object")
    }

    /// `io.modelcontextprotocol/clientInfo` (an `Implementation` object), undecoded: read
    /// in place from [`raw`](Self::raw). Decode it with `serde_json::from_str(info.get())`.
    pub fn client_info(&self) -> Option<&RawValue> {
        self.client_info.map(|s| self.member(s))
    }

    /// `io.modelcontextprotocol/clientCapabilities` (a `ClientCapabilities` object),
    /// undecoded: read in place from [`raw`](Self::raw).
    pub fn client_capabilities(&self) -> Option<&RawValue> {
        self.client_capabilities.map(|s| self.member(s))
    }

    /// The member value at `span` of `raw`: an object, already checked as such.
    fn member(&self, span: Span) -> &RawValue {
        serde_json::from_str(&self.source_text()[span.start..span.end])
            .expect("a span of `_meta` holds one JSON value")
    }

    /// Whether this envelope carries a protocol version (the mark of a modern request).
    pub fn is_modern_envelope(&self) -> bool {
        self.protocol_version.is_some()
    }
}

/// Whether a request's params carry the modern envelope: a `_meta` object with an
/// `io.modelcontextprotocol/protocolVersion` key (of any non-null value).
///
/// The kernel uses this to fix the era of a stream from its first request. It never fails:
/// params that are not an object, or a `_meta` that is not an object, are "not modern".
pub fn carries_modern_envelope(params: Option<&RawValue>) -> bool {
    let Some(params) = params else {
        return false;
    };
    crate::passes::params_pass();
    scan_envelope(params.get()).unwrap_or_else(|| probe_envelope(params.get()))
}

/// [`carries_modern_envelope`] for params that are read further: answered from their one
/// scan (see [`Params`]), which the envelope and the header checks then reuse; params the
/// scan leaves to serde take [`carries_modern_envelope`]'s probe.
pub fn params_carry_modern_envelope(params: Option<&Params>) -> bool {
    let Some(params) = params else {
        return false;
    };
    match params.index().map(|i| i.meta.as_ref()) {
        Some(None) => false,
        Some(Some(m)) if !m.version_repeated => m.protocol_version.is_some(),
        _ => carries_modern_envelope(Some(params.get())),
    }
}

/// [`carries_modern_envelope`] by a scan that decodes nothing; `None` where only a parse can
/// be sure (escaped keys, repeated members, text that is no object).
fn scan_envelope(params: &str) -> Option<bool> {
    let ([meta], version) =
        crate::fast_json::find_members_nested(params, ["_meta"], (0, PROTOCOL_VERSION)).ok()?;
    // A `_meta` that is not an object reads as "not modern", as it fails the probe.
    Some(meta.is_some_and(|m| m.starts_with('{')) && !matches!(version, None | Some("null")))
}

/// [`carries_modern_envelope`] by serde, in one pass over the params: `_meta` is looked into
/// where it stands, not captured first.
fn probe_envelope(params: &str) -> bool {
    params.starts_with('{')
        && serde_json::from_str::<EnvelopeProbe>(params).is_ok_and(|p| p.meta.is_some_and(|m| m.0))
}

/// Whether the text of one JSON-RPC message that did not decode as a valid one (a missing
/// `jsonrpc`, a bad id, ...) is still a 2026-07-28 message: its method is not `initialize`
/// and its `params` [carry the modern envelope](carries_modern_envelope). A transport asks
/// this to answer an invalid message with the error of its era.
///
/// Never fails: text that is no JSON object is "not modern".
pub fn message_carries_modern_envelope(message: &[u8]) -> bool {
    !lacks_params_meta(message) && probe_message_envelope(message)
}

/// True when a scan finds no `params._meta` (or a `null` one) in a message's text: what a
/// legacy message usually is, ruled out without a serde pass over a large argument.
fn lacks_params_meta(message: &[u8]) -> bool {
    use crate::fast_json::find_member;
    let Ok(text) = std::str::from_utf8(message) else {
        return false;
    };
    match find_member(text, "params") {
        Ok(None) => true,
        Ok(Some(params)) => matches!(find_member(params, "_meta"), Ok(None | Some("null"))),
        Err(_) => false,
    }
}

/// [`message_carries_modern_envelope`] by a serde probe of `method` and `params`.
fn probe_message_envelope(message: &[u8]) -> bool {
    #[derive(Deserialize)]
    struct Probe<'a> {
        #[serde(borrow, default)]
        method: Option<std::borrow::Cow<'a, str>>,
        #[serde(borrow, default)]
        params: Option<&'a RawValue>,
    }
    serde_json::from_slice::<Probe<'_>>(message).is_ok_and(|p| {
        p.method.as_deref() != Some("initialize") && carries_modern_envelope(p.params)
    })
}

/// Stamps an outgoing 2026 client request: returns `params` with `_meta` carrying
/// `protocolVersion`, `clientCapabilities` and (when given) `clientInfo`.
///
/// Other `_meta` keys (`progressToken`, trace context, extension keys) are kept; the three
/// envelope keys are overwritten, since they must describe this connection. A `_meta` that
/// is not an object is replaced. `None` params become an object holding only `_meta`.
pub fn stamp_request(
    params: Option<Map<String, Value>>,
    version: ProtocolVersion,
    client_info: Option<&Map<String, Value>>,
    client_capabilities: &Map<String, Value>,
) -> Map<String, Value> {
    let mut params = params.unwrap_or_default();
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !meta.is_object() {
        *meta = Value::Object(Map::new());
    }
    let Value::Object(meta) = meta else {
        unreachable!("just made an object")
    };
    meta.insert(PROTOCOL_VERSION.into(), Value::from(version.as_str()));
    meta.insert(
        CLIENT_CAPABILITIES.into(),
        Value::Object(client_capabilities.clone()),
    );
    if let Some(info) = client_info {
        meta.insert(CLIENT_INFO.into(), Value::Object(info.clone()));
    }
    params
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    fn parse(s: &str) -> Result<Option<RequestMeta>, ErrorObject> {
        let r = raw(s);
        RequestMeta::from_params(Some(&Params::from(&*r)))
    }

    /// The envelope the serde pass alone reads from `s` (what the scan must agree with).
    fn parse_serde(s: &str) -> Result<Option<RequestMeta>, ErrorObject> {
        RequestMeta::read_params_serde(&Params::new(raw(s)))
    }

    #[test]
    fn the_scan_reads_what_the_serde_pass_reads() {
        let table = [
            r#"{}"#,
            r#" { } "#,
            r#"{"name":"add","arguments":{"a":1,"b":7}}"#,
            r#"{"name":"add","arguments":{"a":1},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"loadgen","version":"0.0.0"}}}"#,
            r#"{ "_meta" : { "progressToken" : 0 , "io.modelcontextprotocol/subscriptionId" : "s" } , "x" : [ 1 , { "_meta" : 2 } ] }"#,
            r#"{"_meta":null}"#,
            r#"{"_meta":{"progressToken":9223372036854775807,"traceparent":"t","tracestate":"s","baggage":"b"}}"#,
            r#"{"_meta":{"progressToken":9223372036854775808}}"#,
            r#"{"_meta":{"progressToken":-3}}"#,
            r#"{"_meta":{"progressToken":-0}}"#,
            r#"{"_meta":{"progressToken":1e2}}"#,
            r#"{"_meta":{"progressToken":1.0}}"#,
            r#"{"_meta":{"progressToken":"a\"b"}}"#,
            r#"{"_meta":{"progressToken":1,"progressToken":"two"}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/logLevel":"info"}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/logLevel":"loud"}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026\u002d07-28"}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/clientInfo":[]}}"#,
            r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"a":{"b":["}"]}}}}"#,
            r#"{"_meta":{"io.modelcontextprotocol\/clientInfo":{"name":"c"}}}"#,
            r#"{"_meta":1}"#,
            r#"{"_meta":"x"}"#,
            r#"{"_meta":{},"_meta":{}}"#,
            r#"{"_m\u0065ta":{"progressToken":2}}"#,
            r#"{"k":"a long string with \\ escapes \" and more than thirty-two bytes in it","_meta":{"k":"\u00e9"}}"#,
            r#"{"name":"x","name":"y","_meta":{"progressToken":1}}"#,
        ];
        for p in table {
            let (scanned, serde) = (parse(p), parse_serde(p));
            assert_eq!(scanned, serde, "{p}");
            if let (Ok(Some(a)), Ok(Some(b))) = (&scanned, &serde) {
                assert_eq!(
                    a.client_info().map(RawValue::get),
                    b.client_info().map(RawValue::get),
                    "{p}"
                );
                assert_eq!(
                    a.client_capabilities().map(RawValue::get),
                    b.client_capabilities().map(RawValue::get),
                    "{p}"
                );
            }
        }
    }

    #[test]
    fn string_close_finds_the_closing_quote_at_every_length_and_offset() {
        use crate::fast_json::string_close;
        for len in 0..90 {
            for esc in [
                None,
                Some(0),
                Some(3),
                Some(7),
                Some(8),
                Some(31),
                Some(63),
                Some(70),
            ] {
                let mut body: Vec<u8> = (0..len).map(|k| b'a' + (k % 26) as u8).collect();
                let escaped = esc.filter(|&e| e + 1 < len).is_some_and(|e| {
                    body[e] = b'\\';
                    body[e + 1] = b'"';
                    true
                });
                let mut text = body.clone();
                text.extend_from_slice(br#"","x""#);
                assert_eq!(
                    string_close(&text, 0),
                    Some((len, escaped)),
                    "{len} {esc:?}"
                );
            }
        }
        assert_eq!(string_close(b"abc", 0), None);
    }

    #[test]
    fn params_members_are_found_in_the_envelope_pass() {
        let p = Params::new(raw(
            r#"{"name":"add","arguments":{"a":[1,"]"]},"task":null,"_meta":{"progressToken":1}}"#,
        ));
        assert_eq!(p.member("name"), None, "nothing is known before a pass");
        RequestMeta::from_params(Some(&p)).unwrap().unwrap();
        assert_eq!(p.member("name"), Some(Some(r#""add""#)));
        assert_eq!(p.member("arguments"), Some(Some(r#"{"a":[1,"]"]}"#)));
        assert_eq!(p.member("task"), Some(Some("null")));
        assert_eq!(p.member("requestState"), Some(None));
        assert_eq!(p.member("inputResponses"), Some(None));
        // Not a remembered key: unknown.
        assert_eq!(p.member("cursor"), None);
        // Other params with the same text (a rewrite): nothing known of them.
        let copy = Params::from(p.get());
        assert_eq!(copy.member("name"), None);
        assert_eq!(p.clone().member("name"), Some(Some(r#""add""#)));
        // Left to serde (a repeated member, an escaped key): unknown.
        for text in [
            r#"{"name":"a","name":"b","_meta":{}}"#,
            r#"{"n\u0061me":"a","_meta":{}}"#,
        ] {
            let p = Params::new(raw(text));
            RequestMeta::from_params(Some(&p)).unwrap().unwrap();
            assert_eq!(p.member("name"), None, "{text}");
        }
    }

    #[test]
    fn keys_are_spelled_as_on_the_wire() {
        let table = [
            (PROTOCOL_VERSION, "io.modelcontextprotocol/protocolVersion"),
            (
                CLIENT_CAPABILITIES,
                "io.modelcontextprotocol/clientCapabilities",
            ),
            (CLIENT_INFO, "io.modelcontextprotocol/clientInfo"),
            (LOG_LEVEL, "io.modelcontextprotocol/logLevel"),
            (SERVER_INFO, "io.modelcontextprotocol/serverInfo"),
            (SUBSCRIPTION_ID, "io.modelcontextprotocol/subscriptionId"),
            (RELATED_TASK, "io.modelcontextprotocol/related-task"),
            (RELATED_REQUEST, "dev.mcp-framework/related-request"),
            (PROGRESS_TOKEN, "progressToken"),
            (TRACEPARENT, "traceparent"),
            (TRACESTATE, "tracestate"),
            (BAGGAGE, "baggage"),
        ];
        for (got, want) in table {
            assert_eq!(got, want);
        }
    }

    #[test]
    fn parses_every_typed_field_and_keeps_the_rest() {
        let m = parse(
            r#"{"name":"x","arguments":{"deep":{"_meta":5}},"_meta":{
              "io.modelcontextprotocol/protocolVersion":"2026-07-28",
              "io.modelcontextprotocol/clientCapabilities":{"elicitation":{}},
              "io.modelcontextprotocol/clientInfo":{"name":"c","version":"1"},
              "io.modelcontextprotocol/logLevel":"warning",
              "io.modelcontextprotocol/subscriptionId":"s1",
              "progressToken":"tok",
              "traceparent":"00-abc-def-01","tracestate":"k=v","baggage":"b=1",
              "com.example/custom":[1,2]}}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(m.protocol_version.as_deref(), Some("2026-07-28"));
        assert_eq!(m.version, Some(ProtocolVersion::V2026_07_28));
        assert_eq!(
            m.client_capabilities().unwrap().get(),
            r#"{"elicitation":{}}"#
        );
        assert_eq!(
            m.client_info().unwrap().get(),
            r#"{"name":"c","version":"1"}"#
        );
        assert_eq!(m.log_level.as_deref(), Some("warning"));
        assert_eq!(m.subscription_id, Some(RequestId::from("s1")));
        assert_eq!(m.progress_token, Some(RequestId::from("tok")));
        assert_eq!(m.traceparent.as_deref(), Some("00-abc-def-01"));
        assert_eq!(m.tracestate.as_deref(), Some("k=v"));
        assert_eq!(m.baggage.as_deref(), Some("b=1"));
        assert_eq!(
            m.get("com.example/custom").map(RawValue::get),
            Some("[1,2]")
        );
        assert_eq!(m.get("progressToken").map(RawValue::get), Some(r#""tok""#));
        assert!(m.get("com.example/absent").is_none());
        let all = m.to_map();
        assert_eq!(all.len(), 10, "raw keeps every key, typed ones included");
        assert_eq!(all["com.example/custom"], json!([1, 2]));
        assert!(
            m.raw()
                .get()
                .starts_with("{\n              \"io.modelcontextprotocol/protocolVersion\"")
        );
        assert!(m.raw().get().ends_with(r#""com.example/custom":[1,2]}"#));
        // Read from the params or from the located `_meta` alone: the same view.
        let alone = RequestMeta::from_raw_meta(m.raw()).unwrap();
        assert_eq!(alone, m);
        assert_eq!(
            alone.client_info().unwrap().get(),
            m.client_info().unwrap().get()
        );
        m.require_envelope().unwrap();
        assert!(m.is_modern_envelope());
    }

    #[test]
    fn keys_written_with_escapes_are_read_as_their_text() {
        // `\u0054` is `T`, `\/` is `/`: the same keys as the plain spellings.
        let m = parse(
            r#"{"_meta":{"progress\u0054oken":5,"io.modelcontextprotocol\/clientInfo":{"name":"c\"q","version":"1"}}}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(m.progress_token, Some(RequestId::Number(5)));
        assert_eq!(
            m.client_info().unwrap().get(),
            r#"{"name":"c\"q","version":"1"}"#
        );
        assert_eq!(m.get(PROGRESS_TOKEN).map(RawValue::get), Some("5"));
        let e = parse(r#"{"_meta":{"progress\u0054oken":1.5}}"#).unwrap_err();
        assert_eq!(e.message, format!("invalid _meta field: {PROGRESS_TOKEN}"));
    }

    #[test]
    fn a_repeated_key_keeps_its_last_value() {
        let m = parse(
            r#"{"_meta":{"progressToken":1,"io.modelcontextprotocol/clientCapabilities":{"a":{}},
              "progressToken":"two","io.modelcontextprotocol/clientCapabilities":{"b":{}}}}"#,
        )
        .unwrap()
        .unwrap();
        assert_eq!(m.progress_token, Some(RequestId::from("two")));
        assert_eq!(m.client_capabilities().unwrap().get(), r#"{"b":{}}"#);
        assert_eq!(m.get(PROGRESS_TOKEN).map(RawValue::get), Some(r#""two""#));
        assert_eq!(m.to_map()[PROGRESS_TOKEN], json!("two"));
    }

    #[test]
    fn the_client_objects_are_read_in_place_and_decode() {
        let m = parse(
            r#"{"_meta":{"io.modelcontextprotocol/clientCapabilities":{"elicitation":{"form":{}},"extensions":{"x/y":{}}},"io.modelcontextprotocol/clientInfo":{"name":"n","version":"2","title":"T"}}}"#,
        )
        .unwrap()
        .unwrap();
        let caps: crate::types::ClientCapabilities =
            serde_json::from_str(m.client_capabilities().unwrap().get()).unwrap();
        assert!(caps.elicitation.is_some());
        assert!(caps.has_extension("x/y"));
        let info: crate::types::Implementation =
            serde_json::from_str(m.client_info().unwrap().get()).unwrap();
        assert_eq!((info.name.as_str(), info.version.as_str()), ("n", "2"));
        // Absent objects are `None`, and a missing clientCapabilities fails the envelope.
        let m = parse(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#)
            .unwrap()
            .unwrap();
        assert!(m.client_info().is_none() && m.client_capabilities().is_none());
        assert!(m.require_envelope().is_err());
    }

    #[test]
    fn from_map_and_default_agree_with_the_text_reader() {
        let map = json!({PROTOCOL_VERSION:"2026-07-28",CLIENT_CAPABILITIES:{},"k":[true]});
        let m = RequestMeta::from_map(map.as_object().unwrap().clone()).unwrap();
        assert_eq!(m.version, Some(ProtocolVersion::V2026_07_28));
        m.require_envelope().unwrap();
        assert_eq!(Value::Object(m.to_map()), map);
        let e = RequestMeta::from_map(json!({LOG_LEVEL:"loud"}).as_object().unwrap().clone())
            .unwrap_err();
        assert_eq!(e.message, format!("invalid _meta field: {LOG_LEVEL}"));
        let d = RequestMeta::default();
        assert_eq!(d.raw().get(), "{}");
        assert!(d.to_map().is_empty() && d.client_capabilities().is_none());
        assert_eq!(RequestMeta::from_raw_meta(d.raw()).unwrap(), d);
    }

    #[test]
    fn absent_meta_is_none() {
        assert_eq!(RequestMeta::from_params(None).unwrap(), None);
        for p in [r#"{}"#, r#"{"name":"x"}"#, r#"{"_meta":null}"#] {
            assert_eq!(parse(p).unwrap(), None, "{p}");
        }
    }

    #[test]
    fn unknown_version_string_is_kept_unparsed() {
        let m = parse(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"1900-01-01"}}"#)
            .unwrap()
            .unwrap();
        assert_eq!(m.protocol_version.as_deref(), Some("1900-01-01"));
        assert_eq!(m.version, None);
    }

    #[test]
    fn progress_token_keeps_its_json_type() {
        let table: &[(&str, RequestId)] = &[
            (r#"{"_meta":{"progressToken":1}}"#, RequestId::Number(1)),
            (r#"{"_meta":{"progressToken":"1"}}"#, RequestId::from("1")),
            (r#"{"_meta":{"progressToken":-5}}"#, RequestId::Number(-5)),
        ];
        for (p, want) in table {
            assert_eq!(
                parse(p).unwrap().unwrap().progress_token.as_ref(),
                Some(want),
                "{p}"
            );
        }
    }

    #[test]
    fn wrong_types_name_the_key() {
        let table: &[(&str, &str)] = &[
            (
                r#"{"io.modelcontextprotocol/protocolVersion":20260728}"#,
                PROTOCOL_VERSION,
            ),
            (
                r#"{"io.modelcontextprotocol/protocolVersion":null}"#,
                PROTOCOL_VERSION,
            ),
            (
                r#"{"io.modelcontextprotocol/clientCapabilities":[]}"#,
                CLIENT_CAPABILITIES,
            ),
            (
                r#"{"io.modelcontextprotocol/clientCapabilities":"all"}"#,
                CLIENT_CAPABILITIES,
            ),
            (
                r#"{"io.modelcontextprotocol/clientInfo":"me"}"#,
                CLIENT_INFO,
            ),
            (r#"{"io.modelcontextprotocol/logLevel":3}"#, LOG_LEVEL),
            (
                r#"{"io.modelcontextprotocol/logLevel":"verbose"}"#,
                LOG_LEVEL,
            ),
            (
                r#"{"io.modelcontextprotocol/subscriptionId":{}}"#,
                SUBSCRIPTION_ID,
            ),
            (r#"{"progressToken":1.5}"#, PROGRESS_TOKEN),
            (r#"{"progressToken":true}"#, PROGRESS_TOKEN),
            (r#"{"progressToken":null}"#, PROGRESS_TOKEN),
            (r#"{"progressToken":18446744073709551615}"#, PROGRESS_TOKEN),
            (r#"{"traceparent":1}"#, TRACEPARENT),
            (r#"{"tracestate":{}}"#, TRACESTATE),
            (r#"{"baggage":[]}"#, BAGGAGE),
        ];
        for (meta, key) in table {
            let p = format!(r#"{{"_meta":{meta}}}"#);
            let e = parse(&p).unwrap_err();
            assert_eq!(e.code, crate::jsonrpc::INVALID_PARAMS, "{p}");
            assert_eq!(e.message, format!("invalid _meta field: {key}"), "{p}");
        }
    }

    #[test]
    fn every_log_level_is_accepted() {
        for level in LOG_LEVELS {
            let p = format!(r#"{{"_meta":{{"io.modelcontextprotocol/logLevel":"{level}"}}}}"#);
            assert_eq!(
                parse(&p).unwrap().unwrap().log_level.as_deref(),
                Some(level)
            );
        }
    }

    #[test]
    fn malformed_params_and_meta() {
        let table: &[(&str, &str)] = &[
            (r#"[1,2]"#, "params must be an object"),
            (r#"{"_meta":[]}"#, "invalid _meta field: _meta"),
            (r#"{"_meta":"x"}"#, "invalid _meta field: _meta"),
            (r#"{"_meta":1}"#, "invalid _meta field: _meta"),
        ];
        for (p, msg) in table {
            let e = parse(p).unwrap_err();
            assert_eq!(e.code, crate::jsonrpc::INVALID_PARAMS, "{p}");
            assert_eq!(&e.message, msg, "{p}");
        }
        let e = parse(r#"{"_meta":{},"_meta":{}}"#).unwrap_err();
        assert_eq!(e.code, crate::jsonrpc::INVALID_PARAMS);
    }

    #[test]
    fn large_params_are_read_as_small_ones() {
        // Above the scan threshold: the same answers as the serde probe gives small params.
        let text = format!("{}\\\"}}{{", "x".repeat(2 * SCAN_FROM));
        let big =
            |rest: &str| format!(r#"{{"name":"echo","arguments":{{"text":"{text}"}}{rest}}}"#);
        let m = parse(&big(r#","_meta":{"progressToken":"p"}"#))
            .unwrap()
            .unwrap();
        assert_eq!(m.progress_token, Some(RequestId::String("p".into())));
        assert_eq!(parse(&big("")).unwrap(), None);
        assert_eq!(parse(&big(r#","_meta":null"#)).unwrap(), None);
        let e = parse(&big(r#","_meta":1"#)).unwrap_err();
        assert_eq!(e.message, "invalid _meta field: _meta");
        for dup in [
            r#","_meta":{},"_meta":{}"#,
            r#","_m\u0065ta":{},"_meta":{}"#,
        ] {
            let e = parse(&big(dup)).unwrap_err();
            assert_eq!(e.code, crate::jsonrpc::INVALID_PARAMS, "{dup}");
        }
        // An escaped key that spells `_meta` is still found.
        let m = parse(&big(r#","_m\u0065ta":{"progressToken":2}"#))
            .unwrap()
            .unwrap();
        assert_eq!(m.progress_token, Some(RequestId::Number(2)));
    }

    #[test]
    fn required_envelope_keys() {
        let table: &[(&str, Option<&str>)] = &[
            (r#"{}"#, Some(PROTOCOL_VERSION)),
            (
                r#"{"io.modelcontextprotocol/clientCapabilities":{}}"#,
                Some(PROTOCOL_VERSION),
            ),
            (
                r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}"#,
                Some(CLIENT_CAPABILITIES),
            ),
            (
                r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#,
                None,
            ),
        ];
        for (meta, missing) in table {
            let m = parse(&format!(r#"{{"_meta":{meta}}}"#)).unwrap().unwrap();
            match missing {
                None => m.require_envelope().unwrap(),
                Some(key) => {
                    let e = m.require_envelope().unwrap_err();
                    assert_eq!(e.code, crate::jsonrpc::INVALID_PARAMS);
                    assert_eq!(e.message, format!("missing required _meta field: {key}"));
                }
            }
        }
    }

    #[test]
    fn modern_envelope_detection() {
        let table: &[(Option<&str>, bool)] = &[
            (None, false),
            (Some(r#"{}"#), false),
            (
                Some(r#"{"protocolVersion":"2025-06-18","capabilities":{}}"#),
                false,
            ),
            (Some(r#"{"_meta":{"progressToken":1}}"#), false),
            (Some(r#"{"_meta":null}"#), false),
            (Some(r#"{"_meta":"x"}"#), false),
            (Some(r#"[1]"#), false),
            (
                Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":null}}"#),
                false,
            ),
            (
                Some(r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#),
                true,
            ),
            (
                Some(
                    r#"{"x":{"_meta":{}},"_meta":{"io.modelcontextprotocol/protocolVersion":"9"}}"#,
                ),
                true,
            ),
            // Nested `_meta` objects do not count.
            (
                Some(
                    r#"{"arguments":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}"#,
                ),
                false,
            ),
            // A key written with escapes is the same key.
            (
                Some(r#"{"_meta":{"io.modelcontextprotocol\/protocolVersion":"2026-07-28"}}"#),
                true,
            ),
            // Malformed: an array of params, a repeated `_meta` or protocol version.
            (
                Some(r#"[{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}]"#),
                false,
            ),
            (
                Some(
                    r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"_meta":{}}"#,
                ),
                false,
            ),
            (
                Some(
                    r#"{"_meta":{"io.modelcontextprotocol/protocolVersion":"a","io.modelcontextprotocol/protocolVersion":"b"}}"#,
                ),
                false,
            ),
        ];
        let mut scanned = 0;
        for (p, want) in table {
            let r = p.map(raw);
            assert_eq!(carries_modern_envelope(r.as_deref()), *want, "{p:?}");
            // The scan, where it answers, and the probe agree.
            if let Some(p) = p {
                assert_eq!(probe_envelope(p), *want, "{p}");
                if let Some(s) = scan_envelope(p) {
                    assert_eq!(s, *want, "{p}");
                    scanned += 1;
                }
            }
        }
        assert!(scanned >= 8, "the scan answers the plain cases ({scanned})");
    }

    #[test]
    fn envelope_scan_answers_as_the_probe() {
        let pv = r#""io.modelcontextprotocol/protocolVersion""#;
        let cases = [
            "{}".to_owned(),
            format!(r#"{{"name":"add","_meta":{{{pv}:"2026-07-28"}},"arguments":{{}}}}"#),
            format!(r#"{{"_meta":{{"progressToken":1,{pv}:5}}}}"#),
            format!(r#"{{"_meta":{{{pv}:null}}}}"#),
            r#"{"_meta":{"progressToken":1}}"#.to_owned(),
            r#"{"_meta":null}"#.to_owned(),
            format!(r#"{{"_meta":[{pv}]}}"#),
            r#"{"_meta":"2026-07-28"}"#.to_owned(),
            format!(r#"{{"a":"}}\"{{","_meta":{{"x":{{"_meta":1}},{pv}:"v"}}}}"#),
            // Left to the probe: repeats and escaped keys.
            format!(r#"{{"_meta":{{{pv}:"a",{pv}:"b"}}}}"#),
            format!(r#"{{"_meta":{{}},"_meta":{{{pv}:"a"}}}}"#),
            r#"{"_meta":{"io.modelcontextprotocol\/protocolVersion":"a"}}"#.to_owned(),
            "[1]".to_owned(),
        ];
        let mut declined = 0;
        for c in &cases {
            match scan_envelope(c) {
                Some(s) => assert_eq!(s, probe_envelope(c), "{c}"),
                None => declined += 1,
            }
        }
        assert_eq!(
            declined, 4,
            "only repeats, escapes and non-objects are left to the probe"
        );
        assert!(carries_modern_envelope(Some(&raw(&cases[1]))));
        assert!(carries_modern_envelope(Some(&raw(&cases[8]))));
        assert!(carries_modern_envelope(Some(&raw(&cases[11]))));
    }

    #[test]
    fn invalid_messages_are_judged_by_their_method_and_params() {
        let pv = PROTOCOL_VERSION;
        let table = [
            (
                format!(
                    r#"{{"method":"tools/call","params":{{"_meta":{{"{pv}":"2026-07-28"}}}}}}"#
                ),
                true,
            ),
            (
                format!(
                    r#"{{"id":null,"method":"ping","params":{{"a":[1],"_meta":{{"{pv}":"x"}}}}}}"#
                ),
                true,
            ),
            (
                format!(
                    r#"{{"method":"initialize","params":{{"_meta":{{"{pv}":"2026-07-28"}}}}}}"#
                ),
                false,
            ),
            (
                r#"{"method":"tools/call","params":{"name":"a"}}"#.to_owned(),
                false,
            ),
            (
                r#"{"method":"tools/call","params":{"_meta":null}}"#.to_owned(),
                false,
            ),
            (
                r#"{"method":"tools/call","params":{"_meta":{}}}"#.to_owned(),
                false,
            ),
            (r#"{"method":"tools/call"}"#.to_owned(), false),
            // An escaped key: the scan cannot rule it out, the probe reads it.
            (
                format!(r#"{{"params":{{"_m\u0065ta":{{"{pv}":"v"}}}}}}"#),
                true,
            ),
            // A repeated member, a truncated text, no JSON: the probe fails.
            (
                format!(r#"{{"params":{{"_meta":{{"{pv}":"v"}}}},"params":{{}}}}"#),
                false,
            ),
            (
                format!(r#"{{"method":"x","params":{{"_meta":{{"{pv}":"v"}}}}"#),
                false,
            ),
            ("not json".to_owned(), false),
        ];
        let mut ruled_out = 0;
        for (text, want) in &table {
            let bytes = text.as_bytes();
            assert_eq!(message_carries_modern_envelope(bytes), *want, "{text}");
            // The scan rules out only what the probe rules out.
            if lacks_params_meta(bytes) {
                assert!(!probe_message_envelope(bytes), "{text}");
                ruled_out += 1;
            }
        }
        assert!(ruled_out >= 3, "the scan rules out the plain legacy cases");
        assert!(!message_carries_modern_envelope(b"{\"params\":\xff}"));
    }

    #[test]
    fn stamping_inserts_the_envelope_and_keeps_other_keys() {
        let caps = json!({"elicitation":{}}).as_object().unwrap().clone();
        let info = json!({"name":"c","version":"1"})
            .as_object()
            .unwrap()
            .clone();
        let v = ProtocolVersion::V2026_07_28;

        type Case<'a> = (Option<Value>, Option<&'a Map<String, Value>>, Value);
        let table: &[Case<'_>] = &[
            (
                None,
                Some(&info),
                json!({"_meta":{PROTOCOL_VERSION:"2026-07-28",CLIENT_CAPABILITIES:{"elicitation":{}},CLIENT_INFO:{"name":"c","version":"1"}}}),
            ),
            (
                Some(json!({"cursor":"c1"})),
                None,
                json!({"cursor":"c1","_meta":{PROTOCOL_VERSION:"2026-07-28",CLIENT_CAPABILITIES:{"elicitation":{}}}}),
            ),
            (
                Some(
                    json!({"name":"t","_meta":{"progressToken":3,"traceparent":"t",PROTOCOL_VERSION:"old"}}),
                ),
                Some(&info),
                json!({"name":"t","_meta":{"progressToken":3,"traceparent":"t",PROTOCOL_VERSION:"2026-07-28",CLIENT_CAPABILITIES:{"elicitation":{}},CLIENT_INFO:{"name":"c","version":"1"}}}),
            ),
            (
                Some(json!({"_meta":"junk"})),
                None,
                json!({"_meta":{PROTOCOL_VERSION:"2026-07-28",CLIENT_CAPABILITIES:{"elicitation":{}}}}),
            ),
        ];
        for (params, info, want) in table {
            let params = params.as_ref().map(|p| p.as_object().unwrap().clone());
            let got = stamp_request(params, v, *info, &caps);
            assert_eq!(Value::Object(got.clone()), *want);
            // A stamped request passes its own envelope check.
            let text = serde_json::to_string(&got).unwrap();
            let r = raw(&text);
            assert!(carries_modern_envelope(Some(&r)));
            let m = RequestMeta::from_params(Some(&Params::from(&*r)))
                .unwrap()
                .unwrap();
            m.require_envelope().unwrap();
            assert_eq!(m.version, Some(v));
        }
    }
}
