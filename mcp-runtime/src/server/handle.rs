//! [`ServerHandle`]: a cloneable handle on a running server, to change what it offers
//! (dynamic registration) and to publish change notifications.
//!
//! The handler table sits in a [`HandlerCell`]: each request takes a snapshot (an `Arc`
//! clone under a read lock) and uses it to the end, so a change never tears a request in
//! half. A change copies the table, edits the copy and swaps it in (copy on write; handlers
//! are shared `Arc`s, so the copy is the listings only), then publishes the list-changed
//! events for the lists that actually differ.

use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, RwLock};

use mcp_core::types::{
    CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool,
};
use serde_json::value::RawValue;

use crate::common::error::McpError;
use crate::context::Context;
use crate::features::subscriptions::{Notifier, ServerEvent};
use crate::handler::{Registry, ServerHandler};

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
        let map = crate::server::stream::header_schemas(tools)
            .into_iter()
            .map(|(k, v)| (k, Arc::new(v)))
            .collect();
        *self.0.write().expect("header schemas lock") = Arc::new(map);
    }

    /// The annotated schema of tool `name`, if it has one (read by the 2026 HTTP checks).
    #[cfg(feature = "http")]
    pub(crate) fn get(&self, name: &str) -> Option<Arc<Schema>> {
        self.0
            .read()
            .expect("header schemas lock")
            .get(name)
            .cloned()
    }
}

/// The swappable handler table of a server.
pub(crate) struct HandlerCell<H> {
    current: RwLock<Arc<H>>,
    /// Serialises edits (copy, edit, swap).
    edit: Mutex<()>,
    /// The header-mirroring schemas of the current tools.
    pub(crate) headers: Arc<HeaderSchemas>,
}

impl<H: ServerHandler> HandlerCell<H> {
    pub(crate) fn new(handler: H) -> Self {
        Self {
            headers: Arc::new(HeaderSchemas::of(handler.tools())),
            current: RwLock::new(Arc::new(handler)),
            edit: Mutex::new(()),
        }
    }

    /// The table as of now.
    pub(crate) fn load(&self) -> Arc<H> {
        self.current.read().expect("handler lock").clone()
    }
}

/// The swappable table around `handler` and the handle on it: dynamic registration works
/// when `H` is the builder's [`Registry`]; `bus` turns change notifications on.
pub(crate) fn cell_and_handle<H: ServerHandler>(
    handler: H,
    bus: Option<Arc<dyn crate::features::subscriptions::SubscriptionBus>>,
    max_listens: usize,
) -> (Arc<HandlerCell<H>>, ServerHandle) {
    let cell = Arc::new(HandlerCell::new(handler));
    let any: Arc<dyn std::any::Any + Send + Sync> = cell.clone();
    let editor = any
        .downcast::<HandlerCell<Registry>>()
        .ok()
        .map(|c| c as Arc<dyn RegistryEditor>);
    let handle = ServerHandle {
        notifier: Arc::new(Notifier::new(bus, max_listens)),
        editor,
    };
    (cell, handle)
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

/// Edits a [`Registry`] table in place (object-safe, so the handle needs no type parameter).
pub(crate) trait RegistryEditor: Send + Sync {
    fn edit(&self, f: &mut dyn FnMut(&mut Registry)) -> Changes;
}

impl RegistryEditor for HandlerCell<Registry> {
    fn edit(&self, f: &mut dyn FnMut(&mut Registry)) -> Changes {
        let _one_at_a_time = self.edit.lock().expect("edit lock");
        let before = self.load();
        let mut next = (*before).clone();
        f(&mut next);
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
        changes
    }
}

/// Why a registration change was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HandleError {
    /// The server's handler table is not a [`Registry`] (a macro-generated table is fixed
    /// at compile time).
    StaticHandler,
}

impl std::fmt::Display for HandleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HandleError::StaticHandler => f.write_str(
                "this server's handler table is fixed: dynamic registration needs the builder's Registry",
            ),
        }
    }
}

impl std::error::Error for HandleError {}

/// A cloneable handle on a server: add and remove tools, prompts and resources while it
/// serves, publish resource updates and extension events, count open listen streams.
///
/// Get it from [`Server::handle`](crate::Server::handle) or, inside a handler, from
/// [`Context::server`](crate::Context::server). Changes reach legacy sessions as
/// `notifications/*/list_changed` and 2026 listen streams that asked for them, when the
/// server was built with [`subscriptions`](crate::ServerBuilder::subscriptions) on.
///
/// ```
/// use mcp_runtime::{McpError, Server};
/// use mcp_runtime::core::types::{CallToolResult, ContentBlock, Tool};
///
/// let server = Server::builder("demo", "1.0.0").subscriptions(true).build();
/// let handle = server.handle();
/// handle
///     .add_tool(Tool::new("late"), |_ctx, _args: serde_json::Value| async {
///         Ok::<_, McpError>(CallToolResult::success(vec![ContentBlock::text("added while serving")]))
///     })
///     .unwrap();
/// assert!(handle.remove_tool("late").unwrap());
/// ```
#[derive(Clone)]
pub struct ServerHandle {
    pub(crate) notifier: Arc<Notifier>,
    pub(crate) editor: Option<Arc<dyn RegistryEditor>>,
}

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle")
            .field("subscriptions", &self.notifier.enabled())
            .field("dynamic", &self.editor.is_some())
            .finish()
    }
}

