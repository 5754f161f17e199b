//! JWT access tokens checked against the authorization server's keys (feature `jwt`).
//!
//! [`JwtValidator`] is a [`TokenValidator`] for tokens that are JWTs (RFC 9068): it checks
//! the signature with a key from a JWKS (RFC 7517) chosen by the token's `kid`, the
//! algorithm against an allow-list of asymmetric ones (RS256 and ES256 by default; never
//! `none` or HMAC), `iss`, `aud` (this server's resource URI: a token issued for another
//! resource is refused, no passthrough), `exp` and `nbf` with a leeway, and turns the
//! claims into a [`Principal`]: `sub`, `client_id` (or `azp`), the scopes of `scope`
//! (space-separated, or the `scp` claim some issuers use), and every claim.
//!
//! The keys come from a [`JwksSource`]: a fixed set, a URL fetched over plain HTTP (a
//! local or in-cluster key server; for HTTPS, fetch with your own client through
//! [`JwksSource::fetch_with`]), cached for [`JwtValidator::cache_ttl`] and fetched again
//! when a token names a `kid` the cache lacks (key rotation), at most once per
//! [`JwtValidator::refresh_cooldown`] so that forged `kid`s cannot flood the key server.
//! A failed refresh keeps the keys already known.
//!
//! The `jsonwebtoken` crate the checks are made with is re-exported here as `jsonwebtoken`
//! (its `DecodingKey` and `Algorithm` in a key set of yours are then of the same version).
//!
//! ```no_run
//! use mcp_runtime::transport::http::AuthOptions;
//! use mcp_runtime::transport::http::jwt::{JwksSource, JwtValidator};
//!
//! let keys = JwksSource::url("http://127.0.0.1:8081/.well-known/jwks.json").unwrap();
//! let validator = JwtValidator::new("http://127.0.0.1:8081", "http://127.0.0.1:8080/mcp", keys);
//! let auth = AuthOptions::new("http://127.0.0.1:8080/mcp", validator)
//!     .authorization_server("http://127.0.0.1:8081")
//!     .require_scopes(["mcp"]);
//! ```

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::http::request::Parts;
use jsonwebtoken::errors::ErrorKind;
use jsonwebtoken::jwk::Jwk;
use jsonwebtoken::{Algorithm, DecodingKey, Validation};
use serde_json::{Map, Value};

use super::auth::{AuthError, AuthFuture, Principal, TokenValidator};

// A module of the crate's items rather than `pub use jsonwebtoken;`: the facade inlines this
// module, and rustdoc would then copy the whole crate into our pages (links it cannot resolve
// included), whatever the `use` says; a hidden module stays out. The docs name it (this module's docs).
#[doc(hidden)]
pub mod jsonwebtoken {
    pub use ::jsonwebtoken::*;
}

/// The future a [`JwksSource::fetch_with`] closure returns: the JWKS document, or why it
/// could not be had.
pub type JwksFuture = Pin<Box<dyn Future<Output = Result<Vec<u8>, String>> + Send>>;

type Fetch = Arc<dyn Fn() -> JwksFuture + Send + Sync>;

/// Where a [`JwtValidator`] gets its keys.
#[derive(Clone)]
pub struct JwksSource(Source);

#[derive(Clone)]
enum Source {
    Fixed(Arc<Vec<Jwk>>),
    Fetch(Fetch),
}

impl std::fmt::Debug for JwksSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            Source::Fixed(keys) => write!(f, "JwksSource::Fixed({} keys)", keys.len()),
            Source::Fetch(_) => f.write_str("JwksSource::Fetch"),
        }
    }
}

impl JwksSource {
    /// These keys, never refreshed.
    pub fn fixed(keys: jsonwebtoken::jwk::JwkSet) -> Self {
        Self(Source::Fixed(Arc::new(keys.keys)))
    }

    /// The keys of a JWKS document (`{"keys": [...]}`), never refreshed; keys of a type or
    /// algorithm this crate does not know are skipped.
    pub fn from_json(document: &[u8]) -> Result<Self, String> {
        Ok(Self(Source::Fixed(Arc::new(parse_jwks(document)?))))
    }

