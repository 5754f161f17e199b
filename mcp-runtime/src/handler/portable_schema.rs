//! Tool schemas that strict clients accept: schemars' Rust-flavoured output rewritten into
//! plain JSON Schema. Clients with strict validators (and the MCP Inspector's portability
//! check) refuse `format` values JSON Schema does not define (`uint32`, `int64`, ...) and
//! the `["integer", "null"]` that `Option<T>` arguments get.

use serde_json::{Map, Value};

/// The `format` values JSON Schema 2020-12 defines; any other is dropped.
const STANDARD_FORMATS: &[&str] = &[
    "date-time",
    "date",
    "time",
    "duration",
    "email",
    "idn-email",
    "hostname",
    "idn-hostname",
    "ipv4",
    "ipv6",
    "uri",
    "uri-reference",
    "iri",
    "iri-reference",
    "uuid",
    "uri-template",
    "json-pointer",
    "relative-json-pointer",
    "regex",
];

/// Rewrites `schema` in place: non-standard formats go (a 32-bit integer format keeps its
/// range as `minimum`/`maximum`); with `inputs`, a value that may also be `null` is
/// described as the value alone, since an optional argument is one that may be left out
/// (an explicit `null` is still accepted, as absent).
pub(crate) fn make_portable(schema: &mut Map<String, Value>, inputs: bool) {
    for v in schema.values_mut() {
        portable_value(v, inputs);
    }
    rewrite(schema, inputs);
}

fn portable_value(v: &mut Value, inputs: bool) {
    match v {
        Value::Object(m) => make_portable(m, inputs),
        Value::Array(a) => a.iter_mut().for_each(|x| portable_value(x, inputs)),
        _ => {}
    }
}

fn rewrite(m: &mut Map<String, Value>, inputs: bool) {
    if let Some(Value::String(f)) = m.get("format")
        && !STANDARD_FORMATS.contains(&f.as_str())
    {
        let bounds = match f.as_str() {
            "int32" => Some((i64::from(i32::MIN), i64::from(i32::MAX))),
            "uint32" => Some((0, i64::from(u32::MAX))),
            _ => None,
        };
        if let Some((lo, hi)) = bounds {
            m.entry("minimum").or_insert(Value::from(lo));
            m.entry("maximum").or_insert(Value::from(hi));
        }
        m.remove("format");
    }
    if !inputs {
        return;
    }
    // `"type": ["integer", "null"]` → `"type": "integer"`.
    if let Some(Value::Array(types)) = m.get("type") {
        let rest: Vec<&Value> = types.iter().filter(|t| *t != "null").collect();
        if rest.len() == 1 && rest.len() < types.len() {
            let only = rest[0].clone();
            m.insert("type".into(), only);
        }
    }
    // `"anyOf": [X, {"type": "null"}]` → X, merged into this schema (its own keywords win).
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(alts)) = m.get(key) else {
            continue;
        };
        let is_null = |v: &Value| {
            v.as_object()
                .is_some_and(|o| o.len() == 1 && o.get("type") == Some(&Value::from("null")))
        };
        if alts.len() != 2 || !alts.iter().any(is_null) {
            continue;
        }
        let Some(Value::Object(other)) = alts.iter().find(|v| !is_null(v)).cloned() else {
            continue;
        };
        m.remove(key);
        for (k, v) in other {
            m.entry(k).or_insert(v);
        }
        break;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn portable(v: Value, inputs: bool) -> Value {
        let Value::Object(mut m) = v else { panic!() };
        make_portable(&mut m, inputs);
        Value::Object(m)
    }

    #[test]
    fn formats_and_nulls() {
        let s = json!({"type": "object", "properties": {
            "a": {"type": "integer", "format": "uint32", "minimum": 0},
            "b": {"type": ["integer", "null"], "format": "int64"},
            "c": {"description": "d", "anyOf": [{"type": "string", "enum": ["x"]}, {"type": "null"}]},
            "d": {"type": "string", "format": "date-time"},
            "e": {"type": ["string", "integer", "null"]}
        }});
        assert_eq!(
            portable(s.clone(), true),
            json!({"type": "object", "properties": {
                "a": {"type": "integer", "minimum": 0, "maximum": 4294967295u32},
                "b": {"type": "integer"},
                "c": {"description": "d", "type": "string", "enum": ["x"]},
                "d": {"type": "string", "format": "date-time"},
                "e": {"type": ["string", "integer", "null"]}
            }})
        );
        // Outputs keep `null`: a value that may be null is one.
        let out = portable(s, false);
        assert_eq!(out["properties"]["b"], json!({"type": ["integer", "null"]}));
        assert!(out["properties"]["c"]["anyOf"].is_array());
    }
}
