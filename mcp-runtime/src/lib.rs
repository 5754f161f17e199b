//! Runtime of the `mcp` framework: the server kernel, the middleware chain and the
//! transports.
//!
//! - [`Server`] / [`ServerBuilder`]: handler tables, capabilities, options.
//! - [`Context`]: what each message's middleware and handler see and can do.
//! - [`middleware`]: the [`Middleware`] trait, [`Next`], static chains and the boxed slot.
//! - [`transport`]: byte-stream framing (newline and `Content-Length`), stdio.
//! - [`tasks`]: tool calls run in the background (2025-11-25 core tasks, 2026 extension).
//!
//! # Features
//!
//! The default build is a stdio / byte-stream / in-memory server with every handler kind,
//! tasks, multi-round input, subscriptions, skills and the log bridge. Opt in to more:
//!
//! | feature | gives |
//! | --- | --- |
//! | `http` | `transport::http`: Streamable HTTP (both eras), HTTP+SSE, bearer auth; with `client`, the client's HTTP transports and `client::oauth` |
//! | `client` | `client`: the MCP client over streams, child processes, in memory; `proxy`: an upstream server served as if local |
//! | `schema-validation` | `ServerBuilder::tool_with_schema` (`jsonschema`) |
//! | `jwt` | `transport::http::jwt`: JWT bearer tokens against a JWKS (implies `http`) |
//! | `oauth-signing` | `client::oauth::SigningKey`: `private_key_jwt`, DPoP (implies `http`, `client`) |
//! | `otel` | the OpenTelemetry MCP semantic conventions: server spans parented by `_meta.traceparent`, client spans that inject it, the four duration histograms (`telemetry::metrics`) |
//! | `redis` | `backends::redis`: the session, event and task stores, the replay guard, the event bus and the answer relay in Redis, shared by several processes |
//! | `full` | all of the above |

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

pub use mcp_core as core;

// The layers (their order and what each may import: ARCHITECTURE.md, checked by
// scripts/layers.py).
pub mod backends;
mod chain;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
mod common;
pub mod context;
mod dispatch;
mod features;
pub mod handler;
#[cfg(feature = "openapi")]
pub mod openapi;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod proxy;
pub mod server;
pub mod session;
pub mod transport;
mod wire;

// The public module paths of before the layers.
pub use chain::{hooks, log_bridge, metrics, middleware, policies, tracing_layer, transform};
pub use common::{error, extensions, pagination, telemetry};
pub use context::{elicit_schema, injected, interaction, parked_inputs, peer};
pub use dispatch::caching;
pub use features::{apps, handle, skills, subscriptions, tasks};
#[cfg(feature = "schema-validation")]
#[cfg_attr(docsrs, doc(cfg(feature = "schema-validation")))]
pub use handler::schema_check;
pub use handler::{completion, prompt_def, resource_def, tool, tool_def, tool_result};
pub use session::request_state;
pub use wire::filter;

pub use caching::{CacheHint, CachePolicy};
pub use common::BoxFuture;
pub use common::address::ClientAddress;
pub use common::principal::Principal;
pub use completion::{CompletionDef, IntoCompletion, ResolvedArguments};
pub use context::{ClientView, Context, ProgressError};
pub use dispatch::Dispatcher;
pub use error::{HandlerResult, McpError, Reply};
pub use extensions::Extensions;
pub use filter::{FilterAction, MessageFilter};
pub use handle::{Changes, HandleError, ServerHandle};
pub use handler::{CacheTarget, Declarations, Overlay, Registry, ServerHandler};
pub use injected::{CancellationToken, Progress, Provides, State};
pub use interaction::{Elicitation, InputResolver, InteractionError};
pub use middleware::{Chain, Endpoint, Middleware, Next};
pub use peer::{Peer, PeerError};
pub use prompt_def::{IntoPromptResult, PromptDef};
pub use request_state::{InMemoryReplayGuard, ReplayGuard, RequestStateConfig, RequestStateKey};
pub use resource_def::{IntoReadResult, ResourceDef};
pub use server::stream::ServerOptions;
pub use server::{BuildError, MountOptions, Server, ServerBuilder};
pub use session::ServerIdentity;
pub use subscriptions::{InMemoryBus, ServerEvent, SubscriptionBus};
pub use tool_def::ToolDef;
pub use tool_result::{IntoToolResult, Json, ToolError};

/// What the macros' generated code (through the `mcp` facade's own `__private`) calls in
/// the runtime, in one place; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use crate::handler::completion::{
        CompletionDef, IntoCompletion, RefKind, ResolvedArguments, has_template,
        prompt_has_argument, split_params, target,
    };
    pub use crate::handler::prompt_def::{IntoPromptResult, PromptDef, optional_arg, required_arg};
    pub use crate::handler::resource_def::{
        IntoReadResult, ResourceDef, match_template, parse_var,
    };
    pub use crate::handler::tool::decode_arguments;
    pub use crate::handler::tool_def::{ToolDef, ToolInfo, meta_value, name_taken};
}
