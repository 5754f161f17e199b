//! 2026-07-28 POSTs: stateless, each checked against its headers and `_meta` envelope.

use super::*;

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::Response;
use mcp_core::headers;
use mcp_core::jsonrpc::{ErrorObject, Frame, Message, RequestId};
use mcp_core::params::Params;
use mcp_core::version::Era;
use serde_json::value::RawValue;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::context::Context;
use crate::server::kernel::{self, Kernel, Mirror, Origin};
use crate::session::intake;
use crate::transport::http::{HttpState, empty, error_response};

pub(super) static MCP_METHOD: HeaderName = HeaderName::from_static("mcp-method");

pub(super) static MCP_NAME: HeaderName = HeaderName::from_static("mcp-name");

/// The headers the 2026 checks of every request read, in the order of [`ModernHeaders`].
pub(super) static MODERN_HEADERS: [(&str, &HeaderName); 3] = [
    (headers::MCP_PROTOCOL_VERSION, &MCP_PROTOCOL_VERSION),
    (headers::MCP_METHOD, &MCP_METHOD),
    (headers::MCP_NAME, &MCP_NAME),
];

/// A request's headers as the 2026 checks read them: the ones every request is checked
/// for are found in one walk over the map (a lookup hashes the name, and a `&str` name is
/// parsed and lower-cased first); any other name is looked up.
pub(super) struct ModernHeaders<'a> {
    map: &'a HeaderMap,
    /// The first value of each of [`MODERN_HEADERS`] and its number of field lines.
    known: [(Option<&'a HeaderValue>, usize); 3],
}

impl<'a> ModernHeaders<'a> {
    fn of(map: &'a HeaderMap) -> Self {
        let mut known = [(None, 0); 3];
        for (name, value) in map {
            if let Some(k) = MODERN_HEADERS.iter().position(|(_, h)| *h == name) {
                known[k].0.get_or_insert(value);
                known[k].1 += 1;
            }
        }
        Self { map, known }
    }
}

impl headers::HeaderSource for ModernHeaders<'_> {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        match MODERN_HEADERS.iter().position(|(n, _)| *n == name) {
            Some(k) => match self.known[k] {
                (Some(v), 1) => each(v.as_bytes()),
                (None, _) => {}
                // Repeated: every line, in order.
                _ => self
                    .map
                    .get_all(MODERN_HEADERS[k].1)
                    .iter()
                    .for_each(|v| each(v.as_bytes())),
            },
            None => self
                .map
                .get_all(name)
                .iter()
                .for_each(|v| each(v.as_bytes())),
        }
    }
}

/// A body routed to 2026: one request or notification (no batch, no response). `scanned`
/// is its params as the routing copied and scanned them (`streamable::route`), so the
/// header checks, the envelope and the dispatcher read that one scan; else they are
/// copied here.
pub(super) async fn modern_post(
    state: &Arc<HttpState>,
    parts: axum::http::request::Parts,
    frame: Frame<'_>,
    scanned: Option<Params>,
) -> Response {
    let msg = match frame {
        Frame::Single(Ok(m)) => m,
        Frame::Single(Err(e)) => {
            return error_response(StatusCode::BAD_REQUEST, e.id.as_ref(), &e.error);
        }
        Frame::Batch(_) => {
            return error_response(
                StatusCode::BAD_REQUEST,
                None,
                &ErrorObject::invalid_request("Invalid Request: batches are not allowed"),
            );
        }
    };
    let own = |p: Option<&RawValue>| scanned.or_else(|| p.map(Params::from));
    match msg {
        Message::Response(_) => error_response(
            StatusCode::BAD_REQUEST,
            None,
            &ErrorObject::invalid_request("Invalid Request: 2026-07-28 clients send no responses"),
        ),
        Message::Notification(n) => {
            modern_notification(state, parts, n.method.into_owned(), own(n.params))
        }
        Message::Request(r) => {
            let (method, params) = (r.method.into_owned(), own(r.params));
            modern_request(state, parts, r.id, method, params).await
        }
    }
}

/// The kernel's admission of a 2026 POST's message, its headers the mirror of the body.
fn admit(
    state: &HttpState,
    headers: &HeaderMap,
    id: Option<&RequestId>,
    method: &str,
    params: Option<&Params>,
) -> intake::Admission {
    let hs = ModernHeaders::of(headers);
    let mirror = Mirror {
        headers: &hs,
        schemas: &state.inputs.header_schemas,
    };
    (state.kernel).admit_message(Era::Modern, None, id, method, params, Some(mirror))
}

