//! Failure isolation in `mcp::proxy`: a gateway with a local tool and two upstreams, each a
//! scripted stdio server (`python3 -c`) that refuses to start while its flag file exists.
//! An upstream killed (and unable to restart) leaves the lists with one `list_changed`, a
//! call to its tool names it, the local tool and the other upstream are served, and it
//! returns when it can start again; a frozen one is stopped and started again; one down at
//! the gateway's start does not stop the gateway; failing closed, its absence fails the
//! lists instead. An HTTP upstream stopped and started again on the same port does the
//! same. An upstream asking for roots with no call in flight gets an empty list. Every case
//! runs under a hard timeout.

use std::path::PathBuf;
use std::time::Duration;

use mcp::client::Client;
use mcp::client::ConnectMode;
use mcp::prelude::*;
use mcp::proxy::{FailureMode, Proxy, ReadinessSet, Upstream};
use mcp::transport::http::HttpOptions;
use serde_json::{Value, json};

use ProtocolVersion as V;

const LEGACY: ConnectMode = ConnectMode::Legacy(V::V2025_11_25);
const MODERN: ConnectMode = ConnectMode::Modern(V::V2026_07_28);

/// Every test is bounded: nothing here may hang.
async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(90), f)
        .await
        .expect("the test finished within 90 s")
}

/// A legacy stdio server that exits at once while the file named by its first argument
/// exists. Tools: `hello` (its name), `pid`, `freeze` (never answers, reads nothing more),
/// `roots_seen` (the answer to the `roots/list` it sends when initialized).
const UPSTREAM: &str = r#"
import json, os, sys, time
if os.path.exists(sys.argv[1]):
    sys.exit(3)
NAME = sys.argv[2]
def write(o):
    sys.stdout.write(json.dumps(o) + "\n")
    sys.stdout.flush()
def answer(msg, result):
    write({"jsonrpc": "2.0", "id": msg["id"], "result": result})
def text(msg, t):
    answer(msg, {"content": [{"type": "text", "text": t}]})
roots = None
TOOLS = [{"name": n, "inputSchema": {"type": "object"}}
         for n in ["hello", "pid", "freeze", "roots_seen"]]
for line in sys.stdin:
    msg = json.loads(line)
    method, params = msg.get("method"), msg.get("params") or {}
    if method is None:
        roots = msg
        continue
    if method == "notifications/initialized":
        write({"jsonrpc": "2.0", "id": "roots-1", "method": "roots/list"})
        continue
    if "id" not in msg:
        continue
    if method == "initialize":
        answer(msg, {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                     "serverInfo": {"name": NAME, "version": "0"}})
    elif method == "tools/list":
        answer(msg, {"tools": TOOLS})
    elif method == "ping":
        answer(msg, {})
    elif method == "tools/call":
        name = params.get("name")
        if name == "hello":
            text(msg, "hello from " + NAME)
        elif name == "pid":
            text(msg, str(os.getpid()))
        elif name == "roots_seen":
            text(msg, json.dumps(roots))
        elif name == "freeze":
            time.sleep(3600)
    else:
        write({"jsonrpc": "2.0", "id": msg["id"],
               "error": {"code": -32601, "message": "Method not found"}})
"#;

/// A scripted upstream and the flag file that keeps it from starting.
struct Scripted {
    flag: PathBuf,
}

impl Scripted {
    fn new(name: &str) -> Self {
        let flag = std::env::temp_dir().join(format!(
            "mcp-proxy-failure-{}-{name}-{}",
            std::process::id(),
            rand_suffix()
        ));
        let _ = std::fs::remove_file(&flag);
        Scripted { flag }
    }

    fn upstream(&self, name: &str) -> Upstream {
        Upstream::stdio(
            "python3",
            [
                "-u".as_ref(),
                "-c".as_ref(),
                UPSTREAM.as_ref(),
                self.flag.as_os_str(),
                name.as_ref(),
            ],
        )
        .mode(LEGACY)
        .name(name)
        .timeout(Duration::from_secs(2))
        .health_interval(Duration::from_secs(1))
    }

    /// Keeps it from starting again.
    fn block(&self) {
        std::fs::write(&self.flag, b"down").unwrap();
    }

