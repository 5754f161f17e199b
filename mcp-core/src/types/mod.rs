//! Every MCP type of all five revisions in one Rust model.
//!
//! One struct per entity holds the union of the fields any revision defines. Serializing for
//! a revision goes through [`Adapt`]: it removes (or converts) what that revision does not
//! define, and fills what it requires (`resultType` and cache hints on 2026-07-28), then the
//! ordinary derived `Serialize` writes the value. Deserializing tolerates unknown fields.
//!
//! ```
//! use mcp_core::types::{to_value_for, Annotations, Role};
//! use mcp_core::version::ProtocolVersion as V;
//!
//! let a = Annotations {
//!     audience: Some(vec![Role::User]),
//!     priority: Some(0.5),
//!     last_modified: Some("2025-01-01T00:00:00Z".into()),
//! };
//! // `lastModified` arrived in 2025-06-18.
//! assert!(to_value_for(&a, V::V2025_03_26).get("lastModified").is_none());
//! assert!(to_value_for(&a, V::V2025_06_18).get("lastModified").is_some());
//! ```

use serde::{Deserialize, Serialize};

use crate::version::ProtocolVersion;

/// A `_meta` object (or any open JSON object).
pub type Meta = serde_json::Map<String, serde_json::Value>;

/// An opaque pagination cursor.
pub type Cursor = String;

/// A progress token: a string or an integer, kept with its JSON type.
pub type ProgressToken = crate::jsonrpc::RequestId;

/// Shapes a value for one revision before it is serialized.
///
/// Implementations drop what `rev` does not define, convert what it defines differently,
/// and fill what it requires. Adapting is idempotent.
pub trait Adapt {
    /// Shapes `self` for `rev`.
    fn adapt(&mut self, rev: ProtocolVersion);
}

impl<T: Adapt> Adapt for Option<T> {
    fn adapt(&mut self, rev: ProtocolVersion) {
        if let Some(v) = self {
            v.adapt(rev);
        }
    }
}

impl<T: Adapt> Adapt for Vec<T> {
    fn adapt(&mut self, rev: ProtocolVersion) {
        for v in self {
            v.adapt(rev);
        }
    }
}

impl<T: Adapt> Adapt for Box<T> {
    fn adapt(&mut self, rev: ProtocolVersion) {
        (**self).adapt(rev);
    }
}

/// Maps (such as [`InputRequests`]) adapt each value.
impl<K: Ord, T: Adapt> Adapt for std::collections::BTreeMap<K, T> {
    fn adapt(&mut self, rev: ProtocolVersion) {
        for v in self.values_mut() {
            v.adapt(rev);
        }
    }
}

/// The JSON-RPC envelope is the same in every revision: adapting a typed request adapts its
/// params.
impl<P: Adapt> Adapt for crate::jsonrpc::TypedRequest<P> {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.params.adapt(rev);
    }
}

/// Adapting a typed notification adapts its params.
impl<P: Adapt> Adapt for crate::jsonrpc::TypedNotification<P> {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.params.adapt(rev);
    }
}

/// Adapting a typed response adapts its result.
impl<R: Adapt> Adapt for crate::jsonrpc::TypedResponse<R> {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.result.adapt(rev);
    }
}

/// Serializes a copy of `value` shaped for `rev` into a `serde_json::Value`.
pub fn to_value_for<T: Adapt + Clone + Serialize>(
    value: &T,
    rev: ProtocolVersion,
) -> serde_json::Value {
    let mut v = value.clone();
    v.adapt(rev);
    serde_json::to_value(&v).expect("MCP types always serialize")
}

/// Shapes `value` for `rev` in place and serializes it to JSON text.
pub fn into_string_for<T: Adapt + Serialize>(mut value: T, rev: ProtocolVersion) -> String {
    value.adapt(rev);
    serde_json::to_string(&value).expect("MCP types always serialize")
}

/// Clears `field` when `rev` predates `since`.
#[inline]
pub(crate) fn since<T>(field: &mut Option<T>, rev: ProtocolVersion, since: ProtocolVersion) {
    if rev < since {
        *field = None;
    }
}

/// Clears `field` unless `rev` is exactly `only`.
#[inline]
pub(crate) fn only_in<T>(field: &mut Option<T>, rev: ProtocolVersion, only: ProtocolVersion) {
    if rev != only {
        *field = None;
    }
}

/// Fills `resultType: "complete"` on 2026-07-28 when absent; removes it on older revisions.
#[inline]
pub(crate) fn shape_result_type(rt: &mut Option<ResultType>, rev: ProtocolVersion) {
    if rev.era() == crate::version::Era::Modern {
        rt.get_or_insert(ResultType::Complete);
    } else {
        *rt = None;
    }
}

