//! Bearer-token authorization of the HTTP transports through a real HTTP client on
//! loopback: missing, invalid, under-scoped and valid tokens on every method and path
//! (Streamable HTTP POST of both eras, the GET stream, DELETE, the 2024-11-05 SSE stream
//! and its POST path), the principal in the context (middleware and tools), sessions
//! bound to their subject, and the RFC 9728 metadata document at both well-known paths.

mod support;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::BodyExt;
use mcp::CancellationToken;
use mcp::Principal;
use mcp::prelude::*;
use mcp::transport::http::{AuthError, validator_fn};
use mcp::transport::http::{AuthOptions, HttpOptions};
use serde_json::{Value, json};
use support::http::{self, Resp};

#[derive(serde::Deserialize)]
struct NoArgs {}

/// Records the subject of every message's principal, as middleware sees it.
#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<String>>>);

impl Middleware for Seen {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let who = ctx
            .extensions()
            .get::<Principal>()
            .map_or_else(|| "-".to_owned(), |p| p.subject.clone());
        self.0.lock().unwrap().push(who);
        next.run(ctx).await
    }
}

/// Calls of the `admin` tool that reached it.
static ADMIN_CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

fn server(seen: Seen) -> Server<impl mcp::middleware::Chain> {
    Server::builder("auth-test", "1.0.0")
        .tool(
            Tool::new("whoami").with_input_schema(json!({"type": "object", "properties": {}})),
            |ctx: Context, _: NoArgs| async move {
                let p = ctx.extensions().get::<Principal>().expect("a principal");
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "{} [{}]",
                    p.subject,
                    p.scopes.join(" ")
                ))]))
            },
        )
        .tool(
            Tool::new("admin").with_input_schema(json!({"type": "object", "properties": {}})),
            |_: Context, _: NoArgs| async move {
                ADMIN_CALLS.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    "admin ok",
                )]))
            },
        )
        .middleware(seen)
        .without_tracing()
        .build()
}

