//! [`Server`] and its builder: the plain Rust API that the macros generate calls to.

use std::future::Future;
use std::sync::Arc;

use mcp_core::types::{CallToolResult, Implementation, ServerCapabilities, Tool};
use mcp_core::version::SupportedVersions;
use serde_json::value::RawValue;

use crate::chain::middleware::{
    Chain, DynLayers, DynMiddleware, Endpoint, Layered, Middleware, Next,
};
use crate::chain::tracing_layer::TracingLayer;
use crate::chain::transform::Transformed;
use crate::common::error::{HandlerResult, McpError};
use crate::context::Context;
use crate::dispatch::{DispatchCore, Dispatcher};
#[cfg(feature = "schema-validation")]
use crate::handler::schema_check::SchemaChecked;
use crate::handler::tool::decode_arguments;
use crate::handler::{Registry, ServerHandler};
use crate::server::kernel::{ErasedEndpoint, Kernel};
use crate::server::serving::{ErasedServer, HttpInputs, Server};
use crate::server::stream::ServerOptions;
use crate::session::ServerIdentity;
use crate::wire::filter::{Filters, MessageFilter};

/// The default tracing layer, switchable at construction.
pub struct MaybeTraced(bool);

impl Middleware for MaybeTraced {
    // Not an `async fn`: the chain's future is nested directly, one level shallower.
    fn handle<E: Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: Next<'_, E>,
    ) -> impl Future<Output = HandlerResult> + Send {
        // The log bridge sees which request a handler's `tracing` events belong to (only
        // when one is installed and this request's client takes log messages).
        let bridge = crate::chain::log_bridge::scope_for(&ctx);
        let run = if self.0 {
            tokio_util::either::Either::Left(TracingLayer.handle(ctx, next))
        } else {
            tokio_util::either::Either::Right(next.run(ctx))
        };
        crate::chain::log_bridge::scoped(bridge, run)
    }
}

/// The endpoint a server runs: tracing outermost, then the tool transforms, the builder's
/// chain (`C`, [`ServerBuilder::middleware`]), the table's own middleware (boxed, when a
/// table declaring some is given with [`ServerBuilder::handler`]), the dispatcher.
pub type Composed<C, H> =
    Layered<MaybeTraced, Layered<Transformed, <C as Chain>::Wrapped<DynLayers<Dispatcher<H>>>>>;

/// Builds a [`Server`].
///
/// ```
/// use mcp_runtime::{Server, McpError};
/// use mcp_core::types::{CallToolResult, ContentBlock, Tool};
///
/// #[derive(serde::Deserialize)]
/// struct Args { query: String }
///
/// let server = Server::builder("bookshop", "1.0.0")
///     .tool(
///         Tool::new("search_books").with_input_schema(serde_json::json!({
///             "type": "object",
///             "properties": {"query": {"type": "string"}},
///             "required": ["query"]
///         })),
///         |_ctx, args: Args| async move {
///             Ok::<_, McpError>(CallToolResult::success(vec![ContentBlock::text(format!(
///                 "Found 3 books matching '{}'.",
///                 args.query
///             ))]))
///         },
///     )
///     .build();
/// # let _ = server;
/// ```
pub struct ServerBuilder<C = (), H = Registry> {
    identity: ServerIdentity,
    options: ServerOptions,
    handler: H,
    chain: C,
    /// Boxed layers this crate's constructors add (a proxy's readiness) without changing
    /// the chain's type: inside the chain, outside the table's own.
    inner_layers: Vec<Arc<dyn DynMiddleware>>,
    /// The handler table's own middleware (`ServerHandler::declare`), innermost.
    own_layers: Vec<Arc<dyn DynMiddleware>>,
    filters: Vec<Arc<dyn MessageFilter>>,
    tracing: bool,
    errors: Vec<String>,
    /// Change notifications: `None` = off (see `subscriptions.rs`).
    bus: Option<Arc<dyn crate::features::subscriptions::SubscriptionBus>>,
    max_listens: usize,
    cache: crate::dispatch::caching::CachePolicy,
    skills: Option<Arc<crate::features::skills::SkillSet>>,
    tasks: TaskSetup,
    /// Servers mounted under a namespace (`server::mount`).
    mounts: Vec<crate::server::mount::MountSpec>,
    /// Tool transforms, checked against the tools at build (`chain::transform`).
    transforms: Option<crate::chain::transform::ToolTransforms>,
}

/// What the builder was told about tasks (`crate::features::tasks`).
#[derive(Default)]
struct TaskSetup {
    store: Option<Arc<dyn crate::features::tasks::TaskStore>>,
    options: crate::features::tasks::TaskOptions,
    notifier: Option<Arc<dyn crate::features::tasks::TaskNotifier>>,
}

/// Why a server could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError(pub Vec<String>);

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join("; "))
    }
}

impl std::error::Error for BuildError {}

/// Methods the kernel answers itself: registering them is a mistake.
const RESERVED: &[&str] = &[
    "initialize",
    "notifications/initialized",
    "ping",
    "logging/setLevel",
];

