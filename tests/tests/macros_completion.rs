//! `#[mcp::completion]` and `completion/complete`: values for prompt arguments and template
//! variables (free functions and the impl form), the 100-value cap with `total`/`hasMore`,
//! the resolved arguments, the errors for unknown references, the `completions` capability
//! only when something is registered, both eras, and `Registry::add_completion`.

#[path = "../../mcp-core/tests/common/mod.rs"]
mod macros_schema;
mod support;

use mcp::prelude::*;
use mcp::types::CompletionReference;
use serde_json::{Value, json};
use support::{Wire, code, modern};

const CITIES: &[&str] = &["paris", "park city", "parma", "porto", "prague"];

/// Plans a trip.
#[mcp::prompt]
async fn trip(country: String, city: String, season: Option<String>) -> String {
    format!("A trip to {city}, {country} {}", season.unwrap_or_default())
}

/// Reads a book.
#[mcp::resource("books://{shelf}/{id}")]
async fn book(shelf: String, id: String) -> String {
    format!("{shelf}/{id}")
}

/// Cities starting with the partial value; in Portugal, only Porto.
#[mcp::completion(prompt = "trip", argument = "city")]
async fn cities(prefix: String, resolved: &ResolvedArguments) -> Vec<String> {
    let pool: Vec<&str> = match resolved.get("country") {
        Some("Portugal") => vec!["porto"],
        _ => CITIES.to_vec(),
    };
    pool.into_iter()
        .filter(|c| c.starts_with(&prefix))
        .map(str::to_owned)
        .collect()
}

/// 250 shelf numbers: more than one result may carry.
#[mcp::completion(resource = "books://{shelf}/{id}", argument = "shelf")]
async fn shelves(prefix: String, _ctx: &Context) -> Vec<String> {
    (0..250)
        .map(|i| format!("{i}"))
        .filter(|s| s.starts_with(&prefix))
        .collect()
}

/// A failing completer: its error is a protocol error as written.
#[mcp::completion(prompt = "trip", argument = "country")]
async fn countries(prefix: String) -> Result<Vec<String>, McpError> {
    if prefix == "!" {
        return Err(McpError::invalid_params("no country starts with !"));
    }
    Ok(vec!["France".into(), "Portugal".into()])
}

#[mcp::server(
    name = "travel",
    prompts(trip),
    resources(book),
    completions(cities, shelves, countries)
)]
struct Travel;

/// An impl-form server whose completer reads its own state.
struct Library {
    titles: Vec<String>,
}

#[mcp::server(name = "library")]
impl Library {
    /// Finds a title.
    #[prompt]
    async fn find(&self, title: String) -> String {
        format!("find {title}")
    }

    #[completion(prompt = "find", argument = "title")]
    async fn titles(&self, prefix: String) -> Vec<String> {
        self.titles
            .iter()
            .filter(|t| t.starts_with(&prefix))
            .cloned()
            .collect()
    }
}

/// A server with a prompt and no completer: no capability, no method.
#[mcp::server(name = "plain", prompts(trip))]
struct Plain;

async fn complete(wire: &mut Wire, id: i64, params: Value) -> Value {
    wire.request(json!(id), "completion/complete", params).await
}

fn prompt_ref(name: &str, arg: &str, value: &str) -> Value {
    json!({"ref": {"type": "ref/prompt", "name": name}, "argument": {"name": arg, "value": value}})
}

fn check(rev: &str, result: &Value) {
    if let Some(spec) = macros_schema::spec() {
        spec.check(rev.parse().unwrap(), "CompleteResult", result);
    }
}

#[tokio::test]
async fn prompt_arguments_and_resolved_context() {
    let mut wire = Wire::new(Travel.into_server().serve_in_memory());
    let init = wire.initialize("2025-06-18").await;
    assert_eq!(init["capabilities"]["completions"], json!({}), "{init}");
    let r = complete(&mut wire, 1, prompt_ref("trip", "city", "par")).await;
    assert_eq!(
        r["result"],
        json!({"completion": {"values": ["paris", "park city", "parma"], "total": 3, "hasMore": false}})
    );
    check("2025-06-18", &r["result"]);

    let mut with_context = prompt_ref("trip", "city", "p");
    with_context["context"] = json!({"arguments": {"country": "Portugal"}});
    let r = complete(&mut wire, 2, with_context).await;
    assert_eq!(r["result"]["completion"]["values"], json!(["porto"]));

    let r = complete(&mut wire, 3, prompt_ref("trip", "country", "!")).await;
    assert_eq!(code(&r), -32602);
    assert_eq!(r["error"]["message"], "no country starts with !");
}

