//! `mcp::client::Client` against our own server over every transport × revision × connect mode.
//!
//! One server (`tests/examples/client_matrix_server.rs`: in process, or spawned for stdio) and one
//! scripted session ([`session`]) that checks, per revision, exactly what the revision
//! defines: titles from 2025-06-18, icons from 2025-11-25, structured content and
//! elicitation from 2025-06-18, `completions` from 2025-03-26; server-to-client requests on
//! legacy sessions and `input_required` rounds on 2026-07-28; `resources/subscribe` on
//! legacy and `subscriptions/listen` on 2026; `logging/setLevel` on legacy and the
//! per-request log level on 2026. A stateless legacy HTTP server has no session, so none
//! of what needs one. The pair the spec does not define (2026-07-28 over HTTP+SSE) asserts
//! the client's error, and auto mode there lands on the newest legacy revision.
//!
//! `matrix!` generates one `#[tokio::test]` per transport × revision × mode, so a failure
//! names its pair (`http_stateless::v2025_06_18_auto`).

#[path = "support/examples.rs"]
mod examples;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::CancellationToken;
use mcp::client::Client;
use mcp::client::{
    ClientError, ClientHandler, ConnectMode, RequestOptions, ServerNotification, StderrMode,
    Transport as Wire,
};
use mcp::jsonrpc::ErrorObject;
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use mcp::types::{
    CompleteParams, CompletionReference, CreateMessageParams, CreateMessageResult, ElicitParams,
    ElicitResult, ListRootsResult, LoggingLevel, Root, SubscriptionFilter, TextContent,
};
use mcp::version::{Era, SupportedVersions};
use serde_json::{Value, json};
use tokio::sync::broadcast;

use ProtocolVersion as V;

#[path = "../examples/client_matrix_server.rs"]
#[allow(dead_code)]
mod fixture;

/// How the client reaches the server.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Transport {
    /// `Server::serve_in_memory`.
    Memory,
    /// A small `tokio::io::duplex` pipe (frames cross many partial reads and writes).
    Duplex,
    /// A loopback TCP socket.
    Tcp,
    /// The fixture spawned as a child process.
    Stdio,
    /// Streamable HTTP: legacy sessions, or stateless 2026-07-28.
    Http,
    /// Streamable HTTP with `HttpOptions::stateless_legacy`.
    HttpStateless,
    /// The 2024-11-05 HTTP+SSE transport.
    Sse,
}

/// How the client picks the revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// `ConnectMode::Legacy(v)`: the `initialize` handshake offering `v`.
    Legacy,
    /// `ConnectMode::Modern(v)`: pinned to a modern revision.
    Pinned,
    /// `ConnectMode::Auto` against a server that offers only `v` (all, for 2026-07-28).
    Auto,
}

// ---------------------------------------------------------------------------------------
// The client's side of server-to-client traffic
// ---------------------------------------------------------------------------------------

/// How often the client's handler answered each kind of server request.
#[derive(Default)]
struct Host {
    elicits: AtomicU32,
    samples: AtomicU32,
    roots: AtomicU32,
}

/// Answers elicitation, sampling and roots, counting each call in its [`Host`].
struct Handler(Arc<Host>);

impl ClientHandler for Handler {
    async fn elicit(&self, _p: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        self.0.elicits.fetch_add(1, Ordering::SeqCst);
        let mut content = std::collections::BTreeMap::new();
        content.insert("name".to_owned(), "Ada".into());
        Ok(ElicitResult::accept(content))
    }

    async fn create_message(
        &self,
        p: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        self.0.samples.fetch_add(1, Ordering::SeqCst);
        let asked = serde_json::to_value(&p.messages[0].content).unwrap_or_default();
        let answer = if asked["text"] == "what is 6*7?" {
            "42"
        } else {
            "?"
        };
        Ok(CreateMessageResult::new(
            "model-x",
            TextContent::new(answer),
        ))
    }

    async fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
        self.0.roots.fetch_add(1, Ordering::SeqCst);
        Ok(ListRootsResult::new(vec![Root::new("file:///matrix")]))
    }
}

