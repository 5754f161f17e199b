//! The client's identity at an authorization server: pre-registered credentials, a
//! Client ID Metadata Document or dynamic registration, and how it authenticates.

use serde_json::{Value, json};

use super::ServerMetadata;
#[cfg(feature = "oauth-signing")]
use super::assertion;
use super::wire::basic_auth;
use super::{Flow, Inner};
use crate::client::error::ClientError;

/// The `client_assertion_type` of a `private_key_jwt` client (RFC 7523 §2.2).
#[cfg(feature = "oauth-signing")]
const CLIENT_ASSERTION_JWT: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// How the client authenticates at the token endpoint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum AuthMethod {
    Basic,
    Post,
    None,
    /// A JWT assertion signed with the client's key (RFC 7523 §2.2, OIDC `private_key_jwt`).
    #[cfg(feature = "oauth-signing")]
    PrivateKeyJwt,
}

impl AuthMethod {
    fn parse(s: &str) -> Option<AuthMethod> {
        match s {
            "client_secret_basic" => Some(AuthMethod::Basic),
            "client_secret_post" => Some(AuthMethod::Post),
            "none" => Some(AuthMethod::None),
            _ => None,
        }
    }

    /// What a client with (or without) a secret or a signing key uses among what the
    /// server supports (RFC 8414: `client_secret_basic` when the server lists nothing). A
    /// key is used when the server lists `private_key_jwt`, or lists nothing and there is
    /// no secret.
    pub(super) fn choose(meta: &ServerMetadata, has_secret: bool, has_key: bool) -> AuthMethod {
        let listed_list = meta.token_endpoint_auth_methods_supported.as_ref();
        #[cfg(feature = "oauth-signing")]
        if has_key && listed_list.map_or(!has_secret, |l| l.iter().any(|x| x == "private_key_jwt"))
        {
            return AuthMethod::PrivateKeyJwt;
        }
        let _ = has_key;
        if !has_secret {
            return AuthMethod::None;
        }
        let listed = |m: &str| listed_list.is_none_or(|l| l.iter().any(|x| x == m));
        if listed("client_secret_basic") {
            AuthMethod::Basic
        } else if listed("client_secret_post") {
            AuthMethod::Post
        } else {
            AuthMethod::Basic
        }
    }
}

/// The client's identity at one authorization server.
#[derive(Clone)]
pub(super) struct Registration {
    pub(super) client_id: String,
    pub(super) client_secret: Option<String>,
    pub(super) method: AuthMethod,
}

impl Registration {
    /// The form fields and `Authorization` header that authenticate the client with a
    /// secret (or as a public client). `None` for `private_key_jwt`, which
    /// [`Inner::authenticate`] signs.
    pub(super) fn authenticate(
        &self,
        form: &mut Vec<(&'static str, String)>,
    ) -> Option<Option<String>> {
        match (self.method, &self.client_secret) {
            #[cfg(feature = "oauth-signing")]
            (AuthMethod::PrivateKeyJwt, _) => None,
            (AuthMethod::Basic, Some(secret)) => Some(Some(basic_auth(&self.client_id, secret))),
            (AuthMethod::Post, Some(secret)) => {
                form.push(("client_id", self.client_id.clone()));
                form.push(("client_secret", secret.clone()));
                Some(None)
            }
            _ => {
                form.push(("client_id", self.client_id.clone()));
                Some(None)
            }
        }
    }
}

impl Inner {
    pub(super) async fn registration(
        &self,
        flow: &mut Flow,
        meta: &ServerMetadata,
    ) -> Result<Registration, ClientError> {
        if let Some(r) = flow.registrations.get(&meta.issuer) {
            return Ok(r.clone());
        }
        let r = if let Some(c) = self.pre_registered.iter().find(|c| c.fits(&meta.issuer)) {
            Registration {
                client_id: c.client_id.clone(),
                client_secret: c.client_secret.clone(),
                method: AuthMethod::choose(meta, c.client_secret.is_some(), self.has_client_key()),
            }
        } else if let (Some(true), Some(url)) = (
            meta.client_id_metadata_document_supported,
            &self.client_metadata_url,
        ) {
            Registration {
                client_id: url.clone(),
                client_secret: None,
                method: AuthMethod::None,
            }
        } else if let Some(endpoint) = &meta.registration_endpoint {
            self.register(endpoint, meta).await?
        } else {
            return Err(ClientError::Auth(format!(
                "{} offers no dynamic registration and no credentials are configured for it",
                meta.issuer
            )));
        };
        flow.registrations.insert(meta.issuer.clone(), r.clone());
        Ok(r)
    }

