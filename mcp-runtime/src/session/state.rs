//! The state of one legacy session: what `initialize` committed, what the client said about
//! itself, and what it asked for since (log level, resource subscriptions).

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use mcp_core::jsonrpc::RequestId;
use mcp_core::types::{ClientCapabilities, Implementation, LoggingLevel};
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
    /// The level `logging/setLevel` asked for; `None`: no log messages are sent.
    pub(crate) log_level: Option<LoggingLevel>,
    /// The resources `resources/subscribe` named (and not unsubscribed since).
    pub(crate) subscriptions: BTreeSet<String>,
    /// The same subscriptions as this process counts them in the server's
    /// [`Interest`](super::interest::Interest) (made at the first `resources/subscribe`;
    /// released with the session). Not stored: a process counts what it was asked.
    pub(crate) interest: Option<super::interest::Lease>,
    /// Counts the changes of what a [`SessionStore`](super::SessionStore) keeps, so a
    /// transport persists a session only when it changed.
    pub(crate) generation: u64,
}

impl SessionState {
    /// The name of this session's tasks, if one was made.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn task_scope_if_made(&self) -> Option<&str> {
        self.task_scope.as_deref()
    }

    /// Names this session's tasks (a session loaded from a store keeps its name).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn set_task_scope(&mut self, scope: String) {
        self.task_scope = Some(scope);
    }

    /// Marks a change of what a store keeps (call after every such change).
    pub(crate) fn changed(&mut self) {
        self.generation += 1;
    }

    /// A random name for this connection's tasks, made on first use.
    pub(crate) fn task_scope(&mut self) -> &str {
        if self.task_scope.is_none() {
            self.changed();
        }
        self.task_scope.get_or_insert_with(|| {
            let mut b = [0u8; 16];
            getrandom::fill(&mut b).expect("the OS random source failed");
            b.iter().map(|x| format!("{x:02x}")).collect()
        })
    }
}

/// Shared by the dispatcher and the kernel of one connection.
pub(crate) type Session = Arc<Mutex<SessionState>>;
