//! Authentication of the HTTP transports: the [`TokenProvider`] a client is given, the
//! credentials it supplies, and the `401`/`403` retries of every request.

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Method, Response, StatusCode, Uri};

use super::HttpConn;
use crate::client::error::ClientError;

pub use crate::common::BoxFuture;

/// Supplies the bearer token sent with every HTTP request (`Authorization: Bearer …`).
///
/// ```
/// use mcp_runtime::client::{ClientError, TokenProvider};
/// use mcp_runtime::middleware::BoxFuture;
///
/// struct FromEnv;
/// impl TokenProvider for FromEnv {
///     fn token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>> {
///         Box::pin(async { Ok(std::env::var("MCP_TOKEN").ok()) })
///     }
/// }
/// ```
pub trait TokenProvider: Send + Sync + 'static {
    /// The token for the next request (`None`: send no `Authorization` header).
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>>;

    /// The server answered `401` (with its `WWW-Authenticate` challenge). `Ok(true)`:
    /// send the request once more with a fresh [`TokenProvider::token`]; an error fails the
    /// request with it. Default: `Ok(false)` (the request fails with [`ClientError::Http`]).
    fn unauthorized<'a>(
        &'a self,
        challenge: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, ClientError>> {
        let _ = challenge;
        Box::pin(async { Ok(false) })
    }

    /// The server answered `403` (e.g. `error="insufficient_scope"`: step-up
    /// authorization). `Ok(true)`: send the request again with a fresh token (at most
    /// [`MAX_STEP_UPS`] times per request). Default: `Ok(false)`.
    fn forbidden<'a>(
        &'a self,
        challenge: Option<&'a str>,
    ) -> BoxFuture<'a, Result<bool, ClientError>> {
        let _ = challenge;
        Box::pin(async { Ok(false) })
    }

    /// What one request (`method` to `url`) carries. Default: `Authorization: Bearer`
    /// with [`TokenProvider::token`]. A provider of sender-constrained tokens (DPoP, RFC
    /// 9449) sends its own scheme and a proof made for this very request.
    fn credentials<'a>(
        &'a self,
        method: &'a Method,
        url: &'a Uri,
    ) -> BoxFuture<'a, Result<Option<Credentials>, ClientError>> {
        let _ = (method, url);
        Box::pin(async { Ok(self.token().await?.map(Credentials::bearer)) })
    }

    /// Sees the status and headers of every answer to a request sent with
    /// [`TokenProvider::credentials`] (a DPoP provider keeps the server's `DPoP-Nonce`).
    /// `true`: send the request once more right away, before the `401`/`403` handling (a
    /// `use_dpop_nonce` challenge; at most once per request). Default: `false`.
    fn on_response(&self, url: &Uri, status: StatusCode, headers: &header::HeaderMap) -> bool {
        let _ = (url, status, headers);
        false
    }
}

/// The authentication headers of one HTTP request ([`TokenProvider::credentials`]).
#[derive(Clone)]
pub struct Credentials {
    /// The `Authorization` header value (`Bearer <token>`, `DPoP <token>`, ...).
    pub authorization: String,
    /// Further headers (a `DPoP` proof).
    pub headers: Vec<(HeaderName, HeaderValue)>,
}

impl Credentials {
    /// `Authorization: Bearer <token>` and nothing else.
    pub fn bearer(token: String) -> Credentials {
        Credentials {
            authorization: format!("Bearer {token}"),
            headers: Vec::new(),
        }
    }
}

impl std::fmt::Debug for Credentials {
    /// Never prints the token or the proofs.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let scheme = self.authorization.split(' ').next().unwrap_or_default();
        f.debug_struct("Credentials")
            .field("scheme", &scheme)
            .field(
                "headers",
                &self.headers.iter().map(|(k, _)| k).collect::<Vec<_>>(),
            )
            .finish()
    }
}

/// How many times one request is re-sent after `403`s its [`TokenProvider`] resolved.
pub const MAX_STEP_UPS: u32 = 3;

/// A fixed bearer token.
#[derive(Clone)]
pub struct StaticToken(pub String);

impl std::fmt::Debug for StaticToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("StaticToken(..)")
    }
}

impl TokenProvider for StaticToken {
    fn token(&self) -> BoxFuture<'_, Result<Option<String>, ClientError>> {
        let t = self.0.clone();
        Box::pin(async move { Ok(Some(t)) })
    }
}

impl HttpConn {
    /// The custom headers and the bearer token.
    async fn common(
        &self,
        mut b: hyper::http::request::Builder,
    ) -> Result<hyper::http::request::Builder, ClientError> {
        for (k, v) in &self.settings.headers {
            b = b.header(k, v);
        }
        if let Some(t) = &self.settings.token {
            let method = b.method_ref().cloned().unwrap_or_default();
            let url = b.uri_ref().cloned().unwrap_or_default();
            if let Some(c) = t.credentials(&method, &url).await? {
                b = b.header(header::AUTHORIZATION, c.authorization);
                for (k, v) in c.headers {
                    b = b.header(k, v);
                }
            }
        }
        Ok(b)
    }

    /// Sends a request built by `build` (plus the common headers). A `401` asks the token
    /// provider once whether to try again; a `403` up to [`MAX_STEP_UPS`] times.
    pub(super) async fn send_with_auth(
        &self,
        build: impl Fn() -> hyper::http::request::Builder,
        body: &Bytes,
    ) -> Result<Response<Incoming>, ClientError> {
        let mut retried_401 = false;
        let mut retried_nonce = false;
        let mut step_ups = 0;
        loop {
            let b = self.common(build()).await?;
            let req = b
                .body(Full::new(body.clone()))
                .map_err(|e| ClientError::Encode(format!("HTTP request: {e}")))?;
            let url = req.uri().clone();
            let resp = self.send.send(req).await?;
            let status = resp.status();
            let Some(t) = &self.settings.token else {
                return Ok(resp);
            };
            if t.on_response(&url, status, resp.headers()) && !retried_nonce {
                retried_nonce = true;
                continue;
            }
            let challenge = || {
                resp.headers()
                    .get(header::WWW_AUTHENTICATE)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            if status == StatusCode::UNAUTHORIZED && !retried_401 {
                let c = challenge();
                if t.unauthorized(c.as_deref()).await? {
                    retried_401 = true;
                    continue;
                }
            } else if status == StatusCode::FORBIDDEN && step_ups < MAX_STEP_UPS {
                let c = challenge();
                if t.forbidden(c.as_deref()).await? {
                    step_ups += 1;
                    continue;
                }
            }
            return Ok(resp);
        }
    }
}