impl ServerHandle {
    /// Publishes `event` to every listen stream and legacy session that watches it (nothing
    /// when subscriptions are off). The tasks extension publishes [`ServerEvent::Task`].
    pub fn publish(&self, event: ServerEvent) {
        self.notifier.publish(event);
    }

    /// Announces that resource `uri` changed (`notifications/resources/updated`).
    pub fn resource_updated(&self, uri: impl Into<String>) {
        self.publish(ServerEvent::ResourceUpdated { uri: uri.into() });
    }

    /// Whether change notifications are on (the builder's `subscriptions` switch).
    pub fn subscriptions_enabled(&self) -> bool {
        self.notifier.enabled()
    }

    /// How many `subscriptions/listen` streams are open right now.
    pub fn open_listens(&self) -> usize {
        self.notifier.listens.load(Ordering::Acquire)
    }

    /// Ends every open listen stream gracefully (each gets its closing result), e.g. before
    /// shutting down.
    pub fn end_listens(&self) {
        self.notifier.end.cancel();
    }

    /// Edits the handler table; publishes list-changed events for the lists that differ.
    pub fn update(&self, f: impl FnOnce(&mut Registry)) -> Result<Changes, HandleError> {
        let editor = self.editor.as_ref().ok_or(HandleError::StaticHandler)?;
        let mut f = Some(f);
        let changes = editor.edit(&mut |r| {
            if let Some(f) = f.take() {
                f(r)
            }
        });
        if changes.tools {
            self.publish(ServerEvent::ToolsListChanged);
        }
        if changes.prompts {
            self.publish(ServerEvent::PromptsListChanged);
        }
        if changes.resources {
            self.publish(ServerEvent::ResourcesListChanged);
        }
        Ok(changes)
    }

    /// Adds (or replaces) a tool whose arguments decode into `A`, like
    /// [`ServerBuilder::tool`](crate::ServerBuilder::tool).
    pub fn add_tool<A, F, Fut>(&self, tool: Tool, handler: F) -> Result<(), HandleError>
    where
        A: serde::de::DeserializeOwned + Send + 'static,
        F: Fn(Context, A) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, McpError>> + Send + 'static,
    {
        let handler = Arc::new(handler);
        self.update(move |r| {
            r.add_tool(tool, move |ctx, args: Option<Box<RawValue>>| {
                let handler = handler.clone();
                async move {
                    match crate::handler::tool::decode_arguments::<A>(args.as_deref()) {
                        Ok(a) => handler(ctx, a).await,
                        Err(bad) => Ok(bad),
                    }
                }
            })
        })
        .map(|_| ())
    }

    /// Removes a tool; whether it existed.
    pub fn remove_tool(&self, name: &str) -> Result<bool, HandleError> {
        let mut found = false;
        self.update(|r| found = r.remove_tool(name))?;
        Ok(found)
    }

    /// Adds (or replaces) a prompt.
    pub fn add_prompt<F, Fut>(&self, prompt: Prompt, handler: F) -> Result<(), HandleError>
    where
        F: Fn(Context, std::collections::HashMap<String, String>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<GetPromptResult, McpError>> + Send + 'static,
    {
        self.update(move |r| r.add_prompt(prompt, handler))
            .map(|_| ())
    }

    /// Removes a prompt; whether it existed.
    pub fn remove_prompt(&self, name: &str) -> Result<bool, HandleError> {
        let mut found = false;
        self.update(|r| found = r.remove_prompt(name))?;
        Ok(found)
    }

    /// Adds (or replaces) a concrete resource.
    pub fn add_resource<F, Fut>(&self, resource: Resource, reader: F) -> Result<(), HandleError>
    where
        F: Fn(Context, String) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<ReadResourceResult, McpError>> + Send + 'static,
    {
        self.update(move |r| r.add_resource(resource, reader))
            .map(|_| ())
    }

    /// Removes a concrete resource; whether it existed.
    pub fn remove_resource(&self, uri: &str) -> Result<bool, HandleError> {
        let mut found = false;
        self.update(|r| found = r.remove_resource(uri))?;
        Ok(found)
    }
}
