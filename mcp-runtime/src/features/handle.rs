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

/// The swappable table around `handler` and the handle on it: run-time entries go beside
/// the server's own table (`handler::overlay`); `bus` turns change notifications on.
pub(crate) fn cell_and_handle<H: ServerHandler>(
    handler: H,
    bus: Option<Arc<dyn crate::features::subscriptions::SubscriptionBus>>,
    max_listens: usize,
) -> (Arc<HandlerCell<H>>, ServerHandle) {
    let cell = Arc::new(HandlerCell::new(handler));
    let handle = ServerHandle {
        notifier: Arc::new(Notifier::new(bus, max_listens)),
        editor: cell.clone(),
        watchers: Default::default(),
    };
    (cell, handle)
}

/// Why a registration change was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum HandleError {
    /// The edit would add or replace a tool, prompt, resource or template that the
    /// server's own table declares (a `#[mcp::server]` table, or a
    /// [`ServerHandler`] of your own): the message names it. Nothing was changed.
    Conflict(String),
}

impl std::fmt::Display for HandleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            HandleError::Conflict(what) => f.write_str(what),
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
/// use mcp_core::types::{CallToolResult, ContentBlock, Tool};
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
    pub(crate) editor: Arc<dyn RegistryEditor>,
    /// Called after every edit that changed a list (a parent that mounts this server
    /// re-reads it: `server::mount`).
    pub(crate) watchers: Arc<std::sync::Mutex<Vec<Watcher>>>,
}

/// A [`ServerHandle`] that does not keep its table alive: what a mounted child's watcher
/// holds of its parent (the parent's table holds the child, so a strong handle would be a
/// cycle).
#[derive(Clone)]
pub(crate) struct WeakHandle {
    notifier: Arc<Notifier>,
    editor: std::sync::Weak<dyn RegistryEditor>,
    watchers: Arc<std::sync::Mutex<Vec<Watcher>>>,
}

impl WeakHandle {
    /// The handle, while the server lives.
    pub(crate) fn upgrade(&self) -> Option<ServerHandle> {
        Some(ServerHandle {
            notifier: self.notifier.clone(),
            editor: self.editor.upgrade()?,
            watchers: self.watchers.clone(),
        })
    }
}

/// A callback run after an edit that changed a list.
pub(crate) type Watcher = Arc<dyn Fn(Changes) + Send + Sync>;

impl std::fmt::Debug for ServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServerHandle")
            .field("subscriptions", &self.notifier.enabled())
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

    /// Edits the run-time entries (the whole table of a builder server; beside the
    /// declared ones of a `#[mcp::server]` or a handler of your own); publishes list-changed
    /// events for the lists that differ. An edit that adds a name or URI the server's own
    /// table declares is refused whole ([`HandleError::Conflict`]).
    pub fn update(&self, f: impl FnOnce(&mut Registry)) -> Result<Changes, HandleError> {
        let mut f = Some(f);
        let changes = self
            .editor
            .edit(&mut |r| {
                if let Some(f) = f.take() {
                    f(r)
                }
            })
            .map_err(HandleError::Conflict)?;
        self.changed(changes);
        Ok(changes)
    }

    /// After an edit: the watchers (a parent mounting this server) and the list-changed
    /// events of the lists that differ.
    pub(crate) fn changed(&self, changes: Changes) {
        if changes.any() {
            let watchers = self.watchers.lock().expect("watchers lock").clone();
            for w in watchers {
                w(changes);
            }
        }
        if changes.tools {
            self.publish(ServerEvent::ToolsListChanged);
        }
        if changes.prompts {
            self.publish(ServerEvent::PromptsListChanged);
        }
        if changes.resources {
            self.publish(ServerEvent::ResourcesListChanged);
        }
    }

    /// This handle without its strong hold on the table (see [`WeakHandle`]).
    pub(crate) fn downgrade(&self) -> WeakHandle {
        WeakHandle {
            notifier: self.notifier.clone(),
            editor: Arc::downgrade(&self.editor),
            watchers: self.watchers.clone(),
        }
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
        // A call delegated to a mounted server carries that server's handle; otherwise it
        // is kept on the connection (set once by the dispatcher), not copied per request.
        if let Some(h) = self.extensions.get::<MountedHandle>() {
            return Some(&h.0);
        }
        self.peer.conn.server.get()
    }
}

/// The handle of the mounted server a delegated call runs in (`server::mount`), as a typed
/// extension of its context, so [`Context::server`] names that server, not the parent.
#[derive(Clone)]
pub(crate) struct MountedHandle(pub(crate) ServerHandle);
