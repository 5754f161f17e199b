//! An [`InputResolver`] for work that can wait for its answers: a task parked as
//! `input_required` until `tasks/update` delivers them (Tasks extension, SEP-2663).
//!
//! The handler keeps calling `ctx.elicit()` / `ctx.sample()` / `ctx.roots()` as usual; with
//! a [`ParkedInputs`] attached ([`Context::set_input_resolver`](crate::Context)) each call
//! parks its request under its key and waits. It is a building block for a task runner of
//! your own (the built-in task engine, `tasks::TaskEngine`, keeps its pending input itself):
//! the runner shows
//! [`ParkedInputs::pending`] as the task's `inputRequests` (status `input_required` while
//! [`ParkedInputs::is_waiting`]), and hands the client's `inputResponses` to
//! [`ParkedInputs::answer`], which checks them against the parked requests, wakes the calls
//! they answer and removes those keys (the others stay pending: partial fulfilment).
//!
//! ```
//! # use std::sync::Arc;
//! # use mcp_runtime::ParkedInputs;
//! # fn run(ctx: mcp_runtime::Context) {
//! let parked = ParkedInputs::new();
//! let mut task_ctx = ctx.clone();
//! task_ctx.set_input_resolver(Arc::new(parked.clone()));
//! // spawn the tool's handler with `task_ctx`; on tasks/get report `parked.pending()`,
//! // on tasks/update call `parked.answer(&input_responses)`.
//! # }
//! ```

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::sync::{Arc, Mutex};

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{InputRequest, InputRequests, InputResponse};
use serde_json::value::RawValue;
use tokio::sync::{oneshot, watch};

use crate::context::interaction::{
    BoxFuture, InputResolver, InteractionError, decode_response, invalid_response_error,
};
use crate::context::peer::PeerError;

type Waiter = (InputRequest, oneshot::Sender<InputResponse>);

/// Parked input requests of one piece of work, shared between the work and its runner.
#[derive(Clone)]
pub struct ParkedInputs {
    pending: Arc<Mutex<BTreeMap<String, Waiter>>>,
    changes: Arc<watch::Sender<u64>>,
}

impl Default for ParkedInputs {
    fn default() -> Self {
        Self {
            pending: Arc::default(),
            changes: Arc::new(watch::channel(0).0),
        }
    }
}

impl ParkedInputs {
    /// Nothing parked.
    pub fn new() -> Self {
        Self::default()
    }

    fn bump(&self) {
        self.changes.send_modify(|n| *n += 1);
    }

    /// The requests waiting for an answer, by key (the task's `inputRequests`).
    pub fn pending(&self) -> InputRequests {
        self.pending
            .lock()
            .expect("parked lock")
            .iter()
            .map(|(k, (r, _))| (k.clone(), r.clone()))
            .collect()
    }

    /// Whether any request is waiting (the task is `input_required`).
    pub fn is_waiting(&self) -> bool {
        !self.pending.lock().expect("parked lock").is_empty()
    }

    /// A receiver that sees every change (a request parked or answered), to update a
    /// task's status. Subscribe before checking [`ParkedInputs::is_waiting`], so no change
    /// between the check and the wait is missed.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changes.subscribe()
    }

    /// Delivers the client's answers: every response whose key is pending must fit its
    /// request (else `-32602` naming the key, and nothing is applied); those are handed to
    /// the waiting calls and leave the pending set. Unknown keys are ignored. Returns how many
    /// requests were answered.
    pub fn answer(
        &self,
        responses: &BTreeMap<String, Box<RawValue>>,
    ) -> Result<usize, ErrorObject> {
        let mut pending = self.pending.lock().expect("parked lock");
        let mut decoded = Vec::new();
        for (key, raw) in responses {
            if let Some((request, _)) = pending.get(key) {
                let r = decode_response(request, raw)
                    .map_err(|why| invalid_response_error(key, &why))?;
                decoded.push((key.clone(), r));
            }
        }
        let n = decoded.len();
        for (key, response) in decoded {
            if let Some((_, tx)) = pending.remove(&key) {
                // The work may have ended meanwhile; then nobody needs the answer.
                let _ = tx.send(response);
            }
        }
        drop(pending);
        if n > 0 {
            self.bump();
        }
        Ok(n)
    }
}

impl InputResolver for ParkedInputs {
    fn resolve<'a>(
        &'a self,
        key: &'a str,
        request: InputRequest,
    ) -> BoxFuture<'a, Result<InputResponse, InteractionError>> {
        let (tx, rx) = oneshot::channel();
        let parked = match self
            .pending
            .lock()
            .expect("parked lock")
            .entry(key.to_owned())
        {
            Entry::Occupied(_) => Err(InteractionError::DuplicateKey(key.to_owned())),
            Entry::Vacant(e) => {
                e.insert((request, tx));
                Ok(())
            }
        };
        if parked.is_ok() {
            self.bump();
        }
        Box::pin(async move {
            parked?;
            rx.await
                .map_err(|_| InteractionError::Peer(PeerError::Disconnected))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::types::{ElicitAction, ElicitFormParams, ElicitParams, RequestedSchema};

    fn elicit(msg: &str) -> InputRequest {
        InputRequest::Elicit(ElicitParams::Form(ElicitFormParams::new(
            msg,
            RequestedSchema::default(),
        )))
    }

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[tokio::test]
    async fn parks_answers_partially_and_wakes_the_waiting_calls() {
        let parked = ParkedInputs::new();
        let p2 = parked.clone();
        let work = tokio::spawn(async move {
            let (a, b) = tokio::join!(p2.resolve("a", elicit("A?")), p2.resolve("b", elicit("B?")));
            (a.unwrap(), b.unwrap())
        });
        let mut changes = parked.subscribe();
        while parked.pending().len() < 2 {
            changes.changed().await.unwrap();
        }
        assert!(parked.is_waiting());
        // A bad answer is refused as a whole; unknown keys are ignored.
        let bad: BTreeMap<_, _> = [("a".to_owned(), raw("12")), ("x".to_owned(), raw("1"))].into();
        let e = parked.answer(&bad).unwrap_err();
        assert_eq!(e.code, -32602);
        assert!(e.message.contains("\"a\""));
        assert_eq!(parked.pending().len(), 2);
        let first: BTreeMap<_, _> =
            [("a".to_owned(), raw(r#"{"action":"accept","content":{}}"#))].into();
        assert_eq!(parked.answer(&first).unwrap(), 1);
        assert_eq!(parked.pending().keys().collect::<Vec<_>>(), ["b"]);
        let second: BTreeMap<_, _> = [("b".to_owned(), raw(r#"{"action":"decline"}"#))].into();
        assert_eq!(parked.answer(&second).unwrap(), 1);
        let (a, b) = work.await.unwrap();
        assert!(matches!(a, InputResponse::Elicit(r) if r.action == ElicitAction::Accept));
        assert!(matches!(b, InputResponse::Elicit(r) if r.action == ElicitAction::Decline));
        assert!(!parked.is_waiting());
    }

    #[tokio::test]
    async fn a_key_parked_twice_is_refused() {
        let parked = ParkedInputs::new();
        let _first = parked.resolve("k", elicit("1"));
        let second = parked.resolve("k", elicit("2")).await;
        assert!(matches!(second, Err(InteractionError::DuplicateKey(k)) if k == "k"));
    }
}
