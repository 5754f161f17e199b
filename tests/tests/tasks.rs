//! Tasks on both eras over the in-memory stream transport: the 2025-11-25 core tasks
//! (task-augmented `tools/call`, `tasks/get`/`result`/`list`/`cancel`, status notifications)
//! and the 2026 tasks extension (`resultType: "task"`, `tasks/get`/`update`/`cancel`).

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp::prelude::*;
use mcp::tasks::{TaskEvent, TaskOptions};
use mcp::types::{InputRequest, InputRequests, InputResponse, TaskSupport};
use serde_json::{Value, json};
use support::{Wire, code, envelope, modern};

#[derive(serde::Deserialize)]
struct SleepArgs {
    #[serde(default)]
    ms: u64,
}

fn text(s: impl Into<String>) -> CallToolResult {
    CallToolResult::success(vec![ContentBlock::text(s.into())])
}

fn ask(field: &str) -> InputRequest {
    serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {
            "message": format!("{field}?"),
            "requestedSchema": {
                "type": "object",
                "properties": { field: { "type": "string" } },
                "required": [field]
            }
        }
    }))
    .unwrap()
}

fn answer_text(r: Option<&InputResponse>) -> String {
    match r {
        Some(InputResponse::Elicit(e)) => serde_json::to_value(e).unwrap()["content"].to_string(),
        _ => "none".into(),
    }
}

/// A server with tools of every task support, plus one that panics, one that asks for input
/// and one that records whether it finished.
fn builder(finished: Arc<AtomicBool>) -> mcp::ServerBuilder {
    Server::builder("tasks", "1.0.0")
        .tool(Tool::new("plain"), |_ctx, _a: Value| async move {
            Ok(text("plain"))
        })
        .tool(
            Tool::new("sleep").with_task_support(TaskSupport::Optional),
            move |_ctx, a: SleepArgs| {
                let finished = finished.clone();
                async move {
                    tokio::time::sleep(Duration::from_millis(a.ms)).await;
                    finished.store(true, Ordering::SeqCst);
                    Ok(text(format!("slept {}", a.ms)))
                }
            },
        )
        .tool(
            Tool::new("must_task").with_task_support(TaskSupport::Required),
            |_ctx, _a: Value| async move { Ok(CallToolResult::error("tool-level failure")) },
        )
        .tool(
            Tool::new("boom").with_task_support(TaskSupport::Optional),
            |_ctx, _a: Value| async move {
                tokio::time::sleep(Duration::from_millis(10)).await;
                if std::hint::black_box(true) {
                    panic!("boom");
                }
                Ok(text("unreachable"))
            },
        )
        .tool(
            Tool::new("joined_questions").with_task_support(TaskSupport::Optional),
            |ctx, _a: Value| async move {
                let task = ctx.task().expect("runs as a task").clone();
                let one = |k: &str| InputRequests::from([(k.to_owned(), ask(k))]);
                let (a, b) = tokio::join!(task.input(one("first")), task.input(one("second")));
                let (a, b) = (a?, b?);
                assert!(
                    a.len() == 1 && b.len() == 1,
                    "each caller gets its own answers"
                );
                Ok(text(format!(
                    "{} then {}",
                    answer_text(a.get("first")),
                    answer_text(b.get("second"))
                )))
            },
        )
        .tool(
            Tool::new("two_questions").with_task_support(TaskSupport::Optional),
            |ctx, _a: Value| async move {
                let task = ctx.task().expect("runs as a task").clone();
                let mut reqs = InputRequests::new();
                reqs.insert("name".into(), ask("name"));
                reqs.insert("city".into(), ask("city"));
                let answers = task.input(reqs).await?;
                Ok(text(format!(
                    "{} from {}",
                    answer_text(answers.get("name")),
                    answer_text(answers.get("city"))
                )))
            },
        )
}

fn server() -> Server {
    builder(Arc::new(AtomicBool::new(false))).build()
}

fn task_call(name: &str, args: Value, ttl: Option<u64>) -> Value {
    let task = match ttl {
        Some(t) => json!({ "ttl": t }),
        None => json!({}),
    };
    json!({ "name": name, "arguments": args, "task": task })
}

/// Starts a legacy task: `tools/call` with `params` (a `task_call`); its task id.
async fn legacy_task(w: &mut Wire, id: Value, params: Value) -> String {
    let r = w.request(id, "tools/call", params).await;
    r["result"]["task"]["taskId"].as_str().unwrap().to_owned()
}

/// Starts `name` as a 2026 task, the extension declared; its task id.
async fn modern_task(w: &mut Wire, id: Value, name: &str, args: Value) -> String {
    let params = modern_ext(json!({"name": name, "arguments": args}));
    let r = w.request(id, "tools/call", params).await;
    r["result"]["taskId"].as_str().unwrap().to_owned()
}

// ---------------------------------------------------------------------------------------
// 2025-11-25 core tasks
// ---------------------------------------------------------------------------------------

