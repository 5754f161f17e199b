//! The innermost endpoint: era membership, the init gate, built-in methods, handler lookup,
//! and result shaping (inside the chain, so middleware sees the finished form).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_core::codec::{Direction, WireCodec};
use mcp_core::jsonrpc::{ErrorObject, RESOURCE_NOT_FOUND, RequestId};
use mcp_core::meta::SERVER_INFO;
use mcp_core::types::{
    Adapt, CallToolResult, CompleteResult, DiscoverResult, EmptyResult, GetPromptResult,
    Implementation, InitializeParams, InitializeResult, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, LoggingLevel, Meta,
    ReadResourceResult, ServerCapabilities, SubscriptionsListenResult,
};
use mcp_core::version::{Era, ProtocolVersion, SupportedVersions};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::caching::{CachePolicy, Cacheable};
use crate::context::{ClientView, Context};
use crate::error::{HandlerResult, McpError, Reply};
use crate::handle::{HandlerCell, ServerHandle};
use crate::handler::ServerHandler;
use crate::input_rounds as rounds;
use crate::list_cache::{ListCache, ListKind};
use crate::middleware::Endpoint;
use crate::panic::CatchUnwind;

/// What the server says about itself.
#[derive(Debug, Clone)]
pub struct ServerIdentity {
    /// `serverInfo`.
    pub info: Implementation,
    /// `instructions`.
    pub instructions: Option<String>,
    /// The revisions served.
    pub supported: SupportedVersions,
    /// How many items a list page holds.
    pub page_size: usize,
    /// Capabilities to advertise on top of the derived ones (e.g. `experimental`).
    pub extra_capabilities: ServerCapabilities,
    /// How multi-round-trip `requestState` is sealed and bounded (2026-07-28).
    pub request_state: crate::request_state::RequestStateConfig,
}

/// Connection state the dispatcher reads and the kernel commits.
#[derive(Debug, Default)]
pub(crate) struct SessionState {
    /// Whether `initialize` succeeded on this (legacy) connection.
    pub(crate) initialized: bool,
    /// The negotiated revision.
    pub(crate) version: Option<ProtocolVersion>,
    /// The client as declared in the committed `initialize`.
    pub(crate) client: Option<Arc<ClientView>>,
    /// What the dispatcher saw in the `initialize` params of request `id` (after any
    /// middleware rewrite); the kernel commits it once the chain succeeds.
    pub(crate) pending_init: Option<(RequestId, Arc<ClientView>)>,
    /// The scope of the tasks this connection creates (`tasks/list` is per session).
    task_scope: Option<String>,
}

impl SessionState {
    /// A random name for this connection's tasks, made on first use.
    pub(crate) fn task_scope(&mut self) -> &str {
        self.task_scope.get_or_insert_with(|| {
            let mut b = [0u8; 16];
            getrandom::fill(&mut b).expect("the OS random source failed");
            b.iter().map(|x| format!("{x:02x}")).collect()
        })
    }
}

/// Shared by the dispatcher and the kernel of one connection.
pub(crate) type Session = Arc<Mutex<SessionState>>;

/// The dispatcher around a handler table.
pub struct Dispatcher<H> {
    /// The handler table, swappable at run time (each request uses one snapshot).
    pub(crate) handler: Arc<HandlerCell<H>>,
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
    pub(crate) skills: Option<Arc<crate::skills::SkillSet>>,
    /// The task engine, when some tool may run as a task (`crate::tasks`).
    pub(crate) tasks: Option<Arc<crate::tasks::TaskEngine>>,
}

impl<H> Clone for Dispatcher<H> {
    fn clone(&self) -> Self {
        Self {
            handler: self.handler.clone(),
            handle: self.handle.clone(),
            cache: self.cache.clone(),
            identity: self.identity.clone(),
            server_info: self.server_info.clone(),
            lists: self.lists.clone(),
            skills: self.skills.clone(),
            tasks: self.tasks.clone(),
        }
    }
}

/// `serverInfo` for one revision: as a value (for a result that has its own `_meta`) and
/// pre-encoded (for the others: written as is, never copied into the result).
#[derive(Debug)]
pub(crate) struct ServerInfoStamp {
    value: serde_json::Value,
    meta: Box<RawValue>,
}

