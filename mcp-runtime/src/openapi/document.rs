//! Reading an OpenAPI document: JSON or YAML text (from a file or a URL) into one
//! `serde_json::Value`, its version checked (3.0.x or 3.1.x) and every `$ref` in it
//! followed once, so that a dangling or external reference, or a chain of references that
//! loops, is an error naming its place before anything is built.

use std::collections::HashSet;
use std::path::Path;

use serde_json::{Map, Value};
use yaml_rust2::{Yaml, YamlLoader};

use super::error::OpenApiError;

/// The OpenAPI versions read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum SpecVersion {
    /// 3.0.x: schemas are OpenAPI's extended subset of JSON Schema draft 4 (`nullable`,
    /// boolean `exclusiveMinimum`, `example`), rewritten into plain JSON Schema.
    V3_0,
    /// 3.1.x: schemas are JSON Schema 2020-12.
    V3_1,
}

/// An OpenAPI 3.0 or 3.1 document, read and checked: its version is one of those, it is
/// an object, and each of its `$ref`s names a place in it.
#[derive(Debug, Clone)]
pub struct Document {
    root: Value,
    origin: String,
    version: SpecVersion,
    /// The URL it was fetched from, against which a relative server URL is resolved.
    url: Option<String>,
}

impl Document {
    /// Reads `text` (JSON, or YAML, of which JSON is a subset); `origin` (a file name, a
    /// URL) is what errors name.
    pub fn parse(text: &str, origin: impl Into<String>) -> Result<Document, OpenApiError> {
        let origin = origin.into();
        let root = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| {
                OpenApiError::new(
                    &origin,
                    format!("line {}, column {}", e.line(), e.column()),
                    format!("invalid JSON: {e}"),
                )
            })?
        } else {
            yaml_to_json(text, &origin)?
        };
        Document::from_value(root, origin)
    }

    /// Checks an already parsed document.
    pub fn from_value(root: Value, origin: impl Into<String>) -> Result<Document, OpenApiError> {
        let origin = origin.into();
        let version = check_version(&root, &origin)?;
        if let Some(paths) = root.get("paths")
            && !paths.is_object()
        {
            return Err(OpenApiError::new(
                &origin,
                "#/paths",
                "`paths` is not an object",
            ));
        }
        let doc = Document {
            root,
            origin,
            version,
            url: None,
        };
        doc.check_refs(&doc.root, &mut String::from("#"))?;
        Ok(doc)
    }

    /// Reads the file at `path`.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Document, OpenApiError> {
        let path = path.as_ref();
        let origin = path.display().to_string();
        let text = std::fs::read_to_string(path)
            .map_err(|e| OpenApiError::new(&origin, "", format!("cannot read the file: {e}")))?;
        Document::parse(&text, origin)
    }

    /// The document's JSON value.
    pub fn value(&self) -> &Value {
        &self.root
    }

    /// Where it was read from (what errors name).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// Its OpenAPI version.
    pub fn version(&self) -> SpecVersion {
        self.version
    }

    /// The URL it was fetched from, if it was.
    pub fn url(&self) -> Option<&str> {
        self.url.as_deref()
    }

    pub(super) fn set_url(&mut self, url: String) {
        self.url = Some(url);
    }

    /// The value at a local reference (`#/components/schemas/Pet`).
    pub(super) fn pointer(&self, reference: &str) -> Option<&Value> {
        let p = reference.strip_prefix('#')?;
        if p.is_empty() {
            return Some(&self.root);
        }
        self.root.pointer(p)
    }

    /// An error at `place` (a JSON Pointer in the document, `#/...`).
    pub(super) fn error(&self, place: &str, message: impl Into<String>) -> OpenApiError {
        OpenApiError::new(&self.origin, place, message)
    }

    /// `value` with its `$ref` followed, through chains of references; `at` is its place.
    /// Returns the value and the place it was found.
    pub(super) fn follow<'a>(
        &'a self,
        value: &'a Value,
        at: &str,
    ) -> Result<(&'a Value, String), OpenApiError> {
        let mut v = value;
        let mut place = at.to_owned();
        let mut seen = HashSet::new();
        while let Some(r) = v.get("$ref").and_then(Value::as_str) {
            if !seen.insert(r.to_owned()) {
                return Err(self.error(at, format!("the $ref chain through `{r}` loops")));
            }
            v = self
                .pointer(r)
                .ok_or_else(|| self.error(&place, format!("$ref `{r}` names nothing")))?;
            place = r.to_owned();
        }
        Ok((v, place))
    }

    /// Every `$ref` under `v` (at `path`) names a place in the document, and no chain of
    /// references loops.
    fn check_refs(&self, v: &Value, path: &mut String) -> Result<(), OpenApiError> {
        match v {
            Value::Object(m) => {
                if let Some(r) = m.get("$ref") {
                    let Some(r) = r.as_str() else {
                        return Err(self.error(path, "`$ref` is not a string"));
                    };
                    if !r.starts_with('#') {
                        return Err(self.error(
                            path,
                            format!("$ref `{r}` is outside this document (not supported)"),
                        ));
                    }
                    self.follow(v, path)?;
                }
                for (k, x) in m {
                    if k == "example" || k == "examples" || k == "default" || k == "const" {
                        continue;
                    }
                    let len = path.len();
                    path.push('/');
                    path.push_str(&escape(k));
                    self.check_refs(x, path)?;
                    path.truncate(len);
                }
            }
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    let len = path.len();
                    path.push_str(&format!("/{i}"));
                    self.check_refs(x, path)?;
                    path.truncate(len);
                }
            }
            _ => {}
        }
        Ok(())
    }
}

