//! From a [`Target`] and the options to a connected [`Client`].

use std::time::Duration;

use mcp_core::version::Era;
use mcp_runtime::client::{Client, ClientBuilder, ClientError, ConnectMode, StderrMode};

use crate::Failure;
use crate::args::{Cli, Target};

/// Connects as the command line says: a child process over stdio, or a URL over Streamable
/// HTTP (falling back to HTTP+SSE) or, with `--sse`, HTTP+SSE only.
pub async fn connect(cli: &Cli) -> Result<Client, Failure> {
    let mode = match cli.protocol {
        None => ConnectMode::Auto,
        Some(v) if v.era() == Era::Legacy => ConnectMode::Legacy(v),
        Some(v) => ConnectMode::Modern(v),
    };
    let builder = || {
        let mut b = Client::builder()
            .mode(mode)
            .request_timeout(Duration::from_secs(cli.timeout))
            .no_cache()
            .stderr(if cli.quiet {
                StderrMode::Null
            } else {
                StderrMode::Inherit
            });
        for (k, v) in &cli.headers {
            b = b.header(k, v);
        }
        if let Some(t) = &cli.token {
            b = b.bearer_token(t.clone());
        }
        b
    };
    let res = match &cli.target {
        Target::Process(argv) => {
            let mut cmd = tokio::process::Command::new(&argv[0]);
            cmd.args(&argv[1..]);
            builder().spawn(cmd).await
        }
        Target::Url(url) if cli.sse => builder().connect_sse(url).await,
        Target::Url(url) => http_then_sse(builder, mode, url).await,
    };
    res.map_err(|e| unreachable_target(&cli.target, &e))
}

/// Streamable HTTP; a pinned legacy revision the endpoint refuses as Streamable HTTP (400,
/// 404, 405: an HTTP+SSE endpoint) is tried again over HTTP+SSE. (`ConnectMode::Auto` does
/// that fallback itself.)
pub async fn http_then_sse(
    builder: impl Fn() -> ClientBuilder,
    mode: ConnectMode,
    url: &str,
) -> Result<Client, ClientError> {
    match builder().connect_http(url).await {
        Err(ClientError::Http {
            status: 400 | 404 | 405,
            ..
        }) if matches!(mode, ConnectMode::Legacy(_)) => builder().connect_sse(url).await,
        other => other,
    }
}

/// Why connecting failed, said for the target.
fn unreachable_target(target: &Target, e: &ClientError) -> Failure {
    let what = match target {
        Target::Url(u) => u.clone(),
        Target::Process(argv) => format!(
            "`{}`",
            shlex::try_join(argv.iter().map(String::as_str)).unwrap_or_else(|_| argv.join(" "))
        ),
    };
    if let ClientError::Rpc(err) = e {
        if err.code == mcp_core::jsonrpc::METHOD_NOT_FOUND {
            // No handshake of the revision asked for (a legacy-only server asked for
            // `server/discover`): no MCP handshake there, exit 3 as the usage says.
            return Failure::new(
                3,
                format!(
                    "{what} has no handshake at this revision: {} (code {})",
                    err.message, err.code
                ),
            );
        }
        // The server answered: it is reachable, and its error says what went wrong (a
        // gateway whose upstream is down names the upstream). Never "cannot reach".
        return Failure::new(
            4,
            format!(
                "{what} answered the handshake with an error: {} (code {})",
                err.message, err.code
            ),
        );
    }
    let why = match e {
        ClientError::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
            "no such program".to_owned()
        }
        ClientError::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
            "permission denied".to_owned()
        }
        ClientError::Io(io) if io.kind() == std::io::ErrorKind::ConnectionRefused => {
            "connection refused (nothing listens there)".to_owned()
        }
        other if other.to_string().contains("Connection refused") => {
            "connection refused (nothing listens there)".to_owned()
        }
        other => other.to_string(),
    };
    Failure::new(3, format!("cannot reach {what}: {why}"))
}
