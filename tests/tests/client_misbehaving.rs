//! Misbehaving servers, in one place (issue 6): every case is a scripted fake server — an
//! in-process task on a duplex stream, a child process (`python3 -c` / `sh -c`), a raw HTTP
//! server on loopback TCP whose every byte the test writes, or a small axum app for the
//! 2024-11-05 HTTP+SSE stream — and every case runs under a hard timeout, so a hang fails
//! the test instead of stalling CI.
//!
//! What the client must do: ignore (and log) garbage and answers to nothing, fail exactly
//! the call a malformed or oversized answer belongs to, fail pending calls promptly with the
//! reason when the server goes away, time out and cancel a call that is never answered
//! (progress extends the wait up to the cap), resume or fail a cut HTTP stream, and answer
//! a server request it has no handler for with `-32601`.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode, RequestOptions, Transport};
use mcp::prelude::*;
use mcp::version::ProtocolVersion as V;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;

/// The hard limit of every case.
const HARD: Duration = Duration::from_secs(20);

/// Runs `f` under [`HARD`]: a hang is a failure.
async fn within<F: Future>(f: F) -> F::Output {
    tokio::time::timeout(HARD, f)
        .await
        .expect("the client hung on a misbehaving server")
}

fn init_result(version: &str) -> Value {
    json!({"protocolVersion": version, "capabilities": {"tools": {}},
        "serverInfo": {"name": "misbehaving", "version": "0"}})
}

fn tool_result(text: &str) -> Value {
    json!({"content": [{"type": "text", "text": text}]})
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

// ---------------------------------------------------------------------------------------
// Byte-stream fakes
// ---------------------------------------------------------------------------------------

/// The server end of a duplex stream, driven by the test line by line.
struct Fake {
    lines: tokio::io::Lines<BufReader<tokio::io::ReadHalf<DuplexStream>>>,
    w: tokio::io::WriteHalf<DuplexStream>,
}

impl Fake {
    /// The next message the client sent (`None` when it closed its side).
    async fn recv(&mut self) -> Option<Value> {
        let line = self.lines.next_line().await.unwrap()?;
        Some(serde_json::from_str(&line).expect("the client writes JSON"))
    }

    /// The next message with a method (skipping nothing: asserts it has one).
    async fn recv_method(&mut self, method: &str) -> Value {
        let m = self.recv().await.expect("a message");
        assert_eq!(m["method"], method, "{m}");
        m
    }

    /// Reads (and drops) what the client sends until it closes its side.
    async fn until_closed(&mut self) {
        while self.recv().await.is_some() {}
    }

    async fn raw(&mut self, bytes: &[u8]) {
        self.w.write_all(bytes).await.unwrap();
        self.w.flush().await.unwrap();
    }

    async fn send(&mut self, v: Value) {
        self.raw(format!("{v}\n").as_bytes()).await;
    }

    async fn answer(&mut self, req: &Value, result: Value) {
        self.send(json!({"jsonrpc": "2.0", "id": req["id"], "result": result}))
            .await;
    }

    /// Answers `initialize` and reads `notifications/initialized`.
    async fn handshake(&mut self) {
        let init = self.recv_method("initialize").await;
        self.answer(&init, init_result("2025-11-25")).await;
        self.recv_method("notifications/initialized").await;
    }
}

fn pair() -> (DuplexStream, Fake) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(server_end);
    (
        client_end,
        Fake {
            lines: BufReader::new(r).lines(),
            w,
        },
    )
}

fn legacy() -> mcp::client::ClientBuilder {
    Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .request_timeout(Duration::from_secs(5))
}

/// A connected client and its fake, the handshake done by `script` first.
async fn connected<F, Fut>(script: F) -> (Client, tokio::task::JoinHandle<()>)
where
    F: FnOnce(Fake) -> Fut + Send + 'static,
    Fut: Future<Output = ()> + Send + 'static,
{
    let (stream, fake) = pair();
    let task = tokio::spawn(script(fake));
    let client = within(legacy().connect(stream)).await.unwrap();
    (client, task)
}

/// Every kind of garbage a server may write to its stdout.
const GARBAGE: &[&[u8]] = &[
    b"Starting server on stdio...\n",
    b"{\"jsonrpc\":\"2.0\",\"id\":0,\"res\n",
    b"[1, 2, 3]\n",
    b"42\n",
    b"{\"hello\": \"world\"}\n",
    b"\xff\xfe not UTF-8 \xc3\n",
    b"\n",
];

#[tokio::test]
async fn garbage_before_and_between_answers_is_ignored() {
    let (client, task) = connected(|mut f| async move {
        let init = f.recv_method("initialize").await;
        for g in GARBAGE {
            f.raw(g).await;
        }
        f.answer(&init, init_result("2025-11-25")).await;
        f.recv_method("notifications/initialized").await;
        for _ in 0..2 {
            let call = f.recv_method("tools/call").await;
            for g in GARBAGE {
                f.raw(g).await;
            }
            let name = call["params"]["name"].as_str().unwrap().to_owned();
            f.answer(&call, tool_result(&name)).await;
        }
        f.until_closed().await;
    })
    .await;
    assert_eq!(client.protocol_version(), V::V2025_11_25);
    for name in ["first", "second"] {
        let r = within(client.call_tool(name, json!({}))).await.unwrap();
        assert_eq!(text(&r), name);
    }
    assert!(!client.is_closed());
    client.close().await.unwrap();
    within(task).await.unwrap();
}

