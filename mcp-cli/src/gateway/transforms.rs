//! The file's tool transforms (`gateway.servers.NAME.tools`) as one
//! [`ToolTransforms`] layer of the gateway, the outermost of its policies, replaced by each
//! (re)load. The file names an upstream's tools by their own names; the layer by the
//! gateway's (`ns_tool` under a prefix). They are checked against the tools of the upstreams
//! that are up: a down one's are taken as written until it answers, as the rate limit's
//! names are.

use std::collections::HashMap;

use mcp_core::types::Tool;
use mcp_runtime::proxy::config::{ArgEdit, ToolEdit};
use mcp_runtime::transform::{ToolTransform, ToolTransforms};

/// What one load of the file asks: the layer (none: nothing to transform), and for the rate
/// limit, the gateway's own name of each tool a client sees under another.
pub struct Transforms {
    pub layer: Option<ToolTransforms>,
    pub own_names: HashMap<String, String>,
}

/// An upstream as the transforms see it: its key, its prefix (`ns_`, or empty), its tools
/// under the gateway's names (none: down, not known yet).
pub struct Upstream<'a> {
    pub key: &'a str,
    pub prefix: String,
    pub tools: Option<Vec<Tool>>,
}

/// The transforms of `edits` over `upstreams`, or what is wrong with them, naming the key.
pub fn build(edits: &[ToolEdit], upstreams: &[Upstream<'_>]) -> Result<Transforms, String> {
    let prefix_of = |key: &str| {
        let u = upstreams.iter().find(|u| u.key == key);
        u.map(|u| u.prefix.clone()).unwrap_or_default()
    };
    let mut own_names = HashMap::new();
    for e in edits {
        if let Some(name) = &e.name {
            own_names.insert(
                name.clone(),
                format!("{}{}", prefix_of(&e.upstream), e.tool),
            );
        }
    }
    // Each upstream's against its own tools, so a mistake names its key.
    for u in upstreams {
        let (Some(tools), mine) = (&u.tools, of(edits, u.key)) else {
            continue;
        };
        if let Some(t) = layer(mine.clone(), &u.prefix)
            && let Some(problem) = t.check(tools).into_iter().next()
        {
            return Err(format!("gateway.servers.{}.tools: {problem}", u.key));
        }
    }
    // Then all that are known together: two upstreams' tools shown under one name.
    let known: Vec<&Upstream<'_>> = upstreams.iter().filter(|u| u.tools.is_some()).collect();
    let all_known: Vec<Tool> = (known.iter())
        .flat_map(|u| u.tools.clone().unwrap_or_default())
        .collect();
    let known_edits = (edits.iter()).filter(|e| known.iter().any(|u| u.key == e.upstream));
    let together = transforms(known_edits.map(|e| (e, prefix_of(&e.upstream))));
    if let Some(t) = together
        && let Some(problem) = t.check(&all_known).into_iter().next()
    {
        return Err(format!("gateway.servers.*.tools: {problem}"));
    }
    let layer = transforms(edits.iter().map(|e| (e, prefix_of(&e.upstream))));
    Ok(Transforms { layer, own_names })
}

/// The edits of the upstream `key`.
fn of<'e>(edits: &'e [ToolEdit], key: &str) -> Vec<&'e ToolEdit> {
    edits.iter().filter(|e| e.upstream == key).collect()
}

/// One upstream's edits as a layer, its tools under `prefix`.
fn layer(edits: Vec<&ToolEdit>, prefix: &str) -> Option<ToolTransforms> {
    transforms(edits.into_iter().map(|e| (e, prefix.to_owned())))
}

/// `edits` (each with its upstream's prefix) as one layer; none when there are none.
fn transforms<'e>(edits: impl Iterator<Item = (&'e ToolEdit, String)>) -> Option<ToolTransforms> {
    let mut layer = ToolTransforms::new();
    let (mut any, mut hidden) = (false, Vec::new());
    for (e, prefix) in edits {
        any = true;
        let own = format!("{prefix}{}", e.tool);
        let mut t = ToolTransform::new();
        if let Some(name) = &e.name {
            t = t.rename(name.clone());
        }
        if let Some(d) = &e.description {
            t = t.description(d.clone());
        }
        for (arg, edit) in &e.arguments {
            t = match edit {
                ArgEdit::Rename(new) => t.rename_arg(arg.clone(), new.clone()),
                ArgEdit::Value(v) => t.hide_arg(arg.clone(), v.clone()),
            };
        }
        if e.hidden {
            hidden.push(e.name.clone().unwrap_or_else(|| own.clone()));
        }
        layer = layer.tool(own, t);
    }
    any.then(|| layer.hide(hidden))
}
