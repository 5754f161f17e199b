//! [`Proxy`]: an upstream's tools, prompts, resources and templates copied into a server's
//! run-time table (the same `Registry` a builder server edits through its
//! [`ServerHandle`]), each entry forwarding to the upstream; re-read on the upstream's
//! `list_changed`, so the server's own change notifications go out once per kind that
//! differs; taken out while the upstream is down and put back when it returns
//! (`health.rs`).

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, Instant};

use mcp_core::jsonrpc::{self, ErrorObject};
use mcp_core::types::{
    CompleteResult, Completion, CompletionReference, GetPromptResult, LoggingLevel, Prompt,
    ReadResourceResult, ResourceTemplate, ServerCapabilities, SubscriptionFilter, Tool,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::mpsc;

use super::callers::Callers;
use super::health::{Health, Readiness, Watched};
pub(super) use super::install::Lists;
use super::install::{Installed, Source, install, install_everywhere};
use super::meta;
use super::relay::{Change, Relay, RelayHandler};
use super::subscriptions::UpstreamSubscriptions;
use super::upstream::{FailureMode, ProxyError, RECONNECT_EVERY, Sharing, Upstream};
use crate::chain::middleware::Chain;
use crate::client::{Client, ClientError, Subscription};
use crate::common::BoxFuture;
use crate::common::error::McpError;
use crate::context::Context;
use crate::features::handle::{HandleError, ServerHandle, WeakHandle};
use crate::handler::ServerHandler;
use crate::handler::cell::Changes;
use crate::handler::forwarded::{Forwarded, ToolAnswer};
use crate::handler::resource_def::match_template;
use crate::server::{Server, ServerBuilder};

pub(super) struct Shared {
    pub(super) upstream: Upstream,
    relay: Arc<Relay>,
    /// The connection in use, replaced when a closed one is reconnected; none while the
    /// upstream is down.
    conn: std::sync::RwLock<Option<Conn>>,
    /// When the last reconnection was tried and why it failed (one at a time, at most one
    /// a second).
    reconnecting: tokio::sync::Mutex<Option<(Instant, String)>>,
    /// Whether the upstream is up, and what wakes its watcher.
    pub(super) health: Health,
    pub(super) lists: Mutex<Lists>,
    /// The servers serving this proxy's entries.
    pub(super) servers: Mutex<Vec<(WeakHandle, Installed)>>,
    /// The upstream's resource subscriptions, following the servers' clients'.
    pub(super) subscriptions: UpstreamSubscriptions,
    /// Each caller's own connection ([`Sharing::PerCaller`]); none when shared.
    callers: Option<Arc<Callers>>,
    /// When the upstream last answered (nanoseconds after `born`, `0`: not since the last
    /// failure), so that [`Readiness`] pings only an upstream not heard from recently.
    heard: AtomicU64,
    born: Instant,
}

/// One connection to the upstream.
struct Conn {
    client: Client,
    /// A 2026 upstream's `subscriptions/listen` stream (its list changes), kept open.
    _listen: Option<Drained>,
}

/// A listen stream kept open and its queue kept empty: the relay hears each notification
/// through the connection's handler, so the stream's own copies are dropped as they come
/// (unread, they would pile up for the connection's life). Closed when dropped (with the
/// connection, or when a new stream replaces it).
pub(super) struct Drained(tokio::task::JoinHandle<()>);

impl Drained {
    /// Drains `stream`; `on_end` runs if the stream ends by itself.
    pub(super) fn new(mut stream: Subscription, on_end: impl FnOnce() + Send + 'static) -> Self {
        Drained(tokio::spawn(async move {
            while stream.next().await.is_some() {}
            on_end();
        }))
    }
}

impl Drop for Drained {
    fn drop(&mut self) {
        // Dropping the task drops the stream, which cancels it upstream.
        self.0.abort();
    }
}

/// How long after the upstream's last answer [`Readiness`] trusts it without a ping.
pub const READY_FOR: Duration = Duration::from_secs(1);

/// An upstream server served as if it were local: connect with [`Proxy::connect`] (or
/// [`Proxy::start`], which does not fail when the upstream is down), then serve
/// [`Proxy::server`] alone or mount it beside local entries (add [`Proxy::readiness`] to
/// the parent, so a call to a down upstream's item names the upstream).
///
/// A failing upstream (unreachable, crashed, frozen) is isolated: failing open (the
/// default, [`FailureMode`](super::FailureMode)) its items leave the lists, one
/// `list_changed` per kind, while everything else is served, and return when it answers
/// again (it is tried after 1 s, 2 s, 4 s, … up to [`Upstream::health_interval`]).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use mcp_runtime::Server;
/// use mcp_runtime::proxy::{Proxy, Upstream};
///
/// let weather = Proxy::start(Upstream::stdio("weather-server", ["--stdio"])).await;
/// let gateway = Server::builder("gateway", "1.0.0")
///     .mount("weather", weather.server())
///     .middleware(weather.readiness())
///     .build();
/// gateway.serve_stdio().await?;
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Proxy {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Proxy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Proxy")
            .field("upstream", &self.shared.upstream.describe())
            .finish_non_exhaustive()
    }
}

