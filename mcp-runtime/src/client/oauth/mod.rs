//! The OAuth 2.1 client of the MCP authorization spec (2025-06-18 and later, with the
//! 2025-03-26 fallbacks and the 2026-07-28 additions).
//!
//! [`OAuth`] is a [`TokenProvider`]: give it to
//! [`ClientBuilder::token_provider`](super::ClientBuilder::token_provider) and the first
//! `401` starts the flow:
//!
//! 1. protected-resource metadata (RFC 9728): the challenge's `resource_metadata`, else the
//!    path-suffixed then the root well-known URL; its `resource` must cover the server URL;
//! 2. the authorization server's metadata (RFC 8414 path insertion, OpenID Connect
//!    Discovery in both forms), whose `issuer` must be the one asked for. Without
//!    protected-resource metadata (2025-03-26 servers) the server's origin is the
//!    authorization server: its root metadata, else the default `/authorize`, `/token`,
//!    `/register` endpoints;
//! 3. the client's identity for that issuer: pre-registered credentials, else a Client ID
//!    Metadata Document URL when the server supports them, else dynamic registration
//!    (RFC 7591); registrations are remembered per issuer;
//! 4. the authorization request with PKCE `S256` (refused when the server does not list
//!    it), `state`, the RFC 8707 `resource` and the scopes: the challenge's `scope`, else
//!    the resource's `scopes_supported`, else none (plus `offline_access` when wanted and
//!    offered). The [`AuthorizationHandler`] takes the user there and back; the response's
//!    `state` and `iss` (RFC 9207) are checked;
//! 5. the token request, authenticated as the server allows (`client_secret_basic`,
//!    `client_secret_post`, `none`, and with feature `oauth-signing` `private_key_jwt`),
//!    with a DPoP proof when a DPoP key is configured and the server offers DPoP; the
//!    tokens go to the [`TokenStore`].
//!
//! Later `401`s refresh the token when a refresh token from the same issuer exists; a
//! `403` with `insufficient_scope` re-authorizes with the union of the scopes asked so far
//! and the challenged ones (at most [`OAuthBuilder::max_step_ups`] times in a row, and
//! never for scopes already granted). The `client_credentials` grant (the MCP extension
//! for machine clients) replaces steps 3–4 with [`OAuthBuilder::client_credentials_grant`].
//!
//! ```no_run
//! # async fn demo() -> Result<(), mcp_runtime::client::ClientError> {
//! use mcp_runtime::client::Client;
//! use mcp_runtime::client::oauth::OAuth;
//!
//! let url = "http://127.0.0.1:8080/mcp";
//! let oauth = OAuth::builder(url)
//!     .redirect_uri("http://127.0.0.1:8765/callback")
//!     .client_name("my agent")
//!     .build()?;
//! let client = Client::builder().token_provider(oauth).connect_http(url).await?;
//! # let _ = client; Ok(()) }
//! ```

#[cfg(feature = "oauth-signing")]
mod assertion;
mod builder;
mod discovery;
#[cfg(feature = "oauth-signing")]
mod dpop;
mod grants;
mod identity;
mod pkce;
mod redirect;
#[cfg(feature = "oauth-signing")]
mod signing;
mod store;
mod wire;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use super::error::ClientError;
#[cfg(feature = "oauth-signing")]
use super::http::Credentials;
use super::http::{BoxFuture, TokenProvider};
use discovery::{ResourceMetadata, first_document, split_scopes};
use wire::{Url, Wire};

pub use builder::{ClientSecret, IdentityAssertion, OAuthBuilder, TokenExchange};
pub use discovery::{Challenge, ServerMetadata};
use grants::Grant;
use identity::Registration;
pub use redirect::{AuthorizationHandler, HeadlessRedirect};
#[cfg(feature = "oauth-signing")]
pub use signing::{SigningAlgorithm, SigningKey};
pub use store::{MemoryTokenStore, TokenStore, Tokens};

/// The scope that asks for a refresh token (OpenID Connect; SEP-2207).
const OFFLINE_ACCESS: &str = "offline_access";