// ---------------------------------------------------------------------------------------
// Connecting
// ---------------------------------------------------------------------------------------

/// Stops what a test started (HTTP servers) when dropped.
#[derive(Debug)]
struct Running(Option<CancellationToken>);

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(t) = &self.0 {
            t.cancel();
        }
    }
}

/// The fixture, built once (`cargo test --test client_matrix` alone builds no examples).
fn fixture() -> PathBuf {
    examples::built(examples::TESTS, "client_matrix_server", &[])
}

fn versions_for(v: V, mode: Mode) -> SupportedVersions {
    match mode {
        Mode::Auto if v.era() == Era::Legacy => SupportedVersions::only(&[v]),
        _ => SupportedVersions::all(),
    }
}

fn connect_mode(v: V, mode: Mode) -> ConnectMode {
    match mode {
        Mode::Legacy => ConnectMode::Legacy(v),
        Mode::Pinned => ConnectMode::Modern(v),
        Mode::Auto => ConnectMode::Auto,
    }
}

fn client_builder(v: V, mode: Mode, host: &Arc<Host>) -> mcp::client::ClientBuilder {
    let caps = serde_json::from_value(json!({
        "roots": {"listChanged": true},
        "sampling": {},
        "elicitation": {"form": {}}
    }))
    .expect("client capabilities");
    Client::builder()
        .mode(connect_mode(v, mode))
        .capabilities(caps)
        .handler(Handler(host.clone()))
        .request_timeout(Duration::from_secs(10))
        .probe_timeout(Duration::from_secs(5))
        .connect_timeout(Duration::from_secs(5))
        .stderr(StderrMode::Capture)
}

async fn serve_http(server: Server, opts: HttpOptions) -> (String, Running) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let st = stop.clone();
    // The 2024-11-05 transport is opt-in; these tests drive it too.
    let opts = HttpOptions {
        legacy_sse: opts
            .legacy_sse
            .or(Some(("/sse".into(), "/messages".into()))),
        ..opts
    };
    tokio::spawn(async move { server.serve_http_on(listener, opts, st).await });
    (format!("http://{addr}"), Running(Some(stop)))
}

async fn connect(
    t: Transport,
    v: V,
    mode: Mode,
    host: &Arc<Host>,
) -> Result<(Client, Running), ClientError> {
    let server = || fixture::server(versions_for(v, mode), Arc::default());
    let b = client_builder(v, mode, host);
    let none = Running(None);
    match t {
        Transport::Memory => Ok((b.connect(server().serve_in_memory()).await?, none)),
        Transport::Duplex => {
            let (client_end, server_end) = tokio::io::duplex(512);
            let s = server();
            tokio::spawn(async move {
                let (r, w) = tokio::io::split(server_end);
                s.serve(r, w).await
            });
            Ok((b.connect(client_end).await?, none))
        }
        Transport::Tcp => {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            let addr = listener.local_addr().unwrap();
            let s = server();
            tokio::spawn(async move {
                let (sock, _) = listener.accept().await?;
                let (r, w) = sock.into_split();
                s.serve(r, w).await
            });
            let sock = tokio::net::TcpStream::connect(addr).await.unwrap();
            Ok((b.connect(sock).await?, none))
        }
        Transport::Stdio => {
            let mut cmd = tokio::process::Command::new(fixture());
            cmd.arg("--stdio").env_remove("RUST_LOG");
            if mode == Mode::Auto && v.era() == Era::Legacy {
                cmd.arg(v.as_str());
            }
            Ok((b.spawn(cmd).await?, none))
        }
        Transport::Http | Transport::HttpStateless => {
            let opts = HttpOptions {
                stateless_legacy: t == Transport::HttpStateless,
                ..HttpOptions::default()
            };
            let (base, running) = serve_http(server(), opts).await;
            Ok((b.connect_http(&format!("{base}/mcp")).await?, running))
        }
        Transport::Sse => {
            let (base, running) = serve_http(server(), HttpOptions::default()).await;
            let url = format!("{base}/sse");
            let c = match mode {
                // Auto on the SSE URL: the modern probe and `initialize` are refused
                // there, so the client falls back to the HTTP+SSE transport.
                Mode::Auto => b.connect_http(&url).await?,
                _ => b.connect_sse(&url).await?,
            };
            Ok((c, running))
        }
    }
}

