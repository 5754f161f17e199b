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
mod discovery;
#[cfg(feature = "oauth-signing")]
mod dpop;
mod pkce;
mod redirect;
#[cfg(feature = "oauth-signing")]
mod signing;
mod store;
mod wire;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use hyper_util::client::legacy::connect::{Connect, HttpConnector};
use serde_json::{Value, json};

use super::error::ClientError;
#[cfg(feature = "oauth-signing")]
use super::http::Credentials;
use super::http::{BoxFuture, HttpSend, TokenProvider, sender_for};
use discovery::{ResourceMetadata, first_document, split_scopes};
use wire::{Url, Wire, basic_auth, with_query};

pub use discovery::{Challenge, ServerMetadata};
pub use redirect::{AuthorizationHandler, HeadlessRedirect};
#[cfg(feature = "oauth-signing")]
pub use signing::{SigningAlgorithm, SigningKey};
pub use store::{MemoryTokenStore, TokenStore, Tokens};

/// The scope that asks for a refresh token (OpenID Connect; SEP-2207).
const OFFLINE_ACCESS: &str = "offline_access";

/// Client credentials: a client id and, for confidential clients, a secret.
#[derive(Clone, PartialEq, Eq)]
pub struct ClientSecret {
    /// The client id.
    pub client_id: String,
    /// The client secret (`None`: a public client).
    pub client_secret: Option<String>,
    /// The issuer they were registered with (`None`: any).
    pub issuer: Option<String>,
}

impl ClientSecret {
    /// Credentials valid at any authorization server.
    pub fn new(client_id: impl Into<String>, client_secret: Option<String>) -> ClientSecret {
        ClientSecret {
            client_id: client_id.into(),
            client_secret,
            issuer: None,
        }
    }

    /// The same credentials, only for this issuer.
    pub fn for_issuer(mut self, issuer: impl Into<String>) -> ClientSecret {
        self.issuer = Some(issuer.into());
        self
    }

    fn fits(&self, issuer: &str) -> bool {
        self.issuer.as_deref().is_none_or(|i| i == issuer)
    }
}

impl std::fmt::Debug for ClientSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSecret")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| ".."))
            .field("issuer", &self.issuer)
            .finish()
    }
}

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AuthMethod {
    Basic,
    Post,
    None,
    /// A JWT assertion signed with the client's key (RFC 7523 §2.2, OIDC `private_key_jwt`).
    #[cfg(feature = "oauth-signing")]
    PrivateKeyJwt,
}

impl AuthMethod {
    fn parse(s: &str) -> Option<AuthMethod> {
        match s {
            "client_secret_basic" => Some(AuthMethod::Basic),
            "client_secret_post" => Some(AuthMethod::Post),
            "none" => Some(AuthMethod::None),
            _ => None,
        }
    }

    /// What a client with (or without) a secret or a signing key uses among what the
    /// server supports (RFC 8414: `client_secret_basic` when the server lists nothing). A
    /// key is used when the server lists `private_key_jwt`, or lists nothing and there is
    /// no secret.
    fn choose(meta: &ServerMetadata, has_secret: bool, has_key: bool) -> AuthMethod {
        let listed_list = meta.token_endpoint_auth_methods_supported.as_ref();
        #[cfg(feature = "oauth-signing")]
        if has_key && listed_list.map_or(!has_secret, |l| l.iter().any(|x| x == "private_key_jwt"))
        {
            return AuthMethod::PrivateKeyJwt;
        }
        let _ = has_key;
        if !has_secret {
            return AuthMethod::None;
        }
        let listed = |m: &str| listed_list.is_none_or(|l| l.iter().any(|x| x == m));
        if listed("client_secret_basic") {
            AuthMethod::Basic
        } else if listed("client_secret_post") {
            AuthMethod::Post
        } else {
            AuthMethod::Basic
        }
    }
}

/// The client's identity at one authorization server.
#[derive(Clone)]
struct Registration {
    client_id: String,
    client_secret: Option<String>,
    method: AuthMethod,
}

