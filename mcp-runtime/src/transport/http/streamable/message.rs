//! The messages of a request body and the HTTP request they came in, owned so that they
//! can move into a task.

use axum::http::{HeaderMap, HeaderValue};
use mcp_core::jsonrpc::{self, DecodeError, DecodeOptions, ErrorObject, Frame, Message, RequestId};
use serde_json::value::RawValue;

use crate::common::address::ClientAddress;
use crate::common::extensions::Extensions;
use crate::transport::http::HttpRequest;
use crate::transport::http::auth::Principal;

/// A message decoded from a body, owned so that it can move into a task.
pub(crate) enum Msg {
    Request {
        id: RequestId,
        method: String,
        params: Option<Box<RawValue>>,
    },
    Notification {
        method: String,
        params: Option<Box<RawValue>>,
    },
    Response {
        id: Option<RequestId>,
        outcome: Result<Box<RawValue>, ErrorObject>,
    },
}

pub(crate) fn owned(m: Message<'_>) -> Msg {
    match m {
        Message::Request(r) => Msg::Request {
            id: r.id,
            method: r.method.into_owned(),
            params: r.params.map(|p| p.to_owned()),
        },
        Message::Notification(n) => Msg::Notification {
            method: n.method.into_owned(),
            params: n.params.map(|p| p.to_owned()),
        },
        Message::Response(r) => Msg::Response {
            id: r.id,
            outcome: r.outcome.map(|v| v.to_owned()),
        },
    }
}

/// Decodes a body into its messages; `true` when it was a batch.
pub(crate) fn decode_all(bytes: &[u8], allow_batch: bool) -> (Vec<Result<Msg, DecodeError>>, bool) {
    owned_frame(decode(bytes, allow_batch))
}

pub(super) fn decode(bytes: &[u8], allow_batch: bool) -> Frame<'_> {
    let opts = DecodeOptions {
        allow_batch,
        ..DecodeOptions::default()
    };
    jsonrpc::decode(bytes, opts)
}

/// The messages of a decoded body, owned; `true` when it was a batch.
pub(super) fn owned_frame(frame: Frame<'_>) -> (Vec<Result<Msg, DecodeError>>, bool) {
    match frame {
        Frame::Single(r) => (vec![r.map(owned)], false),
        Frame::Batch(items) => (items.into_iter().map(|r| r.map(owned)).collect(), true),
    }
}

pub(crate) fn http_request(parts: &axum::http::request::Parts) -> HttpRequest {
    HttpRequest {
        method: parts.method.clone(),
        uri: parts.uri.clone(),
        headers: parts.headers.clone(),
    }
}

/// Where the request came from: the connection's peer, where the server put it (as axum's
/// `ConnectInfo`), and the `X-Forwarded-For` addresses (read only when there is a peer).
fn client_address(
    extensions: &axum::http::Extensions,
    headers: &HeaderMap,
) -> Option<ClientAddress> {
    use axum::extract::ConnectInfo;
    let peer = extensions.get::<ConnectInfo<std::net::SocketAddr>>()?.0;
    let forwarded_for = (headers.get_all("x-forwarded-for").iter())
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|a| a.trim().parse().ok())
        .collect();
    Some(ClientAddress {
        peer,
        forwarded_for,
    })
}

/// What the context of the request `parts` learns, the parts moved rather than copied
/// (the request's own checks are over by then).
pub(super) fn into_incoming(parts: axum::http::request::Parts) -> Incoming {
    let mut extensions = parts.extensions;
    Incoming {
        principal: extensions.remove::<Principal>(),
        address: client_address(&extensions, &parts.headers),
        http: HttpRequest {
            method: parts.method,
            uri: parts.uri,
            headers: parts.headers,
        },
    }
}

