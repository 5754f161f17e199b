//! What the OAuth flow sends over the wire: URLs, form encoding, and the HTTP requests to
//! the authorization server and the metadata endpoints (on the client's `hyper` client).

use std::sync::Arc;

use base64::Engine;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{self, HeaderMap};
use hyper::{Method, Request, StatusCode, Uri};
use serde_json::Value;

use super::super::error::ClientError;
use super::super::http::HttpSend;

/// The most an authorization server's answer may hold.
const MAX_BODY: usize = 1 << 20;

/// An absolute `http(s)` URL, split the way the discovery rules need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Url {
    /// `scheme://authority` (the authority as written, lower-cased).
    pub(crate) origin: String,
    /// The path without a trailing `/` (`""` for the root).
    pub(crate) path: String,
    /// The query, without `?`.
    pub(crate) query: Option<String>,
}

impl Url {
    /// Parses an absolute `http` or `https` URL (a fragment is dropped).
    pub(crate) fn parse(text: &str) -> Result<Url, ClientError> {
        let bad = |why: &str| ClientError::Auth(format!("{text:?} is not a usable URL: {why}"));
        let no_fragment = text.split('#').next().unwrap_or_default();
        let uri: Uri = no_fragment.parse().map_err(|_| bad("unparsable"))?;
        let scheme = uri.scheme_str().ok_or_else(|| bad("not absolute"))?;
        if !matches!(scheme, "http" | "https") {
            return Err(bad("not http(s)"));
        }
        let authority = uri.authority().ok_or_else(|| bad("no host"))?;
        let path = uri.path().trim_end_matches('/').to_owned();
        Ok(Url {
            origin: format!("{scheme}://{}", authority.as_str().to_ascii_lowercase()),
            path,
            query: uri.query().map(str::to_owned),
        })
    }

    /// The RFC 8414 / RFC 9728 well-known URL: `origin/.well-known/<name><path>`.
    pub(crate) fn well_known(&self, name: &str) -> String {
        format!("{}/.well-known/{name}{}", self.origin, self.path)
    }

    /// The OpenID Connect Discovery form: `origin<path>/.well-known/<name>`.
    pub(crate) fn appended(&self, name: &str) -> String {
        format!("{}{}/.well-known/{name}", self.origin, self.path)
    }

    /// `origin/.well-known/<name>` (the path dropped).
    pub(crate) fn root_well_known(&self, name: &str) -> String {
        format!("{}/.well-known/{name}", self.origin)
    }

    /// Whether this (a resource identifier) covers `other` (the server URL): the same
    /// origin and a path that is `other`'s or a parent of it, segment-wise.
    pub(crate) fn covers(&self, other: &Url) -> bool {
        self.origin == other.origin
            && (self.path.is_empty()
                || other.path == self.path
                || other
                    .path
                    .strip_prefix(&self.path)
                    .is_some_and(|rest| rest.starts_with('/')))
    }
}

/// `url` with these query parameters appended.
pub(crate) fn with_query(url: &str, params: &[(&str, &str)]) -> String {
    let sep = if url.contains('?') { '&' } else { '?' };
    format!("{url}{sep}{}", form_encode(params))
}

/// `application/x-www-form-urlencoded`.
pub(crate) fn form_encode(params: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (i, (k, v)) in params.iter().enumerate() {
        if i > 0 {
            out.push('&');
        }
        encode_into(&mut out, k);
        out.push('=');
        encode_into(&mut out, v);
    }
    out
}

fn encode_into(out: &mut String, s: &str) {
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'*' => {
                out.push(b as char);
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
}

/// Decodes `application/x-www-form-urlencoded` (a query string); malformed escapes are
/// kept as they are.
pub(crate) fn form_decode(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(k), decode(v))
        })
        .collect()
}

fn decode(s: &str) -> String {
    let hex = |b: u8| (b as char).to_digit(16);
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' => {
                match (
                    bytes.get(i + 1).and_then(|b| hex(*b)),
                    bytes.get(i + 2).and_then(|b| hex(*b)),
                ) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 2;
                    }
                    _ => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// `Authorization: Basic` for client credentials (RFC 6749 §2.3.1: each part form-encoded).
