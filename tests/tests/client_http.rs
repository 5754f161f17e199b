//! `mcp::client::Client` over HTTP against our own server on loopback: legacy Streamable HTTP at
//! 2025-11-25 and 2025-03-26, pinned 2026-07-28, auto detection (modern, legacy fallback,
//! 2024-11-05 HTTP+SSE fallback), the explicit HTTP+SSE transport, progress, session
//! re-initialization after a 404, cancellation by drop, `Mcp-Param-*` headers, bearer
//! tokens and extra headers.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use http_body_util::Full;
use hyper::body::Bytes;
use mcp::CancellationToken;
use mcp::client::Client;
use mcp::client::{ClientError, ConnectMode, RequestOptions, Transport};
use mcp::prelude::*;
use mcp::transport::http::{HttpOptions, HttpRequest};
use mcp::version::SupportedVersions;
use serde_json::{Value, json};
use tokio::sync::Notify;

use ProtocolVersion as V;

#[derive(serde::Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(serde::Deserialize)]
struct StepsArgs {
    steps: u32,
}

#[derive(serde::Deserialize)]
struct RegionArgs {
    #[allow(dead_code)]
    region: String,
}

fn schema(props: Value) -> Value {
    json!({"type": "object", "properties": props})
}

#[derive(Default)]
struct Probe {
    started: Notify,
    cancelled: AtomicBool,
    done: Notify,
}

fn header_of(ctx: &Context, name: &str) -> String {
    ctx.extensions()
        .get::<HttpRequest>()
        .and_then(|r| r.headers.get(name))
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned()
}

fn server(probe: Arc<Probe>, versions: SupportedVersions) -> Server {
    Server::builder("http-client-test", "1.0.0")
        .supported_versions(versions)
        .tool(
            Tool::new("add").with_input_schema(schema(
                json!({"a": {"type": "integer"}, "b": {"type": "integer"}}),
            )),
            |_ctx, a: AddArgs| async move { Ok(CallToolResult::structured(json!({"sum": a.a + a.b}))) },
        )
        .tool(
            Tool::new("progress").with_input_schema(schema(json!({"steps": {"type": "integer"}}))),
            |ctx, a: StepsArgs| async move {
                for i in 1..=a.steps {
                    ctx.progress(i as f64, Some(a.steps as f64), Some("step"))
                        .await
                        .unwrap();
                }
                Ok(CallToolResult::success(vec![ContentBlock::text("done")]))
            },
        )
        .tool(
            Tool::new("headers").with_input_schema(schema(json!({}))),
            |ctx, _a: NoArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "x-test={} auth={}",
                    header_of(&ctx, "x-test"),
                    header_of(&ctx, "authorization")
                ))]))
            },
        )
        .tool(
            Tool::new("region").with_input_schema(schema(
                json!({"region": {"type": "string", "x-mcp-header": "Region"}}),
            )),
            |ctx, _a: RegionArgs| async move {
                Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                    "param={} method={} name={}",
                    header_of(&ctx, "mcp-param-region"),
                    header_of(&ctx, "mcp-method"),
                    header_of(&ctx, "mcp-name"),
                ))]))
            },
        )
        .tool(
            Tool::new("hang").with_input_schema(schema(json!({}))),
            move |ctx, _a: NoArgs| {
                let probe = probe.clone();
                async move {
                    struct Seen(Arc<Probe>, Context);
                    impl Drop for Seen {
                        fn drop(&mut self) {
                            self.0
                                .cancelled
                                .store(self.1.is_cancelled(), Ordering::SeqCst);
                            self.0.done.notify_one();
                        }
                    }
                    let _seen = Seen(probe.clone(), ctx.clone());
                    probe.started.notify_one();
                    ctx.cancellation().cancelled().await;
                    Ok(CallToolResult::success(vec![]))
                }
            },
        )
        .without_tracing()
        .build()
}

struct Running {
    base: String,
    probe: Arc<Probe>,
    stop: CancellationToken,
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}

