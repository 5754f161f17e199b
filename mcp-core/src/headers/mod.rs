//! Request headers of the 2026-07-28 Streamable HTTP transport, as pure functions.
//!
//! The 2026 transport mirrors selected body fields into HTTP headers so intermediaries can
//! route without parsing the body; the body stays the source of truth and a server that
//! reads the body MUST reject a request whose headers disagree with it (HTTP `400`,
//! JSON-RPC `-32020` [`HEADER_MISMATCH`](crate::jsonrpc::HEADER_MISMATCH)).
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
//! use mcp_core::headers::{request_headers, validate_request_headers, ParamsView};
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
//! let headers = request_headers("tools/call", ParamsView::Value(&params), Some(schema));
//! assert_eq!(headers, vec![
//!     ("MCP-Protocol-Version".to_string(), "2026-07-28".to_string()),
//!     ("Mcp-Method".to_string(), "tools/call".to_string()),
//!     ("Mcp-Name".to_string(), "execute_sql".to_string()),
//!     ("Mcp-Param-Region".to_string(), "us-west1".to_string()),
//! ]);
//! // The server accepts exactly what the client sends.
//! validate_request_headers(&headers, "tools/call", ParamsView::Value(&params), Some("2026-07-28"), Some(schema))
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

mod annotations;
mod client;
mod errors;
mod fields;
mod source;
mod validate;
mod values;

pub use annotations::{
    AnnotationProblem, AnnotationProblemKind, HeaderParam, ParamType, header_params, is_token,
    param_header_name, validate_header_annotations,
};
pub use client::request_headers;
pub use errors::{HeaderError, HeaderErrorKind};
pub use fields::{ParamsView, RequestFields, name_source_field};

pub use source::{HeaderFn, HeaderSource, single_header};
pub use validate::{
    validate_notification_headers, validate_request_fields, validate_request_headers,
};
pub use values::{
    SentinelError, argument_header_value, decode_header_value, encode_header_value,
    header_value_matches, is_header_safe, looks_like_sentinel,
};

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

/// What the tests of every part share: header tables, schemas, and the one check that runs
/// every way of reading params and asserts they agree.
#[cfg(test)]
mod test_support {
    use serde_json::{Map, Value, json};

    use super::*;

    pub(super) const V: &str = "2026-07-28";

    /// Header pairs as test tables write them.
    pub(super) type Pairs = Vec<(&'static str, &'static str)>;
    /// An expected validation outcome.
    pub(super) type Outcome = Result<(), HeaderError>;

    pub(super) fn obj(v: Value) -> Map<String, Value> {
        match v {
            Value::Object(m) => m,
            _ => panic!("not an object"),
        }
    }

    pub(super) fn h(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    pub(super) fn meta_params(extra: Value) -> Value {
        let mut p = obj(extra);
        p.insert(
            "_meta".into(),
            json!({"io.modelcontextprotocol/protocolVersion": V}),
        );
        Value::Object(p)
    }

    pub(super) fn weather_schema() -> Map<String, Value> {
        obj(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "n": {"type": "integer", "x-mcp-header": "N"},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "query": {"type": "string"}
        }}))
    }

    pub(super) fn check(
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
}

#[cfg(test)]
mod tests {
    use super::*;

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
