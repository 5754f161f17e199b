//! The relay of `mcp dev`: the client attached to `mcp dev`'s stdin and stdout, and the
//! user's server run with `cargo run`, connected with our client when the client opens the
//! session, at the revision it asks for; the rest relayed both ways. Not `mcp::proxy` (which
//! `mcp bridge` and `mcp gateway` serve): a restart replays the client's own handshake to
//! the new process and tells it every list changed, which a 2026-07-28 client hears on
//! stdout without a listen stream.
//!
//! - `initialize` (legacy) connects upstream with the client's revision, `clientInfo` and
//!   capabilities and answers with what the server negotiated; `server/discover` (2026)
//!   connects pinned to the revision of its `_meta` and is then relayed, so a legacy
//!   server's refusal reaches the client (which falls back to `initialize`);
//! - every other request is relayed as it is, concurrently; a 2026 `input_required` result
//!   goes back to the client unanswered (its retry, `requestState` and all, is relayed
//!   again); `notifications/cancelled` cancels the upstream request;
//! - the server's notifications are written to stdout; its requests (sampling,
//!   elicitation, roots) become requests to the stdio client, whose answers go back.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult,
    Implementation, ListRootsResult,
};
use mcp_core::version::{Era, ProtocolVersion};
use mcp_runtime::client::cache::CacheMode;
use mcp_runtime::client::{
    Client, ClientError, ClientHandler, ConnectMode, RequestOptions, ServerNotification,
};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio::task::AbortHandle;

use crate::Failure;
use crate::args::Cli;

/// The `_meta` keys of the 2026 request envelope.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_INFO: &str = "io.modelcontextprotocol/clientInfo";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";

type Answer = Result<Value, ErrorObject>;

/// What the relay tasks share: stdout, the server's requests waiting for the stdio
/// client's answers, the client's requests in flight upstream.
struct Shared {
    out: mpsc::UnboundedSender<String>,
    asked: Mutex<HashMap<String, oneshot::Sender<Answer>>>,
    next: AtomicU64,
    running: Mutex<HashMap<String, AbortHandle>>,
}

impl Shared {
    /// Shared state writing to `out`.
    fn new(out: mpsc::UnboundedSender<String>) -> Arc<Self> {
        Arc::new(Shared {
            out,
            asked: Mutex::new(HashMap::new()),
            next: AtomicU64::new(1),
            running: Mutex::new(HashMap::new()),
        })
    }

    /// The client's answer to one of the server's requests.
    fn answered(&self, msg: &Value) {
        let Some(id) = msg.get("id") else { return };
        let waiter = self.asked.lock().expect("asked lock").remove(&key(id));
        if let Some(w) = waiter {
            let answer = match msg.get("error") {
                Some(e) => Err(serde_json::from_value(e.clone())
                    .unwrap_or_else(|_| internal("malformed error"))),
                None => Ok(msg.get("result").cloned().unwrap_or(Value::Null)),
            };
            let _ = w.send(answer);
        }
    }

    fn write(&self, msg: &Value) {
        let _ = self.out.send(msg.to_string());
    }

    fn answer(&self, id: &Value, answer: Answer) {
        let msg = match answer {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => json!({"jsonrpc": "2.0", "id": id, "error": e}),
        };
        self.write(&msg);
    }

    /// Sends the stdio client a request and waits for its answer.
    async fn ask<P: Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        params: Option<P>,
    ) -> Result<R, ErrorObject> {
        let id = format!("bridge-{}", self.next.fetch_add(1, Ordering::Relaxed));
        let (tx, rx) = oneshot::channel();
        self.asked
            .lock()
            .expect("asked lock")
            .insert(key(&json!(id)), tx);
        let mut msg = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if let Some(p) = params {
            msg["params"] = serde_json::to_value(p).map_err(|e| internal(&e.to_string()))?;
        }
        self.write(&msg);
        let answer = rx
            .await
            .map_err(|_| internal("the stdio client went away"))??;
        serde_json::from_value(answer).map_err(|e| internal(&format!("{method}: {e}")))
    }
}

fn internal(message: &str) -> ErrorObject {
    ErrorObject {
        code: -32603,
        message: message.to_owned(),
        data: None,
    }
}

/// The upstream connection's handler: the server's requests go to the stdio client, its
/// notifications to stdout.
struct Relay(Arc<Shared>);

impl ClientHandler for Relay {
    async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        self.0.ask("sampling/createMessage", Some(params)).await
    }

    async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        self.0.ask("elicitation/create", Some(params)).await
    }

    async fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
        self.0.ask::<(), _>("roots/list", None).await
    }

    fn on_notification(&self, n: &ServerNotification) {
        let mut msg = json!({"jsonrpc": "2.0", "method": n.method});
        if let Some(p) = &n.params {
            msg["params"] = p.clone();
        }
        self.0.write(&msg);
    }
}

