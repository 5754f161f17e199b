//! An axum application that serves MCP at `/mcp` beside its own routes, behind tower-http
//! layers, with a static bearer token.
//!
//! ```text
//! MCP_TOKEN=s3cret cargo run --example axum_app --features http -- 127.0.0.1:3000
//! curl http://127.0.0.1:3000/health
//! ```
//!
//! Clients then connect to `http://127.0.0.1:3000/mcp` with `Authorization: Bearer s3cret`
//! (with `mcp::client::Client`: `Client::builder().bearer_token("s3cret").connect_http(url)`). A
//! request without the token gets `401` with `WWW-Authenticate: Bearer realm="mcp"`: with no
//! authorization server named, clients ask their user for a token instead of starting OAuth.
//! `tests/tests/examples.rs` runs it on loopback.

use std::net::SocketAddr;

use axum::http::{HeaderName, Method};
use mcp::Principal;
use mcp::prelude::*;
use mcp::transport::http::axum::{self, Router, routing::get};
use mcp::transport::http::{AuthError, validator_fn};
use mcp::transport::http::{AuthOptions, HttpHandle, HttpOptions};
use tower_http::cors::CorsLayer;
use tower_http::trace::TraceLayer;

/// Says hello to whoever the token belongs to.
#[mcp::tool(read_only)]
async fn whoami(ctx: &Context) -> String {
    let who = ctx.extensions().get::<Principal>();
    format!("hello, {}", who.map_or("stranger", |p| p.subject.as_str()))
}

#[mcp::server(name = "axum-app", tools(whoami))]
struct App;

/// The whole application: `/health` and `/mcp`, under CORS and tracing layers. `public_url`
/// is the MCP endpoint as clients reach it; `token` the bearer token they must send.
pub fn app(public_url: &str, token: String) -> (Router, HttpHandle) {
    let tokens = validator_fn(move |sent: String, _request| {
        let ok = sent == token;
        async move {
            match ok {
                true => Ok(Principal::new("operator")),
                false => Err(AuthError::InvalidToken("unknown token".into())),
            }
        }
    });
    let opts = HttpOptions {
        auth: Some(AuthOptions::new(public_url, tokens)),
        // Only loopback `Host`s are served by default (DNS-rebinding protection): behind a
        // reverse proxy, list the public names with `DnsRebinding::Allow`.
        ..HttpOptions::default()
    };
    let (mcp, handle) = App.into_server().http_router(opts);
    // Browser clients (the MCP Inspector, say) need to send and read these headers.
    let mcp_headers =
        ["mcp-session-id", "mcp-protocol-version", "last-event-id"].map(HeaderName::from_static);
    let cors = CorsLayer::new()
        .allow_origin(tower_http::cors::Any)
        .allow_methods([Method::GET, Method::POST, Method::DELETE])
        .allow_headers(
            [
                axum::http::header::AUTHORIZATION,
                axum::http::header::CONTENT_TYPE,
            ]
            .into_iter()
            .chain(mcp_headers.clone())
            .collect::<Vec<_>>(),
        )
        .expose_headers(mcp_headers);
    let router = Router::new()
        .route("/health", get(|| async { "ok" }))
        .merge(mcp)
        .layer(cors)
        .layer(TraceLayer::new_for_http());
    (router, handle)
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".into())
        .parse()
        .map_err(|e| std::io::Error::other(format!("address: {e}")))?;
    let token = std::env::var("MCP_TOKEN")
        .map_err(|_| std::io::Error::other("set MCP_TOKEN to the bearer token clients send"))?;
    let (router, _handle) = app(&format!("http://{addr}/mcp"), token);
    let listener = tokio::net::TcpListener::bind(addr).await?;
    eprintln!("axum_app: http://{addr}/mcp (and /health)");
    axum::serve(listener, router).await
}