/// Runs the pair: connects, then the session at the revision the pair must negotiate.
async fn run(t: Transport, v: V, mode: Mode) {
    let work = async {
        let host = Arc::new(Host::default());
        if t == Transport::Sse && v.era() == Era::Modern && mode == Mode::Pinned {
            // Not defined by the spec: 2026-07-28 has no HTTP+SSE transport.
            let e = connect(t, v, mode, &host).await.unwrap_err();
            assert!(
                matches!(&e, ClientError::Unsupported(m) if m.contains("HTTP+SSE")),
                "{e:?}"
            );
            return;
        }
        let (c, _running) = connect(t, v, mode, &host)
            .await
            .unwrap_or_else(|e| panic!("connecting ({t:?}, {v}, {mode:?}): {e}"));
        // Auto over an SSE endpoint can only reach the newest revision SSE carries.
        let expected = if t == Transport::Sse && v.era() == Era::Modern {
            V::LATEST_HANDSHAKE
        } else {
            v
        };
        session(&c, t, expected, &host).await;
        let status = c.shutdown().await.unwrap();
        if t == Transport::Stdio {
            // Closing stdin lets the child finish on its own, with success.
            let status = status.expect("a child's exit status");
            assert!(status.success(), "{status:?}: {:?}", c.stderr());
        }
        // A closed client fails at once, whatever the transport.
        let e = c
            .call_tool("add", json!({"a": 1, "b": 1}))
            .await
            .unwrap_err();
        assert!(
            matches!(e, ClientError::Closed(_) | ClientError::ProcessExited(_)),
            "{e:?}"
        );
    };
    if t == Transport::Stdio {
        // Building the fixture (once) is not part of the session's time.
        fixture();
    }
    tokio::time::timeout(Duration::from_secs(60), work)
        .await
        .unwrap_or_else(|_| panic!("({t:?}, {v}, {mode:?}) hung"));
}

// ---------------------------------------------------------------------------------------
// The session
// ---------------------------------------------------------------------------------------

fn text(r: &CallToolResult) -> String {
    assert_ne!(r.is_error, Some(true), "tool failed: {r:?}");
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text block: {r:?}"))
        .to_owned()
}

