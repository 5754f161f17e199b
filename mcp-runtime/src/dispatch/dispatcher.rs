//! The innermost endpoint: era membership, the init gate, built-in methods, handler lookup,
//! and result shaping (inside the chain, so middleware sees the finished form).

use std::sync::Arc;

use mcp_core::codec::{Direction, WireCodec};
use mcp_core::jsonrpc::ErrorObject;
use mcp_core::meta::SERVER_INFO;
use mcp_core::types::{
    Adapt, EmptyResult, Implementation, InitializeParams, InitializeResult, Meta,
    ServerCapabilities,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde_json::value::RawValue;

use crate::chain::middleware::{BoxFuture, Endpoint};
use crate::common::error::{HandlerResult, McpError, Reply};
use crate::context::Context;
use crate::dispatch::caching::{CachePolicy, Cacheable};
use crate::dispatch::list_cache::{ListCache, ListKind, Lists};
use crate::features::handle::ServerHandle;
use crate::features::host::{Host, ResultMeta};
use crate::handler::ServerHandler;
use crate::handler::cell::HandlerCell;
use crate::session::{ClientView, ServerIdentity, Session};

/// The dispatcher around a handler table.
///
/// Only what reads the table is generic (`dispatch`, the calls into the handler, the
/// capabilities its lists decide); everything else is its `DispatchCore`'s, compiled once in
/// this crate rather than for every table type in the user's crate.
pub struct Dispatcher<H> {
    /// The handler table, swappable at run time (each request uses one snapshot).
    pub(crate) handler: Arc<HandlerCell<H>>,
    /// Everything but the table.
    pub(crate) core: DispatchCore,
}

/// The dispatcher's state and work that do not depend on the handler table's type.
#[derive(Clone)]
pub(crate) struct DispatchCore {
    /// Dynamic registration and change notifications (`subscriptions.rs`, `handle.rs`).
    pub(crate) handle: ServerHandle,
    /// The 2026 caching hints (`caching.rs`).
    pub(crate) cache: Arc<CachePolicy>,
    pub(crate) identity: Arc<ServerIdentity>,
    /// `serverInfo` shaped and encoded once per revision (it is stamped on every modern
    /// result, so it is not rebuilt per request).
    pub(crate) server_info: Arc<[std::sync::OnceLock<ServerInfoStamp>; 5]>,
    /// List results encoded once per revision and page (see `list_cache.rs`).
    pub(crate) lists: Arc<ListCache>,
    /// The skills extension, when configured.
    pub(crate) skills: Option<Arc<crate::features::skills::SkillSet>>,
    /// The task engine, when some tool may run as a task (`crate::features::tasks`).
    pub(crate) tasks: Option<Arc<crate::features::tasks::TaskEngine>>,
    /// The list generation first served (the default caching hints hold while it is).
    pub(crate) first_served: Arc<crate::dispatch::caching::FirstServed>,
}

impl<H> Clone for Dispatcher<H> {
    fn clone(&self) -> Self {
        Self {
            handler: self.handler.clone(),
            core: self.core.clone(),
        }
    }
}

/// What a handler table offers, as the capabilities and the method gate read it.
#[derive(Clone, Copy)]
pub(crate) struct Offered {
    tools: bool,
    prompts: bool,
    /// Resources or templates.
    resources: bool,
    completions: bool,
}

impl Offered {
    pub(crate) fn of<H: ServerHandler>(h: &H) -> Self {
        Self {
            tools: !h.tools().is_empty(),
            prompts: !h.prompts().is_empty(),
            resources: !h.resources().is_empty() || !h.resource_templates().is_empty(),
            completions: h.has_completions(),
        }
    }
}

/// `serverInfo` for one revision: as a value (for a result that has its own `_meta`) and
/// pre-encoded (for the others: written as is, never copied into the result).
#[derive(Debug)]
pub(crate) struct ServerInfoStamp {
    pub(super) value: serde_json::Value,
    pub(super) meta: Box<RawValue>,
}

impl ServerInfoStamp {
    pub(super) fn new(info: &Implementation, rev: ProtocolVersion) -> Self {
        let value = mcp_core::types::to_value_for(info, rev);
        let meta = serde_json::value::to_raw_value(&serde_json::json!({ SERVER_INFO: value }))
            .expect("serverInfo encodes");
        Self { value, meta }
    }
}

/// A result without `_meta` serialized with the `serverInfo`-only `_meta` appended: the
/// bytes a `#[serde(flatten)]` of the value beside a `_meta` field writes, without flatten's
/// detour (every field through a map-key serializer), via [`AppendMeta`].
pub(super) struct Stamped<'a, T> {
    pub(super) value: &'a T,
    pub(super) meta: &'a ServerInfoStamp,
}

