//! The state of one legacy session: what `initialize` committed and what the client said
//! about itself.

use std::sync::{Arc, Mutex};

use mcp_core::jsonrpc::RequestId;
use mcp_core::types::{ClientCapabilities, Implementation};
use mcp_core::version::ProtocolVersion;

/// What the client told about itself: from the `initialize` handshake on legacy connections,
/// from each request's `_meta` on modern ones.
#[derive(Debug, Clone, Default)]
pub struct ClientView {
    /// `clientInfo`.
    pub info: Option<Implementation>,
    /// The declared capabilities.
    pub capabilities: ClientCapabilities,
}

/// Connection state the dispatcher reads and the kernel commits.
#[derive(Debug, Default)]
pub(crate) struct SessionState {
    /// Whether `initialize` succeeded on this (legacy) connection.
    pub(crate) initialized: bool,
    /// The negotiated revision.
    pub(crate) version: Option<ProtocolVersion>,
    /// The client as declared in the committed `initialize`.
    pub(crate) client: Option<Arc<ClientView>>,
    /// What the dispatcher saw in the `initialize` params of request `id` (after any
    /// middleware rewrite); the kernel commits it once the chain succeeds.
    pub(crate) pending_init: Option<(RequestId, Arc<ClientView>)>,
    /// The scope of the tasks this connection creates (`tasks/list` is per session).
    task_scope: Option<String>,
}

impl SessionState {
    /// A random name for this connection's tasks, made on first use.
    pub(crate) fn task_scope(&mut self) -> &str {
        self.task_scope.get_or_insert_with(|| {
            let mut b = [0u8; 16];
            getrandom::fill(&mut b).expect("the OS random source failed");
            b.iter().map(|x| format!("{x:02x}")).collect()
        })
    }
}

/// Shared by the dispatcher and the kernel of one connection.
pub(crate) type Session = Arc<Mutex<SessionState>>;
