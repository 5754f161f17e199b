//! `mcp`: a framework for building Model Context Protocol servers and clients.
//!
//! This crate is the facade users depend on; it re-exports the workspace crates and holds
//! the [`guide`]: start with [`guide::macros`], then as needed [`guide::errors`],
//! [`guide::middleware`], [`guide::eras`] (the protocol's revisions),
//! [`guide::transports`], [`guide::auth`], [`guide::client`], [`guide::testing`] and
//! [`guide::tracing`].
//!
//! # Where things are
//!
//! Each public item has one path (`scripts/public_paths.py` checks it in CI); the
//! [`prelude`] repeats the common ones for a glob import.
//!
//! | path | holds |
//! | --- | --- |
//! | `mcp::` | the macros, and what a server's code names: [`Server`], [`ServerBuilder`], [`Context`], [`McpError`], [`Middleware`], [`Next`], [`BoxFuture`], the handler traits and injected parameters |
//! | [`types`], [`jsonrpc`], [`version`], [`meta`], [`codec`], [`headers`] | the protocol: every entity of every revision, JSON-RPC, revisions and eras |
//! | [`middleware`](mod@middleware) | static chains, boxed middleware, closures as middleware; ready-made layers in [`policies`], [`transform`], [`hooks`], [`tracing_layer`] |
//! | [`transport`] | `stdio`, `framing`, and with `http` `transport::http` (Streamable HTTP, HTTP+SSE, auth, `LoopbackHttp` for tests) |
//! | [`session`] | session, event and subscription stores, the answer relay, `request_state` |
//! | [`tasks`], [`skills`], [`apps`], [`caching`], [`pagination`], [`telemetry`], [`logging`] | one feature each |
//! | `client`, `proxy`, `openapi`, [`backends`] | the client (feature `client`), a proxied upstream (feature `proxy`), an OpenAPI document as tools, the Redis backends |
//!
//! # Features
//!
//! With no features, `mcp` is a server over stdio, any byte stream or an in-memory pipe, with
//! the macros, every handler kind, tasks, multi-round input, subscriptions, skills and the
//! log bridge: what most servers need, and quick to compile. Opt in to the rest:
//!
//! | feature | gives |
//! | --- | --- |
//! | `http` | the HTTP transports (`mcp::transport::http`: Streamable HTTP for both eras, HTTP+SSE, bearer auth); with `client`, the client's HTTP transports and OAuth |
//! | `client` | `mcp::client` (`Client`) (streams, child processes, in memory) |
//! | `proxy` | `mcp::proxy`: an upstream server served as if local (`Proxy`: a child process; with `http`, a URL), a client of many servers (`ClientGroup`), the `mcpServers` file (implies `client`) |
//! | `schema-validation` | `ServerBuilder::tool_with_schema`: a hand-written JSON Schema enforced with `jsonschema` |
//! | `jwt` | JWT bearer tokens checked against a JWKS (implies `http`) |
//! | `oauth-signing` | the OAuth client's `private_key_jwt` and DPoP (implies `http`, `client`) |
//! | `otel` | the OpenTelemetry MCP semantic conventions: server spans parented by `_meta.traceparent`, client spans that inject it, the four duration histograms (`mcp::telemetry::metrics`) |
//! | `tls` | the client over `https://`: rustls with the platform's trust store, `mcp::client::TlsConfig` for private CAs (implies `http`, `client`) |
//! | `tls-webpki-roots` | Mozilla's root certificates compiled in (`TlsConfig::webpki_roots`) |
//! | `redis` | Redis backends for the session store, the event store, the replay guard and the task store, and a subscription bus and an answer relay over Redis pub/sub (`mcp::backends::redis`), so several processes serve one deployment |
//! | `full` | all of the above |
//!
//! ```
//! use mcp::prelude::*;
//!
//! let v: ProtocolVersion = "2025-06-18".parse().unwrap();
//! assert_eq!(v.era(), Era::Legacy);
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]

pub mod guide;

