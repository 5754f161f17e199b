//! Errors inside the runtime and the result type of handlers and middleware.

use std::fmt;

use mcp_core::jsonrpc::ErrorObject;
use serde_json::value::RawValue;

/// What a handler or middleware failed with.
///
/// A [`McpError::Protocol`] error goes on the wire as written. Everything else is an internal
/// failure: it is logged, and the peer sees only `-32603 Internal error`.
#[derive(Debug)]
#[non_exhaustive]
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

    /// A JSON-RPC error with this code and message, sent to the peer as written. Codes from
    /// `-32768` to `-32000` belong to JSON-RPC and MCP (`mcp::jsonrpc` names the defined
    /// ones); an application's own errors use codes outside that range.
    ///
    /// ```
    /// use mcp_runtime::McpError;
    ///
    /// let e = McpError::protocol(4001, "quota exceeded");
    /// assert_eq!(e.to_wire().code, 4001);
    /// assert_eq!(e.to_wire().message, "quota exceeded");
    /// ```
    pub fn protocol(code: i32, message: impl Into<String>) -> Self {
        McpError::Protocol(ErrorObject::new(code, message))
    }

    /// `-32600`: the request is not acceptable as sent (what a middleware answers when it
    /// refuses a request, say one without the credentials it needs).
    pub fn invalid_request(msg: impl Into<String>) -> Self {
        McpError::Protocol(ErrorObject::invalid_request(msg))
    }

    /// `-32601`: the method is not offered (a middleware hiding a method answers this).
    pub fn method_not_found(method: &str) -> Self {
        McpError::Protocol(ErrorObject::method_not_found(method))
    }

    /// The resource `uri` does not exist: `-32002` with `{"uri": ...}` as data, sent as
    /// `-32602` to 2026-07-28 clients (that revision has no code of its own for it). A
    /// resource handler can also return `None` from an `Option`, which means the same.
    ///
    /// ```
    /// use mcp_runtime::McpError;
    ///
    /// let e = McpError::resource_not_found("books://42");
    /// assert_eq!(e.to_wire().code, -32002);
    /// assert_eq!(e.to_wire().data.unwrap()["uri"], "books://42");
    /// ```
    pub fn resource_not_found(uri: &str) -> Self {
        ErrorObject::new(mcp_core::jsonrpc::RESOURCE_NOT_FOUND, "Resource not found")
            .with_data(serde_json::json!({ "uri": uri }))
            .into()
    }

    /// The error object the peer sees.
    pub fn to_wire(&self) -> ErrorObject {
        match self {
            McpError::Protocol(e) => e.clone(),
            // Says nothing about the handler, and tells the client that trying again may help.
            McpError::Timeout => {
                ErrorObject::new(mcp_core::jsonrpc::INTERNAL_ERROR, "Request timed out")
            }
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
    resource_error_in(era, McpError::resource_not_found(uri))
}

/// A resource read's error as `era` spells it: 2026-07-28 has no -32002 and says -32602.
pub(crate) fn resource_error_in(era: mcp_core::version::Era, e: McpError) -> McpError {
    match (era, e) {
        (mcp_core::version::Era::Modern, McpError::Protocol(e))
            if e.code == mcp_core::jsonrpc::RESOURCE_NOT_FOUND =>
        {
            ErrorObject {
                code: mcp_core::jsonrpc::INVALID_PARAMS,
                ..e
            }
            .into()
        }
        (_, e) => e,
    }
}
