//! Sampling (`sampling/createMessage`, server → client; deprecated in 2026-07-28, where it
//! survives only as an embedded input request of a multi-round-trip result).
//!
//! Revision differences handled by [`Adapt`]:
//!
//! | What | Defined | Shaped for an older revision |
//! | --- | --- | --- |
//! | `audio` block | 2025-03-26+ | a `text` block naming the audio (as [`ContentBlock`] does) |
//! | `tool_use` / `tool_result` blocks | 2025-11-25+ | `text` blocks describing the call / the result |
//! | several blocks in one message | 2025-11-25+ | in [`CreateMessageParams`], one message per block (same role); elsewhere merged, see [`SamplingMessageContent`] |
//! | `tools`, `toolChoice` | 2025-11-25+ | dropped |
//! | `stopReason: "toolUse"` | 2025-11-25+ | `"endTurn"` (the tool calls are in the text) |
//! | `task`, params `_meta` | 2025-11-25 only | dropped (the older schemas and 2026 define neither on these params) |
//! | `SamplingMessage._meta` | 2025-11-25+ | dropped |
//!
//! [`CreateMessageResult`] has no `resultType` in any revision: in 2026 it is an input
//! response inside a retried request, not a JSON-RPC result.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use super::{
    Adapt, AudioContent, ContentBlock, ImageContent, Meta, Role, TaskMetadata, TextContent, Tool,
    ToolResultContent, ToolUseContent, only_in,
};
use crate::version::ProtocolVersion as V;

/// One content block of a sampling message (`SamplingMessageContentBlock`, 2025-11-25+;
/// earlier revisions inline `TextContent | ImageContent [| AudioContent]`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum SamplingContent {
    /// `type: "text"`.
    #[serde(rename = "text")]
    Text(TextContent),
    /// `type: "image"`.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// `type: "audio"` (2025-03-26+).
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// `type: "tool_use"` (2025-11-25+).
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
    /// `type: "tool_result"` (2025-11-25+).
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
}

impl SamplingContent {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// The wire `type` of this block.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Text(_) => "text",
            Self::Image(_) => "image",
            Self::Audio(_) => "audio",
            Self::ToolUse(_) => "tool_use",
            Self::ToolResult(_) => "tool_result",
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

/// The text block standing for a tool result where a revision has no `tool_result` block:
/// its text blocks, other blocks named by kind.
fn tool_result_text_fallback(r: &ToolResultContent) -> TextContent {
    let mut parts: Vec<String> = r
        .content
        .iter()
        .map(|b| match b {
            ContentBlock::Text(t) => t.text.clone(),
            other => format!("[{}]", other.kind()),
        })
        .collect();
    let no_blocks = parts.is_empty();
    if let Some(s) = r.structured_content.as_ref().filter(|_| no_blocks) {
        parts.push(s.to_string());
    }
    let error = if r.is_error == Some(true) {
        " (error)"
    } else {
        ""
    };
    TextContent::new(format!(
        "[tool result {}{error}] {}",
        r.tool_use_id,
        parts.join("\n")
    ))
}

impl Adapt for SamplingContent {
    fn adapt(&mut self, rev: V) {
        match self {
            Self::ToolUse(u) if rev < V::V2025_11_25 => *self = Self::Text(u.to_text_fallback()),
            Self::ToolResult(r) if rev < V::V2025_11_25 => {
                *self = Self::Text(tool_result_text_fallback(r));
            }
            Self::Audio(a) if rev < V::V2025_03_26 => *self = Self::Text(a.to_text_fallback()),
            _ => {}
        }
        match self {
            Self::Text(t) => t.adapt(rev),
            Self::Image(i) => i.adapt(rev),
            Self::Audio(a) => a.adapt(rev),
            Self::ToolUse(u) => u.adapt(rev),
            Self::ToolResult(r) => r.adapt(rev),
        }
    }
}

impl From<TextContent> for SamplingContent {
    fn from(v: TextContent) -> Self {
        Self::Text(v)
    }
}
impl From<ImageContent> for SamplingContent {
    fn from(v: ImageContent) -> Self {
        Self::Image(v)
    }
}
impl From<AudioContent> for SamplingContent {
    fn from(v: AudioContent) -> Self {
        Self::Audio(v)
    }
}
impl From<ToolUseContent> for SamplingContent {
    fn from(v: ToolUseContent) -> Self {
        Self::ToolUse(v)
    }
}
impl From<ToolResultContent> for SamplingContent {
    fn from(v: ToolResultContent) -> Self {
        Self::ToolResult(v)
    }
}

/// The `content` of a sampling message or result: one block, or (2025-11-25+) an array.
///
/// Shaped for a revision before 2025-11-25 an array becomes one block: the only block, the
/// text blocks joined by newlines when all are text, otherwise the first block (the others
/// cannot be expressed in one message; [`CreateMessageParams`] avoids this by splitting a
/// message into one message per block). An empty array becomes an empty text block.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum SamplingMessageContent {
    /// A single block.
    Single(SamplingContent),
    /// Several blocks (2025-11-25+).
    Multiple(Vec<SamplingContent>),
}

