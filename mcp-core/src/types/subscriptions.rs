//! `subscriptions/listen` (2026-07-28+): the stream of list-change and resource-update
//! notifications that replaces the legacy GET stream and `resources/subscribe`.

use serde::{Deserialize, Serialize};

use super::{Adapt, Meta, ResultType, shape_result_type};
use crate::jsonrpc::RequestId;
use crate::version::ProtocolVersion;

/// The `_meta` key naming the subscription (the listen request's JSON-RPC id) on the
/// acknowledgement, on every notification of the stream, and on the final listen result.
const SUBSCRIPTION_ID: &str = "io.modelcontextprotocol/subscriptionId";

fn meta_subscription_id(meta: &Option<Meta>) -> Option<RequestId> {
    meta.as_ref()
        .and_then(|m| m.get(SUBSCRIPTION_ID))
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

fn meta_with_subscription_id(meta: &mut Option<Meta>, id: &RequestId) {
    let id = match id {
        RequestId::Number(n) => serde_json::Value::from(*n),
        RequestId::String(s) => serde_json::Value::from(&**s),
    };
    meta.get_or_insert_with(Meta::new)
        .insert(SUBSCRIPTION_ID.to_owned(), id);
}

/// Which notifications a listen stream carries. Everything is opt-in.
///
/// Extensions add their own fields: the tasks extension's `taskIds` is typed here; any other
/// field is kept in `other` and echoed back. Extension fields are never removed by
/// [`Adapt`]: they are only meaningful (and only sent) when the extension is in use.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionFilter {
    /// `notifications/tools/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools_list_changed: Option<bool>,
    /// `notifications/prompts/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_list_changed: Option<bool>,
    /// `notifications/resources/list_changed`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources_list_changed: Option<bool>,
    /// URIs whose `notifications/resources/updated` the client wants.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_subscriptions: Option<Vec<String>>,
    /// Task ids whose `notifications/tasks` the client wants (tasks extension,
    /// `TaskSubscriptionNotifications`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_ids: Option<Vec<String>>,
    /// Fields added by other extensions.
    #[serde(flatten)]
    pub other: Meta,
}

impl SubscriptionFilter {
    /// Whether nothing at all is requested.
    pub fn is_empty(&self) -> bool {
        !self.tools_list_changed.unwrap_or(false)
            && !self.prompts_list_changed.unwrap_or(false)
            && !self.resources_list_changed.unwrap_or(false)
            && self
                .resource_subscriptions
                .as_ref()
                .is_none_or(Vec::is_empty)
            && self.task_ids.as_ref().is_none_or(Vec::is_empty)
            && self.other.is_empty()
    }
}

impl Adapt for SubscriptionFilter {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// Params of `subscriptions/listen`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenParams {
    /// Request metadata (the 2026 envelope; required, filled by the envelope code).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// The notifications wanted.
    pub notifications: SubscriptionFilter,
}

impl SubscriptionsListenParams {
    /// The method name.
    pub const METHOD: &'static str = "subscriptions/listen";
}

impl Adapt for SubscriptionsListenParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.notifications.adapt(rev);
    }
}

/// Params of `notifications/subscriptions/acknowledged`: the first message of a listen
/// stream, naming the subset of the filter the server will honour.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsAcknowledgedParams {
    /// Notification metadata, with `io.modelcontextprotocol/subscriptionId`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// What the server will send.
    pub notifications: SubscriptionFilter,
}

impl SubscriptionsAcknowledgedParams {
    /// The notification method name.
    pub const METHOD: &'static str = "notifications/subscriptions/acknowledged";

    /// Acknowledges subscription `id` (the listen request's id) for `notifications`.
    pub fn new(id: &RequestId, notifications: SubscriptionFilter) -> Self {
        let mut meta = None;
        meta_with_subscription_id(&mut meta, id);
        Self {
            meta,
            notifications,
        }
    }

    /// The subscription id in `_meta`, if present and well-formed.
    pub fn subscription_id(&self) -> Option<RequestId> {
        meta_subscription_id(&self.meta)
    }
}

impl Adapt for SubscriptionsAcknowledgedParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.notifications.adapt(rev);
    }
}

/// Result of `subscriptions/listen`: sent when the server ends the stream gracefully.
/// Its `_meta` must carry `io.modelcontextprotocol/subscriptionId`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SubscriptionsListenResult {
    /// Result type (filled with `complete` on 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Result metadata, with `io.modelcontextprotocol/subscriptionId`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SubscriptionsListenResult {
    /// The `_meta` key of the subscription id.
    pub const SUBSCRIPTION_ID_KEY: &'static str = SUBSCRIPTION_ID;

    /// The closing result of subscription `id`.
    pub fn new(id: &RequestId) -> Self {
        let mut meta = None;
        meta_with_subscription_id(&mut meta, id);
        Self {
            result_type: None,
            meta,
        }
    }

    /// The subscription id in `_meta`, if present and well-formed.
    pub fn subscription_id(&self) -> Option<RequestId> {
        meta_subscription_id(&self.meta)
    }
}

impl Adapt for SubscriptionsListenResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        shape_result_type(&mut self.result_type, rev);
    }
}
