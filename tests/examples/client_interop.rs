//! Drives our `mcp::client::Client` against a real server of another SDK and checks what it answers:
//!
//! ```text
//! client_interop --profile python     --stdio "python3 interop/client/python_server.py stdio"
//! client_interop --profile everything --http http://127.0.0.1:3001/mcp --mode legacy:2025-06-18
//! client_interop --profile everything --sse  http://127.0.0.1:3001/sse
//! ```
//!
//! `--profile` names the server and so the checks and their exact expected answers:
//! `python` is `interop/client/python_server.py` (the official Python SDK), `everything` the
//! TypeScript `@modelcontextprotocol/server-everything` (both pinned in the
//! `interop/client/run_*.sh` scripts that start them). `--mode` is `auto` (default: probe
//! `server/discover`, fall back to `initialize`), `modern` (pinned 2026-07-28) or
//! `legacy[:REVISION]` (`initialize`, default 2025-11-25); `--expect-version` overrides the
//! revision the connection must end up on (by default the pinned one, or for `auto` the
//! newest the profile's server speaks).
//!
//! With the `python` profile on 2026-07-28, the response cache is checked against the
//! server's caching hints, counting what the server received (its `served` tool): pages,
//! an invalid cursor, the per-call modes, expiry, `list_changed` / `resources/updated`
//! eviction, private partitions and a shared public entry (three more clients, one store).
//!
//! Prints one line per check (`ok`, `skip` with the reason, or `FAIL` with what differed)
//! and exits non-zero when any check failed.

