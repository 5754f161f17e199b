//! How a message enters a session, the same on every transport: the era it belongs to, the
//! checks before the chain (the 2026 envelope and the revision it asks for, a request of
//! one era on a connection of the other), cancellation, and the `initialize` commit.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use mcp_core::codec::{self, WireCodec};
use mcp_core::jsonrpc::{ErrorObject, RequestId};
use mcp_core::meta::{self, RequestMeta};
use mcp_core::params::Params;
use mcp_core::types::InitializeResult;
use mcp_core::version::{Era, ProtocolVersion, SupportedVersions};
use serde_json::value::RawValue;
use tokio_util::sync::CancellationToken;

use super::state::{ClientView, Session};

/// What the checks before the chain decided about one message: run it with this revision
/// and envelope, or answer the request with the error (the chain never sees it; a
/// notification is dropped).
pub(crate) type Admission = Result<Admitted, ErrorObject>;

/// A message that may run: the revision it runs under and its envelope.
#[derive(Debug)]
pub(crate) struct Admitted {
    pub(crate) version: Option<ProtocolVersion>,
    pub(crate) meta: Option<RequestMeta>,
}

/// The era the first request of a stream opens: modern when it carries the 2026 envelope
/// on a server that serves 2026 — `initialize` included, which 2026 does not have (-32601,
/// as the HTTP transport answers it). A server serving no modern revision answers a modern
/// probe as a legacy server does (-32600, see [`admit_legacy`]; an enveloped `initialize`
/// is its handshake): a -32022 would tell a dual-era client "modern, do not fall back".
///
/// `params` are the copy the admission then reads: the envelope check reuses their scan.
pub(crate) fn opening_era(supported: SupportedVersions, params: Option<&Params>) -> Era {
    if supported.serves_modern()
        && !without_meta(params.map(Params::get))
        && meta::params_carry_modern_envelope(params)
    {
        Era::Modern
    } else {
        Era::Legacy
    }
}

/// What a 2026 notification on a stream carries of the envelope: read, not required (a
/// notification has no answer to refuse with); the revision defaults to the latest.
pub(crate) fn notification_meta(params: Option<&Params>) -> Admitted {
    let meta = params.and_then(|p| RequestMeta::from_params(Some(p)).ok().flatten());
    let version = meta.as_ref().and_then(|m| m.version);
    Admitted {
        version: Some(version.unwrap_or(ProtocolVersion::LATEST)),
        meta,
    }
}

/// A 2026 request's envelope and the revision it asks for.
pub(crate) fn check_envelope(
    supported: SupportedVersions,
    params: Option<&Params>,
) -> Result<(ProtocolVersion, RequestMeta), ErrorObject> {
    let meta = WireCodec::for_era(Era::Modern)
        .validate_request(params)?
        .unwrap_or_default();
    codec::negotiate_modern(&meta, supported).map(|v| (v, meta))
}

/// The one `initialize` rule where 2026 is spoken (a stream locked modern, an HTTP POST
/// routed modern), on every transport: a legacy handshake — an `initialize` without the
/// 2026 envelope — is -32022, naming the revisions served and the one it offered
/// (`data.requested`), so a legacy client probing a 2026-only server learns the revisions
/// it could use; checked before anything else of the request, HTTP's header checks
/// included. An `initialize` that carries the envelope is a 2026 request for a method 2026
/// does not have: it goes on, and the dispatcher answers -32601 (HTTP 404), as the
/// official conformance suite requires. `None` for any other method.
pub(crate) fn refuse_initialize(
    supported: SupportedVersions,
    method: &str,
    params: Option<&Params>,
) -> Option<ErrorObject> {
    (method == "initialize" && !meta::params_carry_modern_envelope(params))
        .then(|| initialize_refused(supported, params.map(Params::get)))
}

/// The -32022 itself: the revisions served, and the one `initialize` offered. The
/// dispatcher answers it too, when a stream's opening `initialize` finds no legacy
/// revision to negotiate.
pub(crate) fn initialize_refused(
    supported: SupportedVersions,
    params: Option<&RawValue>,
) -> ErrorObject {
    codec::unsupported_protocol_version(
        supported.iter().map(ProtocolVersion::as_str),
        &offered_protocol_version(params),
    )
}

/// The -32600 of a request carrying the 2026 envelope where only the legacy handshake is
/// spoken: on a legacy connection, or on a server that serves no 2026 revision (so a
/// dual-era client's probe falls back to `initialize`).
pub(crate) fn enveloped_on_legacy(supported: SupportedVersions) -> ErrorObject {
    if supported.serves_modern() {
        ErrorObject::invalid_request(
            "Invalid Request: a 2026-07-28 request on a connection initialized with the legacy handshake",
        )
    } else {
        ErrorObject::invalid_request(format!(
            "Invalid Request: this server speaks only the initialize handshake ({})",
            supported.strings().join(", ")
        ))
    }
}