impl Proxy {
    /// Connects to `upstream` and reads everything it offers. Fails, building nothing,
    /// when the upstream cannot be reached, its handshake fails, or a list it declares
    /// cannot be read. [`Proxy::start`] starts with the upstream down instead.
    pub async fn connect(upstream: Upstream) -> Result<Proxy, ProxyError> {
        let (tx, rx) = mpsc::unbounded_channel();
        let relay = Relay::new(tx);
        let opened = open(&upstream, &relay).await?;
        Ok(Proxy::assemble(upstream, relay, rx, Ok(opened)))
    }

    /// Like [`Proxy::connect`], but an upstream that cannot be reached or listed now does
    /// not fail it: the proxy starts with the upstream down (nothing of it listed; its
    /// server named `proxy`), logs why, and keeps trying in the background, putting the
    /// upstream's items in the lists (announced) when it answers. What a gateway whose
    /// upstreams may be down at its start wants.
    pub async fn start(upstream: Upstream) -> Proxy {
        let (tx, rx) = mpsc::unbounded_channel();
        let relay = Relay::new(tx);
        let opened = open(&upstream, &relay).await;
        if let Err(e) = &opened {
            tracing::warn!(upstream = %upstream.describe(), error = %e,
                "the upstream is down at start; its items are served when it answers");
        }
        Proxy::assemble(upstream, relay, rx, opened)
    }

    fn assemble(
        upstream: Upstream,
        relay: Arc<Relay>,
        rx: mpsc::UnboundedReceiver<Change>,
        opened: Result<(Conn, Lists), ProxyError>,
    ) -> Proxy {
        let (conn, lists, down) = match opened {
            Ok((conn, lists)) => (Some(conn), lists, None),
            Err(e) => (
                None,
                Lists::default(),
                Some(super::health::strip_upstream(&e.to_string())),
            ),
        };
        let (subscriptions, pokes) = UpstreamSubscriptions::new();
        let callers =
            (upstream.sharing_now() == Sharing::PerCaller).then(|| Callers::new(upstream.clone()));
        let shared = Arc::new(Shared {
            upstream,
            relay,
            conn: std::sync::RwLock::new(conn),
            reconnecting: tokio::sync::Mutex::new(None),
            health: Health::new(down),
            lists: Mutex::new(lists),
            servers: Mutex::new(Vec::new()),
            subscriptions,
            callers,
            heard: AtomicU64::new(0),
            born: Instant::now(),
        });
        tokio::spawn(follow_changes(Arc::downgrade(&shared), rx));
        tokio::spawn(super::subscriptions::follow(Arc::downgrade(&shared), pokes));
        let watched: Arc<dyn Watched> = shared.clone();
        tokio::spawn(super::health::watch(Arc::downgrade(&watched)));
        Proxy { shared }
    }

    /// The upstream's tools as last listed (none if it has never answered).
    pub fn tools(&self) -> Vec<Tool> {
        self.shared.lists.lock().expect("lists lock").tools.clone()
    }

    /// The upstream's prompts as last listed (none if it has never answered).
    pub fn prompts(&self) -> Vec<Prompt> {
        self.shared
            .lists
            .lock()
            .expect("lists lock")
            .prompts
            .clone()
    }

    /// Why the upstream is down (unreachable, its connection closed, a ping unanswered),
    /// or `None` while it is up.
    pub fn down(&self) -> Option<String> {
        self.shared.health.down()
    }

    /// The shared connection to the upstream now (a new one after a reconnection): the one
    /// the lists are read on, and, unless [`Sharing::PerCaller`], every call's; `None`
    /// while the upstream is down.
    pub fn client(&self) -> Option<Client> {
        self.shared.client()
    }

