//! Resumable legacy streams: a POST answered over SSE runs on a [`Lane`] of its own (the
//! request goes on when the connection drops, its events are stored), and `GET` with
//! `Last-Event-ID` resumes whichever stream of the session that id names.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::http::StatusCode;
use axum::response::Response;
use mcp_core::jsonrpc::ErrorObject;
use mcp_core::version::ProtocolVersion;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::lane::{AttachError, Attached, Lane};
use super::session::HttpSession;
use super::sse::SseBody;
use super::sse::{Fin, First};
use super::{HttpState, empty, error_response, json_response, sse_response};
use crate::session::event_store::Replay;

/// How often a followed stream (its request runs on another process) asks the event store
/// for new events: at first and after each event, doubling while none come, up to
/// [`FOLLOW_MAX`].
const FOLLOW_MIN: Duration = Duration::from_millis(20);
const FOLLOW_MAX: Duration = Duration::from_millis(250);

/// How long a followed stream waits for its next event before it ends (the client resumes
/// again, from its last event): nothing tells this process that the one running the request
/// died, and a client must not wait on a dead stream for longer than this.
const FOLLOW_IDLE: Duration = Duration::from_secs(3);

/// Events of a followed stream read ahead of its connection.
const FOLLOW_QUEUE: usize = 64;

impl HttpState {
    /// Whether POST streams of `session` are resumable.
    pub(super) fn resumable(&self, session: &HttpSession) -> bool {
        self.opts.event_store.is_some() && session.outlet.resumable()
    }

    /// The priming argument for a new stream of `session`: 2025-11-25 only.
    pub(super) fn prime_for(&self, session: &HttpSession) -> Option<Option<Duration>> {
        let v = session.state.lock().expect("session lock").version;
        (v == Some(ProtocolVersion::V2025_11_25)).then_some(self.opts.sse_retry)
    }

    /// Answers a legacy request of a resumable session: plain JSON when its outcome comes
    /// before any message, else an SSE stream on a lane of its own.
    pub(super) async fn respond_resumable(
        self: &Arc<Self>,
        session: &Arc<HttpSession>,
        mut rx: mpsc::Receiver<Vec<u8>>,
        fin: Fin,
    ) -> Response {
        let mut queued = Vec::new();
        let mut last = None;
        let fin = match fin.first(&mut rx).await {
            First::Fin(Some((frame, _))) => {
                while let Ok(m) = rx.try_recv() {
                    queued.push(m);
                }
                if queued.is_empty() {
                    return json_response(StatusCode::OK, frame);
                }
                last = Some(frame);
                None
            }
            First::Fin(None) => return empty(StatusCode::NO_CONTENT),
            First::Msg(None, fin) => {
                return match fin.await {
                    Ok((frame, _)) => json_response(StatusCode::OK, frame),
                    Err(_) => empty(StatusCode::NO_CONTENT),
                };
            }
            First::Msg(Some(m), fin) => {
                queued.push(m);
                Some(fin)
            }
        };

        let lane = Lane::new(&session.id, self.opts.event_store.clone(), None, 0);
        let name = lane.key.stream.clone();
        session
            .lanes
            .lock()
            .expect("lanes lock")
            .insert(name.clone(), lane.clone());
        let prime = self.prime_for(session);
        let close_after = prime.and(self.opts.sse_close_after);
        let att = lane.open(prime, close_after != Some(Duration::ZERO)).await;
        // Not ended by the session's closing: the stream ends with its request's answer,
        // which a closed session cancels at once, and an answer cut short by a shutdown
        // (its "shutting down" error) still goes out.
        let end = CancellationToken::new();
        if let Some(d) = close_after.filter(|d| !d.is_zero()) {
            let t = end.clone();
            tokio::spawn(async move {
                tokio::time::sleep(d).await;
                t.cancel();
            });
        }
        let resp = self.lane_body(&lane, att, end);

        let s = session.clone();
        tokio::spawn(async move {
            // An empty message is a handler's `SseStreamControl::close_connection`.
            let deliver = async |m: Vec<u8>| {
                if m.is_empty() {
                    lane.disconnect();
                } else {
                    lane.push(m, false).await;
                }
            };
            for m in queued {
                deliver(m).await;
            }
            match (last, fin) {
                (Some(f), _) => lane.push(f, true).await,
                (None, None) => lane.finish(),
                (None, Some(mut fin)) => loop {
                    tokio::select! {
                        biased;
                        m = rx.recv() => match m {
                            Some(m) => deliver(m).await,
                            None => {
                                match fin.await {
                                    Ok((f, _)) => lane.push(f, true).await,
                                    Err(_) => lane.finish(),
                                }
                                break;
                            }
                        },
                        f = &mut fin => {
                            while let Ok(m) = rx.try_recv() {
                                deliver(m).await;
                            }
                            match f {
                                Ok((f, _)) => lane.push(f, true).await,
                                Err(_) => lane.finish(),
                            }
                            break;
                        }
                    }
                },
            }
            s.lanes.lock().expect("lanes lock").remove(&name);
        });
        resp
    }

