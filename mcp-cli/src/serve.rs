//! Serving what `mcp gateway` and `mcp bridge` build (a server whose table holds
//! `mcp::proxy` proxies) with the library's own transports: over stdio, or over HTTP with
//! the defaults of `Server::serve_http` (Streamable HTTP at `http://ADDR/mcp`, the
//! 2024-11-05 HTTP+SSE transport at `/sse`); and saying on stderr when an upstream goes
//! down or comes back.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::time::Duration;

use mcp_runtime::middleware::Chain;
use mcp_runtime::transport::http::HttpOptions;
use mcp_runtime::{CancellationToken, Server};

use crate::Failure;

/// How a server is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Serve {
    /// Over stdin and stdout.
    Stdio,
    /// Streamable HTTP at `http://ADDR/mcp` (and HTTP+SSE at `/sse`).
    Http(String),
}

/// Where a server is served: stdin and stdout, or a bound listener.
pub enum Endpoint {
    /// Over stdin and stdout.
    Stdio,
    /// HTTP on this listener.
    Http(tokio::net::TcpListener),
}

impl Serve {
    /// The endpoint opened (the address checked and bound), before anything is started:
    /// a bad or busy address is an error at once.
    pub async fn open(&self) -> Result<Endpoint, Failure> {
        let Serve::Http(a) = self else {
            return Ok(Endpoint::Stdio);
        };
        let addr: SocketAddr = a.parse().map_err(|_| {
            Failure::usage(format!(
                "--http `{a}`: expected HOST:PORT, e.g. 127.0.0.1:8080"
            ))
        })?;
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| Failure::new(3, format!("cannot listen on {addr}: {e}")))?;
        Ok(Endpoint::Http(listener))
    }
}

/// Serves `server` at `endpoint` until the transport ends (stdin closes) or, over HTTP,
/// SIGINT or SIGTERM stops it gracefully. `who` names the command on stderr; `opts` are
/// the HTTP options beyond the paths (the gateway's operator endpoints and auth).
pub async fn serve<C: Chain>(
    server: &Server<C>,
    endpoint: Endpoint,
    who: &str,
    opts: HttpOptions,
) -> Result<(), Failure> {
    match endpoint {
        Endpoint::Stdio => server
            .serve_stdio()
            .await
            .map_err(|e| Failure::new(3, format!("serving stdio failed: {e}"))),
        Endpoint::Http(listener) => {
            let bound = listener
                .local_addr()
                .map_err(|e| Failure::new(3, format!("cannot listen: {e}")))?;
            eprintln!("{who}: serving http://{bound}/mcp");
            let stop = CancellationToken::new();
            mcp_runtime::transport::stdio::stop_on_signals(stop.clone());
            // As `Server::serve_http` (the port is the server's own): HTTP+SSE at `/sse` too.
            let opts = HttpOptions {
                legacy_sse: Some(("/sse".into(), "/messages".into())),
                ..opts
            };
            server
                .serve_http_on(listener, opts, stop)
                .await
                .map_err(|e| Failure::new(3, format!("serving http://{bound}/mcp failed: {e}")))
        }
    }
}

/// Says on stderr when an upstream goes down or comes back, polling `now` (each upstream's
/// name and why it is down, `None` while up) four times a second, for as long as it runs.
pub async fn report<F>(who: &'static str, now: F)
where
    F: Fn() -> Vec<(String, Option<String>)>,
{
    let mut down: HashMap<String, bool> = HashMap::new();
    loop {
        tokio::time::sleep(Duration::from_millis(250)).await;
        for (key, why) in now() {
            let was = down.insert(key.clone(), why.is_some());
            match (was, why) {
                (Some(false), Some(why)) => eprintln!("{who}: `{key}` is down: {why}"),
                (Some(true), None) => eprintln!("{who}: `{key}` is up again"),
                _ => {}
            }
        }
    }
}