struct Running {
    addr: SocketAddr,
    seen: Seen,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn auth(addr: SocketAddr) -> AuthOptions {
    let validator = validator_fn(|token: String, req| async move {
        let _: mcp::transport::http::HttpRequest = req;
        let rw = ["mcp:read", "mcp:write"];
        match token.as_str() {
            "alice-token" => Ok(Principal::new("alice").with_scopes(rw)),
            "bob-token" => Ok(Principal::new("bob").with_scopes(rw)),
            "admin-token" => Ok(Principal::new("dave").with_scopes(["mcp:write", "mcp:admin"])),
            "readonly-token" => Ok(Principal::new("carol").with_scopes(["mcp:read"])),
            "down" => Err(AuthError::Unavailable("introspection endpoint down".into())),
            _ => Err(AuthError::InvalidToken("The token is \"unknown\"".into())),
        }
    });
    AuthOptions::new(format!("http://{addr}/mcp"), validator)
        .authorization_server("https://auth.example.com")
        .scopes_supported(["mcp:read", "mcp:write"])
        .require_scopes(["mcp:write"])
        .require_tool_scopes("admin", ["mcp:admin"])
}

async fn start() -> Running {
    let seen = Seen::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let opts = HttpOptions {
        auth: Some(auth(addr)),
        legacy_sse: Some(("/sse".into(), "/messages".into())),
        ..HttpOptions::default()
    };
    let s = server(seen.clone());
    let stop = CancellationToken::new();
    let st = stop.clone();
    tokio::spawn(async move { s.serve_http_on(listener, opts, st).await });
    Running { addr, seen, stop }
}

async fn open(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> hyper::Response<hyper::body::Incoming> {
    let mut b = http::request(addr, method, path);
    if body.is_some() {
        b = b
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
    } else {
        b = b.header("accept", "text/event-stream");
    }
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    http::send(addr, b, body.map(Value::to_string).unwrap_or_default()).await
}

async fn call(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) -> Resp {
    Resp::read(open(addr, method, path, headers, body).await).await
}

fn metadata_url(addr: SocketAddr) -> String {
    format!("http://{addr}/.well-known/oauth-protected-resource/mcp")
}

/// No token, a bad token, a token without the required scope, a failing validator, a
/// token in the query string, a non-Bearer scheme: each refused with its status and
/// challenge, before anything else happens.
async fn assert_refusals(
    addr: SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<&Value>,
) {
    let what = format!("{method} {path}");
    let with = |extra: (&'static str, &'static str)| {
        let mut h = headers.to_vec();
        h.push(extra);
        h
    };
    let url = metadata_url(addr);

    let r = call(addr, method, path, headers, body).await;
    assert_eq!(r.status, 401, "{what}: missing token: {}", r.body);
    assert_eq!(
        r.header("www-authenticate").unwrap_or(""),
        format!("Bearer resource_metadata=\"{url}\", scope=\"mcp:write\""),
        "{what}"
    );
    assert_eq!(r.json()["error"], "invalid_token");

    let r = call(
        addr,
        method,
        path,
        &with(("authorization", "Bearer nope")),
        body,
    )
    .await;
    assert_eq!(r.status, 401, "{what}: invalid token");
    let www = r.header("www-authenticate").unwrap_or("");
    assert!(
        www.starts_with("Bearer error=\"invalid_token\""),
        "{what}: {www}"
    );
    assert!(
        www.contains(&format!("resource_metadata=\"{url}\"")),
        "{www}"
    );
    assert!(
        www.contains(r#"error_description="The token is \"unknown\"""#),
        "{www}"
    );

    let r = call(
        addr,
        method,
        path,
        &with(("authorization", "Bearer readonly-token")),
        body,
    )
    .await;
    assert_eq!(r.status, 403, "{what}: insufficient scope");
    let www = r.header("www-authenticate").unwrap_or("");
    assert!(
        www.starts_with("Bearer error=\"insufficient_scope\", scope=\"mcp:write\""),
        "{www}"
    );
    assert!(
        www.contains(&format!("resource_metadata=\"{url}\"")),
        "{www}"
    );
    assert_eq!(r.json()["error"], "insufficient_scope");

    let r = call(
        addr,
        method,
        path,
        &with(("authorization", "Bearer down")),
        body,
    )
    .await;
    assert_eq!(r.status, 500, "{what}: validator unavailable");

    let r = call(
        addr,
        method,
        path,
        &with(("authorization", "Basic YTpi")),
        body,
    )
    .await;
    assert_eq!(r.status, 401, "{what}: not a bearer token");
    assert!(
        !r.header("www-authenticate")
            .unwrap_or("")
            .contains("error=")
    );

    let sep = if path.contains('?') { '&' } else { '?' };
    let q = format!("{path}{sep}access_token=alice-token");
    let r = call(addr, method, &q, headers, body).await;
    assert_eq!(
        r.status, 401,
        "{what}: a token in the query string is not one"
    );
}

const ALICE: (&str, &str) = ("authorization", "Bearer alice-token");
const BOB: (&str, &str) = ("authorization", "Bearer bob-token");

fn init() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"}}})
}

fn whoami(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "whoami", "arguments": {}}})
}

#[tokio::test]
async fn metadata_document_at_both_well_known_paths() {
    let s = start().await;
    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        // No token needed, and any Origin may read it.
        let r = call(
            s.addr,
            "GET",
            path,
            &[("origin", "https://elsewhere.example")],
            None,
        )
        .await;
        assert_eq!(r.status, 200, "{path}");
        assert_eq!(r.header("content-type").unwrap_or(""), "application/json");
        assert_eq!(r.header("access-control-allow-origin").unwrap_or(""), "*");
        assert_eq!(
            r.json(),
            json!({
                "resource": format!("http://{}/mcp", s.addr),
                "authorization_servers": ["https://auth.example.com"],
                "scopes_supported": ["mcp:read", "mcp:write"],
                "bearer_methods_supported": ["header"]
            })
        );
        let r = call(s.addr, "POST", path, &[], Some(&json!({}))).await;
        assert_eq!(r.status, 405);
    }
    // The challenge points at the path-suffixed document, which is served.
    let r = call(s.addr, "POST", "/mcp", &[], Some(&init())).await;
    let www = r.header("www-authenticate").unwrap_or("").to_owned();
    let url = www
        .split("resource_metadata=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .unwrap();
    let path = url.strip_prefix(&format!("http://{}", s.addr)).unwrap();
    assert_eq!(call(s.addr, "GET", path, &[], None).await.status, 200);
}

