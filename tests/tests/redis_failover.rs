//! A Redis failover under the official Python SDK client (features `http`, `redis`): the
//! deployment of `deploy/cluster.sh --redis sentinel` (a Redis primary, two replicas and
//! three Sentinels) or `--redis cluster` (three primaries, a replica of each), three
//! `examples/everything` replicas and nginx round-robin in front; the Python client's
//! Streamable HTTP exercise (`interop/python/test_failover.py`, at 2025-11-25 and
//! 2026-07-28) run again and again through nginx while a primary is SIGKILLed
//! (`redis-failover`) and NOT brought back.
//!
//! It shows: within 10 s of the kill new sessions and calls succeed again through nginx,
//! five in a row, anything refused before them a 503 (under Sentinel the promoted replica has the other replica to acknowledge writes; under
//! Cluster it has none, and writes are acknowledged with a warning, the default); every
//! Python run passes, a run that met a 503 (each with `Retry-After`) during the failover
//! window run again by the script, and nothing else met (no 404 or 410: no session or
//! stream acknowledged and then lost; no other 5xx, no hang); and what was acknowledged
//! before the kill is served after it, within the same 10 s: a legacy session opened before
//! it (under Cluster, one whose keys the killed primary held) still serves calls, and the
//! events of a stream answered before it are replayed from `Last-Event-ID`.
//!
//! Needs `redis-server`, `nginx` and the Python SDK venv (`interop/cli/setup.sh`, which
//! `.ci/run` runs first; `INTEROP_VENV` or `target/interop-venv`): without them the test
//! fails when `CI` is set and says `SKIPPED` otherwise. The two tests take turns (each
//! runs a whole deployment).

mod support;

use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use support::cluster::{Cluster, Redis};
use support::http::{self, Resp};

/// One POST through nginx, its whole answer read (10 s at most).
async fn post(c: &Cluster, sid: Option<&str>, body: &Value) -> Resp {
    let mut b = http::request(c.addr(), "POST", "/mcp")
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream");
    if let Some(sid) = sid {
        b = b
            .header("mcp-session-id", sid)
            .header("mcp-protocol-version", "2025-11-25");
    }
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        http::send(c.addr(), b, body.to_string()),
    )
    .await
    .expect("an answer in time");
    Resp::read(r).await
}

/// A GET resuming a legacy session's stream after `last`, read to its end.
async fn resume(c: &Cluster, sid: &str, last: &str) -> Resp {
    let b = http::request(c.addr(), "GET", "/mcp")
        .header("accept", "text/event-stream")
        .header("mcp-session-id", sid)
        .header("mcp-protocol-version", "2025-11-25")
        .header("last-event-id", last);
    let r = tokio::time::timeout(
        Duration::from_secs(10),
        http::send(c.addr(), b, String::new()),
    )
    .await
    .expect("an answer in time");
    Resp::read(r).await
}

/// How long after the kill of a primary the deployment must serve a new session and call
/// again (issue 45).
const BACK_WITHIN: Duration = Duration::from_secs(10);

/// How long after the kill every replica of ours must serve, five new sessions in a row,
/// and what was acknowledged before the kill must be served. Under Cluster, after the first
/// new session is served, a replica of ours may still meet a node that has not heard of the
/// promotion and redirects to the dead primary (a 503 with `Retry-After`): measured here
/// 0-1.8 s after the first success, but twice in CI (two cores, loaded) still at 10 s.
const SETTLED_WITHIN: Duration = Duration::from_secs(25);

