//! [`AnswerRelay`]: how the client's answer to a server-to-client request (elicitation,
//! sampling, roots) of a legacy session reaches the process that sent the request, when
//! the client posts it to another process of the deployment. The process that got the
//! answer and holds no request of that id forwards it; every process hears what the others
//! forward and completes the request if it is its own (server-to-client request ids of a
//! session held by several processes are drawn from a random start per process, so they do
//! not collide).

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

/// What answers another process's requests arrive through
/// (`HttpOptions::answer_relay`; the Redis one is `RedisStores::answer_relay`).
pub trait AnswerRelay: Send + Sync + 'static {
    /// Hands `answer`, which this process has no request for, to the other processes.
    /// Never waits (an answer that cannot be forwarded is dropped; the request that waits
    /// for it times out).
    fn forward(&self, answer: RelayedAnswer);
    /// Where answers the other processes forward go from now on (a transport calls it
    /// once when it starts).
    fn on_answer(&self, deliver: Box<dyn Fn(RelayedAnswer) + Send + Sync>);
}
