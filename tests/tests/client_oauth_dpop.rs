//! The OAuth client's signatures end to end on loopback (feature `oauth-signing`, on for
//! the tests through the dev-dependencies): an in-test authorization server and a
//! resource server in front of our MCP server that verify every DPoP proof (RFC 9449:
//! signature against the embedded key, `typ`, `htm`, `htu`, `iat`, single-use `jti`, `ath`,
//! the token's key thumbprint, nonces) and `private_key_jwt` assertions (RFC 7523: the
//! signature against the public key derived here, `iss` = `sub` = client id, `aud` =
//! issuer, `exp`, single-use `jti`) with `jsonwebtoken`, independently of the client.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{SystemTime, UNIX_EPOCH};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::jwk::{Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use mcp::CancellationToken;
use mcp::client::Client;
use mcp::client::oauth::{ClientSecret, OAuth, SigningKey};
use mcp::client::{ClientError, ConnectMode};
use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use mcp::transport::http::axum::{self, Router, extract::State, middleware, routing};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use ProtocolVersion as V;

#[path = "support/oauth_form.rs"]
mod oauth_form;
use oauth_form::{decode_form, json_response};

const CLIENT_ID: &str = "machine-1";
const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

#[derive(serde::Deserialize)]
struct NoArgs {}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64
}

/// A P-256 key made here: its PKCS#8 DER (for the client) and the public half as
/// `jsonwebtoken` sees it (for the verifiers), derived with `p256`, not by the client.
struct TestKey {
    der: Vec<u8>,
    x: String,
    y: String,
}

impl TestKey {
    fn new() -> TestKey {
        use p256::elliptic_curve::Generate;
        use p256::elliptic_curve::sec1::ToSec1Point;
        use p256::pkcs8::EncodePrivateKey;
        let secret = p256::SecretKey::generate();
        let der = secret.to_pkcs8_der().unwrap().as_bytes().to_vec();
        let point = secret.public_key().to_sec1_point(false);
        TestKey {
            der,
            x: URL_SAFE_NO_PAD.encode(point.x().unwrap()),
            y: URL_SAFE_NO_PAD.encode(point.y().unwrap()),
        }
    }

    fn client_key(&self) -> SigningKey {
        SigningKey::es256_pkcs8_der(&self.der).unwrap()
    }

    /// The RFC 7638 thumbprint, computed from the coordinates.
    fn thumbprint(&self) -> String {
        let canonical = format!(
            r#"{{"crv":"P-256","kty":"EC","x":"{}","y":"{}"}}"#,
            self.x, self.y
        );
        URL_SAFE_NO_PAD.encode(Sha256::digest(canonical.as_bytes()))
    }

    /// A DPoP proof with these claims, signed with this key (for the refusal tests).
    fn proof(&self, claims: &Value) -> String {
        let enc = EncodingKey::from_ec_der(&self.der);
        let mut h = Header::new(Algorithm::ES256);
        h.typ = Some("dpop+jwt".into());
        h.jwk = Some(Jwk::from_encoding_key(&enc, Algorithm::ES256).unwrap());
        jsonwebtoken::encode(&h, claims, &enc).unwrap()
    }
}

