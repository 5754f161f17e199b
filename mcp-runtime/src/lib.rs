//! Runtime of the `mcp` framework: the server kernel, the middleware chain and the
//! transports.
//!
//! - [`Server`] / [`ServerBuilder`]: handler tables, capabilities, options.
//! - [`Context`]: what each message's middleware and handler see and can do.
//! - [`middleware`]: the [`Middleware`](middleware::Middleware) trait,
//!   [`Next`](middleware::Next), chains composed at compile time, boxed middleware.
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
//! | `client` | `client`: the MCP client over streams, child processes, in memory |
//! | `proxy` | `proxy`: an upstream server served as if local, and a client of many servers (`proxy::ClientGroup`, `proxy::config`'s `mcpServers` file) (implies `client`) |
//! | `schema-validation` | `ServerBuilder::tool_with_schema` (`jsonschema`) |
//! | `jwt` | `transport::http::jwt`: JWT bearer tokens against a JWKS (implies `http`) |
//! | `oauth-signing` | `client::oauth::SigningKey`: `private_key_jwt`, DPoP (implies `http`, `client`) |
//! | `otel` | the OpenTelemetry MCP semantic conventions: server spans parented by `_meta.traceparent`, client spans that inject it, the four duration histograms (`telemetry::metrics`) |
//! | `redis` | `backends::redis`: the session, event and task stores, the replay guard, the event bus and the answer relay in Redis, shared by several processes |
//! | `full` | all of the above |

#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// The layers (their order and what each may import: ARCHITECTURE.md, checked by
// scripts/layers.py) are private; the face is chosen below, one path per item: the API a
// server is written with at the root, each specialised area in one module.
pub mod backends;
mod chain;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub mod client;
mod common;
mod context;
mod dispatch;
mod features;
mod handler;
#[cfg(feature = "openapi")]
pub mod openapi;
#[cfg(feature = "proxy")]
#[cfg_attr(docsrs, doc(cfg(feature = "proxy")))]
pub mod proxy;
mod server;
pub mod session;
pub mod transport;
mod wire;

// Areas: each module is the one home of its items.
pub use chain::{hooks, log_bridge, metrics, middleware, policies, tracing_layer, transform};
pub use common::{pagination, telemetry};
pub use dispatch::caching;
pub use features::{apps, skills, tasks};

// The root: what a server's code names.
pub use common::address::ClientAddress;
pub use common::error::{HandlerResult, McpError, Reply};
pub use common::extensions::Extensions;
pub use common::principal::Principal;
pub use context::elicit_schema::{FormSchemaError, form_schema};
pub use context::injected::{CancellationToken, Progress, Provides, State};
pub use context::interaction::{
    Ask, ElicitForm, ElicitUrl, Elicitation, FormAnswer, InputResolver, InteractionError, Query,
    RawForm, Roots, Sample,
};
pub use context::parked_inputs::ParkedInputs;
pub use context::peer::{Peer, PeerError};
pub use context::{Context, ProgressError};
pub use dispatch::Dispatcher;
pub use features::handle::{Changes, HandleError, ServerHandle};
pub use features::subscriptions::{DEFAULT_MAX_LISTENS, SUBSCRIPTION_ID_KEY};
pub use handler::completion::{CompletionDef, IntoCompletion, ResolvedArguments};
pub use handler::prompt_def::{IntoPromptResult, PromptDef};
pub use handler::resource_def::{IntoReadResult, ResourceDef};
#[cfg(feature = "schema-validation")]
#[cfg_attr(docsrs, doc(cfg(feature = "schema-validation")))]
pub use handler::schema_check::SchemaChecked;
pub use handler::tool_def::{ToolDef, is_valid_tool_name};
pub use handler::tool_result::{IntoToolResult, Json, ToolError};
pub use handler::{
    CacheTarget, Declarations, Overlay, Registry, ServerHandler, portability_problems,
};
pub use server::stream::ServerOptions;
pub use server::{BuildError, Composed, MaybeTraced, MountOptions, Server, ServerBuilder};
pub use wire::filter::{FilterAction, Filters, MessageFilter};

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