    /// A builder of the server that serves this upstream: named as the upstream names
    /// itself, with its instructions, change notifications on, and [`Proxy::readiness`]
    /// (boxed, inside any middleware added to the builder, which stays a plain
    /// `ServerBuilder`).
    /// When a tool of the upstream may run as a task (its `execution.taskSupport`), the
    /// server has a task engine of its own (an [`InMemoryTaskStore`]; set another with
    /// [`ServerBuilder::task_store`]): it declares tasks as the upstream does, and a call
    /// made as a task runs as one here, forwarded upstream as a plain call.
    /// Build it, then [`Proxy::attach`] the entries (or use [`Proxy::server`]).
    ///
    /// [`InMemoryTaskStore`]: crate::tasks::InMemoryTaskStore
    pub fn builder(&self) -> ServerBuilder {
        let session = self.shared.client().map(|c| c.session());
        let (name, version) = match session.as_ref().and_then(|s| s.server_info.as_ref()) {
            Some(i) => (i.name.clone(), i.version.clone()),
            None => ("proxy".to_owned(), env!("CARGO_PKG_VERSION").to_owned()),
        };
        let mut b = Server::builder(name, version)
            .subscriptions(true)
            .inner_middleware(self.readiness());
        if crate::features::tasks::methods::any_task_tool(&self.tools()) {
            // The upstream's tool definitions declare task support: a server that lists
            // them without running tasks would declare what it refuses.
            b = b.task_store(crate::features::tasks::InMemoryTaskStore::default());
        }
        match session.and_then(|s| s.instructions) {
            Some(text) => b.instructions(text),
            None => b,
        }
    }

    /// A server offering everything the upstream offers, forwarding each call; serve it
    /// alone or mount it into another.
    pub fn server(&self) -> Server {
        let server = self.builder().build();
        self.attach(&server)
            .expect("a fresh builder server takes every entry");
        server
    }

    /// Adds the upstream's entries to `server`'s run-time table (beside what it has) and
    /// keeps them in step with the upstream's lists while the server lives. Fails when a
    /// name or URI clashes with one the server's own table declares.
    pub fn attach<C: Chain + 'static, H: ServerHandler>(
        &self,
        server: &Server<C, H>,
    ) -> Result<(), HandleError> {
        self.attach_as(server, None)
    }

    /// [`Proxy::attach`] under a namespace, as a mount names a child's entries: tools and
    /// prompts `namespace` + `separator` + name, resources and templates with `namespace`
    /// as the first path segment of their URIs (`file:///a` → `file:///ns/a`), resource
    /// updates and subscriptions mapped both ways. Unlike a mount, it may be done (and
    /// undone, [`Proxy::detach`]) while the server serves: what a gateway reloading its
    /// configuration needs.
    pub fn attach_under<C: Chain + 'static, H: ServerHandler>(
        &self,
        server: &Server<C, H>,
        namespace: impl Into<String>,
        separator: impl Into<String>,
    ) -> Result<(), HandleError> {
        let under = super::install::Under {
            namespace: namespace.into(),
            separator: separator.into(),
        };
        self.attach_as(server, Some(under))
    }

    /// Takes the upstream's entries out of `server` (each kind that changes announced
    /// once) and stops keeping them in step. Whether the server held them.
    pub fn detach<C: Chain + 'static, H: ServerHandler>(&self, server: &Server<C, H>) -> bool {
        let handle = server.handle();
        let mut servers = self.shared.servers.lock().expect("servers lock");
        let same = |w: &WeakHandle| {
            w.upgrade()
                .is_some_and(|h| Arc::ptr_eq(&h.notifier, &handle.notifier))
        };
        let Some(i) = servers.iter().position(|(w, _)| same(w)) else {
            return false;
        };
        let (_, mut installed) = servers.remove(i);
        drop(servers);
        if let Err(e) = install(&self.shared, &handle, &Lists::default(), &mut installed) {
            tracing::warn!(error = %e, "the upstream's entries could not be taken out");
        }
        self.shared.subscriptions.poke();
        true
    }

    fn attach_as<C: Chain + 'static, H: ServerHandler>(
        &self,
        server: &Server<C, H>,
        under: Option<super::install::Under>,
    ) -> Result<(), HandleError> {
        let handle = server.handle();
        let lists = self.shared.served();
        let mut installed = Installed::new(under);
        install(&self.shared, &handle, &lists, &mut installed)?;
        (self.shared.servers.lock().expect("servers lock")).push((handle.downgrade(), installed));
        let watcher = (self.shared.subscriptions).watcher(self.shared.upstream.call_timeout());
        // What the server's clients subscribe to already is subscribed upstream in the
        // background.
        drop(handle.notifier.interest.watch(watcher));
        Ok(())
    }

    /// The layer that makes the upstream's being down clear to callers (see
    /// [`Readiness`]): failing open (the default), a call naming one of its items while it
    /// is down fails with "upstream `X` is unavailable: why" rather than "Unknown tool";
    /// failing closed, `initialize`, `server/discover` and the list methods fail so while
    /// it does not answer a ping (skipped when it answered within [`READY_FOR`] and nothing
    /// sent to it has failed since), instead of serving a list without it.
    /// [`Proxy::builder`] adds it; add it to a server that mounts this proxy's server too.
    pub fn readiness(&self) -> Readiness {
        Readiness(self.shared.clone())
    }
}

