//! A raw JSON-RPC test client over an in-memory pipe: sends frames, reads frames, and keeps
//! the wire bytes so tests can assert on them exactly.

#![allow(dead_code)]

use std::time::Duration;

pub mod cluster;
pub mod http;
pub mod redis;
pub mod task_store;
#[cfg(feature = "proxy")]
pub mod upstreams;

use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, ReadHalf, WriteHalf};

/// The client end of an in-memory connection.
pub struct Wire {
    r: BufReader<ReadHalf<DuplexStream>>,
    w: WriteHalf<DuplexStream>,
}

/// The `_meta` envelope of a 2026-07-28 request.
pub fn envelope() -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "test-client", "version": "0.0.1"}
    })
}

/// `params` with the modern envelope added.
pub fn modern(mut params: Value) -> Value {
    params["_meta"] = envelope();
    params
}

impl Wire {
    /// Wraps the client end returned by `Server::serve_in_memory`.
    pub fn new(stream: DuplexStream) -> Self {
        let (r, w) = tokio::io::split(stream);
        Self {
            r: BufReader::new(r),
            w,
        }
    }

    /// Sends raw bytes as they are.
    pub async fn send_raw(&mut self, bytes: &[u8]) {
        self.w.write_all(bytes).await.unwrap();
        self.w.flush().await.unwrap();
    }

    /// Sends one message as a line.
    pub async fn send(&mut self, v: &Value) {
        let mut line = serde_json::to_vec(v).unwrap();
        line.push(b'\n');
        self.send_raw(&line).await;
    }

    /// The next line, raw, waiting at most 5 s.
    pub async fn recv_line(&mut self) -> String {
        let mut line = String::new();
        let n = tokio::time::timeout(Duration::from_secs(5), self.r.read_line(&mut line))
            .await
            .expect("timed out waiting for a frame")
            .unwrap();
        assert!(n > 0, "connection closed");
        line.trim_end().to_owned()
    }

    /// The next message.
    pub async fn recv(&mut self) -> Value {
        let line = self.recv_line().await;
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }

    /// Asserts that nothing arrives within `ms` milliseconds.
    pub async fn expect_silence(&mut self, ms: u64) {
        let mut line = String::new();
        if let Ok(r) =
            tokio::time::timeout(Duration::from_millis(ms), self.r.read_line(&mut line)).await
        {
            let n = r.unwrap();
            assert!(n == 0, "expected silence, got: {line}");
        }
    }

    /// Sends a request and returns its response (skipping notifications in between).
    pub async fn request(&mut self, id: Value, method: &str, params: Value) -> Value {
        self.send(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .await;
        self.response(id).await.0
    }

    /// Reads until the response to `id`; it and every message before it, answering none.
    pub async fn response(&mut self, id: Value) -> (Value, Vec<Value>) {
        let mut before = Vec::new();
        loop {
            let v = self.recv().await;
            if v.get("id") == Some(&id) && v.get("method").is_none() {
                return (v, before);
            }
            before.push(v);
        }
    }

    /// Sends a notification.
    pub async fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({"jsonrpc": "2.0", "method": method, "params": params}))
            .await;
    }

    /// The legacy handshake at `version`; returns the `InitializeResult`.
    pub async fn initialize(&mut self, version: &str) -> Value {
        let r = self
            .request(
                json!(0),
                "initialize",
                json!({
                    "protocolVersion": version,
                    "capabilities": {},
                    "clientInfo": {"name": "test-client", "version": "0.0.1"}
                }),
            )
            .await;
        assert!(r.get("result").is_some(), "initialize failed: {r}");
        self.notify("notifications/initialized", json!({})).await;
        r["result"].clone()
    }

    /// The reading and writing halves, for a test that reads and writes at once.
    pub fn into_parts(self) -> (BufReader<ReadHalf<DuplexStream>>, WriteHalf<DuplexStream>) {
        (self.r, self.w)
    }

    /// Closes the client's writing side (EOF for the server).
    pub async fn close(&mut self) {
        self.w.shutdown().await.unwrap();
    }
}

/// The error code of a response (panics when it is not an error).
pub fn code(resp: &Value) -> i64 {
    resp["error"]["code"]
        .as_i64()
        .unwrap_or_else(|| panic!("not an error: {resp}"))
}