/// A 2026 notification: its headers and envelope checked, then run in the background (202).
pub(super) fn modern_notification(
    state: &Arc<HttpState>,
    parts: axum::http::request::Parts,
    method: String,
    shared: Option<Params>,
) -> Response {
    let admitted = match admit(state, &parts.headers, None, &method, shared.as_ref()) {
        Ok(a) => a,
        Err(e) => return error_response(modern_status(Some(e.code)), None, &e),
    };
    let (tx, _rx) = mpsc::channel(1);
    let ctx = modern_context(
        state,
        into_incoming(parts),
        &method,
        shared,
        None,
        admitted,
        tx,
        CancellationToken::new(),
    );
    state.spawn_notification(ctx);
    empty(StatusCode::ACCEPTED)
}

/// A 2026 request: the header checks, the envelope, step-up scopes, then the chain; the
/// answer is JSON, or an SSE stream once the handler sends a message first.
pub(super) async fn modern_request(
    state: &Arc<HttpState>,
    parts: axum::http::request::Parts,
    id: RequestId,
    method: String,
    shared: Option<Params>,
) -> Response {
    // `shared`: the one copy of the params that the header checks, the envelope, the
    // context and the dispatcher read, and its one scan, which every one of them asks.
    let admitted = match admit(state, &parts.headers, Some(&id), &method, shared.as_ref()) {
        Ok(a) => a,
        Err(e) => return error_response(modern_status(Some(e.code)), Some(&id), &e),
    };
    let tool = || {
        headers::RequestFields::of_params(shared.as_ref())
            .name()
            .map(str::to_owned)
    };
    if let Some(r) = state.step_up_one(&parts, &method, tool) {
        return r;
    }
    let listen = method == mcp_core::types::methods::SUBSCRIPTIONS_LISTEN;
    // A listen stream is long-lived, not work in flight: it holds no slot (the
    // builder's `max_listens` bounds it).
    let permit = if listen {
        None
    } else {
        match state.permit() {
            Ok(p) => Some(p),
            Err(r) => return r,
        }
    };
    let (tx, rx) = mpsc::channel(64);
    // Cancelled by the client closing the stream, or by the end of a shutdown.
    let cancel = state.shutdown.child_token();
    let mut incoming = into_incoming(parts);
    if listen {
        // Its context lives as long as the stream: see `detached`.
        incoming.http = detached(incoming.http);
    }
    let ctx = modern_context(
        state,
        incoming,
        &method,
        shared,
        Some(id.clone()),
        admitted,
        tx,
        cancel.clone(),
    );
    let fin = state
        .start_request(ctx, cancel.clone(), id, permit, true, |_| {})
        .await;
    state
        .respond(rx, fin, modern_status, Vec::new(), Some(cancel))
        .await
}

/// The context of a 2026 request (or notification): admitted, in no session, its
/// messages going to `tx`, the request's stream.
#[allow(clippy::too_many_arguments)]
pub(super) fn modern_context(
    state: &Arc<HttpState>,
    http: Incoming,
    method: &str,
    params: Option<Params>,
    id: Option<RequestId>,
    admitted: intake::Admitted,
    tx: mpsc::Sender<Vec<u8>>,
    cancel: CancellationToken,
) -> Context {
    let extensions = http.into_extensions();
    let incoming = kernel::Incoming {
        method,
        id,
        params,
        era: Era::Modern,
        admitted,
        from: Origin::http_request(&state.kernel, tx, extensions),
    };
    Kernel::context(incoming, cancel)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::headers::HeaderSource;

    #[test]
    fn modern_headers_read_what_the_map_holds() {
        let mut map = HeaderMap::new();
        map.append(
            "mcp-protocol-version",
            HeaderValue::from_static("2026-07-28"),
        );
        map.append("mcp-name", HeaderValue::from_static("a"));
        map.append("content-type", HeaderValue::from_static("application/json"));
        map.append("mcp-name", HeaderValue::from_static("b"));
        map.append("mcp-param-region", HeaderValue::from_static("us"));
        let by_map = headers::HeaderFn(|name: &str, each: &mut dyn FnMut(&[u8])| {
            for v in map.get_all(name) {
                each(v.as_bytes());
            }
        });
        let ours = ModernHeaders::of(&map);
        let names = [
            headers::MCP_PROTOCOL_VERSION,
            headers::MCP_METHOD,
            headers::MCP_NAME,
            "Mcp-Param-Region",
            "mcp-name",
            "Content-Type",
        ];
        for name in names {
            let values = |h: &dyn HeaderSource| {
                let mut out = Vec::new();
                h.for_each_value(name, &mut |v| out.push(v.to_vec()));
                out
            };
            assert_eq!(values(&ours), values(&by_map), "{name}");
        }
        let mut names = Vec::new();
        ours.for_each_value(headers::MCP_NAME, &mut |v| names.push(v.to_vec()));
        assert_eq!(names, [b"a".to_vec(), b"b".to_vec()]);
    }
}