impl SamplingMessageContent {
    /// The blocks, whichever the shape.
    pub fn blocks(&self) -> &[SamplingContent] {
        match self {
            Self::Single(b) => std::slice::from_ref(b),
            Self::Multiple(v) => v,
        }
    }

    /// The blocks, by value.
    pub fn into_blocks(self) -> Vec<SamplingContent> {
        match self {
            Self::Single(b) => vec![b],
            Self::Multiple(v) => v,
        }
    }
}

impl<'de> Deserialize<'de> for SamplingMessageContent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        if v.is_array() {
            serde_json::from_value(v)
                .map(Self::Multiple)
                .map_err(de::Error::custom)
        } else {
            serde_json::from_value(v)
                .map(Self::Single)
                .map_err(de::Error::custom)
        }
    }
}

impl Adapt for SamplingMessageContent {
    fn adapt(&mut self, rev: V) {
        match self {
            Self::Single(b) => b.adapt(rev),
            Self::Multiple(v) => v.adapt(rev),
        }
        match self {
            Self::Multiple(v) if rev < V::V2025_11_25 => {
                let blocks = std::mem::take(v);
                let one = if blocks.len() > 1 && blocks.iter().all(|b| b.as_text().is_some()) {
                    let text: Vec<&str> =
                        blocks.iter().filter_map(SamplingContent::as_text).collect();
                    let mut first = match &blocks[0] {
                        SamplingContent::Text(t) => t.clone(),
                        _ => TextContent::default(),
                    };
                    first.text = text.join("\n");
                    SamplingContent::Text(first)
                } else {
                    blocks
                        .into_iter()
                        .next()
                        .unwrap_or_else(|| SamplingContent::text(""))
                };
                *self = Self::Single(one);
            }
            _ => {}
        }
    }
}

impl From<SamplingContent> for SamplingMessageContent {
    fn from(v: SamplingContent) -> Self {
        Self::Single(v)
    }
}

impl From<Vec<SamplingContent>> for SamplingMessageContent {
    fn from(v: Vec<SamplingContent>) -> Self {
        Self::Multiple(v)
    }
}

/// A message of a sampling conversation (`SamplingMessage`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingMessage {
    /// Who speaks.
    pub role: Role,
    /// What is said.
    pub content: SamplingMessageContent,
    /// Metadata (2025-11-25+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SamplingMessage {
    /// A message with one block.
    pub fn new(role: Role, content: impl Into<SamplingContent>) -> Self {
        Self {
            role,
            content: SamplingMessageContent::Single(content.into()),
            meta: None,
        }
    }

    /// A user text message.
    pub fn user_text(text: impl Into<String>) -> Self {
        Self::new(Role::User, TextContent::new(text))
    }

    /// An assistant text message.
    pub fn assistant_text(text: impl Into<String>) -> Self {
        Self::new(Role::Assistant, TextContent::new(text))
    }
}

impl Adapt for SamplingMessage {
    fn adapt(&mut self, rev: V) {
        if rev < V::V2025_11_25 {
            self.meta = None;
        }
        self.content.adapt(rev);
    }
}

/// A hint for model selection (`ModelHint`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelHint {
    /// A full or partial model name, e.g. `"claude-3-5-sonnet"` or `"claude"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

impl ModelHint {
    /// A hint naming a model.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: Some(name.into()),
        }
    }
}

impl Adapt for ModelHint {
    fn adapt(&mut self, _rev: V) {}
}

/// The server's model-selection preferences (`ModelPreferences`); priorities are in 0..=1.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelPreferences {
    /// Hints, in order of preference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hints: Option<Vec<ModelHint>>,
    /// How much cost matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost_priority: Option<f64>,
    /// How much speed matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub speed_priority: Option<f64>,
    /// How much capability matters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub intelligence_priority: Option<f64>,
}

impl Adapt for ModelPreferences {
    fn adapt(&mut self, rev: V) {
        self.hints.adapt(rev);
    }
}

/// Which MCP context the client should add to the prompt (`includeContext`). Values other
/// than `none` are soft-deprecated since 2025-11-25 and need the client's `sampling.context`
/// capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum IncludeContext {
    /// `"none"`.
    #[serde(rename = "none")]
    None,
    /// `"thisServer"`.
    #[serde(rename = "thisServer")]
    ThisServer,
    /// `"allServers"`.
    #[serde(rename = "allServers")]
    AllServers,
}