    /// A resumed stream this process does not hold (its request runs on another process
    /// sharing the stores): `replay`, then every event the store gets after it, read from
    /// the last one delivered, until the answer (then the stream ends), until the stream
    /// is forgotten or expires, the store fails, `end` fires, the client leaves or no event
    /// came for [`FOLLOW_IDLE`] (the client resumes again). Each event goes out once, in
    /// the order of its id.
    fn follow(&self, replay: Replay, last_event_id: &str, end: CancellationToken) -> Response {
        let (tx, rx) = mpsc::channel(FOLLOW_QUEUE);
        let store = self
            .opts
            .event_store
            .clone()
            .expect("resumable: an event store");
        let mut last = last_event_id.to_owned();
        let mut events = replay.events;
        let stop = end.clone();
        tokio::spawn(async move {
            let mut wait = FOLLOW_MIN;
            let mut idle_since = tokio::time::Instant::now();
            loop {
                let got = !events.is_empty();
                if got {
                    idle_since = tokio::time::Instant::now();
                } else if idle_since.elapsed() >= FOLLOW_IDLE {
                    return;
                }
                for e in std::mem::take(&mut events) {
                    let answer = ends_with_answer(std::slice::from_ref(&e));
                    let chunk = super::sse::event_with_id(Some(&e.id), None, &e.message);
                    last = e.id;
                    if answer {
                        // The last event: the body ends once it is written.
                        let _ = tx.send(chunk.to_vec()).await;
                        return;
                    }
                    if tx.send(chunk.to_vec()).await.is_err() {
                        return;
                    }
                }
                wait = if got {
                    FOLLOW_MIN
                } else {
                    (wait * 2).min(FOLLOW_MAX)
                };
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tx.closed() => return,
                    _ = tokio::time::sleep(wait) => {}
                }
                match store.replay_after(&last).await {
                    Ok(Some(r)) => {
                        if r.truncated {
                            tracing::warn!(last_event_id = %last, "followed stream lost events to eviction");
                        }
                        events = r.events;
                    }
                    Ok(None) => return,
                    Err(e) => {
                        tracing::warn!(error = %e, last_event_id = %last, "followed stream: event store unavailable, ending");
                        return;
                    }
                }
            }
        });
        let mut body = SseBody::new(rx, None, self.opts.keep_alive).end_on(end);
        body.raw = true;
        sse_response(body)
    }

    /// The SSE response of one connection of `lane`, ended early by `end`.
    fn lane_body(&self, lane: &Arc<Lane>, att: Attached, end: CancellationToken) -> Response {
        let l = lane.clone();
        let generation = att.generation;
        let mut body = SseBody::new(att.rx, None, self.opts.keep_alive)
            .end_on(end)
            .on_drop(move || l.detach(generation));
        body.raw = true;
        for b in att.pending {
            body.push_raw(b);
        }
        sse_response(body)
    }

    /// `GET` + `Last-Event-ID`: resumes the stream of `session` that the id names, with
    /// the events after it and then whatever comes live; a completed stream ends after
    /// its replay, or is `410 Gone` when its answer was evicted (the client can act on
    /// that: send the request again). `None`: not a resumable session, serve a plain GET.
    pub(super) async fn resume(
        self: &Arc<Self>,
        session: &Arc<HttpSession>,
        last_event_id: &str,
    ) -> Option<Response> {
        let store = self.opts.event_store.as_ref()?;
        if !session.outlet.resumable() {
            return None;
        }
        let unknown = || {
            error_response(
                StatusCode::BAD_REQUEST,
                None,
                &ErrorObject::new(-32000, "Bad Request: unknown Last-Event-ID"),
            )
        };
        let replay = match store.replay_after(last_event_id).await {
            Ok(Some(replay)) => replay,
            Ok(None) => return Some(unknown()),
            Err(e) => return Some(store_unavailable(&e)),
        };
        if replay.stream.session != session.id {
            return Some(unknown());
        }
        let end = session.closed.child_token();
        let resp = match session.lane(&replay.stream.stream) {
            Some(lane) => match lane.attach(Some(last_event_id), None).await {
                Ok(att) => self.lane_body(&lane, att, end),
                Err(AttachError::Store(e)) => store_unavailable(&e),
                Err(_) => unknown(),
            },
            None if self.opts.session_store.shared() && !ends_with_answer(&replay.events) => {
                // Another process may run its request: what is stored, then what it
                // stores next, until the answer.
                if replay.truncated {
                    tracing::warn!(
                        session = %session.id,
                        last_event_id,
                        "resumed stream lost events to eviction"
                    );
                }
                self.follow(replay, last_event_id, end)
            }
            None => {
                // A completed POST stream: what it missed, then the end.
                if replay.truncated {
                    tracing::warn!(
                        session = %session.id,
                        last_event_id,
                        "resumed stream lost events to eviction"
                    );
                    if !ends_with_answer(&replay.events) {
                        // Its answer is gone too: a 200 with what is left would leave the
                        // call waiting forever. Say so, and the client can send it again.
                        return Some(events_gone());
                    }
                }
                let (_, rx) = mpsc::channel(1);
                let mut body = SseBody::new(rx, None, None).end_on(end);
                for e in replay.events {
                    body.push_raw(super::sse::event_with_id(Some(&e.id), None, &e.message));
                }
                body.closing = true;
                sse_response(body)
            }
        };
        session.touch();
        Some(resp)
    }
}