impl Registration {
    /// The form fields and `Authorization` header that authenticate the client with a
    /// secret (or as a public client). `None` for `private_key_jwt`, which
    /// [`Inner::authenticate`] signs.
    fn authenticate(&self, form: &mut Vec<(&'static str, String)>) -> Option<Option<String>> {
        match (self.method, &self.client_secret) {
            #[cfg(feature = "oauth-signing")]
            (AuthMethod::PrivateKeyJwt, _) => None,
            (AuthMethod::Basic, Some(secret)) => Some(Some(basic_auth(&self.client_id, secret))),
            (AuthMethod::Post, Some(secret)) => {
                form.push(("client_id", self.client_id.clone()));
                form.push(("client_secret", secret.clone()));
                Some(None)
            }
            _ => {
                form.push(("client_id", self.client_id.clone()));
                Some(None)
            }
        }
    }
}

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

#[derive(Default)]
struct Flow {
    /// Every scope asked for so far (step-up asks for the union).
    requested: Vec<String>,
    registrations: HashMap<String, Registration>,
    last: Option<Discovered>,
    step_ups: u32,
}

enum Grant {
    AuthorizationCode,
    ClientCredentials(ClientSecret),
    JwtBearer {
        assertion: String,
        client_id: String,
    },
    IdentityAssertion(IdentityAssertion),
}

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
#[cfg(feature = "oauth-signing")]
const CLIENT_ASSERTION_JWT: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";

/// Enterprise-managed authorization (the MCP extension, SEP-990): the user's ID token from
/// the enterprise identity provider is exchanged there (RFC 8693) for an identity
/// assertion grant (ID-JAG) for the MCP server's authorization server, which is then
/// redeemed with the JWT-bearer grant (RFC 7523).
#[derive(Clone)]
pub struct IdentityAssertion {
    /// The identity provider's token endpoint.
    pub idp_token_endpoint: String,
    /// The user's ID token from the identity provider.
    pub id_token: String,
    /// This client at the identity provider (its secret, if confidential).
    pub idp_client: ClientSecret,
    /// This client at the MCP server's authorization server.
    pub client: ClientSecret,
}

impl std::fmt::Debug for IdentityAssertion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IdentityAssertion")
            .field("idp_token_endpoint", &self.idp_token_endpoint)
            .field("idp_client", &self.idp_client)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

/// Configures an [`OAuth`] provider.
pub struct OAuthBuilder {
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
    send: Option<Arc<dyn HttpSend>>,
    #[cfg(feature = "oauth-signing")]
    client_key: Option<SigningKey>,
    #[cfg(feature = "oauth-signing")]
    dpop_key: Option<SigningKey>,
}

impl OAuthBuilder {
    /// The redirect URI (registered with the authorization server; default
    /// `http://127.0.0.1:8765/callback`).
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = uri.into();
        self
    }

    /// The `client_name` of dynamic registration.
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// The `https` URL of this client's Client ID Metadata Document, used as the
    /// `client_id` at servers that advertise `client_id_metadata_document_supported`.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Pre-registered credentials (tried before metadata documents and registration;
    /// give several with [`ClientSecret::for_issuer`] for several servers).
    pub fn pre_registered(mut self, credentials: ClientSecret) -> Self {
        self.pre_registered.push(credentials);
        self
    }

    /// Use the `client_credentials` grant with these credentials (machine-to-machine, no
    /// user, no redirect) instead of the authorization code flow.
    pub fn client_credentials_grant(mut self, credentials: ClientSecret) -> Self {
        self.grant = Grant::ClientCredentials(credentials);
        self
    }

    /// Use the JWT-bearer grant (RFC 7523) with an assertion this client already holds
    /// (workload identity federation: a platform-issued JWT whose audience is the
    /// authorization server), as the public client `client_id`. A refused assertion is
    /// an error; the flow never falls back to another grant.
    pub fn jwt_bearer_grant(
        mut self,
        assertion: impl Into<String>,
        client_id: impl Into<String>,
    ) -> Self {
        self.grant = Grant::JwtBearer {
            assertion: assertion.into(),
            client_id: client_id.into(),
        };
        self
    }

