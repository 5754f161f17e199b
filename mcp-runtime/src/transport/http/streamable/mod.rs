//! Streamable HTTP: one endpoint, both eras, routed per request: the POST/GET/DELETE
//! entry, the header checks every POST gets, and the era choice by the body's envelope.

mod answer;
mod legacy;
mod message;
mod modern;

// The parts reach each other through this module (`use super::*`).
use self::{answer::*, legacy::*, message::*, modern::*};
// What the rest of the HTTP transport uses.
pub(crate) use self::answer::SESSION_BUSY;
pub(crate) use self::legacy::{LegacyCall, apply_unanswered, start_legacy_request};
pub(crate) use self::message::{Msg, decode_all, http_request, incoming};

use std::sync::Arc;

use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use mcp_core::jsonrpc::{ErrorObject, Frame, Message};
use mcp_core::meta;
use mcp_core::params::Params;
use mcp_core::version::{Era, ProtocolVersion, SupportedVersions};

use super::{HttpState, empty, error_response, read_body};
use crate::session::intake;

/// The first value of `name`, as text, trimmed.
fn header_str<'a>(h: &'a HeaderMap, name: &HeaderName) -> Option<&'a str> {
    // A request has a handful of headers: comparing names is cheaper than hashing one.
    // The first match is the first value, as `HeaderMap::get` gives.
    h.iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, v)| v.to_str().ok())
        .map(str::trim)
}

// Looked up by `HeaderName` (a hash) rather than by `&str` (parsed on every lookup).
static MCP_PROTOCOL_VERSION: HeaderName = HeaderName::from_static("mcp-protocol-version");

static MCP_SESSION_ID: HeaderName = HeaderName::from_static("mcp-session-id");

static LAST_EVENT_ID: HeaderName = HeaderName::from_static("last-event-id");

fn accepts(headers: &HeaderMap, what: &str) -> bool {
    accepts_any(headers, &[what]) == Some(true)
}

/// The headers [`handle`] checks, read in one pass over the request's headers (a
/// handful: a scan costs less than a hashed lookup per name). Each is its first value,
/// as text and trimmed (what [`header_str`] gives).
struct PostHeaders<'a> {
    protocol_version: Option<&'a str>,
    content_type: Option<&'a str>,
    /// `None` without `Accept`; else whether a value lists JSON, SSE or `*/*`.
    accept_ok: Option<bool>,
}

impl<'a> PostHeaders<'a> {
    fn read(headers: &'a HeaderMap) -> Self {
        let text = |v: &'a HeaderValue| v.to_str().ok().map(str::trim);
        let (mut pv, mut ct) = (None, None);
        let mut accept_ok = None;
        for (name, value) in headers {
            if name == header::CONTENT_TYPE {
                ct.get_or_insert(value);
            } else if name == header::ACCEPT {
                let ok = value.to_str().is_ok_and(|s| {
                    contains(s, "application/json")
                        || contains(s, "text/event-stream")
                        || contains(s, "*/*")
                });
                accept_ok = Some(accept_ok == Some(true) || ok);
            } else if name == MCP_PROTOCOL_VERSION {
                pv.get_or_insert(value);
            }
        }
        Self {
            protocol_version: pv.and_then(text),
            content_type: ct.and_then(text),
            accept_ok,
        }
    }
}

/// Whether an `Accept` value lists one of `what` (or `*/*`); `None` without `Accept`.
fn accepts_any(headers: &HeaderMap, what: &[&str]) -> Option<bool> {
    let mut values = headers.get_all(header::ACCEPT).iter().peekable();
    values.peek()?;
    Some(values.any(|v| {
        v.to_str()
            .is_ok_and(|s| what.iter().any(|w| contains(s, w)) || contains(s, "*/*"))
    }))
}

/// `hay.contains(needle)` for the short texts of a header: a scan for the first byte
/// costs less than setting up `str::contains`'s searcher.
fn contains(hay: &str, needle: &str) -> bool {
    let (hay, needle) = (hay.as_bytes(), needle.as_bytes());
    let Some(&first) = needle.first() else {
        return true;
    };
    hay.iter()
        .enumerate()
        .any(|(i, &b)| b == first && hay[i..].starts_with(needle))
}