impl Server<(), Registry> {
    /// A builder for a server named `name` at `version`.
    pub fn builder(name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        ServerBuilder {
            identity: ServerIdentity {
                info: Implementation {
                    name: name.into(),
                    version: version.into(),
                    ..Default::default()
                },
                instructions: None,
                supported: SupportedVersions::all(),
                page_size: 100,
                extra_capabilities: ServerCapabilities::default(),
                request_state: crate::session::request_state::RequestStateConfig::default(),
            },
            options: ServerOptions::default(),
            handler: Registry::default(),
            chain: (),
            inner_layers: Vec::new(),
            own_layers: Vec::new(),
            filters: Vec::new(),
            tracing: true,
            errors: Vec::new(),
            bus: None,
            max_listens: crate::features::subscriptions::DEFAULT_MAX_LISTENS,
            cache: Default::default(),
            skills: None,
            tasks: TaskSetup::default(),
            mounts: Vec::new(),
            transforms: None,
        }
    }
}

impl<C: Chain> ServerBuilder<C, Registry> {
    /// Serves an MCP App view ([`UiResource`](crate::apps::UiResource)): a `ui://`
    /// resource with the app MIME type and `_meta.ui`, and the `io.modelcontextprotocol/ui`
    /// extension declared. Point tools at it with
    /// [`Tool::with_ui`](mcp_core::types::Tool::with_ui). Its problems (not `ui://`, a CSP
    /// entry that is not an origin, HTML that is not a complete document) make
    /// [`try_build`](Self::try_build) fail.
    pub fn ui_resource(mut self, view: crate::features::apps::UiResource) -> Self {
        let problems = view.problems();
        if !problems.is_empty() {
            self.errors.extend(problems);
            return self;
        }
        let (resource, read) = view.into_parts();
        self.handler.add_resource(resource, read);
        self
    }

