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
    /// Where the `_meta` object stands (absent or `null`: `None`).
    pub(crate) meta_span: Option<Span>,
    pub(crate) members: Members,
}

impl Index {
    /// This index for the same text with the bytes from `at` on moved by `delta`.
    fn shifted(&self, at: usize, delta: isize) -> Index {
        let mut members = self.members;
        members.each(|s| *s = s.shifted(at, delta));
        Index {
            meta: self.meta.as_ref().map(|f| f.shifted(at, delta)),
            meta_span: self.meta_span.map(|s| s.shifted(at, delta)),
            members,
        }
    }
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

    /// The `_meta` object as sent, found by the one scan (made now if no reader has asked
    /// yet): `Some(None)` when the params have none (or a `null` one), `None` when the scan
    /// left the params to serde.
    ///
    /// ```
    /// use mcp_core::params::Params;
    /// use serde_json::value::RawValue;
    ///
    /// let raw: &RawValue = serde_json::from_str(r#"{"name":"add","_meta":{"k":1}}"#).unwrap();
    /// assert_eq!(Params::from(raw).meta().unwrap().unwrap().get(), r#"{"k":1}"#);
    /// ```
    pub fn meta(&self) -> Option<Option<&RawValue>> {
        let span = self.index()?.meta_span;
        // Its text alone is checked to become a `RawValue`.
        Some(span.and_then(|s| serde_json::from_str(&self.get().get()[s.start..s.end]).ok()))
    }

    /// These params with the value of top-level member `key` replaced by `value` (JSON
    /// text, such as a quoted name), every other byte as it was: how a server that forwards
    /// a request renames what it names (a mounted child's tool, a proxied upstream's)
    /// without decoding the rest (a tool's arguments). The new params keep the index, so
    /// nothing scans them again. `None` when the scan does not know where `key` stands
    /// (the keys [`member`](Self::member) answers for), the params lack it, or `value` is
    /// not one JSON value.
    ///
    /// ```
    /// use mcp_core::params::Params;
    /// use serde_json::value::RawValue;
    ///
    /// let raw: &RawValue = serde_json::from_str(r#"{"name":"ns_add","arguments":{"a":1}}"#).unwrap();
    /// let params = Params::from(raw);
    /// let child = params.with_member("name", r#""add""#).unwrap();
    /// assert_eq!(child.get().get(), r#"{"name":"add","arguments":{"a":1}}"#);
    /// assert_eq!(child.member("arguments"), Some(Some(r#"{"a":1}"#)));
    /// ```
    pub fn with_member(&self, key: &str, value: &str) -> Option<Params> {
        let index = self.index()?;
        let mut members = index.members;
        let span = (*members.slot(key)?)?;
        let text = self.get().get();
        let mut out = String::with_capacity(text.len() + value.len());
        out.push_str(&text[..span.start]);
        out.push_str(value);
        out.push_str(&text[span.end..]);
        // The whole text is checked once to become a `RawValue` (serde makes no unchecked
        // one); a value that is not one JSON value fails here.
        crate::passes::params_pass();
        let raw = RawValue::from_string(out).ok()?;
        let delta = value.len() as isize - (span.end - span.start) as isize;
        let mut shifted = index.shifted(span.end, delta);
        *shifted.members.slot(key).expect("a recorded key") = Some(Span {
            start: span.start,
            end: span.start + value.len(),
        });
        Some(Self(Arc::new(Inner {
            raw,
            index: OnceLock::from(Some(shifted)),
        })))
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
    /// Calls `f` on each recorded span.
    fn each(&mut self, mut f: impl FnMut(&mut Span)) {
        for s in [
            &mut self.name,
            &mut self.uri,
            &mut self.task_id,
            &mut self.arguments,
            &mut self.task,
            &mut self.input_responses,
            &mut self.request_state,
        ]
        .into_iter()
        .flatten()
        {
            f(s);
        }
    }

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

impl Span {
    /// The span in a text whose bytes from `at` on moved by `delta` (the span is before
    /// `at` or wholly after it).
    pub(crate) fn shifted(self, at: usize, delta: isize) -> Span {
        if self.start < at {
            return self;
        }
        Span {
            start: self.start.wrapping_add_signed(delta),
            end: self.end.wrapping_add_signed(delta),
        }
    }
}
