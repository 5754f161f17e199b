//! Parameters injected by type into `#[mcp::tool]` functions (`State<T>`, `CancellationToken`,
//! `Progress`, beside `Context`): none is part of the input schema, each gets the runtime's
//! value. Also `serve(transport)` on a generated server.

mod support;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use mcp::Provides;
use mcp::prelude::*;
use serde_json::{Value, json};
use support::Wire;

struct Prices(Vec<u32>);

/// A server with state: tools borrow it whole (`State<Shop>`) or in part (`State<Prices>`).
#[mcp::server(name = "stateful", tools(shop_name, total, slow, watch))]
struct Shop {
    name: String,
    prices: Prices,
}

impl Provides<Prices> for Shop {
    fn provide(&self) -> &Prices {
        &self.prices
    }
}

/// The shop's name.
#[mcp::tool]
async fn shop_name(state: State<'_, Shop>) -> String {
    state.name.clone()
}

/// The sum of the first `n` prices.
#[mcp::tool]
async fn total(n: usize, prices: State<Prices>, ctx: &Context) -> String {
    let _ = ctx.method();
    prices.0.iter().take(n).sum::<u32>().to_string()
}

/// Works in `steps` steps, reporting each.
#[mcp::tool]
async fn slow(steps: u32, progress: Progress, token: &CancellationToken) -> String {
    for i in 1..=steps {
        if token.is_cancelled() {
            return "cancelled".into();
        }
        progress
            .report(f64::from(i), Some(f64::from(steps)), Some("step"))
            .await
            .unwrap();
    }
    format!("done (progress requested: {})", progress.is_requested())
}

static SAW_CANCEL: AtomicBool = AtomicBool::new(false);

/// Waits until the request is cancelled.
#[mcp::tool]
async fn watch(token: CancellationToken) -> String {
    tokio::select! {
        _ = token.cancelled() => SAW_CANCEL.store(true, Ordering::SeqCst),
        _ = tokio::time::sleep(Duration::from_secs(5)) => {}
    }
    "finished".into()
}

fn shop() -> Shop {
    Shop {
        name: "Corner Books".into(),
        prices: Prices(vec![5, 7, 11]),
    }
}

async fn call(wire: &mut Wire, id: i64, name: &str, args: Value) -> Value {
    let r = wire
        .request(
            json!(id),
            "tools/call",
            json!({"name": name, "arguments": args}),
        )
        .await;
    r["result"]["content"][0]["text"].clone()
}

#[tokio::test]
async fn injected_parameters_are_not_in_the_schema() {
    let mut wire = Wire::new(shop().into_server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    let list = wire.request(json!(1), "tools/list", json!({})).await;
    let schemas: Vec<&Value> = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| &t["inputSchema"])
        .collect();
    assert_eq!(*schemas[0], json!({"type": "object"}));
    assert_eq!(
        *schemas[1],
        json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}},
               "required": ["n"]})
    );
    assert_eq!(
        schemas[2]["properties"]
            .as_object()
            .unwrap()
            .keys()
            .collect::<Vec<_>>(),
        ["steps"]
    );
    assert_eq!(*schemas[3], json!({"type": "object"}));
}

#[tokio::test]
async fn state_is_borrowed_from_the_server() {
    let mut wire = Wire::new(shop().into_server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    assert_eq!(
        call(&mut wire, 1, "shop_name", json!({})).await,
        "Corner Books"
    );
    assert_eq!(call(&mut wire, 2, "total", json!({"n": 2})).await, "12");
    assert_eq!(call(&mut wire, 3, "total", json!({"n": 9})).await, "23");
}

#[tokio::test]
async fn progress_reports_reach_the_client() {
    let mut wire = Wire::new(shop().into_server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    wire.send(
        &json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
        "name": "slow", "arguments": {"steps": 2}, "_meta": {"progressToken": "p-1"}}}),
    )
    .await;
    let mut seen = Vec::new();
    let result = loop {
        let v = wire.recv().await;
        if v["method"] == "notifications/progress" {
            seen.push(v["params"].clone());
        } else {
            break v;
        }
    };
    assert_eq!(
        seen,
        [
            json!({"progressToken": "p-1", "progress": 1.0, "total": 2.0, "message": "step"}),
            json!({"progressToken": "p-1", "progress": 2.0, "total": 2.0, "message": "step"}),
        ]
    );
    assert_eq!(
        result["result"]["content"][0]["text"],
        "done (progress requested: true)"
    );
    // Without a token, reporting sends nothing.
    let text = call(&mut wire, 8, "slow", json!({"steps": 3})).await;
    assert_eq!(text, "done (progress requested: false)");
}

#[tokio::test]
async fn the_cancellation_token_is_the_requests() {
    let mut wire = Wire::new(shop().into_server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    wire.send(&json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
                      "params": {"name": "watch", "arguments": {}}}))
        .await;
    tokio::time::sleep(Duration::from_millis(50)).await;
    wire.notify(
        "notifications/cancelled",
        json!({"requestId": 9, "reason": "test"}),
    )
    .await;
    // A cancelled request is not answered; the tool saw the cancellation.
    wire.expect_silence(300).await;
    assert!(SAW_CANCEL.load(Ordering::SeqCst));
}

#[tokio::test]
async fn serve_over_any_byte_stream() {
    let (client, server) = tokio::io::duplex(1 << 16);
    let task = tokio::spawn(shop().serve(server));
    let mut wire = Wire::new(client);
    wire.initialize("2025-06-18").await;
    assert_eq!(call(&mut wire, 1, "total", json!({"n": 1})).await, "5");
    wire.close().await;
    tokio::time::timeout(Duration::from_secs(5), task)
        .await
        .expect("serve ends at EOF")
        .unwrap()
        .unwrap();
}

/// Injected types are recognised by their path: another module's `Context` is a plain
/// argument, in the schema beside the real context, which is not.
mod foreign {
    pub mod other {
        #[derive(serde::Deserialize, schemars::JsonSchema)]
        pub struct Context {
            pub id: u32,
        }
    }

    #[mcp::tool]
    pub async fn look(ctx: other::Context, real: &mcp::Context) -> String {
        let _ = real;
        ctx.id.to_string()
    }
}

#[test]
fn a_foreign_context_is_an_argument() {
    let info = <foreign::look as mcp::ToolDef<()>>::info();
    let schema = serde_json::to_value(&info.tool.input_schema).unwrap();
    let properties = schema["properties"].as_object().unwrap();
    assert_eq!(
        properties.keys().collect::<Vec<_>>(),
        ["ctx"],
        "only the foreign type is an argument: {schema}"
    );
}
