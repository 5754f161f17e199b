//! `everything`: one server that uses every feature of the SDK, for people to try and for
//! the interop suites to drive.
//!
//! ```text
//! cargo run --example everything --features http -- --stdio
//! cargo run --example everything --features http -- --http 127.0.0.1:3000   # Streamable HTTP at /mcp
//! cargo run --example everything --features http -- --sse 127.0.0.1:3000    # HTTP+SSE (2024-11-05) at /sse
//! cargo run --example everything --features http -- --stdio --protocol-versions 2025-03-26,2024-11-05
//! cargo run --example everything --features http,redis -- --http 127.0.0.1:3000 --redis redis://127.0.0.1:6379/0
//! ```
//!
//! `--protocol-versions` narrows the revisions offered (default: all five), so a client that
//! asks for its newest revision negotiates down to the newest one listed; the interop
//! drivers use it to reach every revision a client speaks.
//!
//! `--redis URL` (built with the `redis` feature) keeps the HTTP sessions, the resumable
//! streams' events, the used `requestState`s and the tasks in Redis
//! (`mcp::backends::redis`), and fans change notifications out over Redis pub/sub (a
//! `touch_note` on one process reaches the subscribers every process holds), as well as a
//! client's answer to an elicitation, sampling or roots request posted to another process
//! than the one asking, so several `everything` processes behind one load balancer serve the
//! same clients (a task started on one is polled, answered and cancelled through any); give
//! them the same `requestState` keys in `MCP_REQUEST_STATE_KEYS` (base64, comma separated).
//!
//! `--redis-replicas N` makes each write a client is told of wait until `N` Redis replicas
//! hold it (`RedisConfig::wait_for_replicas`; default: one under Sentinel, none otherwise);
//! `--redis-fewer-replicas refuse` fails such a write (503) when fewer hold it in time,
//! `accept` (the default) acknowledges it with a warning and a count
//! (`RedisConfig::when_fewer_replicas`).
//!
//! `--rate-limit TOOL=N` lets each caller (its address over HTTP, else its session) call
//! `TOOL` `N` times a minute (`mcp::policies::RateLimit`): over it a
//! call answers `-32029` with `retryAfterMs`. With `--redis` the buckets live in Redis, so
//! the limit holds for the replicas together.
//!
//! Both HTTP flags serve the same router (Streamable HTTP at `/mcp`, the 2024-11-05
//! transport at `/sse` + `/messages`), so any client of any revision can connect to either.
//!
//! What is in it:
//! - tools written with `#[mcp::tool]`: `add` (a title and an icon), `media` (audio with
//!   annotations and a resource link, each turned into text where a revision lacks it), `weather` (structured output), `countdown`
//!   (progress), `sleep` (cancellation; `stats`, tagged `admin`, counts what was
//!   cancelled), `log_demo`
//!   (`tracing` events reach the client through the log bridge), `ask_name` (elicitation),
//!   `sign_in` (URL-mode elicitation),
//!   `summarize` (sampling), `list_roots` (roots), `report` (may run as a task),
//!   `approve` (may run as a task, then asks for input: the task is `input_required`),
//!   `enable_echo` (adds a tool at run time: list-changed), `touch_note` (resource updated);
//! - resources: `everything://readme` (text), `everything://logo.png` (binary), the template
//!   `everything://notes/{id}`, with subscriptions;
//! - prompts: `greet` (its `name` argument completes) and `describe_logo` (an image);
//! - a skill, served through the skills extension;
//! - caching hints on lists (2026-07-28), change notifications (`subscriptions/listen` and
//!   legacy list-changed / `resources/updated`), tasks (both task flavours).
//!
//! The same elicitation, sampling and roots calls are server-to-client requests on legacy
//! revisions and `input_required` rounds on 2026-07-28.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp::CancellationToken;
use mcp::caching::CacheHint;
use mcp::logging::ClientLogLayer;
use mcp::policies::{Limit, RateLimit, RateStore};
use mcp::prelude::*;
use mcp::session::SubscriptionBus;
use mcp::session::request_state::RequestStateConfig;
use mcp::skills::{EmbeddedFile, SkillSet};
use mcp::transport::http::HttpOptions;
use mcp::types::{
    Annotations, AudioContent, CompletionReference, CreateMessageParams, ElicitAction,
    GetPromptResult, PromptMessage, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, Role, SamplingMessage,
};
use mcp::version::SupportedVersions;
use mcp::{Elicitation, Progress};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{Layer, filter::LevelFilter};