impl<T: serde::Serialize> serde::Serialize for Stamped<'_, T> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(AppendMeta {
            inner: s,
            meta: &self.meta.meta,
        })
    }
}

/// A serializer that writes a struct or map as `inner` does, with one more member,
/// `"_meta": meta`, last. Anything else is not a result object and fails, as flatten does.
struct AppendMeta<'a, S> {
    inner: S,
    meta: &'a RawValue,
}

/// The struct or map being written by [`AppendMeta`].
struct Appending<'a, C> {
    inner: C,
    meta: &'a RawValue,
}

fn not_an_object<E: serde::ser::Error>() -> E {
    E::custom("a result must serialize as an object")
}

macro_rules! reject {
    ($($name:ident($($arg:ty),*)),* $(,)?) => {$(
        fn $name(self, $(_: $arg),*) -> Result<S::Ok, S::Error> {
            Err(not_an_object())
        }
    )*};
}

impl<'a, S: serde::Serializer> serde::Serializer for AppendMeta<'a, S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = serde::ser::Impossible<S::Ok, S::Error>;
    type SerializeTuple = serde::ser::Impossible<S::Ok, S::Error>;
    type SerializeTupleStruct = serde::ser::Impossible<S::Ok, S::Error>;
    type SerializeTupleVariant = serde::ser::Impossible<S::Ok, S::Error>;
    type SerializeMap = Appending<'a, S::SerializeMap>;
    type SerializeStruct = Appending<'a, S::SerializeStruct>;
    type SerializeStructVariant = serde::ser::Impossible<S::Ok, S::Error>;

    reject!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: serde::Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_struct<T: serde::Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: serde::Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<S::Ok, S::Error> {
        Err(not_an_object())
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, S::Error> {
        Err(not_an_object())
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, S::Error> {
        Err(not_an_object())
    }

    fn serialize_tuple_struct(
        self,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleStruct, S::Error> {
        Err(not_an_object())
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, S::Error> {
        Err(not_an_object())
    }

    fn serialize_map(self, len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        // One more member than the value has (a length of 0 would close the object at once).
        Ok(Appending {
            inner: self.inner.serialize_map(len.map(|n| n + 1))?,
            meta: self.meta,
        })
    }

    fn serialize_struct(
        self,
        name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, S::Error> {
        Ok(Appending {
            inner: self.inner.serialize_struct(name, len + 1)?,
            meta: self.meta,
        })
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, S::Error> {
        Err(not_an_object())
    }
}

impl<C: serde::ser::SerializeStruct> serde::ser::SerializeStruct for Appending<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_field<T: serde::Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), C::Error> {
        self.inner.serialize_field(key, value)
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), C::Error> {
        self.inner.skip_field(key)
    }

    fn end(mut self) -> Result<C::Ok, C::Error> {
        self.inner.serialize_field("_meta", self.meta)?;
        self.inner.end()
    }
}

impl<C: serde::ser::SerializeMap> serde::ser::SerializeMap for Appending<'_, C> {
    type Ok = C::Ok;
    type Error = C::Error;

    fn serialize_key<T: serde::Serialize + ?Sized>(&mut self, key: &T) -> Result<(), C::Error> {
        self.inner.serialize_key(key)
    }

    fn serialize_value<T: serde::Serialize + ?Sized>(&mut self, value: &T) -> Result<(), C::Error> {
        self.inner.serialize_value(value)
    }

    fn end(mut self) -> Result<C::Ok, C::Error> {
        self.inner.serialize_entry("_meta", self.meta)?;
        self.inner.end()
    }
}

impl<H: ServerHandler> Dispatcher<H> {
    /// The capabilities derived from what is registered.
    pub fn capabilities(&self) -> ServerCapabilities {
        self.core.capabilities(Offered::of(&*self.handler.load()))
    }

    async fn dispatch(&self, ctx: Context) -> HandlerResult {
        // Owned, so the context itself can move into the handler.
        let method_name = ctx.method.clone();
        let method: &str = &method_name;
        let era = ctx.era;
        let session = ctx.session().cloned();
        let (initialized, version) = match (&session, era) {
            (Some(s), Era::Legacy) => {
                let s = s.lock().expect("session lock");
                (s.initialized, s.version)
            }
            _ => (true, ctx.version),
        };
        let codec = WireCodec::new(version.unwrap_or(match era {
            Era::Legacy => ProtocolVersion::LATEST_HANDSHAKE,
            Era::Modern => ProtocolVersion::LATEST,
        }))
        .with_skills(self.core.skills.is_some());

        // Notifications: applied by the kernel (cancellation) or nothing to do.
        if ctx.is_notification() {
            return Ok(Reply::None);
        }
        // The 2026 tasks extension's methods: gated on the request's declared extension.
        if era == Era::Modern && matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel") {
            return self.core.tasks_modern(&ctx, version).await;
        }
        // Era membership: a method this revision does not define does not exist here.
        if !codec.is_request(method, Direction::ClientToServer) {
            return Err(ErrorObject::method_not_found(method).into());
        }
        let offered = self.core.offers(method, Offered::of(&*self.handler.load()));
        if !offered {
            return Err(ErrorObject::method_not_found(method).into());
        }
        // The init gate (legacy): only ping (and initialize itself) before initialization.
        if era == Era::Legacy && !initialized && method != "ping" && method != "initialize" {
            return Err(McpError::invalid_params(
                "the connection is not initialized: send initialize first",
            ));
        }
        let params = ctx.params.clone();
        let params = params.as_deref();
        let handler = self.handler.load();
        match method {
            "initialize" => self
                .core
                .initialize(&ctx, session.as_ref(), self.capabilities()),
            "ping" => self.core.shape(EmptyResult::default(), version),
            "subscriptions/listen" => {
                let hidden = super::visible::hidden_resources(&ctx, &handler);
                (self.core)
                    .listen(&ctx, self.capabilities(), version, &hidden)
                    .await
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                let hidden = super::visible::hidden_resources(&ctx, &handler);
                (self.core)
                    .update_subscription(&ctx, params, version, &hidden)
                    .await
            }
            "server/discover" => {
                let as_served = self.core.first_served.holds(handler.list_generation());
                self.core.discover(version, self.capabilities(), as_served)
            }
            "logging/setLevel" => self.core.set_log_level(&ctx, params, version),
            "tools/list" | "prompts/list" | "resources/list" | "resources/templates/list" => {
                let kind = match method {
                    "tools/list" => ListKind::Tools,
                    "prompts/list" => ListKind::Prompts,
                    "resources/list" => ListKind::Resources,
                    _ => ListKind::Templates,
                };
                let shown = crate::chain::policies::visibility::Shown::of(&ctx);
                (self.core).list(Lists::of(&*handler), kind, params, version, shown)
            }
            "tools/call" => self.call_tool(ctx, &handler, version).await,
            "prompts/get" => self.get_prompt(ctx, &handler, params, version).await,
            "resources/read" => self.read_resource(ctx, &handler, params, version).await,
            "completion/complete" => {
                let params: mcp_core::types::CompleteParams = parse(params)?;
                if let Some(shown) = crate::chain::policies::visibility::Shown::of(&ctx) {
                    super::visible::check_reference(
                        shown,
                        handler.prompts(),
                        handler.resource_templates(),
                        &params,
                    )?;
                }
                let result = crate::handler::completion::complete(
                    &*handler,
                    self.core.hand_to_handler(ctx),
                    params,
                );
                self.core.shape(result.await?, version)
            }
            "skills/list" | "skills/get" | "resources/directory/read" => match &self.core.skills {
                Some(s) => self.core.skills_method(s, method, params, version),
                None => Err(ErrorObject::method_not_found(method).into()),
            },
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" => {
                self.core.tasks_legacy(&ctx, version).await
            }
            other => Err(ErrorObject::method_not_found(other).into()),
        }
    }
}

