//! The grants: the authorization code flow with PKCE, refresh, and the grants without a
//! user (client credentials, JWT bearer, enterprise-managed); the token requests.

use std::time::{Duration, SystemTime};

use serde_json::Value;

use super::identity::{AuthMethod, Registration};
use super::wire::with_query;
use super::{Challenge, ClientSecret, Discovered, Flow, IdentityAssertion, Inner, TokenExchange};
use super::{ServerMetadata, Tokens};
use super::{pkce, redirect, wire};
use crate::client::error::ClientError;

/// Which grant obtains the tokens.
pub(super) enum Grant {
    AuthorizationCode,
    ClientCredentials(ClientSecret),
    JwtBearer {
        assertion: String,
        client_id: String,
    },
    IdentityAssertion(IdentityAssertion),
}

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const ACCESS_TOKEN: &str = "urn:ietf:params:oauth:token-type:access_token";

impl Inner {
    pub(super) async fn authorization_code(
        &self,
        flow: &mut Flow,
        d: &Discovered,
        scopes: Vec<String>,
    ) -> Result<(), ClientError> {
        let meta = &d.meta;
        if d.documented
            && !meta
                .code_challenge_methods_supported
                .as_ref()
                .is_some_and(|l| l.iter().any(|m| m == "S256"))
        {
            return Err(ClientError::Auth(format!(
                "{} does not list PKCE S256 in code_challenge_methods_supported",
                meta.issuer
            )));
        }
        let (Some(authorize), Some(token)) = (&meta.authorization_endpoint, &meta.token_endpoint)
        else {
            return Err(ClientError::Auth(format!(
                "{} has no authorization or token endpoint",
                meta.issuer
            )));
        };
        let reg = self.registration(flow, meta).await?;
        let pkce = pkce::Pkce::new();
        let state = pkce::random_token(16);
        let scope = scopes.join(" ");
        let mut params: Vec<(&str, &str)> = vec![
            ("response_type", "code"),
            ("client_id", &reg.client_id),
            ("redirect_uri", &self.redirect_uri),
            ("code_challenge", &pkce.challenge),
            ("code_challenge_method", "S256"),
            ("state", &state),
            ("resource", &d.resource),
        ];
        if !scope.is_empty() {
            params.push(("scope", &scope));
        }
        let redirect = self
            .handler
            .authorize(with_query(authorize, &params))
            .await?;
        let cb = redirect::parse_callback(&redirect)?;
        if cb.state.as_deref() != Some(state.as_str()) {
            return Err(ClientError::Auth(
                "the authorization response's state is not the one sent".into(),
            ));
        }
        // RFC 9207: an `iss` must be the issuer, compared as strings; one the server
        // promised must be there.
        match &cb.iss {
            Some(iss) if *iss != meta.issuer => {
                return Err(ClientError::Auth(format!(
                    "the authorization response comes from issuer {iss:?}, not {:?}",
                    meta.issuer
                )));
            }
            None if meta.authorization_response_iss_parameter_supported == Some(true) => {
                return Err(ClientError::Auth(
                    "the authorization response lacks the iss its server advertises".into(),
                ));
            }
            _ => {}
        }
        let form: Vec<(&'static str, String)> = vec![
            ("grant_type", "authorization_code".into()),
            ("code", cb.code),
            ("redirect_uri", self.redirect_uri.clone()),
            ("code_verifier", pkce.verifier),
            ("resource", d.resource.clone()),
        ];
        let tokens = self
            .token_request(token, &reg, &form, meta, &scope, None)
            .await?;
        flow.requested = scopes;
        self.store.save(&self.server_url, Some(tokens));
        Ok(())
    }

    pub(super) async fn refresh(
        &self,
        flow: &mut Flow,
        d: &Discovered,
        old: &Tokens,
    ) -> Result<Tokens, ClientError> {
        let (Some(refresh), Some(token)) = (&old.refresh_token, &d.meta.token_endpoint) else {
            return Err(ClientError::Auth("nothing to refresh with".into()));
        };
        if old.issuer != d.meta.issuer {
            return Err(ClientError::Auth(
                "the refresh token belongs to another issuer".into(),
            ));
        }
        let reg = self.registration(flow, &d.meta).await?;
        let form: Vec<(&'static str, String)> = vec![
            ("grant_type", "refresh_token".into()),
            ("refresh_token", refresh.clone()),
            ("resource", d.resource.clone()),
        ];
        let scope = old.scope.clone().unwrap_or_default();
        let res = self
            .token_request(token, &reg, &form, &d.meta, &scope, Some(refresh))
            .await;
        match res {
            Ok(t) => {
                self.store.save(&self.server_url, Some(t.clone()));
                Ok(t)
            }
            Err(e) => {
                // A refused refresh token is dead: forget it, keep the rest.
                let mut kept = old.clone();
                kept.refresh_token = None;
                self.store.save(&self.server_url, Some(kept));
                Err(e)
            }
        }
    }

