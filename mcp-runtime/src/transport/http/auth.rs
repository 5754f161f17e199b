//! Bearer-token authorization: the MCP server as an OAuth 2.1 resource server.
//!
//! With [`HttpOptions::auth`](super::HttpOptions::auth) set, every request on the MCP
//! paths (Streamable HTTP `POST`/`GET`/`DELETE`, the 2024-11-05 SSE stream and its POST
//! path) must carry `Authorization: Bearer <token>`; a [`TokenValidator`] turns the token
//! into a [`Principal`] (or refuses it):
//!
//! - no token: `401` + `WWW-Authenticate: Bearer resource_metadata="<url>"` (and
//!   `scope="…"` when scopes are required);
//! - a refused token: `401` + `Bearer error="invalid_token", error_description="…",
//!   resource_metadata="<url>"`;
//! - missing scopes: `403` + `Bearer error="insufficient_scope", scope="…",
//!   resource_metadata="<url>"`.
//!
//! Step-up: beyond the scopes every request needs ([`AuthOptions::require_scopes`]), a
//! tool ([`AuthOptions::require_tool_scopes`]) or a method
//! ([`AuthOptions::require_method_scopes`]) may demand more. A request whose token lacks
//! them is refused before it reaches the chain with `403 insufficient_scope` and, in
//! `scope`, every scope the request needs, so the client can ask the authorization server
//! for a token that has them and retry. (For a 2024-11-05 SSE session the refusal is the
//! status of the POST.)
//!
//! The protected resource metadata document (RFC 9728) is served, without a token, at
//! `/.well-known/oauth-protected-resource` and `/.well-known/oauth-protected-resource<path>`.
//!
//! Without an authorization server ([`AuthOptions::authorization_server`]) there is no
//! OAuth: tokens are the server's own (static tokens, API keys), no metadata document is
//! served, and the challenges are plain `Bearer realm="mcp"` ones (`401` + `WWW-Authenticate:
//! Bearer realm="mcp"`, with `error="invalid_token"` for a refused token), so that clients
//! say a token is needed instead of starting an OAuth flow that cannot succeed.
//! The principal reaches middleware and handlers as a typed extension:
//! `ctx.extensions().get::<Principal>()`. A legacy session belongs to the subject that
//! opened it: another subject's requests naming it get `404`.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use axum::body::Body;
use axum::http::request::Parts;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use serde_json::value::RawValue;
use serde_json::{Value, json};

use super::HttpRequest;
pub use crate::common::principal::Principal;

/// Why a token was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthError {
    /// Expired, revoked, malformed, for another audience, ...: `401 invalid_token`.
    InvalidToken(String),
    /// Valid, but without the scopes this request needs: `403 insufficient_scope` with
    /// `scope` (space-separated) in the challenge.
    InsufficientScope {
        /// The scopes needed.
        scope: String,
        /// A human-readable explanation.
        description: String,
    },
    /// The validator could not decide (its key server is down, ...): `500`.
    Unavailable(String),
}

impl std::fmt::Display for AuthError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AuthError::InvalidToken(d) => write!(f, "invalid token: {d}"),
            AuthError::InsufficientScope { scope, description } => {
                write!(f, "insufficient scope (needs {scope}): {description}")
            }
            AuthError::Unavailable(d) => write!(f, "token validation unavailable: {d}"),
        }
    }
}

impl std::error::Error for AuthError {}

/// The future a [`TokenValidator`] returns.
pub type AuthFuture<'a> = Pin<Box<dyn Future<Output = Result<Principal, AuthError>> + Send + 'a>>;

/// Validates bearer tokens. Check the signature or introspect, the expiry, and the
/// audience (the token must be issued for this server's `resource`: no passthrough).
///
/// ```
/// use mcp_runtime::Principal;
/// use mcp_runtime::transport::http::{AuthError, AuthFuture, TokenValidator};
/// use mcp_runtime::transport::http::axum::http::request::Parts;
///
/// struct Static;
///
/// impl TokenValidator for Static {
///     fn validate<'a>(&'a self, token: &'a str, _req: &'a Parts) -> AuthFuture<'a> {
///         Box::pin(async move {
///             match token {
///                 "secret" => Ok(Principal::new("alice").with_scopes(["mcp"])),
///                 _ => Err(AuthError::InvalidToken("unknown token".into())),
///             }
///         })
///     }
/// }
/// ```
pub trait TokenValidator: Send + Sync + 'static {
    /// The principal `token` stands for, given the rest of the request.
    fn validate<'a>(&'a self, token: &'a str, request: &'a Parts) -> AuthFuture<'a>;
}

