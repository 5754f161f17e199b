//! Where tokens are kept between requests (and, with a store of your own, between runs).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

/// The tokens of one protected resource.
#[derive(Clone, PartialEq, Eq)]
pub struct Tokens {
    /// The access token.
    pub access_token: String,
    /// The refresh token, when the server issued one.
    pub refresh_token: Option<String>,
    /// When the access token expires (from `expires_in`), when known.
    pub expires_at: Option<SystemTime>,
    /// The scopes granted (space-separated), when the server said.
    pub scope: Option<String>,
    /// The issuer of the authorization server that issued them (a refresh token is only
    /// ever sent back there).
    pub issuer: String,
    /// The access token is DPoP-bound (`token_type: DPoP`, RFC 9449): it is sent as
    /// `Authorization: DPoP` with a proof from the provider's key, which must be the key
    /// it was issued for.
    pub dpop: bool,
}

impl Tokens {
    /// Whether the access token has expired, or will within `margin`.
    pub fn expires_within(&self, margin: Duration) -> bool {
        self.expires_at
            .is_some_and(|at| at <= SystemTime::now() + margin)
    }
}

impl std::fmt::Debug for Tokens {
    /// Never prints the tokens themselves.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tokens")
            .field("refresh_token", &self.refresh_token.as_ref().map(|_| ".."))
            .field("expires_at", &self.expires_at)
            .field("scope", &self.scope)
            .field("issuer", &self.issuer)
            .field("dpop", &self.dpop)
            .finish_non_exhaustive()
    }
}

/// Keeps [`Tokens`] per protected resource (the key is the resource identifier).
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::Mutex;
/// use mcp_runtime::client::oauth::{TokenStore, Tokens};
///
/// /// A store that logs what it keeps.
/// #[derive(Default)]
/// struct Logged(Mutex<HashMap<String, Tokens>>);
///
/// impl TokenStore for Logged {
///     fn load(&self, resource: &str) -> Option<Tokens> {
///         self.0.lock().unwrap().get(resource).cloned()
///     }
///     fn save(&self, resource: &str, tokens: Option<Tokens>) {
///         println!("tokens for {resource}: {}", tokens.is_some());
///         let mut m = self.0.lock().unwrap();
///         match tokens {
///             Some(t) => { m.insert(resource.to_owned(), t); }
///             None => { m.remove(resource); }
///         }
///     }
/// }
/// ```
pub trait TokenStore: Send + Sync + 'static {
    /// The tokens kept for `resource`.
    fn load(&self, resource: &str) -> Option<Tokens>;
    /// Keeps (or, with `None`, forgets) the tokens of `resource`.
    fn save(&self, resource: &str, tokens: Option<Tokens>);
}

/// The default store: in memory, gone with the process.
#[derive(Default)]
pub struct MemoryTokenStore {
    tokens: Mutex<HashMap<String, Tokens>>,
}

impl TokenStore for MemoryTokenStore {
    fn load(&self, resource: &str) -> Option<Tokens> {
        self.tokens
            .lock()
            .expect("token store lock")
            .get(resource)
            .cloned()
    }

    fn save(&self, resource: &str, tokens: Option<Tokens>) {
        let mut m = self.tokens.lock().expect("token store lock");
        match tokens {
            Some(t) => {
                m.insert(resource.to_owned(), t);
            }
            None => {
                m.remove(resource);
            }
        }
    }
}
