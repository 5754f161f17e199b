//! DPoP (RFC 9449, feature `oauth-signing`): a proof per request, signed with the client's
//! key, and the nonces servers hand out.
//!
//! Every proof has a fresh `jti`, `htm`, `htu` (the URL without query and fragment),
//! `iat`, the public key in its header (`typ: dpop+jwt`), `ath` (the access token's
//! SHA-256) on resource requests, and the last nonce the server (keyed by origin) sent.
//! A nonce comes in a `DPoP-Nonce` header, with a `use_dpop_nonce` error (the token
//! endpoint's `400`, the resource server's `401` challenge) or on any later answer.

use std::collections::HashMap;
use std::sync::Mutex;

use hyper::StatusCode;
use hyper::header::{self, HeaderMap};
use serde_json::{Map, Value, json};

use super::super::error::ClientError;
use super::discovery::{Challenge, ServerMetadata};
use super::pkce::{challenge_of, random_token};
use super::signing::{SigningKey, unix_now};
use super::wire::Url;

/// The `error` that asks for a proof with a (new) nonce.
const USE_DPOP_NONCE: &str = "use_dpop_nonce";

/// The client's DPoP key and the nonces of the servers it talks to.
pub(crate) struct Dpop {
    key: SigningKey,
    /// Origin → the last nonce it sent.
    nonces: Mutex<HashMap<String, String>>,
}

impl Dpop {
    pub(crate) fn new(key: SigningKey) -> Dpop {
        Dpop {
            key,
            nonces: Mutex::new(HashMap::new()),
        }
    }

    /// Whether to ask this authorization server for DPoP-bound tokens: it lists the key's
    /// algorithm in `dpop_signing_alg_values_supported`.
    pub(crate) fn offered_by(&self, meta: &ServerMetadata) -> bool {
        meta.dpop_signing_alg_values_supported
            .as_ref()
            .is_some_and(|l| l.iter().any(|a| a == self.key.algorithm().name()))
    }

    /// A proof for `method url`; `access_token` for a resource request (its `ath`).
    pub(crate) fn proof(
        &self,
        method: &str,
        url: &str,
        access_token: Option<&str>,
    ) -> Result<String, ClientError> {
        let mut claims = Map::new();
        claims.insert("jti".into(), json!(random_token(16)));
        claims.insert("htm".into(), json!(method));
        claims.insert("htu".into(), json!(htu(url)));
        claims.insert("iat".into(), json!(unix_now()));
        if let Some(t) = access_token {
            claims.insert("ath".into(), json!(challenge_of(t)));
        }
        if let Some(n) = self.nonce_for(url) {
            claims.insert("nonce".into(), json!(n));
        }
        self.key.sign("dpop+jwt", true, &Value::Object(claims))
    }

    fn nonce_for(&self, url: &str) -> Option<String> {
        self.nonces
            .lock()
            .expect("dpop nonces")
            .get(&origin(url))
            .cloned()
    }

    /// Keeps the `DPoP-Nonce` of an answer from `url`; `true` when it carried one.
    pub(crate) fn remember_nonce(&self, url: &str, headers: &HeaderMap) -> bool {
        let Some(n) = headers
            .get("dpop-nonce")
            .and_then(|v| v.to_str().ok())
            .filter(|n| !n.is_empty())
        else {
            return false;
        };
        self.nonces
            .lock()
            .expect("dpop nonces")
            .insert(origin(url), n.to_owned());
        true
    }

    /// The token endpoint's answer: keeps its nonce; `true` when it is a
    /// `use_dpop_nonce` error that came with one (send the request again).
    pub(crate) fn token_answer_wants_retry(
        &self,
        url: &str,
        status: StatusCode,
        headers: &HeaderMap,
        body: &[u8],
    ) -> bool {
        let fresh = self.remember_nonce(url, headers);
        fresh
            && status == StatusCode::BAD_REQUEST
            && serde_json::from_slice::<Value>(body)
                .ok()
                .and_then(|v| v.get("error")?.as_str().map(|e| e == USE_DPOP_NONCE))
                .unwrap_or(false)
    }

    /// A resource server's answer: keeps its nonce; `true` when it is a `401` whose
    /// challenge says `use_dpop_nonce` and that came with one.
    pub(crate) fn resource_answer_wants_retry(
        &self,
        url: &str,
        status: StatusCode,
        headers: &HeaderMap,
    ) -> bool {
        let fresh = self.remember_nonce(url, headers);
        fresh
            && status == StatusCode::UNAUTHORIZED
            && headers
                .get_all(header::WWW_AUTHENTICATE)
                .iter()
                .filter_map(|v| v.to_str().ok())
                .any(|c| Challenge::parse(c).error.as_deref() == Some(USE_DPOP_NONCE))
    }
}

/// RFC 9449 §4.2: `htu` is the target URI without query and fragment.
pub(crate) fn htu(url: &str) -> &str {
    let end = url.find(['?', '#']).unwrap_or(url.len());
    &url[..end]
}

/// The key of a server's nonce: its origin (the whole URL when it does not parse).
fn origin(url: &str) -> String {
    Url::parse(url)
        .map(|u| u.origin)
        .unwrap_or_else(|_| htu(url).to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn htu_drops_query_and_fragment() {
        assert_eq!(htu("http://h:1/mcp?x=1#f"), "http://h:1/mcp");
        assert_eq!(htu("http://h:1/mcp#f"), "http://h:1/mcp");
        assert_eq!(htu("http://h:1/mcp"), "http://h:1/mcp");
    }

    #[test]
    fn nonces_are_kept_per_origin_and_only_a_nonce_challenge_asks_for_a_retry() {
        let d = Dpop::new(SigningKey::generate_es256());
        let mut h = HeaderMap::new();
        assert!(!d.resource_answer_wants_retry("http://rs/mcp", StatusCode::UNAUTHORIZED, &h));
        h.insert("dpop-nonce", "n1".parse().unwrap());
        // A nonce on a success is kept, without a retry.
        assert!(!d.resource_answer_wants_retry("http://rs/mcp", StatusCode::OK, &h));
        assert_eq!(d.nonce_for("http://RS/other").as_deref(), Some("n1"));
        assert_eq!(d.nonce_for("http://as/token"), None);
        // A plain 401 (an expired token) is not a nonce challenge.
        h.insert(
            header::WWW_AUTHENTICATE,
            "DPoP error=\"invalid_token\"".parse().unwrap(),
        );
        assert!(!d.resource_answer_wants_retry("http://rs/mcp", StatusCode::UNAUTHORIZED, &h));
        h.insert(
            header::WWW_AUTHENTICATE,
            "DPoP error=\"use_dpop_nonce\"".parse().unwrap(),
        );
        assert!(d.resource_answer_wants_retry("http://rs/mcp", StatusCode::UNAUTHORIZED, &h));

        let body = br#"{"error":"use_dpop_nonce"}"#;
        assert!(d.token_answer_wants_retry("http://as/token", StatusCode::BAD_REQUEST, &h, body));
        assert!(!d.token_answer_wants_retry(
            "http://as/token",
            StatusCode::BAD_REQUEST,
            &h,
            br#"{"error":"invalid_grant"}"#
        ));
        // Without the nonce header there is nothing new to retry with.
        assert!(!d.token_answer_wants_retry(
            "http://as/token",
            StatusCode::BAD_REQUEST,
            &HeaderMap::new(),
            body
        ));
    }
}
