//! Multi-round-trip requests (2026-07-28) through the server: `ctx.elicit` / `ctx.sample` /
//! `ctx.roots` answer `input_required` with keyed input requests and a sealed
//! `requestState`, and pick up the client's answers on the retry. Over the in-memory stream
//! and over Streamable HTTP; tampered, expired, rebound and rotated states; the round bound.

mod support;

use std::future::IntoFuture;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use mcp::CancellationToken;
use mcp::Elicitation;
use mcp::ParkedInputs;
use mcp::Principal;
use mcp::prelude::*;
use mcp::session::request_state::{RequestStateConfig, RequestStateKey};
use mcp::transport::http::{AuthError, validator_fn};
use mcp::transport::http::{AuthOptions, HttpOptions};
use mcp::types::{CreateMessageParams, Prompt, ReadResourceResult, Resource, ResourceContents};
use mcp::types::{GetPromptResult, SamplingMessage};
use serde_json::value::RawValue;
use serde_json::{Value, json};
use support::{Wire, code};

#[derive(serde::Deserialize)]
struct NoArgs {}

#[derive(serde::Deserialize)]
struct NArgs {
    n: i64,
}

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct Name {
    name: String,
}

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct Color {
    color: String,
}

fn schema() -> Value {
    json!({"type": "object", "properties": {}})
}

fn text(s: String) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s)])
}

fn name_of(e: Elicitation<Name>) -> String {
    e.accepted().map_or_else(|| "nobody".into(), |n| n.name)
}

fn server(cfg: RequestStateConfig) -> Server {
    Server::builder("mrtr-test", "1.0.0")
        .request_state(cfg)
        .tool(
            Tool::new("greet").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let n = ctx.elicit::<Name>("Your name?").key("user_name").await?;
                Ok(text(format!("Hello, {}!", name_of(n))))
            },
        )
        .tool(
            Tool::new("together").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let (n, s, r) = tokio::join!(
                    ctx.elicit::<Name>("Your name?").into_future(),
                    ctx.sample(CreateMessageParams::new(
                        vec![SamplingMessage::user_text("A greeting")],
                        10
                    ))
                    .into_future(),
                    ctx.roots().into_future(),
                );
                let (n, s, r) = (n?, s?, r?);
                let said = s.content.blocks()[0].as_text().unwrap_or("").to_owned();
                Ok(text(format!("{said} {} ({} roots)", name_of(n), r.len())))
            },
        )
        .tool(
            Tool::new("steps").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let n = ctx.elicit::<Name>("Step 1").await?;
                let c = ctx.elicit::<Color>("Step 2").await?;
                let c = c.accepted().map_or_else(String::new, |c| c.color);
                Ok(text(format!("{} likes {c}", name_of(n))))
            },
        )
        .tool(
            Tool::new("three").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                for i in 1..=3 {
                    ctx.elicit::<Name>(format!("Question {i}")).await?;
                }
                Ok(text("all answered".into()))
            },
        )
        .tool(
            Tool::new("numbered").with_input_schema(
                json!({"type": "object", "properties": {"n": {"type": "integer"}}}),
            ),
            |ctx: Context, a: NArgs| async move {
                let n = ctx.elicit::<Name>("Your name?").key("who").await?;
                Ok(text(format!("{} #{}", name_of(n), a.n)))
            },
        )
        .tool(
            Tool::new("sample_with_tools").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let mut p = CreateMessageParams::new(vec![SamplingMessage::user_text("hi")], 10);
                p.tools = Some(vec![Tool::new("calc").with_input_schema(schema())]);
                let r = ctx.sample(p).key("s").await?;
                Ok(text(format!("model {}", r.model)))
            },
        )
        .tool(
            Tool::new("visit").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                let a = ctx
                    .elicit_url("Connect", "https://example.com/c")
                    .elicitation_id("ignored-on-2026")
                    .key("connect")
                    .await?;
                Ok(text(format!("{a:?}")))
            },
        )
        .tool(
            Tool::new("parked").with_input_schema(schema()),
            |ctx: Context, _: NoArgs| async move {
                // What a task runner does: the work waits for its answers instead of
                // answering input_required, and the runner delivers them (tasks/update).
                let parked = ParkedInputs::new();
                let mut changes = parked.subscribe();
                let mut work_ctx = ctx.clone();
                work_ctx.set_input_resolver(Arc::new(parked.clone()));
                let work = tokio::spawn(async move {
                    work_ctx.elicit::<Name>("Your name?").await.map(name_of)
                });
                while !parked.is_waiting() {
                    changes
                        .changed()
                        .await
                        .map_err(|e| McpError::internal(e.to_string()))?;
                }
                let keys: Vec<String> = parked.pending().into_keys().collect();
                let answer = RawValue::from_string(
                    json!({"action": "accept", "content": {"name": "Tess"}}).to_string(),
                )
                .unwrap();
                parked
                    .answer(&[(keys[0].clone(), answer)].into())
                    .map_err(McpError::from)?;
                let name = work
                    .await
                    .map_err(|e| McpError::internal(e.to_string()))??;
                Ok(text(format!("{} answered {name}", keys.join(","))))
            },
        )
        .registry(|r| {
            r.add_prompt(Prompt::new("ctx_prompt"), |ctx, _args| async move {
                let n = ctx.elicit::<Name>("Your name?").key("who").await?;
                Ok(GetPromptResult {
                    messages: vec![PromptMessage::user(format!("for {}", name_of(n)))],
                    ..Default::default()
                })
            });
            r.add_resource(
                Resource::new("res://secret", "secret"),
                |ctx, uri| async move {
                    let n = ctx.elicit::<Name>("Who is asking?").key("who").await?;
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(
                            uri,
                            format!("secret for {}", name_of(n)),
                        )],
                        ..Default::default()
                    })
                },
            );
        })
        .without_tracing()
        .build()
}

