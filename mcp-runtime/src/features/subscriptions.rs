//! Server-initiated change notifications: the [`SubscriptionBus`] that fans events out, the
//! 2026 `subscriptions/listen` stream, and the legacy per-session delivery
//! (`resources/subscribe` and the `*/list_changed` notifications).
//!
//! Everything that changes (a dynamic registration, a resource update, a task status) is
//! published once as a [`ServerEvent`]; every listen stream and every legacy session holds
//! one bus subscription and picks what its filter asks for. Subscriptions have bounded
//! buffers: a subscriber that falls behind loses events and is marked *lagged*, and then
//! resynchronises by sending one notification for everything it watches (list-changed and
//! resource-updated notifications are idempotent, so a client re-reads and loses nothing).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use mcp_core::jsonrpc::{self, RequestId};
use mcp_core::types::{
    SubscriptionFilter, SubscriptionsAcknowledgedParams, SubscriptionsListenParams,
    SubscriptionsListenResult,
};
use tokio_util::sync::CancellationToken;

use crate::common::error::McpError;
use crate::context::Context;
use crate::context::peer::ConnShared;
use crate::session::Session;
pub use crate::session::bus::{InMemoryBus, ServerEvent, SubscriptionBus};
use crate::session::interest::{Interest, Lease};

/// The `_meta` key naming the subscription on listen-stream notifications.
pub const SUBSCRIPTION_ID_KEY: &str = SubscriptionsListenResult::SUBSCRIPTION_ID_KEY;

/// The tasks extension, whose `taskIds` filter field listen streams honour when the server
/// declares it.
pub(crate) const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// How many listen streams a server keeps open at once unless told otherwise.
pub const DEFAULT_MAX_LISTENS: usize = 1024;

/// What the server shares with its dispatcher, its connections and its handles for
/// change notifications.
pub(crate) struct Notifier {
    /// `None`: subscriptions are off (no listen, no `resources/subscribe`, no list-changed).
    pub(crate) bus: Option<Arc<dyn SubscriptionBus>>,
    /// Open listen streams.
    pub(crate) listens: AtomicUsize,
    /// The most listen streams open at once.
    pub(crate) max_listens: usize,
    /// Fires to end every listen stream gracefully (server shutdown).
    pub(crate) end: CancellationToken,
    /// The resource URIs this server's clients subscribe to now.
    pub(crate) interest: Arc<Interest>,
    /// Told of every resource update this server publishes (a parent that mounts this
    /// server republishes it under its namespace: `server::mount`).
    pub(crate) update_relays: Mutex<Vec<UpdateRelay>>,
}

/// Told the URI of each resource update a server publishes.
pub(crate) type UpdateRelay = Arc<dyn Fn(&str) + Send + Sync>;

impl Notifier {
    pub(crate) fn new(bus: Option<Arc<dyn SubscriptionBus>>, max_listens: usize) -> Self {
        Self {
            bus,
            listens: AtomicUsize::new(0),
            max_listens,
            end: CancellationToken::new(),
            interest: Arc::default(),
            update_relays: Mutex::default(),
        }
    }

    pub(crate) fn enabled(&self) -> bool {
        self.bus.is_some()
    }

    /// Publishes `event` on the bus (when subscriptions are on); a resource update also
    /// goes to the update relays, whether or not this server's own clients hear it.
    pub(crate) fn publish(&self, event: ServerEvent) {
        if let ServerEvent::ResourceUpdated { uri } = &event {
            let relays = self
                .update_relays
                .lock()
                .expect("update relays lock")
                .clone();
            for relay in relays {
                relay(uri);
            }
        }
        if let Some(bus) = &self.bus {
            bus.publish(event);
        }
    }
}

/// Counts one open listen stream while alive.
struct ListenGuard<'a>(&'a AtomicUsize);

