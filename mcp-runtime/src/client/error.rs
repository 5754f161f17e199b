//! What a client call can fail with.

use std::fmt;
use std::process::ExitStatus;
use std::sync::Arc;

use mcp_core::jsonrpc::ErrorObject;

/// Why a client request (or connecting) failed.
///
/// Local conditions (timeouts, a closed connection, a dead child process) are their own
/// variants and never look like a server's JSON-RPC error ([`ClientError::Rpc`]).
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum ClientError {
    /// The server answered with a JSON-RPC error.
    Rpc(ErrorObject),
    /// No answer came within the request timeout (a `notifications/cancelled` was sent).
    Timeout,
    /// The connection closed before an answer (the detail says how, when known).
    Closed(Option<String>),
    /// The server process exited (before or while the request was pending).
    ProcessExited(ExitStatus),
    /// Reading or writing the transport failed.
    Io(Arc<std::io::Error>),
    /// The server's answer could not be used (not an object, wrong `resultType`, does not
    /// decode as the expected result, ...).
    InvalidResponse(String),
    /// The 2026 server still asked for input (`resultType: "input_required"`) after
    /// [`MAX_INPUT_ROUNDS`](super::MAX_INPUT_ROUNDS) answered rounds. Holds the raw result.
    InputRequired(String),
    /// The server supports none of the revisions this client offered.
    UnsupportedVersion {
        /// What the client asked for.
        requested: String,
        /// What the server says it supports (may be empty).
        supported: Vec<String>,
    },
    /// The call is not available on this connection (e.g. `logging/setLevel` on 2026).
    Unsupported(String),
    /// A tool reported a failure (`isError: true`); the text of its content.
    ToolFailed(String),
    /// The arguments or params could not be serialized.
    Encode(String),
    /// The HTTP server answered with an error status and no JSON-RPC answer to the request
    /// (the JSON-RPC error of the body, when it held an id-less one).
    Http {
        /// The HTTP status.
        status: u16,
        /// The JSON-RPC error object of the body, if any.
        error: Option<ErrorObject>,
        /// The start of the body.
        detail: String,
    },
    /// Authorization failed: OAuth discovery, registration, the authorization response or
    /// the token request (the detail says which step and why).
    Auth(String),
    /// A tool's `structuredContent` does not match the `outputSchema` the last `tools/list`
    /// gave for it (or is missing). Only with the `schema-validation` feature.
    StructuredContent {
        /// The tool called.
        tool: String,
        /// Each failure: the JSON Pointer of the failing value (`(root)` for the whole),
        /// then what is wrong with it.
        problems: Vec<String>,
    },
}

impl ClientError {
    /// The server's JSON-RPC error, when this is one.
    pub fn as_rpc(&self) -> Option<&ErrorObject> {
        match self {
            ClientError::Rpc(e) => Some(e),
            _ => None,
        }
    }

    /// The JSON-RPC error code, when the server answered with an error.
    pub fn code(&self) -> Option<i32> {
        match self {
            ClientError::Http { error: Some(e), .. } => Some(e.code),
            _ => self.as_rpc().map(|e| e.code),
        }
    }

    /// The HTTP status, when an HTTP server refused the request.
    pub fn http_status(&self) -> Option<u16> {
        match self {
            ClientError::Http { status, .. } => Some(*status),
            _ => None,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Rpc(e) => write!(f, "the server answered with an error: {e}"),
            ClientError::Timeout => f.write_str("the request timed out"),
            ClientError::Closed(None) => f.write_str("the connection closed"),
            ClientError::Closed(Some(d)) => write!(f, "the connection closed: {d}"),
            ClientError::ProcessExited(s) => write!(f, "the server process exited: {s}"),
            ClientError::Io(e) => write!(f, "transport error: {e}"),
            ClientError::InvalidResponse(e) => write!(f, "invalid response: {e}"),
            ClientError::InputRequired(_) => {
                f.write_str("the server kept asking for input past the round limit")
            }
            ClientError::UnsupportedVersion {
                requested,
                supported,
            } => write!(
                f,
                "the server does not support protocol version {requested} (supported: {})",
                supported.join(", ")
            ),
            ClientError::Unsupported(what) => write!(f, "not supported: {what}"),
            ClientError::ToolFailed(text) => write!(f, "the tool failed: {text}"),
            ClientError::Encode(e) => write!(f, "could not encode the request: {e}"),
            ClientError::Http {
                status,
                error: Some(e),
                ..
            } => write!(f, "HTTP {status}: {e}"),
            ClientError::Http { status, detail, .. } if detail.is_empty() => {
                write!(f, "HTTP {status}")
            }
            ClientError::Http { status, detail, .. } => write!(f, "HTTP {status}: {detail}"),
            ClientError::Auth(why) => write!(f, "authorization failed: {why}"),
            ClientError::StructuredContent { tool, problems } => write!(
                f,
                "the structuredContent of tool {tool} does not match its outputSchema: {}",
                problems.join("; ")
            ),
        }
    }
}

impl std::error::Error for ClientError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ClientError::Rpc(e) => Some(e),
            ClientError::Io(e) => Some(&**e),
            _ => None,
        }
    }
}

impl From<ErrorObject> for ClientError {
    fn from(e: ErrorObject) -> Self {
        ClientError::Rpc(e)
    }
}

impl From<std::io::Error> for ClientError {
    fn from(e: std::io::Error) -> Self {
        ClientError::Io(Arc::new(e))
    }
}
