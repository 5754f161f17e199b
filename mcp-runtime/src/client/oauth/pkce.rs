//! PKCE (RFC 7636) with the `S256` method, and the random `state` values of the flow.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};

/// `n` random bytes, base64url without padding.
pub(crate) fn random_token(n: usize) -> String {
    let mut b = vec![0u8; n];
    getrandom::fill(&mut b).expect("the OS random source failed");
    URL_SAFE_NO_PAD.encode(b)
}

/// A code verifier and its `S256` challenge.
pub(crate) struct Pkce {
    pub(crate) verifier: String,
    pub(crate) challenge: String,
}

impl Pkce {
    /// A fresh verifier: 32 random bytes, 43 characters (RFC 7636 §4.1 allows 43-128).
    pub(crate) fn new() -> Pkce {
        let verifier = random_token(32);
        let challenge = challenge_of(&verifier);
        Pkce {
            verifier,
            challenge,
        }
    }
}

/// `BASE64URL(SHA256(verifier))`.
pub(crate) fn challenge_of(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_s256_challenge_matches_rfc_7636_appendix_b() {
        assert_eq!(
            challenge_of("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn verifiers_are_fresh_and_of_legal_length() {
        let a = Pkce::new();
        let b = Pkce::new();
        assert_ne!(a.verifier, b.verifier);
        assert_eq!(a.verifier.len(), 43);
        assert_eq!(a.challenge, challenge_of(&a.verifier));
    }
}
