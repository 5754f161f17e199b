//! `examples/everything.rs` in process: its tools answer bad input with tool errors, never a
//! panic.

mod support;

#[path = "../../examples/everything.rs"]
#[allow(dead_code)]
mod everything;

use mcp::version::SupportedVersions;
use serde_json::json;
use support::Wire;

#[tokio::test]
async fn add_reports_an_overflow_as_a_tool_error() {
    let server = everything::server(
        SupportedVersions::all(),
        mcp::session::request_state::RequestStateConfig::default(),
    );
    let mut wire = Wire::new(server.serve_in_memory());
    wire.initialize("2025-11-25").await;
    // Its listing is the plain text tool it was: no output schema.
    let list = wire.request(json!(0), "tools/list", json!({})).await;
    let add = list["result"]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "add")
        .unwrap();
    assert!(add.get("outputSchema").is_none(), "{add}");
    for (id, (a, b)) in [(i64::MAX, 1), (i64::MIN, -1)].into_iter().enumerate() {
        let r = wire
            .request(
                json!(id + 1),
                "tools/call",
                json!({"name": "add", "arguments": {"a": a, "b": b}}),
            )
            .await;
        assert_eq!(r["result"]["isError"], true, "{r}");
        let text = r["result"]["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("overflows"), "{text}");
    }
    // The server is still there, and a sum in range is a plain result.
    let r = wire
        .request(
            json!(9),
            "tools/call",
            json!({"name": "add", "arguments": {"a": i64::MAX - 1, "b": 1}}),
        )
        .await;
    assert_eq!(
        r["result"]["content"][0]["text"],
        i64::MAX.to_string(),
        "{r}"
    );
    assert!(r["result"].get("isError").is_none(), "{r}");
}