    /// Authenticate this client at the token endpoint with `private_key_jwt` (RFC 7523
    /// §2.2): a short-lived JWT signed with `key` (`iss` = `sub` = the client id, `aud` =
    /// the authorization server's issuer, `iat`, `exp` a minute later, a unique `jti`),
    /// wherever the server lists `private_key_jwt` (or lists no methods and the client has
    /// no secret). For pre-registered clients and the `client_credentials` grant, whose
    /// public key the authorization server knows. Feature `oauth-signing`.
    ///
    /// ```
    /// use mcp_runtime::client::oauth::{ClientSecret, OAuth, SigningKey};
    ///
    /// # fn demo(pem: &str) -> Result<(), mcp_runtime::client::ClientError> {
    /// let oauth = OAuth::builder("http://127.0.0.1:8080/mcp")
    ///     .client_credentials_grant(ClientSecret::new("my-service", None))
    ///     .private_key_jwt(SigningKey::from_pem(pem)?)
    ///     .build()?;
    /// # let _ = oauth; Ok(()) }
    /// ```
    #[cfg(feature = "oauth-signing")]
    pub fn private_key_jwt(mut self, key: SigningKey) -> Self {
        self.client_key = Some(key);
        self
    }

    /// Ask for DPoP-bound access tokens (RFC 9449) with this key — typically
    /// [`SigningKey::generate_es256`], a fresh key per client — from authorization
    /// servers that list its algorithm in `dpop_signing_alg_values_supported` (others get
    /// plain requests and issue bearer tokens). Every token request then carries a proof;
    /// a token issued as `token_type: DPoP` goes out as `Authorization: DPoP` with a fresh
    /// proof (`ath` included) on every request to the MCP server. A `use_dpop_nonce` error
    /// from either server is answered once, at once, with the nonce it sent; nonces on
    /// later answers replace the old ones. Feature `oauth-signing`.
    ///
    /// ```
    /// use mcp_runtime::client::oauth::{OAuth, SigningKey};
    ///
    /// # fn demo() -> Result<(), mcp_runtime::client::ClientError> {
    /// let oauth = OAuth::builder("http://127.0.0.1:8080/mcp")
    ///     .dpop(SigningKey::generate_es256())
    ///     .build()?;
    /// # let _ = oauth; Ok(()) }
    /// ```
    #[cfg(feature = "oauth-signing")]
    pub fn dpop(mut self, key: SigningKey) -> Self {
        self.dpop_key = Some(key);
        self
    }

    /// Use enterprise-managed authorization ([`IdentityAssertion`]) instead of the
    /// authorization code flow.
    pub fn identity_assertion_grant(mut self, grant: IdentityAssertion) -> Self {
        self.grant = Grant::IdentityAssertion(grant);
        self
    }

    /// Ask for a refresh token with the `offline_access` scope when the authorization
    /// server lists it (default: no).
    pub fn offline_access(mut self, wanted: bool) -> Self {
        self.offline_access = wanted;
        self
    }

    /// How many `403 insufficient_scope` re-authorizations may follow one another
    /// (default 2).
    pub fn max_step_ups(mut self, n: u32) -> Self {
        self.max_step_ups = n;
        self
    }

    /// Where tokens are kept (default: [`MemoryTokenStore`]).
    pub fn token_store(mut self, store: impl TokenStore) -> Self {
        self.store = Arc::new(store);
        self
    }

    /// Who takes the user to the authorization endpoint and back (default:
    /// [`HeadlessRedirect`], which only works with servers that approve at once).
    pub fn authorization_handler(mut self, handler: impl AuthorizationHandler) -> Self {
        self.handler = Arc::new(handler);
        self
    }

    /// The connector for the metadata, registration and token requests (default: plain
    /// TCP, `http://` only).
    pub fn http_connector<C>(mut self, connector: C) -> Self
    where
        C: Connect + Clone + Send + Sync + 'static,
    {
        self.send = Some(sender_for(connector));
        self
    }

