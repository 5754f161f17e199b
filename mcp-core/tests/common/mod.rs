//! Shared harness for the schema tests: finds `../shared/spec` (or `MCP_SPEC_DIR`), loads each
//! revision's official schema and validates values against one of its definitions, strictly.
//!
//! Strict means: besides the schema's own rules, an object may only carry the properties its
//! definition names. The official schemas leave most objects open, so without this a field a
//! revision does not define would pass unnoticed. Open places stay open: `_meta`, JSON Schema
//! values (`inputSchema`, ...), and objects whose definition sets `additionalProperties`.
//!
//! With `CI=true` a missing schema directory is a failure; otherwise tests print that they
//! skipped and pass.

#![allow(dead_code)]

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock};

use mcp_core::version::ProtocolVersion;
use serde_json::{Map, Value, json};

/// Where the schemas are, or `None` (after printing why) when they are absent outside CI.
pub fn spec_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("MCP_SPEC_DIR") {
        Some(d) => PathBuf::from(d),
        // `shared/` sits beside the checkout: one level above the workspace root, which is
        // this package's directory (root package) or its parent (member crates).
        None => {
            let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
            let beside_root = manifest.join("../shared/spec");
            if beside_root.join("2026-07-28/schema.json").is_file() {
                beside_root
            } else {
                manifest.join("../../shared/spec")
            }
        }
    };
    if dir.join("2026-07-28/schema.json").is_file() {
        return Some(dir);
    }
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!(
            "CI=true and the MCP schema directory is missing at {} (set MCP_SPEC_DIR)",
            dir.display()
        );
    }
    eprintln!(
        "SKIPPED: MCP schema directory not found at {} (set MCP_SPEC_DIR); schema checks skipped",
        dir.display()
    );
    None
}

/// A strict validator for one revision's schema.
pub struct Spec {
    dir: PathBuf,
    schemas: Mutex<HashMap<String, Value>>,
    validators: Mutex<HashMap<(String, String), std::sync::Arc<jsonschema::Validator>>>,
}

static SPEC: OnceLock<Option<Spec>> = OnceLock::new();

/// The shared harness, or `None` when the schemas are absent (outside CI).
pub fn spec() -> Option<&'static Spec> {
    SPEC.get_or_init(|| {
        spec_dir().map(|dir| Spec {
            dir,
            schemas: Mutex::new(HashMap::new()),
            validators: Mutex::new(HashMap::new()),
        })
    })
    .as_ref()
}

/// The folder name of a revision's schema, or of an extension schema (`"ext-tasks/draft"`).
pub fn rev_dir(rev: ProtocolVersion) -> &'static str {
    rev.as_str()
}

impl Spec {
    /// The directory the schemas were found in.
    pub fn dir(&self) -> &std::path::Path {
        &self.dir
    }

    /// The raw (unmodified) schema document of `folder` (`"2025-06-18"`, `"ext-tasks/draft"`).
    pub fn document(&self, folder: &str) -> Value {
        let mut cache = self.schemas.lock().unwrap();
        cache
            .entry(folder.to_owned())
            .or_insert_with(|| {
                let path = self.dir.join(folder).join("schema.json");
                let text = std::fs::read_to_string(&path)
                    .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
                serde_json::from_str(&text).unwrap()
            })
            .clone()
    }

    /// Whether `folder`'s schema defines `def`.
    pub fn has_def(&self, folder: &str, def: &str) -> bool {
        let doc = self.document(folder);
        defs(&doc).contains_key(def)
    }

    /// Validates `value` against definition `def` of `folder`, strictly. Returns every error.
    pub fn check_in(&self, folder: &str, def: &str, value: &Value) -> Result<(), Vec<String>> {
        let key = (folder.to_owned(), def.to_owned());
        let validator = {
            let mut cache = self.validators.lock().unwrap();
            if let Some(v) = cache.get(&key) {
                v.clone()
            } else {
                let v = std::sync::Arc::new(self.build(folder, def));
                cache.insert(key, v.clone());
                v
            }
        };
        let errors: Vec<String> = validator
            .iter_errors(value)
            .map(|e| format!("{} at {}", e, e.instance_path()))
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(errors)
        }
    }

    /// Validates `value` against `def` of revision `rev`; panics with every error and the value.
    #[track_caller]
    pub fn check(&self, rev: ProtocolVersion, def: &str, value: &Value) {
        if let Err(errors) = self.check_in(rev_dir(rev), def, value) {
            panic!(
                "{def} for {rev} does not validate:\n  {}\nvalue: {}",
                errors.join("\n  "),
                serde_json::to_string_pretty(value).unwrap()
            );
        }
    }

    /// Like [`Spec::check`] against an extension schema folder.
    #[track_caller]
    pub fn check_ext(&self, folder: &str, def: &str, value: &Value) {
        if let Err(errors) = self.check_in(folder, def, value) {
            panic!(
                "{def} ({folder}) does not validate:\n  {}\nvalue: {}",
                errors.join("\n  "),
                serde_json::to_string_pretty(value).unwrap()
            );
        }
    }

    fn build(&self, folder: &str, def: &str) -> jsonschema::Validator {
        let mut doc = self.document(folder);
        let modern = doc.get("$defs").is_some();
        let defs_key = if modern { "$defs" } else { "definitions" };
        assert!(
            doc[defs_key].get(def).is_some(),
            "{folder} schema has no definition {def}"
        );
        open_legacy_extensions(&mut doc, defs_key);
        let composed = composed_defs(&doc, defs_key);
        if let Some(Value::Object(all)) = doc.get_mut(defs_key) {
            for (name, schema) in all.iter_mut() {
                if !composed.contains(name) && !name.ends_with("MetaObject") {
                    strictify(schema, modern, false);
                }
            }
        }
        let root = doc.as_object_mut().unwrap();
        root.insert("$ref".into(), json!(format!("#/{defs_key}/{def}")));
        // Keep the document's own dialect; drop a root `type`/`properties` if any.
        let draft = if modern {
            jsonschema::Draft::Draft202012
        } else {
            jsonschema::Draft::Draft7
        };
        jsonschema::options()
            .with_draft(draft)
            .build(&doc)
            .unwrap_or_else(|e| panic!("compiling {folder}#{def}: {e}"))
    }
}

