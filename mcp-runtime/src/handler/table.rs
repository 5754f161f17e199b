//! Handler tables: what the server offers (tools, prompts, resources) and how to call it.
//!
//! [`ServerHandler`] is the contract the dispatcher calls. The macros generate a static
//! implementation (a `match` on the name); [`Registry`] is the dynamic table for what is
//! registered at run time through the builder.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use mcp_core::types::{
    CallToolResult, CompleteParams, Completion, CompletionReference, GetPromptResult, Prompt,
    ReadResourceResult, Resource, ResourceTemplate, Tool,
};
use serde_json::value::RawValue;

use crate::chain::middleware::BoxFuture;
use crate::common::error::McpError;
use crate::context::Context;
use crate::handler::completion::{IntoCompletion, RefKind, ResolvedArguments};
use crate::handler::forwarded::ToolAnswer;

/// The server's offer and the calls into it.
///
/// Each `call_*` returns `None` when the name (or URI) is not offered; the dispatcher turns
/// that into the protocol error each revision defines. The futures borrow the handler
/// (`'a`, written out rather than elided so the documentation of a re-export shows it: an
/// implementation may write `'_`).
pub trait ServerHandler: Send + Sync + 'static {
    /// The tools, in listing order.
    fn tools(&self) -> &[Tool] {
        &[]
    }
    /// Calls tool `name` with the raw `arguments`.
    fn call_tool<'a>(
        &'a self,
        name: &str,
        ctx: Context,
        arguments: Option<Box<RawValue>>,
    ) -> Option<impl Future<Output = Result<CallToolResult, McpError>> + Send + 'a> {
        let _ = (name, ctx, arguments);
        None::<std::future::Ready<Result<CallToolResult, McpError>>>
    }
    /// The prompts, in listing order.
    fn prompts(&self) -> &[Prompt] {
        &[]
    }
    /// Renders prompt `name`.
    fn get_prompt<'a>(
        &'a self,
        name: &str,
        ctx: Context,
        arguments: HashMap<String, String>,
    ) -> Option<impl Future<Output = Result<GetPromptResult, McpError>> + Send + 'a> {
        let _ = (name, ctx, arguments);
        None::<std::future::Ready<Result<GetPromptResult, McpError>>>
    }
    /// The concrete resources, in listing order.
    fn resources(&self) -> &[Resource] {
        &[]
    }
    /// The resource templates, in listing order.
    fn resource_templates(&self) -> &[ResourceTemplate] {
        &[]
    }
    /// Reads resource `uri`.
    fn read_resource<'a>(
        &'a self,
        uri: &str,
        ctx: Context,
    ) -> Option<impl Future<Output = Result<ReadResourceResult, McpError>> + Send + 'a> {
        let _ = (uri, ctx);
        None::<std::future::Ready<Result<ReadResourceResult, McpError>>>
    }
    /// Whether any completer is registered (the `completions` capability).
    fn has_completions(&self) -> bool {
        false
    }
    /// Completes an argument of a prompt or template the dispatcher has checked exists;
    /// `None` when no completer is registered for it (the client gets no values).
    fn complete<'a>(
        &'a self,
        ctx: Context,
        params: CompleteParams,
    ) -> Option<impl Future<Output = Result<Completion, McpError>> + Send + 'a> {
        let _ = (ctx, params);
        None::<std::future::Ready<Result<Completion, McpError>>>
    }
    /// A number that changes whenever a list (tools, prompts, resources) changes, so
    /// encoded lists can be cached per generation (the dispatcher keeps each encoded list
    /// page until it does). Static tables keep the default `0`.
    fn list_generation(&self) -> u64 {
        0
    }
    /// Hands the server settings this table declares to `server` (`#[mcp::server(...)]`
    /// generates it from its keys): [`ServerBuilder::handler`](crate::ServerBuilder::handler)
    /// applies them, so a table keeps its instructions, middleware and settings under any
    /// builder, which can add to them. Declares nothing by default.
    fn declare(&self, server: &mut dyn crate::handler::Declarations) {
        let _ = server;
    }
}

