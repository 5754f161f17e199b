//! `mcp bridge --http ADDR 'CMD ARGS'`: a stdio server served over Streamable HTTP at
//! `http://ADDR/mcp`, each session relayed with our client.
//!
//! - Legacy: each `initialize` (no `Mcp-Session-Id`) starts its own child process with the
//!   client's revision, info and capabilities, and answers with a new session id; the
//!   session's requests are relayed as JSON responses; its notifications and the server's
//!   own requests (sampling, elicitation, roots) go on the session's `GET` stream, whose
//!   answers come back as POSTs; `DELETE` ends the session and its process.
//! - 2026-07-28 (no session): one child process, connected at the revision of the first
//!   request's `_meta`, serves every request; `input_required` results are passed through.
//!   Each request is answered with an SSE stream: the child's progress notifications for
//!   its `progressToken`, the child's other notifications (log messages: a stdio server
//!   does not say which request they belong to, so every request in flight gets them),
//!   then the response.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use mcp_core::jsonrpc::ErrorObject;
use mcp_runtime::client::{Client, ClientError};
use mcp_runtime::transport::http::axum;
use serde_json::{Value, json};
use tokio::sync::{Mutex, mpsc};

use crate::Failure;
use crate::args::Cli;
use crate::bridge::{
    Answer, Handshake, Relay, Shared, forward, handshake_of, initialize_result, key, notification,
    upstream_error,
};

const SESSION: &str = "mcp-session-id";

/// One legacy session: its process, its relay state, its `GET` stream (until taken).
struct Session {
    client: Client,
    shared: Arc<Shared>,
    stream: std::sync::Mutex<Option<mpsc::UnboundedReceiver<String>>>,
}

struct Bridge {
    argv: Vec<String>,
    timeout: u64,
    sessions: Mutex<HashMap<String, Arc<Session>>>,
    /// The 2026 process and its relay state.
    modern: Mutex<Option<(Client, Arc<Shared>)>>,
    /// The 2026 requests in flight: their progress token and response stream.
    streams: Arc<Streams>,
}

/// A 2026 request in flight: its progress token (as a [`key`]) and its response stream.
type InFlight = (Option<String>, mpsc::UnboundedSender<String>);

/// The 2026 requests in flight, by a number of our own.
#[derive(Default)]
struct Streams {
    next: std::sync::atomic::AtomicU64,
    open: std::sync::Mutex<HashMap<u64, InFlight>>,
}

impl Streams {
    /// Routes one message of the 2026 process: progress to its token's request, anything
    /// else to every request in flight.
    fn route(&self, line: String) {
        let token = serde_json::from_str::<Value>(&line).ok().and_then(|v| {
            (v.get("method").and_then(Value::as_str) == Some("notifications/progress"))
                .then(|| {
                    v.get("params")
                        .and_then(|p| p.get("progressToken"))
                        .map(key)
                })
                .flatten()
        });
        let open = self.open.lock().expect("streams lock");
        for (t, tx) in open.values() {
            if token.is_none() || token == *t {
                let _ = tx.send(line.clone());
            }
        }
    }
}

/// Removes a request's stream when its task ends (answered, or aborted by a cancel).
struct Registered(Arc<Streams>, u64);

impl Drop for Registered {
    fn drop(&mut self) {
        self.0.open.lock().expect("streams lock").remove(&self.1);
    }
}

/// Serves `argv` over Streamable HTTP on `addr` until interrupted.
pub async fn serve(cli: &Cli, addr: &str, argv: Vec<String>) -> Result<(), Failure> {
    let addr: SocketAddr = addr
        .parse()
        .map_err(|e| Failure::usage(format!("--http `{addr}`: expected HOST:PORT ({e})")))?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| Failure::new(3, format!("cannot listen on {addr}: {e}")))?;
    let bridge = Arc::new(Bridge {
        argv,
        timeout: cli.timeout,
        sessions: Mutex::new(HashMap::new()),
        modern: Mutex::new(None),
        streams: Arc::new(Streams::default()),
    });
    let app = axum::Router::new()
        .route("/mcp", axum::routing::post(post).get(get).delete(delete))
        .with_state(bridge.clone());
    eprintln!("mcp bridge: serving on http://{addr}/mcp");
    let served = axum::serve(listener, app)
        .with_graceful_shutdown(async {
            // SIGINT or SIGTERM: the sessions' processes are shut down below.
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut term) => {
                    tokio::select! {
                        _ = tokio::signal::ctrl_c() => {}
                        _ = term.recv() => {}
                    }
                }
                Err(_) => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        })
        .await;
    for (_, s) in bridge.sessions.lock().await.drain() {
        let _ = s.client.shutdown().await;
    }
    if let Some((c, _)) = bridge.modern.lock().await.take() {
        let _ = c.shutdown().await;
    }
    served.map_err(|e| Failure::new(1, format!("serving: {e}")))
}

