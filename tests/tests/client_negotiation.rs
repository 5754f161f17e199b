//! Version negotiation against a scripted 2026 server: a `-32022` that lists the pinned
//! revision itself is retried exactly once (SEP-2575's "retry with a supported version"),
//! one that does not list it fails at once, and a server that keeps refusing is not asked
//! a third time.

use std::sync::{Arc, Mutex};

use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode};
use mcp::prelude::*;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use ProtocolVersion as V;

/// Refuses the first `refusals` discovers with -32022 listing `supported`, then answers.
fn server(
    refusals: usize,
    supported: &'static [&'static str],
) -> (tokio::io::DuplexStream, Arc<Mutex<usize>>) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let count: Arc<Mutex<usize>> = Arc::default();
    let seen = count.clone();
    tokio::spawn(async move {
        let (r, mut w) = tokio::io::split(server_end);
        let mut lines = BufReader::new(r).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let msg: Value = serde_json::from_str(&line).unwrap();
            if msg["method"] != "server/discover" {
                continue;
            }
            let n = {
                let mut c = seen.lock().unwrap();
                *c += 1;
                *c
            };
            let resp = if n <= refusals {
                json!({"jsonrpc": "2.0", "id": msg["id"], "error": {"code": -32022,
                    "message": "Unsupported protocol version",
                    "data": {"supported": supported, "requested": "2026-07-28"}}})
            } else {
                json!({"jsonrpc": "2.0", "id": msg["id"], "result": {"resultType": "complete",
                    "supportedVersions": ["2026-07-28"], "capabilities": {},
                    "serverInfo": {"name": "s", "version": "1"}}})
            };
            w.write_all(format!("{resp}\n").as_bytes()).await.unwrap();
        }
    });
    (client_end, count)
}

async fn connect(stream: tokio::io::DuplexStream) -> Result<Client, ClientError> {
    Client::builder()
        .mode(ConnectMode::Modern(V::V2026_07_28))
        .connect(stream)
        .await
}

#[tokio::test]
async fn a_32022_listing_the_pinned_revision_is_retried_once() {
    let (stream, count) = server(1, &["2026-07-28"]);
    let c = connect(stream).await.unwrap();
    assert_eq!(c.protocol_version(), V::V2026_07_28);
    assert_eq!(*count.lock().unwrap(), 2);
}

#[tokio::test]
async fn a_second_refusal_is_final() {
    let (stream, count) = server(5, &["2026-07-28"]);
    let e = connect(stream).await.unwrap_err();
    assert!(matches!(e, ClientError::UnsupportedVersion { .. }), "{e:?}");
    assert_eq!(*count.lock().unwrap(), 2);
}

#[tokio::test]
async fn a_32022_without_the_pinned_revision_fails_without_a_retry() {
    let (stream, count) = server(5, &["2099-01-01"]);
    match connect(stream).await.unwrap_err() {
        ClientError::UnsupportedVersion {
            requested,
            supported,
        } => {
            assert_eq!(requested, "2026-07-28");
            assert_eq!(supported, ["2099-01-01"]);
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(*count.lock().unwrap(), 1);
}