    fn unblock(&self) {
        let _ = std::fs::remove_file(&self.flag);
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.unblock();
    }
}

fn rand_suffix() -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u8(0);
    h.finish()
}

fn kill(proxy: &Proxy) {
    let pid = proxy
        .client()
        .and_then(|c| c.pid())
        .expect("a child process");
    let status = std::process::Command::new("kill")
        .arg("-9")
        .arg(pid.to_string())
        .status()
        .unwrap();
    assert!(status.success());
}

/// A greeting of the gateway's own.
fn gateway_of(proxies: &[(&str, &Proxy)]) -> Server<(ReadinessSet,)> {
    let readiness = ReadinessSet::new();
    let mut b = Server::builder("gateway", "1.0.0")
        .subscriptions(true)
        .tool(Tool::new("local"), |_ctx: Context, _a: Value| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("local")]))
        });
    for (name, p) in proxies {
        b = b.mount(*name, p.server());
        readiness.add(p.readiness());
    }
    b.middleware(readiness).build()
}

async fn caller<C: mcp::middleware::Chain>(server: &Server<C>, mode: ConnectMode) -> Client {
    Client::builder()
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("the caller connects")
}

async fn tool_names(c: &Client) -> Vec<String> {
    let tools = c.list_all_tools().await.expect("tools/list");
    tools.into_iter().map(|t| t.name).collect()
}

fn text_of(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// Waits (up to 15 s) until `c`'s tool list satisfies `ok`.
async fn until_tools(c: &Client, what: &str, ok: impl Fn(&[String]) -> bool) -> Vec<String> {
    for _ in 0..150 {
        let names = tool_names(c).await;
        if ok(&names) {
            return names;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what}: last list {:?}", tool_names(c).await);
}

/// The `tools/list_changed` notifications `rx` holds now.
fn tool_changes(
    rx: &mut tokio::sync::broadcast::Receiver<mcp::client::ServerNotification>,
) -> usize {
    let mut n = 0;
    while let Ok(note) = rx.try_recv() {
        if note.method == "notifications/tools/list_changed" {
            n += 1;
        }
    }
    n
}

#[tokio::test]
async fn a_killed_upstream_leaves_the_lists_the_rest_is_served_and_it_returns() {
    bounded(async {
        let (a, b) = (Scripted::new("a"), Scripted::new("b"));
        let pa = Proxy::connect(a.upstream("a")).await.unwrap();
        let pb = Proxy::connect(b.upstream("b")).await.unwrap();
        let gateway = gateway_of(&[("a", &pa), ("b", &pb)]);
        let legacy = caller(&gateway, LEGACY).await;
        let modern = caller(&gateway, MODERN).await;
        let mut notes = legacy.notifications();
        for c in [&legacy, &modern] {
            let names = tool_names(c).await;
            for n in ["local", "a_hello", "b_hello"] {
                assert!(names.contains(&n.to_owned()), "{names:?}");
            }
        }

        a.block();
        kill(&pa);
        until_tools(&legacy, "a's tools leave", |n| {
            !n.iter().any(|t| t.starts_with("a_"))
        })
        .await;
        assert!(pa.down().is_some(), "the proxy says it is down");
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(tool_changes(&mut notes), 1, "one tools/list_changed");
        for c in [&legacy, &modern] {
            let names = tool_names(c).await;
            assert!(!names.iter().any(|t| t.starts_with("a_")), "{names:?}");
            assert!(names.contains(&"b_hello".to_owned()), "{names:?}");
            let r = c.call_tool("local", json!({})).await.unwrap();
            assert_eq!(text_of(&r), "local");
            let r = c.call_tool("b_hello", json!({})).await.unwrap();
            assert_eq!(text_of(&r), "hello from b");
            let e = c.call_tool("a_hello", json!({})).await.unwrap_err();
            let msg = e.to_string();
            assert!(msg.contains("upstream `a` is unavailable"), "{msg}");
            assert!(!msg.contains("Unknown tool"), "{msg}");
        }
        // A tool neither has is still unknown.
        let e = legacy.call_tool("a_nothing", json!({})).await.unwrap_err();
        assert!(e.to_string().contains("Unknown tool"), "{e}");

        a.unblock();
        until_tools(&legacy, "a's tools return", |n| {
            n.contains(&"a_hello".to_owned())
        })
        .await;
        assert!(pa.down().is_none());
        let r = modern.call_tool("a_hello", json!({})).await.unwrap();
        assert_eq!(text_of(&r), "hello from a");
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            tool_changes(&mut notes),
            1,
            "one tools/list_changed on return"
        );
    })
    .await;
}

#[tokio::test]
async fn a_crashed_upstream_that_can_restart_is_started_again_without_leaving() {
    bounded(async {
        let a = Scripted::new("a");
        let pa = Proxy::connect(a.upstream("a")).await.unwrap();
        let gateway = gateway_of(&[("a", &pa)]);
        let c = caller(&gateway, LEGACY).await;
        let mut notes = c.notifications();
        let first = text_of(&c.call_tool("a_pid", json!({})).await.unwrap());
        kill(&pa);
        let mut second = String::new();
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if let Ok(r) = c.call_tool("a_pid", json!({})).await {
                second = text_of(&r);
                break;
            }
        }
        assert!(
            !second.is_empty() && second != first,
            "{first} then {second}"
        );
        assert_eq!(
            tool_changes(&mut notes),
            0,
            "the same list: nothing announced"
        );
    })
    .await;
}