/// What discovery found for the server.
#[derive(Clone)]
struct Discovered {
    /// The `resource` parameter: the metadata's identifier, verbatim, or the server URL.
    resource: String,
    /// The resource's `scopes_supported`.
    resource_scopes: Option<Vec<String>>,
    /// The authorization server's metadata (or the 2025-03-26 defaults).
    meta: ServerMetadata,
    /// Whether `meta` came from a document (the defaults skip the PKCE listing check).
    documented: bool,
}

/// The state of the flow across requests (one runs at a time: `Inner::flow` is locked).
#[derive(Default)]
struct Flow {
    /// Every scope asked for so far (step-up asks for the union).
    requested: Vec<String>,
    registrations: HashMap<String, Registration>,
    last: Option<Discovered>,
    step_ups: u32,
}

/// An OAuth 2.1 [`TokenProvider`] for one MCP server (see the [module docs](self)).
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<Inner>,
}

/// What every clone of an [`OAuth`] shares.
struct Inner {
    server: Url,
    /// The server URL as given (the token store's key; the `resource` fallback).
    server_url: String,
    redirect_uri: String,
    client_name: String,
    client_metadata_url: Option<String>,
    pre_registered: Vec<ClientSecret>,
    grant: Grant,
    offline_access: bool,
    max_step_ups: u32,
    store: Arc<dyn TokenStore>,
    handler: Arc<dyn AuthorizationHandler>,
    wire: Wire,
    flow: tokio::sync::Mutex<Flow>,
    /// The `private_key_jwt` key.
    #[cfg(feature = "oauth-signing")]
    client_key: Option<SigningKey>,
    #[cfg(feature = "oauth-signing")]
    dpop: Option<dpop::Dpop>,
}

impl OAuth {
    /// The tokens held for the server.
    pub fn tokens(&self) -> Option<Tokens> {
        self.inner.store.load(&self.inner.server_url)
    }

    /// Runs the whole flow now, as a `401` without a challenge would.
    pub async fn authorize(&self) -> Result<(), ClientError> {
        self.inner.unauthorized(&Challenge::default()).await
    }

    /// RFC 8693 token exchange: `subject_token`, an access token issued to someone else
    /// (the caller of a gateway), traded at the server's authorization server for an
    /// access token for the server, our client authenticating with the credentials of its
    /// [`OAuthBuilder::client_credentials_grant`] (else its [`OAuthBuilder::pre_registered`]
    /// ones). The authorization server is discovered as for the other grants (once, shared
    /// with them). The tokens are returned, not stored: they act for the subject, not for
    /// us.
    pub async fn exchange_token(
        &self,
        subject_token: &str,
        exchange: &TokenExchange,
    ) -> Result<Tokens, ClientError> {
        self.inner.token_exchange(subject_token, exchange).await
    }
}

impl std::fmt::Debug for OAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth")
            .field("server", &self.inner.server_url)
            .finish_non_exhaustive()
    }
}

impl TokenProvider for OAuth {
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>> {
        Box::pin(async move {
            let Some(t) = self.tokens() else {
                return Ok(None);
            };
            let margin = Duration::from_secs(30);
            if !t.expires_within(margin) || t.refresh_token.is_none() {
                return Ok(Some(t.access_token));
            }
            let mut flow = self.inner.flow.lock().await;
            // Another request may have refreshed while this one waited for the lock.
            let Some(t) = self.tokens() else {
                return Ok(None);
            };
            if t.expires_within(margin)
                && t.refresh_token.is_some()
                && let Some(d) = flow.last.clone()
                && let Ok(fresh) = self.inner.refresh(&mut flow, &d, &t).await
            {
                return Ok(Some(fresh.access_token));
            }
            Ok(Some(t.access_token))
        })
    }

    fn unauthorized<'a>(
        &'a self,
        challenge: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, ClientError>> {
        Box::pin(async move {
            let c = challenge.map(Challenge::parse).unwrap_or_default();
            self.inner.unauthorized(&c).await.map(|()| true)
        })
    }