impl Shared {
    /// Whether a call is in flight on the shared connection.
    pub(super) fn busy(&self) -> bool {
        self.relay.busy()
    }

    /// The shared connection; `None` while the upstream is down.
    pub(super) fn client(&self) -> Option<Client> {
        (self.conn.read().expect("conn lock").as_ref()).map(|c| c.client.clone())
    }

    /// What the servers serving this proxy are given: the upstream's lists, or nothing
    /// while it is down and failing open.
    fn served(&self) -> Lists {
        let open = self.upstream.failure_mode_now() == FailureMode::Open;
        if open && self.health.down().is_some() {
            return Lists::default();
        }
        self.lists.lock().expect("lists lock").clone()
    }

    /// Whether the upstream, as last listed, offers the tool (`tools`) or prompt a caller
    /// asked for by `asked` (its name, or a mount's prefixed one).
    pub(super) fn offered(&self, tools: bool, asked: &str) -> bool {
        let lists = self.lists.lock().expect("lists lock");
        match tools {
            true => (lists.tools.iter()).any(|t| super::health::names_item(asked, &t.name)),
            false => (lists.prompts.iter()).any(|p| super::health::names_item(asked, &p.name)),
        }
    }

    /// The resources the servers serving this proxy have clients subscribed to, of those
    /// the upstream offers (a listed resource, or a URI one of its templates matches).
    pub(super) fn wanted(&self) -> BTreeSet<String> {
        let held: BTreeSet<String> = (self.servers.lock().expect("servers lock").iter())
            .filter_map(|(h, installed)| Some((h.upgrade()?, installed.under.clone())))
            .flat_map(|(h, under)| {
                let held = h.notifier.interest.held();
                held.into_iter().filter_map(move |uri| match &under {
                    Some(u) => crate::server::mount::child_uri(&u.namespace, &uri),
                    None => Some(uri),
                })
            })
            .collect();
        let lists = self.lists.lock().expect("lists lock");
        let upstream_has = |uri: &str| {
            lists.resources.iter().any(|r| r.uri == uri)
                || (lists.templates.iter()).any(|t| match_template(&t.uri_template, uri).is_some())
        };
        held.into_iter().filter(|uri| upstream_has(uri)).collect()
    }

    /// The connection to use: the current one, or, when it has closed (a child process
    /// that exited, a stream that ended) or the upstream is down, a new one
    /// ([`Shared::reconnect`]).
    async fn live_client(self: &Arc<Self>) -> Result<Client, ProxyError> {
        match self.client() {
            Some(client) if !client.is_closed() => Ok(client),
            _ => self.reconnect().await,
        }
    }

    /// Closes the shared connection (a frozen child is stopped), so that the next use
    /// connects anew.
    pub(super) fn drop_connection(&self) {
        let old = self.conn.write().expect("conn lock").take();
        if let Some(old) = old {
            tokio::spawn(async move {
                let _ = old.client.shutdown().await;
            });
        }
    }

