//! Runtime of the `mcp` framework: the server kernel, the middleware chain and the
//! transports.
//!
//! - [`Server`] / [`ServerBuilder`]: handler tables, capabilities, options.
//! - [`Context`]: what each message's middleware and handler see and can do.
//! - [`middleware`]: the [`Middleware`] trait, [`Next`], static chains and the boxed slot.
//! - [`transport`]: byte-stream framing (newline and `Content-Length`), stdio.

#![warn(missing_docs)]

pub use mcp_core as core;

pub mod client;
mod client_requests;
pub mod context;
mod dispatch;
pub mod elicit_schema;
pub mod error;
pub mod extensions;
pub mod filter;
pub mod handler;
pub mod hooks;
mod input_rounds;
pub mod interaction;
mod kernel;
pub mod middleware;
pub mod pagination;
mod panic;
pub mod parked_inputs;
pub mod peer;
pub mod prompt_def;
pub mod request_state;
pub mod resource_def;
pub mod server;
pub mod tool;
pub mod tool_def;
pub mod tool_result;
pub mod tracing_layer;
pub mod transport;

pub use context::{ClientView, Context, ProgressError};
pub use dispatch::{Dispatcher, ServerIdentity};
pub use error::{HandlerResult, McpError, Reply};
pub use extensions::Extensions;
pub use filter::{FilterAction, MessageFilter};
pub use handler::{Registry, ServerHandler};
pub use interaction::{Elicitation, InputResolver, InteractionError};
pub use kernel::ServerOptions;
pub use middleware::{Chain, Endpoint, Middleware, Next};
pub use peer::{Peer, PeerError};
pub use prompt_def::{IntoPromptResult, PromptDef};
pub use request_state::{RequestStateConfig, RequestStateKey};
pub use resource_def::{IntoReadResult, ResourceDef};
pub use server::{BuildError, Server, ServerBuilder};
pub use tool_def::ToolDef;
pub use tool_result::{IntoToolResult, Json, ToolError};
