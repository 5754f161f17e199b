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
//!
//! Replay: by default a state opens as often as it is presented until it expires (a client
//! may retry a round whose answer it lost). [`RequestStateConfig::single_use`] makes each
//! state open once: a [`ReplayGuard`] remembers the nonce of every state it let through
//! until that state's expiry, and a second use is the same `-32602`. It is off by default
//! because it makes the server stateful: behind a load balancer every instance must consult
//! one shared guard (implement [`ReplayGuard`] over a shared store with an atomic
//! insert-if-absent and a TTL), or a replay sent to another instance gets through;
//! [`InMemoryReplayGuard`] protects one process only.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use chacha20poly1305::aead::{Aead, KeyInit, Payload};
use chacha20poly1305::{XChaCha20Poly1305, XNonce};
use mcp_core::jsonrpc::ErrorObject;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use super::store::StoreError;
use crate::common::BoxFuture;

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

    /// A key from its 32 bytes in base64 (standard or URL-safe alphabet, padded or not),
    /// as a deployment's configuration carries it.
    pub fn from_base64(text: &str) -> Result<Self, BadKey> {
        let text = text.trim();
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(text)
            .or_else(|_| URL_SAFE_NO_PAD.decode(text.trim_end_matches('=')))
            .map_err(|_| BadKey("not base64"))?;
        let bytes: [u8; 32] = bytes.try_into().map_err(|_| BadKey("not 32 bytes"))?;
        Ok(Self(bytes))
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
/// use mcp_runtime::session::request_state::{RequestStateConfig, RequestStateKey};
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
    replay: Guard,
}

impl Default for RequestStateConfig {
    fn default() -> Self {
        Self {
            keys: Arc::from(vec![RequestStateKey::generate()]),
            ttl: Duration::from_secs(600),
            max_rounds: 8,
            audience: None,
            replay: Guard(None),
        }
    }
}

/// Remembers which sealed states were already used, so each opens only once
/// ([`RequestStateConfig::single_use`]).
///
/// Share one guard between every instance that can receive a retry: an implementation over
/// a shared store inserts the nonce if absent, with the expiry as its TTL, atomically.
pub trait ReplayGuard: Send + Sync + 'static {
    /// Records the first use of the state with `nonce`, valid until `expires_ms` (ms since
    /// the epoch). `Ok(false)` when it was used before, or when the use cannot be recorded
    /// (the state is then refused: a guard that forgets is no guard); an error when the
    /// guard's backend cannot be reached (the request fails, and may be retried).
    fn first_use<'a>(
        &'a self,
        nonce: &'a [u8; 24],
        expires_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>>;
}

/// The optional guard, opaque in `Debug` output.
#[derive(Clone)]
struct Guard(Option<Arc<dyn ReplayGuard>>);

impl fmt::Debug for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0.is_some() {
            "single-use"
        } else {
            "reusable"
        })
    }
}

/// A [`ReplayGuard`] for one process, bounded: it holds at most `capacity` nonces, forgets
/// each once its state has expired, and when full of unexpired ones refuses new states
/// (`-32602`) rather than forget a used one.
pub struct InMemoryReplayGuard {
    capacity: usize,
    seen: Mutex<Seen>,
}

#[derive(Default)]
struct Seen {
    by_nonce: HashMap<[u8; NONCE_LEN], u64>,
    by_expiry: BTreeSet<(u64, [u8; NONCE_LEN])>,
}

/// The default capacity of an [`InMemoryReplayGuard`].
pub const DEFAULT_REPLAY_CAPACITY: usize = 100_000;

impl InMemoryReplayGuard {
    /// A guard holding at most `capacity` (at least 1) used states.
    pub fn new(capacity: usize) -> Self {
        Self {
            capacity: capacity.max(1),
            seen: Mutex::default(),
        }
    }

    /// How many used states it remembers now.
    pub fn len(&self) -> usize {
        self.seen.lock().expect("replay lock").by_nonce.len()
    }

    /// Whether it remembers none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl Default for InMemoryReplayGuard {
    fn default() -> Self {
        Self::new(DEFAULT_REPLAY_CAPACITY)
    }
}

impl fmt::Debug for InMemoryReplayGuard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("InMemoryReplayGuard")
            .field("capacity", &self.capacity)
            .field("len", &self.len())
            .finish()
    }
}

impl ReplayGuard for InMemoryReplayGuard {
    fn first_use<'a>(
        &'a self,
        nonce: &'a [u8; NONCE_LEN],
        expires_ms: u64,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        Box::pin(std::future::ready(Ok(self.record(nonce, expires_ms))))
    }
}

