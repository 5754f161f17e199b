//! One forwarded request: the downstream [`Context`] to the upstream call and back.
//!
//! - Progress: when the caller asked for it, the upstream call gets a token of its own and
//!   each upstream progress is reported through the caller's context (its token), in order.
//! - Cancellation: the caller's cancellation (`notifications/cancelled`, or a closed 2026
//!   stream) drops the upstream call, which the client cancels with the *upstream's* id.
//! - Input requests: elicitation (form and URL mode), sampling and roots asked by the
//!   upstream go to the context that caused the call, through
//!   `Context::elicit_form`/`elicit_url`/`sample`/`roots` (a server-to-client request for a
//!   legacy caller, an `input_required` round for a 2026 one; a caller that cannot take
//!   URL mode is answered for with a clear error). The upstream's
//!   `notifications/elicitation/complete` goes to the caller its URL elicitation was put to
//!   (a 2025-11-25 caller: 2026 has no such notification, its client retries instead).
//!   An upstream's `-32042` is asked of a 2026 caller as a round (2026 has no such error).
//!   A 2026 upstream's rounds are answered in the calling task, so they always find their
//!   caller. A legacy upstream's requests go to the call whose stream they came on
//!   (Streamable HTTP) or that they name (a stdio upstream built with us stamps its
//!   request's id, as on log messages), else to the one call in flight on the connection,
//!   and are refused when several are (the proxy cannot tell whose they are; with
//!   `Sharing::PerCaller` each caller has a connection of its own).
//!   A `roots/list` with no call in flight (an upstream asking at start-up) gets an empty
//!   list.
//! - Logging: an upstream `notifications/message` goes to the call whose stream it came on
//!   (Streamable HTTP) or that it names (a stdio upstream built with us stamps its
//!   request's id, `mcp_core::meta::RELATED_REQUEST`), else to the one call in flight, or
//!   the oldest when all in flight come from one downstream session (a stdio message of
//!   another server names no request). The caller's level filters it; a legacy caller that
//!   set none gets what the upstream sends.
//! - Lists: upstream `list_changed` and `resources/updated` are handed to the table.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_core::jsonrpc::{self, ErrorObject};
use mcp_core::types::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ElicitUrlParams,
    ListRootsResult, LoggingLevel, LoggingMessageParams, ProgressParams,
    UrlElicitationRequiredData,
};
use mcp_core::version::Era;
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::{mpsc, oneshot};

use crate::client::{
    Client, ClientError, ClientHandler, RequestHandler, RequestOptions, ServerNotification,
};
use crate::common::error::McpError;
use crate::context::Context;
use crate::context::interaction::InteractionError;

/// A change the upstream announced, for the table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Change {
    Tools,
    Prompts,
    Resources,
    Updated(String),
}

/// What the upstream sent during one call, delivered to the caller in order.
enum Event {
    Progress(ProgressParams),
    Log(LoggingMessageParams),
}

/// One call in flight: the caller's context and where its events and a deferred input
/// request go.
struct InFlight {
    ctx: Context,
    events: mpsc::UnboundedSender<Event>,
    /// Fired with the key when the caller (2026) answers an input request with a round.
    deferred: Mutex<Option<oneshot::Sender<String>>>,
}

tokio::task_local! {
    /// The call whose upstream request is running in this task (2026 upstreams answer
    /// `input_required` rounds here).
    static CURRENT: Arc<InFlight>;
}

/// What every call on one upstream connection shares.
pub(crate) struct Relay {
    calls: Mutex<Vec<Arc<InFlight>>>,
    changes: mpsc::UnboundedSender<Change>,
    /// The callers URL elicitations were put to, by `elicitationId`, for the upstream's
    /// `notifications/elicitation/complete` (which may come after the call ended).
    urls: Mutex<HashMap<String, (Instant, Context)>>,
}

