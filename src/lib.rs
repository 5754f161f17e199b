//! `mcp`: a framework for building Model Context Protocol servers and clients.
//!
//! This crate is the facade users depend on; it only re-exports the workspace crates.
//!
//! # Features
//!
//! With no features, `mcp` is a server over stdio, any byte stream or an in-memory pipe, with
//! the macros, every handler kind, tasks, multi-round input, subscriptions, skills and the
//! log bridge: what most servers need, and quick to compile. Opt in to the rest:
//!
//! | feature | gives |
//! | --- | --- |
//! | `http` | the HTTP transports (`runtime::transport::http`: Streamable HTTP for both eras, HTTP+SSE, bearer auth); with `client`, the client's HTTP transports and OAuth |
//! | `client` | `Client` and `runtime::client` (streams, child processes, in memory) |
//! | `schema-validation` | `ServerBuilder::tool_with_schema`: a hand-written JSON Schema enforced with `jsonschema` |
//! | `jwt` | JWT bearer tokens checked against a JWKS (implies `http`) |
//! | `oauth-signing` | the OAuth client's `private_key_jwt` and DPoP (implies `http`, `client`) |
//! | `otel` | the tracing layer links spans to `_meta.traceparent` through OpenTelemetry |
//! | `full` | all of the above |
//!
//! ```
//! use mcp::prelude::*;
//!
//! let v: ProtocolVersion = "2025-06-18".parse().unwrap();
//! assert_eq!(v.era(), Era::Legacy);
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

pub use mcp_core as core;
pub use mcp_core::{codec, headers, jsonrpc, meta, types, version};
pub use mcp_macros::{completion, middleware, prompt, resource, server, tool};
pub use mcp_runtime as runtime;
pub use mcp_runtime::CancellationToken;
#[cfg(feature = "client")]
pub use mcp_runtime::client::Client;
pub use mcp_runtime::{
    BuildError, ClientView, Context, Extensions, FilterAction, HandlerResult, McpError,
    MessageFilter, Middleware, Next, Peer, PeerError, Reply, Server, ServerBuilder, ServerHandler,
    ServerOptions, middleware, tool,
};
pub use mcp_runtime::{
    CompletionDef, Elicitation, InputResolver, InteractionError, IntoCompletion, Progress,
    Provides, RequestStateConfig, RequestStateKey, ResolvedArguments, State,
};
pub use mcp_runtime::{IntoPromptResult, IntoReadResult, PromptDef, ResourceDef};
pub use mcp_runtime::{IntoToolResult, Json, ToolDef, ToolError};

/// `tracing` events inside a handler sent to that request's client as log messages (see
/// [`mcp_runtime::log_bridge`]).
pub mod logging {
    pub use mcp_runtime::log_bridge::{ClientLogLayer, in_request};
}

#[doc(hidden)]
pub mod __private {
    //! What the macros' generated code names; not a public API.
    pub use mcp_core::types::{
        CallToolResult, CompleteParams, Completion, GetPromptResult, Icon, Meta, Prompt,
        PromptArgument, ReadResourceResult, Resource, ResourceTemplate, TaskSupport, Tool,
        ToolAnnotations, ToolExecution,
    };
    pub use mcp_runtime::completion::{
        CompletionDef, IntoCompletion, RefKind, ResolvedArguments, has_template,
        prompt_has_argument, split_params, target,
    };
    pub use mcp_runtime::injected::{Progress, Provides, State};
    pub use mcp_runtime::middleware::{Endpoint, Next};
    pub use mcp_runtime::prompt_def::{IntoPromptResult, PromptDef, optional_arg, required_arg};
    pub use mcp_runtime::resource_def::{IntoReadResult, ResourceDef, match_template, parse_var};
    pub use mcp_runtime::tool::decode_arguments;
    pub use mcp_runtime::tool_def::{ToolDef, ToolInfo, assert_tool_arg, meta_value, name_taken};
    pub use mcp_runtime::{Context, HandlerResult, McpError, Middleware, Server, ServerHandler};
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use serde_json::value::RawValue;
    pub use std::collections::HashMap;
    pub use std::sync::OnceLock;
    pub use tokio::io::{AsyncRead, AsyncWrite, split};
}

/// The names most users need, in one `use`.
pub mod prelude {
    pub use mcp_core::jsonrpc::{ErrorObject, RequestId};
    pub use mcp_core::types::{
        CallToolResult, ContentBlock, GetPromptResult, PromptMessage, ReadResourceResult, Tool,
    };
    pub use mcp_core::version::{Era, ProtocolVersion};
    pub use mcp_macros::{completion, middleware, prompt, resource, server, tool};
    pub use mcp_runtime::CancellationToken;
    pub use mcp_runtime::middleware::Endpoint;
    pub use mcp_runtime::{Context, HandlerResult, McpError, Middleware, Next, Server};
    pub use mcp_runtime::{Elicitation, IntoToolResult, Json, ToolError};
    pub use mcp_runtime::{Progress, ResolvedArguments, State};
}