/// A JSON Pointer token: `~` as `~0`, `/` as `~1`.
pub(super) fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn check_version(root: &Value, origin: &str) -> Result<SpecVersion, OpenApiError> {
    let Some(m) = root.as_object() else {
        return Err(OpenApiError::new(
            origin,
            "#",
            "the document is not an object",
        ));
    };
    if let Some(s) = m.get("swagger") {
        return Err(OpenApiError::new(
            origin,
            "#/swagger",
            format!("Swagger {s} is not supported: convert the document to OpenAPI 3.0 or 3.1"),
        ));
    }
    let v = match m.get("openapi") {
        Some(Value::String(v)) => v,
        Some(other) => {
            return Err(OpenApiError::new(
                origin,
                "#/openapi",
                format!("`openapi` is {other}, not a version string"),
            ));
        }
        None => {
            return Err(OpenApiError::new(
                origin,
                "#/openapi",
                "no `openapi` version: not an OpenAPI 3 document",
            ));
        }
    };
    match v.split('.').take(2).collect::<Vec<_>>()[..] {
        ["3", "0"] => Ok(SpecVersion::V3_0),
        ["3", "1"] => Ok(SpecVersion::V3_1),
        _ => Err(OpenApiError::new(
            origin,
            "#/openapi",
            format!("OpenAPI {v} is not supported (3.0.x and 3.1.x are)"),
        )),
    }
}

/// YAML (1.2 core schema, through yaml-rust2) to JSON: mapping keys become strings (an
/// unquoted `200:` response code is the key `"200"`).
fn yaml_to_json(text: &str, origin: &str) -> Result<Value, OpenApiError> {
    let docs = YamlLoader::load_from_str(text).map_err(|e| {
        OpenApiError::new(
            origin,
            format!(
                "line {}, column {}",
                e.marker().line(),
                e.marker().col() + 1
            ),
            format!("invalid YAML: {}", e.info()),
        )
    })?;
    match docs.as_slice() {
        [one] => Ok(yaml_value(one)),
        [] => Err(OpenApiError::new(origin, "", "the document is empty")),
        _ => Err(OpenApiError::new(
            origin,
            "",
            "the YAML holds several documents, not one",
        )),
    }
}

