//! Failure isolation: whether an upstream is up, the task that watches it (a closed
//! connection, a ping unanswered) and brings it back, and [`Readiness`], the layer that
//! makes a down upstream's absence clear to the callers.
//!
//! [`FailureMode::Open`] (the default): a down upstream leaves the lists (one
//! `list_changed` per kind it offered), a call naming one of its items fails with an error
//! naming it, everything else is served, and it returns to the lists when it answers
//! again. [`FailureMode::Closed`]: while it is down, `initialize`, `server/discover` and
//! every list of a server it is part of fail, naming it (all or nothing).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use mcp_core::jsonrpc::{self, ErrorObject};
use tokio::sync::Notify;

use super::upstream::{FailureMode, ProxyError, RECONNECT_EVERY, Upstream};
use crate::chain::middleware::{Endpoint, Middleware, Next};
use crate::client::{Client, ClientError};
use crate::common::BoxFuture;
use crate::common::error::{HandlerResult, McpError};
use crate::context::Context;

/// How often the watcher looks at the connection (a closed one is noticed within this).
const TICK: Duration = Duration::from_millis(250);

/// The longest a ping of the upstream may take before it counts as down.
const PING_LIMIT: Duration = Duration::from_secs(5);

/// Whether the upstream is up, and what wakes its watcher.
#[derive(Default)]
pub(super) struct Health {
    /// Why it is down; `None` while it is up.
    down: Mutex<Option<String>>,
    /// Set when something sent upstream failed: the watcher pings at once.
    poked: AtomicBool,
    wake: Arc<Notify>,
}

impl Health {
    /// A health record of an upstream that is down for `why` (`None`: up).
    pub(super) fn new(down: Option<String>) -> Self {
        Self {
            down: Mutex::new(down),
            ..Self::default()
        }
    }

    /// Why the upstream is down; `None` while it is up.
    pub(super) fn down(&self) -> Option<String> {
        self.down.lock().expect("health lock").clone()
    }

    /// Asks the watcher to check the upstream now (something sent to it failed).
    pub(super) fn poke(&self) {
        self.poked.store(true, Ordering::Relaxed);
        self.wake.notify_one();
    }

    /// Marks the upstream up; whether it was down.
    pub(super) fn set_up(&self) -> bool {
        self.down.lock().expect("health lock").take().is_some()
    }

    /// Marks the upstream down for `why`; whether it was up.
    fn set_down(&self, why: String) -> bool {
        self.down
            .lock()
            .expect("health lock")
            .replace(why)
            .is_none()
    }
}

/// What the watcher and [`Readiness`] need of a proxy (the table implements it; this file
/// imports nothing of the table's).
pub(super) trait Watched: Send + Sync + 'static {
    /// Whether the upstream is up.
    fn health(&self) -> &Health;
    /// How to reach it.
    fn upstream(&self) -> &Upstream;
    /// The shared connection, if any.
    fn client(&self) -> Option<Client>;
    /// Whether a call is in flight on it.
    fn busy(&self) -> bool;
    /// Whether it answered within `within`, with no failure since.
    fn heard_within(&self, within: Duration) -> bool;
    /// Notes how a request ended.
    fn answered(&self, ok: bool);
    /// Closes the shared connection (a frozen child is stopped).
    fn drop_connection(&self);
    /// A new connection, the lists read again and installed, the upstream marked up.
    fn reconnect(self: Arc<Self>) -> BoxFuture<'static, Result<(), ProxyError>>;
    /// Failing closed: whether it answers now (a ping unless heard from recently).
    fn ready(self: Arc<Self>) -> BoxFuture<'static, Result<(), McpError>>;
    /// Failing open, going down: its items out of every server serving them.
    fn take_out(self: Arc<Self>);
    /// Whether its last lists offer the tool (`tools`) or prompt `asked`.
    fn offered(&self, tools: bool, asked: &str) -> bool;
}