    /// A new connection when the current one has closed or there is none, with the lists
    /// read again into every server serving them (what differs announced) and the
    /// upstream marked up. One attempt at a time; a failed one is not repeated within
    /// [`RECONNECT_EVERY`] (its error is given again).
    pub(super) async fn reconnect(self: &Arc<Self>) -> Result<Client, ProxyError> {
        let mut last = self.reconnecting.lock().await;
        if let Some(client) = self.client().filter(|c| !c.is_closed()) {
            // Reconnected while this one waited.
            return Ok(client);
        }
        if let Some((at, why)) = last.as_ref()
            && at.elapsed() < RECONNECT_EVERY
        {
            return Err(ProxyError::Unreachable {
                upstream: self.upstream.describe(),
                reason: why.clone(),
            });
        }
        let (conn, lists) = match open(&self.upstream, &self.relay).await {
            Ok(opened) => opened,
            Err(e) => {
                let why = match &e {
                    ProxyError::Unreachable { reason, .. } => reason.clone(),
                    other => other.to_string(),
                };
                *last = Some((Instant::now(), why));
                return Err(e);
            }
        };
        *last = None;
        let client = conn.client.clone();
        let old = self.conn.write().expect("conn lock").replace(conn);
        if let Some(old) = old {
            tokio::spawn(async move {
                let _ = old.client.shutdown().await;
            });
        }
        *self.lists.lock().expect("lists lock") = lists.clone();
        if self.health.set_up() {
            tracing::info!(upstream = %self.upstream.describe(), "the upstream answers again");
        } else {
            tracing::info!(upstream = %self.upstream.describe(), "reconnected to the upstream");
        }
        self.answered(true);
        // What differs from before is announced, nothing else.
        install_everywhere(self, &lists, Changes::default());
        Ok(client)
    }

    /// The caller's own connection when callers do not share one and `ctx` names a
    /// caller; `None`: the shared connection serves the call.
    async fn caller_lease(
        &self,
        ctx: &Context,
    ) -> Option<Result<super::callers::Lease, ProxyError>> {
        self.callers.as_ref()?.lease(ctx).await
    }

    /// Sends `method` upstream with `params` and the `raw` members on behalf of `ctx`: the
    /// upstream's result as it wrote it, and the revision it speaks.
    async fn forward(
        self: &Arc<Self>,
        ctx: &Context,
        method: &str,
        params: Map<String, Value>,
        raw: &[(&str, &RawValue)],
    ) -> Result<(Box<RawValue>, ProtocolVersion), McpError> {
        let timeout = self.upstream.call_timeout();
        let answer = match self.caller_lease(ctx).await {
            Some(lease) => {
                let lease = lease.map_err(unavailable)?;
                let conn = lease.conn();
                let version = conn.client.protocol_version();
                (conn.relay)
                    .forward(&conn.client, ctx, timeout, method, params, raw)
                    .await
                    .map(|r| (r, version))
            }
            None => {
                let client = self.live_client().await.map_err(unavailable)?;
                let version = client.protocol_version();
                (self.relay)
                    .forward(&client, ctx, timeout, method, params, raw)
                    .await
                    .map(|r| (r, version))
            }
        };
        self.answered(answer.is_ok());
        if matches!(&answer, Err(e) if !matches!(e, McpError::Cancelled)) {
            // Whether the upstream still answers is checked at once.
            self.health.poke();
        }
        answer
    }

    /// [`forward`](Self::forward), the result decoded as `T`.
    async fn forward_typed<T: DeserializeOwned>(
        self: &Arc<Self>,
        ctx: &Context,
        method: &'static str,
        params: Map<String, Value>,
    ) -> Result<T, McpError> {
        let (raw, _) = self.forward(ctx, method, params, &[]).await?;
        serde_json::from_str(raw.get()).map_err(|e| invalid_result(method, e))
    }

    /// `tools/call`: the caller's arguments and the `_meta` that crosses, sent as they came
    /// (the arguments never decoded); the upstream's answer as it wrote it, which the
    /// serving dispatcher re-stamps, or translates when the caller speaks another revision.
    pub(super) async fn call_tool(
        self: &Arc<Self>,
        ctx: Context,
        name: &str,
        args: Option<Box<RawValue>>,
    ) -> Result<ToolAnswer, McpError> {
        let mut p = params_with_meta(&ctx);
        p.insert("name".into(), name.into());
        let arguments = args.as_deref().unwrap_or(&EMPTY_OBJECT);
        let (raw, version) =
            (self.forward(&ctx, "tools/call", p, &[("arguments", arguments)])).await?;
        Ok(ToolAnswer::Forwarded(Forwarded {
            raw,
            version: Some(version),
            drop: meta::CONNECTION_OWNED,
            invalid: |e| invalid_result("tools/call", e),
        }))
    }

