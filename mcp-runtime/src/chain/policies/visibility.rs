//! [`Visibility`]: which tools, prompts and resources each caller may see and use, chosen
//! by name, tag or annotation ([`Select`], gathered in an [`ItemSet`]).
//!
//! The middleware decides nothing itself: it names the caller and hands the caller's set
//! to the dispatcher as a typed extension of the request ([`Shown`]). The dispatcher, which
//! holds the server's definitions (its own, run-time and mounted ones alike), filters each
//! list **before** cutting it into pages, and checks the one item a `tools/call`,
//! `prompts/get` or `resources/read` names after looking it up as it always does, answering
//! a hidden one with the very error it answers for an unknown one (and keeps no
//! subscription to a hidden resource, as it would hear nothing of an absent one). So no
//! definition list is handed to the policy, no params are decoded twice, and a caller's
//! pages are full.

use std::collections::HashMap;
use std::sync::Arc;

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{Meta, Prompt, Resource, ResourceTemplate, Tool, ToolAnnotations};

use super::caller::CallerKey;
use crate::chain::middleware::{Endpoint, Middleware, Named, Next};
use crate::common::error::{HandlerResult, McpError};
use crate::context::Context;

/// The JSON-RPC error code of a hidden item used by a caller, when the [`Visibility`] says
/// so with [`Denial::Unauthorized`] (in the range JSON-RPC leaves to implementations).
pub const UNAUTHORIZED: i32 = -32003;

/// The three kinds of item a server offers (a resource template is a resource).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A tool.
    Tool,
    /// A prompt.
    Prompt,
    /// A resource or a resource template.
    Resource,
}

/// A tool annotation a [`Select`] may require, read with the defaults the specification
/// gives an absent hint.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Hint {
    /// `readOnlyHint: true` (`#[mcp::tool(read_only)]`); absent means not read-only.
    ReadOnly,
    /// Not read-only, and `destructiveHint` not `false` (absent means destructive): a tool
    /// that says nothing counts as destructive.
    Destructive,
    /// `idempotentHint: true`; absent means not idempotent.
    Idempotent,
    /// `openWorldHint` not `false` (absent means open-world).
    OpenWorld,
}

impl Hint {
    /// Whether a tool with `annotations` has this hint.
    fn holds(self, annotations: Option<&ToolAnnotations>) -> bool {
        let a = annotations.cloned().unwrap_or_default();
        let read_only = a.read_only_hint == Some(true);
        match self {
            Hint::ReadOnly => read_only,
            Hint::Destructive => !read_only && a.destructive_hint != Some(false),
            Hint::Idempotent => a.idempotent_hint == Some(true),
            Hint::OpenWorld => a.open_world_hint != Some(false),
        }
    }
}

/// One item the server offers, as a [`Select`] looks at it: its kind, its name (a
/// resource's URI, a template's URI template), its `_meta` (tags) and a tool's annotations.
#[derive(Debug, Clone, Copy)]
pub struct Item<'a> {
    kind: Kind,
    name: &'a str,
    meta: Option<&'a Meta>,
    annotations: Option<&'a ToolAnnotations>,
}

impl<'a> Item<'a> {
    /// A tool.
    pub fn tool(t: &'a Tool) -> Self {
        Self {
            kind: Kind::Tool,
            name: &t.name,
            meta: t.meta.as_ref(),
            annotations: t.annotations.as_ref(),
        }
    }

    /// A prompt.
    pub fn prompt(p: &'a Prompt) -> Self {
        Self {
            kind: Kind::Prompt,
            name: &p.name,
            meta: p.meta.as_ref(),
            annotations: None,
        }
    }

    /// A resource, named by its URI.
    pub fn resource(r: &'a Resource) -> Self {
        Self {
            kind: Kind::Resource,
            name: &r.uri,
            meta: r.meta.as_ref(),
            annotations: None,
        }
    }

    /// A resource template, named by its URI template.
    pub fn template(t: &'a ResourceTemplate) -> Self {
        Self {
            kind: Kind::Resource,
            name: &t.uri_template,
            meta: t.meta.as_ref(),
            annotations: None,
        }
    }