// The README's examples are doctests too, so the quickstart compiles as written, and
// without a warning: `deny(warnings)` (which also drops rustdoc's `allow(unused)`) makes
// one a failure, as it is in a user's crate built with `-D warnings`.
#[cfg(doctest)]
#[doc(test(attr(deny(warnings))))]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

// The macros' pages (keys and an example each) are written in `mcp-macros/docs`; that crate
// cannot run their examples (it does not depend on this one), so they are doctests here.
#[cfg(doctest)]
#[doc = include_str!("../mcp-macros/docs/tool.md")]
struct ToolDoctests;
#[cfg(doctest)]
#[doc = include_str!("../mcp-macros/docs/prompt.md")]
struct PromptDoctests;
#[cfg(doctest)]
#[doc = include_str!("../mcp-macros/docs/resource.md")]
struct ResourceDoctests;
#[cfg(doctest)]
#[doc = include_str!("../mcp-macros/docs/completion.md")]
struct CompletionDoctests;
#[cfg(doctest)]
#[doc = include_str!("../mcp-macros/docs/middleware.md")]
struct MiddlewareDoctests;
#[cfg(doctest)]
#[doc = include_str!("../mcp-macros/docs/server.md")]
struct ServerDoctests;

// The face: one path per item (scripts/public_paths.py checks it), laid out in the crate
// docs' "Where things are".
pub use mcp_core::{codec, headers, jsonrpc, meta, types, version};
pub use mcp_macros::{completion, middleware, prompt, resource, server, tool};
#[cfg(feature = "schema-validation")]
#[cfg_attr(docsrs, doc(cfg(feature = "schema-validation")))]
pub use mcp_runtime::SchemaChecked;
#[cfg(feature = "client")]
#[cfg_attr(docsrs, doc(cfg(feature = "client")))]
pub use mcp_runtime::client;
pub use mcp_runtime::middleware::{BoxFuture, Middleware, Next};
#[cfg(feature = "openapi")]
#[cfg_attr(docsrs, doc(cfg(feature = "openapi")))]
pub use mcp_runtime::openapi;
#[cfg(feature = "proxy")]
#[cfg_attr(docsrs, doc(cfg(feature = "proxy")))]
pub use mcp_runtime::proxy;
pub use mcp_runtime::{
    Ask, BuildError, CacheTarget, CancellationToken, Changes, ClientAddress, CompletionDef,
    Composed, Context, Declarations, Dispatcher, ElicitForm, ElicitUrl, Elicitation, Extensions,
    FilterAction, Filters, FormAnswer, FormSchemaError, HandleError, HandlerResult, InputResolver,
    InteractionError, IntoCompletion, IntoPromptResult, IntoReadResult, IntoToolResult, Json,
    MaybeTraced, McpError, MessageFilter, MountOptions, Overlay, ParkedInputs, Peer, PeerError,
    Principal, Progress, ProgressError, PromptDef, Provides, Query, RawForm, Registry, Reply,
    ResolvedArguments, ResourceDef, Roots, Sample, Server, ServerBuilder, ServerHandle,
    ServerHandler, ServerOptions, State, ToolDef, ToolError, form_schema, portability_problems,
};
pub use mcp_runtime::{
    apps, backends, caching, hooks, metrics, pagination, policies, session, skills, tasks,
    telemetry, tracing_layer, transform, transport,
};

/// The plumbing under [`Middleware`]: static chains ([`Chain`](middleware::Chain), what
/// `ServerBuilder::middleware` builds), boxed middleware
/// ([`DynMiddleware`](middleware::DynMiddleware)), closures as middleware
/// ([`from_fn`](middleware::from_fn)). The attribute `#[mcp::middleware]` shares the name
/// (macros live in a namespace of their own).
pub mod middleware {
    pub use mcp_runtime::middleware::{
        Chain, DynEndpoint, DynMiddleware, Endpoint, FnMiddleware, Layered, Named, Then, from_fn,
    };
}