impl Drop for ListenGuard<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The subset of `wanted` this server honours: the three list kinds and resource URIs
/// always (registration may change at run time), task ids when the tasks extension is on;
/// fields of other extensions never.
pub(crate) fn honoured(wanted: &SubscriptionFilter, tasks: bool) -> SubscriptionFilter {
    let yes = |b: Option<bool>| b.filter(|b| *b);
    SubscriptionFilter {
        tools_list_changed: yes(wanted.tools_list_changed),
        prompts_list_changed: yes(wanted.prompts_list_changed),
        resources_list_changed: yes(wanted.resources_list_changed),
        resource_subscriptions: wanted
            .resource_subscriptions
            .clone()
            .filter(|v| !v.is_empty()),
        task_ids: wanted.task_ids.clone().filter(|v| tasks && !v.is_empty()),
        other: Default::default(),
    }
}

/// Whether a stream with filter `f` carries `event`.
fn wants(f: &SubscriptionFilter, event: &ServerEvent) -> bool {
    let on = |b: Option<bool>| b.unwrap_or(false);
    let has =
        |v: &Option<Vec<String>>, x: &str| v.as_ref().is_some_and(|v| v.iter().any(|u| u == x));
    match event {
        ServerEvent::ToolsListChanged => on(f.tools_list_changed),
        ServerEvent::PromptsListChanged => on(f.prompts_list_changed),
        ServerEvent::ResourcesListChanged => on(f.resources_list_changed),
        ServerEvent::ResourceUpdated { uri } => has(&f.resource_subscriptions, uri),
        ServerEvent::Task { task_id, .. } => has(&f.task_ids, task_id),
    }
}

/// What a lagged stream with filter `f` re-sends: one notification per list kind and URI
/// it watches (task notifications cannot be rebuilt; clients poll `tasks/get`).
fn resync(f: &SubscriptionFilter) -> Vec<ServerEvent> {
    let on = |b: Option<bool>| b.unwrap_or(false);
    let mut out = Vec::new();
    if on(f.tools_list_changed) {
        out.push(ServerEvent::ToolsListChanged);
    }
    if on(f.prompts_list_changed) {
        out.push(ServerEvent::PromptsListChanged);
    }
    if on(f.resources_list_changed) {
        out.push(ServerEvent::ResourcesListChanged);
    }
    for uri in f.resource_subscriptions.iter().flatten() {
        out.push(ServerEvent::ResourceUpdated { uri: uri.clone() });
    }
    out
}

/// The `_meta` of a listen-stream notification: `{subscriptionId: <the listen request id>}`.
fn subscription_meta(id: &RequestId) -> serde_json::Value {
    let id = serde_json::to_value(id).expect("a request id serializes");
    serde_json::Value::Object([(SUBSCRIPTION_ID_KEY.to_owned(), id)].into_iter().collect())
}

fn notification_frame(
    method: &str,
    params: &serde_json::Map<String, serde_json::Value>,
) -> Vec<u8> {
    let params = serde_json::to_string(params).expect("a JSON map serializes");
    let mut frame = Vec::new();
    jsonrpc::write_notification(&mut frame, method, Some(&params));
    frame
}

