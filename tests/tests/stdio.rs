//! The stdio transport as a real subprocess: each test spawns a compiled example with
//! `--stdio` and speaks JSON-RPC over its stdin/stdout (design.md, "Reliability rules").
//!
//! The examples are built once per test binary (`cargo build --example ...`), because
//! `cargo test --test stdio` alone does not build them. Every read has a timeout, so a
//! misbehaving server fails a test instead of hanging it.

#[path = "support/examples.rs"]
mod examples;

use std::collections::HashSet;
use std::path::PathBuf;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

/// How long any single read may wait.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

const UTF8_QUERY: &str = "héllo 📚";

// ---------------------------------------------------------------------------------------
// Locating (and building) the example binaries
// ---------------------------------------------------------------------------------------

/// The Bookshop is the facade's example; the fixture is this package's.
fn example(name: &str) -> PathBuf {
    match name {
        "bookshop" => examples::built("mcp-framework", name, &[]),
        _ => examples::built(examples::TESTS, name, &[]),
    }
}

// ---------------------------------------------------------------------------------------
// The subprocess client
// ---------------------------------------------------------------------------------------

/// A server subprocess: raw access to its stdin and stdout, stderr collected aside.
struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    out: BufReader<ChildStdout>,
    stderr: Arc<Mutex<Vec<u8>>>,
    /// Every byte read from stdout so far, for whole-stream assertions.
    seen: Vec<u8>,
}

