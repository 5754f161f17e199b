//! Every `ServerHandler` method written as the facade's rustdoc shows it (lifetimes and
//! all), so a signature copied from the documentation compiles.

use std::collections::HashMap;
use std::future::Future;

use mcp::types::{
    CallToolResult, CompleteParams, Completion, GetPromptResult, Prompt, ReadResourceResult,
    Resource, ResourceTemplate, Tool,
};
use mcp::Declarations;
use mcp::{Context, McpError, ServerHandler};
use serde_json::value::RawValue;

struct Table {
    tools: Vec<Tool>,
}

impl ServerHandler for Table {
    fn tools(&self) -> &[Tool] {
        &self.tools
    }
    fn call_tool<'a>(
        &'a self,
        name: &str,
        ctx: Context,
        arguments: Option<Box<RawValue>>,
    ) -> Option<impl Future<Output = Result<CallToolResult, McpError>> + Send + 'a> {
        let _ = (ctx, arguments);
        let known = self.tools.iter().any(|t| t.name == name);
        known.then(|| async move { Ok(CallToolResult::default()) })
    }
    fn prompts(&self) -> &[Prompt] {
        &[]
    }
    fn get_prompt<'a>(
        &'a self,
        name: &str,
        ctx: Context,
        arguments: HashMap<String, String>,
    ) -> Option<impl Future<Output = Result<GetPromptResult, McpError>> + Send + 'a> {
        let _ = (name, ctx, arguments);
        None::<std::future::Ready<Result<GetPromptResult, McpError>>>
    }
    fn resources(&self) -> &[Resource] {
        &[]
    }
    fn resource_templates(&self) -> &[ResourceTemplate] {
        &[]
    }
    fn read_resource<'a>(
        &'a self,
        uri: &str,
        ctx: Context,
    ) -> Option<impl Future<Output = Result<ReadResourceResult, McpError>> + Send + 'a> {
        let _ = (uri, ctx);
        None::<std::future::Ready<Result<ReadResourceResult, McpError>>>
    }
    fn has_completions(&self) -> bool {
        false
    }
    fn complete<'a>(
        &'a self,
        ctx: Context,
        params: CompleteParams,
    ) -> Option<impl Future<Output = Result<Completion, McpError>> + Send + 'a> {
        let _ = (ctx, params);
        None::<std::future::Ready<Result<Completion, McpError>>>
    }
    fn list_generation(&self) -> u64 {
        0
    }
    fn declare(&self, server: &mut dyn Declarations) {
        server.instructions("A table written by hand.");
    }
}

fn main() {
    let _server = mcp::Server::builder("hand", "1.0.0")
        .handler(Table { tools: vec![Tool::new("t")] })
        .build();
}