    /// The provider. Fails when the server URL is not an absolute `http(s)` URL.
    pub fn build(self) -> Result<OAuth, ClientError> {
        let server = Url::parse(&self.server_url)?;
        let send = self
            .send
            .unwrap_or_else(|| sender_for(HttpConnector::new()));
        Ok(OAuth {
            inner: Arc::new(Inner {
                server,
                server_url: self
                    .server_url
                    .split('#')
                    .next()
                    .unwrap_or_default()
                    .to_owned(),
                redirect_uri: self.redirect_uri,
                client_name: self.client_name,
                client_metadata_url: self.client_metadata_url,
                pre_registered: self.pre_registered,
                grant: self.grant,
                offline_access: self.offline_access,
                max_step_ups: self.max_step_ups,
                store: self.store,
                handler: self.handler,
                wire: Wire { send },
                flow: tokio::sync::Mutex::new(Flow::default()),
                #[cfg(feature = "oauth-signing")]
                client_key: self.client_key,
                #[cfg(feature = "oauth-signing")]
                dpop: self.dpop_key.map(dpop::Dpop::new),
            }),
        })
    }
}

/// An OAuth 2.1 [`TokenProvider`] for one MCP server (see the [module docs](self)).
#[derive(Clone)]
pub struct OAuth {
    inner: Arc<Inner>,
}

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
    /// A builder for the MCP server at `server_url`.
    pub fn builder(server_url: impl Into<String>) -> OAuthBuilder {
        OAuthBuilder {
            server_url: server_url.into(),
            redirect_uri: "http://127.0.0.1:8765/callback".into(),
            client_name: "mcp-rust-client".into(),
            client_metadata_url: None,
            pre_registered: Vec::new(),
            grant: Grant::AuthorizationCode,
            offline_access: false,
            max_step_ups: 2,
            store: Arc::new(MemoryTokenStore::default()),
            handler: Arc::new(HeadlessRedirect::new()),
            send: None,
            #[cfg(feature = "oauth-signing")]
            client_key: None,
            #[cfg(feature = "oauth-signing")]
            dpop_key: None,
        }
    }

    /// The tokens held for the server.
    pub fn tokens(&self) -> Option<Tokens> {
        self.inner.store.load(&self.inner.server_url)
    }

    /// Runs the whole flow now, as a `401` without a challenge would.
    pub async fn authorize(&self) -> Result<(), ClientError> {
        self.inner.unauthorized(&Challenge::default()).await
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

    // -----------------------------------------------------------------------------------
    // Discovery
    // -----------------------------------------------------------------------------------

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

    // -----------------------------------------------------------------------------------
    // The client's identity
    // -----------------------------------------------------------------------------------

    async fn registration(
        &self,
        flow: &mut Flow,
        meta: &ServerMetadata,
    ) -> Result<Registration, ClientError> {
        if let Some(r) = flow.registrations.get(&meta.issuer) {
            return Ok(r.clone());
        }
        let r = if let Some(c) = self.pre_registered.iter().find(|c| c.fits(&meta.issuer)) {
            Registration {
                client_id: c.client_id.clone(),
                client_secret: c.client_secret.clone(),
                method: AuthMethod::choose(meta, c.client_secret.is_some(), self.has_client_key()),
            }
        } else if let (Some(true), Some(url)) = (
            meta.client_id_metadata_document_supported,
            &self.client_metadata_url,
        ) {
            Registration {
                client_id: url.clone(),
                client_secret: None,
                method: AuthMethod::None,
            }
        } else if let Some(endpoint) = &meta.registration_endpoint {
            self.register(endpoint, meta).await?
        } else {
            return Err(ClientError::Auth(format!(
                "{} offers no dynamic registration and no credentials are configured for it",
                meta.issuer
            )));
        };
        flow.registrations.insert(meta.issuer.clone(), r.clone());
        Ok(r)
    }

    /// Dynamic client registration (RFC 7591).
    async fn register(
        &self,
        endpoint: &str,
        meta: &ServerMetadata,
    ) -> Result<Registration, ClientError> {
        let supported = |m: &str| {
            meta.token_endpoint_auth_methods_supported
                .as_ref()
                .is_none_or(|l| l.iter().any(|x| x == m))
        };
        let method = ["none", "client_secret_basic", "client_secret_post"]
            .into_iter()
            .find(|m| supported(m))
            .unwrap_or("client_secret_basic");
        let body = json!({
            "client_name": self.client_name,
            "redirect_uris": [self.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": application_type(&self.redirect_uri),
        });
        let answer = self.wire.post_json(endpoint, &body).await?;
        if !answer.status.is_success() {
            return Err(token_error("client registration", &answer));
        }
        let v = answer.json("client registration")?;
        let client_id = v
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| ClientError::Auth("the registration answer has no client_id".into()))?
            .to_owned();
        let client_secret = v
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let method = v
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .and_then(AuthMethod::parse)
            .unwrap_or_else(|| AuthMethod::choose(meta, client_secret.is_some(), false));
        Ok(Registration {
            client_id,
            client_secret,
            method,
        })
    }

    // -----------------------------------------------------------------------------------
    // Grants
    // -----------------------------------------------------------------------------------

    async fn authorization_code(
        &self,
        flow: &mut Flow,
        d: &Discovered,
        scopes: Vec<String>,
    ) -> Result<(), ClientError> {
        let meta = &d.meta;
        if d.documented
            && !meta
                .code_challenge_methods_supported
                .as_ref()
                .is_some_and(|l| l.iter().any(|m| m == "S256"))
        {
            return Err(ClientError::Auth(format!(
                "{} does not list PKCE S256 in code_challenge_methods_supported",
                meta.issuer
            )));
        }
        let (Some(authorize), Some(token)) = (&meta.authorization_endpoint, &meta.token_endpoint)
        else {
            return Err(ClientError::Auth(format!(
                "{} has no authorization or token endpoint",
                meta.issuer
            )));
        };
        let reg = self.registration(flow, meta).await?;
        let pkce = pkce::Pkce::new();
        let state = pkce::random_token(16);
        let scope = scopes.join(" ");
        let mut params: Vec<(&str, &str)> = vec![
            ("response_type", "code"),
            ("client_id", &reg.client_id),
            ("redirect_uri", &self.redirect_uri),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("state", &state),
            ("resource", &d.resource),
        ];
        if !scope.is_empty() {
            params.push(("scope", &scope));
        }
        let redirect = self
            .handler
            .authorize(with_query(authorize, &params))
            .await?;
        let cb = redirect::parse_callback(&redirect)?;
        if cb.state.as_deref() != Some(state.as_str()) {
            return Err(ClientError::Auth(
                "the authorization response's state is not the one sent".into(),
            ));
        }
        // RFC 9207: an `iss` must be the issuer, compared as strings; one the server
        // promised must be there.
        match &cb.iss {
            Some(iss) if *iss != meta.issuer => {
                return Err(ClientError::Auth(format!(
                    "the authorization response comes from issuer {iss:?}, not {:?}",
                    meta.issuer
                )));
            }
            None if meta.authorization_response_iss_parameter_supported == Some(true) => {
                return Err(ClientError::Auth(
                    "the authorization response lacks the iss its server advertises".into(),
                ));
            }
            _ => {}
        }
        let form: Vec<(&'static str, String)> = vec![
            ("grant_type", "authorization_code".into()),
            ("code", cb.code),
            ("redirect_uri", self.redirect_uri.clone()),
            ("code_verifier", pkce.verifier),
            ("resource", d.resource.clone()),
        ];
        let tokens = self
            .token_request(token, &reg, &form, meta, &scope, None)
            .await?;
        flow.requested = scopes;
        self.store.save(&self.server_url, Some(tokens));
        Ok(())
    }

    async fn refresh(
        &self,
        flow: &mut Flow,
        d: &Discovered,
        old: &Tokens,
    ) -> Result<Tokens, ClientError> {
        let (Some(refresh), Some(token)) = (&old.refresh_token, &d.meta.token_endpoint) else {
            return Err(ClientError::Auth("nothing to refresh with".into()));
        };
        if old.issuer != d.meta.issuer {
            return Err(ClientError::Auth(
                "the refresh token belongs to another issuer".into(),
            ));
        }
        let reg = self.registration(flow, &d.meta).await?;
        let form: Vec<(&'static str, String)> = vec![
            ("grant_type", "refresh_token".into()),
            ("refresh_token", refresh.clone()),
            ("resource", d.resource.clone()),
        ];
        let scope = old.scope.clone().unwrap_or_default();
        let res = self
            .token_request(token, &reg, &form, &d.meta, &scope, Some(refresh))
            .await;
        match res {
            Ok(t) => {
                self.store.save(&self.server_url, Some(t.clone()));
                Ok(t)
            }
            Err(e) => {
                // A refused refresh token is dead: forget it, keep the rest.
                let mut kept = old.clone();
                kept.refresh_token = None;
                self.store.save(&self.server_url, Some(kept));
                Err(e)
            }
        }
    }

    /// The grants without a user: `client_credentials`, JWT-bearer, enterprise-managed.
    async fn machine_grant(
        &self,
        flow: &mut Flow,
        d: &Discovered,
        scopes: &[String],
    ) -> Result<(), ClientError> {
        let token =
            d.meta.token_endpoint.as_ref().ok_or_else(|| {
                ClientError::Auth(format!("{} has no token endpoint", d.meta.issuer))
            })?;
        let confidential = |c: &ClientSecret| Registration {
            client_id: c.client_id.clone(),
            client_secret: c.client_secret.clone(),
            method: AuthMethod::choose(&d.meta, c.client_secret.is_some(), self.has_client_key()),
        };
        let scope = scopes.join(" ");
        let (reg, mut form): (Registration, Vec<(&'static str, String)>) = match &self.grant {
            Grant::AuthorizationCode => {
                return Err(ClientError::Auth(
                    "the authorization code grant needs a user".into(),
                ));
            }
            Grant::ClientCredentials(c) => (
                confidential(c),
                vec![("grant_type", "client_credentials".into())],
            ),
            Grant::JwtBearer {
                assertion,
                client_id,
            } => (
                Registration {
                    client_id: client_id.clone(),
                    client_secret: None,
                    method: AuthMethod::None,
                },
                vec![
                    ("grant_type", JWT_BEARER.into()),
                    ("assertion", assertion.clone()),
                ],
            ),
            Grant::IdentityAssertion(g) => {
                let jag = self.exchange_id_token(g, d, &scope).await?;
                (
                    confidential(&g.client),
                    vec![("grant_type", JWT_BEARER.into()), ("assertion", jag)],
                )
            }
        };
        form.push(("resource", d.resource.clone()));
        if !scope.is_empty() {
            form.push(("scope", scope.clone()));
        }
        let tokens = self
            .token_request(token, &reg, &form, &d.meta, &scope, None)
            .await?;
        flow.requested = scopes.to_vec();
        self.store.save(&self.server_url, Some(tokens));
        Ok(())
    }

    /// RFC 8693 at the identity provider: the ID token for an ID-JAG whose audience is the
    /// authorization server and whose resource is this MCP server.
    async fn exchange_id_token(
        &self,
        g: &IdentityAssertion,
        d: &Discovered,
        scope: &str,
    ) -> Result<String, ClientError> {
        let mut form: Vec<(&'static str, String)> = vec![
            ("grant_type", TOKEN_EXCHANGE.into()),
            ("subject_token", g.id_token.clone()),
            ("subject_token_type", ID_TOKEN.into()),
            ("requested_token_type", ID_JAG.into()),
            ("audience", d.meta.issuer.clone()),
            ("resource", d.resource.clone()),
        ];
        if !scope.is_empty() {
            form.push(("scope", scope.to_owned()));
        }
        let reg = Registration {
            client_id: g.idp_client.client_id.clone(),
            client_secret: g.idp_client.client_secret.clone(),
            method: if g.idp_client.client_secret.is_some() {
                AuthMethod::Basic
            } else {
                AuthMethod::None
            },
        };
        let headers: Vec<(&'static str, String)> = reg
            .authenticate(&mut form)
            .flatten()
            .map(|a| ("authorization", a))
            .into_iter()
            .collect();
        let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let answer = self
            .wire
            .post_form(&g.idp_token_endpoint, &pairs, &headers)
            .await?;
        if !answer.status.is_success() {
            return Err(token_error("the token exchange", &answer));
        }
        let v = answer.json("the token exchange")?;
        if v.get("issued_token_type").and_then(Value::as_str) != Some(ID_JAG) {
            return Err(ClientError::Auth(
                "the token exchange did not issue an identity assertion grant".into(),
            ));
        }
        v.get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| ClientError::Auth("the token exchange answer has no token".into()))
    }

    /// Whether a `private_key_jwt` key is configured.
    fn has_client_key(&self) -> bool {
        #[cfg(feature = "oauth-signing")]
        return self.client_key.is_some();
        #[cfg(not(feature = "oauth-signing"))]
        false
    }

    /// The client authentication of one token request: form fields and the headers
    /// (`Authorization` for `client_secret_basic`). A `private_key_jwt` assertion is made
    /// afresh for every request (its `jti` is single-use).
    fn authenticate(
        &self,
        reg: &Registration,
        form: &mut Vec<(&'static str, String)>,
        meta: &ServerMetadata,
    ) -> Result<Vec<(&'static str, String)>, ClientError> {
        if let Some(authorization) = reg.authenticate(form) {
            return Ok(authorization
                .map(|a| ("authorization", a))
                .into_iter()
                .collect());
        }
        #[cfg(feature = "oauth-signing")]
        if let Some(key) = &self.client_key {
            form.push(("client_id", reg.client_id.clone()));
            form.push(("client_assertion_type", CLIENT_ASSERTION_JWT.into()));
            form.push((
                "client_assertion",
                assertion::client_assertion(key, &reg.client_id, meta)?,
            ));
            return Ok(Vec::new());
        }
        let _ = meta;
        Err(ClientError::Auth(
            "private_key_jwt needs a signing key".into(),
        ))
    }

    /// The `DPoP` proof of a token request, when this server issues DPoP-bound tokens.
    #[cfg_attr(not(feature = "oauth-signing"), allow(unused_variables))]
    fn token_proof(
        &self,
        endpoint: &str,
        meta: &ServerMetadata,
    ) -> Result<Option<String>, ClientError> {
        #[cfg(feature = "oauth-signing")]
        if let Some(d) = self.dpop.as_ref().filter(|d| d.offered_by(meta)) {
            return d.proof("POST", endpoint, None).map(Some);
        }
        Ok(None)
    }

    /// Whether the token endpoint's answer is a `use_dpop_nonce` error to retry (its
    /// nonce is kept either way).
    #[cfg_attr(not(feature = "oauth-signing"), allow(unused_variables))]
    fn token_nonce_retry(&self, endpoint: &str, answer: &wire::Answer) -> bool {
        #[cfg(feature = "oauth-signing")]
        if let Some(d) = &self.dpop {
            return d.token_answer_wants_retry(
                endpoint,
                answer.status,
                &answer.headers,
                &answer.body,
            );
        }
        false
    }

    /// POSTs to the token endpoint; `asked` is the scope sent (the granted one when the
    /// answer names none); `old_refresh` is kept when a refresh answer has no new one.
    /// With DPoP, a `use_dpop_nonce` answer is retried once with the nonce it sent.
    async fn token_request(
        &self,
        endpoint: &str,
        reg: &Registration,
        form: &[(&'static str, String)],
        meta: &ServerMetadata,
        asked: &str,
        old_refresh: Option<&String>,
    ) -> Result<Tokens, ClientError> {
        let issuer = meta.issuer.as_str();
        let mut retried = false;
        let (answer, proved) = loop {
            let mut fields = form.to_vec();
            let mut headers = self.authenticate(reg, &mut fields, meta)?;
            let proof = self.token_proof(endpoint, meta)?;
            let proved = proof.is_some();
            if let Some(p) = proof {
                headers.push(("dpop", p));
            }
            let pairs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let answer = self.wire.post_form(endpoint, &pairs, &headers).await?;
            if !retried && self.token_nonce_retry(endpoint, &answer) {
                retried = true;
                continue;
            }
            break (answer, proved);
        };
        if !answer.status.is_success() {
            return Err(token_error("the token request", &answer));
        }
        let v = answer.json("the token request")?;
        let access_token = v
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| ClientError::Auth("the token answer has no access_token".into()))?
            .to_owned();
        let kind = v
            .get("token_type")
            .and_then(Value::as_str)
            .unwrap_or("Bearer");
        // A DPoP-bound token only when a proof was sent (RFC 9449 §5: the server may
        // still issue a bearer token).
        let dpop = proved && kind.eq_ignore_ascii_case("dpop");
        if !dpop && !kind.eq_ignore_ascii_case("bearer") {
            return Err(ClientError::Auth(format!(
                "the token is of type {kind:?}, not Bearer{}",
                if proved { " or DPoP" } else { "" }
            )));
        }
        let expires_at = v
            .get("expires_in")
            .and_then(|e| {
                e.as_f64()
                    .or_else(|| e.as_str().and_then(|s| s.parse().ok()))
            })
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| SystemTime::now() + Duration::from_secs_f64(s.min(1e9)));
        let scope = v
            .get("scope")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| (!asked.is_empty()).then(|| asked.to_owned()));
        let refresh_token = v
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| old_refresh.cloned());
        Ok(Tokens {
            access_token,
            refresh_token,
            expires_at,
            scope,
            issuer: issuer.to_owned(),
            dpop,
        })
    }
}