    /// A resource URI the server has no definition for (it matches names, never tags).
    pub(crate) fn bare_resource(uri: &'a str) -> Self {
        Self {
            kind: Kind::Resource,
            name: uri,
            meta: None,
            annotations: None,
        }
    }
}

/// A definition seen as an [`Item`] (the dispatcher filters lists with it).
pub(crate) trait Listed {
    /// The item.
    fn item(&self) -> Item<'_>;
}

impl Listed for Tool {
    fn item(&self) -> Item<'_> {
        Item::tool(self)
    }
}

impl Listed for Prompt {
    fn item(&self) -> Item<'_> {
        Item::prompt(self)
    }
}

impl Listed for Resource {
    fn item(&self) -> Item<'_> {
        Item::resource(self)
    }
}

impl Listed for ResourceTemplate {
    fn item(&self) -> Item<'_> {
        Item::template(self)
    }
}

/// What one rule of an [`ItemSet`] matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Select {
    /// The tool of this name.
    Tool(String),
    /// The prompt of this name.
    Prompt(String),
    /// The resource of this URI, or the template of this URI template (as listed).
    Resource(String),
    /// Any tool, prompt, resource or template tagged so (`_meta.tags`).
    Tag(String),
    /// Any tool with this annotation (prompts and resources have none).
    Hint(Hint),
    /// Every item of this kind.
    Every(Kind),
}

impl Select {
    /// The tool `name`: its own name in the server (a mounted one's `ns_name`), whatever a
    /// [`ToolTransforms`](crate::transform::ToolTransforms) shows clients. In a
    /// [`Visibility`], a tool or prompt name the server does not have fails its build.
    pub fn tool(name: impl Into<String>) -> Self {
        Select::Tool(name.into())
    }

    /// The prompt `name`.
    pub fn prompt(name: impl Into<String>) -> Self {
        Select::Prompt(name.into())
    }

    /// The resource `uri`, or the template `uri` (its URI template as listed).
    pub fn resource(uri: impl Into<String>) -> Self {
        Select::Resource(uri.into())
    }

    /// Every item tagged `tag`.
    pub fn tagged(tag: impl Into<String>) -> Self {
        Select::Tag(tag.into())
    }

    /// Every tool with the annotation `hint`.
    pub fn annotated(hint: Hint) -> Self {
        Select::Hint(hint)
    }

    /// Every item of `kind`.
    pub fn every(kind: Kind) -> Self {
        Select::Every(kind)
    }

    /// Whether `item` matches.
    pub fn matches(&self, item: &Item<'_>) -> bool {
        match self {
            Select::Tool(n) => item.kind == Kind::Tool && item.name == n,
            Select::Prompt(n) => item.kind == Kind::Prompt && item.name == n,
            Select::Resource(u) => item.kind == Kind::Resource && item.name == u,
            Select::Tag(t) => mcp_core::types::has_tag(item.meta, t),
            Select::Hint(h) => item.kind == Kind::Tool && h.holds(item.annotations),
            Select::Every(k) => item.kind == *k,
        }
    }
}

/// The items one caller sees: all, only those some [`Select`] matches, or all but those.
///
/// ```
/// use mcp_core::types::{Prompt, Tool, ToolAnnotations};
/// use mcp_runtime::policies::{Hint, Item, ItemSet, Kind, Select};
///
/// let mut search = Tool::new("search");
/// search.annotations = Some(ToolAnnotations { read_only_hint: Some(true), ..Default::default() });
/// let refund = Tool::new("refund").with_tags(["admin"]);
/// let greet = Prompt::new("greet");
///
/// // Read-only tools, and every prompt and resource.
/// let reader = ItemSet::only([
///     Select::annotated(Hint::ReadOnly),
///     Select::every(Kind::Prompt),
///     Select::every(Kind::Resource),
/// ]);
/// assert!(reader.contains(&Item::tool(&search)) && reader.contains(&Item::prompt(&greet)));
/// assert!(!reader.contains(&Item::tool(&refund)));
/// // Everything not tagged "admin".
/// let staff = ItemSet::except([Select::tagged("admin")]);
/// assert!(staff.contains(&Item::tool(&search)) && !staff.contains(&Item::tool(&refund)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ItemSet {
    /// Every item.
    All,
    /// The items one of these matches, and no other.
    Only(Vec<Select>),
    /// Every item but those one of these matches.
    Except(Vec<Select>),
}