#[tokio::test]
async fn template_variables_are_capped_at_100() {
    let mut wire = Wire::new(Travel.into_server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    let params = json!({"ref": {"type": "ref/resource", "uri": "books://{shelf}/{id}"},
                        "argument": {"name": "shelf", "value": ""}});
    let r = complete(&mut wire, 1, params).await;
    let c = &r["result"]["completion"];
    assert_eq!(c["values"].as_array().unwrap().len(), 100, "{r}");
    assert_eq!(c["values"][0], "0");
    assert_eq!(
        (c["total"].clone(), c["hasMore"].clone()),
        (json!(250), json!(true))
    );
    check("2025-11-25", &r["result"]);

    let params = json!({"ref": {"type": "ref/resource", "uri": "books://{shelf}/{id}"},
                        "argument": {"name": "shelf", "value": "24"}});
    let r = complete(&mut wire, 2, params).await;
    assert_eq!(
        r["result"]["completion"],
        json!({"values": ["24", "240", "241", "242", "243", "244", "245", "246", "247", "248", "249"],
               "total": 11, "hasMore": false})
    );
}

#[tokio::test]
async fn unknown_references_are_invalid_params() {
    let mut wire = Wire::new(Travel.into_server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    let r = complete(&mut wire, 1, prompt_ref("nope", "city", "p")).await;
    assert_eq!(code(&r), -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("nope"));
    let r = complete(&mut wire, 2, prompt_ref("trip", "planet", "p")).await;
    assert_eq!(code(&r), -32602, "{r}");
    assert!(r["error"]["message"].as_str().unwrap().contains("planet"));
    let params = json!({"ref": {"type": "ref/resource", "uri": "books://{nope}"},
                        "argument": {"name": "nope", "value": ""}});
    assert_eq!(code(&complete(&mut wire, 3, params).await), -32602);
    let params = json!({"ref": {"type": "ref/resource", "uri": "books://{shelf}/{id}"},
                        "argument": {"name": "page", "value": ""}});
    assert_eq!(code(&complete(&mut wire, 4, params).await), -32602);
    // Malformed params: -32602 too, and the connection goes on.
    let r = complete(&mut wire, 5, json!({"ref": {"type": "ref/other"}})).await;
    assert_eq!(code(&r), -32602, "{r}");
    // A declared argument without a completer: no values, not an error.
    let r = complete(&mut wire, 6, prompt_ref("trip", "season", "s")).await;
    assert_eq!(
        r["result"]["completion"],
        json!({"values": [], "total": 0, "hasMore": false})
    );
}

#[tokio::test]
async fn modern_requests_complete_too() {
    let mut wire = Wire::new(Travel.into_server().serve_in_memory());
    let d = wire
        .request(json!(0), "server/discover", modern(json!({})))
        .await;
    assert_eq!(d["result"]["capabilities"]["completions"], json!({}), "{d}");
    let r = complete(&mut wire, 1, modern(prompt_ref("trip", "city", "pr"))).await;
    assert_eq!(
        r["result"]["completion"]["values"],
        json!(["prague"]),
        "{r}"
    );
    assert_eq!(r["result"]["resultType"], "complete");
    check("2026-07-28", &r["result"]);
}

#[tokio::test]
async fn impl_form_reads_its_state() {
    let lib = Library {
        titles: vec!["Dune".into(), "Dune Messiah".into(), "Emma".into()],
    };
    let mut wire = Wire::new(lib.into_server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    let r = complete(&mut wire, 1, prompt_ref("find", "title", "Du")).await;
    assert_eq!(
        r["result"]["completion"]["values"],
        json!(["Dune", "Dune Messiah"])
    );
}

#[tokio::test]
async fn no_completer_no_capability() {
    let mut wire = Wire::new(Plain.into_server().serve_in_memory());
    let init = wire.initialize("2025-11-25").await;
    assert!(init["capabilities"].get("completions").is_none(), "{init}");
    let r = complete(&mut wire, 1, prompt_ref("trip", "city", "p")).await;
    assert_eq!(code(&r), -32601, "{r}");
}

#[tokio::test]
async fn registry_completions() {
    let server = mcp::Server::builder("reg", "1.0.0")
        .registry(|r| {
            r.add_prompt(
                mcp::types::Prompt {
                    arguments: Some(vec![mcp::types::PromptArgument {
                        name: "lang".into(),
                        required: Some(true),
                        ..Default::default()
                    }]),
                    ..mcp::types::Prompt::new("code")
                },
                |_ctx, _args| async { Ok(GetPromptResult::default()) },
            );
            r.add_completion(
                CompletionReference::prompt("code"),
                "lang",
                |_ctx, value: String, _resolved| async move {
                    ["rust", "ruby", "go"]
                        .into_iter()
                        .filter(|l| l.starts_with(&value))
                        .collect::<Vec<_>>()
                },
            );
        })
        .build();
    let mut wire = Wire::new(server.serve_in_memory());
    let init = wire.initialize("2025-06-18").await;
    assert_eq!(init["capabilities"]["completions"], json!({}));
    let r = complete(&mut wire, 1, prompt_ref("code", "lang", "ru")).await;
    assert_eq!(r["result"]["completion"]["values"], json!(["rust", "ruby"]));
}
