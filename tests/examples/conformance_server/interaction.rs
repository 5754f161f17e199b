//! Fixtures of the interaction scenarios: elicitation, sampling and roots as server-to-client
//! requests on legacy revisions (`tools-call-*`, `elicitation-sep*`) and as multi-round-trip
//! `input_required` rounds on 2026-07-28 (`input-required-result-*`). The same `ctx.elicit`
//! / `ctx.sample` / `ctx.roots` calls serve both.

use std::future::IntoFuture;

use mcp::ServerBuilder;
use mcp::prelude::*;
use mcp::types::{
    CreateMessageParams, CreateMessageResult, ElicitResult, LegacyTitledEnumSchema, Prompt,
    RequestedSchema, SamplingMessage, SchemaProperties, TitledEnumItems, TitledEnumOption,
    TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema, UntitledEnumItems,
    UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};
use serde_json::json;

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(serde::Deserialize)]
struct PromptArg {
    prompt: String,
}

#[derive(serde::Deserialize)]
struct MessageArg {
    message: String,
}

#[derive(schemars::JsonSchema, serde::Deserialize, serde::Serialize)]
struct Contact {
    /// User's response
    username: String,
    /// User's email address
    email: String,
}

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct Name {
    name: String,
}

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct Confirm {
    ok: bool,
}

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct FavoriteColor {
    color: String,
}

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct PromptContext {
    context: String,
}

/// SEP-1034: a default for every primitive kind, derived from serde defaults.
#[derive(schemars::JsonSchema, serde::Deserialize, serde::Serialize)]
struct Defaults {
    #[serde(default = "john_doe")]
    name: String,
    #[serde(default = "thirty")]
    age: i64,
    #[serde(default = "ninety_five_and_a_half")]
    score: f64,
    #[serde(default)]
    status: Status,
    #[serde(default = "yes")]
    verified: bool,
}

#[derive(schemars::JsonSchema, serde::Deserialize, serde::Serialize, Default, Debug)]
#[serde(rename_all = "lowercase")]
enum Status {
    #[default]
    Active,
    Inactive,
    Pending,
}

fn john_doe() -> String {
    "John Doe".into()
}
fn thirty() -> i64 {
    30
}
fn ninety_five_and_a_half() -> f64 {
    95.5
}
fn yes() -> bool {
    true
}

