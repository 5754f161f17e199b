//! Establishing a conversation: `Implementation`, the legacy `initialize` handshake
//! (2024-11-05 … 2025-11-25), `ping` (legacy) and `server/discover` (2026-07-28).

use serde::{Deserialize, Serialize};

use super::{
    Adapt, CacheScope, ClientCapabilities, Icon, Meta, ResultType, ServerCapabilities, shape_cache,
    shape_icons, shape_result_type, since,
};
use crate::version::{ProtocolVersion, SupportedVersions};

/// Name and version of an MCP client or server implementation.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Implementation {
    /// Programmatic name.
    pub name: String,
    /// Version string.
    pub version: String,
    /// Human-readable display name (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Icons for display (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Human-readable description (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// URL of the implementation's website (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub website_url: Option<String>,
}

impl Implementation {
    /// An implementation with just a name and a version.
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            ..Self::default()
        }
    }
}

impl Adapt for Implementation {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.title, rev, ProtocolVersion::V2025_06_18);
        shape_icons(&mut self.icons, rev);
        since(&mut self.description, rev, ProtocolVersion::V2025_11_25);
        since(&mut self.website_url, rev, ProtocolVersion::V2025_11_25);
    }
}

/// Params of `initialize` (legacy revisions only; 2026-07-28 has no handshake).
///
/// `protocolVersion` is a plain string: a client may offer a revision this crate does not
/// know, and the server must answer with one it supports rather than fail
/// (see [`SupportedVersions::negotiate_initialize`]).
///
/// `_meta` is defined on `initialize` params only from 2025-11-25 (earlier schemas spell the
/// params out without it), so it is dropped for older revisions.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeParams {
    /// The revision the client wants (its latest).
    pub protocol_version: String,
    /// The client's capabilities.
    pub capabilities: ClientCapabilities,
    /// The client implementation.
    pub client_info: Implementation,
    /// Request metadata (2025-11-25+ in the schema).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InitializeParams {
    /// The method name.
    pub const METHOD: &'static str = "initialize";

    /// Params offering `version`.
    pub fn new(
        version: ProtocolVersion,
        capabilities: ClientCapabilities,
        client_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: version.as_str().to_owned(),
            capabilities,
            client_info,
            meta: None,
        }
    }

    /// The requested revision, when it is one this crate knows.
    pub fn known_version(&self) -> Option<ProtocolVersion> {
        ProtocolVersion::parse(&self.protocol_version)
    }
}

impl Adapt for InitializeParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.capabilities.adapt(rev);
        self.client_info.adapt(rev);
        since(&mut self.meta, rev, ProtocolVersion::V2025_11_25);
    }
}

/// Result of `initialize` (legacy revisions only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InitializeResult {
    /// The revision the server chose.
    pub protocol_version: String,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// The server implementation.
    pub server_info: Implementation,
    /// How to use the server (may be added to a model's system prompt).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InitializeResult {
    /// A result announcing `version`.
    pub fn new(
        version: ProtocolVersion,
        capabilities: ServerCapabilities,
        server_info: Implementation,
    ) -> Self {
        Self {
            protocol_version: version.as_str().to_owned(),
            capabilities,
            server_info,
            instructions: None,
            meta: None,
        }
    }

    /// The chosen revision, when it is one this crate knows.
    pub fn known_version(&self) -> Option<ProtocolVersion> {
        ProtocolVersion::parse(&self.protocol_version)
    }
}

impl Adapt for InitializeResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.capabilities.adapt(rev);
        self.server_info.adapt(rev);
    }
}

/// Params of `ping` (legacy revisions only): just `_meta`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PingParams {
    /// Request metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl PingParams {
    /// The method name.
    pub const METHOD: &'static str = "ping";
}

impl Adapt for PingParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// Params of `server/discover` (2026-07-28+): just the request `_meta` envelope.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverParams {
    /// Request metadata (required on 2026-07-28; filled by the envelope code, not here).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl DiscoverParams {
    /// The method name.
    pub const METHOD: &'static str = "server/discover";
}

impl Adapt for DiscoverParams {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// Result of `server/discover` (2026-07-28+), a cacheable result.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoverResult {
    /// Always `complete` for discovery (filled when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
    /// Revisions a client may name in `_meta` `io.modelcontextprotocol/protocolVersion`.
    pub supported_versions: Vec<String>,
    /// The server's capabilities.
    pub capabilities: ServerCapabilities,
    /// How to use the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// How long the result may be reused, in milliseconds (filled with 0 when absent).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "super::lenient_ttl"
    )]
    pub ttl_ms: Option<u64>,
    /// Who may reuse the result (filled with `private` when absent).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_scope: Option<CacheScope>,
    /// Result metadata (`io.modelcontextprotocol/serverInfo`, ...).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl DiscoverResult {
    /// A discovery result advertising the modern revisions of `supported` (legacy revisions
    /// are never listed: they cannot be named in a modern `_meta` envelope).
    pub fn new(supported: SupportedVersions, capabilities: ServerCapabilities) -> Self {
        Self {
            supported_versions: supported.modern().map(|v| v.as_str().to_owned()).collect(),
            capabilities,
            ..Self::default()
        }
    }

    /// The advertised revisions this crate knows, in the order given.
    pub fn known_versions(&self) -> Vec<ProtocolVersion> {
        self.supported_versions
            .iter()
            .filter_map(|s| ProtocolVersion::parse(s))
            .collect()
    }
}

impl Adapt for DiscoverResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        shape_result_type(&mut self.result_type, rev);
        shape_cache(&mut self.ttl_ms, &mut self.cache_scope, rev);
        self.capabilities.adapt(rev);
    }
}
