//! The HTTP floor: a bare hyper HTTP/1.1 server that answers the benchmark's JSON-RPC POSTs
//! with `application/json`, parsing with serde_json. It checks nothing it does not need
//! (no headers, no sessions beyond handing out one id), so its figures are what hyper and the
//! machine allow.
//!
//! `floor-http 127.0.0.1:PORT`

use std::convert::Infallible;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde::Deserialize;
use serde_json::value::RawValue;

#[derive(Deserialize)]
struct Rpc<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    method: &'a str,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Call<'a> {
    name: &'a str,
    #[serde(borrow)]
    arguments: &'a RawValue,
}

#[derive(Deserialize)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(Deserialize)]
struct Echo<'a> {
    #[serde(borrow)]
    text: std::borrow::Cow<'a, str>,
}

fn reply(status: StatusCode, body: Vec<u8>, session: bool) -> Response<Full<Bytes>> {
    let mut b = Response::builder().status(status);
    if !body.is_empty() {
        b = b.header("content-type", "application/json");
    }
    if session {
        b = b.header("mcp-session-id", "floor");
    }
    b.body(Full::new(Bytes::from(body)))
        .expect("static response parts")
}

fn answer(body: &[u8]) -> Response<Full<Bytes>> {
    let Ok(rpc) = serde_json::from_slice::<Rpc>(body) else {
        return reply(StatusCode::BAD_REQUEST, Vec::new(), false);
    };
    let Some(id) = rpc.id else {
        return reply(StatusCode::ACCEPTED, Vec::new(), false);
    };
    let mut out = Vec::with_capacity(body.len() + 96);
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.get().as_bytes());
    if rpc.method == "initialize" {
        out.extend_from_slice(br#","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0"}}}"#);
        return reply(StatusCode::OK, out, true);
    }
    let text = match (rpc.method, rpc.params) {
        ("tools/call", Some(p)) => match serde_json::from_str::<Call>(p.get()) {
            Ok(c) if c.name == "add" => serde_json::from_str::<Add>(c.arguments.get())
                .map(|a| (a.a + a.b).to_string())
                .ok(),
            Ok(c) if c.name == "echo" => serde_json::from_str::<Echo>(c.arguments.get())
                .map(|e| e.text.into_owned())
                .ok(),
            _ => None,
        },
        _ => None,
    };
    match text {
        Some(t) => {
            out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
            serde_json::to_writer(&mut out, &t).expect("writing to a Vec");
            out.extend_from_slice(br#"}],"isError":false}}"#);
        }
        None => out.extend_from_slice(br#","error":{"code":-32602,"message":"Invalid params"}}"#),
    }
    reply(StatusCode::OK, out, false)
}

async fn handle(req: Request<Incoming>) -> Result<Response<Full<Bytes>>, Infallible> {
    match req.into_body().collect().await {
        Ok(body) => Ok(answer(&body.to_bytes())),
        Err(_) => Ok(reply(StatusCode::BAD_REQUEST, Vec::new(), false)),
    }
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3990".into());
    let listener = tokio::net::TcpListener::bind(addr.as_str()).await?;
    loop {
        let (tcp, _) = listener.accept().await?;
        let _ = tcp.set_nodelay(true);
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .timer(TokioTimer::new())
                .serve_connection(TokioIo::new(tcp), hyper::service::service_fn(handle))
                .await;
        });
    }
}
