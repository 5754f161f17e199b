//! Request headers of the 2026-07-28 Streamable HTTP transport, as pure functions.
//!
//! The 2026 transport mirrors selected body fields into HTTP headers so intermediaries can
//! route without parsing the body; the body stays the source of truth and a server that
//! reads the body MUST reject a request whose headers disagree with it (HTTP `400`,
//! JSON-RPC `-32020` [`HEADER_MISMATCH`]).
//!
//! | Header | Value | Required on |
//! | --- | --- | --- |
//! | [`MCP_PROTOCOL_VERSION`] | `_meta["io.modelcontextprotocol/protocolVersion"]` | every request POST |
//! | [`MCP_METHOD`] | `method` | every request |
//! | [`MCP_NAME`] | `params.name` / `params.uri` / `params.taskId`, see [`name_source_field`] | `tools/call`, `prompts/get`, `resources/read`; tasks extension: `tasks/get`, `tasks/update`, `tasks/cancel` |
//! | `Mcp-Param-{Name}` ([`MCP_PARAM_PREFIX`]) | a `tools/call` argument annotated `"x-mcp-header": "{Name}"` | when the argument is present and not `null` |
//!
//! Nothing here knows an HTTP crate: headers are read through the small [`HeaderSource`]
//! trait (implemented for slices and vectors of `(name, value)` pairs and for closures via
//! [`HeaderFn`]); names are compared ASCII-case-insensitively, values case-sensitively.
//!
//! - Client side: [`request_headers`] produces every header a request must carry.
//! - Server side: [`validate_request_headers`] is the one check the transport runs.
//! - Tool definitions: [`validate_header_annotations`] judges `x-mcp-header` annotations
//!   (an HTTP client drops a tool that fails it) and [`header_params`] extracts the
//!   header-to-argument-path map.
//!
//! ```
//! use mcp_core::headers::{request_headers, validate_request_headers, Params};
//! use serde_json::json;
//!
//! let schema = json!({
//!     "type": "object",
//!     "properties": { "region": { "type": "string", "x-mcp-header": "Region" } }
//! });
//! let schema = schema.as_object().unwrap();
//! let params = json!({
//!     "name": "execute_sql",
//!     "arguments": { "region": "us-west1" },
//!     "_meta": { "io.modelcontextprotocol/protocolVersion": "2026-07-28" }
//! });
//! let headers = request_headers("tools/call", Params::Value(&params), Some(schema));
//! assert_eq!(headers, vec![
//!     ("MCP-Protocol-Version".to_string(), "2026-07-28".to_string()),
//!     ("Mcp-Method".to_string(), "tools/call".to_string()),
//!     ("Mcp-Name".to_string(), "execute_sql".to_string()),
//!     ("Mcp-Param-Region".to_string(), "us-west1".to_string()),
//! ]);
//! // The server accepts exactly what the client sends.
//! validate_request_headers(&headers, "tools/call", Params::Value(&params), Some("2026-07-28"), Some(schema))
//!     .unwrap();
//! ```
//!
//! Decisions where the specification leaves room (each is tested):
//!
//! - A header given on more than one field line is rejected ([`HeaderErrorKind::Repeated`]):
//!   combining lines with commas would change a name or URI.
//! - Optional whitespace around a field value (RFC 9110 OWS: SP, HTAB) is trimmed before
//!   judging it; what remains must be printable ASCII (`0x20..=0x7E`), else
//!   [`HeaderErrorKind::InvalidCharacters`]. A conforming client encodes everything else.
//! - The comparison is driven by the JSON type of the body value: strings compare exactly
//!   (after Base64 decoding), booleans only as lowercase `true`/`false`, numbers
//!   numerically. An integer header is a plain decimal, `-?[0-9]+(.[0-9]+)?`: leading zeros
//!   and an all-zero fraction are allowed (`"007"`, `"42.0"`, `"-0"` equal `7`, `42`, `0`),
//!   while `+`, exponents, hex, and surrounding text are mismatches. Integers are compared
//!   exactly (no rounding through `f64`).
//! - A `Mcp-Param-*` header sent for an argument that is absent, `null`, an array or an
//!   object is a mismatch ([`HeaderErrorKind::Unexpected`]): the header claims a value the
//!   body does not carry. `Mcp-Param-*` headers that the tool's schema does not declare
//!   are ignored, as intermediaries must forward them.
//! - When the body lacks the value a header mirrors (no `_meta` protocol version, no
//!   string `params.name`), only that header's comparison is skipped: the body is invalid
//!   and is rejected by params validation (`-32602`).
//! - A type of `["string", "null"]` (one allowed primitive plus `null`) is accepted for an
//!   annotated property, since the transport defines `null` arguments (header omitted).

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use crate::jsonrpc::{ErrorObject, HEADER_MISMATCH};

/// `MCP-Protocol-Version`: the request's protocol revision; on every POST (2026).
pub const MCP_PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
/// `Mcp-Method`: mirrors the JSON-RPC `method` of every request (2026).
pub const MCP_METHOD: &str = "Mcp-Method";
/// `Mcp-Name`: mirrors the name, URI or task id of the methods [`name_source_field`] lists.
pub const MCP_NAME: &str = "Mcp-Name";
/// `Mcp-Param-`: prefix of the headers mirroring `x-mcp-header`-annotated tool arguments.
pub const MCP_PARAM_PREFIX: &str = "Mcp-Param-";
/// `Mcp-Session-Id`: the legacy (2025) session header; a 2026 server ignores it.
pub const MCP_SESSION_ID: &str = "Mcp-Session-Id";
/// `Last-Event-ID`: the legacy SSE resumption header; a 2026 server ignores it.
pub const LAST_EVENT_ID: &str = "Last-Event-ID";

/// The schema keyword that mirrors a tool argument into a `Mcp-Param-{Name}` header.
pub const X_MCP_HEADER: &str = "x-mcp-header";
/// Opening marker of a Base64-encoded header value (case-sensitive, exact).
pub const SENTINEL_PREFIX: &str = "=?base64?";
/// Closing marker of a Base64-encoded header value (case-sensitive, exact).
pub const SENTINEL_SUFFIX: &str = "?=";
/// The HTTP status of every header validation failure: `400 Bad Request`.
pub const HTTP_STATUS_BAD_REQUEST: u16 = 400;
/// The largest integer an annotated argument may carry: 2^53 − 1 (JavaScript's safe range).
pub const MAX_SAFE_INTEGER: i64 = (1 << 53) - 1;

const PROTOCOL_VERSION_META_KEY: &str = "io.modelcontextprotocol/protocolVersion";

// ---------------------------------------------------------------------------------------
// Reading headers
// ---------------------------------------------------------------------------------------

/// Read access to the header fields of one HTTP request.
///
/// Implemented for slices, arrays and vectors of `(name, value)` pairs (names compared
/// ASCII-case-insensitively) and, through [`HeaderFn`], for any closure, e.g. over an
/// `http::HeaderMap`:
///
/// ```
/// use mcp_core::headers::{HeaderFn, HeaderSource};
///
/// let pairs = vec![("mcp-method".to_string(), "tools/list".to_string())];
/// let headers = HeaderFn(|name: &str, each: &mut dyn FnMut(&[u8])| {
///     for (k, v) in &pairs {
///         if k.eq_ignore_ascii_case(name) {
///             each(v.as_bytes());
///         }
///     }
/// });
/// let mut seen = Vec::new();
/// headers.for_each_value("Mcp-Method", &mut |v| seen.push(v.to_vec()));
/// assert_eq!(seen, vec![b"tools/list".to_vec()]);
/// ```
pub trait HeaderSource {
    /// Calls `each` with the raw value of every field line named `name`, in order, matching
    /// names ASCII-case-insensitively.
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8]));
}

impl<K: AsRef<str>, V: AsRef<[u8]>> HeaderSource for [(K, V)] {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        for (k, v) in self {
            if k.as_ref().eq_ignore_ascii_case(name) {
                each(v.as_ref());
            }
        }
    }
}

impl<K: AsRef<str>, V: AsRef<[u8]>, const N: usize> HeaderSource for [(K, V); N] {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        self.as_slice().for_each_value(name, each)
    }
}

impl<K: AsRef<str>, V: AsRef<[u8]>> HeaderSource for Vec<(K, V)> {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        self.as_slice().for_each_value(name, each)
    }
}

impl<T: HeaderSource + ?Sized> HeaderSource for &T {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        (**self).for_each_value(name, each)
    }
}

/// A [`HeaderSource`] backed by a closure `(name, each)` that calls `each` with every value
/// of the header `name`; the closure is responsible for case-insensitive name matching.
#[derive(Debug, Clone, Copy)]
pub struct HeaderFn<F>(pub F);

impl<F: Fn(&str, &mut dyn FnMut(&[u8]))> HeaderSource for HeaderFn<F> {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        (self.0)(name, each)
    }
}

/// The single value of header `name`, OWS-trimmed and checked to be printable ASCII.
///
/// `Ok(None)` when absent; [`HeaderErrorKind::Repeated`] when given on several field lines;
/// [`HeaderErrorKind::InvalidCharacters`] when a byte outside `0x20..=0x7E` remains.
pub fn single_header<H: HeaderSource + ?Sized>(
    headers: &H,
    name: &str,
) -> Result<Option<String>, HeaderError> {
    with_single_header(headers, name, |v| v.map(str::to_string))
}

/// [`single_header`] without copying the value: `judge` sees it in place (`None` when
/// absent) and its answer is returned, unless the header is repeated or holds invalid
/// characters (the same errors, in the same order, as [`single_header`]).
fn with_single_header<H: HeaderSource + ?Sized, T>(
    headers: &H,
    name: &str,
    judge: impl FnOnce(Option<&str>) -> T,
) -> Result<T, HeaderError> {
    let mut judge = Some(judge);
    let mut first: Option<Result<T, HeaderErrorKind>> = None;
    let mut count = 0usize;
    headers.for_each_value(name, &mut |v| {
        count += 1;
        if let Some(judge) = judge.take() {
            let trimmed = trim_ows(v);
            first = Some(if trimmed.iter().all(|b| (0x20..=0x7e).contains(b)) {
                let text = std::str::from_utf8(trimmed).expect("printable ASCII is UTF-8");
                Ok(judge(Some(text)))
            } else {
                Err(HeaderErrorKind::InvalidCharacters)
            });
        }
    });
    if count > 1 {
        return Err(HeaderError::new(name, HeaderErrorKind::Repeated));
    }
    match (first, judge) {
        (Some(judged), _) => judged.map_err(|kind| HeaderError::new(name, kind)),
        (None, Some(judge)) => Ok(judge(None)),
        (None, None) => unreachable!("a judged value is kept"),
    }
}

fn trim_ows(v: &[u8]) -> &[u8] {
    let is_ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = v.iter().position(|b| !is_ows(b)).unwrap_or(v.len());
    let end = v.iter().rposition(|b| !is_ows(b)).map_or(start, |i| i + 1);
    &v[start..end]
}

// ---------------------------------------------------------------------------------------
// Value encoding
// ---------------------------------------------------------------------------------------

/// Whether `s` can be sent as a plain header value: only printable ASCII (`0x20..=0x7E`)
/// and no leading or trailing space. The empty string is safe.
pub fn is_header_safe(s: &str) -> bool {
    s.bytes().all(|b| (0x20..=0x7e).contains(&b)) && !s.starts_with(' ') && !s.ends_with(' ')
}

/// Whether `s` has the shape of a Base64 sentinel: starts with `=?base64?` and ends with
/// `?=` (markers exact and lowercase).
pub fn looks_like_sentinel(s: &str) -> bool {
    s.starts_with(SENTINEL_PREFIX) && s.ends_with(SENTINEL_SUFFIX)
}

