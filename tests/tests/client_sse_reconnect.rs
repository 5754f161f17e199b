//! The 2024-11-05 HTTP+SSE transport when its stream breaks: the client reconnects after
//! the stream's `retry:`, and when the server hands out a new endpoint (a new session) it
//! re-initializes there and carries on; a server that stays away closes the connection
//! with a clear error. The server is a small in-test one whose streams the test can cut.

use std::collections::HashMap;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode, Transport};
use mcp::prelude::*;
use mcp::transport::http::axum::{self, Router, extract::RawQuery, routing};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use ProtocolVersion as V;

/// An SSE body fed by a channel; dropping the sender ends the stream.
struct Events(mpsc::UnboundedReceiver<String>);

impl futures_core::Stream for Events {
    type Item = Result<String, std::convert::Infallible>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx).map(|o| o.map(Ok))
    }
}

#[derive(Default)]
struct Fake {
    streams: HashMap<String, mpsc::UnboundedSender<String>>,
    /// Every (session, method) posted.
    posted: Vec<(String, String)>,
    opened: usize,
    /// `GET /sse` answers 503.
    down: bool,
}

type Shared = Arc<Mutex<Fake>>;

async fn start() -> (String, Shared) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let fake: Shared = Arc::default();
    let (f1, f2) = (fake.clone(), fake.clone());
    let app = Router::new()
        .route(
            "/sse",
            routing::get(move || {
                let f = f1.clone();
                async move {
                    let (tx, rx) = mpsc::unbounded_channel();
                    let mut st = f.lock().unwrap();
                    if st.down {
                        return axum::response::Response::builder()
                            .status(503)
                            .body(axum::body::Body::empty())
                            .unwrap();
                    }
                    st.opened += 1;
                    let session = format!("s{}", st.opened);
                    tx.send(format!(
                        "retry: 50\nevent: endpoint\ndata: /messages?session={session}\n\n"
                    ))
                    .unwrap();
                    st.streams.insert(session, tx);
                    axum::response::Response::builder()
                        .header("content-type", "text/event-stream")
                        .body(axum::body::Body::from_stream(Events(rx)))
                        .unwrap()
                }
            }),
        )
        .route(
            "/messages",
            routing::post(move |RawQuery(q): RawQuery, body: String| {
                let f = f2.clone();
                async move {
                    let session = q.unwrap_or_default().replace("session=", "");
                    let msg: Value = serde_json::from_str(&body).unwrap();
                    let method = msg["method"].as_str().unwrap_or_default().to_owned();
                    let mut st = f.lock().unwrap();
                    st.posted.push((session.clone(), method.clone()));
                    let Some(tx) = st.streams.get(&session).cloned() else {
                        return axum::response::Response::builder()
                            .status(404)
                            .body(axum::body::Body::empty())
                            .unwrap();
                    };
                    if msg.get("id").is_some() {
                        let result = match method.as_str() {
                            "initialize" => json!({"protocolVersion": "2024-11-05",
                                "capabilities": {"tools": {}},
                                "serverInfo": {"name": "fake-sse", "version": "1"}}),
                            "tools/list" => json!({"tools": [{"name": "t",
                                "inputSchema": {"type": "object"}}]}),
                            _ => json!({}),
                        };
                        let resp = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
                        let _ = tx.send(format!("event: message\ndata: {resp}\n\n"));
                    }
                    axum::response::Response::builder()
                        .status(202)
                        .body(axum::body::Body::empty())
                        .unwrap()
                }
            }),
        );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (format!("{base}/sse"), fake)
}

async fn connect(url: &str) -> Client {
    Client::builder()
        .mode(ConnectMode::Legacy(V::V2024_11_05))
        .connect_sse(url)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_cut_stream_is_reopened_and_a_new_session_initialized() {
    let (url, fake) = start().await;
    let client = connect(&url).await;
    assert_eq!(client.transport(), Transport::HttpSse);
    assert_eq!(client.list_tools(None).await.unwrap().tools.len(), 1);
    // The server forgets session s1: its stream ends.
    fake.lock().unwrap().streams.remove("s1");
    // The client comes back on s2, re-initializes there, and the next call works.
    let mut ok = false;
    for _ in 0..100 {
        if client.http_reinitializations() == 1 {
            ok = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(ok, "the client re-initialized on the new session");
    assert_eq!(client.list_tools(None).await.unwrap().tools.len(), 1);
    let posted = fake.lock().unwrap().posted.clone();
    let on_s2: Vec<&str> = posted
        .iter()
        .filter(|(s, _)| s == "s2")
        .map(|(_, m)| m.as_str())
        .collect();
    assert_eq!(
        on_s2,
        ["initialize", "notifications/initialized", "tools/list"]
    );
    assert!(!client.is_closed());
}

#[tokio::test]
async fn a_server_that_stays_away_closes_the_connection_with_the_reason() {
    let (url, fake) = start().await;
    let client = connect(&url).await;
    // The stream ends and the server refuses every reconnection.
    {
        let mut st = fake.lock().unwrap();
        st.down = true;
        st.streams.clear();
    }
    let mut closed = false;
    for _ in 0..200 {
        if client.is_closed() {
            closed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(closed, "the connection closes after the reconnections fail");
    let e = client.list_tools(None).await.unwrap_err();
    assert!(
        matches!(&e, ClientError::Closed(Some(w)) if w.contains("reconnecting failed")),
        "{e:?}"
    );
}