impl ServerInfoStamp {
    fn new(info: &Implementation, rev: ProtocolVersion) -> Self {
        let value = mcp_core::types::to_value_for(info, rev);
        let meta = serde_json::value::to_raw_value(&serde_json::json!({ SERVER_INFO: value }))
            .expect("serverInfo encodes");
        Self { value, meta }
    }
}

/// A result without `_meta` serialized with the `serverInfo`-only `_meta` appended: the
/// bytes a `#[serde(flatten)]` of the value beside a `_meta` field writes, without flatten's
/// detour (every field through a map-key serializer), via [`AppendMeta`].
struct Stamped<'a, T> {
    value: &'a T,
    meta: &'a ServerInfoStamp,
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

#[derive(Deserialize)]
struct NameArgs<'a> {
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
    /// The 2025-11-25 `task` augmentation, read in the same pass (`plan_tool_call`).
    #[serde(borrow, default)]
    task: Option<&'a RawValue>,
}

impl<'a> NameArgs<'a> {
    /// The call as the kernel's `_meta` pass found it ([`mcp_core::meta::RequestMeta::params_member`]),
    /// so a modern call is not read twice; `None` when that pass did not record these params
    /// or a member needs decoding (the serde read then decides, errors included).
    fn from_envelope_pass(ctx: &Context, params: Option<&'a RawValue>) -> Option<Self> {
        let (meta, params) = (ctx.meta()?, params?);
        let member = |key| meta.params_member(params, key);
        let name = member("name")??;
        let name = name.strip_prefix('"')?.strip_suffix('"')?;
        if name.contains('\\') {
            return None;
        }
        // `null` reads as absent, as `Option` does in the serde read.
        let raw = |text: Option<&'a str>| -> Option<Option<&'a RawValue>> {
            match text {
                None | Some("null") => Some(None),
                Some(t) => serde_json::from_str(t).ok().map(Some),
            }
        };
        Some(Self {
            name: std::borrow::Cow::Borrowed(name),
            arguments: raw(member("arguments")?)?,
            task: raw(member("task")?)?,
        })
    }
}

#[derive(Deserialize)]
struct PromptCall {
    name: String,
    #[serde(default)]
    arguments: Option<HashMap<String, String>>,
}

#[derive(Deserialize)]
struct UriParam {
    uri: String,
}

#[derive(Deserialize)]
struct LevelParam {
    level: LoggingLevel,
}

/// Results the dispatcher can stamp with `serverInfo`.
pub(crate) trait ResultMeta: serde::Serialize + Sized {
    fn meta_mut(&mut self) -> &mut Option<Meta>;

    /// The encoded result, stamped when `stamp` is given: the pre-encoded `serverInfo` is
    /// appended as `_meta` to a result without one (the usual case), or added to the
    /// result's own `_meta` unless that names a server already.
    fn encode_stamped(&mut self, stamp: Option<&ServerInfoStamp>) -> HandlerResult {
        if let Some(info) = stamp {
            match self.meta_mut() {
                None => {
                    return Reply::json(&Stamped {
                        value: &*self,
                        meta: info,
                    });
                }
                Some(meta) if !meta.contains_key(SERVER_INFO) => {
                    meta.insert(SERVER_INFO.to_owned(), info.value.clone());
                }
                Some(_) => {}
            }
        }
        Reply::json(&*self)
    }
}

/// A tool result has an encoder of its own (with a fast path for long texts), which stamps
/// as [`ResultMeta::encode_stamped`] does.
impl ResultMeta for CallToolResult {
    fn meta_mut(&mut self) -> &mut Option<Meta> {
        &mut self.meta
    }

    fn encode_stamped(&mut self, stamp: Option<&ServerInfoStamp>) -> HandlerResult {
        Ok(Reply::Result(self.encode(stamp.map(|s| &*s.meta))?))
    }
}

macro_rules! result_meta {
    ($($t:ty),*) => {$(
        impl ResultMeta for $t {
            fn meta_mut(&mut self) -> &mut Option<Meta> {
                &mut self.meta
            }
        }
    )*};
}

