//! Auto negotiation against a modern stdio server that starts slower than the probe
//! timeout (the Python SDK server under load does): the `server/discover` probe times out,
//! the client falls back to `initialize`, but the server has meanwhile answered the probe and
//! fixed the connection as modern, so `initialize` gets `-32022`. That is a recognized modern
//! error: the client discovers again and ends up modern instead of failing to connect.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode};
use mcp::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// A modern-only server that answers its first request after `delay`; the first request
/// fixes the era, so a later `initialize` is `-32022` listing `supported`.
fn slow_modern_server(
    delay: Duration,
    supported: &'static [&'static str],
) -> (tokio::io::DuplexStream, Arc<Mutex<Vec<String>>>) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let methods: Arc<Mutex<Vec<String>>> = Arc::default();
    let seen = methods.clone();
    tokio::spawn(async move {
        let (r, mut w) = tokio::io::split(server_end);
        let mut lines = BufReader::new(r).lines();
        let mut first = true;
        while let Ok(Some(line)) = lines.next_line().await {
            let msg: Value = serde_json::from_str(&line).unwrap();
            let method = msg["method"].as_str().unwrap_or_default().to_owned();
            seen.lock().unwrap().push(method.clone());
            if msg.get("id").is_none() {
                continue;
            }
            if first {
                first = false;
                tokio::time::sleep(delay).await;
            }
            let resp = match method.as_str() {
                "server/discover" => json!({"jsonrpc": "2.0", "id": msg["id"], "result": {
                    "resultType": "complete", "supportedVersions": supported,
                    "capabilities": {"tools": {}},
                    "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "slow", "version": "1"}}}}),
                "initialize" => json!({"jsonrpc": "2.0", "id": msg["id"], "error": {
                    "code": -32022,
                    "message": "connection is serving the 2026-07-28 protocol",
                    "data": {"supported": supported, "requested": msg["params"]["protocolVersion"]}}}),
                _ => {
                    json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"resultType": "complete"}})
                }
            };
            w.write_all(format!("{resp}\n").as_bytes()).await.unwrap();
        }
    });
    (client_end, methods)
}

async fn connect(stream: tokio::io::DuplexStream) -> Result<Client, ClientError> {
    Client::builder()
        .mode(ConnectMode::Auto)
        .probe_timeout(Duration::from_millis(100))
        .connect(stream)
        .await
}

fn requests(methods: &Arc<Mutex<Vec<String>>>) -> Vec<String> {
    methods
        .lock()
        .unwrap()
        .iter()
        .filter(|m| !m.starts_with("notifications/"))
        .cloned()
        .collect()
}

#[tokio::test]
async fn a_late_probe_answer_then_32022_to_initialize_ends_modern() {
    let (stream, methods) = slow_modern_server(Duration::from_millis(300), &["2026-07-28"]);
    let client = connect(stream).await.unwrap();
    assert_eq!(client.protocol_version(), ProtocolVersion::V2026_07_28);
    assert_eq!(client.server_info().unwrap().name, "slow");
    assert_eq!(
        requests(&methods),
        ["server/discover", "initialize", "server/discover"]
    );
    // The connection works as a modern one.
    client.ping().await.unwrap();
}

#[tokio::test]
async fn a_32022_to_initialize_listing_nothing_we_speak_is_a_clear_error() {
    let (stream, methods) = slow_modern_server(Duration::from_millis(300), &["2099-01-01"]);
    match connect(stream).await.unwrap_err() {
        ClientError::Rpc(e) => assert_eq!(e.code, -32022),
        other => panic!("want the -32022, got {other:?}"),
    }
    // No discover at a revision the server did not list.
    assert_eq!(requests(&methods), ["server/discover", "initialize"]);
}
