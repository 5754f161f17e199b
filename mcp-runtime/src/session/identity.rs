//! What the server says about itself and the limits every session shares.

use mcp_core::types::{Implementation, ServerCapabilities};
use mcp_core::version::SupportedVersions;

/// What the server says about itself.
#[derive(Debug, Clone)]
pub struct ServerIdentity {
    /// `serverInfo`.
    pub info: Implementation,
    /// `instructions`.
    pub instructions: Option<String>,
    /// The revisions served.
    pub supported: SupportedVersions,
    /// How many items a list page holds.
    pub page_size: usize,
    /// Capabilities to advertise on top of the derived ones (e.g. `experimental`).
    pub extra_capabilities: ServerCapabilities,
    /// How multi-round-trip `requestState` is sealed and bounded (2026-07-28).
    pub request_state: super::request_state::RequestStateConfig,
}
