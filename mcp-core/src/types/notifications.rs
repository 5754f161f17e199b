//! Notifications of general use: progress, cancellation, `initialized`, list changes and
//! URL-elicitation completion.
//!
//! On the legacy revisions before 2025-11-25 the schema spells out the params of
//! `notifications/progress` and `notifications/cancelled` without `_meta`, so `_meta` is
//! dropped there; the parameterless notifications (`initialized`, `*/list_changed`) accept
//! `_meta` on every revision that has them.

use serde::{Deserialize, Serialize};

use super::{Adapt, Meta, ProgressToken, since};
use crate::jsonrpc::RequestId;
use crate::version::ProtocolVersion;

/// Serializes progress numbers so integral values stay integers (`50`, not `50.0`): the
/// schema says `number`, and peers (and round-trips) see what was sent.
mod number {
    use serde::Serializer;

    /// Largest magnitude below which every integer is exact in an `f64` (2^53).
    const EXACT: f64 = 9_007_199_254_740_992.0;

    pub fn serialize<S: Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
        if v.fract() == 0.0 && v.abs() < EXACT {
            // Exact: the value is integral and within the range f64 represents exactly.
            s.serialize_i64(*v as i64)
        } else {
            s.serialize_f64(*v)
        }
    }

    pub mod option {
        use serde::Serializer;

        pub fn serialize<S: Serializer>(v: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
            match v {
                Some(x) => super::serialize(x, s),
                None => s.serialize_none(),
            }
        }
    }
}

/// Params of `notifications/progress`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProgressParams {
    /// The token given in the original request's `_meta.progressToken`.
    pub progress_token: ProgressToken,
    /// Progress so far; must increase with every notification. May be fractional.
    #[serde(serialize_with = "number::serialize")]
    pub progress: f64,
    /// Total amount of work, when known.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "number::option::serialize"
    )]
    pub total: Option<f64>,
    /// Human-readable progress message (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Notification metadata (2025-11-25+ in the schema).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ProgressParams {
    /// The notification method name.
    pub const METHOD: &'static str = "notifications/progress";

    /// Progress `progress` for `token`.
    pub fn new(token: impl Into<ProgressToken>, progress: f64) -> Self {
        Self {
            progress_token: token.into(),
            progress,
            total: None,
            message: None,
            meta: None,
        }
    }
}

impl Adapt for ProgressParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.message, rev, ProtocolVersion::V2025_03_26);
        since(&mut self.meta, rev, ProtocolVersion::V2025_11_25);
    }
}

/// Params of `notifications/cancelled`.
///
/// `requestId` is optional only in the 2025-11-25 schema (tasks are cancelled with
/// `tasks/cancel` instead); every other revision requires it, so a value without it is only
/// valid on 2025-11-25 — adapting cannot invent an id. Build with [`CancelledParams::new`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CancelledParams {
    /// The id of the request to cancel (sent earlier in the same direction).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<RequestId>,
    /// Why the request was cancelled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Notification metadata (2025-11-25+ in the schema).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl CancelledParams {
    /// The notification method name.
    pub const METHOD: &'static str = "notifications/cancelled";

    /// Cancels request `id`.
    pub fn new(id: impl Into<RequestId>) -> Self {
        Self {
            request_id: Some(id.into()),
            ..Self::default()
        }
    }

    /// Sets the reason (builder style).
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

impl Adapt for CancelledParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.meta, rev, ProtocolVersion::V2025_11_25);
    }
}

/// Params of `notifications/initialized` (legacy revisions only; params are optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializedParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InitializedParams {
    /// The notification method name.
    pub const METHOD: &'static str = "notifications/initialized";
}

impl Adapt for InitializedParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// Params of `notifications/roots/list_changed` (legacy revisions only; params optional).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsListChangedParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl RootsListChangedParams {
    /// The notification method name.
    pub const METHOD: &'static str = "notifications/roots/list_changed";
}

impl Adapt for RootsListChangedParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// Params of `notifications/tools/list_changed`, `notifications/prompts/list_changed` and
/// `notifications/resources/list_changed` (params optional). On a 2026 listen stream `_meta`
/// carries `io.modelcontextprotocol/subscriptionId`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListChangedParams {
    /// Notification metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListChangedParams {
    /// `notifications/tools/list_changed`.
    pub const TOOLS_METHOD: &'static str = "notifications/tools/list_changed";
    /// `notifications/prompts/list_changed`.
    pub const PROMPTS_METHOD: &'static str = "notifications/prompts/list_changed";
    /// `notifications/resources/list_changed`.
    pub const RESOURCES_METHOD: &'static str = "notifications/resources/list_changed";
}

impl Adapt for ListChangedParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// Params of `notifications/elicitation/complete` (2025-11-25 only): a URL-mode elicitation
/// finished out of band. The schema gives these params no `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCompleteParams {
    /// The id of the elicitation that completed.
    pub elicitation_id: String,
}

impl ElicitationCompleteParams {
    /// The notification method name.
    pub const METHOD: &'static str = "notifications/elicitation/complete";
}

impl Adapt for ElicitationCompleteParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}
