//! `mcp::proxy` and identity: one upstream connection per caller (`Sharing::PerCaller`)
//! against one shared (the default), the per-caller connections closed when their
//! downstream session ends (in memory, and over Streamable HTTP by `DELETE`), when idle,
//! and past the maximum; a caller's failed connection not retried within a second; a legacy upstream's input requests with two callers in flight; a 2026 caller keyed by its
//! authenticated principal. The upstream is our own legacy server over Streamable HTTP on
//! loopback, whose `session` tool names the upstream session a call arrived on; that a
//! session was closed is seen at the upstream (its id answers `404`). And an upstream's own
//! credentials: our OAuth client (client-credentials grant against a small authorization
//! server on loopback) reaching an upstream behind our bearer auth, the caller's token
//! never forwarded; no or wrong credentials failing `Proxy::connect` clearly.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use mcp::CancellationToken;
use mcp::Principal;
use mcp::client::Client;
use mcp::client::ConnectMode;
use mcp::client::oauth::{ClientSecret, OAuth};
use mcp::prelude::*;
use mcp::proxy::{Proxy, Sharing, Upstream};
use mcp::transport::http::LoopbackHttp;
use mcp::transport::http::axum::response::IntoResponse;
use mcp::transport::http::axum::{self, Router, routing};
use mcp::transport::http::{AuthError, validator_fn};
use mcp::transport::http::{AuthOptions, HttpOptions, HttpRequest};
use serde_json::{Value, json};

mod support;
use support::http::{Resp, request, send};
#[path = "support/oauth_form.rs"]
mod oauth_form;
use oauth_form::{decode_form, json_response};

use ProtocolVersion as V;

const LEGACY: ConnectMode = ConnectMode::Legacy(V::V2025_11_25);
const MODERN: ConnectMode = ConnectMode::Modern(V::V2026_07_28);

/// Every test is bounded: nothing here may hang.
async fn bounded<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), f)
        .await
        .expect("the test finished within 60 s")
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn text_of(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

// ---------------------------------------------------------------------------------------
// The upstream: a legacy server that names the session each call arrives on.

fn upstream_server() -> Server {
    Server::builder("sessions", "1.0.0")
        .tool(Tool::new("session"), |ctx: Context, _: Value| async move {
            Ok(text(ctx.session_id().unwrap_or("none")))
        })
        .build()
}

async fn upstream_http() -> LoopbackHttp {
    LoopbackHttp::start(&upstream_server(), HttpOptions::default())
        .await
        .expect("loopback HTTP")
}

/// Whether the upstream still knows the legacy session `id` (a ping on it is answered,
/// not `404`).
async fn upstream_knows(http: &LoopbackHttp, id: &str) -> bool {
    let req = request(http.addr(), "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-session-id", id)
        .header("mcp-protocol-version", "2025-11-25");
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}).to_string();
    let r = Resp::read(send(http.addr(), req, body).await).await;
    match r.status {
        200 => true,
        404 => false,
        other => panic!("a ping on session {id} answered {other}: {}", r.body),
    }
}

/// Waits (up to 5 s) until the upstream has forgotten session `id`.
async fn upstream_forgets(http: &LoopbackHttp, id: &str) {
    for _ in 0..100 {
        if !upstream_knows(http, id).await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the upstream session {id} was not closed");
}

async fn downstream(server: &Server, mode: ConnectMode) -> Client {
    Client::builder()
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("downstream connects")
}

/// The upstream session a call of `c` arrives on.
async fn session_of(c: &Client) -> String {
    text_of(&c.call_tool("session", json!({})).await.unwrap())
}

async fn proxy(upstream: Upstream) -> Proxy {
    Proxy::connect(upstream).await.expect("the proxy connects")
}

// ---------------------------------------------------------------------------------------
// Shared and per caller.

#[tokio::test]
async fn shared_by_default_and_one_upstream_session_per_downstream_session_when_per_caller() {
    bounded(async {
        let http = upstream_http().await;
        // Shared (the default): both callers' calls arrive on the proxy's one session.
        let shared = proxy(Upstream::http(http.url()).mode(LEGACY)).await;
        let main = shared
            .client()
            .unwrap()
            .http_session_id()
            .expect("a legacy session");
        let server = shared.server();
        let (a, b) = (
            downstream(&server, LEGACY).await,
            downstream(&server, LEGACY).await,
        );
        assert_eq!(session_of(&a).await, main);
        assert_eq!(session_of(&b).await, main);

        // Per caller: each downstream session has an upstream session of its own, kept
        // from call to call.
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller),
        )
        .await;
        let main = per
            .client()
            .unwrap()
            .http_session_id()
            .expect("a legacy session");
        let server = per.server();
        let (a, b) = (
            downstream(&server, LEGACY).await,
            downstream(&server, LEGACY).await,
        );
        let (sa, sb) = (session_of(&a).await, session_of(&b).await);
        assert_ne!(sa, sb);
        assert!(sa != main && sb != main, "{sa} {sb} {main}");
        assert_eq!(session_of(&a).await, sa);
        assert_eq!(session_of(&b).await, sb);
        // A 2026 caller without authentication names no caller: the shared connection.
        let m = downstream(&server, MODERN).await;
        assert_eq!(session_of(&m).await, main);
    })
    .await;
}