/// The checks of a legacy message before the chain. Its `_meta` is informational
/// (progress token, trace context); a request carrying the 2026 envelope (other than
/// `initialize`) does not belong on a legacy connection.
pub(crate) fn admit_legacy(
    supported: SupportedVersions,
    session_version: Option<ProtocolVersion>,
    id: Option<&RequestId>,
    method: &str,
    params: Option<&Params>,
) -> Admission {
    // One parse of `_meta` serves both the envelope check and the context; the probe runs
    // only when the envelope is malformed (a typed read fails).
    let meta = legacy_meta(params);
    let modern = match &meta {
        Ok(m) => m.as_ref().is_some_and(RequestMeta::is_modern_envelope),
        Err(_) => meta::params_carry_modern_envelope(params),
    };
    if id.is_some() && method != "initialize" && modern {
        return Err(enveloped_on_legacy(supported));
    }
    Ok(Admitted {
        version: session_version,
        meta: meta.ok().flatten(),
    })
}

/// The `_meta` of a legacy message, parsed only when the params may hold one.
pub(crate) fn legacy_meta(params: Option<&Params>) -> Result<Option<RequestMeta>, ErrorObject> {
    match params {
        Some(p) if !without_meta(Some(p.get())) => RequestMeta::from_params(Some(p)),
        _ => Ok(None),
    }
}

/// Whether `params` surely hold no `_meta` member, found without parsing them: a key that
/// decodes to `_meta` is either spelled so or written with an escape. Most legacy requests
/// carry none, and this scan is far cheaper than the parse that looks for it.
pub(crate) fn without_meta(params: Option<&RawValue>) -> bool {
    // Vectorized searches (the params may hold a large argument); the searcher is built once.
    static META: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new("_meta"));
    params.is_none_or(|p| {
        let text = p.get().as_bytes();
        memchr::memchr(b'\\', text).is_none() && META.find(text).is_none()
    })
}

/// The `protocolVersion` an `initialize` offered (`data.requested` of the -32022 it gets on
/// a modern connection); empty when the params carry none.
pub(crate) fn offered_protocol_version(params: Option<&RawValue>) -> String {
    #[derive(serde::Deserialize)]
    struct Offer {
        #[serde(rename = "protocolVersion")]
        protocol_version: String,
    }
    params
        .and_then(|p| serde_json::from_str::<Offer>(p.get()).ok())
        .map(|o| o.protocol_version)
        .unwrap_or_default()
}

/// The `requestId` a `notifications/cancelled` names, if it names one.
pub(crate) fn cancelled_request_id(params: Option<&RawValue>) -> Option<RequestId> {
    #[derive(serde::Deserialize)]
    struct P {
        #[serde(rename = "requestId")]
        request_id: Option<RequestId>,
    }
    serde_json::from_str::<P>(params?.get()).ok()?.request_id
}

/// Commits the session from the `InitializeResult` actually sent (semantics item 21) and the
/// client as the dispatcher saw it (after any rewrite), falling back to the original params
/// when a middleware answered on its own.
pub(crate) fn commit_initialize(
    session: &Session,
    id: Option<&RequestId>,
    params: Option<&RawValue>,
    raw: &RawValue,
) {
    let Ok(result) = serde_json::from_str::<InitializeResult>(raw.get()) else {
        tracing::warn!("initialize result did not decode; connection stays uninitialized");
        return;
    };
    let Some(version) = ProtocolVersion::parse(&result.protocol_version) else {
        tracing::warn!(version = %result.protocol_version, "initialize answered an unknown version");
        return;
    };
    let mut s = session.lock().expect("session lock");
    let client = match s.pending_init.take() {
        Some((pid, client)) if Some(&pid) == id => client,
        _ => {
            let p = params.and_then(|p| {
                serde_json::from_str::<mcp_core::types::InitializeParams>(p.get()).ok()
            });
            Arc::new(ClientView {
                info: p.as_ref().map(|p| p.client_info.clone()),
                capabilities: p.map(|p| p.capabilities).unwrap_or_default(),
            })
        }
    };
    s.version = Some(version);
    s.client = Some(client);
    s.initialized = true;
    s.changed();
}

/// The requests of one session still running, by id: what `notifications/cancelled` names.
#[derive(Debug, Default)]
pub(crate) struct InFlight(Mutex<HashMap<RequestId, CancellationToken>>);

impl InFlight {
    /// Records a request that is now running.
    pub(crate) fn insert(&self, id: RequestId, cancel: CancellationToken) {
        self.0.lock().expect("in-flight lock").insert(id, cancel);
    }

