//! Admission, the same on every transport: each case below is the opening message of a new
//! connection, sent to one server (`tests/examples/stdio_fixture`) over real stdio (a subprocess),
//! the in-memory pipe and Streamable HTTP, for a server of each era set (every revision,
//! legacy only, 2026 only). The three answers must be the same JSON-RPC response, and each
//! is checked against what the case expects.
//!
//! HTTP requests carry the headers a conformant client sends for its body (the 2026
//! `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` mirrors), so the transport is the
//! only difference; what is HTTP's alone (a header that contradicts the body) has its
//! cases in `tests/http_modern_headers.rs`.

mod support;

#[path = "../examples/stdio_fixture/fixture.rs"]
#[allow(dead_code)]
mod fixture;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use mcp::ServerOptions;
use mcp::transport::http::HttpOptions;
use mcp::transport::http::LoopbackHttp;
use mcp::version::{ProtocolVersion, SupportedVersions};
use serde_json::{Value, json};
use support::http::{self, Resp};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// The three era sets a server may serve, by the name `stdio_fixture --versions` takes.
const ERAS: [&str; 3] = ["all", "legacy", "modern"];

fn versions(era: &str) -> SupportedVersions {
    match era {
        "all" => SupportedVersions::all(),
        "legacy" => SupportedVersions::only(&[
            ProtocolVersion::V2024_11_05,
            ProtocolVersion::V2025_03_26,
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_11_25,
        ]),
        "modern" => SupportedVersions::only(&[ProtocolVersion::V2026_07_28]),
        _ => unreachable!(),
    }
}

fn envelope(version: &str) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "admission-test", "version": "1"}
    })
}

fn request(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
}

fn initialize(version: &str) -> Value {
    json!({
        "protocolVersion": version,
        "capabilities": {},
        "clientInfo": {"name": "admission-test", "version": "1"}
    })
}

/// What a case must get: a result holding a member, or an error with this code.
#[derive(Debug, Clone, Copy)]
enum Want {
    Result(&'static str),
    Error(i64),
}

/// One admission case: its opening message and what each era set must answer.
struct Case {
    name: &'static str,
    message: Value,
    /// For servers serving every revision, legacy only, and 2026 only.
    want: [Want; 3],
}

fn cases() -> Vec<Case> {
    use Want::{Error, Result};
    let modern = |method: &str, mut params: Value| {
        params["_meta"] = envelope("2026-07-28");
        request(method, params)
    };
    let mut enveloped_init = initialize("2025-11-25");
    enveloped_init["_meta"] = envelope("2026-07-28");
    let mut extra_meta = envelope("2026-07-28");
    extra_meta["com.example/trace"] = json!("abc");
    let mut missing_caps = envelope("2026-07-28");
    missing_caps
        .as_object_mut()
        .unwrap()
        .remove("io.modelcontextprotocol/clientCapabilities");
    vec![
        Case {
            name: "initialize, the legacy handshake",
            message: request("initialize", initialize("2025-11-25")),
            want: [Result("serverInfo"), Result("serverInfo"), Error(-32022)],
        },
        Case {
            // A 2026 request for a method 2026 does not have (the conformance suite's
            // `sep-2575-http-server-method-not-found-404-initialize`); a legacy-only
            // server takes it as its handshake.
            name: "initialize carrying the 2026 envelope",
            message: request("initialize", enveloped_init),
            want: [Error(-32601), Result("serverInfo"), Error(-32601)],
        },
        Case {
            name: "initialize asking for a revision nobody has",
            message: request("initialize", initialize("1999-01-01")),
            // A legacy server answers with its own latest revision.
            want: [Result("serverInfo"), Result("serverInfo"), Error(-32022)],
        },
        Case {
            name: "a 2026 tools/list",
            message: modern("tools/list", json!({})),
            want: [Result("tools"), Error(-32600), Result("tools")],
        },
        Case {
            name: "a 2026 request with an extra _meta key",
            message: request("tools/list", json!({"_meta": extra_meta})),
            want: [Result("tools"), Error(-32600), Result("tools")],
        },
        Case {
            name: "a 2026 request without clientCapabilities (required)",
            message: request("tools/list", json!({"_meta": missing_caps})),
            want: [Error(-32602), Error(-32600), Error(-32602)],
        },
        Case {
            name: "a 2026 request for a revision the server does not serve",
            message: request("tools/list", json!({"_meta": envelope("2099-01-01")})),
            want: [Error(-32022), Error(-32600), Error(-32022)],
        },
        Case {
            name: "server/discover",
            message: modern("server/discover", json!({})),
            want: [
                Result("supportedVersions"),
                Error(-32600),
                Result("supportedVersions"),
            ],
        },
        Case {
            name: "an unknown method with the envelope",
            message: modern("no/such/method", json!({})),
            want: [Error(-32601), Error(-32600), Error(-32601)],
        },
        Case {
            name: "ping with the envelope (2026 has none)",
            message: modern("ping", json!({})),
            want: [Error(-32601), Error(-32600), Error(-32601)],
        },
        Case {
            name: "a call of an unknown tool",
            message: modern("tools/call", json!({"name": "nope", "arguments": {}})),
            want: [Error(-32602), Error(-32600), Error(-32602)],
        },
        Case {
            name: "a call with a bad argument",
            message: modern(
                "tools/call",
                json!({"name": "search_books", "arguments": {"query": 5}}),
            ),
            want: [Result("isError"), Error(-32600), Result("isError")],
        },
    ]
}

/// `<target>/<profile>/examples/stdio_fixture`, built once (as `tests/stdio.rs` does).
fn stdio_fixture() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("current_exe");
        let profile_dir = exe.parent().and_then(Path::parent).unwrap().to_path_buf();
        let target_dir = profile_dir.parent().unwrap().to_path_buf();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = std::process::Command::new(cargo)
            .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
            .args([
                "build",
                "--quiet",
                "-p",
                "mcp-framework-tests",
                "--all-features",
            ])
            .args(["--example", "stdio_fixture", "--target-dir"])
            .arg(&target_dir)
            .status()
            .expect("running cargo build --example stdio_fixture");
        assert!(status.success(), "building stdio_fixture failed");
        profile_dir
            .join("examples")
            .join(format!("stdio_fixture{}", std::env::consts::EXE_SUFFIX))
    })
}