/// `http` with its header values and target copied into allocations of their own.
///
/// hyper parses a request's head in place: its header values and its URI are slices of the
/// connection's 8 KiB read buffer. A context that outlives its request (a listen stream's,
/// for as long as the stream is open) would keep that buffer, and the connection, which
/// goes on reading to notice the client closing, would allocate another one. With the copy
/// the connection reuses its buffer.
pub(super) fn detached(http: HttpRequest) -> HttpRequest {
    use axum::body::Bytes;
    let mut headers = http.headers;
    for v in headers.values_mut() {
        // A copy of a value hyper accepted is accepted too; should it not be, the value
        // stays as it was (still correct, only not detached).
        if let Ok(mut copy) = HeaderValue::from_maybe_shared(Bytes::copy_from_slice(v.as_bytes())) {
            copy.set_sensitive(v.is_sensitive());
            *v = copy;
        }
    }
    let uri = axum::http::Uri::try_from(http.uri.to_string()).unwrap_or(http.uri);
    HttpRequest {
        method: http.method,
        uri,
        headers,
    }
}

/// What a message's context learns of its HTTP request: the request, and the principal
/// that authentication established.
#[derive(Clone)]
pub(crate) struct Incoming {
    pub(crate) http: HttpRequest,
    pub(crate) principal: Option<Principal>,
    pub(crate) address: Option<ClientAddress>,
}

impl Incoming {
    /// What a message's context carries of its HTTP request, as typed extensions.
    pub(crate) fn into_extensions(self) -> Extensions {
        let mut extensions = Extensions::default();
        extensions.insert(self.http);
        if let Some(p) = self.principal {
            extensions.insert(p);
        }
        if let Some(a) = self.address {
            extensions.insert(a);
        }
        extensions
    }
}

pub(crate) fn incoming(parts: &axum::http::request::Parts) -> Incoming {
    Incoming {
        http: http_request(parts),
        principal: parts.extensions.get::<Principal>().cloned(),
        address: client_address(&parts.extensions, &parts.headers),
    }
}

#[cfg(test)]
mod tests {
    use super::super::MCP_PROTOCOL_VERSION;
    use super::*;
    use axum::http::{HeaderMap, Method, header};

    #[test]
    fn a_detached_request_is_equal_and_shares_nothing_with_the_read_buffer() {
        use axum::body::Bytes;
        // What hyper hands over: values and target sliced out of one read buffer.
        let buf = Bytes::from_static(b"/mcp?x=1 secret-token 2026-07-28 caf\xc3\xa9");
        let within = |p: *const u8| buf.as_ptr_range().contains(&p);
        let mut headers = HeaderMap::new();
        let mut auth = HeaderValue::from_maybe_shared(buf.slice(9..21)).unwrap();
        auth.set_sensitive(true);
        headers.insert(header::AUTHORIZATION, auth);
        headers.append(
            MCP_PROTOCOL_VERSION.clone(),
            HeaderValue::from_maybe_shared(buf.slice(22..32)).unwrap(),
        );
        headers.append(
            MCP_PROTOCOL_VERSION.clone(),
            HeaderValue::from_maybe_shared(buf.slice(33..)).unwrap(),
        );
        let uri = axum::http::Uri::from_maybe_shared(buf.slice(0..8)).unwrap();
        assert!(within(uri.path().as_ptr()));
        let http = HttpRequest {
            method: Method::POST,
            uri,
            headers,
        };
        let copy = detached(http.clone());
        assert_eq!(copy.method, http.method);
        assert_eq!(copy.uri, http.uri);
        assert_eq!(copy.uri.query(), Some("x=1"));
        assert_eq!(copy.headers, http.headers);
        assert!(copy.headers[header::AUTHORIZATION].is_sensitive());
        assert!(!copy.headers[&MCP_PROTOCOL_VERSION].is_sensitive());
        let values: Vec<_> = copy.headers.get_all(&MCP_PROTOCOL_VERSION).iter().collect();
        assert_eq!(values, ["2026-07-28", "caf\u{e9}"]);
        assert!(!within(copy.uri.path().as_ptr()));
        for v in copy.headers.values() {
            assert!(!within(v.as_bytes().as_ptr()), "{v:?}");
        }
    }
}
