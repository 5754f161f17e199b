//! An OpenAPI schema made into a self-contained JSON Schema for a tool: every `$ref`
//! inlined, except a recursive one, whose definition goes to the root's `$defs` (so
//! `{"$ref": "#/$defs/Node"}` is all a recursive type costs); 3.0's dialect rewritten
//! (`nullable`, boolean `exclusiveMinimum`/`exclusiveMaximum`, `example`); OpenAPI's own
//! keywords (`discriminator`, `xml`, `externalDocs`, `x-*`) dropped; `readOnly` properties
//! left out of inputs and `writeOnly` ones out of outputs.

use std::collections::HashMap;

use serde_json::{Map, Value};

use super::document::{Document, SpecVersion, escape};
use super::error::OpenApiError;

/// Which way the data flows: what a tool's caller sends, or what it gets back.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Direction {
    Input,
    Output,
}

/// Keywords whose value is one schema.
const ONE: &[&str] = &[
    "items",
    "additionalProperties",
    "not",
    "contains",
    "propertyNames",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "unevaluatedItems",
    "additionalItems",
];
/// Keywords whose value is a list of schemas.
const LIST: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
/// Keywords whose value maps names to schemas.
const MAP: &[&str] = &[
    "properties",
    "patternProperties",
    "dependentSchemas",
    "$defs",
    "definitions",
];
/// OpenAPI's additions to JSON Schema, and identifiers that would move the base URI.
const DROPPED: &[&str] = &[
    "discriminator",
    "xml",
    "externalDocs",
    "example",
    "$id",
    "$schema",
];

/// Converts the schemas of one tool schema (input or output): the definitions that
/// recursive references need accumulate here, to be put under the root's `$defs`.
pub(super) struct Converter<'d> {
    doc: &'d Document,
    dir: Direction,
    /// References being inlined, outermost first.
    stack: Vec<String>,
    /// Recursive references: their `$defs` name.
    names: HashMap<String, String>,
    defs: Map<String, Value>,
}

impl<'d> Converter<'d> {
    pub(super) fn new(doc: &'d Document, dir: Direction) -> Self {
        Converter {
            doc,
            dir,
            stack: Vec::new(),
            names: HashMap::new(),
            defs: Map::new(),
        }
    }

    /// The definitions recursive references need (empty when none).
    pub(super) fn take_defs(&mut self) -> Map<String, Value> {
        std::mem::take(&mut self.defs)
    }

    /// `schema` (found at `at`) as plain JSON Schema.
    pub(super) fn convert(&mut self, schema: &Value, at: &str) -> Result<Value, OpenApiError> {
        match schema {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref").and_then(Value::as_str) {
                    return self.reference(r, m, at);
                }
                self.object(m, at).map(Value::Object)
            }
            Value::Bool(_) => Ok(schema.clone()),
            other => Err(self
                .doc
                .error(at, format!("a schema must be an object, not {other}"))),
        }
    }

    fn reference(
        &mut self,
        r: &str,
        m: &Map<String, Value>,
        at: &str,
    ) -> Result<Value, OpenApiError> {
        if let Some(name) = self.names.get(r) {
            return Ok(self.with_siblings(reference_to(name), m));
        }
        if self.stack.iter().any(|s| s == r) {
            let name = self.def_name(r);
            return Ok(self.with_siblings(reference_to(&name), m));
        }
        let target = self
            .doc
            .pointer(r)
            .ok_or_else(|| self.doc.error(at, format!("$ref `{r}` names nothing")))?;
        self.stack.push(r.to_owned());
        let converted = self.convert(target, r);
        self.stack.pop();
        let converted = converted?;
        // Recursive: referred to from inside itself, so it is a definition, and this
        // occurrence refers to it too.
        if let Some(name) = self.names.get(r).cloned() {
            self.defs.insert(name.clone(), converted);
            return Ok(self.with_siblings(reference_to(&name), m));
        }
        Ok(self.with_siblings(converted, m))
    }

    /// A `$defs` name for `r`: its last segment, made unique.
    fn def_name(&mut self, r: &str) -> String {
        let base: String = r
            .rsplit('/')
            .next()
            .unwrap_or("def")
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        let mut name = base.clone();
        let mut n = 2;
        while self.names.values().any(|v| *v == name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        self.names.insert(r.to_owned(), name.clone());
        name
    }

    /// 3.1 lets keywords stand beside a `$ref` (a `description`); 3.0 ignores them.
    fn with_siblings(&self, mut v: Value, m: &Map<String, Value>) -> Value {
        if self.doc.version() == SpecVersion::V3_0 || m.len() == 1 {
            return v;
        }
        if let Value::Object(out) = &mut v {
            for (k, x) in m {
                if k != "$ref" && !DROPPED.contains(&k.as_str()) && !k.starts_with("x-") {
                    out.insert(k.clone(), x.clone());
                }
            }
        }
        v
    }

    fn object(
        &mut self,
        m: &Map<String, Value>,
        at: &str,
    ) -> Result<Map<String, Value>, OpenApiError> {
        let mut out = Map::new();
        for (k, v) in m {
            let key = k.as_str();
            if DROPPED.contains(&key) || key.starts_with("x-") {
                continue;
            }
            let here = format!("{at}/{}", escape(k));
            let converted = if ONE.contains(&key) && (v.is_object() || v.is_boolean()) {
                self.convert(v, &here)?
            } else if (LIST.contains(&key) || key == "items") && v.is_array() {
                let mut list = Vec::new();
                for (i, x) in v.as_array().into_iter().flatten().enumerate() {
                    list.push(self.convert(x, &format!("{here}/{i}"))?);
                }
                Value::Array(list)
            } else if MAP.contains(&key) && v.is_object() {
                let mut props = Map::new();
                for (name, x) in v.as_object().into_iter().flatten() {
                    props.insert(
                        name.clone(),
                        self.convert(x, &format!("{here}/{}", escape(name)))?,
                    );
                }
                Value::Object(props)
            } else {
                v.clone()
            };
            out.insert(k.clone(), converted);
        }
        if self.doc.version() == SpecVersion::V3_0 {
            rewrite_3_0(&mut out);
        }
        self.drop_one_way_properties(&mut out);
        Ok(out)
    }

    /// Inputs never carry `readOnly` properties (the API makes them), outputs never
    /// `writeOnly` ones (passwords).
    fn drop_one_way_properties(&self, m: &mut Map<String, Value>) {
        let flag = match self.dir {
            Direction::Input => "readOnly",
            Direction::Output => "writeOnly",
        };
        let Some(Value::Object(props)) = m.get_mut("properties") else {
            return;
        };
        let gone: Vec<String> = props
            .iter()
            .filter(|(_, s)| s.get(flag) == Some(&Value::Bool(true)))
            .map(|(k, _)| k.clone())
            .collect();
        if gone.is_empty() {
            return;
        }
        for k in &gone {
            props.remove(k);
        }
        if let Some(Value::Array(req)) = m.get_mut("required") {
            req.retain(|r| r.as_str().is_none_or(|r| !gone.iter().any(|g| g == r)));
        }
    }
}

