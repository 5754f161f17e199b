//! The client over HTTPS (the `tls` feature): a loopback server with a certificate from a
//! private CA made here. Trusting that CA, the client serves both eras over it; without it
//! (the platform's roots only), for a name the certificate does not hold, or over plain
//! `http://` to the TLS port, the connection fails with an error that says why.

use std::sync::Arc;
use std::time::Duration;

use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use mcp::client::{ClientError, ConnectMode, TlsConfig};
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use tokio::net::TcpListener;
use tokio_rustls::TlsAcceptor;

/// Echoes its text.
#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

#[mcp::server(name = "tls-echo", tools(echo))]
struct Echo;

/// A CA and a server certificate it signed for `localhost` only.
struct Pki {
    ca_pem: String,
    chain: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

fn pki() -> Pki {
    let mut ca = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_key = KeyPair::generate().unwrap();
    let ca_cert = ca.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca, ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let leaf = CertificateParams::new(vec!["localhost".to_owned()])
        .unwrap()
        .signed_by(&leaf_key, &issuer)
        .unwrap();
    Pki {
        ca_pem: ca_cert.pem(),
        chain: vec![leaf.der().clone(), ca_cert.der().clone()],
        key: PrivatePkcs8KeyDer::from(leaf_key.serialize_der()).into(),
    }
}

/// Serves `Echo` over HTTPS on a loopback port until the test's runtime ends; the port.
async fn serve_https(pki: &Pki) -> u16 {
    serve_https_router(pki, Echo.into_server().http_service()).await
}

/// Serves `router` over HTTPS on a loopback port until the test's runtime ends; the port.
async fn serve_https_router(pki: &Pki, router: mcp::transport::http::axum::Router) -> u16 {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(pki.chain.clone(), pki.key.clone_key())
        .unwrap();
    let acceptor = TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move {
        loop {
            let Ok((tcp, _)) = listener.accept().await else {
                return;
            };
            let (acceptor, router) = (acceptor.clone(), router.clone());
            tokio::spawn(async move {
                // A handshake the client gives up on ends here, not in the accept loop.
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = TowerToHyperService::new(router);
                let conn = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .serve_connection(TokioIo::new(tls), service);
                let _ = conn.await;
            });
        }
    });
    port
}

/// Connects within 20 s (a failure to connect must come back, never hang).
async fn connect(
    builder: mcp::client::ClientBuilder,
    url: &str,
) -> Result<mcp::client::Client, ClientError> {
    tokio::time::timeout(Duration::from_secs(20), builder.connect_http(url))
        .await
        .expect("connecting took more than 20 s")
}

