//! [`CallerKey`]: who a call counts against.

use std::sync::Arc;

use crate::common::principal::Principal;
use crate::context::Context;

/// How a policy names the caller of a request: from the authenticated [`Principal`], the
/// legacy session, or a function of the [`Context`], tried in the order given with
/// [`or`](Self::or). A request none of them names counts as `"anonymous"` (one bucket shared
/// by every such caller).
///
/// The default is the principal's subject, else the session.
///
/// ```
/// use mcp_runtime::policies::CallerKey;
///
/// // The OAuth client a token was issued through, else the client's declared name.
/// let key = CallerKey::from_fn(|ctx| {
///     ctx.extensions().get::<mcp_runtime::Principal>().and_then(|p| p.client_id.clone())
/// })
/// .or(CallerKey::from_fn(|ctx| ctx.client_info().map(|i| i.name.clone())));
/// # let _ = key;
/// ```
#[derive(Clone)]
pub struct CallerKey(Arc<NameFn>);

/// A function that names the caller of a request, or does not.
type NameFn = dyn Fn(&Context) -> Option<String> + Send + Sync;

impl CallerKey {
    /// The subject of the request's [`Principal`] (set by the HTTP transport's
    /// authentication), prefixed `principal:`.
    pub fn principal() -> Self {
        Self::from_fn(|ctx| {
            let p = ctx.extensions().get::<Principal>()?;
            Some(format!("principal:{}", p.subject))
        })
    }

    /// The legacy session (stdio, in-memory, or a 2025-era HTTP session), prefixed
    /// `session:`. Its name is the one the session's tasks are scoped by, so a session kept
    /// in a shared `SessionStore` has the same name on every replica. 2026-07-28 requests
    /// have no session.
    pub fn session() -> Self {
        Self::from_fn(|ctx| {
            let session = ctx.session()?;
            let mut state = session.lock().ok()?;
            Some(format!("session:{}", state.task_scope()))
        })
    }

    /// Whatever `f` says (taken as is: prefix it if it could meet the other keys).
    pub fn from_fn(f: impl Fn(&Context) -> Option<String> + Send + Sync + 'static) -> Self {
        Self(Arc::new(f))
    }

    /// This key, or `other` when this one names no caller.
    pub fn or(self, other: CallerKey) -> Self {
        Self::from_fn(move |ctx| (self.0)(ctx).or_else(|| (other.0)(ctx)))
    }

    /// The caller of `ctx`.
    pub fn of(&self, ctx: &Context) -> String {
        (self.0)(ctx).unwrap_or_else(|| "anonymous".to_owned())
    }
}

impl Default for CallerKey {
    fn default() -> Self {
        Self::principal().or(Self::session())
    }
}

impl std::fmt::Debug for CallerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerKey(..)")
    }
}
