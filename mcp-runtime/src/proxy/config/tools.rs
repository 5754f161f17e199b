//! `gateway.servers.NAME.tools`: how the gateway shows an upstream's tools, by the
//! upstream's own names — renamed, described anew, hidden, their arguments renamed or
//! hidden behind a fixed value — what [`ToolTransforms`](crate::transform::ToolTransforms)
//! does for a server written in Rust.
//!
//! ```json
//! "gateway": { "servers": { "gh": { "tools": {
//!   "search_code": { "name": "find_code", "description": "Search our code.",
//!                    "arguments": { "org": { "value": "acme" }, "q": { "name": "query" } } },
//!   "delete_repo": { "hidden": true }
//! } } } }
//! ```

use mcp_core::types::Tool;
use serde_json::Value;

use super::{ConfigError, Parser};
use crate::chain::transform::{ToolTransform, ToolTransforms};

/// One tool of an upstream as the file changes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolEdit {
    /// The upstream's key (under `mcpServers` or `gateway.servers`).
    pub upstream: String,
    /// The tool's name at the upstream.
    pub tool: String,
    /// `name`: the name clients see instead (no prefix is added to it).
    pub name: Option<String>,
    /// `description`: the description clients see instead.
    pub description: Option<String>,
    /// `hidden`: left out of the lists, and a call answers as for an unknown tool.
    pub hidden: bool,
    /// `arguments.ARG`: what happens to each named argument.
    pub arguments: Vec<(String, ArgEdit)>,
}

/// `gateway.servers.NAME.tools.TOOL.arguments.ARG`.
#[derive(Debug, Clone, PartialEq)]
pub enum ArgEdit {
    /// `{"name": "..."}`: clients see and send it under this name.
    Rename(String),
    /// `{"value": ...}`: hidden from clients, this value always sent (a value a client
    /// sends for it is replaced).
    Value(Value),
}

impl Parser<'_> {
    /// `gateway.servers.NAME.tools` of the upstream `upstream`.
    pub(super) fn tool_edits(
        &self,
        upstream: &str,
        v: &Value,
    ) -> Result<Vec<ToolEdit>, ConfigError> {
        let at = format!("gateway.servers.{upstream}.tools");
        let tools = (v.as_object())
            .ok_or_else(|| self.err(&at, "expected an object keyed by the server's tool names"))?;
        let mut edits = Vec::new();
        for (tool, t) in tools {
            let at = format!("{at}.{tool}");
            let t = (t.as_object()).ok_or_else(|| {
                self.err(
                    &at,
                    "expected an object of name, description, hidden, arguments",
                )
            })?;
            let mut edit = ToolEdit {
                upstream: upstream.to_owned(),
                tool: tool.clone(),
                name: None,
                description: None,
                hidden: false,
                arguments: Vec::new(),
            };
            for (k, v) in t {
                let key = format!("{at}.{k}");
                match k.as_str() {
                    "name" => edit.name = Some(self.named(&key, v)?),
                    "description" => edit.description = Some(self.text(&key, v)?),
                    "hidden" => {
                        edit.hidden = v
                            .as_bool()
                            .ok_or_else(|| self.err(&key, "expected true or false"))?;
                    }
                    "arguments" => edit.arguments = self.arg_edits(&key, v)?,
                    _ => {
                        return Err(self.err(
                            &key,
                            "unknown key (known: name, description, hidden, arguments)",
                        ));
                    }
                }
            }
            edits.push(edit);
        }
        Ok(edits)
    }

    /// `...tools.TOOL.arguments`: each argument renamed or given a value.
    fn arg_edits(&self, at: &str, v: &Value) -> Result<Vec<(String, ArgEdit)>, ConfigError> {
        let args = (v.as_object())
            .ok_or_else(|| self.err(at, "expected an object keyed by the tool's argument names"))?;
        let mut edits = Vec::new();
        for (arg, a) in args {
            let at = format!("{at}.{arg}");
            let one = a.as_object().filter(|o| o.len() == 1);
            let edit = match one.and_then(|o| o.iter().next()) {
                Some((k, v)) if k == "name" => {
                    ArgEdit::Rename(self.named(&format!("{at}.name"), v)?)
                }
                Some((k, v)) if k == "value" => ArgEdit::Value(v.clone()),
                _ => {
                    return Err(self.err(
                        &at,
                        "expected {\"name\": \"new name\"} or {\"value\": the value always sent}",
                    ));
                }
            };
            edits.push((arg.clone(), edit));
        }
        Ok(edits)
    }

    /// A non-empty name.
    fn named(&self, key: &str, v: &Value) -> Result<String, ConfigError> {
        let name = self.text(key, v)?;
        if name.is_empty() {
            return Err(self.err(key, "must not be empty"));
        }
        Ok(name)
    }
}

