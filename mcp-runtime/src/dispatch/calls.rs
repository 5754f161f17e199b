//! The methods that call a handler or change the session, one function each:
//! `tools/call`, `prompts/get`, `resources/read` (with their multi-round input),
//! `resources/subscribe`, `logging/setLevel`, `server/discover`.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_core::params::Params;
use mcp_core::types::{DiscoverResult, EmptyResult, LoggingLevel, ServerCapabilities};
use mcp_core::version::ProtocolVersion;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::dispatcher::{DispatchCore, Dispatcher, parse};
use super::visible::{HiddenResource, check_named, resource_item};
use crate::chain::policies::visibility::{Item, Shown};
use crate::common::BoxFuture;
use crate::common::error::{HandlerResult, McpError, resource_error_in, resource_not_found};
use crate::common::panic::CatchUnwind;
use crate::context::Context;
use crate::features::input_rounds as rounds;
use crate::handler::{Overlay, ServerHandler};
use crate::session::interest::{Lease, settled};

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
    /// The call named by `params`: read from the params' one scan ([`Params::member`]) when
    /// the scan recorded them, so a call is not read twice; else (a member that needs
    /// decoding, params the scan left to serde) by the typed read, which words the errors.
    fn of(params: Option<&'a Params>) -> Result<Self, McpError> {
        if let Some(call) = Self::scanned(params) {
            return Ok(call);
        }
        mcp_core::passes::params_pass();
        serde_json::from_str(params.map_or("{}", |p| p.get().get()))
            .map_err(|_| McpError::invalid_params("Invalid params"))
    }

    /// The fast path of [`of`](Self::of): `None` when the scan cannot answer.
    fn scanned(params: Option<&'a Params>) -> Option<Self> {
        let params = params?;
        let member = |key| params.member(key);
        let name = member("name")??;
        let name = name.strip_prefix('"')?.strip_suffix('"')?;
        if name.contains('\\') {
            return None;
        }
        // `null` reads as absent, as `Option` does in the serde read. A member becomes a
        // `&RawValue` by serde's check of its text (the handler takes `Box<RawValue>`
        // arguments, and serde makes no unchecked one): a pass over the arguments alone.
        let raw = |text: Option<&'a str>| -> Option<Option<&'a RawValue>> {
            match text {
                None | Some("null") => Some(None),
                Some(t) => {
                    mcp_core::passes::arguments_pass();
                    serde_json::from_str(t).ok().map(Some)
                }
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

impl<H: ServerHandler> Dispatcher<H> {
    /// `tools/call`: as a task when the call asks to be one (and the tool allows it), else
    /// the tool, under the multi-round resolver on 2026.
    pub(super) async fn call_tool(
        &self,
        ctx: Context,
        handler: &Arc<Overlay<H>>,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult {
        let method = "tools/call";
        let own = ctx.params.clone();
        let call = NameArgs::of(own.as_ref())?;
        let args = call.arguments.map(|a| a.to_owned());
        let name = call.name.into_owned();
        if let Some(shown) = Shown::of(&ctx) {
            check_named(
                shown,
                handler.tools(),
                |t| &t.name,
                Item::tool,
                &name,
                "tool",
            )?;
        }
        if let (Some(engine), Some(ttl)) = (
            &self.core.tasks,
            crate::features::tasks::methods::plan_tool_call(
                handler.tools(),
                &name,
                &ctx,
                call.task,
            )?,
        ) {
            let run = tool_run(handler.clone(), name.clone());
            return self
                .core
                .call_as_task(engine, &ctx, name, args, run, ttl, version)
                .await;
        }
        let mut hctx = self.core.hand_to_handler(ctx);
        let round = rounds::begin(
            &mut hctx,
            &self.core.identity,
            method,
            &name,
            call.arguments,
        )
        .started()
        .await?;
        let Some(fut) = handler.answer_tool(&name, hctx, args) else {
            return Err(McpError::invalid_params(format!("Unknown tool: {name}")));
        };
        let result = CatchUnwind::new(fut).await;
        let ir = rounds::finish(round, &self.core.identity, method, &name, call.arguments)?;
        if let Some(ir) = ir {
            return self.core.shape(ir, version);
        }
        self.core.shape_tool_result(result?, version)
    }

    /// `prompts/get`, under the multi-round resolver on 2026.
    pub(super) async fn get_prompt(
        &self,
        ctx: Context,
        handler: &Arc<Overlay<H>>,
        params: Option<&RawValue>,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult {
        let method = "prompts/get";
        let call: PromptCall = parse(params)?;
        if let Some(shown) = Shown::of(&ctx) {
            check_named(
                shown,
                handler.prompts(),
                |p| &p.name,
                Item::prompt,
                &call.name,
                "prompt",
            )?;
        }
        let mut hctx = self.core.hand_to_handler(ctx);
        let raw_args = raw_arguments(params);
        let round = rounds::begin(&mut hctx, &self.core.identity, method, &call.name, raw_args)
            .started()
            .await?;
        let args = call.arguments.unwrap_or_default();
        let Some(fut) = handler.get_prompt(&call.name, hctx, args) else {
            return Err(McpError::invalid_params(format!(
                "Unknown prompt: {}",
                call.name
            )));
        };
        let result = CatchUnwind::new(fut).await;
        let ir = rounds::finish(round, &self.core.identity, method, &call.name, raw_args)?;
        if let Some(ir) = ir {
            return self.core.shape(ir, version);
        }
        self.core.shape(result?, version)
    }

    /// `resources/read`: skill files first, then the handler (under the multi-round
    /// resolver on 2026); a missing resource is an error, never empty contents.
    pub(super) async fn read_resource(
        &self,
        ctx: Context,
        handler: &Arc<Overlay<H>>,
        params: Option<&RawValue>,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult {
        let method = "resources/read";
        let era = ctx.era();
        let p: UriParam = parse(params)?;
        let not_found = || resource_not_found(&p.uri, era);
        if let Some(shown) = Shown::of(&ctx) {
            let item = resource_item(handler.resources(), handler.resource_templates(), &p.uri);
            shown.check(&item, &p.uri, not_found)?;
        }
        if let Some(read) = self
            .core
            .skills
            .as_deref()
            .and_then(|s| crate::features::skills::serve::read(s, &p.uri, era))
        {
            return self.core.shape(read?, version);
        }
        let mut hctx = self.core.hand_to_handler(ctx);
        let round = rounds::begin(&mut hctx, &self.core.identity, method, &p.uri, None)
            .started()
            .await?;
        let Some(fut) = handler.read_resource(&p.uri, hctx) else {
            return Err(not_found());
        };
        let result = CatchUnwind::new(fut).await;
        if let Some(ir) = rounds::finish(round, &self.core.identity, method, &p.uri, None)? {
            return self.core.shape(ir, version);
        }
        let mut result = result.map_err(|e| resource_error_in(era, e))?;
        if result.contents.is_empty() {
            return Err(not_found());
        }
        if p.uri.starts_with(mcp_core::types::UI_SCHEME) {
            let listed = handler.resources().iter().find(|r| r.uri == p.uri);
            crate::features::apps::finish_read(&mut result, listed)?;
        }
        self.core
            .shape_cached(result, version, method, Some(&p.uri), false)
    }
}

impl DispatchCore {
    /// `resources/subscribe` and `resources/unsubscribe`: the session's subscriptions, also
    /// counted in the server's interest (a mount or proxy relaying the resource subscribes
    /// where its updates come from, and the answer waits for that). A subscription to a
    /// resource `hidden` from the caller is answered and not kept.
    pub(super) fn update_subscription<'a>(
        &'a self,
        ctx: &'a Context,
        params: Option<&'a RawValue>,
        version: Option<ProtocolVersion>,
        hidden: &'a HiddenResource<'a>,
    ) -> BoxFuture<'a, HandlerResult> {
        Box::pin(async move {
            let p: UriParam = parse(params)?;
            let subscribe = ctx.method() == "resources/subscribe";
            if subscribe && hidden(&p.uri) {
                return self.shape(EmptyResult::default(), version);
            }
            let mut settle = Vec::new();
            if let Some(s) = ctx.session() {
                let mut s = s.lock().expect("session lock");
                let changed = if subscribe {
                    s.subscriptions.insert(p.uri.clone())
                } else {
                    s.subscriptions.remove(&p.uri)
                };
                if changed {
                    s.changed();
                }
                let interest = &self.handle.notifier.interest;
                let lease = s.interest.get_or_insert_with(|| Lease::new(interest));
                if subscribe {
                    settle = lease.hold(&p.uri);
                } else {
                    lease.release(&p.uri);
                }
            }
            settled(settle).await;
            self.shape(EmptyResult::default(), version)
        })
    }

    /// `logging/setLevel`: the session's log level.
    pub(super) fn set_log_level(
        &self,
        ctx: &Context,
        params: Option<&RawValue>,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult {
        let p: LevelParam = parse(params)?;
        if let Some(s) = ctx.session() {
            let mut s = s.lock().expect("session lock");
            s.log_level = Some(p.level);
            s.changed();
        }
        self.shape(EmptyResult::default(), version)
    }

    /// `server/discover` (2026): the revisions, capabilities and instructions.
    pub(super) fn discover(
        &self,
        version: Option<ProtocolVersion>,
        capabilities: ServerCapabilities,
        as_served: bool,
    ) -> HandlerResult {
        let result = DiscoverResult {
            supported_versions: self
                .identity
                .supported
                .modern()
                .map(|v| v.as_str().to_owned())
                .collect(),
            capabilities,
            instructions: self.identity.instructions.clone(),
            ..Default::default()
        };
        self.shape_cached(result, version, "server/discover", None, as_served)
    }
}

/// The call of tool `name` on `handler` that a task runs (`features::tasks`).
fn tool_run<H: ServerHandler>(
    handler: Arc<Overlay<H>>,
    name: String,
) -> crate::features::tasks::ToolRun {
    Box::new(move |ctx, args| {
        Box::pin(async move {
            match handler.call_tool(&name, ctx, args) {
                Some(call) => call.await,
                None => Err(McpError::invalid_params(format!("Unknown tool: {name}"))),
            }
        })
    })
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