fn caps() -> Value {
    json!({"elicitation": {}, "sampling": {}, "roots": {}})
}

/// `params` with a modern envelope declaring `capabilities`.
fn with_meta(mut params: Value, capabilities: Value) -> Value {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": capabilities,
    });
    params
}

async fn call(w: &mut Wire, id: u64, tool: &str, extra: Value) -> Value {
    let mut params = json!({"name": tool, "arguments": {}});
    if let Value::Object(m) = extra {
        for (k, v) in m {
            params[k] = v;
        }
    }
    w.request(json!(id), "tools/call", with_meta(params, caps()))
        .await
}

fn accept(content: Value) -> Value {
    json!({"action": "accept", "content": content})
}

fn result_text(resp: &Value) -> &str {
    resp["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {resp}"))
}

fn state(resp: &Value) -> String {
    resp["result"]["requestState"]
        .as_str()
        .unwrap_or_else(|| panic!("no requestState in {resp}"))
        .to_owned()
}

fn assert_invalid_state(resp: &Value) {
    assert_eq!(code(resp), -32602, "{resp}");
    assert_eq!(resp["error"]["message"], "Invalid or expired requestState");
}

fn wire(cfg: RequestStateConfig) -> Wire {
    Wire::new(server(cfg).serve_in_memory())
}