    /// Registers a tool whose arguments decode into `A`. Arguments that do not decode give
    /// an `isError` result naming the field and the expected type; the handler is not run.
    pub fn tool<A, F, Fut>(mut self, tool: Tool, handler: F) -> Self
    where
        A: serde::de::DeserializeOwned + Send + 'static,
        F: Fn(Context, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, McpError>> + Send + 'static,
    {
        self.check_name(&tool.name);
        let handler = Arc::new(handler);
        self.handler
            .add_tool(tool, move |ctx, args: Option<Box<RawValue>>| {
                let handler = handler.clone();
                async move {
                    match decode_arguments::<A>(args.as_deref()) {
                        Ok(a) => handler(ctx, a).await,
                        Err(bad) => Ok(bad),
                    }
                }
            });
        self
    }

    /// Registers a tool whose hand-written `inputSchema` is enforced: arguments are checked
    /// against it before the handler runs (failure: an `isError` result naming the path).
    /// Feature `schema-validation`.
    #[cfg(feature = "schema-validation")]
    pub fn tool_with_schema<F, Fut>(mut self, tool: Tool, handler: F) -> Self
    where
        F: Fn(Context, serde_json::Map<String, serde_json::Value>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, McpError>> + Send + 'static,
    {
        self.check_name(&tool.name);
        match SchemaChecked::new(&tool.input_schema) {
            Ok(checker) => {
                let checker = Arc::new(checker);
                let handler = Arc::new(handler);
                self.handler
                    .add_tool(tool, move |ctx, args: Option<Box<RawValue>>| {
                        let (checker, handler) = (checker.clone(), handler.clone());
                        async move {
                            match checker.check(args.as_deref()) {
                                Ok(map) => handler(ctx, map).await,
                                Err(bad) => Ok(bad),
                            }
                        }
                    });
            }
            Err(e) => self
                .errors
                .push(format!("tool `{}`: invalid inputSchema: {e}", tool.name)),
        }
        self
    }

    /// Direct access to the dynamic table (prompts, resources, raw tools).
    pub fn registry(mut self, f: impl FnOnce(&mut Registry)) -> Self {
        f(&mut self.handler);
        self
    }

    /// Refuses to register the methods the kernel owns (`initialize` and friends).
    ///
    /// Wrapping `initialize` is what middleware is for: a layer sees it like any request.
    pub fn method_handler(mut self, method: &str) -> Self {
        if RESERVED.contains(&method) {
            self.errors.push(format!(
                "`{method}` cannot be registered as a handler: the kernel answers it; \
                 add a middleware to observe or wrap it"
            ));
        } else {
            self.errors.push(format!(
                "custom method handlers are not supported yet: `{method}`"
            ));
        }
        self
    }

    fn check_name(&mut self, name: &str) {
        let valid = (1..=128).contains(&name.len())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'));
        if !valid {
            self.errors.push(format!(
                "tool name {name:?} is invalid: use 1-128 of A-Z a-z 0-9 _ - ."
            ));
        }
    }
}

impl<C: Chain, H: ServerHandler> ServerBuilder<C, H> {
    /// Uses a handler table of your own (the macros generate one), with every setting it
    /// declares ([`ServerHandler::declare`]): a `#[mcp::server]` type keeps its
    /// `instructions`, `middleware(...)` and other keys. Settings given to the builder after
    /// this call replace the declared ones (instructions, page size, ...) or add to them
    /// (middleware added with [`middleware`](Self::middleware), before or after this call,
    /// runs around the table's own, which stay innermost).
    ///
    /// ```
    /// # use mcp_runtime::{Server, ServerHandler, Declarations};
    /// struct Table;
    /// impl ServerHandler for Table {
    ///     fn declare(&self, server: &mut dyn Declarations) {
    ///         server.instructions("Ask for a book by title.");
    ///     }
    /// }
    /// let server = Server::builder("shop", "1.0.0").handler(Table).page_size(20).build();
    /// # let _ = server;
    /// ```
    pub fn handler<H2: ServerHandler>(self, handler: H2) -> ServerBuilder<C, H2> {
        self.adopt(handler, true)
    }

    /// [`handler`](Self::handler) for the code `#[mcp::server]` generates, whose middleware
    /// is already in the builder's chain ([`middleware`](Self::middleware)): every other
    /// declared setting is applied.
    #[doc(hidden)]
    pub fn handler_with_static_layers<H2: ServerHandler>(
        self,
        handler: H2,
    ) -> ServerBuilder<C, H2> {
        self.adopt(handler, false)
    }

    fn adopt<H2: ServerHandler>(self, handler: H2, layers: bool) -> ServerBuilder<C, H2> {
        let mut b = self.swap_handler(handler);
        b.own_layers.clear();
        let mut apply = Applying {
            identity: &mut b.identity,
            own_layers: layers.then_some(&mut b.own_layers),
            tracing: &mut b.tracing,
            bus: &mut b.bus,
            max_listens: &mut b.max_listens,
            cache: &mut b.cache,
            errors: &mut b.errors,
        };
        b.handler.declare(&mut apply);
        b
    }

    fn swap_handler<H2: ServerHandler>(self, handler: H2) -> ServerBuilder<C, H2> {
        ServerBuilder {
            identity: self.identity,
            options: self.options,
            handler,
            chain: self.chain,
            inner_layers: self.inner_layers,
            own_layers: self.own_layers,
            filters: self.filters,
            tracing: self.tracing,
            errors: self.errors,
            bus: self.bus,
            max_listens: self.max_listens,
            cache: self.cache,
            skills: self.skills,
            tasks: self.tasks,
            mounts: self.mounts,
            transforms: self.transforms,
        }
    }

    /// Adds a middleware, inside those added before it: the first added is outermost (it
    /// sees each message first and its outcome last), whether static or boxed.
    ///
    /// A [`Middleware`] type (a `#[mcp::middleware]` fn, a policy, your own impl) joins the
    /// chain's type — `.middleware(a).middleware(b)` is a `ServerBuilder<(A, B), H>` — so a
    /// call through it is static dispatch the optimiser can inline: no box, no vtable, zero
    /// cost over writing the layers by hand. A middleware chosen at run time goes in boxed,
    /// as `Arc<dyn DynMiddleware>` or `Box<dyn DynMiddleware>` (or a closure through
    /// [`from_fn`](crate::middleware::from_fn)): one element of the same chain, in the same
    /// order, costing a boxed future per call. `Option<M>` adds `M` or, for `None`, nothing.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp_runtime::middleware::{DynMiddleware, Endpoint, Middleware, Next};
    /// use mcp_runtime::{Context, HandlerResult, Server};
    ///
    /// struct Audit;
    /// impl Middleware for Audit {
    ///     async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
    ///         next.run(ctx).await
    ///     }
    /// }
    /// struct Timing;
    /// impl Middleware for Timing {
    ///     async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
    ///         next.run(ctx).await
    ///     }
    /// }
    ///
    /// let chosen: Arc<dyn DynMiddleware> = Arc::new(Timing);
    /// // Audit outermost, then the boxed one.
    /// let server: Server<(Audit, Arc<dyn DynMiddleware>)> = Server::builder("shop", "1.0.0")
    ///     .middleware(Audit)
    ///     .middleware(chosen)
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn middleware<M: Middleware>(self, m: M) -> ServerBuilder<C::With<M>, H> {
        ServerBuilder {
            identity: self.identity,
            options: self.options,
            handler: self.handler,
            chain: self.chain.with(m),
            inner_layers: self.inner_layers,
            own_layers: self.own_layers,
            filters: self.filters,
            tracing: self.tracing,
            errors: self.errors,
            bus: self.bus,
            max_listens: self.max_listens,
            cache: self.cache,
            skills: self.skills,
            tasks: self.tasks,
            mounts: self.mounts,
            transforms: self.transforms,
        }
    }

    /// Adds `m` boxed inside the chain, keeping the builder's type: for this crate's
    /// constructors whose builder is public as a plain `ServerBuilder` (a proxy's).
    #[cfg(feature = "proxy")]
    pub(crate) fn inner_middleware(mut self, m: impl Middleware) -> Self {
        self.inner_layers.push(Arc::new(m));
        self
    }

    /// Mounts `child` under `namespace`, live: its tools and prompts as `namespace_name`,
    /// its resources and templates with the namespace first in the path
    /// (`data://x` → `data://namespace/x`; the scheme, `ui://` included, is kept), each call
    /// delegated to the child through its own middleware (the parent's runs around it). A
    /// change of the child's lists while serving reaches the parent's clients as the
    /// parent's `list_changed`. A name or URI the parent already offers (its own or an
    /// earlier mount's) fails [`try_build`](Self::try_build); see [`MountOptions`](crate::MountOptions).
    ///
    /// ```
    /// # use mcp_runtime::{McpError, Server};
    /// # use mcp_core::types::{CallToolResult, ContentBlock, Tool};
    /// let weather = Server::builder("weather", "1.0.0")
    ///     .tool(Tool::new("forecast"), |_ctx, _: serde_json::Value| async {
    ///         Ok::<_, McpError>(CallToolResult::success(vec![ContentBlock::text("sunny")]))
    ///     })
    ///     .build();
    /// // Offers the tool `weather_forecast`.
    /// let gateway = Server::builder("gateway", "1.0.0").mount("weather", weather).build();
    /// # let _ = gateway;
    /// ```
    pub fn mount<C2: Chain + 'static, H2: ServerHandler>(
        self,
        namespace: impl Into<String>,
        child: Server<C2, H2>,
    ) -> Self {
        self.mount_with(
            namespace,
            child,
            crate::server::mount::MountOptions::default(),
        )
    }

    /// [`mount`](Self::mount) with options (the name separator).
    pub fn mount_with<C2: Chain + 'static, H2: ServerHandler>(
        mut self,
        namespace: impl Into<String>,
        child: Server<C2, H2>,
        options: crate::server::mount::MountOptions,
    ) -> Self {
        let namespace = namespace.into();
        if let Err(e) = crate::server::mount::check_namespace(&namespace, &options.separator) {
            self.errors.push(e);
            return self;
        }
        if self.mounts.iter().any(|m| m.namespace == namespace) {
            self.errors
                .push(format!("the namespace `{namespace}` is mounted twice"));
            return self;
        }
        self.mounts.push(crate::server::mount::MountSpec {
            namespace,
            options,
            endpoint: child.erased.kernel.endpoint.clone(),
            handle: child.erased.handle.clone(),
        });
        self
    }