/// The next notification `method` for which `pred` holds (waiting at most 5 s).
async fn wait_for(
    rx: &mut broadcast::Receiver<ServerNotification>,
    method: &str,
    pred: impl Fn(&Value) -> bool,
) -> ServerNotification {
    let wait = async {
        loop {
            match rx.recv().await {
                Ok(n) if n.method == method && pred(n.params.as_ref().unwrap_or(&Value::Null)) => {
                    return n;
                }
                Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => {}
                Err(e) => panic!("notifications ended: {e}"),
            }
        }
    };
    tokio::time::timeout(Duration::from_secs(5), wait)
        .await
        .unwrap_or_else(|_| panic!("no {method} arrived"))
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Weather {
    city: String,
    celsius: f64,
}

#[derive(serde::Deserialize)]
struct Stats {
    cancelled: u64,
}

/// What the connection must carry at revision `v`.
async fn session(c: &Client, t: Transport, v: V, host: &Host) {
    let modern = v.era() == Era::Modern;
    // A stateless legacy HTTP server forgets everything between requests: no session
    // state (log level, subscriptions) and no way to reach the client.
    let stateful = modern || t != Transport::HttpStateless;
    let titled = v.at_least(V::V2025_06_18);
    let iconed = v.at_least(V::V2025_11_25);

    // Negotiation.
    assert_eq!(c.protocol_version(), v);
    let s = c.session();
    assert_eq!(
        s.server_info.as_ref().map(|i| i.name.as_str()),
        Some("matrix")
    );
    assert_eq!(s.instructions.as_deref(), Some("The client matrix server."));
    let want_wire = match t {
        Transport::Http | Transport::HttpStateless => Wire::StreamableHttp,
        Transport::Sse => Wire::HttpSse,
        _ => Wire::Stream,
    };
    assert_eq!(c.transport(), want_wire);
    let caps = &s.capabilities;
    assert!(caps.tools.is_some() && caps.prompts.is_some() && caps.logging.is_some());
    assert_eq!(caps.completions.is_some(), v.at_least(V::V2025_03_26));
    let resources = caps.resources.as_ref().expect("resources capability");
    // 2026: resource updates on a listen stream; legacy: `resources/subscribe`.
    assert_eq!(resources.subscribe, Some(true).filter(|_| stateful));
    c.ping().await.unwrap();

    // Tools, shaped for the revision, in pages of 4.
    let first = c.list_tools(None).await.unwrap();
    assert_eq!(first.tools.len(), 4);
    assert!(first.next_cursor.is_some());
    let tools = c.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "add",
            "region",
            "weather",
            "countdown",
            "sleep",
            "stats",
            "log",
            "ask_name",
            "summarize",
            "list_roots",
            "ask_both",
            "enable_echo",
            "touch"
        ]
    );
    assert_eq!(tools[0].title.is_some(), titled, "add.title");
    assert_eq!(tools[0].icons.is_some(), iconed, "add.icons");
    assert_eq!(
        tools[2].output_schema.is_some(),
        titled,
        "weather.outputSchema"
    );
    let r = c.call_tool("add", json!({"a": 2, "b": 3})).await.unwrap();
    assert_eq!(text(&r), "5");
    let e = c.call_tool("nope", ()).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602), "{e}");
    let r = c
        .call_tool("region", json!({"region": "eu-west"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "served from eu-west");

    // Calls in flight at once on one connection, answered each to its own caller.
    let calls: Vec<_> = (0..8)
        .map(|i| {
            let c = c.clone();
            tokio::spawn(async move { c.call_tool("add", json!({"a": i, "b": 100})).await })
        })
        .collect();
    let mut sums = Vec::new();
    for call in calls {
        sums.push(text(&call.await.unwrap().unwrap()));
    }
    let want: Vec<String> = (100..108).map(|n: i32| n.to_string()).collect();
    assert_eq!(sums, want);

    // Structured output: `structuredContent` from 2025-06-18, the JSON text everywhere.
    let r = c
        .call_tool("weather", json!({"city": "Paris"}))
        .await
        .unwrap();
    assert_eq!(r.structured_content.is_some(), titled, "{r:?}");
    let w: Weather = serde_json::from_str(&text(&r)).unwrap();
    assert_eq!(w.city, "Paris");
    let w: Weather = c
        .call_tool_structured("weather", json!({"city": "Oslo"}))
        .await
        .unwrap();
    assert_eq!(
        w,
        Weather {
            city: "Oslo".into(),
            celsius: 14.0
        }
    );

    // Progress, for this request, before its result.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let sink = seen.clone();
    let opts = RequestOptions::with_progress(move |p| sink.lock().unwrap().push(p.progress));
    let r = c
        .call_tool_with("countdown", json!({"steps": 3}), opts)
        .await
        .unwrap();
    assert_eq!(text(&r), "counted to 3");
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0, 3.0]);

    let session_id = c.http_session_id();
    assert_eq!(
        session_id.is_some(),
        t == Transport::Http && !modern,
        "Mcp-Session-Id: {session_id:?}"
    );

    cancellation(c).await;
    resources_and_prompts(c, titled, iconed).await;
    logging(c, modern, stateful).await;
    interactions(c, v, stateful, host).await;
    subscriptions(c, modern, stateful).await;
    list_changed(c, modern, stateful).await;
}