async fn start_with(versions: SupportedVersions, opts: HttpOptions) -> Running {
    let probe = Arc::new(Probe::default());
    let s = server(probe.clone(), versions);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let stop = CancellationToken::new();
    let st = stop.clone();
    // The 2024-11-05 transport is opt-in; these tests drive it too.
    let opts = HttpOptions {
        legacy_sse: opts
            .legacy_sse
            .or(Some(("/sse".into(), "/messages".into()))),
        ..opts
    };
    tokio::spawn(async move { s.serve_http_on(listener, opts, st).await });
    Running {
        base: format!("http://{addr}"),
        probe,
        stop,
    }
}

async fn start() -> Running {
    start_with(SupportedVersions::all(), HttpOptions::default()).await
}

async fn connect(url: &str, mode: ConnectMode) -> Client {
    Client::builder()
        .mode(mode)
        .request_timeout(Duration::from_secs(5))
        .probe_timeout(Duration::from_secs(3))
        .connect_http(url)
        .await
        .unwrap_or_else(|e| panic!("connecting to {url} ({mode:?}): {e}"))
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(&r.content[0]).unwrap()["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[derive(serde::Deserialize, Debug, PartialEq)]
struct Sum {
    sum: i64,
}

/// The calls every transport × revision must carry.
async fn exercise(c: &Client) {
    c.ping().await.unwrap();
    let tools = c.list_all_tools().await.unwrap();
    let names: Vec<_> = tools.iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["add", "progress", "headers", "region", "hang"]);
    let sum: Sum = c
        .call_tool_structured("add", json!({"a": 40, "b": 2}))
        .await
        .unwrap();
    assert_eq!(sum, Sum { sum: 42 });
    let e = c.call_tool("nope", ()).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602), "{e}");

    // Progress notifications arrive before the result, for this request.
    let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
    let sink = seen.clone();
    let r = c
        .call_tool_with(
            "progress",
            json!({"steps": 3}),
            RequestOptions::with_progress(move |p| sink.lock().unwrap().push(p.progress)),
        )
        .await
        .unwrap();
    assert_eq!(text(&r), "done");
    assert_eq!(*seen.lock().unwrap(), vec![1.0, 2.0, 3.0]);

    // Concurrent calls on one connection.
    let calls = (0..8).map(|i| {
        let c = c.clone();
        async move {
            let s: Sum = c
                .call_tool_structured("add", json!({"a": i, "b": 1}))
                .await
                .unwrap();
            s.sum
        }
    });
    let sums = futures_join(calls).await;
    assert_eq!(sums, (1..=8).collect::<Vec<i64>>());
}

async fn futures_join<F: std::future::Future<Output = i64> + Send + 'static>(
    fs: impl Iterator<Item = F>,
) -> Vec<i64> {
    let handles: Vec<_> = fs.map(tokio::spawn).collect();
    let mut out = Vec::new();
    for h in handles {
        out.push(h.await.unwrap());
    }
    out
}

/// A raw request with a session header (behind the client's back).
async fn raw(base: &str, method: &str, headers: &[(&str, &str)]) -> u16 {
    let uri: hyper::Uri = format!("{base}/mcp").parse().unwrap();
    let addr = uri.authority().unwrap().as_str().to_owned();
    let tcp = tokio::net::TcpStream::connect(addr.clone()).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let mut b = hyper::Request::builder()
        .method(method)
        .uri("/mcp")
        .header("host", addr);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    let r = sender
        .send_request(b.body(Full::new(Bytes::new())).unwrap())
        .await
        .unwrap();
    r.status().as_u16()
}

#[tokio::test]
async fn legacy_streamable_http_at_2025_11_25_and_2025_03_26() {
    let s = start().await;
    let url = format!("{}/mcp", s.base);
    for v in [V::V2025_11_25, V::V2025_06_18, V::V2025_03_26] {
        let c = connect(&url, ConnectMode::Legacy(v)).await;
        assert_eq!(c.protocol_version(), v);
        assert_eq!(c.transport(), Transport::StreamableHttp);
        assert_eq!(c.server_info().unwrap().name, "http-client-test");
        let sid = c.http_session_id().expect("a session");
        c.set_log_level(mcp::types::LoggingLevel::Warning)
            .await
            .unwrap();
        exercise(&c).await;
        // Shutdown DELETEs the session: the server no longer knows it.
        c.shutdown().await.unwrap();
        assert!(c.is_closed());
        assert_eq!(
            raw(
                &s.base,
                "DELETE",
                &[
                    ("mcp-session-id", &sid),
                    ("mcp-protocol-version", v.as_str())
                ]
            )
            .await,
            404
        );
    }
}