/// Verifies a DPoP proof for `method url` (RFC 9449 §4.3); `token` for resource requests.
/// Returns the proof's key thumbprint and claims.
fn verify_proof(
    proof: Option<&str>,
    method: &str,
    url: &str,
    token: Option<&str>,
    seen: &mut HashSet<String>,
) -> Result<(String, Value), String> {
    let proof = proof.ok_or("no DPoP header")?;
    let header = jsonwebtoken::decode_header(proof).map_err(|e| format!("header: {e}"))?;
    if header.typ.as_deref() != Some("dpop+jwt") {
        return Err("typ is not dpop+jwt".into());
    }
    if header.alg != Algorithm::ES256 {
        return Err("alg is not ES256".into());
    }
    let jwk = header.jwk.ok_or("no jwk in the header")?;
    let key = DecodingKey::from_jwk(&jwk).map_err(|e| format!("jwk: {e}"))?;
    let mut v = Validation::new(Algorithm::ES256);
    v.required_spec_claims.clear();
    v.validate_exp = false;
    v.validate_aud = false;
    let claims = jsonwebtoken::decode::<Value>(proof, &key, &v)
        .map_err(|e| format!("signature: {e}"))?
        .claims;
    if claims["htm"] != method {
        return Err(format!("htm {} is not {method}", claims["htm"]));
    }
    if claims["htu"] != url {
        return Err(format!("htu {} is not {url}", claims["htu"]));
    }
    let iat = claims["iat"].as_i64().ok_or("no iat")?;
    if (now() - iat).abs() > 60 {
        return Err("iat is not now".into());
    }
    let jti = claims["jti"].as_str().ok_or("no jti")?;
    if !seen.insert(jti.to_owned()) {
        return Err("replayed jti".into());
    }
    match token {
        Some(t) => {
            let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(t.as_bytes()));
            if claims["ath"] != ath.as_str() {
                return Err("ath is missing or wrong".into());
            }
        }
        None if claims.get("ath").is_some() => return Err("ath on a token request".into()),
        None => {}
    }
    let jkt = jwk.thumbprint(ThumbprintHash::SHA256).unwrap();
    Ok((jkt, claims))
}

// ---------------------------------------------------------------------------------------
// The authorization server
// ---------------------------------------------------------------------------------------

#[derive(Clone, Default)]
struct AsConfig {
    /// Lists `dpop_signing_alg_values_supported: ["ES256"]` and wants proofs.
    dpop: bool,
    /// Answers `token_type: DPoP` even without a proof.
    always_dpop_type: bool,
    /// Every token request needs this nonce (`use_dpop_nonce` otherwise).
    nonce: Option<&'static str>,
    /// `private_key_jwt` with this public key (else `client_secret_basic`-free: public
    /// client credentials).
    client_key: Option<(String, String)>,
    /// `token_endpoint_auth_signing_alg_values_supported`.
    assertion_algs: Option<Vec<&'static str>>,
}

#[derive(Default)]
struct AsLog {
    /// One line per token request: `ok`, `nonce-challenge` or the refusal.
    outcomes: Vec<String>,
    forms: Vec<HashMap<String, String>>,
    proofs: Vec<Option<Value>>,
    assertions: Vec<Value>,
    jtis: HashSet<String>,
    assertion_jtis: HashSet<String>,
    next: u32,
}

/// What both servers share: the tokens issued (token -> the key thumbprint bound to it).
#[derive(Default)]
struct Issued {
    tokens: HashMap<String, Option<String>>,
}

#[derive(Clone)]
struct As {
    url: String,
    config: AsConfig,
    log: Arc<Mutex<AsLog>>,
    issued: Arc<Mutex<Issued>>,
}

impl As {
    async fn start(config: AsConfig) -> As {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let this = As {
            url,
            config,
            log: Arc::default(),
            issued: Arc::default(),
        };
        let (a, b) = (this.clone(), this.clone());
        let app = Router::new()
            .route(
                "/.well-known/oauth-authorization-server",
                routing::get(move || {
                    let a = a.clone();
                    async move { a.metadata() }
                }),
            )
            .route(
                "/token",
                routing::post(move |headers: axum::http::HeaderMap, body: String| {
                    let b = b.clone();
                    async move { b.token(&headers, &body) }
                }),
            );
        tokio::spawn(async move { axum::serve(listener, app).await });
        this
    }

