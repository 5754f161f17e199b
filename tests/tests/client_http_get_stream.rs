//! The standalone GET stream of a legacy Streamable HTTP session is open before
//! `notifications/initialized` is POSTed. Servers drop what they send while no GET stream
//! is open, and many send something while handling `initialized` (the TypeScript
//! `server-everything` announces the tools it registers there with
//! `notifications/tools/list_changed`; it was lost when the client opened the stream only
//! after the `202`). A server that refuses the early GET still gets one after
//! `initialized`; one without a GET stream (`405`) costs no wait.
//!
//! The server is a small in-test one that behaves like the TypeScript SDK's transport:
//! a message with no open GET stream is dropped.

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use mcp::client::Client;
use mcp::client::{ClientHandler, ConnectMode, ServerNotification};
use mcp::prelude::*;
use mcp::transport::http::axum::{self, Router, http::HeaderMap, routing};
use serde_json::{Value, json};
use tokio::sync::mpsc;

/// An SSE body fed by a channel.
struct Events(mpsc::UnboundedReceiver<String>);

impl futures_core::Stream for Events {
    type Item = Result<String, std::convert::Infallible>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.0.poll_recv(cx).map(|o| o.map(Ok))
    }
}

#[derive(Clone, Copy, PartialEq)]
enum GetPolicy {
    /// GET opens a stream at any time after `initialize`.
    Open,
    /// GET before `notifications/initialized` is 409; after it, a stream.
    RefuseEarly,
    /// No GET stream at all.
    MethodNotAllowed,
}

struct Fake {
    policy: GetPolicy,
    stream: Option<mpsc::UnboundedSender<String>>,
    initialized: bool,
    /// What the server sent with no GET stream open (and so lost).
    dropped: Vec<String>,
    /// Every GET's status.
    gets: Vec<u16>,
}

type Shared = Arc<Mutex<Fake>>;

fn sse_event(msg: &Value) -> String {
    format!("event: message\ndata: {msg}\n\n")
}

fn status(code: u16) -> axum::response::Response {
    axum::response::Response::builder()
        .status(code)
        .body(axum::body::Body::empty())
        .unwrap()
}

/// Sends `msg` on the GET stream, or drops it (as the TypeScript SDK does).
fn push(st: &mut Fake, msg: Value) {
    match &st.stream {
        Some(tx) => {
            let _ = tx.send(sse_event(&msg));
        }
        None => st
            .dropped
            .push(msg["method"].as_str().unwrap_or("?").to_owned()),
    }
}

async fn start(policy: GetPolicy) -> (String, Shared) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let fake: Shared = Arc::new(Mutex::new(Fake {
        policy,
        stream: None,
        initialized: false,
        dropped: Vec::new(),
        gets: Vec::new(),
    }));
    let (f1, f2) = (fake.clone(), fake.clone());
    let app = Router::new().route(
        "/mcp",
        routing::get(move |headers: HeaderMap| {
            let f = f1.clone();
            async move {
                let mut st = f.lock().unwrap();
                let code = if headers.get("mcp-session-id").is_none() {
                    400
                } else {
                    match st.policy {
                        GetPolicy::MethodNotAllowed => 405,
                        GetPolicy::RefuseEarly if !st.initialized => 409,
                        _ => 200,
                    }
                };
                st.gets.push(code);
                if code != 200 {
                    return status(code);
                }
                let (tx, rx) = mpsc::unbounded_channel();
                st.stream = Some(tx);
                axum::response::Response::builder()
                    .header("content-type", "text/event-stream")
                    .body(axum::body::Body::from_stream(Events(rx)))
                    .unwrap()
            }
        })
        .post(move |body: String| {
            let f = f2.clone();
            async move {
                let msg: Value = serde_json::from_str(&body).unwrap();
                let method = msg["method"].as_str().unwrap_or_default().to_owned();
                let mut st = f.lock().unwrap();
                if msg.get("id").is_none() {
                    if method == "notifications/initialized" {
                        st.initialized = true;
                        // What server-everything does on `initialized`.
                        push(
                            &mut st,
                            json!({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"}),
                        );
                    }
                    return status(202);
                }
                let result = match method.as_str() {
                    "initialize" => json!({"protocolVersion": "2025-11-25",
                        "capabilities": {"tools": {"listChanged": true}},
                        "serverInfo": {"name": "fake-get", "version": "1"}}),
                    _ => json!({}),
                };
                let resp = json!({"jsonrpc": "2.0", "id": msg["id"], "result": result});
                axum::response::Response::builder()
                    .header("content-type", "application/json")
                    .header("mcp-session-id", "s1")
                    .body(axum::body::Body::from(resp.to_string()))
                    .unwrap()
            }
        }),
    );
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, fake)
}

#[derive(Clone, Default)]
struct Seen(Arc<Mutex<Vec<String>>>);

impl ClientHandler for Seen {
    fn on_notification(&self, n: &ServerNotification) {
        self.0.lock().unwrap().push(n.method.clone());
    }
}

impl Seen {
    async fn wait_for(&self, method: &str) -> bool {
        for _ in 0..100 {
            if self.0.lock().unwrap().iter().any(|m| m == method) {
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        false
    }
}

async fn connect(url: &str, seen: &Seen) -> Client {
    Client::builder()
        .mode(ConnectMode::Legacy(ProtocolVersion::V2025_11_25))
        .handler(seen.clone())
        .connect_http(url)
        .await
        .unwrap()
}

#[tokio::test]
async fn what_the_server_sends_while_handling_initialized_reaches_the_client() {
    let (url, fake) = start(GetPolicy::Open).await;
    let seen = Seen::default();
    let client = connect(&url, &seen).await;
    assert!(
        seen.wait_for("notifications/tools/list_changed").await,
        "the list change sent on `initialized` arrived; the server dropped {:?}",
        fake.lock().unwrap().dropped
    );
    assert!(fake.lock().unwrap().dropped.is_empty());
    assert_eq!(fake.lock().unwrap().gets, [200], "one GET stream");
    client.ping().await.unwrap();
}

#[tokio::test]
async fn a_server_that_refuses_the_early_get_gets_one_after_initialized() {
    let (url, fake) = start(GetPolicy::RefuseEarly).await;
    let seen = Seen::default();
    let client = connect(&url, &seen).await;
    // The stream comes after `initialized`; later server messages use it.
    let mut open = false;
    for _ in 0..100 {
        if fake.lock().unwrap().stream.is_some() {
            open = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(open, "GETs: {:?}", fake.lock().unwrap().gets);
    assert_eq!(fake.lock().unwrap().gets, [409, 200]);
    push(
        &mut fake.lock().unwrap(),
        json!({"jsonrpc": "2.0", "method": "notifications/resources/list_changed"}),
    );
    assert!(seen.wait_for("notifications/resources/list_changed").await);
    client.ping().await.unwrap();
}

#[tokio::test]
async fn a_server_without_a_get_stream_costs_no_wait() {
    let (url, fake) = start(GetPolicy::MethodNotAllowed).await;
    let seen = Seen::default();
    let started = Instant::now();
    let client = connect(&url, &seen).await;
    assert!(
        started.elapsed() < Duration::from_secs(1),
        "connecting took {:?}",
        started.elapsed()
    );
    client.ping().await.unwrap();
    // Asked once, not again after `initialized`.
    assert_eq!(fake.lock().unwrap().gets, [405]);
    assert_eq!(
        fake.lock().unwrap().dropped,
        ["notifications/tools/list_changed"]
    );
}
