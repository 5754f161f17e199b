//! [`ToolTransforms`]: tools as the model should see them — renamed, described anew, with
//! arguments hidden (their value injected: a constant or a function of the request's
//! [`Context`]) or renamed, and filtered by name or tag (kept: `only`, `tagged`; hidden:
//! `hide`, `hide_tagged`) — over the tools a server has, its
//! own and mounted ones alike ([`ServerBuilder::transform_tools`]).
//!
//! It is the outermost middleware but the tracing layer, so every other one — the policies
//! included — sees and names tools by their own names: `tools/list` results are rewritten (each
//! `inputSchema` too: hidden arguments leave `properties` and `required`, renamed ones are
//! renamed there; filtered-out tools are left out by the dispatcher, before the list is cut
//! into pages, as a [`Visibility`](super::policies::Visibility) does), and a `tools/call`
//! is mapped back (the tool's own name, its own argument
//! names, the hidden values set — a value the client sent for a hidden argument is
//! replaced). A tool's original name, once renamed, and a filtered-out tool answer as
//! unknown tools. What a transform names is checked against the server's tools at build
//! time (its filters' names as clients see them, the tools it transforms by their own).
//!
//! [`ServerBuilder::transform_tools`]: crate::ServerBuilder::transform_tools

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value};

use super::middleware::{Endpoint, Middleware, Named, Next};
use super::policies::call::{tool_name, unknown_tool};
use super::policies::visibility::{Denial, ItemSet, Kind, Select, Shown};
use crate::common::error::{HandlerResult, McpError, Reply};
use crate::context::Context;

type Inject = Arc<dyn Fn(&Context) -> Value + Send + Sync>;
type FindTool = dyn Fn(&str) -> Option<mcp_core::types::Tool> + Send + Sync;

/// What happens to one tool.
#[derive(Clone, Default)]
pub struct ToolTransform {
    name: Option<String>,
    description: Option<String>,
    hidden: Vec<(String, Inject)>,
    /// (the tool's own argument name, the name the client sees).
    renamed: Vec<(String, String)>,
}

impl std::fmt::Debug for ToolTransform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolTransform")
            .field("name", &self.name)
            .field("description", &self.description)
            .field(
                "hidden",
                &self.hidden.iter().map(|h| &h.0).collect::<Vec<_>>(),
            )
            .field("renamed", &self.renamed)
            .finish()
    }
}