/// Serves one `subscriptions/listen` request: acknowledges first, then forwards matching
/// events, each with `_meta.subscriptionId`, until the client cancels (the kernel drops the
/// outcome), the connection stops reading or the server ends subscriptions (then the
/// closing result is returned). Progress and log messages never go on the stream: only this
/// loop writes to it.
///
/// A resource URI of the filter that is `hidden` from the caller is acknowledged like any
/// other (as one the server does not have would be) and its updates are never sent.
pub(crate) async fn listen(
    ctx: &Context,
    notifier: &Notifier,
    tasks: bool,
    hidden: &(dyn Fn(&str) -> bool + Send + Sync),
) -> Result<SubscriptionsListenResult, McpError> {
    let Some(bus) = &notifier.bus else {
        return Err(
            mcp_core::jsonrpc::ErrorObject::method_not_found("subscriptions/listen").into(),
        );
    };
    let id = ctx
        .request_id()
        .cloned()
        .ok_or_else(|| McpError::invalid_params("subscriptions/listen must be a request"))?;
    // What lives across the loop's waits is kept for the stream's whole life (1,000 open
    // streams hold 1,000 of each): the decoded params, the acknowledgement and their maps
    // are dropped before it, and each event's `_meta` is built when the event is sent.
    let filter = {
        let params: SubscriptionsListenParams = ctx.decode_params().map_err(|_| {
            McpError::invalid_params(
                "Invalid params: `notifications` (a SubscriptionFilter) is required",
            )
        })?;
        honoured(&params.notifications, tasks)
    };
    let muted: Vec<String> = (filter.resource_subscriptions.iter().flatten())
        .filter(|uri| hidden(uri))
        .cloned()
        .collect();
    let heard = |event: &ServerEvent| {
        wants(&filter, event)
            && !matches!(event, ServerEvent::ResourceUpdated { uri } if muted.contains(uri))
    };

    // Count first, so a refused stream never subscribes.
    if notifier.listens.fetch_add(1, Ordering::AcqRel) >= notifier.max_listens {
        notifier.listens.fetch_sub(1, Ordering::AcqRel);
        return Err(mcp_core::jsonrpc::ErrorObject::new(
            -32000,
            "Server busy: too many open subscriptions/listen streams",
        )
        .into());
    }
    let _guard = ListenGuard(&notifier.listens);
    // The URIs the filter names are held while the stream is open (a mount or proxy
    // subscribes where their updates come from), in place before the acknowledgement.
    let mut lease = Lease::new(&notifier.interest);
    let settle = (filter.resource_subscriptions.iter().flatten())
        .filter(|uri| !muted.contains(uri))
        .flat_map(|uri| lease.hold(uri))
        .collect();
    crate::session::interest::settled(settle).await;
    // Subscribe before acknowledging, so nothing published after the ack is missed.
    let mut rx = bus.subscribe();

    let ack = {
        let ack = SubscriptionsAcknowledgedParams::new(&id, filter.clone());
        serde_json::value::to_raw_value(&ack).expect("ack serializes")
    };
    let sent = ctx
        .peer()
        .notify_raw(SubscriptionsAcknowledgedParams::METHOD, Some(&ack))
        .await;
    drop(ack);
    if sent.is_err() {
        return Err(crate::context::peer::PeerError::Disconnected.into());
    }

    let closing = ctx.peer().conn.closing.clone();
    loop {
        let event = tokio::select! {
            biased;
            _ = ctx.cancellation().cancelled() => {
                return Err(crate::context::peer::PeerError::Disconnected.into());
            }
            _ = closing.cancelled() => break,
            _ = notifier.end.cancelled() => break,
            e = rx.recv() => match e {
                Some(e) => e,
                None => break,
            },
        };
        let mut batch = Vec::new();
        if rx.take_lagged() {
            batch = resync(&filter);
            batch.retain(|e| heard(e));
        }
        if heard(&event) && !batch.contains(&event) {
            batch.push(event);
        }
        for event in batch {
            let params = event.params(Some(subscription_meta(&id)));
            let params = serde_json::value::to_raw_value(&params).expect("map");
            if ctx
                .peer()
                .notify_raw(event.method(), Some(&params))
                .await
                .is_err()
            {
                return Err(crate::context::peer::PeerError::Disconnected.into());
            }
        }
    }
    drop(lease);
    Ok(SubscriptionsListenResult::new(&id))
}

// ---------------------------------------------------------------------------------------
// Legacy sessions
// ---------------------------------------------------------------------------------------

/// Which list kinds a legacy session was told (in its `initialize` result) change.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct ListKinds {
    pub(crate) tools: bool,
    pub(crate) prompts: bool,
    pub(crate) resources: bool,
}

