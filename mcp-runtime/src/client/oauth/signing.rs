//! The keys the OAuth client signs with (feature `oauth-signing`): `private_key_jwt` client
//! assertions (RFC 7523 §2.2) and DPoP proofs (RFC 9449). The signatures are
//! `jsonwebtoken`'s (RustCrypto); a fresh P-256 key comes from `p256`.

use base64::Engine;
use jsonwebtoken::jwk::{CommonParameters, Jwk, ThumbprintHash};
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::Value;

use super::super::error::ClientError;

/// The JWS algorithm of a [`SigningKey`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SigningAlgorithm {
    /// ECDSA on P-256 with SHA-256.
    Es256,
    /// RSASSA-PKCS1-v1_5 with SHA-256.
    Rs256,
}

impl SigningAlgorithm {
    /// The JWS `alg` name (`ES256`, `RS256`), as authorization servers list it.
    pub fn name(self) -> &'static str {
        match self {
            SigningAlgorithm::Es256 => "ES256",
            SigningAlgorithm::Rs256 => "RS256",
        }
    }

    fn jws(self) -> Algorithm {
        match self {
            SigningAlgorithm::Es256 => Algorithm::ES256,
            SigningAlgorithm::Rs256 => Algorithm::RS256,
        }
    }
}

/// A private key the OAuth client signs JWTs with: the `private_key_jwt` client
/// assertion ([`OAuthBuilder::private_key_jwt`](super::OAuthBuilder::private_key_jwt)) and
/// DPoP proofs ([`OAuthBuilder::dpop`](super::OAuthBuilder::dpop)).
///
/// ```
/// use mcp_runtime::client::oauth::{SigningAlgorithm, SigningKey};
///
/// let key = SigningKey::generate_es256();
/// assert_eq!(key.algorithm(), SigningAlgorithm::Es256);
/// // The public half, as the authorization server registers it.
/// assert_eq!(key.public_jwk()["kty"], "EC");
/// assert!(SigningKey::from_pem("not a key").is_err());
/// ```
#[derive(Clone)]
pub struct SigningKey {
    enc: EncodingKey,
    alg: SigningAlgorithm,
    /// The public key (no `alg`/`kid`: what goes into a DPoP header).
    public: Jwk,
}

impl std::fmt::Debug for SigningKey {
    /// Never prints the private key.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SigningKey")
            .field("alg", &self.alg)
            .field("thumbprint", &self.thumbprint())
            .finish_non_exhaustive()
    }
}

impl SigningKey {
    /// A fresh P-256 key (ES256) from the OS random source: the ephemeral DPoP key.
    pub fn generate_es256() -> SigningKey {
        use p256::elliptic_curve::Generate;
        use p256::pkcs8::EncodePrivateKey;
        let der = p256::SecretKey::generate()
            .to_pkcs8_der()
            .expect("a fresh P-256 key encodes as PKCS#8");
        SigningKey::es256_pkcs8_der(der.as_bytes()).expect("a fresh P-256 key is valid")
    }

    /// An ES256 key from its PKCS#8 DER encoding (a P-256 private key).
    pub fn es256_pkcs8_der(der: &[u8]) -> Result<SigningKey, ClientError> {
        SigningKey::new(EncodingKey::from_ec_der(der), SigningAlgorithm::Es256)
    }

    /// An RS256 key from its PKCS#1 DER encoding (an RSA private key).
    pub fn rs256_pkcs1_der(der: &[u8]) -> Result<SigningKey, ClientError> {
        SigningKey::new(EncodingKey::from_rsa_der(der), SigningAlgorithm::Rs256)
    }

    /// A key from PEM: `-----BEGIN PRIVATE KEY-----` (PKCS#8) holds a P-256 key (ES256),
    /// `-----BEGIN RSA PRIVATE KEY-----` (PKCS#1) an RSA key (RS256).
    pub fn from_pem(pem: &str) -> Result<SigningKey, ClientError> {
        if let Some(der) = pem_block(pem, "PRIVATE KEY") {
            SigningKey::es256_pkcs8_der(&der?)
        } else if let Some(der) = pem_block(pem, "RSA PRIVATE KEY") {
            SigningKey::rs256_pkcs1_der(&der?)
        } else {
            Err(bad_key(
                "no PKCS#8 `PRIVATE KEY` or PKCS#1 `RSA PRIVATE KEY` PEM block",
            ))
        }
    }

    fn new(enc: EncodingKey, alg: SigningAlgorithm) -> Result<SigningKey, ClientError> {
        // Deriving the public key parses the private one: a bad key fails here, not at
        // the first signature.
        let mut public = Jwk::from_encoding_key(&enc, alg.jws())
            .map_err(|e| bad_key(&format!("not a usable {} key: {e}", alg.name())))?;
        public.common = CommonParameters::default();
        Ok(SigningKey { enc, alg, public })
    }

    /// The algorithm this key signs with.
    pub fn algorithm(&self) -> SigningAlgorithm {
        self.alg
    }

    /// The public key as a JWK (`kty`, `crv`/`x`/`y` or `n`/`e`).
    pub fn public_jwk(&self) -> Value {
        serde_json::to_value(&self.public).unwrap_or(Value::Null)
    }

