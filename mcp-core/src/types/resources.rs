//! Resources: `resources/list`, `resources/templates/list`, `resources/read`,
//! `resources/subscribe` / `unsubscribe` and their notifications.

use serde::{Deserialize, Serialize};

use super::{
    Adapt, Annotations, CacheScope, Icon, Meta, ResourceContents, ResultType, only_in, shape_cache,
    shape_icons, shape_result_type, since,
};
use crate::version::ProtocolVersion;

/// A resource the server can read. Also the body of a `resource_link` content block
/// ([`ResourceLink`](super::ResourceLink)).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Resource {
    /// The resource's URI.
    pub uri: String,
    /// Programmatic name (display fallback when `title` is absent).
    pub name: String,
    /// Human-readable title (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resource is, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Size of the raw contents in bytes, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Resource {
    /// A resource with only its URI and name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            ..Self::default()
        }
    }
}

impl Adapt for Resource {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.title, rev, ProtocolVersion::V2025_06_18);
        self.annotations.adapt(rev);
        shape_icons(&mut self.icons, rev);
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

/// A template (RFC 6570) for resources the server can read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceTemplate {
    /// The RFC 6570 URI template.
    pub uri_template: String,
    /// Programmatic name.
    pub name: String,
    /// Human-readable title (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What the resources are, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The MIME type of every matching resource, if they share one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Icons (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceTemplate {
    /// A template with only its URI template and name.
    pub fn new(uri_template: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri_template: uri_template.into(),
            name: name.into(),
            ..Self::default()
        }
    }
}

impl Adapt for ResourceTemplate {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.title, rev, ProtocolVersion::V2025_06_18);
        self.annotations.adapt(rev);
        shape_icons(&mut self.icons, rev);
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

list_params!(
    /// Params of `resources/list` (paginated).
    ListResourcesParams,
    "resources/list"
);

list_result!(
    /// Result of `resources/list`.
    ListResourcesResult,
    /// One page of resources.
    resources: Resource
);

list_params!(
    /// Params of `resources/templates/list` (paginated).
    ListResourceTemplatesParams,
    "resources/templates/list"
);

list_result!(
    /// Result of `resources/templates/list`.
    ListResourceTemplatesResult,
    /// One page of templates.
    resource_templates: ResourceTemplate
);

/// Params of `resources/read`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceParams {
    /// The resource's URI.
    pub uri: String,
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

impl ReadResourceParams {
    /// The method name.
    pub const METHOD: &'static str = "resources/read";

    /// Params reading `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            ..Self::default()
        }
    }
}

impl Adapt for ReadResourceParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        only_in(&mut self.input_responses, rev, ProtocolVersion::V2026_07_28);
        only_in(&mut self.request_state, rev, ProtocolVersion::V2026_07_28);
    }
}

/// Result of `resources/read`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ReadResourceResult {
    /// The contents (one or more: a directory may list several).
    pub contents: Vec<ResourceContents>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// 2026-07-28 result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// 2026-07-28 cache lifetime in milliseconds.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// 2026-07-28 cache scope.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
}

impl Adapt for ReadResourceResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.contents.adapt(rev);
        shape_result_type(&mut self.result_type, rev);
        shape_cache(&mut self.ttl_ms, &mut self.cache_scope, rev);
    }
}

/// Params of `resources/subscribe` (legacy revisions only; 2026-07-28 uses
/// `subscriptions/listen`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscribeParams {
    /// The resource to watch.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SubscribeParams {
    /// The method name.
    pub const METHOD: &'static str = "resources/subscribe";
}

impl Adapt for SubscribeParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// Params of `resources/unsubscribe` (legacy revisions only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UnsubscribeParams {
    /// The resource to stop watching.
    pub uri: String,
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl UnsubscribeParams {
    /// The method name.
    pub const METHOD: &'static str = "resources/unsubscribe";
}

impl Adapt for UnsubscribeParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// Params of `notifications/resources/updated`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceUpdatedParams {
    /// The URI of the resource that changed (possibly a sub-resource of the subscribed one).
    pub uri: String,
    /// Notification metadata (2026: `io.modelcontextprotocol/subscriptionId` on a listen
    /// stream).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceUpdatedParams {
    /// The method name.
    pub const METHOD: &'static str = "notifications/resources/updated";
}

impl Adapt for ResourceUpdatedParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// Params of `notifications/resources/list_changed`: only `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceListChangedParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ResourceListChangedParams {
    /// The method name.
    pub const METHOD: &'static str = "notifications/resources/list_changed";
}

impl Adapt for ResourceListChangedParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}