impl From<&mcp_core::types::ServerCapabilities> for ListKinds {
    fn from(c: &mcp_core::types::ServerCapabilities) -> Self {
        Self {
            tools: c.tools_list_changed(),
            prompts: c.prompts_list_changed(),
            resources: c.resources_list_changed(),
        }
    }
}

/// Declares what change notifications deliver: `listChanged` on every list the server
/// offers, `resources.subscribe` when it offers resources.
pub(crate) fn advertise(caps: &mut mcp_core::types::ServerCapabilities) {
    if let Some(t) = &mut caps.tools {
        t.list_changed = Some(true);
    }
    if let Some(p) = &mut caps.prompts {
        p.list_changed = Some(true);
    }
    if let Some(r) = &mut caps.resources {
        r.list_changed = Some(true);
        r.subscribe = Some(true);
    }
}

/// Takes back what [`advertise`] promised, for a connection that cannot carry
/// server-initiated notifications (stateless legacy HTTP).
pub(crate) fn withhold(caps: &mut mcp_core::types::ServerCapabilities) {
    if let Some(t) = &mut caps.tools {
        t.list_changed = None;
    }
    if let Some(p) = &mut caps.prompts {
        p.list_changed = None;
    }
    if let Some(r) = &mut caps.resources {
        r.list_changed = None;
        r.subscribe = None;
    }
}

/// Whether the session's copy in a shared store subscribes to a URI (a `resources/subscribe`
/// another process served): set by a transport that keeps sessions in a store.
pub(crate) type SubscribedElsewhere =
    Arc<dyn Fn(String) -> crate::common::BoxFuture<'static, bool> + Send + Sync>;

/// The forwarding of bus events to one legacy session (stdio connection, HTTP session, SSE
/// session); the resources it subscribed to are part of the session's state.
#[derive(Default)]
pub(crate) struct LegacySubscriptions {
    kinds: Mutex<ListKinds>,
    forwarding: AtomicBool,
    elsewhere: std::sync::OnceLock<SubscribedElsewhere>,
}

impl std::fmt::Debug for LegacySubscriptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LegacySubscriptions")
            .field("kinds", &self.kinds)
            .field("forwarding", &self.forwarding)
            .field("elsewhere", &self.elsewhere.get().is_some())
            .finish()
    }
}

impl LegacySubscriptions {
    /// Also forwards resource updates the session subscribed to in another process, as
    /// `elsewhere` answers (asked only for a URI this process's copy does not name).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn also_subscribed_elsewhere(&self, elsewhere: SubscribedElsewhere) {
        let _ = self.elsewhere.set(elsewhere);
    }

    /// Whether `event` goes to the session: [`watches`](Self::watches), or a resource
    /// update of a URI subscribed to through another process.
    async fn wants(&self, event: &ServerEvent, session: Option<&Session>) -> bool {
        if self.watches(event, session) {
            return true;
        }
        match (event, self.elsewhere.get()) {
            (ServerEvent::ResourceUpdated { uri }, Some(elsewhere)) => elsewhere(uri.clone()).await,
            _ => false,
        }
    }

    fn watches(&self, event: &ServerEvent, session: Option<&Session>) -> bool {
        let k = *self.kinds.lock().expect("kinds lock");
        match event {
            ServerEvent::ToolsListChanged => k.tools,
            ServerEvent::PromptsListChanged => k.prompts,
            ServerEvent::ResourcesListChanged => k.resources,
            ServerEvent::ResourceUpdated { uri } => {
                session.is_some_and(|s| s.lock().expect("session lock").subscriptions.contains(uri))
            }
            ServerEvent::Task { .. } => false,
        }
    }

    fn resync(&self, session: Option<&Session>) -> Vec<ServerEvent> {
        let k = *self.kinds.lock().expect("kinds lock");
        let mut out = Vec::new();
        if k.tools {
            out.push(ServerEvent::ToolsListChanged);
        }
        if k.prompts {
            out.push(ServerEvent::PromptsListChanged);
        }
        if k.resources {
            out.push(ServerEvent::ResourcesListChanged);
        }
        if let Some(s) = session {
            for uri in &s.lock().expect("session lock").subscriptions {
                out.push(ServerEvent::ResourceUpdated { uri: uri.clone() });
            }
        }
        out
    }
}