#[tokio::test]
async fn a_garbage_handshake_is_a_clear_error() {
    // The server keeps writing garbage and never answers: the timeout names it.
    let (stream, mut fake) = pair();
    let task = tokio::spawn(async move {
        fake.recv_method("initialize").await;
        fake.raw(b"Usage: server [--port N]\n").await;
        fake.raw(b"{\"not\": \"jsonrpc\"}\n").await;
        // Stay silent until the client gives up.
        fake.until_closed().await;
    });
    let e = within(
        legacy()
            .request_timeout(Duration::from_millis(300))
            .connect(stream),
    )
    .await
    .unwrap_err();
    let ClientError::InvalidResponse(why) = &e else {
        panic!("{e:?}")
    };
    assert!(why.contains("timed out"), "{why}");
    assert!(why.contains("2 frame(s)"), "{why}");
    assert!(why.contains("Usage: server"), "{why}");
    task.await.unwrap();

    // The server writes garbage and hangs up: the closed stream names it too.
    let (stream, mut fake) = pair();
    let task = tokio::spawn(async move {
        fake.recv_method("initialize").await;
        fake.raw(b"<html>wrong program</html>\n").await;
    });
    let e = within(legacy().connect(stream)).await.unwrap_err();
    let ClientError::InvalidResponse(why) = &e else {
        panic!("{e:?}")
    };
    assert!(why.contains("closed"), "{why}");
    assert!(why.contains("<html>wrong program</html>"), "{why}");
    task.await.unwrap();

    // A silent server is a plain timeout: there is nothing more to say.
    let (stream, mut fake) = pair();
    let task = tokio::spawn(async move { fake.until_closed().await });
    let e = within(
        legacy()
            .request_timeout(Duration::from_millis(200))
            .connect(stream),
    )
    .await
    .unwrap_err();
    assert!(matches!(e, ClientError::Timeout), "{e:?}");
    task.await.unwrap();
}

#[tokio::test]
async fn answers_to_unknown_ids_wrong_id_types_and_duplicates_are_ignored() {
    let (client, task) = connected(|mut f| async move {
        f.handshake().await;
        let call = f.recv_method("tools/call").await;
        let n = call["id"].as_i64().unwrap();
        // Unknown id; the right number as a string; a fractional id; a null id with a
        // result; then the real answer, then a duplicate of it.
        f.send(json!({"jsonrpc": "2.0", "id": 999, "result": tool_result("unknown")}))
            .await;
        f.send(json!({"jsonrpc": "2.0", "id": n.to_string(), "result": tool_result("string id")}))
            .await;
        f.raw(format!("{{\"jsonrpc\":\"2.0\",\"id\":{n}.5,\"result\":{{}}}}\n").as_bytes())
            .await;
        f.send(json!({"jsonrpc": "2.0", "id": null, "result": tool_result("null id")}))
            .await;
        f.send(json!({"jsonrpc": "2.0", "id": null, "error": {"code": -32600, "message": "?"}}))
            .await;
        f.answer(&call, tool_result("real")).await;
        f.answer(&call, tool_result("duplicate")).await;
        let next = f.recv_method("tools/call").await;
        // A late duplicate of the finished call arrives before the next answer.
        f.answer(&call, tool_result("late duplicate")).await;
        f.answer(&next, tool_result("next")).await;
        f.until_closed().await;
    })
    .await;
    let r = within(client.call_tool("a", json!({}))).await.unwrap();
    assert_eq!(text(&r), "real");
    let r = within(client.call_tool("b", json!({}))).await.unwrap();
    assert_eq!(text(&r), "next");
    assert!(!client.is_closed());
    client.close().await.unwrap();
    within(task).await.unwrap();
}

#[tokio::test]
async fn a_malformed_response_fails_only_its_own_call() {
    let malformed = [
        (
            json!({"jsonrpc": "2.0", "result": {}, "error": {"code": 1, "message": "m"}}),
            "exactly one",
        ),
        (json!({"jsonrpc": "2.0"}), "neither"),
        (
            json!({"jsonrpc": "2.0", "error": {"code": "oops", "message": "m"}}),
            "malformed error object",
        ),
        (
            json!({"jsonrpc": "2.0", "error": {"code": 1.5, "message": "m"}}),
            "malformed error object",
        ),
        (
            json!({"jsonrpc": "2.0", "error": {"code": -32000}}),
            "malformed error object",
        ),
        (json!({"jsonrpc": "1.0", "result": {}}), "\"jsonrpc\""),
    ];
    let bad: Vec<Value> = malformed.iter().map(|(v, _)| v.clone()).collect();
    let (client, task) = connected(move |mut f| async move {
        f.handshake().await;
        for mut shape in bad {
            // Two calls in flight: the first gets the malformed answer, the second a
            // good one.
            let first = f.recv_method("tools/call").await;
            let second = f.recv_method("tools/call").await;
            shape["id"] = first["id"].clone();
            f.send(shape).await;
            f.answer(&second, tool_result("fine")).await;
        }
        f.until_closed().await;
    })
    .await;
    for (_, expect) in &malformed {
        let (a, b) = tokio::join!(
            client.call_tool("bad", json!({})),
            client.call_tool("good", json!({}))
        );
        let e = a.unwrap_err();
        let ClientError::InvalidResponse(why) = &e else {
            panic!("{e:?}")
        };
        assert!(why.contains(expect), "{why} should name {expect}");
        assert_eq!(text(&b.unwrap()), "fine");
    }
    assert!(!client.is_closed());
    client.close().await.unwrap();
    within(task).await.unwrap();
}

