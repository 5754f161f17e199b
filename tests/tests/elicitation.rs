//! Elicitation, sampling and roots on legacy connections: `ctx.elicit::<T>()` derives the
//! form from `T`, shapes it for the negotiated revision, sends `elicitation/create` to the
//! client and decodes the answer into `T`; URL mode, `-32042` and
//! `notifications/elicitation/complete` on 2025-11-25; `ctx.sample` and `ctx.roots`; the
//! capability checks and their errors.

mod support;

use mcp::InteractionError;
use mcp::prelude::*;
use mcp::types::{CreateMessageParams, ElicitUrlParams, SamplingMessage};
use serde_json::{Value, json};
use support::{Wire, code};

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(schemars::JsonSchema, serde::Deserialize, Debug)]
#[allow(dead_code)]
struct Signup {
    /// Your name
    #[schemars(length(min = 1))]
    name: String,
    #[schemars(range(min = 18, max = 99))]
    age: u32,
    #[serde(default = "yes")]
    newsletter: bool,
    plan: Plan,
    topics: Vec<Topic>,
}

fn yes() -> bool {
    true
}

#[derive(schemars::JsonSchema, serde::Deserialize, Debug)]
#[serde(rename_all = "lowercase")]
enum Plan {
    #[schemars(title = "Free plan")]
    Free,
    #[schemars(title = "Pro plan")]
    Pro,
}

#[derive(schemars::JsonSchema, serde::Deserialize, Debug)]
#[serde(rename_all = "lowercase")]
enum Topic {
    Rust,
    Mcp,
}

#[derive(schemars::JsonSchema, serde::Deserialize, Debug)]
#[allow(dead_code)]
struct Nested {
    inner: NoArgsSchema,
}

#[derive(schemars::JsonSchema, serde::Deserialize, Debug)]
#[allow(dead_code)]
struct NoArgsSchema {
    x: i32,
}

fn schema() -> Value {
    json!({"type": "object", "properties": {}})
}

fn text(s: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

fn report<T: std::fmt::Debug>(r: Result<T, InteractionError>) -> CallToolResult {
    match r {
        Ok(v) => text(format!("ok: {v:?}")),
        Err(e) => text(format!("error: {e}")),
    }
}

fn server() -> Server {
    Server::builder("elicit-test", "1.0.0")
        .tool(
            Tool::new("signup").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                Ok(report(ctx.elicit::<Signup>("Sign up").await))
            },
        )
        .tool(
            Tool::new("signup_strict").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                // `?` turns a missing capability into -32021.
                let r = ctx.elicit::<Signup>("Sign up").await?;
                Ok(text(format!("{:?}", r.accepted().map(|s| s.name))))
            },
        )
        .tool(
            Tool::new("nested").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                Ok(report(ctx.elicit::<Nested>("Bad form").await))
            },
        )
        .tool(
            Tool::new("visit").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let r = ctx
                    .elicit_url("Connect your account", "https://example.com/connect")
                    .elicitation_id("conn-1")
                    .await;
                if r.is_ok() {
                    ctx.elicitation_complete("conn-1").await.unwrap();
                }
                Ok(report(r))
            },
        )
        .tool(
            Tool::new("needs_url").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                Err(ctx.url_elicitation_required(vec![
                    ElicitUrlParams::new("Authorize first", "https://example.com/auth")
                        .with_elicitation_id("auth-1"),
                ]))
            },
        )
        .tool(
            Tool::new("sample").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let p = CreateMessageParams::new(vec![SamplingMessage::user_text("Hi?")], 100);
                Ok(report(ctx.sample(p).await.map(|r| r.model)))
            },
        )
        .tool(
            Tool::new("sample_tools").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let mut p = CreateMessageParams::new(vec![SamplingMessage::user_text("Hi?")], 100);
                p.tools = Some(vec![Tool::new("calc").with_input_schema(schema())]);
                Ok(report(ctx.sample(p).await.map(|r| r.model)))
            },
        )
        .tool(
            Tool::new("roots").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                Ok(report(ctx.roots().await.map(|r| {
                    r.into_iter().map(|r| r.uri).collect::<Vec<_>>()
                })))
            },
        )
        .without_tracing()
        .build()
}

async fn connect(version: &str, capabilities: Value) -> Wire {
    let mut w = Wire::new(server().serve_in_memory());
    let r = w
        .request(
            json!(0),
            "initialize",
            json!({"protocolVersion": version, "capabilities": capabilities,
                   "clientInfo": {"name": "t", "version": "1"}}),
        )
        .await;
    assert_eq!(r["result"]["protocolVersion"], version, "{r}");
    w.notify("notifications/initialized", json!({})).await;
    w
}

/// Calls `tool`, expects one server-to-client request, answers it with `answer`, and
/// returns (the server's request, the tool's response).
async fn round_trip(w: &mut Wire, tool: &str, answer: Value) -> (Value, Value) {
    w.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": tool, "arguments": {}}}))
        .await;
    let req = w.recv().await;
    assert!(req["method"].is_string(), "expected a request, got {req}");
    let mut reply = json!({"jsonrpc": "2.0", "id": req["id"].clone()});
    match answer.get("error") {
        Some(e) => reply["error"] = e.clone(),
        None => reply["result"] = answer,
    }
    w.send(&reply).await;
    let resp = loop {
        let v = w.recv().await;
        if v["id"] == json!(1) {
            break v;
        }
    };
    (req, resp)
}