/// `tracing` events inside a handler sent to that request's client as log messages (see
/// [`mcp_runtime::log_bridge`]).
pub mod logging {
    pub use mcp_runtime::log_bridge::{ClientLogLayer, in_request};
}

#[doc(hidden)]
pub mod __private {
    //! What the macros' generated code names; not a public API.
    pub use mcp_core::types::CacheScope;
    pub use mcp_core::types::{
        CallToolResult, CompleteParams, Completion, GetPromptResult, Icon, Meta, Prompt,
        PromptArgument, ReadResourceResult, Resource, ResourceTemplate, TaskSupport, Tool,
        ToolAnnotations, ToolExecution, UiToolMeta, UiVisibility, set_tags,
    };
    pub use mcp_core::version::ProtocolVersion;
    pub use mcp_runtime::__private::*;
    pub use mcp_runtime::middleware::{DynMiddleware, Endpoint, Middleware, Next, Then};
    pub use mcp_runtime::{
        CacheTarget, Context, Declarations, HandlerResult, McpError, Progress, Provides, Server,
        ServerHandler, State,
    };
    pub use schemars;
    pub use serde;
    pub use serde_json;
    pub use serde_json::value::RawValue;
    pub use std::collections::HashMap;
    pub use std::sync::Arc;
    pub use std::sync::OnceLock;
    pub use tokio::io::{AsyncRead, AsyncWrite, split};

    // Helper traits for the bounds generated code states about the user's types. Each has
    // a message of its own and one blanket impl marked `do_not_recommend`, so an unmet bound
    // is reported as the helper's message, without rustc's list of the underlying trait's
    // implementors: that list depends on the crates loaded (so on the enabled features),
    // and it says nothing a user needs.

    /// `ServerHandler::declare` boxes each listed middleware through this probe: a type that
    /// is a [`Middleware`] gives its layer (`IsALayer`, found first through the extra
    /// reference), anything else nothing (`NotALayer`), so a listed path that is not a
    /// middleware is reported once, by the bound on `into_server()`, not again here.
    pub struct LayerProbe<M>(pub ::core::marker::PhantomData<M>);

    /// See [`LayerProbe`].
    pub trait IsALayer<M> {
        /// The boxed layer.
        fn boxed_layer(&self, m: M) -> Option<Arc<dyn DynMiddleware>>;
    }

    impl<M: Middleware> IsALayer<M> for &LayerProbe<M> {
        fn boxed_layer(&self, m: M) -> Option<Arc<dyn DynMiddleware>> {
            Some(Arc::new(m))
        }
    }

    /// See [`LayerProbe`].
    pub trait NotALayer<M> {
        /// Nothing: not a middleware.
        fn boxed_layer(&self, m: M) -> Option<Arc<dyn DynMiddleware>> {
            let _ = m;
            None
        }
    }

    impl<M> NotALayer<M> for LayerProbe<M> {}