    /// The grants without a user: `client_credentials`, JWT-bearer, enterprise-managed.
    pub(super) async fn machine_grant(
        &self,
        flow: &mut Flow,
        d: &Discovered,
        scopes: &[String],
    ) -> Result<(), ClientError> {
        let token =
            d.meta.token_endpoint.as_ref().ok_or_else(|| {
                ClientError::Auth(format!("{} has no token endpoint", d.meta.issuer))
            })?;
        let confidential = |c: &ClientSecret| Registration {
            client_id: c.client_id.clone(),
            client_secret: c.client_secret.clone(),
            method: AuthMethod::choose(&d.meta, c.client_secret.is_some(), self.has_client_key()),
        };
        let scope = scopes.join(" ");
        let (reg, mut form): (Registration, Vec<(&'static str, String)>) = match &self.grant {
            Grant::AuthorizationCode => {
                return Err(ClientError::Auth(
                    "the authorization code grant needs a user".into(),
                ));
            }
            Grant::ClientCredentials(c) => (
                confidential(c),
                vec![("grant_type", "client_credentials".into())],
            ),
            Grant::JwtBearer {
                assertion,
                client_id,
            } => (
                Registration {
                    client_id: client_id.clone(),
                    client_secret: None,
                    method: AuthMethod::None,
                },
                vec![
                    ("grant_type", JWT_BEARER.into()),
                    ("assertion", assertion.clone()),
                ],
            ),
            Grant::IdentityAssertion(g) => {
                let jag = self.exchange_id_token(g, d, &scope).await?;
                (
                    confidential(&g.client),
                    vec![("grant_type", JWT_BEARER.into()), ("assertion", jag)],
                )
            }
        };
        form.push(("resource", d.resource.clone()));
        if !scope.is_empty() {
            form.push(("scope", scope.clone()));
        }
        let tokens = self
            .token_request(token, &reg, &form, &d.meta, &scope, None)
            .await?;
        flow.requested = scopes.to_vec();
        self.store.save(&self.server_url, Some(tokens));
        Ok(())
    }

    /// RFC 8693 at the server's authorization server: `subject_token` (an access token)
    /// for an access token for the server, authenticated as our own client.
    pub(super) async fn token_exchange(
        &self,
        subject_token: &str,
        x: &TokenExchange,
    ) -> Result<Tokens, ClientError> {
        let d = {
            let mut flow = self.flow.lock().await;
            match flow.last.clone() {
                Some(d) => d,
                None => {
                    let d = self.discover(&Challenge::default()).await?;
                    flow.last = Some(d.clone());
                    d
                }
            }
        };
        let token =
            d.meta.token_endpoint.as_ref().ok_or_else(|| {
                ClientError::Auth(format!("{} has no token endpoint", d.meta.issuer))
            })?;
        let client = match &self.grant {
            Grant::ClientCredentials(c) => Some(c),
            _ => (self.pre_registered.iter()).find(|c| c.fits(&d.meta.issuer)),
        };
        let Some(client) = client else {
            return Err(ClientError::Auth(
                "a token exchange needs our client's own credentials (client credentials or pre-registered)".into(),
            ));
        };
        let reg = Registration {
            client_id: client.client_id.clone(),
            client_secret: client.client_secret.clone(),
            method: AuthMethod::choose(
                &d.meta,
                client.client_secret.is_some(),
                self.has_client_key(),
            ),
        };
        let scope = x.scope.clone().unwrap_or_default();
        let audience = x.audience.clone().unwrap_or_else(|| d.resource.clone());
        let mut form: Vec<(&'static str, String)> = vec![
            ("grant_type", TOKEN_EXCHANGE.into()),
            ("subject_token", subject_token.to_owned()),
            ("subject_token_type", ACCESS_TOKEN.into()),
            ("requested_token_type", ACCESS_TOKEN.into()),
            ("resource", d.resource.clone()),
            ("audience", audience),
        ];
        if !scope.is_empty() {
            form.push(("scope", scope.clone()));
        }
        let mut tokens = self
            .token_request(token, &reg, &form, &d.meta, &scope, None)
            .await
            .map_err(|e| match e {
                ClientError::Auth(m) => {
                    ClientError::Auth(m.replacen("the token request", "the token exchange", 1))
                }
                other => other,
            })?;
        // The subject's token is exchanged again rather than refreshed.
        tokens.refresh_token = None;
        Ok(tokens)
    }

    /// RFC 8693 at the identity provider: the ID token for an ID-JAG whose audience is the
    /// authorization server and whose resource is this MCP server.
    async fn exchange_id_token(
        &self,
        g: &IdentityAssertion,
        d: &Discovered,
        scope: &str,
    ) -> Result<String, ClientError> {
        let mut form: Vec<(&'static str, String)> = vec![
            ("grant_type", TOKEN_EXCHANGE.into()),
            ("subject_token", g.id_token.clone()),
            ("subject_token_type", ID_TOKEN.into()),
            ("requested_token_type", ID_JAG.into()),
            ("audience", d.meta.issuer.clone()),
            ("resource", d.resource.clone()),
        ];
        if !scope.is_empty() {
            form.push(("scope", scope.to_owned()));
        }
        let reg = Registration {
            client_id: g.idp_client.client_id.clone(),
            client_secret: g.idp_client.client_secret.clone(),
            method: if g.idp_client.client_secret.is_some() {
                AuthMethod::Basic
            } else {
                AuthMethod::None
            },
        };
        let headers: Vec<(&'static str, String)> = reg
            .authenticate(&mut form)
            .flatten()
            .map(|a| ("authorization", a))
            .into_iter()
            .collect();
        let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let answer = self
            .wire
            .post_form(&g.idp_token_endpoint, &pairs, &headers)
            .await?;
        if !answer.status.is_success() {
            return Err(answer.token_error("the token exchange"));
        }
        let v = answer.json("the token exchange")?;
        if v.get("issued_token_type").and_then(Value::as_str) != Some(ID_JAG) {
            return Err(ClientError::Auth(
                "the token exchange did not issue an identity assertion grant".into(),
            ));
        }
        v.get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| ClientError::Auth("the token exchange answer has no token".into()))
    }

    /// The `DPoP` proof of a token request, when this server issues DPoP-bound tokens.
    #[cfg_attr(not(feature = "oauth-signing"), allow(unused_variables))]
    fn token_proof(
        &self,
        endpoint: &str,
        meta: &ServerMetadata,
    ) -> Result<Option<String>, ClientError> {
        #[cfg(feature = "oauth-signing")]
        if let Some(d) = self.dpop.as_ref().filter(|d| d.offered_by(meta)) {
            return d.proof("POST", endpoint, None).map(Some);
        }
        Ok(None)
    }

    /// Whether the token endpoint's answer is a `use_dpop_nonce` error to retry (its
    /// nonce is kept either way).
    #[cfg_attr(not(feature = "oauth-signing"), allow(unused_variables))]
    fn token_nonce_retry(&self, endpoint: &str, answer: &wire::Answer) -> bool {
        #[cfg(feature = "oauth-signing")]
        if let Some(d) = &self.dpop {
            return d.token_answer_wants_retry(
                endpoint,
                answer.status,
                &answer.headers,
                &answer.body,
            );
        }
        false
    }

    /// POSTs to the token endpoint; `asked` is the scope sent (the granted one when the
    /// answer names none); `old_refresh` is kept when a refresh answer has no new one.
    /// With DPoP, a `use_dpop_nonce` answer is retried once with the nonce it sent.
    async fn token_request(
        &self,
        endpoint: &str,
        reg: &Registration,
        form: &[(&'static str, String)],
        meta: &ServerMetadata,
        asked: &str,
        old_refresh: Option<&String>,
    ) -> Result<Tokens, ClientError> {
        let issuer = meta.issuer.as_str();
        let mut retried = false;
        let (answer, proved) = loop {
            let mut fields = form.to_vec();
            let mut headers = self.authenticate(reg, &mut fields, meta)?;
            let proof = self.token_proof(endpoint, meta)?;
            let proved = proof.is_some();
            if let Some(p) = proof {
                headers.push(("dpop", p));
            }
            let pairs: Vec<(&str, &str)> = fields.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let answer = self.wire.post_form(endpoint, &pairs, &headers).await?;
            if !retried && self.token_nonce_retry(endpoint, &answer) {
                retried = true;
                continue;
            }
            break (answer, proved);
        };
        if !answer.status.is_success() {
            return Err(answer.token_error("the token request"));
        }
        let v = answer.json("the token request")?;
        let access_token = v
            .get("access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| ClientError::Auth("the token answer has no access_token".into()))?
            .to_owned();
        let kind = v
            .get("token_type")
            .and_then(Value::as_str)
            .unwrap_or("Bearer");
        // A DPoP-bound token only when a proof was sent (RFC 9449 §5: the server may
        // still issue a bearer token).
        let dpop = proved && kind.eq_ignore_ascii_case("dpop");
        if !dpop && !kind.eq_ignore_ascii_case("bearer") {
            return Err(ClientError::Auth(format!(
                "the token is of type {kind:?}, not Bearer{}",
                if proved { " or DPoP" } else { "" }
            )));
        }
        let expires_at = v
            .get("expires_in")
            .and_then(|e| {
                e.as_f64()
                    .or_else(|| e.as_str().and_then(|s| s.parse().ok()))
            })
            .filter(|s| s.is_finite() && *s >= 0.0)
            .map(|s| SystemTime::now() + Duration::from_secs_f64(s.min(1e9)));
        let scope = v
            .get("scope")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| (!asked.is_empty()).then(|| asked.to_owned()));
        let refresh_token = v
            .get("refresh_token")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| old_refresh.cloned());
        Ok(Tokens {
            access_token,
            refresh_token,
            expires_at,
            scope,
            issuer: issuer.to_owned(),
            dpop,
        })
    }
}