/// How the stdio client opened the session: replayed to each new upstream connection.
#[derive(Clone)]
struct Handshake {
    mode: ConnectMode,
    info: Option<Implementation>,
    caps: Option<ClientCapabilities>,
}

/// The relay's state between messages.
struct State<'a> {
    cli: &'a Cli,
    /// The arguments of `cargo run`.
    cargo_args: &'a [String],
    shared: Arc<Shared>,
    client: Option<Client>,
    handshake: Option<Handshake>,
}

/// Relays stdin/stdout to `cargo run CARGO_ARGS` until stdin closes; each message on
/// `restarts` reconnects (a new `cargo run`), replays the handshake and tells the client its
/// lists changed.
pub async fn relay_stdio(
    cli: &Cli,
    cargo_args: &[String],
    mut restarts: mpsc::UnboundedReceiver<()>,
) -> Result<(), Failure> {
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        while let Some(line) = rx.recv().await {
            let ok = stdout.write_all(line.as_bytes()).await.is_ok()
                && stdout.write_all(b"\n").await.is_ok()
                && stdout.flush().await.is_ok();
            if !ok {
                break;
            }
        }
    });
    let shared = Shared::new(tx);
    let mut st = State {
        cli,
        cargo_args,
        shared: shared.clone(),
        client: None,
        handshake: None,
    };
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    loop {
        let line = tokio::select! {
            line = lines.next_line() => line,
            Some(()) = restarts.recv() => {
                restart_upstream(&mut st).await;
                continue;
            }
        };
        let Ok(Some(line)) = line else { break };
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str(&line) {
            Ok(msg) => on_message(&mut st, msg).await,
            Err(e) => {
                let err = ErrorObject {
                    code: -32700,
                    message: format!("parse error: {e}"),
                    data: None,
                };
                shared.answer(&Value::Null, Err(err));
            }
        }
    }
    for (_, task) in shared.running.lock().expect("running lock").drain() {
        task.abort();
    }
    if let Some(c) = st.client.take() {
        let _ = c.shutdown().await;
    }
    drop((st, shared));
    let _ = writer.await;
    Ok(())
}

/// A new upstream connection with the session's handshake replayed; on success the old
/// one is shut down and the client told that every list may have changed.
async fn restart_upstream(st: &mut State<'_>) {
    let Some(hs) = st.handshake.clone() else {
        return; // No session yet: the next initialize starts the new build.
    };
    match connect_upstream(st, &hs).await {
        Ok(fresh) => {
            if let Some(old) = st.client.replace(fresh) {
                let _ = old.shutdown().await;
            }
            eprintln!("mcp dev: restarted the server");
            for list in ["tools", "prompts", "resources"] {
                let method = format!("notifications/{list}/list_changed");
                st.shared
                    .write(&json!({"jsonrpc": "2.0", "method": method}));
            }
        }
        Err(e) => eprintln!("mcp dev: the new server did not start ({e}); the old one stays"),
    }
}

/// One message from the stdio client.
async fn on_message(st: &mut State<'_>, msg: Value) {
    let id = msg.get("id").cloned();
    let method = msg.get("method").and_then(Value::as_str).map(str::to_owned);
    let params = msg.get("params").cloned();
    let shared = st.shared.clone();
    match (method, id) {
        // The stdio client's answer to a request the server made.
        (None, Some(_)) => shared.answered(&msg),
        (Some(m), None) => notification(&shared, st.client.as_ref(), &m, params).await,
        (Some(m), Some(id)) if st.client.is_none() => {
            let answer = open(st, &m, params).await;
            shared.answer(&id, answer);
        }
        (Some(m), Some(id)) => {
            let client = st.client.clone().expect("checked");
            relay(&shared, client, id, m, params);
        }
        (None, None) => {}
    }
}

/// A JSON-RPC id as a map key.
fn key(id: &Value) -> String {
    id.to_string()
}

async fn notification(
    shared: &Shared,
    upstream: Option<&Client>,
    method: &str,
    params: Option<Value>,
) {
    match method {
        // Our client sent its own when it connected.
        "notifications/initialized" => {}
        "notifications/cancelled" => {
            let id = params.as_ref().and_then(|p| p.get("requestId")).map(key);
            let task = id.and_then(|id| shared.running.lock().expect("running lock").remove(&id));
            // Dropping the upstream request cancels it there.
            if let Some(t) = task {
                t.abort();
            }
        }
        _ => {
            if let Some(c) = upstream {
                let _ = c.notify(method, params).await;
            }
        }
    }
}