/// An upstream as the file's tool transforms see it ([`tool_transforms`]).
#[derive(Debug, Clone)]
pub struct UpstreamTools<'a> {
    /// Its key in the file.
    pub key: &'a str,
    /// The prefix its items are shown under (`ns_`), or empty.
    pub prefix: String,
    /// Its tools under the names clients see (prefix included); `None` while they are not
    /// known (down since the start).
    pub tools: Option<Vec<Tool>>,
}

impl<'a> UpstreamTools<'a> {
    /// Upstream `key` offering `tools` now (by its own names), shown under `prefix`: their
    /// names prefixed, or not known when it offers none and is `down`.
    pub fn new(key: &'a str, prefix: String, tools: Vec<Tool>, down: bool) -> Self {
        let known = !tools.is_empty() || !down;
        let tools = known.then(|| {
            (tools.into_iter())
                .map(|t| Tool {
                    name: format!("{prefix}{}", t.name),
                    ..t
                })
                .collect()
        });
        UpstreamTools { key, prefix, tools }
    }
}

/// The file's tool transforms (`edits`) over `upstreams` as one layer (`None`: there are
/// none), each edit naming its tool under its upstream's prefix. Checked against the tools
/// of the upstreams whose tools are known (a down one's edits are taken as written until it
/// answers): a tool or argument the upstream lacks, or two tools shown under one name, is
/// an error naming the key.
pub fn tool_transforms(
    edits: &[ToolEdit],
    upstreams: &[UpstreamTools<'_>],
) -> Result<Option<ToolTransforms>, String> {
    let prefix_of = |key: &str| {
        let u = upstreams.iter().find(|u| u.key == key);
        u.map(|u| u.prefix.clone()).unwrap_or_default()
    };
    // Each upstream's against its own tools, so a mistake names its key.
    for u in upstreams {
        let Some(tools) = &u.tools else { continue };
        let mine = (edits.iter()).filter(|e| e.upstream == u.key);
        if let Some(t) = layer(mine.map(|e| (e, u.prefix.clone())))
            && let Some(problem) = t.check(tools).into_iter().next()
        {
            return Err(format!("gateway.servers.{}.tools: {problem}", u.key));
        }
    }
    // Then all that are known together: two upstreams' tools shown under one name.
    let known: Vec<&UpstreamTools<'_>> = upstreams.iter().filter(|u| u.tools.is_some()).collect();
    let all_known: Vec<Tool> = (known.iter())
        .flat_map(|u| u.tools.clone().unwrap_or_default())
        .collect();
    let known_edits = (edits.iter()).filter(|e| known.iter().any(|u| u.key == e.upstream));
    if let Some(t) = layer(known_edits.map(|e| (e, prefix_of(&e.upstream))))
        && let Some(problem) = t.check(&all_known).into_iter().next()
    {
        return Err(format!("gateway.servers.*.tools: {problem}"));
    }
    Ok(layer(edits.iter().map(|e| (e, prefix_of(&e.upstream)))))
}

/// `edits` (each with its upstream's prefix) as one layer; none when there are none.
fn layer<'e>(edits: impl Iterator<Item = (&'e ToolEdit, String)>) -> Option<ToolTransforms> {
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