/// Encodes a string for a `Mcp-Name` or `Mcp-Param-*` header: as-is when
/// [header-safe](is_header_safe) and not [sentinel-shaped](looks_like_sentinel), otherwise
/// `=?base64?{standard Base64 of the UTF-8 bytes}?=`.
///
/// ```
/// use mcp_core::headers::encode_header_value;
/// assert_eq!(encode_header_value("us-west1"), "us-west1");
/// assert_eq!(encode_header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
/// ```
pub fn encode_header_value(s: &str) -> Cow<'_, str> {
    if is_header_safe(s) && !looks_like_sentinel(s) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!(
            "{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}",
            STANDARD.encode(s.as_bytes())
        ))
    }
}

/// Why a sentinel-shaped header value could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SentinelError {
    /// The markers overlap (`=?base64?=`): there is no payload between them.
    Truncated,
    /// The payload is not canonical standard Base64 (alphabet `A–Z a–z 0–9 + /`, `=` padding).
    InvalidBase64,
    /// The decoded bytes are not UTF-8.
    InvalidUtf8,
}

impl fmt::Display for SentinelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Truncated => "the =?base64? and ?= markers overlap",
            Self::InvalidBase64 => "the payload is not valid standard Base64",
            Self::InvalidUtf8 => "the decoded payload is not UTF-8",
        })
    }
}

impl std::error::Error for SentinelError {}

/// Decodes a received `Mcp-Name` / `Mcp-Param-*` value: a [sentinel-shaped](looks_like_sentinel)
/// value is Base64-decoded, anything else is returned unchanged.
///
/// ```
/// use mcp_core::headers::decode_header_value;
/// assert_eq!(decode_header_value("=?base64?IHBhZGRlZCA=?=").unwrap(), " padded ");
/// assert_eq!(decode_header_value("plain").unwrap(), "plain");
/// assert!(decode_header_value("=?base64?not base64?=").is_err());
/// ```
pub fn decode_header_value(raw: &str) -> Result<Cow<'_, str>, SentinelError> {
    if !looks_like_sentinel(raw) {
        return Ok(Cow::Borrowed(raw));
    }
    if raw.len() < SENTINEL_PREFIX.len() + SENTINEL_SUFFIX.len() {
        return Err(SentinelError::Truncated);
    }
    let payload = &raw[SENTINEL_PREFIX.len()..raw.len() - SENTINEL_SUFFIX.len()];
    let bytes = STANDARD
        .decode(payload)
        .map_err(|_| SentinelError::InvalidBase64)?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| SentinelError::InvalidUtf8)
}

/// The header value a client sends for an annotated argument, or `None` when no header is
/// sent: strings [encoded](encode_header_value), integers in decimal, booleans
/// `true`/`false`; `null`, arrays and objects give `None`.
///
/// A non-integral number (which the schema forbids) is written as JSON writes it, so a
/// server comparing numerically still agrees.
pub fn argument_header_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(encode_header_value(s).into_owned()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(match body_number(n) {
            BodyNumber::Integer(i) => i.to_string(),
            BodyNumber::Float(_) => n.to_string(),
        }),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

// ---------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------

enum BodyNumber {
    Integer(i128),
    Float(f64),
}

fn body_number(n: &serde_json::Number) -> BodyNumber {
    if let Some(i) = n.as_i64() {
        BodyNumber::Integer(i.into())
    } else if let Some(u) = n.as_u64() {
        BodyNumber::Integer(u.into())
    } else {
        let f = n.as_f64().unwrap_or(f64::NAN);
        if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e18 {
            BodyNumber::Integer(f as i128)
        } else {
            BodyNumber::Float(f)
        }
    }
}

/// Parses `-?[0-9]+(.[0-9]+)?` whose fraction is all zeros into an integer.
fn parse_decimal_integer(s: &str) -> Option<i128> {
    let (neg, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (int, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if let Some(f) = frac
        && (f.is_empty() || !f.bytes().all(|b| b == b'0'))
    {
        return None;
    }
    let mut v: i128 = 0;
    for b in int.bytes() {
        v = v.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
    }
    Some(if neg { -v } else { v })
}

/// Parses `-?[0-9]+(.[0-9]+)?([eE][+-]?[0-9]+)?` as a float.
fn parse_decimal_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return None;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if !digits(&mut i) {
            return None;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if !digits(&mut i) {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    s.parse().ok()
}

/// Whether a decoded header value mirrors the body value `body`.
///
/// Driven by the body value's JSON type: a string must be equal byte for byte; a boolean
/// must be spelled `true` or `false`; an integer must be a plain decimal of the same value
/// (`"007"` and `"42.0"` are accepted, `"+7"`, `"4.2e1"`, `"0x2A"` are not); a non-integral
/// number is compared as a float. `null`, arrays and objects match nothing.
pub fn header_value_matches(decoded: &str, body: &Value) -> bool {
    match body {
        Value::String(s) => decoded == s,
        Value::Bool(b) => decoded == if *b { "true" } else { "false" },
        Value::Number(n) => match body_number(n) {
            BodyNumber::Integer(i) => parse_decimal_integer(decoded) == Some(i),
            BodyNumber::Float(f) => parse_decimal_float(decoded) == Some(f),
        },
        Value::Null | Value::Array(_) | Value::Object(_) => false,
    }
}

// ---------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------

/// What is wrong with a header; see [`HeaderError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderErrorKind {
    /// A required header is absent.
    Missing,
    /// The header is given on more than one field line.
    Repeated,
    /// The value holds a byte outside printable ASCII (`0x20..=0x7E`) after trimming.
    InvalidCharacters,
    /// The value is sentinel-shaped but does not decode.
    MalformedEncoding(SentinelError),
    /// The (decoded) value differs from the body value.
    Mismatch {
        /// The header value as decoded.
        header_value: String,
        /// The body value: a string verbatim, anything else as JSON.
        body_value: String,
    },
    /// The header is present but the body carries no value for it (absent, `null`, or not
    /// a primitive).
    Unexpected {
        /// The header value as decoded.
        header_value: String,
    },
}

/// A rejected request header: HTTP `400` and JSON-RPC `-32020` ([`HEADER_MISMATCH`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderError {
    /// The header's canonical name, e.g. `Mcp-Name` or `Mcp-Param-Region`.
    pub header: String,
    /// What is wrong with it.
    pub kind: HeaderErrorKind,
}

impl HeaderError {
    /// An error about header `header`.
    pub fn new(header: impl Into<String>, kind: HeaderErrorKind) -> Self {
        Self {
            header: header.into(),
            kind,
        }
    }

    /// The HTTP status to answer with: always `400`.
    pub const fn http_status(&self) -> u16 {
        HTTP_STATUS_BAD_REQUEST
    }

    /// The JSON-RPC error: code `-32020`, this error's message, and
    /// `data: {"header": <name>}` so a client can tell which header was refused.
    pub fn to_error_object(&self) -> ErrorObject {
        ErrorObject::new(HEADER_MISMATCH, self.to_string())
            .with_data(serde_json::json!({ "header": self.header }))
    }
}

impl From<HeaderError> for ErrorObject {
    fn from(e: HeaderError) -> Self {
        e.to_error_object()
    }
}

/// Quotes a value for an error message: control characters escaped, long values cut.
fn quote(s: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::from("'");
    for (n, c) in s.chars().enumerate() {
        if n == MAX {
            out.push('…');
            break;
        }
        if c == '\'' || c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.header;
        match &self.kind {
            HeaderErrorKind::Missing => {
                write!(f, "Header mismatch: required header {h} is missing")
            }
            HeaderErrorKind::Repeated => {
                write!(f, "Header mismatch: header {h} appears more than once")
            }
            HeaderErrorKind::InvalidCharacters => {
                write!(f, "Header mismatch: header {h} contains invalid characters")
            }
            HeaderErrorKind::MalformedEncoding(e) => {
                write!(
                    f,
                    "Header mismatch: header {h} has a malformed Base64 value: {e}"
                )
            }
            HeaderErrorKind::Mismatch {
                header_value,
                body_value,
            } => write!(
                f,
                "Header mismatch: {h} header value {} does not match body value {}",
                quote(header_value),
                quote(body_value)
            ),
            HeaderErrorKind::Unexpected { header_value } => write!(
                f,
                "Header mismatch: {h} header value {} has no corresponding value in the body",
                quote(header_value)
            ),
        }
    }
}

impl std::error::Error for HeaderError {}

// ---------------------------------------------------------------------------------------
// x-mcp-header annotations
// ---------------------------------------------------------------------------------------

/// Whether `s` is an RFC 9110 token (`1*tchar`): letters, digits and ``!#$%&'*+-.^_`|~``.
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// The full header name for an `x-mcp-header` value: `Mcp-Param-{name}`.
pub fn param_header_name(name: &str) -> String {
    format!("{MCP_PARAM_PREFIX}{name}")
}

/// The primitive JSON type of an annotated property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `"type": "string"`.
    String,
    /// `"type": "integer"`.
    Integer,
    /// `"type": "boolean"`.
    Boolean,
}

/// One `x-mcp-header` annotation of a valid schema: which header mirrors which argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The `x-mcp-header` value, e.g. `Region`.
    pub name: String,
    /// The header name, e.g. `Mcp-Param-Region`.
    pub header: String,
    /// The property keys from the root of `arguments` to the annotated value.
    pub path: Vec<String>,
    /// The property's declared type.
    pub ty: ParamType,
}

impl HeaderParam {
    /// The argument's location as a JSON Pointer into `arguments`, e.g. `/location/region`.
    pub fn pointer(&self) -> String {
        self.path
            .iter()
            .map(|k| format!("/{}", escape_pointer(k)))
            .collect()
    }

    /// The argument's value in `arguments`, if every step of the path is present.
    pub fn lookup<'v>(&self, arguments: &'v Value) -> Option<&'v Value> {
        self.path
            .iter()
            .try_fold(arguments, |v, key| v.as_object()?.get(key))
    }
}

/// What is wrong with one `x-mcp-header` annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnnotationProblemKind {
    /// The annotation is not a JSON string.
    NotAString,
    /// The annotation is the empty string.
    Empty,
    /// The annotation holds a control character (CR, LF, …).
    ControlCharacter,
    /// The annotation is not an RFC 9110 token.
    NotAToken,
    /// Another annotation has the same name, ignoring ASCII case.
    Duplicate {
        /// Schema pointer of the first annotation with that name.
        first: String,
    },
    /// The property's `type` is not exactly one of `string`, `integer`, `boolean`
    /// (optionally with `null`).
    UnsupportedType {
        /// The `type` keyword as JSON, or `(none)`.
        found: String,
    },
    /// The annotated schema is not reached from the root through `properties` keys alone
    /// (it sits under `items`, a combinator, a conditional, `$defs`, … or is the root).
    NotStaticallyReachable,
}

/// One invalid `x-mcp-header` annotation, located by a JSON Pointer into the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotationProblem {
    /// JSON Pointer of the annotated (sub)schema, e.g. `/properties/region`.
    pub path: String,
    /// The annotation value as JSON (e.g. `"Region"`).
    pub annotation: String,
    /// What is wrong.
    pub kind: AnnotationProblemKind,
}