#[tokio::test]
async fn legacy_task_call_answers_at_once_and_tasks_result_blocks_for_the_result() {
    let server = server();
    let mut w = Wire::new(server.serve_in_memory());
    let init = w.initialize("2025-11-25").await;
    assert_eq!(
        init["capabilities"]["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    let list = w.request(json!(1), "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let support = |n: &str| {
        tools.iter().find(|t| t["name"] == n).unwrap()["execution"]["taskSupport"].clone()
    };
    assert_eq!(support("sleep"), "optional");
    assert_eq!(support("must_task"), "required");
    assert_eq!(support("plain"), Value::Null);

    let r = w
        .request(
            json!(2),
            "tools/call",
            task_call("sleep", json!({"ms": 300}), Some(60_000)),
        )
        .await;
    let task = &r["result"]["task"];
    assert_eq!(task["status"], "working", "{r}");
    assert_eq!(task["ttl"], 60_000);
    assert!(task["pollInterval"].as_u64().unwrap() > 0);
    assert!(task["createdAt"].as_str().unwrap().ends_with('Z'));
    assert!(r["result"].get("content").is_none(), "{r}");
    let id = task["taskId"].as_str().unwrap().to_owned();
    assert_eq!(id.len(), 32);

    let g = w
        .request(json!(3), "tasks/get", json!({"taskId": id}))
        .await;
    assert_eq!(g["result"]["status"], "working", "{g}");
    assert_eq!(g["result"]["taskId"], id.as_str());

    w.send(&json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/result", "params": {"taskId": id}}))
        .await;
    let (res, notes) = w.response(json!(4)).await;
    assert_eq!(res["result"]["content"][0]["text"], "slept 300", "{res}");
    assert_eq!(
        res["result"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
        id.as_str()
    );
    let completed = notes
        .iter()
        .find(|n| n["method"] == "notifications/tasks/status")
        .unwrap_or_else(|| panic!("no status notification in {notes:?}"));
    assert_eq!(completed["params"]["status"], "completed");
    assert_eq!(completed["params"]["taskId"], id.as_str());

    let g = w
        .request(json!(5), "tasks/get", json!({"taskId": id}))
        .await;
    assert_eq!(g["result"]["status"], "completed");
}

#[tokio::test]
async fn legacy_task_support_mismatches_are_method_not_found() {
    let server = server();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let r = w
        .request(json!(1), "tools/call", task_call("plain", json!({}), None))
        .await;
    assert_eq!(code(&r), -32601, "{r}");
    let r = w
        .request(
            json!(2),
            "tools/call",
            json!({"name": "must_task", "arguments": {}}),
        )
        .await;
    assert_eq!(code(&r), -32601, "{r}");
    // A plain call to an optional tool runs directly.
    let r = w
        .request(
            json!(3),
            "tools/call",
            json!({"name": "sleep", "arguments": {"ms": 0}}),
        )
        .await;
    assert_eq!(r["result"]["content"][0]["text"], "slept 0", "{r}");
    // Bad or unknown task ids are -32602.
    for (i, p) in [json!({"taskId": "nope"}), json!({}), json!({"taskId": 7})]
        .into_iter()
        .enumerate()
    {
        let r = w.request(json!(10 + i), "tasks/get", p).await;
        assert_eq!(code(&r), -32602, "{r}");
    }
}

#[tokio::test]
async fn legacy_cancel_stops_the_work_and_a_terminal_task_cannot_be_cancelled() {
    let finished = Arc::new(AtomicBool::new(false));
    let server = builder(finished.clone()).build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let id = legacy_task(
        &mut w,
        json!(1),
        task_call("sleep", json!({"ms": 300}), None),
    )
    .await;
    let c = w
        .request(json!(2), "tasks/cancel", json!({"taskId": id}))
        .await;
    assert_eq!(c["result"]["status"], "cancelled", "{c}");
    assert_eq!(c["result"]["taskId"], id.as_str());
    let g = w
        .request(json!(3), "tasks/get", json!({"taskId": id}))
        .await;
    assert_eq!(g["result"]["status"], "cancelled");
    let res = w
        .request(json!(4), "tasks/result", json!({"taskId": id}))
        .await;
    assert_eq!(code(&res), -32602, "{res}");
    let again = w
        .request(json!(5), "tasks/cancel", json!({"taskId": id}))
        .await;
    assert_eq!(code(&again), -32602, "{again}");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(
        !finished.load(Ordering::SeqCst),
        "the cancelled work kept running"
    );
    let unknown = w
        .request(json!(6), "tasks/cancel", json!({"taskId": "x"}))
        .await;
    assert_eq!(code(&unknown), -32602);
}

#[tokio::test]
async fn legacy_list_paginates_per_session_and_refuses_bad_cursors() {
    let server = builder(Arc::new(AtomicBool::new(false)))
        .task_options(TaskOptions {
            page_size: 2,
            ..TaskOptions::default()
        })
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let mut created = Vec::new();
    for i in 0..5 {
        let r = w
            .request(
                json!(i),
                "tools/call",
                task_call("sleep", json!({"ms": 0}), None),
            )
            .await;
        created.push(r["result"]["task"]["taskId"].as_str().unwrap().to_owned());
    }
    let mut listed = Vec::new();
    let mut cursor: Option<String> = None;
    for page in 0.. {
        assert!(page < 5, "pagination does not end");
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let r = w.request(json!(100 + page), "tasks/list", params).await;
        let tasks = r["result"]["tasks"].as_array().unwrap();
        assert!(tasks.len() <= 2, "{r}");
        listed.extend(
            tasks
                .iter()
                .map(|t| t["taskId"].as_str().unwrap().to_owned()),
        );
        match r["result"]["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_owned()),
            None => break,
        }
    }
    assert_eq!(listed, created, "creation order, each task once");
    let bad = w
        .request(json!(200), "tasks/list", json!({"cursor": "forged"}))
        .await;
    assert_eq!(code(&bad), -32602);

    // Another connection sees none of them.
    let mut other = Wire::new(server.serve_in_memory());
    other.initialize("2025-11-25").await;
    let r = other.request(json!(1), "tasks/list", json!({})).await;
    assert_eq!(r["result"]["tasks"], json!([]), "{r}");
    let r = other
        .request(json!(2), "tasks/get", json!({"taskId": created[0]}))
        .await;
    assert_eq!(code(&r), -32602, "another session's task is unknown here");
}

#[tokio::test]
async fn ttl_is_capped_and_an_expired_task_is_gone() {
    let server = builder(Arc::new(AtomicBool::new(false)))
        .task_options(TaskOptions {
            max_ttl: Some(Duration::from_secs(10)),
            ..TaskOptions::default()
        })
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let r = w
        .request(
            json!(1),
            "tools/call",
            task_call("sleep", json!({"ms": 0}), Some(u64::MAX)),
        )
        .await;
    assert_eq!(r["result"]["task"]["ttl"], 10_000, "capped at max_ttl: {r}");
    let r = w
        .request(
            json!(2),
            "tools/call",
            task_call("sleep", json!({"ms": 0}), Some(100)),
        )
        .await;
    assert_eq!(r["result"]["task"]["ttl"], 100);
    let id = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let g = w
        .request(json!(3), "tasks/get", json!({"taskId": id}))
        .await;
    assert!(g.get("result").is_some(), "alive within its ttl: {g}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let g = w
        .request(json!(4), "tasks/get", json!({"taskId": id}))
        .await;
    assert_eq!(code(&g), -32602, "expired: {g}");
    let engine = server.task_engine().unwrap();
    assert!(engine.store().get(&id).await.unwrap().is_none());
}

#[tokio::test]
async fn work_outliving_its_ttl_is_stopped() {
    let finished = Arc::new(AtomicBool::new(false));
    let server = builder(finished.clone()).build();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let id = legacy_task(
        &mut w,
        json!(1),
        task_call("sleep", json!({"ms": 400}), Some(100)),
    )
    .await;
    tokio::time::sleep(Duration::from_millis(600)).await;
    assert!(
        !finished.load(Ordering::SeqCst),
        "the work ran past its ttl"
    );
    let g = w
        .request(json!(2), "tasks/get", json!({"taskId": id}))
        .await;
    assert_eq!(code(&g), -32602);
}

#[tokio::test]
async fn a_panicking_tool_fails_its_task_instead_of_hanging() {
    let server = server();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let r = w
        .request(json!(1), "tools/call", task_call("boom", json!({}), None))
        .await;
    let id = r["result"]["task"]["taskId"].as_str().unwrap().to_owned();
    let res = w
        .request(json!(2), "tasks/result", json!({"taskId": id}))
        .await;
    assert_eq!(code(&res), -32603, "{res}");
    assert!(
        !res.to_string().contains("boom"),
        "panic text leaked: {res}"
    );
    let g = w
        .request(json!(3), "tasks/get", json!({"taskId": id}))
        .await;
    assert_eq!(g["result"]["status"], "failed");

    // 2026: the failed task inlines the error.
    let mut m = Wire::new(server.serve_in_memory());
    let id = modern_task(&mut m, json!(1), "boom", json!({})).await;
    let done = poll_terminal(&mut m, &id).await;
    assert_eq!(done["status"], "failed", "{done}");
    assert_eq!(done["error"]["code"], -32603);
    assert!(done.get("result").is_none());
}

#[tokio::test]
async fn legacy_input_inside_a_task_is_asked_as_requests_tagged_with_the_task() {
    let server = server();
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let id = legacy_task(
        &mut w,
        json!(1),
        task_call("two_questions", json!({}), None),
    )
    .await;
    let mut answered = 0;
    while answered < 2 {
        let m = w.recv().await;
        if m["method"] == "elicitation/create" {
            assert_eq!(
                m["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"],
                id.as_str()
            );
            let field = if m["params"]["message"] == "name?" {
                "name"
            } else {
                "city"
            };
            let value = if field == "name" { "Ada" } else { "London" };
            w.send(&json!({"jsonrpc": "2.0", "id": m["id"], "result": {
                "action": "accept", "content": { field: value }
            }}))
            .await;
            answered += 1;
        }
    }
    let res = w
        .request(json!(2), "tasks/result", json!({"taskId": id}))
        .await;
    let t = res["result"]["content"][0]["text"].as_str().unwrap();
    assert!(t.contains("Ada") && t.contains("London"), "{t}");
}

// ---------------------------------------------------------------------------------------
// 2026 tasks extension
// ---------------------------------------------------------------------------------------

/// `params` with a modern envelope declaring the tasks extension.
fn modern_ext(mut params: Value) -> Value {
    let mut meta = envelope();
    meta["io.modelcontextprotocol/clientCapabilities"] =
        json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    params["_meta"] = meta;
    params
}

/// Polls `tasks/get` (ids `<tag>-<n>`) until `done` holds for the task; its result.
async fn poll(w: &mut Wire, id: &str, tag: &str, done: impl Fn(&Value) -> bool) -> Option<Value> {
    for i in 0..100 {
        let g = w
            .request(
                json!(format!("{tag}-{i}")),
                "tasks/get",
                modern_ext(json!({"taskId": id})),
            )
            .await;
        if done(&g) {
            return Some(g["result"].clone());
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    None
}

async fn poll_terminal(w: &mut Wire, id: &str) -> Value {
    poll(w, id, "poll", |g| {
        let r = &g["result"];
        assert_eq!(r["resultType"], "complete", "{g}");
        matches!(
            r["status"].as_str(),
            Some("completed" | "failed" | "cancelled")
        )
    })
    .await
    .unwrap_or_else(|| panic!("task {id} never finished"))
}

async fn poll_status(w: &mut Wire, id: &str, status: &str) -> Value {
    poll(w, id, "wait", |g| g["result"]["status"] == status)
        .await
        .unwrap_or_else(|| panic!("task {id} never reached {status}"))
}

#[tokio::test]
async fn modern_task_flow_creates_polls_inlines_and_acks_cancel() {
    let server = server();
    let mut w = Wire::new(server.serve_in_memory());
    let d = w
        .request(json!(0), "server/discover", modern(json!({})))
        .await;
    let caps = &d["result"]["capabilities"];
    assert_eq!(
        caps["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    assert!(caps.get("tasks").is_none(), "no v1 slot on 2026: {caps}");

    let r = w
        .request(
            json!(1),
            "tools/call",
            modern_ext(json!({"name": "sleep", "arguments": {"ms": 100}})),
        )
        .await;
    let c = &r["result"];
    assert_eq!(c["resultType"], "task", "{r}");
    assert_eq!(c["status"], "working");
    assert!(
        c["ttlMs"].as_u64().is_some() && c.get("ttl").is_none(),
        "{c}"
    );
    assert!(c["pollIntervalMs"].as_u64().unwrap() > 0 && c.get("pollInterval").is_none());
    assert!(c.get("task").is_none() && c.get("content").is_none(), "{c}");
    let id = c["taskId"].as_str().unwrap().to_owned();

    let done = poll_terminal(&mut w, &id).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["content"][0]["text"], "slept 100");
    assert!(
        done["result"]["_meta"]
            .get("io.modelcontextprotocol/related-task")
            .is_none()
    );

    // Cancelling a finished task is acknowledged (idempotent) and changes nothing.
    let ack = w
        .request(json!(2), "tasks/cancel", modern_ext(json!({"taskId": id})))
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    assert!(ack["result"].get("status").is_none());
    assert_eq!(poll_terminal(&mut w, &id).await["status"], "completed");

    // A tool error is a completed task with isError.
    let r = w
        .request(
            json!(3),
            "tools/call",
            modern_ext(json!({"name": "must_task", "arguments": {}})),
        )
        .await;
    let done = poll_terminal(&mut w, r["result"]["taskId"].as_str().unwrap()).await;
    assert_eq!(done["status"], "completed");
    assert_eq!(done["result"]["isError"], true);

    // The removed v1 methods do not exist; unknown ids are -32602.
    for (i, m) in ["tasks/result", "tasks/list"].into_iter().enumerate() {
        let r = w
            .request(json!(10 + i), m, modern_ext(json!({"taskId": id})))
            .await;
        assert_eq!(code(&r), -32601, "{m}: {r}");
    }
    let r = w
        .request(
            json!(20),
            "tasks/get",
            modern_ext(json!({"taskId": "unknown"})),
        )
        .await;
    assert_eq!(code(&r), -32602);
    let r = w
        .request(
            json!(21),
            "tasks/cancel",
            modern_ext(json!({"taskId": "unknown"})),
        )
        .await;
    assert_eq!(code(&r), -32602);
}

#[tokio::test]
async fn modern_cancel_settles_cancelled_and_stops_the_work() {
    let finished = Arc::new(AtomicBool::new(false));
    let server = builder(finished.clone()).build();
    let mut w = Wire::new(server.serve_in_memory());
    let id = modern_task(&mut w, json!(1), "sleep", json!({"ms": 300})).await;
    let ack = w
        .request(json!(2), "tasks/cancel", modern_ext(json!({"taskId": id})))
        .await;
    assert_eq!(
        ack["result"],
        json!({"resultType": "complete", "_meta": ack["result"]["_meta"]})
    );
    assert_eq!(poll_terminal(&mut w, &id).await["status"], "cancelled");
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert!(!finished.load(Ordering::SeqCst));
}

#[tokio::test]
async fn modern_without_the_extension_runs_directly_or_gets_32021() {
    let server = server();
    let mut w = Wire::new(server.serve_in_memory());
    let r = w
        .request(
            json!(1),
            "tools/call",
            modern(json!({"name": "sleep", "arguments": {"ms": 0}})),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
    assert_eq!(r["result"]["content"][0]["text"], "slept 0");
    let r = w
        .request(
            json!(2),
            "tools/call",
            modern(json!({"name": "must_task", "arguments": {}})),
        )
        .await;
    assert_eq!(code(&r), -32021, "{r}");
    assert_eq!(
        r["error"]["data"]["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"],
        json!({})
    );
    for (i, m) in ["tasks/get", "tasks/update", "tasks/cancel"]
        .into_iter()
        .enumerate()
    {
        let r = w
            .request(
                json!(10 + i),
                m,
                modern(json!({"taskId": "t", "inputResponses": {}})),
            )
            .await;
        assert_eq!(code(&r), -32021, "{m}: {r}");
    }
    // A legacy `task` param never promotes a sync tool.
    let r = w
        .request(
            json!(20),
            "tools/call",
            modern_ext(json!({"name": "plain", "arguments": {}, "task": {"ttl": 1000}})),
        )
        .await;
    assert_eq!(r["result"]["resultType"], "complete", "{r}");
}

#[tokio::test]
async fn modern_input_required_is_answered_key_by_key_with_tasks_update() {
    let server = server();
    let mut w = Wire::new(server.serve_in_memory());
    let id = modern_task(&mut w, json!(1), "two_questions", json!({})).await;
    let t = poll_status(&mut w, &id, "input_required").await;
    let keys: Vec<&str> = t["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["city", "name"]);
    assert_eq!(t["inputRequests"]["name"]["method"], "elicitation/create");

    // A known key answered with the wrong kind of response is refused, nothing is lost.
    let bad = w
        .request(
            json!(2),
            "tasks/update",
            modern_ext(json!({"taskId": id, "inputResponses": {"name": {"roots": []}}})),
        )
        .await;
    assert_eq!(code(&bad), -32602, "{bad}");

    // One key (plus an unknown one, ignored).
    let ack = w
        .request(
            json!(3),
            "tasks/update",
            modern_ext(json!({"taskId": id, "inputResponses": {
                "name": {"action": "accept", "content": {"name": "Ada"}},
                "unknown": {"ignored": true}
            }})),
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let g = w
        .request(json!(4), "tasks/get", modern_ext(json!({"taskId": id})))
        .await;
    assert_eq!(g["result"]["status"], "input_required");
    let left: Vec<&String> = g["result"]["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(left, ["city"]);

    w.request(
        json!(5),
        "tasks/update",
        modern_ext(json!({"taskId": id, "inputResponses": {
            "city": {"action": "accept", "content": {"city": "London"}}
        }})),
    )
    .await;
    let done = poll_terminal(&mut w, &id).await;
    assert_eq!(done["status"], "completed");
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Ada") && text.contains("London"), "{text}");
    assert!(done.get("inputRequests").is_none());
}

#[tokio::test]
async fn concurrent_input_calls_of_one_task_are_answered_separately() {
    let server = server();
    let mut w = Wire::new(server.serve_in_memory());
    let id = modern_task(&mut w, json!(1), "joined_questions", json!({})).await;
    let mut keys = Vec::new();
    for _ in 0..100 {
        let t = poll_status(&mut w, &id, "input_required").await;
        keys = t["inputRequests"]
            .as_object()
            .unwrap()
            .keys()
            .cloned()
            .collect();
        if keys.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(keys, ["first", "second"]);
    for (i, k) in ["second", "first"].into_iter().enumerate() {
        w.request(
            json!(10 + i),
            "tasks/update",
            modern_ext(json!({"taskId": id, "inputResponses": {
                k: {"action": "accept", "content": {k: k.to_uppercase()}}
            }})),
        )
        .await;
    }
    let done = poll_terminal(&mut w, &id).await;
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("FIRST") && text.contains("SECOND"), "{done}");
}

#[tokio::test]
async fn modern_task_changes_reach_the_notifier() {
    let events: Arc<Mutex<Vec<TaskEvent>>> = Arc::default();
    let sink = events.clone();
    let server = builder(Arc::new(AtomicBool::new(false)))
        .task_notifier(move |e: TaskEvent| sink.lock().unwrap().push(e))
        .build();
    let mut w = Wire::new(server.serve_in_memory());
    let id = modern_task(&mut w, json!(1), "sleep", json!({"ms": 10})).await;
    poll_terminal(&mut w, &id).await;
    let events = events.lock().unwrap();
    let last = events.last().expect("an event");
    assert_eq!(last.task_id, id);
    assert_eq!(last.params["status"], "completed");
    assert_eq!(last.params["result"]["content"][0]["text"], "slept 10");
    assert!(last.params.get("_meta").is_none());
}

#[tokio::test]
async fn a_server_without_task_tools_offers_no_task_methods() {
    let server = Server::builder("plain", "1.0.0")
        .tool(Tool::new("plain"), |_ctx, _a: Value| async move {
            Ok(text("plain"))
        })
        .build();
    assert!(server.task_engine().is_none());
    let mut w = Wire::new(server.serve_in_memory());
    let init = w.initialize("2025-11-25").await;
    assert!(init["capabilities"].get("tasks").is_none(), "{init}");
    let r = w
        .request(json!(1), "tasks/get", json!({"taskId": "t"}))
        .await;
    assert_eq!(code(&r), -32601);
    let r = w
        .request(json!(2), "tools/call", task_call("plain", json!({}), None))
        .await;
    assert_eq!(
        code(&r),
        -32601,
        "task-augmenting a tool without support: {r}"
    );
}

// ---------------------------------------------------------------------------------------
// #[mcp::tool(task = ...)]
// ---------------------------------------------------------------------------------------

/// Renders a report slowly.
#[mcp::tool(task = "required")]
async fn report(pages: u32) -> String {
    tokio::time::sleep(Duration::from_millis(20)).await;
    format!("{pages} pages")
}

/// Answers at once or as a task.
#[mcp::tool(task = "optional")]
async fn echo(text: String) -> String {
    text
}

#[mcp::server(name = "reports", tools(report, echo))]
struct Reports;

#[tokio::test]
async fn the_tool_macro_declares_task_support_and_runs_as_a_task() {
    let server = Reports.into_server();
    assert!(server.task_engine().is_some());
    let mut w = Wire::new(server.serve_in_memory());
    w.initialize("2025-11-25").await;
    let list = w.request(json!(1), "tools/list", json!({})).await;
    let tools = list["result"]["tools"].as_array().unwrap();
    let support: Vec<&Value> = tools
        .iter()
        .map(|t| &t["execution"]["taskSupport"])
        .collect();
    assert_eq!(support, [&json!("required"), &json!("optional")], "{list}");
    let r = w
        .request(
            json!(2),
            "tools/call",
            json!({"name": "report", "arguments": {"pages": 3}}),
        )
        .await;
    assert_eq!(code(&r), -32601, "required needs a task: {r}");
    let id = legacy_task(
        &mut w,
        json!(3),
        task_call("report", json!({"pages": 3}), None),
    )
    .await;
    let res = w
        .request(json!(4), "tasks/result", json!({"taskId": id}))
        .await;
    assert_eq!(res["result"]["content"][0]["text"], "3 pages", "{res}");
}

// ---------------------------------------------------------------------------------------
// 2026: input rounds first, then the task (SEP-2322 + SEP-2663)
// ---------------------------------------------------------------------------------------

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct Named {
    name: String,
}

#[derive(schemars::JsonSchema, serde::Deserialize)]
struct City {
    city: String,
}

/// A task-required tool that asks for a name in input rounds, then works (becoming a
/// task), then asks for a city as the task.
fn composing_server() -> Server {
    Server::builder("compose", "1.0.0")
        .tool(
            Tool::new("greet_later").with_task_support(TaskSupport::Required),
            |ctx: Context, _a: Value| async move {
                let name = ctx.elicit::<Named>("Name?").key("user_name").await?;
                let name = name.accepted().map_or("nobody".into(), |n| n.name);
                tokio::time::sleep(Duration::from_millis(30)).await;
                let city = ctx.elicit::<City>("City?").key("city").await?;
                let city = city.accepted().map_or("nowhere".into(), |c| c.city);
                Ok(text(format!("{name} from {city}")))
            },
        )
        .build()
}

fn compose_call(extra: Value) -> Value {
    let mut p = json!({"name": "greet_later", "arguments": {}});
    if let (Some(p), Some(extra)) = (p.as_object_mut(), extra.as_object()) {
        p.extend(extra.clone());
    }
    let mut p = modern_ext(p);
    p["_meta"]["io.modelcontextprotocol/clientCapabilities"]["elicitation"] = json!({});
    p
}

#[tokio::test]
async fn modern_input_rounds_run_inline_then_the_call_becomes_a_task() {
    let server = composing_server();
    let mut w = Wire::new(server.serve_in_memory());
    let r1 = w
        .request(json!(1), "tools/call", compose_call(json!({})))
        .await;
    let ir = &r1["result"];
    assert_eq!(ir["resultType"], "input_required", "{r1}");
    assert!(
        ir.get("taskId").is_none(),
        "no task during the rounds: {ir}"
    );
    assert_eq!(
        ir["inputRequests"]["user_name"]["method"],
        "elicitation/create"
    );
    let state = ir["requestState"].as_str().unwrap().to_owned();

    let r2 = w
        .request(
            json!(2),
            "tools/call",
            compose_call(json!({
                "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}},
                "requestState": state,
            })),
        )
        .await;
    let t = &r2["result"];
    assert_eq!(t["resultType"], "task", "{r2}");
    assert!(
        t.get("requestState").is_none() && t.get("inputRequests").is_none(),
        "{t}"
    );
    let id = t["taskId"].as_str().unwrap().to_owned();

    // Input asked after the call became a task parks the task instead.
    let waiting = poll_status(&mut w, &id, "input_required").await;
    let keys: Vec<&String> = waiting["inputRequests"]
        .as_object()
        .unwrap()
        .keys()
        .collect();
    assert_eq!(keys, ["city"]);
    w.request(
        json!(3),
        "tasks/update",
        modern_ext(json!({"taskId": id, "inputResponses": {
            "city": {"action": "accept", "content": {"city": "London"}}
        }})),
    )
    .await;
    let done = poll_terminal(&mut w, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(done["result"]["content"][0]["text"], "Ada from London");
}

#[tokio::test]
async fn modern_bad_round_answers_are_refused_before_any_task_exists() {
    let server = composing_server();
    let mut w = Wire::new(server.serve_in_memory());
    let r1 = w
        .request(json!(1), "tools/call", compose_call(json!({})))
        .await;
    let state = r1["result"]["requestState"].as_str().unwrap().to_owned();

    // An answer of the wrong kind for the key asked: -32602 naming it, no task.
    let bad = w
        .request(
            json!(2),
            "tools/call",
            compose_call(json!({
                "inputResponses": {"user_name": {"roots": []}},
                "requestState": state,
            })),
        )
        .await;
    assert_eq!(code(&bad), -32602, "{bad}");
    assert!(
        bad["error"]["message"]
            .as_str()
            .unwrap()
            .contains("user_name"),
        "{bad}"
    );

    // A tampered requestState is -32602 too.
    let mut forged = state.clone();
    forged.push('A');
    let bad = w
        .request(
            json!(3),
            "tools/call",
            compose_call(json!({
                "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}},
                "requestState": forged,
            })),
        )
        .await;
    assert_eq!(code(&bad), -32602, "{bad}");

    // The genuine state still works: the rounds lost nothing.
    let ok = w
        .request(
            json!(4),
            "tools/call",
            compose_call(json!({
                "inputResponses": {"user_name": {"action": "accept", "content": {"name": "Ada"}}},
                "requestState": state,
            })),
        )
        .await;
    assert_eq!(ok["result"]["resultType"], "task", "{ok}");
}

// ---------------------------------------------------------------------------------------
// 2025-11-25: messages from inside a task carry the related task
// ---------------------------------------------------------------------------------------

fn chatty_server() -> Server {
    Server::builder("chatty", "1.0.0")
        .tool(
            Tool::new("chatty").with_task_support(TaskSupport::Optional),
            |ctx: Context, _a: Value| async move {
                let _ = ctx.progress(1.0, Some(2.0), Some("half way")).await;
                ctx.log(
                    mcp::types::LoggingLevel::Info,
                    Some("chatty"),
                    json!("working"),
                )
                .await?;
                let name = ctx.elicit::<Named>("Name?").await?;
                let name = name.accepted().map_or("nobody".into(), |n| n.name);
                Ok(text(format!("asked {name}")))
            },
        )
        .build()
}

fn related(m: &Value) -> &Value {
    &m["params"]["_meta"]["io.modelcontextprotocol/related-task"]["taskId"]
}

#[tokio::test]
async fn legacy_task_messages_carry_the_related_task_and_a_waiting_request_means_input_required() {
    let server = chatty_server();
    let mut w = Wire::new(server.serve_in_memory());
    let init = w
        .request(
            json!(0),
            "initialize",
            json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"elicitation": {}},
                "clientInfo": {"name": "t", "version": "0"}
            }),
        )
        .await;
    assert!(init.get("result").is_some(), "{init}");
    w.notify("notifications/initialized", json!({})).await;
    let lvl = w
        .request(json!(1), "logging/setLevel", json!({"level": "debug"}))
        .await;
    assert!(lvl.get("result").is_some(), "{lvl}");

    let mut call = task_call("chatty", json!({}), None);
    call["_meta"] = json!({"progressToken": "p1"});
    w.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": call}))
        .await;
    let (mut created, mut progress, mut log, mut ask, mut statuses) =
        (None, None, None, None, Vec::new());
    while created.is_none() || progress.is_none() || log.is_none() || ask.is_none() {
        let m = w.recv().await;
        match m["method"].as_str() {
            None if m["id"] == 2 => created = Some(m),
            Some("notifications/progress") => progress = Some(m),
            Some("notifications/message") => log = Some(m),
            Some("elicitation/create") => ask = Some(m),
            Some("notifications/tasks/status") => statuses.push(m),
            _ => panic!("unexpected {m}"),
        }
    }
    let id = created.unwrap()["result"]["task"]["taskId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (progress, log, ask) = (progress.unwrap(), log.unwrap(), ask.unwrap());
    assert_eq!(related(&progress), id.as_str(), "{progress}");
    assert_eq!(progress["params"]["progressToken"], "p1");
    assert_eq!(related(&log), id.as_str(), "{log}");
    assert_eq!(log["params"]["data"], "working");
    assert_eq!(related(&ask), id.as_str(), "{ask}");

    // While the elicitation waits, the task is input_required.
    w.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tasks/get", "params": {"taskId": id}}))
        .await;
    let got = loop {
        let m = w.recv().await;
        if m["id"] == 3 && m.get("method").is_none() {
            break m;
        }
        statuses.push(m);
    };
    assert_eq!(got["result"]["status"], "input_required", "{got}");

    w.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {
        "action": "accept", "content": {"name": "Ada"}
    }}))
    .await;
    w.send(&json!({"jsonrpc": "2.0", "id": 4, "method": "tasks/result", "params": {"taskId": id}}))
        .await;
    let res = loop {
        let m = w.recv().await;
        if m["id"] == 4 && m.get("method").is_none() {
            break m;
        }
        statuses.push(m);
    };
    assert_eq!(res["result"]["content"][0]["text"], "asked Ada", "{res}");

    // Status notifications name the task in their params, untagged; the waiting request
    // showed as input_required, then working again before completion.
    let seen: Vec<&str> = statuses
        .iter()
        .map(|m| {
            assert_eq!(m["method"], "notifications/tasks/status", "{m}");
            assert!(related(m).is_null(), "{m}");
            m["params"]["status"].as_str().unwrap()
        })
        .collect();
    let waited = seen.iter().position(|s| *s == "input_required");
    let resumed = seen.iter().rposition(|s| *s == "working");
    assert!(
        matches!((waited, resumed), (Some(a), Some(b)) if a < b),
        "{seen:?}"
    );
}

/// Two servers (two replicas) over one store, polling it every 20 ms.
fn replicas(finished: Arc<AtomicBool>) -> (Server, Server) {
    let store = Arc::new(mcp::tasks::InMemoryTaskStore::default());
    let options = TaskOptions {
        poll_interval: Duration::from_millis(20),
        ..TaskOptions::default()
    };
    let one = || {
        builder(finished.clone())
            .task_store(store.clone())
            .task_options(options.clone())
            .build()
    };
    (one(), one())
}

#[tokio::test]
async fn a_task_running_on_one_replica_is_answered_and_cancelled_through_another() {
    let finished = Arc::new(AtomicBool::new(false));
    let (a, b) = replicas(finished.clone());
    let mut on_a = Wire::new(a.serve_in_memory());
    let mut on_b = Wire::new(b.serve_in_memory());

    // Input: asked on A, seen and answered on B (checked against what the store holds).
    let id = modern_task(&mut on_a, json!(1), "two_questions", json!({})).await;
    let t = poll_status(&mut on_b, &id, "input_required").await;
    assert_eq!(t["inputRequests"]["name"]["method"], "elicitation/create");
    let bad = on_b
        .request(
            json!(2),
            "tasks/update",
            modern_ext(json!({"taskId": id, "inputResponses": {"name": {"roots": []}}})),
        )
        .await;
    assert_eq!(code(&bad), -32602, "{bad}");
    let ack = on_b
        .request(
            json!(3),
            "tasks/update",
            modern_ext(json!({"taskId": id, "inputResponses": {
                "name": {"action": "accept", "content": {"name": "Ada"}},
                "city": {"action": "accept", "content": {"city": "London"}}
            }})),
        )
        .await;
    assert_eq!(ack["result"]["resultType"], "complete", "{ack}");
    let done = poll_terminal(&mut on_b, &id).await;
    assert_eq!(done["status"], "completed", "{done}");
    let text = done["result"]["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("Ada") && text.contains("London"), "{text}");

    // Cancel: asked on B, the work on A stops.
    let id = modern_task(&mut on_a, json!(4), "sleep", json!({"ms": 400})).await;
    on_b.request(json!(5), "tasks/cancel", modern_ext(json!({"taskId": id})))
        .await;
    assert_eq!(poll_terminal(&mut on_a, &id).await["status"], "cancelled");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert!(
        !finished.load(Ordering::SeqCst),
        "the work on A was stopped"
    );
}