    /// Whether no request is running.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn is_empty(&self) -> bool {
        self.0.lock().expect("in-flight lock").is_empty()
    }

    /// How many requests are running.
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn len(&self) -> usize {
        self.0.lock().expect("in-flight lock").len()
    }

    /// Forgets a request that ended.
    pub(crate) fn remove(&self, id: &RequestId) {
        self.0.lock().expect("in-flight lock").remove(id);
    }

    /// Cancels and forgets every request (the session ends).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn cancel_all(&self) {
        let all = std::mem::take(&mut *self.0.lock().expect("in-flight lock"));
        for token in all.into_values() {
            token.cancel();
        }
    }

    /// Applies a `notifications/cancelled` (its `params`): the request it names, if still
    /// running, sees its token fire and is forgotten.
    pub(crate) fn cancel_named(&self, params: Option<&RawValue>) {
        if let Some(target) = cancelled_request_id(params) {
            self.cancel(&target);
        }
    }

    /// Cancels request `id` if it runs here; whether it did.
    pub(crate) fn cancel(&self, id: &RequestId) -> bool {
        let token = self.0.lock().expect("in-flight lock").remove(id);
        token.map(|t| t.cancel()).is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    #[test]
    fn without_meta_is_sure_only_when_no_key_can_decode_to_meta() {
        assert!(without_meta(None));
        assert!(without_meta(Some(&raw(
            r#"{"name":"add","arguments":{"a":1}}"#
        ))));
        assert!(!without_meta(Some(&raw(
            r#"{"_meta":{"progressToken":1}}"#
        ))));
        // An escaped key may decode to `_meta`: the full parse decides.
        assert!(!without_meta(Some(&raw(
            r#"{"\u005fmeta":{"progressToken":1}}"#
        ))));
        // The parse it stands for agrees on what it lets through.
        let escaped = raw(r#"{"\u005fmeta":{"progressToken":7}}"#);
        assert!(
            RequestMeta::from_params(Some(&Params::from(&*escaped)))
                .unwrap()
                .is_some()
        );
    }

    #[test]
    fn envelope_scan_answers_as_the_parse() {
        let pv = r#""io.modelcontextprotocol/protocolVersion""#;
        let cases = [
            "{}".to_owned(),
            format!(r#"{{"name":"add","_meta":{{{pv}:"2026-07-28"}},"arguments":{{}}}}"#),
            format!(r#"{{"_meta":{{"progressToken":1,{pv}:5}}}}"#),
            format!(r#"{{"_meta":{{{pv}:null}}}}"#),
            r#"{"_meta":{"progressToken":1}}"#.to_owned(),
            r#"{"_meta":null}"#.to_owned(),
            format!(r#"{{"_meta":[{pv}]}}"#),
            r#"{"_meta":"2026-07-28"}"#.to_owned(),
            // Left to the parse: repeats and escaped keys.
            format!(r#"{{"_meta":{{{pv}:"a",{pv}:"b"}}}}"#),
            format!(r#"{{"_meta":{{}},"_meta":{{{pv}:"a"}}}}"#),
            r#"{"_meta":{"io.modelcontextprotocol\/protocolVersion":"a"}}"#.to_owned(),
            "[1]".to_owned(),
        ];
        // The era choice reads the params' one scan (falling back to the probe where the
        // scan cannot be sure): it must answer as the probe does.
        let all = SupportedVersions::all();
        let modern = |p: Option<&Params>| opening_era(all, p) == Era::Modern;
        for c in &cases {
            let p = raw(c);
            let want = meta::carries_modern_envelope(Some(&p));
            assert_eq!(modern(Some(&Params::from(&*p))), want, "{c}");
        }
        assert!(modern(Some(&Params::from(&*raw(&cases[1])))));
        assert!(modern(Some(&Params::from(&*raw(&cases[10])))));
        assert!(!modern(None));
    }

    #[test]
    fn meta_pre_check_never_misses_a_meta() {
        for (params, may) in [
            (r#"{"name":"add","arguments":{"a":1}}"#, false),
            (r#"{"_meta":{"progressToken":1}}"#, true),
            // An escape could spell the name: the full parse decides.
            (r#"{"\u005fmeta":{"progressToken":1}}"#, true),
        ] {
            let p = raw(params);
            assert_eq!(!without_meta(Some(&p)), may, "{params}");
            if !may {
                assert!(
                    RequestMeta::from_params(Some(&Params::from(&*p)))
                        .unwrap()
                        .is_none()
                );
            }
        }
        let escaped = raw(r#"{"\u005fmeta":{"progressToken":1}}"#);
        assert!(
            RequestMeta::from_params(Some(&Params::from(&*escaped)))
                .unwrap()
                .is_some()
        );
        assert!(without_meta(None));
    }
}