result_meta!(
    CompleteResult,
    ListToolsResult,
    ListPromptsResult,
    GetPromptResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    DiscoverResult,
    EmptyResult,
    InitializeResult,
    SubscriptionsListenResult,
    mcp_core::types::ListSkillsResult,
    mcp_core::types::GetSkillResult,
    mcp_core::types::ReadResourceDirectoryResult,
    mcp_core::types::CreateTaskResult,
    mcp_core::types::ExtCreateTaskResult,
    mcp_core::types::GetTaskResult,
    mcp_core::types::ExtGetTaskResult,
    mcp_core::types::ListTasksResult,
    mcp_core::types::CancelTaskResult,
    mcp_core::types::InputRequiredResult
);

impl<H: ServerHandler> Dispatcher<H> {
    /// The capabilities derived from what is registered.
    pub fn capabilities(&self) -> ServerCapabilities {
        use mcp_core::types::{PromptsCapability, ResourcesCapability, ToolsCapability};
        let h = self.handler.load();
        let mut caps = self.identity.extra_capabilities.clone();
        caps.logging.get_or_insert_with(Meta::new);
        if !h.tools().is_empty() {
            caps.tools.get_or_insert_with(ToolsCapability::default);
        }
        if !h.prompts().is_empty() {
            caps.prompts.get_or_insert_with(PromptsCapability::default);
        }
        if !h.resources().is_empty() || !h.resource_templates().is_empty() || self.skills.is_some()
        {
            caps.resources
                .get_or_insert_with(ResourcesCapability::default);
        }
        if h.has_completions() {
            caps.completions.get_or_insert_with(Meta::new);
        }
        if self.handle.subscriptions_enabled() {
            crate::subscriptions::advertise(&mut caps);
        }
        if let Some(s) = &self.skills {
            let settings = serde_json::to_value(s.settings()).expect("settings");
            caps.extensions
                .get_or_insert_with(Default::default)
                .insert(mcp_core::types::SKILLS_EXTENSION.into(), settings);
        }
        if self.tasks.is_some() {
            crate::tasks::methods::advertise(&mut caps);
        }
        caps
    }

    /// [`shape`](Self::shape) for a cacheable result: fills the configured hints first.
    pub(crate) fn shape_cached<T: Adapt + serde::Serialize + ResultMeta + Cacheable>(
        &self,
        mut value: T,
        version: Option<ProtocolVersion>,
        method: &str,
        uri: Option<&str>,
    ) -> HandlerResult {
        self.cache.apply(&mut value, method, uri);
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
        let stamp = (rev.era() == Era::Modern).then(|| {
            self.server_info[rev as usize]
                .get_or_init(|| ServerInfoStamp::new(&self.identity.info, rev))
        });
        value.encode_stamped(stamp)
    }