    fn metadata(&self) -> axum::response::Response {
        let u = &self.url;
        let mut doc = json!({
            "issuer": u,
            "token_endpoint": format!("{u}/token"),
            "grant_types_supported": ["client_credentials"],
            "token_endpoint_auth_methods_supported":
                if self.config.client_key.is_some() { json!(["private_key_jwt"]) } else { json!(["none"]) },
        });
        if self.config.dpop {
            doc["dpop_signing_alg_values_supported"] = json!(["ES256"]);
        }
        if let Some(algs) = &self.config.assertion_algs {
            doc["token_endpoint_auth_signing_alg_values_supported"] = json!(algs);
        }
        json_response(200, doc)
    }

    fn token(&self, headers: &axum::http::HeaderMap, body: &str) -> axum::response::Response {
        let f = decode_form(body);
        let mut log = self.log.lock().unwrap();
        log.forms.push(f.clone());
        let refuse = |log: &mut AsLog, why: String| {
            log.outcomes.push(why.clone());
            json_response(
                400,
                json!({"error": "invalid_request", "error_description": why}),
            )
        };
        if let Some((x, y)) = &self.config.client_key {
            match self.check_assertion(&f, x, y, &mut log) {
                Ok(claims) => log.assertions.push(claims),
                Err(why) => return refuse(&mut log, why),
            }
        }
        let proof = headers.get("dpop").and_then(|v| v.to_str().ok());
        let mut jkt = None;
        if self.config.dpop {
            let endpoint = format!("{}/token", self.url);
            let mut jtis = std::mem::take(&mut log.jtis);
            let checked = verify_proof(proof, "POST", &endpoint, None, &mut jtis);
            log.jtis = jtis;
            match checked {
                Ok((thumb, claims)) => {
                    log.proofs.push(Some(claims.clone()));
                    if let Some(n) = self.config.nonce
                        && claims["nonce"] != n
                    {
                        log.outcomes.push("nonce-challenge".into());
                        return axum::response::Response::builder()
                            .status(400)
                            .header("dpop-nonce", n)
                            .header("content-type", "application/json")
                            .body(axum::body::Body::from(
                                json!({"error": "use_dpop_nonce"}).to_string(),
                            ))
                            .unwrap();
                    }
                    jkt = Some(thumb);
                }
                Err(why) => {
                    log.proofs.push(None);
                    return refuse(&mut log, format!("DPoP proof: {why}"));
                }
            }
        } else {
            log.proofs.push(proof.map(|_| json!("unexpected")));
        }
        log.outcomes.push("ok".into());
        log.next += 1;
        let token = format!("at-{}", log.next);
        let token_type = if jkt.is_some() || self.config.always_dpop_type {
            "DPoP"
        } else {
            "Bearer"
        };
        self.issued
            .lock()
            .unwrap()
            .tokens
            .insert(token.clone(), jkt);
        json_response(
            200,
            json!({"access_token": token, "token_type": token_type, "expires_in": 3600}),
        )
    }

    /// RFC 7523 §3 against the public key (x, y).
    fn check_assertion(
        &self,
        f: &HashMap<String, String>,
        x: &str,
        y: &str,
        log: &mut AsLog,
    ) -> Result<Value, String> {
        if f.get("client_assertion_type").map(String::as_str) != Some(ASSERTION_TYPE) {
            return Err("no client_assertion_type".into());
        }
        let jwt = f.get("client_assertion").ok_or("no client_assertion")?;
        let key = DecodingKey::from_ec_components(x, y).unwrap();
        let mut v = Validation::new(Algorithm::ES256);
        v.set_audience(&[&self.url]);
        v.set_issuer(&[CLIENT_ID]);
        v.sub = Some(CLIENT_ID.into());
        v.set_required_spec_claims(&["exp", "iss", "sub", "aud"]);
        let claims = jsonwebtoken::decode::<Value>(jwt, &key, &v)
            .map_err(|e| format!("assertion: {e}"))?
            .claims;
        let jti = claims["jti"].as_str().ok_or("assertion without jti")?;
        if !log.assertion_jtis.insert(jti.to_owned()) {
            return Err("assertion jti replayed".into());
        }
        if f.get("client_id").map(String::as_str) != Some(CLIENT_ID) {
            return Err("client_id does not match the assertion".into());
        }
        Ok(claims)
    }
}