/// Calls of `sleep` that saw their cancellation.
static CANCELLED: AtomicU64 = AtomicU64::new(0);

/// Calls of `approve` stopped before they finished (their task cancelled).
static STOPPED: AtomicU64 = AtomicU64::new(0);

/// A 1x1 transparent PNG.
const LOGO: &[u8] = &[
    0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x48, 0x44, 0x52,
    0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1f, 0x15, 0xc4,
    0x89, 0x00, 0x00, 0x00, 0x0d, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0x00, 0x01, 0x00, 0x00,
    0x05, 0x00, 0x01, 0x0d, 0x0a, 0x2d, 0xb4, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae,
    0x42, 0x60, 0x82,
];

const README: &str = "# everything\n\nA showcase server of the mcp Rust SDK: tools, resources, \
prompts, completion, progress, cancellation, logging, elicitation, sampling, roots, tasks, \
skills and change notifications.\n";

const SKILL: &[u8] =
    b"---\nname: greeting-etiquette\ndescription: How to greet people politely.\n---\n\n\
Greet people by name, and ask how they are.\n";

/// Adds two integers.
#[mcp::tool(
    read_only,
    idempotent,
    title = "Add two integers",
    icons("https://example.com/icons/add.svg")
)]
async fn add(a: i64, b: i64) -> Result<String, ToolError> {
    // A sum beyond 64 bits is the caller's mistake: a tool error, not a panic.
    a.checked_add(b).map(|sum| sum.to_string()).ok_or_else(|| {
        ToolError::new(format!(
            "{a} + {b} overflows: the sum must lie between {} and {}",
            i64::MIN,
            i64::MAX
        ))
    })
}

/// An empty clip: a valid 8 kHz mono WAV header with no samples.
const SILENCE_WAV: &str = "UklGRiQAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQAAAAA=";

/// An audio clip for the user (annotated) and a link to the readme.
#[mcp::tool(read_only)]
async fn media() -> Vec<ContentBlock> {
    let mut audio = AudioContent::new(SILENCE_WAV, "audio/wav");
    audio.annotations = Some(Annotations {
        audience: Some(vec![Role::User]),
        priority: Some(0.5),
        ..Default::default()
    });
    vec![
        ContentBlock::Audio(audio),
        ContentBlock::resource_link("everything://readme", "readme"),
    ]
}

/// Today's weather in a city.
#[derive(serde::Serialize, schemars::JsonSchema)]
struct Weather {
    city: String,
    celsius: f64,
    sky: String,
}

/// The (invented) weather in a city, as structured content.
#[mcp::tool(read_only, open_world)]
async fn weather(
    /// The city.
    city: String,
) -> Json<Weather> {
    let celsius = 12.0 + (city.len() % 15) as f64;
    Json(Weather {
        city,
        celsius,
        sky: "clear".into(),
    })
}

/// Counts to `steps`, reporting progress at each step.
#[mcp::tool]
async fn countdown(steps: u32, delay_ms: Option<u64>, progress: Progress) -> String {
    // Each step is reported, then worked on, so the last report is not written in one batch
    // with the result (the TypeScript SDKs drop a progress notification that they read
    // together with its request's response).
    for i in 1..=steps {
        let _ = progress
            .report(
                f64::from(i),
                Some(f64::from(steps)),
                Some(&format!("step {i}")),
            )
            .await;
        tokio::time::sleep(Duration::from_millis(delay_ms.unwrap_or(10))).await;
    }
    format!("counted to {steps}")
}