    /// The JWKS at `url`, fetched with a plain-HTTP client (`http://` only: a key server
    /// on loopback or inside the cluster). For `https://`, `proxy::config::jwks_over_tls`
    /// (the `tls` feature), or [`JwksSource::fetch_with`].
    pub fn url(url: &str) -> Result<Self, String> {
        let uri: axum::http::Uri = url
            .parse()
            .map_err(|e| format!("invalid JWKS URL {url:?}: {e}"))?;
        if uri.scheme_str() != Some("http") {
            return Err(format!(
                "JwksSource::url fetches http:// only ({url:?}); use mcp::proxy::config::jwks_over_tls (the tls feature) or JwksSource::fetch_with for https"
            ));
        }
        Ok(Self::fetched_by(
            hyper_util::client::legacy::connect::HttpConnector::new(),
            uri,
        ))
    }

    /// The JWKS at `uri`, fetched through `connector` (plain, or TLS for `https://`).
    pub(crate) fn fetched_by<C>(connector: C, uri: axum::http::Uri) -> Self
    where
        C: hyper_util::client::legacy::connect::Connect + Clone + Send + Sync + 'static,
    {
        let client =
            hyper_util::client::legacy::Client::builder(hyper_util::rt::TokioExecutor::new())
                .build::<_, http_body_util::Empty<axum::body::Bytes>>(connector);
        Self::fetch_with(move || {
            let client = client.clone();
            let uri = uri.clone();
            Box::pin(async move { fetch_http(&client, uri).await })
        })
    }

    /// The JWKS document `fetch` returns, called whenever the keys are due for a refresh.
    pub fn fetch_with<F>(fetch: F) -> Self
    where
        F: Fn() -> JwksFuture + Send + Sync + 'static,
    {
        Self(Source::Fetch(Arc::new(fetch)))
    }
}

/// The most a JWKS document may weigh.
const MAX_JWKS: usize = 1024 * 1024;
/// How long one JWKS fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(10);

async fn fetch_http<C>(
    client: &hyper_util::client::legacy::Client<C, http_body_util::Empty<axum::body::Bytes>>,
    uri: axum::http::Uri,
) -> Result<Vec<u8>, String>
where
    C: hyper_util::client::legacy::connect::Connect + Clone + Send + Sync + 'static,
{
    use http_body_util::BodyExt;
    let req = axum::http::Request::get(uri.clone())
        .header(axum::http::header::ACCEPT, "application/json")
        .body(http_body_util::Empty::new())
        .map_err(|e| e.to_string())?;
    let work = async {
        let resp = client
            .request(req)
            .await
            .map_err(|e| format!("JWKS fetch from {uri} failed: {e}"))?;
        if !resp.status().is_success() {
            return Err(format!("JWKS fetch from {uri}: HTTP {}", resp.status()));
        }
        let body = http_body_util::Limited::new(resp.into_body(), MAX_JWKS)
            .collect()
            .await
            .map_err(|e| format!("JWKS fetch from {uri}: {e}"))?;
        Ok(body.to_bytes().to_vec())
    };
    tokio::time::timeout(FETCH_TIMEOUT, work)
        .await
        .map_err(|_| format!("JWKS fetch from {uri} timed out"))?
}

/// The usable keys of a JWKS document: one key this crate cannot read (an encryption key,
/// a curve it lacks) does not make the others unusable.
fn parse_jwks(document: &[u8]) -> Result<Vec<Jwk>, String> {
    #[derive(serde::Deserialize)]
    struct Doc {
        keys: Vec<Value>,
    }
    let doc: Doc =
        serde_json::from_slice(document).map_err(|e| format!("not a JWKS document: {e}"))?;
    Ok(doc
        .keys
        .into_iter()
        .filter_map(|k| serde_json::from_value::<Jwk>(k).ok())
        .collect())
}

