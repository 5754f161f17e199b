//! Message filters: beside the middleware, at the raw JSON-RPC level.
//!
//! Incoming filters see every decoded message before dispatch; outgoing filters see every
//! message the server sends (responses, notifications, server-to-client requests). Each may
//! observe, rewrite or drop a message — for audit trails and redaction. With no filter
//! installed they cost nothing: messages are not parsed for them.

use std::sync::Arc;

use serde_json::Value;

/// What a filter decided about a message.
#[derive(Debug, Clone, PartialEq)]
pub enum FilterAction {
    /// Pass the message on (possibly rewritten in place).
    Pass,
    /// Drop it.
    Drop,
}

/// A filter over raw JSON-RPC messages.
pub trait MessageFilter: Send + Sync + 'static {
    /// Sees (and may rewrite or drop) a message from the client, before dispatch.
    fn incoming(&self, message: &mut Value) -> FilterAction {
        let _ = message;
        FilterAction::Pass
    }
    /// Sees (and may rewrite or drop) a message the server sends.
    fn outgoing(&self, message: &mut Value) -> FilterAction {
        let _ = message;
        FilterAction::Pass
    }
}

/// The installed filters, in order.
#[derive(Clone, Default)]
pub struct Filters {
    list: Arc<[Arc<dyn MessageFilter>]>,
}

impl Filters {
    /// Filters in the order given.
    pub fn new(list: Vec<Arc<dyn MessageFilter>>) -> Self {
        Self { list: list.into() }
    }

    /// Whether any filter is installed.
    pub fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    fn run(&self, frame: Vec<u8>, incoming: bool) -> Option<Vec<u8>> {
        if self.list.is_empty() {
            return Some(frame);
        }
        let Ok(mut value) = serde_json::from_slice::<Value>(&frame) else {
            return Some(frame);
        };
        for f in self.list.iter() {
            let action = if incoming {
                f.incoming(&mut value)
            } else {
                f.outgoing(&mut value)
            };
            if action == FilterAction::Drop {
                return None;
            }
        }
        Some(serde_json::to_vec(&value).unwrap_or(frame))
    }

    /// Runs the incoming filters over one frame; `None` when dropped.
    pub fn incoming(&self, frame: Vec<u8>) -> Option<Vec<u8>> {
        self.run(frame, true)
    }

    /// Runs the outgoing filters over one frame; `None` when dropped.
    pub fn outgoing(&self, frame: Vec<u8>) -> Option<Vec<u8>> {
        self.run(frame, false)
    }
}