#[tokio::test]
async fn streamable_http_legacy_era_post_get_delete() {
    let s = start().await;
    let a = s.addr;

    // POST initialize.
    assert_refusals(a, "POST", "/mcp", &[], Some(&init())).await;
    let r = call(a, "POST", "/mcp", &[ALICE], Some(&init())).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").unwrap_or("").to_owned();
    assert!(!sid.is_empty());
    let h = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let with = |who: (&'static str, &'static str)| {
        let mut v = h.to_vec();
        v.push(who);
        v
    };
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_refusals(a, "POST", "/mcp", &h, Some(&initialized)).await;
    let r = call(a, "POST", "/mcp", &with(ALICE), Some(&initialized)).await;
    assert_eq!(r.status, 202);

    // POST a request: the tool sees the principal.
    assert_refusals(a, "POST", "/mcp", &h, Some(&whoami(2))).await;
    let r = call(a, "POST", "/mcp", &with(ALICE), Some(&whoami(2))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "alice [mcp:read mcp:write]"
    );
    // Another subject cannot use alice's session.
    let r = call(a, "POST", "/mcp", &with(BOB), Some(&whoami(3))).await;
    assert_eq!(r.status, 404);

    // GET stream.
    assert_refusals(a, "GET", "/mcp", &h, None).await;
    assert_eq!(call(a, "GET", "/mcp", &with(BOB), None).await.status, 404);
    let r = open(a, "GET", "/mcp", &with(ALICE), None).await;
    assert_eq!(r.status(), 200);
    assert_eq!(r.headers()["content-type"], "text/event-stream");
    drop(r);

    // DELETE.
    assert_refusals(a, "DELETE", "/mcp", &h, None).await;
    assert_eq!(
        call(a, "DELETE", "/mcp", &with(BOB), None).await.status,
        404
    );
    assert_eq!(
        call(a, "DELETE", "/mcp", &with(ALICE), None).await.status,
        200
    );
    assert_eq!(
        call(a, "POST", "/mcp", &with(ALICE), Some(&whoami(4)))
            .await
            .status,
        404
    );

    // Middleware saw the principal of every message that reached the chain.
    let seen = s.seen.0.lock().unwrap().clone();
    assert!(!seen.is_empty());
    assert!(seen.iter().all(|w| w == "alice"), "{seen:?}");
}

#[tokio::test]
async fn streamable_http_modern_era_post() {
    let s = start().await;
    let a = s.addr;
    let mut body = whoami(1);
    body["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    });
    let h = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "whoami"),
    ];
    assert_refusals(a, "POST", "/mcp", &h, Some(&body)).await;
    let mut hv = h.to_vec();
    hv.push(ALICE);
    let r = call(a, "POST", "/mcp", &hv, Some(&body)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "alice [mcp:read mcp:write]"
    );
    // GET and DELETE are refused for lack of a token before the era says 405.
    assert_refusals(a, "GET", "/mcp", &h[..1], None).await;
    assert_eq!(
        call(a, "GET", "/mcp", &[h[0], ALICE], None).await.status,
        405
    );
}