fn no_args() -> serde_json::Value {
    json!({"type": "object", "properties": {}})
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn sampled_text(r: &CreateMessageResult) -> String {
    r.content
        .blocks()
        .iter()
        .find_map(|b| b.as_text())
        .unwrap_or_default()
        .to_owned()
}

fn ask_model(prompt: &str, max_tokens: u32) -> CreateMessageParams {
    CreateMessageParams::new(vec![SamplingMessage::user_text(prompt)], max_tokens)
}

fn describe(r: &ElicitResult) -> String {
    let action = serde_json::to_value(r.action).unwrap_or_default();
    let content = serde_json::to_string(&r.content.clone().unwrap_or_default()).unwrap_or_default();
    format!(
        "action={}, content={content}",
        action.as_str().unwrap_or("?")
    )
}

/// SEP-1330: the five enum shapes, written by hand (the legacy `enumNames` one has no
/// derived equivalent).
fn enum_form() -> RequestedSchema {
    let opts = |v: &[(&str, &str)]| -> Vec<TitledEnumOption> {
        v.iter()
            .map(|(c, t)| TitledEnumOption::new(*c, *t))
            .collect()
    };
    let strings = |v: &[&str]| -> Vec<String> { v.iter().map(|s| (*s).to_owned()).collect() };
    let mut p = SchemaProperties::new();
    p.insert(
        "untitledSingle",
        UntitledSingleSelectEnumSchema {
            enum_: strings(&["option1", "option2", "option3"]),
            ..Default::default()
        },
    );
    p.insert(
        "titledSingle",
        TitledSingleSelectEnumSchema {
            one_of: opts(&[
                ("value1", "First Option"),
                ("value2", "Second Option"),
                ("value3", "Third Option"),
            ]),
            ..Default::default()
        },
    );
    p.insert(
        "legacyEnum",
        LegacyTitledEnumSchema {
            enum_: strings(&["opt1", "opt2", "opt3"]),
            enum_names: Some(strings(&["Option One", "Option Two", "Option Three"])),
            ..Default::default()
        },
    );
    p.insert(
        "untitledMulti",
        UntitledMultiSelectEnumSchema {
            items: UntitledEnumItems {
                enum_: strings(&["option1", "option2", "option3"]),
                ..Default::default()
            },
            ..Default::default()
        },
    );
    p.insert(
        "titledMulti",
        TitledMultiSelectEnumSchema {
            items: TitledEnumItems {
                any_of: opts(&[
                    ("value1", "First Choice"),
                    ("value2", "Second Choice"),
                    ("value3", "Third Choice"),
                ]),
            },
            ..Default::default()
        },
    );
    RequestedSchema::new(p)
}

fn hello(name: Elicitation<Name>) -> String {
    match name {
        Elicitation::Accept(n) => format!("Hello, {}!", n.name),
        Elicitation::Decline => "Hello, stranger (declined)!".into(),
        Elicitation::Cancel => "Hello, stranger (cancelled)!".into(),
    }
}

/// Legacy server-to-client fixtures.
fn install_legacy(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            Tool::new("test_sampling")
                .with_description("Asks the client's model to answer a prompt")
                .with_input_schema(json!({
                    "type": "object",
                    "properties": {"prompt": {"type": "string"}},
                    "required": ["prompt"]
                })),
            |ctx: Context, a: PromptArg| async move {
                let r = ctx.sample(ask_model(&a.prompt, 100)).await?;
                Ok(text(format!("LLM response: {}", sampled_text(&r))))
            },
        )
        .tool(
            Tool::new("test_elicitation")
                .with_description("Asks the user for a username and an email address")
                .with_input_schema(json!({
                    "type": "object",
                    "properties": {"message": {"type": "string"}},
                    "required": ["message"]
                })),
            |ctx: Context, a: MessageArg| async move {
                let r = match ctx.elicit::<Contact>(a.message).await? {
                    Elicitation::Accept(c) => format!(
                        "action: accept, content: {}",
                        serde_json::to_string(&c).unwrap_or_default()
                    ),
                    Elicitation::Decline => "action: decline".into(),
                    Elicitation::Cancel => "action: cancel".into(),
                };
                Ok(text(format!("User response: <{r}>")))
            },
        )
        .tool(
            Tool::new("test_elicitation_sep1034_defaults")
                .with_description("Elicits a form with a default for every primitive kind")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let r = ctx.elicit::<Defaults>("Please review your profile").await?;
                Ok(text(match r {
                    Elicitation::Accept(d) => format!(
                        "Elicitation completed: action=accept, content={}",
                        serde_json::to_string(&d).unwrap_or_default()
                    ),
                    Elicitation::Decline => {
                        "Elicitation completed: action=decline, content={}".into()
                    }
                    Elicitation::Cancel => {
                        "Elicitation completed: action=cancel, content={}".into()
                    }
                }))
            },
        )
        .tool(
            Tool::new("test_elicitation_sep1330_enums")
                .with_description("Elicits a form with all five enum shapes")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let r = ctx.elicit_form("Choose your options", enum_form()).await?;
                Ok(text(format!("Elicitation completed: {}", describe(&r))))
            },
        )
}