/// Watches the upstream until the proxy is gone: every [`TICK`] whether its connection
/// closed, a ping when something failed or nothing was heard for the health interval; a
/// problem gets one reconnection at once (a crashed child started again never leaves the
/// lists), and when that fails the upstream is down, tried again after 1 s, 2 s, 4 s, …
/// up to the health interval.
pub(super) async fn watch(shared: Weak<dyn Watched>) {
    let Some(wake) = shared.upgrade().map(|s| s.health().wake.clone()) else {
        return;
    };
    let mut wait = TICK;
    let mut backoff = RECONNECT_EVERY;
    loop {
        tokio::select! {
            () = tokio::time::sleep(wait) => {}
            () = wake.notified() => {}
        }
        let Some(s) = shared.upgrade() else {
            return;
        };
        let every = s.upstream().health_every();
        if s.health().down().is_some() {
            match s.clone().reconnect().await {
                Ok(_) => {
                    backoff = RECONNECT_EVERY;
                    wait = TICK;
                }
                Err(e) => {
                    mark_down(&s, e.to_string());
                    wait = backoff;
                    backoff = (backoff * 2).min(every.max(RECONNECT_EVERY));
                }
            }
            continue;
        }
        wait = TICK;
        let Some(why) = problem(&s, every).await else {
            continue;
        };
        tracing::info!(upstream = %s.upstream().describe(), reason = %why,
            "the upstream stopped answering; reconnecting");
        s.drop_connection();
        if let Err(e) = s.clone().reconnect().await {
            mark_down(&s, e.to_string());
            wait = backoff;
        }
    }
}

/// What is wrong with the upstream's connection now, if anything: closed, or a ping
/// (when something failed, or nothing was heard for `every` and no call is in flight)
/// unanswered.
async fn problem(s: &Arc<dyn Watched>, every: Duration) -> Option<String> {
    let poked = s.health().poked.swap(false, Ordering::Relaxed);
    let Some(client) = s.client() else {
        return Some("not connected".into());
    };
    if client.is_closed() {
        return Some("its connection closed".into());
    }
    // Quiet only while nothing is in flight: a call in flight is bounded by its own
    // timeout, whose failure pokes (a server busy with a long call that answers pings
    // late is not taken for frozen).
    if !poked && (s.heard_within(every) || s.busy()) {
        return None;
    }
    let limit = s.upstream().call_timeout().min(PING_LIMIT);
    let pinged = tokio::time::timeout(limit, client.ping()).await;
    // Any answer, an error too (a server without `ping`), says it is alive.
    let alive = matches!(pinged, Ok(Ok(()) | Err(ClientError::Rpc(_))));
    s.answered(alive);
    match pinged {
        Ok(Ok(()) | Err(ClientError::Rpc(_))) => None,
        Ok(Err(e)) => Some(e.to_string()),
        Err(_) => Some(format!("no answer to a ping within {limit:?}")),
    }
}

/// Marks the upstream down for `why`: the first time, logged and (failing open) its items
/// taken out of every server serving them, each kind that changes announced once.
fn mark_down(s: &Arc<dyn Watched>, why: String) {
    let why = strip_upstream(&why);
    if !s.health().set_down(why.clone()) {
        return;
    }
    tracing::warn!(upstream = %s.upstream().describe(), reason = %why,
        "the upstream is down; its items are not served until it answers again");
    if s.upstream().failure_mode_now() == FailureMode::Open {
        s.clone().take_out();
    }
}

/// A [`ProxyError`](super::ProxyError)'s text without its "upstream `X` is unreachable: "
/// lead (the caller's error says that itself).
pub(super) fn strip_upstream(why: &str) -> String {
    match why.split_once(" is unreachable: ") {
        Some((lead, rest)) if lead.starts_with("upstream `") => rest.to_owned(),
        _ => why.to_owned(),
    }
}

/// The error a call to a down upstream gets.
pub(super) fn unavailable_error(upstream: &str, why: &str) -> McpError {
    McpError::Protocol(ErrorObject::new(
        jsonrpc::INTERNAL_ERROR,
        format!("upstream `{upstream}` is unavailable: {why}"),
    ))
}

/// The layer of [`Proxy::readiness`](super::Proxy::readiness): makes a down upstream's
/// absence clear. Failing open, a `tools/call` or `prompts/get` the server answers with
/// "Unknown tool" (or prompt) while the upstream is down, naming one of its items (as the
/// upstream names it, or as a mount prefixes it: a name ending with the upstream's after a
/// separator), gets "upstream `X` is unavailable: why" instead. Failing closed,
/// `initialize`, `server/discover` and the list methods ping the upstream first (unless it
/// answered within [`READY_FOR`](super::READY_FOR) with nothing failing since) and fail
/// with that error while it does not answer.
#[derive(Clone)]
pub struct Readiness(pub(super) Arc<dyn Watched>);