/// The first line a new line-framed connection answers to `message`.
async fn first_answer<R, W>(reader: R, mut writer: W, message: &Value) -> Value
where
    R: tokio::io::AsyncRead + Unpin,
    W: tokio::io::AsyncWrite + Unpin,
{
    let mut line = serde_json::to_vec(message).unwrap();
    line.push(b'\n');
    writer.write_all(&line).await.unwrap();
    writer.flush().await.unwrap();
    let mut answer = String::new();
    let mut reader = BufReader::new(reader);
    tokio::time::timeout(Duration::from_secs(10), reader.read_line(&mut answer))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    serde_json::from_str(&answer).unwrap_or_else(|e| panic!("{e}: {answer:?}"))
}

async fn over_stdio(era: &str, message: &Value) -> Value {
    let mut child = tokio::process::Command::new(stdio_fixture())
        .args(["--stdio", "--versions", era])
        .env_remove("RUST_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("spawning stdio_fixture");
    let stdin = child.stdin.take().unwrap();
    let stdout = child.stdout.take().unwrap();
    let answer = first_answer(stdout, stdin, message).await;
    child.kill().await.ok();
    answer
}

async fn over_memory(era: &str, message: &Value) -> Value {
    let server = fixture::fixture(ServerOptions::default(), versions(era));
    let (r, w) = tokio::io::split(server.serve_in_memory());
    first_answer(r, w, message).await
}

async fn start_http(era: &str) -> LoopbackHttp {
    let server = fixture::fixture(ServerOptions::default(), versions(era));
    LoopbackHttp::start(&server, HttpOptions::default())
        .await
        .unwrap()
}

/// POSTs `message` with the headers a conformant client derives from it.
async fn over_http(addr: SocketAddr, message: &Value) -> Value {
    let mut b = http::request(addr, "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    let params = &message["params"];
    if let Some(v) = params["_meta"]["io.modelcontextprotocol/protocolVersion"].as_str() {
        b = b
            .header("mcp-protocol-version", v)
            .header("mcp-method", message["method"].as_str().unwrap());
        if let Some(name) = params["name"].as_str() {
            b = b.header("mcp-name", name);
        }
    }
    let r = Resp::read(http::send(addr, b, message.to_string()).await).await;
    r.json()
}

/// The part of an answer every transport must agree on: the id and the result, or the
/// error's code, message and data.
fn check(want: Want, answer: &Value) -> Result<(), String> {
    match want {
        Want::Result(member) if answer["result"].get(member).is_some() => Ok(()),
        Want::Error(code) if answer["error"]["code"] == json!(code) => Ok(()),
        _ => Err(format!("wanted {want:?}, got {answer}")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_case_gets_the_same_answer_on_stdio_memory_and_http() {
    let mut failures = Vec::new();
    for (e, era) in ERAS.iter().enumerate() {
        let http = start_http(era).await;
        let addr = http.addr();
        for case in cases() {
            let stdio = over_stdio(era, &case.message).await;
            let memory = over_memory(era, &case.message).await;
            let http = over_http(addr, &case.message).await;
            let label = format!("[{era}] {}", case.name);
            if stdio != memory || stdio != http {
                failures.push(format!(
                    "{label}: the transports disagree\n  stdio:  {stdio}\n  memory: {memory}\n  http:   {http}"
                ));
                continue;
            }
            if let Err(why) = check(case.want[e], &stdio) {
                failures.push(format!("{label}: {why}"));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}