impl fmt::Display for AnnotationProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        write!(f, "x-mcp-header {} at {path}: ", self.annotation)?;
        match &self.kind {
            AnnotationProblemKind::NotAString => f.write_str("the annotation must be a string"),
            AnnotationProblemKind::Empty => f.write_str("the annotation must not be empty"),
            AnnotationProblemKind::ControlCharacter => {
                f.write_str("the annotation must not contain control characters")
            }
            AnnotationProblemKind::NotAToken => {
                f.write_str("the annotation must be an RFC 9110 token")
            }
            AnnotationProblemKind::Duplicate { first } => write!(
                f,
                "the name duplicates the annotation at {first} (case-insensitively)"
            ),
            AnnotationProblemKind::UnsupportedType { found } => write!(
                f,
                "only string, integer and boolean properties may be mirrored (type is {found})"
            ),
            AnnotationProblemKind::NotStaticallyReachable => f.write_str(
                "the property must be reachable from the root through `properties` keys only",
            ),
        }
    }
}

fn escape_pointer(key: &str) -> Cow<'_, str> {
    if key.contains(['~', '/']) {
        Cow::Owned(key.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(key)
    }
}

/// The declared primitive type of a property schema, if it is exactly one allowed type
/// (optionally with `null`).
fn param_type(schema: &Map<String, Value>) -> Result<ParamType, String> {
    let one = |t: &str| match t {
        "string" => Some(ParamType::String),
        "integer" => Some(ParamType::Integer),
        "boolean" => Some(ParamType::Boolean),
        _ => None,
    };
    let found = || {
        schema
            .get("type")
            .map_or("(none)".to_string(), Value::to_string)
    };
    match schema.get("type") {
        Some(Value::String(t)) => one(t).ok_or_else(found),
        Some(Value::Array(ts)) => {
            let mut non_null = ts.iter().filter(|t| t.as_str() != Some("null"));
            match (
                non_null.next().and_then(Value::as_str).and_then(one),
                non_null.next(),
            ) {
                (Some(t), None) => Ok(t),
                _ => Err(found()),
            }
        }
        _ => Err(found()),
    }
}

/// An annotation found while walking a schema.
struct Found<'s> {
    pointer: String,
    /// `Some(argument path)` when reached through `properties` alone (and not the root).
    arg_path: Option<Vec<String>>,
    annotation: &'s Value,
    schema: &'s Map<String, Value>,
}

/// Keywords whose value is a map of name -> subschema.
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];
/// Keywords whose value is one subschema (or, for `items` in draft-07, an array of them).
const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const SCHEMA_ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

fn walk<'s>(
    schema: &'s Value,
    pointer: &str,
    arg_path: Option<Vec<String>>,
    out: &mut Vec<Found<'s>>,
) {
    if let Value::Object(obj) = schema {
        walk_object(obj, pointer, arg_path, out);
    }
}

fn walk_object<'s>(
    obj: &'s Map<String, Value>,
    pointer: &str,
    arg_path: Option<Vec<String>>,
    out: &mut Vec<Found<'s>>,
) {
    if let Some(annotation) = obj.get(X_MCP_HEADER) {
        out.push(Found {
            pointer: pointer.to_string(),
            arg_path: arg_path.clone().filter(|p| !p.is_empty()),
            annotation,
            schema: obj,
        });
    }
    for (keyword, value) in obj {
        let here = format!("{pointer}/{}", escape_pointer(keyword));
        if SCHEMA_MAP_KEYWORDS.contains(&keyword.as_str()) {
            let Value::Object(children) = value else {
                continue;
            };
            for (key, child) in children {
                let child_path = if keyword == "properties" {
                    arg_path.as_ref().map(|p| {
                        let mut p = p.clone();
                        p.push(key.clone());
                        p
                    })
                } else {
                    None
                };
                walk(
                    child,
                    &format!("{here}/{}", escape_pointer(key)),
                    child_path,
                    out,
                );
            }
        } else if SCHEMA_KEYWORDS.contains(&keyword.as_str()) {
            match value {
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        walk(item, &format!("{here}/{i}"), None, out);
                    }
                }
                _ => walk(value, &here, None, out),
            }
        } else if SCHEMA_ARRAY_KEYWORDS.contains(&keyword.as_str())
            && let Value::Array(items) = value
        {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{here}/{i}"), None, out);
            }
        }
    }
}

/// Every annotation in the schema, those reachable through `properties` first.
fn find_annotations(schema: &Map<String, Value>) -> Vec<Found<'_>> {
    let mut out = Vec::new();
    walk_object(schema, "", Some(Vec::new()), &mut out);
    out.sort_by_key(|f| f.arg_path.is_none());
    out
}

/// Judges one annotation on its own (not duplicates).
fn judge(found: &Found<'_>) -> Result<(String, ParamType, Vec<String>), AnnotationProblemKind> {
    let Value::String(name) = found.annotation else {
        return Err(AnnotationProblemKind::NotAString);
    };
    if name.is_empty() {
        return Err(AnnotationProblemKind::Empty);
    }
    if name.chars().any(char::is_control) {
        return Err(AnnotationProblemKind::ControlCharacter);
    }
    if !is_token(name) {
        return Err(AnnotationProblemKind::NotAToken);
    }
    let Some(path) = &found.arg_path else {
        return Err(AnnotationProblemKind::NotStaticallyReachable);
    };
    let ty = param_type(found.schema)
        .map_err(|found| AnnotationProblemKind::UnsupportedType { found })?;
    Ok((name.clone(), ty, path.clone()))
}

/// Every problem with the `x-mcp-header` annotations of a tool's `inputSchema`; `Ok(())`
/// when there are none (including when there are no annotations).
///
/// Rules: the value is a non-empty RFC 9110 token without control characters, unique
/// ignoring ASCII case, on a property of type `string`, `integer` or `boolean`, reached from
/// the root through `properties` keys only. Annotations are searched in every subschema
/// keyword (`items`, `allOf`, `if`, `$defs`, …) so misplaced ones are reported too; values
/// of non-schema keywords (`const`, `default`, `examples`, unknown keywords) are not.
///
/// A client on Streamable HTTP drops a tool for which this fails, logging the problems.
pub fn validate_header_annotations(
    schema: &Map<String, Value>,
) -> Result<(), Vec<AnnotationProblem>> {
    header_params(schema).map(|_| ())
}

/// The header-to-argument map of a tool's `inputSchema`, in schema order; the problems of
/// [`validate_header_annotations`] when any annotation is invalid.
pub fn header_params(
    schema: &Map<String, Value>,
) -> Result<Vec<HeaderParam>, Vec<AnnotationProblem>> {
    let (params, problems) = judge_all(schema);
    if problems.is_empty() {
        Ok(params)
    } else {
        Err(problems)
    }
}

/// Judges every annotation: the usable ones (valid on their own, first of each name, those
/// reachable through `properties` taking precedence) and every problem. One annotation may
/// have two problems: its own and being a duplicate.
fn judge_all(schema: &Map<String, Value>) -> (Vec<HeaderParam>, Vec<AnnotationProblem>) {
    let mut params = Vec::new();
    let mut problems = Vec::new();
    // (lowercase name, pointer of its first occurrence)
    let mut seen: Vec<(String, String)> = Vec::new();
    for found in find_annotations(schema) {
        let problem = |kind| AnnotationProblem {
            path: found.pointer.clone(),
            annotation: found.annotation.to_string(),
            kind,
        };
        let judged = judge(&found);
        let mut duplicate = false;
        if let Value::String(name) = found.annotation {
            let lower = name.to_ascii_lowercase();
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == lower) {
                duplicate = true;
                problems.push(problem(AnnotationProblemKind::Duplicate {
                    first: first.clone(),
                }));
            } else if !name.is_empty() {
                seen.push((lower, found.pointer.clone()));
            }
        }
        match judged {
            Ok((name, ty, path)) if !duplicate => params.push(HeaderParam {
                header: param_header_name(&name),
                name,
                path,
                ty,
            }),
            Ok(_) => {}
            Err(kind) => problems.push(problem(kind)),
        }
    }
    (params, problems)
}

/// The usable annotations of a possibly invalid schema. Client and server use the same
/// set, so they agree even on a schema a client should have dropped.
fn usable_header_params(schema: &Map<String, Value>) -> Vec<HeaderParam> {
    judge_all(schema).0
}

// ---------------------------------------------------------------------------------------
// Request params
// ---------------------------------------------------------------------------------------

/// A request's `params`, parsed or raw; see the `From` impls.
#[derive(Debug, Clone, Copy, Default)]
pub enum Params<'a> {
    /// No `params` member.
    #[default]
    None,
    /// Parsed params.
    Value(&'a Value),
    /// Params as received, e.g. [`crate::jsonrpc::Request::params`]; only the fields the
    /// headers mirror are parsed.
    Raw(&'a RawValue),
}

impl<'a> From<&'a Value> for Params<'a> {
    fn from(v: &'a Value) -> Self {
        Params::Value(v)
    }
}
impl<'a> From<Option<&'a Value>> for Params<'a> {
    fn from(v: Option<&'a Value>) -> Self {
        v.map_or(Params::None, Params::Value)
    }
}
impl<'a> From<&'a RawValue> for Params<'a> {
    fn from(v: &'a RawValue) -> Self {
        Params::Raw(v)
    }
}
impl<'a> From<Option<&'a RawValue>> for Params<'a> {
    fn from(v: Option<&'a RawValue>) -> Self {
        v.map_or(Params::None, Params::Raw)
    }
}

#[derive(Deserialize)]
struct MetaProbe {
    #[serde(default, rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<Value>,
}

#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    uri: Option<Value>,
    #[serde(default, rename = "taskId")]
    task_id: Option<Value>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    #[serde(default, rename = "_meta")]
    meta: Option<MetaProbe>,
}

/// A string field of the probed body.
fn owned_string(v: Option<Value>) -> Option<Cow<'static, str>> {
    match v? {
        Value::String(s) => Some(Cow::Owned(s)),
        _ => None,
    }
}

/// The `tools/call` arguments: as received, or parsed.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Arguments<'a> {
    Raw(&'a str),
    Value(&'a Value),
}

/// The body fields a request's headers mirror, read from its `params` once: the `_meta`
/// protocol version and the `name`, `uri` and `taskId` strings (a field that is absent or
/// not a string reads as `None`), and the `arguments`.
///
/// [`RequestFields::scan`] reads raw params without decoding them, so a transport can take
/// the protocol version and the tool name from the same pass that
/// [`validate_request_fields`] then checks the headers against.
///
/// ```
/// use mcp_core::headers::{RequestFields, validate_request_fields};
/// use serde_json::value::RawValue;
///
/// let params: &RawValue = serde_json::from_str(
///     r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
/// )
/// .unwrap();
/// let fields = RequestFields::scan(Some(params)).unwrap();
/// assert_eq!(fields.name(), Some("add"));
/// assert_eq!(fields.protocol_version(), Some("2026-07-28"));
/// let headers = [
///     ("MCP-Protocol-Version", "2026-07-28"),
///     ("Mcp-Method", "tools/call"),
///     ("Mcp-Name", "add"),
/// ];
/// validate_request_fields(&headers, "tools/call", &fields, None).unwrap();
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestFields<'a> {
    name: Option<Cow<'a, str>>,
    uri: Option<Cow<'a, str>>,
    task_id: Option<Cow<'a, str>>,
    arguments: Option<Arguments<'a>>,
    protocol_version: Option<Cow<'a, str>>,
}