#[tokio::test]
async fn one_elicitation_round_trip() {
    let mut w = wire(RequestStateConfig::default());
    let r1 = call(&mut w, 1, "greet", json!({})).await;
    let res = &r1["result"];
    assert_eq!(res["resultType"], "input_required", "{r1}");
    assert_eq!(
        res["inputRequests"]["user_name"],
        json!({"method": "elicitation/create", "params": {
            "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}},
                                "required": ["name"]}}})
    );
    assert!(res.get("ttlMs").is_none() && res.get("cacheScope").is_none());
    assert!(res["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    let st = state(&r1);
    let r2 = call(
        &mut w,
        2,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": "Ada"}))}, "requestState": st}),
    )
    .await;
    assert_eq!(r2["result"]["resultType"], "complete", "{r2}");
    assert_eq!(result_text(&r2), "Hello, Ada!");
    // Decline is an answer too.
    let r3 = call(
        &mut w,
        3,
        "greet",
        json!({"inputResponses": {"user_name": {"action": "decline"}}, "requestState": st}),
    )
    .await;
    assert_eq!(result_text(&r3), "Hello, nobody!");
}

#[tokio::test]
async fn several_inputs_in_one_round_with_default_keys() {
    let mut w = wire(RequestStateConfig::default());
    let r1 = call(&mut w, 1, "together", json!({})).await;
    let reqs = r1["result"]["inputRequests"].as_object().unwrap();
    let mut keys: Vec<&str> = reqs.keys().map(String::as_str).collect();
    keys.sort_unstable();
    assert_eq!(keys, ["elicit-1", "roots-3", "sample-2"], "{r1}");
    assert_eq!(reqs["sample-2"]["method"], "sampling/createMessage");
    assert_eq!(reqs["sample-2"]["params"]["maxTokens"], 10);
    assert_eq!(reqs["roots-3"]["method"], "roots/list");
    // A partial answer gets the missing ones asked again, under the same keys.
    let st = state(&r1);
    let partial = call(
        &mut w,
        2,
        "together",
        json!({"inputResponses": {"elicit-1": accept(json!({"name": "Ada"}))}, "requestState": st}),
    )
    .await;
    let again = partial["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(again.len(), 2, "{partial}");
    assert!(again.contains_key("sample-2") && again.contains_key("roots-3"));
    // The answer already given is carried in the new state.
    let st2 = state(&partial);
    let done = call(
        &mut w,
        3,
        "together",
        json!({"inputResponses": {
            "sample-2": {"role": "assistant", "content": {"type": "text", "text": "Hi"}, "model": "m"},
            "roots-3": {"roots": [{"uri": "file:///a"}, {"uri": "file:///b"}]}
        }, "requestState": st2}),
    )
    .await;
    assert_eq!(result_text(&done), "Hi Ada (2 roots)", "{done}");
}

#[tokio::test]
async fn multi_round_carries_earlier_answers_and_ignores_extra_keys() {
    let mut w = wire(RequestStateConfig::default());
    let r1 = call(&mut w, 1, "steps", json!({})).await;
    assert!(
        r1["result"]["inputRequests"]["elicit-1"].is_object(),
        "{r1}"
    );
    let r2 = call(
        &mut w,
        2,
        "steps",
        json!({"inputResponses": {"elicit-1": accept(json!({"name": "Ada"})),
                                  "bogus": {"action": "accept", "content": {"x": 1}}},
               "requestState": state(&r1)}),
    )
    .await;
    let reqs = r2["result"]["inputRequests"].as_object().unwrap();
    assert_eq!(reqs.keys().collect::<Vec<_>>(), ["elicit-2"], "{r2}");
    assert_eq!(reqs["elicit-2"]["params"]["message"], "Step 2");
    // Round 3 answers only step 2: step 1 comes from the state.
    let r3 = call(
        &mut w,
        3,
        "steps",
        json!({"inputResponses": {"elicit-2": accept(json!({"color": "teal"}))},
               "requestState": state(&r2)}),
    )
    .await;
    assert_eq!(result_text(&r3), "Ada likes teal", "{r3}");
    // Without a state the responses are taken as they are (extra keys ignored).
    let direct = call(
        &mut w,
        4,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": "Bo"})),
                                  "unknown": {"action": "cancel"}}}),
    )
    .await;
    assert_eq!(result_text(&direct), "Hello, Bo!");
}

