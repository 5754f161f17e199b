//! `Client::listen` (2026-07-28 `subscriptions/listen`) against a scripted server over an
//! in-memory pipe: the acknowledgement, only this subscription's notifications on the
//! stream, the graceful end, cancellation by drop, a server's cancellation as an end, a
//! refused listen, a stream that does not begin with its acknowledgement, and legacy
//! connections.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode};
use mcp::prelude::*;
use mcp::types::SubscriptionFilter;
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

use ProtocolVersion as V;

/// What the scripted server writes when it sees a `subscriptions/listen` with this id.
type OnListen = Box<dyn Fn(&Value) -> Vec<Value> + Send>;

/// A 2026 server: answers `server/discover`, runs `on_listen`, and reports every other
/// message it receives.
fn scripted(on_listen: OnListen) -> (tokio::io::DuplexStream, mpsc::UnboundedReceiver<Value>) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let (seen_tx, seen) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let (r, mut w) = tokio::io::split(server_end);
        let mut lines = BufReader::new(r).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let msg: Value = serde_json::from_str(&line).unwrap();
            let out = match msg["method"].as_str() {
                Some("server/discover") => vec![json!({"jsonrpc": "2.0", "id": msg["id"],
                    "result": {"resultType": "complete", "supportedVersions": ["2026-07-28"],
                        "capabilities": {"tools": {"listChanged": true}},
                        "serverInfo": {"name": "scripted", "version": "1"}}})],
                Some("subscriptions/listen") => on_listen(&msg),
                _ => {
                    let _ = seen_tx.send(msg);
                    vec![]
                }
            };
            for m in out {
                w.write_all(format!("{m}\n").as_bytes()).await.unwrap();
            }
        }
    });
    (client_end, seen)
}

fn note(method: &str, sub: &Value, extra: Value) -> Value {
    let mut params = extra;
    params["_meta"] = json!({"io.modelcontextprotocol/subscriptionId": sub});
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

fn ack(id: &Value) -> Value {
    note(
        "notifications/subscriptions/acknowledged",
        id,
        json!({"notifications": {"toolsListChanged": true}}),
    )
}

fn tools_changed() -> SubscriptionFilter {
    SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(true),
        ..SubscriptionFilter::default()
    }
}

async fn connect(stream: tokio::io::DuplexStream) -> Client {
    Client::builder()
        .mode(ConnectMode::Modern(V::V2026_07_28))
        .connect(stream)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_subscription_streams_its_own_notifications_until_the_server_ends_it() {
    let asked: Arc<Mutex<Option<Value>>> = Arc::default();
    let record = asked.clone();
    let (stream, _seen) = scripted(Box::new(move |msg| {
        *record.lock().unwrap() = Some(msg["params"].clone());
        let id = &msg["id"];
        vec![
            ack(id),
            note("notifications/tools/list_changed", id, json!({})),
            // Another subscription's notification is not this stream's.
            note(
                "notifications/prompts/list_changed",
                &json!("other"),
                json!({}),
            ),
            json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                "_meta": {"io.modelcontextprotocol/subscriptionId": id}}}),
        ]
    }));
    let client = connect(stream).await;
    let mut sub = client.listen(tools_changed()).await.unwrap();
    // The server agreed to a subset.
    assert_eq!(sub.acknowledged().tools_list_changed, Some(true));
    assert_eq!(sub.acknowledged().prompts_list_changed, None);
    let n = sub.next().await.unwrap();
    assert_eq!(n.method, "notifications/tools/list_changed");
    assert!(
        sub.next().await.is_none(),
        "the graceful end ends the stream"
    );
    sub.finish().await.unwrap();
    // The request carried the filter and the 2026 envelope.
    let p = asked.lock().unwrap().clone().unwrap();
    assert_eq!(p["notifications"]["toolsListChanged"], true);
    assert_eq!(
        p["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
}

#[tokio::test]
async fn dropping_a_subscription_cancels_it_on_the_server() {
    let (stream, mut seen) = scripted(Box::new(|msg| vec![ack(&msg["id"])]));
    let client = connect(stream).await;
    let sub = client.listen(tools_changed()).await.unwrap();
    drop(sub);
    let cancelled = tokio::time::timeout(Duration::from_secs(5), seen.recv())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(cancelled["method"], "notifications/cancelled");
    assert!(cancelled["params"]["requestId"].is_number());
}

#[tokio::test]
async fn the_server_cancelling_the_subscription_ends_the_stream_with_a_reason() {
    let (stream, _seen) = scripted(Box::new(|msg| {
        vec![
            ack(&msg["id"]),
            json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": msg["id"], "reason": "shutting down"}}),
        ]
    }));
    let client = connect(stream).await;
    let mut sub = client.listen(tools_changed()).await.unwrap();
    assert!(sub.next().await.is_none());
    let e = sub.finish().await.unwrap_err();
    assert!(
        matches!(&e, ClientError::Closed(Some(w)) if w.contains("cancelled")),
        "{e:?}"
    );
}

#[tokio::test]
async fn a_refused_listen_is_the_servers_error() {
    let (stream, _seen) = scripted(Box::new(|msg| {
        vec![json!({"jsonrpc": "2.0", "id": msg["id"],
            "error": {"code": -32602, "message": "bad filter"}})]
    }));
    let client = connect(stream).await;
    let e = client.listen(tools_changed()).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602), "{e:?}");
}

#[tokio::test]
async fn a_stream_that_does_not_begin_with_its_acknowledgement_is_invalid() {
    let (stream, _seen) = scripted(Box::new(|msg| {
        vec![note(
            "notifications/tools/list_changed",
            &msg["id"],
            json!({}),
        )]
    }));
    let client = connect(stream).await;
    let e = client.listen(tools_changed()).await.unwrap_err();
    assert!(
        matches!(&e, ClientError::InvalidResponse(w) if w.contains("acknowledgement")),
        "{e:?}"
    );
}

#[tokio::test]
async fn legacy_connections_have_no_listen() {
    let server = Server::builder("legacy", "1.0.0").without_tracing().build();
    let (a, b) = tokio::io::duplex(1 << 16);
    let (r, w) = tokio::io::split(b);
    tokio::spawn(async move { server.serve(r, w).await });
    let client = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_11_25))
        .connect(a)
        .await
        .unwrap();
    let e = client.listen(tools_changed()).await.unwrap_err();
    assert!(matches!(e, ClientError::Unsupported(_)), "{e:?}");
}
