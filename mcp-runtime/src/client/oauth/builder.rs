//! Configuring the OAuth client: [`OAuthBuilder`], the pre-registered [`ClientSecret`]s,
//! the enterprise-managed [`IdentityAssertion`] grant and what a [`TokenExchange`] asks for.

use std::sync::Arc;

use hyper_util::client::legacy::connect::Connect;

use super::grants::Grant;
use super::wire::{Url, Wire};
use super::{AuthorizationHandler, HeadlessRedirect, MemoryTokenStore, TokenStore};
use super::{Flow, Inner, OAuth};
#[cfg(feature = "oauth-signing")]
use super::{SigningKey, dpop};
use crate::client::error::ClientError;
use crate::client::http::{HttpSend, any_scheme_sender, sender_for};

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

    pub(super) fn fits(&self, issuer: &str) -> bool {
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

/// What an RFC 8693 token exchange asks for ([`OAuth::exchange_token`]): a token for the
/// server's `resource` (RFC 8707, as discovered), named as `audience` too.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TokenExchange {
    /// The `audience` parameter, when the authorization server knows the server by a
    /// name other than its resource URL (default: the resource).
    pub audience: Option<String>,
    /// The scopes asked for, space-separated (default: none, the authorization server
    /// decides).
    pub scope: Option<String>,
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
    /// TCP for `http://`, and with the `tls` feature `https://` against the platform's
    /// roots).
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
        let send = self.send.unwrap_or_else(any_scheme_sender);
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
}