    pub(super) async fn get_prompt(
        self: &Arc<Self>,
        ctx: Context,
        name: &str,
        args: HashMap<String, String>,
    ) -> Result<GetPromptResult, McpError> {
        let mut p = params_with_meta(&ctx);
        p.insert("name".into(), name.into());
        if !args.is_empty() {
            let args = args
                .into_iter()
                .map(|(k, v)| (k, Value::String(v)))
                .collect();
            p.insert("arguments".into(), Value::Object(args));
        }
        let mut r: GetPromptResult = self.forward_typed(&ctx, "prompts/get", p).await?;
        meta::strip(&mut r.meta);
        r.result_type = None;
        Ok(r)
    }

    pub(super) async fn read(
        self: &Arc<Self>,
        ctx: Context,
        uri: String,
    ) -> Result<ReadResourceResult, McpError> {
        let mut p = params_with_meta(&ctx);
        p.insert("uri".into(), uri.into());
        let mut r: ReadResourceResult = self.forward_typed(&ctx, "resources/read", p).await?;
        meta::strip(&mut r.meta);
        r.result_type = None;
        Ok(r)
    }

    /// `completion/complete`, forwarded as the caller sent it (the `ref` names the
    /// upstream's prompt or template, or is replaced by `upstream_ref`), `_meta` as it
    /// crosses.
    /// `upstream_ref`: the upstream's name of the reference, when the server names it
    /// otherwise (a prefix).
    pub(super) async fn complete(
        self: &Arc<Self>,
        ctx: Context,
        upstream_ref: Option<&CompletionReference>,
    ) -> Result<Completion, McpError> {
        let mut p: Map<String, Value> = match ctx.params() {
            Some(raw) => serde_json::from_str(raw.get())
                .map_err(|_| McpError::invalid_params("Invalid params"))?,
            None => Map::new(),
        };
        if let Some(r) = upstream_ref {
            let r = serde_json::to_value(r).map_err(|e| McpError::internal(e.to_string()))?;
            p.insert("ref".into(), r);
        }
        p.remove("_meta");
        p.extend(params_with_meta(&ctx));
        let r: CompleteResult = self.forward_typed(&ctx, "completion/complete", p).await?;
        Ok(r.completion)
    }

    /// Notes how a request sent upstream ended: an answer, or a failure (after which the
    /// next [`Shared::ready`] pings).
    pub(super) fn answered(&self, ok: bool) {
        // At least 1: `0` means "not since the last failure".
        let now = if ok {
            (self.born.elapsed().as_nanos() as u64).max(1)
        } else {
            0
        };
        self.heard.store(now, Ordering::Relaxed);
    }

    /// Whether the upstream answered within `within`, with no failure since.
    pub(super) fn heard_within(&self, within: Duration) -> bool {
        let at = self.heard.load(Ordering::Relaxed);
        at != 0
            && (self.born.elapsed().as_nanos() as u64).saturating_sub(at) < within.as_nanos() as u64
    }

    /// Whether the upstream answers now: at once when it answered within [`READY_FOR`] and
    /// nothing failed since, else a ping (bounded by the call timeout and 5 s); a clear
    /// error when not.
    pub(super) async fn ready(self: &Arc<Self>) -> Result<(), McpError> {
        let limit = self.upstream.call_timeout().min(Duration::from_secs(5));
        let client = self.live_client().await.map_err(unavailable)?;
        if !client.is_closed() && self.heard_within(READY_FOR) {
            return Ok(());
        }
        let pinged = tokio::time::timeout(limit, client.ping()).await;
        // Any answer, an error too (a server without `ping`), says it is alive.
        let alive = matches!(pinged, Ok(Ok(()) | Err(ClientError::Rpc(_))));
        self.answered(alive);
        let why = match pinged {
            Ok(Ok(()) | Err(ClientError::Rpc(_))) => return Ok(()),
            Ok(Err(e)) => e.to_string(),
            Err(_) => format!("no answer to a ping within {limit:?}"),
        };
        self.health.poke();
        Err(super::health::unavailable_error(
            &self.upstream.describe(),
            &why,
        ))
    }
}

/// `{}`: the arguments of a call that sent none.
static EMPTY_OBJECT: std::sync::LazyLock<Box<RawValue>> =
    std::sync::LazyLock::new(|| RawValue::from_string("{}".into()).expect("an object"));

/// An upstream result that does not decode: `-32603` saying so.
fn invalid_result(method: &str, e: serde_json::Error) -> McpError {
    McpError::Protocol(ErrorObject::new(
        jsonrpc::INTERNAL_ERROR,
        format!("the upstream server's {method} result is invalid: {e}"),
    ))
}

