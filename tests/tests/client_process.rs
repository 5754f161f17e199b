//! `mcp::client::Client` over a child process: the Bookshop example spawned with `--stdio` (auto and
//! legacy), stderr captured, graceful shutdown; and shell "servers" that crash mid-request or
//! ignore stdin EOF (SIGTERM) or SIGTERM too (SIGKILL). Nothing may hang.

#[path = "support/examples.rs"]
mod examples;

use std::path::Path;
use std::time::{Duration, Instant};

use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode, ShutdownTimeouts, StderrMode};
use mcp::prelude::*;
use mcp::version::ProtocolVersion as V;
use serde_json::json;
use tokio::process::Command;

fn bookshop() -> Command {
    let path = examples::built("mcp-framework", "bookshop", &[]);
    let mut cmd = Command::new(path);
    cmd.arg("--stdio")
        .env("RUST_BACKTRACE", "0")
        .env_remove("RUST_LOG")
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    cmd
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[tokio::test]
async fn bookshop_over_stdio_auto_and_legacy() {
    for mode in [ConnectMode::Auto, ConnectMode::Legacy(V::V2025_06_18)] {
        let c = Client::builder()
            .mode(mode)
            .stderr(StderrMode::Capture)
            .request_timeout(Duration::from_secs(10))
            .spawn(bookshop())
            .await
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let want = match mode {
            ConnectMode::Auto => V::V2026_07_28,
            _ => V::V2025_06_18,
        };
        assert_eq!(c.protocol_version(), want);
        assert!(c.pid().is_some());
        let tools = c.list_all_tools().await.unwrap();
        assert!(tools.iter().any(|t| t.name == "search_books"), "{tools:?}");
        let r = c
            .call_tool("search_books", json!({"query": "héllo 📚"}))
            .await
            .unwrap();
        assert!(text(&r).contains("héllo 📚"), "{}", text(&r));
        c.ping().await.unwrap();
        let started = Instant::now();
        let status = c.shutdown().await.unwrap().expect("a process");
        assert!(status.success(), "{status}");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(c.exit_status(), Some(status));
        let stderr = c.stderr().unwrap();
        assert!(stderr.contains("took"), "logs are captured: {stderr}");
        // After shutdown, calls fail instead of hanging.
        assert!(c.ping().await.is_err());
    }
}

#[tokio::test]
async fn env_and_working_directory_reach_the_child() {
    // The "server" answers initialize with its cwd and an env var as serverInfo.
    let dir = std::env::temp_dir();
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(
            r#"read l; printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-06-18","capabilities":{},"serverInfo":{"name":"%s","version":"%s"}}}\n' "$(pwd)" "$MCP_TEST_VAR"; read l; exit 0"#,
        )
        .env("MCP_TEST_VAR", "v-42")
        .current_dir(&dir);
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_06_18))
        .spawn(cmd)
        .await
        .unwrap();
    let info = c.server_info().unwrap();
    assert_eq!(info.version, "v-42");
    assert_eq!(
        Path::new(&info.name).canonicalize().unwrap(),
        dir.canonicalize().unwrap()
    );
    let status = c.shutdown().await.unwrap().unwrap();
    assert!(status.success());
}

