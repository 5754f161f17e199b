//! The 2026-07-28 header checks over real HTTP, with bodies written byte for byte: every
//! failure's exact error, and the bodies the server's fast scan leaves to a full parse
//! (escaped keys, repeated fields) answered as that parse reads them.

mod support;

use std::net::SocketAddr;

use mcp::prelude::*;
use mcp::transport::http::HttpOptions;
use mcp::transport::http::LoopbackHttp;
use serde_json::{Value, json};
use support::http::{self, Resp};

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(serde::Deserialize)]
struct RegionArgs {
    region: String,
}

async fn start() -> LoopbackHttp {
    let s = Server::builder("headers-test", "1.0.0")
        .tool(
            Tool::new("echo").with_input_schema(json!({"type": "object", "properties": {}})),
            |_: Context, _: NoArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text("echoed")]))
            },
        )
        .tool(
            Tool::new("regional").with_input_schema(json!({
                "type": "object",
                "properties": {"region": {"type": "string", "x-mcp-header": "Region"}}
            })),
            |_: Context, a: RegionArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(a.region)]))
            },
        )
        .without_tracing()
        .build();
    LoopbackHttp::start(&s, HttpOptions::default())
        .await
        .unwrap()
}

/// POSTs `body` as is, with `headers` (raw bytes, so a test may send invalid ones).
async fn post(addr: SocketAddr, headers: &[(&str, &[u8])], body: &str) -> Resp {
    let mut b = http::request(addr, "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    for (k, v) in headers {
        b = b.header(*k, hyper::http::HeaderValue::from_bytes(v).unwrap());
    }
    Resp::read(http::send(addr, b, body.to_owned()).await).await
}

const META: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}"#;

/// A `tools/call` whose params are `fields` (JSON members, written as given) and `_meta`.
fn call(fields: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{{fields},"_meta":{META}}}}}"#
    )
}

fn headers(name: &[u8]) -> Vec<(&str, &[u8])> {
    vec![
        ("mcp-protocol-version", b"2026-07-28"),
        ("mcp-method", b"tools/call"),
        ("mcp-name", name),
    ]
}