#[tokio::test]
async fn an_oversized_answer_fails_its_call_and_the_stream_goes_on() {
    let big = "x".repeat(8 << 10);
    let (stream, mut fake) = pair();
    let task = tokio::spawn(async move {
        fake.handshake().await;
        // 1. The id comes first (as most encoders write it).
        let call = fake.recv_method("tools/call").await;
        fake.answer(&call, tool_result(&big)).await;
        // 2. The id comes after the result: with one call pending it is that one.
        let call = fake.recv_method("tools/call").await;
        let late_id = format!(
            "{{\"result\":{},\"jsonrpc\":\"2.0\",\"id\":{}}}\n",
            tool_result(&big),
            call["id"]
        );
        fake.raw(late_id.as_bytes()).await;
        // 3. A huge notification is only skipped; the answer after it arrives.
        let call = fake.recv_method("tools/call").await;
        fake.send(json!({"jsonrpc": "2.0", "method": "notifications/message",
            "params": {"level": "info", "data": big}}))
            .await;
        fake.answer(&call, tool_result("small")).await;
    });
    let client = within(legacy().max_frame_size(4096).connect(stream))
        .await
        .unwrap();
    for _ in 0..2 {
        let started = Instant::now();
        let e = within(client.call_tool("big", json!({})))
            .await
            .unwrap_err();
        let ClientError::InvalidResponse(why) = &e else {
            panic!("{e:?}")
        };
        assert!(
            why.contains("exceeds the client's frame limit of 4096"),
            "{why}"
        );
        assert!(started.elapsed() < Duration::from_secs(2), "not a timeout");
    }
    let r = within(client.call_tool("small", json!({}))).await.unwrap();
    assert_eq!(text(&r), "small");
    task.await.unwrap();
}

#[tokio::test]
async fn a_call_never_answered_times_out_is_cancelled_and_the_next_call_works() {
    let (tx, mut seen) = mpsc::unbounded_channel();
    let (client, task) = connected(move |mut f| async move {
        f.handshake().await;
        let ignored = f.recv_method("tools/call").await;
        let cancel = f.recv_method("notifications/cancelled").await;
        tx.send((ignored["id"].clone(), cancel)).unwrap();
        let ping = f.recv_method("ping").await;
        f.answer(&ping, json!({})).await;
    })
    .await;
    let started = Instant::now();
    let e = within(client.call_tool_with(
        "slow",
        json!({}),
        RequestOptions::default().timeout(Duration::from_millis(300)),
    ))
    .await
    .unwrap_err();
    assert!(matches!(e, ClientError::Timeout), "{e:?}");
    assert!(started.elapsed() >= Duration::from_millis(300));
    let (id, cancel) = within(seen.recv()).await.unwrap();
    assert_eq!(cancel["params"]["requestId"], id);
    assert_eq!(cancel["params"]["reason"], "timeout");
    within(client.ping()).await.unwrap();
    task.await.unwrap();
}

#[tokio::test]
async fn progress_extends_the_timeout_up_to_the_hard_cap() {
    let (client, task) = connected(|mut f| async move {
        f.handshake().await;
        for answer in [true, false] {
            let call = f.recv_method("tools/call").await;
            let token = call["params"]["_meta"]["progressToken"].clone();
            // Progress every 100 ms, well inside the 500 ms timeout.
            for i in 0..25 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                f.send(json!({"jsonrpc": "2.0", "method": "notifications/progress",
                    "params": {"progressToken": token, "progress": i}}))
                    .await;
                if answer && i == 8 {
                    f.answer(&call, tool_result("kept alive")).await;
                    break;
                }
            }
        }
        // The cancellation of the capped call.
        f.recv_method("notifications/cancelled").await;
    })
    .await;
    let opts = |n: Arc<AtomicUsize>| RequestOptions {
        timeout: Some(Duration::from_millis(500)),
        max_total: Some(Duration::from_millis(1500)),
        on_progress: Some(Box::new(move |_| {
            n.fetch_add(1, Ordering::SeqCst);
        })),
        ..RequestOptions::default()
    };
    // Answered after ~900 ms, past the timeout: progress kept it alive.
    let n = Arc::new(AtomicUsize::new(0));
    let r = within(client.call_tool_with("long", json!({}), opts(n.clone())))
        .await
        .unwrap();
    assert_eq!(text(&r), "kept alive");
    assert!(n.load(Ordering::SeqCst) >= 5);
    // Progress forever: the cap ends it.
    let n = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let e = within(client.call_tool_with("endless", json!({}), opts(n.clone())))
        .await
        .unwrap_err();
    let took = started.elapsed();
    assert!(matches!(e, ClientError::Timeout), "{e:?}");
    assert!(took >= Duration::from_millis(1450), "{took:?}");
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert!(n.load(Ordering::SeqCst) >= 5);
    within(task).await.unwrap();
}

