//! The server `tests/tests/client_matrix.rs` drives over every transport and revision: the test
//! builds it in process, and spawns this binary for the stdio transport.
//!
//! `cargo run -p mcp-framework-tests --example client_matrix_server -- --stdio [REVISION]` (with a revision: the
//! only one it offers).
//!
//! What it has, each piece shaped per revision by the runtime: tools with titles and icons
//! (`add`), an `x-mcp-header` argument (`region`), structured output (`weather`), progress
//! (`countdown`), a slow tool that counts its cancellations (`sleep`, `stats`), log
//! messages (`log`; with a `tag`, `n` of them), elicitation, sampling and roots through the
//! context (`ask_name`, `summarize`, `list_roots`: each says how often it ran, which tells
//! a server-to-client request — one run — from a 2026 `input_required` round — a re-run),
//! two of them at once (`ask_both`), resource updates (`touch`), a tool added at run time
//! (`enable_echo`); a resource and a template; a prompt with a completion; change
//! notifications on.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp::prelude::*;
use mcp::types::{
    CompletionReference, CreateMessageParams, GetPromptResult, Icon, LoggingLevel, Prompt,
    PromptArgument, PromptMessage, ReadResourceResult, Resource, ResourceContents,
    ResourceTemplate, SamplingMessage,
};
use mcp::version::SupportedVersions;
use mcp::{Elicitation, InteractionError, ServerBuilder};
use serde_json::json;

/// The icon every titled item carries (a 1x1 PNG as a `data:` URI).
pub const ICON: &str = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

/// What the server observed, per server.
#[derive(Default)]
pub struct Observed {
    /// `sleep` calls that saw their cancellation.
    pub cancelled: AtomicU64,
    /// Runs of each interaction tool (`ask_name`, `summarize`, `list_roots`, `ask_both`).
    pub runs: [AtomicU64; 4],
}

#[derive(serde::Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

#[derive(serde::Deserialize)]
struct RegionArgs {
    region: String,
}

#[derive(serde::Deserialize)]
struct CityArgs {
    city: String,
}

#[derive(serde::Deserialize)]
struct StepsArgs {
    steps: u32,
}

#[derive(serde::Deserialize)]
struct MsArgs {
    ms: u64,
}

#[derive(serde::Deserialize)]
struct UriArgs {
    uri: String,
}

#[derive(serde::Deserialize)]
struct TextArgs {
    text: String,
}

#[derive(serde::Deserialize)]
struct NoArgs {}

/// `log`'s arguments: none (two messages), or a `tag` and how many tagged messages.
#[derive(serde::Deserialize)]
struct LogArgs {
    tag: Option<String>,
    #[serde(default)]
    n: u32,
}

/// The form `ask_name` asks the user to fill.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Person {
    /// Your name.
    name: String,
}

fn icons() -> Option<Vec<Icon>> {
    Some(vec![Icon {
        src: ICON.into(),
        mime_type: Some("image/png".into()),
        sizes: None,
        theme: None,
    }])
}

fn object(props: serde_json::Value, required: &[&str]) -> serde_json::Value {
    json!({"type": "object", "properties": props, "required": required})
}

fn text(t: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(t)])
}

/// Counts one run of interaction tool `i` and returns the count so far.
fn run(observed: &Observed, i: usize) -> u64 {
    observed.runs[i].fetch_add(1, Ordering::SeqCst) + 1
}

const NAMES: &[&str] = &["Ada", "Alan", "Alonzo", "Grace"];

