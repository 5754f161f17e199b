//! `mcp gateway --config FILE`, the built binary, with HTTP upstreams behind OAuth: a
//! loopback authorization server (client credentials, RFC 8693 token exchange) and a
//! protected MCP server that says which token reached it. An upstream reached with the
//! file's client credentials; one reached with each caller's exchanged token (two JWT
//! callers, a token each, exchanged once and reused, the callers' own tokens never seen
//! upstream, a caller without a token refused naming the upstream); pass-through only
//! when configured and the token's `aud` names the audience. Every process has a timeout,
//! every server is stopped by its test.

mod support;

use std::sync::{Arc, Mutex};

use support::{ConfigFile, gateway_http, issuer, mcp};

/// The fields of an `application/x-www-form-urlencoded` body.
fn form(body: &str) -> std::collections::HashMap<String, String> {
    let decode = |s: &str| {
        let b = s.replace('+', " ").into_bytes();
        let (mut out, mut i) = (Vec::new(), 0);
        while i < b.len() {
            let hex = (b[i] == b'%')
                .then(|| b.get(i + 1..i + 3))
                .flatten()
                .and_then(|h| u8::from_str_radix(std::str::from_utf8(h).ok()?, 16).ok());
            match hex {
                Some(x) => {
                    out.push(x);
                    i += 3;
                }
                None => {
                    out.push(b[i]);
                    i += 1;
                }
            }
        }
        String::from_utf8(out).unwrap()
    };
    (body.split('&'))
        .filter_map(|kv| kv.split_once('='))
        .map(|(k, v)| (decode(k), decode(v)))
        .collect()
}