/// Sends until the answer is no 503 (each with `Retry-After`), until `deadline`.
async fn past_503<F, Fut>(what: &str, deadline: Instant, mut send: F) -> Resp
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Resp>,
{
    loop {
        let r = send().await;
        if r.status != 503 {
            return r;
        }
        assert_eq!(
            r.header("retry-after"),
            Some("1"),
            "{what}: a 503 says when"
        );
        assert!(
            Instant::now() < deadline,
            "{what}: still 503 {SETTLED_WITHIN:?} after the kill: {}",
            r.body
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// The `(id, data)` of each event of an SSE body.
fn events(body: &str) -> Vec<(String, String)> {
    body.split("\n\n")
        .filter_map(|block| {
            let mut id = None;
            let mut data = Vec::new();
            for l in block.lines() {
                if let Some(v) = l.strip_prefix("id: ") {
                    id = Some(v.to_owned());
                } else if let Some(v) = l.strip_prefix("data: ") {
                    data.push(v);
                }
            }
            Some((id?, data.join("\n")))
        })
        .collect()
}

/// A legacy session opened through nginx, and a countdown streamed to its answer in it:
/// the session id and the stored events (ids and data), the priming event first.
async fn acknowledged_before(c: &Cluster) -> (String, Vec<(String, String)>) {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "failover-test", "version": "1"}}});
    let r = post(c, None, &init).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let sid = r.header("mcp-session-id").expect("a session id").to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    assert_eq!(post(c, Some(&sid), &note).await.status, 202);
    let countdown = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
        "name": "countdown", "arguments": {"steps": 4, "delay_ms": 10},
        "_meta": {"progressToken": "p2"}}});
    let r = post(c, Some(&sid), &countdown).await;
    assert_eq!(r.status, 200, "{}", r.body);
    let ev = events(&r.body);
    assert_eq!(ev.len(), 6, "priming, 4 progress, the answer: {}", r.body);
    (sid, ev)
}

/// The Python SDK venv's interpreter, or `None` (after saying why) outside CI.
fn python() -> Option<PathBuf> {
    let root = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."));
    let venv = std::env::var_os("INTEROP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target/interop-venv"));
    let python = venv.join("bin/python");
    if python.exists() {
        return Some(python);
    }
    let why = format!(
        "the Python SDK venv is not at {} (run interop/cli/setup.sh)",
        venv.display()
    );
    assert!(std::env::var_os("CI").is_none(), "{why} (CI is set)");
    eprintln!("SKIPPED: {why}");
    None
}

/// A new legacy session and a call in it, through nginx: `Ok` if both succeeded, else
/// which step failed and its answer.
async fn new_session_serves(c: &Cluster) -> Result<(), String> {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "failover-probe", "version": "1"}}});
    let r = post(c, None, &init).await;
    let Some(sid) = r.header("mcp-session-id").filter(|_| r.status == 200) else {
        return Err(format!("initialize: {} {}", r.status, r.body));
    };
    let sid = sid.to_owned();
    let note = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let r = post(c, Some(&sid), &note).await;
    if r.status != 202 {
        return Err(format!("initialized: {} {}", r.status, r.body));
    }
    let add = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 1, "b": 2}}});
    let r = post(c, Some(&sid), &add).await;
    if r.status == 200 && r.body.contains("\"3\"") {
        Ok(())
    } else {
        Err(format!("tools/call: {} {}", r.status, r.body))
    }
}

/// Under Cluster: whether the session's keys are in the slots of the primary that
/// `redis-failover` kills (those of slot 0, 0..=5460 in a cluster `--cluster create` made).
fn on_the_killed_primary(c: &Cluster, redis: Redis, sid: &str) -> bool {
    if redis != Redis::Cluster {
        return true;
    }
    let first_node = c.port + support::cluster::REPLICAS + 1;
    let key = format!("mcp:session:{{{sid}}}");
    support::redis::int(first_node, &["CLUSTER", "KEYSLOT", &key]) <= 5460
}