fn json_response(status: StatusCode, v: &Value) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        v.to_string(),
    )
        .into_response()
}

fn rpc_answer(id: &Value, answer: Answer) -> Response {
    let msg = match answer {
        Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
        Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
    };
    json_response(StatusCode::OK, &msg)
}

fn refuse(status: StatusCode, message: &str) -> Response {
    let e = json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": message}});
    json_response(status, &e)
}

impl Bridge {
    async fn spawn(&self, hs: &Handshake, shared: Arc<Shared>) -> Result<Client, ClientError> {
        let mut b = Client::builder()
            .mode(hs.mode)
            .no_cache()
            .request_timeout(Duration::from_secs(self.timeout))
            .handler(Relay(shared));
        if let Some(i) = &hs.info {
            b = b.info(i.clone());
        }
        if let Some(c) = &hs.caps {
            b = b.capabilities(c.clone());
        }
        let mut cmd = tokio::process::Command::new(&self.argv[0]);
        cmd.args(&self.argv[1..]);
        b.spawn(cmd).await
    }
}

async fn post(State(b): State<Arc<Bridge>>, headers: HeaderMap, body: Bytes) -> Response {
    let Ok(msg) = serde_json::from_slice::<Value>(&body) else {
        return refuse(StatusCode::BAD_REQUEST, "the body is not JSON");
    };
    if !msg.is_object() {
        return refuse(
            StatusCode::BAD_REQUEST,
            "one JSON-RPC message per POST (no batches)",
        );
    }
    let id = msg.get("id").cloned();
    let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
    let params = msg.get("params").cloned();
    let session = headers
        .get(SESSION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if let Some(sid) = session {
        let Some(s) = b.sessions.lock().await.get(&sid).cloned() else {
            return refuse(StatusCode::NOT_FOUND, "unknown session");
        };
        return on_message(&s.client, &s.shared, id, method, params, &msg).await;
    }
    match (method.as_deref(), id) {
        (Some("initialize"), Some(id)) => {
            let hs = match handshake_of("initialize", params.as_ref()) {
                Ok(hs) => hs,
                Err(e) => return rpc_answer(&id, Err(e)),
            };
            let (tx, rx) = mpsc::unbounded_channel();
            let shared = Shared::new(tx);
            let client = match b.spawn(&hs, shared.clone()).await {
                Ok(c) => c,
                Err(e) => return rpc_answer(&id, Err(upstream_error(e))),
            };
            let result = initialize_result(&client);
            let sid = format!("{:032x}", rand_id());
            let s = Session {
                client,
                shared,
                stream: std::sync::Mutex::new(Some(rx)),
            };
            b.sessions.lock().await.insert(sid.clone(), Arc::new(s));
            let mut r = rpc_answer(&id, Ok(result));
            if let Ok(v) = HeaderValue::from_str(&sid) {
                r.headers_mut().insert(SESSION, v);
            }
            r
        }
        (m, id) => {
            let mut modern = b.modern.lock().await;
            if modern.is_none() {
                let hs = match handshake_of(m.unwrap_or_default(), params.as_ref()) {
                    Ok(hs) => hs,
                    Err(e) => return answer_or_accept(id.as_ref(), Err(e)),
                };
                let (tx, mut rx) = mpsc::unbounded_channel::<String>();
                let streams = b.streams.clone();
                tokio::spawn(async move {
                    while let Some(line) = rx.recv().await {
                        streams.route(line);
                    }
                });
                let shared = Shared::new(tx);
                match b.spawn(&hs, shared.clone()).await {
                    Ok(c) => *modern = Some((c, shared)),
                    Err(e) => return answer_or_accept(id.as_ref(), Err(upstream_error(e))),
                }
            }
            let (client, shared) = modern.clone().expect("just set");
            drop(modern);
            match (method, id) {
                (Some(m), Some(id)) => modern_request(&b, client, shared, id, m, params),
                (method, id) => on_message(&client, &shared, id, method, params, &msg).await,
            }
        }
    }
}

fn answer_or_accept(id: Option<&Value>, answer: Answer) -> Response {
    match id {
        Some(id) => rpc_answer(id, answer),
        None => StatusCode::ACCEPTED.into_response(),
    }
}

/// A request (relayed, cancellable), a notification or a response of the HTTP client.
async fn on_message(
    client: &Client,
    shared: &Arc<Shared>,
    id: Option<Value>,
    method: Option<String>,
    params: Option<Value>,
    msg: &Value,
) -> Response {
    match (method, id) {
        (Some(m), Some(id)) => {
            let c = client.clone();
            let task = tokio::spawn(async move { forward(&c, &m, params).await });
            let k = key(&id);
            shared
                .running
                .lock()
                .expect("running lock")
                .insert(k.clone(), task.abort_handle());
            let answer = task.await;
            shared.running.lock().expect("running lock").remove(&k);
            match answer {
                Ok(a) => rpc_answer(&id, a),
                Err(_) => rpc_answer(
                    &id,
                    Err(ErrorObject {
                        code: -32800,
                        message: "request cancelled".into(),
                        data: None,
                    }),
                ),
            }
        }
        (Some(m), None) => {
            notification(shared, Some(client), &m, params).await;
            StatusCode::ACCEPTED.into_response()
        }
        (None, Some(_)) => {
            shared.answered(msg);
            StatusCode::ACCEPTED.into_response()
        }
        (None, None) => refuse(StatusCode::BAD_REQUEST, "not a JSON-RPC message"),
    }
}

/// A 2026 request, answered with an SSE stream: its notifications, then its response.
fn modern_request(
    b: &Bridge,
    client: Client,
    shared: Arc<Shared>,
    id: Value,
    method: String,
    params: Option<Value>,
) -> Response {
    let token = params
        .as_ref()
        .and_then(|p| p.get("_meta"))
        .and_then(|m| m.get("progressToken"))
        .map(key);
    let (tx, rx) = mpsc::unbounded_channel();
    let n = b
        .streams
        .next
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    b.streams
        .open
        .lock()
        .expect("streams lock")
        .insert(n, (token, tx.clone()));
    let registered = Registered(b.streams.clone(), n);
    let k = key(&id);
    let running = shared.clone();
    let task = tokio::spawn(async move {
        let _registered = registered;
        let answer = forward(&client, &method, params).await;
        shared
            .running
            .lock()
            .expect("running lock")
            .remove(&key(&id));
        let msg = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
        };
        let _ = tx.send(msg.to_string());
    });
    running
        .running
        .lock()
        .expect("running lock")
        .insert(k, task.abort_handle());
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(Events(rx, Some(task.abort_handle()))),
    )
        .into_response()
}