/// A small authorization server on loopback: its metadata, and a token endpoint for
/// `gateway:s3cret` (HTTP Basic) only, granting `client_credentials` (tokens `at-N`) and
/// the RFC 8693 exchange of an access token (tokens `xt-N`, each exchange's form kept in
/// `exchanges`); the tokens it issued.
async fn authorization_server(
    issued: Arc<Mutex<Vec<String>>>,
    exchanges: Arc<Mutex<Vec<std::collections::HashMap<String, String>>>>,
) -> String {
    use mcp_runtime::transport::http::axum::{self, Router, routing};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let u = url.clone();
    let json = |status: u16, v: serde_json::Value| {
        axum::response::Response::builder()
            .status(status)
            .header("content-type", "application/json")
            .body(axum::body::Body::from(v.to_string()))
            .unwrap()
    };
    let app = Router::new()
        .route(
            "/.well-known/oauth-authorization-server",
            routing::get(move || {
                let u = u.clone();
                async move {
                    json(200, serde_json::json!({
                        "issuer": u, "authorization_endpoint": format!("{u}/authorize"),
                        "token_endpoint": format!("{u}/token"), "response_types_supported": ["code"],
                        "grant_types_supported": ["client_credentials",
                            "urn:ietf:params:oauth:grant-type:token-exchange"],
                        "code_challenge_methods_supported": ["S256"],
                        "token_endpoint_auth_methods_supported": ["client_secret_basic"]
                    }))
                }
            }),
        )
        .route(
            "/token",
            routing::post(move |headers: axum::http::HeaderMap, body: String| {
                let (issued, exchanges) = (issued.clone(), exchanges.clone());
                async move {
                    // base64("gateway:s3cret")
                    let basic = headers.get("authorization").and_then(|v| v.to_str().ok());
                    if basic != Some("Basic Z2F0ZXdheTpzM2NyZXQ=") {
                        return json(401, serde_json::json!({"error": "invalid_client"}));
                    }
                    let f = form(&body);
                    let kind = match f.get("grant_type").map(String::as_str) {
                        Some("client_credentials") => "at",
                        Some("urn:ietf:params:oauth:grant-type:token-exchange")
                            if f.get("subject_token_type").map(String::as_str)
                                == Some("urn:ietf:params:oauth:token-type:access_token") =>
                        {
                            exchanges.lock().unwrap().push(f.clone());
                            "xt"
                        }
                        _ => return json(400, serde_json::json!({"error": "unsupported_grant_type"})),
                    };
                    let mut issued = issued.lock().unwrap();
                    let token = format!("{kind}-{}", issued.len() + 1);
                    issued.push(token.clone());
                    json(200, serde_json::json!({
                        "access_token": token, "token_type": "Bearer", "expires_in": 3600
                    }))
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    url
}

/// An MCP server on loopback accepting only the tokens `issued` (every token it was shown
/// kept in `seen`); its `whoami` tool says the `Authorization` header it was reached with.
async fn protected_server(
    issued: Arc<Mutex<Vec<String>>>,
    issuer: &str,
    seen: Arc<Mutex<Vec<String>>>,
) -> (String, mcp_runtime::CancellationToken) {
    use mcp_core::types::{CallToolResult, ContentBlock, Tool};
    use mcp_runtime::transport::http::validator_fn;
    use mcp_runtime::transport::http::{AuthError, AuthOptions, HttpOptions, HttpRequest};
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let validator = validator_fn(move |token: String, _: HttpRequest| {
        let known = issued.lock().unwrap().contains(&token);
        seen.lock().unwrap().push(token);
        async move {
            match known {
                true => Ok(mcp_runtime::Principal::new("gateway")),
                false => Err(AuthError::InvalidToken("unknown token".into())),
            }
        }
    });
    let auth = AuthOptions::new(url.clone(), validator).authorization_server(issuer);
    let server = mcp_runtime::Server::builder("protected", "1.0.0")
        .tool(
            Tool::new("whoami"),
            |ctx: mcp_runtime::Context, _: serde_json::Value| async move {
                let header = (ctx.extensions().get::<HttpRequest>())
                    .and_then(|r| r.headers.get("authorization"))
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                Ok(CallToolResult::success(vec![ContentBlock::text(header)]))
            },
        )
        .without_tracing()
        .build();
    let stop = mcp_runtime::CancellationToken::new();
    let st = stop.clone();
    let opts = HttpOptions {
        auth: Some(auth),
        ..HttpOptions::default()
    };
    tokio::spawn(async move { server.serve_http_on(listener, opts, st).await });
    (url, stop)
}

#[tokio::test]
async fn an_upstream_behind_oauth_is_reached_with_the_files_client_credentials() {
    let issued = Arc::new(Mutex::new(Vec::new()));
    let issuer = authorization_server(issued.clone(), Arc::default()).await;
    let (url, _stop) = protected_server(issued.clone(), &issuer, Arc::default()).await;
    let file = |secret: &str| {
        serde_json::json!({
            "mcpServers": { "prot": { "url": url } },
            "gateway": { "servers": { "prot": {
                "oauth": { "clientId": "gateway", "clientSecret": secret }
            } } }
        })
        .to_string()
    };
    let config = ConfigFile::new(&file("s3cret"));
    let gw = gateway_http(&config, &[]).await;
    // A bearer token of the caller's own (the gateway checks none here): it must not cross.
    let caller = "caller-secret-token";
    for rev in ["2025-11-25", "2026-07-28"] {
        let r = mcp(&[
            "call",
            "--protocol",
            rev,
            "--token",
            caller,
            &gw.url("/mcp"),
            "prot_whoami",
        ])
        .await
        .expect(0);
        // The gateway's own token from the authorization server, not the caller's.
        assert!(r.stdout.contains("Bearer at-"), "{rev}: {r:#?}");
        assert!(!r.stdout.contains(caller), "{rev}: {r:#?}");
    }
    // A wrong secret: the server is down, named, and the gateway serves on.
    let config = ConfigFile::new(&file("wrong"));
    let r = mcp(&["list", &config.stdio_target(), "tools"]).await;
    assert!(r.stderr.contains("`prot` is down"), "{r:#?}");
}

/// `mcp call [--token TOKEN] --protocol REV URL prot_whoami`.
async fn whoami(url: &str, token: Option<&str>, rev: &str) -> support::Run {
    let mut args = vec!["call", "--protocol", rev];
    if let Some(t) = token {
        args.extend(["--token", t]);
    }
    args.extend([url, "prot_whoami"]);
    mcp(&args).await
}

#[tokio::test]
async fn each_caller_reaches_the_upstream_with_its_exchanged_token_never_its_own() {
    let issued = Arc::new(Mutex::new(Vec::new()));
    let exchanges = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let as_url = authorization_server(issued.clone(), exchanges.clone()).await;
    let (url, stop) = protected_server(issued.clone(), &as_url, seen.clone()).await;
    let iss = issuer();
    let mut config = ConfigFile::new("{}");
    let jwks = config.dir.join("jwks.json");
    std::fs::write(&jwks, iss.jwks.to_string()).unwrap();
    config.rewrite(
        &serde_json::json!({
            "mcpServers": { "prot": { "url": url } },
            "gateway": {
                "auth": { "resource": "http://gateway.test/mcp", "issuer": "http://issuer.test",
                          "jwks": jwks, "anonymous": true },
                "servers": { "prot": { "oauth": {
                    "clientId": "gateway", "clientSecret": "${GW_SECRET:-s3cret}",
                    "tokenExchange": { "scope": "tools" }
                } } }
            }
        })
        .to_string(),
    );
    let gw = gateway_http(&config, &[]).await;
    let gw_url = gw.url("/mcp");
    let (alice, bob) = (iss.token("alice", "user"), iss.token("bob", "user"));
    // Each caller twice, in both eras (a session each time in 2025-11-25, none in 2026).
    let mut got = Vec::new();
    for rev in ["2025-11-25", "2026-07-28"] {
        for caller in [&alice, &bob] {
            let r = whoami(&gw_url, Some(caller), rev).await.expect(0);
            let token = (r.stdout.split_whitespace())
                .find(|w| w.starts_with("xt-"))
                .unwrap_or_else(|| panic!("{rev}: no exchanged token: {r:#?}"))
                .to_owned();
            assert!(!r.stdout.contains(caller.as_str()), "{rev}: {r:#?}");
            got.push(token);
        }
    }
    // Alice's and Bob's tokens differ; each is exchanged once, then reused.
    assert_ne!(got[0], got[1], "{got:?}");
    assert_eq!((&got[0], &got[1]), (&got[2], &got[3]), "{got:?}");
    let exchanges = exchanges.lock().unwrap().clone();
    let subjects: Vec<&str> = (exchanges.iter())
        .map(|f| f["subject_token"].as_str())
        .collect();
    assert_eq!(subjects, [alice.as_str(), bob.as_str()]);
    for f in &exchanges {
        assert_eq!(f["resource"], url, "{f:?}");
        assert_eq!(f["audience"], url, "{f:?}");
        assert_eq!(f["scope"], "tools", "{f:?}");
        assert_eq!(
            f["requested_token_type"],
            "urn:ietf:params:oauth:token-type:access_token"
        );
    }

    // A caller without a token is refused for this upstream, named; nothing goes out.
    let shown = seen.lock().unwrap().len();
    for rev in ["2025-11-25", "2026-07-28"] {
        let r = whoami(&gw_url, None, rev).await;
        assert_ne!(r.code, 0, "{rev}: {r:#?}");
        assert!(
            r.stderr.contains(
                "upstream `prot` is reached with the caller's identity: this call carries no bearer token"
            ),
            "{rev}: {r:#?}"
        );
    }
    let seen = seen.lock().unwrap().clone();
    assert_eq!(seen.len(), shown, "{seen:?}");
    // The upstream saw the gateway's own token (its lists) and the exchanged ones, never a
    // caller's.
    assert!(seen.iter().any(|t| t.starts_with("at-")), "{seen:?}");
    assert!(seen.iter().all(|t| *t != alice && *t != bob), "{seen:?}");
    assert!(
        seen.iter()
            .all(|t| t.starts_with("at-") || t.starts_with("xt-")),
        "{seen:?}"
    );
    stop.cancel();
}

#[tokio::test]
async fn a_callers_token_passes_through_only_when_configured_and_for_the_upstream() {
    let issued = Arc::new(Mutex::new(Vec::new()));
    let seen = Arc::new(Mutex::new(Vec::new()));
    let as_url = authorization_server(issued.clone(), Arc::default()).await;
    let (url, stop) = protected_server(issued.clone(), &as_url, seen.clone()).await;
    let iss = issuer();
    // Alice's token is for the gateway (`aud`): the upstream accepts it in this test.
    let alice = iss.token("alice", "user");
    issued.lock().unwrap().push(alice.clone());
    let mut config = ConfigFile::new("{}");
    let jwks = config.dir.join("jwks.json");
    std::fs::write(&jwks, iss.jwks.to_string()).unwrap();
    let file = |audience: &str| {
        serde_json::json!({
            "mcpServers": { "prot": { "url": url } },
            "gateway": {
                "auth": { "resource": "http://gateway.test/mcp", "issuer": "http://issuer.test",
                          "jwks": jwks },
                "servers": { "prot": {
                    "oauth": { "clientId": "gateway", "clientSecret": "s3cret" },
                    "passThrough": { "audience": audience }
                } }
            }
        })
        .to_string()
    };
    // Configured for the upstream's audience: Alice's token (for the gateway) stays here.
    config.rewrite(&file(&url));
    let gw = gateway_http(&config, &[]).await;
    let r = whoami(&gw.url("/mcp"), Some(&alice), "2026-07-28").await;
    assert!(
        r.stderr.contains("upstream `prot` is reached with the caller's identity: the caller's token is not for it"),
        "{r:#?}"
    );
    assert!(!seen.lock().unwrap().contains(&alice));
    drop(gw);
    // Configured for the audience it carries: it crosses as it is.
    config.rewrite(&file("http://gateway.test/mcp"));
    let gw = gateway_http(&config, &[]).await;
    let r = whoami(&gw.url("/mcp"), Some(&alice), "2026-07-28")
        .await
        .expect(0);
    assert!(r.stdout.contains(&format!("Bearer {alice}")), "{r:#?}");
    stop.cancel();
}
