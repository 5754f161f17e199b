//! [`OpenApiError`]: what is wrong with a document or a configuration, and where.

use std::fmt;

/// A document that cannot be served, or a configuration that does not fit it: where it was
/// read from, the place in it (a JSON Pointer such as `#/paths/~1pets/get`, or `line 4,
/// column 7` for text that does not parse; empty when the whole is meant) and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpenApiError {
    origin: String,
    place: String,
    message: String,
}

impl OpenApiError {
    pub(super) fn new(
        origin: impl Into<String>,
        place: impl Into<String>,
        message: impl Into<String>,
    ) -> Self {
        OpenApiError {
            origin: origin.into(),
            place: place.into(),
            message: message.into(),
        }
    }

    /// The file or URL the document came from (or what the caller named it).
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The place in the document: a JSON Pointer (`#/components/schemas/Pet`) or a line
    /// and column; empty for the document as a whole.
    pub fn place(&self) -> &str {
        &self.place
    }

    /// What is wrong.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for OpenApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.origin.is_empty(), self.place.is_empty()) {
            (false, false) => write!(f, "{}: {}: {}", self.origin, self.place, self.message),
            (false, true) => write!(f, "{}: {}", self.origin, self.message),
            (true, false) => write!(f, "{}: {}", self.place, self.message),
            (true, true) => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for OpenApiError {}
