//! [`Overlay`]: one server's table as the dispatcher sees it, a fixed base (what the macros
//! generated, or a table of your own) with a [`Registry`] of run-time entries beside it.
//!
//! A name (tool, prompt) or URI (resource, template) belongs to one side only: an edit that
//! would add to the registry what the base already offers is refused
//! (`Overlay::conflict`), so a lookup never has to choose. The base answers first (a
//! `match` on the name for a macro table), then the registry. The listings are the base's in
//! its order, then the registry's; merged once per edit, never per request.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;

use mcp_core::types::{
    CallToolResult, CompleteParams, Completion, GetPromptResult, Prompt, ReadResourceResult,
    Resource, ResourceTemplate, Tool,
};
use serde_json::value::RawValue;

use super::forwarded::ToolAnswer;
use super::{Registry, ServerHandler};
use crate::common::error::McpError;
use crate::context::Context;

/// A fixed base table and the run-time [`Registry`] beside it (see the module docs).
pub struct Overlay<H> {
    /// `None` when the server's own table is the builder's `Registry`: it is then `extra`
    /// itself, so every entry can be edited.
    base: Option<Arc<H>>,
    pub(crate) extra: Registry,
    merged: Merged,
}

/// The base's listings followed by the registry's, when the registry is not empty.
#[derive(Default)]
struct Merged {
    tools: Option<Vec<Tool>>,
    prompts: Option<Vec<Prompt>>,
    resources: Option<Vec<Resource>>,
    templates: Option<Vec<ResourceTemplate>>,
}

fn merge<T: Clone>(base: &[T], extra: &[T]) -> Option<Vec<T>> {
    (!extra.is_empty()).then(|| base.iter().chain(extra).cloned().collect())
}

impl<H: ServerHandler> Overlay<H> {
    /// `handler` as the base, with nothing beside it; a [`Registry`] becomes the editable
    /// part itself.
    pub(crate) fn new(handler: H) -> Self {
        let any: Box<dyn std::any::Any> = Box::new(handler);
        match any.downcast::<Registry>() {
            Ok(registry) => Self {
                base: None,
                extra: *registry,
                merged: Merged::default(),
            },
            Err(any) => Self {
                base: Some(Arc::new(
                    *any.downcast::<H>().expect("the handler's own type"),
                )),
                extra: Registry::default(),
                merged: Merged::default(),
            },
        }
    }

    /// A copy whose registry `f` edits, or what the edit would clash with in the base.
    pub(crate) fn edited(&self, f: &mut dyn FnMut(&mut Registry)) -> Result<Self, String> {
        let mut extra = self.extra.clone();
        f(&mut extra);
        let next = Self::with(self.base.clone(), extra);
        match next.conflict() {
            Some(c) => Err(c),
            None => Ok(next),
        }
    }

    fn with(base: Option<Arc<H>>, extra: Registry) -> Self {
        let merged = match &base {
            None => Merged::default(),
            Some(b) => Merged {
                tools: merge(b.tools(), extra.tools()),
                prompts: merge(b.prompts(), extra.prompts()),
                resources: merge(b.resources(), extra.resources()),
                templates: merge(b.resource_templates(), extra.resource_templates()),
            },
        };
        Self {
            base,
            extra,
            merged,
        }
    }

    /// The first run-time entry whose name or URI the base already offers, described.
    pub(crate) fn conflict(&self) -> Option<String> {
        let b = self.base.as_deref()?;
        let e = &self.extra;
        let taken = |what: &str, name: &str| {
            format!(
                "the {what} `{name}` is declared by the server's own table and cannot be added or replaced at run time"
            )
        };
        if let Some(t) = e
            .tools()
            .iter()
            .find(|t| b.tools().iter().any(|s| s.name == t.name))
        {
            return Some(taken("tool", &t.name));
        }
        if let Some(p) = (e.prompts().iter()).find(|p| b.prompts().iter().any(|s| s.name == p.name))
        {
            return Some(taken("prompt", &p.name));
        }
        if let Some(r) =
            (e.resources().iter()).find(|r| b.resources().iter().any(|s| s.uri == r.uri))
        {
            return Some(taken("resource", &r.uri));
        }
        let templates = b.resource_templates();
        (e.resource_templates().iter())
            .find(|t| templates.iter().any(|s| s.uri_template == t.uri_template))
            .map(|t| taken("resource template", &t.uri_template))
    }
}