/// A server that exits with status 7 while a request is pending: the request fails with
/// the exit status, promptly.
#[tokio::test]
async fn a_crashed_child_is_an_error_with_its_exit_status() {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(
        r#"read l; printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"crashy","version":"0"}}}\n'; read l; read l; echo dying >&2; exit 7"#,
    );
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .stderr(StderrMode::Capture)
        .spawn(cmd)
        .await
        .unwrap();
    let started = Instant::now();
    let e = tokio::time::timeout(Duration::from_secs(10), c.list_tools(None))
        .await
        .expect("no hang")
        .unwrap_err();
    match &e {
        ClientError::ProcessExited(s) => assert_eq!(s.code(), Some(7), "{s}"),
        other => panic!("{other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(5));
    assert!(matches!(c.ping().await, Err(ClientError::ProcessExited(_))));
    assert_eq!(c.shutdown().await.unwrap().unwrap().code(), Some(7));
    assert!(c.stderr().unwrap().contains("dying"));
}

/// A server that dies before answering the handshake: connecting fails, with its status.
#[tokio::test]
async fn a_child_dying_during_the_handshake_fails_the_connect() {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg("read l; exit 3");
    let e = Client::builder()
        .mode(ConnectMode::Auto)
        .stderr(StderrMode::Null)
        .spawn(cmd)
        .await
        .expect_err("must fail");
    match e {
        ClientError::ProcessExited(s) => assert_eq!(s.code(), Some(3), "{s}"),
        other => panic!("{other:?}"),
    }
    // A command that does not exist is an I/O error.
    let e = Client::spawn(Command::new("/nonexistent/mcp-server"))
        .await
        .expect_err("must fail");
    assert!(matches!(e, ClientError::Io(_)), "{e:?}");
}

const INIT_THEN: &str = r#"read l; printf '{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{},"serverInfo":{"name":"stubborn","version":"0"}}}\n'; "#;

fn quick() -> ShutdownTimeouts {
    ShutdownTimeouts {
        after_close: Duration::from_millis(300),
        after_sigterm: Duration::from_millis(500),
        after_sigkill: Duration::from_secs(3),
    }
}

#[cfg(unix)]
#[tokio::test]
async fn shutdown_escalates_to_sigterm() {
    use std::os::unix::process::ExitStatusExt;
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("{INIT_THEN} exec sleep 30"));
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .shutdown_timeouts(quick())
        .spawn(cmd)
        .await
        .unwrap();
    let started = Instant::now();
    let status = c.shutdown().await.unwrap().unwrap();
    assert_eq!(status.signal(), Some(15), "{status}");
    assert!(started.elapsed() < Duration::from_secs(3));
}

#[cfg(unix)]
#[tokio::test]
async fn shutdown_escalates_to_sigkill() {
    use std::os::unix::process::ExitStatusExt;
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!(
        "trap '' TERM; {INIT_THEN} while :; do sleep 0.05; done"
    ));
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .shutdown_timeouts(quick())
        .spawn(cmd)
        .await
        .unwrap();
    let started = Instant::now();
    let status = c.shutdown().await.unwrap().unwrap();
    assert_eq!(status.signal(), Some(9), "{status}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

/// Dropping the last handle without `shutdown` still ends a stubborn server (in the
/// background: close stdin, SIGTERM, SIGKILL).
#[cfg(unix)]
#[tokio::test]
async fn dropping_the_client_ends_the_child() {
    let mut cmd = Command::new("sh");
    cmd.arg("-c").arg(format!("{INIT_THEN} exec sleep 30"));
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .shutdown_timeouts(quick())
        .spawn(cmd)
        .await
        .unwrap();
    let pid = c.pid().unwrap().to_string();
    drop(c);
    let alive = || {
        std::process::Command::new("kill")
            .args(["-0", &pid])
            .stderr(std::process::Stdio::null())
            .status()
            .unwrap()
            .success()
    };
    let started = Instant::now();
    while alive() {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the child outlived its client"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Sends `signal` (`-STOP`, `-CONT`) to `pid`.
fn signal(pid: u32, signal: &str) {
    let status = std::process::Command::new("kill")
        .args([signal, &pid.to_string()])
        .status()
        .expect("running kill");
    assert!(status.success(), "kill {signal} {pid}: {status}");
}

#[tokio::test]
async fn a_default_server_and_a_default_client_answer_the_second_tools_list_from_the_cache() {
    // Both with their defaults: the Bookshop sets no caching hint, the client no cache mode.
    let c = Client::builder()
        .request_timeout(Duration::from_secs(10))
        .stderr(StderrMode::Null)
        .spawn(bookshop())
        .await
        .unwrap();
    assert_eq!(c.protocol_version(), V::V2026_07_28);
    let first = c.list_tools(None).await.unwrap();
    assert_eq!(first.ttl_ms, Some(60_000));
    let pid = c.pid().expect("a child process");
    // The server is stopped: it answers nothing until it is continued. A stop is
    // asynchronous: wait until the kernel shows the process stopped (state `T`).
    signal(pid, "-STOP");
    let state = || {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // `pid (comm) S ...`: the state follows the last `)`.
        stat.rsplit_once(')')
            .and_then(|(_, rest)| rest.split_whitespace().next().map(str::to_owned))
    };
    let started = Instant::now();
    while state().as_deref() != Some("T") {
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "the server did not stop: {:?}",
            state()
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let asked = c.with_cache_mode(mcp::client::cache::CacheMode::Bypass);
    let unanswered = tokio::time::timeout(Duration::from_millis(300), asked.list_tools(None)).await;
    assert!(
        unanswered.is_err(),
        "a stopped server answered: {unanswered:?}"
    );
    let second = tokio::time::timeout(Duration::from_secs(5), c.list_tools(None))
        .await
        .expect("answered from the cache, without the server")
        .unwrap();
    signal(pid, "-CONT");
    assert_eq!(second, first);
    let status = c.shutdown().await.unwrap().expect("a process");
    assert!(status.success(), "{status}");
}
