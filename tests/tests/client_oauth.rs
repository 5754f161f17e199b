//! The client's OAuth 2.1 flow end to end on loopback: our server with bearer auth (RFC 9728
//! metadata, `401`/`403` challenges) and a small in-test authorization server (axum) that
//! checks PKCE, `state`, `resource` and client authentication the way a real one does.
//! Covered: discovery + dynamic registration + authorization code + token, scope
//! selection, `offline_access` and refresh on expiry, step-up on `403 insufficient_scope`
//! (2026-07-28, where the `Mcp-Method` header tells the validator the method),
//! pre-registered credentials with `client_secret_basic`, and every refusal: wrong or
//! missing `iss`, a metadata `issuer` mismatch, a resource mismatch, no PKCE `S256`, an
//! authorization error, a refused token request.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use mcp::CancellationToken;
use mcp::Principal;
use mcp::client::Client;
use mcp::client::oauth::{ClientSecret, OAuth};
use mcp::client::{ClientError, ConnectMode};
use mcp::prelude::*;
use mcp::transport::http::axum::{self, Router, extract::RawQuery, routing};
use mcp::transport::http::{AuthError, validator_fn};
use mcp::transport::http::{AuthOptions, HttpOptions, HttpRequest};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use ProtocolVersion as V;

#[path = "support/oauth_form.rs"]
mod oauth_form;
use oauth_form::{decode_form, json_response};

#[derive(serde::Deserialize)]
struct NoArgs {}

// ---------------------------------------------------------------------------------------
// The authorization server
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, PartialEq)]
enum Iss {
    Correct,
    Wrong,
    Missing,
}

/// How the authorization server behaves.
#[derive(Clone)]
struct AsConfig {
    iss: Iss,
    s256: bool,
    /// The `issuer` its metadata claims (default: its own URL).
    metadata_issuer: Option<String>,
    expires_in: u64,
    scopes_supported: Vec<&'static str>,
    /// Only this pre-registered client (id, secret), authenticated with HTTP Basic.
    pre_registered: Option<(&'static str, &'static str)>,
    /// The authorization endpoint refuses (`error=access_denied`).
    deny: bool,
}

impl Default for AsConfig {
    fn default() -> Self {
        AsConfig {
            iss: Iss::Correct,
            s256: true,
            metadata_issuer: None,
            expires_in: 3600,
            scopes_supported: vec!["mcp:read", "mcp:write"],
            pre_registered: None,
            deny: false,
        }
    }
}

/// What the authorization server saw, and the tokens it issued (shared with the MCP
/// server's validator).
#[derive(Default)]
struct AsLog {
    events: Vec<String>,
    authorize: Vec<HashMap<String, String>>,
    token: Vec<HashMap<String, String>>,
    registrations: Vec<Value>,
    challenge: Option<String>,
    /// token -> scopes.
    issued: HashMap<String, Vec<String>>,
    /// refresh token -> scopes.
    refresh: HashMap<String, Vec<String>>,
    next: u32,
}

#[derive(Clone)]
struct As {
    url: String,
    config: AsConfig,
    log: Arc<Mutex<AsLog>>,
}

fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

