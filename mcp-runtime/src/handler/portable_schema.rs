//! Tool schemas that strict clients accept: schemars' Rust-flavoured output rewritten into
//! plain JSON Schema. Clients with strict validators (and the MCP Inspector's portability
//! check, `inspector --cli --strict`) refuse `format` values JSON Schema does not define
//! (`uint32`, `int64`, ...), a bare `true`/`false` where a schema object belongs (what
//! `serde_json::Value` gets) and `type` arrays (the `["integer", "null"]` of `Option<T>`).

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

/// Keywords whose value is one schema (or, for `items`, a list of them).
const ONE_SCHEMA: &[&str] = &[
    "items",
    "contains",
    "not",
    "propertyNames",
    "if",
    "then",
    "else",
];
/// Keywords whose value is a list of schemas.
const SCHEMA_LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const SCHEMA_MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];
/// Keywords whose value is instance data, not a schema: left as they are.
const DATA: &[&str] = &["default", "const", "enum", "examples"];

/// Rewrites `schema` in place: non-standard formats go (an integer's width is not restated
/// as a range: `u32` is `{"type": "integer", "minimum": 0}`); a bare boolean subschema becomes its object form; with
/// `inputs`, a value that may also be `null` is described as the value alone, since an
/// optional argument is one that may be left out (an explicit `null` is still accepted, as
/// absent); a `type` array that remains becomes `anyOf` one type each.
pub(crate) fn make_portable(schema: &mut Map<String, Value>, inputs: bool) {
    for (k, v) in schema.iter_mut() {
        let k = k.as_str();
        if ONE_SCHEMA.contains(&k) || SCHEMA_LIST.contains(&k) {
            match v {
                Value::Array(a) => a.iter_mut().for_each(|x| subschema(x, inputs)),
                _ => subschema(v, inputs),
            }
        } else if SCHEMA_MAP.contains(&k) {
            if let Value::Object(m) = v {
                m.values_mut().for_each(|x| subschema(x, inputs));
            }
        } else if !DATA.contains(&k) {
            portable_value(v, inputs);
        }
    }
    rewrite(schema, inputs);
}

/// Where `schema` breaks the rules `make_portable` enforces on our own tools (a `format`
/// JSON Schema does not define, a bare `true`/`false` subschema, a `type` array, and with
/// `inputs` an optional argument that is also nullable): one line per schema that would be
/// rewritten, its JSON Pointer, what it is and what the portable form is. Empty when the
/// schema is portable. `mcp inspect` checks every tool of a server with it.
pub fn portability_problems(schema: &Map<String, Value>, inputs: bool) -> Vec<String> {
    let mut portable = schema.clone();
    make_portable(&mut portable, inputs);
    let mut out = Vec::new();
    differences(
        &Value::Object(schema.clone()),
        &Value::Object(portable),
        &mut String::new(),
        &mut out,
    );
    out
}

/// The shallowest places where `was` and `is` differ (a node whose own keywords changed).
fn differences(was: &Value, is: &Value, path: &mut String, out: &mut Vec<String>) {
    if was == is {
        return;
    }
    let len = path.len();
    match (was, is) {
        (Value::Object(a), Value::Object(b)) if a.keys().eq(b.keys()) => {
            for ((k, x), y) in a.iter().zip(b.values()) {
                path.push('/');
                path.push_str(&k.replace('~', "~0").replace('/', "~1"));
                differences(x, y, path, out);
                path.truncate(len);
            }
        }
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                path.push_str(&format!("/{i}"));
                differences(x, y, path, out);
                path.truncate(len);
            }
        }
        _ => out.push(format!(
            "{}: {} is not portable (strict clients refuse it); portable: {}",
            if path.is_empty() { "(root)" } else { path },
            what_breaks(was, inputs_hint(was, is)),
            is
        )),
    }
}

/// `true` when the rewrite dropped a `null` alternative (the optional-argument rule).
fn inputs_hint(was: &Value, is: &Value) -> bool {
    let nulls = |v: &Value| v.to_string().matches("\"null\"").count();
    nulls(is) < nulls(was)
}