    /// Dynamic client registration (RFC 7591).
    async fn register(
        &self,
        endpoint: &str,
        meta: &ServerMetadata,
    ) -> Result<Registration, ClientError> {
        let supported = |m: &str| {
            meta.token_endpoint_auth_methods_supported
                .as_ref()
                .is_none_or(|l| l.iter().any(|x| x == m))
        };
        let method = ["none", "client_secret_basic", "client_secret_post"]
            .into_iter()
            .find(|m| supported(m))
            .unwrap_or("client_secret_basic");
        let body = json!({
            "client_name": self.client_name,
            "redirect_uris": [self.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
            "application_type": application_type(&self.redirect_uri),
        });
        let answer = self.wire.post_json(endpoint, &body).await?;
        if !answer.status.is_success() {
            return Err(answer.token_error("client registration"));
        }
        let v = answer.json("client registration")?;
        let client_id = v
            .get("client_id")
            .and_then(Value::as_str)
            .ok_or_else(|| ClientError::Auth("the registration answer has no client_id".into()))?
            .to_owned();
        let client_secret = v
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let method = v
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .and_then(AuthMethod::parse)
            .unwrap_or_else(|| AuthMethod::choose(meta, client_secret.is_some(), false));
        Ok(Registration {
            client_id,
            client_secret,
            method,
        })
    }

    /// Whether a `private_key_jwt` key is configured.
    pub(super) fn has_client_key(&self) -> bool {
        #[cfg(feature = "oauth-signing")]
        return self.client_key.is_some();
        #[cfg(not(feature = "oauth-signing"))]
        false
    }

    /// The client authentication of one token request: form fields and the headers
    /// (`Authorization` for `client_secret_basic`). A `private_key_jwt` assertion is made
    /// afresh for every request (its `jti` is single-use).
    pub(super) fn authenticate(
        &self,
        reg: &Registration,
        form: &mut Vec<(&'static str, String)>,
        meta: &ServerMetadata,
    ) -> Result<Vec<(&'static str, String)>, ClientError> {
        if let Some(authorization) = reg.authenticate(form) {
            return Ok(authorization
                .map(|a| ("authorization", a))
                .into_iter()
                .collect());
        }
        #[cfg(feature = "oauth-signing")]
        if let Some(key) = &self.client_key {
            form.push(("client_id", reg.client_id.clone()));
            form.push(("client_assertion_type", CLIENT_ASSERTION_JWT.into()));
            form.push((
                "client_assertion",
                assertion::client_assertion(key, &reg.client_id, meta)?,
            ));
            return Ok(Vec::new());
        }
        let _ = meta;
        Err(ClientError::Auth(
            "private_key_jwt needs a signing key".into(),
        ))
    }
}

/// RFC 7591 / OIDC `application_type`: `native` for loopback and custom-scheme redirects.
fn application_type(redirect_uri: &str) -> &'static str {
    match redirect_uri.parse::<hyper::Uri>() {
        Ok(u) if matches!(u.scheme_str(), Some("http" | "https")) => match u.host() {
            Some("localhost" | "127.0.0.1" | "[::1]") => "native",
            _ => "web",
        },
        _ => "native",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_and_custom_scheme_redirects_are_native() {
        assert_eq!(application_type("http://127.0.0.1:8765/cb"), "native");
        assert_eq!(application_type("http://localhost/cb"), "native");
        assert_eq!(application_type("com.example.app:/cb"), "native");
        assert_eq!(application_type("https://app.example.com/cb"), "web");
    }

    #[test]
    fn the_auth_method_follows_what_the_server_lists() {
        let mut m = ServerMetadata::default();
        assert_eq!(AuthMethod::choose(&m, true, false), AuthMethod::Basic);
        assert_eq!(AuthMethod::choose(&m, false, false), AuthMethod::None);
        m.token_endpoint_auth_methods_supported = Some(vec!["client_secret_post".into()]);
        assert_eq!(AuthMethod::choose(&m, true, false), AuthMethod::Post);
        #[cfg(feature = "oauth-signing")]
        {
            // A key is used where private_key_jwt is listed, or nothing is and there is
            // no secret to use instead.
            assert_eq!(AuthMethod::choose(&m, false, true), AuthMethod::None);
            m.token_endpoint_auth_methods_supported = Some(vec!["private_key_jwt".into()]);
            assert_eq!(
                AuthMethod::choose(&m, true, true),
                AuthMethod::PrivateKeyJwt
            );
            m.token_endpoint_auth_methods_supported = None;
            assert_eq!(
                AuthMethod::choose(&m, false, true),
                AuthMethod::PrivateKeyJwt
            );
            assert_eq!(AuthMethod::choose(&m, true, true), AuthMethod::Basic);
        }
    }
}