/// How long a URL elicitation's caller is kept for its completion notification.
const URL_KEPT: Duration = Duration::from_secs(15 * 60);
/// How many URL elicitations awaiting completion one connection keeps (the oldest go).
const URLS_KEPT: usize = 1024;

/// Takes a call out of the in-flight list when it ends, however it ends.
struct Entered<'a> {
    relay: &'a Relay,
    call: Arc<InFlight>,
}

impl Drop for Entered<'_> {
    fn drop(&mut self) {
        let mut calls = self.relay.calls.lock().expect("calls lock");
        calls.retain(|c| !Arc::ptr_eq(c, &self.call));
    }
}

impl Relay {
    /// A relay whose upstream changes go to `changes`.
    pub(crate) fn new(changes: mpsc::UnboundedSender<Change>) -> Arc<Self> {
        Arc::new(Self {
            calls: Mutex::new(Vec::new()),
            changes,
            urls: Mutex::new(HashMap::new()),
        })
    }

    /// Keeps `ctx` as the caller of URL elicitation `id` (dropping the expired, and the
    /// oldest past the bound).
    fn keep_url(&self, id: String, ctx: Context) {
        let mut urls = self.urls.lock().expect("urls lock");
        urls.retain(|_, (at, _)| at.elapsed() < URL_KEPT);
        if urls.len() >= URLS_KEPT
            && let Some(oldest) = (urls.iter())
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone())
        {
            urls.remove(&oldest);
        }
        urls.insert(id, (Instant::now(), ctx));
    }

    /// Takes the caller of URL elicitation `id`: the one it was put to, else the call in
    /// flight.
    fn url_caller(&self, id: &str) -> Option<Context> {
        if let Some((_, ctx)) = self.urls.lock().expect("urls lock").remove(id) {
            return Some(ctx);
        }
        self.route("notifications/elicitation/complete")
            .ok()
            .map(|c| c.ctx.clone())
    }

    /// Whether a call is in flight on this connection.
    pub(crate) fn busy(&self) -> bool {
        !self.calls.lock().expect("calls lock").is_empty()
    }

    /// Whether no call is in flight on this connection (and none runs in this task).
    fn idle(&self) -> bool {
        CURRENT.try_with(|_| ()).is_err() && self.calls.lock().expect("calls lock").is_empty()
    }

    /// The call an upstream log message that named none belongs to (a stdio upstream not
    /// built with us): as [`route`](Self::route), and when several are in flight and all
    /// come from one downstream session (one client, as on a per-caller connection), the
    /// oldest: it reaches the client it came for, though not the call.
    fn route_log(&self) -> Result<Arc<InFlight>, ErrorObject> {
        let routed = self.route("notifications/message");
        if routed.is_ok() {
            return routed;
        }
        let calls = self.calls.lock().expect("calls lock");
        let session = |c: &InFlight| c.ctx.session().map(Arc::as_ptr);
        match calls.first().map(|c| session(c)) {
            Some(Some(first)) if calls.iter().all(|c| session(c) == Some(first)) => {
                Ok(calls[0].clone())
            }
            _ => routed,
        }
    }

    /// The call an upstream request or notification belongs to: the one running in this
    /// task, else the only one in flight.
    fn route(&self, what: &str) -> Result<Arc<InFlight>, ErrorObject> {
        if let Ok(call) = CURRENT.try_with(Arc::clone) {
            return Ok(call);
        }
        let calls = self.calls.lock().expect("calls lock");
        match calls.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(ErrorObject::new(
                jsonrpc::INTERNAL_ERROR,
                format!("{what}: no call is in flight through the proxy to ask"),
            )),
            _ => Err(ErrorObject::new(
                jsonrpc::INTERNAL_ERROR,
                format!(
                    "{what}: several calls are in flight on this upstream connection and the \
                     request names none of them; the proxy cannot tell whose it is"
                ),
            )),
        }
    }

    /// Sends `method` with `params` (and the `raw` members, written as they came: a call's
    /// arguments) upstream on behalf of `ctx`, relaying progress, logs, input requests and
    /// cancellation; the raw result.
    pub(crate) async fn forward(
        self: &Arc<Self>,
        client: &Client,
        ctx: &Context,
        timeout: Duration,
        method: &str,
        params: Map<String, Value>,
        raw: &[(&str, &RawValue)],
    ) -> Result<Box<RawValue>, McpError> {
        let (tx, mut rx) = mpsc::unbounded_channel();
        let (defer_tx, mut defer_rx) = oneshot::channel();
        let call = Arc::new(InFlight {
            ctx: ctx.clone(),
            events: tx.clone(),
            deferred: Mutex::new(Some(defer_tx)),
        });
        self.calls.lock().expect("calls lock").push(call.clone());
        let _entered = Entered {
            relay: self,
            call: call.clone(),
        };
        let mut opts = RequestOptions::default().timeout(timeout);
        // A legacy upstream's requests that name this call (on its stream, or by our
        // servers' stamp) ask this caller, however many calls are in flight. A 2026
        // upstream sends none (its rounds come back in this task): no handler to register.
        if client.protocol_version().era() == Era::Legacy {
            opts.handler = Some(RequestHandler::new(CallHandler {
                relay: RelayHandler(self.clone()),
                call: call.clone(),
            }));
        }
        if ctx.progress_token().is_some() {
            let tx = tx.clone();
            opts.on_progress = Some(Box::new(move |p| {
                let _ = tx.send(Event::Progress(p));
            }));
        }
        // The log messages an HTTP upstream sends on this call's stream are this caller's,
        // however many calls are in flight.
        opts.on_log = Some(Box::new(move |l| {
            let _ = tx.send(Event::Log(l));
        }));
        // A legacy caller that set no level gets what the upstream sends by default, as it
        // would directly: a 2026 upstream, which sends none unasked, is asked for all.
        opts.log_level = match (ctx.log_level(), ctx.era()) {
            (None, Era::Legacy) => Some(LoggingLevel::Debug),
            (level, _) => level,
        };
        let request = async move {
            (client.round_trips(method, Some(Value::Object(params)), raw, &mut opts)).await
        };
        let upstream = CURRENT.scope(call, request);
        tokio::pin!(upstream);
        let outcome = loop {
            tokio::select! {
                biased;
                // Dropping the upstream call cancels it with the upstream's id.
                () = ctx.cancellation().cancelled() => return Err(McpError::Cancelled),
                Ok(key) = &mut defer_rx => {
                    return Err(InteractionError::InputRequired { key }.into());
                }
                Some(ev) = rx.recv() => deliver(ctx, ev).await,
                r = &mut upstream => break r,
            }
        };
        // What arrived with the answer still goes before it.
        while let Ok(ev) = rx.try_recv() {
            deliver(ctx, ev).await;
        }
        match outcome {
            // 2026 has no -32042: the caller gets the URL elicitations as a round.
            Err(ClientError::Rpc(e))
                if e.code == UrlElicitationRequiredData::CODE && ctx.era() == Era::Modern =>
            {
                Err(url_round(ctx, e).await)
            }
            other => other.map_err(upstream_error),
        }
    }
}