#[tokio::test]
async fn a_server_request_without_a_handler_is_answered_with_method_not_found() {
    let (tx, mut answers) = mpsc::unbounded_channel();
    let (client, task) = connected(move |mut f| async move {
        f.handshake().await;
        for (id, method) in [("s1", "roots/list"), ("s2", "no/such/method")] {
            f.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": {}}))
                .await;
        }
        // A malformed request with a readable id gets the decode error.
        f.raw(b"{\"jsonrpc\":\"2.0\",\"id\":\"s3\",\"method\":5}\n")
            .await;
        for _ in 0..3 {
            tx.send(f.recv().await.unwrap()).unwrap();
        }
        let ping = f.recv_method("ping").await;
        f.answer(&ping, json!({})).await;
    })
    .await;
    let mut got = HashMap::new();
    for _ in 0..3 {
        let a = within(answers.recv()).await.unwrap();
        got.insert(a["id"].as_str().unwrap().to_owned(), a);
    }
    assert_eq!(got["s1"]["error"]["code"], -32601, "{:?}", got["s1"]);
    assert_eq!(got["s2"]["error"]["code"], -32601, "{:?}", got["s2"]);
    assert_eq!(got["s3"]["error"]["code"], -32600, "{:?}", got["s3"]);
    within(client.ping()).await.unwrap();
    task.await.unwrap();
}

#[tokio::test]
async fn a_stream_closed_mid_request_fails_pending_and_later_calls() {
    let (client, task) = connected(|mut f| async move {
        f.handshake().await;
        f.recv_method("tools/call").await;
        // Hang up without answering.
    })
    .await;
    let started = Instant::now();
    let e = within(client.call_tool("t", json!({}))).await.unwrap_err();
    assert!(
        matches!(&e, ClientError::Closed(Some(w)) if w.contains("closed the stream")),
        "{e:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(2), "prompt");
    assert!(client.is_closed());
    let later = within(client.ping()).await.unwrap_err();
    assert!(matches!(later, ClientError::Closed(_)), "{later:?}");
    task.await.unwrap();
}

// ---------------------------------------------------------------------------------------
// Child processes
// ---------------------------------------------------------------------------------------

/// A python3 "server": reads lines, answers by the script's rules. `on_call` is Python run
/// for each `tools/call` with `msg` bound (it may `write(...)` or `sys.exit(n)`).
fn python_server(on_call: &str) -> tokio::process::Command {
    let program = format!(
        r#"
import json, sys
def write(text):
    sys.stdout.buffer.write(text if isinstance(text, bytes) else text.encode())
    sys.stdout.buffer.write(b"\n")
    sys.stdout.flush()
def answer(msg, result):
    write(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": result}}))
for line in sys.stdin:
    msg = json.loads(line)
    method = msg.get("method")
    if method == "initialize":
        write("server starting (log line on stdout)")
        write(b"\xff\xfe")
        answer(msg, {{"protocolVersion": "2025-11-25", "capabilities": {{"tools": {{}}}},
                     "serverInfo": {{"name": "py", "version": "0"}}}})
    elif method == "tools/call":
{on_call}
    elif method == "ping":
        answer(msg, {{}})
"#,
        on_call = on_call
            .lines()
            .map(|l| format!("        {l}\n"))
            .collect::<String>()
    );
    let mut cmd = tokio::process::Command::new("python3");
    cmd.arg("-u").arg("-c").arg(program);
    cmd
}

async fn spawn(cmd: tokio::process::Command) -> Client {
    within(legacy().stderr(mcp::client::StderrMode::Capture).spawn(cmd))
        .await
        .unwrap()
}

#[tokio::test]
async fn a_child_writing_garbage_to_stdout_still_answers() {
    let client = spawn(python_server(
        "write('progress: 50%')\nwrite('{\"partial\": ')\nanswer(msg, {'content': [{'type': 'text', 'text': msg['params']['name']}]})",
    ))
    .await;
    for name in ["one", "two"] {
        let r = within(client.call_tool(name, json!({}))).await.unwrap();
        assert_eq!(text(&r), name);
    }
    let status = within(client.shutdown()).await.unwrap().unwrap();
    assert!(status.success(), "{status}");
}

#[tokio::test]
async fn a_child_that_exits_mid_request_fails_the_call_with_its_exit_status() {
    let client = spawn(python_server("sys.exit(7)")).await;
    let started = Instant::now();
    let e = within(client.call_tool("crash", json!({})))
        .await
        .unwrap_err();
    let ClientError::ProcessExited(status) = &e else {
        panic!("{e:?}")
    };
    assert_eq!(status.code(), Some(7));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "prompt, not a timeout"
    );
    assert!(e.to_string().contains("exit status: 7"), "{e}");
    assert!(client.is_closed());
    // Later calls fail at once with the same reason the connection closed for.
    let started = Instant::now();
    let later = within(client.ping()).await.unwrap_err();
    assert!(
        matches!(&later, ClientError::ProcessExited(s) if s.code() == Some(7)),
        "{later:?}"
    );
    // At once: nothing is sent, so nothing waits for the 60 s request timeout (the bound
    // leaves room for a loaded machine).
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(client.exit_status().and_then(|s| s.code()), Some(7));
}

#[tokio::test]
async fn a_child_that_prints_garbage_and_dies_names_both() {
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg("read line; echo 'error: API key missing'; exit 3");
    let e = within(legacy().spawn(cmd)).await.unwrap_err();
    let ClientError::InvalidResponse(why) = &e else {
        panic!("{e:?}")
    };
    assert!(why.contains("exit status: 3"), "{why}");
    assert!(why.contains("error: API key missing"), "{why}");
}

// ---------------------------------------------------------------------------------------
// Streamable HTTP: a raw HTTP/1.1 server whose every byte the test writes
// ---------------------------------------------------------------------------------------

/// One request the raw server received.
#[derive(Debug, Clone)]
struct Req {
    method: String,
    headers: HashMap<String, String>,
    body: Value,
}

impl Req {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(String::as_str)
    }
    fn rpc_method(&self) -> &str {
        self.body["method"].as_str().unwrap_or_default()
    }
}

