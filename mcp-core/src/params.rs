//! A request's params as received: the raw JSON text, shared cheaply, and the top-level
//! members the pass that read its `_meta` envelope found on the way.

use std::fmt;
use std::ops::Deref;
use std::sync::{Arc, OnceLock};

use serde_json::value::RawValue;

/// A request's raw params, cloned by reference.
///
/// [`RequestMeta::from_params`](crate::meta::RequestMeta::from_params) reads the `_meta`
/// envelope from them and keeps a reference instead of a copy; the same pass remembers where
/// a few top-level members stand (`name`, `arguments`, `task`, `inputResponses`,
/// `requestState`), so a dispatcher can read them without passing over the params again
/// ([`member`](Self::member)). Rewritten params are new `Params`, with nothing remembered.
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
    members: OnceLock<Members>,
}

impl Params {
    /// Params holding `raw` (moved, not copied).
    pub fn new(raw: Box<RawValue>) -> Self {
        Self(Arc::new(Inner {
            raw,
            members: OnceLock::new(),
        }))
    }

    /// The raw JSON text.
    pub fn get(&self) -> &RawValue {
        &self.0.raw
    }

    /// The raw text of top-level member `key` as the envelope pass found it: `Some(None)`
    /// when the params have no such member, `Some(Some(text))` with its value's text.
    /// `None` when not known: `key` is not one of `name`, `arguments`, `task`,
    /// `inputResponses`, `requestState`, no envelope was read from these params, or the
    /// pass left them to serde (a key written with escapes, a repeated key): read the
    /// params then.
    pub fn member(&self, key: &str) -> Option<Option<&str>> {
        let mut members = *self.0.members.get()?;
        let span = *members.slot(key)?;
        Some(span.map(|s| &self.0.raw.get()[s.start..s.end]))
    }

    /// Records where the members stand (the envelope pass found them; the first record
    /// stays, as every pass over the same text finds the same).
    pub(crate) fn record(&self, members: Members) {
        let _ = self.0.members.set(members);
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