/// The error of a refused registration or token request (RFC 6749 §5.2).
fn token_error(what: &str, answer: &wire::Answer) -> ClientError {
    let v: Option<Value> = serde_json::from_slice(&answer.body).ok();
    let field = |k: &str| {
        v.as_ref()
            .and_then(|v| v.get(k))
            .and_then(Value::as_str)
            .map(str::to_owned)
    };
    match (field("error"), field("error_description")) {
        (Some(e), Some(d)) => {
            ClientError::Auth(format!("{what} failed ({}): {e}: {d}", answer.status))
        }
        (Some(e), None) => ClientError::Auth(format!("{what} failed ({}): {e}", answer.status)),
        _ => ClientError::Auth(format!("{what} failed with {}", answer.status)),
    }
}

/// RFC 7591 / OIDC `application_type`: `native` for loopback and custom-scheme redirects.
fn application_type(redirect_uri: &str) -> &'static str {
    match redirect_uri.parse::<hyper::Uri>() {
        Ok(u) if matches!(u.scheme_str(), Some("http" | "https")) => match u.host() {
            Some("localhost" | "127.0.0.1" | "[::1]") => "native",
            _ => "web",
        },
        _ => "native",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_custom_scheme_redirects_are_native() {
        assert_eq!(application_type("http://127.0.0.1:8765/cb"), "native");
        assert_eq!(application_type("http://localhost/cb"), "native");
        assert_eq!(application_type("com.example.app:/cb"), "native");
        assert_eq!(application_type("https://app.example.com/cb"), "web");
    }

    #[test]
    fn the_auth_method_follows_what_the_server_lists() {
        let mut m = ServerMetadata::default();
        assert_eq!(AuthMethod::choose(&m, true, false), AuthMethod::Basic);
        assert_eq!(AuthMethod::choose(&m, false, false), AuthMethod::None);
        m.token_endpoint_auth_methods_supported = Some(vec!["client_secret_post".into()]);
        assert_eq!(AuthMethod::choose(&m, true, false), AuthMethod::Post);
        #[cfg(feature = "oauth-signing")]
        {
            // A key is used where private_key_jwt is listed, or nothing is and there is
            // no secret to use instead.
            assert_eq!(AuthMethod::choose(&m, false, true), AuthMethod::None);
            m.token_endpoint_auth_methods_supported = Some(vec!["private_key_jwt".into()]);
            assert_eq!(
                AuthMethod::choose(&m, true, true),
                AuthMethod::PrivateKeyJwt
            );
            m.token_endpoint_auth_methods_supported = None;
            assert_eq!(
                AuthMethod::choose(&m, false, true),
                AuthMethod::PrivateKeyJwt
            );
            assert_eq!(AuthMethod::choose(&m, true, true), AuthMethod::Basic);
        }
    }
}