/// A proxy error as the caller sees it: `-32603` naming the upstream and why.
fn unavailable(e: ProxyError) -> McpError {
    McpError::Protocol(ErrorObject::new(
        jsonrpc::INTERNAL_ERROR,
        match e {
            ProxyError::Unreachable { upstream, reason } => {
                format!("upstream `{upstream}` is unavailable: {reason}")
            }
            other => other.to_string(),
        },
    ))
}

/// Connects to `upstream` and reads everything it offers: a legacy upstream that logs is
/// set to `debug` (each caller's own level filters), a 2026 one gets a listen stream for
/// its list changes.
async fn open(upstream: &Upstream, relay: &Arc<Relay>) -> Result<(Conn, Lists), ProxyError> {
    let client = upstream.connect(RelayHandler(relay.clone())).await?;
    let caps = client.server_capabilities();
    let lists = match read_lists(&client, &caps, upstream).await {
        Ok(l) => l,
        Err(e) => {
            let _ = client.shutdown().await;
            return Err(e);
        }
    };
    let modern = client.protocol_version().era() == Era::Modern;
    if !modern
        && caps.logging.is_some()
        && let Err(e) = client.set_log_level(LoggingLevel::Debug).await
    {
        tracing::debug!(error = %e, "the upstream refused logging/setLevel");
    }
    let listen = if modern {
        // 2026 servers announce list changes on a listen stream only.
        let filter = SubscriptionFilter {
            tools_list_changed: caps.tools.as_ref().map(|_| true),
            prompts_list_changed: caps.prompts.as_ref().map(|_| true),
            resources_list_changed: caps.resources.as_ref().map(|_| true),
            ..Default::default()
        };
        match client.listen(filter).await {
            Ok(s) => Some(Drained::new(s, || {})),
            Err(e) => {
                tracing::debug!(error = %e, "upstream offers no listen stream: its list changes are not followed");
                None
            }
        }
    } else {
        None
    };
    Ok((
        Conn {
            client,
            _listen: listen,
        },
        lists,
    ))
}

/// A params object holding the `_meta` that crosses the hop.
fn params_with_meta(ctx: &Context) -> Map<String, Value> {
    let mut p = Map::new();
    if let Some(m) = meta::forwarded(ctx) {
        p.insert("_meta".into(), Value::Object(m));
    }
    p
}

/// Everything `client`'s server offers, per its capabilities.
async fn read_lists(
    client: &Client,
    caps: &ServerCapabilities,
    upstream: &Upstream,
) -> Result<Lists, ProxyError> {
    let failed = |method: &'static str| {
        move |error: ClientError| ProxyError::Listing {
            upstream: upstream.describe(),
            method,
            error,
        }
    };
    let mut lists = Lists::default();
    if caps.tools.is_some() {
        lists.tools = client
            .list_all_tools()
            .await
            .map_err(failed("tools/list"))?;
    }
    if caps.prompts.is_some() {
        lists.prompts = (client.list_all_prompts().await).map_err(failed("prompts/list"))?;
    }
    if caps.resources.is_some() {
        lists.resources = (client.list_all_resources().await).map_err(failed("resources/list"))?;
        lists.templates = all_templates(client)
            .await
            .map_err(failed("resources/templates/list"))?;
    }
    Ok(lists)
}

async fn all_templates(client: &Client) -> Result<Vec<ResourceTemplate>, ClientError> {
    let mut all = Vec::new();
    let mut cursor = None;
    loop {
        let page = client.list_resource_templates(cursor).await?;
        all.extend(page.resource_templates);
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => return Ok(all),
        }
    }
}

/// Follows the upstream's announced changes until the proxy is gone: re-reads the lists
/// that changed into every server serving them, and republishes `resources/updated`.
async fn follow_changes(shared: Weak<Shared>, mut rx: mpsc::UnboundedReceiver<Change>) {
    while let Some(first) = rx.recv().await {
        // Changes that arrived together are read once.
        let mut changes = vec![first];
        while let Ok(c) = rx.try_recv() {
            changes.push(c);
        }
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let handles: Vec<(ServerHandle, Option<String>)> =
            (shared.servers.lock().expect("servers lock"))
                .iter()
                .filter_map(|(h, i)| Some((h.upgrade()?, i.under.clone().map(|u| u.namespace))))
                .collect();
        for c in &changes {
            if let Change::Updated(uri) = c {
                for (h, ns) in &handles {
                    h.resource_updated(match ns {
                        Some(ns) => crate::server::mount::namespaced_uri(ns, uri),
                        None => uri.clone(),
                    });
                }
            }
        }
        if changes.iter().any(|c| !matches!(c, Change::Updated(_))) {
            reread(&shared, &changes).await;
        }
    }
}