/// Reads SSE data events until `n` arrived.
async fn read_events(body: &mut hyper::body::Incoming, buf: &mut String, n: usize) -> Vec<String> {
    loop {
        let events: Vec<String> = buf
            .split("\n\n")
            .filter(|e| e.contains("data:"))
            .map(|e| {
                e.lines()
                    .filter_map(|l| l.strip_prefix("data: "))
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .collect();
        if events.len() >= n && buf.ends_with("\n\n") {
            return events;
        }
        let frame = tokio::time::timeout(Duration::from_secs(5), body.frame())
            .await
            .expect("event in time")
            .expect("stream open")
            .unwrap();
        if let Ok(d) = frame.into_data() {
            buf.push_str(&String::from_utf8_lossy(&d));
        }
    }
}

#[tokio::test]
async fn http_sse_2024_11_05_stream_and_post() {
    let s = start().await;
    let a = s.addr;
    assert_refusals(a, "GET", "/sse", &[], None).await;
    let r = open(a, "GET", "/sse", &[ALICE], None).await;
    assert_eq!(r.status(), 200);
    let mut body = r.into_body();
    let mut buf = String::new();
    let ev = read_events(&mut body, &mut buf, 1).await;
    let endpoint = ev[0].clone();
    assert!(endpoint.starts_with("/messages?sessionId="), "{endpoint}");

    let mut init = init();
    init["params"]["protocolVersion"] = json!("2024-11-05");
    assert_refusals(a, "POST", &endpoint, &[], Some(&init)).await;
    assert_eq!(
        call(a, "POST", &endpoint, &[BOB], Some(&init)).await.status,
        404
    );
    let r = call(a, "POST", &endpoint, &[ALICE], Some(&init)).await;
    assert_eq!(r.status, 202);
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(
        call(a, "POST", &endpoint, &[ALICE], Some(&initialized))
            .await
            .status,
        202
    );
    let r = call(a, "POST", &endpoint, &[ALICE], Some(&whoami(2))).await;
    assert_eq!(r.status, 202);
    let ev = read_events(&mut body, &mut buf, 3).await;
    let first: Value = serde_json::from_str(&ev[1]).unwrap();
    assert_eq!(first["result"]["protocolVersion"], "2024-11-05");
    let out: Value = serde_json::from_str(&ev[2]).unwrap();
    assert_eq!(out["id"], 2);
    assert_eq!(
        out["result"]["content"][0]["text"],
        "alice [mcp:read mcp:write]"
    );
}

fn refs<'a>(v: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    v.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

fn admin(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": "admin", "arguments": {}}})
}

/// The step-up refusal: 403, every scope the call needs, the metadata URL.
fn assert_step_up(r: &Resp, addr: SocketAddr) {
    assert_eq!(r.status, 403, "{}", r.body);
    assert_eq!(
        r.header("www-authenticate").unwrap_or(""),
        format!(
            "Bearer error=\"insufficient_scope\", scope=\"mcp:write mcp:admin\", \
             resource_metadata=\"{}\", error_description=\"tools/call needs scope: mcp:admin\"",
            metadata_url(addr)
        )
    );
    assert_eq!(r.json()["error"], "insufficient_scope");
}

#[tokio::test]
async fn a_tool_that_needs_more_scopes_is_a_403_step_up_on_every_path() {
    use std::sync::atomic::Ordering;
    let s = start().await;
    let a = s.addr;
    let before = ADMIN_CALLS.load(Ordering::SeqCst);

    // Legacy Streamable HTTP: alice's token lacks mcp:admin.
    let session = |token: (&'static str, &'static str)| async move {
        let r = call(a, "POST", "/mcp", &[token], Some(&init())).await;
        assert_eq!(r.status, 200, "{}", r.body);
        r.header("mcp-session-id").unwrap_or("").to_owned()
    };
    let sid = session(ALICE).await;
    let h = |sid: &str, who| {
        vec![
            ("mcp-session-id", sid.to_owned()),
            ("mcp-protocol-version", "2025-11-25".to_owned()),
            who,
        ]
    };
    let alice = h(&sid, ("authorization", "Bearer alice-token".to_owned()));
    let r = call(a, "POST", "/mcp", &refs(&alice), Some(&admin(2))).await;
    assert_step_up(&r, a);
    // Her other calls go on in the same session.
    let r = call(a, "POST", "/mcp", &refs(&alice), Some(&whoami(3))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    // A token with the scope: served.
    let admin_tok: (&'static str, &'static str) = ("authorization", "Bearer admin-token");
    let sid2 = session(admin_tok).await;
    let dave = h(&sid2, ("authorization", "Bearer admin-token".to_owned()));
    let r = call(a, "POST", "/mcp", &refs(&dave), Some(&admin(2))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "admin ok");

    // 2026-07-28.
    let mut body = admin(1);
    body["params"]["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}
    });
    let mh = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/call"),
        ("mcp-name", "admin"),
    ];
    let r = call(
        a,
        "POST",
        "/mcp",
        &[mh[0], mh[1], mh[2], ALICE],
        Some(&body),
    )
    .await;
    assert_step_up(&r, a);
    let r = call(
        a,
        "POST",
        "/mcp",
        &[mh[0], mh[1], mh[2], admin_tok],
        Some(&body),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);

    // 2024-11-05 HTTP+SSE: the POST itself is refused.
    let r = open(a, "GET", "/sse", &[ALICE], None).await;
    let mut sse = r.into_body();
    let mut buf = String::new();
    let endpoint = read_events(&mut sse, &mut buf, 1).await[0].clone();
    let mut init24 = init();
    init24["params"]["protocolVersion"] = json!("2024-11-05");
    assert_eq!(
        call(a, "POST", &endpoint, &[ALICE], Some(&init24))
            .await
            .status,
        202
    );
    let r = call(a, "POST", &endpoint, &[ALICE], Some(&admin(5))).await;
    assert_step_up(&r, a);

    // Only the two calls with the scope reached the tool.
    assert_eq!(ADMIN_CALLS.load(Ordering::SeqCst) - before, 2);
}

/// A server's own static token (no authorization server): plain `Bearer realm="mcp"`
/// challenges that point nowhere, and no metadata document, so that a client says a token
/// is needed instead of starting an OAuth flow that cannot succeed.
#[tokio::test]
async fn static_token_without_oauth_gets_plain_bearer_challenges() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let validator = validator_fn(|token: String, _req| async move {
        match token.as_str() {
            "s3cret" => Ok(Principal::new("operator")),
            _ => Err(AuthError::InvalidToken("unknown token".into())),
        }
    });
    let opts = HttpOptions {
        auth: Some(AuthOptions::new(format!("http://{addr}/mcp"), validator)),
        ..HttpOptions::default()
    };
    let stop = CancellationToken::new();
    let st = stop.clone();
    let s = server(Seen::default());
    tokio::spawn(async move { s.serve_http_on(listener, opts, st).await });
    let _running = Running {
        addr,
        seen: Seen::default(),
        stop,
    };
    let list = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }
    }});
    let v2026 = [
        ("mcp-protocol-version", "2026-07-28"),
        ("mcp-method", "tools/list"),
    ];

    let r = call(addr, "POST", "/mcp", &v2026, Some(&list)).await;
    assert_eq!(r.status, 401, "{}", r.body);
    assert_eq!(r.header("www-authenticate"), Some("Bearer realm=\"mcp\""));

    let with_bad = [v2026[0], v2026[1], ("authorization", "Bearer guess")];
    let r = call(addr, "POST", "/mcp", &with_bad, Some(&list)).await;
    assert_eq!(r.status, 401, "{}", r.body);
    let www = r.header("www-authenticate").unwrap_or("");
    assert!(www.starts_with("Bearer error=\"invalid_token\""), "{www}");
    assert!(www.contains("realm=\"mcp\""), "{www}");
    assert!(!www.contains("resource_metadata"), "{www}");

    for path in [
        "/.well-known/oauth-protected-resource",
        "/.well-known/oauth-protected-resource/mcp",
    ] {
        let r = call(addr, "GET", path, &[], None).await;
        assert_eq!(
            r.status, 404,
            "{path}: no metadata without OAuth: {}",
            r.body
        );
    }

    let with_good = [v2026[0], v2026[1], ("authorization", "Bearer s3cret")];
    let r = call(addr, "POST", "/mcp", &with_good, Some(&list)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.json()["result"]["tools"][0]["name"],
        "whoami",
        "{}",
        r.body
    );
}