async fn call(w: &mut Wire, tool: &str) -> Value {
    w.request(
        json!(9),
        "tools/call",
        json!({"name": tool, "arguments": {}}),
    )
    .await
}

fn result_text(resp: &Value) -> String {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {resp}"))
        .to_owned()
}

#[tokio::test]
async fn a_derived_form_goes_out_and_the_answer_decodes() {
    let mut w = connect("2025-11-25", json!({"elicitation": {}})).await;
    let answer = json!({"action": "accept", "content": {
        "name": "Ada", "age": 36, "plan": "pro", "topics": ["rust", "mcp"]}});
    let (req, resp) = round_trip(&mut w, "signup", answer).await;
    assert_eq!(req["method"], "elicitation/create");
    let p = &req["params"];
    assert_eq!(p["message"], "Sign up");
    assert_eq!(
        p["requestedSchema"],
        json!({"type": "object", "properties": {
            "name": {"type": "string", "description": "Your name", "minLength": 1},
            "age": {"type": "integer", "minimum": 18, "maximum": 99},
            "newsletter": {"type": "boolean", "default": true},
            "plan": {"type": "string", "oneOf": [
                {"const": "free", "title": "Free plan"}, {"const": "pro", "title": "Pro plan"}]},
            "topics": {"type": "array", "items": {"type": "string", "enum": ["rust", "mcp"]}}
        }, "required": ["name", "age", "plan", "topics"]})
    );
    let t = result_text(&resp);
    assert!(t.starts_with("ok: Accept(Signup { name: \"Ada\", age: 36, newsletter: true, plan: Pro, topics: [Rust, Mcp] })"), "{t}");
}

#[tokio::test]
async fn decline_cancel_and_answers_that_do_not_fit() {
    let mut w = connect("2025-11-25", json!({"elicitation": {}})).await;
    let (_, r) = round_trip(&mut w, "signup", json!({"action": "decline"})).await;
    assert_eq!(result_text(&r), "ok: Decline");
    let (_, r) = round_trip(&mut w, "signup", json!({"action": "cancel"})).await;
    assert_eq!(result_text(&r), "ok: Cancel");
    for (content, why) in [
        (
            json!({"age": 40, "plan": "pro", "topics": []}),
            "required field `name` is missing",
        ),
        (
            json!({"name": "A", "age": 40, "plan": "gold", "topics": []}),
            "field `plan`: \"gold\" is not one of the options",
        ),
        (
            json!({"name": "A", "age": 4.5, "plan": "pro", "topics": []}),
            "field `age`: expected an integer",
        ),
    ] {
        let (_, r) = round_trip(
            &mut w,
            "signup",
            json!({"action": "accept", "content": content}),
        )
        .await;
        let t = result_text(&r);
        assert!(
            t.starts_with("error: the client's answer is invalid"),
            "{t}"
        );
        assert!(t.contains(why), "{t}");
    }
}

#[tokio::test]
async fn forms_are_shaped_for_2025_06_18() {
    let mut w = connect("2025-06-18", json!({"elicitation": {}})).await;
    let (req, _) = round_trip(&mut w, "signup", json!({"action": "cancel"})).await;
    let props = &req["params"]["requestedSchema"]["properties"];
    // Titled single-select becomes enum + enumNames; the boolean keeps its default (it has
    // one in 2025-06-18 too); no `mode`.
    assert_eq!(
        props["plan"],
        json!({"type": "string", "enum": ["free", "pro"], "enumNames": ["Free plan", "Pro plan"]})
    );
    assert_eq!(props["newsletter"]["default"], true);
    assert!(req["params"].get("mode").is_none());
}

