//! A client for a remote MCP server over HTTPS (the `tls` feature): the platform's trust
//! store by default, plus a private CA when given one, and a bearer token when the server
//! wants one. It lists the server's tools.
//!
//! ```text
//! cargo run --example https_client --features tls -- https://mcp.example.com/mcp
//! cargo run --example https_client --features tls -- https://localhost:8443/mcp --ca ca.pem --token s3cret
//! ```
//!
//! `tests/tests/client_tls.rs` runs it against a loopback HTTPS server with a CA made by the test.

use mcp::client::{ClientError, TlsConfig};

/// The names of the tools of the server at `url`; `ca_pem`: a private CA to trust beside the
/// platform's roots; `token`: a bearer token to send.
pub async fn tool_names(
    url: &str,
    ca_pem: Option<&[u8]>,
    token: Option<&str>,
) -> Result<Vec<String>, ClientError> {
    let mut tls = TlsConfig::platform();
    if let Some(pem) = ca_pem {
        tls = tls.add_root_pem(pem)?;
    }
    let mut builder = mcp::client::Client::builder().tls(tls);
    if let Some(token) = token {
        builder = builder.bearer_token(token);
    }
    let client = builder.connect_http(url).await?;
    let tools = client.list_all_tools().await?;
    client.close().await?;
    Ok(tools.into_iter().map(|t| t.name).collect())
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let usage = "usage: https_client URL [--ca CA.pem] [--token TOKEN]";
    let mut args = std::env::args().skip(1);
    let url = args.next().ok_or(usage)?;
    let (mut ca, mut token) = (None, None);
    while let Some(flag) = args.next() {
        match flag.as_str() {
            "--ca" => ca = Some(std::fs::read(args.next().ok_or(usage)?)?),
            "--token" => token = Some(args.next().ok_or(usage)?),
            _ => return Err(usage.into()),
        }
    }
    for name in tool_names(&url, ca.as_deref(), token.as_deref()).await? {
        println!("{name}");
    }
    Ok(())
}
