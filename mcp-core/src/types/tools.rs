//! Tools: `tools/list`, `tools/call` and `notifications/tools/list_changed`.
//!
//! # Structured output before 2026-07-28
//!
//! 2025-06-18 and 2025-11-25 require an `outputSchema` whose root is `type: "object"` and a
//! `structuredContent` that is a JSON object; 2026-07-28 allows any schema and any value.
//! Shaped for the older revisions, a schema whose root is not an object schema becomes
//! `{"type":"object","properties":{"result":<schema>},"required":["result"]}` and a value
//! that is not an object becomes `{"result": <value>}`, so the two stay consistent. Before
//! 2025-06-18 both are dropped (servers SHOULD also return the JSON as a text block; see
//! [`CallToolResult::structured`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    Adapt, ContentBlock, Icon, Meta, ResultType, TaskMetadata, content::shape_structured_content,
    content::some_value, only_in, shape_icons, shape_result_type, since,
};
use crate::version::ProtocolVersion;

/// A tool the server offers.
///
/// `inputSchema` / `outputSchema` are JSON Schema objects kept as open maps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tool {
    /// Programmatic name (1–128 of `A-Z a-z 0-9 _ - .` recommended).
    pub name: String,
    /// Human-readable title (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the tool does, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// JSON Schema of the arguments; its root is `type: "object"` in every revision
    /// (filled when missing).
    pub input_schema: Meta,
    /// JSON Schema of `structuredContent` (2025-06-18+; root must be an object schema
    /// before 2026-07-28, see the module documentation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Meta>,
    /// Behaviour hints (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<ToolAnnotations>,
    /// Task support (2025-11-25 only; tasks moved to an extension in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub execution: Option<ToolExecution>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Default for Tool {
    fn default() -> Self {
        Self::new("")
    }
}

impl Tool {
    /// A tool taking no arguments (`inputSchema: {"type": "object"}`).
    pub fn new(name: impl Into<String>) -> Self {
        let mut input_schema = Meta::new();
        input_schema.insert("type".into(), Value::from("object"));
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            execution: None,
            icons: None,
            meta: None,
        }
    }

    /// Sets the description.
    pub fn with_description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// Declares whether calls may run as tasks (`execution.taskSupport`; the 2026 tasks
    /// extension reads the same declaration).
    pub fn with_task_support(mut self, support: TaskSupport) -> Self {
        self.execution = Some(ToolExecution {
            task_support: Some(support),
        });
        self
    }

    /// The declared task support (`forbidden` when absent).
    pub fn task_support(&self) -> TaskSupport {
        self.execution
            .as_ref()
            .and_then(|e| e.task_support)
            .unwrap_or(TaskSupport::Forbidden)
    }

    /// Sets the input schema (a JSON object; anything else is ignored).
    pub fn with_input_schema(mut self, schema: Value) -> Self {
        if let Value::Object(m) = schema {
            self.input_schema = m;
        }
        self
    }

    /// Sets the output schema (a JSON object; anything else is ignored).
    pub fn with_output_schema(mut self, schema: Value) -> Self {
        if let Value::Object(m) = schema {
            self.output_schema = Some(m);
        }
        self
    }

    /// The name to display: `title`, then `annotations.title`, then `name`.
    pub fn display_name(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(&self.name)
    }
}

/// Whether a JSON Schema's root describes an object: `type: "object"`, or no `type` but
/// `properties` (then `type` is filled in).
fn ensure_object_root(schema: &mut Meta) -> bool {
    match schema.get("type") {
        Some(Value::String(t)) if t == "object" => true,
        None if schema.contains_key("properties") => {
            schema.insert("type".into(), Value::from("object"));
            true
        }
        _ => false,
    }
}

impl Adapt for Tool {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.title, rev, ProtocolVersion::V2025_06_18);
        if !self.input_schema.contains_key("type") {
            self.input_schema
                .insert("type".into(), Value::from("object"));
        }
        since(&mut self.output_schema, rev, ProtocolVersion::V2025_06_18);
        if rev < ProtocolVersion::V2026_07_28
            && let Some(schema) = &mut self.output_schema
            && !ensure_object_root(schema)
        {
            let inner = std::mem::take(schema);
            let mut props = Meta::new();
            props.insert("result".into(), Value::Object(inner));
            schema.insert("type".into(), Value::from("object"));
            schema.insert("properties".into(), Value::Object(props));
            schema.insert("required".into(), Value::from(vec!["result"]));
        }
        since(&mut self.annotations, rev, ProtocolVersion::V2025_03_26);
        only_in(&mut self.execution, rev, ProtocolVersion::V2025_11_25);
        shape_icons(&mut self.icons, rev);
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

