//! The caller's identity passed on to an upstream ([`Upstream::token_exchange`],
//! [`Upstream::pass_through`]): the caller's bearer token, read from the request that
//! carried the call, exchanged for a token for the upstream (RFC 8693; the exchanged
//! tokens cached by the caller's token until shortly before they expire), or forwarded as
//! it is when configured so and its `aud` names the upstream. Nothing else of the caller's
//! ever crosses, and a call without a token fails rather than going out as the proxy.
//!
//! [`Upstream::token_exchange`]: super::Upstream::token_exchange
//! [`Upstream::pass_through`]: super::Upstream::pass_through

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::Value;

use crate::client::ClientError;
use crate::client::TokenProvider;
use crate::client::oauth::{OAuth, TokenExchange, Tokens};
use crate::common::BoxFuture;
use crate::context::Context;
use crate::transport::http::HttpRequest;

/// How long before it expires an exchanged token is exchanged afresh.
const MARGIN: Duration = Duration::from_secs(30);

/// How long an exchanged token without `expires_in` is reused.
const UNDATED: Duration = Duration::from_secs(300);

/// The most exchanged tokens kept (past it the cache starts over).
const MAX_CACHED: usize = 4096;

/// How the caller's identity reaches one upstream.
#[derive(Clone)]
pub(crate) enum Identity {
    /// RFC 8693: the caller's token for one the upstream's authorization server issues.
    Exchange(Arc<Exchanger>),
    /// The caller's token as it is, when its `aud` names `audience`.
    PassThrough { audience: String },
}

impl std::fmt::Debug for Identity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Exchange(x) => f
                .debug_struct("TokenExchange")
                .field("oauth", &x.oauth)
                .field("exchange", &x.exchange)
                .finish(),
            Self::PassThrough { audience } => f
                .debug_struct("PassThrough")
                .field("audience", audience)
                .finish(),
        }
    }
}

impl Identity {
    /// Exchanging with `oauth`'s client.
    pub(crate) fn exchange(oauth: OAuth, exchange: TokenExchange) -> Identity {
        Identity::Exchange(Arc::new(Exchanger {
            oauth,
            exchange,
            cache: Mutex::new(HashMap::new()),
        }))
    }

    /// The bearer token of the request that carried `ctx`'s call, when this mode may use
    /// it; why not otherwise.
    pub(crate) fn caller_token(&self, ctx: &Context) -> Result<String, String> {
        let token = (ctx.extensions().get::<HttpRequest>())
            .and_then(|r| r.headers.get(hyper::header::AUTHORIZATION))
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().split_once(' '))
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, t)| t.trim().to_owned())
            .filter(|t| !t.is_empty());
        let Some(token) = token else {
            return Err("this call carries no bearer token to pass on".into());
        };
        if let Identity::PassThrough { audience } = self
            && !audiences(&token).iter().any(|a| a == audience)
        {
            return Err(format!(
                "the caller's token is not for it (its `aud` does not name {audience:?}), so it is not passed on"
            ));
        }
        Ok(token)
    }
}

/// The `aud` of a JWT, read without checking the signature: it only decides whether the
/// token may be forwarded, and the upstream checks the token itself.
fn audiences(token: &str) -> Vec<String> {
    let claims = (token.split('.').nth(1))
        .and_then(|p| {
            base64::engine::general_purpose::URL_SAFE_NO_PAD
                .decode(p)
                .ok()
        })
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    match claims.as_ref().and_then(|c| c.get("aud")) {
        Some(Value::String(a)) => vec![a.clone()],
        Some(Value::Array(a)) => (a.iter())
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    }
}

/// The exchanges of one upstream, and their tokens by the caller's token.
pub(crate) struct Exchanger {
    oauth: OAuth,
    exchange: TokenExchange,
    cache: Mutex<HashMap<String, (Tokens, Instant)>>,
}

impl Exchanger {
    /// A token for the upstream acting for `subject`: the cached one, else a new exchange.
    async fn token(&self, subject: &str) -> Result<String, ClientError> {
        let fresh = |(t, at): &(Tokens, Instant)| match t.expires_at {
            Some(_) => !t.expires_within(MARGIN),
            None => at.elapsed() < UNDATED,
        };
        if let Some(hit) =
            (self.cache.lock().expect("cache lock").get(subject)).filter(|e| fresh(e))
        {
            return Ok(hit.0.access_token.clone());
        }
        let tokens = self.oauth.exchange_token(subject, &self.exchange).await?;
        if tokens.dpop {
            // Sent as a bearer token it would be refused: say why instead.
            return Err(ClientError::Auth(
                "the token exchange issued a DPoP-bound token, which a proxy cannot send".into(),
            ));
        }
        let access = tokens.access_token.clone();
        let mut cache = self.cache.lock().expect("cache lock");
        cache.retain(|_, e| fresh(e));
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert(subject.to_owned(), (tokens, Instant::now()));
        Ok(access)
    }

    /// Drops `subject`'s token (the upstream refused it).
    fn forget(&self, subject: &str) {
        self.cache.lock().expect("cache lock").remove(subject);
    }
}

/// The [`TokenProvider`] of one caller's connection: the caller's current token (updated
/// on each of its calls: it may have been refreshed), exchanged or passed on.
#[derive(Clone)]
pub(crate) struct CallerToken {
    pub(crate) identity: Identity,
    pub(crate) subject: Arc<Mutex<String>>,
}

impl CallerToken {
    fn subject(&self) -> String {
        self.subject.lock().expect("subject lock").clone()
    }
}

impl TokenProvider for CallerToken {
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>> {
        Box::pin(async move {
            let subject = self.subject();
            match &self.identity {
                Identity::Exchange(x) => x.token(&subject).await.map(Some),
                Identity::PassThrough { .. } => Ok(Some(subject)),
            }
        })
    }

    fn unauthorized<'a>(
        &'a self,
        _challenge: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, ClientError>> {
        Box::pin(async move {
            match &self.identity {
                // Revoked or expired early: one new exchange (the transport retries once).
                Identity::Exchange(x) => {
                    x.forget(&self.subject());
                    Ok(true)
                }
                Identity::PassThrough { .. } => Ok(false),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_audience_of_a_jwt_is_read_as_a_string_or_a_list() {
        let jwt = |claims: Value| {
            let b64 = |v: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(v);
            format!("{}.{}.sig", b64(b"{}"), b64(claims.to_string().as_bytes()))
        };
        let one = jwt(serde_json::json!({"aud": "https://up.example/mcp"}));
        assert_eq!(audiences(&one), ["https://up.example/mcp"]);
        let two = jwt(serde_json::json!({"aud": ["a", "b"]}));
        assert_eq!(audiences(&two), ["a", "b"]);
        assert!(audiences("opaque-token").is_empty());
    }
}