/// The answer's text, or its error as (status, code, message, data).
fn outcome(r: &Resp) -> Result<String, (u16, i64, String, Value)> {
    let v = r.json();
    match v.get("error") {
        Some(e) => Err((
            r.status,
            e["code"].as_i64().unwrap(),
            e["message"].as_str().unwrap().to_owned(),
            e["data"].clone(),
        )),
        None => Ok(v["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .to_owned()),
    }
}

fn mismatch(message: &str, header: &str) -> Result<String, (u16, i64, String, Value)> {
    Err((400, -32020, message.to_owned(), json!({ "header": header })))
}

#[tokio::test]
async fn each_header_failure_has_its_error() {
    let http = start().await;
    let a = http.addr();
    let echo = call(r#""name":"echo","arguments":{}"#);

    let r = post(a, &headers(b"echo"), &echo).await;
    assert_eq!(outcome(&r), Ok("echoed".into()));
    // The sentinel form of the same name, and OWS around it.
    let r = post(a, &headers(b" =?base64?ZWNobw==?=\t"), &echo).await;
    assert_eq!(outcome(&r), Ok("echoed".into()));

    let r = post(a, &headers(b"other"), &echo).await;
    let want = "Header mismatch: Mcp-Name header value 'other' does not match body value 'echo'";
    assert_eq!(outcome(&r), mismatch(want, "Mcp-Name"));

    let mut twice = headers(b"echo");
    twice.push(("mcp-name", b"echo"));
    let r = post(a, &twice, &echo).await;
    let want = "Header mismatch: header Mcp-Name appears more than once";
    assert_eq!(outcome(&r), mismatch(want, "Mcp-Name"));

    let r = post(a, &headers(b"ech\xffo"), &echo).await;
    let want = "Header mismatch: header Mcp-Name contains invalid characters";
    assert_eq!(outcome(&r), mismatch(want, "Mcp-Name"));

    let r = post(a, &headers(b"=?base64?@@?="), &echo).await;
    let Err((400, -32020, msg, data)) = outcome(&r) else {
        panic!("{}", r.body)
    };
    assert!(
        msg.starts_with("Header mismatch: header Mcp-Name has a malformed Base64 value: "),
        "{msg}"
    );
    assert_eq!(data, json!({"header": "Mcp-Name"}));

    let r = post(a, &headers(b"echo")[1..], &echo).await;
    let want = "Header mismatch: required header MCP-Protocol-Version is missing";
    assert_eq!(outcome(&r), mismatch(want, "MCP-Protocol-Version"));

    // A repeated protocol version is judged before the method and the name.
    let mut hs = headers(b"other");
    hs.push(("mcp-protocol-version", b"2026-07-28"));
    hs[1].1 = b"tools/list";
    let r = post(a, &hs, &echo).await;
    let want = "Header mismatch: header MCP-Protocol-Version appears more than once";
    assert_eq!(outcome(&r), mismatch(want, "MCP-Protocol-Version"));

    let mut hs = headers(b"other");
    hs[1].1 = b"tools/list";
    let r = post(a, &hs, &echo).await;
    let want = "Header mismatch: Mcp-Method header value 'tools/list' does not match body value 'tools/call'";
    assert_eq!(outcome(&r), mismatch(want, "Mcp-Method"));

    // Routed by its envelope (the header names a legacy revision), then refused.
    let mut hs = headers(b"echo");
    hs[0].1 = b"2025-11-25";
    let r = post(a, &hs, &echo).await;
    let want = "Header mismatch: MCP-Protocol-Version header value '2025-11-25' does not match body value '2026-07-28'";
    assert_eq!(outcome(&r), mismatch(want, "MCP-Protocol-Version"));
}

#[tokio::test]
async fn annotated_arguments_are_checked() {
    let http = start().await;
    let a = http.addr();
    let body = call(r#""name":"regional","arguments":{"region":"eu"}"#);
    let mut hs = headers(b"regional");
    hs.push(("mcp-param-region", b"eu"));
    assert_eq!(outcome(&post(a, &hs, &body).await), Ok("eu".into()));
    hs[3].1 = b"us";
    let want = "Header mismatch: Mcp-Param-Region header value 'us' does not match body value 'eu'";
    assert_eq!(
        outcome(&post(a, &hs, &body).await),
        mismatch(want, "Mcp-Param-Region")
    );
    hs.pop();
    let want = "Header mismatch: required header Mcp-Param-Region is missing";
    assert_eq!(
        outcome(&post(a, &hs, &body).await),
        mismatch(want, "Mcp-Param-Region")
    );
}

#[tokio::test]
async fn bodies_the_scan_leaves_to_the_parse_are_read_as_the_parse_reads_them() {
    let http = start().await;
    let a = http.addr();
    // An escape in the name's value: decoded, it is `echo`.
    let r = post(
        a,
        &headers(b"echo"),
        &call(r#""name":"ec\u0068o","arguments":{}"#),
    )
    .await;
    assert_eq!(outcome(&r), Ok("echoed".into()));
    // An escape in a key: the parse reads `name` all the same.
    let body = call(r#""n\u0061me":"echo","arguments":{}"#);
    assert_eq!(
        outcome(&post(a, &headers(b"echo"), &body).await),
        Ok("echoed".into())
    );
    let want = "Header mismatch: Mcp-Name header value 'other' does not match body value 'echo'";
    assert_eq!(
        outcome(&post(a, &headers(b"other"), &body).await),
        mismatch(want, "Mcp-Name")
    );
    // A repeated name: the header probe reads no name, so `Mcp-Name` is not compared; the
    // body is refused by the params checks instead.
    let body = call(r#""name":"echo","name":"echo","arguments":{}"#);
    let r = post(a, &headers(b"other"), &body).await;
    let Err((_, code, msg, _)) = outcome(&r) else {
        panic!("{}", r.body)
    };
    assert_ne!(code, -32020, "{msg}");
}

#[tokio::test]
async fn envelope_routes_header_less_requests() {
    let http = start().await;
    let a = http.addr();
    // No MCP-Protocol-Version: the `_meta` envelope makes it a 2026 request, refused for
    // the missing header.
    let r = post(a, &headers(b"echo")[1..], &call(r#""name":"echo""#)).await;
    let want = "Header mismatch: required header MCP-Protocol-Version is missing";
    assert_eq!(outcome(&r), mismatch(want, "MCP-Protocol-Version"));
    // A `_meta` without a protocol version is no envelope: the legacy rules answer.
    let body =
        r#"{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"progressToken":1}}}"#;
    let r = post(a, &[], body).await;
    let Err((_, code, msg, _)) = outcome(&r) else {
        panic!("{}", r.body)
    };
    assert_ne!(code, -32020, "{msg}");
}