/// How a client opens its session: `initialize` (legacy) or `server/discover` (2026).
fn handshake_of(method: &str, params: Option<&Value>) -> Result<Handshake, ErrorObject> {
    let null = Value::Null;
    let p = params.unwrap_or(&null);
    let (mode, info, caps) = match method {
        "initialize" => {
            let v = p.get("protocolVersion").and_then(Value::as_str);
            let v = v
                .and_then(ProtocolVersion::parse)
                .filter(|v| v.era() == Era::Legacy)
                .unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
            (
                ConnectMode::Legacy(v),
                p.get("clientInfo"),
                p.get("capabilities"),
            )
        }
        other => {
            // 2026: the envelope of any request (server/discover first, usually).
            let meta = p.get("_meta");
            let v = meta
                .and_then(|m| m.get(META_VERSION))
                .and_then(Value::as_str);
            let Some(v) = v
                .and_then(ProtocolVersion::parse)
                .filter(|v| v.era() == Era::Modern)
            else {
                return Err(ErrorObject {
                    code: -32600,
                    message: format!("`{other}` before initialize (or server/discover)"),
                    data: None,
                });
            };
            let info = meta.and_then(|m| m.get(META_INFO));
            (
                ConnectMode::Modern(v),
                info,
                meta.and_then(|m| m.get(META_CAPS)),
            )
        }
    };
    Ok(Handshake {
        mode,
        info: info.and_then(|i| serde_json::from_value(i.clone()).ok()),
        caps: caps.and_then(|c| serde_json::from_value(c.clone()).ok()),
    })
}

/// The `initialize` result a client gets: what the upstream connection negotiated.
fn initialize_result(client: &Client) -> Value {
    let s = client.session();
    let mut r = Map::new();
    r.insert("protocolVersion".into(), json!(s.version.as_str()));
    r.insert("capabilities".into(), json!(s.capabilities));
    r.insert("serverInfo".into(), json!(s.server_info));
    if let Some(i) = s.instructions {
        r.insert("instructions".into(), json!(i));
    }
    Value::Object(r)
}

/// The first request: `initialize` or `server/discover` opens the upstream connection.
async fn open(st: &mut State<'_>, method: &str, params: Option<Value>) -> Answer {
    let hs = handshake_of(method, params.as_ref())?;
    let client = connect_upstream(st, &hs).await.map_err(upstream_error)?;
    let answer = if method == "initialize" {
        Ok(initialize_result(&client))
    } else {
        forward(&client, method, params).await
    };
    st.client = Some(client);
    st.handshake = Some(hs);
    answer
}

/// Connects to the upstream server as the stdio client opened its session.
async fn connect_upstream(st: &State<'_>, hs: &Handshake) -> Result<Client, ClientError> {
    // `cargo run` may still be building when the handshake is sent.
    let timeout = st.cli.timeout.max(900);
    let mut b = Client::builder()
        .mode(hs.mode)
        .no_cache()
        .request_timeout(Duration::from_secs(timeout))
        .handler(Relay(st.shared.clone()));
    if let Some(info) = &hs.info {
        b = b.info(info.clone());
    }
    if let Some(c) = &hs.caps {
        b = b.capabilities(c.clone());
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = tokio::process::Command::new(cargo);
    cmd.arg("run").arg("--quiet").args(st.cargo_args);
    b.spawn(cmd).await
}

/// Relays one request upstream on its own task (so a slow one holds nothing up). A
/// cancelled one is aborted (its upstream request dropped, which cancels it there) and so
/// never answered; the answer and the task's removal happen with no await between them.
fn relay(shared: &Arc<Shared>, client: Client, id: Value, method: String, params: Option<Value>) {
    let k = key(&id);
    let s = shared.clone();
    let mine = k.clone();
    let task = tokio::spawn(async move {
        let answer = forward(&client, &method, params).await;
        s.running.lock().expect("running lock").remove(&mine);
        s.answer(&id, answer);
    });
    if !task.is_finished() {
        shared
            .running
            .lock()
            .expect("running lock")
            .insert(k, task.abort_handle());
    }
}

/// One request upstream, its answer as the stdio client gets it.
async fn forward(client: &Client, method: &str, params: Option<Value>) -> Answer {
    let opts = RequestOptions {
        input_rounds: Some(0),
        cache: Some(CacheMode::Bypass),
        // The stdio client has its own timeouts and cancels what it gives up on.
        timeout: Some(Duration::from_secs(24 * 3600)),
        ..RequestOptions::default()
    };
    match client.request_raw(method, params, opts).await {
        Ok(raw) => serde_json::from_str(raw.get()).map_err(|e| internal(&e.to_string())),
        Err(ClientError::InputRequired(raw)) => {
            serde_json::from_str(&raw).map_err(|e| internal(&e.to_string()))
        }
        Err(e) => Err(upstream_error(e)),
    }
}

/// A failure upstream as a JSON-RPC error: the server's own, or -32603 saying what broke.
fn upstream_error(e: ClientError) -> ErrorObject {
    match e {
        ClientError::Rpc(e) => e,
        ClientError::Http { error: Some(e), .. } => e,
        other => internal(&format!("upstream: {other}")),
    }
}
