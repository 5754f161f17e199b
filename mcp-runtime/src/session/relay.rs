//! [`AnswerRelay`]: how the client's answer to a server-to-client request (elicitation,
//! sampling, roots) of a legacy session reaches the process that sent the request, and its
//! `notifications/cancelled` the process that runs the request it cancels, when the client
//! posts them to another process of the deployment. The process that got one and holds no
//! request of that id forwards it; every process hears what the others forward and applies
//! it if the request is its own (server-to-client request ids of a session held by several
//! processes are drawn from a random start per process, so they do not collide).

use mcp_core::jsonrpc::{ErrorObject, RequestId};
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// A client's answer to server-to-client request `id` of legacy session `session`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RelayedAnswer {
    /// The `Mcp-Session-Id`.
    pub session: String,
    /// The id of the request answered.
    pub id: RequestId,
    /// Its `result`, or its `error`.
    pub outcome: Result<Box<RawValue>, ErrorObject>,
}

/// What one process forwards to the others: a client's message about a request another
/// process holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Relayed {
    /// The client's answer to a server-to-client request.
    Answer(RelayedAnswer),
    /// The client's `notifications/cancelled` for its request `id` of legacy session
    /// `session`.
    Cancel {
        /// The `Mcp-Session-Id`.
        session: String,
        /// The id of the request cancelled.
        id: RequestId,
    },
}

/// What answers and cancellations of another process's requests arrive through
/// (`HttpOptions::answer_relay`; the Redis one is `RedisStores::answer_relay`).
pub trait AnswerRelay: Send + Sync + 'static {
    /// Hands `message`, whose request this process does not hold, to the other processes.
    /// Never waits (one that cannot be forwarded is dropped: a request waiting for its
    /// answer times out, a cancelled one runs to its end).
    fn forward(&self, message: Relayed);
    /// Where the messages the other processes forward go from now on (a transport calls
    /// it once when it starts).
    fn on_message(&self, deliver: Box<dyn Fn(Relayed) + Send + Sync>);
}