struct Cache {
    keys: Arc<Vec<Jwk>>,
    fetched: Option<Instant>,
    last_attempt: Option<Instant>,
}

/// A [`TokenValidator`] for JWT access tokens; see the [module docs](self).
#[derive(Clone)]
pub struct JwtValidator {
    issuer: String,
    audiences: Vec<String>,
    algorithms: Vec<Algorithm>,
    leeway: Duration,
    cache_ttl: Duration,
    refresh_cooldown: Duration,
    source: JwksSource,
    cache: Arc<Mutex<Cache>>,
    // One refresh at a time: a burst of tokens with a new `kid` makes one fetch.
    refreshing: Arc<tokio::sync::Mutex<()>>,
}

impl std::fmt::Debug for JwtValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JwtValidator")
            .field("issuer", &self.issuer)
            .field("audiences", &self.audiences)
            .field("algorithms", &self.algorithms)
            .field("leeway", &self.leeway)
            .field("source", &self.source)
            .finish_non_exhaustive()
    }
}

impl JwtValidator {
    /// Tokens issued by `issuer` (the exact `iss`) for `audience` (this server's resource
    /// URI, matched against `aud`), signed with a key of `keys`.
    pub fn new(issuer: impl Into<String>, audience: impl Into<String>, keys: JwksSource) -> Self {
        let fixed = match &keys.0 {
            Source::Fixed(k) => Some(k.clone()),
            Source::Fetch(_) => None,
        };
        Self {
            issuer: issuer.into(),
            audiences: vec![audience.into()],
            algorithms: vec![Algorithm::RS256, Algorithm::ES256],
            leeway: Duration::from_secs(60),
            cache_ttl: Duration::from_secs(600),
            refresh_cooldown: Duration::from_secs(30),
            source: keys,
            cache: Arc::new(Mutex::new(Cache {
                fetched: fixed.as_ref().map(|_| Instant::now()),
                keys: fixed.unwrap_or_default(),
                last_attempt: None,
            })),
            refreshing: Arc::new(tokio::sync::Mutex::new(())),
        }
    }

    /// Accepts `aud` values other than the resource URI too (an alias of this server).
    pub fn also_audience(mut self, audience: impl Into<String>) -> Self {
        self.audiences.push(audience.into());
        self
    }

    /// The signature algorithms accepted (default RS256 and ES256). Symmetric ones
    /// (HS*) are dropped: a resource server must not share the issuer's secret.
    pub fn algorithms(mut self, algorithms: impl IntoIterator<Item = Algorithm>) -> Self {
        self.algorithms = algorithms
            .into_iter()
            .filter(|a| !matches!(a, Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512))
            .collect();
        self
    }

    /// How far `exp` and `nbf` may be off (clock skew; default 60 s).
    pub fn leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// How long fetched keys are used before they are fetched again (default 10 min).
    pub fn cache_ttl(mut self, ttl: Duration) -> Self {
        self.cache_ttl = ttl;
        self
    }

    /// The least time between two fetches that an unknown `kid` causes (default 30 s).
    pub fn refresh_cooldown(mut self, cooldown: Duration) -> Self {
        self.refresh_cooldown = cooldown;
        self
    }