#[tokio::test]
async fn missing_and_invalid_responses() {
    let mut w = wire(RequestStateConfig::default());
    // A wrong key: asked again, not an error.
    let r = call(
        &mut w,
        1,
        "greet",
        json!({"inputResponses": {"wrong": accept(json!({"name": "x"}))}}),
    )
    .await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
    assert!(r["result"]["inputRequests"]["user_name"].is_object());
    // An answer of the wrong shape, an accept missing a required field, or one of the wrong
    // kind: -32602 naming the key.
    for bad in [
        json!(12345),
        accept(json!({"other": "x"})),
        accept(json!({"name": 7})),
        json!({"roots": []}),
    ] {
        let r = call(
            &mut w,
            2,
            "greet",
            json!({"inputResponses": {"user_name": bad}}),
        )
        .await;
        assert_eq!(code(&r), -32602, "{r}");
        let msg = r["error"]["message"].as_str().unwrap();
        assert!(msg.contains("\"user_name\""), "{msg}");
    }
    // Structurally invalid retry fields.
    for extra in [
        json!({"inputResponses": null}),
        json!({"inputResponses": [1]}),
        json!({"requestState": 5}),
    ] {
        let r = call(&mut w, 3, "greet", extra.clone()).await;
        assert_eq!(code(&r), -32602, "{extra} -> {r}");
    }
}

#[tokio::test]
async fn tampered_rebound_and_foreign_states_are_rejected() {
    let mut w = wire(RequestStateConfig::default());
    let r1 = call(&mut w, 1, "numbered", json!({"arguments": {"n": 1}})).await;
    let st = state(&r1);
    let answer = json!({"who": accept(json!({"name": "Ada"}))});
    let ok = call(
        &mut w,
        2,
        "numbered",
        json!({"arguments": {"n": 1}, "inputResponses": answer, "requestState": st}),
    )
    .await;
    assert_eq!(result_text(&ok), "Ada #1");
    let mut flipped = st.clone().into_bytes();
    let i = flipped.len() / 2;
    flipped[i] = if flipped[i] == b'A' { b'B' } else { b'A' };
    let flipped = String::from_utf8(flipped).unwrap();
    for (args, token) in [
        (json!({"n": 1}), format!("{st}-TAMPERED")),
        (json!({"n": 1}), flipped),
        (json!({"n": 1}), String::new()),
        // The same state for other arguments.
        (json!({"n": 2}), st.clone()),
    ] {
        let r = call(
            &mut w,
            3,
            "numbered",
            json!({"arguments": args, "inputResponses": answer, "requestState": token}),
        )
        .await;
        assert_invalid_state(&r);
    }
    // The state of one tool on another.
    let r = call(
        &mut w,
        4,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": "x"}))}, "requestState": st}),
    )
    .await;
    assert_invalid_state(&r);
    // Another server (another key) does not open it.
    let mut other = wire(RequestStateConfig::default());
    let r = call(
        &mut other,
        1,
        "numbered",
        json!({"arguments": {"n": 1}, "inputResponses": answer, "requestState": st}),
    )
    .await;
    assert_invalid_state(&r);
}

#[tokio::test]
async fn expired_state_is_rejected() {
    let mut w = wire(RequestStateConfig::default().ttl(Duration::from_millis(50)));
    let r1 = call(&mut w, 1, "greet", json!({})).await;
    let st = state(&r1);
    tokio::time::sleep(Duration::from_millis(120)).await;
    let r = call(
        &mut w,
        2,
        "greet",
        json!({"inputResponses": {"user_name": accept(json!({"name": "x"}))}, "requestState": st}),
    )
    .await;
    assert_invalid_state(&r);
}