fn yaml_value(y: &Yaml) -> Value {
    match y {
        Yaml::Real(s) => s
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| Value::String(s.clone()), Value::Number),
        Yaml::Integer(i) => Value::from(*i),
        Yaml::String(s) => Value::String(s.clone()),
        Yaml::Boolean(b) => Value::Bool(*b),
        Yaml::Array(a) => Value::Array(a.iter().map(yaml_value).collect()),
        Yaml::Hash(h) => {
            let mut m = Map::new();
            for (k, v) in h {
                m.insert(yaml_key(k), yaml_value(v));
            }
            Value::Object(m)
        }
        Yaml::Alias(_) | Yaml::Null | Yaml::BadValue => Value::Null,
    }
}

fn yaml_key(k: &Yaml) -> String {
    match k {
        Yaml::String(s) | Yaml::Real(s) => s.clone(),
        Yaml::Integer(i) => i.to_string(),
        Yaml::Boolean(b) => b.to_string(),
        Yaml::Null => "null".into(),
        other => format!("{other:?}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn yaml_and_json_read_alike_with_numeric_keys_as_strings() {
        let yaml = "openapi: 3.0.3\ninfo: {title: t, version: '1'}\npaths:\n  /a:\n    get:\n      responses:\n        200:\n          description: ok\n";
        let d = Document::parse(yaml, "a.yaml").unwrap();
        assert_eq!(d.version(), SpecVersion::V3_0);
        assert!(d.value().pointer("/paths/~1a/get/responses/200").is_some());
        let json = serde_json::to_string(d.value()).unwrap();
        assert_eq!(Document::parse(&json, "a.json").unwrap().value(), d.value());
    }

    #[test]
    fn invalid_yaml_names_the_line() {
        let e = Document::parse("openapi: 3.1.0\npaths: [unclosed\n", "bad.yaml").unwrap_err();
        assert!(e.to_string().starts_with("bad.yaml: line 3"), "{e}");
        assert!(e.message().contains("invalid YAML"), "{e}");
    }

    #[test]
    fn versions_other_than_3_0_and_3_1_are_refused() {
        let e = Document::parse(r#"{"swagger": "2.0"}"#, "s").unwrap_err();
        assert_eq!(e.place(), "#/swagger");
        let e = Document::parse(r#"{"openapi": "4.0.0"}"#, "s").unwrap_err();
        assert!(
            e.to_string().contains("OpenAPI 4.0.0 is not supported"),
            "{e}"
        );
        assert!(Document::parse(r#"{"openapi": "3.1.1"}"#, "s").is_ok());
    }

    #[test]
    fn dangling_external_and_looping_refs_are_named_by_place() {
        let doc = |components: Value| {
            serde_json::json!({"openapi": "3.1.0", "paths": {"/x": {"get": {
                "parameters": [{"$ref": "#/components/parameters/P"}], "responses": {}}}},
                "components": components})
        };
        let e = Document::from_value(doc(serde_json::json!({})), "d").unwrap_err();
        assert_eq!(e.place(), "#/paths/~1x/get/parameters/0");
        assert!(e.message().contains("names nothing"), "{e}");
        let looping = serde_json::json!({"parameters": {
            "P": {"$ref": "#/components/parameters/Q"}, "Q": {"$ref": "#/components/parameters/P"}}});
        let e = Document::from_value(doc(looping), "d").unwrap_err();
        assert!(e.message().contains("loops"), "{e}");
        let external = serde_json::json!({"parameters": {"P": {"$ref": "other.yaml#/P"}}});
        let e = Document::from_value(doc(external), "d").unwrap_err();
        assert_eq!(e.place(), "#/components/parameters/P");
        // A schema that refers to itself is a recursive type, not an error.
        let recursive = serde_json::json!({"parameters": {"P": {"name": "p", "in": "query",
            "schema": {"$ref": "#/components/schemas/N"}}},
            "schemas": {"N": {"type": "object", "properties": {"next": {"$ref": "#/components/schemas/N"}}}}});
        assert!(Document::from_value(doc(recursive), "d").is_ok());
    }
}