/// Whether the last of `events` is a response (the answer a completed stream ends with).
fn ends_with_answer(events: &[crate::session::event_store::StoredEvent]) -> bool {
    events.last().is_some_and(|e| {
        matches!(
            mcp_core::jsonrpc::decode(&e.message, Default::default()),
            mcp_core::jsonrpc::Frame::Single(Ok(mcp_core::jsonrpc::Message::Response(_)))
        )
    })
}

/// `410 Gone`: the events after a `Last-Event-ID`, the stream's answer among them, are no
/// longer kept (evicted, or expired in a shared store).
fn events_gone() -> Response {
    error_response(
        StatusCode::GONE,
        None,
        &ErrorObject::new(
            -32000,
            "Gone: the events after this Last-Event-ID, the answer among them, are no longer \
             kept; send the request again",
        ),
    )
}

/// Lets a handler close the connection of its request's SSE stream while it goes on
/// working (2025-11-25 polling, SEP-1699): the client reconnects after the `retry:` of the
/// priming event with `GET` + `Last-Event-ID`, and gets what it missed, the response last.
/// In the context of requests of 2025-11-25 sessions with resumability on:
/// `ctx.extensions().get::<SseStreamControl>()`.
#[derive(Clone)]
pub struct SseStreamControl {
    pub(super) out: mpsc::Sender<Vec<u8>>,
}

impl SseStreamControl {
    /// Closes the connection now (the answer turns into an SSE stream if it was not one:
    /// the priming event, then the end of the connection).
    pub async fn close_connection(&self) {
        let _ = self.out.send(Vec::new()).await;
    }
}

impl std::fmt::Debug for SseStreamControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SseStreamControl").finish_non_exhaustive()
    }
}

/// A chunk that shows a plain GET stream open at once (to proxies and clients).
pub(super) fn stream_open() -> Bytes {
    Bytes::from_static(b": stream open\n\n")
}

/// The answer to a resumption while the event store cannot be reached.
fn store_unavailable(e: &crate::session::StoreError) -> Response {
    tracing::warn!(error = %e, "event store unavailable");
    error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        &ErrorObject::new(
            -32000,
            "Service Unavailable: the event store cannot be reached",
        ),
    )
}