    /// Shows the server's tools — its own and mounted ones — through `transforms`: renamed,
    /// described anew, arguments hidden (with injected values) or renamed, filtered; see
    /// [`crate::transform`]. What they name is checked against the tools when building:
    /// an unknown tool or argument, or two tools shown under one name, fails
    /// [`try_build`](Self::try_build). They run outermost (inside the tracing layer only):
    /// every middleware, the policies included, sees the tools' own names and arguments.
    ///
    /// ```
    /// # use mcp_runtime::{McpError, Server};
    /// # use mcp_core::types::{CallToolResult, ContentBlock, Tool};
    /// use mcp_runtime::transform::{ToolTransform, ToolTransforms};
    ///
    /// let server = Server::builder("shop", "1.0.0")
    ///     .tool(
    ///         Tool::new("search").with_input_schema(serde_json::json!({
    ///             "type": "object",
    ///             "properties": {"query": {"type": "string"}, "tenant": {"type": "string"}}
    ///         })),
    ///         |_ctx, _: serde_json::Value| async { Ok::<_, McpError>(CallToolResult::default()) },
    ///     )
    ///     .transform_tools(ToolTransforms::new().tool(
    ///         "search",
    ///         ToolTransform::new().rename("find").hide_arg("tenant", "acme"),
    ///     ))
    ///     .build();
    /// # let _ = server;
    /// ```
    pub fn transform_tools(mut self, transforms: crate::chain::transform::ToolTransforms) -> Self {
        self.transforms = Some(transforms);
        self
    }

    /// Adds a raw message filter.
    pub fn filter(mut self, f: impl MessageFilter) -> Self {
        self.filters.push(Arc::new(f));
        self
    }

    /// Turns the default tracing layer off.
    pub fn without_tracing(mut self) -> Self {
        self.tracing = false;
        self
    }

    /// Serves a tree of Agent Skills through the skills extension
    /// (`io.modelcontextprotocol/skills`): `skills/list`, `skills/get`,
    /// `resources/directory/read` and the `skill://` files through `resources/read`. The
    /// extension is advertised (2026-07-28) only when this is called.
    pub fn skills(mut self, skills: crate::features::skills::SkillSet) -> Self {
        self.skills = Some(Arc::new(skills));
        self
    }

    /// Declares the extension `id` (e.g. `com.example/search-filters`) with `settings`
    /// (any `Serialize` value that is a JSON object; `serde_json::json!({})` for none) under
    /// `capabilities.extensions` (SEP-2133). Nothing is declared unless asked for. A
    /// malformed identifier, settings that are not an object, an id declared twice, or an
    /// extension the framework declares itself (tasks, skills: through their own builder
    /// calls) make [`try_build`](Self::try_build) fail.
    ///
    /// On 2026-07-28 the declaration is in `server/discover`; on legacy revisions in the
    /// `initialize` result (an open capabilities object there), except for the extensions
    /// that add 2026-only methods.
    pub fn extension(mut self, id: impl Into<String>, settings: impl serde::Serialize) -> Self {
        let id = id.into();
        if let Err(e) = declare_extension(&mut self.identity, &id, settings) {
            self.errors.push(e);
        }
        self
    }

    /// Sets how multi-round-trip `requestState` is sealed (keys, expiry, round limit,
    /// audience); see [`crate::session::request_state`].
    pub fn request_state(
        mut self,
        config: crate::session::request_state::RequestStateConfig,
    ) -> Self {
        self.identity.request_state = config;
        self
    }

