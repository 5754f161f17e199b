//! The access settings of the file: an upstream's OAuth client (`oauth`, its
//! `tokenExchange`), `passThrough`, `gateway.auth` and `gateway.visibility`.

use serde_json::Value;

use super::{AuthConfig, ConfigError, Exchange, OAuthClient, Parser, TagRule};

impl Parser<'_> {
    /// `{"clientId": ..., "clientSecret": ..., "tokenExchange": {...}}` (the scopes are
    /// the ones the server's challenge or metadata names).
    pub(super) fn oauth(&self, key: &str, v: &Value) -> Result<OAuthClient, ConfigError> {
        let m = v
            .as_object()
            .ok_or_else(|| self.err(key, "expected an object with clientId"))?;
        let mut client_id = None;
        let mut client = OAuthClient {
            client_id: String::new(),
            client_secret: None,
            token_exchange: None,
        };
        for (k, v) in m {
            let key = format!("{key}.{k}");
            match k.as_str() {
                "clientId" => client_id = Some(self.expanded(&key, v)?),
                "clientSecret" => client.client_secret = Some(self.expanded(&key, v)?),
                "tokenExchange" => client.token_exchange = Some(self.exchange(&key, v)?),
                _ => {
                    return Err(self.err(
                        &key,
                        "unknown key (known: clientId, clientSecret, tokenExchange)",
                    ));
                }
            }
        }
        client.client_id = client_id.ok_or_else(|| self.err(key, "missing `clientId`"))?;
        Ok(client)
    }

    /// `tokenExchange`: `{}` or `{"audience": ..., "scope": ...}`.
    pub(super) fn exchange(&self, key: &str, v: &Value) -> Result<Exchange, ConfigError> {
        let m = v
            .as_object()
            .ok_or_else(|| self.err(key, "expected an object (`{}` for the defaults)"))?;
        let mut x = Exchange::default();
        for (k, v) in m {
            let key = format!("{key}.{k}");
            match k.as_str() {
                "audience" => x.audience = Some(self.expanded(&key, v)?),
                "scope" => x.scope = Some(self.expanded(&key, v)?),
                _ => return Err(self.err(&key, "unknown key (known: audience, scope)")),
            }
        }
        Ok(x)
    }

    /// `passThrough`: `{"audience": ...}`, the `aud` a caller's token must name to cross.
    pub(super) fn pass_through(&self, key: &str, v: &Value) -> Result<String, ConfigError> {
        let m = v
            .as_object()
            .ok_or_else(|| self.err(key, "expected an object with audience"))?;
        if let Some(other) = m.keys().find(|k| *k != "audience") {
            return Err(self.err(&format!("{key}.{other}"), "unknown key (known: audience)"));
        }
        let audience = match m.get("audience") {
            Some(a) => self.expanded(&format!("{key}.audience"), a)?,
            None => {
                return Err(self.err(
                    key,
                    "missing `audience` (the `aud` a caller's token must name to be passed on)",
                ));
            }
        };
        if audience.is_empty() {
            return Err(self.err(&format!("{key}.audience"), "must not be empty"));
        }
        Ok(audience)
    }

    pub(super) fn auth(&self, key: &str, v: &Value) -> Result<AuthConfig, ConfigError> {
        let m = v
            .as_object()
            .ok_or_else(|| self.err(key, "expected an object"))?;
        let known = "resource, issuer, audience, jwks, anonymous";
        let (mut resource, mut issuer, mut audience, mut jwks, mut anonymous) =
            (None, None, None, None, false);
        for (k, v) in m {
            let key = format!("{key}.{k}");
            match k.as_str() {
                "resource" => resource = Some(self.expanded(&key, v)?),
                "issuer" => issuer = Some(self.expanded(&key, v)?),
                "audience" => audience = Some(self.expanded(&key, v)?),
                "jwks" => jwks = Some(self.expanded(&key, v)?),
                "anonymous" => {
                    anonymous = v
                        .as_bool()
                        .ok_or_else(|| self.err(&key, "expected true or false"))?;
                }
                _ => return Err(self.err(&key, format!("unknown key (known: {known})"))),
            }
        }
        let need = |v: Option<String>, name: &str| {
            v.ok_or_else(|| {
                self.err(
                    key,
                    format!("missing `{name}` (needs: resource, issuer, jwks)"),
                )
            })
        };
        let resource = need(resource, "resource")?;
        Ok(AuthConfig {
            audience: audience.unwrap_or_else(|| resource.clone()),
            resource,
            issuer: need(issuer, "issuer")?,
            jwks: need(jwks, "jwks")?,
            anonymous,
        })
    }

    pub(super) fn visibility(&self, key: &str, v: &Value) -> Result<Vec<TagRule>, ConfigError> {
        let m = v
            .as_object()
            .ok_or_else(|| self.err(key, "expected an object"))?;
        let mut rules = Vec::new();
        for (k, v) in m {
            let key = format!("{key}.{k}");
            if k != "tags" {
                return Err(self.err(&key, "unknown key (known: tags)"));
            }
            let tags = v
                .as_object()
                .ok_or_else(|| self.err(&key, "expected an object keyed by tag"))?;
            for (tag, rule) in tags {
                let key = format!("{key}.{tag}");
                let r = rule.as_object().ok_or_else(|| {
                    self.err(&key, "expected { \"claim\": ..., \"values\": [...] }")
                })?;
                let claim = match r.get("claim") {
                    Some(c) => self.text(&format!("{key}.claim"), c)?,
                    None => return Err(self.err(&key, "missing `claim`")),
                };
                let values = self.strings(&format!("{key}.values"), r.get("values"))?;
                if values.is_empty() {
                    return Err(self.err(&key, "`values` must name at least one value"));
                }
                if let Some(other) = r.keys().find(|k| *k != "claim" && *k != "values") {
                    return Err(self.err(
                        &format!("{key}.{other}"),
                        "unknown key (known: claim, values)",
                    ));
                }
                rules.push(TagRule {
                    tag: tag.clone(),
                    claim,
                    values,
                });
            }
        }
        if rules.len() > 8 {
            return Err(self.err(key, "at most 8 tags may be reserved"));
        }
        Ok(rules)
    }
}