impl As {
    async fn start(config: AsConfig) -> As {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let this = As {
            url,
            config,
            log: Arc::default(),
        };
        let (a, b, c, d) = (this.clone(), this.clone(), this.clone(), this.clone());
        let app = Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                routing::get(move || {
                    let a = a.clone();
                    async move { a.metadata() }
                }),
            )
            .route(
                "/authorize",
                routing::get(move |RawQuery(q): RawQuery| {
                    let b = b.clone();
                    async move { b.authorize(q.unwrap_or_default()) }
                }),
            )
            .route(
                "/token",
                routing::post(move |headers: axum::http::HeaderMap, body: String| {
                    let c = c.clone();
                    async move { c.token(&headers, &body) }
                }),
            )
            .route(
                "/register",
                routing::post(move |body: String| {
                    let d = d.clone();
                    async move { d.register(&body) }
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        this
    }

    fn events(&self) -> Vec<String> {
        self.log.lock().unwrap().events.clone()
    }

    fn metadata(&self) -> axum::response::Response {
        self.log.lock().unwrap().events.push("metadata".into());
        let u = &self.url;
        let mut doc = json!({
            "issuer": self.config.metadata_issuer.clone().unwrap_or_else(|| u.clone()),
            "authorization_endpoint": format!("{u}/authorize"),
            "token_endpoint": format!("{u}/token"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "scopes_supported": self.config.scopes_supported,
            "authorization_response_iss_parameter_supported": true,
            "token_endpoint_auth_methods_supported":
                if self.config.pre_registered.is_some() { json!(["client_secret_basic"]) } else { json!(["none"]) },
        });
        if self.config.s256 {
            doc["code_challenge_methods_supported"] = json!(["S256"]);
        }
        if self.config.pre_registered.is_none() {
            doc["registration_endpoint"] = json!(format!("{u}/register"));
        }
        json_response(200, doc)
    }

    fn authorize(&self, query: String) -> axum::response::Response {
        let q = decode_form(&query);
        let mut log = self.log.lock().unwrap();
        log.events.push("authorize".into());
        log.challenge = q.get("code_challenge").cloned();
        log.authorize.push(q.clone());
        let mut target = format!("{}?", q["redirect_uri"]);
        if self.config.deny {
            target.push_str("error=access_denied&error_description=no+thanks");
        } else {
            target.push_str(&format!("code=code-{}", log.authorize.len()));
        }
        if let Some(s) = q.get("state") {
            target.push_str(&format!("&state={}", enc(s)));
        }
        match self.config.iss {
            Iss::Correct => target.push_str(&format!("&iss={}", enc(&self.url))),
            Iss::Wrong => target.push_str("&iss=https%3A%2F%2Fevil.example.com"),
            Iss::Missing => {}
        }
        axum::response::Response::builder()
            .status(302)
            .header("location", target)
            .body(axum::body::Body::empty())
            .unwrap()
    }

    fn token(&self, headers: &axum::http::HeaderMap, body: &str) -> axum::response::Response {
        let f = decode_form(body);
        let mut log = self.log.lock().unwrap();
        log.events.push(format!(
            "token:{}",
            f.get("grant_type").cloned().unwrap_or_default()
        ));
        log.token.push(f.clone());
        if let Some((id, secret)) = self.config.pre_registered {
            let want = format!("Basic {}", STANDARD.encode(format!("{id}:{secret}")));
            if headers.get("authorization").and_then(|v| v.to_str().ok()) != Some(&want) {
                return json_response(401, json!({"error": "invalid_client"}));
            }
        }
        let scopes: Vec<String> = match f.get("grant_type").map(String::as_str) {
            Some("authorization_code") => {
                let verifier = f.get("code_verifier").cloned().unwrap_or_default();
                let computed = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
                if log.challenge.as_deref() != Some(computed.as_str()) {
                    return json_response(
                        400,
                        json!({"error": "invalid_grant", "error_description": "PKCE"}),
                    );
                }
                let last = log.authorize.last().cloned().unwrap_or_default();
                if f.get("resource") != last.get("resource") {
                    return json_response(400, json!({"error": "invalid_target"}));
                }
                last.get("scope")
                    .map(|s| s.split(' ').map(str::to_owned).collect())
                    .unwrap_or_default()
            }
            Some("refresh_token") => {
                match log
                    .refresh
                    .remove(f.get("refresh_token").map(String::as_str).unwrap_or(""))
                {
                    Some(s) => s,
                    None => return json_response(400, json!({"error": "invalid_grant"})),
                }
            }
            Some("client_credentials") => f
                .get("scope")
                .map(|s| s.split(' ').map(str::to_owned).collect())
                .unwrap_or_else(|| vec!["mcp:read".into()]),
            Some("urn:ietf:params:oauth:grant-type:jwt-bearer") => {
                if f.get("assertion").map(String::as_str) != Some("good-jwt") {
                    return json_response(
                        400,
                        json!({"error": "invalid_grant", "error_description": "bad assertion"}),
                    );
                }
                vec!["mcp:read".into()]
            }
            _ => return json_response(400, json!({"error": "unsupported_grant_type"})),
        };
        log.next += 1;
        let access = format!("at-{}", log.next);
        log.issued.insert(access.clone(), scopes.clone());
        let mut answer = json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": self.config.expires_in,
            "scope": scopes.join(" "),
        });
        if scopes.iter().any(|s| s == "offline_access") {
            let r = format!("rt-{}", log.next);
            log.refresh.insert(r.clone(), scopes);
            answer["refresh_token"] = json!(r);
        }
        json_response(200, answer)
    }

    fn register(&self, body: &str) -> axum::response::Response {
        let v: Value = serde_json::from_str(body).unwrap();
        let mut log = self.log.lock().unwrap();
        log.events.push("register".into());
        log.registrations.push(v.clone());
        json_response(
            201,
            json!({"client_id": "dyn-client", "redirect_uris": v["redirect_uris"], "token_endpoint_auth_method": "none"}),
        )
    }
}

// ---------------------------------------------------------------------------------------
// The MCP server
// ---------------------------------------------------------------------------------------

struct Running {
    url: String,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Our server, accepting the tokens `auth` issued; `tools/call` needs `mcp:write` (told
/// apart by the 2026 `Mcp-Method` header), everything else `mcp:read`. `resource`
/// overrides the resource its metadata names.
async fn mcp_server(auth: &As, resource: Option<&str>) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let log = auth.log.clone();
    let validator = validator_fn(move |token: String, req: HttpRequest| {
        let scopes = log.lock().unwrap().issued.get(&token).cloned();
        async move {
            let Some(scopes) = scopes else {
                return Err(AuthError::InvalidToken("unknown token".into()));
            };
            let method = req.headers.get("mcp-method").and_then(|v| v.to_str().ok());
            let need = if method == Some("tools/call") {
                "mcp:write"
            } else {
                "mcp:read"
            };
            if !scopes.iter().any(|s| s == need) {
                return Err(AuthError::InsufficientScope {
                    scope: need.into(),
                    description: format!("{need} is needed"),
                });
            }
            Ok(Principal::new("user").with_scopes(scopes))
        }
    });
    let opts = AuthOptions::new(resource.unwrap_or(&url), validator)
        .authorization_server(auth.url.clone())
        .scopes_supported(["mcp:read"]);
    let server = Server::builder("oauth-test", "1.0.0")
        .tool(
            Tool::new("whoami").with_input_schema(json!({"type": "object", "properties": {}})),
            |_ctx: Context, _: NoArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text("user")]))
            },
        )
        .without_tracing()
        .build();
    let stop = CancellationToken::new();
    let st = stop.clone();
    let http = HttpOptions {
        auth: Some(opts),
        ..HttpOptions::default()
    };
    tokio::spawn(async move { server.serve_http_on(listener, http, st).await });
    Running { url, stop }
}