impl ToolTransform {
    /// No change yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// Offers the tool under `name`.
    pub fn rename(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// Replaces the tool's description.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// Hides argument `arg` from the schema and always calls with `value`.
    pub fn hide_arg(self, arg: impl Into<String>, value: impl Into<Value>) -> Self {
        let value = value.into();
        self.hide_arg_with(arg, move |_| value.clone())
    }

    /// Hides argument `arg` from the schema and calls with `f(ctx)`, computed per request
    /// (the caller's identity, a tenant, a clock).
    pub fn hide_arg_with(
        mut self,
        arg: impl Into<String>,
        f: impl Fn(&Context) -> Value + Send + Sync + 'static,
    ) -> Self {
        self.hidden.push((arg.into(), Arc::new(f)));
        self
    }

    /// Shows argument `arg` to the client as `new_name`.
    pub fn rename_arg(mut self, arg: impl Into<String>, new_name: impl Into<String>) -> Self {
        self.renamed.push((arg.into(), new_name.into()));
        self
    }

    /// The tool's listing entry as the client sees it.
    fn apply(&self, tool: &mut Map<String, Value>) {
        if let Some(n) = &self.name {
            tool.insert("name".into(), n.clone().into());
        }
        if let Some(d) = &self.description {
            tool.insert("description".into(), d.clone().into());
        }
        let Some(Value::Object(schema)) = tool.get_mut("inputSchema") else {
            return;
        };
        let props = schema.get_mut("properties").and_then(Value::as_object_mut);
        if let Some(props) = props {
            for (arg, _) in &self.hidden {
                props.remove(arg);
            }
            for (own, shown) in &self.renamed {
                if let Some(v) = props.remove(own) {
                    props.insert(shown.clone(), v);
                }
            }
        }
        if let Some(Value::Array(required)) = schema.get_mut("required") {
            required.retain(|r| !self.hidden.iter().any(|(h, _)| r == h));
            for r in required.iter_mut() {
                if let Some((_, shown)) = self.renamed.iter().find(|(own, _)| r == own) {
                    *r = shown.clone().into();
                }
            }
        }
    }

    /// The client's arguments as the tool takes them.
    fn arguments(&self, ctx: &Context, args: &mut Map<String, Value>) {
        for (own, shown) in &self.renamed {
            // The tool's own name is not the client's: a value under it is dropped.
            let v = args.remove(shown);
            args.remove(own);
            if let Some(v) = v {
                args.insert(own.clone(), v);
            }
        }
        for (arg, f) in &self.hidden {
            args.insert(arg.clone(), f(ctx));
        }
    }
}

/// Which tools a client sees, after renaming.
#[derive(Debug, Clone, Default)]
enum Filter {
    #[default]
    All,
    Names(Vec<String>),
    Tag(String),
}

/// The tools hidden by [`ToolTransforms::hide`] and [`ToolTransforms::hide_tagged`].
#[derive(Debug, Clone, Default)]
struct Hidden {
    /// As the client sees them.
    names: Vec<String>,
    tags: Vec<String>,
}

/// Tool transforms and filters, for [`ServerBuilder::transform_tools`]; see the module
/// documentation.
///
/// ```
/// use mcp_runtime::transform::{ToolTransform, ToolTransforms};
///
/// let t = ToolTransforms::new().tool(
///     "search_books",
///     ToolTransform::new()
///         .rename("find")
///         .rename_arg("query", "q")
///         .hide_arg("limit", 5),
/// );
/// # let _ = t;
/// ```
///
/// [`ServerBuilder::transform_tools`]: crate::ServerBuilder::transform_tools
#[derive(Debug, Clone, Default)]
pub struct ToolTransforms {
    /// By the tool's own name.
    tools: HashMap<String, ToolTransform>,
    filter: Filter,
    /// Tools hidden whatever the filter: by the name a client sees, or by tag.
    hidden: Hidden,
    /// The filter and the hidden tools over the tools' own names, for the dispatcher to
    /// apply to `tools/list` before paging (empty: every tool shown).
    listed: Vec<Arc<ItemSet>>,
    /// A tool's listing entry by its own name (set by the builder), for the tag filter of
    /// a call.
    lookup: Option<Lookup>,
}

/// Finds a tool of the server by name.
#[derive(Clone)]
pub(crate) struct Lookup(pub(crate) Arc<FindTool>);

impl std::fmt::Debug for Lookup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Lookup")
    }
}

impl ToolTransforms {
    /// No transform, every tool shown.
    pub fn new() -> Self {
        Self::default()
    }

    /// Transforms the tool named `name` (its own name: local, or `ns_name` when mounted).
    pub fn tool(mut self, name: impl Into<String>, transform: ToolTransform) -> Self {
        self.tools.insert(name.into(), transform);
        self.relist()
    }

