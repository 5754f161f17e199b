//! A forwarded `tools/call` crosses a hop undecoded: the result a mounted child or a
//! proxied upstream wrote is passed back as it was written and re-stamped once, and decoded
//! (once) and encoded (once) again only where the two sides of the hop speak different
//! revisions and it must be translated.
//!
//! Counted with `mcp_core::passes::results()` (decodes of a `tools/call` result into a
//! `CallToolResult`, and its encodes) around one call, for a 2025-11-25 and a 2026-07-28
//! caller: through a mount of a local server; and through `mcp::proxy` (its server mounted,
//! as `examples/gateway` serves it, and served alone) with an upstream of each era over
//! stdio (a child process, whose own encode this process does not see) and over Streamable
//! HTTP (our server on loopback, in this process: its own encode, the one a direct call
//! counts, is taken off).
//!
//! The counters count in debug builds only and are process-wide, so this binary holds one
//! test, which runs its cases in turn.

mod support;

#[path = "../examples/stdio_fixture/fixture.rs"]
mod fixture;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use mcp::ServerOptions;
use mcp::client::ConnectMode;
use mcp::prelude::*;
use mcp::proxy::{Proxy, Readiness, Upstream};
use mcp::transport::http::HttpOptions;
use mcp::transport::http::LoopbackHttp;
use mcp::version::{Era, SupportedVersions};
use serde_json::{Value, json};
use support::{Wire, modern};

use ProtocolVersion as V;

/// The revisions a caller or an upstream speaks here.
const ERAS: [V; 2] = [V::V2025_11_25, V::V2026_07_28];

fn mode(v: V) -> ConnectMode {
    match v {
        V::V2026_07_28 => ConnectMode::Modern(v),
        _ => ConnectMode::Legacy(v),
    }
}

/// `<target>/<profile>/examples/stdio_fixture`, built once (as `tests/admission.rs` does).
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

/// The upstream (and the mounted child): `search_books` and friends.
fn upstream_server() -> Server {
    fixture::fixture(ServerOptions::default(), SupportedVersions::all())
}

/// A caller of revision `v` on an in-memory connection to `server`, initialized when legacy.
async fn caller<C: mcp::middleware::Chain>(server: &Server<C>, v: V) -> Wire {
    let mut wire = Wire::new(server.serve_in_memory());
    if v.era() == Era::Legacy {
        wire.send(&json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": v.as_str(), "capabilities": {},
                       "clientInfo": {"name": "hop", "version": "1"}}
        }))
        .await;
        response(&mut wire).await;
        wire.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
    }
    wire
}

/// The next response (notifications skipped).
async fn response(wire: &mut Wire) -> Value {
    loop {
        let m = tokio::time::timeout(Duration::from_secs(30), wire.recv())
            .await
            .expect("an answer within 30 s");
        if m.get("id").is_some() {
            return m;
        }
    }
}

/// Calls `tool` as a caller of revision `v`: the answer, and the (decodes, encodes) of a
/// `tools/call` result made in this process meanwhile.
async fn call(wire: &mut Wire, v: V, tool: &str) -> ((usize, usize), Value) {
    let params = json!({"name": tool, "arguments": {"query": "hops"}});
    let params = match v.era() {
        Era::Modern => modern(params),
        Era::Legacy => params,
    };
    let msg = json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": params});
    // Warm up: nothing lazy is counted below.
    wire.send(&msg).await;
    response(wire).await;
    mcp_core::passes::reset();
    wire.send(&msg).await;
    let answer = response(wire).await;
    let counted = mcp_core::passes::results();
    let text = &answer["result"]["content"][0]["text"];
    assert_eq!(text, "Found 3 books matching 'hops'.", "{answer}");
    let info = &answer["result"]["_meta"]["io.modelcontextprotocol/serverInfo"];
    match v.era() {
        // The serving server's stamp, once: never the child's or the upstream's.
        Era::Modern => assert_eq!(info["name"], "gateway", "{answer}"),
        Era::Legacy => assert!(info.is_null(), "{answer}"),
    }
    (counted, answer)
}

