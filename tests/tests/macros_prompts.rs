//! `#[mcp::prompt]`: the exact `prompts/list` entries per revision (validated against each
//! revision's schema), rendering, and errors, over an in-memory connection; the impl form.

#[path = "../../mcp-core/tests/common/mod.rs"]
mod macros_schema;
mod support;

use mcp::prelude::*;
use mcp::types::to_value_for;
use serde_json::{Value, json};
use support::{Wire, modern};

/// Review a piece of code.
///
/// Focuses on correctness.
#[mcp::prompt(title = "Code review")]
async fn review(
    /// The code to review.
    code: String,
    /// The language it is written in.
    language: Option<String>,
) -> Vec<PromptMessage> {
    vec![
        PromptMessage::user(format!(
            "Review this {} code:\n{code}",
            language.as_deref().unwrap_or("unknown")
        )),
        PromptMessage::assistant("Sure."),
    ]
}

/// Greets someone.
#[mcp::prompt(name = "greet")]
async fn greeting(name: String, _ctx: &Context) -> String {
    format!("Say hello to {name}")
}

#[mcp::prompt]
async fn failing(internal: Option<String>) -> Result<GetPromptResult, McpError> {
    match internal {
        Some(_) => Err(McpError::internal("secret")),
        None => Err(ErrorObject::invalid_params("bad topic").into()),
    }
}

#[mcp::prompt]
async fn broken() -> Result<String, std::fmt::Error> {
    Err(std::fmt::Error)
}

#[mcp::server(name = "prompts", prompts(review, greeting, failing, broken))]
struct Prompts;

struct Shelf {
    owner: String,
}

/// Prompts as methods.
#[mcp::server(name = "shelf", prompts(greeting))]
impl Shelf {
    /// Describe the shelf.
    #[prompt]
    async fn describe(&self, #[arg(rename = "shelfName")] shelf_name: Option<String>) -> String {
        format!("{}'s shelf {}", self.owner, shelf_name.unwrap_or_default())
    }
}

fn expected_review() -> Value {
    json!({
        "name": "review",
        "title": "Code review",
        "description": "Review a piece of code.\n\nFocuses on correctness.",
        "arguments": [
            {"name": "code", "description": "The code to review.", "required": true},
            {"name": "language", "description": "The language it is written in.", "required": false}
        ]
    })
}

async fn list(rev: &str) -> Vec<Value> {
    let mut wire = Wire::new(Prompts.into_server().serve_in_memory());
    let r = if rev == "2026-07-28" {
        wire.request(json!(1), "prompts/list", modern(json!({})))
            .await
    } else {
        wire.initialize(rev).await;
        wire.request(json!(1), "prompts/list", json!({})).await
    };
    let prompts = r["result"]["prompts"].as_array().unwrap().clone();
    if let Some(spec) = macros_schema::spec() {
        for p in &prompts {
            spec.check(rev.parse().unwrap(), "Prompt", p);
        }
        spec.check(rev.parse().unwrap(), "ListPromptsResult", &r["result"]);
    }
    prompts
}

async fn check_list(rev: &str) {
    let prompts = list(rev).await;
    assert_eq!(prompts[0], expected_review(), "{rev}");
    assert_eq!(
        prompts[1],
        json!({"name": "greet", "description": "Greets someone.",
               "arguments": [{"name": "name", "required": true}]})
    );
    assert_eq!(prompts[3], json!({"name": "broken"}));
    let direct = to_value_for(
        <review as mcp::PromptDef<Prompts>>::prompt(),
        rev.parse().unwrap(),
    );
    assert_eq!(direct, expected_review());
}

#[tokio::test]
async fn list_2025_06_18() {
    check_list("2025-06-18").await;
}

#[tokio::test]
async fn list_2025_11_25() {
    check_list("2025-11-25").await;
}

#[tokio::test]
async fn list_2026_07_28() {
    check_list("2026-07-28").await;
}

