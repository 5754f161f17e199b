//! The proxy's entries in a server's run-time table: installed, replaced in one edit when
//! the lists change (each kind that differs announced once), taken out when the upstream is
//! down or the server is detached; named as the upstream names them or under a namespace
//! ([`Under`]: tools and prompts `ns` + separator + name, resources and templates with `ns`
//! as the first path segment, as a mount names them).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_core::types::{
    Completion, CompletionReference, GetPromptResult, Prompt, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, Tool,
};
use serde_json::value::RawValue;

use crate::common::BoxFuture;
use crate::common::error::McpError;
use crate::context::Context;
use crate::features::handle::{HandleError, ServerHandle, WeakHandle};
use crate::handler::Registry;
use crate::handler::cell::Changes;
use crate::handler::forwarded::ToolAnswer;
use crate::handler::resource_def::template_variables;
use crate::server::mount::{child_uri, namespaced_uri};

/// What an upstream offers, as last read.
#[derive(Debug, Clone, Default)]
pub(super) struct Lists {
    pub(super) tools: Vec<Tool>,
    pub(super) prompts: Vec<Prompt>,
    pub(super) resources: Vec<Resource>,
    pub(super) templates: Vec<ResourceTemplate>,
}

/// What the installed entries forward to (the table implements it; this file imports
/// nothing of the table's).
pub(super) trait Source: Send + Sync + 'static {
    /// Whether the upstream answers `completion/complete`.
    fn offers_completions(&self) -> bool;
    /// `tools/call` of the upstream's tool `name`: its answer as the upstream wrote it.
    fn call_tool(
        self: Arc<Self>,
        ctx: Context,
        name: String,
        args: Option<Box<RawValue>>,
    ) -> BoxFuture<'static, Result<ToolAnswer, McpError>>;
    /// `prompts/get` of the upstream's prompt `name`.
    fn get_prompt(
        self: Arc<Self>,
        ctx: Context,
        name: String,
        args: HashMap<String, String>,
    ) -> BoxFuture<'static, Result<GetPromptResult, McpError>>;
    /// `resources/read` of the upstream's `uri`.
    fn read(
        self: Arc<Self>,
        ctx: Context,
        uri: String,
    ) -> BoxFuture<'static, Result<ReadResourceResult, McpError>>;
    /// `completion/complete`, the reference replaced by the upstream's when given.
    fn complete(
        self: Arc<Self>,
        ctx: Context,
        theirs: Option<CompletionReference>,
    ) -> BoxFuture<'static, Result<Completion, McpError>>;
    /// The servers serving the proxy, and what each holds.
    fn servers(&self) -> &Mutex<Vec<(WeakHandle, Installed)>>;
    /// The upstream's resource subscriptions are brought in line again.
    fn resubscribe(&self);
}

/// The namespace a server gives the proxy's entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Under {
    pub(super) namespace: String,
    pub(super) separator: String,
}

/// The names and URIs one server holds of the proxy's, to take out on the next re-read,
/// and the namespace it gives them.
#[derive(Default)]
pub(super) struct Installed {
    tools: Vec<String>,
    prompts: Vec<String>,
    resources: Vec<String>,
    templates: Vec<String>,
    /// The completers, by the server's reference and argument.
    completions: Vec<(CompletionReference, String)>,
    pub(super) under: Option<Under>,
}

impl Installed {
    /// Nothing installed yet, named `under` a namespace or not.
    pub(super) fn new(under: Option<Under>) -> Self {
        Installed {
            under,
            ..Installed::default()
        }
    }
}

/// How one server names the proxy's entries.
#[derive(Clone)]
struct Naming(Option<Under>);

impl Naming {
    fn name(&self, n: &str) -> String {
        match &self.0 {
            Some(u) => format!("{}{}{n}", u.namespace, u.separator),
            None => n.to_owned(),
        }
    }

    fn uri(&self, u: &str) -> String {
        match &self.0 {
            Some(under) => namespaced_uri(&under.namespace, u),
            None => u.to_owned(),
        }
    }

    /// The upstream's URI of the server's `uri`.
    fn upstream_uri(&self, uri: &str) -> Option<String> {
        match &self.0 {
            Some(u) => child_uri(&u.namespace, uri),
            None => Some(uri.to_owned()),
        }
    }

    fn reference(&self, r: &CompletionReference) -> CompletionReference {
        match r {
            CompletionReference::Prompt(p) => CompletionReference::prompt(self.name(&p.name)),
            CompletionReference::Resource(t) => CompletionReference::resource(self.uri(&t.uri)),
        }
    }
}

/// Reads `uri` (the server's) upstream, the contents' URIs named as the server names them.
async fn read<S: Source>(
    shared: Arc<S>,
    naming: Naming,
    ctx: Context,
    uri: String,
) -> Result<ReadResourceResult, McpError> {
    let upstream = (naming.upstream_uri(&uri))
        .ok_or_else(|| McpError::invalid_params(format!("Unknown resource: {uri}")))?;
    let mut r = shared.read(ctx, upstream).await?;
    if naming.0.is_some() {
        for c in &mut r.contents {
            let u = match c {
                ResourceContents::Text(t) => &mut t.uri,
                ResourceContents::Blob(b) => &mut b.uri,
            };
            *u = naming.uri(u);
        }
    }
    Ok(r)
}

