//! The 2026-07-28 request `_meta` envelope: reserved keys, typed parsing, stamping.
//!
//! On the modern era every client request carries its protocol revision, capabilities and
//! (should) identity in `params._meta`. [`RequestMeta::from_params`] reads that envelope from a
//! request's raw params without decoding the rest of the params: only the `_meta` member is
//! parsed, the other members are skipped by the JSON scanner.
//!
//! ```
//! use mcp_core::meta::{RequestMeta, carries_modern_envelope};
//! use serde_json::value::RawValue;
//!
//! let params: &RawValue = serde_json::from_str(
//!     r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",
//!         "io.modelcontextprotocol/clientCapabilities":{},"progressToken":7}}"#,
//! )
//! .unwrap();
//! assert!(carries_modern_envelope(Some(params)));
//! let meta = RequestMeta::from_params(Some(params)).unwrap().unwrap();
//! assert_eq!(meta.protocol_version.as_deref(), Some("2026-07-28"));
//! assert_eq!(meta.progress_token, Some(7.into()));
//! ```

use serde::Deserialize;
use serde::de::{Deserializer, IgnoredAny};
use serde_json::value::RawValue;
use serde_json::{Map, Value};

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
/// Every field is `None` when its key is absent. [`raw`](Self::raw) keeps the whole `_meta`
/// object as sent, typed keys included, so unknown and extension keys pass through untouched.
#[derive(Debug, Clone, PartialEq, Default)]
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
    /// The whole `_meta` object as sent.
    pub raw: Meta,
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

/// Only whether `_meta` has a protocol version.
#[derive(Deserialize)]
struct EnvelopeProbe {
    #[serde(rename = "io.modelcontextprotocol/protocolVersion", default)]
    protocol_version: Option<IgnoredAny>,
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

fn take_string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, ErrorObject> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid_field(key)),
    }
}

/// Checks that `key` is absent or an object (read later from `raw`, never copied).
fn check_object(map: &Map<String, Value>, key: &str) -> Result<(), ErrorObject> {
    match map.get(key) {
        None | Some(Value::Object(_)) => Ok(()),
        Some(_) => Err(invalid_field(key)),
    }
}

fn take_id(map: &Map<String, Value>, key: &str) -> Result<Option<RequestId>, ErrorObject> {
    match map.get(key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(RequestId::from(s.as_str()))),
        Some(Value::Number(n)) => n
            .as_i64()
            .map(|n| Some(RequestId::Number(n)))
            .ok_or_else(|| invalid_field(key)),
        Some(_) => Err(invalid_field(key)),
    }
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
    pub fn from_params(params: Option<&RawValue>) -> Result<Option<Self>, ErrorObject> {
        match locate_meta(params)? {
            MetaLocation::Absent => Ok(None),
            MetaLocation::Present(raw) => Self::from_raw_meta(raw).map(Some),
        }
    }

    /// Reads an already located raw `_meta` value (see [`RequestMeta::from_params`]).
    pub fn from_raw_meta(raw: &RawValue) -> Result<Self, ErrorObject> {
        if !raw.get().starts_with('{') {
            return Err(invalid_field("_meta"));
        }
        let map: Meta = serde_json::from_str(raw.get()).map_err(|_| invalid_field("_meta"))?;
        Self::from_map(map)
    }

    /// Builds the typed view from a decoded `_meta` object, checking the reserved keys' types.
    pub fn from_map(map: Meta) -> Result<Self, ErrorObject> {
        let protocol_version = take_string(&map, PROTOCOL_VERSION)?;
        let log_level = take_string(&map, LOG_LEVEL)?;
        if log_level
            .as_deref()
            .is_some_and(|level| !LOG_LEVELS.contains(&level))
        {
            return Err(invalid_field(LOG_LEVEL));
        }
        check_object(&map, CLIENT_INFO)?;
        check_object(&map, CLIENT_CAPABILITIES)?;
        Ok(Self {
            version: protocol_version.as_deref().and_then(ProtocolVersion::parse),
            protocol_version,
            log_level,
            progress_token: take_id(&map, PROGRESS_TOKEN)?,
            subscription_id: take_id(&map, SUBSCRIPTION_ID)?,
            traceparent: take_string(&map, TRACEPARENT)?,
            tracestate: take_string(&map, TRACESTATE)?,
            baggage: take_string(&map, BAGGAGE)?,
            raw: map,
        })
    }

    /// Checks the keys every 2026 request must carry: `protocolVersion` and
    /// `clientCapabilities`. A missing one is `-32602 missing required _meta field: <key>`.
    pub fn require_envelope(&self) -> Result<(), ErrorObject> {
        if self.protocol_version.is_none() {
            return Err(missing_field(PROTOCOL_VERSION));
        }
        if self.client_capabilities().is_none() {
            return Err(missing_field(CLIENT_CAPABILITIES));
        }
        Ok(())
    }

    /// `io.modelcontextprotocol/clientInfo` (an `Implementation` object), read in place
    /// from [`raw`](Self::raw).
    pub fn client_info(&self) -> Option<&Map<String, Value>> {
        self.raw.get(CLIENT_INFO).and_then(Value::as_object)
    }

    /// `io.modelcontextprotocol/clientCapabilities` (a `ClientCapabilities` object), read in
    /// place from [`raw`](Self::raw).
    pub fn client_capabilities(&self) -> Option<&Map<String, Value>> {
        self.raw.get(CLIENT_CAPABILITIES).and_then(Value::as_object)
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
    let Ok(MetaLocation::Present(raw)) = locate_meta(params) else {
        return false;
    };
    if !raw.get().starts_with('{') {
        return false;
    }
    serde_json::from_str::<EnvelopeProbe>(raw.get())
        .map(|p| p.protocol_version.is_some())
        .unwrap_or(false)
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
        RequestMeta::from_params(Some(&r))
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
            Value::Object(m.client_capabilities().cloned().unwrap()),
            json!({"elicitation":{}})
        );
        assert_eq!(
            Value::Object(m.client_info().cloned().unwrap()),
            json!({"name":"c","version":"1"})
        );
        assert_eq!(m.log_level.as_deref(), Some("warning"));
        assert_eq!(m.subscription_id, Some(RequestId::from("s1")));
        assert_eq!(m.progress_token, Some(RequestId::from("tok")));
        assert_eq!(m.traceparent.as_deref(), Some("00-abc-def-01"));
        assert_eq!(m.tracestate.as_deref(), Some("k=v"));
        assert_eq!(m.baggage.as_deref(), Some("b=1"));
        assert_eq!(m.raw.get("com.example/custom"), Some(&json!([1, 2])));
        assert_eq!(m.raw.len(), 10, "raw keeps every key, typed ones included");
        m.require_envelope().unwrap();
        assert!(m.is_modern_envelope());
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
        ];
        for (p, want) in table {
            let r = p.map(raw);
            assert_eq!(carries_modern_envelope(r.as_deref()), *want, "{p:?}");
        }
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
            let m = RequestMeta::from_params(Some(&r)).unwrap().unwrap();
            m.require_envelope().unwrap();
            assert_eq!(m.version, Some(v));
        }
    }
}
