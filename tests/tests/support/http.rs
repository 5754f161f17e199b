//! Raw HTTP/1.1 for the HTTP transport tests: one request per connection (so each test
//! controls every header it sends), and the whole answer read within a deadline.

use std::net::SocketAddr;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use serde_json::Value;

/// A request to `path` on `addr` with the `Host` header of the loopback address.
pub fn request(addr: SocketAddr, method: &str, path: &str) -> hyper::http::request::Builder {
    hyper::Request::builder()
        .method(method)
        .uri(path)
        .header("host", format!("127.0.0.1:{}", addr.port()))
}

/// Sends `req` with `body` on a new connection to `addr`; the response with its body unread.
pub async fn send(
    addr: SocketAddr,
    req: hyper::http::request::Builder,
    body: String,
) -> hyper::Response<Incoming> {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let req = req.body(Full::new(Bytes::from(body))).unwrap();
    sender.send_request(req).await.unwrap()
}

/// A request to `/mcp` accepting JSON and SSE, in the 2025-11-25 `session` when given
/// (its id and protocol version headers), resuming after `last_event_id` when given.
pub fn mcp_request(
    addr: SocketAddr,
    method: &str,
    session: Option<&str>,
    last_event_id: Option<&str>,
) -> hyper::http::request::Builder {
    let mut req = request(addr, method, "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(s) = session {
        req = req
            .header("mcp-session-id", s)
            .header("mcp-protocol-version", "2025-11-25");
    }
    if let Some(id) = last_event_id {
        req = req.header("last-event-id", id);
    }
    req
}

/// [`mcp_request`] sent with `body` (none: empty), the whole answer within 10 s.
pub async fn mcp_send(
    addr: SocketAddr,
    method: &str,
    session: Option<&str>,
    body: Option<Value>,
    last_event_id: Option<&str>,
) -> Resp {
    let req = mcp_request(addr, method, session, last_event_id);
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let r = tokio::time::timeout(Duration::from_secs(10), send(addr, req, body))
        .await
        .expect("an answer in time");
    Resp::read(r).await
}

/// A server of ours served over HTTP on a loopback port, stopped when dropped.
#[cfg(feature = "http")]
pub struct Served {
    pub addr: SocketAddr,
    stop: mcp::CancellationToken,
}

#[cfg(feature = "http")]
impl Drop for Served {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

/// Serves `server` with `opts` on a free loopback port.
#[cfg(feature = "http")]
pub async fn serve<C, H>(
    server: mcp::Server<C, H>,
    opts: mcp::transport::http::HttpOptions,
) -> Served
where
    C: mcp::middleware::Chain + 'static,
    H: mcp::ServerHandler,
{
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = mcp::CancellationToken::new();
    let st = stop.clone();
    tokio::spawn(async move { server.serve_http_on(listener, opts, st).await });
    Served { addr, stop }
}

/// The (id, data) of each complete event of an SSE body that has an id.
pub fn sse_events(body: &str) -> Vec<(String, String)> {
    let complete = &body[..body.rfind("\n\n").map_or(0, |i| i + 2)];
    complete
        .split("\n\n")
        .filter_map(|block| {
            let mut id = None;
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("id: ") {
                    id = Some(v.to_owned());
                } else if let Some(v) = line.strip_prefix("data: ") {
                    data.push_str(v);
                }
            }
            Some((id?, data))
        })
        .collect()
}

/// Reads `body` into `buf` until `done(buf)` (each frame within 10 s).
pub async fn read_until(body: &mut Incoming, buf: &mut String, done: impl Fn(&str) -> bool) {
    while !done(buf) {
        match tokio::time::timeout(Duration::from_secs(10), body.frame()).await {
            Ok(Some(Ok(f))) => {
                if let Ok(d) = f.into_data() {
                    buf.push_str(&String::from_utf8_lossy(&d));
                }
            }
            other => panic!("the stream stalled or ended ({other:?}): {buf}"),
        }
    }
}

/// Reads `body` into `buf` to its end (within 10 s).
pub async fn read_to_end(body: &mut Incoming, buf: &mut String) {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        match tokio::time::timeout_at(deadline, body.frame()).await {
            Ok(Some(Ok(f))) => {
                if let Ok(d) = f.into_data() {
                    buf.push_str(&String::from_utf8_lossy(&d));
                }
            }
            Ok(None) => return,
            other => panic!("the stream did not end ({other:?}): {buf}"),
        }
    }
}

/// A whole response.
pub struct Resp {
    pub status: u16,
    pub headers: hyper::HeaderMap,
    pub body: String,
}

impl Resp {
    /// Reads all of `r` (panics after 10 s).
    pub async fn read(r: hyper::Response<Incoming>) -> Self {
        let status = r.status().as_u16();
        let headers = r.headers().clone();
        let bytes = tokio::time::timeout(Duration::from_secs(10), r.into_body().collect())
            .await
            .expect("body in time")
            .unwrap()
            .to_bytes();
        Resp {
            status,
            headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        }
    }

    /// The body as JSON (panics, showing it, when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("{e}: {}", self.body))
    }

    /// A header's value, if present and text.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The JSON messages of an SSE body.
    pub fn events(&self) -> Vec<Value> {
        self.body
            .lines()
            .filter_map(|l| l.strip_prefix("data: "))
            .filter_map(|d| serde_json::from_str(d).ok())
            .collect()
    }
}