// ---------------------------------------------------------------------------------------
// The resource server: a DPoP check in front of our MCP server
// ---------------------------------------------------------------------------------------

#[derive(Default)]
struct RsLog {
    /// One line per request: `ok GET`, `nonce-challenge`, `refused: ...`, `no-token`.
    outcomes: Vec<String>,
    schemes: Vec<String>,
    jtis: HashSet<String>,
    /// The last accepted (token, proof).
    last: Option<(String, String)>,
    /// The nonce required now (rotated after every success when `rotate`).
    nonce: Option<String>,
    rotations: u32,
}

#[derive(Clone)]
struct Rs {
    url: String,
    log: Arc<Mutex<RsLog>>,
    issued: Arc<Mutex<Issued>>,
    rotate: bool,
}

struct Running {
    rs: Rs,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

fn challenge(status: u16, value: String, nonce: Option<&str>) -> axum::response::Response {
    let mut b = axum::response::Response::builder()
        .status(status)
        .header("www-authenticate", value);
    if let Some(n) = nonce {
        b = b.header("dpop-nonce", n);
    }
    b.body(axum::body::Body::empty()).unwrap()
}

async fn dpop_gate(
    State(rs): State<Rs>,
    req: axum::extract::Request,
    next: middleware::Next,
) -> axum::response::Response {
    let metadata = format!(
        "{}/.well-known/oauth-protected-resource/mcp",
        rs.url.trim_end_matches("/mcp")
    );
    let auth = req
        .headers()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let Some(auth) = auth else {
        rs.log.lock().unwrap().outcomes.push("no-token".into());
        return challenge(
            401,
            format!(r#"DPoP algs="ES256", resource_metadata="{metadata}""#),
            None,
        );
    };
    let (scheme, token) = auth.split_once(' ').unwrap_or((&auth, ""));
    let proof = req
        .headers()
        .get("dpop")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let method = req.method().as_str().to_owned();
    let bound = rs.issued.lock().unwrap().tokens.get(token).cloned();
    {
        let mut log = rs.log.lock().unwrap();
        log.schemes.push(scheme.to_owned());
        let mut jtis = std::mem::take(&mut log.jtis);
        let checked = verify_proof(proof.as_deref(), &method, &rs.url, Some(token), &mut jtis);
        log.jtis = jtis;
        let refused = match (&checked, &bound) {
            _ if scheme != "DPoP" => Some(format!("scheme {scheme}")),
            (_, None) => Some("unknown token".to_owned()),
            (Err(why), _) => Some(why.clone()),
            (Ok((jkt, _)), Some(want)) if Some(jkt) != want.as_ref() => {
                Some("the proof key is not the token's".to_owned())
            }
            _ => None,
        };
        if let Some(why) = refused {
            log.outcomes.push(format!("refused: {why}"));
            return challenge(401, r#"DPoP error="invalid_dpop_proof""#.into(), None);
        }
        let claims = checked.unwrap().1;
        if let Some(n) = log.nonce.clone()
            && claims["nonce"] != n.as_str()
        {
            log.outcomes.push("nonce-challenge".into());
            return challenge(
                401,
                format!(r#"DPoP error="use_dpop_nonce", resource_metadata="{metadata}""#),
                Some(&n),
            );
        }
        log.outcomes.push(format!("ok {method}"));
        log.last = Some((token.to_owned(), proof.unwrap_or_default()));
    }
    let mut resp = next.run(req).await;
    let mut log = rs.log.lock().unwrap();
    if rs.rotate && log.nonce.is_some() {
        log.rotations += 1;
        let fresh = format!("rs-nonce-{}", log.rotations);
        resp.headers_mut()
            .insert("dpop-nonce", fresh.parse().unwrap());
        log.nonce = Some(fresh);
    }
    resp
}

/// Our MCP server behind the DPoP gate, for tokens `auth` issued; `nonce`: the first
/// nonce required (`rotate`: a new one on every answer).
async fn resource_server(auth: &As, nonce: Option<&str>, rotate: bool) -> Running {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let origin = format!("http://{}", listener.local_addr().unwrap());
    let rs = Rs {
        url: format!("{origin}/mcp"),
        log: Arc::new(Mutex::new(RsLog {
            nonce: nonce.map(str::to_owned),
            ..RsLog::default()
        })),
        issued: auth.issued.clone(),
        rotate,
    };
    let server = Server::builder("dpop-test", "1.0.0")
        .tool(
            Tool::new("whoami").with_input_schema(json!({"type": "object", "properties": {}})),
            |_ctx: Context, _: NoArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text("machine")]))
            },
        )
        .without_tracing()
        .build();
    let (mcp, _handle) = server.http_router(HttpOptions::default());
    let prm = json!({"resource": rs.url, "authorization_servers": [auth.url]});
    let app = Router::new()
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            routing::get(move || {
                let prm = prm.clone();
                async move { json_response(200, prm) }
            }),
        )
        .merge(mcp.layer(middleware::from_fn_with_state(rs.clone(), dpop_gate)));
    let stop = CancellationToken::new();
    let st = stop.clone();
    tokio::spawn(async move {
        axum::serve(listener, app)
            .with_graceful_shutdown(st.cancelled_owned())
            .await
    });
    Running { rs, stop }
}