/// Dropping a running call cancels it on the server, and the connection goes on.
async fn cancellation(c: &Client) {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let tx = Mutex::new(Some(tx));
    let opts = RequestOptions::with_progress(move |_| {
        if let Some(tx) = tx.lock().unwrap().take() {
            let _ = tx.send(());
        }
    });
    let call = c.call_tool_with("sleep", json!({"ms": 20_000}), opts);
    tokio::select! {
        r = call => panic!("sleep returned: {r:?}"),
        _ = rx => {}
    }
    // The call future is dropped: the server must see the cancellation (within 10 s: 71
    // pairs share two cores under CI, with child processes among them).
    let mut cancelled = 0;
    for _ in 0..500 {
        let s: Stats = c.call_tool_structured("stats", ()).await.unwrap();
        cancelled = s.cancelled;
        if cancelled > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(cancelled, 1, "the server never saw the cancellation");
}

async fn resources_and_prompts(c: &Client, titled: bool, iconed: bool) {
    let res = c.list_all_resources().await.unwrap();
    assert_eq!(res.len(), 1);
    assert_eq!(res[0].uri, "matrix://readme");
    assert_eq!(res[0].title.is_some(), titled, "resource title");
    assert_eq!(res[0].icons.is_some(), iconed, "resource icons");
    let read = c.read_resource("matrix://readme").await.unwrap();
    let body = serde_json::to_value(&read.contents[0]).unwrap();
    assert_eq!(body["text"], "the matrix server");
    let templates = c.list_resource_templates(None).await.unwrap();
    let tpl = &templates.resource_templates[0];
    assert_eq!(tpl.uri_template, "matrix://notes/{id}");
    assert_eq!(tpl.title.is_some(), titled, "template title");
    let note = c.read_resource("matrix://notes/7").await.unwrap();
    assert_eq!(
        serde_json::to_value(&note.contents[0]).unwrap()["text"],
        "note 7"
    );

    let prompts = c.list_all_prompts().await.unwrap();
    assert_eq!(prompts[0].name, "greet");
    assert_eq!(prompts[0].title.is_some(), titled, "prompt title");
    assert_eq!(prompts[0].icons.is_some(), iconed, "prompt icons");
    let p = c.get_prompt("greet", [("name", "Ada")]).await.unwrap();
    assert_eq!(
        serde_json::to_value(&p.messages[0].content).unwrap()["text"],
        "Please greet Ada."
    );
    let e = c.get_prompt("greet", Vec::<(&str, &str)>::new()).await;
    assert_eq!(e.unwrap_err().code(), Some(-32602));

    let done = c
        .complete(CompleteParams::new(
            CompletionReference::prompt("greet"),
            "name",
            "Al",
        ))
        .await
        .unwrap();
    assert_eq!(done.completion.values, ["Alan", "Alonzo"]);
}

/// Legacy: `logging/setLevel` for the session; 2026: the level rides on each request.
async fn logging(c: &Client, modern: bool, stateful: bool) {
    let mut rx = c.notifications();
    let r = if modern {
        let e = c.set_log_level(LoggingLevel::Warning).await.unwrap_err();
        assert!(matches!(e, ClientError::Unsupported(_)), "{e:?}");
        // Without a level, nothing is sent.
        let r = c.call_tool("log", ()).await.unwrap();
        assert_eq!(text(&r), "sent 0 of 2");
        let opts = RequestOptions {
            log_level: Some(LoggingLevel::Warning),
            ..RequestOptions::default()
        };
        c.call_tool_with("log", (), opts).await.unwrap()
    } else {
        c.set_log_level(LoggingLevel::Warning).await.unwrap();
        c.call_tool("log", ()).await.unwrap()
    };
    if !stateful {
        // The level was set on a request of its own: the next request does not know it.
        assert_eq!(text(&r), "sent 0 of 2");
        return;
    }
    assert_eq!(text(&r), "sent 1 of 2");
    let n = wait_for(&mut rx, "notifications/message", |_| true).await;
    let p = n.params.unwrap();
    assert_eq!(p["level"], "error", "{p}");
    assert_eq!(p["data"], "error: one thing broke");
    assert_eq!(p["logger"], "matrix");
}

/// Elicitation (2025-06-18+), sampling and roots: one server-to-client request each on
/// legacy sessions (one run of the tool), an `input_required` round on 2026 (the tool runs
/// again with the answer).
async fn interactions(c: &Client, v: V, stateful: bool, host: &Host) {
    let runs = if v.era() == Era::Modern { 2 } else { 1 };
    if !v.at_least(V::V2025_06_18) {
        // The revision has no elicitation: the tool learns it and says so.
        let r = c.call_tool("ask_name", ()).await.unwrap();
        assert_eq!(r.is_error, Some(true));
        let said = serde_json::to_value(&r.content[0]).unwrap();
        let want = format!("elicitation does not exist in revision {v}");
        assert_eq!(said["text"], want.as_str());
    }
    if !stateful {
        // No session: the server knows no client capabilities and cannot reach the client.
        let tools = ["ask_name", "summarize", "list_roots"];
        let skip = usize::from(!v.at_least(V::V2025_06_18));
        for tool in &tools[skip..] {
            let e = c.call_tool(tool, json!({"text": "x"})).await.unwrap_err();
            assert_eq!(e.code(), Some(-32021), "{tool}: {e}");
        }
    } else {
        if v.at_least(V::V2025_06_18) {
            let r = c.call_tool("ask_name", ()).await.unwrap();
            assert_eq!(text(&r), format!("Hello, Ada! (runs={runs})"));
        }
        let r = c
            .call_tool("summarize", json!({"text": "what is 6*7?"}))
            .await
            .unwrap();
        assert_eq!(text(&r), format!("model-x said 42 (runs={runs})"));
        let r = c.call_tool("list_roots", ()).await.unwrap();
        assert_eq!(text(&r), format!("file:///matrix (runs={runs})"));
    }
    let answered = |n: &AtomicU32| n.load(Ordering::SeqCst);
    let elicited = u32::from(stateful && v.at_least(V::V2025_06_18));
    assert_eq!(answered(&host.elicits), elicited);
    assert_eq!(answered(&host.samples), u32::from(stateful));
    assert_eq!(answered(&host.roots), u32::from(stateful));
    if stateful {
        // Both questions of one call: still one extra run on 2026 (one round for both).
        let r = c.call_tool("ask_both", ()).await.unwrap();
        assert_eq!(text(&r), format!("model-x and 1 root(s) (runs={runs})"));
        assert_eq!(answered(&host.samples), 2);
        assert_eq!(answered(&host.roots), 2);
    }
}

/// Legacy: `resources/subscribe` and `notifications/resources/updated` on the session;
/// 2026: a `subscriptions/listen` stream.
async fn subscriptions(c: &Client, modern: bool, stateful: bool) {
    const URI: &str = "matrix://readme";
    if modern {
        let e = c.subscribe_resource(URI).await.unwrap_err();
        assert_eq!(e.code(), Some(-32601), "{e}");
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(vec![URI.into()]),
            ..SubscriptionFilter::default()
        };
        let mut sub = c.listen(filter).await.unwrap();
        assert_eq!(
            sub.acknowledged().resource_subscriptions.as_deref(),
            Some(&[URI.to_owned()][..])
        );
        c.call_tool("touch", json!({"uri": URI})).await.unwrap();
        let n = tokio::time::timeout(Duration::from_secs(5), sub.next())
            .await
            .expect("no update on the listen stream")
            .expect("the listen stream ended");
        assert_eq!(n.method, "notifications/resources/updated");
        assert_eq!(n.params.unwrap()["uri"], URI);
        drop(sub);
        return;
    }
    let e = c.listen(SubscriptionFilter::default()).await.unwrap_err();
    assert!(matches!(e, ClientError::Unsupported(_)), "{e:?}");
    if !stateful {
        return;
    }
    let mut rx = c.notifications();
    c.subscribe_resource(URI).await.unwrap();
    c.call_tool("touch", json!({"uri": URI})).await.unwrap();
    wait_for(&mut rx, "notifications/resources/updated", |p| {
        p["uri"] == URI
    })
    .await;
    c.unsubscribe_resource(URI).await.unwrap();
}