    /// The keys to use: the cached ones, fetched first when there are none or they are
    /// older than the TTL, or (`unknown_kid`) when a token names a key they lack and the
    /// cooldown allows.
    async fn keys(&self, unknown_kid: bool) -> Result<Arc<Vec<Jwk>>, AuthError> {
        let Source::Fetch(fetch) = &self.source.0 else {
            return Ok(self.cache.lock().expect("jwks cache").keys.clone());
        };
        let due = |c: &Cache| match c.fetched {
            None => c
                .last_attempt
                .is_none_or(|t| t.elapsed() >= self.refresh_cooldown.min(Duration::from_secs(1))),
            Some(t) if t.elapsed() >= self.cache_ttl => true,
            Some(_) => {
                unknown_kid
                    && c.last_attempt
                        .is_none_or(|t| t.elapsed() >= self.refresh_cooldown)
            }
        };
        if !due(&self.cache.lock().expect("jwks cache")) {
            return self.cached();
        }
        let _one = self.refreshing.lock().await;
        // Another task may have refreshed while this one waited.
        if !due(&self.cache.lock().expect("jwks cache")) {
            return self.cached();
        }
        self.cache.lock().expect("jwks cache").last_attempt = Some(Instant::now());
        match fetch().await.and_then(|doc| parse_jwks(&doc)) {
            Ok(keys) => {
                let keys = Arc::new(keys);
                let mut c = self.cache.lock().expect("jwks cache");
                c.keys = keys.clone();
                c.fetched = Some(Instant::now());
                Ok(keys)
            }
            Err(e) => {
                tracing::warn!(error = %e, "JWKS refresh failed");
                let c = self.cache.lock().expect("jwks cache");
                if c.fetched.is_some() {
                    Ok(c.keys.clone())
                } else {
                    Err(AuthError::Unavailable(e))
                }
            }
        }
    }

    fn cached(&self) -> Result<Arc<Vec<Jwk>>, AuthError> {
        let c = self.cache.lock().expect("jwks cache");
        if c.fetched.is_none() {
            return Err(AuthError::Unavailable(
                "the JWKS could not be fetched".into(),
            ));
        }
        Ok(c.keys.clone())
    }

    async fn check(&self, token: &str) -> Result<Principal, AuthError> {
        let invalid = |d: String| AuthError::InvalidToken(d);
        let header = jsonwebtoken::decode_header(token)
            .map_err(|e| invalid(format!("malformed token: {e}")))?;
        if !self.algorithms.contains(&header.alg) {
            return Err(invalid(format!("algorithm {:?} not accepted", header.alg)));
        }
        let kid = header.kid.as_deref();
        let mut keys = self.keys(false).await?;
        let mut jwk = pick(&keys, kid, header.alg)?;
        if jwk.is_none() && kid.is_some() {
            keys = self.keys(true).await?;
            jwk = pick(&keys, kid, header.alg)?;
        }
        let Some(jwk) = jwk else {
            return Err(invalid(match kid {
                Some(k) => format!("no key with kid {k:?}"),
                None => "the token names no key (kid) and no single key fits".into(),
            }));
        };
        let key = DecodingKey::from_jwk(jwk).map_err(|e| invalid(format!("unusable key: {e}")))?;
        let mut v = Validation::new(header.alg);
        v.leeway = self.leeway.as_secs();
        v.validate_nbf = true;
        v.set_issuer(&[&self.issuer]);
        v.set_audience(&self.audiences);
        v.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = jsonwebtoken::decode::<Map<String, Value>>(token, &key, &v)
            .map_err(|e| invalid(describe(e.kind())))?;
        Ok(principal(data.claims))
    }
}

/// The key for a token's `kid` and `alg`: by `kid` when it has one, else the only key
/// that fits the algorithm. A key whose own `alg` differs from the token's is refused.
fn pick<'a>(
    keys: &'a [Jwk],
    kid: Option<&str>,
    alg: Algorithm,
) -> Result<Option<&'a Jwk>, AuthError> {
    let fits = |k: &Jwk| {
        k.common
            .key_algorithm
            .is_none_or(|ka| ka.to_string() == format!("{alg:?}"))
    };
    match kid {
        Some(kid) => match keys
            .iter()
            .find(|k| k.common.key_id.as_deref() == Some(kid))
        {
            Some(k) if !fits(k) => Err(AuthError::InvalidToken(format!(
                "key {kid:?} is not for {alg:?}"
            ))),
            other => Ok(other),
        },
        None => {
            let mut fitting = keys.iter().filter(|k| fits(k) && family_fits(k, alg));
            match (fitting.next(), fitting.next()) {
                (Some(k), None) => Ok(Some(k)),
                _ => Ok(None),
            }
        }
    }
}