impl Proc {
    fn spawn(name: &str, extra: &[&str]) -> Self {
        let mut child = Command::new(example(name))
            .arg("--stdio")
            .args(extra)
            .env("RUST_BACKTRACE", "0")
            .env_remove("RUST_LOG")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .unwrap_or_else(|e| panic!("spawning {name}: {e}"));
        let stdin = child.stdin.take();
        let out = BufReader::new(child.stdout.take().expect("stdout"));
        // Drain stderr continuously so a chatty server never blocks on a full pipe.
        let stderr = Arc::new(Mutex::new(Vec::new()));
        let mut err_pipe = child.stderr.take().expect("stderr");
        let sink = stderr.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 8192];
            while let Ok(n) = err_pipe.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                sink.lock().unwrap().extend_from_slice(&buf[..n]);
            }
        });
        Self {
            child,
            stdin,
            out,
            stderr,
            seen: Vec::new(),
        }
    }

    fn fixture(extra: &[&str]) -> Self {
        Self::spawn("stdio_fixture", extra)
    }

    fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned()
    }

    async fn send_raw(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin already closed");
        stdin.write_all(bytes).await.expect("write to stdin");
        stdin.flush().await.expect("flush stdin");
    }

    /// Sends one message as a `\n`-terminated line.
    async fn send(&mut self, v: &Value) {
        let mut line = serde_json::to_vec(v).unwrap();
        line.push(b'\n');
        self.send_raw(&line).await;
    }

    async fn request(&mut self, id: impl Into<Value>, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params}))
            .await;
    }

    async fn call(&mut self, id: impl Into<Value>, tool: &str, args: Value) {
        self.request(id, "tools/call", json!({"name": tool, "arguments": args}))
            .await;
    }

    async fn ping(&mut self, id: impl Into<Value>) {
        self.send(&json!({"jsonrpc": "2.0", "id": id.into(), "method": "ping"}))
            .await;
    }

    fn close_stdin(&mut self) {
        drop(self.stdin.take());
    }

    /// The next `\n`-terminated line, raw (delimiter removed); `None` at EOF.
    async fn try_recv_line(&mut self, wait: Duration) -> Option<Vec<u8>> {
        let mut line = Vec::new();
        let n = tokio::time::timeout(wait, self.out.read_until(b'\n', &mut line))
            .await
            .unwrap_or_else(|_| {
                panic!(
                    "timed out after {wait:?} waiting for a frame\n--- stderr ---\n{}",
                    self.stderr_text()
                )
            })
            .expect("read stdout");
        self.seen.extend_from_slice(&line);
        if n == 0 {
            return None;
        }
        assert_eq!(
            line.pop(),
            Some(b'\n'),
            "frame not newline-terminated: {line:?}"
        );
        Some(line)
    }

    async fn recv_line(&mut self) -> Vec<u8> {
        match self.try_recv_line(READ_TIMEOUT).await {
            Some(l) => l,
            None => panic!("stdout closed\n--- stderr ---\n{}", self.stderr_text()),
        }
    }

    /// The next newline-framed message, checked to be JSON-RPC 2.0.
    async fn recv(&mut self) -> Value {
        let line = self.recv_line().await;
        parse_jsonrpc(&line)
    }

    /// The next `Content-Length`-framed message: (raw body, parsed message).
    async fn recv_lsp(&mut self) -> (Vec<u8>, Value) {
        let mut length = None;
        loop {
            let header = self.recv_line().await;
            assert_eq!(
                header.last(),
                Some(&b'\r'),
                "LSP header lines end in CRLF: {:?}",
                String::from_utf8_lossy(&header)
            );
            let header = &header[..header.len() - 1];
            if header.is_empty() {
                break;
            }
            let text = std::str::from_utf8(header).expect("ASCII header");
            let (name, value) = text.split_once(':').expect("header name: value");
            if name.eq_ignore_ascii_case("content-length") {
                length = Some(
                    value
                        .trim()
                        .parse::<usize>()
                        .expect("numeric Content-Length"),
                );
            }
        }
        let n = length.expect("a Content-Length header");
        let mut body = vec![0u8; n];
        tokio::time::timeout(READ_TIMEOUT, self.out.read_exact(&mut body))
            .await
            .expect("timed out reading an LSP body")
            .expect("read LSP body");
        self.seen.extend_from_slice(&body);
        let v = parse_jsonrpc(&body);
        (body, v)
    }

    /// Asserts that no frame arrives within `wait` (EOF counts as silence).
    async fn expect_silence(&mut self, wait: Duration) {
        let mut line = Vec::new();
        if let Ok(r) = tokio::time::timeout(wait, self.out.read_until(b'\n', &mut line)).await {
            let n = r.expect("read stdout");
            assert_eq!(
                n,
                0,
                "expected silence, got: {}",
                String::from_utf8_lossy(&line)
            );
        }
    }

    /// Reads stdout to EOF (with a timeout), returning the remaining lines.
    async fn drain_to_eof(&mut self) -> Vec<Vec<u8>> {
        let mut lines = Vec::new();
        while let Some(l) = self.try_recv_line(READ_TIMEOUT).await {
            lines.push(l);
        }
        lines
    }

    /// Waits for the process to exit; kills it and fails if it takes longer than `limit`.
    async fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        match tokio::time::timeout(limit, self.child.wait()).await {
            Ok(status) => status.expect("wait for child"),
            Err(_) => {
                let _ = self.child.start_kill();
                let _ = self.child.wait().await;
                panic!(
                    "the server did not exit within {limit:?}\n--- stderr ---\n{}",
                    self.stderr_text()
                );
            }
        }
    }

    /// `initialize` (newline framing) at `version`, then `notifications/initialized`.
    async fn init(&mut self, version: &str) -> Value {
        self.request(
            0,
            "initialize",
            json!({"protocolVersion": version, "capabilities": {},
                   "clientInfo": {"name": "stdio-test", "version": "0.0.1"}}),
        )
        .await;
        let v = self.recv().await;
        assert_eq!(v["id"], 0, "{v}");
        assert_eq!(v["result"]["protocolVersion"], version, "{v}");
        self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        v
    }

    fn pid(&self) -> u32 {
        self.child.id().expect("child still running")
    }
}

/// Parses one frame, asserting it is a JSON-RPC 2.0 message (or a batch of them).
fn parse_jsonrpc(bytes: &[u8]) -> Value {
    let text = std::str::from_utf8(bytes)
        .unwrap_or_else(|_| panic!("frame on stdout is not UTF-8: {bytes:?}"));
    let v: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("frame on stdout is not JSON ({e}): {text}"));
    match &v {
        Value::Array(items) => {
            assert!(!items.is_empty(), "empty batch answer");
            items.iter().for_each(check_message);
        }
        _ => check_message(&v),
    }
    v
}

