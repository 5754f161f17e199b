//! Finding the authorization server: the `WWW-Authenticate` challenge, protected-resource
//! metadata (RFC 9728) and authorization-server metadata (RFC 8414, OpenID Connect
//! Discovery), with every fallback the MCP authorization spec lists.

use serde::Deserialize;
use serde_json::Value;

use super::super::error::ClientError;
use super::wire::{Url, Wire};

/// The parameters of a `Bearer` or `DPoP` challenge (`WWW-Authenticate`) that the flow
/// uses.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Challenge {
    /// `resource_metadata`: where the protected-resource metadata is (RFC 9728 §5.1).
    pub resource_metadata: Option<String>,
    /// `scope`: the scopes the request needs (space-separated).
    pub scope: Option<String>,
    /// `error`: e.g. `invalid_token`, `insufficient_scope`.
    pub error: Option<String>,
}

impl Challenge {
    /// Parses a `WWW-Authenticate` value. Only the parameters of `Bearer` and `DPoP` (RFC
    /// 9449 §7.1) challenges are read; a malformed value yields the parameters that could
    /// be read before it.
    pub fn parse(header: &str) -> Challenge {
        let mut c = Challenge::default();
        let mut rest = header;
        let mut in_bearer = false;
        loop {
            rest = rest.trim_start_matches(|ch: char| ch == ',' || ch.is_whitespace());
            if rest.is_empty() {
                break;
            }
            // Either a scheme (starting a challenge) or `name=value`. `rest` starts with
            // neither `,` nor whitespace, so an empty token means `=`: progress is certain.
            let end = rest
                .find(|ch: char| ch == '=' || ch == ',' || ch.is_whitespace())
                .unwrap_or(rest.len());
            let token = &rest[..end];
            let after = rest[end..].trim_start();
            let Some(value_start) = after.strip_prefix('=') else {
                in_bearer =
                    token.eq_ignore_ascii_case("bearer") || token.eq_ignore_ascii_case("dpop");
                rest = after;
                continue;
            };
            let value_start = value_start.trim_start();
            let (value, tail) = match value_start.strip_prefix('"') {
                Some(q) => quoted(q),
                None => {
                    let end = value_start.find(',').unwrap_or(value_start.len());
                    (value_start[..end].trim().to_owned(), &value_start[end..])
                }
            };
            if in_bearer {
                match token.to_ascii_lowercase().as_str() {
                    "resource_metadata" => c.resource_metadata = Some(value),
                    "scope" => c.scope = Some(value),
                    "error" => c.error = Some(value),
                    _ => {}
                }
            }
            rest = tail;
        }
        c
    }

    /// The scopes of `scope`, split.
    pub fn scopes(&self) -> Vec<String> {
        split_scopes(self.scope.as_deref())
    }
}

/// A quoted string (after the opening quote): its unescaped value and what follows.
fn quoted(s: &str) -> (String, &str) {
    let mut out = String::new();
    let mut chars = s.char_indices();
    while let Some((i, ch)) = chars.next() {
        match ch {
            '\\' => {
                if let Some((_, next)) = chars.next() {
                    out.push(next);
                }
            }
            '"' => return (out, &s[i + 1..]),
            c => out.push(c),
        }
    }
    (out, "")
}

pub(crate) fn split_scopes(s: Option<&str>) -> Vec<String> {
    s.map(|s| s.split_whitespace().map(str::to_owned).collect())
        .unwrap_or_default()
}

/// Protected-resource metadata (RFC 9728), the fields the flow reads.
#[derive(Debug, Clone, Deserialize)]
pub struct ResourceMetadata {
    /// The resource identifier.
    pub resource: String,
    /// The authorization servers' issuer URLs.
    #[serde(default)]
    pub authorization_servers: Vec<String>,
    /// The scopes the resource knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
}

/// Authorization-server metadata (RFC 8414 / OpenID Connect Discovery), the fields the
/// flow reads.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct ServerMetadata {
    /// The issuer identifier.
    #[serde(default)]
    pub issuer: String,
    /// The authorization endpoint.
    #[serde(default)]
    pub authorization_endpoint: Option<String>,
    /// The token endpoint.
    #[serde(default)]
    pub token_endpoint: Option<String>,
    /// The dynamic client registration endpoint (RFC 7591).
    #[serde(default)]
    pub registration_endpoint: Option<String>,
    /// The scopes the server knows.
    #[serde(default)]
    pub scopes_supported: Option<Vec<String>>,
    /// The grant types the server supports.
    #[serde(default)]
    pub grant_types_supported: Option<Vec<String>>,
    /// The PKCE methods the server supports.
    #[serde(default)]
    pub code_challenge_methods_supported: Option<Vec<String>>,
    /// How clients may authenticate at the token endpoint.
    #[serde(default)]
    pub token_endpoint_auth_methods_supported: Option<Vec<String>>,
    /// Whether `client_id` may be a Client ID Metadata Document URL.
    #[serde(default)]
    pub client_id_metadata_document_supported: Option<bool>,
    /// Whether authorization responses carry `iss` (RFC 9207).
    #[serde(default)]
    pub authorization_response_iss_parameter_supported: Option<bool>,
    /// The JWS algorithms the token endpoint accepts for `private_key_jwt` assertions.
    #[serde(default)]
    pub token_endpoint_auth_signing_alg_values_supported: Option<Vec<String>>,
    /// The JWS algorithms the server accepts in DPoP proofs (RFC 9449 §5.1); listed when
    /// it issues DPoP-bound tokens.
    #[serde(default)]
    pub dpop_signing_alg_values_supported: Option<Vec<String>>,
}