type Script = Arc<dyn Fn(&Req) -> String + Send + Sync>;

/// A reply ending with this is written, then the connection is held open.
const HOLD: &str = "\0hold";

/// A loopback HTTP server: every request is answered with what `script` returns (a whole
/// HTTP/1.1 response; empty: no answer ever; ending with [`HOLD`]: the connection stays
/// open after it), then the connection is closed (a body without a length ends there:
/// that is how a stream is cut). Returns the URL and the log of requests.
async fn raw_http(script: Script) -> (String, Arc<Mutex<Vec<Req>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let log: Arc<Mutex<Vec<Req>>> = Arc::default();
    let seen = log.clone();
    tokio::spawn(async move {
        while let Ok((sock, _)) = listener.accept().await {
            let (script, seen) = (script.clone(), seen.clone());
            tokio::spawn(async move { read_request(sock, &script, &seen).await });
        }
    });
    (url, log)
}

async fn read_request(mut sock: TcpStream, script: &Script, log: &Mutex<Vec<Req>>) -> Option<()> {
    let mut buf = Vec::new();
    let head_end = loop {
        let mut chunk = [0u8; 4096];
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let method = lines.next()?.split(' ').next()?.to_owned();
    let headers: HashMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let len: usize = headers
        .get("content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        let mut chunk = [0u8; 4096];
        let n = sock.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    }
    let body = serde_json::from_slice(&buf[head_end..head_end + len]).unwrap_or(Value::Null);
    let req = Req {
        method,
        headers,
        body,
    };
    let reply = script(&req);
    log.lock().unwrap().push(req);
    let (reply, hold) = match reply.strip_suffix(HOLD) {
        Some(r) => (r, true),
        None => (reply.as_str(), reply.is_empty()),
    };
    sock.write_all(reply.as_bytes()).await.ok()?;
    if hold {
        // Keep the connection (and a stream on it) open until the client gives up on it.
        let mut rest = [0u8; 64];
        let _ = tokio::time::timeout(HARD, sock.read(&mut rest)).await;
        return None;
    }
    let _ = sock.shutdown().await;
    Some(())
}

fn reply(status: &str, content_type: &str, extra: &str, body: &str) -> String {
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n{extra}connection: close\r\n\r\n{body}",
        body.len()
    )
}

fn json_reply(extra: &str, v: &Value) -> String {
    reply("200 OK", "application/json", extra, &v.to_string())
}

fn accepted() -> String {
    "HTTP/1.1 202 Accepted\r\ncontent-length: 0\r\nconnection: close\r\n\r\n".to_owned()
}

/// An event stream ending (the connection closes) right after `events`.
fn sse_reply(events: &str) -> String {
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\nconnection: close\r\n\r\n{events}"
    )
}

fn rpc_result(req: &Req, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": req.body["id"], "result": result})
}

/// What every legacy fake does for the session plumbing: `initialize` opens session `s1`
/// (the number grows per `initialize`), notifications are accepted, the standalone GET
/// stream is refused (405). `None`: not plumbing, the case decides.
fn plumbing(req: &Req, inits: &AtomicUsize) -> Option<String> {
    match (req.method.as_str(), req.rpc_method()) {
        ("GET", _) if req.header("last-event-id").is_none() => {
            Some(reply("405 Method Not Allowed", "text/plain", "", ""))
        }
        ("DELETE", _) => Some(accepted()),
        ("POST", "initialize") => {
            let n = inits.fetch_add(1, Ordering::SeqCst) + 1;
            Some(json_reply(
                &format!("mcp-session-id: s{n}\r\n"),
                &rpc_result(req, init_result("2025-11-25")),
            ))
        }
        ("POST", m) if m.starts_with("notifications/") || req.body.get("method").is_none() => {
            Some(accepted())
        }
        _ => None,
    }
}