    fn forbidden<'a>(
        &'a self,
        challenge: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, ClientError>> {
        Box::pin(async move {
            let c = challenge.map(Challenge::parse).unwrap_or_default();
            self.inner.step_up(&c).await
        })
    }

    #[cfg(feature = "oauth-signing")]
    fn credentials<'a>(
        &'a self,
        method: &'a hyper::Method,
        url: &'a hyper::Uri,
    ) -> BoxFuture<'a, Result<Option<Credentials>, ClientError>> {
        Box::pin(async move {
            let Some(token) = self.token().await? else {
                return Ok(None);
            };
            let bound = self
                .tokens()
                .is_some_and(|t| t.dpop && t.access_token == token);
            match &self.inner.dpop {
                Some(d) if bound => {
                    let proof = d.proof(method.as_str(), &url.to_string(), Some(&token))?;
                    let proof = hyper::header::HeaderValue::from_str(&proof)
                        .map_err(|e| ClientError::Encode(format!("DPoP proof: {e}")))?;
                    Ok(Some(Credentials {
                        authorization: format!("DPoP {token}"),
                        headers: vec![(hyper::header::HeaderName::from_static("dpop"), proof)],
                    }))
                }
                _ => Ok(Some(Credentials::bearer(token))),
            }
        })
    }

    #[cfg(feature = "oauth-signing")]
    fn on_response(
        &self,
        url: &hyper::Uri,
        status: hyper::StatusCode,
        headers: &hyper::HeaderMap,
    ) -> bool {
        self.inner
            .dpop
            .as_ref()
            .is_some_and(|d| d.resource_answer_wants_retry(&url.to_string(), status, headers))
    }
}

impl Inner {
    async fn unauthorized(&self, challenge: &Challenge) -> Result<(), ClientError> {
        let mut flow = self.flow.lock().await;
        flow.step_ups = 0;
        let d = self.discover(challenge).await?;
        flow.last = Some(d.clone());
        if !matches!(self.grant, Grant::AuthorizationCode) {
            let scopes = self.scopes(&flow, challenge, &d);
            return self.machine_grant(&mut flow, &d, &scopes).await;
        }
        // A refresh token of this very issuer is tried first (an expired access token).
        if let Some(t) = self.store.load(&self.server_url)
            && t.refresh_token.is_some()
            && t.issuer == d.meta.issuer
            && self.refresh(&mut flow, &d, &t).await.is_ok()
        {
            return Ok(());
        }
        let scopes = self.scopes(&flow, challenge, &d);
        self.authorization_code(&mut flow, &d, scopes).await
    }

    /// `403`: re-authorize for more scopes when the challenge asks for ones not granted.
    async fn step_up(&self, challenge: &Challenge) -> Result<bool, ClientError> {
        if challenge.error.as_deref() != Some("insufficient_scope") {
            return Ok(false);
        }
        let mut flow = self.flow.lock().await;
        let wanted = challenge.scopes();
        let granted: Vec<String> = self
            .store
            .load(&self.server_url)
            .and_then(|t| t.scope)
            .map(|s| split_scopes(Some(&s)))
            .unwrap_or_else(|| flow.requested.clone());
        if wanted.is_empty() || wanted.iter().all(|s| granted.contains(s)) {
            // Asking again for what was granted cannot help.
            tracing::debug!(?wanted, "insufficient_scope for scopes already granted");
            return Ok(false);
        }
        if flow.step_ups >= self.max_step_ups {
            tracing::debug!("step-up limit reached");
            return Ok(false);
        }
        flow.step_ups += 1;
        let d = self.discover(challenge).await?;
        flow.last = Some(d.clone());
        let scopes = self.scopes(&flow, challenge, &d);
        if matches!(self.grant, Grant::AuthorizationCode) {
            self.authorization_code(&mut flow, &d, scopes).await?;
        } else {
            self.machine_grant(&mut flow, &d, &scopes).await?;
        }
        Ok(true)
    }