    /// Shows only the tools with these names (as the client sees them, after renaming).
    pub fn only<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.filter = Filter::Names(names.into_iter().map(Into::into).collect());
        self.relist()
    }

    /// Shows only the tools tagged `tag`: whose `_meta` has `"tags": [..., tag, ...]`.
    pub fn tagged(mut self, tag: impl Into<String>) -> Self {
        self.filter = Filter::Tag(tag.into());
        self.relist()
    }

    /// Hides the tools with these names (as the client sees them, after renaming): they
    /// leave `tools/list` and a call answers as for an unknown tool. Adds to what
    /// [`only`](Self::only), [`tagged`](Self::tagged) and earlier calls leave out; a name
    /// that is no tool's fails the server's build.
    ///
    /// ```
    /// use mcp_runtime::transform::ToolTransforms;
    ///
    /// // All of an upstream's tools but two.
    /// let t = ToolTransforms::new().hide(["github_delete_repo", "github_merge_pr"]);
    /// # let _ = t;
    /// ```
    pub fn hide<S: Into<String>>(mut self, names: impl IntoIterator<Item = S>) -> Self {
        self.hidden.names.extend(names.into_iter().map(Into::into));
        self.relist()
    }

    /// Hides the tools tagged `tag` (`_meta.tags`), as [`hide`](Self::hide) does by name.
    pub fn hide_tagged(mut self, tag: impl Into<String>) -> Self {
        self.hidden.tags.push(tag.into());
        self.relist()
    }

    /// Sets [`listed`](Self::listed) from the filter and the hidden tools, in the tools'
    /// own names.
    fn relist(mut self) -> Self {
        self.listed.clear();
        let own = |names: &[String]| -> Vec<Select> {
            (names.iter())
                .filter_map(|n| self.by_shown(n))
                .map(|(own, _)| Select::tool(own))
                .collect()
        };
        let shown = match &self.filter {
            Filter::All => None,
            Filter::Names(names) => Some(own(names)),
            Filter::Tag(tag) => Some(vec![Select::tagged(tag.clone())]),
        };
        let mut hidden = own(&self.hidden.names);
        hidden.extend(self.hidden.tags.iter().cloned().map(Select::tagged));
        if let Some(tools) = shown {
            let others = [Select::every(Kind::Prompt), Select::every(Kind::Resource)];
            let set = ItemSet::only(tools.into_iter().chain(others));
            self.listed.push(Arc::new(set));
        }
        if !hidden.is_empty() {
            // Handed to `tools/list` only, so a tag hides tools alone.
            self.listed.push(Arc::new(ItemSet::except(hidden)));
        }
        self
    }

    /// Looks the server's tools up with `f` (the tag filter of calls).
    pub(crate) fn with_lookup(mut self, f: Lookup) -> Self {
        self.lookup = Some(f);
        self
    }

    /// The tool's own name and its transform, from the name a client sees; `None` for the
    /// own name of a renamed tool, which is not offered.
    fn by_shown(&self, shown: &str) -> Option<(String, Option<&ToolTransform>)> {
        for (own, t) in &self.tools {
            if t.name.as_deref().unwrap_or(own) == shown {
                return Some((own.clone(), Some(t)));
            }
        }
        let renamed_away = self.tools.get(shown).is_some_and(|t| t.name.is_some());
        (!renamed_away).then(|| (shown.to_owned(), None))
    }

    /// What is wrong with these transforms over a server's `tools`, a message each (none:
    /// nothing): a tool or argument they name that is not there, a renaming onto a name
    /// already taken. A server's build runs it; a gateway whose tools come and go runs it
    /// when its tools are known.
    pub fn check(&self, tools: &[mcp_core::types::Tool]) -> Vec<String> {
        let mut errors = Vec::new();
        let mut shown: Vec<String> = Vec::new();
        for tool in tools {
            let t = self.tools.get(&tool.name);
            shown.push(
                t.and_then(|t| t.name.clone())
                    .unwrap_or_else(|| tool.name.clone()),
            );
            let Some(t) = t else { continue };
            let props = tool
                .input_schema
                .get("properties")
                .and_then(Value::as_object);
            let has = |a: &str| props.is_some_and(|p| p.contains_key(a));
            for a in t
                .hidden
                .iter()
                .map(|h| &h.0)
                .chain(t.renamed.iter().map(|r| &r.0))
            {
                if !has(a) {
                    errors.push(format!(
                        "transform of tool `{}`: it has no argument `{a}`",
                        tool.name
                    ));
                }
            }
            for (own, new) in &t.renamed {
                if has(new) && new != own {
                    errors.push(format!(
                        "transform of tool `{}`: argument `{own}` renamed to `{new}`, which it already has",
                        tool.name
                    ));
                }
            }
        }
        for name in self.tools.keys() {
            if !tools.iter().any(|t| &t.name == name) {
                errors.push(format!(
                    "transform of tool `{name}`: the server has no such tool"
                ));
            }
        }
        let filtered = match &self.filter {
            Filter::Names(names) => names.as_slice(),
            _ => &[],
        };
        let named = (filtered.iter().map(|n| ("only", n)))
            .chain(self.hidden.names.iter().map(|n| ("hide", n)));
        for (how, name) in named {
            if !shown.contains(name) {
                let what = format!("ToolTransforms::{how}: no tool (as clients see them) is named");
                errors.push(mcp_core::rules::unknown_name(&what, name, &shown));
            }
        }
        let mut sorted = shown.clone();
        sorted.sort();
        for w in sorted.windows(2) {
            if w[0] == w[1] {
                errors.push(format!(
                    "tool transforms: two tools would be named `{}`",
                    w[0]
                ));
            }
        }
        errors
    }

    fn list(&self, out: Reply) -> HandlerResult {
        let Some(Ok(mut list)) = out.decode::<Value>() else {
            return Ok(out);
        };
        let Some(tools) = list.get_mut("tools").and_then(Value::as_array_mut) else {
            return Ok(out);
        };
        for tool in tools.iter_mut() {
            let Some(entry) = tool.as_object_mut() else {
                continue;
            };
            let own = entry.get("name").and_then(Value::as_str).unwrap_or("");
            if let Some(t) = self.tools.get(own) {
                t.apply(entry);
            }
        }
        Reply::json(&list)
    }

    fn call(&self, mut ctx: Context, shown: &str) -> Result<Context, McpError> {
        let Some((own, t)) = self.by_shown(shown) else {
            return Err(unknown_tool(shown));
        };
        let visible = match &self.filter {
            Filter::All => true,
            Filter::Names(names) => names.iter().any(|n| n == shown),
            Filter::Tag(tag) => {
                let tool = self.lookup.as_ref().and_then(|l| (l.0)(&own));
                tool.is_some_and(|t| t.has_tag(tag))
            }
        };
        let hidden = self.hidden.names.iter().any(|n| n == shown)
            || (!self.hidden.tags.is_empty() && {
                let tool = self.lookup.as_ref().and_then(|l| (l.0)(&own));
                tool.is_some_and(|t| self.hidden.tags.iter().any(|tag| t.has_tag(tag)))
            });
        if !visible || hidden {
            return Err(unknown_tool(shown));
        }
        let Some(t) = t else { return Ok(ctx) };
        let mut params: Map<String, Value> = ctx
            .decode_params()
            .map_err(|_| McpError::invalid_params("Invalid params"))?;
        params.insert("name".into(), own.into());
        let mut args = match params.remove("arguments") {
            Some(Value::Object(m)) => m,
            _ => Map::new(),
        };
        t.arguments(&ctx, &mut args);
        params.insert("arguments".into(), Value::Object(args));
        ctx.set_params(&params)
            .map_err(|e| McpError::internal(e.to_string()))?;
        Ok(ctx)
    }
}