/// An upstream's `-32042` (2025-11-25: complete these URL elicitations, then retry) for a
/// 2026 caller, which has no such error: its elicitations asked as an `input_required`
/// round (keyed by their ids, so a retry's other requests cannot take their answers). On
/// the retry they are answered and the call is forwarded again; when the upstream still
/// requires them, the caller gets a clear error.
async fn url_round(ctx: &Context, e: ErrorObject) -> McpError {
    let data = e
        .data
        .clone()
        .map(serde_json::from_value::<UrlElicitationRequiredData>);
    let Some(Ok(data)) = data else {
        return McpError::Protocol(ErrorObject::new(
            jsonrpc::INTERNAL_ERROR,
            format!(
                "the upstream server requires URL elicitation but sent none readable: {}",
                e.message
            ),
        ));
    };
    for (i, p) in data.elicitations.into_iter().enumerate() {
        let key = format!(
            "url-elicitation-{}",
            p.elicitation_id.as_deref().unwrap_or(&i.to_string())
        );
        if let Err(why) = ctx.elicit_url(p.message, p.url).key(key).await {
            return why.into();
        }
    }
    McpError::Protocol(ErrorObject::new(
        jsonrpc::INTERNAL_ERROR,
        format!(
            "the upstream server still requires URL elicitation after the caller answered: {}",
            e.message
        ),
    ))
}