#[tokio::test]
async fn missing_capabilities_and_revisions_give_clear_errors() {
    let mut w = connect("2025-11-25", json!({})).await;
    let r = call(&mut w, "signup").await;
    assert!(
        result_text(&r).contains("did not declare the capability"),
        "{r}"
    );
    let r = call(&mut w, "signup_strict").await;
    assert_eq!(code(&r), -32021, "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
    for tool in ["sample", "roots"] {
        let t = result_text(&call(&mut w, tool).await);
        assert!(t.contains("did not declare the capability"), "{tool}: {t}");
    }
    // URL-only elicitation capability: no forms.
    let mut w = connect("2025-11-25", json!({"elicitation": {"url": {}}})).await;
    let t = result_text(&call(&mut w, "signup").await);
    assert!(t.contains("\"form\""), "{t}");
    // Elicitation does not exist before 2025-06-18.
    let mut w = connect("2025-03-26", json!({"elicitation": {}})).await;
    let t = result_text(&call(&mut w, "signup").await);
    assert_eq!(
        t,
        "error: elicitation does not exist in revision 2025-03-26"
    );
    // A form the spec cannot express is refused before anything is sent.
    let mut w = connect("2025-11-25", json!({"elicitation": {}})).await;
    let t = result_text(&call(&mut w, "nested").await);
    assert!(
        t.contains("cannot be an elicitation form: field `inner`"),
        "{t}"
    );
}

#[tokio::test]
async fn url_mode_with_its_completion_notification_and_minus_32042() {
    let mut w = connect("2025-11-25", json!({"elicitation": {"url": {}}})).await;
    w.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                   "params": {"name": "visit", "arguments": {}}}))
        .await;
    let req = w.recv().await;
    // On a byte stream the request names the call it comes from (for a proxy in front).
    assert_eq!(
        req["params"],
        json!({"mode": "url", "message": "Connect your account",
               "url": "https://example.com/connect", "elicitationId": "conn-1",
               "_meta": {"dev.mcp-framework/related-request": 1}})
    );
    w.send(&json!({"jsonrpc": "2.0", "id": req["id"], "result": {"action": "accept"}}))
        .await;
    let note = w.recv().await;
    assert_eq!(note["method"], "notifications/elicitation/complete");
    assert_eq!(note["params"], json!({"elicitationId": "conn-1"}));
    let resp = w.recv().await;
    assert_eq!(result_text(&resp), "ok: Accept");

    let r = call(&mut w, "needs_url").await;
    assert_eq!(code(&r), -32042, "{r}");
    assert_eq!(
        r["error"]["data"]["elicitations"][0],
        json!({"mode": "url", "message": "Authorize first",
               "url": "https://example.com/auth", "elicitationId": "auth-1"})
    );

    // Form-only clients are not sent URLs; 2025-06-18 has no URL mode and no -32042.
    let mut w = connect("2025-11-25", json!({"elicitation": {}})).await;
    let t = result_text(&call(&mut w, "visit").await);
    assert!(t.contains("\"url\""), "{t}");
    let mut w = connect("2025-06-18", json!({"elicitation": {}})).await;
    let t = result_text(&call(&mut w, "visit").await);
    assert_eq!(
        t,
        "error: URL-mode elicitation does not exist in revision 2025-06-18"
    );
    assert_eq!(code(&call(&mut w, "needs_url").await), -32603);
}

#[tokio::test]
async fn sampling_and_roots() {
    let mut w = connect("2025-11-25", json!({"sampling": {}, "roots": {}})).await;
    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "Hello"},
                        "model": "m-1", "stopReason": "endTurn"});
    let (req, resp) = round_trip(&mut w, "sample", answer).await;
    assert_eq!(req["method"], "sampling/createMessage");
    assert_eq!(
        req["params"],
        json!({"messages": [{"role": "user", "content": {"type": "text", "text": "Hi?"}}],
               "maxTokens": 100, "_meta": {"dev.mcp-framework/related-request": 1}})
    );
    assert_eq!(result_text(&resp), "ok: \"m-1\"");
    // Tools need `sampling.tools`.
    let t = result_text(&call(&mut w, "sample_tools").await);
    assert!(t.contains("{\"sampling\":{\"tools\":{}}}"), "{t}");
    // The client's refusal reaches the handler.
    let (_, resp) = round_trip(
        &mut w,
        "sample",
        json!({"error": {"code": -1, "message": "User rejected sampling request"}}),
    )
    .await;
    assert!(result_text(&resp).contains("User rejected sampling request"));
    let (req, resp) = round_trip(
        &mut w,
        "roots",
        json!({"roots": [{"uri": "file:///work", "name": "work"}]}),
    )
    .await;
    assert_eq!(req["method"], "roots/list");
    assert_eq!(
        req["params"],
        json!({"_meta": {"dev.mcp-framework/related-request": 1}})
    );
    assert_eq!(result_text(&resp), "ok: [\"file:///work\"]");

    let mut w = connect("2025-11-25", json!({"sampling": {"tools": {}}})).await;
    let answer = json!({"role": "assistant", "content": {"type": "text", "text": "x"},
                        "model": "m-2"});
    let (req, resp) = round_trip(&mut w, "sample_tools", answer).await;
    assert_eq!(req["params"]["tools"][0]["name"], "calc");
    assert_eq!(result_text(&resp), "ok: \"m-2\"");
}

#[test]
fn form_errors_are_available_up_front() {
    let e = mcp::form_schema::<Nested>().unwrap_err();
    assert_eq!(e.field.as_deref(), Some("inner"));
    assert!(mcp::form_schema::<Signup>().is_ok());
    // At build time.
    let built = Server::builder("s", "1")
        .elicitation_form::<Signup>()
        .elicitation_form::<Nested>()
        .try_build();
    let e = built.err().expect("the nested form is refused").to_string();
    assert!(
        e.contains("cannot be an elicitation form: field `inner`"),
        "{e}"
    );
    assert!(!e.contains("Signup"), "{e}");
}

#[tokio::test]
async fn sampling_with_tools_needs_2025_11_25() {
    let mut w = connect("2025-06-18", json!({"sampling": {"tools": {}}})).await;
    let t = result_text(&call(&mut w, "sample_tools").await);
    assert_eq!(
        t,
        "error: sampling with tools does not exist in revision 2025-06-18"
    );
}