/// What one hop may cost: nothing where both sides speak the caller's revision, one decode
/// and one encode where the result is translated.
fn allowed(caller: V, far: V) -> (usize, usize) {
    if caller == far { (0, 0) } else { (1, 1) }
}

/// `a - b`, per count.
fn minus(a: (usize, usize), b: (usize, usize)) -> (usize, usize) {
    (a.0 - b.0, a.1 - b.1)
}

/// A gateway named `gateway` mounting `child` as `up` (and the proxy's readiness, if any).
fn gateway(child: Server, proxy: Option<&Proxy>) -> Server<(Option<Readiness>,)> {
    Server::builder("gateway", "1.0.0")
        .mount("up", child)
        .middleware(proxy.map(Proxy::readiness))
        .build()
}

#[tokio::test]
async fn a_forwarded_result_is_decoded_and_encoded_only_to_be_translated() {
    if !cfg!(debug_assertions) {
        eprintln!("SKIPPED: the pass counters count in debug builds only");
        return;
    }
    let fixture = stdio_fixture().to_path_buf();
    let mut seen = Vec::new();

    // What the upstream's own answer costs, in this process (our server over HTTP).
    let own = {
        let mut direct = caller(&upstream_server(), V::V2026_07_28).await;
        let msg = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": modern(json!({"name": "search_books", "arguments": {"query": "x"}}))});
        direct.send(&msg).await;
        response(&mut direct).await;
        mcp_core::passes::reset();
        direct.send(&msg).await;
        response(&mut direct).await;
        mcp_core::passes::results()
    };
    assert_eq!(own, (0, 1), "a direct call: the server's one encode");

    // A mount of a local server: the child answers the parent's very request, in the
    // parent's revision, so the hop decodes and encodes nothing.
    let mounted = gateway(upstream_server(), None);
    for v in ERAS {
        let mut wire = caller(&mounted, v).await;
        let (counted, _) = call(&mut wire, v, "up_search_books").await;
        let hop = minus(counted, own);
        seen.push(format!("mount, {v} caller: {hop:?}"));
        assert_eq!(hop, (0, 0), "through a mount, a {v} caller");
    }

    // The proxy, the upstream over HTTP (in this process) and over stdio (a child).
    let http = LoopbackHttp::start(&upstream_server(), HttpOptions::default())
        .await
        .unwrap();
    for up in ERAS {
        for over_http in [true, false] {
            let upstream = match over_http {
                true => Upstream::http(http.url()),
                false => Upstream::stdio(&fixture, ["--stdio"]).env("RUST_LOG", "off"),
            };
            let upstream = upstream.mode(mode(up)).timeout(Duration::from_secs(30));
            let proxy = Proxy::connect(upstream).await.expect("the proxy connects");
            let upstream_own = if over_http { own } else { (0, 0) };
            let transport = if over_http { "HTTP" } else { "stdio" };
            // Mounted, as `examples/gateway` serves it: two hops, the mount's free.
            let served = gateway(proxy.server(), Some(&proxy));
            // Served alone (named `gateway`, so the stamp check reads the same; no layer,
            // of the same type as `served`).
            let alone = Server::builder("gateway", "1.0.0")
                .middleware(None::<Readiness>)
                .build();
            proxy.attach(&alone).unwrap();
            for (how, server, tool) in [
                ("mounted", &served, "up_search_books"),
                ("alone", &alone, "search_books"),
            ] {
                for v in ERAS {
                    let mut wire = caller(server, v).await;
                    let (counted, _) = call(&mut wire, v, tool).await;
                    let hop = minus(counted, upstream_own);
                    seen.push(format!(
                        "proxy {how}, {transport} {up} upstream, {v} caller: {hop:?}"
                    ));
                    assert_eq!(
                        hop,
                        allowed(v, up),
                        "(decodes, encodes) through the proxy {how}, a {v} caller, a {up} upstream over {transport}"
                    );
                }
            }
        }
    }
    eprintln!("(decodes, encodes) on the hop:\n  {}", seen.join("\n  "));
}
