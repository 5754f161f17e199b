//! The innermost endpoint: era membership, the init gate, built-in methods, handler lookup,
//! and result shaping (inside the chain, so middleware sees the finished form).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_core::codec::{Direction, WireCodec};
use mcp_core::jsonrpc::{ErrorObject, RESOURCE_NOT_FOUND, RequestId};
use mcp_core::meta::SERVER_INFO;
use mcp_core::types::{
    Adapt, CallToolResult, DiscoverResult, EmptyResult, GetPromptResult, Implementation,
    InitializeParams, InitializeResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, LoggingLevel, Meta, ReadResourceResult,
    ServerCapabilities,
};
use mcp_core::version::{Era, ProtocolVersion, SupportedVersions};
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::context::{ClientView, Context};
use crate::error::{HandlerResult, McpError, Reply};
use crate::handler::ServerHandler;
use crate::input_rounds as rounds;
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
}

/// Shared by the dispatcher and the kernel of one connection.
pub(crate) type Session = Arc<Mutex<SessionState>>;

/// The dispatcher around a handler table.
pub struct Dispatcher<H> {
    pub(crate) handler: Arc<H>,
    pub(crate) identity: Arc<ServerIdentity>,
    /// `serverInfo` shaped and encoded once per revision (it is stamped on every modern
    /// result, so it is not rebuilt per request).
    pub(crate) server_info: Arc<[std::sync::OnceLock<serde_json::Value>; 5]>,
}

impl<H> Clone for Dispatcher<H> {
    fn clone(&self) -> Self {
        Self {
            handler: self.handler.clone(),
            identity: self.identity.clone(),
            server_info: self.server_info.clone(),
        }
    }
}

/// The session of the connection a context belongs to (inserted by the kernel).
#[derive(Clone)]
pub(crate) struct SessionSlot(pub(crate) Session);

#[derive(Deserialize)]
struct NameArgs<'a> {
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    #[serde(borrow, default)]
    arguments: Option<&'a RawValue>,
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
struct CursorParam {
    #[serde(default)]
    cursor: Option<String>,
}

#[derive(Deserialize)]
struct LevelParam {
    level: LoggingLevel,
}

/// Results the dispatcher can stamp with `serverInfo`.
pub(crate) trait ResultMeta {
    fn meta_mut(&mut self) -> &mut Option<Meta>;
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
    CallToolResult,
    ListToolsResult,
    ListPromptsResult,
    GetPromptResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult,
    DiscoverResult,
    EmptyResult,
    InitializeResult,
    mcp_core::types::InputRequiredResult
);

impl<H: ServerHandler> Dispatcher<H> {
    /// The capabilities derived from what is registered.
    pub fn capabilities(&self) -> ServerCapabilities {
        use mcp_core::types::{PromptsCapability, ResourcesCapability, ToolsCapability};
        let h = &*self.handler;
        let mut caps = self.identity.extra_capabilities.clone();
        caps.logging.get_or_insert_with(Meta::new);
        if !h.tools().is_empty() {
            caps.tools.get_or_insert_with(ToolsCapability::default);
        }
        if !h.prompts().is_empty() {
            caps.prompts.get_or_insert_with(PromptsCapability::default);
        }
        if !h.resources().is_empty() || !h.resource_templates().is_empty() {
            caps.resources
                .get_or_insert_with(ResourcesCapability::default);
        }
        caps
    }