/// The JWKS at `url`, fetched over `https://` trusting `tls`'s roots (or over `http://`)
/// and refreshed as [`JwksSource::url`]'s: `gateway.auth.jwks` as `mcp gateway` reads
/// it, and the keys of any identity provider on the internet (the `jwt` and `tls`
/// features).
///
/// [`JwksSource::url`]: crate::transport::http::jwt::JwksSource::url
///
/// ```no_run
/// # fn run() -> Result<(), String> {
/// use mcp_runtime::client::TlsConfig;
/// use mcp_runtime::proxy::config::jwks_over_tls;
/// use mcp_runtime::transport::http::jwt::JwtValidator;
///
/// let url = "https://login.example.com/.well-known/jwks.json";
/// let keys = jwks_over_tls(url, &TlsConfig::platform())?;
/// let validator = JwtValidator::new("https://login.example.com", "https://mcp.example.com/mcp", keys);
/// # let _ = validator;
/// # Ok(()) }
/// ```
#[cfg(all(feature = "jwt", feature = "tls"))]
pub fn jwks_over_tls(
    url: &str,
    tls: &crate::client::TlsConfig,
) -> Result<crate::transport::http::jwt::JwksSource, String> {
    use hyper_util::client::legacy::connect::HttpConnector;
    let uri: hyper::Uri = (url.parse()).map_err(|e| format!("invalid JWKS URL {url:?}: {e}"))?;
    if !matches!(uri.scheme_str(), Some("https" | "http")) {
        return Err(format!("a JWKS URL is https:// or http://, not {url:?}"));
    }
    let connector = tls
        .connector(HttpConnector::new())
        .map_err(|e| e.to_string())?;
    Ok(crate::transport::http::jwt::JwksSource::fetched_by(
        connector, uri,
    ))
}
