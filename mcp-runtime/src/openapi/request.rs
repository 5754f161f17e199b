//! One call: the arguments written into the HTTP request the [`Plan`] describes, sent with
//! the configured credentials and a timeout, and the answer made a tool result. A failure
//! of the API (a non-2xx status, no answer in time, a refused connection) is a result with
//! `isError` and the status and body, never a protocol error.

use std::sync::Arc;
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{self, HeaderName, HeaderValue};
use hyper::{Method, Request, StatusCode};
use mcp_core::types::CallToolResult;
use serde_json::{Map, Value};

use super::auth::{ApiKeyIn, Auth};
use super::operation::{Body, In, Param, Plan, is_json};
use super::url::encode;
use crate::client::HttpSend;

/// What every call of one API shares.
pub(super) struct Caller {
    pub(super) send: Arc<dyn HttpSend>,
    /// Without a trailing `/`.
    pub(super) base: String,
    pub(super) auth: Vec<Auth>,
    pub(super) headers: Vec<(HeaderName, HeaderValue)>,
    pub(super) timeout: Duration,
    pub(super) max_body: usize,
}

/// The API's answer.
pub(super) struct Answer {
    pub(super) status: StatusCode,
    /// Its `Content-Type`.
    pub(super) media: String,
    pub(super) body: Bytes,
    /// `METHOD URL`, for messages.
    pub(super) what: String,
}

/// A request ready to send, or the reason the arguments cannot make one.
struct Built {
    url: String,
    headers: Vec<(String, String)>,
    body: Option<(String, Vec<u8>)>,
}

impl Caller {
    /// Runs the call `plan` describes with `args`, the answer shaped as a tool result.
    pub(super) async fn call(&self, plan: &Plan, args: Map<String, Value>) -> CallToolResult {
        match self.fetch(plan, &args).await {
            Ok(a) => answer(plan, a.status, &a.media, &a.body),
            Err(e) => CallToolResult::error(e),
        }
    }

    /// Sends the request `plan` describes with `args`; when the API answers `401` and a
    /// credential is a grant's token, once more with a new token. `Err`: no answer (the
    /// arguments cannot make a request, no credential, no connection, no answer in time),
    /// worded for the model.
    pub(super) async fn fetch(
        &self,
        plan: &Plan,
        args: &Map<String, Value>,
    ) -> Result<Answer, String> {
        let first = self.fetch_once(plan, args).await?;
        if first.status != StatusCode::UNAUTHORIZED || !self.auth.iter().any(Auth::renews) {
            return Ok(first);
        }
        for a in &self.auth {
            a.forget().await;
        }
        self.fetch_once(plan, args).await
    }