/// A [`TokenValidator`] from an async closure of the token and the request.
pub fn validator_fn<F, Fut>(f: F) -> FnValidator<F>
where
    F: Fn(String, HttpRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Principal, AuthError>> + Send + 'static,
{
    FnValidator(f)
}

/// See [`validator_fn`].
pub struct FnValidator<F>(F);

impl<F, Fut> TokenValidator for FnValidator<F>
where
    F: Fn(String, HttpRequest) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Principal, AuthError>> + Send + 'static,
{
    fn validate<'a>(&'a self, token: &'a str, request: &'a Parts) -> AuthFuture<'a> {
        Box::pin((self.0)(
            token.to_owned(),
            crate::transport::http::streamable::http_request(request),
        ))
    }
}

/// Authorization settings of the HTTP transports.
#[derive(Clone)]
pub struct AuthOptions {
    /// Validates the bearer tokens.
    pub validator: Arc<dyn TokenValidator>,
    /// The canonical URI of this MCP server (the RFC 8707 `resource` clients request
    /// tokens for), e.g. `https://mcp.example.com/mcp`.
    pub resource: String,
    /// The authorization servers that issue tokens for it (issuer URLs).
    pub authorization_servers: Vec<String>,
    /// The scopes it understands (`scopes_supported` in the metadata).
    pub scopes_supported: Vec<String>,
    /// Scopes every request needs; a token without them gets `403 insufficient_scope`.
    pub required_scopes: Vec<String>,
    /// Further scopes a `tools/call` of a tool (by name) needs (step-up).
    pub tool_scopes: HashMap<String, Vec<String>>,
    /// Further scopes a request of a method (`resources/read`, ...) needs (step-up).
    pub method_scopes: HashMap<String, Vec<String>>,
    /// Further members of the metadata document (`resource_name`,
    /// `resource_documentation`, ...).
    pub metadata_extra: serde_json::Map<String, Value>,
    /// Requests without an `Authorization` header go on with no [`Principal`] (a token
    /// that is sent is still checked): see [`allow_anonymous`](Self::allow_anonymous).
    pub anonymous: bool,
}

impl std::fmt::Debug for AuthOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthOptions")
            .field("resource", &self.resource)
            .field("authorization_servers", &self.authorization_servers)
            .field("scopes_supported", &self.scopes_supported)
            .field("required_scopes", &self.required_scopes)
            .field("tool_scopes", &self.tool_scopes)
            .field("method_scopes", &self.method_scopes)
            .field("anonymous", &self.anonymous)
            .finish_non_exhaustive()
    }
}

impl AuthOptions {
    /// Tokens for `resource` (this server's canonical URI), checked by `validator`.
    pub fn new(resource: impl Into<String>, validator: impl TokenValidator) -> Self {
        Self {
            validator: Arc::new(validator),
            resource: resource.into(),
            authorization_servers: Vec::new(),
            scopes_supported: Vec::new(),
            required_scopes: Vec::new(),
            tool_scopes: HashMap::new(),
            method_scopes: HashMap::new(),
            metadata_extra: serde_json::Map::new(),
            anonymous: false,
        }
    }

    /// Lets requests without a token in, with no [`Principal`]: for a server (a gateway,
    /// say) that serves everyone and tells signed-in callers apart (their own rate
    /// limits, the tools their claims may see). A token that is sent is checked as ever
    /// (a bad one is a 401), and a method or tool that needs a scope answers an anonymous
    /// caller with the 401 challenge. With [`require_scopes`](Self::require_scopes) every
    /// request needs a token all the same.
    pub fn allow_anonymous(mut self) -> Self {
        self.anonymous = true;
        self
    }

    /// Adds an authorization server (its issuer URL).
    pub fn authorization_server(mut self, issuer: impl Into<String>) -> Self {
        self.authorization_servers.push(issuer.into());
        self
    }

    /// Sets `scopes_supported`.
    pub fn scopes_supported<S: Into<String>>(mut self, s: impl IntoIterator<Item = S>) -> Self {
        self.scopes_supported = s.into_iter().map(Into::into).collect();
        self
    }

    /// Sets the scopes every request needs.
    pub fn require_scopes<S: Into<String>>(mut self, s: impl IntoIterator<Item = S>) -> Self {
        self.required_scopes = s.into_iter().map(Into::into).collect();
        self
    }