/// Re-reads the lists `changes` name and installs them everywhere (nothing while the
/// upstream is down: its return reads them all).
async fn reread(shared: &Arc<Shared>, changes: &[Change]) {
    let Some(client) = &shared.client() else {
        return;
    };
    let mut lists = shared.lists.lock().expect("lists lock").clone();
    let read = async {
        if changes.contains(&Change::Tools) {
            lists.tools = client.list_all_tools().await?;
        }
        if changes.contains(&Change::Prompts) {
            lists.prompts = client.list_all_prompts().await?;
        }
        if changes.contains(&Change::Resources) {
            lists.resources = client.list_all_resources().await?;
            lists.templates = all_templates(client).await?;
        }
        Ok::<_, ClientError>(())
    };
    if let Err(e) = read.await {
        tracing::warn!(upstream = %shared.upstream.describe(), error = %e,
            "re-reading the upstream's lists failed; the last ones stay");
        return;
    }
    *shared.lists.lock().expect("lists lock") = lists.clone();
    if shared.health.down().is_some() {
        return;
    }
    let announced = Changes {
        tools: changes.contains(&Change::Tools),
        prompts: changes.contains(&Change::Prompts),
        resources: changes.contains(&Change::Resources),
    };
    install_everywhere(shared, &lists, announced);
}

impl Watched for Shared {
    fn health(&self) -> &Health {
        &self.health
    }

    fn upstream(&self) -> &Upstream {
        &self.upstream
    }

    fn client(&self) -> Option<Client> {
        Shared::client(self)
    }

    fn busy(&self) -> bool {
        Shared::busy(self)
    }

    fn heard_within(&self, within: Duration) -> bool {
        Shared::heard_within(self, within)
    }

    fn answered(&self, ok: bool) {
        Shared::answered(self, ok)
    }

    fn drop_connection(&self) {
        Shared::drop_connection(self)
    }

    fn reconnect(self: Arc<Self>) -> BoxFuture<'static, Result<(), ProxyError>> {
        Box::pin(async move { Shared::reconnect(&self).await.map(drop) })
    }

    fn ready(self: Arc<Self>) -> BoxFuture<'static, Result<(), McpError>> {
        Box::pin(async move { Shared::ready(&self).await })
    }

    fn take_out(self: Arc<Self>) {
        install_everywhere(&self, &Lists::default(), Changes::default());
    }

    fn offered(&self, tools: bool, asked: &str) -> bool {
        Shared::offered(self, tools, asked)
    }
}

impl Source for Shared {
    fn offers_completions(&self) -> bool {
        (Shared::client(self)).is_some_and(|c| c.server_capabilities().completions.is_some())
    }

    fn call_tool(
        self: Arc<Self>,
        ctx: Context,
        name: String,
        args: Option<Box<RawValue>>,
    ) -> BoxFuture<'static, Result<ToolAnswer, McpError>> {
        Box::pin(async move { Shared::call_tool(&self, ctx, &name, args).await })
    }

    fn get_prompt(
        self: Arc<Self>,
        ctx: Context,
        name: String,
        args: HashMap<String, String>,
    ) -> BoxFuture<'static, Result<GetPromptResult, McpError>> {
        Box::pin(async move { Shared::get_prompt(&self, ctx, &name, args).await })
    }

    fn read(
        self: Arc<Self>,
        ctx: Context,
        uri: String,
    ) -> BoxFuture<'static, Result<ReadResourceResult, McpError>> {
        Box::pin(async move { Shared::read(&self, ctx, uri).await })
    }

    fn complete(
        self: Arc<Self>,
        ctx: Context,
        theirs: Option<CompletionReference>,
    ) -> BoxFuture<'static, Result<Completion, McpError>> {
        Box::pin(async move { Shared::complete(&self, ctx, theirs.as_ref()).await })
    }

    fn servers(&self) -> &Mutex<Vec<(WeakHandle, Installed)>> {
        &self.servers
    }

    fn resubscribe(&self) {
        self.subscriptions.poke();
    }
}