    async fn fetch_once(&self, plan: &Plan, args: &Map<String, Value>) -> Result<Answer, String> {
        let mut creds = Vec::with_capacity(self.auth.len());
        for a in &self.auth {
            let v = a
                .value(&*self.send, &self.base)
                .await
                .map_err(|e| format!("no credential for the API: {e}"))?;
            creds.push((a.place(), a.name().to_owned(), v));
        }
        let built = self.build(plan, args, creds)?;
        let what = format!("{} {}", plan.method, built.url);
        let req = self
            .request(plan, built)
            .map_err(|why| format!("{what}: {why}"))?;
        let exchange = async {
            let resp = self.send.send(req).await.map_err(|e| e.to_string())?;
            let status = resp.status();
            let media = resp
                .headers()
                .get(header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            let body = http_body_util::Limited::new(resp.into_body(), self.max_body)
                .collect()
                .await
                .map_err(|e| format!("reading the answer: {e}"))?
                .to_bytes();
            Ok::<_, String>(Answer {
                status,
                media,
                body,
                what: what.clone(),
            })
        };
        match tokio::time::timeout(self.timeout, exchange).await {
            Err(_) => Err(format!("{what}: no answer within {:?}", self.timeout)),
            Ok(Err(e)) => Err(format!("{what}: {e}")),
            Ok(Ok(a)) => Ok(a),
        }
    }

    fn build(
        &self,
        plan: &Plan,
        args: &Map<String, Value>,
        creds: Vec<(ApiKeyIn, String, String)>,
    ) -> Result<Built, String> {
        let missing: Vec<&str> = plan
            .required
            .iter()
            .filter(|r| args.get(*r).is_none_or(Value::is_null))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "missing required argument(s): {}",
                missing.join(", ")
            ));
        }
        let mut path = plan.path.clone();
        let mut query: Vec<(String, String)> = Vec::new();
        let mut headers: Vec<(String, String)> = Vec::new();
        let mut cookies: Vec<(String, String)> = Vec::new();
        for p in &plan.params {
            let Some(v) = args.get(&p.arg).filter(|v| !v.is_null()) else {
                continue;
            };
            match p.at {
                In::Path => {
                    path = path.replace(&format!("{{{}}}", p.name), &path_segment(&joined(v)));
                }
                In::Query => query.extend(query_pairs(p, v)),
                In::Header => headers.push((p.name.clone(), joined(v))),
                In::Cookie => cookies.push((p.name.clone(), joined(v))),
            }
        }
        let body = match &plan.body {
            None => None,
            Some(Body::Whole { media, arg }) => args.get(arg).filter(|v| !v.is_null()).map(|v| {
                let bytes = match v {
                    Value::String(s) if !is_json(media) => s.clone().into_bytes(),
                    other if is_form(media) => form(other).into_bytes(),
                    other => other.to_string().into_bytes(),
                };
                (media.clone(), bytes)
            }),
            Some(Body::Spread { media, props }) => {
                let obj: Map<String, Value> = props
                    .iter()
                    .filter_map(|k| args.get(k).map(|v| (k.clone(), v.clone())))
                    .collect();
                let obj = Value::Object(obj);
                let bytes = if is_form(media) {
                    form(&obj).into_bytes()
                } else {
                    obj.to_string().into_bytes()
                };
                Some((media.clone(), bytes))
            }
        };
        for (place, name, value) in creds {
            let pair = (name, value);
            match place {
                ApiKeyIn::Header => headers.push(pair),
                ApiKeyIn::Query => query.push(pair),
                ApiKeyIn::Cookie => cookies.push(pair),
            }
        }
        if !cookies.is_empty() {
            let c: Vec<String> = cookies
                .iter()
                .map(|(k, v)| format!("{k}={}", encode(v)))
                .collect();
            headers.push(("Cookie".into(), c.join("; ")));
        }
        let mut url = format!("{}{path}", self.base);
        if !query.is_empty() {
            let q: Vec<String> = query
                .iter()
                .map(|(k, v)| format!("{}={}", encode_query(k), encode(v)))
                .collect();
            url.push(if url.contains('?') { '&' } else { '?' });
            url.push_str(&q.join("&"));
        }
        Ok(Built { url, headers, body })
    }

    fn request(&self, plan: &Plan, built: Built) -> Result<Request<Full<Bytes>>, String> {
        let method =
            Method::from_bytes(plan.method.as_bytes()).map_err(|e| format!("bad method: {e}"))?;
        let mut b = Request::builder()
            .method(method)
            .uri(&built.url)
            .header(header::ACCEPT, "application/json, */*;q=0.5")
            .header(
                header::USER_AGENT,
                concat!("mcp-framework-openapi/", env!("CARGO_PKG_VERSION")),
            );
        for (k, v) in &self.headers {
            b = b.header(k, v);
        }
        for (k, v) in &built.headers {
            let name = HeaderName::from_bytes(k.as_bytes())
                .map_err(|_| format!("`{k}` is not a header name"))?;
            let value = HeaderValue::from_str(v)
                .map_err(|_| format!("the value of header `{k}` is not sendable"))?;
            b = b.header(name, value);
        }
        let body = match built.body {
            Some((media, bytes)) => {
                b = b.header(header::CONTENT_TYPE, media);
                Bytes::from(bytes)
            }
            None => Bytes::new(),
        };
        b.body(Full::new(body)).map_err(|e| e.to_string())
    }
}