    /// Scopes a `tools/call` of `tool` needs beyond [`AuthOptions::require_scopes`]: a
    /// token without them gets `403 insufficient_scope` naming them (step-up).
    pub fn require_tool_scopes<S: Into<String>>(
        mut self,
        tool: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let e = self.tool_scopes.entry(tool.into()).or_default();
        e.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Scopes every request of `method` needs beyond [`AuthOptions::require_scopes`].
    pub fn require_method_scopes<S: Into<String>>(
        mut self,
        method: impl Into<String>,
        scopes: impl IntoIterator<Item = S>,
    ) -> Self {
        let e = self.method_scopes.entry(method.into()).or_default();
        e.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Every scope a request of `method` (with `params`) needs: the ones every request
    /// needs, the method's and, for `tools/call`, the tool's.
    pub fn scopes_needed(&self, method: &str, params: Option<&RawValue>) -> Vec<&str> {
        let tool = (method == "tools/call")
            .then(|| called_tool(params))
            .flatten();
        self.scopes_for(method, tool.as_deref())
    }

    /// [`scopes_needed`](Self::scopes_needed) with the called tool already read.
    fn scopes_for(&self, method: &str, tool: Option<&str>) -> Vec<&str> {
        let mut out: Vec<&str> = self.required_scopes.iter().map(String::as_str).collect();
        let tool = tool.and_then(|t| self.tool_scopes.get(t));
        for s in self
            .method_scopes
            .get(method)
            .into_iter()
            .chain(tool)
            .flatten()
        {
            if !out.contains(&s.as_str()) {
                out.push(s);
            }
        }
        out
    }

    /// The `403 insufficient_scope` for the first of `requests` (method, params) whose
    /// scopes the request's principal lacks; `None` when it has them all.
    pub(super) fn step_up<'a>(
        &self,
        parts: &Parts,
        requests: impl IntoIterator<Item = (&'a str, Option<&'a RawValue>)>,
    ) -> Option<Response> {
        if self.tool_scopes.is_empty() && self.method_scopes.is_empty() {
            return None;
        }
        let principal = parts.extensions.get::<Principal>();
        requests.into_iter().find_map(|(method, params)| {
            let tool = (method == "tools/call")
                .then(|| called_tool(params))
                .flatten();
            self.refuse_missing(principal, method, tool.as_deref())
        })
    }

    /// [`step_up`](Self::step_up) for one request whose called tool is given by `tool`
    /// (asked only when scopes are configured and the method is `tools/call`), so a
    /// caller that has the name from the params' one scan does not parse them again.
    pub(super) fn step_up_one(
        &self,
        parts: &Parts,
        method: &str,
        tool: impl FnOnce() -> Option<String>,
    ) -> Option<Response> {
        if self.tool_scopes.is_empty() && self.method_scopes.is_empty() {
            return None;
        }
        let principal = parts.extensions.get::<Principal>();
        let tool = (method == "tools/call").then(tool).flatten();
        self.refuse_missing(principal, method, tool.as_deref())
    }

    /// The refusal when `principal` lacks a scope that `method` (calling `tool`) needs:
    /// `403 insufficient_scope`, or the 401 challenge to an anonymous caller (`None`, let
    /// in by [`allow_anonymous`](Self::allow_anonymous)).
    fn refuse_missing(
        &self,
        principal: Option<&Principal>,
        method: &str,
        tool: Option<&str>,
    ) -> Option<Response> {
        let needed = self.scopes_for(method, tool);
        let Some(principal) = principal else {
            return (!needed.is_empty()).then(|| self.token_required(&needed));
        };
        let missing: Vec<&str> = needed
            .iter()
            .copied()
            .filter(|s| !principal.has_scope(s))
            .collect();
        (!missing.is_empty()).then(|| {
            self.refusal(&AuthError::InsufficientScope {
                scope: needed.join(" "),
                description: format!("{method} needs scope: {}", missing.join(" ")),
            })
        })
    }

    /// `resource` without its scheme and authority: the path of the metadata's suffix.
    fn resource_path(&self) -> &str {
        let r = self.resource.split(['?', '#']).next().unwrap_or("");
        let rest = r.split_once("://").map_or(r, |(_, rest)| rest);
        match rest.find('/') {
            Some(i) => rest[i..].trim_end_matches('/'),
            None => "",
        }
    }

    /// Where the metadata document is (RFC 9728 §3.1: the well-known path inserted
    /// between the authority and the path of `resource`); the `resource_metadata` of
    /// every challenge.
    pub fn metadata_url(&self) -> String {
        let r = self.resource.split(['?', '#']).next().unwrap_or("");
        let (scheme, rest) = r.split_once("://").unwrap_or(("https", r));
        let authority = rest.split('/').next().unwrap_or(rest);
        format!("{scheme}://{authority}{WELL_KNOWN}{}", self.resource_path())
    }

    /// The protected resource metadata document (RFC 9728).
    pub fn metadata_document(&self) -> Value {
        let mut doc = serde_json::Map::new();
        doc.insert("resource".into(), json!(self.resource));
        doc.insert(
            "authorization_servers".into(),
            json!(self.authorization_servers),
        );
        if !self.scopes_supported.is_empty() {
            doc.insert("scopes_supported".into(), json!(self.scopes_supported));
        }
        doc.insert("bearer_methods_supported".into(), json!(["header"]));
        for (k, v) in &self.metadata_extra {
            doc.insert(k.clone(), v.clone());
        }
        Value::Object(doc)
    }

    /// Whether tokens come from OAuth authorization servers (then clients are pointed at
    /// the metadata document); without one, the tokens are the server's own.
    fn is_oauth(&self) -> bool {
        !self.authorization_servers.is_empty()
    }

    /// The challenge's parameter that tells the client where tokens come from: the
    /// metadata document under OAuth, a plain realm otherwise.
    fn token_source(&self) -> String {
        match self.is_oauth() {
            true => format!("resource_metadata=\"{}\"", self.metadata_url()),
            false => "realm=\"mcp\"".to_owned(),
        }
    }

    /// The paths the metadata document is served at: the bare well-known path, and the
    /// path-suffixed forms for the MCP endpoint `mcp_path` and the resource's own path
    /// (none without an authorization server).
    pub(super) fn metadata_paths(&self, mcp_path: &str) -> Vec<String> {
        if !self.is_oauth() {
            return Vec::new();
        }
        let mut out = vec![WELL_KNOWN.to_owned()];
        for p in [mcp_path.trim_end_matches('/'), self.resource_path()] {
            let p = format!("{WELL_KNOWN}{p}");
            if !out.contains(&p) {
                out.push(p);
            }
        }
        out
    }

    /// Whether `path` is one of [`Self::metadata_paths`] (checked on every request, so
    /// without building the list).
    pub(super) fn is_metadata_path(&self, mcp_path: &str, path: &str) -> bool {
        self.is_oauth()
            && path.strip_prefix(WELL_KNOWN).is_some_and(|rest| {
                rest.is_empty()
                    || rest == mcp_path.trim_end_matches('/')
                    || rest == self.resource_path()
            })
    }

    /// Authenticates one request: its principal, or the 401/403/500 to send.
    pub(super) async fn authenticate(&self, parts: &Parts) -> Result<Option<Principal>, Response> {
        let token = bearer_token(parts);
        let Some(token) = token else {
            if self.anonymous
                && parts
                    .headers
                    .get(axum::http::header::AUTHORIZATION)
                    .is_none()
            {
                return Ok(None);
            }
            let required: Vec<&str> = self.required_scopes.iter().map(String::as_str).collect();
            return Err(self.token_required(&required));
        };
        let principal = match self.validator.validate(token, parts).await {
            Ok(p) => p,
            Err(e) => return Err(self.refusal(&e)),
        };
        let missing: Vec<&str> = self
            .required_scopes
            .iter()
            .filter(|s| !principal.has_scope(s))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(self.refusal(&AuthError::InsufficientScope {
                scope: self.required_scopes.join(" "),
                description: format!("missing scope: {}", missing.join(" ")),
            }));
        }
        Ok(Some(principal))
    }