/// The session's stream: its notifications and the server's requests, as SSE events.
async fn get(State(b): State<Arc<Bridge>>, headers: HeaderMap) -> Response {
    let Some(sid) = headers.get(SESSION).and_then(|v| v.to_str().ok()) else {
        return StatusCode::METHOD_NOT_ALLOWED.into_response();
    };
    let Some(s) = b.sessions.lock().await.get(sid).cloned() else {
        return refuse(StatusCode::NOT_FOUND, "unknown session");
    };
    let Some(rx) = s.stream.lock().expect("stream lock").take() else {
        return refuse(StatusCode::CONFLICT, "the session's stream is already open");
    };
    let body = Body::from_stream(Events(rx, None));
    (
        [
            (header::CONTENT_TYPE, "text/event-stream"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

async fn delete(State(b): State<Arc<Bridge>>, headers: HeaderMap) -> Response {
    let sid = headers.get(SESSION).and_then(|v| v.to_str().ok());
    let s = match sid {
        Some(sid) => b.sessions.lock().await.remove(sid),
        None => None,
    };
    match s {
        Some(s) => {
            let _ = s.client.shutdown().await;
            StatusCode::OK.into_response()
        }
        None => refuse(StatusCode::NOT_FOUND, "unknown session"),
    }
}

/// Lines as SSE `message` events; dropped (the client went away: how a 2026 client
/// cancels over HTTP), it aborts the request it streams, which cancels it upstream.
struct Events(
    mpsc::UnboundedReceiver<String>,
    Option<tokio::task::AbortHandle>,
);

impl Drop for Events {
    fn drop(&mut self) {
        if let Some(t) = &self.1 {
            t.abort();
        }
    }
}

impl futures_core::Stream for Events {
    type Item = Result<Bytes, std::convert::Infallible>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0
            .poll_recv(cx)
            .map(|l| l.map(|l| Ok(Bytes::from(format!("event: message\ndata: {l}\n\n")))))
    }
}

/// A session id: 128 bits from the OS.
fn rand_id() -> u128 {
    use std::hash::{BuildHasher, Hasher};
    let mut n = 0u128;
    for _ in 0..2 {
        let mut h = std::collections::hash_map::RandomState::new().build_hasher();
        h.write_u128(n);
        n = (n << 64) | u128::from(h.finish());
    }
    n
}