/// The subscriptions of the legacy session `conn` belongs to.
pub(crate) fn legacy(conn: &ConnShared) -> &Arc<LegacySubscriptions> {
    conn.subscriptions
        .get_or_init(Arc::<LegacySubscriptions>::default)
}

/// Starts forwarding bus events to the legacy session of `conn` (once per session; later
/// calls only update the list kinds): list-changed notifications for `kinds`, resource
/// updates for subscribed URIs, once `session` is initialized (a handshake that fails
/// gets nothing). The forwarder ends when the session stops reading.
pub(crate) fn attach_legacy(
    conn: &Arc<ConnShared>,
    notifier: &Notifier,
    kinds: ListKinds,
    session: Option<Session>,
) {
    let Some(bus) = &notifier.bus else { return };
    let subs = legacy(conn).clone();
    *subs.kinds.lock().expect("kinds lock") = kinds;
    if subs.forwarding.swap(true, Ordering::AcqRel) {
        return;
    }
    let mut rx = bus.subscribe();
    let conn = conn.clone();
    tokio::spawn(async move {
        let closing = conn.closing.clone();
        loop {
            let event = tokio::select! {
                biased;
                _ = closing.cancelled() => break,
                e = rx.recv() => match e { Some(e) => e, None => break },
            };
            let ready = session
                .as_ref()
                .is_none_or(|s| s.lock().expect("session lock").initialized);
            if !ready {
                continue;
            }
            let mut batch = Vec::new();
            if rx.take_lagged() {
                batch = subs.resync(session.as_ref());
            }
            if !batch.contains(&event) && subs.wants(&event, session.as_ref()).await {
                batch.push(event);
            }
            for event in batch {
                let params = event.params(None);
                let frame = if params.is_empty() {
                    let mut f = Vec::new();
                    jsonrpc::write_notification(&mut f, event.method(), None);
                    f
                } else {
                    notification_frame(event.method(), &params)
                };
                if !conn.send(frame).await {
                    return;
                }
            }
        }
    });
}

/// What a transport needs to forward bus events to a legacy session it took over from a
/// session store (another process ran its `initialize`): the notifier, and the list kinds
/// the server announces now.
pub(crate) struct LegacyFeed {
    pub(crate) notifier: Arc<Notifier>,
    pub(crate) kinds: Box<dyn Fn() -> ListKinds + Send + Sync>,
}

impl LegacyFeed {
    /// Starts forwarding to the adopted session of `conn` (see [`attach_legacy`]).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn attach(&self, conn: &Arc<ConnShared>, session: Session) {
        attach_legacy(conn, &self.notifier, (self.kinds)(), Some(session));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::bus::subscription;

    #[tokio::test]
    async fn bus_fans_out_and_forgets_dropped_subscribers() {
        let bus = InMemoryBus::new(4);
        let mut a = bus.subscribe();
        let b = bus.subscribe();
        assert_eq!(bus.subscribers(), 2);
        drop(b);
        assert_eq!(bus.subscribers(), 1);
        bus.publish(ServerEvent::ToolsListChanged);
        assert_eq!(a.recv().await, Some(ServerEvent::ToolsListChanged));
        assert!(!a.take_lagged());
    }

