//! JWT bearer tokens (feature `jwt`) through a real HTTP client on loopback: keys made
//! here (RS256 and ES256), a JWKS served by a small key server on loopback, and a server
//! whose `AuthOptions` use a `JwtValidator`. Signature, algorithm, `iss`, `aud`, `exp`,
//! `nbf`, leeway, scopes into the principal, key rotation through an unknown `kid`, the
//! refresh cooldown, a key server that is down, and a fixed key set.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use mcp_core::types::{CallToolResult, ContentBlock, Tool};
use mcp_runtime::CancellationToken;
use mcp_runtime::Principal;
use mcp_runtime::transport::http::axum;
use mcp_runtime::transport::http::jwt::jsonwebtoken::jwk::{Jwk, JwkSet};
use mcp_runtime::transport::http::jwt::jsonwebtoken::{self, Algorithm, EncodingKey, Header};
use mcp_runtime::transport::http::jwt::{JwksSource, JwtValidator};
use mcp_runtime::transport::http::{AuthOptions, HttpOptions};
use mcp_runtime::{Context, Server};
use serde_json::{Value, json};

const ISSUER: &str = "http://issuer.test";

/// A signing key and its public JWK.
#[derive(Clone)]
struct Key {
    enc: EncodingKey,
    jwk: Jwk,
    alg: Algorithm,
    kid: String,
}

fn es256(kid: &str) -> Key {
    use p256::elliptic_curve::Generate;
    use p256::pkcs8::EncodePrivateKey;
    let der = p256::SecretKey::generate().to_pkcs8_der().unwrap();
    key(
        EncodingKey::from_ec_der(der.as_bytes()),
        Algorithm::ES256,
        kid,
    )
}

fn rs256(kid: &str) -> Key {
    use rsa::Generate;
    use rsa::pkcs1::EncodeRsaPrivateKey;
    let der = rsa::PrivateKey::generate().to_pkcs1_der().unwrap();
    key(
        EncodingKey::from_rsa_der(der.as_bytes()),
        Algorithm::RS256,
        kid,
    )
}

fn key(enc: EncodingKey, alg: Algorithm, kid: &str) -> Key {
    let mut jwk = Jwk::from_encoding_key(&enc, alg).unwrap();
    jwk.common.key_id = Some(kid.into());
    Key {
        enc,
        jwk,
        alg,
        kid: kid.into(),
    }
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// Claims valid for `aud` for the next hour, with `scope`.
fn claims(aud: &str, scope: &str) -> Value {
    json!({
        "iss": ISSUER, "aud": aud, "sub": "alice", "client_id": "app-1",
        "iat": now(), "exp": now() + 3600, "scope": scope,
    })
}

fn sign(key: &Key, claims: &Value) -> String {
    let mut h = Header::new(key.alg);
    h.kid = Some(key.kid.clone());
    jsonwebtoken::encode(&h, claims, &key.enc).unwrap()
}

/// A key server on loopback serving whatever `keys` holds, counting fetches; `down`
/// makes it answer 503.
#[derive(Clone, Default)]
struct KeyServer {
    keys: Arc<Mutex<Vec<Jwk>>>,
    fetches: Arc<AtomicUsize>,
    down: Arc<std::sync::atomic::AtomicBool>,
}

impl KeyServer {
    async fn start(&self) -> String {
        let me = self.clone();
        let app = axum::Router::new().route(
            "/jwks.json",
            axum::routing::get(move || {
                let me = me.clone();
                async move {
                    me.fetches.fetch_add(1, Ordering::SeqCst);
                    if me.down.load(Ordering::SeqCst) {
                        return axum::http::Response::builder()
                            .status(503)
                            .body(axum::body::Body::empty())
                            .unwrap();
                    }
                    let set = JwkSet {
                        keys: me.keys.lock().unwrap().clone(),
                    };
                    axum::http::Response::new(axum::body::Body::from(
                        serde_json::to_vec(&set).unwrap(),
                    ))
                }
            }),
        );
        let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(l, app).await });
        format!("http://{addr}/jwks.json")
    }

    fn fetches(&self) -> usize {
        self.fetches.load(Ordering::SeqCst)
    }
}

#[derive(serde::Deserialize)]
struct NoArgs {}

struct Running {
    addr: SocketAddr,
    resource: String,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// An MCP server whose tokens `configure` (given the resource URI) validates.
async fn start(configure: impl FnOnce(&str) -> JwtValidator) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let auth = AuthOptions::new(resource.clone(), configure(&resource))
        .authorization_server(ISSUER)
        .require_scopes(["mcp"]);
    let opts = HttpOptions {
        auth: Some(auth),
        ..HttpOptions::default()
    };
    let server = Server::builder("jwt-test", "1.0.0")
        .tool(
            Tool::new("whoami").with_input_schema(json!({"type": "object", "properties": {}})),
            |ctx: Context, _: NoArgs| async move {
                let p = ctx.extensions().get::<Principal>().expect("a principal");
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "{} via {} [{}]",
                    p.subject,
                    p.client_id.as_deref().unwrap_or("-"),
                    p.scopes.join(" ")
                ))]))
            },
        )
        .without_tracing()
        .build();
    let stop = CancellationToken::new();
    let st = stop.clone();
    tokio::spawn(async move { server.serve_http_on(listener, opts, st).await });
    Running {
        addr,
        resource,
        stop,
    }
}