fn family_fits(k: &Jwk, alg: Algorithm) -> bool {
    use jsonwebtoken::jwk::AlgorithmParameters as P;
    matches!(
        (&k.algorithm, alg),
        (
            P::RSA(_),
            Algorithm::RS256
                | Algorithm::RS384
                | Algorithm::RS512
                | Algorithm::PS256
                | Algorithm::PS384
                | Algorithm::PS512
        ) | (P::EllipticCurve(_), Algorithm::ES256 | Algorithm::ES384)
            | (P::OctetKeyPair(_), Algorithm::EdDSA)
    )
}

/// Why a token failed, in words fit for `error_description`.
fn describe(kind: &ErrorKind) -> String {
    match kind {
        ErrorKind::ExpiredSignature => "the token has expired".into(),
        ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)".into(),
        ErrorKind::InvalidAudience => "the token was issued for another resource (aud)".into(),
        ErrorKind::InvalidIssuer => "the token comes from another issuer (iss)".into(),
        ErrorKind::InvalidSignature => "bad signature".into(),
        ErrorKind::MissingRequiredClaim(c) => format!("the token lacks the {c} claim"),
        ErrorKind::InvalidClaimFormat(c) => format!("the {c} claim is malformed"),
        ErrorKind::InvalidAlgorithm => "the key does not fit the token's algorithm".into(),
        other => format!("invalid token: {other:?}"),
    }
}

/// The claims as a principal: `sub`, `client_id`/`azp`, and the scopes of `scope`
/// (space-separated) or `scp` (a list or a string).
fn principal(claims: Map<String, Value>) -> Principal {
    let text = |k: &str| claims.get(k).and_then(Value::as_str).map(str::to_owned);
    let words = |v: &Value| -> Vec<String> {
        match v {
            Value::String(s) => s.split_whitespace().map(str::to_owned).collect(),
            Value::Array(a) => a
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => Vec::new(),
        }
    };
    let scopes = claims
        .get("scope")
        .or_else(|| claims.get("scp"))
        .map(words)
        .unwrap_or_default();
    Principal {
        subject: text("sub").unwrap_or_default(),
        client_id: text("client_id").or_else(|| text("azp")),
        scopes,
        claims,
    }
}

impl TokenValidator for JwtValidator {
    fn validate<'a>(&'a self, token: &'a str, _request: &'a Parts) -> AuthFuture<'a> {
        Box::pin(self.check(token))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_come_from_scope_or_scp() {
        let p = principal(
            serde_json::from_value(serde_json::json!({
                "sub": "alice", "azp": "app", "scope": "mcp:read  mcp:write"
            }))
            .unwrap(),
        );
        assert_eq!(p.subject, "alice");
        assert_eq!(p.client_id.as_deref(), Some("app"));
        assert_eq!(p.scopes, ["mcp:read", "mcp:write"]);
        let p = principal(
            serde_json::from_value(serde_json::json!({"sub": "b", "scp": ["x", "y"]})).unwrap(),
        );
        assert_eq!(p.scopes, ["x", "y"]);
    }

    #[test]
    fn a_jwks_with_unknown_keys_keeps_the_known_ones() {
        let doc = br#"{"keys": [
            {"kty": "RSA", "kid": 5, "n": "AQAB", "e": "AQAB"},
            {"kty": "EC", "crv": "P-256", "kid": "e", "alg": "ES256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}
        ]}"#;
        let keys = parse_jwks(doc).unwrap();
        assert_eq!(keys.len(), 1);
        assert_eq!(keys[0].common.key_id.as_deref(), Some("e"));
        assert!(parse_jwks(b"{\"nokeys\": 1}").is_err());
        assert!(pick(&keys, Some("e"), Algorithm::ES256).unwrap().is_some());
        assert!(pick(&keys, Some("e"), Algorithm::RS256).is_err());
        assert!(pick(&keys, None, Algorithm::ES256).unwrap().is_some());
        assert!(pick(&keys, None, Algorithm::RS256).unwrap().is_none());
    }
}
