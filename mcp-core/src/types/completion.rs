//! Argument completion: `completion/complete`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::{Adapt, Meta, ResultType, shape_result_type, since};
use crate::version::ProtocolVersion;

/// The most values one completion result may carry.
pub const MAX_COMPLETION_VALUES: usize = 100;

/// Params of `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteParams {
    /// What is being completed: a prompt's or a resource template's argument.
    #[serde(rename = "ref")]
    pub reference: CompletionReference,
    /// The argument and its partial value.
    pub argument: CompletionArgument,
    /// Values of arguments already resolved (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<CompletionContext>,
    /// Request metadata (required on 2026-07-28; filled by the envelope code).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CompleteParams {
    /// The method name.
    pub const METHOD: &'static str = "completion/complete";

    /// Params completing argument `name` (currently `value`) of `reference`.
    pub fn new(
        reference: CompletionReference,
        name: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        Self {
            reference,
            argument: CompletionArgument {
                name: name.into(),
                value: value.into(),
            },
            context: None,
            meta: None,
        }
    }
}

impl Adapt for CompleteParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.reference.adapt(rev);
        since(&mut self.context, rev, ProtocolVersion::V2025_06_18);
    }
}

/// The `ref` of a completion request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum CompletionReference {
    /// `type: "ref/prompt"`.
    #[serde(rename = "ref/prompt")]
    Prompt(PromptReference),
    /// `type: "ref/resource"`.
    #[serde(rename = "ref/resource")]
    Resource(ResourceTemplateReference),
}

/// A reference to a prompt with an empty name (so that generic wrappers needing
/// `Default`, such as `TypedRequest<CompleteParams>`, can be read).
impl Default for CompletionReference {
    fn default() -> Self {
        Self::Prompt(PromptReference::default())
    }
}

impl CompletionReference {
    /// A reference to the prompt `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        Self::Prompt(PromptReference {
            name: name.into(),
            title: None,
        })
    }

    /// A reference to the resource template `uri`.
    pub fn resource(uri: impl Into<String>) -> Self {
        Self::Resource(ResourceTemplateReference { uri: uri.into() })
    }
}

impl Adapt for CompletionReference {
    fn adapt(&mut self, rev: ProtocolVersion) {
        if let Self::Prompt(p) = self {
            p.adapt(rev);
        }
    }
}

/// A reference to a prompt (`type: "ref/prompt"`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptReference {
    /// The prompt's name.
    pub name: String,
    /// Human-readable title (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

impl Adapt for PromptReference {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.title, rev, ProtocolVersion::V2025_06_18);
    }
}

/// A reference to a resource template (`type: "ref/resource"`); the schema calls it
/// `ResourceReference` up to 2025-03-26 and `ResourceTemplateReference` after.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplateReference {
    /// The URI template (or URI).
    pub uri: String,
}

/// The older name of [`ResourceTemplateReference`] (2024-11-05, 2025-03-26).
pub type ResourceReference = ResourceTemplateReference;

/// The argument being completed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompletionArgument {
    /// The argument's name.
    pub name: String,
    /// Its value so far.
    pub value: String,
}

/// Context of a completion request (2025-06-18+).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompletionContext {
    /// Already-resolved argument values by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<BTreeMap<String, String>>,
}

/// Result of `completion/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompleteResult {
    /// The completions.
    pub completion: Completion,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// 2026-07-28 result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
}

impl CompleteResult {
    /// A result from all matching values; see [`Completion::from_values`].
    pub fn from_values<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        Self {
            completion: Completion::from_values(values),
            ..Self::default()
        }
    }
}

impl Adapt for CompleteResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.completion.adapt(rev);
        shape_result_type(&mut self.result_type, rev);
    }
}

/// The completion values of a [`CompleteResult`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    /// At most [`MAX_COMPLETION_VALUES`] values.
    pub values: Vec<String>,
    /// How many values match in all (may exceed `values.len()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// Whether more values exist than are returned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_more: Option<bool>,
}

impl Completion {
    /// From every matching value: keeps the first 100, sets `total` to the full count and
    /// `hasMore` to whether any were left out.
    pub fn from_values<I, S>(values: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        let mut all: Vec<String> = values.into_iter().map(Into::into).collect();
        let total = all.len();
        all.truncate(MAX_COMPLETION_VALUES);
        Self {
            values: all,
            total: Some(total as u64),
            has_more: Some(total > MAX_COMPLETION_VALUES),
        }
    }
}

impl Adapt for Completion {
    /// Every revision caps `values` at 100: extra values are cut and `hasMore` set.
    fn adapt(&mut self, _rev: ProtocolVersion) {
        if self.values.len() > MAX_COMPLETION_VALUES {
            let total = self.values.len() as u64;
            self.values.truncate(MAX_COMPLETION_VALUES);
            self.has_more = Some(true);
            if self.total.is_none_or(|t| t < total) {
                self.total = Some(total);
            }
        }
    }
}
