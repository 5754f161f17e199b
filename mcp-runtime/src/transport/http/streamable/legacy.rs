//! 2025 POST, GET and DELETE: sessions, their streams, batches (2025-03-26), the
//! `initialize` commit and the session store.

use super::*;

use std::sync::Arc;

use axum::http::{HeaderName, HeaderValue, StatusCode, header};
use axum::response::Response;
use mcp_core::jsonrpc::{self, ErrorObject, Frame, Message, RequestId};
use mcp_core::params::Params;
use mcp_core::version::{Era, ProtocolVersion};
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tokio_util::sync::CancellationToken;

use crate::common::error::Reply;
use crate::context::Context;
use crate::server::kernel::{self, Kernel, Origin};
use crate::session::intake;
use crate::transport::http::session::HttpSession;
use crate::transport::http::sse::{Fin, SseBody};
use crate::transport::http::{HttpState, empty, error_response, json_response, sse_response};

/// The throwaway session of one stateless legacy request.
pub(super) fn stateless_session(state: &Arc<HttpState>) -> Arc<HttpSession> {
    let s = HttpSession::new(
        String::new(),
        state.kernel.options.peer_request_timeout,
        state.kernel.filters.clone(),
        state.shutdown.child_token(),
        None,
        None,
    );
    s.conn.mark_sessionless();
    s
}

/// Ends the throwaway session of a stateless legacy request when dropped.
pub(super) struct CloseOnDrop(Arc<HttpSession>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// `r` with `guard` dropped when its body is (finished, or abandoned by the client).
pub(super) fn with_body<G: Send + Sync + 'static>(r: Response, guard: G) -> Response {
    use http_body_util::BodyExt;
    r.map(|body| {
        axum::body::Body::new(body.map_frame(move |frame| {
            let _owned = &guard;
            frame
        }))
    })
}

/// One legacy message as its admission left it ([`LegacyCall::admit`]): the params copied
/// out of the body once (and scanned once, where they carry `_meta`), and the `_meta` the
/// admission read from that scan.
pub(crate) struct LegacyCall<'a> {
    pub(crate) id: Option<RequestId>,
    pub(crate) method: std::borrow::Cow<'a, str>,
    pub(crate) params: Option<Params>,
    admitted: intake::Admitted,
}

impl<'a> LegacyCall<'a> {
    /// The checks of a legacy message before the chain, the kernel's one admission
    /// ([`Kernel::admit_message`]): a request carrying the 2026 envelope is refused with its error
    /// (the answer to send), else the message may run; its revision is the session's,
    /// set when the session is found ([`legacy_context`]).
    pub(crate) fn admit(
        state: &HttpState,
        id: Option<RequestId>,
        method: impl Into<std::borrow::Cow<'a, str>>,
        params: Option<Params>,
    ) -> Result<Self, (Option<RequestId>, ErrorObject)> {
        let method = method.into();
        let kernel = &state.kernel;
        match kernel.admit_message(
            Era::Legacy,
            None,
            id.as_ref(),
            &method,
            params.as_ref(),
            None,
        ) {
            Ok(admitted) => Ok(Self {
                id,
                method,
                params,
                admitted,
            }),
            Err(e) => Err((id, e)),
        }
    }
}

/// The error frame answering a request its admission refused.
fn refusal_frame(id: Option<&RequestId>, e: &ErrorObject) -> Vec<u8> {
    let mut out = Vec::new();
    jsonrpc::write_error(&mut out, id, e);
    out
}

/// The context of a legacy message in `session`; `out` routes its messages to a
/// request-scoped stream (else they go to the session's stream).
pub(crate) fn legacy_context(
    session: &HttpSession,
    http: Incoming,
    call: LegacyCall<'_>,
    out: Option<mpsc::Sender<Vec<u8>>>,
    cancel: CancellationToken,
) -> Context {
    let LegacyCall {
        id,
        method,
        params,
        mut admitted,
    } = call;
    let extensions = http.into_extensions();
    // The revision is the session's, known once the session is found.
    admitted.version = session.state.lock().expect("session lock").version;
    let from = Origin::http_session(
        &session.state,
        &session.id,
        session.conn.clone(),
        out,
        extensions,
    );
    let incoming = kernel::Incoming {
        method: &method,
        id,
        params,
        era: Era::Legacy,
        admitted,
        from,
    };
    Kernel::context(incoming, cancel)
}

