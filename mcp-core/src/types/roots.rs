//! Roots (`roots/list`, server → client; deprecated in 2026-07-28, where it survives only as
//! an embedded input request of a multi-round-trip result).

use serde::{Deserialize, Serialize};

use super::{Adapt, Meta, since};
use crate::version::{Era, ProtocolVersion as V};

/// A directory or file the server may operate on (`Root`, every revision).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Root {
    /// The root's URI (`file://` for now).
    pub uri: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Root {
    /// A root with a URI and no name.
    pub fn new(uri: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            ..Self::default()
        }
    }

    /// The same root with a display name.
    pub fn with_name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }
}

impl Adapt for Root {
    fn adapt(&mut self, rev: V) {
        since(&mut self.meta, rev, V::V2025_06_18);
    }
}

/// `roots/list` params: only `_meta` (every revision; optional everywhere, including the
/// 2026 input request, whose `params` may be omitted altogether).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListRootsParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListRootsParams {
    /// The method name.
    pub const METHOD: &'static str = "roots/list";
}

impl Adapt for ListRootsParams {
    fn adapt(&mut self, _rev: V) {}
}

/// The client's answer to `roots/list` (`ListRootsResult`).
///
/// No `resultType` in any revision (2026: it is an input response, and the 2026 schema
/// defines no `_meta` on it either, so `_meta` is dropped there). Not paginated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
    /// Result metadata (legacy revisions only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ListRootsResult {
    /// A result listing these roots.
    pub fn new(roots: Vec<Root>) -> Self {
        Self { roots, meta: None }
    }
}

impl Adapt for ListRootsResult {
    fn adapt(&mut self, rev: V) {
        if rev.era() == Era::Modern {
            self.meta = None;
        }
        self.roots.adapt(rev);
    }
}
