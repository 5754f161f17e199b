//! [`Auth`]: the credentials sent to the API with every request. They are the API's
//! credentials, configured by whoever runs the server; what the MCP client sent to the
//! server (its own bearer token, its headers) is never copied into an API request.
//! OAuth 2's client credentials grant (RFC 6749 §4.4) gets a token from the authorization
//! server, keeps it until shortly before it expires (or the API answers `401`), and sends
//! it as a bearer token.

use std::fmt;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header;
use serde_json::Value;

use super::document::{Document, escape};
use super::error::OpenApiError;
use crate::client::HttpSend;

/// Where an API key goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApiKeyIn {
    /// A request header.
    Header,
    /// A query parameter.
    Query,
    /// A cookie.
    Cookie,
}

/// One credential added to every request to the API.
///
/// ```
/// use mcp_runtime::openapi::{ApiKeyIn, Auth};
/// let key = Auth::api_key(ApiKeyIn::Header, "X-API-Key", "secret");
/// let token = Auth::bearer("t0ken");
/// // Secrets from the environment: a missing variable is an error naming it.
/// let from_env = Auth::bearer_from_env("SOME_UNSET_VARIABLE_FOR_THIS_DOC");
/// assert!(from_env.unwrap_err().to_string().contains("SOME_UNSET_VARIABLE_FOR_THIS_DOC"));
/// assert!(!format!("{key:?}{token:?}").contains("secret"));
/// ```
#[derive(Clone)]
pub struct Auth {
    place: ApiKeyIn,
    name: String,
    value: Secret,
}

/// What is sent: a fixed value, or a token of the client credentials grant.
#[derive(Clone)]
enum Secret {
    Fixed(String),
    Grant(Arc<Grant>),
}

/// The client credentials grant: where to ask, who asks, and the token last given.
struct Grant {
    /// Absolute, or a path resolved against the API's base URL.
    token_url: String,
    client_id: String,
    client_secret: String,
    scopes: Vec<String>,
    token: tokio::sync::Mutex<Option<(String, Option<Instant>)>>,
}

/// A token is asked for again this long before it expires.
const EXPIRY_MARGIN: Duration = Duration::from_secs(30);

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Auth")
            .field("place", &self.place)
            .field("name", &self.name)
            .field("value", &"<redacted>")
            .finish()
    }
}

impl Auth {
    /// An API key named `name` in a header, the query or a cookie.
    pub fn api_key(place: ApiKeyIn, name: impl Into<String>, value: impl Into<String>) -> Auth {
        Auth {
            place,
            name: name.into(),
            value: Secret::Fixed(value.into()),
        }
    }