type ToolFn = dyn Fn(Context, Option<Box<RawValue>>) -> BoxFuture<'static, Result<ToolAnswer, McpError>>
    + Send
    + Sync;
type PromptFn = dyn Fn(Context, HashMap<String, String>) -> BoxFuture<'static, Result<GetPromptResult, McpError>>
    + Send
    + Sync;
type CompleteFn = dyn Fn(Context, String, ResolvedArguments) -> BoxFuture<'static, Result<Completion, McpError>>
    + Send
    + Sync;
type RouteFn = dyn Fn(&str) -> bool + Send + Sync;
type ResourceFn = dyn Fn(Context, String) -> BoxFuture<'static, Result<ReadResourceResult, McpError>>
    + Send
    + Sync;

/// The dynamic handler table: tools, prompts and resources registered at run time.
#[derive(Default, Clone)]
pub struct Registry {
    tools: Vec<Tool>,
    tool_fns: HashMap<String, Arc<ToolFn>>,
    prompts: Vec<Prompt>,
    prompt_fns: HashMap<String, Arc<PromptFn>>,
    resources: Vec<Resource>,
    templates: Vec<ResourceTemplate>,
    resource_fns: HashMap<String, Arc<ResourceFn>>,
    /// The reader of `templates[i]`, same index.
    template_fns: Vec<Arc<ResourceFn>>,
    /// Which URIs `templates[i]` takes, when not its own template match (a mount takes
    /// every URI under its namespace and lets the mounted server match).
    template_routes: Vec<Option<Arc<RouteFn>>>,
    completion_fns: HashMap<(RefKind, String, String), Arc<CompleteFn>>,
    /// Bumped by every change, so cached list encodings are dropped.
    generation: u64,
}

