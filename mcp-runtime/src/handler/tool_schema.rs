//! The JSON Schemas of a tool: its `inputSchema` from the arguments type, its
//! `outputSchema` from what it returns ([`crate::Json`]), `$ref`s resolved, made portable
//! (`portable_schema.rs`), and the draft-07 form older clients read. The tool's own contract
//! (`tool_def.rs`) and its results (`tool_result.rs`) both read these; the public paths are
//! `tool_def`'s.

use mcp_core::types::{Meta, Tool};
use serde_json::Value;

/// An output schema and whether it wraps a non-object schema as `{"result": ...}`.
#[derive(Debug, Clone)]
pub struct OutputSchema {
    /// The schema (object root).
    pub schema: Meta,
    /// Whether values are wrapped as `{"result": v}`.
    pub wrapped: bool,
}

fn generator(deserialize: bool) -> schemars::SchemaGenerator {
    let settings = schemars::generate::SchemaSettings::draft2020_12().with(|s| {
        s.inline_subschemas = true;
        s.meta_schema = None;
    });
    let settings = if deserialize {
        settings.for_deserialize()
    } else {
        settings.for_serialize()
    };
    settings.into_generator()
}

fn root_schema<T: schemars::JsonSchema>(deserialize: bool) -> Meta {
    root_meta(generator(deserialize).into_root_schema_for::<T>())
}

/// The root schema as a JSON object, `$ref`s resolved (the part of [`root_schema`] that
/// does not need the type: compiled once, not per tool).
fn root_meta(schema: schemars::Schema) -> Meta {
    let mut m = match Value::from(schema) {
        Value::Object(m) => m,
        Value::Bool(true) => Meta::new(),
        other => {
            // `false`: nothing is valid.
            let mut m = Meta::new();
            m.insert("not".into(), other);
            m
        }
    };
    m.remove("title");
    m.remove("$schema");
    resolve_refs(&mut m);
    m
}

/// The `inputSchema` of an arguments type: JSON Schema 2020-12, `$ref`s resolved (only a
/// recursive type keeps `$defs`), no root `title`, object root, portable: no `format`
/// JSON Schema does not define, optional arguments not nullable, no bare boolean subschema
/// and no `type` array (`portable_schema.rs`).
pub fn input_schema_for<T: schemars::JsonSchema>() -> Meta {
    input_form(root_schema::<T>(true))
}

/// The `inputSchema` form of an arguments type's root schema.
fn input_form(mut m: Meta) -> Meta {
    super::portable_schema::make_portable(&mut m, true);
    if !m.contains_key("type") {
        m.insert("type".into(), Value::from("object"));
    }
    m
}

/// The `outputSchema` of `T`, with an object root (see [`crate::Json`]).
pub fn output_schema_for<T: schemars::JsonSchema>() -> OutputSchema {
    output_form(root_schema::<T>(false))
}

/// The `outputSchema` form of a result type's root schema.
fn output_form(mut m: Meta) -> OutputSchema {
    super::portable_schema::make_portable(&mut m, false);
    if m.get("type").and_then(Value::as_str) == Some("object") {
        return OutputSchema {
            schema: m,
            wrapped: false,
        };
    }
    let defs = m.remove("$defs");
    let mut props = Meta::new();
    props.insert("result".into(), Value::Object(m));
    let mut outer = Meta::new();
    outer.insert("type".into(), Value::from("object"));
    outer.insert("properties".into(), Value::Object(props));
    outer.insert("required".into(), Value::from(vec!["result"]));
    if let Some(defs) = defs {
        outer.insert("$defs".into(), defs);
    }
    OutputSchema {
        schema: outer,
        wrapped: true,
    }
}

/// Replaces every `{"$ref": "#/$defs/X"}` with the definition itself; a recursive
/// reference stays (with the definitions it needs), everything else is inlined and `$defs`
/// is dropped when nothing refers to it any more.
pub fn resolve_refs(schema: &mut Meta) {
    let Some(Value::Object(defs)) = schema.remove("$defs") else {
        return;
    };
    let mut stack = Vec::new();
    let mut kept = false;
    for v in schema.values_mut() {
        inline(v, &defs, &mut stack, &mut kept);
    }
    if kept {
        schema.insert("$defs".into(), Value::Object(defs));
    }
}

fn inline(v: &mut Value, defs: &Meta, stack: &mut Vec<String>, kept: &mut bool) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(r)) = m.get("$ref")
                && let Some(name) = r.strip_prefix("#/$defs/")
                && let Some(def) = defs.get(name)
            {
                if stack.iter().any(|s| s == name) {
                    *kept = true;
                    return;
                }
                let name = name.to_owned();
                let mut replacement = def.clone();
                if let Value::Object(rm) = &mut replacement {
                    // Keywords beside the `$ref` (a description) win over the definition's.
                    for (k, x) in m.iter() {
                        if k != "$ref" {
                            rm.insert(k.clone(), x.clone());
                        }
                    }
                }
                stack.push(name);
                inline(&mut replacement, defs, stack, kept);
                stack.pop();
                *v = replacement;
                return;
            }
            for x in m.values_mut() {
                inline(x, defs, stack, kept);
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| inline(x, defs, stack, kept)),
        _ => {}
    }
}

/// Rewrites a tool's schemas into the draft-07 form clients of revisions before
/// 2025-11-25 expect (the dispatcher does it once per cached `tools/list` page).
pub fn to_draft07(tool: &mut Tool) {
    draft07_form(&mut tool.input_schema);
    if let Some(out) = &mut tool.output_schema {
        draft07_form(out);
    }
}

