//! `mcp bridge --stdio URL`: the official Python SDK client, speaking stdio, runs its whole
//! exercise of `examples/everything` (`interop/python/test_everything.py`: lists, calls,
//! resources, prompts, completion, progress, a cancelled call, logging, elicitation,
//! sampling, roots; 2025-11-25 through `initialize` and through the auto probe's fallback,
//! 2026-07-28 through `server/discover` and `input_required` rounds) against `everything`
//! servers listening on Streamable HTTP, through the bridge. The reverse, `mcp bridge --http
//! ADDR 'everything --stdio'`, serves the stdio server over Streamable HTTP, and the Python
//! SDK client's HTTP exercise runs against it (2025-11-25 sessions, 2026-07-28 SSE
//! responses). Then hand-written sessions show the relay's own rules.

mod support;

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use support::{everything, listen};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::Command;

#[tokio::test]
async fn the_python_sdk_stdio_client_exercises_everything_over_http_through_the_bridge() {
    let Some(python) = support::python() else {
        return;
    };
    let bin = everything().to_str().unwrap().to_owned();
    let legacy = listen(
        &bin,
        &[
            "--http",
            "127.0.0.1:{port}",
            "--protocol-versions",
            "2025-11-25",
        ],
        false,
    )
    .await;
    let modern = listen(
        &bin,
        &[
            "--http",
            "127.0.0.1:{port}",
            "--protocol-versions",
            "2026-07-28",
        ],
        false,
    )
    .await;
    // test_everything.py starts `BINARY --stdio --protocol-versions REV` as its stdio
    // server: here that is the bridge to the server of REV.
    let dir = std::env::temp_dir().join(format!("mcp-cli-bridge-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let wrapper = dir.join("everything-via-bridge");
    let script = format!(
        "#!/bin/sh\ncase \"$3\" in\n  2025-11-25) url={} ;;\n  2026-07-28) url={} ;;\n  *) echo \"no server for $3\" >&2; exit 2 ;;\nesac\nexec {} bridge --stdio \"$url\"\n",
        legacy.url("/mcp"),
        modern.url("/mcp"),
        env!("CARGO_BIN_EXE_mcp"),
    );
    std::fs::write(&wrapper, script).unwrap();
    std::fs::set_permissions(
        &wrapper,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();

    let run = Command::new(python)
        .arg(support::root().join("interop/python/test_everything.py"))
        .arg(&wrapper)
        .arg(format!("2025-11-25={}", legacy.url("")))
        .arg(format!("2026-07-28={}", modern.url("")))
        .env("INTEROP_TRANSPORTS", "stdio,stdio auto")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(300), run)
        .await
        .expect("test_everything.py ran over 300 s")
        .expect("run test_everything.py");
    let _ = std::fs::remove_dir_all(&dir);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("3 passed, 0 failed"),
        "the Python SDK client through the bridge:\n{stdout}\n{stderr}"
    );
    for line in [
        "ok   stdio 2025-11-25",
        "ok   stdio auto 2025-11-25",
        "ok   stdio 2026-07-28",
    ] {
        assert!(stdout.contains(line), "{line}:\n{stdout}");
    }
}

/// A stdio session with `mcp bridge --stdio [FLAGS] URL`.
struct Session {
    child: tokio::process::Child,
    stdin: tokio::process::ChildStdin,
    lines: tokio::io::Lines<BufReader<tokio::process::ChildStdout>>,
}

impl Session {
    fn start(url: &str) -> Self {
        Self::with(&[], url)
    }

    fn with(flags: &[&str], url: &str) -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_mcp"))
            .args(["bridge", "--stdio"])
            .args(flags)
            .arg(url)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn mcp bridge");
        let stdin = child.stdin.take().unwrap();
        let lines = BufReader::new(child.stdout.take().unwrap()).lines();
        Self {
            child,
            stdin,
            lines,
        }
    }

    async fn send(&mut self, v: Value) {
        let line = format!("{v}\n");
        self.stdin.write_all(line.as_bytes()).await.unwrap();
    }

    async fn recv(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line())
            .await
            .expect("an answer within 20 s")
            .unwrap()
            .expect("a line");
        serde_json::from_str(&line).unwrap()
    }
}

#[tokio::test]
async fn the_bridge_relays_requests_errors_and_server_requests() {
    let bin = everything().to_str().unwrap().to_owned();
    let server = listen(&bin, &["--http", "127.0.0.1:{port}"], false).await;
    let mut s = Session::start(&server.url("/mcp"));
    // Before initialize, nothing is served: the library's stdio server says to initialize.
    s.send(json!({"jsonrpc": "2.0", "id": 0, "method": "tools/list"}))
        .await;
    let early = s.recv().await;
    assert_eq!(early["error"]["code"], -32602, "{early}");
    let why = early["error"]["message"].as_str().unwrap_or_default();
    assert!(why.contains("send initialize first"), "{early}");
    // The client's revision, info and capabilities go upstream.
    s.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "clientInfo": {"name": "stdio-only", "version": "1"},
        "capabilities": {"roots": {}}}}),
    )
    .await;
    let init = s.recv().await;
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "everything");
    s.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
        .await;
    s.send(json!({"jsonrpc": "2.0", "id": "c", "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 2, "b": 40}}}))
        .await;
    assert_eq!(
        s.recv().await,
        json!({"jsonrpc": "2.0", "id": "c",
        "result": {"content": [{"type": "text", "text": "42"}]}})
    );
    s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "nope"}))
        .await;
    assert_eq!(s.recv().await["error"]["code"], -32601);
    // The server asks the client for its roots: the bridge asks the stdio client.
    s.send(json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "list_roots", "arguments": {}}}))
        .await;
    let ask = s.recv().await;
    assert_eq!(ask["method"], "roots/list", "{ask}");
    s.send(
        json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"roots": [
        {"uri": "file:///tmp/project", "name": "project"}]}}),
    )
    .await;
    let listed = s.recv().await;
    assert_eq!(listed["id"], 3);
    let text = listed["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("file:///tmp/project"), "{listed}");
    // stdin closed: the bridge ends.
    drop(s.stdin);
    let status = tokio::time::timeout(Duration::from_secs(10), s.child.wait()).await;
    assert!(status.expect("the bridge exits on EOF").unwrap().success());
}