impl InMemoryReplayGuard {
    fn record(&self, nonce: &[u8; NONCE_LEN], expires_ms: u64) -> bool {
        let mut seen = self.seen.lock().expect("replay lock");
        if seen.by_nonce.contains_key(nonce) {
            return false;
        }
        // Forget what has expired: those states no longer open anyway.
        let now = now_ms();
        while let Some(&(exp, n)) = seen.by_expiry.first() {
            if exp > now {
                break;
            }
            seen.by_expiry.pop_first();
            seen.by_nonce.remove(&n);
        }
        if seen.by_nonce.len() >= self.capacity {
            return false;
        }
        seen.by_nonce.insert(*nonce, expires_ms);
        seen.by_expiry.insert((expires_ms, *nonce));
        true
    }
}

/// Why a text is not a [`RequestStateKey`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadKey(&'static str);

impl fmt::Display for BadKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "a request-state key must be 32 bytes in base64: {}",
            self.0
        )
    }
}

impl std::error::Error for BadKey {}

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

    /// The key list of a deployment from the environment variable `var`: keys in base64,
    /// separated by commas, the sealing key first (every process of the deployment gets
    /// the same list, so a retry may reach any of them). `Ok(None)` when `var` is not set.
    ///
    /// ```
    /// use mcp_runtime::session::request_state::RequestStateConfig;
    ///
    /// // Two keys: [1; 32] in standard base64, [7; 32] in URL-safe base64 without padding.
    /// let keys = "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQE=,BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwc";
    /// // SAFETY: nothing else in this doctest reads the environment meanwhile.
    /// unsafe { std::env::set_var("DOC_MCP_KEYS", keys) };
    /// let cfg = RequestStateConfig::from_env("DOC_MCP_KEYS").unwrap().unwrap();
    /// assert!(!cfg.is_single_use());
    /// assert!(RequestStateConfig::from_env("DOC_MCP_UNSET").unwrap().is_none());
    /// ```
    pub fn from_env(var: &str) -> Result<Option<Self>, BadKey> {
        let Ok(list) = std::env::var(var) else {
            return Ok(None);
        };
        let keys = list
            .split(',')
            .filter(|k| !k.trim().is_empty())
            .map(RequestStateKey::from_base64)
            .collect::<Result<Vec<_>, _>>()?;
        Self::with_keys(keys)
            .map(Some)
            .map_err(|NoKeys| BadKey("the list is empty"))
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

    /// Makes every state open only once: `guard` records each state let through until it
    /// expires, and a replay is `-32602 Invalid or expired requestState`. Off by default: a
    /// deployment of several instances must give them one shared guard (see
    /// [`ReplayGuard`]), and a client can no longer retry a round whose answer it lost.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use mcp_runtime::session::request_state::{InMemoryReplayGuard, RequestStateConfig};
    ///
    /// let cfg = RequestStateConfig::default().single_use(Arc::new(InMemoryReplayGuard::default()));
    /// assert!(cfg.is_single_use());
    /// ```
    pub fn single_use(mut self, guard: Arc<dyn ReplayGuard>) -> Self {
        self.replay = Guard(Some(guard));
        self
    }

    /// Whether states open only once.
    pub fn is_single_use(&self) -> bool {
        self.replay.0.is_some()
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

    /// Opens a token sealed for the request described by `aad`, checking its expiry (and,
    /// single-use, that it was not opened before).
    pub(crate) async fn open(&self, aad: &[u8], token: &str) -> Result<StatePayload, ErrorObject> {
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
        // Only a genuine, unexpired state is recorded, so forgeries cannot fill the guard.
        if let Some(guard) = &self.replay.0 {
            let nonce: &[u8; NONCE_LEN] = nonce.try_into().map_err(|_| invalid())?;
            match guard.first_use(nonce, payload.exp).await {
                Ok(true) => {}
                Ok(false) => return Err(invalid()),
                Err(e) => {
                    tracing::warn!(error = %e, "replay guard unavailable");
                    return Err(ErrorObject::new(
                        super::store::STORE_UNAVAILABLE,
                        "Service Unavailable: the requestState replay guard cannot be reached; send the request again",
                    ));
                }
            }
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

    #[tokio::test]
    async fn seals_and_opens_for_the_same_request_only() {
        let cfg = RequestStateConfig::default();
        let args = RawValue::from_string(r#"{"b":1,"a":[1,{"y":2,"x":3}]}"#.into()).unwrap();
        let same = RawValue::from_string(r#"{ "a": [1, {"x":3,"y":2}], "b": 1 }"#.into()).unwrap();
        let other = RawValue::from_string(r#"{"a":[1],"b":2}"#.into()).unwrap();
        let token = cfg.seal(&binding(Some(&args), None).aad(), &payload(cfg.expiry()));
        let opened = cfg
            .open(&binding(Some(&same), None).aad(), &token)
            .await
            .unwrap();
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
            let e = cfg.open(&aad, &token).await.unwrap_err();
            assert_eq!(e.code, -32602);
            assert_eq!(e.message, INVALID_STATE_MESSAGE);
        }
    }

    #[tokio::test]
    async fn tampered_truncated_or_foreign_tokens_are_rejected() {
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
            assert!(cfg.open(&aad, bad).await.is_err(), "accepted {bad:?}");
        }
        let stranger = RequestStateConfig::default();
        assert!(stranger.open(&aad, &token).await.is_err());
    }

    #[tokio::test]
    async fn expired_states_are_rejected() {
        let cfg = RequestStateConfig::default();
        let aad = binding(None, None).aad();
        let token = cfg.seal(&aad, &payload(now_ms().saturating_sub(1)));
        assert_eq!(
            cfg.open(&aad, &token).await.unwrap_err().message,
            INVALID_STATE_MESSAGE
        );
        let zero = cfg.clone().ttl(Duration::ZERO);
        let token = zero.seal(&aad, &payload(zero.expiry()));
        assert!(zero.open(&aad, &token).await.is_err());
    }

    #[tokio::test]
    async fn a_single_use_state_opens_once_and_a_reusable_one_until_expiry() {
        let aad = binding(None, None).aad();
        let reusable = RequestStateConfig::default();
        assert!(!reusable.is_single_use());
        let token = reusable.seal(&aad, &payload(reusable.expiry()));
        assert!(reusable.open(&aad, &token).await.is_ok());
        assert!(reusable.open(&aad, &token).await.is_ok());

        let guard = Arc::new(InMemoryReplayGuard::new(8));
        let once = reusable.clone().single_use(guard.clone());
        let token = once.seal(&aad, &payload(once.expiry()));
        // A forged token is refused without being recorded.
        assert!(once.open(&aad, &format!("{token}x")).await.is_err());
        assert!(guard.is_empty());
        assert!(once.open(&aad, &token).await.is_ok());
        assert_eq!(
            once.open(&aad, &token).await.unwrap_err().message,
            INVALID_STATE_MESSAGE
        );
        // Another state of the same request is a use of its own.
        let next = once.seal(&aad, &payload(once.expiry()));
        assert!(once.open(&aad, &next).await.is_ok());
        assert_eq!(guard.len(), 2);
    }

    #[tokio::test]
    async fn the_in_memory_guard_is_bounded_and_forgets_expired_states() {
        let guard = InMemoryReplayGuard::new(2);
        let later = now_ms() + 60_000;
        assert!(guard.first_use(&[1; 24], later).await.unwrap());
        assert!(!guard.first_use(&[1; 24], later).await.unwrap(), "a replay");
        assert!(
            guard
                .first_use(&[2; 24], now_ms().saturating_sub(1))
                .await
                .unwrap()
        );
        // Full: the expired entry is forgotten to make room.
        assert!(guard.first_use(&[3; 24], later).await.unwrap());
        assert_eq!(guard.len(), 2);
        // Full of unexpired states: a new one is refused rather than one forgotten.
        assert!(!guard.first_use(&[4; 24], later).await.unwrap());
        assert!(
            !guard.first_use(&[1; 24], later).await.unwrap(),
            "still remembered"
        );
    }

    #[tokio::test]
    async fn rotation_first_key_seals_all_keys_open() {
        let old = RequestStateKey::from_bytes([1; 32]);
        let new = RequestStateKey::from_bytes([2; 32]);
        let before = RequestStateConfig::with_keys(vec![old.clone()]).unwrap();
        let after = RequestStateConfig::with_keys(vec![new.clone(), old]).unwrap();
        let only_new = RequestStateConfig::with_keys(vec![new]).unwrap();
        let aad = binding(None, None).aad();
        let old_token = before.seal(&aad, &payload(before.expiry()));
        assert!(after.open(&aad, &old_token).await.is_ok());
        assert!(only_new.open(&aad, &old_token).await.is_err());
        let new_token = after.seal(&aad, &payload(after.expiry()));
        assert!(only_new.open(&aad, &new_token).await.is_ok());
        assert!(before.open(&aad, &new_token).await.is_err());
        assert_eq!(RequestStateConfig::with_keys(vec![]).unwrap_err(), NoKeys);
    }

    #[test]
    fn key_bytes_stay_out_of_debug_output() {
        let k = RequestStateKey::from_bytes([0xAB; 32]);
        assert_eq!(format!("{k:?}"), "RequestStateKey(..)");
        assert!(!format!("{:?}", RequestStateConfig::default()).contains("171"));
    }

    #[test]
    fn keys_read_from_base64_in_either_alphabet() {
        let key = [0xfb_u8; 32];
        let std = base64::engine::general_purpose::STANDARD.encode(key);
        let url = URL_SAFE_NO_PAD.encode(key);
        assert_ne!(std.trim_end_matches('='), url);
        for text in [std.as_str(), url.as_str(), &format!(" {url} ")] {
            assert_eq!(RequestStateKey::from_base64(text).unwrap().0, key, "{text}");
        }
        assert!(RequestStateKey::from_base64("AAAA").is_err());
        assert!(RequestStateKey::from_base64("not base64!").is_err());
    }

    /// Fuzzing (sealing is crate-private, so its properties live here; `tests/tests/fuzz.rs` has
    /// the others). `MCP_FUZZ_CASES` raises the number of cases.
    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        fn config(default: u32) -> ProptestConfig {
            let cases = std::env::var("MCP_FUZZ_CASES")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(default);
            ProptestConfig::with_cases(cases)
        }

        fn block_on<F: std::future::Future>(f: F) -> F::Output {
            tokio::runtime::Builder::new_current_thread()
                .build()
                .unwrap()
                .block_on(f)
        }

        fn cfg() -> &'static RequestStateConfig {
            static CFG: std::sync::OnceLock<RequestStateConfig> = std::sync::OnceLock::new();
            CFG.get_or_init(RequestStateConfig::default)
        }

        fn state(
            round: u32,
            answers: Vec<(String, i64)>,
            pending: Vec<(String, String)>,
        ) -> StatePayload {
            StatePayload {
                exp: cfg().expiry(),
                round,
                answers: answers
                    .into_iter()
                    .map(|(k, v)| (k, RawValue::from_string(v.to_string()).unwrap()))
                    .collect(),
                pending: pending.into_iter().collect(),
            }
        }

        fn payload() -> impl Strategy<Value = StatePayload> {
            (
                any::<u32>(),
                prop::collection::vec((".{0,8}", any::<i64>()), 0..4),
                prop::collection::vec((".{0,8}", ".{0,12}"), 0..4),
            )
                .prop_map(|(round, answers, pending)| state(round, answers, pending))
        }

        fn token_like() -> impl Strategy<Value = String> {
            prop_oneof![
                ".{0,80}",
                "[A-Za-z0-9_-]{0,120}",
                // The right length for a small state, in the token alphabet.
                "A[A-Za-z0-9_-]{90,140}",
            ]
        }

        proptest! {
            #![proptest_config(config(256))]

            #[test]
            fn arbitrary_strings_never_open(token in token_like(), target in ".{0,8}") {
                let aad = Binding { target: &target, ..binding(None, None) }.aad();
                prop_assert!(block_on(cfg().open(&aad, &token)).is_err());
            }

            #[test]
            fn a_sealed_state_round_trips(p in payload(), target in ".{0,8}") {
                let aad = Binding { target: &target, ..binding(None, None) }.aad();
                let token = cfg().seal(&aad, &p);
                let opened = block_on(cfg().open(&aad, &token)).unwrap();
                prop_assert_eq!(opened.exp, p.exp);
                prop_assert_eq!(opened.round, p.round);
                prop_assert_eq!(&opened.pending, &p.pending);
                let raw = |m: &std::collections::BTreeMap<String, Box<RawValue>>| -> Vec<(String, String)> {
                    m.iter().map(|(k, v)| (k.clone(), v.get().to_owned())).collect()
                };
                prop_assert_eq!(raw(&opened.answers), raw(&p.answers));
            }

            #[test]
            fn any_one_byte_change_is_rejected(
                p in payload(),
                at in any::<prop::sample::Index>(),
                to in any::<u8>(),
                in_text in any::<bool>(),
            ) {
                let aad = binding(None, None).aad();
                let token = cfg().seal(&aad, &p);
                let changed = if in_text {
                    // One character of the token text (any byte, kept as text).
                    let mut bytes = token.clone().into_bytes();
                    let i = at.index(bytes.len());
                    prop_assume!(bytes[i] != to);
                    bytes[i] = to;
                    String::from_utf8_lossy(&bytes).into_owned()
                } else {
                    // One byte of what the token encodes.
                    let mut bytes = URL_SAFE_NO_PAD.decode(&token).unwrap();
                    let i = at.index(bytes.len());
                    prop_assume!(bytes[i] != to);
                    bytes[i] = to;
                    URL_SAFE_NO_PAD.encode(bytes)
                };
                prop_assert!(block_on(cfg().open(&aad, &changed)).is_err(), "{} opened", changed);
            }
        }
    }
}
