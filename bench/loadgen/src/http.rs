//! Driving a Streamable HTTP server: C clients, each on its own keep-alive HTTP/1.1
//! connection (hyper's low-level client), one request at a time; legacy clients
//! `initialize` first and send their session id, modern ones send the 2026 headers.
//! Open-session and open-stream memory runs live here too.

use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::SendRequest;
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;

use crate::procfs;
use crate::proto::{self, Era, Workload};
use crate::stats::{RunReport, Samples};

/// Where the server listens.
#[derive(Clone)]
pub struct Target {
    /// `host:port`.
    pub authority: String,
    /// The endpoint path (`/mcp`).
    pub path: String,
}

impl Target {
    /// Parses `http://host:port/path`.
    pub fn parse(url: &str) -> Result<Self, String> {
        let rest = url.strip_prefix("http://").ok_or("only http:// URLs")?;
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        Ok(Self {
            authority: authority.into(),
            path: path.into(),
        })
    }
}

/// One client connection.
pub struct Conn {
    tx: SendRequest<Full<Bytes>>,
    target: Target,
    /// The legacy session id, once `initialize` answered.
    pub session: Option<String>,
}

/// What one POST answered.
pub struct Answer {
    pub status: StatusCode,
    pub session: Option<String>,
    pub content_type: String,
    pub body: Bytes,
}

impl Conn {
    /// Connects (TCP_NODELAY) and starts hyper's connection task.
    pub async fn open(target: &Target) -> Result<Self, String> {
        let tcp = tokio::net::TcpStream::connect(&target.authority)
            .await
            .map_err(|e| format!("connecting to {}: {e}", target.authority))?;
        let _ = tcp.set_nodelay(true);
        let (tx, conn) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .map_err(|e| format!("handshake: {e}"))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        Ok(Self {
            tx,
            target: target.clone(),
            session: None,
        })
    }

    fn request(
        &self,
        era: Era,
        method: &str,
        name: Option<&str>,
        body: Vec<u8>,
    ) -> Request<Full<Bytes>> {
        let mut b = Request::post(self.target.path.as_str())
            .header("host", self.target.authority.as_str())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        match era {
            Era::Legacy => {
                if let Some(s) = &self.session {
                    b = b
                        .header("mcp-session-id", s.as_str())
                        .header("mcp-protocol-version", proto::LEGACY);
                }
            }
            Era::Modern => {
                b = b
                    .header("mcp-protocol-version", proto::MODERN)
                    .header("mcp-method", method);
                if let Some(n) = name {
                    b = b.header("mcp-name", n);
                }
            }
        }
        b.body(Full::new(Bytes::from(body)))
            .expect("valid request parts")
    }

    /// Sends one POST and reads the whole answer.
    pub async fn post(
        &mut self,
        era: Era,
        method: &str,
        name: Option<&str>,
        body: Vec<u8>,
    ) -> Result<Answer, String> {
        let req = self.request(era, method, name, body);
        self.tx
            .ready()
            .await
            .map_err(|e| format!("connection: {e}"))?;
        let resp = self
            .tx
            .send_request(req)
            .await
            .map_err(|e| format!("request: {e}"))?;
        let status = resp.status();
        let header = |n: &str| {
            resp.headers()
                .get(n)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
        };
        let session = header("mcp-session-id");
        let content_type = header("content-type").unwrap_or_default();
        let body = resp
            .into_body()
            .collect()
            .await
            .map_err(|e| format!("body: {e}"))?
            .to_bytes();
        Ok(Answer {
            status,
            session,
            content_type,
            body,
        })
    }

    /// Legacy `initialize` + `notifications/initialized`; keeps the session id.
    pub async fn initialize(&mut self) -> Result<(), String> {
        let a = self
            .post(
                Era::Legacy,
                "initialize",
                None,
                proto::initialize_line().into_bytes(),
            )
            .await?;
        if a.status != StatusCode::OK {
            return Err(format!(
                "initialize: HTTP {}: {}",
                a.status,
                proto::preview(&a.body)
            ));
        }
        let msg = json_message(&a)
            .ok_or_else(|| format!("initialize: no message in {}", proto::preview(&a.body)))?;
        proto::check_initialize(&msg)?;
        self.session = a.session;
        let a = self
            .post(
                Era::Legacy,
                "notifications/initialized",
                None,
                proto::INITIALIZED.as_bytes().to_vec(),
            )
            .await?;
        if a.status != StatusCode::ACCEPTED {
            return Err(format!("notifications/initialized: HTTP {}", a.status));
        }
        Ok(())
    }
}

