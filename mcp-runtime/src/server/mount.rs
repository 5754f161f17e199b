//! Mounting a server into another under a namespace ([`ServerBuilder::mount`]).
//!
//! The child's entries are mirrored into the parent's run-time table under new names —
//! tools and prompts `ns_name` (the separator is configurable), resources and templates with
//! the namespace as the first segment of the path (`data://x` → `data://ns/x`, `ui://w` →
//! `ui://ns/w`; the scheme is never touched, so URI templates keep every RFC 6570
//! expression) — and each mirrored entry delegates to the child's whole endpoint: its
//! middleware chain, then its dispatcher, with the child's own name, URI and server handle.
//! The parent's middleware runs around that, as for any call.
//!
//! Conflicts: at build time any name or URI a mount would add that the parent already
//! offers (its own entries or an earlier mount's) fails [`ServerBuilder::try_build`]. When a
//! child changes its entries while serving, the parent's entries and earlier mounts keep
//! theirs: a clashing child entry is left out (and logged). Every change of a child's lists
//! is re-read into the parent, which then sends its own `list_changed`.
//!
//! [`ServerBuilder::mount`]: crate::ServerBuilder::mount
//! [`ServerBuilder::try_build`]: crate::ServerBuilder::try_build

use std::sync::{Arc, Mutex};

use mcp_core::meta::SERVER_INFO;
use mcp_core::types::{
    CompleteResult, Completion, CompletionReference, GetPromptResult, Meta, ReadResourceResult,
    ResourceContents, Tool,
};
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::chain::middleware::DynEndpoint;
use crate::common::error::{McpError, Reply};
use crate::context::Context;
use crate::features::handle::{MountedHandle, ServerHandle};
use crate::features::subscriptions::ServerEvent;
use crate::handler::Registry;
use crate::handler::cell::{Changes, Listing, RegistryEditor};
use crate::handler::forwarded::{Forwarded, ToolAnswer};

/// How a server is mounted: the separator between the namespace and a tool's or prompt's
/// name (default `_`: `weather_forecast`).
#[derive(Debug, Clone)]
pub struct MountOptions {
    pub(crate) separator: String,
}

impl Default for MountOptions {
    fn default() -> Self {
        Self {
            separator: "_".into(),
        }
    }
}

impl MountOptions {
    /// Tools and prompts named `namespace` + `separator` + name (`.`, `-`, `__`, ...).
    pub fn separator(mut self, separator: impl Into<String>) -> Self {
        self.separator = separator.into();
        self
    }
}

/// A child as the parent's builder keeps it until `build`.
pub(crate) struct MountSpec {
    pub(crate) namespace: String,
    pub(crate) options: MountOptions,
    pub(crate) endpoint: Arc<dyn DynEndpoint>,
    pub(crate) handle: ServerHandle,
}

/// Whether `namespace` can prefix names and URI paths (1-64 of `A-Z a-z 0-9 _ - .`).
pub(crate) fn check_namespace(namespace: &str, separator: &str) -> Result<(), String> {
    let ok = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    };
    if !(1..=64).contains(&namespace.len()) || !ok(namespace) {
        return Err(format!(
            "mount namespace {namespace:?} is invalid: use 1-64 of A-Z a-z 0-9 _ - ."
        ));
    }
    if !ok(separator) {
        return Err(format!(
            "mount separator {separator:?} is invalid: tool names allow A-Z a-z 0-9 _ - ."
        ));
    }
    Ok(())
}

/// `uri` with `namespace` as the first segment of its path: `s://x` → `s://ns/x`,
/// `s:///x` → `s:///ns/x`, `s:x` → `s:ns/x`. Works on URI templates as written.
pub fn namespaced_uri(namespace: &str, uri: &str) -> String {
    let (head, rest) = split_uri(uri);
    format!("{head}{namespace}/{rest}")
}