/// Names the rule `was` breaks.
fn what_breaks(was: &Value, dropped_null: bool) -> String {
    let Value::Object(m) = was else {
        return format!("the bare boolean subschema `{was}`");
    };
    let mut why = Vec::new();
    if let Some(Value::String(f)) = m.get("format")
        && !STANDARD_FORMATS.contains(&f.as_str())
    {
        why.push(format!("`format: {f}` (not a JSON Schema format)"));
    }
    if m.get("type").is_some_and(Value::is_array) {
        why.push(format!("the `type` array {}", m["type"]));
    }
    if dropped_null {
        why.push("an optional argument that is also nullable".to_owned());
    }
    if m.values().any(Value::is_boolean) && why.is_empty() {
        why.push("a bare boolean subschema".to_owned());
    }
    if why.is_empty() {
        why.push("a schema".to_owned());
    }
    format!("{} in {was}", why.join(", "))
}

/// A schema in a subschema position: `true` is written `{}` and `false` `{"not": {}}`.
fn subschema(v: &mut Value, inputs: bool) {
    match v {
        Value::Bool(true) => *v = Value::Object(Map::new()),
        Value::Bool(false) => {
            let mut m = Map::new();
            m.insert("not".into(), Value::Object(Map::new()));
            *v = Value::Object(m);
        }
        Value::Object(m) => make_portable(m, inputs),
        _ => {}
    }
}

/// Anything else (an extension keyword's value): its objects are treated as schemas.
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
        // The width of an integer (`int32`, `uint64`, ...) is not restated as a range: a
        // `"maximum": 4294967295` is noise a model reads on every call, and a value past the
        // type's range is refused as invalid params anyway. What schemars states itself stays
        // (`minimum: 0` of an unsigned type; the narrow ranges of 8- and 16-bit types).
        m.remove("format");
    }
    if inputs {
        not_nullable(m);
    }
    split_type_union(m);
}

/// An optional argument may be left out; it is described as its value alone.
fn not_nullable(m: &mut Map<String, Value>) {
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

/// Keywords that constrain only values of one type (they pass any other): they go into the
/// `anyOf` branch of that type only.
fn only_for(keyword: &str) -> Option<&'static [&'static str]> {
    const NUMBERS: &[&str] = &["integer", "number"];
    Some(match keyword {
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => NUMBERS,
        "minLength" | "maxLength" | "pattern" | "format" | "contentEncoding"
        | "contentMediaType" | "contentSchema" => &["string"],
        "items" | "prefixItems" | "additionalItems" | "unevaluatedItems" | "contains"
        | "minContains" | "maxContains" | "minItems" | "maxItems" | "uniqueItems" => &["array"],
        "properties"
        | "patternProperties"
        | "additionalProperties"
        | "unevaluatedProperties"
        | "propertyNames"
        | "required"
        | "minProperties"
        | "maxProperties"
        | "dependentRequired"
        | "dependentSchemas" => &["object"],
        _ => return None,
    })
}

/// Keywords that stay on the schema itself when its `type` array is split: annotations and
/// the document's own structure.
const STAYS: &[&str] = &[
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "$comment",
    "$schema",
    "$id",
    "$anchor",
    "$defs",
    "definitions",
];

