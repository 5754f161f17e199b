//! [`ServerHandle`]: a cloneable handle on a running server, to change what it offers
//! (dynamic registration) and to publish change notifications.
//!
//! Edits go through the handler table's cell (`handler::cell`), then publish the
//! list-changed events for the lists that actually differ.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use mcp_core::types::{
    CallToolResult, GetPromptResult, Prompt, ReadResourceResult, Resource, Tool,
};
use serde_json::value::RawValue;

use crate::common::error::McpError;
use crate::context::Context;
use crate::features::subscriptions::{Notifier, ServerEvent};
use crate::handler::cell::{HandlerCell, RegistryEditor};
use crate::handler::{Registry, ServerHandler};

pub use crate::handler::cell::Changes;

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

/// Why a registration change was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
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

// Defined here rather than in `context`, which sits below this layer and knows the handle
// only as an opaque slot on the connection.
impl Context {
    /// The handle on the server (dynamic registration, change notifications); set for
    /// tool, prompt and resource handlers.
    pub fn server(&self) -> Option<&ServerHandle> {
        // Kept on the connection (set once by the dispatcher), not copied into each request.
        self.peer.conn.server.get()
    }
}