/// The tools: plain, structured, progress, slow, logging, the three interactions, touch.
fn tools(b: ServerBuilder, observed: &Arc<Observed>) -> ServerBuilder {
    let add = Tool {
        title: Some("Add two numbers".into()),
        icons: icons(),
        ..Tool::new("add")
    };
    // On 2026 HTTP the argument also travels as the `Mcp-Param-Region` header.
    let region = Tool::new("region").with_input_schema(object(
        json!({"region": {"type": "string", "x-mcp-header": "Region"}}),
        &["region"],
    ));
    let weather = Tool::new("weather")
        .with_input_schema(object(json!({"city": {"type": "string"}}), &["city"]))
        .with_output_schema(object(
            json!({"city": {"type": "string"}, "celsius": {"type": "number"}}),
            &["city", "celsius"],
        ));
    let [o1, o2, o3, o4, o5, o6] = std::array::from_fn(|_| observed.clone());
    b.tool(
        add.with_input_schema(object(
            json!({"a": {"type": "integer"}, "b": {"type": "integer"}}),
            &["a", "b"],
        )),
        |_ctx, a: AddArgs| async move { Ok(text((a.a + a.b).to_string())) },
    )
    .tool(region, |_ctx, a: RegionArgs| async move {
        Ok(text(format!("served from {}", a.region)))
    })
    .tool(weather, |_ctx, a: CityArgs| async move {
        let celsius = 10.0 + a.city.len() as f64;
        Ok(CallToolResult::structured(
            json!({"city": a.city, "celsius": celsius}),
        ))
    })
    .tool(
        Tool::new("countdown")
            .with_input_schema(object(json!({"steps": {"type": "integer"}}), &["steps"])),
        |ctx, a: StepsArgs| async move {
            for i in 1..=a.steps {
                let msg = format!("step {i}");
                let _ = ctx
                    .progress(f64::from(i), Some(f64::from(a.steps)), Some(&msg))
                    .await;
            }
            Ok(text(format!("counted to {}", a.steps)))
        },
    )
    .tool(
        Tool::new("sleep").with_input_schema(object(json!({"ms": {"type": "integer"}}), &["ms"])),
        move |ctx, a: MsArgs| {
            let observed = o1.clone();
            async move {
                // Progress 0 tells the caller that the call is running.
                let _ = ctx.progress(0.0, None, Some("started")).await;
                tokio::select! {
                    _ = tokio::time::sleep(Duration::from_millis(a.ms)) => {
                        Ok(text(format!("slept {} ms", a.ms)))
                    }
                    _ = ctx.cancellation().cancelled() => {
                        observed.cancelled.fetch_add(1, Ordering::SeqCst);
                        Ok(text("cancelled"))
                    }
                }
            }
        },
    )
    .tool(Tool::new("stats"), move |_ctx, _a: NoArgs| {
        let observed = o2.clone();
        async move {
            Ok(CallToolResult::structured(json!({
                "cancelled": observed.cancelled.load(Ordering::SeqCst),
            })))
        }
    })
    .tool(Tool::new("log"), |ctx, a: LogArgs| async move {
        let mut sent = 0;
        let Some(tag) = a.tag else {
            for (level, what) in [
                (LoggingLevel::Info, "info: all is fine"),
                (LoggingLevel::Error, "error: one thing broke"),
            ] {
                sent += u32::from(ctx.log(level, Some("matrix"), json!(what)).await?);
            }
            return Ok(text(format!("sent {sent} of 2")));
        };
        // `n` messages tagged with the caller's `tag`, a millisecond apart so that
        // concurrent calls interleave theirs (a proxy must tell them apart).
        for i in 0..a.n {
            let what = json!(format!("{tag}-{i}"));
            sent += u32::from(ctx.log(LoggingLevel::Info, Some("matrix"), what).await?);
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        Ok(text(format!("sent {sent} of {}", a.n)))
    })
    .tool(Tool::new("ask_name"), move |ctx, _a: NoArgs| {
        let observed = o3.clone();
        async move {
            let runs = run(&observed, 0);
            let answer = match ctx.elicit::<Person>("Who are you?").await {
                // Before 2025-06-18 there is no elicitation: say so, as a tool error.
                Err(e @ InteractionError::Unsupported { .. }) => {
                    return Ok(CallToolResult::error(e.to_string()));
                }
                other => other?,
            };
            let said = match answer {
                Elicitation::Accept(p) => format!("Hello, {}!", p.name),
                Elicitation::Decline => "declined".into(),
                Elicitation::Cancel => "cancelled".into(),
            };
            Ok(text(format!("{said} (runs={runs})")))
        }
    })
    .tool(
        Tool::new("summarize")
            .with_input_schema(object(json!({"text": {"type": "string"}}), &["text"])),
        move |ctx, a: TextArgs| {
            let observed = o4.clone();
            async move {
                let runs = run(&observed, 1);
                let params = CreateMessageParams::new(vec![SamplingMessage::user_text(a.text)], 50);
                let answer = ctx.sample(params).await?;
                let blocks = answer.content.blocks();
                let said = blocks.iter().find_map(|b| b.as_text()).unwrap_or_default();
                Ok(text(format!("{} said {said} (runs={runs})", answer.model)))
            }
        },
    )
    .tool(Tool::new("list_roots"), move |ctx, _a: NoArgs| {
        let observed = o5.clone();
        async move {
            let runs = run(&observed, 2);
            let roots = ctx.roots().await?;
            let uris: Vec<_> = roots.iter().map(|r| r.uri.as_str()).collect();
            Ok(text(format!("{} (runs={runs})", uris.join(" "))))
        }
    })
    .tool(Tool::new("ask_both"), move |ctx, _a: NoArgs| {
        let observed = o6.clone();
        async move {
            // Two questions at once: two requests in flight on legacy, one round on 2026.
            let runs = run(&observed, 3);
            let params = CreateMessageParams::new(vec![SamplingMessage::user_text("hi")], 10);
            let (answer, roots) = tokio::join!(ctx.sample(params), ctx.roots());
            let (answer, roots) = (answer?, roots?);
            Ok(text(format!(
                "{} and {} root(s) (runs={runs})",
                answer.model,
                roots.len()
            )))
        }
    })
    .tool(Tool::new("enable_echo"), |ctx, _a: NoArgs| async move {
        let handle = ctx
            .server()
            .ok_or_else(|| McpError::internal("no server handle"))?;
        let echo = Tool::new("echo")
            .with_input_schema(object(json!({"text": {"type": "string"}}), &["text"]));
        handle
            .add_tool(echo, |_ctx, a: TextArgs| async move { Ok(text(a.text)) })
            .map_err(|e| McpError::internal(e.to_string()))?;
        Ok(text("echo is enabled"))
    })
    .tool(
        Tool::new("touch").with_input_schema(object(json!({"uri": {"type": "string"}}), &["uri"])),
        |ctx, a: UriArgs| async move {
            let handle = ctx
                .server()
                .ok_or_else(|| McpError::internal("no server handle"))?;
            handle.resource_updated(a.uri.clone());
            Ok(text(format!("touched {}", a.uri)))
        },
    )
}

/// The resource, the template, the prompt and its completion.
fn content(b: ServerBuilder) -> ServerBuilder {
    b.registry(|r| {
        let readme = Resource {
            title: Some("Read me".into()),
            icons: icons(),
            mime_type: Some("text/plain".into()),
            ..Resource::new("matrix://readme", "readme")
        };
        r.add_resource(readme, |_ctx, uri| async move {
            Ok(ReadResourceResult {
                contents: vec![ResourceContents::text(uri, "the matrix server")],
                ..Default::default()
            })
        });
        let notes = ResourceTemplate {
            title: Some("A note".into()),
            ..ResourceTemplate::new("matrix://notes/{id}", "note")
        };
        r.add_template(notes, |_ctx, uri| async move {
            let id = uri.strip_prefix("matrix://notes/").unwrap_or_default();
            let c = ResourceContents::text(&uri, format!("note {id}"));
            Ok(ReadResourceResult {
                contents: vec![c],
                ..Default::default()
            })
        });
        let greet = Prompt {
            title: Some("Greeting".into()),
            icons: icons(),
            arguments: Some(vec![PromptArgument {
                name: "name".into(),
                title: Some("Name".into()),
                description: None,
                required: Some(true),
            }]),
            ..Prompt::new("greet")
        };
        r.add_prompt(greet, |_ctx, args| async move {
            let name = args.get("name").cloned().unwrap_or_default();
            Ok(GetPromptResult {
                messages: vec![PromptMessage::user(format!("Please greet {name}."))],
                ..Default::default()
            })
        });
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
    })
}

/// The server, offering `versions`, recording into `observed`.
pub fn server(versions: SupportedVersions, observed: Arc<Observed>) -> Server {
    let b = Server::builder("matrix", "1.0.0")
        .instructions("The client matrix server.")
        .supported_versions(versions)
        .subscriptions(true)
        // Lists come in pages, so clients follow cursors.
        .page_size(4)
        .elicitation_form::<Person>()
        .without_tracing();
    content(tools(b, &observed)).build()
}

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let versions = match args.get(1).map(String::as_str) {
        None => SupportedVersions::all(),
        Some(v) => match mcp::version::ProtocolVersion::parse(v) {
            Some(v) => SupportedVersions::only(&[v]),
            None => {
                eprintln!("unknown revision {v}");
                std::process::exit(2)
            }
        },
    };
    if args.first().map(String::as_str) != Some("--stdio") {
        eprintln!("usage: client_matrix_server --stdio [REVISION]");
        std::process::exit(2)
    }
    server(versions, Arc::default()).serve_stdio().await
}