/// `"type": ["string", "null"], "minLength": 1` → `"anyOf": [{"type": "string", "minLength":
/// 1}, {"type": "null"}]`: the same values, one `type` per branch, each branch with the
/// keywords that apply to its type (the rest apply to none of its values).
fn split_type_union(m: &mut Map<String, Value>) {
    let Some(Value::Array(types)) = m.get("type") else {
        return;
    };
    if m.contains_key("anyOf") || !types.iter().all(Value::is_string) {
        return;
    }
    let types = types.clone();
    m.remove("type");
    if let [only] = types.as_slice() {
        m.insert("type".into(), only.clone());
        return;
    }
    let moved: Vec<String> = m
        .keys()
        .filter(|k| !STAYS.contains(&k.as_str()))
        .cloned()
        .collect();
    let shared: Vec<(String, Value)> = moved
        .into_iter()
        .filter_map(|k| m.remove(&k).map(|v| (k, v)))
        .collect();
    let branches = types.iter().map(|t| {
        let mut b = Map::new();
        b.insert("type".into(), t.clone());
        let t = t.as_str().unwrap_or_default();
        for (k, v) in &shared {
            if only_for(k).is_none_or(|types| types.contains(&t)) {
                b.insert(k.clone(), v.clone());
            }
        }
        Value::Object(b)
    });
    m.insert("anyOf".into(), Value::Array(branches.collect()));
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
            "i": {"type": "integer", "format": "int32"},
            "u8": {"type": "integer", "format": "uint8", "minimum": 0, "maximum": 255},
            "c": {"description": "d", "anyOf": [{"type": "string", "enum": ["x"]}, {"type": "null"}]},
            "d": {"type": "string", "format": "date-time"},
            "e": {"type": ["string", "integer", "null"]}
        }});
        assert_eq!(
            portable(s.clone(), true),
            json!({"type": "object", "properties": {
                "a": {"type": "integer", "minimum": 0},
                "b": {"type": "integer"},
                "c": {"description": "d", "type": "string", "enum": ["x"]},
                "d": {"type": "string", "format": "date-time"},
                "e": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "i": {"type": "integer"},
                "u8": {"type": "integer", "minimum": 0, "maximum": 255}
            }})
        );
        // Outputs keep `null`: a value that may be null is one (spelled with `anyOf`).
        let out = portable(s, false);
        assert_eq!(
            out["properties"]["b"],
            json!({"anyOf": [{"type": "integer"}, {"type": "null"}]})
        );
        assert!(out["properties"]["c"]["anyOf"].is_array());
    }

    #[test]
    fn bare_booleans_take_the_object_form() {
        // What `serde_json::Value` fields, `Vec<Value>` and `Option<Value>` get from schemars.
        let s = json!({"type": "object", "properties": {
            "v": true,
            "l": {"type": "array", "items": true, "prefixItems": [false]},
            "m": {"type": "object", "additionalProperties": true},
            "u": {"anyOf": [true, {"type": "string"}]}
        }, "$defs": {"Any": true}});
        for inputs in [true, false] {
            assert_eq!(
                portable(s.clone(), inputs),
                json!({"type": "object", "properties": {
                    "v": {},
                    "l": {"type": "array", "items": {}, "prefixItems": [{"not": {}}]},
                    "m": {"type": "object", "additionalProperties": true},
                    "u": {"anyOf": [{}, {"type": "string"}]}
                }, "$defs": {"Any": {}}})
            );
        }
    }

    #[test]
    fn type_unions_split_by_type() {
        let s = json!({"description": "d", "type": ["integer", "string", "null"],
            "minimum": 0, "maxLength": 3, "enum": [1, "a", null], "default": 1});
        assert_eq!(
            portable(s, false),
            json!({"description": "d", "default": 1, "anyOf": [
                {"type": "integer", "minimum": 0, "enum": [1, "a", null]},
                {"type": "string", "maxLength": 3, "enum": [1, "a", null]},
                {"type": "null", "enum": [1, "a", null]}
            ]})
        );
        // A union that already sits beside an `anyOf` is left alone.
        let both =
            json!({"type": ["string", "null"], "anyOf": [{"minLength": 1}, {"type": "null"}]});
        assert_eq!(portable(both.clone(), false), both);
    }

    #[test]
    fn problems_name_each_schema_that_would_be_rewritten() {
        let Value::Object(s) = json!({"type": "object", "properties": {
            "n": {"type": "integer", "format": "int64"},
            "o": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
            "v": true,
            "t": {"type": ["string", "integer"]},
            "ok": {"type": "string", "format": "date-time"}
        }}) else {
            panic!()
        };
        let p = portability_problems(&s, true);
        assert_eq!(p.len(), 4, "{p:#?}");
        for want in [
            "/properties/n: `format: int64`",
            "/properties/o: an optional argument",
            "/properties/v: the bare boolean",
            "/properties/t: the `type` array",
        ] {
            assert!(p.iter().any(|l| l.starts_with(want)), "{want}: {p:#?}");
        }
        let Value::Object(fine) =
            json!({"type": "object", "properties": {"a": {"type": "string"}}})
        else {
            panic!()
        };
        assert!(portability_problems(&fine, true).is_empty());
        // Outputs may be nullable (spelled with `anyOf`).
        let Value::Object(out) = json!({"type": "object", "properties": {"o": {"anyOf": [{"type": "string"}, {"type": "null"}]}}})
        else {
            panic!()
        };
        assert!(portability_problems(&out, false).is_empty());
    }

    #[test]
    fn instance_data_is_not_rewritten() {
        // `default`/`const`/`enum`/`examples` hold values, even ones shaped like schemas; a
        // property named like one of those keywords is still a schema.
        let s = json!({"type": "object",
            "default": {"format": "int64", "type": ["integer", "null"], "items": true},
            "properties": {"default": {"type": "integer", "format": "int64"}}});
        let out = portable(s, true);
        assert_eq!(
            out["default"],
            json!({"format": "int64", "type": ["integer", "null"], "items": true})
        );
        assert_eq!(out["properties"]["default"], json!({"type": "integer"}));
    }
}
