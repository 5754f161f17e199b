//! Prompts: `prompts/list`, `prompts/get` and `notifications/prompts/list_changed`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{
    Adapt, ContentBlock, Icon, Meta, ResultType, Role, only_in, shape_icons, shape_result_type,
    since,
};
use crate::version::ProtocolVersion;

/// A prompt template the server offers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Prompt {
    /// Programmatic name.
    pub name: String,
    /// Human-readable title (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the prompt provides.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The arguments it takes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Vec<PromptArgument>>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Prompt {
    /// A prompt with only its name.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
}

impl Adapt for Prompt {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.title, rev, ProtocolVersion::V2025_06_18);
        self.arguments.adapt(rev);
        shape_icons(&mut self.icons, rev);
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

/// An argument a prompt accepts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptArgument {
    /// Programmatic name.
    pub name: String,
    /// Human-readable title (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the argument is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Whether it must be given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<bool>,
}

impl Adapt for PromptArgument {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.title, rev, ProtocolVersion::V2025_06_18);
    }
}

/// One message of a prompt.
///
/// Before 2025-06-18 `content` may not be a resource link, and before 2025-03-26 not
/// audio; such blocks become text blocks (see [`ContentBlock`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: ContentBlock,
}

impl PromptMessage {
    /// A user message of text.
    pub fn user(text: impl Into<String>) -> Self {
        Self {
            role: Role::User,
            content: ContentBlock::text(text),
        }
    }

    /// An assistant message of text.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self {
            role: Role::Assistant,
            content: ContentBlock::text(text),
        }
    }
}

impl Adapt for PromptMessage {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.content.adapt(rev);
    }
}

list_params!(
    /// Params of `prompts/list` (paginated).
    ListPromptsParams,
    "prompts/list"
);

list_result!(
    /// Result of `prompts/list`.
    ListPromptsResult,
    /// One page of prompts.
    prompts: Prompt
);

/// Params of `prompts/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptParams {
    /// The prompt's name.
    pub name: String,
    /// Argument values by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
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

impl GetPromptParams {
    /// The method name.
    pub const METHOD: &'static str = "prompts/get";

    /// Params getting `name` without arguments.
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            ..Self::default()
        }
    }
}

impl Adapt for GetPromptParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        only_in(&mut self.input_responses, rev, ProtocolVersion::V2026_07_28);
        only_in(&mut self.request_state, rev, ProtocolVersion::V2026_07_28);
    }
}

/// Result of `prompts/get`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GetPromptResult {
    /// A description of the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The messages.
    pub messages: Vec<PromptMessage>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// 2026-07-28 result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
}

impl Adapt for GetPromptResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.messages.adapt(rev);
        shape_result_type(&mut self.result_type, rev);
    }
}

/// Params of `notifications/prompts/list_changed`: only `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptListChangedParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl PromptListChangedParams {
    /// The method name.
    pub const METHOD: &'static str = "notifications/prompts/list_changed";
}

impl Adapt for PromptListChangedParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}
