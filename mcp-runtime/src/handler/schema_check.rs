//! Arguments checked against a hand-written JSON Schema (feature `schema-validation`), for
//! `ServerBuilder::tool_with_schema`. Typed tools need none of this: their arguments decode
//! with serde (`tool::decode_arguments`), whose errors already name the field.

use mcp_core::types::CallToolResult;
use serde_json::value::RawValue;

/// Arguments checked against a hand-written JSON Schema before the handler runs.
pub struct SchemaChecked {
    validator: jsonschema::Validator,
}

impl SchemaChecked {
    /// Compiles the schema (JSON Schema 2020-12 unless `$schema` says otherwise).
    pub fn new(schema: &serde_json::Map<String, serde_json::Value>) -> Result<Self, String> {
        let schema = serde_json::Value::Object(schema.clone());
        jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .build(&schema)
            .map(|validator| Self { validator })
            .map_err(|e| e.to_string())
    }

    /// The arguments as an object, or the `isError` result naming every failing path.
    pub fn check(
        &self,
        args: Option<&RawValue>,
    ) -> Result<serde_json::Map<String, serde_json::Value>, CallToolResult> {
        let value: serde_json::Value = match args {
            None => serde_json::Value::Object(Default::default()),
            Some(raw) => serde_json::from_str(raw.get())
                .map_err(|_| CallToolResult::error("Invalid arguments: not valid JSON"))?,
        };
        let problems: Vec<String> = self
            .validator
            .iter_errors(&value)
            .map(|e| {
                let path = e.instance_path().to_string();
                let at = if path.is_empty() {
                    "(root)".to_owned()
                } else {
                    path
                };
                format!("{at}: {e}")
            })
            .collect();
        if !problems.is_empty() {
            return Err(CallToolResult::error(format!(
                "Invalid arguments: {}",
                problems.join("; ")
            )));
        }
        match value {
            serde_json::Value::Object(m) => Ok(m),
            _ => Err(CallToolResult::error(
                "Invalid arguments: expected an object",
            )),
        }
    }
}
