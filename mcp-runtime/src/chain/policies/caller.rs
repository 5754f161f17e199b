//! [`CallerKey`]: who a call counts against.

use std::net::IpAddr;
use std::sync::Arc;

use crate::common::address::ClientAddress;
use crate::common::principal::Principal;
use crate::context::Context;

/// How a policy names the caller of a request: from the authenticated [`Principal`], the
/// client's address, the legacy session, or a function of the [`Context`], tried in the
/// order given with [`or`](Self::or). A request none of them names counts as
/// `"anonymous"` (one bucket shared by every such caller).
///
/// The default is the principal's subject, else the client's address (over HTTP), else
/// the session (stdio and other streams). Over HTTP a session does not name a caller: a
/// client that opens a session per call would get a fresh bucket each time, and a 2026
/// request has none. Behind a reverse proxy every caller has the proxy's address (one
/// bucket for all, the safe side): name the proxies with [`forwarded_for`](Self::forwarded_for).
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

    /// The client's IP address, prefixed `address:` (the port left out: a client that opens
    /// a connection per call is one caller), from the connection ([`ClientAddress`]; HTTP
    /// only).
    pub fn address() -> Self {
        Self::forwarded_for([])
    }

    /// The client's IP address as the reverse proxies `trusted` saw it
    /// ([`ClientAddress::behind`]): on a connection from one of them, the last
    /// `X-Forwarded-For` address that is not itself one of them; on any other connection
    /// the connection's own address. A header sent by anyone else is ignored: it could name
    /// anyone.
    pub fn forwarded_for(trusted: impl IntoIterator<Item = IpAddr>) -> Self {
        let trusted: Vec<IpAddr> = trusted.into_iter().collect();
        Self::from_fn(move |ctx| {
            let a = ctx.extensions().get::<ClientAddress>()?;
            Some(format!("address:{}", a.behind(&trusted)))
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
        Self::principal().or(Self::address()).or(Self::session())
    }
}

impl std::fmt::Debug for CallerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("CallerKey(..)")
    }
}