fn check_message(v: &Value) {
    let obj = v
        .as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"));
    assert_eq!(obj.get("jsonrpc"), Some(&json!("2.0")), "{v}");
    let is_response =
        obj.contains_key("id") && (obj.contains_key("result") ^ obj.contains_key("error"));
    let is_call = obj.get("method").is_some_and(Value::is_string)
        && !obj.contains_key("result")
        && !obj.contains_key("error");
    assert!(is_response || is_call, "not a JSON-RPC message: {v}");
}

fn code(v: &Value) -> i64 {
    v["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("expected an error: {v}"))
}

fn text(v: &Value) -> &str {
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("expected a text result: {v}"))
}

fn request_bytes(id: impl Into<Value>, method: &str, params: Value) -> Vec<u8> {
    serde_json::to_vec(
        &json!({"jsonrpc": "2.0", "id": id.into(), "method": method, "params": params}),
    )
    .unwrap()
}

fn lsp(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn initialize_bytes(version: &str) -> Vec<u8> {
    request_bytes(
        0,
        "initialize",
        json!({"protocolVersion": version, "capabilities": {},
               "clientInfo": {"name": "stdio-test", "version": "0.0.1"}}),
    )
}

// ---------------------------------------------------------------------------------------
// Framing
// ---------------------------------------------------------------------------------------

/// The README's first command, `cargo run --example bookshop`: its demo drives the server with
/// `mcp::client::Client` over an in-memory pipe and prints what the client saw.
#[test]
fn bookshop_demo_prints_what_the_client_saw() {
    let out = std::process::Command::new(example("bookshop"))
        .env_remove("RUST_LOG")
        .output()
        .expect("running the bookshop demo");
    assert!(out.status.success(), "the demo failed: {out:?}");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(
        lines,
        [
            "connected to bookshop 0.1.0 (protocol 2026-07-28)",
            "tool: search_books - Search the catalogue by title or author.",
            "search_books(\"dune\") -> Found 3 books matching 'dune'.",
        ],
        "{stdout}"
    );
}

/// Newline framing against the Bookshop example: multi-byte UTF-8 goes through untouched.
#[tokio::test]
async fn newline_framing_round_trips_utf8() {
    let mut p = Proc::spawn("bookshop", &[]);
    p.init("2025-11-25").await;
    p.call(1, "search_books", json!({"query": UTF8_QUERY}))
        .await;
    let line = p.recv_line().await;
    let v = parse_jsonrpc(&line);
    assert_eq!(v["id"], 1);
    assert_eq!(text(&v), format!("Found 3 books matching '{UTF8_QUERY}'."));
    assert!(
        !line.contains(&b'\r'),
        "newline framing is answered with bare \\n"
    );
}

/// CRLF-terminated lines are accepted and answered (newline framing, one line per answer).
#[tokio::test]
async fn crlf_framing_is_accepted() {
    let mut p = Proc::spawn("bookshop", &[]);
    let mut input = initialize_bytes("2025-06-18");
    input.extend_from_slice(b"\r\n");
    input.extend_from_slice(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
    input.extend_from_slice(b"\r\n\r\n"); // a blank CRLF line between frames is no frame
    input.extend_from_slice(&request_bytes(
        1,
        "tools/call",
        json!({"name": "search_books", "arguments": {"query": UTF8_QUERY}}),
    ));
    input.extend_from_slice(b"\r\n");
    p.send_raw(&input).await;
    let init = p.recv().await;
    assert_eq!(init["id"], 0);
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18");
    let v = p.recv().await;
    assert_eq!(v["id"], 1);
    assert_eq!(text(&v), format!("Found 3 books matching '{UTF8_QUERY}'."));
}

/// `Content-Length:` framing is detected from the first frame and answered in kind; lengths
/// count bytes, not characters, in both directions.
#[tokio::test]
async fn content_length_framing_is_detected_and_answered_in_kind() {
    let mut p = Proc::spawn("bookshop", &[]);
    let call = request_bytes(
        1,
        "tools/call",
        json!({"name": "search_books", "arguments": {"query": UTF8_QUERY}}),
    );
    assert_ne!(
        call.len(),
        String::from_utf8_lossy(&call).chars().count(),
        "the body must contain multi-byte characters"
    );
    let mut input = lsp(&initialize_bytes("2025-11-25"));
    // Lower-case header name plus an ignored Content-Type header.
    let initialized = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    input.extend_from_slice(
        format!(
            "content-length: {}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n",
            initialized.len()
        )
        .as_bytes(),
    );
    input.extend_from_slice(initialized);
    input.extend_from_slice(&lsp(&call));
    p.send_raw(&input).await;

    let (_, init) = p.recv_lsp().await;
    assert_eq!(init["id"], 0);
    assert_eq!(init["result"]["protocolVersion"], "2025-11-25");
    let (body, v) = p.recv_lsp().await;
    assert_eq!(v["id"], 1);
    let want = format!("Found 3 books matching '{UTF8_QUERY}'.");
    assert_eq!(text(&v), want);
    // The body carries the raw UTF-8 bytes: its Content-Length counted bytes, not chars.
    let body = String::from_utf8(body).expect("UTF-8 body");
    assert!(body.contains(&want), "{body}");
    assert!(body.len() > body.chars().count());

    // A ping in the same framing, split across writes mid-header and mid-body.
    let ping = lsp(br#"{"jsonrpc":"2.0","id":"p","method":"ping"}"#);
    p.send_raw(&ping[..9]).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    p.send_raw(&ping[9..ping.len() - 5]).await;
    tokio::time::sleep(Duration::from_millis(20)).await;
    p.send_raw(&ping[ping.len() - 5..]).await;
    let (_, pong) = p.recv_lsp().await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": "p", "result": {}}));
}

// ---------------------------------------------------------------------------------------
// Bad input
// ---------------------------------------------------------------------------------------

const MAX_FRAME: usize = 64 * 1024;

/// A newline frame above the configured limit gets an error (id null) and is skipped; the
/// next frame is served.
#[tokio::test]
async fn oversized_line_is_rejected_and_the_next_frame_served() {
    let mut p = Proc::fixture(&["--max-frame", &MAX_FRAME.to_string()]);
    p.init("2025-11-25").await;
    let big = request_bytes(
        1,
        "tools/call",
        json!({"name": "search_books", "arguments": {"query": "x".repeat(MAX_FRAME * 2)}}),
    );
    let mut input = big;
    input.push(b'\n');
    input.extend_from_slice(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#);
    input.push(b'\n');
    p.send_raw(&input).await;
    let err = p.recv().await;
    assert_eq!(err["id"], Value::Null, "{err}");
    assert_eq!(code(&err), -32600, "{err}");
    let pong = p.recv().await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
    // A frame just under the limit is still served.
    let query = "y".repeat(MAX_FRAME - 200);
    p.call(3, "search_books", json!({"query": query})).await;
    let v = p.recv().await;
    assert_eq!(v["id"], 3);
    assert_eq!(text(&v), format!("Found 3 books matching '{query}'."));
}

/// The same with `Content-Length` framing: the declared body is skipped, the stream stays
/// in sync.
#[tokio::test]
async fn oversized_content_length_frame_is_skipped() {
    let mut p = Proc::fixture(&["--max-frame", &MAX_FRAME.to_string()]);
    let mut input = lsp(&initialize_bytes("2025-11-25"));
    // The oversized body contains things that look like frames; none may be acted on.
    let mut big = Vec::new();
    while big.len() <= MAX_FRAME {
        big.extend_from_slice(&lsp(br#"{"jsonrpc":"2.0","id":"ghost","method":"ping"}"#));
        big.extend_from_slice(b"\n");
    }
    input.extend_from_slice(&lsp(&big));
    input.extend_from_slice(&lsp(br#"{"jsonrpc":"2.0","id":2,"method":"ping"}"#));
    p.send_raw(&input).await;
    let (_, init) = p.recv_lsp().await;
    assert_eq!(init["id"], 0);
    let (_, err) = p.recv_lsp().await;
    assert_eq!(err["id"], Value::Null, "{err}");
    assert_eq!(code(&err), -32600, "{err}");
    let (_, pong) = p.recv_lsp().await;
    assert_eq!(pong, json!({"jsonrpc": "2.0", "id": 2, "result": {}}));
}

/// Invalid JSON and invalid UTF-8 are -32700 with id null; the connection lives on.
#[tokio::test]
async fn parse_errors_answer_32700_and_the_connection_lives_on() {
    let mut p = Proc::fixture(&[]);
    p.init("2025-11-25").await;

    p.send_raw(b"{not json\n").await;
    let e = p.recv().await;
    assert_eq!(code(&e), -32700, "{e}");
    assert_eq!(e["id"], Value::Null, "{e}");

    // Well-formed JSON apart from one invalid UTF-8 byte inside a string.
    p.send_raw(
        b"{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\",\"params\":{\"x\":\"\xff\xfe\"}}\n",
    )
    .await;
    let e = p.recv().await;
    assert_eq!(code(&e), -32700, "{e}");
    assert_eq!(e["id"], Value::Null, "{e}");

    // Truncated JSON.
    p.send_raw(b"{\"jsonrpc\":\"2.0\",\"id\":6,\n").await;
    let e = p.recv().await;
    assert_eq!(code(&e), -32700, "{e}");

    p.ping(7).await;
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "id": 7, "result": {}})
    );
    p.call(8, "search_books", json!({"query": "still alive"}))
        .await;
    let v = p.recv().await;
    assert_eq!(v["id"], 8);
    assert_eq!(text(&v), "Found 3 books matching 'still alive'.");
}

/// Notifications — known, unknown, or a request method sent without an id — are never
/// answered: the first line back is the answer to the ping that follows them.
#[tokio::test]
async fn notifications_are_never_answered() {
    let mut p = Proc::fixture(&[]);
    p.init("2025-11-25").await;
    p.send(&json!({"jsonrpc": "2.0", "method": "notifications/roots/list_changed"}))
        .await;
    p.send(&json!({"jsonrpc": "2.0", "method": "no/such/notification", "params": {}}))
        .await;
    p.send(&json!({"jsonrpc": "2.0", "method": "tools/call",
                   "params": {"name": "search_books", "arguments": {"query": "n"}}}))
        .await;
    p.send(&json!({"jsonrpc": "2.0", "method": "tools/call",
                   "params": {"name": "boom", "arguments": {}}}))
        .await;
    p.ping("after").await;
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "id": "after", "result": {}})
    );
    p.expect_silence(Duration::from_millis(200)).await;
}

// ---------------------------------------------------------------------------------------
// Batches
// ---------------------------------------------------------------------------------------

/// In a 2025-03-26 session an array is answered by one array holding one response per
/// request; notifications in it get none, and an all-notification batch gets nothing.
#[tokio::test]
async fn batches_are_answered_in_a_2025_03_26_session() {
    let mut p = Proc::fixture(&[]);
    p.init("2025-03-26").await;
    let batch = json!([
        {"jsonrpc": "2.0", "id": 1, "method": "ping"},
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "search_books", "arguments": {"query": UTF8_QUERY}}},
        {"jsonrpc": "2.0", "id": "three", "method": "tools/call",
         "params": {"name": "slow", "arguments": {"ms": 50}}},
        {"jsonrpc": "2.0", "id": 4, "method": "no/such/method"}
    ]);
    p.send(&batch).await;
    let answer = p.recv().await;
    let items = answer
        .as_array()
        .unwrap_or_else(|| panic!("a batch is answered by an array: {answer}"));
    assert_eq!(items.len(), 4, "one response per request: {answer}");
    let ids: HashSet<String> = items.iter().map(|i| i["id"].to_string()).collect();
    let want: HashSet<String> = ["1", "2", "\"three\"", "4"].map(String::from).into();
    assert_eq!(ids, want, "{answer}");
    for item in items {
        match &item["id"] {
            v if v == 1 => assert_eq!(item["result"], json!({})),
            v if v == 2 => {
                assert_eq!(
                    text(item),
                    format!("Found 3 books matching '{UTF8_QUERY}'.")
                )
            }
            v if v == "three" => assert_eq!(text(item), "slept 50 ms "),
            _ => assert_eq!(code(item), -32601, "{item}"),
        }
    }

    // Only notifications: nothing comes back.
    p.send(&json!([
        {"jsonrpc": "2.0", "method": "notifications/roots/list_changed"},
        {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}
    ]))
    .await;
    p.ping("after").await;
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "id": "after", "result": {}})
    );
}