impl DispatchCore {
    // The rarer methods whose work is async return it boxed: a future the generic
    // `dispatch` polls directly would be compiled in the user's crate. A second box for
    // these (`tasks/*`, `subscriptions/listen`), none on the common path.

    /// The 2026 tasks extension's `tasks/get`, `tasks/update`, `tasks/cancel`.
    fn tasks_modern<'a>(
        &'a self,
        ctx: &'a Context,
        version: Option<ProtocolVersion>,
    ) -> BoxFuture<'a, HandlerResult> {
        Box::pin(crate::features::tasks::methods::modern_method(
            self, ctx, version,
        ))
    }

    /// The 2025-11-25 `tasks/*` methods.
    fn tasks_legacy<'a>(
        &'a self,
        ctx: &'a Context,
        version: Option<ProtocolVersion>,
    ) -> BoxFuture<'a, HandlerResult> {
        Box::pin(crate::features::tasks::methods::legacy_method(
            self, ctx, version,
        ))
    }

    /// `tools/call` of `name` as a task, the tool run by `run`.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn call_as_task<'a>(
        &'a self,
        engine: &'a Arc<crate::features::tasks::TaskEngine>,
        ctx: &'a Context,
        name: String,
        args: Option<Box<RawValue>>,
        run: crate::features::tasks::ToolRun,
        ttl: Option<u64>,
        version: Option<ProtocolVersion>,
    ) -> BoxFuture<'a, HandlerResult> {
        Box::pin(crate::features::tasks::methods::call_as_task(
            self, engine, ctx, name, args, run, ttl, version,
        ))
    }

    /// `skills/list`, `skills/get`, `resources/directory/read`.
    fn skills_method(
        &self,
        skills: &crate::features::skills::SkillSet,
        method: &str,
        params: Option<&RawValue>,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult {
        crate::features::skills::serve::handle(self, skills, method, params, version)
    }

    /// `subscriptions/listen`: the stream of change notifications, until it ends; the
    /// updates of a resource `hidden` from the caller are never sent.
    fn listen<'a>(
        &'a self,
        ctx: &'a Context,
        capabilities: ServerCapabilities,
        version: Option<ProtocolVersion>,
        hidden: &'a super::visible::HiddenResource<'a>,
    ) -> BoxFuture<'a, HandlerResult> {
        Box::pin(async move {
            let tasks = capabilities.has_extension(crate::features::subscriptions::TASKS_EXTENSION);
            let notifier = &self.handle.notifier;
            let result =
                crate::features::subscriptions::listen(ctx, notifier, tasks, hidden).await?;
            self.shape(result, version)
        })
    }

    /// The capabilities derived from what is registered.
    pub(crate) fn capabilities(&self, offered: Offered) -> ServerCapabilities {
        use mcp_core::types::{PromptsCapability, ResourcesCapability, ToolsCapability};
        let mut caps = self.identity.extra_capabilities.clone();
        caps.logging.get_or_insert_with(Meta::new);
        if offered.tools {
            caps.tools.get_or_insert_with(ToolsCapability::default);
        }
        if offered.prompts {
            caps.prompts.get_or_insert_with(PromptsCapability::default);
        }
        if offered.resources || self.skills.is_some() {
            caps.resources
                .get_or_insert_with(ResourcesCapability::default);
        }
        if offered.completions {
            caps.completions.get_or_insert_with(Meta::new);
        }
        if self.handle.subscriptions_enabled() {
            crate::features::subscriptions::advertise(&mut caps);
        }
        // Declared extensions (the builder's, apps, skills, tasks) are in the identity.
        caps
    }

    /// [`shape`](Self::shape) for a cacheable result: fills the hints first (`as_served`:
    /// the lists are those first served; see `caching.rs`).
    pub(crate) fn shape_cached<T: Adapt + serde::Serialize + ResultMeta + Cacheable>(
        &self,
        mut value: T,
        version: Option<ProtocolVersion>,
        method: &str,
        uri: Option<&str>,
        as_served: bool,
    ) -> HandlerResult {
        self.cache.apply(&mut value, method, uri, as_served);
        self.shape(value, version)
    }

    /// A copy of `ctx` for a handler, carrying the [`ServerHandle`].
    pub(crate) fn handler_ctx(&self, ctx: &Context) -> Context {
        self.hand_to_handler(ctx.clone())
    }

    /// `ctx` handed on to a handler: the [`ServerHandle`] lives on the connection (set
    /// once, an atomic load afterwards), so nothing is copied per request.
    pub(crate) fn hand_to_handler(&self, ctx: Context) -> Context {
        ctx.peer.conn.server.get_or_init(|| self.handle.clone());
        ctx
    }

    /// Adapts a typed result for the revision, stamps `serverInfo` on modern ones, encodes.
    pub(crate) fn shape<T: Adapt + serde::Serialize + ResultMeta>(
        &self,
        mut value: T,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult {
        let rev = version.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        value.adapt(rev);
        if rev.era() == Era::Modern {
            let info = self.server_info[rev as usize]
                .get_or_init(|| ServerInfoStamp::new(&self.identity.info, rev));
            match value.meta_mut() {
                // The usual case: the pre-encoded `serverInfo` is written beside the fields.
                None => {
                    return Reply::json(&Stamped {
                        value: &value,
                        meta: info,
                    });
                }
                Some(meta) if !meta.contains_key(SERVER_INFO) => {
                    meta.insert(SERVER_INFO.to_owned(), info.value.clone());
                }
                Some(_) => {}
            }
        }
        Reply::json(&value)
    }

    /// One page of `all` as `params` asks for it (its `cursor`), and the next cursor.
    pub(crate) fn page<T: Clone>(
        &self,
        all: &[T],
        params: Option<&RawValue>,
    ) -> Result<(Vec<T>, Option<String>), McpError> {
        let start = crate::dispatch::list_cache::page_start(all.len(), params)?;
        Ok(crate::dispatch::list_cache::page(
            all,
            start,
            self.identity.page_size.max(1),
        ))
    }

    /// Whether the server offers `method` at all (gated by what is registered, or
    /// declared whatever is: `ServerBuilder::declare_all_lists`).
    fn offers(&self, method: &str, h: Offered) -> bool {
        let declared = &self.identity.extra_capabilities;
        let h = Offered {
            tools: h.tools || declared.tools.is_some(),
            prompts: h.prompts || declared.prompts.is_some(),
            resources: h.resources || declared.resources.is_some(),
            completions: h.completions,
        };
        match method {
            "initialize" | "ping" | "server/discover" | "logging/setLevel" => true,
            "subscriptions/listen" => self.handle.subscriptions_enabled(),
            "resources/subscribe" | "resources/unsubscribe" => {
                self.handle.subscriptions_enabled() && h.resources
            }
            "tools/list" | "tools/call" => h.tools,
            "prompts/list" | "prompts/get" => h.prompts,
            "resources/list" | "resources/templates/list" | "resources/read" => {
                h.resources || self.skills.is_some()
            }
            "completion/complete" => h.completions,
            "skills/list" | "skills/get" => self.skills.is_some(),
            "resources/directory/read" => self
                .skills
                .as_ref()
                .is_some_and(|s| s.serves_directory_read()),
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" => self.tasks.is_some(),
            _ => false,
        }
    }

    fn initialize(
        &self,
        ctx: &Context,
        session: Option<&Session>,
        mut capabilities: ServerCapabilities,
    ) -> HandlerResult {
        let p: InitializeParams = parse(ctx.params())?;
        let Some(version) = self
            .identity
            .supported
            .negotiate_initialize(&p.protocol_version)
        else {
            // Only a server serving no legacy revision fails to negotiate: the 2026 rule.
            return Err(crate::session::intake::initialize_refused(
                self.identity.supported,
                ctx.params(),
            )
            .into());
        };
        if let (Some(s), Some(id)) = (session, ctx.request_id()) {
            s.lock().expect("session lock").pending_init = Some((
                id.clone(),
                Arc::new(ClientView {
                    info: Some(p.client_info),
                    capabilities: p.capabilities,
                }),
            ));
        }
        if ctx.peer.conn.is_sessionless() {
            crate::features::subscriptions::withhold(&mut capabilities);
        }
        crate::features::subscriptions::attach_legacy(
            &ctx.peer.conn,
            &self.handle.notifier,
            crate::features::subscriptions::ListKinds::from(&capabilities),
            session.cloned(),
        );
        let result = InitializeResult {
            protocol_version: version.as_str().to_owned(),
            capabilities,
            server_info: self.identity.info.clone(),
            instructions: self.identity.instructions.clone(),
            meta: None,
        };
        self.shape(result, Some(version))
    }
}