/// Fills the 2026 cache hints when absent (`ttlMs: 0`, `cacheScope: "private"`: the safe
/// choice, nothing is reused across users or kept); removes them on older revisions.
#[inline]
pub(crate) fn shape_cache(
    ttl_ms: &mut Option<u64>,
    scope: &mut Option<CacheScope>,
    rev: ProtocolVersion,
) {
    if rev.era() == crate::version::Era::Modern {
        ttl_ms.get_or_insert(0);
        scope.get_or_insert(CacheScope::Private);
    } else {
        *ttl_ms = None;
        *scope = None;
    }
}

/// Reads a `ttlMs` leniently: a negative value (which the schema forbids) is read as `0`
/// (stale at once) and a fractional one rounded down, rather than failing the whole result.
pub(crate) fn lenient_ttl<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    let n: Option<serde_json::Number> = Option::deserialize(d)?;
    Ok(n.map(|n| match (n.as_u64(), n.as_f64()) {
        (Some(u), _) => u,
        (None, Some(f)) if f > 0.0 => f as u64,
        _ => 0,
    }))
}

/// Which kind of result a 2026-07-28 response carries.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ResultType {
    /// The final result.
    Complete,
    /// A multi-round-trip interim result asking the client for input.
    InputRequired,
    /// A task handle (tasks extension).
    Task,
    /// A value defined by an extension this model does not know.
    Other(String),
}

impl ResultType {
    /// The wire spelling.
    pub fn as_str(&self) -> &str {
        match self {
            ResultType::Complete => "complete",
            ResultType::InputRequired => "input_required",
            ResultType::Task => "task",
            ResultType::Other(s) => s,
        }
    }
}

impl Serialize for ResultType {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for ResultType {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        Ok(match &*s {
            "complete" => ResultType::Complete,
            "input_required" => ResultType::InputRequired,
            "task" => ResultType::Task,
            other => ResultType::Other(other.to_owned()),
        })
    }
}

/// Who may reuse a cached 2026 result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// Any client may reuse it.
    Public,
    /// Only within the same authorization context.
    Private,
}

/// The sender of a message or the intended audience of content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The human user.
    User,
    /// The model.
    Assistant,
}

/// Hints for the client about how to use or display an object.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Annotations {
    /// Who the object is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// Importance from 0 (least) to 1 (most).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<f64>,
    /// ISO 8601 time of the last modification (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
}

impl Adapt for Annotations {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.last_modified, rev, ProtocolVersion::V2025_06_18);
    }
}

/// The theme an icon is drawn for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For light backgrounds.
    Light,
    /// For dark backgrounds.
    Dark,
}

/// An icon (2025-11-25+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Icon {
    /// An `https:` or `data:` URI.
    pub src: String,
    /// The image's MIME type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes such as `"48x48"` or `"any"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The theme the icon suits.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
}

/// The `icons` field is defined from 2025-11-25 on.
#[inline]
pub(crate) fn shape_icons(icons: &mut Option<Vec<Icon>>, rev: ProtocolVersion) {
    since(icons, rev, ProtocolVersion::V2025_11_25);
}

/// A result with no fields of its own (`ping`, `logging/setLevel`, `resources/subscribe`, ...).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmptyResult {
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
    /// 2026-07-28 result type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_type: Option<ResultType>,
}

impl Adapt for EmptyResult {
    fn adapt(&mut self, rev: ProtocolVersion) {
        shape_result_type(&mut self.result_type, rev);
    }
}

#[macro_use]
mod paginated;
mod capabilities;
pub use capabilities::*;
mod lifecycle;
pub use lifecycle::*;

mod content;
pub use content::*;
mod resources;
pub use resources::*;
mod tasks;
pub use tasks::*;
mod ext_tasks;
pub use ext_tasks::*;
mod ext_apps;
pub use ext_apps::*;
mod logging;
pub use logging::*;
pub mod methods;
mod notifications;
pub use notifications::*;
mod subscriptions;
pub use subscriptions::*;
mod tools;
pub use tools::*;
mod prompts;
mod tool_result_encoding;
pub use prompts::*;
mod completion;
pub use completion::*;
mod elicitation;
pub use elicitation::*;
mod roots;
pub use roots::*;
mod sampling;
pub use sampling::*;
mod mrtr;
pub use mrtr::*;
mod skills;
pub use skills::*;
mod tags;
pub use tags::{TAGS_KEY, check_tags, has_tag, set_tags, tags_in};
