//! Client side: the headers a request carries ([`request_headers`]).

use serde_json::{Map, Value};

use super::annotations::usable_header_params;
use super::{
    MCP_METHOD, MCP_NAME, MCP_PROTOCOL_VERSION, ParamsView, RequestFields, argument_header_value,
    encode_header_value, name_source_field,
};

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
/// [`validate_request_headers`](super::validate_request_headers) skips them. Works for notifications too (1 and 2 only).
pub fn request_headers<'p>(
    method: &str,
    params: impl Into<ParamsView<'p>>,
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::test_support::*;
    use serde_json::json;

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
}