impl std::fmt::Debug for Readiness {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Readiness")
    }
}

impl Middleware for Readiness {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        guarded(std::slice::from_ref(&self.0), ctx, next).await
    }
}

/// The readiness layers of a changing set of proxies as one middleware: what a server whose
/// upstreams are attached and detached while it serves ([`Proxy::attach_under`],
/// [`Proxy::detach`]) adds once, then [`ReadinessSet::add`]s and [`ReadinessSet::remove`]s
/// each proxy's [`Readiness`] with it. Each does what it does alone.
///
/// [`Proxy::attach_under`]: super::Proxy::attach_under
/// [`Proxy::detach`]: super::Proxy::detach
#[derive(Clone, Default)]
pub struct ReadinessSet(Arc<std::sync::RwLock<Vec<Readiness>>>);

impl std::fmt::Debug for ReadinessSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReadinessSet")
    }
}

impl ReadinessSet {
    /// An empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a proxy's layer ([`Proxy::readiness`](super::Proxy::readiness)).
    pub fn add(&self, readiness: Readiness) {
        self.0.write().expect("readiness lock").push(readiness);
    }

    /// Takes out the layer of the same proxy as `readiness`.
    pub fn remove(&self, readiness: &Readiness) {
        let same = |r: &Readiness| std::ptr::addr_eq(Arc::as_ptr(&r.0), Arc::as_ptr(&readiness.0));
        (self.0.write().expect("readiness lock")).retain(|r| !same(r));
    }
}

impl Middleware for ReadinessSet {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let set: Vec<Arc<dyn Watched>> = (self.0.read().expect("readiness lock").iter())
            .map(|r| r.0.clone())
            .collect();
        guarded(&set, ctx, next).await
    }
}

/// What [`Readiness`] does, for each of `proxies`.
async fn guarded<E: Endpoint + ?Sized>(
    proxies: &[Arc<dyn Watched>],
    ctx: Context,
    next: Next<'_, E>,
) -> HandlerResult {
    let method = ctx.method();
    let listing = matches!(
        method,
        "initialize"
            | "server/discover"
            | "tools/list"
            | "prompts/list"
            | "resources/list"
            | "resources/templates/list"
    );
    if listing {
        for p in proxies {
            if p.upstream().failure_mode_now() == FailureMode::Closed {
                p.clone().ready().await?;
            }
        }
        return next.run(ctx).await;
    }
    let tools = match method {
        "tools/call" => true,
        "prompts/get" => false,
        _ => return next.run(ctx).await,
    };
    let asked = ctx
        .params()
        .and_then(|raw| serde_json::from_str::<Named>(raw.get()).ok());
    let out = next.run(ctx).await;
    let (Err(McpError::Protocol(e)), Some(asked)) = (&out, asked) else {
        return out;
    };
    let unknown = e.code == jsonrpc::INVALID_PARAMS
        && (e.message.starts_with("Unknown tool") || e.message.starts_with("Unknown prompt"));
    if !unknown {
        return out;
    }
    for p in proxies {
        if let Some(why) = p.health().down()
            && p.offered(tools, &asked.name)
        {
            return Err(unavailable_error(&p.upstream().describe(), &why));
        }
    }
    out
}

/// The `name` of a `tools/call` or `prompts/get`.
#[derive(serde::Deserialize)]
struct Named {
    name: String,
}

/// Whether `asked` is `own` as the upstream names it or as a mount prefixes it (ending with
/// it after a separator that is not a letter or digit).
pub(super) fn names_item(asked: &str, own: &str) -> bool {
    asked == own
        || asked
            .strip_suffix(own)
            .is_some_and(|lead| lead.chars().last().is_some_and(|c| !c.is_alphanumeric()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_item_is_named_as_itself_or_with_a_prefix_and_separator() {
        assert!(names_item("echo", "echo"));
        assert!(names_item("every_echo", "echo"));
        assert!(names_item("every.echo", "echo"));
        assert!(!names_item("pecho", "echo"));
        assert!(!names_item("echo2", "echo"));
        assert!(!names_item("_echo", "other"));
    }

    #[test]
    fn the_unreachable_lead_is_stripped_once() {
        assert_eq!(
            strip_upstream("upstream `x` is unreachable: connection refused"),
            "connection refused"
        );
        assert_eq!(strip_upstream("no answer"), "no answer");
    }
}