struct Resp {
    status: u16,
    www: String,
    body: String,
}

/// A stateless 2026-07-28 `tools/call whoami` with `token`.
async fn whoami(addr: SocketAddr, token: &str) -> Resp {
    let body = json!({
        "jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "whoami", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
            "io.modelcontextprotocol/clientCapabilities": {}
        }}
    });
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let req = hyper::Request::post("/mcp")
        .header("host", format!("127.0.0.1:{}", addr.port()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "whoami")
        .header("authorization", format!("Bearer {token}"))
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let r = tokio::time::timeout(Duration::from_secs(20), sender.send_request(req))
        .await
        .expect("answer in time")
        .unwrap();
    let status = r.status().as_u16();
    let www = r
        .headers()
        .get("www-authenticate")
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default();
    let bytes = r.into_body().collect().await.unwrap().to_bytes();
    Resp {
        status,
        www,
        body: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

fn text_of(r: &Resp) -> String {
    let v: Value = serde_json::from_str(&r.body).unwrap_or_else(|e| panic!("{e}: {}", r.body));
    v["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {v}"))
        .to_owned()
}

fn assert_invalid(r: &Resp, why: &str) {
    assert_eq!(r.status, 401, "{why}: {}", r.body);
    assert!(
        r.www.starts_with("Bearer error=\"invalid_token\""),
        "{why}: {}",
        r.www
    );
    assert!(r.www.contains(why), "{why} not in {}", r.www);
    assert!(r.www.contains("resource_metadata=\""), "{}", r.www);
}

#[tokio::test]
async fn rs256_and_es256_tokens_from_a_fetched_jwks_become_principals() {
    let (rsa, ec) = (rs256("rsa-1"), es256("ec-1"));
    let ks = KeyServer::default();
    *ks.keys.lock().unwrap() = vec![rsa.jwk.clone(), ec.jwk.clone()];
    let url = ks.start().await;
    let srv = start(|res| JwtValidator::new(ISSUER, res, JwksSource::url(&url).unwrap())).await;

    for key in [&rsa, &ec] {
        let r = whoami(
            srv.addr,
            &sign(key, &claims(&srv.resource, "mcp mcp:write")),
        )
        .await;
        assert_eq!(r.status, 200, "{}", r.body);
        assert_eq!(text_of(&r), "alice via app-1 [mcp mcp:write]");
    }
    // An audience list naming this resource is fine too.
    let mut c = claims(&srv.resource, "mcp");
    c["aud"] = json!(["https://other.example", srv.resource]);
    assert_eq!(whoami(srv.addr, &sign(&ec, &c)).await.status, 200);
    // The keys were fetched once and cached.
    assert_eq!(ks.fetches(), 1);
}

#[tokio::test]
async fn claims_signature_and_algorithm_are_checked() {
    let ec = es256("ec-1");
    let ks = KeyServer::default();
    *ks.keys.lock().unwrap() = vec![ec.jwk.clone()];
    let url = ks.start().await;
    let srv = start(|res| {
        JwtValidator::new(ISSUER, res, JwksSource::url(&url).unwrap())
            .leeway(Duration::from_secs(30))
            .refresh_cooldown(Duration::from_secs(3600))
    })
    .await;
    let good = claims(&srv.resource, "mcp");
    let with = |k: &str, v: Value| {
        let mut c = good.clone();
        c[k] = v;
        c
    };

    let r = whoami(srv.addr, &sign(&ec, &with("exp", json!(now() - 120)))).await;
    assert_invalid(&r, "expired");
    // Within the leeway: still accepted.
    let r = whoami(srv.addr, &sign(&ec, &with("exp", json!(now() - 5)))).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let r = whoami(srv.addr, &sign(&ec, &with("nbf", json!(now() + 600)))).await;
    assert_invalid(&r, "not valid yet");
    let r = whoami(
        srv.addr,
        &sign(&ec, &with("aud", json!("http://other/mcp"))),
    )
    .await;
    assert_invalid(&r, "another resource");
    let r = whoami(
        srv.addr,
        &sign(&ec, &with("iss", json!("http://evil.test"))),
    )
    .await;
    assert_invalid(&r, "another issuer");
    let mut no_sub = good.clone();
    no_sub.as_object_mut().unwrap().remove("sub");
    assert_invalid(
        &whoami(srv.addr, &sign(&ec, &no_sub)).await,
        "lacks the sub",
    );

    // Another key under the same kid: the signature does not verify.
    let forged = es256("ec-1");
    assert_invalid(
        &whoami(srv.addr, &sign(&forged, &good)).await,
        "bad signature",
    );
    // A tampered payload.
    let t = sign(&ec, &good);
    let mut parts: Vec<&str> = t.split('.').collect();
    let other = sign(&ec, &with("sub", json!("mallory")));
    parts[1] = other.split('.').nth(1).unwrap();
    assert_invalid(&whoami(srv.addr, &parts.join(".")).await, "bad signature");
    // HMAC and `none` are never accepted.
    let hs = jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &good,
        &EncodingKey::from_secret(b"shared").unwrap(),
    )
    .unwrap();
    assert_invalid(&whoami(srv.addr, &hs).await, "not accepted");
    use base64::Engine as _;
    let b64 = |v: &Value| {
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v.to_string().as_bytes())
    };
    let none = format!("{}.{}.", b64(&json!({"alg": "none"})), b64(&good));
    assert_invalid(&whoami(srv.addr, &none).await, "malformed");
    assert_invalid(&whoami(srv.addr, "not-a-jwt").await, "malformed");

    // Valid, but without the scope every request needs: 403 with the scope.
    let r = whoami(srv.addr, &sign(&ec, &with("scope", json!("other")))).await;
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(r.www.contains("error=\"insufficient_scope\""), "{}", r.www);
    assert!(r.www.contains("scope=\"mcp\""), "{}", r.www);

    // And the good token still works.
    assert_eq!(whoami(srv.addr, &sign(&ec, &good)).await.status, 200);
}