    /// Checks while building that `T` is a valid elicitation form for
    /// [`Context::elicit`](crate::Context::elicit): otherwise [`ServerBuilder::try_build`]
    /// fails naming the field and the reason.
    pub fn elicitation_form<T>(mut self) -> Self
    where
        T: schemars::JsonSchema + serde::de::DeserializeOwned + 'static,
    {
        if let Err(e) = crate::context::elicit_schema::form_schema::<T>() {
            self.errors.push(e.to_string());
        }
        self
    }

    /// Sets the `instructions` sent to clients.
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.identity.instructions = Some(text.into());
        self
    }

    /// Narrows the revisions served (both `initialize` and `server/discover`).
    pub fn supported_versions(mut self, versions: SupportedVersions) -> Self {
        self.identity.supported = versions;
        self
    }

    /// Sets the page size of list results.
    pub fn page_size(mut self, n: usize) -> Self {
        self.identity.page_size = n.max(1);
        self
    }

    /// Sets limits and timeouts.
    pub fn options(mut self, options: ServerOptions) -> Self {
        self.options = options;
        self
    }

    /// Changes the server's `Implementation` (title, icons, ...).
    pub fn info(mut self, f: impl FnOnce(&mut Implementation)) -> Self {
        f(&mut self.identity.info);
        self
    }

    /// Declares the `tools`, `prompts` and `resources` capabilities whatever the server
    /// has when a client connects (by default each is declared only when the server has
    /// such an item): for a server whose items come and go — a gateway whose upstreams
    /// may all be down when a client connects — so that the client lists them when they
    /// come (with [`subscriptions`](Self::subscriptions), on their `list_changed`).
    ///
    /// ```
    /// # use mcp_runtime::Server;
    /// // Nothing yet: proxies are attached while it serves.
    /// let gateway = Server::builder("gateway", "1.0.0")
    ///     .subscriptions(true)
    ///     .declare_all_lists()
    ///     .build();
    /// # let _ = gateway;
    /// ```
    pub fn declare_all_lists(mut self) -> Self {
        let caps = &mut self.identity.extra_capabilities;
        caps.tools.get_or_insert_with(Default::default);
        caps.prompts.get_or_insert_with(Default::default);
        caps.resources.get_or_insert_with(Default::default);
        self
    }

    /// Turns change notifications on or off (default off): `subscriptions/listen` (2026),
    /// `resources/subscribe` and `*/list_changed` on legacy sessions, and the `listChanged`
    /// / `subscribe` capabilities that promise them. On, events fan out through an
    /// [`InMemoryBus`](crate::session::InMemoryBus) unless [`subscription_bus`](Self::subscription_bus)
    /// names another.
    pub fn subscriptions(mut self, on: bool) -> Self {
        self.bus = match (on, self.bus.take()) {
            (false, _) => None,
            (true, Some(bus)) => Some(bus),
            (true, None) => Some(Arc::new(
                crate::features::subscriptions::InMemoryBus::default(),
            )),
        };
        self
    }

    /// Turns change notifications on, fanned out through `bus`.
    pub fn subscription_bus(
        mut self,
        bus: impl crate::features::subscriptions::SubscriptionBus,
    ) -> Self {
        self.bus = Some(Arc::new(bus));
        self
    }

    /// The most `subscriptions/listen` streams open at once (default 1024); one more is
    /// refused with `-32000`. On HTTP a listen holds no in-flight slot, so this is its bound.
    pub fn max_listens(mut self, n: usize) -> Self {
        self.max_listens = n;
        self
    }

    /// The default caching hint of every cacheable 2026 result. Without one (nor a hint
    /// for the method), `server/discover` and the four lists carry
    /// [`AS_SERVED`](crate::caching::AS_SERVED) (`ttlMs: 60000`, `"private"`)
    /// while the server's lists are those it first served, and `ttlMs: 0`, `"private"`
    /// after a run-time change (a server that mounts others, proxies included, never
    /// uses it: its lists follow theirs); `resources/read` carries `ttlMs: 0`,
    /// `"private"`. `CacheHint::private(0)` turns caching off.
    pub fn cache_hint(mut self, hint: crate::dispatch::caching::CacheHint) -> Self {
        self.cache.set_default(hint);
        self
    }

    /// The caching hint of one method's results (`tools/list`, `resources/read`, ...).
    pub fn cache_hint_for(
        mut self,
        method: &str,
        hint: crate::dispatch::caching::CacheHint,
    ) -> Self {
        if let Err(m) = self.cache.set_method(method, hint) {
            self.errors.push(format!(
                "`{m}` has no cacheable result: no caching hint applies"
            ));
        }
        self
    }

    /// The caching hint of reads of resource `uri` (wins over the method's and the default).
    pub fn resource_cache_hint(
        mut self,
        uri: impl Into<String>,
        hint: crate::dispatch::caching::CacheHint,
    ) -> Self {
        self.cache.set_resource(uri, hint);
        self
    }

    /// Keeps tasks in `store` instead of the default [`InMemoryTaskStore`]; also turns the
    /// task methods on when no tool declares task support.
    ///
    /// [`InMemoryTaskStore`]: crate::features::tasks::InMemoryTaskStore
    pub fn task_store(mut self, store: impl crate::features::tasks::TaskStore) -> Self {
        self.tasks.store = Some(Arc::new(store));
        self
    }

    /// Sets task retention, polling interval and `tasks/list` page size.
    pub fn task_options(mut self, options: crate::features::tasks::TaskOptions) -> Self {
        self.tasks.options = options;
        self
    }

    /// Sends 2026 task changes to `notifier` (the subscription bus of the listen streams).
    pub fn task_notifier(mut self, notifier: impl crate::features::tasks::TaskNotifier) -> Self {
        self.tasks.notifier = Some(Arc::new(notifier));
        self
    }

    /// Builds the server, or says what is wrong.
    ///
    /// Only what needs the table's or the chain's type is generic here (the handler cell,
    /// the dispatcher, the chain around it); the checks and the rest of the assembly are
    /// compiled once, not in every crate that builds a server.
    pub fn try_build(self) -> Result<Server<C, H>, BuildError> {
        let ServerBuilder {
            identity,
            options,
            handler,
            chain,
            inner_layers,
            own_layers,
            filters,
            tracing,
            errors,
            bus,
            max_listens,
            cache,
            skills,
            tasks,
            mounts,
            transforms,
        } = self;
        let settings = Settings {
            identity,
            options,
            inner_layers,
            own_layers,
            filters,
            errors,
            cache,
            skills,
            tasks,
            mounts,
            transforms,
        };
        let checked = settings.check(
            handler.tools(),
            handler.prompts(),
            handler.resources(),
            handler.resource_templates(),
        )?;
        let (handler, handle) = crate::features::handle::cell_and_handle(handler, bus, max_listens);
        let mut checked = checked.attach(&handle, chain.named())?;
        let header_schemas = handler.headers.clone();
        let dispatcher = Dispatcher {
            handler,
            core: checked.dispatch_core(&handle),
        };
        let legacy = handle.subscriptions_enabled().then(|| {
            let d = dispatcher.clone();
            Arc::new(crate::features::subscriptions::LegacyFeed {
                notifier: handle.notifier.clone(),
                kinds: Box::new(move || (&d.capabilities()).into()),
            })
        });
        let layers = std::mem::take(&mut checked.layers);
        let inner = chain.wrap(DynLayers::new(layers, dispatcher));
        let transformed = Layered::new(Transformed(checked.transforms.take()), inner);
        let endpoint = Layered::new(MaybeTraced(tracing), transformed);
        let http = HttpInputs {
            header_schemas,
            legacy,
        };
        Ok(Server::from_erased(checked.finish(
            Arc::new(endpoint),
            handle,
            http,
        )))
    }

    /// Builds the server; panics with the reasons when it is misconfigured.
    pub fn build(self) -> Server<C, H> {
        match self.try_build() {
            Ok(s) => s,
            Err(e) => panic!("invalid MCP server: {e}"),
        }
    }
}