pub(super) fn session_header(id: &str) -> Vec<(HeaderName, HeaderValue)> {
    match HeaderValue::from_str(id) {
        Ok(v) => vec![(HeaderName::from_static("mcp-session-id"), v)],
        Err(_) => Vec::new(),
    }
}

pub(super) fn bad_request(msg: &str) -> Response {
    error_response(
        StatusCode::BAD_REQUEST,
        None,
        &ErrorObject::new(-32000, msg),
    )
}

pub(super) fn session_not_found() -> Response {
    error_response(
        StatusCode::NOT_FOUND,
        None,
        &ErrorObject::new(-32001, "Session not found"),
    )
}

/// The session a legacy request names: 400 without the header, 404 when unknown (or owned
/// by another subject), 503 when it has to come from a session store that cannot be reached.
pub(super) async fn find_session(
    state: &Arc<HttpState>,
    parts: &axum::http::request::Parts,
) -> Result<Arc<HttpSession>, Response> {
    let Some(id) = header_str(&parts.headers, &MCP_SESSION_ID) else {
        return Err(bad_request(
            "Bad Request: Mcp-Session-Id header is required",
        ));
    };
    match state.find_session(id).await {
        Ok(Some(s)) if s.owned_by(parts) => Ok(s),
        Ok(_) => Err(session_not_found()),
        Err(e) => Err(store_unavailable(&e)),
    }
}

/// The answer to a request that needs the session store while it cannot be reached.
pub(super) fn store_unavailable(e: &crate::session::StoreError) -> Response {
    tracing::warn!(error = %e, "session store unavailable");
    error_response(
        StatusCode::SERVICE_UNAVAILABLE,
        None,
        &ErrorObject::new(
            -32000,
            "Service Unavailable: the session store cannot be reached",
        ),
    )
}

/// Applies a message the session does not answer: a response to a server-to-client
/// request, or a notification (cancellation applied before the chain).
pub(crate) fn apply_unanswered(
    state: &Arc<HttpState>,
    session: &HttpSession,
    http: &Incoming,
    msg: Msg,
) {
    match msg {
        Msg::Response { id, outcome } => {
            if let Some(id) = id {
                state.answer(session, id, outcome);
            }
        }
        Msg::Notification { method, params } => {
            if method == "notifications/cancelled" {
                state.cancel(session, params.as_deref());
            }
            // A notification is never refused (nothing would hear it).
            let Ok(call) = LegacyCall::admit(state, None, &method, params.map(Params::from)) else {
                return;
            };
            let ctx = legacy_context(
                session,
                http.clone(),
                call,
                None,
                session.closed.child_token(),
            );
            state.spawn_notification(ctx);
        }
        Msg::Request { .. } => unreachable!("requests are answered"),
    }
}

/// Starts one admitted legacy request in `session` (`inline`: see
/// [`HttpState::start_request`]). An `initialize` keeps its params (a shared handle on the
/// context's copy) to commit the handshake.
pub(crate) async fn start_legacy_request(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    http: Incoming,
    call: LegacyCall<'_>,
    out: Option<mpsc::Sender<Vec<u8>>>,
    permit: Option<OwnedSemaphorePermit>,
    inline: bool,
) -> Fin {
    let id = call.id.clone().expect("a request has an id");
    let is_init = call.method == "initialize";
    if matches!(
        &*call.method,
        "resources/subscribe" | "resources/unsubscribe"
    ) {
        state.refresh_subscriptions(session).await;
    }
    let cancel = session.closed.child_token();
    let control = match &out {
        Some(o) if state.resumable(session) && state.prime_for(session).is_some() => {
            Some(crate::transport::http::resume::SseStreamControl { out: o.clone() })
        }
        _ => None,
    };
    let init_params = if is_init { call.params.clone() } else { None };
    let mut ctx = legacy_context(session, http, call, out, cancel.clone());
    if let Some(c) = control {
        ctx.extensions_mut().insert(c);
    }
    if !is_init {
        session.in_flight.insert(id.clone(), cancel.clone());
    }
    let s = session.clone();
    let rid = id.clone();
    let st = state.clone();
    state
        .start_request(ctx, cancel, id, permit, inline, move |out| {
            if is_init {
                if let Some(Ok(Reply::Result(raw))) = out {
                    let params = init_params.as_deref();
                    intake::commit_initialize(&s.state, Some(&rid), params, raw);
                }
            } else {
                s.in_flight.remove(&rid);
            }
            s.touch();
            // A change made by a request still running when its POST was answered
            // (streamed) is stored here; the POST stores what changed before answering.
            if !st.opts.stateless_legacy && s.unsaved_record().is_some() {
                tokio::spawn(async move {
                    let _ = st.persist(&s).await;
                });
            }
        })
        .await
}