    /// The RFC 7638 SHA-256 thumbprint of the public key, base64url: what a DPoP-bound
    /// token names in `cnf.jkt`.
    pub fn thumbprint(&self) -> String {
        self.public
            .thumbprint(ThumbprintHash::SHA256)
            .unwrap_or_default()
    }

    /// A compact JWS of `claims`, with `typ` and (for DPoP) the public key in the header.
    pub(crate) fn sign(
        &self,
        typ: &str,
        embed_jwk: bool,
        claims: &Value,
    ) -> Result<String, ClientError> {
        let mut header = Header::new(self.alg.jws());
        header.typ = Some(typ.to_owned());
        if embed_jwk {
            header.jwk = Some(self.public.clone());
        }
        jsonwebtoken::encode(&header, claims, &self.enc)
            .map_err(|e| ClientError::Auth(format!("signing a {typ}: {e}")))
    }
}

fn bad_key(why: &str) -> ClientError {
    ClientError::Auth(format!("signing key: {why}"))
}

/// The DER bytes of the PEM block labelled exactly `label` (`None`: no such block).
fn pem_block(pem: &str, label: &str) -> Option<Result<Vec<u8>, ClientError>> {
    let begin = format!("-----BEGIN {label}-----");
    let end = format!("-----END {label}-----");
    let start = pem.find(&begin)? + begin.len();
    let Some(len) = pem[start..].find(&end) else {
        return Some(Err(bad_key(&format!(
            "the {label} PEM block is not closed"
        ))));
    };
    let body: String = pem[start..start + len]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    Some(
        base64::engine::general_purpose::STANDARD
            .decode(body)
            .map_err(|_| bad_key(&format!("the {label} PEM block is not base64"))),
    )
}

/// Seconds since the Unix epoch (the `iat`/`exp` clock).
pub(crate) fn unix_now() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Verifies `jwt` with the public JWK of `key` (as an authorization server would).
    fn verify(jwt: &str, key: &SigningKey, alg: Algorithm) -> Value {
        let jwk: Jwk = serde_json::from_value(key.public_jwk()).unwrap();
        let dec = jsonwebtoken::DecodingKey::from_jwk(&jwk).unwrap();
        let mut v = jsonwebtoken::Validation::new(alg);
        v.required_spec_claims.clear();
        v.validate_exp = false;
        jsonwebtoken::decode::<Value>(jwt, &dec, &v).unwrap().claims
    }

    #[test]
    fn es256_and_rs256_keys_sign_what_their_public_keys_verify() {
        let claims = serde_json::json!({"iss": "c", "jti": "1"});
        let es = SigningKey::generate_es256();
        let jwt = es.sign("dpop+jwt", true, &claims).unwrap();
        assert_eq!(verify(&jwt, &es, Algorithm::ES256), claims);
        let header = jsonwebtoken::decode_header(&jwt).unwrap();
        assert_eq!(header.typ.as_deref(), Some("dpop+jwt"));
        assert!(header.jwk.is_some());

        use rsa::Generate;
        use rsa::pkcs1::EncodeRsaPrivateKey;
        let der = rsa::PrivateKey::generate().to_pkcs1_der().unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(der.as_bytes());
        let pem =
            format!("-----BEGIN RSA PRIVATE KEY-----\n{b64}\n-----END RSA PRIVATE KEY-----\n");
        let rs = SigningKey::from_pem(&pem).unwrap();
        assert_eq!(rs.algorithm(), SigningAlgorithm::Rs256);
        assert_eq!(rs.public_jwk()["kty"], "RSA");
        let jwt = rs.sign("JWT", false, &claims).unwrap();
        assert_eq!(verify(&jwt, &rs, Algorithm::RS256), claims);
        assert!(jsonwebtoken::decode_header(&jwt).unwrap().jwk.is_none());
    }

    #[test]
    fn a_pem_key_round_trips_and_bad_pem_is_a_clear_error() {
        use p256::elliptic_curve::Generate;
        use p256::pkcs8::EncodePrivateKey;
        let der = p256::SecretKey::generate().to_pkcs8_der().unwrap();
        let b64 = base64::engine::general_purpose::STANDARD.encode(der.as_bytes());
        let pem = format!("-----BEGIN PRIVATE KEY-----\n{b64}\n-----END PRIVATE KEY-----\n");
        let key = SigningKey::from_pem(&pem).unwrap();
        assert_eq!(key.algorithm().name(), "ES256");
        assert_eq!(key.public_jwk()["crv"], "P-256");
        assert!(key.public_jwk().get("d").is_none());
        assert_eq!(key.thumbprint().len(), 43);

        let err = |r: Result<SigningKey, ClientError>| r.unwrap_err().to_string();
        assert!(err(SigningKey::from_pem("hello")).contains("no PKCS#8"));
        assert!(
            err(SigningKey::from_pem("-----BEGIN PRIVATE KEY-----\nAAAA")).contains("not closed")
        );
        assert!(
            err(SigningKey::from_pem(
                "-----BEGIN PRIVATE KEY-----\n!!\n-----END PRIVATE KEY-----"
            ))
            .contains("not base64")
        );
        assert!(
            err(SigningKey::from_pem(
                "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"
            ))
            .contains("not a usable ES256 key")
        );
    }
}
