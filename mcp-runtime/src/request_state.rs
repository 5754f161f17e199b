//! Sealing the `requestState` of multi-round-trip requests (2026-07-28).
//!
//! The client echoes `requestState` verbatim, so it is attacker-controlled: the server seals
//! what it carries between rounds (the answers already given, the keys still asked for, the
//! round count, an expiry) with XChaCha20-Poly1305. The request it belongs to — method,
//! target (tool or prompt name, resource URI), the arguments, the audience (this server) and
//! the authenticated principal when there is one — is not stored but bound as associated
//! data, so the state opens only on a retry of the same request by the same principal at the
//! same server. Every failure (tampering, another request, an unknown key, expiry) is the same
//! `-32602 Invalid or expired requestState`; the reason is not told to the client.
//!
//! Token: base64url (no padding) of `version (1) ‖ nonce (24) ‖ ciphertext ‖ tag (16)`.
//! Keys rotate through a list: the first seals, every key opens.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use mcp_core::jsonrpc::ErrorObject;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

/// The message of every rejected `requestState`.
pub const INVALID_STATE_MESSAGE: &str = "Invalid or expired requestState";

const VERSION: u8 = 1;
const NONCE_LEN: usize = 24;
const TAG_LEN: usize = 16;
const AAD_LABEL: &[u8] = b"mcp-rs/request-state/v1";

/// One 256-bit sealing key. Its bytes never appear in `Debug` output.
#[derive(Clone)]
pub struct RequestStateKey([u8; 32]);

impl RequestStateKey {
    /// A key from 32 secret bytes (share them between the instances of one deployment).
    pub fn from_bytes(bytes: [u8; 32]) -> Self {
        Self(bytes)
    }

    /// A fresh random key (valid for this process only).
    pub fn generate() -> Self {
        let mut k = [0u8; 32];
        getrandom::fill(&mut k).expect("the OS random source failed");
        Self(k)
    }
}

impl fmt::Debug for RequestStateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RequestStateKey(..)")
    }
}

/// How a server seals and bounds multi-round-trip requests.
///
/// The default has one random key (so states do not survive a restart and are not shared
/// between instances: give every instance the same [`RequestStateConfig::with_keys`] list in a
/// deployment), a 10-minute expiry, at most 8 `input_required` rounds per request, and the
/// server's name as audience.
///
/// ```
/// use std::time::Duration;
/// use mcp_runtime::request_state::{RequestStateConfig, RequestStateKey};
///
/// let new = RequestStateKey::from_bytes([7; 32]);
/// let old = RequestStateKey::from_bytes([3; 32]);
/// let cfg = RequestStateConfig::with_keys(vec![new, old])
///     .unwrap()
///     .ttl(Duration::from_secs(120))
///     .max_rounds(4)
///     .audience("https://mcp.example.com");
/// # let _ = cfg;
/// ```
#[derive(Clone, Debug)]
pub struct RequestStateConfig {
    keys: Arc<[RequestStateKey]>,
    ttl: Duration,
    max_rounds: u32,
    audience: Option<String>,
}

impl Default for RequestStateConfig {
    fn default() -> Self {
        Self {
            keys: Arc::from(vec![RequestStateKey::generate()]),
            ttl: Duration::from_secs(600),
            max_rounds: 8,
            audience: None,
        }
    }
}

/// Why a [`RequestStateConfig`] could not be made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoKeys;

impl fmt::Display for NoKeys {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a request-state key list needs at least one key")
    }
}

impl std::error::Error for NoKeys {}

impl RequestStateConfig {
    /// Seals with `keys[0]` and opens with any of them (rotation: put the new key first and
    /// keep the old ones until their states have expired). Fails on an empty list.
    pub fn with_keys(keys: Vec<RequestStateKey>) -> Result<Self, NoKeys> {
        if keys.is_empty() {
            return Err(NoKeys);
        }
        Ok(Self {
            keys: Arc::from(keys),
            ..Self::default()
        })
    }

    /// How long a sealed state stays valid.
    pub fn ttl(mut self, ttl: Duration) -> Self {
        self.ttl = ttl;
        self
    }

    /// The most `input_required` answers one request may get before it fails (at least 1).
    pub fn max_rounds(mut self, n: u32) -> Self {
        self.max_rounds = n.max(1);
        self
    }

    /// Who states are sealed for (default: the server's name).
    pub fn audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// The configured round bound.
    pub fn round_limit(&self) -> u32 {
        self.max_rounds
    }

