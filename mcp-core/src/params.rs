//! A request's params as received: the raw JSON text, shared cheaply, and the index of
//! them that one scan builds: the `_meta` envelope's fields and where the top-level members
//! a transport or a dispatcher reads stand. Every reader of the same `Params` (the era
//! choice, the 2026 header checks, the envelope, the dispatcher) asks the index, so the
//! text is scanned once.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde_json::value::RawValue;

/// A request's raw params, cloned by reference.
///
/// The first reader that needs more than the text scans it once and keeps the index:
/// [`RequestMeta::from_params`](crate::meta::RequestMeta::from_params) reads the `_meta`
/// envelope from it (keeping a reference instead of a copy),
/// [`carries_modern_envelope`](crate::meta::params_carry_modern_envelope) the era,
/// [`RequestFields::of_params`](crate::headers::RequestFields::of_params) the fields
/// the 2026 headers mirror, and [`member`](Self::member) where a few top-level members stand
/// (`name`, `uri`, `taskId`, `arguments`, `task`, `inputResponses`, `requestState`), so
/// nothing passes over the params again. Params the scan cannot read for sure (a key written
/// with escapes, a repeated member) are left to serde by each reader. Rewritten params are
/// new `Params`, with nothing remembered.
///
/// ```
/// use mcp_core::meta::RequestMeta;
/// use mcp_core::params::Params;
/// use serde_json::value::RawValue;
///
/// let raw: &RawValue = serde_json::from_str(r#"{"name":"add","_meta":{"progressToken":1}}"#).unwrap();
/// let params = Params::from(raw);
/// assert_eq!(params.member("name"), None); // nothing read yet
/// let meta = RequestMeta::from_params(Some(&params)).unwrap().unwrap();
/// assert_eq!(meta.progress_token, Some(1.into()));
/// assert_eq!(params.member("name"), Some(Some(r#""add""#)));
/// assert_eq!(params.member("arguments"), Some(None));
/// ```
#[derive(Clone)]
pub struct Params(Arc<Inner>);

struct Inner {
    raw: Box<RawValue>,
    /// The one scan's index; `None` inside when the scan left the params to serde.
    index: OnceLock<Option<Index>>,
}

/// What the one scan of a params object found: the `_meta` fields (`None` when `_meta` is
/// absent or `null`) and the recorded members.
#[derive(Debug)]
pub(crate) struct Index {
    pub(crate) meta: Option<crate::meta::Fields>,
    pub(crate) members: Members,
}

impl Params {
    /// Params holding `raw` (moved, not copied).
    pub fn new(raw: Box<RawValue>) -> Self {
        Self(Arc::new(Inner {
            raw,
            index: OnceLock::new(),
        }))
    }

    /// The raw JSON text.
    pub fn get(&self) -> &RawValue {
        &self.0.raw
    }

    /// The raw text of top-level member `key` as the scan found it: `Some(None)` when the
    /// params have no such member, `Some(Some(text))` with its value's text. `None` when
    /// not known: `key` is not one of `name`, `uri`, `taskId`, `arguments`, `task`,
    /// `inputResponses`, `requestState`, no reader has asked for the index yet, or the scan
    /// left the params to serde (a key written with escapes, a repeated key): read the
    /// params then.
    pub fn member(&self, key: &str) -> Option<Option<&str>> {
        let mut members = self.0.index.get()?.as_ref()?.members;
        let span = *members.slot(key)?;
        Some(span.map(|s| &self.0.raw.get()[s.start..s.end]))
    }

    /// The index, scanning the params the first time it is asked for; `None` when the
    /// scan left them to serde (or they are no object).
    pub(crate) fn index(&self) -> Option<&Index> {
        self.0
            .index
            .get_or_init(|| crate::meta::scan_params(self.0.raw.get()))
            .as_ref()
    }
}

impl Deref for Params {
    type Target = RawValue;

    fn deref(&self) -> &RawValue {
        self.get()
    }
}

impl From<Box<RawValue>> for Params {
    fn from(raw: Box<RawValue>) -> Self {
        Self::new(raw)
    }
}

impl From<&RawValue> for Params {
    /// Params copied out of a frame.
    fn from(raw: &RawValue) -> Self {
        Self::new(raw.to_owned())
    }
}

impl fmt::Debug for Params {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Params").field(&self.get().get()).finish()
    }
}

/// The top-level params members [`Params::member`] answers for.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Members {
    name: Option<Span>,
    uri: Option<Span>,
    task_id: Option<Span>,
    arguments: Option<Span>,
    task: Option<Span>,
    input_responses: Option<Span>,
    request_state: Option<Span>,
}

impl Members {
    /// The place of member `key`, when it is one of those remembered.
    pub(crate) fn slot(&mut self, key: &str) -> Option<&mut Option<Span>> {
        Some(match key {
            "name" => &mut self.name,
            "uri" => &mut self.uri,
            "taskId" => &mut self.task_id,
            "arguments" => &mut self.arguments,
            "task" => &mut self.task,
            "inputResponses" => &mut self.input_responses,
            "requestState" => &mut self.request_state,
            _ => return None,
        })
    }
}

/// A byte range of a source text holding one member's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) start: usize,
    pub(crate) end: usize,
}