/// An authorization server configured by `config` and our server trusting it.
async fn servers(config: AsConfig) -> (As, Running) {
    let auth = As::start(config).await;
    let srv = mcp_server(&auth, None).await;
    (auth, srv)
}

/// The connection modes most tests use.
const LEGACY: ConnectMode = ConnectMode::Legacy(V::V2025_11_25);
const MODERN: ConnectMode = ConnectMode::Modern(V::V2026_07_28);

fn oauth(url: &str) -> mcp::client::oauth::OAuthBuilder {
    OAuth::builder(url)
        .redirect_uri("http://127.0.0.1:9/callback")
        .client_name("oauth-test-client")
}

async fn connect(url: &str, mode: ConnectMode, o: &OAuth) -> Result<Client, ClientError> {
    Client::builder()
        .mode(mode)
        .token_provider(o.clone())
        .connect_http(url)
        .await
}

fn auth_error(r: Result<Client, ClientError>) -> String {
    match r {
        Err(ClientError::Auth(why)) => why,
        Err(other) => panic!("expected an authorization error, got {other:?}"),
        Ok(_) => panic!("expected an authorization error, got a connection"),
    }
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn the_first_401_runs_discovery_registration_pkce_and_the_token_request() {
    let (auth, srv) = servers(AsConfig::default()).await;
    let o = oauth(&srv.url).build().unwrap();
    let client = connect(&srv.url, LEGACY, &o).await.unwrap();
    let tools = client.list_all_tools().await.unwrap();
    assert_eq!(tools[0].name, "whoami");

    assert_eq!(
        auth.events(),
        [
            "metadata",
            "register",
            "authorize",
            "token:authorization_code"
        ]
    );
    let log = auth.log.lock().unwrap();
    let reg = &log.registrations[0];
    assert_eq!(reg["redirect_uris"], json!(["http://127.0.0.1:9/callback"]));
    assert_eq!(reg["application_type"], "native");
    assert_eq!(reg["client_name"], "oauth-test-client");
    let a = &log.authorize[0];
    assert_eq!(a["client_id"], "dyn-client");
    assert_eq!(a["code_challenge_method"], "S256");
    assert_eq!(a["response_type"], "code");
    // RFC 8707: the resource exactly as the metadata names it; scopes from its
    // scopes_supported (the 401 challenge named none).
    assert_eq!(a["resource"], srv.url);
    assert_eq!(a["scope"], "mcp:read");
    let t = &log.token[0];
    assert_eq!(t["resource"], srv.url);
    assert_eq!(t["client_id"], "dyn-client");
    assert_eq!(t["redirect_uri"], "http://127.0.0.1:9/callback");
    drop(log);
    let tokens = o.tokens().expect("tokens are kept");
    assert_eq!(tokens.access_token, "at-1");
    assert_eq!(tokens.issuer, auth.url);
    assert_eq!(tokens.scope.as_deref(), Some("mcp:read"));
}

#[tokio::test]
async fn a_403_insufficient_scope_re_authorizes_with_the_union_of_scopes() {
    let (auth, srv) = servers(AsConfig::default()).await;
    let o = oauth(&srv.url).build().unwrap();
    let client = connect(&srv.url, MODERN, &o).await.unwrap();
    let r = client.call_tool("whoami", json!({})).await.unwrap();
    assert_eq!(r.is_error, None);
    let log = auth.log.lock().unwrap();
    let scopes: Vec<&str> = log.authorize.iter().map(|a| a["scope"].as_str()).collect();
    assert_eq!(
        scopes,
        ["mcp:read", "mcp:read mcp:write"].map(|s| s.to_string())
    );
}

#[tokio::test]
async fn step_up_stops_when_the_challenged_scope_was_already_granted() {
    // Once mcp:write was granted and is still refused, asking again cannot help: the
    // client gives up instead of looping.
    let (auth, srv) = servers(AsConfig::default()).await;
    let o = oauth(&srv.url).build().unwrap();
    let client = connect(&srv.url, MODERN, &o).await.unwrap();
    client.call_tool("whoami", json!({})).await.unwrap();
    // The server stops honouring mcp:write on the tokens it issued.
    let n = auth.log.lock().unwrap().authorize.len();
    {
        let mut log = auth.log.lock().unwrap();
        for s in log.issued.values_mut() {
            s.retain(|x| x != "mcp:write");
        }
    }
    let e = client.call_tool("whoami", json!({})).await.unwrap_err();
    assert_eq!(e.http_status(), Some(403), "{e}");
    assert_eq!(
        auth.log.lock().unwrap().authorize.len(),
        n,
        "no new authorization"
    );
}

#[tokio::test]
async fn offline_access_brings_a_refresh_token_that_replaces_an_expired_access_token() {
    let (auth, srv) = servers(AsConfig {
        expires_in: 0,
        scopes_supported: vec!["mcp:read", "mcp:write", "offline_access"],
        ..AsConfig::default()
    })
    .await;
    let o = oauth(&srv.url).offline_access(true).build().unwrap();
    let client = connect(&srv.url, LEGACY, &o).await.unwrap();
    assert_eq!(
        auth.log.lock().unwrap().authorize[0]["scope"],
        "mcp:read offline_access"
    );
    assert!(
        o.tokens()
            .unwrap()
            .refresh_token
            .is_some_and(|r| r.starts_with("rt-"))
    );
    client.list_tools(None).await.unwrap();
    let events = auth.events();
    assert!(
        events.contains(&"token:refresh_token".to_owned()),
        "{events:?}"
    );
    assert_eq!(
        events.iter().filter(|e| *e == "authorize").count(),
        1,
        "refreshing needs no new authorization: {events:?}"
    );
    let t = auth.log.lock().unwrap().token.last().cloned().unwrap();
    assert_eq!(t["resource"], srv.url);
}

#[tokio::test]
async fn offline_access_is_not_asked_for_when_the_server_does_not_list_it() {
    let (auth, srv) = servers(AsConfig::default()).await;
    let o = oauth(&srv.url).offline_access(true).build().unwrap();
    connect(&srv.url, LEGACY, &o).await.unwrap();
    assert_eq!(auth.log.lock().unwrap().authorize[0]["scope"], "mcp:read");
    assert_eq!(o.tokens().unwrap().refresh_token, None);
}

#[tokio::test]
async fn pre_registered_credentials_authenticate_with_http_basic() {
    let (auth, srv) = servers(AsConfig {
        pre_registered: Some(("pre-id", "pre-secret")),
        ..AsConfig::default()
    })
    .await;
    let o = oauth(&srv.url)
        .pre_registered(
            ClientSecret::new("pre-id", Some("pre-secret".into())).for_issuer(auth.url.clone()),
        )
        .build()
        .unwrap();
    connect(&srv.url, LEGACY, &o).await.unwrap();
    let log = auth.log.lock().unwrap();
    assert!(log.registrations.is_empty(), "no dynamic registration");
    assert_eq!(log.authorize[0]["client_id"], "pre-id");
    // Basic: neither id nor secret in the body.
    assert!(!log.token[0].contains_key("client_secret"));
    assert!(!log.token[0].contains_key("client_id"));
}

#[tokio::test]
async fn credentials_for_another_issuer_are_not_used_and_without_registration_it_fails() {
    let (auth, srv) = servers(AsConfig {
        pre_registered: Some(("pre-id", "pre-secret")),
        ..AsConfig::default()
    })
    .await;
    let o = oauth(&srv.url)
        .pre_registered(
            ClientSecret::new("pre-id", Some("pre-secret".into())).for_issuer("https://other"),
        )
        .build()
        .unwrap();
    let why = auth_error(connect(&srv.url, LEGACY, &o).await);
    assert!(why.contains("no dynamic registration"), "{why}");
    assert!(!auth.events().contains(&"authorize".to_owned()));
}

#[tokio::test]
async fn a_wrong_or_missing_iss_is_rejected_before_the_token_request() {
    for (iss, expect) in [
        (Iss::Wrong, "evil.example.com"),
        (Iss::Missing, "lacks the iss"),
    ] {
        let auth = As::start(AsConfig {
            iss,
            ..AsConfig::default()
        })
        .await;
        let srv = mcp_server(&auth, None).await;
        let o = oauth(&srv.url).build().unwrap();
        let why = auth_error(connect(&srv.url, MODERN, &o).await);
        assert!(why.contains(expect), "{why}");
        assert!(!auth.events().iter().any(|e| e.starts_with("token")));
        assert!(o.tokens().is_none());
    }
}

#[tokio::test]
async fn metadata_for_another_issuer_is_rejected() {
    let (auth, srv) = servers(AsConfig {
        metadata_issuer: Some("https://evil.example.com".into()),
        ..AsConfig::default()
    })
    .await;
    let o = oauth(&srv.url).build().unwrap();
    let why = auth_error(connect(&srv.url, LEGACY, &o).await);
    assert!(why.contains("not"), "{why}");
    assert_eq!(auth.events(), ["metadata"]);
}

#[tokio::test]
async fn resource_metadata_for_another_resource_stops_the_flow() {
    // A resource server whose metadata (at the challenge's resource_metadata) names
    // another resource.
    let auth = As::start(AsConfig::default()).await;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let prm = format!("{origin}/prm.json");
    let as_url = auth.url.clone();
    let app = Router::new()
        .route(
            "/mcp",
            routing::post(move || {
                let prm = prm.clone();
                async move {
                    axum::response::Response::builder()
                        .status(401)
                        .header("www-authenticate", format!("Bearer resource_metadata=\"{prm}\""))
                        .body(axum::body::Body::empty())
                        .unwrap()
                }
            }),
        )
        .route(
            "/prm.json",
            routing::get(move || {
                let as_url = as_url.clone();
                async move {
                    json_response(
                        200,
                        json!({"resource": "https://evil.example.com/mcp", "authorization_servers": [as_url]}),
                    )
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    let url = format!("{origin}/mcp");
    let o = oauth(&url).build().unwrap();
    let why = auth_error(connect(&url, LEGACY, &o).await);
    assert!(why.contains("evil.example.com"), "{why}");
    assert!(
        auth.events().is_empty(),
        "the authorization server is never asked"
    );
}

#[tokio::test]
async fn a_server_without_pkce_s256_is_refused() {
    let (auth, srv) = servers(AsConfig {
        s256: false,
        ..AsConfig::default()
    })
    .await;
    let o = oauth(&srv.url).build().unwrap();
    let why = auth_error(connect(&srv.url, LEGACY, &o).await);
    assert!(why.contains("S256"), "{why}");
    assert!(!auth.events().contains(&"authorize".to_owned()));
}

#[tokio::test]
async fn an_authorization_error_is_reported_with_its_description() {
    let (_auth, srv) = servers(AsConfig {
        deny: true,
        ..AsConfig::default()
    })
    .await;
    let o = oauth(&srv.url).build().unwrap();
    let why = auth_error(connect(&srv.url, LEGACY, &o).await);
    assert!(why.contains("access_denied: no thanks"), "{why}");
}

#[tokio::test]
async fn a_refused_token_request_is_an_error_naming_the_oauth_error() {
    // Wrong secret: the token endpoint answers 401 invalid_client.
    let (_auth, srv) = servers(AsConfig {
        pre_registered: Some(("pre-id", "pre-secret")),
        ..AsConfig::default()
    })
    .await;
    let o = oauth(&srv.url)
        .pre_registered(ClientSecret::new("pre-id", Some("wrong".into())))
        .build()
        .unwrap();
    let why = auth_error(connect(&srv.url, LEGACY, &o).await);
    assert!(why.contains("invalid_client"), "{why}");
    assert!(o.tokens().is_none());
}

#[test]
fn a_server_url_that_is_not_absolute_http_is_refused_at_build() {
    for bad in ["/mcp", "ftp://h/mcp", "not a url"] {
        let e = OAuth::builder(bad).build().unwrap_err();
        assert!(matches!(e, ClientError::Auth(_)), "{bad}: {e:?}");
    }
}

#[tokio::test]
async fn the_default_endpoints_are_used_when_a_server_has_no_metadata_at_all() {
    // A 2025-03-26-style server: no protected-resource metadata, no authorization server
    // metadata; /authorize, /token and /register on the server's own origin.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let (s1, s2, s3, s4) = (seen.clone(), seen.clone(), seen.clone(), seen.clone());
    let app = Router::new()
        .route(
            "/mcp",
            routing::post(move |headers: axum::http::HeaderMap, body: String| {
                let s = s1.clone();
                async move {
                    let authorized = headers
                        .get("authorization")
                        .is_some_and(|v| v.to_str().unwrap() == "Bearer legacy-token");
                    s.lock().unwrap().push(format!("mcp:{authorized}"));
                    if !authorized {
                        return json_response(401, json!({"error": "invalid_token"}));
                    }
                    let req: Value = serde_json::from_str(&body).unwrap();
                    if req.get("id").is_none() {
                        return axum::response::Response::builder()
                            .status(202)
                            .body(axum::body::Body::empty())
                            .unwrap();
                    }
                    json_response(
                        200,
                        json!({"jsonrpc": "2.0", "id": req["id"], "result": {
                            "protocolVersion": "2025-03-26", "capabilities": {},
                            "serverInfo": {"name": "legacy", "version": "1"}}}),
                    )
                }
            }),
        )
        .route(
            "/register",
            routing::post(move || {
                let s = s2.clone();
                async move {
                    s.lock().unwrap().push("register".into());
                    json_response(201, json!({"client_id": "legacy-client"}))
                }
            }),
        )
        .route(
            "/authorize",
            routing::get(move |RawQuery(q): RawQuery| {
                let s = s3.clone();
                async move {
                    s.lock().unwrap().push("authorize".into());
                    let q = decode_form(&q.unwrap_or_default());
                    axum::response::Response::builder()
                        .status(302)
                        .header(
                            "location",
                            format!("{}?code=c&state={}", q["redirect_uri"], enc(&q["state"])),
                        )
                        .body(axum::body::Body::empty())
                        .unwrap()
                }
            }),
        )
        .route(
            "/token",
            routing::post(move || {
                let s = s4.clone();
                async move {
                    s.lock().unwrap().push("token".into());
                    json_response(
                        200,
                        json!({"access_token": "legacy-token", "token_type": "bearer"}),
                    )
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    let url = format!("{origin}/mcp");
    let o = oauth(&url).build().unwrap();
    let client = connect(&url, ConnectMode::Legacy(V::V2025_03_26), &o)
        .await
        .unwrap();
    assert_eq!(client.protocol_version(), V::V2025_03_26);
    // `notifications/initialized` is sent in the background: wait for it.
    for _ in 0..100 {
        if seen.lock().unwrap().len() >= 6 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "mcp:false",
            "register",
            "authorize",
            "token",
            "mcp:true",
            "mcp:true"
        ]
    );
}

#[tokio::test]
async fn the_client_credentials_grant_needs_no_user_and_authenticates_with_basic() {
    let (auth, srv) = servers(AsConfig {
        pre_registered: Some(("machine", "s3cret")),
        ..AsConfig::default()
    })
    .await;
    let o = oauth(&srv.url)
        .client_credentials_grant(ClientSecret::new("machine", Some("s3cret".into())))
        .build()
        .unwrap();
    let client = connect(&srv.url, LEGACY, &o).await.unwrap();
    client.list_tools(None).await.unwrap();
    assert_eq!(auth.events(), ["metadata", "token:client_credentials"]);
    let log = auth.log.lock().unwrap();
    assert_eq!(log.token[0]["scope"], "mcp:read");
    assert_eq!(log.token[0]["resource"], srv.url);
}

#[tokio::test]
async fn a_jwt_bearer_assertion_is_redeemed_and_a_refused_one_is_not_retried() {
    let (auth, srv) = servers(AsConfig::default()).await;
    let good = oauth(&srv.url)
        .jwt_bearer_grant("good-jwt", "workload")
        .build()
        .unwrap();
    connect(&srv.url, LEGACY, &good).await.unwrap();
    assert_eq!(auth.log.lock().unwrap().token[0]["client_id"], "workload");

    let (auth, srv) = servers(AsConfig::default()).await;
    let bad = oauth(&srv.url)
        .jwt_bearer_grant("forged-jwt", "workload")
        .build()
        .unwrap();
    let why = auth_error(connect(&srv.url, LEGACY, &bad).await);
    assert!(why.contains("invalid_grant: bad assertion"), "{why}");
    let events = auth.events();
    assert_eq!(
        events.iter().filter(|e| e.starts_with("token")).count(),
        1,
        "no retry, no other grant: {events:?}"
    );
}