impl ItemSet {
    /// Every item.
    pub fn all() -> Self {
        ItemSet::All
    }

    /// No item at all.
    pub fn none() -> Self {
        ItemSet::Only(Vec::new())
    }

    /// The items one of `rules` matches, and no other.
    pub fn only(rules: impl IntoIterator<Item = Select>) -> Self {
        ItemSet::Only(rules.into_iter().collect())
    }

    /// Every item but those one of `rules` matches.
    pub fn except(rules: impl IntoIterator<Item = Select>) -> Self {
        ItemSet::Except(rules.into_iter().collect())
    }

    /// Whether the set holds `item`.
    pub fn contains(&self, item: &Item<'_>) -> bool {
        match self {
            ItemSet::All => true,
            ItemSet::Only(rules) => rules.iter().any(|r| r.matches(item)),
            ItemSet::Except(rules) => !rules.iter().any(|r| r.matches(item)),
        }
    }
}

/// What a caller that uses a hidden item directly (`tools/call`, `prompts/get`,
/// `resources/read`, `completion/complete`) is answered. Lists leave hidden items out either way.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Denial {
    /// The error the server answers for an item it does not have, byte for byte: nothing
    /// tells hidden from absent. The default.
    #[default]
    NotFound,
    /// `-32003 "Unauthorized"` ([`UNAUTHORIZED`]) with `data` naming the item
    /// (`{"tool": name}`, `{"prompt": name}`, `{"uri": uri}`): the caller learns that it
    /// exists and that it may not use it.
    Unauthorized,
}

impl Denial {
    /// The answer to a use of a hidden `item`, asked for as `asked` (a tool's or prompt's
    /// name, the URI read); `unknown` is what the server answers for an item it does not
    /// have.
    fn error(self, item: &Item<'_>, asked: &str, unknown: impl FnOnce() -> McpError) -> McpError {
        match self {
            Denial::NotFound => unknown(),
            Denial::Unauthorized => {
                let key = match item.kind {
                    Kind::Tool => "tool",
                    Kind::Prompt => "prompt",
                    Kind::Resource => "uri",
                };
                ErrorObject::new(UNAUTHORIZED, "Unauthorized")
                    .with_data(serde_json::json!({ key: asked }))
                    .into()
            }
        }
    }
}

/// Which items each caller sees: an [`ItemSet`] per caller (named by a [`CallerKey`]), and
/// one for every caller not named.
///
/// An item outside the caller's set is **hidden**: absent from `tools/list`,
/// `prompts/list`, `resources/list` and `resources/templates/list` (filtered before the
/// list is cut into pages, so every page is full and cursors walk as usual), and using it —
/// `tools/call`, `prompts/get`, `resources/read` (a URI served by a hidden template too) —
/// answers what the server answers for one it does not have: `-32602 "Unknown tool:
/// <name>"`, `-32602 "Unknown prompt: <name>"`, and for a resource `-32002 "Resource not
/// found"` (2025 revisions) or `-32602` (2026-07-28) with `data: {"uri": ...}`. A
/// `completion/complete` whose `ref` names a hidden prompt or template answers as for an
/// unknown one too (`-32602 "Unknown prompt: <name>"`, `"Unknown resource template:
/// <uri>"`). With [`deny_as(Denial::Unauthorized)`](Self::deny_as) a use answers
/// [`UNAUTHORIZED`] instead. A subscription to a hidden resource (`resources/subscribe`,
/// or a `subscriptions/listen` filter naming it) is accepted, as one to a URI the server
/// does not have is, and never hears of the resource's updates.
///
/// The sets see each item as the server defines it: its own name (before a
/// [`ToolTransforms`](crate::chain::transform::ToolTransforms) renames it), its tags and
/// its annotations, for tools, prompts and resources registered at run time or mounted too.
/// The check happens where the server looks the item up, inside every middleware: a
/// [`RateLimit`](super::RateLimit) anywhere in the chain takes a token for a call of a
/// hidden tool.
///
/// A caller's filtered list is its own: on 2026-07-28 its `cacheScope` is never `"public"`
/// (a `"public"` one becomes `"private"`). A caller whose set is [`ItemSet::All`] gets the
/// shared lists, as without the policy.
///
/// Callers are named as the key names them: with the default key, `"principal:<subject>"`
/// or `"session:<id>"`; with [`CallerKey::from_fn`], whatever the function returns. Two
/// `Visibility` layers both apply: an item is shown when both show it.
///
/// ```
/// use mcp_runtime::policies::{CallerKey, Denial, ItemSet, Select, Visibility};
///
/// // Admins see everything; everyone else nothing tagged "admin", nor the tool `reindex`.
/// let v = Visibility::new(ItemSet::except([Select::tagged("admin"), Select::tool("reindex")]))
///     .caller("principal:admin", ItemSet::all())
///     .deny_as(Denial::NotFound);
/// # let _ = v;
/// ```
#[derive(Debug, Clone)]
pub struct Visibility {
    key: CallerKey,
    per_caller: HashMap<String, Arc<ItemSet>>,
    otherwise: Arc<ItemSet>,
    denial: Denial,
}

