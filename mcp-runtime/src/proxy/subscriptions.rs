//! Resource subscriptions across the hop: the upstream is subscribed to a resource while
//! some downstream client of a server serving the proxy is (a legacy `resources/subscribe`,
//! or a 2026 listen stream naming it; through a mount, under the namespace), and no longer
//! once the last one leaves. Its `notifications/resources/updated` then come back through
//! the relay (`relay.rs`) and are republished by every server serving the proxy.
//!
//! Each server's `Interest` tells a watcher of its first subscriber and last leaving of a
//! URI; the watcher pokes one task, which brings the upstream in line with what is wanted
//! now (so changes arriving out of order or together are read once, and a reconnection
//! or re-read list is one more poke). A legacy upstream gets `resources/subscribe` and
//! `resources/unsubscribe` (when it declares `resources.subscribe`); a 2026 upstream a
//! `subscriptions/listen` stream naming the wanted URIs, opened anew when they change (the
//! new stream before the old one ends, so no update is lost in between; one arriving in
//! that instant can arrive twice). A downstream subscribe is answered once the upstream
//! one is in place (or has failed, which is logged), bounded by the call timeout.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Weak};
use std::time::Duration;

use mcp_core::types::SubscriptionFilter;
use mcp_core::version::Era;
use tokio::sync::{mpsc, oneshot};

use super::table::{Drained, Shared};
use crate::client::Client;
use crate::session::interest::{InterestWatcher, Settle};

/// A request to bring the upstream in line; answered when done.
type Poke = Option<oneshot::Sender<()>>;

/// What the upstream is subscribed to, and how to change it.
pub(super) struct UpstreamSubscriptions {
    pokes: mpsc::UnboundedSender<Poke>,
    state: tokio::sync::Mutex<State>,
}

/// The upstream's subscriptions on one connection.
#[derive(Default)]
struct State {
    /// The connection they were made on (a closed one has none left).
    client: Option<Client>,
    subscribed: BTreeSet<String>,
    /// A 2026 upstream's listen stream for `subscribed`.
    stream: Option<Stream>,
}

/// An open listen stream, drained by its own task, and whether it has ended.
struct Stream {
    _drained: Drained,
    ended: Arc<AtomicBool>,
}

impl UpstreamSubscriptions {
    /// Nothing subscribed yet, and where its pokes go ([`follow`]).
    pub(super) fn new() -> (Self, mpsc::UnboundedReceiver<Poke>) {
        let (pokes, rx) = mpsc::unbounded_channel();
        let this = Self {
            pokes,
            state: Default::default(),
        };
        (this, rx)
    }

    /// Asks for the upstream to be brought in line (after a reconnection, a re-read list).
    pub(super) fn poke(&self) {
        let _ = self.pokes.send(None);
    }

    /// The watcher of one serving server's interest: a first subscriber waits (up to
    /// `timeout`) for the upstream's subscription; a last one leaving does not.
    pub(super) fn watcher(&self, timeout: Duration) -> InterestWatcher {
        let pokes = self.pokes.clone();
        Arc::new(move |_uri: &str, on: bool| -> Settle {
            if !on {
                let _ = pokes.send(None);
                return Vec::new();
            }
            let (tx, rx) = oneshot::channel();
            if pokes.send(Some(tx)).is_err() {
                return Vec::new();
            }
            vec![Box::pin(async move {
                let _ = tokio::time::timeout(timeout, rx).await;
            })]
        })
    }