/// From 2025-06-18 on, an array is a single -32600 (not an array), and nothing in it runs.
#[tokio::test]
async fn batches_are_rejected_in_later_sessions() {
    for version in ["2025-06-18", "2025-11-25"] {
        let mut p = Proc::fixture(&[]);
        p.init(version).await;
        p.send(&json!([
            {"jsonrpc": "2.0", "id": 1, "method": "ping"},
            {"jsonrpc": "2.0", "id": 2, "method": "ping"}
        ]))
        .await;
        let e = p.recv().await;
        assert!(e.is_object(), "{version}: {e}");
        assert_eq!(code(&e), -32600, "{version}: {e}");
        assert_eq!(e["id"], Value::Null, "{version}: {e}");
        p.ping("after").await;
        assert_eq!(
            p.recv().await,
            json!({"jsonrpc": "2.0", "id": "after", "result": {}}),
            "{version}: no element of the rejected batch was answered"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Throughput and exactly-once
// ---------------------------------------------------------------------------------------

/// 1,000 `tools/call` requests written in one go are each answered exactly once.
#[tokio::test]
async fn pipelined_requests_are_answered_exactly_once() {
    const N: usize = 1000;
    let mut p = Proc::fixture(&[]);
    p.init("2025-11-25").await;
    let mut input = Vec::new();
    for i in 0..N {
        input.extend_from_slice(&request_bytes(
            i,
            "tools/call",
            json!({"name": "search_books", "arguments": {"query": format!("q{i}")}}),
        ));
        input.push(b'\n');
    }
    // Write from another task: the answers must be read while the requests are written,
    // or both pipes fill up.
    let mut stdin = p.stdin.take().unwrap();
    let writer = tokio::spawn(async move {
        stdin.write_all(&input).await.unwrap();
        stdin.flush().await.unwrap();
        stdin
    });
    let mut ids = HashSet::new();
    for _ in 0..N {
        let v = p.recv().await;
        let id = v["id"]
            .as_u64()
            .unwrap_or_else(|| panic!("unexpected frame: {v}"));
        assert_eq!(text(&v), format!("Found 3 books matching 'q{id}'."));
        assert!(ids.insert(id), "id {id} answered twice");
    }
    assert_eq!(ids.len(), N);
    assert!(ids.iter().all(|&i| (i as usize) < N));
    p.stdin = Some(writer.await.unwrap());
    // Nothing else is pending: the next line is the ping's answer.
    p.ping("after").await;
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "id": "after", "result": {}})
    );
}

