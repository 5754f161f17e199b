//! Structured tool output checked against the tool's `outputSchema` (feature
//! `schema-validation`), as the TypeScript client does.
//!
//! Each `tools/list` page (fetched or from the cache) tells the client the output schema of
//! its tools; a later `tools/call` of such a tool whose result is not an error must carry a
//! `structuredContent` that the schema accepts, else the call fails with
//! [`ClientError::StructuredContent`] naming the tool and each failing path. A tool the
//! client has not seen listed, or listed without a schema, is not checked; a schema that
//! does not compile is skipped with a warning (the server's mistake should not fail every
//! call). Validators are compiled on first use and kept until the schema changes. Schemas
//! follow JSON Schema 2020-12 unless `$schema` names another draft, and draft-07 on the
//! revisions before 2025-11-25 (the dialect they implied); no remote `$ref` is ever
//! fetched.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::types::{CallToolResult, Meta, Tool};
use mcp_core::version::ProtocolVersion;
use serde_json::Value;

use super::ClientError;

/// The schema of one tool and, once needed, its validator (`None`: it did not compile).
struct Known {
    schema: Meta,
    draft: jsonschema::Draft,
    validator: OnceLock<Option<jsonschema::Validator>>,
}

/// The output schemas of the tools of the last `tools/list` pages.
#[derive(Default)]
pub(crate) struct OutputSchemas {
    by_tool: Mutex<HashMap<String, Arc<Known>>>,
}

/// The draft a schema without `$schema` is read as on `version`.
fn draft_for(version: Option<ProtocolVersion>) -> jsonschema::Draft {
    match version {
        Some(v) if v < ProtocolVersion::V2025_11_25 => jsonschema::Draft::Draft7,
        _ => jsonschema::Draft::Draft202012,
    }
}

impl OutputSchemas {
    /// Learns the output schemas of `tools` (one page of `tools/list`).
    pub(crate) fn learn(&self, tools: &[Tool], version: Option<ProtocolVersion>) {
        let draft = draft_for(version);
        let mut by_tool = self.by_tool.lock().expect("output schemas lock");
        for t in tools {
            match &t.output_schema {
                None => {
                    by_tool.remove(&t.name);
                }
                // Unchanged: the compiled validator stays.
                Some(s) if by_tool.get(&t.name).is_some_and(|k| &k.schema == s) => {}
                Some(s) => {
                    by_tool.insert(
                        t.name.clone(),
                        Arc::new(Known {
                            schema: s.clone(),
                            draft,
                            validator: OnceLock::new(),
                        }),
                    );
                }
            }
        }
    }

    /// Checks the result of a call of `tool` (an error result is not checked).
    pub(crate) fn check(&self, tool: &str, result: &CallToolResult) -> Result<(), ClientError> {
        if result.is_error == Some(true) {
            return Ok(());
        }
        let Some(known) = self
            .by_tool
            .lock()
            .expect("output schemas lock")
            .get(tool)
            .cloned()
        else {
            return Ok(());
        };
        let validator = known.validator.get_or_init(|| {
            let schema = Value::Object(known.schema.clone());
            let mut opts = jsonschema::options();
            // `$schema`, when present, names the draft; otherwise the revision's default.
            if known.schema.get("$schema").is_none() {
                opts = opts.with_draft(known.draft);
            }
            match opts.build(&schema) {
                Ok(v) => Some(v),
                Err(e) => {
                    tracing::warn!(tool, error = %e,
                        "the tool's outputSchema does not compile: its output is not checked");
                    None
                }
            }
        });
        let Some(validator) = validator else {
            return Ok(());
        };
        let Some(content) = &result.structured_content else {
            return Err(ClientError::StructuredContent {
                tool: tool.to_owned(),
                problems: vec![
                    "(root): the tool has an outputSchema but returned no structuredContent".into(),
                ],
            });
        };
        let problems: Vec<String> = validator
            .iter_errors(content)
            .map(|e| {
                let path = e.instance_path().to_string();
                let at = if path.is_empty() {
                    "(root)".into()
                } else {
                    path
                };
                format!("{at}: {e}")
            })
            .collect();
        if problems.is_empty() {
            Ok(())
        } else {
            Err(ClientError::StructuredContent {
                tool: tool.to_owned(),
                problems,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tool(schema: Value) -> Tool {
        Tool::new("weather")
            .with_input_schema(json!({"type": "object"}))
            .with_output_schema(schema)
    }

    fn result(v: Value) -> CallToolResult {
        CallToolResult::structured(v)
    }

    #[test]
    fn output_schema_failures_name_the_tool_and_each_path() {
        let s = OutputSchemas::default();
        s.learn(
            &[tool(json!({"type": "object",
                "properties": {"temp": {"type": "number"}, "city": {"type": "string"}},
                "required": ["temp"]}))],
            Some(ProtocolVersion::V2026_07_28),
        );
        s.check("weather", &result(json!({"temp": 21.5}))).unwrap();
        let e = s
            .check("weather", &result(json!({"temp": "warm", "city": 3})))
            .unwrap_err();
        let ClientError::StructuredContent { tool, problems } = &e else {
            panic!("{e:?}")
        };
        assert_eq!(tool, "weather");
        assert_eq!(problems.len(), 2, "{problems:?}");
        assert!(
            problems.iter().any(|p| p.starts_with("/temp: ")),
            "{problems:?}"
        );
        assert!(
            problems.iter().any(|p| p.starts_with("/city: ")),
            "{problems:?}"
        );
        assert!(e.to_string().contains("weather"), "{e}");
        // Missing altogether.
        let e = s
            .check("weather", &CallToolResult::success(vec![]))
            .unwrap_err();
        assert!(e.to_string().contains("no structuredContent"), "{e}");
    }

    #[test]
    fn output_schema_unknown_tools_errors_and_broken_schemas_are_not_checked() {
        let s = OutputSchemas::default();
        s.check("unlisted", &result(json!(1))).unwrap();
        s.learn(
            &[tool(json!({"type": "object", "required": ["x"]}))],
            Some(ProtocolVersion::V2026_07_28),
        );
        s.check("weather", &CallToolResult::error("broke")).unwrap();
        s.learn(
            &[tool(json!({"type": 12}))],
            Some(ProtocolVersion::V2026_07_28),
        );
        s.check("weather", &result(json!({}))).unwrap();
        // Listed again without a schema: forgotten.
        s.learn(
            &[Tool::new("weather").with_input_schema(json!({"type": "object"}))],
            None,
        );
        s.check("weather", &result(json!("anything"))).unwrap();
    }
}
