//! Legacy Streamable HTTP sessions behind a `SessionStore`: two servers sharing one store
//! serve each other's sessions (the second has never seen the session), a `DELETE` on one
//! ends the session on the other, and a store that cannot be reached is a 503, never a hang
//! or a session handed out that other processes cannot find.

mod support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use mcp::prelude::*;
use mcp::session::InMemorySessionStore;
use mcp::session::SessionRecord;
use mcp::session::SessionStore;
use mcp::session::StoreError;
use mcp::transport::http::HttpOptions;
use mcp::types::LoggingLevel;
use serde_json::{Value, json};
use support::http::{self, Resp, Served};

/// Who the server thinks the client is, and the log level it will send at.
#[mcp::tool]
async fn whoami(ctx: &Context) -> String {
    let name = ctx
        .client_info()
        .map(|c| c.name.clone())
        .unwrap_or_default();
    format!("{name} at {:?}", ctx.log_level())
}

#[mcp::server(name = "store-test", tools(whoami))]
struct StoreTest;

async fn start(store: Arc<dyn SessionStore>, idle: Duration) -> Served {
    let opts = HttpOptions {
        session_store: store,
        session_idle_timeout: idle,
        ..HttpOptions::default()
    };
    http::serve(StoreTest.into_server(), opts).await
}

async fn post(addr: SocketAddr, session: Option<&str>, body: Value) -> Resp {
    http::mcp_send(addr, "POST", session, Some(body), None).await
}

fn initialize() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "roaming-client", "version": "1"}}})
}

async fn open_session(addr: SocketAddr) -> String {
    let r = post(addr, None, initialize()).await;
    assert_eq!(r.status, 200, "{}", r.body);
    r.header("mcp-session-id").expect("a session id").to_owned()
}

async fn whoami_on(addr: SocketAddr, session: &str) -> Resp {
    post(
        addr,
        Some(session),
        json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
               "params": {"name": "whoami", "arguments": {}}}),
    )
    .await
}

fn text(r: &Resp) -> String {
    r.json()["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("a text result: {}", r.body))
        .to_owned()
}

#[tokio::test]
async fn a_server_that_never_saw_a_session_serves_it_from_the_shared_store() {
    let store: Arc<InMemorySessionStore> = Arc::new(InMemorySessionStore::default());
    let a = start(store.clone(), Duration::from_secs(60)).await;
    let b = start(store.clone(), Duration::from_secs(60)).await;

    let sid = open_session(a.addr).await;
    assert_eq!(store.len(), 1, "initialize stores the session");
    let stored = store.load(&sid).await.unwrap().expect("stored");
    assert_eq!(stored.client_info.as_ref().unwrap().name, "roaming-client");

    // B has never seen the session: it loads it, client and revision included.
    let r = whoami_on(b.addr, &sid).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(text(&r), "roaming-client at None");

    // A change made through B is stored, and seen by a third server.
    let r = post(
        b.addr,
        Some(&sid),
        json!({"jsonrpc": "2.0", "id": 8, "method": "logging/setLevel",
               "params": {"level": "warning"}}),
    )
    .await;
    assert_eq!(r.status, 200, "{}", r.body);
    let stored = store.load(&sid).await.unwrap().expect("stored");
    assert_eq!(stored.log_level, Some(LoggingLevel::Warning));
    let c = start(store.clone(), Duration::from_secs(60)).await;
    assert_eq!(
        text(&whoami_on(c.addr, &sid).await),
        "roaming-client at Some(Warning)"
    );

    // A session no store holds is unknown everywhere: 404, never 401.
    let r = whoami_on(b.addr, "no-such-session").await;
    assert_eq!(r.status, 404, "{}", r.body);
}

#[tokio::test]
async fn a_delete_on_one_server_ends_the_session_on_the_others() {
    let store: Arc<InMemorySessionStore> = Arc::new(InMemorySessionStore::default());
    // A short idle timeout: a server checks a session it holds against the store every
    // quarter of it.
    let idle = Duration::from_millis(400);
    let a = start(store.clone(), idle).await;
    let b = start(store.clone(), idle).await;
    let sid = open_session(a.addr).await;
    assert_eq!(whoami_on(b.addr, &sid).await.status, 200);

    let req = http::request(b.addr, "DELETE", "/mcp").header("mcp-session-id", &sid);
    let r = Resp::read(http::send(b.addr, req, String::new()).await).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert!(store.is_empty());

    tokio::time::sleep(Duration::from_millis(150)).await;
    let r = whoami_on(a.addr, &sid).await;
    assert_eq!(
        r.status, 404,
        "A still served a deleted session: {}",
        r.body
    );
}

/// A store whose backend is down: every call fails at once.
struct Down;

impl SessionStore for Down {
    fn create<'a>(
        &'a self,
        _: &'a str,
        _: &'a SessionRecord,
        _: Duration,
    ) -> mcp::BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async { Err(StoreError::Unavailable("connection refused".into())) })
    }
    fn load<'a>(
        &'a self,
        _: &'a str,
    ) -> mcp::BoxFuture<'a, Result<Option<SessionRecord>, StoreError>> {
        Box::pin(async { Err(StoreError::Unavailable("connection refused".into())) })
    }
    fn save<'a>(
        &'a self,
        _: &'a str,
        _: &'a SessionRecord,
        _: Duration,
    ) -> mcp::BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async { Err(StoreError::Unavailable("connection refused".into())) })
    }
    fn touch<'a>(
        &'a self,
        _: &'a str,
        _: Duration,
    ) -> mcp::BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(async { Err(StoreError::Unavailable("connection refused".into())) })
    }
    fn remove<'a>(&'a self, _: &'a str) -> mcp::BoxFuture<'a, Result<(), StoreError>> {
        Box::pin(async { Err(StoreError::Unavailable("connection refused".into())) })
    }
}

#[tokio::test]
async fn an_unreachable_store_is_a_503_and_hands_out_no_session() {
    let s = start(Arc::new(Down), Duration::from_secs(60)).await;
    let r = post(s.addr, None, initialize()).await;
    assert_eq!(r.status, 503, "{}", r.body);
    assert!(r.header("mcp-session-id").is_none());
    assert!(r.body.contains("session store"), "{}", r.body);

    let r = whoami_on(s.addr, "some-session").await;
    assert_eq!(r.status, 503, "{}", r.body);

    // 2026-07-28 requests need no session: they go on.
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {"_meta": {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}}});
    let req = http::request(s.addr, "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/list");
    let r = Resp::read(http::send(s.addr, req, body.to_string()).await).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["result"]["tools"][0]["name"], "whoami");
}