#[tokio::test]
async fn a_frozen_upstream_is_stopped_and_started_again() {
    bounded(async {
        let a = Scripted::new("a");
        let pa = Proxy::connect(a.upstream("a")).await.unwrap();
        let gateway = gateway_of(&[("a", &pa)]);
        let c = caller(&gateway, MODERN).await;
        let first = text_of(&c.call_tool("a_pid", json!({})).await.unwrap());
        // Times out after the upstream's 2 s; a ping unanswered then restarts it.
        let e = c.call_tool("a_freeze", json!({})).await.unwrap_err();
        assert!(e.to_string().contains("did not answer in time"), "{e}");
        let mut second = String::new();
        for _ in 0..100 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            if let Ok(r) = c.call_tool("a_pid", json!({})).await {
                second = text_of(&r);
                if second != first {
                    break;
                }
            }
        }
        assert!(second != first, "a new child: {first} then {second}");
    })
    .await;
}

#[tokio::test]
async fn a_gateway_started_with_an_upstream_down_serves_the_rest() {
    bounded(async {
        let (a, b) = (Scripted::new("a"), Scripted::new("b"));
        a.block();
        let e = Proxy::connect(a.upstream("a")).await.unwrap_err();
        assert!(e.to_string().contains("upstream `a`"), "{e}");
        let pa = Proxy::start(a.upstream("a")).await;
        assert!(pa.down().is_some());
        let pb = Proxy::start(b.upstream("b")).await;
        assert!(pb.down().is_none());
        let gateway = gateway_of(&[("a", &pa), ("b", &pb)]);
        let c = caller(&gateway, LEGACY).await;
        let names = tool_names(&c).await;
        assert!(names.contains(&"local".to_owned()), "{names:?}");
        assert!(names.contains(&"b_hello".to_owned()), "{names:?}");
        assert!(!names.iter().any(|t| t.starts_with("a_")), "{names:?}");
        let r = c.call_tool("b_hello", json!({})).await.unwrap();
        assert_eq!(text_of(&r), "hello from b");
        let mut notes = c.notifications();
        a.unblock();
        until_tools(&c, "a arrives", |n| n.contains(&"a_hello".to_owned())).await;
        let r = c.call_tool("a_hello", json!({})).await.unwrap();
        assert_eq!(text_of(&r), "hello from a");
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(tool_changes(&mut notes), 1);
    })
    .await;
}

