//! Multi round-trip requests (2026-07-28) from the client's side, against a scripted server
//! over an in-memory pipe: input requests answered by the handler under their keys,
//! `requestState` echoed verbatim (and omitted when the server sent none), a new JSON-RPC
//! id each round, nothing of one round leaking into the next, the round limit, an input
//! the handler cannot give, and a result without `resultType` taken as complete.

use std::sync::{Arc, Mutex};

use mcp::client::Client;
use mcp::client::{ClientError, ClientHandler, ConnectMode, MAX_INPUT_ROUNDS};
use mcp::jsonrpc::ErrorObject;
use mcp::prelude::*;
use mcp::types::{
    CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult, Root,
    TextContent,
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use ProtocolVersion as V;

/// Answers elicitation, sampling and roots (but only when `full`).
struct Host {
    full: bool,
}

impl ClientHandler for Host {
    async fn elicit(&self, _p: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        let mut content = std::collections::BTreeMap::new();
        content.insert("name".to_owned(), "octocat".into());
        Ok(ElicitResult::accept(content))
    }

    async fn create_message(
        &self,
        _p: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        if !self.full {
            return Err(ErrorObject::method_not_found("sampling/createMessage"));
        }
        Ok(CreateMessageResult::new("m", TextContent::new("sampled")))
    }

    async fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
        Ok(ListRootsResult::new(vec![Root::new("file:///work")]))
    }
}

/// What the scripted server answers to the `n`-th `tools/call` it sees (0-based).
type Script = Box<dyn Fn(usize, &Value) -> Value + Send>;

/// A 2026 server that answers `server/discover` and runs `script` for `tools/call`;
/// returns the `tools/call` requests it saw.
fn scripted(script: Script) -> (tokio::io::DuplexStream, Arc<Mutex<Vec<Value>>>) {
    let (client_end, server_end) = tokio::io::duplex(1 << 16);
    let seen: Arc<Mutex<Vec<Value>>> = Arc::default();
    let log = seen.clone();
    tokio::spawn(async move {
        let (r, mut w) = tokio::io::split(server_end);
        let mut lines = BufReader::new(r).lines();
        while let Ok(Some(line)) = lines.next_line().await {
            let req: Value = serde_json::from_str(&line).unwrap();
            let Some(id) = req.get("id").cloned() else {
                continue;
            };
            let result = match req["method"].as_str() {
                Some("server/discover") => json!({
                    "resultType": "complete",
                    "supportedVersions": ["2026-07-28"],
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "scripted", "version": "1"}
                }),
                Some("tools/call") => {
                    let n = {
                        let mut l = log.lock().unwrap();
                        l.push(req.clone());
                        l.len() - 1
                    };
                    script(n, &req["params"])
                }
                _ => json!({"resultType": "complete"}),
            };
            let resp = json!({"jsonrpc": "2.0", "id": id, "result": result});
            w.write_all(format!("{resp}\n").as_bytes()).await.unwrap();
        }
    });
    (client_end, seen)
}

async fn connect(stream: tokio::io::DuplexStream, full: bool) -> Client {
    Client::builder()
        .mode(ConnectMode::Modern(V::V2026_07_28))
        .handler(Host { full })
        .connect(stream)
        .await
        .unwrap()
}

fn done(text: &str) -> Value {
    json!({"resultType": "complete", "content": [{"type": "text", "text": text}]})
}

