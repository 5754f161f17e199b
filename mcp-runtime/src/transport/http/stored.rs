//! Legacy sessions kept in the [`SessionStore`](crate::session::SessionStore), for several
//! processes behind one load balancer: finding a session another process made (and taking
//! it over here, its change notifications included), refreshing its time to live, writing
//! what changed, ending it everywhere, and keeping its resource subscriptions in step with
//! what other processes wrote.

use std::sync::Arc;
use std::time::Duration;

use mcp_core::jsonrpc::{ErrorObject, RequestId};
use serde_json::value::RawValue;

use super::HttpState;
use super::session::HttpSession;
use crate::session::{Relayed, RelayedAnswer, StoreError};

impl HttpState {
    /// The session `id`, from this process or, when it holds none, from the session store
    /// (then adopted here). Refreshes the stored session's time to live now and then.
    pub(crate) async fn find_session(
        &self,
        id: &str,
    ) -> Result<Option<Arc<HttpSession>>, StoreError> {
        if let Some(s) = self.session(id) {
            if self.opts.session_store.shared() && s.is_stored() {
                // Another process may have changed it (log level, subscriptions) or ended it.
                match self.opts.session_store.load(id).await? {
                    Some(record) => s.follow(&record),
                    None => {
                        self.remove_session(id);
                        return Ok(None);
                    }
                }
            }
            if s.store_touch_due(self.store_touch_period()) && !self.touch_stored(&s).await {
                // Ended elsewhere (`DELETE` on another process, or expired in the store).
                self.remove_session(id);
                return Ok(None);
            }
            return Ok(Some(s));
        }
        let ttl = self.opts.session_idle_timeout;
        let Some(record) = self.opts.session_store.load(id).await? else {
            return Ok(None);
        };
        let s = self.new_http_session(id.to_owned(), false);
        s.adopt(&record);
        let s = {
            let mut map = self.sessions.lock().expect("sessions lock");
            match map.get(id) {
                // Another request adopted it meanwhile: the first one stays.
                Some(first) => first.clone(),
                None => {
                    // An adopted session counts against the cap like a new one; with every
                    // session busy it is still served (busy sessions are bounded by the
                    // connections carrying them).
                    self.make_room(&mut map);
                    map.insert(id.to_owned(), s.clone());
                    s
                }
            }
        };
        // Its `initialize` ran elsewhere: change notifications start here.
        if let Some(feed) = &self.inputs.legacy {
            feed.attach(&s.conn, s.state.clone());
        }
        let _ = self.opts.session_store.touch(id, ttl).await;
        Ok(Some(s))
    }

    /// How often a session in use refreshes its time to live in the store.
    fn store_touch_period(&self) -> Duration {
        (self.opts.session_idle_timeout / 4).max(Duration::from_millis(10))
    }

    /// Refreshes `s` in the store; `false` when the store no longer has it. A store that
    /// cannot be reached keeps the session served from this process.
    async fn touch_stored(&self, s: &HttpSession) -> bool {
        if !s.is_stored() {
            return true;
        }
        match (self.opts.session_store)
            .touch(&s.id, self.opts.session_idle_timeout)
            .await
        {
            Ok(alive) => alive,
            Err(e) => {
                tracing::warn!(session = %s.id, error = %e, "session store unreachable");
                true
            }
        }
    }

    /// Writes what changed in `s` (after `initialize`, `logging/setLevel`,
    /// `resources/subscribe`, ...) to the session store; a session whose handshake has not
    /// succeeded is not stored. An error means the store could not be written (the session
    /// goes on in this process).
    pub(crate) async fn persist(&self, s: &HttpSession) -> Result<(), StoreError> {
        let _one_at_a_time = s.persisting.lock().await;
        let Some((generation, record)) = s.unsaved_record() else {
            return Ok(());
        };
        let store = &self.opts.session_store;
        let ttl = self.opts.session_idle_timeout;
        let saved = if s.is_stored() {
            store.save(&s.id, &record, ttl).await
        } else {
            store.create(&s.id, &record, ttl).await.map(|()| true)
        };
        match saved {
            Ok(true) => s.saved(generation),
            Ok(false) => tracing::debug!(session = %s.id, "session ended in the store"),
            Err(e) => {
                tracing::warn!(session = %s.id, error = %e, "session not stored");
                return Err(e);
            }
        }
        Ok(())
    }