/// With `allow_anonymous`, a request without a token goes in with no principal, a bad token
/// is still refused, and a tool that needs a scope asks an anonymous caller for a token (401
/// naming the scope), on both eras.
#[tokio::test]
async fn anonymous_callers_go_in_and_scoped_tools_ask_them_for_a_token() {
    let seen = Seen::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let mut auth = auth(addr).allow_anonymous();
    auth.required_scopes.clear();
    let opts = HttpOptions {
        auth: Some(auth),
        ..HttpOptions::default()
    };
    let server = Server::builder("anon-test", "1.0.0")
        .tool(
            Tool::new("hello").with_input_schema(json!({"type": "object", "properties": {}})),
            |ctx: Context, _: NoArgs| async move {
                let who = ctx.extensions().get::<Principal>();
                let who = who.map_or("nobody", |p| p.subject.as_str()).to_owned();
                Ok(CallToolResult::success(vec![ContentBlock::text(who)]))
            },
        )
        .tool(
            Tool::new("admin").with_input_schema(json!({"type": "object", "properties": {}})),
            |_: Context, _: NoArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(
                    "admin ok",
                )]))
            },
        )
        .middleware(seen.clone())
        .without_tracing()
        .build();
    let stop = CancellationToken::new();
    let st = stop.clone();
    tokio::spawn(async move { server.serve_http_on(listener, opts, st).await });

    let modern = |tool: &str| {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": tool, "arguments": {}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientCapabilities": {},
                "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"}}}});
        let h: Vec<(&str, String)> = vec![
            ("mcp-protocol-version", "2026-07-28".into()),
            ("mcp-method", "tools/call".into()),
            ("mcp-name", tool.into()),
        ];
        (body, h)
    };
    let (body, h) = modern("hello");
    let r = call(addr, "POST", "/mcp", &refs(&h), Some(&body)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["content"][0]["text"], "nobody");
    let mut with_alice = refs(&h);
    with_alice.push(ALICE);
    let r = call(addr, "POST", "/mcp", &with_alice, Some(&body)).await;
    assert_eq!(
        r.json()["result"]["content"][0]["text"],
        "alice",
        "{}",
        r.body
    );
    let mut bad = refs(&h);
    bad.push(("authorization", "Bearer nope"));
    assert_eq!(
        call(addr, "POST", "/mcp", &bad, Some(&body)).await.status,
        401
    );

    let (body, h) = modern("admin");
    let r = call(addr, "POST", "/mcp", &refs(&h), Some(&body)).await;
    assert_eq!(r.status, 401, "{}", r.body);
    let www = r.header("www-authenticate").unwrap_or("").to_owned();
    assert!(www.contains("scope=\"mcp:admin\""), "{www}");

    // Legacy: the session opens anonymously, and its calls run with no principal.
    let r = call(addr, "POST", "/mcp", &[], Some(&init())).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session").to_owned();
    let legacy = [
        ("mcp-session-id", sid.as_str()),
        ("mcp-protocol-version", "2025-11-25"),
    ];
    let hello = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "hello", "arguments": {}}});
    let r = call(addr, "POST", "/mcp", &legacy, Some(&hello)).await;
    assert!(r.body.contains("nobody"), "{}", r.body);
    let r = call(addr, "POST", "/mcp", &legacy, Some(&admin(3))).await;
    assert_eq!(r.status, 401, "{}", r.body);
    assert!(
        seen.0
            .lock()
            .unwrap()
            .iter()
            .all(|w| w == "-" || w == "alice")
    );
    stop.cancel();
}
