//! Logging: `LoggingLevel`, `logging/setLevel` (legacy) and `notifications/message`.
//!
//! In 2026-07-28 there is no `logging/setLevel`: the level comes per request from `_meta`
//! `io.modelcontextprotocol/logLevel`, and log notifications are deprecated.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::{Adapt, Meta, since};
use crate::version::ProtocolVersion;

/// Severity of a log message (RFC 5424), ordered from least (`Debug`) to most severe
/// (`Emergency`). An unknown level fails to deserialize.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// Detailed debugging information.
    Debug,
    /// Informational messages.
    Info,
    /// Normal but significant events.
    Notice,
    /// Warning conditions.
    Warning,
    /// Error conditions.
    Error,
    /// Critical conditions.
    Critical,
    /// Action must be taken immediately.
    Alert,
    /// The system is unusable.
    Emergency,
}

impl LoggingLevel {
    /// Every level, least severe first.
    pub const ALL: [LoggingLevel; 8] = [
        Self::Debug,
        Self::Info,
        Self::Notice,
        Self::Warning,
        Self::Error,
        Self::Critical,
        Self::Alert,
        Self::Emergency,
    ];

    /// The wire spelling, e.g. `"warning"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Debug => "debug",
            Self::Info => "info",
            Self::Notice => "notice",
            Self::Warning => "warning",
            Self::Error => "error",
            Self::Critical => "critical",
            Self::Alert => "alert",
            Self::Emergency => "emergency",
        }
    }

    /// Parses a wire spelling; `None` for anything else.
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|l| l.as_str() == s)
    }

    /// Whether a message at `self` passes a minimum level of `min`.
    pub fn passes(self, min: LoggingLevel) -> bool {
        self >= min
    }
}

impl fmt::Display for LoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The error of parsing an unknown logging level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownLoggingLevel(pub String);

impl fmt::Display for UnknownLoggingLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown logging level {:?}", self.0)
    }
}

impl std::error::Error for UnknownLoggingLevel {}

impl FromStr for LoggingLevel {
    type Err = UnknownLoggingLevel;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s).ok_or_else(|| UnknownLoggingLevel(s.to_owned()))
    }
}

/// Params of `logging/setLevel` (legacy revisions only).
///
/// `_meta` is defined on these params from 2025-11-25 only; it is dropped before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetLevelParams {
    /// The minimum level the client wants to receive.
    pub level: LoggingLevel,
    /// Request metadata (2025-11-25 in the schema).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl SetLevelParams {
    /// The method name.
    pub const METHOD: &'static str = "logging/setLevel";

    /// Params setting `level`.
    pub fn new(level: LoggingLevel) -> Self {
        Self { level, meta: None }
    }
}

impl Adapt for SetLevelParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.meta, rev, ProtocolVersion::V2025_11_25);
    }
}

/// Params of `notifications/message`, a log message from the server.
///
/// `_meta` is defined on these params from 2025-11-25; it is dropped before.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LoggingMessageParams {
    /// Severity.
    pub level: LoggingLevel,
    /// Name of the logger that emitted the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// Any JSON-serializable data (a string, an object, ...).
    pub data: serde_json::Value,
    /// Notification metadata (2025-11-25+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl LoggingMessageParams {
    /// The notification method name.
    pub const METHOD: &'static str = "notifications/message";

    /// A message at `level` carrying `data`.
    pub fn new(level: LoggingLevel, data: impl Into<serde_json::Value>) -> Self {
        Self {
            level,
            logger: None,
            data: data.into(),
            meta: None,
        }
    }
}

impl Adapt for LoggingMessageParams {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.meta, rev, ProtocolVersion::V2025_11_25);
    }
}