/// A legacy capabilities object is open in the official schema, and hosts on those
/// revisions negotiate extensions (MCP Apps) under `extensions` there (SEP-2133): the strict
/// harness allows that one key, an object of settings objects, on the revisions that do not
/// define it.
fn open_legacy_extensions(doc: &mut Value, defs_key: &str) {
    for def in ["ClientCapabilities", "ServerCapabilities"] {
        let props = doc
            .get_mut(defs_key)
            .and_then(|d| d.get_mut(def))
            .and_then(|d| d.get_mut("properties"));
        if let Some(Value::Object(props)) = props {
            props.entry("extensions").or_insert_with(
                || json!({"type": "object", "additionalProperties": {"type": "object"}}),
            );
        }
    }
}

fn defs(doc: &Value) -> &Map<String, Value> {
    doc.get("$defs")
        .or_else(|| doc.get("definitions"))
        .and_then(Value::as_object)
        .expect("schema has definitions")
}

/// Properties whose values are open by nature: never made strict.
const OPEN: &[&str] = &[
    "_meta",
    "inputSchema",
    "outputSchema",
    "requestedSchema",
    "experimental",
    "arguments",
    "structuredContent",
    "metadata",
    "input",
    "extensions",
    "settings",
    "frontmatter",
    "data",
    "properties",
];

/// Definitions used as `allOf` parts: strict on their own they would reject the fields the
/// other parts add, so they stay open and the composing definition is made strict instead
/// (with `unevaluatedProperties`, which sees through `allOf`).
fn composed_defs(doc: &Value, defs_key: &str) -> std::collections::HashSet<String> {
    let mut out = std::collections::HashSet::new();
    fn walk(v: &Value, prefix: &str, out: &mut std::collections::HashSet<String>) {
        match v {
            Value::Object(m) => {
                if let Some(Value::Array(parts)) = m.get("allOf") {
                    for p in parts {
                        if let Some(r) = p.get("$ref").and_then(Value::as_str)
                            && let Some(name) = r.strip_prefix(prefix)
                        {
                            out.insert(name.to_owned());
                        }
                    }
                }
                for x in m.values() {
                    walk(x, prefix, out);
                }
            }
            Value::Array(a) => a.iter().for_each(|x| walk(x, prefix, out)),
            _ => {}
        }
    }
    walk(doc, &format!("#/{defs_key}/"), &mut out);
    out
}

fn strictify(schema: &mut Value, modern: bool, inside_allof: bool) {
    let Value::Object(m) = schema else { return };
    let has_allof = m.contains_key("allOf");
    if let Some(Value::Object(props)) = m.get_mut("properties") {
        for (name, sub) in props.iter_mut() {
            if !OPEN.contains(&name.as_str()) {
                strictify(sub, modern, false);
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(sub) = m.get_mut(key) {
            strictify(sub, modern, false);
        }
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(parts)) = m.get_mut(key) {
            for p in parts {
                strictify(p, modern, inside_allof);
            }
        }
    }
    if let Some(Value::Array(parts)) = m.get_mut("allOf") {
        for p in parts {
            strictify(p, modern, true);
        }
    }
    let is_object = m.get("type").and_then(Value::as_str) == Some("object");
    let open = m.contains_key("additionalProperties")
        || m.contains_key("unevaluatedProperties")
        || m.contains_key("patternProperties");
    if inside_allof || open || !(is_object && (m.contains_key("properties") || has_allof)) {
        return;
    }
    if modern {
        m.insert("unevaluatedProperties".into(), Value::Bool(false));
    } else if !has_allof {
        m.insert("additionalProperties".into(), Value::Bool(false));
    }
}

/// Every revision, oldest first.
pub fn revisions() -> [ProtocolVersion; 5] {
    ProtocolVersion::ALL
}