use std::collections::BTreeMap;
use std::future::Future;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine as _;
use mcp::client::cache::CacheMode;
use mcp::client::cache::{CacheStore, MemoryStore};
use mcp::client::{
    Client, ClientBuilder, ClientError, ClientHandler, ConnectMode, RequestOptions,
    ServerNotification,
};
use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{
    CallToolResult, ClientCapabilities, CompleteParams, CompletionContext, CompletionReference,
    ContentBlock, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult,
    ElicitValue, ElicitationCapability, ListRootsResult, LoggingLevel, ResourceContents, Root,
    RootsCapability, SamplingCapability, TextContent,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde::Deserialize;
use serde_json::{Value, json};

/// The root our client reports; the servers echo it back.
const ROOT_URI: &str = "file:///tmp/interop-root";
/// What our sampling handler answers.
const MODEL: &str = "interop-model";
const MODEL_TEXT: &str = "a short summary";
/// The name our elicitation handler fills in.
const ELICITED_NAME: &str = "Ada";

type Outcome = Result<String, String>;

/// What the server asked of our handler and what it notified.
#[derive(Default)]
struct Seen {
    sampling: Vec<CreateMessageParams>,
    elicitations: Vec<String>,
    roots: usize,
    notifications: Vec<ServerNotification>,
}

#[derive(Clone, Default)]
struct Host(Arc<Mutex<Seen>>);

impl Host {
    fn seen<T>(&self, f: impl FnOnce(&mut Seen) -> T) -> T {
        f(&mut self.0.lock().expect("seen lock"))
    }

    /// The `notifications/message` params received so far.
    fn logs(&self) -> Vec<Value> {
        self.seen(|s| {
            s.notifications
                .iter()
                .filter(|n| n.method == "notifications/message")
                .filter_map(|n| n.params.clone())
                .collect()
        })
    }

    /// Waits up to `limit` for `pred` over the received log messages to hold.
    async fn wait_logs(&self, limit: Duration, pred: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let start = Instant::now();
        loop {
            let logs = self.logs();
            if pred(&logs) || start.elapsed() > limit {
                return logs;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}

impl ClientHandler for Host {
    async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        self.seen(|s| s.sampling.push(params));
        Ok(CreateMessageResult::new(
            MODEL,
            TextContent::new(MODEL_TEXT),
        ))
    }

    async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        let ElicitParams::Form(form) = params else {
            return Ok(ElicitResult::decline());
        };
        self.seen(|s| s.elicitations.push(form.message.clone()));
        let schema = serde_json::to_value(&form.requested_schema).unwrap_or(Value::Null);
        let mut content = BTreeMap::new();
        content.insert("name".to_owned(), ElicitValue::from(ELICITED_NAME));
        if schema.pointer("/properties/check").is_some() {
            content.insert("check".to_owned(), ElicitValue::Boolean(true));
        }
        Ok(ElicitResult::accept(content))
    }

    async fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
        self.seen(|s| s.roots += 1);
        let mut root = Root::new(ROOT_URI);
        root.name = Some("interop".into());
        Ok(ListRootsResult::new(vec![root]))
    }

    fn on_notification(&self, n: &ServerNotification) {
        self.seen(|s| s.notifications.push(n.clone()));
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Profile {
    Python,
    Everything,
}

enum Target {
    Stdio(Vec<String>),
    Http(String),
    Sse(String),
}

struct Args {
    profile: Profile,
    target: Target,
    mode: ConnectMode,
    expect: ProtocolVersion,
}

fn parse_args() -> Result<Args, String> {
    let mut profile = None;
    let mut target = None;
    let mut mode = ConnectMode::Auto;
    let mut expect = None;
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        match flag.as_str() {
            "--profile" => {
                profile = Some(match value()?.as_str() {
                    "python" => Profile::Python,
                    "everything" => Profile::Everything,
                    other => return Err(format!("unknown profile {other:?}")),
                })
            }
            "--stdio" => {
                let cmd: Vec<String> = value()?.split_whitespace().map(str::to_owned).collect();
                if cmd.is_empty() {
                    return Err("--stdio needs a command".into());
                }
                target = Some(Target::Stdio(cmd));
            }
            "--http" => target = Some(Target::Http(value()?)),
            "--sse" => target = Some(Target::Sse(value()?)),
            "--mode" => mode = parse_mode(&value()?)?,
            "--expect-version" => {
                let v = value()?;
                expect = Some(ProtocolVersion::parse(&v).ok_or(format!("unknown revision {v}"))?);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    let profile = profile.ok_or("--profile python|everything is required")?;
    let target = target.ok_or("one of --stdio, --http, --sse is required")?;
    let expect = expect.unwrap_or(match (mode, profile) {
        (ConnectMode::Legacy(v) | ConnectMode::Modern(v), _) => v,
        (ConnectMode::Auto, Profile::Python) => ProtocolVersion::V2026_07_28,
        (ConnectMode::Auto, Profile::Everything) => ProtocolVersion::V2025_11_25,
    });
    Ok(Args {
        profile,
        target,
        mode,
        expect,
    })
}

fn parse_mode(s: &str) -> Result<ConnectMode, String> {
    let rev = |r: &str| ProtocolVersion::parse(r).ok_or(format!("unknown revision {r}"));
    match s.split_once(':') {
        None if s == "auto" => Ok(ConnectMode::Auto),
        None if s == "modern" => Ok(ConnectMode::Modern(ProtocolVersion::V2026_07_28)),
        None if s == "legacy" => Ok(ConnectMode::Legacy(ProtocolVersion::V2025_11_25)),
        Some(("legacy", r)) => Ok(ConnectMode::Legacy(rev(r)?)),
        Some(("modern", r)) => Ok(ConnectMode::Modern(rev(r)?)),
        _ => Err(format!(
            "--mode is auto, modern or legacy[:REVISION], not {s:?}"
        )),
    }
}

/// Counts and prints the checks.
struct Report {
    passed: usize,
    failed: usize,
    skipped: usize,
}

impl Report {
    async fn check(&mut self, name: &str, f: impl Future<Output = Outcome>) {
        match tokio::time::timeout(Duration::from_secs(30), f).await {
            Ok(Ok(detail)) if detail.is_empty() => {
                self.passed += 1;
                println!("ok   {name}");
            }
            Ok(Ok(detail)) => {
                self.passed += 1;
                println!("ok   {name} ({detail})");
            }
            Ok(Err(why)) => {
                self.failed += 1;
                println!("FAIL {name}: {why}");
            }
            Err(_) => {
                self.failed += 1;
                println!("FAIL {name}: no answer within 30 s");
            }
        }
    }

    fn skip(&mut self, name: &str, why: &str) {
        self.skipped += 1;
        println!("skip {name} ({why})");
    }
}

fn err(e: ClientError) -> String {
    format!("client error: {e}")
}

/// `Ok` when `got == want`, else what differed.
fn same<T: PartialEq + std::fmt::Debug>(what: &str, got: T, want: T) -> Result<(), String> {
    if got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got:?}, want {want:?}"))
    }
}

/// The text blocks of a tool result, in order.
fn texts(r: &CallToolResult) -> Vec<String> {
    r.content
        .iter()
        .filter_map(|b| match b {
            ContentBlock::Text(t) => Some(t.text.clone()),
            _ => None,
        })
        .collect()
}

/// The single text of a successful tool result.
fn only_text(r: &CallToolResult) -> Result<String, String> {
    if r.is_error == Some(true) {
        return Err(format!("the tool failed: {:?}", texts(r)));
    }
    match texts(r).as_slice() {
        [t] => Ok(t.clone()),
        other => Err(format!("want one text block, got {other:?}")),
    }
}

async fn call_text(c: &Client, tool: &str, args: Value) -> Result<String, String> {
    only_text(&c.call_tool(tool, args).await.map_err(err)?)
}

fn text_contents(
    r: &mcp_core::types::ReadResourceResult,
) -> Result<(String, Option<String>), String> {
    match r.contents.as_slice() {
        [ResourceContents::Text(t)] => Ok((t.text.clone(), t.mime_type.clone())),
        other => Err(format!("want one text contents, got {other:?}")),
    }
}

fn blob_contents(r: &mcp_core::types::ReadResourceResult) -> Result<Vec<u8>, String> {
    match r.contents.as_slice() {
        [ResourceContents::Blob(b)] => base64::engine::general_purpose::STANDARD
            .decode(&b.blob)
            .map_err(|e| format!("blob is not base64: {e}")),
        other => Err(format!("want one blob contents, got {other:?}")),
    }
}

async fn completion_values(c: &Client, p: CompleteParams) -> Result<Vec<String>, String> {
    Ok(c.complete(p).await.map_err(err)?.completion.values)
}

fn prompt_text(r: &mcp_core::types::GetPromptResult) -> Result<String, String> {
    match r.messages.as_slice() {
        [m] => match &m.content {
            ContentBlock::Text(t) => Ok(t.text.clone()),
            other => Err(format!("want a text message, got {other:?}")),
        },
        other => Err(format!("want one message, got {other:?}")),
    }
}

fn capabilities() -> ClientCapabilities {
    ClientCapabilities {
        sampling: Some(SamplingCapability::default()),
        elicitation: Some(ElicitationCapability::default()),
        roots: Some(RootsCapability::default()),
        ..Default::default()
    }
}

async fn connect(args: &Args, host: Host) -> Result<Client, ClientError> {
    connect_with(args, host, |b| b).await
}

/// [`connect`], the builder first given to `f`.
async fn connect_with(
    args: &Args,
    host: Host,
    f: impl FnOnce(ClientBuilder) -> ClientBuilder,
) -> Result<Client, ClientError> {
    let b = f(Client::builder()
        .capabilities(capabilities())
        .handler(host)
        .mode(args.mode)
        .request_timeout(Duration::from_secs(20)));
    match &args.target {
        Target::Stdio(cmd) => {
            let mut c = tokio::process::Command::new(&cmd[0]);
            c.args(&cmd[1..]);
            b.spawn(c).await
        }
        Target::Http(url) => b.connect_http(url).await,
        Target::Sse(url) => b.connect_sse(url).await,
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("client_interop: {e}");
            return ExitCode::from(2);
        }
    };
    let host = Host::default();
    let client = match connect(&args, host.clone()).await {
        Ok(c) => c,
        Err(e) => {
            println!("FAIL connect: {e}");
            println!("0 passed, 1 failed");
            return ExitCode::FAILURE;
        }
    };
    let mut report = Report {
        passed: 0,
        failed: 0,
        skipped: 0,
    };
    report
        .check("connect: negotiated revision and server info", async {
            let want_name = match args.profile {
                Profile::Python => "python-interop-server",
                Profile::Everything => "mcp-servers/everything",
            };
            same("revision", client.protocol_version(), args.expect)?;
            let info = client.server_info().ok_or("no serverInfo")?;
            same("server name", info.name.as_str(), want_name)?;
            Ok(format!(
                "{} {}",
                info.name,
                client.protocol_version().as_str()
            ))
        })
        .await;
    match args.profile {
        Profile::Python => {
            python_checks(&client, &host, &mut report).await;
            python_cache_checks(&args, &client, &mut report).await;
        }
        Profile::Everything => everything_checks(&client, &host, &mut report).await,
    }
    shared_checks(&client, &mut report).await;
    if let Err(e) = client.shutdown().await {
        println!("FAIL shutdown: {e}");
        report.failed += 1;
    }
    println!(
        "{} passed, {} failed, {} skipped",
        report.passed, report.failed, report.skipped
    );
    if report.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// `ping` (a `server/discover` round trip on 2026).
async fn shared_checks(client: &Client, report: &mut Report) {
    report
        .check("ping", async {
            client.ping().await.map(|()| String::new()).map_err(err)
        })
        .await;
}

async fn tools_include(client: &Client, want: &[&str]) -> Outcome {
    let tools = client.list_all_tools().await.map_err(err)?;
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let missing: Vec<&&str> = want.iter().filter(|w| !names.contains(w)).collect();
    if missing.is_empty() {
        Ok(format!("{} tools", names.len()))
    } else {
        Err(format!("missing {missing:?} in {names:?}"))
    }
}

/// The checks against `interop/client/python_server.py`.
async fn python_checks(client: &Client, host: &Host, report: &mut Report) {
    let modern = client.protocol_version().era() == Era::Modern;
    report
        .check("tools/list (all pages)", async {
            let detail = tools_include(
                client,
                &[
                    "echo",
                    "add",
                    "weather",
                    "progress",
                    "slow",
                    "calls",
                    "log_burst",
                    "ask_name",
                    "summarize",
                    "roots",
                    "served",
                    "changed",
                ],
            )
            .await?;
            // Resolved parameters are not arguments.
            let tools = client.list_all_tools().await.map_err(err)?;
            let ask = tools
                .iter()
                .find(|t| t.name == "ask_name")
                .ok_or("no ask_name")?;
            let schema = serde_json::to_value(&ask.input_schema).map_err(|e| e.to_string())?;
            if schema.pointer("/properties/answer").is_some() {
                return Err(format!(
                    "ask_name's schema lists a resolved parameter: {schema}"
                ));
            }
            Ok(detail)
        })
        .await;
    report
        .check("tools/list pages: 4, 4, 4; a bad cursor is -32602", async {
            let mut sizes = Vec::new();
            let mut cursor = None;
            loop {
                let page = client.list_tools(cursor).await.map_err(err)?;
                sizes.push(page.tools.len());
                match page.next_cursor {
                    Some(c) if sizes.len() < 5 => cursor = Some(c),
                    Some(c) => return Err(format!("still a cursor {c:?} after {sizes:?}")),
                    None => break,
                }
            }
            same("page sizes", sizes, vec![4, 4, 4])?;
            match client.list_tools(Some("nonsense".into())).await {
                Err(e) if e.code() == Some(-32602) => Ok(String::new()),
                other => Err(format!("bad cursor: want -32602, got {other:?}")),
            }
        })
        .await;
    report
        .check("tools/call echo", async {
            let t = call_text(client, "echo", json!({"message": "hi there"})).await?;
            same("text", t.as_str(), "Echo: hi there").map(|()| String::new())
        })
        .await;
    report
        .check("tools/call add (integers)", async {
            let r = client
                .call_tool("add", json!({"a": 2, "b": 40}))
                .await
                .map_err(err)?;
            same("text", only_text(&r)?.as_str(), "42")?;
            // The SDK wraps a non-object return as {"result": ...}.
            same(
                "structuredContent",
                r.structured_content,
                Some(json!({"result": "42"})),
            )
            .map(|()| String::new())
        })
        .await;
    report
        .check("tools/call bad arguments is a tool error", async {
            let r = client
                .call_tool("add", json!({"a": "x"}))
                .await
                .map_err(err)?;
            same("isError", r.is_error, Some(true)).map(|()| String::new())
        })
        .await;
    #[derive(Debug, Deserialize, PartialEq)]
    struct Weather {
        city: String,
        temperature_c: f64,
        conditions: String,
    }
    report
        .check("structured output decoded into a type", async {
            let w: Weather = client
                .call_tool_structured("weather", json!({"city": "Oslo"}))
                .await
                .map_err(err)?;
            same(
                "weather",
                w,
                Weather {
                    city: "Oslo".into(),
                    temperature_c: 21.5,
                    conditions: "sunny".into(),
                },
            )
            .map(|()| String::new())
        })
        .await;
    report
        .check("resources/list (all pages)", async {
            let all = client.list_all_resources().await.map_err(err)?;
            let uris: Vec<&str> = all.iter().map(|r| r.uri.as_str()).collect();
            same(
                "uris",
                uris,
                vec!["demo://readme", "demo://blob", "demo://counted"],
            )?;
            // One resource a page: the first page has a cursor.
            let first = client.list_resources(None).await.map_err(err)?;
            same(
                "first page",
                (first.resources.len(), first.next_cursor.is_some()),
                (1, true),
            )
            .map(|()| String::new())
        })
        .await;
    report
        .check("resources/read text", async {
            let r = client.read_resource("demo://readme").await.map_err(err)?;
            let (text, mime) = text_contents(&r)?;
            same("text", text.as_str(), "# Python server\n")?;
            same("mimeType", mime.as_deref(), Some("text/markdown")).map(|()| String::new())
        })
        .await;
    report
        .check("resources/read binary", async {
            let r = client.read_resource("demo://blob").await.map_err(err)?;
            same("bytes", blob_contents(&r)?, (0u8..16).collect::<Vec<_>>()).map(|()| String::new())
        })
        .await;
    report
        .check("resources/templates/list and a templated read", async {
            let t = client.list_resource_templates(None).await.map_err(err)?;
            let uris: Vec<&str> = t
                .resource_templates
                .iter()
                .map(|t| t.uri_template.as_str())
                .collect();
            same("templates", uris, vec!["demo://notes/{id}"])?;
            let r = client.read_resource("demo://notes/7").await.map_err(err)?;
            same("text", text_contents(&r)?.0.as_str(), "note 7").map(|()| String::new())
        })
        .await;
    report
        .check("prompts/list and prompts/get with arguments", async {
            let all = client.list_all_prompts().await.map_err(err)?;
            let greet = all
                .iter()
                .find(|p| p.name == "greet")
                .ok_or("no greet prompt")?;
            let args: Vec<(String, Option<bool>)> = greet
                .arguments
                .iter()
                .flatten()
                .map(|a| (a.name.clone(), a.required))
                .collect();
            same(
                "arguments",
                args,
                vec![("name".into(), Some(true)), ("style".into(), Some(false))],
            )?;
            let r = client
                .get_prompt("greet", [("name", "Ada"), ("style", "warmly")])
                .await
                .map_err(err)?;
            same("text", prompt_text(&r)?.as_str(), "Hello Ada, warmly!").map(|()| String::new())
        })
        .await;
    report
        .check("completion/complete (prompt and template)", async {
            let p = CompleteParams::new(CompletionReference::prompt("greet"), "name", "Al");
            same(
                "names",
                completion_values(client, p).await?,
                vec!["Alice".into(), "Albert".into()],
            )?;
            let t =
                CompleteParams::new(CompletionReference::resource("demo://notes/{id}"), "id", "");
            same(
                "ids",
                completion_values(client, t).await?,
                vec!["1".into(), "2".into(), "3".into()],
            )
            .map(|()| String::new())
        })
        .await;
    report
        .check("logging: level honoured, messages received", async {
            let before = host.logs().len();
            let opts = if modern {
                RequestOptions {
                    log_level: Some(LoggingLevel::Warning),
                    ..RequestOptions::default()
                }
            } else {
                client
                    .set_log_level(LoggingLevel::Warning)
                    .await
                    .map_err(err)?;
                RequestOptions::default()
            };
            let r = client
                .call_tool_with("log_burst", json!({}), opts)
                .await
                .map_err(err)?;
            same("text", only_text(&r)?.as_str(), "logged")?;
            let logs = host
                .wait_logs(Duration::from_secs(2), |l| l.len() >= before + 5)
                .await;
            let got: Vec<(String, String)> = logs[before..]
                .iter()
                .map(|l| {
                    (
                        l["level"].as_str().unwrap_or("?").to_owned(),
                        l["data"].as_str().unwrap_or("?").to_owned(),
                    )
                })
                .collect();
            let want: Vec<(String, String)> =
                ["warning", "error", "critical", "alert", "emergency"]
                    .iter()
                    .map(|l| (l.to_string(), format!("{l} message")))
                    .collect();
            same("log messages", got, want)?;
            if logs[before..].iter().any(|l| l["logger"] != "burst") {
                return Err(format!("logger is not \"burst\": {:?}", &logs[before..]));
            }
            Ok(String::new())
        })
        .await;
    report
        .check("progress callbacks", async {
            let seen = Arc::new(Mutex::new(Vec::new()));
            let s = seen.clone();
            let opts = RequestOptions::with_progress(move |p| {
                s.lock()
                    .expect("progress")
                    .push((p.progress, p.total, p.message))
            });
            let r = client
                .call_tool_with("progress", json!({"steps": 3}), opts)
                .await
                .map_err(err)?;
            same("text", only_text(&r)?.as_str(), "done 3")?;
            let got = seen.lock().expect("progress").clone();
            let want: Vec<_> = (1..=3)
                .map(|i| (f64::from(i), Some(3.0), Some(format!("step {i}"))))
                .collect();
            same("progress", got, want).map(|()| String::new())
        })
        .await;
    report
        .check(
            "cancellation: a dropped call ends on the server, the next call answers",
            async {
                let before: u64 = call_text(client, "calls", json!({}))
                    .await?
                    .parse()
                    .map_err(|e| format!("calls: {e}"))?;
                let slow = client.call_tool("slow", json!({"seconds": 30}));
                if tokio::time::timeout(Duration::from_millis(500), slow)
                    .await
                    .is_ok()
                {
                    return Err("slow answered within 500 ms".into());
                }
                // The server counts the call as ended once its task is cancelled.
                let start = Instant::now();
                loop {
                    let now: u64 = call_text(client, "calls", json!({}))
                        .await?
                        .parse()
                        .map_err(|e| format!("calls: {e}"))?;
                    if now == before + 1 {
                        return Ok(format!("ended after {} ms", start.elapsed().as_millis()));
                    }
                    if start.elapsed() > Duration::from_secs(5) {
                        return Err(format!(
                            "the server did not end the dropped call: calls {before} -> {now}"
                        ));
                    }
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            },
        )
        .await;
    let mechanism = if modern {
        "input_required round"
    } else {
        "server request"
    };
    report
        .check(&format!("elicitation ({mechanism})"), async {
            let t = call_text(client, "ask_name", json!({})).await?;
            same("text", t.as_str(), "Hello, Ada!")?;
            let asked = host.seen(|s| s.elicitations.clone());
            same(
                "asked",
                asked.last().map(String::as_str),
                Some("What is your name?"),
            )
            .map(|()| String::new())
        })
        .await;
    report
        .check(&format!("sampling ({mechanism})"), async {
            let t = call_text(client, "summarize", json!({"text": "a long text"})).await?;
            same("text", t.as_str(), &format!("summary: {MODEL_TEXT}"))?;
            let p = host
                .seen(|s| s.sampling.last().cloned())
                .ok_or("no sampling request")?;
            let v = serde_json::to_value(&p).map_err(|e| e.to_string())?;
            same(
                "prompt",
                v.pointer("/messages/0/content/text"),
                Some(&json!("Summarize: a long text")),
            )?;
            same("maxTokens", p.max_tokens, 50).map(|()| String::new())
        })
        .await;
    report
        .check(&format!("roots ({mechanism})"), async {
            let t = call_text(client, "roots", json!({})).await?;
            same("text", t.as_str(), ROOT_URI).map(|()| String::new())
        })
        .await;
}

/// The checks against `@modelcontextprotocol/server-everything`.
async fn everything_checks(client: &Client, host: &Host, report: &mut Report) {
    let v = client.protocol_version();
    report
        .check("tools/list (all pages)", async {
            // The last three are registered once the client's capabilities are known.
            let mut want = vec![
                "echo",
                "get-sum",
                "get-structured-content",
                "get-tiny-image",
                "trigger-long-running-operation",
                "toggle-simulated-logging",
                "trigger-sampling-request",
                "get-roots-list",
            ];
            // Elicitation exists from 2025-06-18 (our capability is dropped before).
            if v >= ProtocolVersion::V2025_06_18 {
                want.push("trigger-elicitation-request");
            }
            tools_include(client, &want).await
        })
        .await;
    report
        .check("tools/call echo", async {
            let t = call_text(client, "echo", json!({"message": "hi there"})).await?;
            same("text", t.as_str(), "Echo: hi there").map(|()| String::new())
        })
        .await;
    report
        .check("tools/call get-sum", async {
            let t = call_text(client, "get-sum", json!({"a": 2, "b": 40})).await?;
            same("text", t.as_str(), "The sum of 2 and 40 is 42.").map(|()| String::new())
        })
        .await;
    #[derive(Debug, Deserialize, PartialEq)]
    struct Weather {
        temperature: f64,
        conditions: String,
        humidity: f64,
    }
    report
        .check("structured output decoded into a type", async {
            let w: Weather = client
                .call_tool_structured("get-structured-content", json!({"location": "Chicago"}))
                .await
                .map_err(err)?;
            same(
                "weather",
                w,
                Weather {
                    temperature: 36.0,
                    conditions: "Light rain / drizzle".into(),
                    humidity: 82.0,
                },
            )
            .map(|()| String::new())
        })
        .await;
    report
        .check("tools/call get-tiny-image (image content)", async {
            let r = client
                .call_tool("get-tiny-image", json!({}))
                .await
                .map_err(err)?;
            match r.content.as_slice() {
                [
                    ContentBlock::Text(a),
                    ContentBlock::Image(img),
                    ContentBlock::Text(b),
                ] => {
                    same(
                        "first text",
                        a.text.as_str(),
                        "Here's the image you requested:",
                    )?;
                    same(
                        "last text",
                        b.text.as_str(),
                        "The image above is the MCP logo.",
                    )?;
                    same("mimeType", img.mime_type.as_str(), "image/png")?;
                    let png = base64::engine::general_purpose::STANDARD
                        .decode(&img.data)
                        .map_err(|e| format!("image data: {e}"))?;
                    same("PNG signature", &png[..8], b"\x89PNG\r\n\x1a\n".as_slice())?;
                    Ok(format!("{} bytes", png.len()))
                }
                other => Err(format!("want text, image, text; got {other:?}")),
            }
        })
        .await;
    report
        .check(
            "list_changed: the tools registered after initialize were announced",
            async {
                let start = Instant::now();
                loop {
                    let n = host.seen(|s| {
                        s.notifications
                            .iter()
                            .filter(|n| n.method == "notifications/tools/list_changed")
                            .count()
                    });
                    if n > 0 {
                        return Ok(format!("{n} notifications"));
                    }
                    if start.elapsed() > Duration::from_secs(3) {
                        return Err("no notifications/tools/list_changed".into());
                    }
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
        )
        .await;
    report
        .check("tools/call get-annotated-message (annotations)", async {
            let r = client
                .call_tool("get-annotated-message", json!({"messageType": "error"}))
                .await
                .map_err(err)?;
            let blocks = serde_json::to_value(&r.content).map_err(|e| e.to_string())?;
            same(
                "content",
                blocks,
                json!([{"type": "text", "text": "Error: Operation failed",
                        "annotations": {"priority": 1.0, "audience": ["user", "assistant"]}}]),
            )
            .map(|()| String::new())
        })
        .await;
    report
        .check(
            "tools/call get-resource-links (resource links), then read one",
            async {
                let r = client
                    .call_tool("get-resource-links", json!({"count": 2}))
                    .await
                    .map_err(err)?;
                let links: Vec<(String, String, Option<String>)> = r
                    .content
                    .iter()
                    .filter_map(|b| match b {
                        ContentBlock::ResourceLink(l) => {
                            Some((l.uri.clone(), l.name.clone(), l.mime_type.clone()))
                        }
                        _ => None,
                    })
                    .collect();
                same(
                    "links",
                    links,
                    vec![
                        (
                            "demo://resource/dynamic/blob/1".into(),
                            "Blob Resource 1".into(),
                            Some("text/plain".into()),
                        ),
                        (
                            "demo://resource/dynamic/text/2".into(),
                            "Text Resource 2".into(),
                            Some("text/plain".into()),
                        ),
                    ],
                )?;
                let read = client
                    .read_resource("demo://resource/dynamic/text/2")
                    .await
                    .map_err(err)?;
                let (text, _) = text_contents(&read)?;
                if !text.starts_with("Resource 2: ") {
                    return Err(format!("linked resource text: {text:?}"));
                }
                Ok(String::new())
            },
        )
        .await;
    report
        .check("tools/call get-resource-reference (embedded blob)", async {
            let args = json!({"resourceType": "Blob", "resourceId": 2});
            let r = client
                .call_tool("get-resource-reference", args)
                .await
                .map_err(err)?;
            let intro = "Returning resource reference for Resource 2:";
            match r.content.as_slice() {
                [ContentBlock::Text(a), ContentBlock::Resource(e), ContentBlock::Text(b)] => {
                    same("first text", a.text.as_str(), intro)?;
                    let ResourceContents::Blob(blob) = &e.resource else {
                        return Err(format!("want a blob, got {:?}", e.resource));
                    };
                    same("uri", blob.uri.as_str(), "demo://resource/dynamic/blob/2")?;
                    let bytes = base64::engine::general_purpose::STANDARD
                        .decode(&blob.blob)
                        .map_err(|e| format!("blob: {e}"))?;
                    if !bytes.starts_with(b"Resource 2: This is a base64 blob") {
                        let shown = String::from_utf8_lossy(&bytes);
                        return Err(format!("blob bytes: {shown:?}"));
                    }
                    let outro =
                        "You can access this resource using the URI: demo://resource/dynamic/blob/2";
                    same("last text", b.text.as_str(), outro).map(|()| String::new())
                }
                other => Err(format!("want text, resource, text; got {other:?}")),
            }
        })
        .await;
    report
        .check("resources/list and a static read", async {
            let all = client.list_all_resources().await.map_err(err)?;
            let uri = "demo://resource/static/document/architecture.md";
            let r = all
                .iter()
                .find(|r| r.uri == uri)
                .ok_or(format!("{uri} not listed"))?;
            same(
                "listed mimeType",
                r.mime_type.as_deref(),
                Some("text/markdown"),
            )?;
            let read = client.read_resource(uri).await.map_err(err)?;
            let (text, mime) = text_contents(&read)?;
            same("mimeType", mime.as_deref(), Some("text/markdown"))?;
            if text.trim().is_empty() {
                return Err("empty document".into());
            }
            Ok(format!("{} resources", all.len()))
        })
        .await;
    report
        .check("resources/templates/list", async {
            let t = client.list_resource_templates(None).await.map_err(err)?;
            let mut uris: Vec<&str> = t
                .resource_templates
                .iter()
                .map(|t| t.uri_template.as_str())
                .collect();
            uris.sort_unstable();
            same(
                "templates",
                uris,
                vec![
                    "demo://resource/dynamic/blob/{resourceId}",
                    "demo://resource/dynamic/text/{resourceId}",
                ],
            )
            .map(|()| String::new())
        })
        .await;
    report
        .check("resources/read templated text and blob", async {
            let r = client
                .read_resource("demo://resource/dynamic/text/3")
                .await
                .map_err(err)?;
            let (text, _) = text_contents(&r)?;
            if !text.starts_with("Resource 3: This is a plaintext resource created at ") {
                return Err(format!("text: {text:?}"));
            }
            let r = client
                .read_resource("demo://resource/dynamic/blob/3")
                .await
                .map_err(err)?;
            let bytes = blob_contents(&r)?;
            let s = String::from_utf8(bytes).map_err(|e| format!("blob: {e}"))?;
            if !s.starts_with("Resource 3: This is a base64 blob created at ") {
                return Err(format!("blob: {s:?}"));
            }
            Ok(String::new())
        })
        .await;
    report
        .check("resources/read of an unknown id is an error", async {
            match client.read_resource("demo://resource/dynamic/text/0").await {
                Err(ClientError::Rpc(e)) => Ok(format!("{} {}", e.code, e.message)),
                other => Err(format!("want a JSON-RPC error, got {other:?}")),
            }
        })
        .await;
    report
        .check("prompts/list and prompts/get with arguments", async {
            let all = client.list_all_prompts().await.map_err(err)?;
            let mut names: Vec<&str> = all.iter().map(|p| p.name.as_str()).collect();
            names.sort_unstable();
            same(
                "prompts",
                names,
                vec![
                    "args-prompt",
                    "completable-prompt",
                    "resource-prompt",
                    "simple-prompt",
                ],
            )?;
            let r = client
                .get_prompt("args-prompt", [("city", "Paris"), ("state", "TX")])
                .await
                .map_err(err)?;
            same(
                "text",
                prompt_text(&r)?.as_str(),
                "What's weather in Paris, TX?",
            )?;
            let r = client
                .get_prompt("args-prompt", [("city", "Oslo")])
                .await
                .map_err(err)?;
            same("text", prompt_text(&r)?.as_str(), "What's weather in Oslo?")
                .map(|()| String::new())
        })
        .await;
    report
        .check("completion/complete (prompt and template)", async {
            let p = CompleteParams::new(
                CompletionReference::prompt("completable-prompt"),
                "department",
                "S",
            );
            same(
                "departments",
                completion_values(client, p).await?,
                vec!["Sales".into(), "Support".into()],
            )?;
            let t = CompleteParams::new(
                CompletionReference::resource("demo://resource/dynamic/text/{resourceId}"),
                "resourceId",
                "12",
            );
            same(
                "ids",
                completion_values(client, t).await?,
                vec!["12".into()],
            )
            .map(|()| String::new())
        })
        .await;
    if v >= ProtocolVersion::V2025_06_18 {
        report
            .check("completion/complete with context", async {
                let mut p = CompleteParams::new(
                    CompletionReference::prompt("completable-prompt"),
                    "name",
                    "",
                );
                p.context = Some(CompletionContext {
                    arguments: Some([("department".to_owned(), "Sales".to_owned())].into()),
                });
                same(
                    "names",
                    completion_values(client, p).await?,
                    vec!["David".into(), "Eve".into(), "Frank".into()],
                )
                .map(|()| String::new())
            })
            .await;
    } else {
        report.skip("completion/complete with context", "context is 2025-06-18+");
    }
    report
        .check("roots: the server listed our roots at connect", async {
            // server-everything asks for roots 350 ms after `initialized` and logs the count.
            let logs = host
                .wait_logs(Duration::from_secs(3), |l| {
                    l.iter()
                        .any(|m| m["data"] == "Roots updated: 1 root(s) received from client")
                })
                .await;
            let m = logs
                .iter()
                .find(|m| m["data"] == "Roots updated: 1 root(s) received from client")
                .ok_or(format!("no roots log message in {logs:?}"))?;
            same("logger", &m["logger"], &json!("everything-server"))?;
            same("level", &m["level"], &json!("info"))?;
            let t = call_text(client, "get-roots-list", json!({})).await?;
            if !t.starts_with("Current MCP Roots (1 total):")
                || !t.contains(&format!("URI: {ROOT_URI}"))
            {
                return Err(format!("get-roots-list: {t:?}"));
            }
            same("roots requests", host.seen(|s| s.roots) >= 1, true).map(|()| String::new())
        })
        .await;
    report
        .check(
            "resources/subscribe, then a resources/updated notification",
            async {
                let uri = "demo://resource/dynamic/text/4";
                client
                    .set_log_level(LoggingLevel::Debug)
                    .await
                    .map_err(err)?;
                client.subscribe_resource(uri).await.map_err(err)?;
                let want_log = format!("Received Subscribe Resource request for URI: {uri}");
                let logs = host
                    .wait_logs(Duration::from_secs(3), |l| {
                        l.iter()
                            .any(|m| m["data"].as_str().is_some_and(|d| d.starts_with(&want_log)))
                    })
                    .await;
                if !logs
                    .iter()
                    .any(|m| m["data"].as_str().is_some_and(|d| d.starts_with(&want_log)))
                {
                    return Err(format!("the server did not log the subscription: {logs:?}"));
                }
                let updated = |host: &Host| {
                    host.seen(|s| {
                        s.notifications
                            .iter()
                            .filter(|n| n.method == "notifications/resources/updated")
                            .filter(|n| {
                                n.params.as_ref().and_then(|p| p.get("uri")) == Some(&json!(uri))
                            })
                            .count()
                    })
                };
                let before = updated(host);
                let t = call_text(client, "toggle-subscriber-updates", json!({})).await?;
                if !t.starts_with("Started simulated resource updated notifications") {
                    return Err(format!("toggle: {t:?}"));
                }
                let start = Instant::now();
                while updated(host) == before && start.elapsed() < Duration::from_secs(3) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                call_text(client, "toggle-subscriber-updates", json!({})).await?;
                client.unsubscribe_resource(uri).await.map_err(err)?;
                if updated(host) == before {
                    return Err(format!(
                        "no notifications/resources/updated for {uri} within 3 s"
                    ));
                }
                Ok(String::new())
            },
        )
        .await;
    report
        .check("logging: setLevel, then simulated log messages", async {
            client
                .set_log_level(LoggingLevel::Debug)
                .await
                .map_err(err)?;
            let before = host.logs().len();
            let t = call_text(client, "toggle-simulated-logging", json!({})).await?;
            if !t.starts_with("Started simulated, random-leveled logging") {
                return Err(format!("toggle: {t:?}"));
            }
            // One message goes out at once, at a random level (all pass at debug).
            let logs = host
                .wait_logs(Duration::from_secs(3), |l| l.len() > before)
                .await;
            let stop = call_text(client, "toggle-simulated-logging", json!({})).await?;
            if !stop.starts_with("Stopped simulated logging") {
                return Err(format!("toggle off: {stop:?}"));
            }
            let m = logs.get(before).ok_or("no log message within 3 s")?;
            let level = m["level"].as_str().ok_or(format!("no level in {m}"))?;
            let data = m["data"].as_str().ok_or(format!("no data in {m}"))?;
            // "Debug-level message", ... except the server's own "Alert level-message".
            let word = data.split(['-', ' ']).next().unwrap_or("").to_lowercase();
            same("level named in the message", word.as_str(), level)?;
            Ok(level.to_owned())
        })
        .await;
    report
        .check(
            "logging: a higher level filters the simulated messages",
            async {
                client
                    .set_log_level(LoggingLevel::Emergency)
                    .await
                    .map_err(err)?;
                let before = host.logs().len();
                call_text(client, "toggle-simulated-logging", json!({})).await?;
                tokio::time::sleep(Duration::from_millis(800)).await;
                call_text(client, "toggle-simulated-logging", json!({})).await?;
                let logs = host.logs();
                let below: Vec<&Value> = logs[before..]
                    .iter()
                    .filter(|m| m["level"] != "emergency")
                    .collect();
                if below.is_empty() {
                    Ok(format!("{} emergency messages", logs.len() - before))
                } else {
                    Err(format!("messages below emergency arrived: {below:?}"))
                }
            },
        )
        .await;
    report
        .check("progress callbacks", async {
            let seen = Arc::new(Mutex::new(Vec::new()));
            let s = seen.clone();
            let opts = RequestOptions::with_progress(move |p| {
                s.lock().expect("progress").push((p.progress, p.total))
            });
            let r = client
                .call_tool_with(
                    "trigger-long-running-operation",
                    json!({"duration": 1, "steps": 4}),
                    opts,
                )
                .await
                .map_err(err)?;
            same(
                "text",
                only_text(&r)?.as_str(),
                "Long running operation completed. Duration: 1 seconds, Steps: 4.",
            )?;
            let got = seen.lock().expect("progress").clone();
            same(
                "progress",
                got,
                (1..=4).map(|i| (f64::from(i), Some(4.0))).collect(),
            )
            .map(|()| String::new())
        })
        .await;
    report
        .check(
            "cancellation: a dropped call, then the next call answers",
            async {
                let slow = client.call_tool(
                    "trigger-long-running-operation",
                    json!({"duration": 30, "steps": 3}),
                );
                if tokio::time::timeout(Duration::from_millis(500), slow)
                    .await
                    .is_ok()
                {
                    return Err("the long operation answered within 500 ms".into());
                }
                let t = call_text(client, "echo", json!({"message": "after cancel"})).await?;
                same("text", t.as_str(), "Echo: after cancel").map(|()| String::new())
            },
        )
        .await;
    report
        .check("sampling (server request)", async {
            let r = client
                .call_tool(
                    "trigger-sampling-request",
                    json!({"prompt": "hello", "maxTokens": 20}),
                )
                .await
                .map_err(err)?;
            let t = only_text(&r)?;
            let json_part = t
                .strip_prefix("LLM sampling result: \n")
                .ok_or(format!("text: {t:?}"))?;
            let echoed: Value =
                serde_json::from_str(json_part).map_err(|e| format!("result JSON: {e}"))?;
            same("model", &echoed["model"], &json!(MODEL))?;
            same(
                "content",
                &echoed["content"],
                &json!({"type": "text", "text": MODEL_TEXT}),
            )?;
            let p = host
                .seen(|s| s.sampling.last().cloned())
                .ok_or("no sampling request")?;
            let v = serde_json::to_value(&p).map_err(|e| e.to_string())?;
            same(
                "prompt",
                v.pointer("/messages/0/content/text"),
                Some(&json!("Resource trigger-sampling-request context: hello")),
            )?;
            same(
                "systemPrompt",
                p.system_prompt.as_deref(),
                Some("You are a helpful test server."),
            )?;
            same("maxTokens", p.max_tokens, 20).map(|()| String::new())
        })
        .await;
    if v >= ProtocolVersion::V2025_06_18 {
        report
            .check("elicitation (server request)", async {
                let r = client
                    .call_tool("trigger-elicitation-request", json!({}))
                    .await
                    .map_err(err)?;
                let t = texts(&r);
                same(
                    "first block",
                    t.first().map(String::as_str),
                    Some("✅ User provided the requested information!"),
                )?;
                let inputs = t.get(1).ok_or("no inputs block")?;
                if !inputs.contains("- Name: Ada") || !inputs.contains("- Agreed to terms: true") {
                    return Err(format!("inputs: {inputs:?}"));
                }
                same(
                    "asked",
                    host.seen(|s| s.elicitations.last().cloned()).as_deref(),
                    Some("Please provide inputs for the following fields:"),
                )
                .map(|()| String::new())
            })
            .await;
    } else {
        report.skip("elicitation (server request)", "elicitation is 2025-06-18+");
    }
}

/// What `served()` of the Python server reports: the `tools/list` requests and the reads of
/// `demo://counted` it received.
async fn served(c: &Client) -> Result<(u64, u64), String> {
    let t = call_text(c, "served", json!({})).await?;
    let v: Value = serde_json::from_str(&t).map_err(|e| format!("served(): {e}: {t}"))?;
    match (v["lists"].as_u64(), v["reads"].as_u64()) {
        (Some(l), Some(r)) => Ok((l, r)),
        _ => Err(format!("served(): {t}")),
    }
}

/// Follows the `tools/list` requests a server received: each step says how many more it
/// must have received since the last.
struct Lists(u64);

impl Lists {
    async fn start(c: &Client) -> Result<Self, String> {
        Ok(Self(served(c).await?.0))
    }

    async fn step(&mut self, c: &Client, what: &str, want: u64) -> Result<(), String> {
        let now = served(c).await?.0;
        let got = now - self.0;
        self.0 = now;
        same(
            &format!("tools/list requests the server received ({what})"),
            got,
            want,
        )
    }
}

/// The text of `demo://counted`, and how many more reads of it the server received.
async fn counted(c: &Client) -> Result<(String, u64), String> {
    let before = served(c).await?.1;
    let r = c.read_resource("demo://counted").await.map_err(err)?;
    let text = text_contents(&r)?.0;
    Ok((text, served(c).await?.1 - before))
}

/// Waits on `sub` for a notification `method`.
async fn next_of(sub: &mut mcp::client::Subscription, method: &str) -> Result<(), String> {
    loop {
        match sub.next().await {
            Some(n) if n.method == method => return Ok(()),
            Some(_) => {}
            None => return Err(format!("the subscription ended before {method}")),
        }
    }
}

/// The response cache against the Python server's 2026 caching hints (`tools/list` 60 s
/// private, `resources/read` 1.5 s public), counting what the server received.
async fn python_cache_checks(args: &Args, client: &Client, report: &mut Report) {
    if client.protocol_version().era() != Era::Modern {
        report
            .check("cache: legacy results are never cached", async {
                let mut lists = Lists::start(client).await?;
                client.list_tools(None).await.map_err(err)?;
                client.list_tools(None).await.map_err(err)?;
                lists
                    .step(client, "two lists", 2)
                    .await
                    .map(|()| String::new())
            })
            .await;
        return;
    }
    report
        .check(
            "cache: pages kept apart, an invalid cursor drops them all, use/refresh/bypass",
            async {
                let second = client
                    .list_tools(None)
                    .await
                    .map_err(err)?
                    .next_cursor
                    .ok_or("no second page")?;
                client.list_tools(Some(second.clone())).await.map_err(err)?;
                let mut lists = Lists::start(client).await?;
                client.list_tools(None).await.map_err(err)?;
                client.list_tools(Some(second.clone())).await.map_err(err)?;
                lists.step(client, "both pages cached", 0).await?;
                match client.list_tools(Some("nonsense".into())).await {
                    Err(e) if e.code() == Some(-32602) => {}
                    other => return Err(format!("bad cursor: want -32602, got {other:?}")),
                }
                client.list_tools(None).await.map_err(err)?;
                lists
                    .step(client, "the bad cursor, then page 1 again", 2)
                    .await?;
                client.list_tools(Some(second.clone())).await.map_err(err)?;
                client.list_tools(Some(second.clone())).await.map_err(err)?;
                lists.step(client, "page 2 again, once", 1).await?;
                let bypass = client.with_cache_mode(CacheMode::Bypass);
                let refresh = client.with_cache_mode(CacheMode::Refresh);
                bypass.list_tools(None).await.map_err(err)?;
                client.list_tools(None).await.map_err(err)?;
                lists.step(client, "bypass, then use", 1).await?;
                refresh.list_tools(None).await.map_err(err)?;
                client.list_tools(None).await.map_err(err)?;
                lists.step(client, "refresh, then use", 1).await?;
                Ok(String::new())
            },
        )
        .await;
    report
        .check(
            "cache: resources/read within its ttl, then expired",
            async {
                let refresh = client.with_cache_mode(CacheMode::Refresh);
                let (first, n) = counted(&refresh).await?;
                same("reads on refresh", n, 1)?;
                let (again, n) = counted(client).await?;
                same(
                    "reads within the ttl",
                    (again.as_str(), n),
                    (first.as_str(), 0),
                )?;
                tokio::time::sleep(Duration::from_millis(1_700)).await;
                let (later, n) = counted(client).await?;
                same("reads after the ttl", n, 1)?;
                if later == first {
                    return Err(format!("the same text after the ttl: {later}"));
                }
                Ok(String::new())
            },
        )
        .await;
    report
        .check("cache: list_changed and resources/updated evict", async {
            let mut sub = client
                .listen(mcp_core::types::SubscriptionFilter {
                    tools_list_changed: Some(true),
                    resource_subscriptions: Some(vec!["demo://counted".into()]),
                    ..Default::default()
                })
                .await
                .map_err(err)?;
            client.list_tools(None).await.map_err(err)?;
            let mut lists = Lists::start(client).await?;
            client.list_tools(None).await.map_err(err)?;
            lists.step(client, "cached", 0).await?;
            call_text(client, "changed", json!({})).await?;
            next_of(&mut sub, "notifications/tools/list_changed").await?;
            client.list_tools(None).await.map_err(err)?;
            lists.step(client, "after list_changed", 1).await?;
            let (first, _) = counted(&client.with_cache_mode(CacheMode::Refresh)).await?;
            let (again, n) = counted(client).await?;
            same("cached read", (again.as_str(), n), (first.as_str(), 0))?;
            call_text(client, "changed", json!({"uri": "demo://counted"})).await?;
            next_of(&mut sub, "notifications/resources/updated").await?;
            let (_, n) = counted(client).await?;
            same("reads after resources/updated", n, 1).map(|()| String::new())
        })
        .await;
    // Three more clients sharing one store: Alice twice, Bob once.
    let store: Arc<dyn CacheStore> = Arc::new(MemoryStore::default());
    let mut fleet = Vec::new();
    for partition in ["alice", "alice", "bob"] {
        let store = store.clone();
        match connect_with(args, Host::default(), |b| {
            b.cache_store(store).cache_partition(partition)
        })
        .await
        {
            Ok(c) => fleet.push(c),
            Err(e) => {
                report
                    .check("cache: private partitions apart, public shared", async {
                        Err(format!("connecting another client: {e}"))
                    })
                    .await;
                return;
            }
        }
    }
    let [alice, alice_again, bob] = &fleet[..] else {
        unreachable!("three clients")
    };
    report
        .check("cache: private partitions apart, public shared", async {
            alice
                .with_cache_mode(CacheMode::Refresh)
                .list_tools(None)
                .await
                .map_err(err)?;
            // (Over stdio each client has a server process of its own: count on its own.)
            let mut lists = Lists::start(bob).await?;
            bob.list_tools(None).await.map_err(err)?;
            lists.step(bob, "Bob, another partition", 1).await?;
            let mut lists = Lists::start(alice_again).await?;
            alice_again.list_tools(None).await.map_err(err)?;
            lists.step(alice_again, "Alice's second client", 0).await?;
            // `resources/read` is public: Bob reuses what Alice read.
            let (text, _) = counted(&alice.with_cache_mode(CacheMode::Refresh)).await?;
            let (seen, n) = counted(bob).await?;
            same(
                "Bob's read of the public entry",
                (seen.as_str(), n),
                (text.as_str(), 0),
            )
            .map(|()| String::new())
        })
        .await;
    for c in fleet {
        let _ = c.shutdown().await;
    }
}
