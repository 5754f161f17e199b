//! The endpoints operators and orchestrators look at, beside the MCP path
//! ([`HttpOptions::operator`](super::HttpOptions::operator)): `GET /healthz`, `GET /readyz`
//! and `GET /metrics`. They are public (no bearer token: a probe carries none) and answer
//! while the server drains, `/readyz` then with 503 so a load balancer stops sending.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use serde_json::{Value, json};

use crate::chain::metrics::Metrics;

/// Alive: the process answers HTTP.
pub const HEALTHZ: &str = "/healthz";
/// Ready to serve: 200, or 503 naming what is not.
pub const READYZ: &str = "/readyz";
/// [`Metrics`] in Prometheus' text format.
pub const METRICS: &str = "/metrics";

/// What readiness says: ready or not, and the details shown in `/readyz`'s JSON body.
type ReadyFn = dyn Fn() -> (bool, Value) + Send + Sync;

/// The operator endpoints of an HTTP transport:
///
/// - `GET /healthz`: `200 {"status":"ok"}` while the process serves;
/// - `GET /readyz`: `200 {"ready":true,…}`, or `503 {"ready":false,…}` when
///   [`ready`](Self::ready) says so or the server is shutting down; the details are
///   yours (a gateway's upstreams and their states, say);
/// - `GET /metrics`: the [`Metrics`] given, as `text/plain; version=0.0.4` (404 without).
///
/// ```
/// use mcp_runtime::metrics::Metrics;
/// use mcp_runtime::transport::http::{HttpOptions, Operator};
///
/// let metrics = Metrics::new();
/// let opts = HttpOptions {
///     operator: Some(Operator::new().metrics(metrics.clone()).ready(|| {
///         (true, serde_json::json!({ "database": "up" }))
///     })),
///     ..HttpOptions::default()
/// };
/// // …and `metrics` added to the server as a middleware, so it counts the calls.
/// # let _ = opts;
/// ```
#[derive(Clone, Default)]
pub struct Operator {
    metrics: Option<Metrics>,
    ready: Option<Arc<ReadyFn>>,
}

impl std::fmt::Debug for Operator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Operator")
            .field("metrics", &self.metrics.is_some())
            .field("ready", &self.ready.is_some())
            .finish()
    }
}

impl Operator {
    /// `/healthz` and `/readyz` (always ready), no `/metrics`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Serves `metrics` at `/metrics`.
    pub fn metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// `/readyz` asks `f` at each probe: whether the server is ready, and details for the
    /// body (an object's members are added to it; anything else under `"details"`).
    pub fn ready(mut self, f: impl Fn() -> (bool, Value) + Send + Sync + 'static) -> Self {
        self.ready = Some(Arc::new(f));
        self
    }

    /// Whether `path` is one of these endpoints.
    pub(crate) fn serves(path: &str) -> bool {
        matches!(path, HEALTHZ | READYZ | METRICS)
    }

    /// The answer to a request for `path` (one of [`serves`](Self::serves)'); `draining`:
    /// the server is shutting down.
    pub(crate) fn respond(&self, method: &Method, path: &str, draining: bool) -> Response {
        if method != Method::GET && method != Method::HEAD {
            let mut r = plain(StatusCode::METHOD_NOT_ALLOWED, "text/plain", "GET only\n");
            r.headers_mut()
                .insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
            return r;
        }
        match path {
            HEALTHZ => json(StatusCode::OK, json!({ "status": "ok" })),
            READYZ => {
                let (ready, details) = match &self.ready {
                    Some(f) => f(),
                    None => (true, Value::Null),
                };
                let ready = ready && !draining;
                let mut body = json!({ "ready": ready });
                if draining {
                    body["draining"] = Value::Bool(true);
                }
                match details {
                    Value::Object(m) => body.as_object_mut().expect("an object").extend(m),
                    Value::Null => {}
                    other => body["details"] = other,
                }
                let status = match ready {
                    true => StatusCode::OK,
                    false => StatusCode::SERVICE_UNAVAILABLE,
                };
                json(status, body)
            }
            _ => match &self.metrics {
                Some(m) => plain(StatusCode::OK, "text/plain; version=0.0.4", &m.render()),
                None => plain(StatusCode::NOT_FOUND, "text/plain", "no metrics here\n"),
            },
        }
    }
}

fn json(status: StatusCode, body: Value) -> Response {
    plain(status, "application/json", &body.to_string())
}

fn plain(status: StatusCode, content_type: &'static str, body: &str) -> Response {
    let mut r = Response::new(Body::from(body.to_owned()));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    r
}
