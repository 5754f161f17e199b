//! Backpressure never blocks control (byte streams): with every in-flight slot taken, the
//! reader goes on reading, so a `notifications/cancelled` reaches the requests it cancels and
//! the client's answers reach the tools waiting for them; requests beyond the slots wait (in
//! order; one cancelled while waiting never runs), and past that bound are refused at once
//! instead of met with silence.

mod support;

use std::time::Duration;

use mcp::ServerOptions;
use mcp::prelude::*;
use serde_json::{Value, json};
use support::Wire;

/// A server with `slots` in-flight slots: `wait` runs until cancelled (or 30 s), `ask`
/// pings the client and answers once the client has answered.
fn server(slots: usize) -> mcp::Server {
    Server::builder("control", "1")
        .tool(Tool::new("wait"), |ctx: Context, _: Value| async move {
            tokio::select! {
                _ = ctx.cancellation().cancelled() => {}
                _ = tokio::time::sleep(Duration::from_secs(30)) => {}
            }
            Ok(CallToolResult::success(vec![ContentBlock::text("waited")]))
        })
        .tool(Tool::new("ask"), |ctx: Context, _: Value| async move {
            let pong = ctx.ping().await;
            Ok(CallToolResult::success(vec![ContentBlock::text(format!(
                "client answered: {}",
                pong.is_ok()
            ))]))
        })
        .options(ServerOptions {
            max_in_flight: slots,
            peer_request_timeout: Duration::from_secs(30),
            ..Default::default()
        })
        .build()
}

fn call(id: u64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": tool}})
}

#[tokio::test]
async fn cancellations_reach_requests_holding_every_slot() {
    let mut w = Wire::new(server(3).serve_in_memory());
    w.initialize("2025-11-25").await;
    for id in 1..=3 {
        w.send(&call(id, "wait")).await;
    }
    // Every slot is taken; the cancels and the ping behind them must still be read.
    for id in 1..=3 {
        w.notify("notifications/cancelled", json!({"requestId": id}))
            .await;
    }
    // `Wire::request` waits 5 s at most per message: the waits would take 30.
    let pong = w.request(json!(9), "ping", json!({})).await;
    assert_eq!(pong["result"], json!({}), "{pong}");
}

#[tokio::test]
async fn answers_reach_tools_that_wait_for_them_in_every_slot() {
    let mut w = Wire::new(server(2).serve_in_memory());
    w.initialize("2025-11-25").await;
    for id in 1..=2 {
        w.send(&call(id, "ask")).await;
    }
    // Both tools ping us and hold their slots until we answer; answer both.
    let mut answered = 0;
    let mut results = Vec::new();
    while results.len() < 2 {
        let m = w.recv().await;
        if m["method"] == "ping" {
            w.send(&json!({"jsonrpc": "2.0", "id": m["id"], "result": {}}))
                .await;
            answered += 1;
        } else {
            results.push(m);
        }
    }
    assert_eq!(answered, 2);
    for r in results {
        assert_eq!(
            r["result"]["content"][0]["text"], "client answered: true",
            "{r}"
        );
    }
}

#[tokio::test]
async fn requests_beyond_the_slots_wait_in_order_then_are_refused() {
    let mut w = Wire::new(server(1).serve_in_memory());
    w.initialize("2025-11-25").await;
    w.send(&call(1, "wait")).await; // takes the only slot
    w.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "ping"}))
        .await; // waits for the slot
    w.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await; // one too many: refused at once
    let refused = w.recv().await;
    assert_eq!(refused["id"], 3, "{refused}");
    assert_eq!(refused["error"]["code"], -32000, "{refused}");
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("busy"),
        "{refused}"
    );
    // Cancelling the holder frees the slot: the waiting ping is answered, then nothing else.
    w.notify("notifications/cancelled", json!({"requestId": 1}))
        .await;
    let pong = w.recv().await;
    assert_eq!(pong["id"], 2, "{pong}");
    assert_eq!(pong["result"], json!({}));
    w.expect_silence(200).await;
}

#[tokio::test]
async fn a_request_cancelled_while_waiting_never_runs_and_is_not_answered() {
    let mut w = Wire::new(server(1).serve_in_memory());
    w.initialize("2025-11-25").await;
    w.send(&call(1, "wait")).await; // takes the only slot
    w.send(&call(2, "wait")).await; // waits for it
    w.notify("notifications/cancelled", json!({"requestId": 2}))
        .await;
    w.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "ping"}))
        .await; // waits behind 1, not behind 2
    w.notify("notifications/cancelled", json!({"requestId": 1}))
        .await;
    // Had 2 stayed queued it would now hold the slot for 30 s, and the ping behind it.
    let pong = w.recv().await;
    assert_eq!(pong["id"], 3, "{pong}");
    assert_eq!(pong["result"], json!({}));
    w.expect_silence(200).await;
}