impl Middleware for ToolTransforms {
    async fn handle<E: Endpoint + ?Sized>(
        &self,
        mut ctx: Context,
        next: Next<'_, E>,
    ) -> HandlerResult {
        if ctx.method() == "tools/list" && !ctx.is_notification() {
            // Filtered by the dispatcher before paging (the same list for every caller).
            for set in &self.listed {
                Shown::restrict(&mut ctx, set.clone(), Denial::NotFound, false);
            }
            let out = next.run(ctx).await?;
            return self.list(out);
        }
        match tool_name(&ctx) {
            Some(name) => next.run(self.call(ctx, &name)?).await,
            None => next.run(ctx).await,
        }
    }
}

/// The layer of a server's tool transforms, if it has any: the outermost but the tracing
/// one, so every other middleware sees the tools' own names and arguments, and clients the
/// transformed ones. Built by the server's builder.
pub struct Transformed(pub(crate) Option<ToolTransforms>);

impl Middleware for Transformed {
    fn handle<E: Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: Next<'_, E>,
    ) -> impl std::future::Future<Output = HandlerResult> + Send {
        match &self.0 {
            Some(t) => tokio_util::either::Either::Left(t.handle(ctx, next)),
            None => tokio_util::either::Either::Right(next.run(ctx)),
        }
    }
}

/// What the middleware's `named` tools and prompts miss of the server's own `tools` and
/// `prompts`: an error each, with the names it could have meant; for a name a transform
/// shows a tool under, that tool's own name.
pub(crate) fn check_named(
    named: &[Named],
    tools: &[mcp_core::types::Tool],
    prompts: &[mcp_core::types::Prompt],
    transforms: Option<&ToolTransforms>,
) -> Vec<String> {
    let tools: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    let prompts: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    let (mut errors, mut seen) = (Vec::new(), std::collections::HashSet::new());
    for n in named {
        let (known, kind) = match n.kind {
            Kind::Tool => (&tools, "tool"),
            Kind::Prompt => (&prompts, "prompt"),
            Kind::Resource => continue,
        };
        if known.contains(&n.name.as_str()) || !seen.insert((n.by, kind, &n.name)) {
            continue;
        }
        let what = format!("{}: the server has no {kind}", n.by);
        let mut e = mcp_core::rules::unknown_name(&what, &n.name, known);
        let own = (transforms.filter(|_| n.kind == Kind::Tool))
            .and_then(|t| t.by_shown(&n.name))
            .filter(|(own, t)| t.is_some() && own != &n.name);
        if let Some((own, _)) = own {
            e.push_str(&format!(
                "; `{}` is how a transform shows `{own}`: policies and other middleware name \
                 tools by the server's own names",
                n.name
            ));
        }
        errors.push(e);
    }
    errors
}
