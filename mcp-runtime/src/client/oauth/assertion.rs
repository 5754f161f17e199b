//! `private_key_jwt` client authentication (RFC 7523 §2.2 and §3, OpenID Connect Core
//! §9; feature `oauth-signing`).

use serde_json::json;

use super::super::error::ClientError;
use super::discovery::ServerMetadata;
use super::pkce::random_token;
use super::signing::{SigningKey, unix_now};

/// How long an assertion is valid: long enough for one request, short enough that a
/// captured one is soon useless.
const LIFETIME_SECS: u64 = 60;

/// A fresh client assertion for the token endpoint of `meta`: `iss` = `sub` = the client
/// id, `aud` = the issuer identifier (RFC 7523bis: the authorization server, not one of its
/// endpoints), `iat`, `exp`, a single-use `jti`. Refused when the server lists the
/// algorithms it accepts and the key's is not among them.
pub(crate) fn client_assertion(
    key: &SigningKey,
    client_id: &str,
    meta: &ServerMetadata,
) -> Result<String, ClientError> {
    let alg = key.algorithm().name();
    if let Some(algs) = &meta.token_endpoint_auth_signing_alg_values_supported
        && !algs.iter().any(|a| a == alg)
    {
        return Err(ClientError::Auth(format!(
            "{} accepts client assertions signed with {algs:?}, not {alg}",
            meta.issuer
        )));
    }
    let now = unix_now();
    let claims = json!({
        "iss": client_id,
        "sub": client_id,
        "aud": meta.issuer,
        "iat": now,
        "exp": now + LIFETIME_SECS,
        "jti": random_token(16),
    });
    key.sign("JWT", false, &claims)
}