/// Rewrites a JSON Schema 2020-12 into draft-07: `$defs` become `definitions` (and
/// `$ref`s follow), `prefixItems` becomes the array form of `items` (the old `items` its
/// `additionalItems`), `dependentRequired`/`dependentSchemas` become `dependencies`, and
/// keywords draft-07 does not know (`$dynamicRef`, `unevaluatedProperties`, ...) are
/// dropped; a `$schema` naming 2020-12 goes. A schema that names another draft is left
/// as it is.
pub fn draft07_form(schema: &mut Meta) {
    if let Some(Value::String(s)) = schema.get("$schema") {
        if !s.contains("2020-12") {
            return;
        }
        schema.remove("$schema");
    }
    draft07_object(schema);
}

const DROPPED_IN_DRAFT07: &[&str] = &[
    "$dynamicRef",
    "$dynamicAnchor",
    "$anchor",
    "$vocabulary",
    "unevaluatedProperties",
    "unevaluatedItems",
    "minContains",
    "maxContains",
    "contentSchema",
];

fn draft07_value(v: &mut Value) {
    if let Value::Object(m) = v {
        draft07_object(m);
    }
}

fn draft07_object(m: &mut Meta) {
    for k in DROPPED_IN_DRAFT07 {
        m.remove(*k);
    }
    if let Some(Value::String(r)) = m.get_mut("$ref")
        && let Some(rest) = r.strip_prefix("#/$defs/")
    {
        *r = format!("#/definitions/{rest}");
    }
    if let Some(defs) = m.remove("$defs") {
        m.insert("definitions".into(), defs);
    }
    if let Some(prefix) = m.remove("prefixItems") {
        if let Some(rest) = m.remove("items") {
            m.insert("additionalItems".into(), rest);
        }
        m.insert("items".into(), prefix);
    }
    let required = m.remove("dependentRequired");
    let schemas = m.remove("dependentSchemas");
    if required.is_some() || schemas.is_some() {
        let mut deps = match m.remove("dependencies") {
            Some(Value::Object(d)) => d,
            _ => Meta::new(),
        };
        for extra in [required, schemas].into_iter().flatten() {
            if let Value::Object(e) = extra {
                deps.extend(e);
            }
        }
        m.insert("dependencies".into(), Value::Object(deps));
    }
    for (k, v) in m.iter_mut() {
        match k.as_str() {
            "additionalProperties"
            | "additionalItems"
            | "contains"
            | "propertyNames"
            | "not"
            | "if"
            | "then"
            | "else" => draft07_value(v),
            "items" => match v {
                Value::Array(a) => a.iter_mut().for_each(draft07_value),
                other => draft07_value(other),
            },
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(a) = v {
                    a.iter_mut().for_each(draft07_value);
                }
            }
            "properties" | "patternProperties" | "definitions" | "dependencies" => {
                if let Value::Object(o) = v {
                    // `dependencies` also holds property lists (arrays): left as they are.
                    o.values_mut().for_each(draft07_value);
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn refs_are_inlined_and_recursion_kept() {
        let mut m = json!({
            "type": "object",
            "properties": {"a": {"$ref": "#/$defs/A", "description": "the a"}},
            "$defs": {"A": {"type": "object", "properties": {"n": {"type": "integer"}}}}
        })
        .as_object()
        .cloned()
        .unwrap();
        resolve_refs(&mut m);
        assert_eq!(
            Value::Object(m),
            json!({"type": "object", "properties": {"a": {"type": "object", "description": "the a",
                "properties": {"n": {"type": "integer"}}}}})
        );
        let mut r = json!({
            "type": "object",
            "properties": {"t": {"$ref": "#/$defs/T"}},
            "$defs": {"T": {"type": "object", "properties": {"kids": {"type": "array", "items": {"$ref": "#/$defs/T"}}}}}
        })
        .as_object()
        .cloned()
        .unwrap();
        resolve_refs(&mut r);
        assert!(r.contains_key("$defs"));
        assert_eq!(
            r["properties"]["t"]["properties"]["kids"]["items"]["$ref"],
            "#/$defs/T"
        );
    }

    #[test]
    fn draft07() {
        let mut m = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": {
                "pair": {"type": "array", "prefixItems": [{"type": "integer"}, {"$ref": "#/$defs/T"}], "items": false},
                "prefixItems": {"type": "string", "unevaluatedProperties": false}
            },
            "dependentRequired": {"a": ["b"]},
            "unevaluatedProperties": false,
            "$defs": {"T": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/$defs/T"}}}}}
        })
        .as_object()
        .cloned()
        .unwrap();
        draft07_form(&mut m);
        assert_eq!(
            Value::Object(m),
            json!({
                "type": "object",
                "properties": {
                    "pair": {"type": "array", "items": [{"type": "integer"}, {"$ref": "#/definitions/T"}], "additionalItems": false},
                    "prefixItems": {"type": "string"}
                },
                "dependencies": {"a": ["b"]},
                "definitions": {"T": {"type": "object", "properties": {"kids": {"items": {"$ref": "#/definitions/T"}}}}}
            })
        );
        let mut other = json!({"$schema": "http://json-schema.org/draft-04/schema#", "$defs": {}})
            .as_object()
            .cloned()
            .unwrap();
        let before = other.clone();
        draft07_form(&mut other);
        assert_eq!(other, before);
    }
}