/// A builder's settings without its table and chain: what [`ServerBuilder::try_build`]
/// checks and assembles without their types.
struct Settings {
    identity: ServerIdentity,
    options: ServerOptions,
    inner_layers: Vec<Arc<dyn DynMiddleware>>,
    own_layers: Vec<Arc<dyn DynMiddleware>>,
    filters: Vec<Arc<dyn MessageFilter>>,
    errors: Vec<String>,
    cache: crate::dispatch::caching::CachePolicy,
    skills: Option<Arc<crate::features::skills::SkillSet>>,
    tasks: TaskSetup,
    mounts: Vec<crate::server::mount::MountSpec>,
    transforms: Option<crate::chain::transform::ToolTransforms>,
}

/// [`Settings`] checked against the table's tools and resources.
struct Checked {
    identity: Arc<ServerIdentity>,
    options: ServerOptions,
    /// The dynamic slot, inside the builder's chain: the crate's inner layers, then (after
    /// [`Checked::attach`]) the table's own middleware.
    layers: Vec<Arc<dyn DynMiddleware>>,
    own_layers: Vec<Arc<dyn DynMiddleware>>,
    filters: Vec<Arc<dyn MessageFilter>>,
    cache: crate::dispatch::caching::CachePolicy,
    skills: Option<Arc<crate::features::skills::SkillSet>>,
    tasks: Option<Arc<crate::features::tasks::TaskEngine>>,
    explicit_notifier: bool,
    mounts: Vec<crate::server::mount::MountSpec>,
    /// The server mounts others: its lists follow theirs (no "as first served" caching).
    follows_others: bool,
    transforms: Option<crate::chain::transform::ToolTransforms>,
}

impl Settings {
    /// The checks that need only the table's lists; the identity with the features
    /// declared, and the task engine.
    fn check(
        self,
        tools: &[Tool],
        prompts: &[mcp_core::types::Prompt],
        resources: &[mcp_core::types::Resource],
        templates: &[mcp_core::types::ResourceTemplate],
    ) -> Result<Checked, BuildError> {
        if !self.errors.is_empty() {
            return Err(BuildError(self.errors));
        }
        if self.identity.supported.is_empty() {
            return Err(BuildError(vec!["no protocol revision is supported".into()]));
        }
        let mut problems = crate::features::apps::check(tools, resources);
        problems.extend(tag_problems(tools, prompts, resources, templates));
        if !problems.is_empty() {
            return Err(BuildError(problems));
        }
        let explicit_notifier = self.tasks.notifier.is_some();
        let tasks = self.tasks.build(tools);
        let mut identity = self.identity;
        declare_features(
            &mut identity,
            resources,
            self.skills.as_deref(),
            tasks.is_some(),
        );
        Ok(Checked {
            identity: Arc::new(identity),
            options: self.options,
            layers: self.inner_layers,
            own_layers: self.own_layers,
            filters: self.filters,
            cache: self.cache,
            skills: self.skills,
            tasks,
            explicit_notifier,
            mounts: self.mounts,
            follows_others: false,
            transforms: self.transforms,
        })
    }
}