async fn connect_http(url: &str, mode: ConnectMode) -> Client {
    within(
        Client::builder()
            .mode(mode)
            .request_timeout(Duration::from_secs(5))
            .connect_http(url),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn a_cut_post_stream_with_event_ids_is_resumed_with_last_event_id() {
    let inits = AtomicUsize::new(0);
    let (url, log) = raw_http(Arc::new(move |req| {
        if let Some(r) = plumbing(req, &inits) {
            return r;
        }
        if req.method == "GET" {
            // The resumption: the rest of the stream, the answer among garbage.
            let answer = json!({"jsonrpc": "2.0", "id": 1, "result": tool_result("resumed")});
            return sse_reply(&format!(
                "id: p-2\ndata: not json\n\nid: p-3\ndata: {{\"jsonrpc\":\"2.0\",\"id\":999,\"result\":{{}}}}\n\nid: p-4\ndata: {answer}\n\n"
            ));
        }
        // The POST's stream: a priming event (id, retry), then half an event, then EOF.
        let half = &rpc_result(req, tool_result("cut")).to_string()[..20];
        sse_reply(&format!("id: p-0\nretry: 10\ndata: \n\nid: p-1\ndata: {half}"))
    }))
    .await;
    let client = connect_http(&url, ConnectMode::Legacy(V::V2025_11_25)).await;
    assert_eq!(client.transport(), Transport::StreamableHttp);
    let r = within(client.call_tool("t", json!({}))).await.unwrap();
    assert_eq!(text(&r), "resumed");
    let resumed: Vec<Req> = log
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.header("last-event-id").is_some())
        .cloned()
        .collect();
    assert_eq!(resumed.len(), 1, "{resumed:?}");
    // The last complete event was the priming one: the cut event's id was never seen.
    assert_eq!(resumed[0].header("last-event-id"), Some("p-0"));
    assert_eq!(resumed[0].header("mcp-session-id"), Some("s1"));
}

#[tokio::test]
async fn a_cut_post_stream_without_event_ids_fails_that_call_only() {
    let inits = AtomicUsize::new(0);
    let calls = AtomicUsize::new(0);
    let (url, log) = raw_http(Arc::new(move |req| {
        if let Some(r) = plumbing(req, &inits) {
            return r;
        }
        let answer = rpc_result(req, tool_result("whole")).to_string();
        match calls.fetch_add(1, Ordering::SeqCst) {
            0 => sse_reply(&format!("data: {}", &answer[..25])),
            _ => sse_reply(&format!(": keep-alive\n\ndata: {answer}\n\n")),
        }
    }))
    .await;
    let client = connect_http(&url, ConnectMode::Legacy(V::V2025_11_25)).await;
    let e = within(client.call_tool("t", json!({}))).await.unwrap_err();
    assert!(
        matches!(&e, ClientError::Closed(Some(w)) if w.contains("without answering")),
        "{e:?}"
    );
    let r = within(client.call_tool("t", json!({}))).await.unwrap();
    assert_eq!(text(&r), "whole");
    assert!(
        log.lock()
            .unwrap()
            .iter()
            .all(|r| r.method != "GET" || r.header("last-event-id").is_none()),
        "no resumption without event ids"
    );
}

#[tokio::test]
async fn a_cut_modern_stream_fails_that_call() {
    let calls = AtomicUsize::new(0);
    let (url, _log) = raw_http(Arc::new(move |req| match req.rpc_method() {
        "server/discover" => json_reply(
            "",
            &rpc_result(
                req,
                json!({"supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}}}),
            ),
        ),
        _ => {
            let answer = rpc_result(req, tool_result("whole")).to_string();
            match calls.fetch_add(1, Ordering::SeqCst) {
                0 => sse_reply(&format!("id: m-0\ndata: {}", &answer[..30])),
                _ => sse_reply(&format!("data: {answer}\n\n")),
            }
        }
    }))
    .await;
    let client = connect_http(&url, ConnectMode::Modern(V::V2026_07_28)).await;
    let e = within(client.call_tool("t", json!({}))).await.unwrap_err();
    assert!(
        matches!(&e, ClientError::Closed(Some(w)) if w.contains("without answering")),
        "{e:?}"
    );
    let r = within(client.call_tool("t", json!({}))).await.unwrap();
    assert_eq!(text(&r), "whole");
}

#[tokio::test]
async fn http_errors_wrong_content_types_and_non_json_bodies_fail_the_call_clearly() {
    let inits = AtomicUsize::new(0);
    let (url, _log) = raw_http(Arc::new(move |req| {
        if let Some(r) = plumbing(req, &inits) {
            return r;
        }
        match req.body["params"]["name"].as_str().unwrap_or_default() {
            "500" => reply(
                "500 Internal Server Error",
                "text/plain",
                "",
                "database on fire",
            ),
            "html" => reply("200 OK", "text/html", "", "<h1>Welcome</h1>"),
            "not-json" => reply("200 OK", "application/json", "", "{\"truncated\": "),
            "other-json" => json_reply("", &json!({"hello": "world"})),
            _ => json_reply("", &rpc_result(req, tool_result("ok"))),
        }
    }))
    .await;
    let client = connect_http(&url, ConnectMode::Legacy(V::V2025_11_25)).await;
    let e = within(client.call_tool("500", json!({})))
        .await
        .unwrap_err();
    assert_eq!(e.http_status(), Some(500), "{e:?}");
    assert!(e.to_string().contains("database on fire"), "{e}");
    for (name, expect) in [
        ("html", "content type \"text/html\""),
        ("not-json", "not JSON"),
        ("other-json", "no response to the request"),
    ] {
        let e = within(client.call_tool(name, json!({}))).await.unwrap_err();
        let ClientError::InvalidResponse(why) = &e else {
            panic!("{name}: {e:?}")
        };
        assert!(why.contains(expect), "{name}: {why}");
    }
    let r = within(client.call_tool("fine", json!({}))).await.unwrap();
    assert_eq!(text(&r), "ok");
}

#[tokio::test]
async fn an_oversized_http_answer_fails_its_call() {
    let inits = AtomicUsize::new(0);
    let big = "x".repeat(8 << 10);
    let (url, _log) = raw_http(Arc::new(move |req| {
        if let Some(r) = plumbing(req, &inits) {
            return r;
        }
        let answer = |t: &str| rpc_result(req, tool_result(t));
        match req.body["params"]["name"].as_str().unwrap_or_default() {
            "json" => json_reply("", &answer(&big)),
            // An SSE event of many small lines adds up too; the stream then stays open.
            "sse" => {
                let lines: String = big
                    .as_bytes()
                    .chunks(100)
                    .map(|c| format!("data: {}\n", String::from_utf8_lossy(c)))
                    .collect();
                sse_reply(&format!("{lines}\n: the stream stays open\n{HOLD}"))
            }
            _ => json_reply("", &answer("small")),
        }
    }))
    .await;
    let client = within(
        Client::builder()
            .mode(ConnectMode::Legacy(V::V2025_11_25))
            .request_timeout(Duration::from_secs(5))
            .max_frame_size(4096)
            .connect_http(&url),
    )
    .await
    .unwrap();
    for name in ["json", "sse"] {
        let started = Instant::now();
        let e = within(client.call_tool(name, json!({}))).await.unwrap_err();
        let ClientError::InvalidResponse(why) = &e else {
            panic!("{name}: {e:?}")
        };
        assert!(why.contains("frame limit of 4096"), "{name}: {why}");
        assert!(
            started.elapsed() < Duration::from_secs(2),
            "{name}: not a timeout"
        );
    }
    let r = within(client.call_tool("small", json!({}))).await.unwrap();
    assert_eq!(text(&r), "small");
}

#[tokio::test]
async fn a_404_on_a_legacy_session_re_initializes_and_resends() {
    let inits = AtomicUsize::new(0);
    let (url, log) = raw_http(Arc::new(move |req| {
        if let Some(r) = plumbing(req, &inits) {
            return r;
        }
        match req.header("mcp-session-id") {
            Some("s1") => reply("404 Not Found", "text/plain", "", "no such session"),
            _ => json_reply("", &rpc_result(req, json!({"tools": []}))),
        }
    }))
    .await;
    let client = connect_http(&url, ConnectMode::Legacy(V::V2025_11_25)).await;
    assert_eq!(client.http_session_id().as_deref(), Some("s1"));
    let r = within(client.list_tools(None)).await.unwrap();
    assert!(r.tools.is_empty());
    assert_eq!(client.http_reinitializations(), 1);
    assert_eq!(client.http_session_id().as_deref(), Some("s2"));
    let posted: Vec<(String, Option<String>)> = log
        .lock()
        .unwrap()
        .iter()
        .filter(|r| r.method == "POST")
        .map(|r| {
            (
                r.rpc_method().to_owned(),
                r.header("mcp-session-id").map(str::to_owned),
            )
        })
        .collect();
    let s = |x: &str| Some(x.to_owned());
    assert_eq!(
        posted,
        [
            ("initialize".into(), None),
            ("notifications/initialized".into(), s("s1")),
            ("tools/list".into(), s("s1")),
            ("initialize".into(), None),
            ("notifications/initialized".into(), s("s2")),
            ("tools/list".into(), s("s2")),
        ]
    );
}

#[tokio::test]
async fn a_server_request_over_http_without_a_handler_is_answered_with_method_not_found() {
    let inits = AtomicUsize::new(0);
    let (url, log) = raw_http(Arc::new(move |req| {
        if let Some(r) = plumbing(req, &inits) {
            return r;
        }
        let ask = json!({"jsonrpc": "2.0", "id": "srv-1", "method": "roots/list"});
        let answer = rpc_result(req, tool_result("done"));
        sse_reply(&format!("data: {ask}\n\ndata: {answer}\n\n"))
    }))
    .await;
    let client = connect_http(&url, ConnectMode::Legacy(V::V2025_11_25)).await;
    let r = within(client.call_tool("t", json!({}))).await.unwrap();
    assert_eq!(text(&r), "done");
    let answer = within(async {
        loop {
            let found = log
                .lock()
                .unwrap()
                .iter()
                .find(|r| r.body["id"] == "srv-1")
                .cloned();
            if let Some(f) = found {
                return f;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    assert_eq!(answer.body["error"]["code"], -32601, "{:?}", answer.body);
    assert_eq!(answer.header("mcp-session-id"), Some("s1"));
}

#[tokio::test]
async fn an_http_call_never_answered_times_out_and_is_cancelled() {
    let inits = AtomicUsize::new(0);
    let (url, log) = raw_http(Arc::new(move |req| {
        if let Some(r) = plumbing(req, &inits) {
            return r;
        }
        match req.body["params"]["name"].as_str() {
            Some("slow") => String::new(),
            _ => json_reply("", &rpc_result(req, tool_result("ok"))),
        }
    }))
    .await;
    let client = connect_http(&url, ConnectMode::Legacy(V::V2025_11_25)).await;
    let e = within(client.call_tool_with(
        "slow",
        json!({}),
        RequestOptions::default().timeout(Duration::from_millis(300)),
    ))
    .await
    .unwrap_err();
    assert!(matches!(e, ClientError::Timeout), "{e:?}");
    // Legacy: closing the POST is not a cancellation; notifications/cancelled is POSTed.
    let cancel = within(async {
        loop {
            let found = log
                .lock()
                .unwrap()
                .iter()
                .find(|r| r.rpc_method() == "notifications/cancelled")
                .cloned();
            if let Some(f) = found {
                return f;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;
    let slow_id = log
        .lock()
        .unwrap()
        .iter()
        .find(|r| r.body["params"]["name"] == "slow")
        .map(|r| r.body["id"].clone())
        .unwrap();
    assert_eq!(cancel.body["params"]["requestId"], slow_id);
    assert_eq!(cancel.header("mcp-session-id"), Some("s1"));
    let r = within(client.call_tool("fast", json!({}))).await.unwrap();
    assert_eq!(text(&r), "ok");
}

// ---------------------------------------------------------------------------------------
// 2024-11-05 HTTP+SSE: the GET stream cut mid-event, then reconnected
// ---------------------------------------------------------------------------------------

/// An SSE body fed by a channel; dropping the sender ends the stream.
struct Events(mpsc::UnboundedReceiver<String>);

impl futures_core::Stream for Events {
    type Item = Result<String, std::convert::Infallible>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx).map(|o| o.map(Ok))
    }
}

#[derive(Default)]
struct SseFake {
    stream: Option<mpsc::UnboundedSender<String>>,
    /// Answers cut off by a broken stream, replayed on the next GET with Last-Event-ID.
    replay: Vec<String>,
    gets: Vec<Option<String>>,
    seq: usize,
}

#[tokio::test]
async fn a_cut_sse_stream_is_reconnected_with_last_event_id_and_the_answer_replayed() {
    use mcp::transport::http::axum::{self, Router, http::HeaderMap, routing};
    let fake: Arc<Mutex<SseFake>> = Arc::default();
    let (f1, f2) = (fake.clone(), fake.clone());
    let app = Router::new()
        .route(
            "/sse",
            routing::get(move |headers: HeaderMap| {
                let f = f1.clone();
                async move {
                    let (tx, rx) = mpsc::unbounded_channel();
                    let mut st = f.lock().unwrap();
                    let last = headers
                        .get("last-event-id")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    st.gets.push(last.clone());
                    tx.send("retry: 20\nevent: endpoint\ndata: /messages?session=one\n\n".into())
                        .unwrap();
                    if last.is_some() {
                        for ev in std::mem::take(&mut st.replay) {
                            tx.send(ev).unwrap();
                        }
                    }
                    st.stream = Some(tx);
                    axum::response::Response::builder()
                        .header("content-type", "text/event-stream")
                        .body(axum::body::Body::from_stream(Events(rx)))
                        .unwrap()
                }
            }),
        )
        .route(
            "/messages",
            routing::post(move |body: String| {
                let f = f2.clone();
                async move {
                    let msg: Value = serde_json::from_str(&body).unwrap();
                    let method = msg["method"].as_str().unwrap_or_default().to_owned();
                    let mut st = f.lock().unwrap();
                    if msg.get("id").is_some() && !method.is_empty() {
                        let result = match method.as_str() {
                            "initialize" => init_result("2024-11-05"),
                            _ => {
                                json!({"tools": [{"name": "t", "inputSchema": {"type": "object"}}]})
                            }
                        };
                        let resp = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
                        st.seq += 1;
                        let event = format!("id: e-{}\nevent: message\ndata: {resp}\n\n", st.seq);
                        let tx = st.stream.clone().unwrap();
                        if method == "tools/list" && st.replay.is_empty() && st.gets.len() == 1 {
                            // Cut the stream in the middle of this answer's data line.
                            let _ = tx.send(event[..event.len() / 2].to_owned());
                            st.replay.push(event);
                            st.stream = None;
                        } else {
                            let _ = tx.send(event);
                        }
                    }
                    axum::response::Response::builder()
                        .status(202)
                        .body(axum::body::Body::empty())
                        .unwrap()
                }
            }),
        );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/sse", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });

    let client = within(
        Client::builder()
            .mode(ConnectMode::Legacy(V::V2024_11_05))
            .request_timeout(Duration::from_secs(5))
            .connect_sse(&url),
    )
    .await
    .unwrap();
    assert_eq!(client.transport(), Transport::HttpSse);
    let tools = within(client.list_tools(None)).await.unwrap();
    assert_eq!(tools.tools.len(), 1);
    // Same endpoint back: the session carries on, no re-initialize.
    assert_eq!(client.http_reinitializations(), 0);
    let gets = fake.lock().unwrap().gets.clone();
    // The initialize answer was e-1; the cut event's id was never complete.
    assert_eq!(gets, [None, Some("e-1".to_owned())]);
    let tools = within(client.list_tools(None)).await.unwrap();
    assert_eq!(tools.tools.len(), 1);
}