impl Registry {
    /// Registers a tool whose handler takes the raw arguments. Replaces a tool of the same
    /// name.
    pub fn add_tool<F, Fut>(&mut self, tool: Tool, handler: F)
    where
        F: Fn(Context, Option<Box<RawValue>>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, McpError>> + Send + 'static,
    {
        self.put_tool(
            tool,
            Arc::new(move |ctx, args| {
                let call = handler(ctx, args);
                Box::pin(async move { call.await.map(ToolAnswer::Typed) })
            }),
        );
    }

    /// Registers a tool whose handler forwards the call to another server and answers with
    /// what that server wrote (a mounted child, a proxy's upstream), which the dispatcher
    /// passes on without decoding when it can. Replaces a tool of the same name.
    pub(crate) fn add_forwarding_tool<F, Fut>(&mut self, tool: Tool, handler: F)
    where
        F: Fn(Context, Option<Box<RawValue>>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ToolAnswer, McpError>> + Send + 'static,
    {
        self.put_tool(
            tool,
            Arc::new(move |ctx, args| Box::pin(handler(ctx, args))),
        );
    }

    fn put_tool(&mut self, tool: Tool, call: Arc<ToolFn>) {
        self.generation += 1;
        let name = tool.name.clone();
        self.tools.retain(|t| t.name != name);
        self.tools.push(tool);
        self.tool_fns.insert(name, call);
    }

    /// Calls tool `name`, its answer as the table has it (a forwarded one undecoded).
    pub(crate) fn answer_tool(
        &self,
        name: &str,
        ctx: Context,
        arguments: Option<Box<RawValue>>,
    ) -> Option<BoxFuture<'static, Result<ToolAnswer, McpError>>> {
        self.tool_fns.get(name).map(|f| f(ctx, arguments))
    }

    /// Registers a prompt.
    pub fn add_prompt<F, Fut>(&mut self, prompt: Prompt, handler: F)
    where
        F: Fn(Context, HashMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, McpError>> + Send + 'static,
    {
        self.generation += 1;
        let name = prompt.name.clone();
        // The declared required arguments are checked here, as the macros do.
        let required: Vec<String> = (prompt.arguments.iter().flatten())
            .filter(|a| a.required == Some(true))
            .map(|a| a.name.clone())
            .collect();
        self.prompts.retain(|p| p.name != name);
        self.prompts.push(prompt);
        let handler = Arc::new(handler);
        self.prompt_fns.insert(
            name,
            Arc::new(move |ctx, args| -> BoxFuture<'static, _> {
                match required.iter().find(|r| !args.contains_key(*r)) {
                    Some(m) => {
                        let e = McpError::invalid_params(format!("Missing required argument: {m}"));
                        Box::pin(std::future::ready(Err(e)))
                    }
                    None => Box::pin(handler(ctx, args)),
                }
            }),
        );
    }

    /// Registers a concrete resource.
    pub fn add_resource<F, Fut>(&mut self, resource: Resource, handler: F)
    where
        F: Fn(Context, String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, McpError>> + Send + 'static,
    {
        self.generation += 1;
        let uri = resource.uri.clone();
        self.resources.retain(|r| r.uri != uri);
        self.resources.push(resource);
        self.resource_fns
            .insert(uri, Arc::new(move |ctx, uri| Box::pin(handler(ctx, uri))));
    }

    /// Registers a resource template and its reader. A URI that is no concrete resource
    /// goes to the reader of the first template (in registration order) it matches
    /// (as RFC 6570 expands it: a `{var}` value holds no `/`, a `{+path}` one may); a URI no template
    /// matches is not found. Replaces a template with the same URI template.
    pub fn add_template<F, Fut>(&mut self, template: ResourceTemplate, reader: F)
    where
        F: Fn(Context, String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, McpError>> + Send + 'static,
    {
        self.put_template(
            template,
            None,
            Arc::new(move |ctx, uri| Box::pin(reader(ctx, uri))),
        );
    }

    /// [`add_template`](Self::add_template) whose reader takes the URIs `route` accepts
    /// instead of those its template matches.
    pub(crate) fn add_template_routed<F, Fut>(
        &mut self,
        template: ResourceTemplate,
        route: impl Fn(&str) -> bool + Send + Sync + 'static,
        reader: F,
    ) where
        F: Fn(Context, String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, McpError>> + Send + 'static,
    {
        let reader: Arc<ResourceFn> = Arc::new(move |ctx, uri| Box::pin(reader(ctx, uri)));
        self.put_template(template, Some(Arc::new(route)), reader);
    }

    fn put_template(
        &mut self,
        template: ResourceTemplate,
        route: Option<Arc<RouteFn>>,
        reader: Arc<ResourceFn>,
    ) {
        self.generation += 1;
        match self
            .templates
            .iter()
            .position(|t| t.uri_template == template.uri_template)
        {
            Some(i) => {
                self.templates[i] = template;
                self.template_fns[i] = reader;
                self.template_routes[i] = route;
            }
            None => {
                self.templates.push(template);
                self.template_fns.push(reader);
                self.template_routes.push(route);
            }
        }
    }

    /// Registers the completer of `argument` of a prompt (`CompletionReference::prompt`) or
    /// a resource template (`CompletionReference::resource`); it gets the partial value and
    /// the arguments already resolved, and returns every match (the first 100 are sent).
    pub fn add_completion<F, Fut>(&mut self, reference: CompletionReference, argument: &str, f: F)
    where
        F: Fn(Context, String, ResolvedArguments) -> Fut + Send + Sync + 'static,
        Fut: Future + Send + 'static,
        Fut::Output: IntoCompletion,
    {
        let key = crate::handler::completion::key(&reference, argument);
        self.completion_fns.insert(
            key,
            Arc::new(move |ctx, value, resolved| {
                let fut = f(ctx, value, resolved);
                Box::pin(async move { fut.await.into_completion() })
            }),
        );
    }

    /// Removes the completer of `argument` of a prompt or template; whether there was one.
    pub fn remove_completion(&mut self, reference: &CompletionReference, argument: &str) -> bool {
        let key = crate::handler::completion::key(reference, argument);
        self.completion_fns.remove(&key).is_some()
    }

    /// Registers a tool written with `#[mcp::tool]` on a free function (its listing entry
    /// and schema come from the macro): `registry.add_tool_def::<search_books>()`. Tools
    /// that take server state (`State<T>`, `&self`) belong in a `#[mcp::server]` instead.
    pub fn add_tool_def<D: crate::handler::tool_def::ToolDef<()>>(&mut self) {
        self.add_tool(D::info().tool.clone(), |ctx, args| D::call(&(), ctx, args));
    }

    /// Registers a prompt written with `#[mcp::prompt]` on a free function:
    /// `registry.add_prompt_def::<greet>()`.
    pub fn add_prompt_def<D: crate::handler::prompt_def::PromptDef<()>>(&mut self) {
        self.add_prompt(D::prompt().clone(), |ctx, args| D::get(&(), ctx, args));
    }

    /// Removes a tool; whether it existed.
    pub fn remove_tool(&mut self, name: &str) -> bool {
        self.tools.retain(|t| t.name != name);
        let found = self.tool_fns.remove(name).is_some();
        self.generation += u64::from(found);
        found
    }

    /// Removes a prompt; whether it existed.
    pub fn remove_prompt(&mut self, name: &str) -> bool {
        self.prompts.retain(|p| p.name != name);
        let found = self.prompt_fns.remove(name).is_some();
        self.generation += u64::from(found);
        found
    }

    /// Removes a concrete resource; whether it existed.
    pub fn remove_resource(&mut self, uri: &str) -> bool {
        self.resources.retain(|r| r.uri != uri);
        let found = self.resource_fns.remove(uri).is_some();
        self.generation += u64::from(found);
        found
    }

    /// Removes a resource template (by its URI template) and its reader; whether it existed.
    pub fn remove_template(&mut self, uri_template: &str) -> bool {
        let Some(i) = (self.templates.iter()).position(|t| t.uri_template == uri_template) else {
            return false;
        };
        self.templates.remove(i);
        self.template_fns.remove(i);
        self.template_routes.remove(i);
        self.generation += 1;
        true
    }

    /// Bumped by every mutation: a cache of encoded lists is valid for one generation.
    pub fn generation(&self) -> u64 {
        self.generation
    }
}

impl ServerHandler for Registry {
    fn list_generation(&self) -> u64 {
        self.generation
    }
    fn tools(&self) -> &[Tool] {
        &self.tools
    }
    fn call_tool(
        &self,
        name: &str,
        ctx: Context,
        arguments: Option<Box<RawValue>>,
    ) -> Option<impl Future<Output = Result<CallToolResult, McpError>> + Send + '_> {
        let call = self.answer_tool(name, ctx, arguments)?;
        Some(async move {
            match call.await? {
                ToolAnswer::Typed(r) => Ok(r),
                ToolAnswer::Forwarded(f) => f.decode(),
            }
        })
    }
    fn prompts(&self) -> &[Prompt] {
        &self.prompts
    }
    fn get_prompt(
        &self,
        name: &str,
        ctx: Context,
        arguments: HashMap<String, String>,
    ) -> Option<impl Future<Output = Result<GetPromptResult, McpError>> + Send + '_> {
        self.prompt_fns.get(name).map(|f| f(ctx, arguments))
    }
    fn resources(&self) -> &[Resource] {
        &self.resources
    }
    fn resource_templates(&self) -> &[ResourceTemplate] {
        &self.templates
    }
    fn read_resource(
        &self,
        uri: &str,
        ctx: Context,
    ) -> Option<impl Future<Output = Result<ReadResourceResult, McpError>> + Send + '_> {
        self.resource_fns
            .get(uri)
            .or_else(|| {
                let i =
                    (self.templates.iter().zip(&self.template_routes)).position(
                        |(t, r)| match r {
                            Some(route) => route(uri),
                            None => {
                                crate::handler::resource_def::match_template(&t.uri_template, uri)
                                    .is_some()
                            }
                        },
                    )?;
                Some(&self.template_fns[i])
            })
            .map(|f| f(ctx, uri.to_owned()))
    }
    fn has_completions(&self) -> bool {
        !self.completion_fns.is_empty()
    }
    fn complete(
        &self,
        ctx: Context,
        params: CompleteParams,
    ) -> Option<impl Future<Output = Result<Completion, McpError>> + Send + '_> {
        let f = self.completion_fns.get(&crate::handler::completion::key(
            &params.reference,
            &params.argument.name,
        ))?;
        let (value, resolved) = crate::handler::completion::split_params(params);
        Some(f(ctx, value, resolved))
    }
}