/// A legacy POST; `header_version` is the `MCP-Protocol-Version` header as [`handle`]
/// read it (`Some(None)`: not a revision); `scanned`, the params of a single message as
/// the routing copied and scanned them (it looked for the 2026 envelope), so they are not
/// copied and scanned again.
pub(super) async fn legacy_post(
    state: &Arc<HttpState>,
    parts: axum::http::request::Parts,
    frame: Frame<'_>,
    header_version: Option<Option<ProtocolVersion>>,
    scanned: Option<Params>,
) -> Response {
    // The messages stay borrowed from the body: a request's context copies what it needs.
    // A single message (the usual body) goes without the vectors of a batch.
    let (one, many, batch) = match frame {
        Frame::Single(r) => (Some(r), Vec::new(), false),
        Frame::Batch(items) => (None, items, true),
    };
    let is_init = matches!(&one, Some(Ok(Message::Request(r))) if r.method == "initialize");
    // A single request is admitted before the header checks (a 2026 request to a server
    // that serves no 2026 revision is refused as on every transport, so a probe gets the
    // same answer everywhere), with the params the routing scanned.
    let (single, rest) = match one {
        Some(Ok(Message::Request(r))) => {
            let params = scanned.or_else(|| r.params.map(Params::from));
            match LegacyCall::admit(state, Some(r.id), r.method, params) {
                Ok(call) => (Some(call), many),
                Err((id, e)) => return error_response(StatusCode::BAD_REQUEST, id.as_ref(), &e),
            }
        }
        Some(other) => (None, vec![other]),
        None => (None, many),
    };
    if let Some(parsed) = header_version
        && !is_init
        && let Err(r) = check_legacy_version(state, &parts, parsed)
    {
        return r;
    }
    if is_init {
        let call = single.expect("an initialize request");
        return legacy_initialize(state, into_incoming(parts), call).await;
    }
    let stateless = state.opts.stateless_legacy;
    let session = match legacy_session(state, &parts, header_version.flatten()).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let session_version = session.state.lock().expect("session lock").version;
    if batch && session_version != Some(ProtocolVersion::V2025_03_26) {
        return error_response(
            StatusCode::BAD_REQUEST,
            None,
            &ErrorObject::invalid_request(
                "Invalid Request: batches are only allowed in 2025-03-26 sessions",
            ),
        );
    }
    let mut errors = Vec::new();
    let mut requests = Vec::new();
    for item in rest {
        match item {
            Err(e) => {
                if !batch {
                    return error_response(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error);
                }
                if e.should_reply() {
                    errors.push(refusal_frame(e.id.as_ref(), &e.error));
                }
            }
            Ok(Message::Request(r)) => requests.push(r),
            Ok(other) => apply_unanswered(state, &session, &incoming(&parts), owned(other)),
        }
    }
    let done = |r: Response| {
        if stateless {
            session.close();
        }
        r
    };
    let each = (single.iter().map(|c| (&*c.method, c.params.as_deref()))).chain(
        requests
            .iter()
            .map(|r: &jsonrpc::Request<'_>| (&*r.method, r.params)),
    );
    if let Some(r) = state.step_up(&parts, each) {
        return done(r);
    }
    let http = into_incoming(parts);
    if single.is_none() && requests.is_empty() && errors.is_empty() {
        return done(empty(StatusCode::ACCEPTED));
    }
    // Until the answer is out, or the client leaves, this connection keeps the session
    // from expiring.
    let waiting = session.waiting();
    if let Some(call) = single {
        let r = legacy_single(state, &session, http, call).await;
        return with_body(r, waiting);
    }
    let r = done(legacy_batch(state, &session, http, requests, errors).await);
    with_body(r, waiting)
}

/// The `MCP-Protocol-Version` of a legacy request (not `initialize`): a legacy revision
/// the server serves, else 400 naming the ones it does.
pub(super) fn check_legacy_version(
    state: &Arc<HttpState>,
    parts: &axum::http::request::Parts,
    parsed: Option<ProtocolVersion>,
) -> Result<(), Response> {
    let supported = state.kernel.identity.supported;
    if parsed.is_some_and(|v| v.era() == Era::Legacy && supported.contains(v)) {
        return Ok(());
    }
    let v = header_str(&parts.headers, &MCP_PROTOCOL_VERSION).unwrap_or_default();
    Err(bad_request(&format!(
        "Bad Request: unsupported MCP-Protocol-Version: {v} (supported: {})",
        supported
            .handshake()
            .map(ProtocolVersion::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    )))
}

/// The session a legacy request runs in: the one it names, or (stateless legacy) a
/// throwaway one at the revision of its header.
pub(super) async fn legacy_session(
    state: &Arc<HttpState>,
    parts: &axum::http::request::Parts,
    header_version: Option<ProtocolVersion>,
) -> Result<Arc<HttpSession>, Response> {
    if !state.opts.stateless_legacy {
        return find_session(state, parts).await;
    }
    let s = stateless_session(state);
    {
        let mut st = s.state.lock().expect("session lock");
        st.initialized = true;
        st.version = Some(header_version.unwrap_or(ProtocolVersion::V2025_03_26));
    }
    Ok(s)
}

/// One legacy request, answered as JSON when it is done at once, else as an SSE stream
/// (resumable when the session is).
pub(super) async fn legacy_single(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    http: Incoming,
    call: LegacyCall<'_>,
) -> Response {
    let stateless = state.opts.stateless_legacy;
    let permit = match state.permit_in(session) {
        Ok(p) => p,
        Err(r) => {
            if stateless {
                session.close();
            }
            return r;
        }
    };
    let (tx, rx) = out_channel();
    let fin = start_legacy_request(
        state,
        session,
        http,
        call,
        Some(tx.clone()),
        Some(permit),
        true,
    )
    .await;
    // A stateless request's session lives as long as its answer: a streamed answer keeps
    // it until the body ends (a client that leaves cancels the request).
    let close = stateless.then(|| CloseOnDrop(session.clone()));
    let (fin, rx) = match recycle_if_unused(fin, tx, rx) {
        Ok(out) => {
            // Answered at once, nothing sent and no sender left: what both answers below
            // give for that, without their channel.
            let r = match out {
                Some((frame, _)) => json_response(StatusCode::OK, frame),
                None => empty(StatusCode::NO_CONTENT),
            };
            if !stateless {
                let _ = state.persist(session).await;
            }
            return match close {
                Some(guard) => with_body(r, guard),
                None => r,
            };
        }
        Err(pending) => pending,
    };
    let r = if !stateless && state.resumable(session) {
        state.respond_resumable(session, rx, fin).await
    } else {
        state
            .respond(rx, fin, legacy_status, Vec::new(), None)
            .await
    };
    match close {
        Some(guard) => with_body(r, guard),
        None => r,
    }
}

/// A 2025-03-26 batch: one JSON array once every request is answered (`errors`: the
/// answers to the items that did not decode).
pub(super) async fn legacy_batch(
    state: &Arc<HttpState>,
    session: &Arc<HttpSession>,
    http: Incoming,
    requests: Vec<jsonrpc::Request<'_>>,
    mut errors: Vec<Vec<u8>>,
) -> Response {
    let mut fins = Vec::new();
    for r in requests {
        let params = r.params.map(Params::from);
        let call = match LegacyCall::admit(state, Some(r.id), r.method, params) {
            Ok(call) => call,
            Err((id, e)) => {
                errors.push(refusal_frame(id.as_ref(), &e));
                continue;
            }
        };
        let permit = match state.permit_in(session) {
            Ok(p) => p,
            Err(r) => return r,
        };
        let fin =
            start_legacy_request(state, session, http.clone(), call, None, Some(permit), true)
                .await;
        fins.push(fin);
    }
    let mut parts_out = errors;
    for f in fins {
        if let Some((frame, _)) = f.wait().await {
            parts_out.push(frame);
        }
    }
    if !state.opts.stateless_legacy {
        let _ = state.persist(session).await;
    }
    let mut out = vec![b'['];
    for (i, p) in parts_out.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(p);
    }
    out.push(b']');
    json_response(StatusCode::OK, out)
}

pub(super) async fn legacy_initialize(
    state: &Arc<HttpState>,
    http: Incoming,
    call: LegacyCall<'_>,
) -> Response {
    let id = call.id.clone().expect("a request has an id");
    let permit = match state.permit() {
        Ok(p) => p,
        Err(r) => return r,
    };
    let stateless = state.opts.stateless_legacy;
    let session = if stateless {
        stateless_session(state)
    } else {
        match state.create_session(false) {
            Some(s) => s,
            None => {
                return error_response(
                    StatusCode::SERVICE_UNAVAILABLE,
                    Some(&id),
                    &ErrorObject::new(-32000, "Server busy: too many sessions"),
                );
            }
        }
    };
    session.set_owner(http.principal.as_ref());
    if !stateless {
        // Named now, so the record stored below carries it: every process that serves the
        // session sees its tasks (one that adopted it earlier would name its own).
        session.state.lock().expect("session lock").task_scope();
    }
    let (tx, rx) = mpsc::channel(64);
    let fin = start_legacy_request(state, &session, http, call, Some(tx), Some(permit), true).await;
    let headers = if stateless {
        Vec::new()
    } else {
        session_header(&session.id)
    };
    let r = state.respond(rx, fin, legacy_status, headers, None).await;
    if stateless {
        session.close();
    } else if r
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v == "application/json")
        && !session.initialized()
    {
        // The handshake failed: no session.
        state.remove_session(&session.id);
        let mut r = r;
        r.headers_mut().remove("mcp-session-id");
        return r;
    } else if let Err(e) = state.persist(&session).await {
        // Stored before the client learns the session id, since its next request may reach
        // another process: a session the store does not hold is not handed out.
        state.remove_session(&session.id);
        return store_unavailable(&e);
    }
    r
}

