//! Server side: the checks of a request's (or notification's) headers against its body.

use serde_json::{Map, Value};

use super::annotations::usable_header_params;
use super::source::with_single_header;
use super::{
    HeaderError, HeaderErrorKind, HeaderSource, MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION,
    ParamsView, RequestFields, argument_header_value, decode_header_value, header_value_matches,
    name_source_field, single_header,
};

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
    params: impl Into<ParamsView<'p>>,
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
    use crate::headers::test_support::*;
    use crate::headers::*;
    use serde_json::json;

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
}