impl<H: ServerHandler> Overlay<H> {
    /// [`ServerHandler::call_tool`] as the dispatcher calls it: a run-time entry that
    /// forwards to another server answers with that server's JSON, undecoded.
    pub(crate) fn answer_tool(
        &self,
        name: &str,
        ctx: Context,
        arguments: Option<Box<RawValue>>,
    ) -> Option<impl Future<Output = Result<ToolAnswer, McpError>> + Send + '_> {
        if let Some(b) = &self.base
            && (self.extra.tools().is_empty() || b.tools().iter().any(|t| t.name == name))
        {
            let call = b.call_tool(name, ctx, arguments)?;
            return Some(futures_either::left(async move {
                call.await.map(ToolAnswer::Typed)
            }));
        }
        (self.extra)
            .answer_tool(name, ctx, arguments)
            .map(futures_either::right)
    }
}

impl<H: ServerHandler> Clone for Overlay<H> {
    fn clone(&self) -> Self {
        Self::with(self.base.clone(), self.extra.clone())
    }
}

macro_rules! listing {
    ($self:ident, $field:ident, $method:ident) => {
        match (&$self.base, &$self.merged.$field) {
            (_, Some(merged)) => merged,
            (Some(base), None) => base.$method(),
            (None, None) => $self.extra.$method(),
        }
    };
}

impl<H: ServerHandler> ServerHandler for Overlay<H> {
    fn tools(&self) -> &[Tool] {
        listing!(self, tools, tools)
    }
    fn call_tool(
        &self,
        name: &str,
        ctx: Context,
        arguments: Option<Box<RawValue>>,
    ) -> Option<impl Future<Output = Result<CallToolResult, McpError>> + Send + '_> {
        // With nothing beside it, the base's own lookup (a `match`) is the only one.
        if let Some(b) = &self.base
            && (self.extra.tools().is_empty() || b.tools().iter().any(|t| t.name == name))
        {
            return b.call_tool(name, ctx, arguments).map(futures_either::left);
        }
        (self.extra)
            .call_tool(name, ctx, arguments)
            .map(futures_either::right)
    }
    fn prompts(&self) -> &[Prompt] {
        listing!(self, prompts, prompts)
    }
    fn get_prompt(
        &self,
        name: &str,
        ctx: Context,
        arguments: HashMap<String, String>,
    ) -> Option<impl Future<Output = Result<GetPromptResult, McpError>> + Send + '_> {
        if let Some(b) = &self.base
            && (self.extra.prompts().is_empty() || b.prompts().iter().any(|p| p.name == name))
        {
            return b.get_prompt(name, ctx, arguments).map(futures_either::left);
        }
        (self.extra)
            .get_prompt(name, ctx, arguments)
            .map(futures_either::right)
    }
    fn resources(&self) -> &[Resource] {
        listing!(self, resources, resources)
    }
    fn resource_templates(&self) -> &[ResourceTemplate] {
        listing!(self, templates, resource_templates)
    }
    fn read_resource(
        &self,
        uri: &str,
        ctx: Context,
    ) -> Option<impl Future<Output = Result<ReadResourceResult, McpError>> + Send + '_> {
        // A concrete run-time resource wins over a base template that also matches it; a
        // base resource or template over a run-time template.
        let extra_concrete = self.extra.resources().iter().any(|r| r.uri == uri);
        if let Some(b) = &self.base
            && !extra_concrete
        {
            // The context is only cloned when there is a registry to fall back to.
            if self.extra.resources().is_empty() && self.extra.resource_templates().is_empty() {
                return b.read_resource(uri, ctx).map(futures_either::left);
            }
            if let Some(f) = b.read_resource(uri, ctx.clone()) {
                return Some(futures_either::left(f));
            }
        }
        self.extra
            .read_resource(uri, ctx)
            .map(futures_either::right)
    }
    fn has_completions(&self) -> bool {
        self.base.as_ref().is_some_and(|b| b.has_completions()) || self.extra.has_completions()
    }
    fn complete(
        &self,
        ctx: Context,
        params: CompleteParams,
    ) -> Option<impl Future<Output = Result<Completion, McpError>> + Send + '_> {
        if let Some(b) = &self.base
            && b.has_completions()
        {
            if !self.extra.has_completions() {
                return b.complete(ctx, params).map(futures_either::left);
            }
            if let Some(f) = b.complete(ctx.clone(), params.clone()) {
                return Some(futures_either::left(f));
            }
        }
        self.extra.complete(ctx, params).map(futures_either::right)
    }
    fn list_generation(&self) -> u64 {
        let base = self.base.as_ref().map_or(0, |b| b.list_generation());
        base.wrapping_add(self.extra.generation())
    }
}

/// Two future types as one (`tokio_util::either::Either` needs both outputs equal, which
/// they are here).
mod futures_either {
    use tokio_util::either::Either;

    pub(super) fn left<A, B>(a: A) -> Either<A, B> {
        Either::Left(a)
    }

    pub(super) fn right<A, B>(b: B) -> Either<A, B> {
        Either::Right(b)
    }
}
