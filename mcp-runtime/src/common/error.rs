//! Errors inside the runtime and the result type of handlers and middleware.

use std::fmt;

use mcp_core::jsonrpc::ErrorObject;
use serde_json::value::RawValue;

/// What a handler or middleware failed with.
///
/// A [`McpError::Protocol`] error goes on the wire as written. Everything else is an internal
/// failure: it is logged, and the peer sees only `-32603 Internal error`.
#[derive(Debug)]
pub enum McpError {
    /// A JSON-RPC error meant for the peer.
    Protocol(ErrorObject),
    /// An internal failure; its text never reaches the wire.
    Internal(Box<dyn std::error::Error + Send + Sync>),
    /// The handler panicked.
    Panicked(String),
    /// The request was cancelled; nothing is sent for it.
    Cancelled,
    /// The request took longer than the configured timeout.
    Timeout,
}

impl McpError {
    /// An internal failure with a message (logged, never sent).
    pub fn internal(msg: impl Into<String>) -> Self {
        McpError::Internal(msg.into().into())
    }

    /// `-32602` with a message.
    pub fn invalid_params(msg: impl Into<String>) -> Self {
        McpError::Protocol(ErrorObject::invalid_params(msg))
    }

    /// The error object the peer sees.
    pub fn to_wire(&self) -> ErrorObject {
        match self {
            McpError::Protocol(e) => e.clone(),
            _ => ErrorObject::internal(),
        }
    }

    /// The protocol error, when this is one.
    pub fn as_protocol(&self) -> Option<&ErrorObject> {
        match self {
            McpError::Protocol(e) => Some(e),
            _ => None,
        }
    }
}

impl fmt::Display for McpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            McpError::Protocol(e) => e.fmt(f),
            McpError::Internal(e) => write!(f, "internal error: {e}"),
            McpError::Panicked(m) => write!(f, "handler panicked: {m}"),
            McpError::Cancelled => f.write_str("request cancelled"),
            McpError::Timeout => f.write_str("request timed out"),
        }
    }
}

impl std::error::Error for McpError {}

impl From<ErrorObject> for McpError {
    fn from(e: ErrorObject) -> Self {
        McpError::Protocol(e)
    }
}

impl From<serde_json::Error> for McpError {
    fn from(e: serde_json::Error) -> Self {
        McpError::Internal(Box::new(e))
    }
}

/// What a request produced: its result as JSON, or nothing (for a notification).
#[derive(Debug, Clone)]
pub enum Reply {
    /// The result object, already encoded.
    Result(Box<RawValue>),
    /// No result: the message was a notification.
    None,
}

impl Reply {
    /// A reply from any serializable value.
    pub fn json<T: serde::Serialize + ?Sized>(value: &T) -> Result<Self, McpError> {
        Ok(Reply::Result(serde_json::value::to_raw_value(value)?))
    }

    /// The result as JSON text, if any.
    pub fn as_json(&self) -> Option<&str> {
        match self {
            Reply::Result(r) => Some(r.get()),
            Reply::None => None,
        }
    }

    /// Decodes the result into `T` (for middleware that inspects results).
    pub fn decode<T: serde::de::DeserializeOwned>(&self) -> Option<Result<T, serde_json::Error>> {
        self.as_json().map(serde_json::from_str)
    }
}

/// The outcome of a handler or of the rest of the middleware chain.
pub type HandlerResult = Result<Reply, McpError>;

/// The not-found error for a resource: -32002 on legacy revisions, -32602 on 2026.
pub(crate) fn resource_not_found(uri: &str, era: mcp_core::version::Era) -> McpError {
    let code = match era {
        mcp_core::version::Era::Legacy => mcp_core::jsonrpc::RESOURCE_NOT_FOUND,
        mcp_core::version::Era::Modern => mcp_core::jsonrpc::INVALID_PARAMS,
    };
    mcp_core::jsonrpc::ErrorObject::new(code, "Resource not found")
        .with_data(serde_json::json!({ "uri": uri }))
        .into()
}