    /// OAuth 2 client credentials (RFC 6749 §4.4): a token asked of `token_url` (absolute,
    /// or a path on the API's host) with `client_secret_basic`, for `scopes` (none: the
    /// server's default), kept until 30 s before it expires or until the API answers `401`
    /// (then the call is retried once with a new token), sent as a bearer token.
    pub fn oauth_client_credentials<S: Into<String>>(
        token_url: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Auth {
        Auth {
            place: ApiKeyIn::Header,
            name: "Authorization".into(),
            value: Secret::Grant(Arc::new(Grant {
                token_url: token_url.into(),
                client_id: client_id.into(),
                client_secret: client_secret.into(),
                scopes: scopes.into_iter().map(Into::into).collect(),
                token: tokio::sync::Mutex::new(None),
            })),
        }
    }

    /// [`oauth_client_credentials`](Self::oauth_client_credentials) with the client id and
    /// secret read from two environment variables.
    pub fn oauth_client_credentials_from_env<S: Into<String>>(
        token_url: impl Into<String>,
        id_var: &str,
        secret_var: &str,
        scopes: impl IntoIterator<Item = S>,
    ) -> Result<Auth, OpenApiError> {
        Ok(Auth::oauth_client_credentials(
            token_url,
            env(id_var)?,
            env(secret_var)?,
            scopes,
        ))
    }

    /// `Authorization: Bearer <token>`.
    pub fn bearer(token: impl AsRef<str>) -> Auth {
        Auth::api_key(
            ApiKeyIn::Header,
            "Authorization",
            format!("Bearer {}", token.as_ref()),
        )
    }

    /// `Authorization: Basic <base64(user:password)>`.
    pub fn basic(user: impl AsRef<str>, password: impl AsRef<str>) -> Auth {
        let pair = format!("{}:{}", user.as_ref(), password.as_ref());
        let encoded = base64::engine::general_purpose::STANDARD.encode(pair);
        Auth::api_key(
            ApiKeyIn::Header,
            "Authorization",
            format!("Basic {encoded}"),
        )
    }

    /// [`api_key`](Self::api_key) with the key read from the environment variable `var`.
    pub fn api_key_from_env(
        place: ApiKeyIn,
        name: impl Into<String>,
        var: &str,
    ) -> Result<Auth, OpenApiError> {
        Ok(Auth::api_key(place, name, env(var)?))
    }

    /// [`bearer`](Self::bearer) with the token read from the environment variable `var`.
    pub fn bearer_from_env(var: &str) -> Result<Auth, OpenApiError> {
        Ok(Auth::bearer(env(var)?))
    }

    /// [`basic`](Self::basic) with the user and password read from two variables.
    pub fn basic_from_env(user_var: &str, password_var: &str) -> Result<Auth, OpenApiError> {
        Ok(Auth::basic(env(user_var)?, env(password_var)?))
    }

    /// The credential the document's security scheme `scheme`
    /// (`#/components/securitySchemes/<scheme>`) describes, with `secret` as its value: an
    /// `apiKey` scheme puts it where the scheme says; `http` `bearer` sends it as a bearer
    /// token; `http` `basic` takes it as `user:password`; `oauth2` with a
    /// `clientCredentials` flow takes it as `client_id:client_secret` and asks the flow's
    /// `tokenUrl` (for no particular scope). Other kinds (other OAuth 2 flows, OpenID
    /// Connect, mutual TLS) are an error naming the scheme.
    pub fn for_scheme(doc: &Document, scheme: &str, secret: &str) -> Result<Auth, OpenApiError> {
        let place = format!("#/components/securitySchemes/{}", escape(scheme));
        let s = doc
            .pointer(&place)
            .ok_or_else(|| doc.error(&place, "no such security scheme"))?;
        let (s, place) = doc.follow(s, &place)?;
        let field = |k: &str| s.get(k).and_then(Value::as_str).unwrap_or_default();
        match (field("type"), field("scheme").to_ascii_lowercase().as_str()) {
            ("apiKey", _) => {
                let at = match field("in") {
                    "header" => ApiKeyIn::Header,
                    "query" => ApiKeyIn::Query,
                    "cookie" => ApiKeyIn::Cookie,
                    other => {
                        return Err(doc.error(&place, format!("`in: {other}` is not a place")));
                    }
                };
                Ok(Auth::api_key(at, field("name"), secret))
            }
            ("http", "bearer") => Ok(Auth::bearer(secret)),
            ("http", "basic") => {
                let (user, password) = secret.split_once(':').unwrap_or((secret, ""));
                Ok(Auth::basic(user, password))
            }
            ("oauth2", _) => {
                let url = s
                    .pointer("/flows/clientCredentials/tokenUrl")
                    .and_then(Value::as_str)
                    .ok_or_else(|| {
                        doc.error(&place, "no `clientCredentials` flow with a `tokenUrl`")
                    })?;
                let (id, secret) = secret.split_once(':').unwrap_or((secret, ""));
                Ok(Auth::oauth_client_credentials(
                    url,
                    id,
                    secret,
                    Vec::<String>::new(),
                ))
            }
            (kind, _) => Err(doc.error(
                &place,
                format!("security scheme of type `{kind}` is not supported here"),
            )),
        }
    }

    pub(super) fn place(&self) -> ApiKeyIn {
        self.place
    }

    pub(super) fn name(&self) -> &str {
        &self.name
    }

    /// Whether a `401` may mean an expired token (a grant's).
    pub(super) fn renews(&self) -> bool {
        matches!(self.value, Secret::Grant(_))
    }

    /// Forgets a grant's token, so the next call asks for a new one.
    pub(super) async fn forget(&self) {
        if let Secret::Grant(g) = &self.value {
            *g.token.lock().await = None;
        }
    }

    /// The value to send: the fixed one, or `Bearer <token>` of the grant (asked of the
    /// authorization server when there is none, or it is about to expire).
    pub(super) async fn value(&self, send: &dyn HttpSend, base: &str) -> Result<String, String> {
        match &self.value {
            Secret::Fixed(v) => Ok(v.clone()),
            Secret::Grant(g) => {
                let mut held = g.token.lock().await;
                if let Some((t, until)) = &*held
                    && until.is_none_or(|u| Instant::now() + EXPIRY_MARGIN < u)
                {
                    return Ok(format!("Bearer {t}"));
                }
                let (t, until) = g.ask(send, base).await?;
                *held = Some((t.clone(), until));
                Ok(format!("Bearer {t}"))
            }
        }
    }
}

impl Grant {
    /// One token request: `grant_type=client_credentials`, the client authenticated with
    /// HTTP Basic (id and secret form-encoded, RFC 6749 §2.3.1).
    async fn ask(
        &self,
        send: &dyn HttpSend,
        base: &str,
    ) -> Result<(String, Option<Instant>), String> {
        let url = if self.token_url.starts_with("http://") || self.token_url.starts_with("https://")
        {
            self.token_url.clone()
        } else {
            super::url::resolve(base, &self.token_url)
        };
        let mut form = "grant_type=client_credentials".to_owned();
        if !self.scopes.is_empty() {
            form.push_str("&scope=");
            form.push_str(&super::url::encode(&self.scopes.join(" ")));
        }
        let pair = format!(
            "{}:{}",
            super::url::encode(&self.client_id),
            super::url::encode(&self.client_secret)
        );
        let basic = base64::engine::general_purpose::STANDARD.encode(pair);
        let req = hyper::Request::post(&url)
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::ACCEPT, "application/json")
            .header(header::AUTHORIZATION, format!("Basic {basic}"))
            .body(Full::new(Bytes::from(form)))
            .map_err(|e| format!("the token URL {url:?}: {e}"))?;
        let resp = send.send(req).await.map_err(|e| format!("{url}: {e}"))?;
        let status = resp.status();
        let body = http_body_util::Limited::new(resp.into_body(), 1 << 20)
            .collect()
            .await
            .map_err(|e| format!("{url}: reading the answer: {e}"))?
            .to_bytes();
        if !status.is_success() {
            return Err(format!(
                "{url} refused the client credentials: HTTP {status}: {}",
                String::from_utf8_lossy(&body)
            ));
        }
        let v: Value =
            serde_json::from_slice(&body).map_err(|e| format!("{url}: not JSON: {e}"))?;
        let token = v
            .get("access_token")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("{url}: no access_token in the answer"))?;
        let until = v
            .get("expires_in")
            .and_then(Value::as_u64)
            .map(|s| Instant::now() + Duration::from_secs(s));
        Ok((token.to_owned(), until))
    }
}