/// The inverse of [`namespaced_uri`]: the child's URI, or `None` when `uri` is not under
/// `namespace`.
pub fn child_uri(namespace: &str, uri: &str) -> Option<String> {
    let (head, rest) = split_uri(uri);
    let rest = rest.strip_prefix(namespace)?.strip_prefix('/')?;
    Some(format!("{head}{rest}"))
}

/// `(scheme + separator, the rest)`: the point after which the namespace goes.
fn split_uri(uri: &str) -> (&str, &str) {
    let Some(colon) = uri.find(':').filter(|&i| !uri[..i].contains(['{', '/'])) else {
        return ("", uri);
    };
    let after = &uri[colon + 1..];
    let skip = if after.starts_with("///") {
        3
    } else if after.starts_with("//") {
        2
    } else {
        0
    };
    uri.split_at(colon + 1 + skip)
}

/// One addition to the parent's table, applied under its edit lock.
type Edit = Box<dyn FnOnce(&mut Registry) + Send>;

/// What one mount has put into the parent's table, to take out on the next re-read.
#[derive(Default)]
struct Mirrored {
    tools: Vec<String>,
    prompts: Vec<String>,
    resources: Vec<String>,
    templates: Vec<String>,
    /// The completers, by the parent's reference and the argument.
    completions: Vec<(CompletionReference, String)>,
}

/// One mounted child, live: re-reads the child into the parent's table.
struct Mount {
    namespace: String,
    separator: String,
    endpoint: Arc<dyn DynEndpoint>,
    child: ServerHandle,
    mirrored: Mutex<Mirrored>,
}