async fn connect(url: &str, mode: ConnectMode, o: &OAuth) -> Result<Client, ClientError> {
    Client::builder()
        .mode(mode)
        .token_provider(o.clone())
        .connect_http(url)
        .await
}

fn machine(url: &str) -> mcp::client::oauth::OAuthBuilder {
    OAuth::builder(url).client_credentials_grant(ClientSecret::new(CLIENT_ID, None))
}

/// POSTs an `initialize` with these credentials straight to the resource server.
async fn raw_post(url: &str, authorization: &str, proof: &str) -> u16 {
    use http_body_util::Full;
    use hyper::body::Bytes;
    use mcp::client::hyper_util;
    let client = hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
        .build_http::<Full<Bytes>>();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"}}});
    let req = hyper::Request::post(url)
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", authorization)
        .header("dpop", proof)
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    client.request(req).await.unwrap().status().as_u16()
}

// ---------------------------------------------------------------------------------------
// Tests
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn a_dpop_bound_token_goes_out_with_a_fresh_proof_on_every_request() {
    let auth = As::start(AsConfig {
        dpop: true,
        ..AsConfig::default()
    })
    .await;
    let srv = resource_server(&auth, None, false).await;
    let key = TestKey::new();
    let o = machine(&srv.rs.url).dpop(key.client_key()).build().unwrap();
    // 2025-11-25: POSTs, the GET stream and the DELETE at the end, each proved.
    let client = connect(&srv.rs.url, ConnectMode::Legacy(V::V2025_11_25), &o)
        .await
        .unwrap();
    client.list_tools(None).await.unwrap();
    client.call_tool("whoami", json!({})).await.unwrap();
    client.close().await.unwrap();

    let tokens = o.tokens().unwrap();
    assert!(tokens.dpop, "the token is DPoP-bound");
    let issued = auth.issued.lock().unwrap().tokens[&tokens.access_token].clone();
    assert_eq!(issued, Some(key.thumbprint()), "bound to the client's key");
    assert_eq!(auth.log.lock().unwrap().outcomes, ["ok"]);

    let log = srv.rs.log.lock().unwrap();
    let refused: Vec<_> = log
        .outcomes
        .iter()
        .filter(|o| o.starts_with("refused"))
        .collect();
    assert!(refused.is_empty(), "{:?}", log.outcomes);
    let ok = log.outcomes.iter().filter(|o| o.starts_with("ok")).count();
    assert!(
        ok >= 4,
        "initialize, initialized, list, call: {:?}",
        log.outcomes
    );
    assert!(log.schemes.iter().all(|s| s == "DPoP"), "{:?}", log.schemes);
    assert_eq!(
        log.jtis.len(),
        log.schemes.len(),
        "every proof has its own jti"
    );
}