    /// The 401 challenge of a request without a token, naming `scopes` when some are
    /// needed.
    fn token_required(&self, scopes: &[&str]) -> Response {
        let mut c = format!("Bearer {}", self.token_source());
        if !scopes.is_empty() {
            c.push_str(&format!(", scope=\"{}\"", scopes.join(" ")));
        }
        challenge(
            StatusCode::UNAUTHORIZED,
            c,
            "invalid_token",
            "Authorization: Bearer token required",
        )
    }

    /// The response for a refused token.
    pub fn refusal(&self, e: &AuthError) -> Response {
        let source = self.token_source();
        match e {
            AuthError::InvalidToken(d) => challenge(
                StatusCode::UNAUTHORIZED,
                format!(
                    "Bearer error=\"invalid_token\", error_description=\"{}\", {source}",
                    quote(d)
                ),
                "invalid_token",
                d,
            ),
            AuthError::InsufficientScope { scope, description } => challenge(
                StatusCode::FORBIDDEN,
                format!(
                    "Bearer error=\"insufficient_scope\", scope=\"{}\", {source}, error_description=\"{}\"",
                    quote(scope),
                    quote(description)
                ),
                "insufficient_scope",
                description,
            ),
            AuthError::Unavailable(d) => {
                tracing::warn!(error = %d, "token validation unavailable");
                oauth_error(StatusCode::INTERNAL_SERVER_ERROR, "server_error", d)
            }
        }
    }
}