    /// Adapts a typed result for the revision, stamps `serverInfo` on modern ones, encodes.
    fn shape<T: Adapt + serde::Serialize + ResultMeta>(
        &self,
        mut value: T,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult {
        let rev = version.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        value.adapt(rev);
        if rev.era() == Era::Modern {
            let meta = value.meta_mut().get_or_insert_with(Meta::new);
            if !meta.contains_key(SERVER_INFO) {
                let info = self.server_info[rev as usize]
                    .get_or_init(|| mcp_core::types::to_value_for(&self.identity.info, rev));
                meta.insert(SERVER_INFO.to_owned(), info.clone());
            }
        }
        Reply::json(&value)
    }

    fn page<T: Clone>(
        &self,
        all: &[T],
        params: Option<&RawValue>,
    ) -> Result<(Vec<T>, Option<String>), McpError> {
        let cursor = match params {
            Some(p) => {
                serde_json::from_str::<CursorParam>(p.get())
                    .map_err(|_| McpError::invalid_params("invalid params"))?
                    .cursor
            }
            None => None,
        };
        let start = match cursor {
            None => 0,
            Some(c) => crate::pagination::decode_cursor(&c, all.len())
                .ok_or_else(|| McpError::invalid_params("invalid cursor"))?,
        };
        let size = self.identity.page_size.max(1);
        let end = (start + size).min(all.len());
        let next = (end < all.len()).then(|| crate::pagination::encode_cursor(end));
        Ok((all[start..end].to_vec(), next))
    }

    async fn dispatch(&self, ctx: Context) -> HandlerResult {
        let method: &str = &ctx.method;
        let era = ctx.era;
        let session = ctx.extensions.get::<SessionSlot>().map(|s| s.0.clone());
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
        }));

        // Notifications: applied by the kernel (cancellation) or nothing to do.
        if ctx.is_notification() {
            return Ok(Reply::None);
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
        let params = params.as_deref();
        match method {
            "initialize" => self.initialize(&ctx, session.as_ref()),
            "ping" => self.shape(EmptyResult::default(), version),
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
                self.shape(result, version)
            }
            "logging/setLevel" => {
                let p: LevelParam = parse(params)?;
                *ctx.peer.conn.log_level.lock().expect("level lock") = Some(p.level);
                self.shape(EmptyResult::default(), version)
            }
            "tools/list" => {
                let (tools, next_cursor) = self.page(self.handler.tools(), params)?;
                self.shape(
                    ListToolsResult {
                        tools,
                        next_cursor,
                        ..Default::default()
                    },
                    version,
                )
            }
            "tools/call" => {
                let call: NameArgs<'_> = serde_json::from_str(params.map_or("{}", RawValue::get))
                    .map_err(|_| McpError::invalid_params("Invalid params"))?;
                let args = call.arguments.map(|a| a.to_owned());
                let name = call.name.into_owned();
                let mut hctx = ctx.clone();
                let round =
                    rounds::begin(&mut hctx, &self.identity, method, &name, call.arguments)?;
                let Some(fut) = self.handler.call_tool(&name, hctx, args) else {
                    return Err(McpError::invalid_params(format!("Unknown tool: {name}")));
                };
                let result = CatchUnwind::new(fut).await;
                if let Some(ir) = rounds::finish(round.as_deref())? {
                    return self.shape(ir, version);
                }
                self.shape(result?, version)
            }
            "prompts/list" => {
                let (prompts, next_cursor) = self.page(self.handler.prompts(), params)?;
                self.shape(
                    ListPromptsResult {
                        prompts,
                        next_cursor,
                        ..Default::default()
                    },
                    version,
                )
            }
            "prompts/get" => {
                let call: PromptCall = parse(params)?;
                let mut hctx = ctx.clone();
                let raw_args = raw_arguments(params);
                let round = rounds::begin(&mut hctx, &self.identity, method, &call.name, raw_args)?;
                let args = call.arguments.unwrap_or_default();
                let Some(fut) = self.handler.get_prompt(&call.name, hctx, args) else {
                    return Err(McpError::invalid_params(format!(
                        "Unknown prompt: {}",
                        call.name
                    )));
                };
                let result = CatchUnwind::new(fut).await;
                if let Some(ir) = rounds::finish(round.as_deref())? {
                    return self.shape(ir, version);
                }
                self.shape(result?, version)
            }
            "resources/list" => {
                let (resources, next_cursor) = self.page(self.handler.resources(), params)?;
                self.shape(
                    ListResourcesResult {
                        resources,
                        next_cursor,
                        ..Default::default()
                    },
                    version,
                )
            }
            "resources/templates/list" => {
                let (resource_templates, next_cursor) =
                    self.page(self.handler.resource_templates(), params)?;
                self.shape(
                    ListResourceTemplatesResult {
                        resource_templates,
                        next_cursor,
                        ..Default::default()
                    },
                    version,
                )
            }
            "resources/read" => {
                let p: UriParam = parse(params)?;
                let not_found = || resource_not_found(&p.uri, era);
                let mut hctx = ctx.clone();
                let round = rounds::begin(&mut hctx, &self.identity, method, &p.uri, None)?;
                let Some(fut) = self.handler.read_resource(&p.uri, hctx) else {
                    return Err(not_found());
                };
                let result = CatchUnwind::new(fut).await;
                if let Some(ir) = rounds::finish(round.as_deref())? {
                    return self.shape(ir, version);
                }
                let result = result?;
                if result.contents.is_empty() {
                    // Never answer a missing resource with empty contents.
                    return Err(not_found());
                }
                self.shape(result, version)
            }
            other => Err(ErrorObject::method_not_found(other).into()),
        }
    }

    /// Whether the server offers `method` at all (gated by what is registered).
    fn offers(&self, method: &str) -> bool {
        let h = &*self.handler;
        match method {
            "initialize" | "ping" | "server/discover" | "logging/setLevel" => true,
            "tools/list" | "tools/call" => !h.tools().is_empty(),
            "prompts/list" | "prompts/get" => !h.prompts().is_empty(),
            "resources/list" | "resources/templates/list" | "resources/read" => {
                !h.resources().is_empty() || !h.resource_templates().is_empty()
            }
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
        let result = InitializeResult {
            protocol_version: version.as_str().to_owned(),
            capabilities: self.capabilities(),
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