    /// The scopes to ask for: the challenge's, else the resource's `scopes_supported`,
    /// else none; with those asked before, and `offline_access` when wanted and offered
    /// (and never when the authorization server does not list it).
    fn scopes(&self, flow: &Flow, challenge: &Challenge, d: &Discovered) -> Vec<String> {
        let mut fresh = challenge.scopes();
        if fresh.is_empty() {
            fresh = d.resource_scopes.clone().unwrap_or_default();
        }
        let mut scopes = flow.requested.clone();
        for s in fresh {
            if !scopes.contains(&s) {
                scopes.push(s);
            }
        }
        let offered = d
            .meta
            .scopes_supported
            .as_ref()
            .map(|l| l.iter().any(|s| s == OFFLINE_ACCESS));
        match offered {
            Some(true) if self.offline_access && !scopes.iter().any(|s| s == OFFLINE_ACCESS) => {
                scopes.push(OFFLINE_ACCESS.into());
            }
            Some(false) => scopes.retain(|s| s != OFFLINE_ACCESS),
            _ => {}
        }
        scopes
    }

    async fn discover(&self, challenge: &Challenge) -> Result<Discovered, ClientError> {
        let urls = discovery::resource_metadata_urls(&self.server, challenge);
        let Some((url, doc)) = first_document(&self.wire, &urls).await? else {
            return self.discover_legacy().await;
        };
        let prm: ResourceMetadata = discovery::decode("protected resource metadata", &url, doc)?;
        let resource = Url::parse(&prm.resource).map_err(|_| {
            ClientError::Auth(format!(
                "the protected resource metadata at {url} names an unusable resource {:?}",
                prm.resource
            ))
        })?;
        if !resource.covers(&self.server) {
            return Err(ClientError::Auth(format!(
                "the protected resource metadata at {url} is for {:?}, not for {}",
                prm.resource, self.server_url
            )));
        }
        let issuer = prm.authorization_servers.first().ok_or_else(|| {
            ClientError::Auth(format!(
                "the protected resource metadata at {url} names no authorization server"
            ))
        })?;
        let meta = self.server_metadata(issuer).await?.ok_or_else(|| {
            ClientError::Auth(format!("no authorization server metadata for {issuer}"))
        })?;
        Ok(Discovered {
            resource: prm.resource,
            resource_scopes: prm.scopes_supported,
            meta,
            documented: true,
        })
    }

    /// The metadata of `issuer`, whose `issuer` must be exactly that (RFC 8414 §3.3).
    async fn server_metadata(&self, issuer: &str) -> Result<Option<ServerMetadata>, ClientError> {
        let urls = discovery::server_metadata_urls(&Url::parse(issuer)?);
        let Some((url, doc)) = first_document(&self.wire, &urls).await? else {
            return Ok(None);
        };
        let meta: ServerMetadata = discovery::decode("authorization server metadata", &url, doc)?;
        if meta.issuer != issuer {
            return Err(ClientError::Auth(format!(
                "the metadata at {url} is for issuer {:?}, not {issuer:?}",
                meta.issuer
            )));
        }
        Ok(Some(meta))
    }

    /// No protected-resource metadata (2025-03-26): the server's origin is the
    /// authorization server; its root metadata, else the default endpoints.
    async fn discover_legacy(&self) -> Result<Discovered, ClientError> {
        let origin = &self.server.origin;
        let root = Url::parse(origin)?;
        let urls = discovery::server_metadata_urls(&root);
        // 2025-03-26 names the authorization server by the MCP server's origin, not by an
        // issuer: the document's `issuer` is not compared (servers of that time put their
        // own path there).
        let meta = match first_document(&self.wire, &urls).await? {
            Some((url, doc)) => Some(discovery::decode::<ServerMetadata>(
                "authorization server metadata",
                &url,
                doc,
            )?),
            None => None,
        };
        let documented = meta.is_some();
        Ok(Discovered {
            resource: self.server_url.clone(),
            resource_scopes: None,
            meta: meta.unwrap_or_else(|| ServerMetadata::defaults(origin)),
            documented,
        })
    }
}