/// Replaces what `installed` says the server holds of the proxy's with `lists`, in one
/// edit (so each list that differs is announced once); which lists differed.
pub(super) fn install<S: Source>(
    shared: &Arc<S>,
    handle: &ServerHandle,
    lists: &Lists,
    installed: &mut Installed,
) -> Result<Changes, HandleError> {
    let naming = Naming(installed.under.clone());
    let old = std::mem::replace(installed, Installed::new(naming.0.clone()));
    let completions = if shared.offers_completions() {
        completion_keys(lists)
    } else {
        Vec::new()
    };
    // Each entry holds the proxy: a server keeps its upstream connection alive.
    let changes = handle.update(|r: &mut Registry| {
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
        for (reference, argument) in &completions {
            let s = shared.clone();
            let theirs = naming.0.as_ref().map(|_| reference.clone());
            r.add_completion(
                naming.reference(reference),
                argument,
                move |ctx, _value, _resolved| {
                    let (s, theirs) = (s.clone(), theirs.clone());
                    s.complete(ctx, theirs)
                },
            );
        }
        for t in &lists.tools {
            let (s, name) = (shared.clone(), t.name.clone());
            let mut tool = t.clone();
            tool.name = naming.name(&t.name);
            r.add_forwarding_tool(tool, move |ctx, args| {
                s.clone().call_tool(ctx, name.clone(), args)
            });
        }
        for p in &lists.prompts {
            let (s, name) = (shared.clone(), p.name.clone());
            let mut prompt = p.clone();
            prompt.name = naming.name(&p.name);
            r.add_prompt(prompt, move |ctx, args| {
                s.clone().get_prompt(ctx, name.clone(), args)
            });
        }
        for res in &lists.resources {
            let (s, n) = (shared.clone(), naming.clone());
            let mut resource = res.clone();
            resource.uri = naming.uri(&res.uri);
            r.add_resource(resource, move |ctx, uri| {
                read(s.clone(), n.clone(), ctx, uri)
            });
        }
        for t in &lists.templates {
            let (s, n) = (shared.clone(), naming.clone());
            let mut template = t.clone();
            template.uri_template = naming.uri(&t.uri_template);
            // The upstream matches its own templates: every URI no concrete resource takes
            // (under the namespace, when there is one) goes to it, whatever RFC 6570 form
            // the template has.
            let routed = naming.clone();
            r.add_template_routed(
                template,
                move |uri| routed.upstream_uri(uri).is_some(),
                move |ctx, uri| read(s.clone(), n.clone(), ctx, uri),
            );
        }
    })?;
    installed.tools = lists.tools.iter().map(|t| naming.name(&t.name)).collect();
    installed.prompts = lists.prompts.iter().map(|p| naming.name(&p.name)).collect();
    installed.resources = lists.resources.iter().map(|r| naming.uri(&r.uri)).collect();
    installed.templates = (lists.templates.iter())
        .map(|t| naming.uri(&t.uri_template))
        .collect();
    installed.completions = (completions.iter())
        .map(|(r, a)| (naming.reference(r), a.clone()))
        .collect();
    Ok(changes)
}

/// Every prompt argument and template variable of `lists`, each a completer forwarding
/// upstream (when the upstream offers completions).
fn completion_keys(lists: &Lists) -> Vec<(CompletionReference, String)> {
    let mut keys = Vec::new();
    for p in &lists.prompts {
        for a in p.arguments.iter().flatten() {
            keys.push((CompletionReference::prompt(&p.name), a.name.clone()));
        }
    }
    for t in &lists.templates {
        for v in template_variables(&t.uri_template) {
            keys.push((CompletionReference::resource(&t.uri_template), v.to_owned()));
        }
    }
    keys
}

/// Installs `lists` into every server still serving the proxy; the kinds `announced` are
/// announced even where the list read again is the same (the upstream may know of a change
/// its listing hides).
pub(super) fn install_everywhere<S: Source>(shared: &Arc<S>, lists: &Lists, announced: Changes) {
    // A reconnection subscribes anew; a resource now listed may be wanted.
    shared.resubscribe();
    let mut servers = shared.servers().lock().expect("servers lock");
    servers.retain_mut(|(weak, installed)| {
        let Some(handle) = weak.upgrade() else {
            return false;
        };
        match install(shared, &handle, lists, installed) {
            Ok(got) => {
                let missing = Changes {
                    tools: announced.tools && !got.tools,
                    prompts: announced.prompts && !got.prompts,
                    resources: announced.resources && !got.resources,
                };
                if missing.any() {
                    handle.changed(missing);
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "the upstream's new entries clash with the server's own")
            }
        }
        true
    });
}