/// How the model should use the offered tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolChoiceMode {
    /// The model decides.
    Auto,
    /// The model must call a tool.
    Required,
    /// The model must not call a tool.
    None,
}

/// Tool-use control for sampling (`ToolChoice`, 2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolChoice {
    /// The mode (absent: `auto`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<ToolChoiceMode>,
}

impl Adapt for ToolChoice {
    fn adapt(&mut self, _rev: V) {}
}

/// `sampling/createMessage` params (`CreateMessageRequestParams` 2025-11-25+; the inline
/// params of `CreateMessageRequest` before). See the module documentation for what each
/// revision lacks.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageParams {
    /// The conversation.
    pub messages: Vec<SamplingMessage>,
    /// Model-selection preferences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_preferences: Option<ModelPreferences>,
    /// A system prompt the client may use.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt: Option<String>,
    /// Which MCP context to include.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub include_context: Option<IncludeContext>,
    /// Sampling temperature.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f64>,
    /// The most tokens to generate.
    pub max_tokens: u32,
    /// Stop sequences.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_sequences: Option<Vec<String>>,
    /// Provider-specific metadata, passed through.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Meta>,
    /// Tools the model may call (2025-11-25+; needs the client's `sampling.tools`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<Tool>>,
    /// How the model may use them (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_choice: Option<ToolChoice>,
    /// Run as a task (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata (2025-11-25 only: the older schemas define no `_meta` on these params
    /// and 2026 input requests carry none).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageParams {
    /// The method name.
    pub const METHOD: &'static str = "sampling/createMessage";

    /// A request for at most `max_tokens` tokens continuing `messages`.
    pub fn new(messages: Vec<SamplingMessage>, max_tokens: u32) -> Self {
        Self {
            messages,
            max_tokens,
            ..Self::default()
        }
    }
}

impl Adapt for CreateMessageParams {
    fn adapt(&mut self, rev: V) {
        if rev < V::V2025_11_25 {
            self.tools = None;
            self.tool_choice = None;
            // One block per message: a multi-block message becomes consecutive messages of
            // the same role, which every revision can express without loss.
            let messages = std::mem::take(&mut self.messages);
            for m in messages {
                match m.content {
                    SamplingMessageContent::Multiple(blocks) if blocks.len() > 1 => {
                        self.messages
                            .extend(blocks.into_iter().map(|b| SamplingMessage {
                                role: m.role,
                                content: SamplingMessageContent::Single(b),
                                meta: m.meta.clone(),
                            }));
                    }
                    content => self.messages.push(SamplingMessage { content, ..m }),
                }
            }
        }
        only_in(&mut self.task, rev, V::V2025_11_25);
        self.task.adapt(rev);
        only_in(&mut self.meta, rev, V::V2025_11_25);
        self.messages.adapt(rev);
        self.model_preferences.adapt(rev);
        self.tools.adapt(rev);
        self.tool_choice.adapt(rev);
    }
}

/// Why sampling stopped: a known value or any other string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum StopReason {
    /// `"endTurn"`.
    EndTurn,
    /// `"stopSequence"`.
    StopSequence,
    /// `"maxTokens"`.
    MaxTokens,
    /// `"toolUse"` (2025-11-25+).
    ToolUse,
    /// Any other (provider-specific) value.
    Other(String),
}

impl StopReason {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            Self::EndTurn => "endTurn",
            Self::StopSequence => "stopSequence",
            Self::MaxTokens => "maxTokens",
            Self::ToolUse => "toolUse",
            Self::Other(s) => s,
        }
    }
}

impl Serialize for StopReason {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for StopReason {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(match &*s {
            "endTurn" => Self::EndTurn,
            "stopSequence" => Self::StopSequence,
            "maxTokens" => Self::MaxTokens,
            "toolUse" => Self::ToolUse,
            other => Self::Other(other.to_owned()),
        })
    }
}

/// The client's answer to `sampling/createMessage` (`CreateMessageResult`). No `resultType`
/// in any revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CreateMessageResult {
    /// Who speaks (normally `assistant`).
    pub role: Role,
    /// The generated content.
    pub content: SamplingMessageContent,
    /// The model that generated it.
    pub model: String,
    /// Why generation stopped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<StopReason>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CreateMessageResult {
    /// An assistant result with one block.
    pub fn new(model: impl Into<String>, content: impl Into<SamplingContent>) -> Self {
        Self {
            role: Role::Assistant,
            content: SamplingMessageContent::Single(content.into()),
            model: model.into(),
            stop_reason: None,
            meta: None,
        }
    }
}

impl Adapt for CreateMessageResult {
    fn adapt(&mut self, rev: V) {
        self.content.adapt(rev);
        if rev < V::V2025_11_25 && self.stop_reason == Some(StopReason::ToolUse) {
            self.stop_reason = Some(StopReason::EndTurn);
        }
    }
}