/// The answer as a tool result: 2xx JSON structured when the operation declares its schema
/// (else its text), anything else text; a non-2xx status `isError` with status and body.
fn answer(plan: &Plan, status: StatusCode, media: &str, body: &[u8]) -> CallToolResult {
    let text = String::from_utf8_lossy(body);
    if !status.is_success() {
        let mut r = CallToolResult::error(format!("HTTP {status}: {text}"));
        let mut meta = Map::new();
        meta.insert("status".into(), Value::from(status.as_u16()));
        r.meta = Some(meta);
        return r;
    }
    if is_json(media)
        && let Ok(v) = serde_json::from_slice::<Value>(body)
    {
        return if plan.structured {
            CallToolResult::structured(v)
        } else {
            CallToolResult::success(vec![mcp_core::types::ContentBlock::text(v.to_string())])
        };
    }
    let shown = if text.is_empty() {
        format!("HTTP {status} (no body)")
    } else {
        text.into_owned()
    };
    CallToolResult::success(vec![mcp_core::types::ContentBlock::text(shown)])
}

fn is_form(media: &str) -> bool {
    media.starts_with("application/x-www-form-urlencoded")
}

/// A scalar as text; an array or object as `simple` style (`a,b,c`; `k,v,k,v`).
fn joined(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(a) => a.iter().map(joined).collect::<Vec<_>>().join(","),
        Value::Object(m) => m
            .iter()
            .flat_map(|(k, v)| [k.clone(), joined(v)])
            .collect::<Vec<_>>()
            .join(","),
        other => other.to_string(),
    }
}

/// A query parameter's pairs: `form` style (exploded arrays repeat the name, exploded
/// objects give each key its own pair) or `deepObject` (`name[key]`).
fn query_pairs(p: &Param, v: &Value) -> Vec<(String, String)> {
    match v {
        Value::Array(a) if p.explode => a.iter().map(|x| (p.name.clone(), joined(x))).collect(),
        Value::Object(m) if p.deep => m
            .iter()
            .map(|(k, x)| (format!("{}[{k}]", p.name), joined(x)))
            .collect(),
        Value::Object(m) if p.explode => m.iter().map(|(k, x)| (k.clone(), joined(x))).collect(),
        other => vec![(p.name.clone(), joined(other))],
    }
}

/// An object as `application/x-www-form-urlencoded`.
fn form(v: &Value) -> String {
    match v {
        Value::Object(m) => m
            .iter()
            .flat_map(|(k, v)| match v {
                Value::Array(a) => a.iter().map(|x| (k.clone(), joined(x))).collect(),
                other => vec![(k.clone(), joined(other))],
            })
            .map(|(k, v)| format!("{}={}", encode(&k), encode(&v)))
            .collect::<Vec<_>>()
            .join("&"),
        other => encode(&joined(other)),
    }
}

/// A path parameter's value as a segment: [`encode`]d (a `/` cannot add a segment), and
/// `.` or `..` written `%2E` so that no value climbs the path.
fn path_segment(s: &str) -> String {
    match s {
        "." | ".." => s.replace('.', "%2E"),
        _ => encode(s),
    }
}

/// A query name: as [`encode`], keeping the brackets of `deepObject` names.
fn encode_query(s: &str) -> String {
    encode(s).replace("%5B", "[").replace("%5D", "]")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn param(name: &str, at: In, explode: bool, deep: bool) -> Param {
        Param {
            arg: name.into(),
            name: name.into(),
            at,
            explode,
            deep,
        }
    }

    #[test]
    fn parameters_are_written_in_their_styles() {
        let tags = param("tags", In::Query, true, false);
        assert_eq!(
            query_pairs(&tags, &json!(["a", "b"])),
            [("tags".into(), "a".into()), ("tags".into(), "b".into())]
        );
        let f = param("f", In::Query, false, true);
        assert_eq!(
            query_pairs(&f, &json!({"x": 1})),
            [("f[x]".to_owned(), "1".to_owned())]
        );
        let ids = param("ids", In::Query, false, false);
        assert_eq!(
            query_pairs(&ids, &json!([1, 2])),
            [("ids".to_owned(), "1,2".to_owned())]
        );
        assert_eq!(encode("a b/ü"), "a%20b%2F%C3%BC");
        assert_eq!(path_segment(".."), "%2E%2E");
        assert_eq!(path_segment("../admin"), "..%2Fadmin");
        assert_eq!(path_segment("v1.2"), "v1.2");
        assert_eq!(form(&json!({"a": "x y", "n": 2})), "a=x%20y&n=2");
    }
}