impl Visibility {
    /// `items` for every caller not named with [`caller`](Self::caller).
    pub fn new(items: ItemSet) -> Self {
        Self {
            key: CallerKey::default(),
            per_caller: HashMap::new(),
            otherwise: Arc::new(items),
            denial: Denial::default(),
        }
    }

    /// `items` for the caller `name` (as the key names it).
    pub fn caller(mut self, name: impl Into<String>, items: ItemSet) -> Self {
        self.per_caller.insert(name.into(), Arc::new(items));
        self
    }

    /// Names callers with `key` instead of the default.
    pub fn key(mut self, key: CallerKey) -> Self {
        self.key = key;
        self
    }

    /// Answers the use of a hidden item with `denial` (by default [`Denial::NotFound`]).
    pub fn deny_as(mut self, denial: Denial) -> Self {
        self.denial = denial;
        self
    }

    /// The items the caller of `ctx` sees.
    pub fn items_for(&self, ctx: &Context) -> &ItemSet {
        self.set_for(ctx)
    }

    fn set_for(&self, ctx: &Context) -> &Arc<ItemSet> {
        self.per_caller
            .get(&self.key.of(ctx))
            .unwrap_or(&self.otherwise)
    }
}

/// The methods whose answer depends on what the caller sees.
const FILTERED: &[&str] = &[
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "subscriptions/listen",
    "completion/complete",
];

impl Middleware for Visibility {
    async fn handle<E: Endpoint + ?Sized>(
        &self,
        mut ctx: Context,
        next: Next<'_, E>,
    ) -> HandlerResult {
        if ctx.is_notification() || !FILTERED.contains(&ctx.method()) {
            return next.run(ctx).await;
        }
        let set = self.set_for(&ctx).clone();
        if *set != ItemSet::All {
            Shown::restrict(&mut ctx, set, self.denial, true);
        }
        next.run(ctx).await
    }

    fn named(&self) -> Vec<Named> {
        let sets = std::iter::once(&self.otherwise).chain(self.per_caller.values());
        let rules = sets.flat_map(|s| match &**s {
            ItemSet::All => &[][..],
            ItemSet::Only(rules) | ItemSet::Except(rules) => rules.as_slice(),
        });
        rules
            .filter_map(|r| match r {
                Select::Tool(n) => Some(Named::tool("Visibility", n)),
                Select::Prompt(n) => Some(Named::prompt("Visibility", n)),
                _ => None,
            })
            .collect()
    }
}

/// What the caller of one request sees, for the dispatcher: the set of each layer it
/// passed (a [`Visibility`], and for `tools/list` a [`ReadOnly`](super::ReadOnly) or a
/// tool filter), with its denial. A typed extension of the request.
#[derive(Debug, Clone, Default)]
pub(crate) struct Shown {
    layers: Vec<(Arc<ItemSet>, Denial)>,
    /// Some layer depends on who calls: the list is this caller's own (never `"public"`).
    per_caller: bool,
}

impl Shown {
    /// What `ctx`'s caller sees, when a layer restricted it.
    pub(crate) fn of(ctx: &Context) -> Option<&Shown> {
        ctx.extensions().get::<Shown>()
    }