/// A tool added at run time: `notifications/tools/list_changed` on the legacy session or
/// on a 2026 listen stream, and the next `tools/list` has it.
async fn list_changed(c: &Client, modern: bool, stateful: bool) {
    const CHANGED: &str = "notifications/tools/list_changed";
    let mut rx = c.notifications();
    let mut sub = None;
    if modern {
        let filter = SubscriptionFilter {
            tools_list_changed: Some(true),
            ..SubscriptionFilter::default()
        };
        let s = c.listen(filter).await.unwrap();
        assert_eq!(s.acknowledged().tools_list_changed, Some(true));
        sub = Some(s);
    }
    let caps = c.server_capabilities();
    let promised = caps.tools.and_then(|t| t.list_changed);
    assert_eq!(
        promised,
        Some(true).filter(|_| stateful),
        "tools.listChanged"
    );
    c.call_tool("enable_echo", ()).await.unwrap();
    if let Some(mut s) = sub {
        let n = tokio::time::timeout(Duration::from_secs(5), s.next())
            .await
            .expect("no list change on the listen stream")
            .expect("the listen stream ended");
        assert_eq!(n.method, CHANGED);
    } else if stateful {
        wait_for(&mut rx, CHANGED, |_| true).await;
    }
    let tools = c.list_all_tools().await.unwrap();
    assert_eq!(tools.last().map(|t| t.name.as_str()), Some("echo"));
    let r = c.call_tool("echo", json!({"text": "hi"})).await.unwrap();
    assert_eq!(text(&r), "hi");
}