    /// The configured audience, if set.
    pub fn audience_name(&self) -> Option<&str> {
        self.audience.as_deref()
    }

    /// Seals `payload` for the request described by `aad`.
    pub(crate) fn seal(&self, aad: &[u8], payload: &StatePayload) -> String {
        let plain = serde_json::to_vec(payload).expect("state payload serializes");
        let mut nonce = [0u8; NONCE_LEN];
        getrandom::fill(&mut nonce).expect("the OS random source failed");
        let cipher = XChaCha20Poly1305::new((&self.keys[0].0).into());
        let sealed = cipher
            .encrypt(XNonce::from_slice(&nonce), Payload { msg: &plain, aad })
            .expect("XChaCha20-Poly1305 encryption cannot fail for in-memory sizes");
        let mut token = Vec::with_capacity(1 + NONCE_LEN + sealed.len());
        token.push(VERSION);
        token.extend_from_slice(&nonce);
        token.extend_from_slice(&sealed);
        URL_SAFE_NO_PAD.encode(token)
    }

    /// Opens a token sealed for the request described by `aad`, checking its expiry.
    pub(crate) fn open(&self, aad: &[u8], token: &str) -> Result<StatePayload, ErrorObject> {
        let invalid = || ErrorObject::invalid_params(INVALID_STATE_MESSAGE);
        let bytes = URL_SAFE_NO_PAD
            .decode(token.as_bytes())
            .map_err(|_| invalid())?;
        if bytes.len() < 1 + NONCE_LEN + TAG_LEN || bytes[0] != VERSION {
            return Err(invalid());
        }
        let (nonce, sealed) = bytes[1..].split_at(NONCE_LEN);
        let plain = self
            .keys
            .iter()
            .find_map(|k| {
                XChaCha20Poly1305::new((&k.0).into())
                    .decrypt(XNonce::from_slice(nonce), Payload { msg: sealed, aad })
                    .ok()
            })
            .ok_or_else(invalid)?;
        let payload: StatePayload = serde_json::from_slice(&plain).map_err(|_| invalid())?;
        if now_ms() >= payload.exp {
            return Err(invalid());
        }
        Ok(payload)
    }

    /// The expiry (ms since the epoch) of a state sealed now.
    pub(crate) fn expiry(&self) -> u64 {
        now_ms().saturating_add(u64::try_from(self.ttl.as_millis()).unwrap_or(u64::MAX))
    }
}

fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// What a sealed state carries between rounds.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct StatePayload {
    /// Expiry, ms since the epoch.
    pub(crate) exp: u64,
    /// How many `input_required` answers this request has had.
    pub(crate) round: u32,
    /// Answers of earlier rounds the handler used, by key.
    pub(crate) answers: std::collections::BTreeMap<String, Box<RawValue>>,
    /// The keys asked for in the last round, with their methods.
    pub(crate) pending: std::collections::BTreeMap<String, String>,
}

/// What a state is bound to: the originating request and who may retry it.
pub(crate) struct Binding<'a> {
    pub(crate) method: &'a str,
    pub(crate) target: &'a str,
    pub(crate) arguments: Option<&'a RawValue>,
    pub(crate) audience: &'a str,
    pub(crate) principal: Option<&'a str>,
}

impl Binding<'_> {
    /// The associated data: each field length-prefixed (so no two bindings encode alike), the
    /// arguments in a canonical form (sorted keys, no whitespace) so a client re-encoding the
    /// same arguments still matches.
    pub(crate) fn aad(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(128);
        out.extend_from_slice(AAD_LABEL);
        let args = self
            .arguments
            .and_then(|a| serde_json::from_str::<Value>(a.get()).ok())
            .filter(|v| !v.is_null())
            .map(|v| {
                let mut s = String::new();
                canonical(&v, &mut s);
                s
            })
            .unwrap_or_default();
        let principal = self.principal.map(|p| format!("={p}")).unwrap_or_default();
        for field in [
            self.method,
            self.target,
            self.audience,
            principal.as_str(),
            args.as_str(),
        ] {
            out.extend_from_slice(&(field.len() as u64).to_be_bytes());
            out.extend_from_slice(field.as_bytes());
        }
        out
    }
}