#[tokio::test]
async fn the_bridge_reaches_an_http_sse_server_at_a_pinned_legacy_revision() {
    let bin = everything().to_str().unwrap().to_owned();
    let server = listen(&bin, &["--sse", "127.0.0.1:{port}"], false).await;
    // Found by the fallback from Streamable HTTP, named by --sse, and with the upstream's
    // revision pinned by --protocol (the fallback too).
    for flags in [&[][..], &["--sse"], &["--protocol", "2024-11-05"]] {
        let mut s = Session::with(flags, &server.url("/sse"));
        // A legacy upstream: the bridge speaks no 2026-07-28, so a probing client falls
        // back to initialize.
        s.send(
            json!({"jsonrpc": "2.0", "id": 0, "method": "server/discover", "params": {
            "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}}),
        )
        .await;
        let probe = s.recv().await;
        assert_eq!(probe["error"]["code"], -32600, "{flags:?}: {probe}");
        s.send(
            json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2024-11-05", "clientInfo": {"name": "old", "version": "1"},
            "capabilities": {}}}),
        )
        .await;
        let init = s.recv().await;
        assert_eq!(
            init["result"]["protocolVersion"], "2024-11-05",
            "{flags:?}: {init}"
        );
        s.send(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}}}))
            .await;
        assert_eq!(s.recv().await["result"]["content"][0]["text"], "3");
        drop(s.stdin);
        let status = tokio::time::timeout(Duration::from_secs(10), s.child.wait()).await;
        assert!(status.expect("the bridge exits on EOF").unwrap().success());
    }
    // Pinned to 2024-11-05, the bridge serves no newer revision than its upstream's.
    let mut s = Session::with(&["--protocol", "2024-11-05"], &server.url("/sse"));
    s.send(
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "clientInfo": {"name": "new", "version": "1"},
        "capabilities": {}}}),
    )
    .await;
    let init = s.recv().await;
    assert_eq!(init["result"]["protocolVersion"], "2024-11-05", "{init}");
}

/// `mcp bridge --http 127.0.0.1:PORT 'everything --stdio --protocol-versions REV'`.
async fn http_bridge(rev: &str) -> support::Listening {
    let cmd = format!(
        "{} --stdio --protocol-versions {rev}",
        everything().display()
    );
    let mcp = env!("CARGO_BIN_EXE_mcp");
    listen(mcp, &["bridge", "--http", "127.0.0.1:{port}", &cmd], false).await
}

#[tokio::test]
async fn a_stdio_server_served_over_http_answers_our_client_in_both_eras() {
    for rev in ["2025-11-25", "2026-07-28"] {
        let bridge = http_bridge(rev).await;
        let url = bridge.url("/mcp");
        let sum = support::mcp(&["call", "--protocol", rev, &url, "add", "a=2", "b=40"]).await;
        assert_eq!(sum.expect(0).stdout, "42\n");
        let r = support::mcp(&["inspect", "--json", "--protocol", rev, &url])
            .await
            .expect(0);
        let r = r.json();
        assert_eq!(r["protocolVersion"], rev);
        assert_eq!(r["transport"], "Streamable HTTP");
        assert_eq!(r["server"]["name"], "everything");
    }
    // Bad usage is refused before anything starts.
    let r = support::mcp(&["bridge", "--http", "127.0.0.1:1", "http://x/mcp"])
        .await
        .expect(2);
    assert!(r.stderr.contains("usage: mcp bridge"), "{r:#?}");
}

#[tokio::test]
async fn the_python_sdk_http_client_exercises_everything_served_over_http_by_the_bridge() {
    let Some(python) = support::python() else {
        return;
    };
    let legacy = http_bridge("2025-11-25").await;
    let modern = http_bridge("2026-07-28").await;
    let run = Command::new(python)
        .arg(support::root().join("interop/python/test_everything.py"))
        .arg(everything())
        .arg(format!("2025-11-25={}", legacy.url("")))
        .arg(format!("2026-07-28={}", modern.url("")))
        .env("INTEROP_TRANSPORTS", "streamable-http")
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output();
    let out = tokio::time::timeout(Duration::from_secs(300), run)
        .await
        .expect("test_everything.py ran over 300 s")
        .expect("run test_everything.py");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stdout.trim_end().ends_with("2 passed, 0 failed"),
        "the Python SDK HTTP client through mcp bridge --http:\n{stdout}\n{stderr}"
    );
}
