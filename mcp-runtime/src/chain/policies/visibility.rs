//! [`Visibility`]: which tools each caller may see and call.

use std::collections::{HashMap, HashSet};

use super::call::{ListFor, retain_tools, tool_name, unknown_tool};
use super::caller::CallerKey;
use crate::chain::middleware::{Endpoint, Middleware, Next};
use crate::common::error::HandlerResult;
use crate::context::Context;

/// A set of tools, by name.
///
/// ```
/// use mcp_runtime::policies::ToolSet;
///
/// assert!(ToolSet::all().contains("x"));
/// assert!(ToolSet::only(["a"]).contains("a") && !ToolSet::only(["a"]).contains("b"));
/// assert!(!ToolSet::except(["a"]).contains("a") && ToolSet::except(["a"]).contains("b"));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToolSet {
    /// Every tool.
    All,
    /// These tools and no other.
    Only(HashSet<String>),
    /// Every tool but these.
    Except(HashSet<String>),
}

impl ToolSet {
    /// Every tool.
    pub fn all() -> Self {
        ToolSet::All
    }

    /// These tools and no other.
    pub fn only<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        ToolSet::Only(names.into_iter().map(Into::into).collect())
    }

    /// Every tool but these.
    pub fn except<S: Into<String>>(names: impl IntoIterator<Item = S>) -> Self {
        ToolSet::Except(names.into_iter().map(Into::into).collect())
    }

    /// Whether the set holds the tool `name`.
    pub fn contains(&self, name: &str) -> bool {
        match self {
            ToolSet::All => true,
            ToolSet::Only(names) => names.contains(name),
            ToolSet::Except(names) => !names.contains(name),
        }
    }
}

/// Which tools each caller sees: a [`ToolSet`] per caller (named by a [`CallerKey`]), and
/// one for every caller not named.
///
/// A tool outside the caller's set is **hidden**: absent from `tools/list`, and calling it
/// answers `-32602 "Unknown tool: <name>"`, what the server answers for a tool it does not
/// have.
///
/// A filtered list is the caller's own: on 2026-07-28 its `cacheScope` is never `"public"`
/// (a `"public"` one becomes `"private"`).
///
/// Callers are named as the key names them: with the default key, `"principal:<subject>"`
/// or `"session:<id>"`; with [`CallerKey::from_fn`], whatever the function returns.
///
/// ```
/// use mcp_runtime::policies::{CallerKey, ToolSet, Visibility};
///
/// // Admins see everything, everyone else neither `delete` nor `reindex`.
/// let v = Visibility::new(ToolSet::except(["delete", "reindex"]))
///     .caller("principal:admin", ToolSet::all());
/// # let _ = v;
/// ```
#[derive(Debug, Clone)]
pub struct Visibility {
    key: CallerKey,
    per_caller: HashMap<String, ToolSet>,
    otherwise: ToolSet,
}

impl Visibility {
    /// `tools` for every caller not named with [`caller`](Self::caller).
    pub fn new(tools: ToolSet) -> Self {
        Self {
            key: CallerKey::default(),
            per_caller: HashMap::new(),
            otherwise: tools,
        }
    }

    /// `tools` for the caller `name` (as the key names it).
    pub fn caller(mut self, name: impl Into<String>, tools: ToolSet) -> Self {
        self.per_caller.insert(name.into(), tools);
        self
    }

    /// Names callers with `key` instead of the default.
    pub fn key(mut self, key: CallerKey) -> Self {
        self.key = key;
        self
    }

    /// The tools the caller of `ctx` sees.
    pub fn tools_for(&self, ctx: &Context) -> &ToolSet {
        self.per_caller
            .get(&self.key.of(ctx))
            .unwrap_or(&self.otherwise)
    }
}

impl Middleware for Visibility {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.method() == "tools/list" && !ctx.is_notification() {
            let visible = self.tools_for(&ctx);
            let out = next.run(ctx).await?;
            return retain_tools(out, ListFor::ThisCaller, |name| visible.contains(name));
        }
        match tool_name(&ctx) {
            Some(name) if !self.tools_for(&ctx).contains(&name) => Err(unknown_tool(&name)),
            _ => next.run(ctx).await,
        }
    }
}