#[tokio::test]
async fn pinned_modern_over_http() {
    let s = start().await;
    let url = format!("{}/mcp", s.base);
    let c = connect(&url, ConnectMode::Modern(V::V2026_07_28)).await;
    assert_eq!(c.protocol_version(), V::V2026_07_28);
    assert_eq!(c.http_session_id(), None);
    exercise(&c).await;
    // The headers mirror the body; Mcp-Param-* from the schema of the last tools/list.
    let r = c
        .call_tool("region", json!({"region": "eu-west"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "param=eu-west method=tools/call name=region");
    c.shutdown().await.unwrap();
}

#[tokio::test]
async fn auto_picks_modern_over_http() {
    let s = start().await;
    let c = connect(&format!("{}/mcp", s.base), ConnectMode::Auto).await;
    assert_eq!(c.protocol_version(), V::V2026_07_28);
    exercise(&c).await;
    // The era is remembered for the URL: the next connection goes straight there.
    let c2 = connect(&format!("{}/mcp", s.base), ConnectMode::Auto).await;
    assert_eq!(c2.protocol_version(), V::V2026_07_28);
}

#[tokio::test]
async fn auto_falls_back_to_legacy_on_a_legacy_only_server() {
    let s = start_with(
        SupportedVersions::only(&[V::V2025_11_25, V::V2025_06_18]),
        HttpOptions::default(),
    )
    .await;
    let c = connect(&format!("{}/mcp", s.base), ConnectMode::Auto).await;
    assert_eq!(c.protocol_version(), V::V2025_11_25);
    assert_eq!(c.transport(), Transport::StreamableHttp);
    assert!(c.http_session_id().is_some());
    exercise(&c).await;
}

#[tokio::test]
async fn pinned_modern_against_a_legacy_only_server_fails_cleanly() {
    let s = start_with(
        SupportedVersions::only(&[V::V2025_11_25]),
        HttpOptions::default(),
    )
    .await;
    let e = Client::builder()
        .mode(ConnectMode::Modern(V::V2026_07_28))
        .connect_http(&format!("{}/mcp", s.base))
        .await
        .expect_err("must fail");
    // The server's answer to a 2026 request where only the handshake is spoken, the same
    // on every transport (tests/admission.rs): -32600 naming the revisions it serves.
    assert_eq!(e.code(), Some(-32600), "{e}");
    assert!(
        e.to_string()
            .contains("only the initialize handshake (2025-11-25)"),
        "{e}"
    );
}

#[tokio::test]
async fn http_sse_2024_11_05_explicitly() {
    let s = start().await;
    let c = Client::builder()
        .mode(ConnectMode::Legacy(V::V2024_11_05))
        .request_timeout(Duration::from_secs(5))
        .connect_sse(&format!("{}/sse", s.base))
        .await
        .unwrap();
    assert_eq!(c.protocol_version(), V::V2024_11_05);
    assert_eq!(c.transport(), Transport::HttpSse);
    exercise(&c).await;
    c.shutdown().await.unwrap();
}

#[tokio::test]
async fn auto_falls_back_to_http_sse_on_an_sse_only_server() {
    let s = start_with(
        SupportedVersions::all(),
        HttpOptions {
            // Streamable HTTP elsewhere: the URL serves only the old transport.
            path: "/streamable-elsewhere".into(),
            legacy_sse: Some(("/sse".into(), "/messages".into())),
            ..HttpOptions::default()
        },
    )
    .await;
    let c = connect(&format!("{}/sse", s.base), ConnectMode::Auto).await;
    assert_eq!(c.transport(), Transport::HttpSse);
    assert_eq!(c.protocol_version().era(), Era::Legacy);
    exercise(&c).await;
}

#[tokio::test]
async fn a_forgotten_session_is_reinitialized() {
    let s = start().await;
    let c = connect(
        &format!("{}/mcp", s.base),
        ConnectMode::Legacy(V::V2025_11_25),
    )
    .await;
    let sid = c.http_session_id().unwrap();
    c.ping().await.unwrap();
    // The server forgets the session behind the client's back.
    assert_eq!(
        raw(
            &s.base,
            "DELETE",
            &[
                ("mcp-session-id", &sid),
                ("mcp-protocol-version", "2025-11-25")
            ]
        )
        .await,
        200
    );
    let sum: Sum = c
        .call_tool_structured("add", json!({"a": 1, "b": 2}))
        .await
        .unwrap();
    assert_eq!(sum.sum, 3);
    assert_eq!(c.http_reinitializations(), 1);
    let sid2 = c.http_session_id().unwrap();
    assert_ne!(sid, sid2);
    exercise(&c).await;
}

#[tokio::test]
async fn dropping_a_call_cancels_it_over_http() {
    for mode in [
        ConnectMode::Modern(V::V2026_07_28),
        ConnectMode::Legacy(V::V2025_11_25),
    ] {
        let s = start().await;
        let c = connect(&format!("{}/mcp", s.base), mode).await;
        let call = tokio::spawn({
            let c = c.clone();
            async move { c.call_tool("hang", ()).await }
        });
        tokio::time::timeout(Duration::from_secs(5), s.probe.started.notified())
            .await
            .expect("the tool started");
        call.abort();
        let _ = call.await;
        tokio::time::timeout(Duration::from_secs(5), s.probe.done.notified())
            .await
            .unwrap_or_else(|_| panic!("the server saw the cancellation ({mode:?})"));
        assert!(s.probe.cancelled.load(Ordering::SeqCst));
        c.ping().await.unwrap();
    }
}

#[tokio::test]
async fn extra_headers_and_bearer_tokens_go_on_every_request() {
    let s = start().await;
    for mode in [
        ConnectMode::Modern(V::V2026_07_28),
        ConnectMode::Legacy(V::V2025_11_25),
    ] {
        let c = Client::builder()
            .mode(mode)
            .header("x-test", "yes")
            .bearer_token("t0ken")
            .connect_http(&format!("{}/mcp", s.base))
            .await
            .unwrap();
        let r = c.call_tool("headers", ()).await.unwrap();
        assert_eq!(text(&r), "x-test=yes auth=Bearer t0ken");
    }
}

#[tokio::test]
async fn connection_errors_are_errors() {
    // Nothing listens there.
    let l = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = l.local_addr().unwrap();
    drop(l);
    let e = Client::builder()
        .connect_http(&format!("http://{addr}/mcp"))
        .await
        .expect_err("must fail");
    assert!(matches!(e, ClientError::Io(_)), "{e}");
    let e = Client::connect_http("https://example.invalid/mcp")
        .await
        .expect_err("must fail");
    // With the `tls` feature the name lookup fails; without it there is no TLS at all.
    #[cfg(feature = "tls")]
    assert!(matches!(e, ClientError::Io(_)), "{e}");
    #[cfg(not(feature = "tls"))]
    assert!(
        matches!(e, ClientError::Unsupported(ref m) if m.contains("`tls` feature")),
        "{e}"
    );
}

#[tokio::test]
async fn a_header_mismatch_refreshes_the_tool_list_and_retries_once() {
    // No tools/list yet: the client cannot know `region` mirrors into Mcp-Param-Region,
    // the server answers -32020, the client lists the tools and sends the call again.
    let s = start().await;
    let url = format!("{}/mcp", s.base);
    let c = connect(&url, ConnectMode::Modern(V::V2026_07_28)).await;
    let r = c
        .call_tool("region", json!({"region": "eu-west"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "param=eu-west method=tools/call name=region");
    c.shutdown().await.unwrap();
}