/// The `name` of `tools/call` params, as the header checks read it.
fn called_tool(params: Option<&RawValue>) -> Option<String> {
    let fields = mcp_core::headers::RequestFields::of(params?);
    fields.name().map(str::to_owned)
}

/// `/.well-known/oauth-protected-resource`.
pub const WELL_KNOWN: &str = "/.well-known/oauth-protected-resource";

/// The token of `Authorization: Bearer <token>` (scheme case-insensitive); never from
/// the query string.
fn bearer_token(parts: &Parts) -> Option<&str> {
    let v = parts.headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = v.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// Escapes a quoted-string value.
fn quote(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control())
        .flat_map(|c| match c {
            '"' | '\\' => vec!['\\', c],
            c => vec![c],
        })
        .collect()
}

fn oauth_error(status: StatusCode, error: &str, description: &str) -> Response {
    let body = json!({"error": error, "error_description": description}).to_string();
    let mut r = Response::new(Body::from(body));
    *r.status_mut() = status;
    r.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    r
}

fn challenge(status: StatusCode, www: String, error: &str, description: &str) -> Response {
    let mut r = oauth_error(status, error, description);
    if let Ok(v) = HeaderValue::from_str(&www) {
        r.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    r
}

/// Serves the metadata document (`GET`/`HEAD`; CORS-readable, it is public).
pub(super) fn metadata_response(auth: &AuthOptions, method: &Method) -> Response {
    let mut r = if method == Method::GET || method == Method::HEAD {
        let mut r = Response::new(Body::from(auth.metadata_document().to_string()));
        r.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        r
    } else if method == Method::OPTIONS {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::NO_CONTENT;
        r
    } else {
        let mut r = Response::new(Body::empty());
        *r.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
        r.headers_mut().insert(
            header::ALLOW,
            HeaderValue::from_static("GET, HEAD, OPTIONS"),
        );
        r
    };
    let h = r.headers_mut();
    h.insert(
        header::ACCESS_CONTROL_ALLOW_ORIGIN,
        HeaderValue::from_static("*"),
    );
    h.insert(
        header::ACCESS_CONTROL_ALLOW_METHODS,
        HeaderValue::from_static("GET, HEAD, OPTIONS"),
    );
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn opts(resource: &str) -> AuthOptions {
        AuthOptions::new(
            resource,
            validator_fn(|_, _| async { Err(AuthError::InvalidToken("no".into())) }),
        )
        .authorization_server("https://auth.example")
    }

    #[test]
    fn metadata_url_inserts_the_well_known_path() {
        assert_eq!(
            opts("https://h.example/mcp").metadata_url(),
            "https://h.example/.well-known/oauth-protected-resource/mcp"
        );
        assert_eq!(
            opts("http://127.0.0.1:8080").metadata_url(),
            "http://127.0.0.1:8080/.well-known/oauth-protected-resource"
        );
        assert_eq!(
            opts("https://h.example/a/b/").metadata_paths("/mcp"),
            vec![
                WELL_KNOWN.to_owned(),
                format!("{WELL_KNOWN}/mcp"),
                format!("{WELL_KNOWN}/a/b")
            ]
        );
        assert_eq!(quote("a\"b\\c\n"), "a\\\"b\\\\c");
        // Without an authorization server there is no OAuth, so no metadata document.
        let mut own_tokens = opts("https://h.example/mcp");
        own_tokens.authorization_servers.clear();
        assert!(own_tokens.metadata_paths("/mcp").is_empty());
        assert!(!own_tokens.is_metadata_path("/mcp", WELL_KNOWN));
    }

    #[test]
    fn scopes_needed_joins_every_scope_once() {
        let o = opts("https://h.example/mcp")
            .require_scopes(["mcp"])
            .require_method_scopes("tools/call", ["tools", "mcp"])
            .require_tool_scopes("deploy", ["deploy"]);
        let p = serde_json::value::RawValue::from_string(r#"{"name":"deploy"}"#.into()).unwrap();
        assert_eq!(
            o.scopes_needed("tools/call", Some(&p)),
            ["mcp", "tools", "deploy"]
        );
        let other = serde_json::value::RawValue::from_string(r#"{"name":"x"}"#.into()).unwrap();
        assert_eq!(
            o.scopes_needed("tools/call", Some(&other)),
            ["mcp", "tools"]
        );
        // The tool map is for tools/call only.
        assert_eq!(o.scopes_needed("prompts/get", Some(&p)), ["mcp"]);
    }
}