#[tokio::test]
async fn the_verifier_refuses_a_replayed_jti_a_wrong_htu_and_a_missing_ath() {
    let auth = As::start(AsConfig {
        dpop: true,
        ..AsConfig::default()
    })
    .await;
    let srv = resource_server(&auth, None, false).await;
    let key = TestKey::new();
    let o = machine(&srv.rs.url).dpop(key.client_key()).build().unwrap();
    let client = connect(&srv.rs.url, ConnectMode::Modern(V::V2026_07_28), &o)
        .await
        .unwrap();
    client.list_tools(None).await.unwrap();
    let (token, proof) = srv.rs.log.lock().unwrap().last.clone().unwrap();
    let authz = format!("DPoP {token}");
    let ath = URL_SAFE_NO_PAD.encode(Sha256::digest(token.as_bytes()));
    let url = srv.rs.url.clone();
    let good = |htu: &str, ath: Option<&str>| {
        let mut c =
            json!({"jti": format!("t-{}", rand_id()), "htm": "POST", "htu": htu, "iat": now()});
        if let Some(a) = ath {
            c["ath"] = json!(a);
        }
        key.proof(&c)
    };

    // A proof made here the way the client makes them is accepted (the checks below
    // refuse for their reason only).
    assert_eq!(raw_post(&url, &authz, &good(&url, Some(&ath))).await, 200);
    assert_eq!(raw_post(&url, &authz, &proof).await, 401, "replayed jti");
    let wrong = url.replace("/mcp", "/other");
    assert_eq!(raw_post(&url, &authz, &good(&wrong, Some(&ath))).await, 401);
    assert_eq!(raw_post(&url, &authz, &good(&url, None)).await, 401);
    // Another key's proof for the bound token.
    let other = TestKey::new();
    let c = json!({"jti": rand_id(), "htm": "POST", "htu": url, "iat": now(), "ath": ath});
    assert_eq!(raw_post(&url, &authz, &other.proof(&c)).await, 401);

    let log = srv.rs.log.lock().unwrap();
    let refused: Vec<&str> = log
        .outcomes
        .iter()
        .filter_map(|o| o.strip_prefix("refused: "))
        .collect();
    assert_eq!(refused.len(), 4, "{:?}", log.outcomes);
    assert_eq!(refused[0], "replayed jti");
    assert!(refused[1].starts_with("htu"), "{}", refused[1]);
    assert_eq!(refused[2], "ath is missing or wrong");
    assert_eq!(refused[3], "the proof key is not the token's");
}

fn rand_id() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!("{}-{}", now(), N.fetch_add(1, Ordering::Relaxed))
}

#[tokio::test]
async fn nonces_of_both_servers_are_answered_once_and_followed_when_they_change() {
    let auth = As::start(AsConfig {
        dpop: true,
        nonce: Some("as-nonce-1"),
        ..AsConfig::default()
    })
    .await;
    let srv = resource_server(&auth, Some("rs-nonce-0"), true).await;
    let o = machine(&srv.rs.url)
        .dpop(SigningKey::generate_es256())
        .build()
        .unwrap();
    let client = connect(&srv.rs.url, ConnectMode::Modern(V::V2026_07_28), &o)
        .await
        .unwrap();
    client.list_tools(None).await.unwrap();
    client.call_tool("whoami", json!({})).await.unwrap();
    client.list_tools(None).await.unwrap();

    let as_log = auth.log.lock().unwrap();
    assert_eq!(as_log.outcomes, ["nonce-challenge", "ok"]);
    assert_eq!(as_log.proofs[0].as_ref().unwrap().get("nonce"), None);
    assert_eq!(as_log.proofs[1].as_ref().unwrap()["nonce"], "as-nonce-1");

    let log = srv.rs.log.lock().unwrap();
    let after_token: Vec<&str> = log
        .outcomes
        .iter()
        .map(String::as_str)
        .filter(|o| *o != "no-token")
        .collect();
    // One challenge for the first nonce; every rotated nonce (sent on the answers) is
    // used by the next request without another challenge.
    assert_eq!(after_token[0], "nonce-challenge", "{:?}", log.outcomes);
    assert!(
        after_token[1..].iter().all(|o| o.starts_with("ok")),
        "{:?}",
        log.outcomes
    );
    assert!(log.rotations >= 3, "{}", log.rotations);
}