fn env(var: &str) -> Result<String, OpenApiError> {
    std::env::var(var).map_err(|e| {
        OpenApiError::new(
            "",
            "",
            format!("the environment variable `{var}` holds no credential: {e}"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schemes_of_the_document_place_the_secret() {
        let doc = Document::from_value(
            serde_json::json!({"openapi": "3.0.0", "paths": {}, "components": {"securitySchemes": {
                "key": {"type": "apiKey", "in": "query", "name": "api_key"},
                "token": {"type": "http", "scheme": "Bearer"},
                "pw": {"type": "http", "scheme": "basic"},
                "oauth": {"type": "oauth2", "flows": {}}}}}),
            "d",
        )
        .unwrap();
        let fixed = |a: Auth| match a.value {
            Secret::Fixed(v) => (a.place, a.name, v),
            Secret::Grant(_) => panic!("not a fixed value"),
        };
        let k = fixed(Auth::for_scheme(&doc, "key", "s").unwrap());
        assert_eq!(k, (ApiKeyIn::Query, "api_key".into(), "s".into()));
        let t = fixed(Auth::for_scheme(&doc, "token", "t").unwrap());
        assert_eq!(t.2, "Bearer t");
        let b = fixed(Auth::for_scheme(&doc, "pw", "u:p").unwrap());
        assert_eq!(b.2, "Basic dTpw");
        // An OAuth 2 scheme without a client credentials flow.
        let e = Auth::for_scheme(&doc, "oauth", "x").unwrap_err();
        assert_eq!(e.place(), "#/components/securitySchemes/oauth");
        assert!(Auth::for_scheme(&doc, "nope", "x").is_err());
    }
}