#[tokio::test]
async fn key_rotation_first_key_seals_every_key_opens() {
    let old = || RequestStateKey::from_bytes([11; 32]);
    let new = || RequestStateKey::from_bytes([22; 32]);
    let mut before = wire(RequestStateConfig::with_keys(vec![old()]).unwrap());
    let mut during = wire(RequestStateConfig::with_keys(vec![new(), old()]).unwrap());
    let mut after = wire(RequestStateConfig::with_keys(vec![new()]).unwrap());
    let answer = json!({"user_name": accept(json!({"name": "Ada"}))});
    let old_state = state(&call(&mut before, 1, "greet", json!({})).await);
    let retry = |st: &str| json!({"inputResponses": answer, "requestState": st});
    let r = call(&mut during, 2, "greet", retry(&old_state)).await;
    assert_eq!(result_text(&r), "Hello, Ada!");
    assert_invalid_state(&call(&mut after, 3, "greet", retry(&old_state)).await);
    let new_state = state(&call(&mut during, 4, "greet", json!({})).await);
    let r = call(&mut after, 5, "greet", retry(&new_state)).await;
    assert_eq!(result_text(&r), "Hello, Ada!");
    assert_invalid_state(&call(&mut before, 6, "greet", retry(&new_state)).await);
}

#[tokio::test]
async fn the_number_of_rounds_is_bounded() {
    let mut w = wire(RequestStateConfig::default().max_rounds(2));
    let mut extra = json!({});
    for round in 1..=2 {
        let r = call(&mut w, round, "three", extra.clone()).await;
        let key = format!("elicit-{round}");
        assert!(r["result"]["inputRequests"][&key].is_object(), "{r}");
        extra = json!({"inputResponses": {key: accept(json!({"name": "x"}))},
                       "requestState": state(&r)});
    }
    let r = call(&mut w, 3, "three", extra).await;
    assert_eq!(code(&r), -32602, "{r}");
    assert!(
        r["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Too many input rounds")
    );
    // With a higher bound the same handler completes.
    let mut w = wire(RequestStateConfig::default().max_rounds(3));
    let mut extra = json!({});
    for round in 1..=3 {
        let r = call(&mut w, round, "three", extra.clone()).await;
        let key = format!("elicit-{round}");
        extra = json!({"inputResponses": {key: accept(json!({"name": "x"}))},
                       "requestState": state(&r)});
    }
    let r = call(&mut w, 4, "three", extra).await;
    assert_eq!(result_text(&r), "all answered");
}

#[tokio::test]
async fn undeclared_capabilities_are_minus_32021() {
    let mut w = wire(RequestStateConfig::default());
    let r = w
        .request(
            json!(1),
            "tools/call",
            with_meta(
                json!({"name": "greet", "arguments": {}}),
                json!({"sampling": {}}),
            ),
        )
        .await;
    assert_eq!(code(&r), -32021, "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"elicitation": {"form": {}}})
    );
    // Sampling with tools needs `sampling.tools`.
    let r = call(&mut w, 2, "sample_with_tools", json!({})).await;
    assert_eq!(code(&r), -32021, "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {"tools": {}}})
    );
    let r = w
        .request(
            json!(3),
            "tools/call",
            with_meta(
                json!({"name": "sample_with_tools", "arguments": {}}),
                json!({"sampling": {"tools": {}}}),
            ),
        )
        .await;
    let p = &r["result"]["inputRequests"]["s"]["params"];
    assert_eq!(p["tools"][0]["name"], "calc", "{r}");
}

#[tokio::test]
async fn a_parked_resolver_lets_the_work_wait_for_its_answers() {
    let mut w = wire(RequestStateConfig::default());
    let r = call(&mut w, 1, "parked", json!({})).await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(result_text(&r), "elicit-1 answered Tess");
}