async fn get(wire: &mut Wire, id: i64, name: &str, args: Value) -> Value {
    wire.request(
        json!(id),
        "prompts/get",
        json!({"name": name, "arguments": args}),
    )
    .await
}

#[tokio::test]
async fn rendering_and_errors() {
    let mut wire = Wire::new(Prompts.into_server().serve_in_memory());
    let init = wire.initialize("2025-11-25").await;
    assert_eq!(init["capabilities"]["prompts"], json!({}));
    let r = get(
        &mut wire,
        1,
        "review",
        json!({"code": "fn f() {}", "language": "Rust"}),
    )
    .await;
    assert_eq!(
        r["result"],
        json!({"messages": [
            {"role": "user", "content": {"type": "text", "text": "Review this Rust code:\nfn f() {}"}},
            {"role": "assistant", "content": {"type": "text", "text": "Sure."}}
        ]})
    );
    if let Some(spec) = macros_schema::spec() {
        spec.check(
            "2025-11-25".parse().unwrap(),
            "GetPromptResult",
            &r["result"],
        );
    }
    let r = get(&mut wire, 2, "review", json!({"code": "x"})).await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"],
        "Review this unknown code:\nx"
    );
    let r = get(&mut wire, 3, "greet", json!({"name": "Ada"})).await;
    assert_eq!(
        r["result"],
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Say hello to Ada"}}]})
    );
    // A missing required argument: -32602 before the function runs.
    let r = get(&mut wire, 4, "review", json!({"language": "Rust"})).await;
    assert_eq!(
        r["error"],
        json!({"code": -32602, "message": "Missing required argument: code"}),
        "{r}"
    );
    let r = wire
        .request(json!(5), "prompts/get", json!({"name": "greet"}))
        .await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
    // Errors from the function: McpError as it is, anything else internal.
    let r = get(&mut wire, 6, "failing", json!({})).await;
    assert_eq!(
        r["error"],
        json!({"code": -32602, "message": "bad topic"}),
        "{r}"
    );
    let r = get(&mut wire, 7, "failing", json!({"internal": "y"})).await;
    assert_eq!(
        r["error"],
        json!({"code": -32603, "message": "Internal error"}),
        "{r}"
    );
    let r = get(&mut wire, 8, "broken", json!({})).await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    // Unknown prompt.
    let r = get(&mut wire, 9, "nope", json!({})).await;
    assert_eq!(r["error"]["code"], -32602, "{r}");
}

#[tokio::test]
async fn modern_get() {
    let mut wire = Wire::new(Prompts.into_server().serve_in_memory());
    let r = wire
        .request(
            json!(1),
            "prompts/get",
            modern(json!({"name": "greet", "arguments": {"name": "Bo"}})),
        )
        .await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"], "Say hello to Bo",
        "{r}"
    );
    if let Some(spec) = macros_schema::spec() {
        spec.check(
            "2026-07-28".parse().unwrap(),
            "GetPromptResult",
            &r["result"],
        );
    }
}

#[tokio::test]
async fn impl_form() {
    let shelf = Shelf {
        owner: "Ann".into(),
    };
    let mut wire = Wire::new(shelf.into_server().serve_in_memory());
    let init = wire.initialize("2025-06-18").await;
    // The doc comment is for Rust readers: without `instructions = ...` nothing is sent.
    assert!(init.get("instructions").is_none(), "{init}");
    assert!(init["capabilities"].get("tools").is_none(), "{init}");
    let r = wire.request(json!(1), "prompts/list", json!({})).await;
    assert_eq!(
        r["result"]["prompts"],
        json!([
            {"name": "describe", "description": "Describe the shelf.",
             "arguments": [{"name": "shelfName", "required": false}]},
            {"name": "greet", "description": "Greets someone.",
             "arguments": [{"name": "name", "required": true}]}
        ])
    );
    let r = get(&mut wire, 2, "describe", json!({"shelfName": "A"})).await;
    assert_eq!(
        r["result"]["messages"][0]["content"]["text"],
        "Ann's shelf A"
    );
    let r = wire.request(json!(3), "tools/list", json!({})).await;
    assert_eq!(r["error"]["code"], -32601, "{r}");
}

