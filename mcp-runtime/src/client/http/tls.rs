//! HTTPS for the client (the `tls` feature): rustls with the ring provider, trusting the
//! platform's root certificates by default, Mozilla's (`tls-webpki-roots`) or only the ones
//! given.
//!
//! ```no_run
//! # async fn run() -> Result<(), mcp_runtime::client::ClientError> {
//! use mcp_runtime::client::{Client, TlsConfig};
//!
//! // The platform's trust store: what `Client::connect_http("https://...")` uses.
//! let client = Client::connect_http("https://mcp.example.com/mcp").await?;
//!
//! // A private CA as well (a PEM file with one or more certificates).
//! let pem = std::fs::read("corp-ca.pem").expect("the CA file");
//! let tls = TlsConfig::platform().add_root_pem(&pem)?;
//! let client = Client::builder().tls(tls).connect_http("https://mcp.corp.internal/mcp").await?;
//! # Ok(()) }
//! ```

use std::sync::{Arc, OnceLock};

use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::HttpConnector;
use rustls::RootCertStore;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::client::error::ClientError;

/// Which certificate authorities the client trusts for `https://` servers (and OAuth
/// authorization servers): the platform's by default, plus any you add.
#[derive(Clone, Debug)]
pub struct TlsConfig {
    roots: Roots,
    extra: Vec<CertificateDer<'static>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Roots {
    Platform,
    #[cfg(feature = "tls-webpki-roots")]
    WebPki,
    None,
}

impl Default for TlsConfig {
    fn default() -> Self {
        Self::platform()
    }
}

impl TlsConfig {
    /// The platform's trust store (on Linux, the system's CA bundle), read once per process.
    pub fn platform() -> Self {
        Self {
            roots: Roots::Platform,
            extra: Vec::new(),
        }
    }

    /// Mozilla's root certificates compiled in (`webpki-roots`), for containers and hosts
    /// without a usable trust store.
    #[cfg(feature = "tls-webpki-roots")]
    pub fn webpki_roots() -> Self {
        Self {
            roots: Roots::WebPki,
            extra: Vec::new(),
        }
    }

    /// No built-in roots: only the certificates added with [`TlsConfig::add_root_pem`] or
    /// [`TlsConfig::add_root_der`] are trusted.
    pub fn custom_roots_only() -> Self {
        Self {
            roots: Roots::None,
            extra: Vec::new(),
        }
    }

    /// Trusts every certificate of a PEM file's contents as well. Fails when it holds none
    /// or one does not parse.
    pub fn add_root_pem(mut self, pem: &[u8]) -> Result<Self, ClientError> {
        let before = self.extra.len();
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| bad_root(format!("unreadable PEM certificate: {e}")))?;
            self.extra.push(cert);
        }
        if self.extra.len() == before {
            return Err(bad_root("no certificate in the PEM data".into()));
        }
        Ok(self)
    }

    /// Trusts one DER-encoded certificate as well.
    pub fn add_root_der(mut self, der: impl Into<Vec<u8>>) -> Self {
        self.extra.push(CertificateDer::from(der.into()));
        self
    }

    /// The rustls configuration: the chosen roots plus the added ones, ring as provider.
    fn client_config(&self) -> Result<rustls::ClientConfig, ClientError> {
        let mut store = match self.roots {
            Roots::Platform => platform_roots().clone(),
            #[cfg(feature = "tls-webpki-roots")]
            Roots::WebPki => RootCertStore {
                roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
            },
            Roots::None => RootCertStore::empty(),
        };
        for cert in &self.extra {
            store
                .add(cert.clone())
                .map_err(|e| bad_root(format!("unusable root certificate: {e}")))?;
        }
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        Ok(rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| bad_root(e.to_string()))?
            .with_root_certificates(store)
            .with_no_client_auth())
    }

    /// `http` wrapped so that `https://` URLs speak TLS (and `http://` ones stay plain).
    pub(crate) fn connector(
        &self,
        http: HttpConnector,
    ) -> Result<HttpsConnector<HttpConnector>, ClientError> {
        let mut http = http;
        http.enforce_http(false);
        Ok(hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(self.client_config()?)
            .https_or_http()
            .enable_http1()
            .wrap_connector(http))
    }
}

/// The platform's roots, loaded once; certificates that do not parse are skipped (a
/// system bundle often has a few), and a platform without any gives an empty store.
fn platform_roots() -> &'static RootCertStore {
    static ROOTS: OnceLock<RootCertStore> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let found = rustls_native_certs::load_native_certs();
        for e in &found.errors {
            tracing::debug!(error = %e, "skipping a platform root certificate");
        }
        let mut store = RootCertStore::empty();
        let (added, ignored) = store.add_parsable_certificates(found.certs);
        tracing::debug!(added, ignored, "platform root certificates loaded");
        store
    })
}

fn bad_root(msg: String) -> ClientError {
    ClientError::Unsupported(format!("TLS configuration: {msg}"))
}
