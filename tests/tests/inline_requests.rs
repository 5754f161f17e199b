//! Requests answered inline by the reading task (their chain completes on its first poll)
//! and requests that wait (moved into a task of their own) keep the stream semantics:
//! concurrency, cancellation, panics, shutdown.

mod support;

use std::sync::Arc;
use std::time::Duration;

use mcp::prelude::*;
use serde_json::{Value, json};
use support::{Wire, code};
use tokio::sync::Notify;

/// `quick` answers on its first poll; `gate` waits until the test opens the gate;
/// `boom` panics before waiting, `late_boom` after; `watch` waits for its cancellation and
/// reports it through `seen`.
fn server(gate: Arc<Notify>, seen: Arc<Notify>) -> mcp::ServerBuilder {
    Server::builder("inline", "1")
        .tool(Tool::new("quick"), |_ctx, _: Value| async move {
            Ok(CallToolResult::success(vec![ContentBlock::text("quick")]))
        })
        .tool(Tool::new("gate"), move |_ctx, _: Value| {
            let gate = gate.clone();
            async move {
                gate.notified().await;
                Ok(CallToolResult::success(vec![ContentBlock::text("opened")]))
            }
        })
        .tool(Tool::new("boom"), |_ctx, _: Value| async move {
            if true {
                panic!("boom on the first poll");
            }
            Ok(CallToolResult::success(vec![]))
        })
        .tool(Tool::new("late_boom"), |_ctx, _: Value| async move {
            tokio::task::yield_now().await;
            if true {
                panic!("boom after waiting");
            }
            Ok(CallToolResult::success(vec![]))
        })
        .tool(Tool::new("watch"), move |ctx, _: Value| {
            let seen = seen.clone();
            async move {
                ctx.cancellation().cancelled().await;
                seen.notify_one();
                Ok(CallToolResult::success(vec![ContentBlock::text("late")]))
            }
        })
}

fn call(id: i64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": name}})
}

fn text(r: &Value) -> &str {
    r["result"]["content"][0]["text"].as_str().unwrap_or("")
}

async fn connected() -> (Wire, Arc<Notify>, Arc<Notify>) {
    let (gate, seen) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let mut w = Wire::new(server(gate.clone(), seen.clone()).build().serve_in_memory());
    w.initialize("2025-11-25").await;
    (w, gate, seen)
}

#[tokio::test]
async fn a_quick_request_is_answered_while_an_earlier_one_waits() {
    let (mut w, gate, _) = connected().await;
    w.send(&call(1, "gate")).await;
    w.send(&call(2, "quick")).await;
    let first = w.recv().await;
    assert_eq!((first["id"].as_i64(), text(&first)), (Some(2), "quick"));
    gate.notify_one();
    let second = w.recv().await;
    assert_eq!((second["id"].as_i64(), text(&second)), (Some(1), "opened"));
}

#[tokio::test]
async fn a_waiting_request_is_cancelled_and_sends_nothing() {
    let (mut w, _, seen) = connected().await;
    w.send(&call(7, "watch")).await;
    // Answered after the watch started, so the watch is waiting when it is cancelled.
    let r = w.request(json!(8), "ping", json!({})).await;
    assert_eq!(r["result"], json!({}));
    w.notify("notifications/cancelled", json!({"requestId": 7}))
        .await;
    tokio::time::timeout(Duration::from_secs(5), seen.notified())
        .await
        .expect("the handler saw its cancellation");
    w.expect_silence(100).await;
    // The id is free again, and the connection serves on.
    let r = w.request(json!(7), "ping", json!({})).await;
    assert_eq!(r["result"], json!({}));
}

#[tokio::test]
async fn a_cancellation_after_an_inline_answer_changes_nothing() {
    let (mut w, _, _) = connected().await;
    let r = w
        .request(json!(3), "tools/call", json!({"name": "quick"}))
        .await;
    assert_eq!(text(&r), "quick");
    w.notify("notifications/cancelled", json!({"requestId": 3}))
        .await;
    let r = w
        .request(json!(4), "tools/call", json!({"name": "quick"}))
        .await;
    assert_eq!(text(&r), "quick");
}

#[tokio::test]
async fn panics_answer_32603_inline_and_after_waiting() {
    let (mut w, _, _) = connected().await;
    for (id, name) in [(1, "boom"), (2, "late_boom")] {
        let r = w
            .request(json!(id), "tools/call", json!({"name": name}))
            .await;
        assert_eq!(code(&r), -32603, "{name}: {r}");
    }
    let r = w
        .request(json!(3), "tools/call", json!({"name": "quick"}))
        .await;
    assert_eq!(text(&r), "quick");
}

#[tokio::test]
async fn eof_lets_a_waiting_request_finish_and_answer() {
    let (mut w, gate, _) = connected().await;
    w.send(&call(5, "gate")).await;
    let r = w.request(json!(6), "ping", json!({})).await;
    assert_eq!(r["result"], json!({}));
    w.close().await;
    gate.notify_one();
    let r = w.recv().await;
    assert_eq!((r["id"].as_i64(), text(&r)), (Some(5), "opened"));
}
