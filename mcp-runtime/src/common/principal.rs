//! The authenticated caller of a request: plain data a transport attaches to the context.

use serde_json::Value;

/// Who a request comes from, as the transport's authentication established it (on HTTP,
/// the `TokenValidator` of `transport::http::auth`). Handlers read it with
/// `ctx.extensions().get::<Principal>()`; tasks and multi-round input are bound to its subject.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Principal {
    /// The subject (user or service) the token was issued to.
    pub subject: String,
    /// The OAuth client the token was issued through, when known.
    pub client_id: Option<String>,
    /// The scopes the token grants.
    pub scopes: Vec<String>,
    /// Any further claims the validator wants handlers to see.
    pub claims: serde_json::Map<String, Value>,
}

impl Principal {
    /// A principal for `subject`, with no scopes.
    pub fn new(subject: impl Into<String>) -> Self {
        Self {
            subject: subject.into(),
            ..Self::default()
        }
    }

    /// With these scopes.
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes = scopes.into_iter().map(Into::into).collect();
        self
    }

    /// With this client id.
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// Whether the token grants `scope`.
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.iter().any(|s| s == scope)
    }
}