#[tokio::test]
async fn failing_closed_a_down_upstream_fails_the_lists_until_it_returns() {
    bounded(async {
        let (a, b) = (Scripted::new("a"), Scripted::new("b"));
        let pa = Proxy::connect(a.upstream("a")).await.unwrap();
        let pb = Proxy::connect(b.upstream("b").failure_mode(FailureMode::Closed))
            .await
            .unwrap();
        let gateway = gateway_of(&[("a", &pa), ("b", &pb)]);
        let c = caller(&gateway, LEGACY).await;
        assert!(tool_names(&c).await.contains(&"b_hello".to_owned()));
        b.block();
        kill(&pb);
        let mut why = String::new();
        for _ in 0..100 {
            match c.list_all_tools().await {
                Err(e) => {
                    why = e.to_string();
                    break;
                }
                Ok(_) => tokio::time::sleep(Duration::from_millis(100)).await,
            }
        }
        assert!(why.contains("upstream `b` is unavailable"), "{why}");
        for mode in [LEGACY, MODERN] {
            let e = Client::builder()
                .mode(mode)
                .connect(gateway.serve_in_memory())
                .await
                .unwrap_err();
            assert!(e.to_string().contains("upstream `b` is unavailable"), "{e}");
        }
        b.unblock();
        let names = until_tools_ok(&c).await;
        assert!(names.contains(&"b_hello".to_owned()), "{names:?}");
        assert!(names.contains(&"a_hello".to_owned()), "{names:?}");
    })
    .await;
}

/// Waits (up to 15 s) until `c`'s tool list is served again.
async fn until_tools_ok(c: &Client) -> Vec<String> {
    for _ in 0..150 {
        if let Ok(tools) = c.list_all_tools().await {
            return tools.into_iter().map(|t| t.name).collect();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the list never came back");
}

/// Our own server over HTTP on `listener` until `stop`.
fn serve_on(listener: tokio::net::TcpListener, stop: mcp::CancellationToken) {
    let server = Server::builder("web", "1.0.0")
        .tool(Tool::new("hi"), |_ctx: Context, _a: Value| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("hi")]))
        })
        .build();
    tokio::spawn(async move {
        let _ = server
            .serve_http_on(listener, HttpOptions::default(), stop)
            .await;
    });
}

#[tokio::test]
async fn a_stopped_http_upstream_leaves_and_returns_on_the_same_port_in_both_eras() {
    bounded(async {
        for up in [LEGACY, MODERN] {
            let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0))
                .await
                .unwrap();
            let addr = listener.local_addr().unwrap();
            let stop = mcp::CancellationToken::new();
            serve_on(listener, stop.clone());
            let upstream = Upstream::http(format!("http://{addr}/mcp"))
                .mode(up)
                .name("web")
                .timeout(Duration::from_secs(2))
                .connect_timeout(Duration::from_secs(2))
                .health_interval(Duration::from_secs(1));
            let p = Proxy::connect(upstream).await.unwrap();
            let gateway = gateway_of(&[("web", &p)]);
            let c = caller(&gateway, LEGACY).await;
            assert!(tool_names(&c).await.contains(&"web_hi".to_owned()));
            stop.cancel();
            // Nothing is sent while it is up and quiet: the next ping (or a call) finds it gone.
            until_tools(&c, "web leaves", |n| !n.contains(&"web_hi".to_owned())).await;
            let e = c.call_tool("web_hi", json!({})).await.unwrap_err();
            assert!(
                e.to_string().contains("upstream `web` is unavailable"),
                "{e}"
            );
            assert_eq!(
                text_of(&c.call_tool("local", json!({})).await.unwrap()),
                "local"
            );
            let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
            let stop = mcp::CancellationToken::new();
            serve_on(listener, stop.clone());
            until_tools(&c, "web returns", |n| n.contains(&"web_hi".to_owned())).await;
            assert_eq!(
                text_of(&c.call_tool("web_hi", json!({})).await.unwrap()),
                "hi"
            );
            stop.cancel();
        }
    })
    .await;
}

#[tokio::test]
async fn an_upstream_asking_for_roots_with_no_call_in_flight_gets_an_empty_list() {
    bounded(async {
        let a = Scripted::new("a");
        let pa = Proxy::connect(a.upstream("a")).await.unwrap();
        let server = pa.server();
        let c = caller(&server, LEGACY).await;
        let mut seen = Value::Null;
        for _ in 0..50 {
            let r = c.call_tool("roots_seen", json!({})).await.unwrap();
            seen = serde_json::from_str(&text_of(&r)).unwrap();
            if !seen.is_null() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(seen["id"], "roots-1", "{seen}");
        assert_eq!(seen["result"], json!({"roots": []}), "{seen}");
        assert!(seen.get("error").is_none(), "{seen}");
    })
    .await;
}