impl Checked {
    /// Wires what needs the server's handle: task changes to the listen streams, the
    /// mounts, the tool transforms; checks what the transforms and every layer (the table's
    /// own, and `chained`: the builder's chain's) name against the tools and prompts the server has.
    fn attach(
        mut self,
        handle: &crate::features::handle::ServerHandle,
        chained: Vec<crate::chain::middleware::Named>,
    ) -> Result<Self, BuildError> {
        if let Some(engine) = &self.tasks
            && !self.explicit_notifier
            && handle.subscriptions_enabled()
        {
            // 2026 task changes reach the listen streams whose `taskIds` name the task.
            let bus = handle.clone();
            engine.set_notifier(Arc::new(move |e: crate::features::tasks::TaskEvent| {
                bus.publish(crate::features::subscriptions::ServerEvent::task(
                    e.task_id, e.params,
                ));
            }));
        }
        // Lists that follow mounted children (proxies included) may change at any time.
        self.follows_others = !self.mounts.is_empty();
        crate::server::mount::attach(handle, std::mem::take(&mut self.mounts))
            .map_err(BuildError)?;
        let own_layers = std::mem::take(&mut self.own_layers);
        self.layers.extend(own_layers);
        let listing = handle.editor.listing();
        let mut errors =
            (self.transforms.as_ref()).map_or_else(Vec::new, |t| t.check(&listing.tools));
        let named: Vec<_> = (self.layers.iter().flat_map(|l| l.named_dyn()))
            .chain(chained)
            .collect();
        let (tools, prompts) = (&listing.tools, &listing.prompts);
        let transforms = self.transforms.as_ref();
        errors.extend(crate::chain::transform::check_named(
            &named, tools, prompts, transforms,
        ));
        if !errors.is_empty() {
            return Err(BuildError(errors));
        }
        if let Some(t) = self.transforms.take() {
            let editor = handle.editor.clone();
            let lookup =
                crate::chain::transform::Lookup(Arc::new(move |name: &str| editor.tool(name)));
            self.transforms = Some(t.with_lookup(lookup));
        }
        Ok(self)
    }

    /// The dispatcher's part that does not hold the table.
    fn dispatch_core(&mut self, handle: &crate::features::handle::ServerHandle) -> DispatchCore {
        DispatchCore {
            handle: handle.clone(),
            cache: Arc::new(std::mem::take(&mut self.cache)),
            identity: self.identity.clone(),
            server_info: Default::default(),
            lists: Default::default(),
            skills: self.skills.take(),
            tasks: self.tasks.clone(),
            first_served: Arc::new(if self.follows_others {
                crate::dispatch::caching::FirstServed::never()
            } else {
                crate::dispatch::caching::FirstServed::default()
            }),
        }
    }

    /// The built server without its types, around `endpoint`.
    fn finish(
        self,
        endpoint: Arc<dyn ErasedEndpoint>,
        handle: crate::features::handle::ServerHandle,
        http: HttpInputs,
    ) -> ErasedServer {
        ErasedServer {
            handle,
            kernel: Kernel {
                endpoint,
                identity: self.identity,
                options: self.options,
                filters: Filters::new(self.filters),
            },
            http,
            tasks: self.tasks,
        }
    }
}

/// The builder's settings as a table's [`Declarations`](crate::handler::Declarations) see them.
struct Applying<'a> {
    identity: &'a mut ServerIdentity,
    /// `None` when the table's middleware is already the static chain.
    own_layers: Option<&'a mut Vec<Arc<dyn DynMiddleware>>>,
    tracing: &'a mut bool,
    bus: &'a mut Option<Arc<dyn crate::features::subscriptions::SubscriptionBus>>,
    max_listens: &'a mut usize,
    cache: &'a mut crate::dispatch::caching::CachePolicy,
    errors: &'a mut Vec<String>,
}