/// Injected parameters (`State<T>`, `CancellationToken`, `Progress`), as tools take them.
mod injected {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::time::Duration;

    use mcp::Provides;
    use mcp::prelude::*;
    use serde_json::json;

    use super::support::Wire;

    struct Motto(&'static str);

    #[mcp::server(name = "injected-prompts", prompts(motto, steps, watch))]
    struct Club {
        name: &'static str,
        motto: Motto,
    }

    impl Provides<Motto> for Club {
        fn provide(&self) -> &Motto {
            &self.motto
        }
    }

    /// The club's motto, for `who`.
    #[mcp::prompt]
    async fn motto(who: String, motto: State<Motto>) -> String {
        format!("{who}: {}", motto.0)
    }

    /// Reports two steps.
    #[mcp::prompt]
    async fn steps(progress: Progress, club: State<'_, Club>) -> String {
        for i in 1..=2 {
            progress
                .report(f64::from(i), Some(2.0), None)
                .await
                .unwrap();
        }
        format!("{} (requested: {})", club.name, progress.is_requested())
    }

    static SAW_CANCEL: AtomicBool = AtomicBool::new(false);

    /// Waits for the request's cancellation.
    #[mcp::prompt]
    async fn watch(token: &CancellationToken) -> String {
        tokio::select! {
            _ = token.cancelled() => SAW_CANCEL.store(true, Ordering::SeqCst),
            _ = tokio::time::sleep(Duration::from_secs(5)) => {}
        }
        "finished".into()
    }

    fn wire() -> Wire {
        let club = Club {
            name: "Chess club",
            motto: Motto("think first"),
        };
        Wire::new(club.into_server().serve_in_memory())
    }

    #[tokio::test]
    async fn not_arguments_and_supplied_by_the_runtime() {
        let mut wire = wire();
        wire.initialize("2025-11-25").await;
        let r = wire.request(json!(1), "prompts/list", json!({})).await;
        let args: Vec<_> = r["result"]["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["arguments"].clone())
            .collect();
        assert_eq!(
            args,
            [
                json!([{"name": "who", "required": true}]),
                json!(null),
                json!(null)
            ]
        );
        let r = wire
            .request(
                json!(2),
                "prompts/get",
                json!({"name": "motto", "arguments": {"who": "Ann"}}),
            )
            .await;
        assert_eq!(
            r["result"]["messages"][0]["content"]["text"], "Ann: think first",
            "{r}"
        );
    }

    #[tokio::test]
    async fn progress_reaches_the_client() {
        let mut wire = wire();
        wire.initialize("2025-11-25").await;
        wire.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "prompts/get",
                          "params": {"name": "steps", "_meta": {"progressToken": 5}}}))
            .await;
        let (result, before) = wire.response(json!(3)).await;
        let progress: Vec<_> = before.iter().map(|n| &n["params"]["progress"]).collect();
        assert_eq!(progress, [1.0, 2.0], "{before:?}");
        assert_eq!(
            result["result"]["messages"][0]["content"]["text"],
            "Chess club (requested: true)"
        );
    }

    #[tokio::test]
    async fn the_cancellation_token_is_the_requests() {
        let mut wire = wire();
        wire.initialize("2025-11-25").await;
        wire.send(&json!({"jsonrpc": "2.0", "id": 4, "method": "prompts/get",
                          "params": {"name": "watch"}}))
            .await;
        tokio::time::sleep(Duration::from_millis(50)).await;
        wire.notify("notifications/cancelled", json!({"requestId": 4}))
            .await;
        wire.expect_silence(300).await;
        assert!(SAW_CANCEL.load(Ordering::SeqCst));
    }
}