pub(super) fn parse<T: serde::de::DeserializeOwned>(
    params: Option<&RawValue>,
) -> Result<T, McpError> {
    // The validator's own text stays off the wire (semantics item 12).
    serde_json::from_str(params.map_or("{}", RawValue::get))
        .map_err(|_| McpError::invalid_params("Invalid params"))
}

// The features reach the dispatcher through this trait (they sit below it).
impl Host for DispatchCore {
    fn handler_ctx(&self, ctx: &Context) -> Context {
        DispatchCore::handler_ctx(self, ctx)
    }

    fn identity(&self) -> &ServerIdentity {
        &self.identity
    }

    fn tasks(&self) -> Option<&Arc<crate::features::tasks::TaskEngine>> {
        self.tasks.as_ref()
    }

    fn shape<T: Adapt + serde::Serialize + ResultMeta>(
        &self,
        value: T,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult {
        DispatchCore::shape(self, value, version)
    }

    fn page<T: Clone>(
        &self,
        all: &[T],
        params: Option<&RawValue>,
    ) -> Result<(Vec<T>, Option<String>), McpError> {
        DispatchCore::page(self, all, params)
    }
}

impl<H: ServerHandler> Endpoint for Dispatcher<H> {
    fn call(&self, ctx: Context) -> impl std::future::Future<Output = HandlerResult> + Send + '_ {
        self.dispatch(ctx)
    }
}