/// Reports one upstream event through the caller's context.
async fn deliver(ctx: &Context, ev: Event) {
    match ev {
        Event::Progress(p) => {
            if let Err(e) = ctx
                .progress(p.progress, p.total, p.message.as_deref())
                .await
            {
                tracing::debug!(error = ?e, "upstream progress not forwarded");
            }
        }
        Event::Log(l) => {
            if let Err(e) = ctx.relay_log(l.level, l.logger.as_deref(), l.data).await {
                tracing::debug!(error = %e, "upstream log message not forwarded");
            }
        }
    }
}

/// An upstream failure as the caller sees it: the upstream's JSON-RPC errors as they are,
/// anything else a clear `-32603` naming what went wrong (never an empty answer).
pub(crate) fn upstream_error(e: ClientError) -> McpError {
    match e {
        ClientError::Rpc(e) => McpError::Protocol(e),
        ClientError::Timeout => McpError::Protocol(ErrorObject::new(
            jsonrpc::INTERNAL_ERROR,
            "the upstream server did not answer in time (the call was cancelled upstream)",
        )),
        other => McpError::Protocol(ErrorObject::new(
            jsonrpc::INTERNAL_ERROR,
            format!("the upstream server failed: {other}"),
        )),
    }
}

/// Why an input request could not be answered, for the upstream.
fn refused(call: &InFlight, e: InteractionError) -> ErrorObject {
    match e {
        InteractionError::InputRequired { key } => {
            // The 2026 caller answers with a round: the call ends here (cancelling the
            // upstream one) and runs again, with the answer, when the caller retries.
            if let Some(tx) = call.deferred.lock().expect("deferred lock").take() {
                let _ = tx.send(key);
            }
            ErrorObject::new(
                jsonrpc::INTERNAL_ERROR,
                "the downstream client answers this in a later round; the call will be retried",
            )
        }
        InteractionError::NotDeclared { required } => {
            mcp_core::codec::missing_required_client_capability(required)
        }
        other => ErrorObject::new(jsonrpc::INTERNAL_ERROR, other.to_string()),
    }
}

/// The [`ClientHandler`] of one upstream connection.
#[derive(Clone)]
pub(crate) struct RelayHandler(pub(crate) Arc<Relay>);

impl RelayHandler {
    /// Puts a URL elicitation to the caller (its `elicitationId` kept, so the caller's
    /// completion notification names the upstream's); the caller's action goes back.
    async fn elicit_url(
        &self,
        call: &InFlight,
        p: ElicitUrlParams,
    ) -> Result<ElicitResult, ErrorObject> {
        let mut ask = call.ctx.elicit_url(p.message, p.url);
        if let Some(id) = &p.elicitation_id {
            ask = ask.elicitation_id(id.clone());
            // Kept before asking: the completion may overtake the answer.
            self.0.keep_url(id.clone(), call.ctx.clone());
        }
        let answer = ask.await;
        let action = answer.map_err(|e| {
            if let Some(id) = &p.elicitation_id {
                self.0.urls.lock().expect("urls lock").remove(id);
            }
            refused(call, e)
        })?;
        Ok(ElicitResult {
            action,
            content: None,
            meta: None,
        })
    }

