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

use serde_json::Value;

use super::{ConfigError, Parser};

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