pub(crate) async fn handle(state: &Arc<HttpState>, req: axum::extract::Request) -> Response {
    let (parts, body) = req.into_parts();
    let supported = state.kernel.identity.supported;
    let seen = PostHeaders::read(&parts.headers);
    // `Some(None)`: a header naming no revision we know.
    let header_version = seen.protocol_version.map(ProtocolVersion::parse);
    let header_modern = header_version
        .flatten()
        .is_some_and(|v| v.era() == Era::Modern);
    match parts.method {
        Method::POST => {}
        Method::GET | Method::DELETE => {
            if !supported.serves_legacy() || header_modern || state.opts.stateless_legacy {
                return method_not_allowed();
            }
            return if parts.method == Method::GET {
                legacy_get(state, &parts).await
            } else {
                legacy_delete(state, &parts).await
            };
        }
        _ => {
            let mut r = method_not_allowed();
            if supported.serves_legacy() && !state.opts.stateless_legacy {
                r.headers_mut()
                    .insert(header::ALLOW, HeaderValue::from_static("GET, POST, DELETE"));
            }
            return r;
        }
    }
    if let Some(ct) = seen.content_type
        && !ct
            .as_bytes()
            .get(..16)
            .is_some_and(|p| p.eq_ignore_ascii_case(b"application/json"))
    {
        return error_response(
            StatusCode::UNSUPPORTED_MEDIA_TYPE,
            None,
            &ErrorObject::invalid_request(
                "Unsupported Media Type: Content-Type must be application/json",
            ),
        );
    }
    if seen.accept_ok == Some(false) {
        return error_response(
            StatusCode::NOT_ACCEPTABLE,
            None,
            &ErrorObject::invalid_request(
                "Not Acceptable: Accept must list application/json and text/event-stream",
            ),
        );
    }
    let bytes = match read_body(body, &state.opts).await {
        Ok(b) => b,
        Err(r) => return r,
    };
    let bytes = if state.kernel.filters.is_empty() {
        bytes
    } else {
        match state.kernel.filters.incoming(bytes) {
            Some(b) => b,
            None => return empty(StatusCode::ACCEPTED),
        }
    };
    // Per request: the modern envelope (or a 2026 header) selects the stateless era. The
    // body is decoded once, as the era it then turns out to be needs (batches only for
    // legacy).
    let forced_modern = supported.serves_modern() && (!supported.serves_legacy() || header_modern);
    let frame = decode(&bytes, !forced_modern);
    if forced_modern {
        return modern_post(state, parts, frame, None).await;
    }
    match route(supported, &frame, &bytes) {
        Route::Modern(scanned) => modern_post(state, parts, frame, scanned).await,
        Route::Legacy(scanned) => legacy_post(state, parts, frame, header_version, scanned).await,
    }
}

/// Which era a body (`frame` as decoded from `bytes`) is served in, on a server that
/// serves both or only the legacy one.
enum Route {
    /// Served in a session; a single message's params that carry `_meta` come copied and
    /// scanned (they were read for the envelope), for its admission and context to reuse.
    Legacy(Option<Params>),
    /// One message carrying the 2026 `_meta` envelope, with its params
    /// copied and scanned once: the header checks, the envelope and the dispatcher read
    /// that scan (`None`: no params, or a message that did not decode).
    Modern(Option<Params>),
}

