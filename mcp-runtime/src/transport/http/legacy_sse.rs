//! The 2024-11-05 HTTP+SSE transport: `GET <sse>` opens the session's stream (first event
//! `endpoint`), `POST <messages>?sessionId=…` is answered 202 and every server message
//! arrives on the stream as a `message` event. The session ends when its stream drops.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use mcp_core::jsonrpc::ErrorObject;
use mcp_core::params::Params;

use super::auth::Principal;
use super::session::HttpSession;
use super::sse::{SseBody, event};
use super::streamable::{
    LegacyCall, Msg, SESSION_BUSY, apply_unanswered, decode_all, incoming, start_legacy_request,
};
use super::{HttpState, empty, error_response, read_body, sse_response};
use tokio_util::sync::CancellationToken;

pub(super) async fn stream(state: &Arc<HttpState>, req: axum::extract::Request) -> Response {
    if req.method() != Method::GET {
        return not_allowed("GET");
    }
    let Some(session) = state.create_session(true) else {
        return error_response(
            StatusCode::SERVICE_UNAVAILABLE,
            None,
            &ErrorObject::new(-32000, "Server busy: too many sessions"),
        );
    };
    session.set_owner(req.extensions().get::<Principal>());
    let Ok(att) = session.attach(None).await else {
        return empty(StatusCode::INTERNAL_SERVER_ERROR);
    };
    let post_path = state
        .opts
        .legacy_sse
        .as_ref()
        .map(|(_, p)| p.clone())
        .unwrap_or_default();
    let endpoint = format!("{}{post_path}?sessionId={}", mount_prefix(&req), session.id);
    let st = state.clone();
    let id = session.id.clone();
    let mut body = SseBody::new(att.rx, None, state.opts.keep_alive)
        .end_on(drained(state, &session))
        // Everything tied to the session ends with its stream.
        .on_drop(move || {
            st.remove_session(&id);
        });
    body.raw = true;
    body.push_raw(event(Some("endpoint"), endpoint.as_bytes()));
    for b in att.pending {
        body.push_raw(b);
    }
    sse_response(body)
}

/// Where the router is mounted (`/api` for `Router::nest("/api", …)`; empty at the
/// root), so that the `endpoint` event names a URI that reaches the POST path.
fn mount_prefix(req: &axum::extract::Request) -> String {
    let path = req.uri().path();
    req.extensions()
        .get::<axum::extract::OriginalUri>()
        .and_then(|o| o.0.path().strip_suffix(path))
        .map(|p| p.trim_end_matches('/').to_owned())
        .unwrap_or_default()
}

fn not_allowed(allow: &'static str) -> Response {
    let mut r = error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        &ErrorObject::new(-32000, "Method Not Allowed"),
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static(allow));
    r
}

/// The end of a session's stream: the session's, or a drain once every request it
/// carries is answered.
fn drained(state: &HttpState, session: &Arc<HttpSession>) -> CancellationToken {
    let end = session.closed.child_token();
    let (drain, e, s) = (state.draining.clone(), end.clone(), Arc::downgrade(session));
    tokio::spawn(async move {
        tokio::select! {
            _ = drain.cancelled() => {}
            _ = e.cancelled() => return,
        }
        // Answers in flight, or still queued for the stream's pump.
        let busy = |s: &HttpSession| {
            s.answering.load(Ordering::SeqCst) > 0
                || s.conn.out.capacity() < s.conn.out.max_capacity()
        };
        while s.upgrade().is_some_and(|s| busy(&s)) {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        // The pump may hold the last message between its queue and the stream.
        tokio::time::sleep(Duration::from_millis(20)).await;
        e.cancel();
    });
    end
}

pub(super) async fn post(state: &Arc<HttpState>, req: axum::extract::Request) -> Response {
    if req.method() != Method::POST {
        return not_allowed("POST");
    }
    let (parts, body) = req.into_parts();
    let sid = parts.uri.query().and_then(|q| {
        q.split('&')
            .filter_map(|kv| kv.split_once('='))
            .find(|(k, _)| *k == "sessionId")
            .map(|(_, v)| v.to_owned())
    });
    let Some(sid) = sid else {
        return error_response(
            StatusCode::BAD_REQUEST,
            None,
            &ErrorObject::new(-32000, "Bad Request: sessionId is required"),
        );
    };
    let Some(session) = state.session(&sid).filter(|s| s.owned_by(&parts)) else {
        return error_response(
            StatusCode::NOT_FOUND,
            None,
            &ErrorObject::new(-32001, "Session not found"),
        );
    };
    let bytes = match read_body(body, &state.opts).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let Some(bytes) = state.kernel.filters.incoming(bytes) else {
        return empty(StatusCode::ACCEPTED);
    };
    let http = incoming(&parts);
    let (items, _) = decode_all(&bytes, false);
    for item in items {
        match item {
            Err(e) => {
                return error_response(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error);
            }
            Ok(Msg::Request { id, method, params }) => {
                if let Some(r) = state.step_up(&parts, [(method.as_str(), params.as_deref())]) {
                    return r;
                }
                let call =
                    match LegacyCall::admit(state, Some(id), method, params.map(Params::from)) {
                        Ok(call) => call,
                        Err((id, e)) => {
                            return error_response(StatusCode::BAD_REQUEST, id.as_ref(), &e);
                        }
                    };
                let id = call.id.clone().expect("a request has an id");
                if state.session_busy(&session) {
                    return error_response(
                        StatusCode::SERVICE_UNAVAILABLE,
                        Some(&id),
                        &ErrorObject::new(-32000, SESSION_BUSY),
                    );
                }
                let Ok(permit) = state.permits.clone().try_acquire_owned() else {
                    return error_response(
                        StatusCode::SERVICE_UNAVAILABLE,
                        Some(&id),
                        &ErrorObject::new(-32000, "Server busy: too many requests in flight"),
                    );
                };
                let fin = start_legacy_request(
                    state,
                    &session,
                    http.clone(),
                    call,
                    None,
                    Some(permit),
                    false,
                )
                .await;
                let s = session.clone();
                s.answering.fetch_add(1, Ordering::SeqCst);
                tokio::spawn(async move {
                    if let Some((frame, _)) = fin.wait().await {
                        // Already filtered: straight to the stream.
                        let _ = s.conn.out.send(frame).await;
                    }
                    s.answering.fetch_sub(1, Ordering::SeqCst);
                });
            }
            Ok(other) => apply_unanswered(state, &session, &http, other),
        }
    }
    let mut r = axum::response::Response::new(axum::body::Body::from("Accepted"));
    *r.status_mut() = StatusCode::ACCEPTED;
    r
}