// ---------------------------------------------------------------------------------------
// Shutdown
// ---------------------------------------------------------------------------------------

/// Closing stdin while a 300 ms request runs: its answer still arrives, then stdout closes
/// and the process exits 0.
#[tokio::test]
async fn eof_drains_in_flight_requests_and_exits_zero() {
    let mut p = Proc::fixture(&[]);
    p.init("2025-11-25").await;
    p.call(1, "slow", json!({"ms": 300, "tag": "drained"}))
        .await;
    p.close_stdin();
    let started = Instant::now();
    let v = p.recv().await;
    assert_eq!(v["id"], 1, "{v}");
    assert_eq!(text(&v), "slept 300 ms drained");
    assert!(
        p.drain_to_eof().await.is_empty(),
        "nothing after the answer"
    );
    let status = p.wait_exit(Duration::from_secs(5)).await;
    assert_eq!(status.code(), Some(0), "{status}\n{}", p.stderr_text());
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// A client that vanishes (closes stdout, then stdin): nobody is left to answer, so the
/// server ends at once, with no shutdown grace, with status 0 and no error. Whether or not a
/// request is in flight, and whether or not an answer is written after stdout closed (the
/// broken pipe) or nothing is (the closed pipe is noticed all the same).
#[tokio::test]
async fn a_vanished_client_ends_the_server_promptly_with_status_zero() {
    for (in_flight, ping) in [(false, true), (true, true), (true, false)] {
        let mut p = Proc::fixture(&[]);
        p.init("2025-11-25").await;
        if in_flight {
            p.call(1, "slow", json!({"ms": 60_000})).await;
            p.ping(2).await;
            assert_eq!(p.recv().await["id"], 2);
        }
        // Drop the read end of the server's stdout, then answerable requests, then EOF.
        let Proc {
            mut child,
            stdin,
            out,
            stderr,
            ..
        } = p;
        drop(out);
        let mut stdin = stdin.expect("stdin");
        if ping {
            let ping = b"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"ping\"}\n";
            // The server may already be gone (a write error is fine then).
            let _ = stdin.write_all(ping).await;
            let _ = stdin.flush().await;
        }
        drop(stdin);
        let status = match tokio::time::timeout(Duration::from_secs(3), child.wait()).await {
            Ok(status) => status.expect("wait for child"),
            Err(_) => {
                let _ = child.start_kill();
                let _ = child.wait().await;
                panic!(
                    "in_flight={in_flight} ping={ping}: the server did not exit within 3 s\n--- stderr ---\n{}",
                    String::from_utf8_lossy(&stderr.lock().unwrap())
                );
            }
        };
        // Let the stderr drain catch up with what the process wrote before exiting.
        tokio::time::sleep(Duration::from_millis(100)).await;
        let err = String::from_utf8_lossy(&stderr.lock().unwrap()).into_owned();
        assert_eq!(
            status.code(),
            Some(0),
            "in_flight={in_flight} ping={ping}: {status}\n{err}"
        );
        assert!(
            !err.contains("Broken pipe") && !err.contains("Error:"),
            "in_flight={in_flight} ping={ping}: {err}"
        );
    }
}

/// SIGTERM while idle (stdin still open): the process exits 0 promptly.
#[cfg(unix)]
#[tokio::test]
async fn sigterm_while_idle_exits_zero_promptly() {
    let mut p = Proc::fixture(&[]);
    p.init("2025-11-25").await;
    // A round trip after start-up, so the signal handler is surely installed.
    p.ping(1).await;
    assert_eq!(p.recv().await["id"], 1);
    sigterm(p.pid());
    let status = p.wait_exit(Duration::from_secs(3)).await;
    assert_eq!(status.code(), Some(0), "{status}\n{}", p.stderr_text());
}

/// SIGTERM with a request in flight: reading stops, the request finishes and is answered,
/// the process exits 0.
#[cfg(unix)]
#[tokio::test]
async fn sigterm_drains_in_flight_requests_and_exits_zero() {
    let mut p = Proc::fixture(&[]);
    p.init("2025-11-25").await;
    p.call(1, "slow", json!({"ms": 300, "tag": "term"})).await;
    // Let the request reach its handler before the signal.
    tokio::time::sleep(Duration::from_millis(50)).await;
    sigterm(p.pid());
    let v = p.recv().await;
    assert_eq!(v["id"], 1, "{v}");
    assert_eq!(text(&v), "slept 300 ms term");
    let status = p.wait_exit(Duration::from_secs(3)).await;
    assert_eq!(status.code(), Some(0), "{status}\n{}", p.stderr_text());
}

#[cfg(unix)]
fn sigterm(pid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .expect("running kill");
    assert!(status.success(), "kill -TERM {pid} failed");
}

// ---------------------------------------------------------------------------------------
// Handlers
// ---------------------------------------------------------------------------------------

/// A panicking handler answers -32603 "Internal error" for that request only; the panic text
/// reaches stderr, never stdout; later calls work.
#[tokio::test]
async fn panicking_handler_answers_32603_and_the_connection_lives_on() {
    let mut p = Proc::fixture(&[]);
    p.init("2025-11-25").await;
    p.call(1, "boom", json!({})).await;
    let line = p.recv_line().await;
    let e = parse_jsonrpc(&line);
    assert_eq!(e["id"], 1, "{e}");
    assert_eq!(code(&e), -32603, "{e}");
    assert_eq!(e["error"]["message"], "Internal error", "{e}");
    p.call(2, "search_books", json!({"query": "after the panic"}))
        .await;
    let v = p.recv().await;
    assert_eq!(v["id"], 2);
    assert_eq!(text(&v), "Found 3 books matching 'after the panic'.");
    // Twice in a row, and concurrently with a healthy request.
    p.call(3, "boom", json!({})).await;
    p.call(4, "slow", json!({"ms": 20})).await;
    let mut got = [p.recv().await, p.recv().await];
    got.sort_by_key(|v| v["id"].as_i64());
    assert_eq!(code(&got[0]), -32603);
    assert_eq!(text(&got[1]), "slept 20 ms ");

    p.close_stdin();
    p.drain_to_eof().await;
    assert_eq!(p.wait_exit(Duration::from_secs(5)).await.code(), Some(0));
    let stdout = String::from_utf8_lossy(&p.seen);
    assert!(
        !stdout.contains("7f3a"),
        "panic text leaked to stdout: {stdout}"
    );
    assert!(
        !stdout.contains("panicked"),
        "panic text leaked to stdout: {stdout}"
    );
    assert!(
        p.stderr_text().contains("fixture secret panic text 7f3a"),
        "the panic is reported on stderr: {}",
        p.stderr_text()
    );
}

/// `notifications/cancelled` for an in-flight request: no response ever arrives for it, and
/// the connection keeps serving.
#[tokio::test]
async fn cancelled_request_gets_no_response() {
    const SLOW_MS: u64 = 300;
    let mut p = Proc::fixture(&[]);
    p.init("2025-11-25").await;
    p.call("slow-1", "slow", json!({"ms": SLOW_MS})).await;
    let sent = Instant::now();
    tokio::time::sleep(Duration::from_millis(30)).await;
    p.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": "slow-1", "reason": "test"}}),
    )
    .await;
    p.ping("after").await;
    assert_eq!(
        p.recv().await,
        json!({"jsonrpc": "2.0", "id": "after", "result": {}})
    );
    // Past the slow duration plus 500 ms: still nothing for slow-1.
    let until = Duration::from_millis(SLOW_MS + 500).saturating_sub(sent.elapsed());
    p.expect_silence(until).await;
    // Cancelling an unknown or finished id is harmless.
    p.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": "slow-1"}}),
    )
    .await;
    p.call(2, "search_books", json!({"query": "next"})).await;
    let v = p.recv().await;
    assert_eq!(v["id"], 2);
    assert_eq!(text(&v), "Found 3 books matching 'next'.");
}