#[tokio::test]
async fn url_mode_is_an_input_request_without_elicitation_id() {
    let mut w = wire(RequestStateConfig::default());
    let url_caps = json!({"elicitation": {"url": {}}});
    let p = with_meta(json!({"name": "visit", "arguments": {}}), url_caps.clone());
    let r1 = w.request(json!(1), "tools/call", p.clone()).await;
    assert_eq!(
        r1["result"]["inputRequests"]["connect"],
        json!({"method": "elicitation/create", "params": {
            "mode": "url", "message": "Connect", "url": "https://example.com/c"}}),
        "{r1}"
    );
    let mut retry = p;
    retry["inputResponses"] = json!({"connect": {"action": "accept"}});
    retry["requestState"] = json!(state(&r1));
    let r2 = w.request(json!(2), "tools/call", retry).await;
    assert_eq!(result_text(&r2), "Accept");
    // A form-only client is not sent a URL.
    let r = call(&mut w, 3, "visit", json!({})).await;
    assert_eq!(code(&r), -32021, "{r}");
}

#[tokio::test]
async fn prompts_and_resources_take_input_too_but_lists_never_do() {
    let mut w = wire(RequestStateConfig::default());
    let p = with_meta(json!({"name": "ctx_prompt"}), caps());
    let r1 = w.request(json!(1), "prompts/get", p.clone()).await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let mut retry = p;
    retry["inputResponses"] = json!({"who": accept(json!({"name": "Ada"}))});
    retry["requestState"] = json!(state(&r1));
    let r2 = w.request(json!(2), "prompts/get", retry).await;
    assert_eq!(r2["result"]["messages"][0]["content"]["text"], "for Ada");

    let p = with_meta(json!({"uri": "res://secret"}), caps());
    let r1 = w.request(json!(3), "resources/read", p.clone()).await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let mut retry = p;
    retry["inputResponses"] = json!({"who": accept(json!({"name": "Ada"}))});
    retry["requestState"] = json!(state(&r1));
    let r2 = w.request(json!(4), "resources/read", retry).await;
    assert_eq!(
        r2["result"]["contents"][0]["text"], "secret for Ada",
        "{r2}"
    );
    assert_eq!(r2["result"]["resultType"], "complete");

    let r = w
        .request(json!(5), "tools/list", with_meta(json!({}), caps()))
        .await;
    assert_eq!(r["result"]["resultType"], "complete");
}

// ---------------------------------------------------------------------------------------
// Over Streamable HTTP, with the principal bound into the state.
// ---------------------------------------------------------------------------------------

async fn start_http() -> (SocketAddr, CancellationToken) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let validator = validator_fn(|token: String, _req| async move {
        match token.as_str() {
            "alice-token" => Ok(Principal::new("alice")),
            "bob-token" => Ok(Principal::new("bob")),
            _ => Err(AuthError::InvalidToken("unknown token".into())),
        }
    });
    let opts = HttpOptions {
        auth: Some(AuthOptions::new(format!("http://{addr}/mcp"), validator)),
        ..HttpOptions::default()
    };
    let stop = CancellationToken::new();
    let st = stop.clone();
    let s = server(RequestStateConfig::default());
    tokio::spawn(async move { s.serve_http_on(listener, opts, st).await });
    (addr, stop)
}

async fn http_call(addr: SocketAddr, token: &str, id: u64, params: Value) -> Value {
    let tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (mut sender, conn) =
        hyper::client::conn::http1::handshake::<_, Full<Bytes>>(hyper_util::rt::TokioIo::new(tcp))
            .await
            .unwrap();
    tokio::spawn(conn);
    let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                      "params": with_meta(params, caps())});
    let req = hyper::Request::builder()
        .method("POST")
        .uri("/mcp")
        .header("host", format!("127.0.0.1:{}", addr.port()))
        .header("content-type", "application/json")
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {token}"))
        .header("mcp-protocol-version", "2026-07-28")
        .header("mcp-method", "tools/call")
        .header("mcp-name", "greet")
        .body(Full::new(Bytes::from(body.to_string())))
        .unwrap();
    let resp = sender.send_request(req).await.unwrap();
    let bytes = tokio::time::timeout(Duration::from_secs(10), resp.into_body().collect())
        .await
        .expect("body in time")
        .unwrap()
        .to_bytes();
    serde_json::from_slice(&bytes).unwrap_or_else(|e| panic!("{e}: {bytes:?}"))
}