    /// Subscribes and unsubscribes on `client` so that exactly `wanted` is subscribed.
    async fn reconcile(&self, client: Client, wanted: BTreeSet<String>, timeout: Duration) {
        let mut state = self.state.lock().await;
        let stale = match &state.client {
            Some(c) => c.is_closed(),
            None => true,
        };
        if stale {
            // A new connection (or the first): nothing is subscribed on it.
            *state = State {
                client: Some(client.clone()),
                ..State::default()
            };
        }
        if state
            .stream
            .as_ref()
            .is_some_and(|s| s.ended.load(Ordering::Acquire))
        {
            state.stream = None;
            state.subscribed.clear();
        }
        if client.is_closed() || wanted == state.subscribed {
            // A closed connection is replaced on the next call, which pokes again.
            return;
        }
        if client.protocol_version().era() == Era::Modern {
            self.listen(&mut state, &client, wanted, timeout).await;
            return;
        }
        let subscribable = (client.server_capabilities().resources)
            .and_then(|r| r.subscribe)
            .unwrap_or(false);
        if !subscribable {
            tracing::debug!("the upstream offers no resource subscriptions");
            return;
        }
        let add: Vec<String> = wanted.difference(&state.subscribed).cloned().collect();
        let drop: Vec<String> = state.subscribed.difference(&wanted).cloned().collect();
        for uri in add {
            match tokio::time::timeout(timeout, client.subscribe_resource(&uri)).await {
                Ok(Ok(())) => {
                    state.subscribed.insert(uri);
                }
                Ok(Err(e)) => {
                    tracing::warn!(%uri, error = %e, "the upstream refused resources/subscribe")
                }
                Err(_) => {
                    tracing::warn!(%uri, "the upstream did not answer resources/subscribe in time")
                }
            }
        }
        for uri in drop {
            state.subscribed.remove(&uri);
            match tokio::time::timeout(timeout, client.unsubscribe_resource(&uri)).await {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    tracing::debug!(%uri, error = %e, "resources/unsubscribe failed upstream")
                }
                Err(_) => tracing::debug!(%uri, "resources/unsubscribe unanswered upstream"),
            }
        }
    }

    /// A 2026 upstream: a listen stream for `wanted`, replacing the one before.
    async fn listen(
        &self,
        state: &mut State,
        client: &Client,
        wanted: BTreeSet<String>,
        timeout: Duration,
    ) {
        if wanted.is_empty() {
            state.stream = None;
            state.subscribed.clear();
            return;
        }
        let filter = SubscriptionFilter {
            resource_subscriptions: Some(wanted.iter().cloned().collect()),
            ..SubscriptionFilter::default()
        };
        let sub = match tokio::time::timeout(timeout, client.listen(filter)).await {
            Ok(Ok(sub)) => sub,
            Ok(Err(e)) => {
                tracing::warn!(error = %e, "the upstream refused a listen stream for its resources");
                return;
            }
            Err(_) => {
                tracing::warn!("the upstream did not acknowledge a listen stream in time");
                return;
            }
        };
        let ended = Arc::new(AtomicBool::new(false));
        let (done, pokes) = (ended.clone(), self.pokes.clone());
        // The relay hears each notification (the connection's handler); this only keeps
        // the stream's own queue empty and notices its end.
        let drained = Drained::new(sub, move || {
            done.store(true, Ordering::Release);
            let _ = pokes.send(None);
        });
        // The new stream is open before the old one is dropped.
        state.stream = Some(Stream {
            _drained: drained,
            ended,
        });
        state.subscribed = wanted;
    }
}

/// Brings the upstream in line on each poke until the proxy is gone; then answers the
/// pokes that waited.
pub(super) async fn follow(shared: Weak<Shared>, mut rx: mpsc::UnboundedReceiver<Poke>) {
    while let Some(first) = rx.recv().await {
        let mut acks = vec![first];
        while let Ok(p) = rx.try_recv() {
            acks.push(p);
        }
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let timeout = shared.upstream.call_timeout();
        // While the upstream is down there is nothing to subscribe on: its return pokes.
        if let Some(client) = shared.client() {
            (shared.subscriptions)
                .reconcile(client, shared.wanted(), timeout)
                .await;
        }
        drop(shared);
        for ack in acks.into_iter().flatten() {
            let _ = ack.send(());
        }
    }
}