/// The JSON-RPC response in an answer: the body itself, or the SSE event that carries an id.
pub fn json_message(a: &Answer) -> Option<Vec<u8>> {
    if !a.content_type.starts_with("text/event-stream") {
        return Some(a.body.to_vec());
    }
    let text = std::str::from_utf8(&a.body).ok()?.replace("\r\n", "\n");
    for event in text.split("\n\n") {
        let data: Vec<&str> = event
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        let data = data.join("\n");
        if data.contains("\"id\"") && (data.contains("\"result\"") || data.contains("\"error\"")) {
            return Some(data.into_bytes());
        }
    }
    None
}

/// Options of a throughput run.
pub struct RunOpts {
    pub clients: usize,
    pub warmup: Duration,
    pub duration: Duration,
    pub pid: Option<u32>,
}

struct ClientResult {
    calls: u64,
    answered: u64,
    samples: Vec<u64>,
    errors: u64,
    first_error: Option<String>,
}

async fn client(
    index: u64,
    target: Target,
    work: Workload,
    from: Instant,
    end: Instant,
) -> Result<ClientResult, String> {
    let mut conn = Conn::open(&target).await?;
    if work.era == Era::Legacy {
        conn.initialize().await?;
    }
    let mut out = ClientResult {
        calls: 0,
        answered: 0,
        samples: Vec::with_capacity(1 << 16),
        errors: 0,
        first_error: None,
    };
    let mut id = index * 1_000_000_000;
    while Instant::now() < end {
        id += 1;
        let mut body = Vec::with_capacity(work.payload.len() + 256);
        work.write_call(id, &mut body);
        let sent = Instant::now();
        let a = conn
            .post(work.era, "tools/call", Some(work.tool_name()), body)
            .await?;
        let took = sent.elapsed();
        let verdict = match (a.status, json_message(&a)) {
            (StatusCode::OK, Some(msg)) => match work.check(&msg) {
                Ok(Some(got)) if got == id => Ok(()),
                Ok(other) => Err(format!("answer {other:?} for id {id}")),
                Err(e) => Err(e),
            },
            (status, _) => Err(format!("HTTP {status}: {}", proto::preview(&a.body))),
        };
        if verdict.is_ok() && sent < from {
            out.answered += 1;
        }
        if let Err(e) = verdict {
            out.errors += 1;
            out.first_error.get_or_insert(e);
        } else if sent >= from {
            out.answered += 1;
            out.calls += 1;
            out.samples.push(took.as_nanos() as u64);
        }
    }
    Ok(out)
}

/// C clients calling for `warmup + duration`; calls sent after the warm-up count.
pub async fn run(target: &Target, work: &Workload, opts: &RunOpts) -> Result<RunReport, String> {
    let t0 = Instant::now();
    let (from, end) = (t0 + opts.warmup, t0 + opts.warmup + opts.duration);
    let cpu0 = tokio::spawn({
        let pid = opts.pid;
        async move {
            tokio::time::sleep_until(from.into()).await;
            pid.and_then(procfs::cpu_secs)
        }
    });
    let tasks: Vec<_> = (0..opts.clients as u64)
        .map(|i| tokio::spawn(client(i + 1, target.clone(), work.clone(), from, end)))
        .collect();
    let mut report = RunReport {
        calls: 0,
        answered: 0,
        elapsed: Duration::ZERO,
        samples: Samples(Vec::new()),
        peak_rss_kib: None,
        server_cpu_secs: None,
        errors: 0,
        first_error: None,
    };
    for t in tasks {
        let r = t.await.map_err(|e| format!("client task: {e}"))??;
        report.calls += r.calls;
        report.answered += r.answered;
        report.samples.0.extend(r.samples);
        report.errors += r.errors;
        if report.first_error.is_none() {
            report.first_error = r.first_error;
        }
    }
    report.elapsed = Instant::now().saturating_duration_since(from);
    let cpu0 = cpu0.await.ok().flatten();
    if let Some(pid) = opts.pid {
        report.server_cpu_secs = procfs::cpu_secs(pid).zip(cpu0).map(|(b, a)| b - a);
        report.peak_rss_kib = procfs::status_kib(pid, "VmHWM");
    }
    Ok(report)
}