    /// Implemented by every type a tool parameter can have: decodable and describable.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be a tool parameter",
        label = "this parameter type must implement `Deserialize` and `JsonSchema`",
        note = "derive both on your type: `#[derive(serde::Deserialize, schemars::JsonSchema)]`",
        note = "injected parameters are recognised by type, and are not arguments: `&Context` or \
                `Context`, `State<'_, T>`, `CancellationToken`, `&Progress` or `Progress`"
    )]
    pub trait ToolArg: serde::de::DeserializeOwned + schemars::JsonSchema {}

    #[diagnostic::do_not_recommend]
    impl<T: serde::de::DeserializeOwned + schemars::JsonSchema> ToolArg for T {}

    /// Compile-time check that `T` can be a tool parameter (spanned at the parameter's type):
    /// the one place a parameter type meets the [`ToolArg`] bound. Everything else the
    /// generated code does with the type goes through [`ArgProbe`], which never fails to
    /// compile, so a type that cannot be a parameter is one error, here.
    pub const fn assert_tool_arg<T: ToolArg>() {}

    /// A field of a tool's generated arguments struct, described by a marker type `F` the
    /// macro generates per parameter: decoded, described and (for defaults) encoded exactly
    /// as `F::Ty`, the parameter's type.
    pub struct Arg<F: ArgField>(pub F::Ty);

    /// What the macro generates per tool parameter: its type, and how to decode and describe
    /// it (through [`ArgProbe`]).
    pub trait ArgField {
        /// The parameter's type.
        type Ty;
        /// Decodes the parameter.
        fn deserialize<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Self::Ty, D::Error>;
        /// Describes the parameter.
        fn schema() -> ArgSchema;
    }

    /// The `JsonSchema` functions of a parameter's type.
    #[derive(Clone, Copy)]
    pub struct ArgSchema {
        inline: fn() -> bool,
        name: fn() -> std::borrow::Cow<'static, str>,
        id: fn() -> std::borrow::Cow<'static, str>,
        json: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
        non_optional: fn(&mut schemars::SchemaGenerator) -> schemars::Schema,
        is_option: fn() -> bool,
    }

    impl ArgSchema {
        fn of<T: schemars::JsonSchema>() -> Self {
            ArgSchema {
                inline: T::inline_schema,
                name: T::schema_name,
                id: T::schema_id,
                json: T::json_schema,
                non_optional: T::_schemars_private_non_optional_json_schema,
                is_option: T::_schemars_private_is_option,
            }
        }
    }

    impl<'de, F: ArgField> serde::Deserialize<'de> for Arg<F> {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            F::deserialize(d).map(Arg)
        }
    }

    impl<F: ArgField> serde::Serialize for Arg<F>
    where
        F::Ty: serde::Serialize,
    {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            self.0.serialize(s)
        }
    }

    impl<F: ArgField> schemars::JsonSchema for Arg<F> {
        fn inline_schema() -> bool {
            (F::schema().inline)()
        }
        fn schema_name() -> std::borrow::Cow<'static, str> {
            (F::schema().name)()
        }
        fn schema_id() -> std::borrow::Cow<'static, str> {
            (F::schema().id)()
        }
        fn json_schema(g: &mut schemars::SchemaGenerator) -> schemars::Schema {
            (F::schema().json)(g)
        }
        fn _schemars_private_non_optional_json_schema(
            g: &mut schemars::SchemaGenerator,
        ) -> schemars::Schema {
            (F::schema().non_optional)(g)
        }
        fn _schemars_private_is_option() -> bool {
            (F::schema().is_option)()
        }
    }

    /// Chooses, at a generated use of the concrete parameter type `T`, the real decoder and
    /// schema when `T: ToolArg` ([`ToolArgProbe`], found first) and a stand-in that is never
    /// run otherwise ([`NotToolArgProbe`], found through one more auto-reference), so the
    /// uses add no errors to the one [`assert_tool_arg`] reports.
    pub struct ArgProbe<T>(std::marker::PhantomData<T>);

    // Named only by generated code, which calls `new`.
    #[allow(clippy::new_without_default)]
    impl<T> ArgProbe<T> {
        /// The probe for `T`.
        pub const fn new() -> Self {
            ArgProbe(std::marker::PhantomData)
        }
    }

    /// [`ArgProbe`]'s methods when `T` can be a parameter.
    pub trait ToolArgProbe<T> {
        /// Decodes `T`.
        fn deserialize<'de, D: serde::Deserializer<'de>>(&self, d: D) -> Result<T, D::Error>;
        /// `T`'s schema functions.
        fn schema(&self) -> ArgSchema;
    }

    impl<T: ToolArg> ToolArgProbe<T> for ArgProbe<T> {
        fn deserialize<'de, D: serde::Deserializer<'de>>(&self, d: D) -> Result<T, D::Error> {
            T::deserialize(d)
        }
        fn schema(&self) -> ArgSchema {
            ArgSchema::of::<T>()
        }
    }

    /// [`ArgProbe`]'s methods when `T` cannot be a parameter: never run, since the
    /// parameter's [`assert_tool_arg`] stops the build.
    pub trait NotToolArgProbe<T> {
        /// Never runs.
        fn deserialize<'de, D: serde::Deserializer<'de>>(&self, d: D) -> Result<T, D::Error>;
        /// Never runs.
        fn schema(&self) -> ArgSchema;
    }

    impl<T> NotToolArgProbe<T> for &ArgProbe<T> {
        fn deserialize<'de, D: serde::Deserializer<'de>>(&self, _: D) -> Result<T, D::Error> {
            unreachable!("checked by assert_tool_arg")
        }
        fn schema(&self) -> ArgSchema {
            unreachable!("checked by assert_tool_arg")
        }
    }

    /// Implemented by every type a tool can return.
    #[diagnostic::on_unimplemented(
        message = "`{Self}` cannot be returned from an MCP tool",
        label = "this is not a tool result",
        note = "return text (`String`, `&str`, a number), `Json<T>` for structured output, a \
                `ContentBlock`, a `Vec<ContentBlock>`, a `CallToolResult`, or `Result<T, E>` of \
                one of these with `E: Display`",
        note = "or implement `mcp::IntoToolResult` for `{Self}`"
    )]
    pub trait ToolReturn: mcp_runtime::IntoToolResult {}

    #[diagnostic::do_not_recommend]
    impl<T: mcp_runtime::IntoToolResult> ToolReturn for T {}

    /// Chooses, in a tool's generated `info()`, [`ToolInfo::new`] when `R` is a tool result
    /// ([`ToolReturnProbe`]) and a stand-in that is never run otherwise
    /// ([`NotToolReturnProbe`]), so a bad return type is the one error [`finish_tool`]
    /// reports.
    pub struct ReturnProbe<R>(std::marker::PhantomData<R>);

    // Named only by generated code, which calls `new`.
    #[allow(clippy::new_without_default)]
    impl<R> ReturnProbe<R> {
        /// The probe for `R`.
        pub const fn new() -> Self {
            ReturnProbe(std::marker::PhantomData)
        }
    }

    /// [`ReturnProbe`]'s method when `R` is a tool result.
    pub trait ToolReturnProbe {
        /// [`ToolInfo::new`] for arguments `A`.
        fn tool_info<A: schemars::JsonSchema>(
            &self,
            name: &str,
            configure: impl FnOnce(&mut Tool),
        ) -> ToolInfo;
    }

    impl<R: ToolReturn> ToolReturnProbe for ReturnProbe<R> {
        fn tool_info<A: schemars::JsonSchema>(
            &self,
            name: &str,
            configure: impl FnOnce(&mut Tool),
        ) -> ToolInfo {
            ToolInfo::new::<A, R>(name, configure)
        }
    }

    /// [`ReturnProbe`]'s method when `R` is not a tool result: never run.
    pub trait NotToolReturnProbe {
        /// Never runs.
        fn tool_info<A: schemars::JsonSchema>(
            &self,
            name: &str,
            configure: impl FnOnce(&mut Tool),
        ) -> ToolInfo;
    }

    impl<R> NotToolReturnProbe for &ReturnProbe<R> {
        fn tool_info<A: schemars::JsonSchema>(
            &self,
            _: &str,
            _: impl FnOnce(&mut Tool),
        ) -> ToolInfo {
            unreachable!("checked by finish_tool")
        }
    }

    /// [`ToolInfo::finish`] for a tool returning `R`, with the bound stated as [`ToolReturn`].
    pub fn finish_tool<R: ToolReturn>(info: &ToolInfo, out: R) -> Result<CallToolResult, McpError> {
        info.finish(out)
    }
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
    #[cfg(feature = "client")]
    pub use mcp_runtime::client::Client;
    pub use mcp_runtime::middleware::Endpoint;
    pub use mcp_runtime::middleware::{BoxFuture, Middleware, Next};
    pub use mcp_runtime::{Context, HandlerResult, McpError, Server};
    pub use mcp_runtime::{Elicitation, IntoToolResult, Json, ToolError};
    pub use mcp_runtime::{Progress, ResolvedArguments, State};
}