#[tokio::test]
async fn an_unknown_kid_refetches_the_keys_once_per_cooldown() {
    let old = es256("old");
    let ks = KeyServer::default();
    *ks.keys.lock().unwrap() = vec![old.jwk.clone()];
    let url = ks.start().await;
    let srv = start(|res| {
        JwtValidator::new(ISSUER, res, JwksSource::url(&url).unwrap())
            .refresh_cooldown(Duration::from_millis(400))
    })
    .await;
    let c = claims(&srv.resource, "mcp");
    assert_eq!(whoami(srv.addr, &sign(&old, &c)).await.status, 200);
    assert_eq!(ks.fetches(), 1);

    // The issuer rotates: a token signed with the new key makes one refetch.
    tokio::time::sleep(Duration::from_millis(450)).await;
    let new = rs256("new");
    ks.keys.lock().unwrap().push(new.jwk.clone());
    let r = whoami(srv.addr, &sign(&new, &c)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(ks.fetches(), 2);

    // Forged kids within the cooldown: refused without hitting the key server again.
    for i in 0..5 {
        let forged = Key {
            kid: format!("forged-{i}"),
            ..old.clone()
        };
        assert_invalid(
            &whoami(srv.addr, &sign(&forged, &c)).await,
            "no key with kid",
        );
    }
    assert_eq!(ks.fetches(), 2);
    // After it, one more fetch.
    tokio::time::sleep(Duration::from_millis(450)).await;
    let forged = Key {
        kid: "forged-late".into(),
        ..old.clone()
    };
    assert_invalid(
        &whoami(srv.addr, &sign(&forged, &c)).await,
        "no key with kid",
    );
    assert_eq!(ks.fetches(), 3);
}

#[tokio::test]
async fn a_key_server_that_is_down_is_a_500_and_stale_keys_keep_working() {
    let ec = es256("ec");
    let ks = KeyServer::default();
    *ks.keys.lock().unwrap() = vec![ec.jwk.clone()];
    ks.down.store(true, Ordering::SeqCst);
    let url = ks.start().await;
    let srv = start(|res| {
        JwtValidator::new(ISSUER, res, JwksSource::url(&url).unwrap())
            .cache_ttl(Duration::from_millis(300))
            .refresh_cooldown(Duration::from_millis(100))
    })
    .await;
    let t = sign(&ec, &claims(&srv.resource, "mcp"));
    // No keys at all yet: the server cannot decide.
    let r = whoami(srv.addr, &t).await;
    assert_eq!(r.status, 500, "{}", r.body);
    assert!(r.body.contains("503"), "{}", r.body);

    ks.down.store(false, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(whoami(srv.addr, &t).await.status, 200);
    // The key server goes down again and the TTL passes: the known keys still verify.
    ks.down.store(true, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(350)).await;
    let before = ks.fetches();
    assert_eq!(whoami(srv.addr, &t).await.status, 200);
    assert_eq!(ks.fetches(), before + 1, "the TTL made it try");
}

#[tokio::test]
async fn a_fixed_key_set_needs_no_key_server() {
    let ec = es256("ec");
    let other = es256("other");
    let doc = serde_json::to_vec(&JwkSet {
        keys: vec![ec.jwk.clone()],
    })
    .unwrap();
    let srv =
        start(|res| JwtValidator::new(ISSUER, res, JwksSource::from_json(&doc).unwrap())).await;
    let c = claims(&srv.resource, "mcp");
    assert_eq!(whoami(srv.addr, &sign(&ec, &c)).await.status, 200);
    assert_invalid(
        &whoami(srv.addr, &sign(&other, &c)).await,
        "no key with kid",
    );
    // Without a kid, the only key that fits the algorithm is used.
    let bare = jsonwebtoken::encode(&Header::new(Algorithm::ES256), &c, &ec.enc).unwrap();
    assert_eq!(whoami(srv.addr, &bare).await.status, 200);
    assert!(JwksSource::from_json(b"[]").is_err());
    assert!(JwksSource::url("https://issuer.test/jwks").is_err());
}
