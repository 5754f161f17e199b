//! The swappable handler table: each request takes a snapshot (an `Arc` clone under a read
//! lock) and uses it to the end, so a change never tears a request in half. A change copies
//! the table, edits the copy and swaps it in (copy on write; handlers are shared `Arc`s, so
//! the copy is the listings only).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use mcp_core::types::Tool;

use super::{Overlay, Registry, ServerHandler};

type Schema = serde_json::Map<String, serde_json::Value>;

/// The `inputSchema` of each tool that mirrors arguments into `Mcp-Param-*` headers (the
/// 2026 HTTP header checks run before the chain), kept in step with the table.
#[derive(Default)]
pub(crate) struct HeaderSchemas(RwLock<Arc<HashMap<String, Arc<Schema>>>>);

impl HeaderSchemas {
    fn of(tools: &[Tool]) -> Self {
        let s = Self::default();
        s.refresh(tools);
        s
    }

    fn refresh(&self, tools: &[Tool]) {
        let map = header_schemas(tools)
            .into_iter()
            .map(|(k, v)| (k, Arc::new(v)))
            .collect();
        *self.0.write().expect("header schemas lock") = Arc::new(map);
    }

    /// The annotated schema of tool `name`, if it has one (read by the 2026 HTTP checks).
    pub(crate) fn get(&self, name: &str) -> Option<Arc<Schema>> {
        self.0
            .read()
            .expect("header schemas lock")
            .get(name)
            .cloned()
    }
}

/// The swappable handler table of a server: its own table and the run-time entries beside
/// it ([`Overlay`]).
pub(crate) struct HandlerCell<H> {
    current: RwLock<Arc<Overlay<H>>>,
    /// Serialises edits (copy, edit, swap).
    edit: Mutex<()>,
    /// The header-mirroring schemas of the current tools.
    pub(crate) headers: Arc<HeaderSchemas>,
}

impl<H: ServerHandler> HandlerCell<H> {
    pub(crate) fn new(handler: H) -> Self {
        Self {
            headers: Arc::new(HeaderSchemas::of(handler.tools())),
            current: RwLock::new(Arc::new(Overlay::new(handler))),
            edit: Mutex::new(()),
        }
    }

    /// The table as of now.
    pub(crate) fn load(&self) -> Arc<Overlay<H>> {
        self.current.read().expect("handler lock").clone()
    }
}

/// The tools whose `inputSchema` mirrors arguments into `Mcp-Param-*` headers.
pub(crate) fn header_schemas(
    tools: &[mcp_core::types::Tool],
) -> HashMap<String, serde_json::Map<String, serde_json::Value>> {
    fn annotated(v: &serde_json::Value) -> bool {
        match v {
            serde_json::Value::Object(m) => {
                m.contains_key(mcp_core::headers::X_MCP_HEADER) || m.values().any(annotated)
            }
            serde_json::Value::Array(a) => a.iter().any(annotated),
            _ => false,
        }
    }
    tools
        .iter()
        .filter(|t| t.input_schema.values().any(annotated))
        .map(|t| (t.name.clone(), t.input_schema.clone()))
        .collect()
}

/// Which lists an edit changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Changes {
    /// The tool list differs.
    pub tools: bool,
    /// The prompt list differs.
    pub prompts: bool,
    /// The resource or resource-template list differs.
    pub resources: bool,
}

impl Changes {
    /// Whether anything changed.
    pub fn any(&self) -> bool {
        self.tools || self.prompts || self.resources
    }
}

/// Edits the run-time [`Registry`] of a table (object-safe, so the handle needs no type
/// parameter); refuses, changing nothing, an edit that clashes with the server's own table.
pub(crate) trait RegistryEditor: Send + Sync {
    fn edit(&self, f: &mut dyn FnMut(&mut Registry)) -> Result<Changes, String>;
    /// Everything the table offers now, declared and run-time entries alike.
    fn listing(&self) -> Listing;
    /// The tool `name`'s listing entry, if the table has it now.
    fn tool(&self, name: &str) -> Option<Tool>;
}

/// A copy of what a table offers.
#[derive(Debug, Clone, Default)]
pub(crate) struct Listing {
    pub(crate) tools: Vec<Tool>,
    pub(crate) prompts: Vec<mcp_core::types::Prompt>,
    pub(crate) resources: Vec<mcp_core::types::Resource>,
    pub(crate) templates: Vec<mcp_core::types::ResourceTemplate>,
    /// Whether it answers `completion/complete`.
    pub(crate) completions: bool,
}

impl<H: ServerHandler> RegistryEditor for HandlerCell<H> {
    fn edit(&self, f: &mut dyn FnMut(&mut Registry)) -> Result<Changes, String> {
        let _one_at_a_time = self.edit.lock().expect("edit lock");
        let before = self.load();
        let next = before.edited(f)?;
        let changes = Changes {
            tools: before.tools() != next.tools(),
            prompts: before.prompts() != next.prompts(),
            resources: before.resources() != next.resources()
                || before.resource_templates() != next.resource_templates(),
        };
        if changes.tools {
            self.headers.refresh(next.tools());
        }
        *self.current.write().expect("handler lock") = Arc::new(next);
        Ok(changes)
    }

    fn tool(&self, name: &str) -> Option<Tool> {
        self.load().tools().iter().find(|t| t.name == name).cloned()
    }

    fn listing(&self) -> Listing {
        let h = self.load();
        Listing {
            tools: h.tools().to_vec(),
            prompts: h.prompts().to_vec(),
            resources: h.resources().to_vec(),
            templates: h.resource_templates().to_vec(),
            completions: h.has_completions(),
        }
    }
}