/// Sleeps for `ms` milliseconds unless cancelled first.
#[mcp::tool]
async fn sleep(ms: u64, cancel: CancellationToken) -> String {
    tokio::select! {
        _ = tokio::time::sleep(Duration::from_millis(ms)) => format!("slept {ms} ms"),
        _ = cancel.cancelled() => {
            CANCELLED.fetch_add(1, Ordering::SeqCst);
            "cancelled".into()
        }
    }
}

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Stats {
    /// Calls of `sleep` that were cancelled.
    cancelled: u64,
    /// Calls of `approve` stopped before they finished.
    stopped_approvals: u64,
}

/// What the server has observed.
#[mcp::tool(read_only, tags("admin"))]
async fn stats() -> Json<Stats> {
    Json(Stats {
        cancelled: CANCELLED.load(Ordering::SeqCst),
        stopped_approvals: STOPPED.load(Ordering::SeqCst),
    })
}

/// Emits one `tracing` event per level; the client receives those its level lets through.
#[mcp::tool]
async fn log_demo() -> String {
    tracing::debug!(target: "everything", "debug: looking around");
    tracing::info!(target: "everything", "info: found 3 things");
    tracing::warn!(target: "everything", "warning: one thing is odd");
    tracing::error!(target: "everything", "error: one thing is broken");
    "logged at 4 levels".into()
}

/// The form `ask_name` asks the user to fill.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Person {
    /// Your name.
    name: String,
    /// Your age.
    age: i64,
}

/// Asks the user who they are (elicitation).
#[mcp::tool]
async fn ask_name(ctx: &Context) -> Result<String, McpError> {
    Ok(match ctx.elicit::<Person>("Who are you?").await? {
        Elicitation::Accept(p) => format!("Hello, {} ({})!", p.name, p.age),
        Elicitation::Decline => "You declined to say.".into(),
        Elicitation::Cancel => "You cancelled.".into(),
    })
}

/// Sends the user to a sign-in page (URL-mode elicitation: 2025-11-25 and 2026-07-28).
#[mcp::tool]
async fn sign_in(ctx: &Context) -> Result<String, McpError> {
    let url = "https://example.com/sign-in";
    Ok(match ctx.elicit_url("Sign in to continue.", url).await? {
        ElicitAction::Accept => "You went to sign in.".into(),
        ElicitAction::Decline => "You declined to sign in.".into(),
        ElicitAction::Cancel => "You cancelled.".into(),
    })
}

/// Summarizes `text` with the client's model (sampling).
#[mcp::tool]
async fn summarize(text: String, ctx: &Context) -> Result<String, McpError> {
    let ask = format!("Summarize in one sentence:\n\n{text}");
    let params = CreateMessageParams::new(vec![SamplingMessage::user_text(ask)], 200);
    let answer = ctx.sample(params).await?;
    let blocks = answer.content.blocks();
    let said = blocks.iter().find_map(|b| b.as_text()).unwrap_or_default();
    Ok(format!("Summary: {said}"))
}

/// Lists the client's roots.
#[mcp::tool(read_only)]
async fn list_roots(ctx: &Context) -> Result<String, McpError> {
    let roots = ctx.roots().await?;
    Ok(roots
        .iter()
        .map(|r| r.uri.as_str())
        .collect::<Vec<_>>()
        .join("\n"))
}

/// Writes a report on `topic`; slow, so clients may run it as a task.
#[mcp::tool(task = "optional")]
async fn report(topic: String) -> String {
    tokio::time::sleep(Duration::from_millis(300)).await;
    format!("Report on {topic}: all is well.")
}

/// The answer `approve` asks for.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Approval {
    /// Whether to apply the change.
    approved: bool,
}

