//! Testing a server in process: the server is served over an in-memory pipe and driven by
//! `mcp::client::Client`, as a real client would drive it, with no port, process or sleep. The tests
//! are at the bottom of this file; they run with
//!
//! ```text
//! cargo test --example testing --features client
//! ```
//!
//! (`cargo test` runs them too: this example is declared with `test = true`.)

use mcp::ToolError;

/// Adds two integers.
#[mcp::tool(read_only)]
async fn add(a: i64, b: i64) -> Result<i64, ToolError> {
    a.checked_add(b)
        .ok_or_else(|| ToolError::new(format!("{a} + {b} does not fit in a 64-bit integer")))
}

#[mcp::server(name = "calculator", tools(add))]
struct Calculator;

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::io::Result<()> {
    Calculator.serve_stdio().await
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp::client::{ClientError, ConnectMode};
    use serde_json::json;

    /// A client connected to a fresh server, over an in-memory pipe.
    async fn client() -> mcp::client::Client {
        mcp::client::Client::connect(Calculator.into_server().serve_in_memory())
            .await
            .expect("the server answers the handshake")
    }

    #[tokio::test]
    async fn adds() {
        let r = client()
            .await
            .call_tool("add", json!({"a": 2, "b": 3}))
            .await
            .unwrap();
        assert_eq!(r.content[0].as_text(), Some("5"));
        assert_ne!(r.is_error, Some(true));
    }

    #[tokio::test]
    async fn an_overflow_is_a_tool_error_the_model_can_read() {
        let r = client()
            .await
            .call_tool("add", json!({"a": i64::MAX, "b": 1}))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true));
        assert!(r.content[0].as_text().unwrap().contains("does not fit"));
    }

    #[tokio::test]
    async fn a_bad_argument_names_the_argument_and_the_json_type() {
        let r = client()
            .await
            .call_tool("add", json!({"a": "two", "b": 3}))
            .await
            .unwrap();
        assert_eq!(r.is_error, Some(true));
        let text = r.content[0].as_text().unwrap();
        assert!(text.contains("\"a\"") && text.contains("integer"), "{text}");
    }

    #[tokio::test]
    async fn the_listing_is_what_clients_see_on_every_revision() {
        for version in ["2025-03-26", "2025-11-25", "2026-07-28"] {
            let mode = match version {
                "2026-07-28" => ConnectMode::Modern(version.parse().unwrap()),
                _ => ConnectMode::Legacy(version.parse().unwrap()),
            };
            let client = mcp::client::Client::builder()
                .mode(mode)
                .connect(Calculator.into_server().serve_in_memory())
                .await
                .unwrap();
            let tools = client.list_all_tools().await.unwrap();
            assert_eq!(tools.len(), 1, "{version}");
            let schema = serde_json::to_value(&tools[0].input_schema).unwrap();
            assert_eq!(schema["required"], json!(["a", "b"]), "{version}");
        }
    }

    #[tokio::test]
    async fn an_unknown_tool_is_a_protocol_error() {
        let e: ClientError = client()
            .await
            .call_tool("divide", json!({}))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Some(-32602));
    }
}