    /// One page of `all` as `params` asks for it (its `cursor`), and the next cursor.
    pub(crate) fn page<T: Clone>(
        &self,
        all: &[T],
        params: Option<&RawValue>,
    ) -> Result<(Vec<T>, Option<String>), McpError> {
        let start = crate::list_cache::page_start(all.len(), params)?;
        Ok(crate::list_cache::page(
            all,
            start,
            self.identity.page_size.max(1),
        ))
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
        .with_skills(self.skills.is_some());

        // Notifications: applied by the kernel (cancellation) or nothing to do.
        if ctx.is_notification() {
            return Ok(Reply::None);
        }
        // The 2026 tasks extension's methods: gated on the request's declared extension.
        if era == Era::Modern && matches!(method, "tasks/get" | "tasks/update" | "tasks/cancel") {
            return crate::tasks::methods::modern_method(self, &ctx, version).await;
        }
        // Era membership: a method this revision does not define does not exist here.
        if !codec.is_request(method, Direction::ClientToServer) {
            return Err(ErrorObject::method_not_found(method).into());
        }
        let offered = self.offers(method);
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
        let params = params.as_deref().map(|b| &**b);
        let handler = self.handler.load();
        match method {
            "initialize" => self.initialize(&ctx, session.as_ref()),
            "ping" => self.shape(EmptyResult::default(), version),
            "subscriptions/listen" => {
                let tasks = self
                    .capabilities()
                    .has_extension(crate::subscriptions::TASKS_EXTENSION);
                let result =
                    crate::subscriptions::listen(&ctx, &self.handle.notifier, tasks).await?;
                self.shape(result, version)
            }
            "resources/subscribe" | "resources/unsubscribe" => {
                let p: UriParam = parse(params)?;
                let subs = crate::subscriptions::legacy(&ctx.peer.conn);
                if method == "resources/subscribe" {
                    subs.subscribe(p.uri);
                } else {
                    subs.unsubscribe(&p.uri);
                }
                self.shape(EmptyResult::default(), version)
            }
            "server/discover" => {
                let result = DiscoverResult {
                    supported_versions: self
                        .identity
                        .supported
                        .modern()
                        .map(|v| v.as_str().to_owned())
                        .collect(),
                    capabilities: self.capabilities(),
                    instructions: self.identity.instructions.clone(),
                    ..Default::default()
                };
                self.shape_cached(result, version, method, None)
            }
            "logging/setLevel" => {
                let p: LevelParam = parse(params)?;
                *ctx.peer.conn.log_level.lock().expect("level lock") = Some(p.level);
                self.shape(EmptyResult::default(), version)
            }
            "tools/list" => self.list(&*handler, ListKind::Tools, params, version),
            "tools/call" => {
                let call = match NameArgs::from_envelope_pass(&ctx, params) {
                    Some(call) => call,
                    None => serde_json::from_str(params.map_or("{}", RawValue::get))
                        .map_err(|_| McpError::invalid_params("Invalid params"))?,
                };
                let args = call.arguments.map(|a| a.to_owned());
                let name = call.name.into_owned();
                if let (Some(engine), Some(ttl)) = (
                    &self.tasks,
                    crate::tasks::methods::plan_tool_call(handler.tools(), &name, &ctx, call.task)?,
                ) {
                    return crate::tasks::methods::call_as_task(
                        self, engine, &ctx, name, args, ttl, version,
                    )
                    .await;
                }
                let mut hctx = self.hand_to_handler(ctx);
                let round =
                    rounds::begin(&mut hctx, &self.identity, method, &name, call.arguments)?;
                let Some(fut) = handler.call_tool(&name, hctx, args) else {
                    return Err(McpError::invalid_params(format!("Unknown tool: {name}")));
                };
                let result = CatchUnwind::new(fut).await;
                let ir = rounds::finish(round, &self.identity, method, &name, call.arguments)?;
                if let Some(ir) = ir {
                    return self.shape(ir, version);
                }
                self.shape(result?, version)
            }
            "prompts/list" => self.list(&*handler, ListKind::Prompts, params, version),
            "prompts/get" => {
                let call: PromptCall = parse(params)?;
                let mut hctx = self.hand_to_handler(ctx);
                let raw_args = raw_arguments(params);
                let round = rounds::begin(&mut hctx, &self.identity, method, &call.name, raw_args)?;
                let args = call.arguments.unwrap_or_default();
                let Some(fut) = handler.get_prompt(&call.name, hctx, args) else {
                    return Err(McpError::invalid_params(format!(
                        "Unknown prompt: {}",
                        call.name
                    )));
                };
                let result = CatchUnwind::new(fut).await;
                let ir = rounds::finish(round, &self.identity, method, &call.name, raw_args)?;
                if let Some(ir) = ir {
                    return self.shape(ir, version);
                }
                self.shape(result?, version)
            }
            "resources/list" => self.list(&*handler, ListKind::Resources, params, version),
            "resources/templates/list" => {
                self.list(&*handler, ListKind::Templates, params, version)
            }
            "resources/read" => {
                let p: UriParam = parse(params)?;
                let not_found = || resource_not_found(&p.uri, era);
                if let Some(read) = self
                    .skills
                    .as_deref()
                    .and_then(|s| crate::skills::serve::read(s, &p.uri, era))
                {
                    return self.shape(read?, version);
                }
                let mut hctx = self.hand_to_handler(ctx);
                let round = rounds::begin(&mut hctx, &self.identity, method, &p.uri, None)?;
                let Some(fut) = handler.read_resource(&p.uri, hctx) else {
                    return Err(not_found());
                };
                let result = CatchUnwind::new(fut).await;
                if let Some(ir) = rounds::finish(round, &self.identity, method, &p.uri, None)? {
                    return self.shape(ir, version);
                }
                let result = result?;
                if result.contents.is_empty() {
                    // Never answer a missing resource with empty contents.
                    return Err(not_found());
                }
                self.shape_cached(result, version, method, Some(&p.uri))
            }
            "completion/complete" => {
                let result = crate::completion::complete(
                    &*handler,
                    self.hand_to_handler(ctx),
                    parse(params)?,
                );
                self.shape(result.await?, version)
            }
            "skills/list" | "skills/get" | "resources/directory/read" => match &self.skills {
                Some(s) => crate::skills::serve::handle(self, s, method, params, version),
                None => Err(ErrorObject::method_not_found(method).into()),
            },
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" => {
                crate::tasks::methods::legacy_method(self, &ctx, version).await
            }
            other => Err(ErrorObject::method_not_found(other).into()),
        }
    }

    /// Whether the server offers `method` at all (gated by what is registered).
    fn offers(&self, method: &str) -> bool {
        let h = self.handler.load();
        match method {
            "initialize" | "ping" | "server/discover" | "logging/setLevel" => true,
            "subscriptions/listen" => self.handle.subscriptions_enabled(),
            "resources/subscribe" | "resources/unsubscribe" => {
                self.handle.subscriptions_enabled()
                    && (!h.resources().is_empty() || !h.resource_templates().is_empty())
            }
            "tools/list" | "tools/call" => !h.tools().is_empty(),
            "prompts/list" | "prompts/get" => !h.prompts().is_empty(),
            "resources/list" | "resources/templates/list" | "resources/read" => {
                !h.resources().is_empty()
                    || !h.resource_templates().is_empty()
                    || self.skills.is_some()
            }
            "completion/complete" => h.has_completions(),
            "skills/list" | "skills/get" => self.skills.is_some(),
            "resources/directory/read" => self
                .skills
                .as_ref()
                .is_some_and(|s| s.serves_directory_read()),
            "tasks/get" | "tasks/result" | "tasks/list" | "tasks/cancel" => self.tasks.is_some(),
            _ => false,
        }
    }

    fn initialize(&self, ctx: &Context, session: Option<&Session>) -> HandlerResult {
        let p: InitializeParams = parse(ctx.params())?;
        let Some(version) = self
            .identity
            .supported
            .negotiate_initialize(&p.protocol_version)
        else {
            return Err(mcp_core::codec::unsupported_protocol_version(
                self.identity.supported.iter().map(ProtocolVersion::as_str),
                &p.protocol_version,
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
        let mut capabilities = self.capabilities();
        if ctx.peer.conn.is_sessionless() {
            crate::subscriptions::withhold(&mut capabilities);
        }
        crate::subscriptions::attach_legacy(
            &ctx.peer.conn,
            &self.handle.notifier,
            crate::subscriptions::ListKinds::from(&capabilities),
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

/// The raw `arguments` of a `prompts/get` (bound into its MRTR `requestState`).
fn raw_arguments(params: Option<&RawValue>) -> Option<&RawValue> {
    #[derive(Deserialize)]
    struct Args<'a> {
        #[serde(borrow, default)]
        arguments: Option<&'a RawValue>,
    }
    serde_json::from_str::<Args<'_>>(params?.get())
        .ok()?
        .arguments
}

fn parse<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Result<T, McpError> {
    // The validator's own text stays off the wire (semantics item 12).
    serde_json::from_str(params.map_or("{}", RawValue::get))
        .map_err(|_| McpError::invalid_params("Invalid params"))
}

/// The not-found error for a resource: -32002 on legacy revisions, -32602 on 2026.
pub(crate) fn resource_not_found(uri: &str, era: Era) -> McpError {
    let code = match era {
        Era::Legacy => RESOURCE_NOT_FOUND,
        Era::Modern => mcp_core::jsonrpc::INVALID_PARAMS,
    };
    ErrorObject::new(code, "Resource not found")
        .with_data(serde_json::json!({ "uri": uri }))
        .into()
}

impl<H: ServerHandler> Endpoint for Dispatcher<H> {
    fn call(&self, ctx: Context) -> impl std::future::Future<Output = HandlerResult> + Send + '_ {
        self.dispatch(ctx)
    }
}

#[cfg(test)]
mod tests {
    use mcp_core::types::{ContentBlock, ResultType};

    use super::*;

    fn stamp() -> ServerInfoStamp {
        ServerInfoStamp::new(
            &Implementation::new("bench", "1.0"),
            ProtocolVersion::V2026_07_28,
        )
    }

    fn results() -> Vec<CallToolResult> {
        let mut meta = Meta::new();
        meta.insert("k".into(), serde_json::json!([1, "two"]));
        let mut named = Meta::new();
        named.insert(SERVER_INFO.into(), serde_json::json!({"name": "other"}));
        vec![
            CallToolResult::success(vec![ContentBlock::text("42")]),
            // Long enough for the tool result encoder's fast path.
            CallToolResult::success(vec![ContentBlock::text("x\"y\n".repeat(500))]),
            CallToolResult::error("no such book"),
            CallToolResult {
                content: vec![ContentBlock::text("a"), ContentBlock::text("b")],
                structured_content: Some(serde_json::json!({"result": 3})),
                is_error: Some(false),
                meta: Some(meta.clone()),
                result_type: Some(ResultType::Complete),
            },
            CallToolResult {
                meta: Some(meta),
                ..CallToolResult::default()
            },
            CallToolResult {
                meta: Some(named),
                ..CallToolResult::default()
            },
        ]
    }

    /// A tool result stamped the way every other result is.
    #[derive(serde::Serialize)]
    #[serde(transparent)]
    struct Generic(CallToolResult);

    impl ResultMeta for Generic {
        fn meta_mut(&mut self) -> &mut Option<Meta> {
            &mut self.0.meta
        }
    }

    #[test]
    fn tool_results_are_stamped_as_every_result_is() {
        let stamp = stamp();
        for r in results() {
            for s in [None, Some(&stamp)] {
                let own = r.clone().encode_stamped(s).unwrap();
                let generic = Generic(r.clone()).encode_stamped(s).unwrap();
                assert_eq!(own.as_json(), generic.as_json());
            }
        }
        // A result that names a server keeps it.
        let named = results()
            .pop()
            .unwrap()
            .encode_stamped(Some(&stamp))
            .unwrap();
        let v: serde_json::Value = serde_json::from_str(named.as_json().unwrap()).unwrap();
        assert_eq!(v["_meta"][SERVER_INFO]["name"], "other");
    }

    /// The stamp as `#[serde(flatten)]` writes it (what `Stamped` writes without flatten).
    #[derive(serde::Serialize)]
    struct Flattened<'a, T> {
        #[serde(flatten)]
        value: &'a T,
        #[serde(rename = "_meta")]
        meta: &'a RawValue,
    }

    fn both<T: serde::Serialize>(value: &T, stamp: &ServerInfoStamp) -> (String, String) {
        let stamped = serde_json::to_string(&Stamped { value, meta: stamp }).unwrap();
        let flat = serde_json::to_string(&Flattened {
            value,
            meta: &stamp.meta,
        })
        .unwrap();
        (stamped, flat)
    }

    #[test]
    fn the_stamp_writes_what_flatten_writes() {
        use mcp_core::types::{EmptyResult, ListToolsResult, Tool};
        let stamp = stamp();
        for mut r in results() {
            r.meta = None;
            let (a, b) = both(&r, &stamp);
            assert_eq!(a, b);
        }
        let (a, b) = both(&EmptyResult::default(), &stamp);
        assert_eq!(a, b);
        assert!(a.starts_with(r#"{"_meta":{"#), "{a}");
        let tools = ListToolsResult {
            tools: vec![Tool::new("t")],
            ..Default::default()
        };
        let (a, b) = both(&tools, &stamp);
        assert_eq!(a, b);
        // A map is stamped too; a value that is not an object fails, as flatten does.
        let map: std::collections::BTreeMap<&str, u8> = [("k", 1)].into();
        let (a, b) = both(&map, &stamp);
        assert_eq!(a, b);
        assert!(
            serde_json::to_string(&Stamped {
                value: &3,
                meta: &stamp
            })
            .is_err()
        );
        assert!(
            serde_json::to_string(&Stamped {
                value: &vec![1],
                meta: &stamp
            })
            .is_err()
        );
    }
}