impl<'a> RequestFields<'a> {
    /// The fields of `params`, as [`validate_request_headers`] reads them.
    ///
    /// Raw params that do not decode as the expected shape (a `_meta` that is not an
    /// object, a field given twice) read as having none of the fields.
    pub fn of(params: impl Into<Params<'a>>) -> Self {
        match params.into() {
            Params::None => Self::default(),
            Params::Value(Value::Object(m)) => Self {
                name: m.get("name").and_then(Value::as_str).map(Cow::Borrowed),
                uri: m.get("uri").and_then(Value::as_str).map(Cow::Borrowed),
                task_id: m.get("taskId").and_then(Value::as_str).map(Cow::Borrowed),
                arguments: m.get("arguments").map(Arguments::Value),
                protocol_version: m
                    .get("_meta")
                    .and_then(|meta| meta.get(PROTOCOL_VERSION_META_KEY))
                    .and_then(Value::as_str)
                    .map(Cow::Borrowed),
            },
            Params::Value(_) => Self::default(),
            Params::Raw(raw) => Self::scan(Some(raw)).unwrap_or_else(|| Self::probe(raw)),
        }
    }

    /// The fields of raw params, found by a scan that decodes nothing but the strings it
    /// returns (and those only when they hold escapes).
    ///
    /// `None` when the scan cannot be sure to read what a full parse reads: params that are
    /// not an object, a key written with escapes, one of the fields given twice, a `_meta`
    /// that is neither an object nor `null`, a field that is a number, array or object
    /// (which no valid request has), or a string that does not decode. Then
    /// [`RequestFields::of`] parses them. When `Some`, every reading of the params agrees on
    /// these fields (a probe of the protocol version alone, or of the name alone, too).
    pub fn scan(params: Option<&'a RawValue>) -> Option<Self> {
        let Some(raw) = params else {
            return Some(Self::default());
        };
        let keys = ["name", "uri", "taskId", "arguments", "_meta"];
        let ([name, uri, task_id, arguments, meta], version) =
            crate::fast_json::find_members_nested(raw.get(), keys, (4, PROTOCOL_VERSION_META_KEY))
                .ok()?;
        let protocol_version = match meta {
            None | Some("null") => None,
            Some(m) if m.starts_with('{') => scanned_string(version)?,
            Some(_) => return None,
        };
        Some(Self {
            name: scanned_string(name)?,
            uri: scanned_string(uri)?,
            task_id: scanned_string(task_id)?,
            arguments: arguments.map(Arguments::Raw),
            protocol_version,
        })
    }

    /// [`RequestFields::of`] raw params, by a serde probe.
    fn probe(raw: &'a RawValue) -> Self {
        match serde_json::from_str::<Probe<'_>>(raw.get()) {
            Ok(p) => Self {
                name: owned_string(p.name),
                uri: owned_string(p.uri),
                task_id: owned_string(p.task_id),
                arguments: p.arguments.map(|a| Arguments::Raw(a.get())),
                protocol_version: p.meta.and_then(|m| owned_string(m.protocol_version)),
            },
            Err(_) => Self::default(),
        }
    }

    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, when a string.
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// `params.name` (the tool of a `tools/call`), when a string.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The string field `field` (`name`, `uri` or `taskId`).
    fn field(&self, field: &str) -> Option<&str> {
        match field {
            "name" => self.name.as_deref(),
            "uri" => self.uri.as_deref(),
            "taskId" => self.task_id.as_deref(),
            _ => None,
        }
    }

    /// The `arguments`, parsed; `None` when absent or not JSON a `Value` holds.
    fn arguments(&self) -> Option<Cow<'a, Value>> {
        match self.arguments? {
            Arguments::Raw(text) => serde_json::from_str(text).ok().map(Cow::Owned),
            Arguments::Value(v) => Some(Cow::Borrowed(v)),
        }
    }
}

/// The string a scanned member holds: `Some(None)` when absent, `null` or a boolean;
/// `None` when the scan cannot tell what a parse into a `Value` gives (a number may be out
/// of range, an escape a lone surrogate), so the full parse decides.
fn scanned_string(member: Option<&str>) -> Option<Option<Cow<'_, str>>> {
    let Some(text) = member else {
        return Some(None);
    };
    if matches!(text, "null" | "true" | "false") {
        return Some(None);
    }
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        // Valid JSON (the text of a `RawValue`) without escapes is the string itself.
        return Some(Some(Cow::Borrowed(inner)));
    }
    serde_json::from_str::<String>(text)
        .ok()
        .map(|s| Some(Cow::Owned(s)))
}

/// The `params` field `Mcp-Name` mirrors for `method`: `name` for `tools/call` and
/// `prompts/get`, `uri` for `resources/read`, `taskId` for the tasks extension's
/// `tasks/get`, `tasks/update` and `tasks/cancel`; `None` for other methods.
pub fn name_source_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------
// Client side
// ---------------------------------------------------------------------------------------

