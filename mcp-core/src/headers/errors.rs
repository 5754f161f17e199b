//! Why a request's headers are rejected: [`HeaderError`], HTTP `400` and JSON-RPC `-32020`.

use std::fmt;

use super::{HTTP_STATUS_BAD_REQUEST, SentinelError};
use crate::jsonrpc::{ErrorObject, HEADER_MISMATCH};

/// What is wrong with a header; see [`HeaderError`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HeaderErrorKind {
    /// A required header is absent.
    Missing,
    /// The header is given on more than one field line.
    Repeated,
    /// The value holds a byte outside printable ASCII (`0x20..=0x7E`) after trimming.
    InvalidCharacters,
    /// The value is sentinel-shaped but does not decode.
    MalformedEncoding(SentinelError),
    /// The (decoded) value differs from the body value.
    Mismatch {
        /// The header value as decoded.
        header_value: String,
        /// The body value: a string verbatim, anything else as JSON.
        body_value: String,
    },
    /// The header is present but the body carries no value for it (absent, `null`, or not
    /// a primitive).
    Unexpected {
        /// The header value as decoded.
        header_value: String,
    },
}

/// A rejected request header: HTTP `400` and JSON-RPC `-32020` ([`HEADER_MISMATCH`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderError {
    /// The header's canonical name, e.g. `Mcp-Name` or `Mcp-Param-Region`.
    pub header: String,
    /// What is wrong with it.
    pub kind: HeaderErrorKind,
}

impl HeaderError {
    /// An error about header `header`.
    pub fn new(header: impl Into<String>, kind: HeaderErrorKind) -> Self {
        Self {
            header: header.into(),
            kind,
        }
    }

    /// The HTTP status to answer with: always `400`.
    pub const fn http_status(&self) -> u16 {
        HTTP_STATUS_BAD_REQUEST
    }

    /// The JSON-RPC error: code `-32020`, this error's message, and
    /// `data: {"header": <name>}` so a client can tell which header was refused.
    pub fn to_error_object(&self) -> ErrorObject {
        ErrorObject::new(HEADER_MISMATCH, self.to_string())
            .with_data(serde_json::json!({ "header": self.header }))
    }
}

impl From<HeaderError> for ErrorObject {
    fn from(e: HeaderError) -> Self {
        e.to_error_object()
    }
}

/// Quotes a value for an error message: control characters escaped, long values cut.
fn quote(s: &str) -> String {
    const MAX: usize = 80;
    let mut out = String::from("'");
    for (n, c) in s.chars().enumerate() {
        if n == MAX {
            out.push('…');
            break;
        }
        if c == '\'' || c.is_control() {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out
}

impl fmt::Display for HeaderError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let h = &self.header;
        match &self.kind {
            HeaderErrorKind::Missing => {
                write!(f, "Header mismatch: required header {h} is missing")
            }
            HeaderErrorKind::Repeated => {
                write!(f, "Header mismatch: header {h} appears more than once")
            }
            HeaderErrorKind::InvalidCharacters => {
                write!(f, "Header mismatch: header {h} contains invalid characters")
            }
            HeaderErrorKind::MalformedEncoding(e) => {
                write!(
                    f,
                    "Header mismatch: header {h} has a malformed Base64 value: {e}"
                )
            }
            HeaderErrorKind::Mismatch {
                header_value,
                body_value,
            } => write!(
                f,
                "Header mismatch: {h} header value {} does not match body value {}",
                quote(header_value),
                quote(body_value)
            ),
            HeaderErrorKind::Unexpected { header_value } => write!(
                f,
                "Header mismatch: {h} header value {} has no corresponding value in the body",
                quote(header_value)
            ),
        }
    }
}

impl std::error::Error for HeaderError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::MCP_NAME;
    use serde_json::json;

    #[test]
    fn error_object_and_status() {
        let e = HeaderError::new(
            MCP_NAME,
            HeaderErrorKind::Mismatch {
                header_value: "foo".into(),
                body_value: "bar".into(),
            },
        );
        assert_eq!(e.http_status(), 400);
        let o = e.to_error_object();
        assert_eq!(o.code, -32020);
        assert_eq!(o.code, HEADER_MISMATCH);
        assert_eq!(
            o.message,
            "Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'"
        );
        assert_eq!(o.data, Some(json!({"header": "Mcp-Name"})));
        let messages = [
            (
                HeaderErrorKind::Missing,
                "Header mismatch: required header Mcp-Name is missing",
            ),
            (
                HeaderErrorKind::Repeated,
                "Header mismatch: header Mcp-Name appears more than once",
            ),
            (
                HeaderErrorKind::InvalidCharacters,
                "Header mismatch: header Mcp-Name contains invalid characters",
            ),
            (
                HeaderErrorKind::MalformedEncoding(SentinelError::InvalidBase64),
                "Header mismatch: header Mcp-Name has a malformed Base64 value: the payload is not valid standard Base64",
            ),
            (
                HeaderErrorKind::Unexpected {
                    header_value: "a\nb".into(),
                },
                "Header mismatch: Mcp-Name header value 'a\\nb' has no corresponding value in the body",
            ),
        ];
        for (kind, want) in messages {
            let e = HeaderError::new(MCP_NAME, kind);
            assert_eq!(e.to_string(), want);
            assert_eq!(ErrorObject::from(e).code, HEADER_MISMATCH);
        }
        // Long values are cut in messages.
        let long = "x".repeat(500);
        let e = HeaderError::new(MCP_NAME, HeaderErrorKind::Unexpected { header_value: long });
        assert!(e.to_string().len() < 200);
    }
}