    #[tokio::test]
    async fn a_subscriber_overrun_on_the_ring_is_marked_lagged_and_reads_on() {
        let bus = InMemoryBus::new(1);
        let mut a = bus.subscribe();
        bus.publish(ServerEvent::ToolsListChanged);
        bus.publish(ServerEvent::PromptsListChanged);
        // The ring kept the newest event; the overrun shows once it is read.
        assert_eq!(a.recv().await, Some(ServerEvent::PromptsListChanged));
        assert!(a.take_lagged());
        assert!(!a.take_lagged());
        bus.publish(ServerEvent::ResourcesListChanged);
        assert_eq!(a.recv().await, Some(ServerEvent::ResourcesListChanged));
        assert!(!a.take_lagged());
    }

    #[test]
    fn a_bus_marked_lagged_marks_each_current_subscriber_once() {
        let bus = InMemoryBus::new(4);
        let (a, b) = (bus.subscribe(), bus.subscribe());
        bus.mark_lagged();
        let c = bus.subscribe();
        assert!(a.take_lagged());
        assert!(!a.take_lagged());
        assert!(b.take_lagged());
        assert!(!c.take_lagged(), "subscribed after the mark");
        bus.mark_lagged();
        bus.mark_lagged();
        assert!(a.take_lagged() && c.take_lagged(), "two marks, one resync");
        assert!(!a.take_lagged());
    }

    #[tokio::test]
    async fn a_dropped_bus_ends_its_subscribers() {
        let bus = InMemoryBus::new(4);
        let mut a = bus.subscribe();
        bus.publish(ServerEvent::ToolsListChanged);
        drop(bus);
        assert_eq!(a.recv().await, Some(ServerEvent::ToolsListChanged));
        assert_eq!(a.recv().await, None);
    }

    #[tokio::test]
    async fn a_full_subscription_queue_drops_new_events_and_marks_lagged() {
        let (tx, mut rx) = subscription(1);
        assert!(tx.deliver(ServerEvent::ToolsListChanged));
        assert!(tx.deliver(ServerEvent::PromptsListChanged));
        assert!(rx.take_lagged());
        assert!(!rx.take_lagged());
        assert_eq!(rx.recv().await, Some(ServerEvent::ToolsListChanged));
        drop(rx);
        assert!(tx.is_closed());
        assert!(!tx.deliver(ServerEvent::ToolsListChanged));
    }

    #[test]
    fn honoured_keeps_only_what_is_served() {
        let wanted = SubscriptionFilter {
            tools_list_changed: Some(true),
            prompts_list_changed: Some(false),
            resource_subscriptions: Some(vec![]),
            task_ids: Some(vec!["t1".into()]),
            other: [("x-ext".to_string(), serde_json::json!(true))]
                .into_iter()
                .collect(),
            ..Default::default()
        };
        let h = honoured(&wanted, false);
        assert_eq!(h.tools_list_changed, Some(true));
        assert_eq!(h.prompts_list_changed, None);
        assert_eq!(h.resource_subscriptions, None);
        assert_eq!(h.task_ids, None);
        assert!(h.other.is_empty());
        assert_eq!(honoured(&wanted, true).task_ids, Some(vec!["t1".into()]));
    }

    #[test]
    fn filters_match_by_kind_uri_and_task() {
        let f = SubscriptionFilter {
            resources_list_changed: Some(true),
            resource_subscriptions: Some(vec!["a://1".into()]),
            task_ids: Some(vec!["t".into()]),
            ..Default::default()
        };
        assert!(wants(&f, &ServerEvent::ResourcesListChanged));
        assert!(!wants(&f, &ServerEvent::ToolsListChanged));
        assert!(wants(
            &f,
            &ServerEvent::ResourceUpdated {
                uri: "a://1".into()
            }
        ));
        assert!(!wants(
            &f,
            &ServerEvent::ResourceUpdated {
                uri: "a://2".into()
            }
        ));
        assert!(wants(&f, &ServerEvent::task("t", Default::default())));
        assert!(!wants(&f, &ServerEvent::task("u", Default::default())));
        assert_eq!(resync(&f).len(), 2);
    }
}