fn reference_to(name: &str) -> Value {
    let mut m = Map::new();
    m.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
    Value::Object(m)
}

/// 3.0's dialect into JSON Schema: `nullable: true` adds `null` to `type` (and to `enum`),
/// a boolean `exclusiveMinimum`/`exclusiveMaximum` becomes the bound itself.
fn rewrite_3_0(m: &mut Map<String, Value>) {
    if m.remove("nullable") == Some(Value::Bool(true)) {
        if let Some(Value::String(t)) = m.get("type") {
            let t = t.clone();
            m.insert("type".into(), serde_json::json!([t, "null"]));
        }
        if let Some(Value::Array(e)) = m.get_mut("enum")
            && !e.contains(&Value::Null)
        {
            e.push(Value::Null);
        }
    }
    for (flag, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        match m.get(flag) {
            Some(Value::Bool(true)) => {
                if let Some(b) = m.remove(bound) {
                    m.insert(flag.into(), b);
                } else {
                    m.remove(flag);
                }
            }
            Some(Value::Bool(false)) => {
                m.remove(flag);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn doc(version: &str, schemas: Value) -> Document {
        Document::from_value(
            json!({"openapi": version, "paths": {}, "components": {"schemas": schemas}}),
            "t",
        )
        .unwrap()
    }

    #[test]
    fn refs_are_inlined_and_a_recursive_one_becomes_a_definition() {
        let d = doc(
            "3.1.0",
            json!({
                "Tree": {"type": "object", "properties": {
                    "label": {"$ref": "#/components/schemas/Label"},
                    "children": {"type": "array", "items": {"$ref": "#/components/schemas/Tree"}}}},
                "Label": {"type": "string", "description": "a label"}
            }),
        );
        let mut c = Converter::new(&d, Direction::Output);
        let s = c
            .convert(&json!({"$ref": "#/components/schemas/Tree"}), "#/x")
            .unwrap();
        assert_eq!(s, json!({"$ref": "#/$defs/Tree"}));
        let defs = c.take_defs();
        assert_eq!(
            defs["Tree"]["properties"]["label"],
            json!({"type": "string", "description": "a label"})
        );
        assert_eq!(
            defs["Tree"]["properties"]["children"]["items"],
            json!({"$ref": "#/$defs/Tree"})
        );
    }

    #[test]
    fn the_3_0_dialect_becomes_json_schema() {
        let d = doc("3.0.3", json!({}));
        let mut c = Converter::new(&d, Direction::Input);
        let s = c
            .convert(
                &json!({"type": "object", "required": ["id", "n"], "example": {"n": 1},
                    "discriminator": {"propertyName": "k"}, "x-internal": true,
                    "properties": {
                        "id": {"type": "integer", "readOnly": true},
                        "n": {"type": "number", "minimum": 0, "exclusiveMinimum": true, "nullable": true},
                        "s": {"type": "string", "enum": ["a"], "nullable": true}}}),
                "#/x",
            )
            .unwrap();
        assert_eq!(
            s,
            json!({"type": "object", "required": ["n"], "properties": {
                "n": {"type": ["number", "null"], "exclusiveMinimum": 0},
                "s": {"type": ["string", "null"], "enum": ["a", null]}}})
        );
    }
}