fn text(r: &CallToolResult) -> String {
    serde_json::to_value(r).unwrap()["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn input_requests_are_answered_under_their_keys_and_the_state_echoed() {
    let (stream, seen) = scripted(Box::new(|n, _| match n {
        0 => json!({
            "resultType": "input_required",
            "inputRequests": {
                "login": {"method": "elicitation/create", "params": {
                    "message": "Who?", "requestedSchema": {"type": "object",
                        "properties": {"name": {"type": "string"}}}}},
                "draft": {"method": "sampling/createMessage", "params": {
                    "messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}],
                    "maxTokens": 10}},
                "where": {"method": "roots/list"}
            },
            "requestState": "opaque-1 \u{e9}"
        }),
        // Second round: state only (load shedding), no input requests.
        1 => json!({"resultType": "input_required", "requestState": "opaque-2"}),
        _ => done("finished"),
    }));
    let client = connect(stream, true).await;
    let r = client
        .call_tool("deploy", json!({"env": "prod"}))
        .await
        .unwrap();
    assert_eq!(text(&r), "finished");

    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    let ids: Vec<&Value> = seen.iter().map(|r| &r["id"]).collect();
    assert!(
        ids[0] != ids[1] && ids[1] != ids[2] && ids[0] != ids[2],
        "{ids:?}"
    );
    // Round 1: the original params only.
    assert_eq!(seen[0]["params"]["arguments"], json!({"env": "prod"}));
    assert!(seen[0]["params"].get("inputResponses").is_none());
    assert!(seen[0]["params"].get("requestState").is_none());
    // Round 2: every answer under its key, the state byte for byte, the envelope kept.
    let p1 = &seen[1]["params"];
    assert_eq!(p1["arguments"], json!({"env": "prod"}));
    assert_eq!(p1["requestState"], "opaque-1 \u{e9}");
    let answers = &p1["inputResponses"];
    assert_eq!(answers["login"]["action"], "accept");
    assert_eq!(answers["login"]["content"]["name"], "octocat");
    assert_eq!(answers["draft"]["model"], "m");
    assert_eq!(answers["where"]["roots"][0]["uri"], "file:///work");
    assert!(answers["login"].get("resultType").is_none());
    assert_eq!(
        p1["_meta"]["io.modelcontextprotocol/protocolVersion"],
        "2026-07-28"
    );
    // Round 3: the new state, and no stale answers from round 2.
    let p2 = &seen[2]["params"];
    assert_eq!(p2["requestState"], "opaque-2");
    assert!(p2.get("inputResponses").is_none(), "{p2}");
}

#[tokio::test]
async fn no_request_state_means_none_is_sent() {
    let (stream, seen) = scripted(Box::new(|n, _| match n {
        0 => json!({"resultType": "input_required", "inputRequests": {
            "where": {"method": "roots/list"}}}),
        _ => done("ok"),
    }));
    let client = connect(stream, true).await;
    client.call_tool("t", json!({})).await.unwrap();
    let seen = seen.lock().unwrap();
    assert!(seen[1]["params"].get("requestState").is_none());
    assert!(seen[1]["params"]["inputResponses"]["where"].is_object());
}

#[tokio::test]
async fn a_server_that_never_stops_asking_hits_the_round_limit() {
    let (stream, seen) = scripted(Box::new(
        |n, _| json!({"resultType": "input_required", "requestState": format!("s{n}")}),
    ));
    let client = connect(stream, true).await;
    let e = client.call_tool("t", json!({})).await.unwrap_err();
    assert!(matches!(e, ClientError::InputRequired(_)), "{e:?}");
    assert_eq!(seen.lock().unwrap().len(), MAX_INPUT_ROUNDS + 1);
}

#[tokio::test]
async fn an_input_the_handler_cannot_give_fails_the_call_clearly() {
    let (stream, seen) = scripted(Box::new(|_, _| {
        json!({"resultType": "input_required", "inputRequests": {
            "draft": {"method": "sampling/createMessage", "params": {
                "messages": [], "maxTokens": 1}}}})
    }));
    let client = connect(stream, false).await;
    let e = client.call_tool("t", json!({})).await.unwrap_err();
    assert!(
        matches!(&e, ClientError::Unsupported(w) if w.contains("sampling/createMessage") && w.contains("draft")),
        "{e:?}"
    );
    assert_eq!(seen.lock().unwrap().len(), 1, "no retry without the answer");
}

#[tokio::test]
async fn a_malformed_input_required_result_is_an_invalid_response() {
    // Neither inputRequests nor requestState.
    let (stream, _) = scripted(Box::new(|_, _| json!({"resultType": "input_required"})));
    let client = connect(stream, true).await;
    let e = client.call_tool("t", json!({})).await.unwrap_err();
    assert!(matches!(e, ClientError::InvalidResponse(_)), "{e:?}");
}

#[tokio::test]
async fn a_result_without_result_type_is_complete() {
    let (stream, seen) = scripted(Box::new(
        |_, _| json!({"content": [{"type": "text", "text": "plain"}]}),
    ));
    let client = connect(stream, true).await;
    let r = client.call_tool("t", json!({})).await.unwrap();
    assert_eq!(text(&r), "plain");
    assert_eq!(seen.lock().unwrap().len(), 1);
}