    /// Ends session `id` here and in the store (`DELETE`).
    pub(crate) async fn delete_session(&self, id: &str) -> Result<(), StoreError> {
        self.remove_session(id);
        self.opts.session_store.remove(id).await
    }

    /// Resource updates reach `s` also for the URIs it subscribed to through another
    /// process (which wrote them to the session store): this process's copy of the session
    /// does not see that `resources/subscribe`.
    pub(super) fn follow_stored_subscriptions(&self, s: &HttpSession) {
        let store = self.opts.session_store.clone();
        let id: Arc<str> = Arc::from(s.id.as_str());
        let elsewhere = move |uri: String| -> crate::common::BoxFuture<'static, bool> {
            let (store, id) = (store.clone(), id.clone());
            Box::pin(async move {
                match store.load(&id).await {
                    Ok(Some(record)) => record.subscriptions.contains(&uri),
                    Ok(None) => false,
                    Err(e) => {
                        tracing::debug!(session = %id, error = %e, "stored subscriptions unread");
                        false
                    }
                }
            })
        };
        crate::features::subscriptions::legacy(&s.conn)
            .also_subscribed_elsewhere(Arc::new(elsewhere));
    }

    /// Takes the subscriptions of `s` from the store before a `resources/subscribe` or
    /// `resources/unsubscribe` changes them: another process may have changed them since
    /// this one loaded the session, and the record written after the change replaces the
    /// stored one (two changes at the same instant on two processes still race).
    pub(crate) async fn refresh_subscriptions(&self, s: &HttpSession) {
        if !s.is_stored() {
            return;
        }
        match self.opts.session_store.load(&s.id).await {
            Ok(Some(record)) => {
                s.state.lock().expect("session lock").subscriptions =
                    record.subscriptions.into_iter().collect();
            }
            Ok(None) => {}
            Err(e) => tracing::debug!(session = %s.id, error = %e, "stored subscriptions unread"),
        }
    }

    /// Completes server-to-client request `id` of `s` with the client's answer; an answer
    /// to a request this process did not send goes to the answer relay (the client posted
    /// it here, the request waits in another process).
    pub(crate) fn answer(
        &self,
        s: &HttpSession,
        id: RequestId,
        outcome: Result<Box<RawValue>, ErrorObject>,
    ) {
        let Some(relay) = &self.opts.answer_relay else {
            if !s.conn.complete(&id, outcome) {
                tracing::debug!(%id, "response to an unknown request dropped");
            }
            return;
        };
        if !s.conn.complete(&id, outcome.clone()) {
            tracing::debug!(session = %s.id, %id, "response forwarded to the other processes");
            relay.forward(Relayed::Answer(RelayedAnswer {
                session: s.id.clone(),
                id,
                outcome,
            }));
        }
    }

    /// Applies the client's `notifications/cancelled` (its `params`) to the request of `s`
    /// it names; one that does not run here goes to the answer relay (the client posted the
    /// cancellation here, the request runs in another process).
    pub(crate) fn cancel(&self, s: &HttpSession, params: Option<&RawValue>) {
        let Some(id) = crate::session::intake::cancelled_request_id(params) else {
            return;
        };
        if !s.in_flight.cancel(&id)
            && let Some(relay) = &self.opts.answer_relay
        {
            relay.forward(Relayed::Cancel {
                session: s.id.clone(),
                id,
            });
        }
    }

    /// What another process forwarded: an answer completes the request, a cancellation
    /// cancels it, if this process holds the session and the request.
    pub(crate) fn apply_relayed(&self, message: Relayed) {
        let session = match &message {
            Relayed::Answer(a) => &a.session,
            Relayed::Cancel { session, .. } => session,
        };
        let held = self
            .sessions
            .lock()
            .expect("sessions lock")
            .get(session)
            .cloned();
        let Some(s) = held else { return };
        match message {
            Relayed::Answer(a) => {
                if s.conn.complete(&a.id, a.outcome) {
                    tracing::debug!(session = %s.id, id = %a.id, "forwarded response delivered");
                }
            }
            Relayed::Cancel { id, .. } => {
                if s.in_flight.cancel(&id) {
                    tracing::debug!(session = %s.id, %id, "forwarded cancellation applied");
                }
            }
        }
    }
}
