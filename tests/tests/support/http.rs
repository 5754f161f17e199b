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