/// 2026-07-28 multi-round-trip fixtures (they work on legacy connections too, as
/// server-to-client requests).
fn install_modern(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            Tool::new("test_input_required_result_elicitation")
                .with_description("Asks for the user's name, then greets")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let name = ctx
                    .elicit::<Name>("What is your name?")
                    .key("user_name")
                    .await?;
                Ok(text(hello(name)))
            },
        )
        .tool(
            Tool::new("test_input_required_result_sampling")
                .with_description("Asks the client's model a question")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let r = ctx
                    .sample(ask_model("What is the capital of France?", 100))
                    .key("capital_question")
                    .await?;
                Ok(text(format!("The model says: {}", sampled_text(&r))))
            },
        )
        .tool(
            Tool::new("test_input_required_result_list_roots")
                .with_description("Lists the client's roots")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let roots = ctx.roots().key("client_roots").await?;
                let uris: Vec<&str> = roots.iter().map(|r| r.uri.as_str()).collect();
                Ok(text(format!("Client roots: {}", uris.join(", "))))
            },
        )
        .tool(
            Tool::new("test_input_required_result_request_state")
                .with_description("Confirms through a round trip that carries requestState")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let ok = ctx
                    .elicit::<Confirm>("Please confirm")
                    .key("confirm")
                    .await?;
                let ok = ok.accepted().is_some_and(|c| c.ok);
                Ok(text(format!("state-ok: confirmed={ok}")))
            },
        )
        .tool(
            Tool::new("test_input_required_result_tampered_state")
                .with_description("Round trip whose sealed requestState must not be altered")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let ok = ctx
                    .elicit::<Confirm>("Please confirm")
                    .key("confirm")
                    .await?;
                Ok(text(format!(
                    "confirmed={}",
                    ok.accepted().is_some_and(|c| c.ok)
                )))
            },
        )
        .tool(
            Tool::new("test_input_required_result_multiple_inputs")
                .with_description("Asks for a name, a greeting and the roots in one round")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let (name, greeting, roots) = tokio::join!(
                    ctx.elicit::<Name>("What is your name?")
                        .key("user_name")
                        .into_future(),
                    ctx.sample(ask_model("Generate a greeting", 50))
                        .key("greeting")
                        .into_future(),
                    ctx.roots().key("client_roots").into_future(),
                );
                let (name, greeting, roots) = (name?, greeting?, roots?);
                Ok(text(format!(
                    "{} {} ({} roots)",
                    sampled_text(&greeting),
                    hello(name),
                    roots.len()
                )))
            },
        )
        .tool(
            Tool::new("test_input_required_result_multi_round")
                .with_description("Asks for a name, then for a favourite colour")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let name = ctx
                    .elicit::<Name>("Step 1: What is your name?")
                    .key("step1")
                    .await?;
                let color = ctx
                    .elicit::<FavoriteColor>("Step 2: What is your favorite color?")
                    .key("step2")
                    .await?;
                let color = color.accepted().map_or("unknown".into(), |c| c.color);
                Ok(text(format!(
                    "{} Your favorite color is {color}.",
                    hello(name)
                )))
            },
        )
        .tool(
            Tool::new("test_input_required_result_capabilities")
                .with_description("Asks only for the kinds of input the client declared")
                .with_input_schema(no_args()),
            |ctx: Context, _: NoArgs| async move {
                let caps = ctx.client_capabilities().clone();
                let (sampled, elicited) = tokio::join!(
                    async {
                        match caps.sampling {
                            Some(_) => ctx
                                .sample(ask_model("Say something", 20))
                                .key("sample_question")
                                .await
                                .map(Some),
                            None => Ok(None),
                        }
                    },
                    async {
                        match caps.elicitation {
                            Some(_) => ctx
                                .elicit::<Name>("What is your name?")
                                .key("user_name")
                                .await
                                .map(Some),
                            None => Ok(None),
                        }
                    },
                );
                let (sampled, elicited) = (sampled?, elicited?);
                Ok(text(format!(
                    "sampling answered: {}, elicitation answered: {}",
                    sampled.is_some(),
                    elicited.is_some()
                )))
            },
        )
        .registry(|r| {
            r.add_prompt(
                Prompt {
                    description: Some("A prompt that asks the user for its context".into()),
                    ..Prompt::new("test_input_required_result_prompt")
                },
                |ctx, _args| async move {
                    let c = ctx
                        .elicit::<PromptContext>("What context should the prompt use?")
                        .key("user_context")
                        .await?;
                    let c = c.accepted().map_or("none".into(), |c| c.context);
                    Ok(GetPromptResult {
                        messages: vec![PromptMessage::user(format!(
                            "Answer with this context in mind: {c}"
                        ))],
                        ..Default::default()
                    })
                },
            );
        })
}

/// Adds the interaction fixtures.
pub fn install(builder: ServerBuilder) -> ServerBuilder {
    install_modern(install_legacy(builder))
}