/// Writes `v` as JSON with object keys sorted at every level.
fn canonical(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            keys.sort();
            out.push('{');
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                canonical(&m[k], out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                canonical(x, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn binding<'a>(args: Option<&'a RawValue>, principal: Option<&'a str>) -> Binding<'a> {
        Binding {
            method: "tools/call",
            target: "book",
            arguments: args,
            audience: "srv",
            principal,
        }
    }

    fn payload(exp: u64) -> StatePayload {
        StatePayload {
            exp,
            round: 1,
            answers: Default::default(),
            pending: [("k".to_owned(), "roots/list".to_owned())].into(),
        }
    }

    #[test]
    fn seals_and_opens_for_the_same_request_only() {
        let cfg = RequestStateConfig::default();
        let args = RawValue::from_string(r#"{"b":1,"a":[1,{"y":2,"x":3}]}"#.into()).unwrap();
        let same = RawValue::from_string(r#"{ "a": [1, {"x":3,"y":2}], "b": 1 }"#.into()).unwrap();
        let other = RawValue::from_string(r#"{"a":[1],"b":2}"#.into()).unwrap();
        let token = cfg.seal(&binding(Some(&args), None).aad(), &payload(cfg.expiry()));
        let opened = cfg.open(&binding(Some(&same), None).aad(), &token).unwrap();
        assert_eq!(opened.round, 1);
        assert_eq!(opened.pending["k"], "roots/list");
        for aad in [
            binding(Some(&other), None).aad(),
            binding(Some(&args), Some("alice")).aad(),
            Binding {
                target: "other",
                ..binding(Some(&args), None)
            }
            .aad(),
            Binding {
                audience: "another-server",
                ..binding(Some(&args), None)
            }
            .aad(),
        ] {
            let e = cfg.open(&aad, &token).unwrap_err();
            assert_eq!(e.code, -32602);
            assert_eq!(e.message, INVALID_STATE_MESSAGE);
        }
    }

    #[test]
    fn tampered_truncated_or_foreign_tokens_are_rejected() {
        let cfg = RequestStateConfig::default();
        let aad = binding(None, None).aad();
        let token = cfg.seal(&aad, &payload(cfg.expiry()));
        let mut bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
        let last = bytes.len() - 1;
        bytes[last] ^= 1;
        let flipped = URL_SAFE_NO_PAD.encode(&bytes);
        for bad in [
            flipped.as_str(),
            &token[..token.len() - 4],
            "",
            "not base64 !",
            &format!("{token}-TAMPERED"),
        ] {
            assert!(cfg.open(&aad, bad).is_err(), "accepted {bad:?}");
        }
        let stranger = RequestStateConfig::default();
        assert!(stranger.open(&aad, &token).is_err());
    }

    #[test]
    fn expired_states_are_rejected() {
        let cfg = RequestStateConfig::default();
        let aad = binding(None, None).aad();
        let token = cfg.seal(&aad, &payload(now_ms().saturating_sub(1)));
        assert_eq!(
            cfg.open(&aad, &token).unwrap_err().message,
            INVALID_STATE_MESSAGE
        );
        let zero = cfg.clone().ttl(Duration::ZERO);
        let token = zero.seal(&aad, &payload(zero.expiry()));
        assert!(zero.open(&aad, &token).is_err());
    }

    #[test]
    fn rotation_first_key_seals_all_keys_open() {
        let old = RequestStateKey::from_bytes([1; 32]);
        let new = RequestStateKey::from_bytes([2; 32]);
        let before = RequestStateConfig::with_keys(vec![old.clone()]).unwrap();
        let after = RequestStateConfig::with_keys(vec![new.clone(), old]).unwrap();
        let only_new = RequestStateConfig::with_keys(vec![new]).unwrap();
        let aad = binding(None, None).aad();
        let old_token = before.seal(&aad, &payload(before.expiry()));
        assert!(after.open(&aad, &old_token).is_ok());
        assert!(only_new.open(&aad, &old_token).is_err());
        let new_token = after.seal(&aad, &payload(after.expiry()));
        assert!(only_new.open(&aad, &new_token).is_ok());
        assert!(before.open(&aad, &new_token).is_err());
        assert_eq!(RequestStateConfig::with_keys(vec![]).unwrap_err(), NoKeys);
    }

    #[test]
    fn key_bytes_stay_out_of_debug_output() {
        let k = RequestStateKey::from_bytes([0xAB; 32]);
        assert_eq!(format!("{k:?}"), "RequestStateKey(..)");
        assert!(!format!("{:?}", RequestStateConfig::default()).contains("171"));
    }
}