/// Untrusted hints about a tool's behaviour (2025-03-26+).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolAnnotations {
    /// Human-readable title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// Modifications may be destructive (default true; meaningful when not read-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeating a call with the same arguments has no further effect (default false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities (default true).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
}

impl Adapt for ToolAnnotations {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// How a tool runs (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolExecution {
    /// Whether calls may or must be task-augmented (absent means `forbidden`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
}

/// Whether a tool supports task-augmented calls (2025-11-25).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// Calls must not be task-augmented.
    Forbidden,
    /// Calls may be task-augmented.
    Optional,
    /// Calls must be task-augmented.
    Required,
}

list_params!(
    /// Params of `tools/list` (paginated). Same shape as the `PaginatedRequestParams`
    /// definition.
    ListToolsParams,
    "tools/list"
);

list_result!(
    /// Result of `tools/list`.
    ListToolsResult,
    /// One page of tools.
    tools: Tool
);

/// The `task` field of a task-augmented `tools/call`: the `TaskMetadata` definition
/// (2025-11-25 only), the same type every task-augmented request uses.
pub type CallToolTask = TaskMetadata;

/// Params of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolParams {
    /// The tool's name.
    pub name: String,
    /// The arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Meta>,
    /// Run as a task (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// 2026-07-28 MRTR retry: responses to the previous `inputRequests`, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_responses: Option<Meta>,
    /// 2026-07-28 MRTR retry: the `requestState` echoed verbatim.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Request metadata (required on 2026-07-28; filled by the envelope code).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CallToolParams {
    /// The method name.
    pub const METHOD: &'static str = "tools/call";

    /// A call of `name` with `arguments` (a JSON object; anything else means none).
    pub fn new(name: impl Into<String>, arguments: Value) -> Self {
        Self {
            name: name.into(),
            arguments: match arguments {
                Value::Object(m) => Some(m),
                _ => None,
            },
            ..Self::default()
        }
    }
}

impl Adapt for CallToolParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        only_in(&mut self.task, rev, ProtocolVersion::V2025_11_25);
        only_in(&mut self.input_responses, rev, ProtocolVersion::V2026_07_28);
        only_in(&mut self.request_state, rev, ProtocolVersion::V2026_07_28);
    }
}

/// Result of `tools/call`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CallToolResult {
    /// Unstructured content.
    pub content: Vec<ContentBlock>,
    /// Structured content (2025-06-18+; see the module documentation for older shapes).
    /// An explicit JSON `null` is kept as `Some(Value::Null)`.
    #[serde(
        default,
        deserialize_with = "some_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<Value>,
    /// Whether the tool failed (its own failure, visible to the model).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// 2026-07-28 result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
}

impl CallToolResult {
    /// A successful result with `content`.
    pub fn success(content: Vec<ContentBlock>) -> Self {
        Self {
            content,
            ..Self::default()
        }
    }

    /// A tool-execution error (`isError: true`) with one text block.
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            content: vec![ContentBlock::text(message)],
            is_error: Some(true),
            ..Self::default()
        }
    }

    /// A structured result: `structuredContent` plus its JSON text as a text block, for
    /// clients (and revisions) without structured output.
    pub fn structured(value: Value) -> Self {
        Self {
            content: vec![ContentBlock::text(value.to_string())],
            structured_content: Some(value),
            ..Self::default()
        }
    }
}

impl Adapt for CallToolResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.content.adapt(rev);
        shape_structured_content(&mut self.structured_content, rev);
        shape_result_type(&mut self.result_type, rev);
    }
}

/// Params of `notifications/tools/list_changed`: only `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolListChangedParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ToolListChangedParams {
    /// The method name.
    pub const METHOD: &'static str = "notifications/tools/list_changed";
}

impl Adapt for ToolListChangedParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}