// ---------------------------------------------------------------------------------------
// The matrix
// ---------------------------------------------------------------------------------------

/// One module per transport, one test per revision × mode.
macro_rules! matrix {
    ($($name:ident => $transport:expr;)*) => {$(
        mod $name {
            use super::*;

            #[tokio::test]
            async fn v2024_11_05_legacy() {
                run($transport, V::V2024_11_05, Mode::Legacy).await
            }
            #[tokio::test]
            async fn v2024_11_05_auto() {
                run($transport, V::V2024_11_05, Mode::Auto).await
            }
            #[tokio::test]
            async fn v2025_03_26_legacy() {
                run($transport, V::V2025_03_26, Mode::Legacy).await
            }
            #[tokio::test]
            async fn v2025_03_26_auto() {
                run($transport, V::V2025_03_26, Mode::Auto).await
            }
            #[tokio::test]
            async fn v2025_06_18_legacy() {
                run($transport, V::V2025_06_18, Mode::Legacy).await
            }
            #[tokio::test]
            async fn v2025_06_18_auto() {
                run($transport, V::V2025_06_18, Mode::Auto).await
            }
            #[tokio::test]
            async fn v2025_11_25_legacy() {
                run($transport, V::V2025_11_25, Mode::Legacy).await
            }
            #[tokio::test]
            async fn v2025_11_25_auto() {
                run($transport, V::V2025_11_25, Mode::Auto).await
            }
            #[tokio::test]
            async fn v2026_07_28_pinned() {
                run($transport, V::V2026_07_28, Mode::Pinned).await
            }
            #[tokio::test]
            async fn v2026_07_28_auto() {
                run($transport, V::V2026_07_28, Mode::Auto).await
            }
        }
    )*};
}

matrix! {
    memory => Transport::Memory;
    duplex => Transport::Duplex;
    tcp => Transport::Tcp;
    stdio => Transport::Stdio;
    http => Transport::Http;
    http_stateless => Transport::HttpStateless;
    sse => Transport::Sse;
}

/// The modes that name the wrong era fail before anything is sent, saying why.
#[tokio::test]
async fn a_mode_of_the_other_era_is_a_clear_error() {
    let host = Arc::new(Host::default());
    for (v, mode, says) in [
        (V::V2026_07_28, Mode::Legacy, "no initialize handshake"),
        (V::V2025_06_18, Mode::Pinned, "not a modern revision"),
    ] {
        let e = connect(Transport::Memory, v, mode, &host)
            .await
            .unwrap_err();
        assert!(
            matches!(&e, ClientError::Unsupported(m) if m.contains(says)),
            "{v} {mode:?}: {e:?}"
        );
    }
}