/// One deployment at a time: each is nine processes and nginx.
static TURNS: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_exercise_through_nginx_passes_through_a_sentinel_failover() {
    let _turn = TURNS.lock().await;
    failover(Redis::Sentinel).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_python_exercise_through_nginx_passes_through_a_cluster_failover() {
    let _turn = TURNS.lock().await;
    failover(Redis::Cluster).await;
}

async fn failover(redis: Redis) {
    let Some(python) = python() else {
        return;
    };
    let Some(c) = Cluster::start_on(redis, "") else {
        return;
    };
    let started = Instant::now();
    let mut before = acknowledged_before(&c).await;
    for _ in 0..30 {
        if on_the_killed_primary(&c, redis, &before.0) {
            break;
        }
        before = acknowledged_before(&c).await;
    }
    let (sid, stored) = before;
    assert!(on_the_killed_primary(&c, redis, &sid), "no session on it");

    // The exercise, run again and again until told the failover is over.
    let shared = c.dir.join("failover");
    std::fs::create_dir_all(&shared).unwrap();
    let base = c.url.trim_end_matches("/mcp").to_owned();
    let script = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .join("interop/python/test_failover.py");
    let mut child = Command::new("timeout")
        .args(["-s", "KILL", "180"])
        .arg(&python)
        .arg(&script)
        .arg(c.binary())
        .arg(format!("2025-11-25={base}"))
        .arg(format!("2026-07-28={base}"))
        .env("FAILOVER_DIR", &shared)
        // It imports test_everything.py: no __pycache__ in the source tree.
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the Python exercise starts");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            eprintln!("python: {line}");
            let _ = tx.send(line);
        }
    });
    let mut lines = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !lines.iter().any(|l: &String| l.starts_with("ok   run 2 ")) {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(l) => lines.push(l),
            Err(e) => panic!("two runs passed before the failover ({e}): {lines:?}"),
        }
    }

    // Mid-run: the primary killed and not brought back; a replica is promoted (by the
    // sentinels, or by the cluster's other primaries).
    let killed = Instant::now();
    let deadline = killed + BACK_WITHIN;
    let settled = killed + SETTLED_WITHIN;
    let out = c.script(&["redis-failover"], 60);
    assert!(out.contains("primary="), "{out}");
    let promoted = killed.elapsed();
    loop {
        if new_session_serves(&c).await.is_ok() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no new session and call {BACK_WITHIN:?} after the kill ({})",
            out.trim()
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let back = killed.elapsed();
    eprintln!(
        "{redis:?}: promoted after {promoted:?}, a new session and a call served {back:?} after the kill: {}",
        out.trim()
    );
    // Then every one, not by luck: five in a row, within SETTLED_WITHIN of the kill. Until
    // then a replica of ours may still refuse one with a 503 (under Cluster a node that has
    // not yet heard of the promotion redirects to the dead primary, and the client's
    // retries run out), never with anything else.
    let mut in_a_row = 0;
    let mut refused = 0;
    while in_a_row < 5 {
        match new_session_serves(&c).await {
            Ok(()) => in_a_row += 1,
            Err(e) => {
                assert!(e.contains(": 503 "), "only a 503 while it settles: {e}");
                assert!(
                    Instant::now() < settled,
                    "new sessions still refused {SETTLED_WITHIN:?} after the kill: {e}"
                );
                in_a_row = 0;
                refused += 1;
            }
        }
    }
    eprintln!(
        "{redis:?}: five new sessions in a row {:?} after the kill, {refused} refused with a 503 after the first",
        killed.elapsed()
    );

    // Acknowledged before the kill, served within SETTLED_WITHIN of it: the session serves a
    // call...
    let add = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "add", "arguments": {"a": 20, "b": 22}}});
    let r = past_503("the session's call", settled, || post(&c, Some(&sid), &add)).await;
    assert_eq!(
        r.status, 200,
        "the session opened before the failover: {}",
        r.body
    );
    let answer = r
        .events()
        .into_iter()
        .chain(serde_json::from_str::<Value>(&r.body).ok())
        .find(|m| m["id"] == 3)
        .unwrap_or_else(|| panic!("an answer: {}", r.body));
    assert_eq!(answer["result"]["content"][0]["text"], "42");
    // ... and the stream's stored events are replayed after the priming event, in order.
    let r = past_503("the replay", settled, || resume(&c, &sid, &stored[0].0)).await;
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        events(&r.body),
        stored[1..],
        "every stored event after the first"
    );
    std::fs::write(shared.join("done"), b"").unwrap();

    let status = child.wait().expect("the Python exercise ends");
    reader.join().unwrap();
    lines.extend(rx.try_iter());
    assert!(status.success(), "every run passes: {status}\n{lines:#?}");
    let summary = lines
        .iter()
        .find(|l| l.starts_with("summary "))
        .expect("a summary line");
    let met_503 = summary
        .split_whitespace()
        .find_map(|w| w.strip_prefix("503="))
        .and_then(|n| n.parse::<u32>().ok())
        .expect("503=N in the summary");
    // Not asserted: whether a run met the window depends on timing (the checks above met it).
    eprintln!("{redis:?}: the Python runs met {met_503} 503 answers");
    assert_eq!(lines.last().map(|l| l.ends_with(" 0 failed")), Some(true));

    eprintln!(
        "{} in {:?}, the failover included",
        summary,
        started.elapsed()
    );
}
