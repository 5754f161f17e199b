//! A `tracing` layer that sends the events a request's handler emits to that request's
//! client as `notifications/message`.
//!
//! Install [`ClientLogLayer`] in your subscriber once; from then on every `tracing` event
//! emitted while a request is handled (in the handler's task, or inside [`in_request`]) is
//! forwarded to the client that sent the request, under the client's filter:
//!
//! - legacy revisions: at or above the session's `logging/setLevel` level; nothing before
//!   the client sets one;
//! - 2026-07-28: only when the request opted in with `_meta`
//!   `io.modelcontextprotocol/logLevel`, at or above that level.
//!
//! Nothing is sent for notifications, for `subscriptions/listen` (log messages never go on a
//! listen stream), for a cancelled request, or for the runtime's own events (targets under
//! `mcp_runtime`); an event emitted while the bridge itself is sending is ignored, so the
//! bridge never feeds itself. Sending never blocks the emitting thread: when the
//! connection's queue is full the message is dropped.
//!
//! The level maps as `ERROR` → `error`, `WARN` → `warning`, `INFO` → `info`, `DEBUG` and
//! `TRACE` → `debug`; `logger` is the event's target; `data` is the message text, or an
//! object of the message and the event's other fields.
//!
//! ```no_run
//! use tracing_subscriber::layer::SubscriberExt;
//!
//! let subscriber = tracing_subscriber::registry().with(mcp_runtime::log_bridge::ClientLogLayer::new());
//! tracing::subscriber::set_global_default(subscriber).unwrap();
//! // In a tool: `tracing::info!("indexing {n} files")` now reaches the caller.
//! ```

use std::cell::Cell;
use std::future::Future;
use std::sync::atomic::{AtomicBool, Ordering};

use mcp_core::jsonrpc;
use mcp_core::types::LoggingLevel;
use serde_json::{Map, Value};
use tracing::field::{Field, Visit};
use tracing::{Event, Level, Subscriber};
use tracing_subscriber::layer::{Context as LayerContext, Layer};

use crate::context::Context;

tokio::task_local! {
    /// The request whose handler is running in this task.
    static CURRENT: Context;
}

/// Set once a [`ClientLogLayer`] exists, so requests pay nothing for the bridge otherwise.
static INSTALLED: AtomicBool = AtomicBool::new(false);

thread_local! {
    /// Set while the bridge handles an event: events raised meanwhile are its own.
    static BUSY: Cell<bool> = const { Cell::new(false) };
}

/// The `tracing` layer that forwards handler events to the requesting client.
#[derive(Debug, Clone, Copy)]
pub struct ClientLogLayer {
    _private: (),
}

impl ClientLogLayer {
    /// The layer. Creating it switches the bridge on for every server in the process.
    pub fn new() -> Self {
        INSTALLED.store(true, Ordering::Relaxed);
        Self { _private: () }
    }
}

impl Default for ClientLogLayer {
    fn default() -> Self {
        Self::new()
    }
}

/// Runs `fut` as part of the request of `ctx`: its `tracing` events reach that client.
/// The handler's own task is covered already; use this for work it spawns.
pub async fn in_request<F: Future>(ctx: Context, fut: F) -> F::Output {
    CURRENT.scope(ctx, fut).await
}

/// The context to run a request's chain under (see [`scoped`]): `None` — and no copy of the
/// context — unless a [`ClientLogLayer`] exists and the client takes log messages from
/// this request (its level is the session's, or the request's `_meta` opt-in, when it
/// starts: a `logging/setLevel` applies to the requests that follow it).
pub(crate) fn scope_for(ctx: &Context) -> Option<Context> {
    (INSTALLED.load(Ordering::Relaxed) && bridged(ctx)).then(|| ctx.clone())
}

/// Runs a request's chain with `ctx` (from [`scope_for`]) as the bridge's current request.
pub(crate) fn scoped<F: Future>(ctx: Option<Context>, fut: F) -> impl Future<Output = F::Output> {
    match ctx {
        Some(ctx) => tokio_util::either::Either::Left(CURRENT.scope(ctx, fut)),
        None => tokio_util::either::Either::Right(fut),
    }
}

/// Whether events of this message may go to its client at all.
fn bridged(ctx: &Context) -> bool {
    !ctx.is_notification() && ctx.method() != "subscriptions/listen" && ctx.log_level().is_some()
}

fn level(l: &Level) -> LoggingLevel {
    match *l {
        Level::ERROR => LoggingLevel::Error,
        Level::WARN => LoggingLevel::Warning,
        Level::INFO => LoggingLevel::Info,
        _ => LoggingLevel::Debug,
    }
}

impl<S: Subscriber> Layer<S> for ClientLogLayer {
    fn on_event(&self, event: &Event<'_>, _ctx: LayerContext<'_, S>) {
        let target = event.metadata().target();
        if target.starts_with("mcp_runtime") || BUSY.with(Cell::get) {
            return;
        }
        let _ = CURRENT.try_with(|ctx| {
            let _busy = Busy::enter();
            forward(ctx, event);
        });
    }
}

/// Marks the thread as inside the bridge until dropped (also on unwind).
struct Busy;

impl Busy {
    fn enter() -> Self {
        BUSY.with(|b| b.set(true));
        Busy
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        BUSY.with(|b| b.set(false));
    }
}

/// Sends `event` to the client of `ctx` if its filter lets it through.
fn forward(ctx: &Context, event: &Event<'_>) {
    let lvl = level(event.metadata().level());
    match ctx.log_level() {
        Some(min) if lvl >= min && !ctx.is_cancelled() => {}
        _ => return,
    }
    let mut fields = Fields(Map::new());
    event.record(&mut fields);
    let mut fields = fields.0;
    let data = match fields.len() {
        0 => Value::String(String::new()),
        1 if fields.contains_key("message") => fields.remove("message").expect("present"),
        _ => Value::Object(fields),
    };
    let mut params = Map::new();
    params.insert("level".into(), serde_json::to_value(lvl).expect("level"));
    params.insert("logger".into(), event.metadata().target().into());
    params.insert("data".into(), data);
    ctx.name_request(&mut params);
    if let Some(t) = &ctx.peer().task {
        t.tag_map(&mut params);
    }
    let params = Value::Object(params).to_string();
    let mut frame = Vec::new();
    jsonrpc::write_notification(&mut frame, "notifications/message", Some(&params));
    let peer = ctx.peer();
    let out = peer.out.as_ref().unwrap_or(&peer.conn.out);
    if let Some(frame) = peer.conn.filters.outgoing(frame) {
        // Never block the emitting thread: a full queue drops the message.
        let _ = out.try_send(frame);
    }
}

/// An event's fields as JSON.
struct Fields(Map<String, Value>);

impl Visit for Fields {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().into(), Value::String(format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_i64(&mut self, field: &Field, value: i64) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_u64(&mut self, field: &Field, value: u64) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_f64(&mut self, field: &Field, value: f64) {
        self.0.insert(field.name().into(), value.into());
    }
    fn record_bool(&mut self, field: &Field, value: bool) {
        self.0.insert(field.name().into(), value.into());
    }
}