/// Mirrors every mount into the parent's table and keeps it in step with the children;
/// build-time clashes are returned, described.
pub(crate) fn attach(parent: &ServerHandle, mounts: Vec<MountSpec>) -> Result<(), Vec<String>> {
    let mut errors = Vec::new();
    let mut live = Vec::new();
    for spec in mounts {
        let mount = Arc::new(Mount {
            namespace: spec.namespace,
            separator: spec.options.separator,
            endpoint: spec.endpoint,
            child: spec.handle,
            mirrored: Mutex::default(),
        });
        match mount.sync(&*parent.editor, true) {
            Ok(_) => live.push(mount),
            Err(e) => errors.extend(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for mount in live {
        relay_updates(parent, &mount);
        let parent = parent.downgrade();
        let watcher_mount = mount.clone();
        let watcher = Arc::new(move |_| {
            // The parent may be gone while the child lives on.
            if let Some(parent) = parent.upgrade() {
                match watcher_mount.sync(&*parent.editor, false) {
                    // As after the parent's own edits: its list_changed, and its own
                    // parent's re-read when it is mounted too.
                    Ok(changes) => parent.changed(changes),
                    Err(e) => tracing::warn!(errors = ?e, "mounted server change not mirrored"),
                }
            }
        });
        mount
            .child
            .watchers
            .lock()
            .expect("watchers lock")
            .push(watcher);
    }
    Ok(())
}

/// Resource updates across the mount: the child's, republished by the parent under the
/// namespace; and the parent's clients' subscriptions under the namespace, held in the
/// child's interest (so a child relaying another server's updates subscribes there).
/// Neither holds the other server's table: the parent's interest holds the child's
/// interest, the child's notifier the parent's weakly.
fn relay_updates(parent: &ServerHandle, mount: &Mount) {
    let (ns, to) = (mount.namespace.clone(), Arc::downgrade(&parent.notifier));
    let relay = Arc::new(move |uri: &str| {
        if let Some(parent) = to.upgrade() {
            parent.publish(ServerEvent::ResourceUpdated {
                uri: namespaced_uri(&ns, uri),
            });
        }
    });
    (mount.child.notifier.update_relays.lock())
        .expect("update relays lock")
        .push(relay);
    let (ns, child) = (
        mount.namespace.clone(),
        mount.child.notifier.interest.clone(),
    );
    let watcher = Arc::new(move |uri: &str, on: bool| match child_uri(&ns, uri) {
        Some(uri) if on => child.add(&uri),
        Some(uri) => {
            child.remove(&uri);
            Vec::new()
        }
        None => Vec::new(),
    });
    // Nothing is subscribed before the parent serves; nothing to wait for.
    drop(parent.notifier.interest.watch(watcher));
}

impl Mount {
    fn tool_name(&self, name: &str) -> String {
        format!("{}{}{}", self.namespace, self.separator, name)
    }

    /// Takes out what this mount mirrored and puts the child's current entries in. With
    /// `strict` (at build time) any clash is an error and nothing is changed; later a
    /// clashing entry is left out.
    fn sync(
        self: &Arc<Self>,
        parent: &dyn RegistryEditor,
        strict: bool,
    ) -> Result<Changes, Vec<String>> {
        let child = self.child.editor.listing();
        let mut mirrored = self.mirrored.lock().expect("mirror lock");
        let taken = taken_without(parent.listing(), &mirrored);
        let mut errors = Vec::new();
        let mut next = Mirrored::default();
        let this = self.clone();
        let mut clash = |what: &str, name: &str, child_name: &str| {
            let msg = format!(
                "mount `{}`: the {what} `{name}` (the child's `{child_name}`) is already offered by the server",
                self.namespace
            );
            if !strict {
                tracing::warn!("{msg}; left out");
            }
            errors.push(msg);
        };
        let mut edits: Vec<Edit> = Vec::new();
        for t in &child.tools {
            let name = self.tool_name(&t.name);
            if taken.tools.contains(&name) {
                clash("tool", &name, &t.name);
                continue;
            }
            let mut tool = t.clone();
            tool.name = name.clone();
            self.rewrite_tool_meta(&mut tool);
            let (m, child_name) = (this.clone(), t.name.clone());
            edits.push(Box::new(move |r: &mut Registry| {
                r.add_forwarding_tool(tool, move |ctx, _args| {
                    m.clone().call_tool(ctx, child_name.clone())
                });
            }));
            next.tools.push(name);
        }
        for p in &child.prompts {
            let name = self.tool_name(&p.name);
            if taken.prompts.contains(&name) {
                clash("prompt", &name, &p.name);
                continue;
            }
            let mut prompt = p.clone();
            prompt.name = name.clone();
            let (m, child_name) = (this.clone(), p.name.clone());
            edits.push(Box::new(move |r: &mut Registry| {
                r.add_prompt(prompt, move |ctx, _args| {
                    m.clone().get_prompt(ctx, child_name.clone())
                });
            }));
            next.prompts.push(name);
        }
        for res in &child.resources {
            let uri = namespaced_uri(&self.namespace, &res.uri);
            if taken.resources.contains(&uri) {
                clash("resource", &uri, &res.uri);
                continue;
            }
            let mut resource = res.clone();
            resource.uri = uri.clone();
            let m = this.clone();
            edits.push(Box::new(move |r: &mut Registry| {
                r.add_resource(resource, move |ctx, uri| m.clone().read(ctx, uri));
            }));
            next.resources.push(uri);
        }
        for t in &child.templates {
            let uri = namespaced_uri(&self.namespace, &t.uri_template);
            if taken.templates.contains(&uri) {
                clash("resource template", &uri, &t.uri_template);
                continue;
            }
            let mut template = t.clone();
            template.uri_template = uri.clone();
            let m = this.clone();
            let ns = self.namespace.clone();
            edits.push(Box::new(move |r: &mut Registry| {
                // Every URI under the namespace goes to the child, which matches it against
                // its own templates (so any RFC 6570 form works as the child serves it).
                let route = move |uri: &str| child_uri(&ns, uri).is_some();
                r.add_template_routed(template, route, move |ctx, uri| m.clone().read(ctx, uri));
            }));
            next.templates.push(uri);
        }
        if strict && !errors.is_empty() {
            return Err(errors);
        }
        if child.completions {
            self.completion_edits(&child, &mut next, &mut edits);
        }
        let old = std::mem::replace(&mut *mirrored, next);
        let changes = parent
            .edit(&mut |r| {
                for n in &old.tools {
                    r.remove_tool(n);
                }
                for n in &old.prompts {
                    r.remove_prompt(n);
                }
                for u in &old.resources {
                    r.remove_resource(u);
                }
                for u in &old.templates {
                    r.remove_template(u);
                }
                for (reference, argument) in &old.completions {
                    r.remove_completion(reference, argument);
                }
                for e in edits.drain(..) {
                    e(r);
                }
            })
            .map_err(|e| vec![format!("mount `{}`: {e}", self.namespace)])?;
        Ok(changes)
    }

    /// A completer for each argument of each prompt and each variable of each template
    /// mirrored into `next`, delegating `completion/complete` to the child with its own
    /// name or URI template in the `ref`.
    fn completion_edits(
        self: &Arc<Self>,
        child: &Listing,
        next: &mut Mirrored,
        edits: &mut Vec<Edit>,
    ) {
        let prompts =
            (child.prompts.iter()).filter(|p| next.prompts.contains(&self.tool_name(&p.name)));
        let mut wanted: Vec<(CompletionReference, CompletionReference, String)> = Vec::new();
        for p in prompts {
            for a in p.arguments.iter().flatten() {
                let ours = CompletionReference::prompt(self.tool_name(&p.name));
                wanted.push((ours, CompletionReference::prompt(&p.name), a.name.clone()));
            }
        }
        for t in &child.templates {
            let uri = namespaced_uri(&self.namespace, &t.uri_template);
            if !next.templates.contains(&uri) {
                continue;
            }
            for v in crate::handler::resource_def::template_variables(&t.uri_template) {
                let ours = CompletionReference::resource(uri.clone());
                wanted.push((
                    ours,
                    CompletionReference::resource(&t.uri_template),
                    v.to_owned(),
                ));
            }
        }
        for (ours, theirs, argument) in wanted {
            next.completions.push((ours.clone(), argument.clone()));
            let m = self.clone();
            edits.push(Box::new(move |r: &mut Registry| {
                r.add_completion(ours, &argument, move |ctx, _value, _resolved| {
                    m.clone().complete(ctx, theirs.clone())
                });
            }));
        }
    }

    /// MCP Apps: a tool's `_meta.ui.resourceUri` (and the older `ui/resourceUri`) names a
    /// resource of the child, so it follows the resource's new URI (scheme kept).
    fn rewrite_tool_meta(&self, tool: &mut Tool) {
        let Some(meta) = tool.meta.as_mut() else {
            return;
        };
        let ns = &self.namespace;
        if let Some(Value::String(u)) = meta.get_mut("ui/resourceUri") {
            *u = namespaced_uri(ns, u);
        }
        if let Some(Value::String(u)) = meta.get_mut("ui").and_then(|ui| ui.get_mut("resourceUri"))
        {
            *u = namespaced_uri(ns, u);
        }
    }

    /// `ctx` for the child: the method's params as received with `key` set to the child's
    /// `value` (renamed in place: the rest, a tool's arguments and `_meta`, is not
    /// decoded), the child's handle for [`Context::server`], and no caller's visibility.
    fn child_ctx(
        &self,
        mut ctx: Context,
        key: &str,
        value: impl Into<Value>,
    ) -> Result<Context, McpError> {
        let value = value.into();
        let renamed = (ctx.params.as_ref())
            .and_then(|p| p.with_member(key, &serde_json::to_string(&value).ok()?));
        match renamed {
            Some(params) => ctx.params = Some(params),
            // A member the params' scan does not record (`ref`), or params it left to serde.
            None => {
                let mut params: serde_json::Map<String, Value> = match ctx.params() {
                    Some(p) => serde_json::from_str(p.get())
                        .map_err(|_| McpError::invalid_params("Invalid params"))?,
                    None => Default::default(),
                };
                params.insert(key.to_owned(), value);
                ctx.set_params(&params)
                    .map_err(|e| McpError::internal(e.to_string()))?;
            }
        }
        ctx.extensions_mut()
            .insert(MountedHandle(self.child.clone()));
        // The parent's visibility was applied to the parent's names; the child's own
        // layers (if any) decide anew.
        ctx.extensions_mut()
            .remove::<crate::chain::policies::visibility::Shown>();
        Ok(ctx)
    }

    /// `tools/call` of the child's tool `name`: its answer as the child wrote it, for the
    /// same revision as the parent's (the parent re-stamps it, decoding nothing).
    async fn call_tool(
        self: Arc<Self>,
        ctx: Context,
        name: String,
    ) -> Result<ToolAnswer, McpError> {
        let child = self.child_ctx(ctx, "name", name.as_str())?;
        let reply = (self.endpoint.call_boxed(child).await)
            .map_err(|e| as_parents(e, "tool", &name, &self.tool_name(&name)))?;
        match reply {
            Reply::Result(raw) => Ok(ToolAnswer::Forwarded(Forwarded {
                raw,
                version: None,
                drop: &[SERVER_INFO],
                invalid: |e| McpError::internal(format!("a mounted server's result: {e}")),
            })),
            Reply::None => Err(McpError::internal("a mounted server sent no result")),
        }
    }

    async fn get_prompt(
        self: Arc<Self>,
        ctx: Context,
        name: String,
    ) -> Result<GetPromptResult, McpError> {
        let child = self.child_ctx(ctx, "name", name.as_str())?;
        let reply = (self.endpoint.call_boxed(child).await)
            .map_err(|e| as_parents(e, "prompt", &name, &self.tool_name(&name)))?;
        let mut r: GetPromptResult = decode(reply)?;
        r.result_type = None;
        strip_stamp(&mut r.meta);
        Ok(r)
    }

    async fn read(
        self: Arc<Self>,
        ctx: Context,
        uri: String,
    ) -> Result<ReadResourceResult, McpError> {
        let child =
            child_uri(&self.namespace, &uri).ok_or_else(|| McpError::resource_not_found(&uri))?;
        let ctx = self.child_ctx(ctx, "uri", child.as_str())?;
        let reply = (self.endpoint.call_boxed(ctx).await)
            .map_err(|e| as_parents(e, "resource", &child, &uri))?;
        let mut r: ReadResourceResult = decode(reply)?;
        r.result_type = None;
        strip_stamp(&mut r.meta);
        for c in &mut r.contents {
            let u = match c {
                ResourceContents::Text(t) => &mut t.uri,
                ResourceContents::Blob(b) => &mut b.uri,
            };
            *u = namespaced_uri(&self.namespace, u);
        }
        Ok(r)
    }

    /// `completion/complete` of the child's prompt or template `reference`.
    async fn complete(
        self: Arc<Self>,
        ctx: Context,
        reference: CompletionReference,
    ) -> Result<Completion, McpError> {
        let (kind, child, parent) = match &reference {
            CompletionReference::Prompt(p) => ("prompt", p.name.clone(), self.tool_name(&p.name)),
            CompletionReference::Resource(t) => (
                "resource template",
                t.uri.clone(),
                namespaced_uri(&self.namespace, &t.uri),
            ),
        };
        let reference =
            serde_json::to_value(reference).map_err(|e| McpError::internal(e.to_string()))?;
        let ctx = self.child_ctx(ctx, "ref", reference)?;
        let reply = (self.endpoint.call_boxed(ctx).await)
            .map_err(|e| as_parents(e, kind, &child, &parent))?;
        let r: CompleteResult = decode(reply)?;
        Ok(r.completion)
    }
}

/// What the parent offers, less what this mount put there itself.
fn taken_without(mut all: Listing, mine: &Mirrored) -> Taken {
    all.tools.retain(|t| !mine.tools.contains(&t.name));
    all.prompts.retain(|p| !mine.prompts.contains(&p.name));
    all.resources.retain(|r| !mine.resources.contains(&r.uri));
    all.templates
        .retain(|t| !mine.templates.contains(&t.uri_template));
    Taken {
        tools: all.tools.into_iter().map(|t| t.name).collect(),
        prompts: all.prompts.into_iter().map(|p| p.name).collect(),
        resources: all.resources.into_iter().map(|r| r.uri).collect(),
        templates: all.templates.into_iter().map(|t| t.uri_template).collect(),
    }
}

struct Taken {
    tools: Vec<String>,
    prompts: Vec<String>,
    resources: Vec<String>,
    templates: Vec<String>,
}

/// The child's error about its own `child` (a tool's or prompt's name, a URI) told of the
/// parent's `parent`, the name the caller used: `"Unknown <kind>: <name>"` (tool, prompt,
/// resource template) and the item in `data` (`{"uri": ..}`, `{"tool": ..}`), so an item
/// the child lacks or hides from this caller answers as one the parent lacks, and the
/// child's own names never show.
fn as_parents(e: McpError, kind: &str, child: &str, parent: &str) -> McpError {
    let McpError::Protocol(mut o) = e else {
        return e;
    };
    if o.message == format!("Unknown {kind}: {child}") {
        o.message = format!("Unknown {kind}: {parent}");
    }
    if let Some(Value::Object(data)) = &mut o.data {
        for v in data.values_mut().filter(|v| v.as_str() == Some(child)) {
            *v = parent.into();
        }
    }
    McpError::Protocol(o)
}

/// The child's encoded result, typed.
fn decode<T: DeserializeOwned>(reply: Reply) -> Result<T, McpError> {
    match reply {
        Reply::Result(raw) => serde_json::from_str(raw.get())
            .map_err(|e| McpError::internal(format!("a mounted server's result: {e}"))),
        Reply::None => Err(McpError::internal("a mounted server sent no result")),
    }
}

/// Removes the child's `serverInfo` stamp (the parent stamps its own).
fn strip_stamp(meta: &mut Option<Meta>) {
    if let Some(m) = meta {
        m.remove(SERVER_INFO);
        if m.is_empty() {
            *meta = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{as_parents, child_uri, namespaced_uri};
    use crate::common::error::McpError;
    use mcp_core::jsonrpc::ErrorObject;
    use serde_json::json;

    #[test]
    fn a_childs_unknown_item_error_names_the_parents_item_and_nothing_else_changes() {
        let wire = |e: McpError| e.to_wire();
        let e = as_parents(
            McpError::invalid_params("Unknown prompt: p"),
            "prompt",
            "p",
            "ns_p",
        );
        assert_eq!(wire(e).message, "Unknown prompt: ns_p");
        let e = McpError::invalid_params("Unknown resource template: data://{id}");
        let e = as_parents(e, "resource template", "data://{id}", "data://ns/{id}");
        assert_eq!(wire(e).message, "Unknown resource template: data://ns/{id}");
        let e = as_parents(
            McpError::resource_not_found("data://x"),
            "resource",
            "data://x",
            "data://ns/x",
        );
        assert_eq!(wire(e).data, Some(json!({"uri": "data://ns/x"})));
        // Any other error of the child's passes as it was.
        let own = ErrorObject::new(-32000, "p failed").with_data(json!({"why": "p"}));
        let e = as_parents(McpError::from(own.clone()), "prompt", "x", "ns_x");
        assert_eq!(wire(e), own);
    }

    #[test]
    fn the_namespace_goes_into_the_path_never_the_scheme() {
        for (uri, want) in [
            ("data://x", "data://ns/x"),
            ("ui://widget", "ui://ns/widget"),
            ("file:///etc/hosts", "file:///ns/etc/hosts"),
            ("urn:isbn:1", "urn:ns/isbn:1"),
            ("data://{id}", "data://ns/{id}"),
            ("data://{+path}", "data://ns/{+path}"),
            ("data://items{?q,limit}", "data://ns/items{?q,limit}"),
            ("data://{/seg*}", "data://ns/{/seg*}"),
        ] {
            assert_eq!(namespaced_uri("ns", uri), want);
            assert_eq!(child_uri("ns", want).as_deref(), Some(uri), "{want}");
        }
        assert_eq!(child_uri("ns", "data://other/x"), None);
        assert_eq!(child_uri("ns", "data://nsx/y"), None);
    }
}