impl ServerMetadata {
    /// The 2025-03-26 fallback when no metadata exists: the default endpoints at the
    /// server's origin.
    pub(crate) fn defaults(origin: &str) -> ServerMetadata {
        ServerMetadata {
            issuer: origin.to_owned(),
            authorization_endpoint: Some(format!("{origin}/authorize")),
            token_endpoint: Some(format!("{origin}/token")),
            registration_endpoint: Some(format!("{origin}/register")),
            ..ServerMetadata::default()
        }
    }
}

/// Where protected-resource metadata may be, in the order to try: the challenge's
/// `resource_metadata`, else the path-suffixed well-known URL, then the root one.
pub(crate) fn resource_metadata_urls(server: &Url, challenge: &Challenge) -> Vec<String> {
    if let Some(u) = &challenge.resource_metadata {
        return vec![u.clone()];
    }
    let mut urls = Vec::new();
    if !server.path.is_empty() {
        urls.push(server.well_known("oauth-protected-resource"));
    }
    urls.push(server.root_well_known("oauth-protected-resource"));
    urls
}

/// Where an issuer's metadata may be (MCP authorization, "Authorization Server Metadata
/// Discovery"): with a path, the RFC 8414 path-inserted form, the OIDC path-inserted form,
/// then the OIDC appended form; without one, the two root forms.
pub(crate) fn server_metadata_urls(issuer: &Url) -> Vec<String> {
    if issuer.path.is_empty() {
        vec![
            issuer.root_well_known("oauth-authorization-server"),
            issuer.root_well_known("openid-configuration"),
        ]
    } else {
        vec![
            issuer.well_known("oauth-authorization-server"),
            issuer.well_known("openid-configuration"),
            issuer.appended("openid-configuration"),
        ]
    }
}

/// Fetches the first document of `urls` that answers `200` with JSON. `Ok(None)`: none
/// did (each a 4xx or an unparsable document); a transport failure is an error.
pub(crate) async fn first_document(
    wire: &Wire,
    urls: &[String],
) -> Result<Option<(String, Value)>, ClientError> {
    for url in urls {
        let answer = wire.get(url).await?;
        if answer.status.is_success()
            && let Ok(v) = serde_json::from_slice::<Value>(&answer.body)
            && v.is_object()
        {
            return Ok(Some((url.clone(), v)));
        }
        tracing::debug!(url, status = %answer.status, "no metadata here");
    }
    Ok(None)
}

/// Decodes a metadata document.
pub(crate) fn decode<T: serde::de::DeserializeOwned>(
    what: &str,
    url: &str,
    v: Value,
) -> Result<T, ClientError> {
    serde_json::from_value(v).map_err(|e| ClientError::Auth(format!("{what} at {url}: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_yield_their_bearer_parameters() {
        let c = Challenge::parse(
            r#"Bearer error="insufficient_scope", scope="mcp:read mcp:write", resource_metadata="http://h/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
        assert_eq!(c.scopes(), vec!["mcp:read", "mcp:write"]);
        assert_eq!(
            c.resource_metadata.as_deref(),
            Some("http://h/.well-known/oauth-protected-resource/mcp")
        );
        // Unquoted values, escapes, another scheme's parameters ignored.
        let c = Challenge::parse(r#"Basic realm="x", Bearer scope=a, error="say \"hi\"""#);
        assert_eq!(c.scope.as_deref(), Some("a"));
        assert_eq!(c.error.as_deref(), Some(r#"say "hi""#));
        assert_eq!(c.resource_metadata, None);
        // DPoP challenges (RFC 9449 §7.1) carry the same parameters.
        let c = Challenge::parse(
            r#"DPoP algs="ES256", error="use_dpop_nonce", resource_metadata="http://h/m""#,
        );
        assert_eq!(c.error.as_deref(), Some("use_dpop_nonce"));
        assert_eq!(c.resource_metadata.as_deref(), Some("http://h/m"));
        // Garbage neither panics nor loops.
        assert_eq!(Challenge::parse("=,=\"").scope, None);
        assert_eq!(Challenge::parse("Bearer").scope, None);
        assert_eq!(
            Challenge::parse(r#"Bearer scope=""#).scope.as_deref(),
            Some("")
        );
    }

    #[test]
    fn metadata_urls_follow_the_spec_order() {
        let server = Url::parse("http://h:1/mcp").unwrap();
        assert_eq!(
            resource_metadata_urls(&server, &Challenge::default()),
            vec![
                "http://h:1/.well-known/oauth-protected-resource/mcp",
                "http://h:1/.well-known/oauth-protected-resource"
            ]
        );
        let given = Challenge {
            resource_metadata: Some("http://h:1/custom.json".into()),
            ..Challenge::default()
        };
        assert_eq!(
            resource_metadata_urls(&server, &given),
            vec!["http://h:1/custom.json"]
        );
        assert_eq!(
            server_metadata_urls(&Url::parse("http://as/tenant1").unwrap()),
            vec![
                "http://as/.well-known/oauth-authorization-server/tenant1",
                "http://as/.well-known/openid-configuration/tenant1",
                "http://as/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            server_metadata_urls(&Url::parse("http://as/").unwrap()),
            vec![
                "http://as/.well-known/oauth-authorization-server",
                "http://as/.well-known/openid-configuration"
            ]
        );
    }
}