#[tokio::test]
async fn trusted_private_ca_serves_both_eras() {
    let pki = pki();
    let port = serve_https(&pki).await;
    let url = format!("https://localhost:{port}/mcp");
    for mode in [
        ConnectMode::Legacy("2025-11-25".parse().unwrap()),
        ConnectMode::Modern("2026-07-28".parse().unwrap()),
    ] {
        let tls = TlsConfig::custom_roots_only()
            .add_root_pem(pki.ca_pem.as_bytes())
            .unwrap();
        let client = connect(mcp::client::Client::builder().tls(tls).mode(mode), &url)
            .await
            .unwrap_or_else(|e| panic!("{mode:?}: {e}"));
        let r = client
            .call_tool("echo", serde_json::json!({"text": "over tls"}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("over tls"), "{mode:?}");
        client.close().await.unwrap();
    }
    // The platform's roots plus the CA work the same.
    let tls = TlsConfig::platform().add_root_der(pki.chain[1].to_vec());
    let client = connect(mcp::client::Client::builder().tls(tls), &url)
        .await
        .unwrap();
    assert_eq!(client.list_all_tools().await.unwrap()[0].name, "echo");
}

#[tokio::test]
async fn untrusted_or_misnamed_certificates_are_refused_with_the_reason() {
    let pki = pki();
    let port = serve_https(&pki).await;
    // The platform's roots do not hold a CA made a moment ago.
    let err = connect(
        mcp::client::Client::builder().probe_timeout(Duration::from_secs(5)),
        &format!("https://localhost:{port}/mcp"),
    )
    .await
    .expect_err("an unknown CA is refused");
    assert!(
        format!("{err}").to_lowercase().contains("unknown"),
        "the error names the unknown issuer: {err}"
    );
    // Trusted CA, but the certificate is for `localhost`, not 127.0.0.1.
    let tls = TlsConfig::custom_roots_only()
        .add_root_pem(pki.ca_pem.as_bytes())
        .unwrap();
    let err = connect(
        mcp::client::Client::builder().tls(tls),
        &format!("https://127.0.0.1:{port}/mcp"),
    )
    .await
    .expect_err("a certificate for another name is refused");
    assert!(
        format!("{err}").contains("NotValidForName") || format!("{err}").contains("not valid"),
        "the error names the name mismatch: {err}"
    );
}

#[test]
fn a_root_file_without_certificates_is_an_error() {
    let err = TlsConfig::platform()
        .add_root_pem(b"not a certificate")
        .expect_err("garbage is refused");
    assert!(err.to_string().contains("no certificate"), "{err}");
    let err = TlsConfig::platform()
        .add_root_pem(b"-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n")
        .expect_err("a broken PEM block is refused");
    assert!(err.to_string().contains("PEM"), "{err}");
}

#[path = "../../examples/https_client.rs"]
#[allow(dead_code)]
mod https_client;

#[tokio::test]
async fn the_https_client_example_lists_the_tools_of_a_server_with_a_private_ca() {
    let pki = pki();
    let port = serve_https(&pki).await;
    let url = format!("https://localhost:{port}/mcp");
    let names = https_client::tool_names(&url, Some(pki.ca_pem.as_bytes()), None)
        .await
        .unwrap();
    assert_eq!(names, ["echo"]);
    // Without the CA the platform's roots do not know the server's certificate.
    let refused = https_client::tool_names(&url, None, None).await;
    assert!(refused.is_err(), "{refused:?}");
}

/// `proxy::config::jwks_over_tls`: a JWKS served over HTTPS by a private CA's certificate, trusted with
/// that CA: a token signed by its key is accepted; the platform's roots alone refuse to
/// fetch it, so the same token is refused.
#[cfg(all(feature = "jwt", feature = "proxy"))]
#[tokio::test]
async fn a_jwks_over_https_is_fetched_trusting_the_configured_roots() {
    use mcp::transport::http::TokenValidator;
    use mcp::transport::http::jwt::JwtValidator;
    use p256::elliptic_curve::Generate;
    use p256::pkcs8::EncodePrivateKey;

    let der = p256::SecretKey::generate().to_pkcs8_der().unwrap();
    let key = jsonwebtoken::EncodingKey::from_ec_der(der.as_bytes());
    let mut jwk =
        jsonwebtoken::jwk::Jwk::from_encoding_key(&key, jsonwebtoken::Algorithm::ES256).unwrap();
    jwk.common.key_id = Some("k1".into());
    let jwks = serde_json::json!({ "keys": [jwk] });
    let pki = pki();
    let router = mcp::transport::http::axum::Router::new().route(
        "/jwks.json",
        mcp::transport::http::axum::routing::get(move || async move {
            ([("content-type", "application/json")], jwks.to_string())
        }),
    );
    let port = serve_https_router(&pki, router).await;
    let url = format!("https://localhost:{port}/jwks.json");
    let exp = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 600;
    let claims = serde_json::json!({ "iss": "https://issuer.test", "aud": "https://mcp.test/mcp",
                                     "sub": "ada", "exp": exp });
    let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
    header.kid = Some("k1".into());
    let token = jsonwebtoken::encode(&header, &claims, &key).unwrap();
    let request = hyper::Request::new(()).into_parts().0;
    let validator = |tls: TlsConfig| {
        let keys = mcp::proxy::config::jwks_over_tls(&url, &tls).unwrap();
        JwtValidator::new("https://issuer.test", "https://mcp.test/mcp", keys)
    };
    let trusted = TlsConfig::custom_roots_only()
        .add_root_pem(pki.ca_pem.as_bytes())
        .unwrap();
    let principal = validator(trusted).validate(&token, &request).await;
    assert_eq!(
        principal.expect("a key of the JWKS signed it").subject,
        "ada"
    );
    let refused = validator(TlsConfig::platform())
        .validate(&token, &request)
        .await;
    assert!(
        refused.is_err(),
        "the platform's roots do not hold the CA: {refused:?}"
    );
}
