//! The file's tool transforms (`gateway.servers.NAME.tools`) as one
//! [`ToolTransforms`] layer of the gateway, the outermost of its policies, replaced by each
//! (re)load: [`tool_transforms`] builds and checks it (the library's, as `ClientGroup`
//! uses), and the rate limit learns here which tool each new name stands for.

use std::collections::HashMap;

use mcp_runtime::proxy::config::{ToolEdit, UpstreamTools, tool_transforms};
use mcp_runtime::transform::ToolTransforms;

/// What one load of the file asks: the layer (none: nothing to transform), and for the rate
/// limit, the gateway's own name of each tool a client sees under another.
pub struct Transforms {
    pub layer: Option<ToolTransforms>,
    pub own_names: HashMap<String, String>,
}

/// The transforms of `edits` over `upstreams`, or what is wrong with them, naming the key.
pub fn build(edits: &[ToolEdit], upstreams: &[UpstreamTools<'_>]) -> Result<Transforms, String> {
    let prefix_of = |key: &str| {
        let u = upstreams.iter().find(|u| u.key == key);
        u.map(|u| u.prefix.as_str()).unwrap_or_default()
    };
    let own_names = (edits.iter())
        .filter_map(|e| {
            let own = format!("{}{}", prefix_of(&e.upstream), e.tool);
            e.name.clone().map(|name| (name, own))
        })
        .collect();
    Ok(Transforms {
        layer: tool_transforms(edits, upstreams)?,
        own_names,
    })
}