/// Counts a call of `approve` as stopped when it is dropped before it finished.
struct Unfinished(bool);

impl Drop for Unfinished {
    fn drop(&mut self) {
        if self.0 {
            STOPPED.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// Prepares `change` for `wait_ms` (default 200), then asks the user to approve it. As a
/// task the question is the task's input: `input_required` until answered (2026-07-28:
/// `tasks/update`; 2025-11-25: an elicitation tagged with the task).
#[mcp::tool(task = "optional")]
async fn approve(change: String, wait_ms: Option<u64>, ctx: &Context) -> Result<String, McpError> {
    let mut unfinished = Unfinished(true);
    tokio::time::sleep(Duration::from_millis(wait_ms.unwrap_or(200))).await;
    let said = match ctx.elicit::<Approval>(&format!("Apply {change}?")).await {
        Ok(Elicitation::Accept(a)) if a.approved => format!("{change}: applied"),
        Ok(_) => format!("{change}: not applied"),
        // An input round (2026-07-28, not a task) ends the call here: not a stop.
        Err(e) => {
            unfinished.0 = false;
            return Err(e.into());
        }
    };
    unfinished.0 = false;
    Ok(said)
}

/// Adds an `echo` tool at run time (clients are told the tool list changed).
#[mcp::tool]
async fn enable_echo(ctx: &Context) -> Result<String, McpError> {
    let handle = ctx
        .server()
        .ok_or_else(|| McpError::internal("no server handle"))?;
    let tool = Tool::new("echo").with_description("Echoes its text");
    handle
        .add_tool(tool, |_ctx, a: EchoArgs| async move {
            Ok(CallToolResult::success(vec![ContentBlock::text(a.text)]))
        })
        .map_err(|e| McpError::internal(e.to_string()))?;
    Ok("echo is enabled".into())
}

#[derive(serde::Deserialize)]
struct EchoArgs {
    text: String,
}

/// Announces that note `id` changed (subscribers get `notifications/resources/updated`).
#[mcp::tool]
async fn touch_note(id: u32, ctx: &Context) -> Result<String, McpError> {
    let handle = ctx
        .server()
        .ok_or_else(|| McpError::internal("no server handle"))?;
    handle.resource_updated(format!("everything://notes/{id}"));
    Ok(format!("note {id} touched"))
}

/// A friendly greeting for someone.
#[mcp::prompt]
async fn greet(
    /// Who to greet.
    name: String,
) -> String {
    format!("Please greet {name} warmly.")
}

/// Describe the logo.
#[mcp::prompt]
async fn describe_logo() -> GetPromptResult {
    use base64::Engine;
    let png = base64::engine::general_purpose::STANDARD.encode(LOGO);
    GetPromptResult {
        messages: vec![
            PromptMessage::user("Describe this image."),
            PromptMessage {
                role: Role::User,
                content: ContentBlock::image(png, "image/png"),
            },
        ],
        ..Default::default()
    }
}

const NAMES: &[&str] = &["Ada", "Alan", "Alonzo", "Barbara", "Grace", "Edsger"];

/// The server, for `tests/tests/everything.rs` (which includes this file; `main` adds a rate
/// limit to the builder first).
#[allow(dead_code)]
pub(crate) fn server(versions: SupportedVersions, request_state: RequestStateConfig) -> Server {
    builder(versions, request_state, None).build()
}

/// The server's builder: every tool, resource and prompt; its change notifications fanned
/// out through `bus` when given (the Redis bus of `--redis`, so every replica's subscribers
/// hear of every replica's changes).
fn builder(
    versions: SupportedVersions,
    request_state: RequestStateConfig,
    bus: Option<Arc<dyn SubscriptionBus>>,
) -> mcp::ServerBuilder {
    static SKILLS: &[EmbeddedFile] = &[EmbeddedFile::new("greeting-etiquette/SKILL.md", SKILL)];
    let skills = SkillSet::from_embedded(SKILLS).expect("the embedded skill is valid");
    let builder = Server::builder("everything", env!("CARGO_PKG_VERSION"));
    let builder = match bus {
        Some(bus) => builder.subscription_bus(bus),
        None => builder.subscriptions(true),
    };
    builder
        .instructions("Every feature of the mcp Rust SDK in one server.")
        .supported_versions(versions)
        .request_state(request_state)
        .skills(skills)
        .cache_hint_for("tools/list", CacheHint::private(1_000))
        .elicitation_form::<Person>()
        .elicitation_form::<Approval>()
        .registry(|r| {
            r.add_tool_def::<add>();
            r.add_tool_def::<media>();
            r.add_tool_def::<weather>();
            r.add_tool_def::<countdown>();
            r.add_tool_def::<sleep>();
            r.add_tool_def::<stats>();
            r.add_tool_def::<log_demo>();
            r.add_tool_def::<ask_name>();
            r.add_tool_def::<sign_in>();
            r.add_tool_def::<summarize>();
            r.add_tool_def::<list_roots>();
            r.add_tool_def::<report>();
            r.add_tool_def::<approve>();
            r.add_tool_def::<enable_echo>();
            r.add_tool_def::<touch_note>();
            r.add_prompt_def::<greet>();
            r.add_prompt_def::<describe_logo>();
            r.add_completion(
                CompletionReference::prompt("greet"),
                "name",
                |_ctx, prefix, _| async move {
                    NAMES
                        .iter()
                        .filter(|n| n.starts_with(prefix.as_str()))
                        .map(|n| n.to_string())
                        .collect::<Vec<_>>()
                },
            );
            r.add_resource(
                Resource {
                    mime_type: Some("text/markdown".into()),
                    ..Resource::new("everything://readme", "readme")
                },
                |_ctx, uri| async move {
                    let c = ResourceContents::text(uri, README).with_mime_type("text/markdown");
                    Ok(ReadResourceResult {
                        contents: vec![c],
                        ..Default::default()
                    })
                },
            );
            r.add_resource(
                Resource {
                    mime_type: Some("image/png".into()),
                    ..Resource::new("everything://logo.png", "logo")
                },
                |_ctx, uri| async move {
                    let c = ResourceContents::blob(uri, LOGO).with_mime_type("image/png");
                    Ok(ReadResourceResult {
                        contents: vec![c],
                        ..Default::default()
                    })
                },
            );
            r.add_template(
                ResourceTemplate::new("everything://notes/{id}", "note"),
                |_ctx, uri| async move {
                    let id = uri.strip_prefix("everything://notes/").unwrap_or_default();
                    if id.is_empty() || !id.bytes().all(|b| b.is_ascii_digit()) {
                        // Empty contents: the dispatcher answers with the not-found error.
                        return Ok(ReadResourceResult::default());
                    }
                    let c = ResourceContents::text(&uri, format!("This is note {id}."));
                    Ok(ReadResourceResult {
                        contents: vec![c],
                        ..Default::default()
                    })
                },
            );
        })
}

fn usage() -> ! {
    eprintln!(
        "usage: everything (--stdio | --http HOST:PORT | --sse HOST:PORT) [--protocol-versions REV,REV...] [--redis URL [--redis-replicas N] [--redis-fewer-replicas accept|refuse]] [--rate-limit TOOL=N]"
    );
    std::process::exit(2)
}

/// The transport to serve, from the command line.
enum Serve {
    Stdio,
    Http(std::net::SocketAddr, &'static str),
}

/// Parses `--protocol-versions 2025-03-26,2024-11-05`: every name must be a known revision.
fn parse_versions(list: &str) -> Result<SupportedVersions, String> {
    let versions = list
        .split(',')
        .map(|v| {
            v.trim()
                .parse::<ProtocolVersion>()
                .map_err(|e| e.to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SupportedVersions::only(&versions))
}

/// The command line: the transport, the revisions offered, the Redis of the stores, the
/// rate-limited tool and its calls a minute.
struct Args {
    serve: Serve,
    versions: SupportedVersions,
    redis: Option<RedisArgs>,
    rate_limit: Option<(String, u32)>,
}

/// `--redis URL`, `--redis-replicas N`, `--redis-fewer-replicas accept|refuse`.
#[cfg_attr(not(feature = "redis"), allow(dead_code))]
struct RedisArgs {
    url: String,
    replicas: Option<u32>,
    refuse: bool,
}

fn parse_args(args: &[String]) -> Args {
    let mut serve = None;
    let mut versions = SupportedVersions::all();
    let mut redis = None;
    let mut replicas = None;
    let mut refuse = None;
    let mut rate_limit = None;
    let mut it = args.iter().map(String::as_str);
    while let Some(flag) = it.next() {
        match flag {
            "--stdio" if serve.is_none() => serve = Some(Serve::Stdio),
            "--http" | "--sse" if serve.is_none() => {
                let addr = it
                    .next()
                    .and_then(|a| a.parse().ok())
                    .unwrap_or_else(|| usage());
                let path = if flag == "--http" { "/mcp" } else { "/sse" };
                serve = Some(Serve::Http(addr, path));
            }
            "--protocol-versions" => {
                let list = it.next().unwrap_or_else(|| usage());
                versions = parse_versions(list).unwrap_or_else(|e| {
                    eprintln!("everything: --protocol-versions: {e}");
                    std::process::exit(2)
                });
            }
            "--redis" if redis.is_none() => {
                redis = Some(it.next().unwrap_or_else(|| usage()).to_owned());
            }
            "--redis-replicas" if replicas.is_none() => {
                let n = it.next().and_then(|n| n.parse::<u32>().ok());
                replicas = Some(n.unwrap_or_else(|| usage()));
            }
            "--redis-fewer-replicas" if refuse.is_none() => {
                refuse = Some(match it.next() {
                    Some("accept") => false,
                    Some("refuse") => true,
                    _ => usage(),
                });
            }
            "--rate-limit" if rate_limit.is_none() => {
                let spec = it.next().unwrap_or_else(|| usage());
                let (tool, n) = spec.split_once('=').unwrap_or_else(|| usage());
                let n = n.parse::<u32>().ok().filter(|n| *n > 0);
                rate_limit = Some((tool.to_owned(), n.unwrap_or_else(|| usage())));
            }
            _ => usage(),
        }
    }
    let serve = serve.unwrap_or_else(|| usage());
    if matches!(serve, Serve::Stdio) && redis.is_some() {
        usage(); // the stores are those of the HTTP transport
    }
    if redis.is_none() && (replicas.is_some() || refuse.is_some()) {
        usage(); // about the Redis of --redis
    }
    let redis = redis.map(|url| RedisArgs {
        url,
        replicas,
        refuse: refuse.unwrap_or(false),
    });
    Args {
        serve,
        versions,
        redis,
        rate_limit,
    }
}

/// What the HTTP server shares with other processes: nothing by default; with `--redis`,
/// sessions, events, a single-use replay guard and the tasks in Redis, and over Redis
/// pub/sub a bus and the relay of clients' answers to another process's requests.
struct Shared {
    opts: HttpOptions,
    request_state: RequestStateConfig,
    bus: Option<Arc<dyn SubscriptionBus>>,
    tasks: Option<Arc<dyn mcp::tasks::TaskStore>>,
    rates: Option<Arc<dyn RateStore>>,
}

/// The HTTP options, the `requestState` sealing, the subscription bus and the task store:
/// in this process by default, in Redis with `--redis`.
async fn stores(redis: Option<RedisArgs>) -> std::io::Result<Shared> {
    let Some(redis) = redis else {
        return Ok(Shared {
            opts: HttpOptions::default(),
            request_state: RequestStateConfig::default(),
            bus: None,
            tasks: None,
            rates: None,
        });
    };
    #[cfg(feature = "redis")]
    {
        use mcp::backends::redis::{FewerReplicas, RedisConfig};
        let url = redis.url;
        let mut config = RedisConfig::new(url.as_str());
        if let Some(n) = redis.replicas {
            // The timeout of the default: half the call timeout (the cap).
            config = config.wait_for_replicas(n, std::time::Duration::from_secs(1));
        }
        if redis.refuse {
            config = config.when_fewer_replicas(FewerReplicas::Refuse);
        }
        let stores = config
            .connect()
            .await
            .map_err(|e| std::io::Error::other(format!("--redis {url}: {e}")))?;
        let keys = RequestStateConfig::from_env("MCP_REQUEST_STATE_KEYS")
            .map_err(|e| std::io::Error::other(format!("MCP_REQUEST_STATE_KEYS: {e}")))?;
        let request_state = keys.unwrap_or_default().single_use(stores.replay_guard());
        let opts = HttpOptions {
            session_store: stores.session_store(),
            event_store: Some(stores.event_store()),
            answer_relay: Some(stores.answer_relay()),
            ..HttpOptions::default()
        };
        eprintln!(
            "everything: sessions, events, used requestStates, tasks and server events in {url}"
        );
        Ok(Shared {
            opts,
            request_state,
            bus: Some(Arc::new(stores.bus())),
            tasks: Some(stores.task_store()),
            rates: Some(stores.rate_store()),
        })
    }
    #[cfg(not(feature = "redis"))]
    {
        eprintln!(
            "everything: --redis {} needs the `redis` feature (--features http,redis)",
            redis.url
        );
        std::process::exit(2)
    }
}

/// The limit `--rate-limit TOOL=N` asks for: `N` calls of `TOOL` a minute per caller,
/// counted in `rates` (Redis with `--redis`) or in this process. `None` (no flag) is a
/// layer that passes everything on.
fn limit(
    rate_limit: Option<(String, u32)>,
    rates: Option<Arc<dyn RateStore>>,
) -> Option<RateLimit> {
    let (tool, n) = rate_limit?;
    let limit = RateLimit::none().tool(tool, Limit::per_minute(n));
    Some(match rates {
        Some(rates) => limit.store(rates),
        None => limit,
    })
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // Logs go to stderr (stdout is the stdio transport) and, through the bridge, to clients.
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_filter(LevelFilter::INFO);
    tracing_subscriber::registry()
        .with(stderr)
        .with(ClientLogLayer::new())
        .init();

    let args: Vec<String> = std::env::args().skip(1).collect();
    let Args {
        serve,
        versions,
        redis,
        rate_limit,
    } = parse_args(&args);
    match serve {
        Serve::Stdio => {
            let server = builder(versions, RequestStateConfig::default(), None);
            server
                .middleware(limit(rate_limit, None))
                .build()
                .serve_stdio()
                .await
        }
        Serve::Http(addr, path) => {
            let Shared {
                opts,
                request_state,
                bus,
                tasks,
                rates,
            } = stores(redis).await?;
            // Every transport: the 2024-11-05 HTTP+SSE one is opt-in.
            let opts = HttpOptions {
                legacy_sse: Some(("/sse".into(), "/messages".into())),
                ..opts
            };
            let stop = CancellationToken::new();
            mcp::transport::stdio::stop_on_signals(stop.clone());
            let listener = tokio::net::TcpListener::bind(addr).await?;
            eprintln!(
                "everything on http://{addr}{path} ({})",
                versions.strings().join(", ")
            );
            let mut server = builder(versions, request_state, bus);
            if let Some(tasks) = tasks {
                server = server.task_store(tasks);
            }
            server
                .middleware(limit(rate_limit, rates))
                .build()
                .serve_http_on(listener, opts, stop)
                .await
        }
    }
}