/// The era of a body: modern when it is one message carrying the 2026 envelope and the
/// server serves 2026 (an enveloped `initialize` too, as a stream's opening,
/// `intake::opening_era`). A message that did not decode is probed on its own, so that an
/// invalid 2026 message gets the 2026 error. Params without `_meta` are told by one
/// search, with no copy and no scan.
fn route(supported: SupportedVersions, frame: &Frame<'_>, bytes: &[u8]) -> Route {
    if !supported.serves_modern() {
        return Route::Legacy(None);
    }
    let params = match frame {
        Frame::Single(Ok(Message::Request(r))) => r.params,
        Frame::Single(Ok(Message::Notification(n))) => n.params,
        Frame::Single(Err(_)) if meta::message_carries_modern_envelope(bytes) => {
            return Route::Modern(None);
        }
        _ => return Route::Legacy(None),
    };
    if intake::without_meta(params) {
        return Route::Legacy(None);
    }
    let scanned = params.map(Params::from);
    if meta::params_carry_modern_envelope(scanned.as_ref()) {
        Route::Modern(scanned)
    } else {
        Route::Legacy(scanned)
    }
}

fn method_not_allowed() -> Response {
    let mut r = error_response(
        StatusCode::METHOD_NOT_ALLOWED,
        None,
        &ErrorObject::new(-32000, "Method Not Allowed"),
    );
    r.headers_mut()
        .insert(header::ALLOW, HeaderValue::from_static("POST"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_checks_read_every_value() {
        let h = |values: &[&str]| {
            let mut m = HeaderMap::new();
            for v in values {
                m.append(header::ACCEPT, HeaderValue::from_str(v).unwrap());
            }
            m
        };
        let both = ["application/json", "text/event-stream"];
        assert_eq!(accepts_any(&h(&[]), &both), None);
        assert_eq!(accepts_any(&h(&["text/html"]), &both), Some(false));
        assert_eq!(
            accepts_any(&h(&["text/html", "text/event-stream"]), &both),
            Some(true)
        );
        assert_eq!(accepts_any(&h(&["text/*, */*;q=0.1"]), &both), Some(true));
        assert!(accepts(
            &h(&["application/json, text/event-stream"]),
            "text/event-stream"
        ));
        assert!(!accepts(&h(&["application/json"]), "text/event-stream"));
        assert!(!accepts(&h(&[]), "text/event-stream"));
        for values in [
            &[][..],
            &["text/html"],
            &["text/html", "text/event-stream"],
            &["text/*, */*;q=0.1"],
            &["application/json"],
        ] {
            let m = h(values);
            assert_eq!(
                PostHeaders::read(&m).accept_ok,
                accepts_any(&m, &both),
                "{values:?}"
            );
        }
        for (hay, needle) in [
            ("abc", "bc"),
            ("abc", "abcd"),
            ("aab", "ab"),
            ("", "a"),
            ("x", ""),
        ] {
            assert_eq!(
                contains(hay, needle),
                hay.contains(needle),
                "{hay} {needle}"
            );
        }
    }

    #[test]
    fn one_header_pass_reads_the_first_values() {
        let mut m = HeaderMap::new();
        m.append(
            header::CONTENT_TYPE,
            HeaderValue::from_static(" application/json "),
        );
        m.append(header::CONTENT_TYPE, HeaderValue::from_static("text/plain"));
        m.append(
            MCP_PROTOCOL_VERSION.clone(),
            HeaderValue::from_static("2025-06-18"),
        );
        m.append(
            MCP_PROTOCOL_VERSION.clone(),
            HeaderValue::from_static("2026-07-28"),
        );
        m.append(header::HOST, HeaderValue::from_static("localhost"));
        let seen = PostHeaders::read(&m);
        assert_eq!(seen.content_type, header_str(&m, &header::CONTENT_TYPE));
        assert_eq!(seen.content_type, Some("application/json"));
        assert_eq!(seen.protocol_version, header_str(&m, &MCP_PROTOCOL_VERSION));
        assert_eq!(seen.protocol_version, Some("2025-06-18"));
        assert_eq!(seen.accept_ok, None);
        // A first value that is not text reads as absent, as with `HeaderMap::get`.
        let mut m = HeaderMap::new();
        m.append(
            header::CONTENT_TYPE,
            HeaderValue::from_bytes(b"\xffx").unwrap(),
        );
        m.append(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        assert_eq!(PostHeaders::read(&m).content_type, None);
        assert_eq!(header_str(&m, &header::CONTENT_TYPE), None);
    }
}