pub(super) async fn legacy_get(
    state: &Arc<HttpState>,
    parts: &axum::http::request::Parts,
) -> Response {
    if !accepts(&parts.headers, "text/event-stream") {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            &ErrorObject::invalid_request("Not Acceptable: Accept must list text/event-stream"),
        );
    }
    let session = match find_session(state, parts).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let resumed = header_str(&parts.headers, &LAST_EVENT_ID)
        .filter(|v| !v.is_empty())
        .map(|last| state.resume(&session, last));
    let resumed = match resumed {
        Some(resuming) => resuming.await,
        None => None,
    };
    let mut r = match resumed {
        Some(r) => r,
        None => {
            let Ok(att) = session.attach(state.prime_for(&session)).await else {
                return error_response(
                    StatusCode::CONFLICT,
                    None,
                    &ErrorObject::new(
                        -32000,
                        "Conflict: a stream is already open for this session",
                    ),
                );
            };
            let s = session.clone();
            let generation = att.generation;
            let mut body = SseBody::new(att.rx, None, state.opts.keep_alive)
                .end_on(state.until_drain(&session.closed))
                .on_drop(move || s.detach(generation));
            body.raw = true;
            if att.pending.is_empty() {
                // Lets proxies and clients see the stream open at once.
                body.push_raw(crate::transport::http::resume::stream_open());
            }
            for b in att.pending {
                body.push_raw(b);
            }
            sse_response(body)
        }
    };
    for (k, v) in session_header(&session.id) {
        r.headers_mut().insert(k, v);
    }
    // A resumed stream keeps the session from expiring as the standalone one does.
    with_body(r, session.waiting())
}

pub(super) async fn legacy_delete(
    state: &Arc<HttpState>,
    parts: &axum::http::request::Parts,
) -> Response {
    let session = match find_session(state, parts).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    match state.delete_session(&session.id).await {
        Ok(()) => empty(StatusCode::OK),
        Err(e) => store_unavailable(&e),
    }
}