/// The MCP headers a client sends with a request on 2026 Streamable HTTP, in this order:
///
/// 1. `MCP-Protocol-Version`, from `params._meta["io.modelcontextprotocol/protocolVersion"]`
///    (omitted when the body has none);
/// 2. `Mcp-Method`;
/// 3. `Mcp-Name` for the methods of [`name_source_field`], when that field is a string,
///    [encoded](encode_header_value) as needed;
/// 4. for `tools/call` with the tool's `inputSchema`, one `Mcp-Param-{Name}` per
///    annotation whose argument is present and neither `null`, an array nor an object,
///    valued per [`argument_header_value`].
///
/// Invalid annotations (a tool the client should have dropped) are skipped, as
/// [`validate_request_headers`] skips them. Works for notifications too (1 and 2 only).
pub fn request_headers<'p>(
    method: &str,
    params: impl Into<Params<'p>>,
    tool_input_schema: Option<&Map<String, Value>>,
) -> Vec<(String, String)> {
    let param_annotations = match tool_input_schema {
        Some(schema) if method == "tools/call" => usable_header_params(schema),
        _ => Vec::new(),
    };
    let fields = RequestFields::of(params);
    let mut out = Vec::new();
    if let Some(v) = fields.protocol_version() {
        out.push((MCP_PROTOCOL_VERSION.to_string(), v.to_string()));
    }
    out.push((MCP_METHOD.to_string(), method.to_string()));
    if let Some(s) = name_source_field(method).and_then(|f| fields.field(f)) {
        out.push((MCP_NAME.to_string(), encode_header_value(s).into_owned()));
    }
    let arguments = if param_annotations.is_empty() {
        None
    } else {
        fields.arguments()
    };
    if let Some(arguments) = arguments.as_deref() {
        for p in &param_annotations {
            if let Some(v) = p.lookup(arguments).and_then(argument_header_value) {
                out.push((p.header.clone(), v));
            }
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Server side
// ---------------------------------------------------------------------------------------

fn body_display(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn check_exact<H: HeaderSource + ?Sized>(
    headers: &H,
    name: &str,
    body: Option<&str>,
    required: bool,
) -> Result<(), HeaderError> {
    with_single_header(headers, name, |v| match (v, body) {
        (None, _) if required => Err(HeaderErrorKind::Missing),
        (Some(v), Some(b)) if v != b => Err(HeaderErrorKind::Mismatch {
            header_value: v.to_string(),
            body_value: b.to_string(),
        }),
        _ => Ok(()),
    })?
    .map_err(|kind| HeaderError::new(name, kind))
}

/// Reads and decodes a header that permits the Base64 sentinel.
fn decoded_header<H: HeaderSource + ?Sized>(
    headers: &H,
    name: &str,
) -> Result<Option<String>, HeaderError> {
    match single_header(headers, name)? {
        None => Ok(None),
        Some(raw) => decode_header_value(&raw)
            .map(|d| Some(d.into_owned()))
            .map_err(|e| HeaderError::new(name, HeaderErrorKind::MalformedEncoding(e))),
    }
}

/// Checks the MCP headers of one request POST against its body (2026-07-28), returning the
/// first failure; every failure is HTTP `400` with JSON-RPC `-32020`
/// ([`HeaderError::to_error_object`]).
///
/// - `MCP-Protocol-Version` must be present and equal `body_protocol_version` (the
///   `_meta` value). When the body has none (`None`), only presence is checked: the missing
///   key is a `-32602` judged elsewhere. Whether the version is *supported* (`-32022`) is
///   judged elsewhere too, as is the option to treat a header-less request as `2025-03-26`.
/// - `Mcp-Method` must be present and equal `method`.
/// - `Mcp-Name` must be present and, decoded, equal the string field of
///   [`name_source_field`]; skipped when the body field is not a string (params
///   validation rejects that body).
/// - For `tools/call` with the tool's `inputSchema` (looked up by the caller from
///   `params.name`): each annotated argument that is present and primitive needs its
///   `Mcp-Param-{Name}` header, decoded and [matching](header_value_matches); a header for
///   an absent or `null` argument is rejected; undeclared `Mcp-Param-*` headers are ignored.
///
/// Any header value holding bytes outside printable ASCII, any header given twice, and
/// any malformed sentinel is rejected as well.
pub fn validate_request_headers<'p, H: HeaderSource + ?Sized>(
    headers: &H,
    method: &str,
    params: impl Into<Params<'p>>,
    body_protocol_version: Option<&str>,
    tool_input_schema: Option<&Map<String, Value>>,
) -> Result<(), HeaderError> {
    check_exact(headers, MCP_PROTOCOL_VERSION, body_protocol_version, true)?;
    check_exact(headers, MCP_METHOD, Some(method), true)?;
    check_body_fields(
        headers,
        method,
        &RequestFields::of(params),
        tool_input_schema,
    )
}

/// [`validate_request_headers`] against fields already read (e.g. by
/// [`RequestFields::scan`]), with their protocol version as the body's: the same checks, in
/// the same order, with the same errors.
pub fn validate_request_fields<H: HeaderSource + ?Sized>(
    headers: &H,
    method: &str,
    fields: &RequestFields<'_>,
    tool_input_schema: Option<&Map<String, Value>>,
) -> Result<(), HeaderError> {
    check_exact(
        headers,
        MCP_PROTOCOL_VERSION,
        fields.protocol_version(),
        true,
    )?;
    check_exact(headers, MCP_METHOD, Some(method), true)?;
    check_body_fields(headers, method, fields, tool_input_schema)
}

/// The checks of [`validate_request_headers`] after `MCP-Protocol-Version` and
/// `Mcp-Method`: `Mcp-Name`, then the `Mcp-Param-*` headers. Header values are judged in
/// place; only an error copies one.
fn check_body_fields<H: HeaderSource + ?Sized>(
    headers: &H,
    method: &str,
    fields: &RequestFields<'_>,
    tool_input_schema: Option<&Map<String, Value>>,
) -> Result<(), HeaderError> {
    if let Some(field) = name_source_field(method)
        && let Some(body) = fields.field(field)
    {
        with_single_header(headers, MCP_NAME, |v| {
            let Some(raw) = v else {
                return Err(HeaderErrorKind::Missing);
            };
            match decode_header_value(raw) {
                Err(e) => Err(HeaderErrorKind::MalformedEncoding(e)),
                Ok(h) if h != body => Err(HeaderErrorKind::Mismatch {
                    header_value: h.into_owned(),
                    body_value: body.to_string(),
                }),
                Ok(_) => Ok(()),
            }
        })?
        .map_err(|kind| HeaderError::new(MCP_NAME, kind))?;
    }

    let param_annotations = match tool_input_schema {
        Some(schema) if method == "tools/call" => usable_header_params(schema),
        _ => return Ok(()),
    };
    if param_annotations.is_empty() {
        return Ok(());
    }
    let arguments = fields.arguments();
    let null = Value::Null;
    let arguments = arguments.as_deref().unwrap_or(&null);
    for p in &param_annotations {
        let body = p
            .lookup(arguments)
            .filter(|v| argument_header_value(v).is_some());
        match (decoded_header(headers, &p.header)?, body) {
            (None, None) => {}
            (None, Some(_)) => return Err(HeaderError::new(&p.header, HeaderErrorKind::Missing)),
            (Some(h), None) => {
                return Err(HeaderError::new(
                    &p.header,
                    HeaderErrorKind::Unexpected { header_value: h },
                ));
            }
            (Some(h), Some(b)) => {
                if !header_value_matches(&h, b) {
                    return Err(HeaderError::new(
                        &p.header,
                        HeaderErrorKind::Mismatch {
                            header_value: h,
                            body_value: body_display(b),
                        },
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Checks the MCP headers of a notification POST. The 2026 revision defines no header
/// requirements for notifications, so nothing is required; `MCP-Protocol-Version` and
/// `Mcp-Method`, when sent, must still be well-formed and equal the body values.
pub fn validate_notification_headers<H: HeaderSource + ?Sized>(
    headers: &H,
    method: &str,
    body_protocol_version: Option<&str>,
) -> Result<(), HeaderError> {
    check_exact(headers, MCP_PROTOCOL_VERSION, body_protocol_version, false)?;
    check_exact(headers, MCP_METHOD, Some(method), false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const V: &str = "2026-07-28";

    /// Header pairs as test tables write them.
    type Pairs = Vec<(&'static str, &'static str)>;
    /// An expected validation outcome.
    type Outcome = Result<(), HeaderError>;

    fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    // ---- encoding ----------------------------------------------------------------------

    #[test]
    fn encoding_table_including_spec_examples() {
        let table: &[(&str, &str)] = &[
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
            ("", ""),
            ("a b", "a b"),
            ("tab\there", "=?base64?dGFiCWhlcmU=?="),
            ("trailing ", "=?base64?dHJhaWxpbmcg?="),
            (" leading", "=?base64?IGxlYWRpbmc=?="),
            ("del\u{7f}", "=?base64?ZGVsfw==?="),
            ("caf\u{e9}", "=?base64?Y2Fmw6k=?="),
            ("=?BASE64?x?=", "=?BASE64?x?="), // markers are case-sensitive
            ("=?base64?unterminated", "=?base64?unterminated"),
            ("=?base64?=", "=?base64?PT9iYXNlNjQ/PQ==?="), // overlapping markers still look like one
            (
                "file:///projects/myapp/config.json",
                "file:///projects/myapp/config.json",
            ),
        ];
        for (input, want) in table {
            assert_eq!(encode_header_value(input), *want, "encode {input:?}");
            assert_eq!(
                decode_header_value(want).unwrap(),
                *input,
                "round trip {input:?}"
            );
        }
    }

    #[test]
    fn header_safety_table() {
        let table: &[(&str, bool)] = &[
            ("", true),
            ("abc", true),
            ("a b", true),
            ("~!@#$%^&*()", true),
            (" a", false),
            ("a ", false),
            ("\t", false),
            ("a\r\nb", false),
            ("ü", false),
            ("\u{0}", false),
        ];
        for (s, want) in table {
            assert_eq!(is_header_safe(s), *want, "{s:?}");
        }
    }

    #[test]
    fn decoding_table() {
        let ok: &[(&str, &str)] = &[
            ("plain", "plain"),
            ("=?base64??=", ""),
            ("=?base64?4pyT?=", "✓"),
            ("=?BASE64?eA==?=", "=?BASE64?eA==?="), // not a sentinel: literal
            ("=?base64?eA==", "=?base64?eA=="),
        ];
        for (raw, want) in ok {
            assert_eq!(decode_header_value(raw).unwrap(), *want, "{raw:?}");
        }
        let bad: &[(&str, SentinelError)] = &[
            ("=?base64?=", SentinelError::Truncated),
            ("=?base64?not base64?=", SentinelError::InvalidBase64),
            ("=?base64?eA?=", SentinelError::InvalidBase64), // missing padding
            ("=?base64?eA=?=", SentinelError::InvalidBase64),
            ("=?base64?e-_A?=", SentinelError::InvalidBase64), // URL-safe alphabet
            ("=?base64?/w==?=", SentinelError::InvalidUtf8),   // 0xFF
        ];
        for (raw, want) in bad {
            assert_eq!(decode_header_value(raw).unwrap_err(), *want, "{raw:?}");
        }
    }

    #[test]
    fn argument_value_table() {
        let table: &[(Value, Option<&str>)] = &[
            (json!("us-west1"), Some("us-west1")),
            (
                json!("Hello, 世界"),
                Some("=?base64?SGVsbG8sIOS4lueVjA==?="),
            ),
            (json!(42), Some("42")),
            (json!(-7), Some("-7")),
            (json!(0), Some("0")),
            (json!(9_007_199_254_740_991_i64), Some("9007199254740991")),
            (json!(u64::MAX), Some("18446744073709551615")),
            (json!(42.0), Some("42")),
            (json!(1.5), Some("1.5")),
            (json!(true), Some("true")),
            (json!(false), Some("false")),
            (json!(null), None),
            (json!([1]), None),
            (json!({"a": 1}), None),
        ];
        for (v, want) in table {
            assert_eq!(argument_header_value(v).as_deref(), *want, "{v}");
        }
    }

    // ---- comparison --------------------------------------------------------------------

    #[test]
    fn comparison_table() {
        let table: &[(&str, Value, bool)] = &[
            // strings: exact, case-sensitive
            ("abc", json!("abc"), true),
            ("ABC", json!("abc"), false),
            ("abc ", json!("abc"), false),
            ("", json!(""), true),
            ("42", json!("42"), true),
            // integers: numeric
            ("42", json!(42), true),
            ("42.0", json!(42), true),
            ("42.000", json!(42), true),
            ("007", json!(7), true),
            ("-0", json!(0), true),
            ("-7", json!(-7), true),
            ("42", json!(42.0), true),
            ("42.5", json!(42), false),
            ("43", json!(42), false),
            ("+42", json!(42), false),
            ("4.2e1", json!(42), false),
            ("0x2A", json!(42), false),
            ("42.", json!(42), false),
            (".0", json!(0), false),
            ("", json!(0), false),
            (" 42", json!(42), false),
            ("9007199254740993", json!(9_007_199_254_740_992_i64), false), // no f64 rounding
            ("18446744073709551615", json!(u64::MAX), true),
            ("-9223372036854775808", json!(i64::MIN), true),
            ("99999999999999999999999999999999999999999", json!(1), false), // overflow
            // non-integral numbers (forbidden by the schema, still compared numerically)
            ("1.5", json!(1.5), true),
            ("1.50", json!(1.5), true),
            ("15e-1", json!(1.5), true),
            ("1.6", json!(1.5), false),
            ("NaN", json!(1.5), false),
            ("inf", json!(1.5), false),
            // booleans: lowercase only
            ("true", json!(true), true),
            ("false", json!(false), true),
            ("True", json!(true), false),
            ("1", json!(true), false),
            ("false", json!(true), false),
            // non-primitives never match
            ("null", json!(null), false),
            ("[]", json!([]), false),
            ("{}", json!({}), false),
        ];
        for (header, body, want) in table {
            assert_eq!(
                header_value_matches(header, body),
                *want,
                "{header:?} vs {body}"
            );
        }
    }

    // ---- annotations -------------------------------------------------------------------

    #[test]
    fn token_table() {
        let table: &[(&str, bool)] = &[
            ("Region", true),
            ("X-Tenant_Id.v2", true),
            ("!#$%&'*+-.^_`|~09azAZ", true),
            ("", false),
            ("a b", false),
            ("a:b", false),
            ("a/b", false),
            ("a\"b", false),
            ("(a)", false),
            ("a\r\n", false),
            ("ä", false),
        ];
        for (s, want) in table {
            assert_eq!(is_token(s), *want, "{s:?}");
        }
    }

    fn problems(schema: Value) -> Vec<(String, AnnotationProblemKind)> {
        match validate_header_annotations(&obj(schema)) {
            Ok(()) => Vec::new(),
            Err(ps) => ps.into_iter().map(|p| (p.path, p.kind)).collect(),
        }
    }

    #[test]
    fn annotation_validity_table() {
        use AnnotationProblemKind::*;
        let unreachable = |p: &str| vec![(p.to_string(), NotStaticallyReachable)];
        let table: Vec<(Value, Vec<(String, AnnotationProblemKind)>)> = vec![
            // valid
            (json!({"type": "object"}), vec![]),
            (
                json!({"type": "object", "properties": {
                    "s": {"type": "string", "x-mcp-header": "S"},
                    "i": {"type": "integer", "x-mcp-header": "I"},
                    "b": {"type": "boolean", "x-mcp-header": "B"},
                    "n": {"type": ["string", "null"], "x-mcp-header": "N"},
                    "o": {"type": "object", "properties": {
                        "deep": {"type": "string", "x-mcp-header": "Deep"}
                    }}
                }}),
                vec![],
            ),
            // a property *named* x-mcp-header is not an annotation; const/default data is not schema
            (
                json!({"type": "object", "properties": {
                    "x-mcp-header": {"type": "string"},
                    "c": {"type": "object", "const": {"x-mcp-header": 5}, "default": {"x-mcp-header": ""}}
                }}),
                vec![],
            ),
            // name rules
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
                vec![("/properties/a".into(), Empty)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
                vec![("/properties/a".into(), NotAToken)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A:B"}}}),
                vec![("/properties/a".into(), NotAToken)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A\r\nB"}}}),
                vec![("/properties/a".into(), ControlCharacter)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Ä"}}}),
                vec![("/properties/a".into(), NotAToken)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": 7}}}),
                vec![("/properties/a".into(), NotAString)],
            ),
            // uniqueness, case-insensitive
            (
                json!({"type": "object", "properties": {
                    "a": {"type": "string", "x-mcp-header": "Region"},
                    "b": {"type": "string", "x-mcp-header": "REGION"}
                }}),
                vec![(
                    "/properties/b".into(),
                    Duplicate {
                        first: "/properties/a".into(),
                    },
                )],
            ),
            // types
            (
                json!({"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "\"number\"".into(),
                    },
                )],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "\"object\"".into(),
                    },
                )],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "array", "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "\"array\"".into(),
                    },
                )],
            ),
            (
                json!({"type": "object", "properties": {"a": {"enum": ["x"], "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "(none)".into(),
                    },
                )],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": ["string", "integer"], "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "[\"string\",\"integer\"]".into(),
                    },
                )],
            ),
            // reachability
            (
                json!({"type": "object", "x-mcp-header": "Root"}),
                unreachable(""),
            ),
            (
                json!({"type": "object", "properties": {"list": {"type": "array",
                    "items": {"type": "string", "x-mcp-header": "A"}}}}),
                unreachable("/properties/list/items"),
            ),
            (
                json!({"type": "object", "properties": {"list": {"type": "array",
                    "items": {"type": "object", "properties": {"x": {"type": "string", "x-mcp-header": "A"}}}}}}),
                unreachable("/properties/list/items/properties/x"),
            ),
            (
                json!({"type": "object", "properties": {"t": {"type": "array",
                    "prefixItems": [{"type": "string", "x-mcp-header": "A"}]}}}),
                unreachable("/properties/t/prefixItems/0"),
            ),
            (
                json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                unreachable("/anyOf/0/properties/a"),
            ),
            (
                json!({"type": "object", "oneOf": [{"type": "object"}, {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                unreachable("/oneOf/1/properties/a"),
            ),
            (
                json!({"type": "object", "allOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                unreachable("/allOf/0/properties/a"),
            ),
            (
                json!({"type": "object", "not": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}),
                unreachable("/not/properties/a"),
            ),
            (
                json!({"type": "object", "if": {"properties": {"a": {"const": "x"}}},
                    "then": {"properties": {"b": {"type": "string", "x-mcp-header": "B"}}},
                    "else": {"properties": {"c": {"type": "string", "x-mcp-header": "C"}}}}),
                vec![
                    ("/else/properties/c".into(), NotStaticallyReachable),
                    ("/then/properties/b".into(), NotStaticallyReachable),
                ],
            ),
            (
                json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/r"}},
                    "$defs": {"r": {"type": "string", "x-mcp-header": "A"}}}),
                unreachable("/$defs/r"),
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "string", "x-mcp-header": "A"}}),
                unreachable("/additionalProperties"),
            ),
            (
                json!({"type": "object", "patternProperties": {"^a": {"type": "string", "x-mcp-header": "A"}}}),
                unreachable("/patternProperties/^a"),
            ),
            (
                json!({"type": "object", "properties": {"o": {"type": "object",
                    "dependentSchemas": {"k": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}}}}),
                unreachable("/properties/o/dependentSchemas/k/properties/a"),
            ),
            // draft-07 tuple `items`
            (
                json!({"type": "object", "properties": {"t": {"type": "array",
                    "items": [{"type": "string", "x-mcp-header": "A"}]}}}),
                unreachable("/properties/t/items/0"),
            ),
            // a misplaced duplicate: its own problem and the duplicate, the reachable one wins
            (
                json!({"type": "object",
                    "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "region"}}}],
                    "properties": {"a": {"type": "string", "x-mcp-header": "Region"}}}),
                vec![
                    (
                        "/anyOf/0/properties/a".into(),
                        Duplicate {
                            first: "/properties/a".into(),
                        },
                    ),
                    ("/anyOf/0/properties/a".into(), NotStaticallyReachable),
                ],
            ),
            // pointer escaping in the reported path
            (
                json!({"type": "object", "properties": {"a/b~c": {"type": "number", "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a~1b~0c".into(),
                    UnsupportedType {
                        found: "\"number\"".into(),
                    },
                )],
            ),
        ];
        for (schema, want) in table {
            let got = problems(schema.clone());
            // Map order is not significant for this assertion.
            let mut got_sorted = got.clone();
            got_sorted.sort_by(|a, b| a.0.cmp(&b.0));
            let mut want_sorted = want.clone();
            want_sorted.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(got_sorted, want_sorted, "schema {schema}");
        }
    }

    #[test]
    fn all_problems_reported_with_readable_messages() {
        let schema = obj(json!({"type": "object", "properties": {
            "a": {"type": "number", "x-mcp-header": "A"},
            "b": {"type": "string", "x-mcp-header": "bad name"},
            "c": {"type": "array", "items": {"type": "string", "x-mcp-header": "C"}},
            "d": {"type": "string", "x-mcp-header": "Ok"}
        }}));
        let ps = validate_header_annotations(&schema).unwrap_err();
        assert_eq!(ps.len(), 3);
        let text: Vec<String> = ps.iter().map(ToString::to_string).collect();
        assert!(
            text.iter()
                .any(|t| t.contains("/properties/a") && t.contains("number")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("/properties/b") && t.contains("token")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("/properties/c/items") && t.contains("properties")),
            "{text:?}"
        );
    }

    #[test]
    fn extraction_of_header_params() {
        let schema = obj(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "loc": {"type": "object", "properties": {
                "zone/id": {"type": "integer", "x-mcp-header": "Zone"}
            }},
            "dry": {"type": ["boolean", "null"], "x-mcp-header": "Dry-Run"},
            "query": {"type": "string"}
        }}));
        let mut params = header_params(&schema).unwrap();
        params.sort_by(|a, b| a.name.cmp(&b.name));
        let summary: Vec<(&str, &str, String, ParamType)> = params
            .iter()
            .map(|p| (p.name.as_str(), p.header.as_str(), p.pointer(), p.ty))
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    "Dry-Run",
                    "Mcp-Param-Dry-Run",
                    "/dry".to_string(),
                    ParamType::Boolean
                ),
                (
                    "Region",
                    "Mcp-Param-Region",
                    "/region".to_string(),
                    ParamType::String
                ),
                (
                    "Zone",
                    "Mcp-Param-Zone",
                    "/loc/zone~1id".to_string(),
                    ParamType::Integer
                ),
            ]
        );
        let args = json!({"region": "eu", "loc": {"zone/id": 3}});
        assert_eq!(params[2].lookup(&args), Some(&json!(3)));
        assert_eq!(params[0].lookup(&args), None);
        assert_eq!(params[2].lookup(&json!({"loc": 5})), None);
        assert!(
            header_params(&obj(json!({"type": "object"})))
                .unwrap()
                .is_empty()
        );
    }

    // ---- client side -------------------------------------------------------------------

    fn meta_params(extra: Value) -> Value {
        let mut p = obj(extra);
        p.insert(
            "_meta".into(),
            json!({"io.modelcontextprotocol/protocolVersion": V}),
        );
        Value::Object(p)
    }

    #[test]
    fn request_headers_table() {
        let schema = obj(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "opt": {"type": ["string", "null"], "x-mcp-header": "Opt"},
            "nested": {"type": "object", "properties": {"t": {"type": "string", "x-mcp-header": "T"}}}
        }}));
        let pv = (MCP_PROTOCOL_VERSION, V);
        type Schema<'s> = Option<&'s Map<String, Value>>;
        let table: Vec<(&str, Value, Schema<'_>, Pairs)> = vec![
            (
                "tools/list",
                meta_params(json!({})),
                None,
                vec![pv, (MCP_METHOD, "tools/list")],
            ),
            (
                "tools/call",
                meta_params(json!({"name": "get_weather", "arguments": {}})),
                None,
                vec![pv, (MCP_METHOD, "tools/call"), (MCP_NAME, "get_weather")],
            ),
            (
                "prompts/get",
                meta_params(json!({"name": "Grüße"})),
                None,
                vec![
                    pv,
                    (MCP_METHOD, "prompts/get"),
                    (MCP_NAME, "=?base64?R3LDvMOfZQ==?="),
                ],
            ),
            (
                "resources/read",
                meta_params(json!({"uri": "file:///projects/myapp/config.json"})),
                None,
                vec![
                    pv,
                    (MCP_METHOD, "resources/read"),
                    (MCP_NAME, "file:///projects/myapp/config.json"),
                ],
            ),
            (
                "tasks/get",
                meta_params(json!({"taskId": "t-1"})),
                None,
                vec![pv, (MCP_METHOD, "tasks/get"), (MCP_NAME, "t-1")],
            ),
            (
                "tasks/update",
                meta_params(json!({"taskId": "t-2"})),
                None,
                vec![pv, (MCP_METHOD, "tasks/update"), (MCP_NAME, "t-2")],
            ),
            (
                "tasks/cancel",
                meta_params(json!({"taskId": "t-3"})),
                None,
                vec![pv, (MCP_METHOD, "tasks/cancel"), (MCP_NAME, "t-3")],
            ),
            // tasks/list and tasks/result carry no Mcp-Name
            (
                "tasks/result",
                meta_params(json!({"taskId": "t-4"})),
                None,
                vec![pv, (MCP_METHOD, "tasks/result")],
            ),
            // no _meta version: no MCP-Protocol-Version
            ("ping", json!({}), None, vec![(MCP_METHOD, "ping")]),
            (
                "tools/call",
                meta_params(json!({"name": "t", "arguments": {
                    "region": "us-west1", "n": 42, "flag": false, "opt": null,
                    "nested": {"t": " x "}, "other": "ignored"
                }})),
                Some(&schema),
                vec![
                    pv,
                    (MCP_METHOD, "tools/call"),
                    (MCP_NAME, "t"),
                    ("Mcp-Param-Flag", "false"),
                    ("Mcp-Param-N", "42"),
                    ("Mcp-Param-Region", "us-west1"),
                    ("Mcp-Param-T", "=?base64?IHgg?="),
                ],
            ),
            // absent arguments: no Mcp-Param headers
            (
                "tools/call",
                meta_params(json!({"name": "t"})),
                Some(&schema),
                vec![pv, (MCP_METHOD, "tools/call"), (MCP_NAME, "t")],
            ),
            // schemas only matter for tools/call
            (
                "prompts/get",
                meta_params(json!({"name": "p", "arguments": {"region": "x"}})),
                Some(&schema),
                vec![pv, (MCP_METHOD, "prompts/get"), (MCP_NAME, "p")],
            ),
        ];
        for (method, params, schema, want) in table {
            let mut got = request_headers(method, &params, schema);
            let mut want = h(&want);
            // Mcp-Param order follows schema (map) order; compare as sets past the fixed prefix.
            got.sort();
            want.sort();
            assert_eq!(got, want, "{method} {params}");
            // Raw params give the same headers.
            let raw = serde_json::value::to_raw_value(&params).unwrap();
            let mut got_raw = request_headers(method, raw.as_ref(), schema);
            got_raw.sort();
            assert_eq!(got_raw, want, "raw {method} {params}");
        }
    }

    #[test]
    fn request_headers_fixed_order() {
        let params = meta_params(json!({"name": "t"}));
        let got = request_headers("tools/call", &params, None);
        let names: Vec<&str> = got.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(names, vec![MCP_PROTOCOL_VERSION, MCP_METHOD, MCP_NAME]);
    }

    // ---- server side -------------------------------------------------------------------

    fn weather_schema() -> Map<String, Value> {
        obj(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "query": {"type": "string"}
        }}))
    }

    fn check(
        headers: &[(&str, &str)],
        method: &str,
        params: &Value,
        schema: Option<&Map<String, Value>>,
    ) -> Result<(), HeaderError> {
        let pv = params
            .pointer("/_meta/io.modelcontextprotocol~1protocolVersion")
            .and_then(Value::as_str);
        let by_value = validate_request_headers(&h(headers), method, params, pv, schema);
        let raw = serde_json::value::to_raw_value(params).unwrap();
        let by_raw = validate_request_headers(headers, method, raw.as_ref(), pv, schema);
        assert_eq!(by_value, by_raw, "Value and RawValue params disagree");
        // The scan reads what the probe reads, and checking what it read is the same check.
        // (It declines only a field that is a number, array or object here.)
        let declines = ["name", "uri", "taskId"].iter().any(|f| {
            params
                .get(f)
                .is_some_and(|v| v.is_number() || v.is_array() || v.is_object())
        });
        let scanned = RequestFields::scan(Some(&raw));
        assert_eq!(scanned.is_none(), declines, "{params}");
        let fields = scanned.unwrap_or_else(|| RequestFields::of(&*raw));
        assert_eq!(
            fields,
            RequestFields::probe(&raw),
            "scan and probe disagree"
        );
        assert_eq!(fields.protocol_version(), pv);
        let by_fields = validate_request_fields(headers, method, &fields, schema);
        assert_eq!(by_value, by_fields, "validate_request_fields disagrees");
        by_value
    }

    #[test]
    fn scan_reads_what_the_probe_reads_or_leaves_it_to_the_probe() {
        let pv = r#""io.modelcontextprotocol/protocolVersion""#;
        let raw = |s: &str| RawValue::from_string(s.to_owned()).unwrap();
        let agree = [
            "{}".to_owned(),
            format!(
                r#" {{ "name" : "add" , "_meta" : {{ {pv} : "2026-07-28" , "x" : [ 1 ] }} }} "#
            ),
            format!(r#"{{"uri":"file:///a\"b","taskId":"t\u00e9","_meta":{{{pv}:null}}}}"#),
            r#"{"name":null,"uri":true,"taskId":false,"_meta":null,"arguments":[1, 2]}"#.to_owned(),
            r#"{"name":"\ud83d\ude00","arguments":{"a":{"name":1}},"other":[{"_meta":5}]}"#
                .to_owned(),
            // Repeats of keys the probe ignores are no failure for it either.
            format!(r#"{{"x":1,"x":2,"_meta":{{"y":1,"y":2,{pv}:"v"}}}}"#),
        ];
        for text in &agree {
            let p = raw(text);
            let scanned = RequestFields::scan(Some(&p)).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(scanned, RequestFields::probe(&p), "{text}");
        }
        let p = raw(&agree[2]);
        let f = RequestFields::scan(Some(&p)).unwrap();
        assert_eq!(f.field("uri"), Some("file:///a\"b"));
        assert_eq!(f.field("taskId"), Some("té"));
        assert_eq!(f.protocol_version(), None);
        assert!(matches!(f.uri, Some(Cow::Owned(_))));
        let p = raw(&agree[1]);
        let f = RequestFields::scan(Some(&p)).unwrap();
        assert!(matches!(f.name, Some(Cow::Borrowed("add"))));
        assert_eq!(f.protocol_version(), Some("2026-07-28"));
        assert_eq!(RequestFields::scan(None), Some(RequestFields::default()));

        // What only a parse can judge: the scan declines, and `of` takes the probe's answer.
        let decline = [
            "[\"add\"]".to_owned(),
            r#"{"name":"a","name":"b"}"#.to_owned(),
            r#"{"n\u0061me":"a"}"#.to_owned(),
            r#"{"name":"a","_meta":5}"#.to_owned(),
            format!(r#"{{"name":"a","_meta":[{pv}]}}"#),
            format!(r#"{{"name":"a","_meta":{{{pv}:"x",{pv}:"y"}}}}"#),
            r#"{"name":"a","uri":1e400}"#.to_owned(),
            r#"{"name":"\ud800","uri":"u"}"#.to_owned(),
            r#"{"name":{"x":1},"uri":"u"}"#.to_owned(),
            format!(r#"{{"name":"a","_meta":{{{pv}:7}}}}"#),
        ];
        for text in &decline {
            let p = raw(text);
            assert_eq!(RequestFields::scan(Some(&p)), None, "{text}");
            assert_eq!(RequestFields::of(&*p), RequestFields::probe(&p), "{text}");
        }
        // A probe that fails reads no field at all (the params check rejects such a body).
        let p = raw(&decline[3]);
        assert_eq!(RequestFields::of(&*p), RequestFields::default());
        let p = raw(&decline[8]);
        assert_eq!(RequestFields::of(&*p).field("uri"), Some("u"));
    }

    #[test]
    fn validation_table() {
        use HeaderErrorKind::*;
        let schema = weather_schema();
        let call = meta_params(json!({"name": "get_weather", "arguments": {
            "region": "us-west1", "n": 42, "flag": true, "query": "q"
        }}));
        let base: Vec<(&'static str, &'static str)> = vec![
            (MCP_PROTOCOL_VERSION, V),
            (MCP_METHOD, "tools/call"),
            (MCP_NAME, "get_weather"),
            ("Mcp-Param-Region", "us-west1"),
            ("Mcp-Param-N", "42"),
            ("Mcp-Param-Flag", "true"),
        ];
        let with = |replace: &[(&'static str, Option<&'static str>)]| {
            let mut hs: Vec<(&'static str, &'static str)> = base
                .iter()
                .filter(|(k, _)| !replace.iter().any(|(r, _)| r.eq_ignore_ascii_case(k)))
                .copied()
                .collect();
            for (k, v) in replace {
                if let Some(v) = v {
                    hs.push((*k, *v));
                }
            }
            hs
        };
        let mismatch = |hv: &str, bv: &str| Mismatch {
            header_value: hv.into(),
            body_value: bv.into(),
        };
        type Case<'a> = (
            &'a str,
            Vec<(&'a str, &'a str)>,
            Option<(&'a str, HeaderErrorKind)>,
        );
        let table: Vec<Case<'_>> = vec![
            ("all present", base.clone(), None),
            (
                "names are case-insensitive",
                vec![
                    ("mcp-protocol-version", V),
                    ("MCP-METHOD", "tools/call"),
                    ("mcp-name", "get_weather"),
                    ("mcp-param-region", "us-west1"),
                    ("MCP-PARAM-N", "42"),
                    ("Mcp-Param-flag", "true"),
                ],
                None,
            ),
            (
                "OWS is trimmed",
                with(&[(MCP_NAME, Some("  get_weather\t"))]),
                None,
            ),
            (
                "integer compared numerically",
                with(&[("Mcp-Param-N", Some("42.0"))]),
                None,
            ),
            (
                "integer with leading zeros",
                with(&[("Mcp-Param-N", Some("0042"))]),
                None,
            ),
            (
                "base64 name accepted",
                with(&[(MCP_NAME, Some("=?base64?Z2V0X3dlYXRoZXI=?="))]),
                None,
            ),
            (
                "base64 param accepted",
                with(&[("Mcp-Param-Region", Some("=?base64?dXMtd2VzdDE=?="))]),
                None,
            ),
            (
                "undeclared Mcp-Param ignored",
                with(&[("Mcp-Param-Other", Some("x"))]),
                None,
            ),
            (
                "legacy headers ignored",
                with(&[(MCP_SESSION_ID, Some("abc")), (LAST_EVENT_ID, Some("7"))]),
                None,
            ),
            // protocol version
            (
                "version missing",
                with(&[(MCP_PROTOCOL_VERSION, None)]),
                Some((MCP_PROTOCOL_VERSION, Missing)),
            ),
            (
                "version differs from body",
                with(&[(MCP_PROTOCOL_VERSION, Some("2025-11-25"))]),
                Some((MCP_PROTOCOL_VERSION, mismatch("2025-11-25", V))),
            ),
            (
                "version repeated",
                {
                    let mut v = base.clone();
                    v.push((MCP_PROTOCOL_VERSION, V));
                    v
                },
                Some((MCP_PROTOCOL_VERSION, Repeated)),
            ),
            // method
            (
                "method missing",
                with(&[(MCP_METHOD, None)]),
                Some((MCP_METHOD, Missing)),
            ),
            (
                "method differs",
                with(&[(MCP_METHOD, Some("tools/list"))]),
                Some((MCP_METHOD, mismatch("tools/list", "tools/call"))),
            ),
            (
                "method values are case-sensitive",
                with(&[(MCP_METHOD, Some("Tools/Call"))]),
                Some((MCP_METHOD, mismatch("Tools/Call", "tools/call"))),
            ),
            (
                "method with control char",
                with(&[(MCP_METHOD, Some("tools/call\u{1}"))]),
                Some((MCP_METHOD, InvalidCharacters)),
            ),
            // name
            (
                "name missing",
                with(&[(MCP_NAME, None)]),
                Some((MCP_NAME, Missing)),
            ),
            (
                "name differs",
                with(&[(MCP_NAME, Some("other"))]),
                Some((MCP_NAME, mismatch("other", "get_weather"))),
            ),
            (
                "name non-ASCII raw",
                with(&[(MCP_NAME, Some("gét"))]),
                Some((MCP_NAME, InvalidCharacters)),
            ),
            (
                "name malformed sentinel",
                with(&[(MCP_NAME, Some("=?base64?***?="))]),
                Some((MCP_NAME, MalformedEncoding(SentinelError::InvalidBase64))),
            ),
            (
                "name sentinel decodes to other value",
                with(&[(MCP_NAME, Some("=?base64?b3RoZXI=?="))]),
                Some((MCP_NAME, mismatch("other", "get_weather"))),
            ),
            (
                "uppercase markers are literal",
                with(&[(MCP_NAME, Some("=?BASE64?Z2V0X3dlYXRoZXI=?="))]),
                Some((
                    MCP_NAME,
                    mismatch("=?BASE64?Z2V0X3dlYXRoZXI=?=", "get_weather"),
                )),
            ),
            // params
            (
                "param missing",
                with(&[("Mcp-Param-Region", None)]),
                Some(("Mcp-Param-Region", Missing)),
            ),
            (
                "param differs",
                with(&[("Mcp-Param-Region", Some("eu-west1"))]),
                Some(("Mcp-Param-Region", mismatch("eu-west1", "us-west1"))),
            ),
            (
                "integer differs",
                with(&[("Mcp-Param-N", Some("43"))]),
                Some(("Mcp-Param-N", mismatch("43", "42"))),
            ),
            (
                "integer not decimal",
                with(&[("Mcp-Param-N", Some("4.2e1"))]),
                Some(("Mcp-Param-N", mismatch("4.2e1", "42"))),
            ),
            (
                "boolean differs",
                with(&[("Mcp-Param-Flag", Some("false"))]),
                Some(("Mcp-Param-Flag", mismatch("false", "true"))),
            ),
            (
                "boolean wrong case",
                with(&[("Mcp-Param-Flag", Some("TRUE"))]),
                Some(("Mcp-Param-Flag", mismatch("TRUE", "true"))),
            ),
            (
                "param with CR",
                with(&[("Mcp-Param-Region", Some("us\rwest"))]),
                Some(("Mcp-Param-Region", InvalidCharacters)),
            ),
            (
                "param repeated",
                {
                    let mut v = base.clone();
                    v.push(("mcp-param-region", "us-west1"));
                    v
                },
                Some(("Mcp-Param-Region", Repeated)),
            ),
            (
                "param bad utf-8 in sentinel",
                with(&[("Mcp-Param-Region", Some("=?base64?/w==?="))]),
                Some((
                    "Mcp-Param-Region",
                    MalformedEncoding(SentinelError::InvalidUtf8),
                )),
            ),
        ];
        for (label, headers, want) in table {
            let got = check(&headers, "tools/call", &call, Some(&schema));
            match want {
                None => assert_eq!(got, Ok(()), "{label}"),
                Some((header, kind)) => {
                    assert_eq!(got, Err(HeaderError::new(header, kind)), "{label}")
                }
            }
        }
    }

    #[test]
    fn validation_of_absent_and_null_arguments() {
        use HeaderErrorKind::*;
        let schema = weather_schema();
        let common = [
            (MCP_PROTOCOL_VERSION, V),
            (MCP_METHOD, "tools/call"),
            (MCP_NAME, "w"),
        ];
        let table: Vec<(Value, Pairs, Outcome)> = vec![
            // absent / null arguments need no header
            (json!({"region": null}), vec![], Ok(())),
            (json!({}), vec![], Ok(())),
            (Value::Null, vec![], Ok(())),
            // a header for an absent or null argument is rejected
            (
                json!({"region": null}),
                vec![("Mcp-Param-Region", "x")],
                Err(HeaderError::new(
                    "Mcp-Param-Region",
                    Unexpected {
                        header_value: "x".into(),
                    },
                )),
            ),
            (
                json!({}),
                vec![("Mcp-Param-N", "1")],
                Err(HeaderError::new(
                    "Mcp-Param-N",
                    Unexpected {
                        header_value: "1".into(),
                    },
                )),
            ),
            // a present argument needs its header
            (
                json!({"n": 0}),
                vec![],
                Err(HeaderError::new("Mcp-Param-N", Missing)),
            ),
            (
                json!({"flag": false}),
                vec![("Mcp-Param-Flag", "false")],
                Ok(()),
            ),
            // an empty string is a value
            (
                json!({"region": ""}),
                vec![("Mcp-Param-Region", "")],
                Ok(()),
            ),
            (
                json!({"region": ""}),
                vec![],
                Err(HeaderError::new("Mcp-Param-Region", Missing)),
            ),
            // sentinel-looking string must arrive encoded
            (
                json!({"region": "=?base64?literal?="}),
                vec![("Mcp-Param-Region", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?=")],
                Ok(()),
            ),
            (
                json!({"region": "=?base64?bGl0ZXJhbA==?="}),
                vec![("Mcp-Param-Region", "=?base64?bGl0ZXJhbA==?=")],
                Err(HeaderError::new(
                    "Mcp-Param-Region",
                    Mismatch {
                        header_value: "literal".into(),
                        body_value: "=?base64?bGl0ZXJhbA==?=".into(),
                    },
                )),
            ),
        ];
        for (args, extra, want) in table {
            let mut p = obj(meta_params(json!({"name": "w"})));
            if !args.is_null() {
                p.insert("arguments".into(), args.clone());
            }
            let params = Value::Object(p);
            let mut headers: Vec<(&str, &str)> = common.to_vec();
            headers.extend(extra.iter().copied());
            assert_eq!(
                check(&headers, "tools/call", &params, Some(&schema)),
                want,
                "{args} {extra:?}"
            );
        }
    }

    #[test]
    fn validation_of_other_methods() {
        use HeaderErrorKind::*;
        let table: Vec<(&str, Value, Pairs, Outcome)> = vec![
            (
                "tools/list",
                meta_params(json!({})),
                vec![(MCP_PROTOCOL_VERSION, V), (MCP_METHOD, "tools/list")],
                Ok(()),
            ),
            // Mcp-Name on a method that needs none is ignored
            (
                "tools/list",
                meta_params(json!({})),
                vec![
                    (MCP_PROTOCOL_VERSION, V),
                    (MCP_METHOD, "tools/list"),
                    (MCP_NAME, "x"),
                ],
                Ok(()),
            ),
            (
                "resources/read",
                meta_params(json!({"uri": "file:///a b"})),
                vec![
                    (MCP_PROTOCOL_VERSION, V),
                    (MCP_METHOD, "resources/read"),
                    (MCP_NAME, "file:///a b"),
                ],
                Ok(()),
            ),
            (
                "resources/read",
                meta_params(json!({"uri": "file:///a"})),
                vec![(MCP_PROTOCOL_VERSION, V), (MCP_METHOD, "resources/read")],
                Err(HeaderError::new(MCP_NAME, Missing)),
            ),
            (
                "prompts/get",
                meta_params(json!({"name": "p"})),
                vec![
                    (MCP_PROTOCOL_VERSION, V),
                    (MCP_METHOD, "prompts/get"),
                    (MCP_NAME, "q"),
                ],
                Err(HeaderError::new(
                    MCP_NAME,
                    Mismatch {
                        header_value: "q".into(),
                        body_value: "p".into(),
                    },
                )),
            ),
            (
                "tasks/get",
                meta_params(json!({"taskId": "t1"})),
                vec![(MCP_PROTOCOL_VERSION, V), (MCP_METHOD, "tasks/get")],
                Err(HeaderError::new(MCP_NAME, Missing)),
            ),
            (
                "tasks/update",
                meta_params(json!({"taskId": "t1", "inputResponses": {}})),
                vec![
                    (MCP_PROTOCOL_VERSION, V),
                    (MCP_METHOD, "tasks/update"),
                    (MCP_NAME, "t1"),
                ],
                Ok(()),
            ),
            (
                "tasks/cancel",
                meta_params(json!({"taskId": "t1"})),
                vec![
                    (MCP_PROTOCOL_VERSION, V),
                    (MCP_METHOD, "tasks/cancel"),
                    (MCP_NAME, "t2"),
                ],
                Err(HeaderError::new(
                    MCP_NAME,
                    Mismatch {
                        header_value: "t2".into(),
                        body_value: "t1".into(),
                    },
                )),
            ),
            // body without a string name: left to params validation
            (
                "tools/call",
                meta_params(json!({"name": 5})),
                vec![(MCP_PROTOCOL_VERSION, V), (MCP_METHOD, "tools/call")],
                Ok(()),
            ),
            // body without a protocol version: only presence is checked
            (
                "ping",
                json!({}),
                vec![(MCP_PROTOCOL_VERSION, "anything"), (MCP_METHOD, "ping")],
                Ok(()),
            ),
            (
                "ping",
                json!({}),
                vec![(MCP_METHOD, "ping")],
                Err(HeaderError::new(MCP_PROTOCOL_VERSION, Missing)),
            ),
        ];
        for (method, params, headers, want) in table {
            assert_eq!(
                check(&headers, method, &params, None),
                want,
                "{method} {params}"
            );
        }
    }

    #[test]
    fn notification_headers_are_optional_but_checked() {
        use HeaderErrorKind::*;
        let table: Vec<(Pairs, Outcome)> = vec![
            (vec![], Ok(())),
            (
                vec![(MCP_PROTOCOL_VERSION, V), (MCP_METHOD, "notifications/x")],
                Ok(()),
            ),
            (
                vec![(MCP_METHOD, "notifications/y")],
                Err(HeaderError::new(
                    MCP_METHOD,
                    Mismatch {
                        header_value: "notifications/y".into(),
                        body_value: "notifications/x".into(),
                    },
                )),
            ),
            (
                vec![(MCP_PROTOCOL_VERSION, "2025-06-18")],
                Err(HeaderError::new(
                    MCP_PROTOCOL_VERSION,
                    Mismatch {
                        header_value: "2025-06-18".into(),
                        body_value: V.into(),
                    },
                )),
            ),
        ];
        for (headers, want) in table {
            assert_eq!(
                validate_notification_headers(&headers, "notifications/x", Some(V)),
                want,
                "{headers:?}"
            );
        }
    }

    #[test]
    fn invalid_schema_uses_the_valid_annotations_on_both_sides() {
        let schema = obj(json!({"type": "object", "properties": {
            "a": {"type": "string", "x-mcp-header": "A"},
            "b": {"type": "string", "x-mcp-header": "a"},
            "c": {"type": "number", "x-mcp-header": "C"}
        }}));
        assert!(validate_header_annotations(&schema).is_err());
        let params = meta_params(json!({"name": "t", "arguments": {"a": "1", "b": "2", "c": 1.5}}));
        let headers = request_headers("tools/call", &params, Some(&schema));
        let params_sent: Vec<&str> = headers
            .iter()
            .filter(|(k, _)| k.starts_with(MCP_PARAM_PREFIX))
            .map(|(k, _)| k.as_str())
            .collect();
        assert_eq!(params_sent, vec!["Mcp-Param-A"]);
        assert_eq!(
            validate_request_headers(&headers, "tools/call", &params, Some(V), Some(&schema)),
            Ok(())
        );
    }

    #[test]
    fn client_output_always_passes_server_validation() {
        let schema = obj(json!({"type": "object", "properties": {
            "s": {"type": "string", "x-mcp-header": "S"},
            "i": {"type": "integer", "x-mcp-header": "I"},
            "b": {"type": "boolean", "x-mcp-header": "B"},
            "o": {"type": "object", "properties": {"s": {"type": "string", "x-mcp-header": "Inner"}}}
        }}));
        let names = [
            "plain",
            "Grüße",
            " sp ",
            "=?base64?x?=",
            "a\r\nb",
            "",
            "=?base64?=",
        ];
        let values = [
            json!("x"),
            json!("世界"),
            json!(" "),
            json!("\t"),
            json!("=?base64?Zm9v?="),
            json!(-9_007_199_254_740_991_i64),
            json!(0),
            json!(true),
            json!(null),
        ];
        for name in names {
            for v in &values {
                let params = meta_params(json!({"name": name, "arguments": {
                    "s": v, "i": v, "b": v, "o": {"s": v}
                }}));
                let headers = request_headers("tools/call", &params, Some(&schema));
                for (k, val) in &headers {
                    assert!(is_header_safe(val), "{k}: {val:?} not header-safe");
                }
                assert_eq!(
                    validate_request_headers(
                        &headers,
                        "tools/call",
                        &params,
                        Some(V),
                        Some(&schema)
                    ),
                    Ok(()),
                    "name {name:?} value {v}"
                );
            }
        }
    }

    #[test]
    fn error_object_and_status() {
        let e = HeaderError::new(
            MCP_NAME,
            HeaderErrorKind::Mismatch {
                header_value: "foo".into(),
                body_value: "bar".into(),
            },
        );
        assert_eq!(e.http_status(), 400);
        let o = e.to_error_object();
        assert_eq!(o.code, -32020);
        assert_eq!(o.code, HEADER_MISMATCH);
        assert_eq!(
            o.message,
            "Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'"
        );
        assert_eq!(o.data, Some(json!({"header": "Mcp-Name"})));
        let messages = [
            (
                HeaderErrorKind::Missing,
                "Header mismatch: required header Mcp-Name is missing",
            ),
            (
                HeaderErrorKind::Repeated,
                "Header mismatch: header Mcp-Name appears more than once",
            ),
            (
                HeaderErrorKind::InvalidCharacters,
                "Header mismatch: header Mcp-Name contains invalid characters",
            ),
            (
                HeaderErrorKind::MalformedEncoding(SentinelError::InvalidBase64),
                "Header mismatch: header Mcp-Name has a malformed Base64 value: the payload is not valid standard Base64",
            ),
            (
                HeaderErrorKind::Unexpected {
                    header_value: "a\nb".into(),
                },
                "Header mismatch: Mcp-Name header value 'a\\nb' has no corresponding value in the body",
            ),
        ];
        for (kind, want) in messages {
            let e = HeaderError::new(MCP_NAME, kind);
            assert_eq!(e.to_string(), want);
            assert_eq!(ErrorObject::from(e).code, HEADER_MISMATCH);
        }
        // Long values are cut in messages.
        let long = "x".repeat(500);
        let e = HeaderError::new(MCP_NAME, HeaderErrorKind::Unexpected { header_value: long });
        assert!(e.to_string().len() < 200);
    }

    #[test]
    fn header_fn_adapter_and_duplicates() {
        let store: Vec<(&str, &[u8])> = vec![
            ("Mcp-Method", &b"ping"[..]),
            (MCP_PROTOCOL_VERSION, &b"2026-07-28"[..]),
        ];
        let src = HeaderFn(|name: &str, each: &mut dyn FnMut(&[u8])| {
            for (k, v) in &store {
                if k.eq_ignore_ascii_case(name) {
                    each(v);
                }
            }
        });
        assert_eq!(
            validate_request_headers(&src, "ping", Params::None, Some(V), None),
            Ok(())
        );
        // obs-text bytes are invalid characters
        let bytes: Vec<(&str, &[u8])> = vec![
            (MCP_PROTOCOL_VERSION, &b"2026-07-28"[..]),
            (MCP_METHOD, &b"pi\xffng"[..]),
        ];
        assert_eq!(
            validate_request_headers(&bytes, "ping", Params::None, Some(V), None),
            Err(HeaderError::new(
                MCP_METHOD,
                HeaderErrorKind::InvalidCharacters
            ))
        );
    }

    #[test]
    fn constants() {
        assert_eq!(MCP_PROTOCOL_VERSION, "MCP-Protocol-Version");
        assert_eq!(MCP_METHOD, "Mcp-Method");
        assert_eq!(MCP_NAME, "Mcp-Name");
        assert_eq!(MCP_PARAM_PREFIX, "Mcp-Param-");
        assert_eq!(MCP_SESSION_ID, "Mcp-Session-Id");
        assert_eq!(LAST_EVENT_ID, "Last-Event-ID");
        assert_eq!(MAX_SAFE_INTEGER, 9_007_199_254_740_991);
        assert_eq!(param_header_name("Region"), "Mcp-Param-Region");
        assert_eq!(name_source_field("tools/call"), Some("name"));
        assert_eq!(name_source_field("prompts/get"), Some("name"));
        assert_eq!(name_source_field("resources/read"), Some("uri"));
        assert_eq!(name_source_field("tasks/get"), Some("taskId"));
        assert_eq!(name_source_field("tools/list"), None);
    }
}