impl crate::handler::Declarations for Applying<'_> {
    fn instructions(&mut self, text: &str) {
        self.identity.instructions = Some(text.to_owned());
    }
    fn middleware(&mut self, layer: Arc<dyn DynMiddleware>) {
        if let Some(layers) = &mut self.own_layers {
            layers.push(layer);
        }
    }
    fn title(&mut self, title: &str) {
        self.identity.info.title = Some(title.to_owned());
    }
    fn page_size(&mut self, n: usize) {
        self.identity.page_size = n.max(1);
    }
    fn subscriptions(&mut self, on: bool) {
        *self.bus = match (on, self.bus.take()) {
            (false, _) => None,
            (true, Some(bus)) => Some(bus),
            (true, None) => Some(Arc::new(
                crate::features::subscriptions::InMemoryBus::default(),
            )),
        };
    }
    fn max_listens(&mut self, n: usize) {
        *self.max_listens = n;
    }
    fn tracing(&mut self, on: bool) {
        *self.tracing = on;
    }
    fn versions(&mut self, versions: &[mcp_core::version::ProtocolVersion]) {
        self.identity.supported = versions.iter().copied().collect();
    }
    fn extension(&mut self, id: &str, settings: serde_json::Value) {
        if let Err(e) = declare_extension(self.identity, id, settings) {
            self.errors.push(e);
        }
    }
    fn cache_hint(
        &mut self,
        target: crate::handler::CacheTarget<'_>,
        ttl_ms: u64,
        scope: mcp_core::types::CacheScope,
    ) {
        use crate::handler::CacheTarget;
        let hint = crate::dispatch::caching::CacheHint { ttl_ms, scope };
        match target {
            CacheTarget::Default => self.cache.set_default(hint),
            CacheTarget::Resource(uri) => self.cache.set_resource(uri, hint),
            CacheTarget::Method(m) => {
                if let Err(m) = self.cache.set_method(m, hint) {
                    self.errors.push(format!(
                        "`{m}` has no cacheable result: no caching hint applies"
                    ));
                }
            }
        }
    }
}

/// The tools, prompts, resources and templates whose tags (`_meta.tags`) are empty or
/// repeated.
fn tag_problems(
    tools: &[Tool],
    prompts: &[mcp_core::types::Prompt],
    resources: &[mcp_core::types::Resource],
    templates: &[mcp_core::types::ResourceTemplate],
) -> Vec<String> {
    let mut out = Vec::new();
    let mut check = |what: &str, name: &str, tags: Vec<&str>| {
        if let Err(e) = mcp_core::types::check_tags(&tags) {
            out.push(format!("{what} `{name}`: {e}"));
        }
    };
    (tools.iter()).for_each(|t| check("tool", &t.name, t.tags().collect()));
    (prompts.iter()).for_each(|p| check("prompt", &p.name, p.tags().collect()));
    (resources.iter()).for_each(|r| check("resource", &r.uri, r.tags().collect()));
    (templates.iter())
        .for_each(|t| check("resource template", &t.uri_template, t.tags().collect()));
    out
}

/// What [`ServerBuilder::extension`] and a table's declared `extensions(...)` do: checks
/// `id` (well formed, not one of the framework's own) and adds it.
fn declare_extension(
    identity: &mut ServerIdentity,
    id: &str,
    settings: impl serde::Serialize,
) -> Result<(), String> {
    mcp_core::types::check_extension_id(id)?;
    if mcp_core::types::MODERN_ONLY_EXTENSIONS.contains(&id) {
        return Err(format!(
            "`{id}` is declared by the framework when the feature is on \
             (`.skills(...)`, task tools or `.task_store(...)`)"
        ));
    }
    insert_extension(identity, id, settings)
}

/// Adds `id` with `settings` to the declared extensions; an error when it is there already
/// or the settings are not an object.
fn insert_extension(
    identity: &mut ServerIdentity,
    id: &str,
    settings: impl serde::Serialize,
) -> Result<(), String> {
    let value = serde_json::to_value(settings).map_err(|e| format!("extension `{id}`: {e}"))?;
    if !value.is_object() {
        return Err(format!(
            "extension `{id}`: its settings must be a JSON object (`{{}}` for none), not {value}"
        ));
    }
    let map = identity
        .extra_capabilities
        .extensions
        .get_or_insert_with(Default::default);
    if map.contains_key(id) {
        return Err(format!("extension `{id}` is declared twice"));
    }
    map.insert(id.to_owned(), value);
    Ok(())
}

/// The extensions the framework's own features declare, through the same map as
/// [`ServerBuilder::extension`]: MCP Apps when a `ui://` resource is served (unless declared
/// by hand), skills with their settings, tasks with the 2025-11-25 `tasks` capability.
fn declare_features(
    identity: &mut ServerIdentity,
    resources: &[mcp_core::types::Resource],
    skills: Option<&crate::features::skills::SkillSet>,
    tasks: bool,
) {
    let ui = crate::features::apps::EXTENSION;
    let declared = |i: &ServerIdentity| i.extra_capabilities.has_extension(ui);
    if !declared(identity)
        && resources
            .iter()
            .any(|r| r.uri.starts_with(mcp_core::types::UI_SCHEME))
    {
        let _ = insert_extension(identity, ui, crate::features::apps::server_settings());
    }
    if let Some(s) = skills {
        let _ = insert_extension(identity, mcp_core::types::SKILLS_EXTENSION, s.settings());
    }
    if tasks {
        crate::features::tasks::methods::advertise(&mut identity.extra_capabilities);
    }
}

impl TaskSetup {
    /// The engine, when a tool may run as a task or a store was given.
    fn build(self, tools: &[Tool]) -> Option<Arc<crate::features::tasks::TaskEngine>> {
        if self.store.is_none() && !crate::features::tasks::methods::any_task_tool(tools) {
            return None;
        }
        let store = self
            .store
            .unwrap_or_else(|| Arc::new(crate::features::tasks::InMemoryTaskStore::default()));
        let engine = crate::features::tasks::TaskEngine::new(store, self.options);
        if let Some(n) = self.notifier {
            engine.set_notifier(n);
        }
        Some(Arc::new(engine))
    }
}