/// Opens `count` legacy sessions (16 connections at a time) and reports the server's memory
/// before and after. The sessions stay open on the server (they expire only when idle long).
pub async fn sessions(
    target: &Target,
    count: usize,
    pid: u32,
) -> Result<serde_json::Value, String> {
    let before = procfs::status_kib(pid, "VmRSS").ok_or("no VmRSS for --pid")?;
    let workers = 16;
    let tasks: Vec<_> = (0..workers)
        .map(|w| {
            let target = target.clone();
            tokio::spawn(async move {
                let mut ids = Vec::new();
                let mut conn = Conn::open(&target).await?;
                for _ in (w..count).step_by(workers) {
                    conn.session = None;
                    conn.initialize().await?;
                    ids.push(conn.session.take().ok_or("initialize gave no session id")?);
                }
                Ok::<_, String>(ids)
            })
        })
        .collect();
    let mut ids = std::collections::HashSet::new();
    for t in tasks {
        for id in t.await.map_err(|e| format!("task: {e}"))?? {
            if !ids.insert(id.clone()) {
                return Err(format!("session id {id} handed out twice"));
            }
        }
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = procfs::status_kib(pid, "VmRSS").ok_or("no VmRSS")?;
    Ok(serde_json::json!({
        "sessions": ids.len(),
        "rss_before_kib": before,
        "rss_kib": after,
        "peak_rss_kib": procfs::status_kib(pid, "VmHWM"),
        "bytes_per_session": (after.saturating_sub(before) * 1024) as f64 / ids.len().max(1) as f64,
    }))
}

/// Opens `count` 2026 `subscriptions/listen` streams (one connection each) and keeps them
/// open while it reads the server's memory. `supported: false` when the server does not
/// answer the first one with an event stream.
pub async fn listen(target: &Target, count: usize, pid: u32) -> Result<serde_json::Value, String> {
    let before = procfs::status_kib(pid, "VmRSS").ok_or("no VmRSS for --pid")?;
    let mut open = Vec::with_capacity(count);
    for i in 0..count {
        let mut conn = Conn::open(target).await?;
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{i},"method":"subscriptions/listen","params":{{"notifications":{{"toolsListChanged":true}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"{}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}}}"#,
            proto::MODERN
        );
        let req = conn.request(Era::Modern, "subscriptions/listen", None, body.into_bytes());
        conn.tx
            .ready()
            .await
            .map_err(|e| format!("connection: {e}"))?;
        let resp = conn
            .tx
            .send_request(req)
            .await
            .map_err(|e| format!("request: {e}"))?;
        let ct = resp
            .headers()
            .get("content-type")
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_owned();
        if resp.status() != StatusCode::OK || !ct.starts_with("text/event-stream") {
            let status = resp.status();
            let body = resp
                .into_body()
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            return Ok(serde_json::json!({
                "supported": false,
                "opened": i,
                "status": status.as_u16(),
                "answer": proto::preview(&body),
            }));
        }
        let mut body = resp.into_body();
        // The acknowledgement (the first `data:` event; comments and priming events before
        // it are skipped) must name this stream's request id.
        let mut seen = Vec::new();
        let ack = loop {
            if let Some(event) = first_data_event(&seen) {
                break event;
            }
            match tokio::time::timeout(Duration::from_secs(5), body.frame()).await {
                Ok(Some(Ok(f))) => {
                    if let Ok(data) = f.into_data() {
                        seen.extend_from_slice(&data);
                    }
                }
                other => {
                    return Err(format!(
                        "listen stream {i}: no acknowledgement ({})",
                        if other.is_ok() {
                            "stream ended"
                        } else {
                            "timeout"
                        }
                    ));
                }
            }
        };
        check_ack(&ack, i).map_err(|e| format!("listen stream {i}: {e}"))?;
        open.push((conn, body));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let after = procfs::status_kib(pid, "VmRSS").ok_or("no VmRSS")?;
    let report = serde_json::json!({
        "supported": true,
        "streams": open.len(),
        "rss_before_kib": before,
        "rss_kib": after,
        "peak_rss_kib": procfs::status_kib(pid, "VmHWM"),
        "bytes_per_stream": (after.saturating_sub(before) * 1024) as f64 / open.len().max(1) as f64,
    });
    drop(open);
    Ok(report)
}

/// The `data:` payload of the first SSE event in `buf` that has one, once it is complete.
fn first_data_event(buf: &[u8]) -> Option<String> {
    let text = String::from_utf8_lossy(buf).replace("\r\n", "\n");
    let mut rest = text.as_str();
    while let Some(end) = rest.find("\n\n") {
        let event = &rest[..end];
        let data: Vec<&str> = event
            .lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        if !data.is_empty() && data.iter().any(|d| !d.is_empty()) {
            return Some(data.join("\n"));
        }
        rest = &rest[end + 2..];
    }
    None
}

/// Checks that `event` is `notifications/subscriptions/acknowledged` for request `id`.
fn check_ack(event: &str, id: usize) -> Result<(), String> {
    let v: serde_json::Value =
        serde_json::from_str(event).map_err(|e| format!("event is not JSON ({e}): {event}"))?;
    if v["method"] != "notifications/subscriptions/acknowledged" {
        return Err(format!(
            "first event is not the acknowledgement: {}",
            proto::preview(event.as_bytes())
        ));
    }
    let sid = &v["params"]["_meta"]["io.modelcontextprotocol/subscriptionId"];
    if sid.as_u64() != Some(id as u64) {
        return Err(format!(
            "acknowledgement names subscription {sid}, not {id}"
        ));
    }
    Ok(())
}