#[tokio::test]
async fn a_closed_downstream_session_closes_its_upstream_session() {
    bounded(async {
        let http = upstream_http().await;
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller),
        )
        .await;
        let server = per.server();
        let (a, b) = (
            downstream(&server, LEGACY).await,
            downstream(&server, LEGACY).await,
        );
        let (sa, sb) = (session_of(&a).await, session_of(&b).await);
        assert!(upstream_knows(&http, &sa).await);
        a.close().await.unwrap();
        drop(a);
        upstream_forgets(&http, &sa).await;
        // The other caller's connection stays, as does the proxy's own.
        assert!(upstream_knows(&http, &sb).await);
        assert_eq!(session_of(&b).await, sb);
        assert!(upstream_knows(&http, &per.client().unwrap().http_session_id().unwrap()).await);

        // The same with callers over Streamable HTTP: a DELETE ends the downstream session.
        let front = LoopbackHttp::start(&server, HttpOptions::default())
            .await
            .unwrap();
        let over_http = || async {
            Client::builder()
                .mode(LEGACY)
                .connect_http(&front.url())
                .await
                .unwrap()
        };
        let (c, d) = (over_http().await, over_http().await);
        let (sc, sd) = (session_of(&c).await, session_of(&d).await);
        assert_ne!(sc, sd);
        c.close().await.unwrap();
        drop(c);
        upstream_forgets(&http, &sc).await;
        assert_eq!(session_of(&d).await, sd);
    })
    .await;
}

#[tokio::test]
async fn an_idle_callers_connection_is_closed_and_made_again_on_its_next_call() {
    bounded(async {
        let http = upstream_http().await;
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller)
                .caller_idle_timeout(Duration::from_millis(200)),
        )
        .await;
        let server = per.server();
        let a = downstream(&server, LEGACY).await;
        let first = session_of(&a).await;
        upstream_forgets(&http, &first).await;
        let second = session_of(&a).await;
        assert_ne!(first, second);
        assert!(upstream_knows(&http, &second).await);
    })
    .await;
}

#[tokio::test]
async fn past_the_maximum_the_least_recently_used_callers_connection_is_closed() {
    bounded(async {
        let http = upstream_http().await;
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller)
                .max_callers(1),
        )
        .await;
        let server = per.server();
        let (a, b) = (
            downstream(&server, LEGACY).await,
            downstream(&server, LEGACY).await,
        );
        let sa = session_of(&a).await;
        let sb = session_of(&b).await;
        assert_ne!(sa, sb);
        upstream_forgets(&http, &sa).await;
        assert!(upstream_knows(&http, &sb).await);
    })
    .await;
}

/// The upstream behind a door that answers `503` to every new session's `initialize` while
/// `refuse` is set; `opened` counts the sessions asked for.
struct Door {
    url: String,
    refuse: Arc<AtomicBool>,
    opened: Arc<AtomicUsize>,
}

async fn upstream_behind_a_door() -> Door {
    let (refuse, opened) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );
    let (r, o) = (refuse.clone(), opened.clone());
    let door = move |req: axum::extract::Request, next: axum::middleware::Next| {
        let (r, o) = (r.clone(), o.clone());
        async move {
            let new_session =
                req.method() == "POST" && !req.headers().contains_key("mcp-session-id");
            if new_session {
                o.fetch_add(1, Ordering::SeqCst);
                if r.load(Ordering::SeqCst) {
                    return (axum::http::StatusCode::SERVICE_UNAVAILABLE, "down").into_response();
                }
            }
            next.run(req).await
        }
    };
    let (router, _) = upstream_server().http_router(HttpOptions::default());
    let app = router.layer(axum::middleware::from_fn(door));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    Door {
        url,
        refuse,
        opened,
    }
}