#[tokio::test]
async fn round_trip_over_http_bound_to_the_principal() {
    let (addr, stop) = start_http().await;
    let r1 = http_call(
        addr,
        "alice-token",
        1,
        json!({"name": "greet", "arguments": {}}),
    )
    .await;
    assert_eq!(r1["result"]["resultType"], "input_required", "{r1}");
    let retry = json!({"name": "greet", "arguments": {},
        "inputResponses": {"user_name": accept(json!({"name": "Alice"}))},
        "requestState": state(&r1)});
    // Bob cannot use Alice's state.
    let stolen = http_call(addr, "bob-token", 2, retry.clone()).await;
    assert_invalid_state(&stolen);
    let r2 = http_call(addr, "alice-token", 3, retry).await;
    assert_eq!(result_text(&r2), "Hello, Alice!", "{r2}");
    stop.cancel();
}

/// A first attempt starts no round until the handler asks (the retry members are looked for
/// by name first); a retry whose member names are written with JSON escapes is still read
/// as a retry, and a bad state there is still refused.
#[tokio::test]
async fn retry_members_written_with_escapes_are_still_a_retry() {
    let mut w = wire(RequestStateConfig::default());
    let r1 = call(&mut w, 1, "numbered", json!({"arguments": {"n": 1}})).await;
    let st = state(&r1);
    let meta = with_meta(json!({}), caps())["_meta"].to_string();
    let line = |id: u64, token: &str| {
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"numbered","arguments":{{"n":1}},"input\u0052esponses":{{"who":{{"action":"accept","content":{{"name":"Ada"}}}}}},"request\u0053tate":"{token}","_meta":{meta}}}}}"#
        ) + "\n"
    };
    w.send_raw(line(2, &st).as_bytes()).await;
    let ok = w.recv().await;
    assert_eq!(result_text(&ok), "Ada #1", "{ok}");
    w.send_raw(line(3, "not-a-state").as_bytes()).await;
    assert_invalid_state(&w.recv().await);
    // A first attempt that asks still gets its round, bound to its own arguments.
    let r = call(&mut w, 4, "numbered", json!({"arguments": {"n": 2}})).await;
    assert_eq!(r["result"]["resultType"], "input_required", "{r}");
}

#[tokio::test]
async fn a_single_use_state_is_refused_on_replay_and_a_default_one_is_not() {
    use mcp::session::request_state::InMemoryReplayGuard;

    let answer = |st: &str| json!({"inputResponses": {"user_name": accept(json!({"name": "Ada"}))}, "requestState": st});

    // Default: a state may be presented again until it expires.
    let mut w = wire(RequestStateConfig::default());
    let st = state(&call(&mut w, 1, "greet", json!({})).await);
    assert_eq!(
        result_text(&call(&mut w, 2, "greet", answer(&st)).await),
        "Hello, Ada!"
    );
    assert_eq!(
        result_text(&call(&mut w, 3, "greet", answer(&st)).await),
        "Hello, Ada!"
    );

    // Single use: the second presentation is the ordinary invalid-state error.
    let guard = Arc::new(InMemoryReplayGuard::new(16));
    let mut w = wire(RequestStateConfig::default().single_use(guard.clone()));
    let st = state(&call(&mut w, 1, "greet", json!({})).await);
    assert_eq!(
        result_text(&call(&mut w, 2, "greet", answer(&st)).await),
        "Hello, Ada!"
    );
    assert_invalid_state(&call(&mut w, 3, "greet", answer(&st)).await);
    assert_eq!(guard.len(), 1);
    // A fresh round gets a fresh state, usable once.
    let st2 = state(&call(&mut w, 4, "greet", json!({})).await);
    assert_ne!(st, st2);
    assert_eq!(
        result_text(&call(&mut w, 5, "greet", answer(&st2)).await),
        "Hello, Ada!"
    );
}