pub(crate) fn basic_auth(id: &str, secret: &str) -> String {
    let mut pair = String::new();
    encode_into(&mut pair, id);
    pair.push(':');
    encode_into(&mut pair, secret);
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// One answer of the authorization server.
pub(crate) struct Answer {
    pub(crate) status: StatusCode,
    pub(crate) headers: HeaderMap,
    pub(crate) body: Bytes,
}

impl Answer {
    /// The body as JSON (an error names `what`).
    pub(crate) fn json(&self, what: &str) -> Result<Value, ClientError> {
        serde_json::from_slice(&self.body)
            .map_err(|e| ClientError::Auth(format!("{what}: the answer is not JSON: {e}")))
    }

    /// The error of a refused registration or token request (RFC 6749 §5.2), naming `what`.
    pub(crate) fn token_error(&self, what: &str) -> ClientError {
        let v: Option<Value> = serde_json::from_slice(&self.body).ok();
        let field = |k: &str| {
            v.as_ref()
                .and_then(|v| v.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        match (field("error"), field("error_description")) {
            (Some(e), Some(d)) => {
                ClientError::Auth(format!("{what} failed ({}): {e}: {d}", self.status))
            }
            (Some(e), None) => ClientError::Auth(format!("{what} failed ({}): {e}", self.status)),
            _ => ClientError::Auth(format!("{what} failed with {}", self.status)),
        }
    }
}

/// The HTTP side of the flow.
#[derive(Clone)]
pub(crate) struct Wire {
    pub(crate) send: Arc<dyn HttpSend>,
}

impl Wire {
    async fn exchange(&self, req: Request<Full<Bytes>>) -> Result<Answer, ClientError> {
        let resp = self.send.send(req).await?;
        let status = resp.status();
        let headers = resp.headers().clone();
        let body = http_body_util::Limited::new(resp.into_body(), MAX_BODY)
            .collect()
            .await
            .map_err(|e| ClientError::Auth(format!("reading an answer: {e}")))?
            .to_bytes();
        Ok(Answer {
            status,
            headers,
            body,
        })
    }

    fn request(method: Method, url: &str) -> Result<hyper::http::request::Builder, ClientError> {
        let uri: Uri = url
            .parse()
            .map_err(|_| ClientError::Auth(format!("{url:?} is not a URL")))?;
        Ok(Request::builder().method(method).uri(uri))
    }

    /// `GET url` (no redirect is followed).
    pub(crate) async fn get(&self, url: &str) -> Result<Answer, ClientError> {
        let req = Self::request(Method::GET, url)?
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Bytes::new()))
            .map_err(|e| ClientError::Encode(e.to_string()))?;
        self.exchange(req).await
    }

    /// `POST url` with a form body and these headers (`Authorization`, `DPoP`).
    pub(crate) async fn post_form(
        &self,
        url: &str,
        form: &[(&str, &str)],
        headers: &[(&'static str, String)],
    ) -> Result<Answer, ClientError> {
        let mut b = Self::request(Method::POST, url)?
            .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
            .header(header::ACCEPT, "application/json");
        for (k, v) in headers {
            b = b.header(*k, v);
        }
        let req = b
            .body(Full::new(Bytes::from(form_encode(form))))
            .map_err(|e| ClientError::Encode(e.to_string()))?;
        self.exchange(req).await
    }

    /// `POST url` with a JSON body.
    pub(crate) async fn post_json(&self, url: &str, body: &Value) -> Result<Answer, ClientError> {
        let req = Self::request(Method::POST, url)?
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json")
            .body(Full::new(Bytes::from(body.to_string())))
            .map_err(|e| ClientError::Encode(e.to_string()))?;
        self.exchange(req).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_and_insert_well_known_names() {
        let u = Url::parse("http://Example.com:8080/tenant1/").unwrap();
        assert_eq!(u.origin, "http://example.com:8080");
        assert_eq!(u.path, "/tenant1");
        assert_eq!(
            u.well_known("oauth-authorization-server"),
            "http://example.com:8080/.well-known/oauth-authorization-server/tenant1"
        );
        assert_eq!(
            u.appended("openid-configuration"),
            "http://example.com:8080/tenant1/.well-known/openid-configuration"
        );
        let root = Url::parse("https://as.example").unwrap();
        assert_eq!(root.path, "");
        assert_eq!(
            root.well_known("oauth-authorization-server"),
            "https://as.example/.well-known/oauth-authorization-server"
        );
        assert!(Url::parse("ftp://x/").is_err());
        assert!(Url::parse("/relative").is_err());
    }

    #[test]
    fn a_resource_covers_its_own_url_and_the_urls_below_it_only() {
        let server = Url::parse("http://h:1/mcp").unwrap();
        assert!(Url::parse("http://h:1/mcp").unwrap().covers(&server));
        assert!(Url::parse("http://h:1").unwrap().covers(&server));
        assert!(!Url::parse("http://h:1/mc").unwrap().covers(&server));
        assert!(!Url::parse("http://h:2/mcp").unwrap().covers(&server));
        assert!(
            !Url::parse("https://evil.example.com/mcp")
                .unwrap()
                .covers(&server)
        );
    }

    #[test]
    fn forms_round_trip() {
        let enc = form_encode(&[("a b", "x&y=z/é"), ("k", "")]);
        assert_eq!(enc, "a+b=x%26y%3Dz%2F%C3%A9&k=");
        assert_eq!(
            form_decode(&enc),
            vec![
                ("a b".to_owned(), "x&y=z/é".to_owned()),
                ("k".to_owned(), String::new())
            ]
        );
        // A malformed escape is kept, not an error.
        assert_eq!(form_decode("a=%zz%4"), vec![("a".into(), "%zz%4".into())]);
        assert_eq!(
            with_query("http://h/a?x=1", &[("y", "2")]),
            "http://h/a?x=1&y=2"
        );
    }

    #[test]
    fn basic_auth_encodes_both_parts() {
        // "id:sec ret" with the space form-encoded.
        assert_eq!(basic_auth("id", "sec ret"), "Basic aWQ6c2VjK3JldA==");
    }
}
