//! Getting the authorization code: the user agent visits the authorization URL and comes
//! back to the redirect URI. [`AuthorizationHandler`] is that step; [`HeadlessRedirect`]
//! does it without a user, for servers that redirect at once (tests, the conformance
//! suite).

use std::sync::Arc;

use hyper::header;
use hyper_util::client::legacy::connect::Connect;

use super::super::error::ClientError;
use super::super::http::{BoxFuture, any_scheme_sender, sender_for};
use super::wire::{Wire, form_decode};

/// Sends the user to the authorization URL and returns where the authorization server
/// redirected back: the redirect URI with its query (`code`, `state`, `iss`, or `error`).
///
/// A desktop app opens a browser and listens on its loopback redirect URI; a web app
/// redirects its user and resumes when its callback is hit.
pub trait AuthorizationHandler: Send + Sync + 'static {
    /// Visits `authorization_url`; the redirect URL the flow came back to.
    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<String, ClientError>>;
}

/// Fetches the authorization URL itself and takes the `Location` of the redirect as the
/// answer: for authorization servers that approve without a user (tests, conformance).
#[derive(Clone)]
pub struct HeadlessRedirect {
    wire: Wire,
}

impl HeadlessRedirect {
    /// Over plain TCP (`http://` authorization servers), and with the `tls` feature
    /// `https://` against the platform's roots.
    pub fn new() -> HeadlessRedirect {
        HeadlessRedirect {
            wire: Wire {
                send: any_scheme_sender(),
            },
        }
    }

    /// Over any `hyper-util` connector (e.g. an HTTPS one).
    pub fn with_connector<C>(connector: C) -> HeadlessRedirect
    where
        C: Connect + Clone + Send + Sync + 'static,
    {
        HeadlessRedirect {
            wire: Wire {
                send: sender_for(connector),
            },
        }
    }
}

impl Default for HeadlessRedirect {
    fn default() -> Self {
        HeadlessRedirect::new()
    }
}

impl AuthorizationHandler for HeadlessRedirect {
    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<String, ClientError>> {
        Box::pin(async move {
            let answer = self.wire.get(&authorization_url).await?;
            if !answer.status.is_redirection() {
                return Err(ClientError::Auth(format!(
                    "the authorization endpoint answered {} instead of redirecting",
                    answer.status
                )));
            }
            answer
                .headers
                .get(header::LOCATION)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned)
                .ok_or_else(|| {
                    ClientError::Auth("the authorization redirect has no Location".into())
                })
        })
    }
}

impl<T: AuthorizationHandler> AuthorizationHandler for Arc<T> {
    fn authorize(&self, authorization_url: String) -> BoxFuture<'_, Result<String, ClientError>> {
        (**self).authorize(authorization_url)
    }
}

/// What came back to the redirect URI.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Callback {
    pub(crate) code: String,
    pub(crate) state: Option<String>,
    pub(crate) iss: Option<String>,
}

/// Reads the redirect URL: the code, or the authorization server's error.
pub(crate) fn parse_callback(redirect: &str) -> Result<Callback, ClientError> {
    let query = redirect
        .split_once('?')
        .map(|(_, q)| q.split('#').next().unwrap_or_default())
        .unwrap_or_default();
    let params = form_decode(query);
    let get = |k: &str| params.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
    if let Some(e) = get("error") {
        let detail = get("error_description")
            .map(|d| format!(": {d}"))
            .unwrap_or_default();
        return Err(ClientError::Auth(format!(
            "the authorization server refused: {e}{detail}"
        )));
    }
    let code = get("code")
        .filter(|c| !c.is_empty())
        .ok_or_else(|| ClientError::Auth("the authorization response has no code".into()))?;
    Ok(Callback {
        code,
        state: get("state"),
        iss: get("iss"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callbacks_yield_the_code_or_the_error() {
        let c =
            parse_callback("http://127.0.0.1/cb?code=abc&state=s1&iss=http%3A%2F%2Fas").unwrap();
        assert_eq!(
            c,
            Callback {
                code: "abc".into(),
                state: Some("s1".into()),
                iss: Some("http://as".into())
            }
        );
        let e = parse_callback("http://127.0.0.1/cb?error=access_denied&error_description=no")
            .unwrap_err();
        assert!(e.to_string().contains("access_denied: no"), "{e}");
        assert!(parse_callback("http://127.0.0.1/cb").is_err());
        assert!(parse_callback("http://127.0.0.1/cb?code=").is_err());
    }
}