    /// Restricts what `ctx`'s caller sees to `set` too (`per_caller`: the set was chosen
    /// for this caller), a use of a hidden item answered as `denial` says.
    pub(crate) fn restrict(ctx: &mut Context, set: Arc<ItemSet>, denial: Denial, per_caller: bool) {
        let mut shown = ctx.extensions().get::<Shown>().cloned().unwrap_or_default();
        shown.layers.push((set, denial));
        shown.per_caller |= per_caller;
        ctx.extensions_mut().insert(shown);
    }

    /// Whether the list shown depends on who calls.
    pub(crate) fn per_caller(&self) -> bool {
        self.per_caller
    }

    /// Whether the caller sees `item`.
    pub(crate) fn shows(&self, item: &Item<'_>) -> bool {
        self.layers.iter().all(|(set, _)| set.contains(item))
    }

    /// `Ok` when the caller may use `item`, asked for as `asked` (a tool's or prompt's
    /// name, the URI read); else the denial of the first layer hiding it (`unknown`: what
    /// the server answers for an item it does not have).
    pub(crate) fn check(
        &self,
        item: &Item<'_>,
        asked: &str,
        unknown: impl FnOnce() -> McpError,
    ) -> Result<(), McpError> {
        match self.layers.iter().find(|(set, _)| !set.contains(item)) {
            None => Ok(()),
            Some((_, denial)) => Err(denial.error(item, asked, unknown)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn annotations_are_read_with_the_specifications_defaults() {
        let bare = Tool::new("bare");
        let mut ro = Tool::new("ro");
        ro.annotations = Some(ToolAnnotations {
            read_only_hint: Some(true),
            ..Default::default()
        });
        let mut safe_write = Tool::new("w");
        safe_write.annotations = Some(ToolAnnotations {
            destructive_hint: Some(false),
            open_world_hint: Some(false),
            idempotent_hint: Some(true),
            ..Default::default()
        });
        let has = |t: &Tool, h| Select::annotated(h).matches(&Item::tool(t));
        assert!(has(&bare, Hint::Destructive) && has(&bare, Hint::OpenWorld));
        assert!(!has(&bare, Hint::ReadOnly) && !has(&bare, Hint::Idempotent));
        assert!(has(&ro, Hint::ReadOnly) && !has(&ro, Hint::Destructive));
        assert!(!has(&safe_write, Hint::Destructive) && !has(&safe_write, Hint::OpenWorld));
        assert!(has(&safe_write, Hint::Idempotent));
        // A prompt has no annotations: no hint rule matches it.
        assert!(!Select::annotated(Hint::OpenWorld).matches(&Item::prompt(&Prompt::new("p"))));
    }

    #[test]
    fn names_match_their_own_kind_and_tags_any_kind() {
        let tool = Tool::new("x").with_tags(["t"]);
        let prompt = Prompt::new("x");
        let tmpl = ResourceTemplate::new("data://{id}", "d").with_tags(["t"]);
        assert!(Select::tool("x").matches(&Item::tool(&tool)));
        assert!(!Select::tool("x").matches(&Item::prompt(&prompt)));
        assert!(Select::resource("data://{id}").matches(&Item::template(&tmpl)));
        assert!(Select::tagged("t").matches(&Item::template(&tmpl)));
        assert!(!Select::tagged("t").matches(&Item::prompt(&prompt)));
        assert!(!ItemSet::none().contains(&Item::tool(&tool)));
    }

    #[test]
    fn two_layers_both_apply_and_the_first_that_hides_answers() {
        let tool = Tool::new("x").with_tags(["admin"]);
        let shown = Shown {
            layers: vec![
                (Arc::new(ItemSet::all()), Denial::Unauthorized),
                (
                    Arc::new(ItemSet::except([Select::tagged("admin")])),
                    Denial::Unauthorized,
                ),
            ],
            per_caller: true,
        };
        assert!(!shown.shows(&Item::tool(&tool)));
        let e = shown
            .check(&Item::tool(&tool), "x", || unreachable!())
            .unwrap_err()
            .to_wire();
        assert_eq!(
            (e.code, e.data),
            (UNAUTHORIZED, Some(serde_json::json!({"tool": "x"})))
        );
    }
}