// ---------------------------------------------------------------------------------------
// stdout hygiene
// ---------------------------------------------------------------------------------------

/// Over a whole session with progress notifications, errors and a panic, every line on
/// stdout is a JSON-RPC message; the logs (tracing, the panic report) are on stderr.
#[tokio::test]
async fn stdout_carries_only_jsonrpc_frames() {
    for name in ["bookshop", "stdio_fixture"] {
        let mut p = Proc::spawn(name, &[]);
        p.init("2025-11-25").await;
        p.request(1, "tools/list", json!({})).await;
        p.call(2, "search_books", json!({"query": UTF8_QUERY}))
            .await;
        p.request(3, "no/such/method", json!({})).await;
        p.send_raw(b"garbage\n").await;
        if name == "stdio_fixture" {
            p.request(
                4,
                "tools/call",
                json!({"name": "progress", "arguments": {"steps": 3},
                       "_meta": {"progressToken": "tok"}}),
            )
            .await;
            p.call(5, "boom", json!({})).await;
        }
        p.close_stdin();
        let lines = p.drain_to_eof().await;
        assert_eq!(p.wait_exit(Duration::from_secs(5)).await.code(), Some(0));
        let messages: Vec<Value> = lines.iter().map(|l| parse_jsonrpc(l)).collect();
        let progress = messages
            .iter()
            .filter(|m| m["method"] == "notifications/progress")
            .count();
        let responses = messages.iter().filter(|m| m.get("id").is_some()).count();
        if name == "stdio_fixture" {
            assert_eq!(progress, 3, "{messages:?}");
            assert_eq!(responses, 6, "{messages:?}");
        } else {
            assert_eq!(responses, 4, "{messages:?}");
        }
        let stderr = p.stderr_text();
        assert!(!stderr.trim().is_empty(), "{name}: logs go to stderr");
        assert!(
            stderr
                .lines()
                .any(|l| serde_json::from_str::<Value>(l).is_err()),
            "{name}: stderr holds log lines: {stderr}"
        );
        if name == "bookshop" {
            assert!(
                stderr.contains("took"),
                "LogTiming logs to stderr: {stderr}"
            );
        }
    }
}
