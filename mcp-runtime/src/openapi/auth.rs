//! [`Auth`]: the credentials sent to the API with every request. They are the API's
//! credentials, configured by whoever runs the server; what the MCP client sent to the
//! server (its own bearer token, its headers) is never copied into an API request.

use std::fmt;

use base64::Engine;
use serde_json::Value;

use super::document::{Document, escape};
use super::error::OpenApiError;

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
    value: String,
}

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
            value: value.into(),
        }
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
    /// token; `http` `basic` takes it as `user:password`. Other kinds (OAuth 2, OpenID
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

    pub(super) fn value(&self) -> &str {
        &self.value
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
        let k = Auth::for_scheme(&doc, "key", "s").unwrap();
        assert_eq!(
            (k.place(), k.name(), k.value()),
            (ApiKeyIn::Query, "api_key", "s")
        );
        assert_eq!(
            Auth::for_scheme(&doc, "token", "t").unwrap().value(),
            "Bearer t"
        );
        assert_eq!(
            Auth::for_scheme(&doc, "pw", "u:p").unwrap().value(),
            "Basic dTpw"
        );
        let e = Auth::for_scheme(&doc, "oauth", "x").unwrap_err();
        assert_eq!(e.place(), "#/components/securitySchemes/oauth");
        assert!(Auth::for_scheme(&doc, "nope", "x").is_err());
    }
}