    /// Tells the caller URL elicitation `id` is complete (2025-11-25 callers; a 2026 one's
    /// client retries instead, and the notification is dropped).
    fn complete(&self, id: String) {
        let Some(ctx) = self.0.url_caller(&id) else {
            tracing::debug!(
                id,
                "upstream elicitation/complete for no known caller dropped"
            );
            return;
        };
        tokio::spawn(async move {
            if let Err(e) = ctx.elicitation_complete(&id).await {
                tracing::debug!(error = ?e, id, "upstream elicitation/complete not forwarded");
            }
        });
    }

    /// Puts an upstream elicitation to `call`'s caller.
    async fn elicit_for(
        &self,
        call: &InFlight,
        params: ElicitParams,
    ) -> Result<ElicitResult, ErrorObject> {
        match params {
            ElicitParams::Form(p) => (call.ctx)
                .elicit_form(p.message, p.requested_schema)
                .await
                .map_err(|e| refused(call, e)),
            ElicitParams::Url(p) => self.elicit_url(call, p).await,
        }
    }
}

/// Asks `call`'s caller for a completion.
async fn sample_for(
    call: &InFlight,
    params: CreateMessageParams,
) -> Result<CreateMessageResult, ErrorObject> {
    call.ctx.sample(params).await.map_err(|e| refused(call, e))
}

/// Asks `call`'s caller for its roots.
async fn roots_for(call: &InFlight) -> Result<ListRootsResult, ErrorObject> {
    let roots = call.ctx.roots().await.map_err(|e| refused(call, e))?;
    Ok(ListRootsResult::new(roots))
}

/// The [`ClientHandler`] of one forwarded call
/// ([`RequestOptions::handler`](crate::client::RequestOptions::handler)): the upstream
/// requests that name the call ask its caller.
struct CallHandler {
    relay: RelayHandler,
    call: Arc<InFlight>,
}

impl ClientHandler for CallHandler {
    async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        self.relay.elicit_for(&self.call, params).await
    }

    async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        sample_for(&self.call, params).await
    }

    async fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
        roots_for(&self.call).await
    }
}

/// The upstream requests that name no call go to the one in flight.
impl ClientHandler for RelayHandler {
    async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        let call = self.0.route("elicitation/create")?;
        self.elicit_for(&call, params).await
    }

    async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        sample_for(&*self.0.route("sampling/createMessage")?, params).await
    }

    async fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
        if self.0.idle() {
            // Asked with no call in flight (a server that asks at start-up): no caller to
            // ask, so no roots, which is an answer, not an error.
            return Ok(ListRootsResult::new(Vec::new()));
        }
        roots_for(&*self.0.route("roots/list")?).await
    }

    fn on_notification(&self, n: &ServerNotification) {
        let change = match n.method.as_str() {
            "notifications/message" => {
                let Some(log) = n
                    .params
                    .clone()
                    .and_then(|p| serde_json::from_value::<LoggingMessageParams>(p).ok())
                else {
                    return;
                };
                match self.0.route_log() {
                    Ok(call) => {
                        let _ = call.events.send(Event::Log(log));
                    }
                    Err(e) => tracing::debug!(reason = %e.message, "upstream log message dropped"),
                }
                return;
            }
            "notifications/elicitation/complete" => {
                let id = n.params.as_ref().and_then(|p| p.get("elicitationId"));
                if let Some(id) = id.and_then(Value::as_str) {
                    self.complete(id.to_owned());
                }
                return;
            }
            "notifications/tools/list_changed" => Change::Tools,
            "notifications/prompts/list_changed" => Change::Prompts,
            "notifications/resources/list_changed" => Change::Resources,
            "notifications/resources/updated" => {
                let uri = n.params.as_ref().and_then(|p| p.get("uri"));
                match uri.and_then(Value::as_str) {
                    Some(u) => Change::Updated(u.to_owned()),
                    None => return,
                }
            }
            _ => return,
        };
        let _ = self.0.changes.send(change);
    }
}