#[tokio::test]
async fn a_callers_failed_connection_is_not_tried_again_within_a_second() {
    bounded(async {
        let door = upstream_behind_a_door().await;
        let per = proxy(
            Upstream::http(&door.url)
                .mode(LEGACY)
                .sharing(Sharing::PerCaller),
        )
        .await;
        let opened_by_the_proxy = door.opened.load(Ordering::SeqCst);
        door.refuse.store(true, Ordering::SeqCst);
        let server = per.server();
        let a = downstream(&server, LEGACY).await;

        let first = a
            .call_tool("session", json!({}))
            .await
            .unwrap_err()
            .to_string();
        assert_eq!(
            door.opened.load(Ordering::SeqCst),
            opened_by_the_proxy + 1,
            "{first}"
        );
        // At once again: failed from the last attempt, the upstream not asked.
        let again = a
            .call_tool("session", json!({}))
            .await
            .unwrap_err()
            .to_string();
        assert!(again.contains("failed a moment ago"), "{again}");
        assert_eq!(door.opened.load(Ordering::SeqCst), opened_by_the_proxy + 1);

        // A second later the upstream is asked again, and once it is up the call goes through.
        door.refuse.store(false, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(1100)).await;
        assert!(!session_of(&a).await.is_empty());
        assert_eq!(door.opened.load(Ordering::SeqCst), opened_by_the_proxy + 2);
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// 2026 callers by principal.

/// The proxy's server over HTTP with bearer auth: token `t-NAME` is principal `NAME`.
async fn authenticated(server: &Server) -> LoopbackHttp {
    let validator = validator_fn(|token: String, _req: HttpRequest| async move {
        match token.strip_prefix("t-") {
            Some(who) => Ok(Principal::new(who)),
            None => Err(AuthError::InvalidToken("unknown token".into())),
        }
    });
    let opts = HttpOptions {
        auth: Some(AuthOptions::new("http://127.0.0.1/mcp", validator)),
        ..HttpOptions::default()
    };
    LoopbackHttp::start(server, opts)
        .await
        .expect("loopback HTTP")
}

async fn caller(url: &str, token: &str) -> Client {
    Client::builder()
        .mode(MODERN)
        .bearer_token(token)
        .connect_http(url)
        .await
        .expect("the caller connects")
}

#[tokio::test]
async fn a_2026_caller_is_keyed_by_its_authenticated_principal() {
    bounded(async {
        let http = upstream_http().await;
        let per = proxy(
            Upstream::http(http.url())
                .mode(LEGACY)
                .sharing(Sharing::PerCaller),
        )
        .await;
        let main = per.client().unwrap().http_session_id().unwrap();
        let front = authenticated(&per.server()).await;
        let ada = session_of(&caller(&front.url(), "t-ada").await).await;
        let ada_again = session_of(&caller(&front.url(), "t-ada").await).await;
        let bob = session_of(&caller(&front.url(), "t-bob").await).await;
        assert_eq!(ada, ada_again, "one principal, one upstream connection");
        assert_ne!(ada, bob);
        assert!(ada != main && bob != main);
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// Upstream credentials: our OAuth client.

/// A small authorization server: metadata and a token endpoint that grants
/// `client_credentials` to the pre-registered client `gateway:s3cret` (HTTP Basic), and
/// the tokens it issued, which the upstream's validator accepts.
#[derive(Clone, Default)]
struct Issuer {
    issued: Arc<Mutex<Vec<String>>>,
    grants: Arc<Mutex<Vec<String>>>,
}

async fn start_issuer(issuer: Issuer) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let u = url.clone();
    let app = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            routing::get(move || {
                let u = u.clone();
                async move {
                    json_response(
                        200,
                        json!({
                            "issuer": u,
                            "authorization_endpoint": format!("{u}/authorize"),
                            "token_endpoint": format!("{u}/token"),
                            "response_types_supported": ["code"],
                            "grant_types_supported": ["client_credentials"],
                            "code_challenge_methods_supported": ["S256"],
                            "token_endpoint_auth_methods_supported": ["client_secret_basic"],
                        }),
                    )
                }
            }),
        )
        .route(
            "/token",
            routing::post(move |headers: axum::http::HeaderMap, body: String| {
                let issuer = issuer.clone();
                async move {
                    let form = decode_form(&body);
                    let grant = form.get("grant_type").cloned().unwrap_or_default();
                    issuer.grants.lock().unwrap().push(grant.clone());
                    let basic = format!("Basic {}", STANDARD.encode("gateway:s3cret"));
                    let auth = headers.get("authorization").and_then(|v| v.to_str().ok());
                    if auth != Some(basic.as_str()) {
                        return json_response(401, json!({"error": "invalid_client"}));
                    }
                    if grant != "client_credentials" {
                        return json_response(400, json!({"error": "unsupported_grant_type"}));
                    }
                    let mut issued = issuer.issued.lock().unwrap();
                    let token = format!("at-{}", issued.len() + 1);
                    issued.push(token.clone());
                    json_response(
                        200,
                        json!({"access_token": token, "token_type": "Bearer", "expires_in": 3600}),
                    )
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// An upstream accepting only the tokens `issuer` issued; its `whoami` tool names the
/// principal and the `Authorization` header it was reached with.
async fn protected_upstream(issuer: &Issuer, issuer_url: &str) -> (String, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let issued = issuer.issued.clone();
    let validator = validator_fn(move |token: String, _req: HttpRequest| {
        let known = issued.lock().unwrap().contains(&token);
        async move {
            if known {
                Ok(Principal::new("gateway"))
            } else {
                Err(AuthError::InvalidToken("unknown token".into()))
            }
        }
    });
    let opts = AuthOptions::new(url.clone(), validator)
        .authorization_server(issuer_url)
        .scopes_supported(["mcp:read"]);
    let server = Server::builder("protected", "1.0.0")
        .tool(Tool::new("whoami"), |ctx: Context, _: Value| async move {
            let who = ctx
                .extensions()
                .get::<Principal>()
                .map(|p| p.subject.clone());
            let header = (ctx.extensions().get::<HttpRequest>())
                .and_then(|r| r.headers.get("authorization"))
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            Ok(text(format!("{}|{header}", who.unwrap_or_default())))
        })
        .without_tracing()
        .build();
    let stop = CancellationToken::new();
    let st = stop.clone();
    let http = HttpOptions {
        auth: Some(opts),
        ..HttpOptions::default()
    };
    tokio::spawn(async move { server.serve_http_on(listener, http, st).await });
    (url, stop)
}

fn oauth(url: &str, secret: &str) -> OAuth {
    OAuth::builder(url)
        .client_credentials_grant(ClientSecret::new("gateway", Some(secret.into())))
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_upstream_behind_oauth_is_reached_with_the_proxys_own_client_credentials() {
    bounded(async {
        let issuer = Issuer::default();
        let issuer_url = start_issuer(issuer.clone()).await;
        let (url, _stop) = protected_upstream(&issuer, &issuer_url).await;
        for (up, sharing) in [
            (LEGACY, Sharing::Shared),
            (MODERN, Sharing::Shared),
            (LEGACY, Sharing::PerCaller),
        ] {
            let before = issuer.issued.lock().unwrap().len();
            let upstream = Upstream::http(&url)
                .mode(up)
                .sharing(sharing)
                .oauth(oauth(&url, "s3cret"));
            let proxy = proxy(upstream).await;
            // The caller reaches the proxy with its own token, which never goes upstream.
            let front = authenticated(&proxy.server()).await;
            for down in [LEGACY, MODERN] {
                let c = Client::builder()
                    .mode(down)
                    .bearer_token("t-caller")
                    .connect_http(&front.url())
                    .await
                    .unwrap();
                let r = c.call_tool("whoami", json!({})).await.unwrap();
                let (who, header) = text_of(&r)
                    .split_once('|')
                    .map(|(a, b)| (a.to_owned(), b.to_owned()))
                    .unwrap();
                assert_eq!(who, "gateway", "{up:?} {sharing:?} <- {down:?}");
                assert!(header.starts_with("Bearer at-"), "{header}");
                assert!(!header.contains("t-caller"));
            }
            // One token request per proxy: its connections share the tokens.
            assert_eq!(
                issuer.issued.lock().unwrap().len(),
                before + 1,
                "{up:?} {sharing:?}"
            );
        }
        assert!(
            issuer
                .grants
                .lock()
                .unwrap()
                .iter()
                .all(|g| g == "client_credentials")
        );
    })
    .await;
}

#[tokio::test]
async fn without_or_with_wrong_credentials_connecting_fails_clearly() {
    bounded(async {
        let issuer = Issuer::default();
        let issuer_url = start_issuer(issuer.clone()).await;
        let (url, _stop) = protected_upstream(&issuer, &issuer_url).await;
        for up in [LEGACY, MODERN] {
            let e = Proxy::connect(Upstream::http(&url).mode(up))
                .await
                .unwrap_err();
            let why = e.to_string();
            assert!(
                why.contains(&format!("upstream `{url}` is unreachable")),
                "{why}"
            );
            assert!(why.contains("401"), "{why}");
            let wrong = Upstream::http(&url).mode(up).oauth(oauth(&url, "wrong"));
            let why = Proxy::connect(wrong).await.unwrap_err().to_string();
            assert!(why.contains("authorization failed"), "{why}");
            assert!(why.contains("invalid_client"), "{why}");
        }
        assert!(issuer.issued.lock().unwrap().is_empty());
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// Input requests of a legacy upstream while several callers have calls in flight.

/// An upstream whose `ask` waits until two calls are in, asks each caller's name, and
/// answers once both have been asked (so both calls are in flight for both questions).
fn asking_server() -> Server {
    let both_in = Arc::new(tokio::sync::Barrier::new(2));
    let both_asked = Arc::new(tokio::sync::Barrier::new(2));
    Server::builder("asking", "1.0.0")
        .tool(Tool::new("ask"), move |ctx: Context, _: Value| {
            let (both_in, both_asked) = (both_in.clone(), both_asked.clone());
            async move {
                both_in.wait().await;
                let schema = serde_json::from_value(json!({
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"]
                }))
                .unwrap();
                let answer = ctx.elicit_form("Your name?", schema).await;
                both_asked.wait().await;
                match answer {
                    Ok(r) => {
                        let v = serde_json::to_value(&r).unwrap();
                        Ok(text(v["content"]["name"].as_str().unwrap_or_default()))
                    }
                    Err(e) => Ok(text(format!("refused: {e}"))),
                }
            }
        })
        .build()
}

/// A downstream client that answers every form with `name`.
struct Named(&'static str);

impl mcp::client::ClientHandler for Named {
    async fn elicit(
        &self,
        _: mcp::types::ElicitParams,
    ) -> Result<mcp::types::ElicitResult, mcp::jsonrpc::ErrorObject> {
        Ok(
            serde_json::from_value(json!({"action": "accept", "content": {"name": self.0}}))
                .unwrap(),
        )
    }
}

async fn named(server: &Server, name: &'static str) -> Client {
    Client::builder()
        .capabilities(serde_json::from_value(json!({"elicitation": {"form": {}}})).unwrap())
        .handler(Named(name))
        .mode(LEGACY)
        .connect(server.serve_in_memory())
        .await
        .unwrap()
}

#[tokio::test]
async fn a_legacy_upstreams_input_requests_find_their_caller_while_others_are_in_flight() {
    bounded(async {
        let http = LoopbackHttp::start(&asking_server(), HttpOptions::default())
            .await
            .unwrap();
        let ask = |c: Client| async move { text_of(&c.call_tool("ask", json!({})).await.unwrap()) };
        // Shared: each upstream request comes on its call's own stream, so with two in
        // flight on one connection each still finds its caller.
        let shared = proxy(Upstream::http(http.url()).mode(LEGACY))
            .await
            .server();
        let (a, b) = (named(&shared, "Ada").await, named(&shared, "Bob").await);
        let (ra, rb) = tokio::join!(ask(a), ask(b));
        assert_eq!((ra.as_str(), rb.as_str()), ("Ada", "Bob"));
        // Per caller: each caller's connection carries only its own call.
        let per = Upstream::http(http.url())
            .mode(LEGACY)
            .sharing(Sharing::PerCaller);
        let per = proxy(per).await.server();
        let (a, b) = (named(&per, "Ada").await, named(&per, "Bob").await);
        let (ra, rb) = tokio::join!(ask(a), ask(b));
        assert_eq!((ra.as_str(), rb.as_str()), ("Ada", "Bob"));
    })
    .await;
}