#[tokio::test]
async fn a_private_key_jwt_assertion_verifies_against_the_public_key_and_is_never_reused() {
    let key = TestKey::new();
    let auth = As::start(AsConfig {
        client_key: Some((key.x.clone(), key.y.clone())),
        assertion_algs: Some(vec!["ES256"]),
        ..AsConfig::default()
    })
    .await;
    // The token request alone (the gated resource server takes DPoP tokens only).
    let url = format!("{}/mcp", auth.url);
    let o = machine(&url)
        .private_key_jwt(key.client_key())
        .build()
        .unwrap();
    // `authorize` runs the flow without a server challenge; with no resource metadata
    // the origin's own metadata names the token endpoint (2025-03-26 discovery).
    o.authorize().await.unwrap();
    o.authorize().await.unwrap();
    let log = auth.log.lock().unwrap();
    assert_eq!(log.outcomes, ["ok", "ok"]);
    for (f, claims) in log.forms.iter().zip(&log.assertions) {
        assert_eq!(f["grant_type"], "client_credentials");
        assert_eq!(claims["iss"], CLIENT_ID);
        assert_eq!(claims["sub"], CLIENT_ID);
        assert_eq!(claims["aud"], auth.url.as_str());
        let (iat, exp) = (
            claims["iat"].as_i64().unwrap(),
            claims["exp"].as_i64().unwrap(),
        );
        assert!((now() - iat).abs() < 60 && exp > now() && exp - iat <= 300);
        assert!(f.get("client_secret").is_none());
    }
    assert_ne!(log.assertions[0]["jti"], log.assertions[1]["jti"]);
    assert!(!o.tokens().unwrap().dpop, "a bearer token without DPoP");
}

#[tokio::test]
async fn an_assertion_algorithm_the_server_does_not_accept_is_refused_before_sending() {
    let key = TestKey::new();
    let auth = As::start(AsConfig {
        client_key: Some((key.x.clone(), key.y.clone())),
        assertion_algs: Some(vec!["RS256"]),
        ..AsConfig::default()
    })
    .await;
    let o = machine(&format!("{}/mcp", auth.url))
        .private_key_jwt(key.client_key())
        .build()
        .unwrap();
    let err = o.authorize().await.unwrap_err().to_string();
    assert!(err.contains("not ES256"), "{err}");
    assert!(
        auth.log.lock().unwrap().forms.is_empty(),
        "nothing was sent"
    );
}

#[tokio::test]
async fn without_dpop_in_the_metadata_no_proof_is_sent_and_a_dpop_token_is_refused() {
    let auth = As::start(AsConfig {
        always_dpop_type: true,
        ..AsConfig::default()
    })
    .await;
    let o = machine(&format!("{}/mcp", auth.url))
        .dpop(SigningKey::generate_es256())
        .build()
        .unwrap();
    let err = o.authorize().await.unwrap_err().to_string();
    assert!(err.contains(r#"of type "DPoP", not Bearer"#), "{err}");
    assert_eq!(
        auth.log.lock().unwrap().proofs,
        [None],
        "no DPoP header sent"
    );
}
