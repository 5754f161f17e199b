//! Connecting: the `initialize` handshake, `server/discover`, and auto mode's choice of
//! revision (and, over HTTP, of transport, remembered per URL).

#[cfg(feature = "http")]
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_core::jsonrpc::{ErrorObject, UNSUPPORTED_PROTOCOL_VERSION};
use mcp_core::types::{Adapt, DiscoverResult, InitializeParams, InitializeResult};
use mcp_core::version::{Era, ProtocolVersion};
use serde_json::Value;

#[cfg(feature = "http")]
use super::http;
use super::request::decode_result;
use super::{Client, ClientError, ConnectMode, RequestOptions, ServerSession};

/// What `server/discover` answered.
enum Discovery {
    Modern,
    /// -32022: the versions the server listed.
    Retry(Vec<String>),
}

impl Client {
    /// Negotiates the revision as `mode` asks (`probe`: how long auto mode waits for
    /// `server/discover`).
    pub(super) async fn negotiate(
        &self,
        mode: ConnectMode,
        probe: Duration,
    ) -> Result<(), ClientError> {
        let client = self;
        match mode {
            ConnectMode::Legacy(v) => client.initialize(v).await,
            ConnectMode::Modern(v) => match client.discover(v, None).await? {
                Discovery::Modern => Ok(()),
                // -32022 listing the pinned revision itself: the one retry the spec allows.
                Discovery::Retry(supported) if supported.iter().any(|s| s == v.as_str()) => {
                    match client.discover(v, None).await? {
                        Discovery::Modern => Ok(()),
                        Discovery::Retry(supported) => Err(ClientError::UnsupportedVersion {
                            requested: v.as_str().to_owned(),
                            supported,
                        }),
                    }
                }
                Discovery::Retry(supported) => Err(ClientError::UnsupportedVersion {
                    requested: v.as_str().to_owned(),
                    supported,
                }),
            },
            ConnectMode::Auto => client.auto(probe).await,
        }
    }

    fn set_session(&self, s: ServerSession) {
        *self.inner.shared.version.lock().expect("version lock") = s.version;
        *self.inner.session.lock().expect("session lock") = Some(s);
    }

    pub(super) async fn initialize(&self, version: ProtocolVersion) -> Result<(), ClientError> {
        if version.era() != Era::Legacy {
            return Err(ClientError::Unsupported(format!(
                "{version} has no initialize handshake"
            )));
        }
        let mut params = InitializeParams::new(
            version,
            self.inner.capabilities.clone(),
            self.inner.info.clone(),
        );
        params.adapt(version);
        let value =
            serde_json::to_value(&params).map_err(|e| ClientError::Encode(e.to_string()))?;
        let raw = self
            .send_request(
                "initialize",
                Some(value),
                &[],
                &mut RequestOptions::default(),
                None,
                None,
            )
            .await?;
        let result: InitializeResult = decode_result("initialize", &raw)?;
        let Some(chosen) = result.known_version().filter(|v| v.era() == Era::Legacy) else {
            return Err(ClientError::UnsupportedVersion {
                requested: version.as_str().to_owned(),
                supported: vec![result.protocol_version],
            });
        };
        self.set_session(ServerSession {
            version: chosen,
            capabilities: result.capabilities,
            server_info: Some(result.server_info),
            instructions: result.instructions,
        });
        self.notify("notifications/initialized", None).await
    }

    async fn discover(
        &self,
        version: ProtocolVersion,
        timeout: Option<Duration>,
    ) -> Result<Discovery, ClientError> {
        if version.era() != Era::Modern {
            return Err(ClientError::Unsupported(format!(
                "{version} is not a modern revision"
            )));
        }
        let mut opts = RequestOptions {
            timeout,
            ..RequestOptions::default()
        };
        let raw = match self
            .send_request("server/discover", None, &[], &mut opts, Some(version), None)
            .await
        {
            Ok(raw) => raw,
            Err(ClientError::Rpc(e)) if e.code == UNSUPPORTED_PROTOCOL_VERSION => {
                return Ok(Discovery::Retry(supported_of(&e)));
            }
            Err(e) => return Err(e),
        };
        let result: DiscoverResult = decode_result("server/discover", &raw)?;
        if !result
            .supported_versions
            .iter()
            .any(|s| s == version.as_str())
        {
            return Ok(Discovery::Retry(result.supported_versions));
        }
        self.adopt_discover(version, result, raw.get().to_owned(), true);
        Ok(Discovery::Modern)
    }

    async fn auto(&self, probe_timeout: Duration) -> Result<(), ClientError> {
        let preferred = ProtocolVersion::LATEST;
        match self.discover(preferred, Some(probe_timeout)).await {
            Ok(Discovery::Modern) => return Ok(()),
            Ok(Discovery::Retry(supported)) => {
                // A recognized modern answer: retry once with a listed version we speak.
                if let Some(r) = self.discover_listed(&supported, Some(probe_timeout)).await {
                    return r;
                }
                // No modern revision in common: the legacy handshake is the only way left.
                tracing::debug!(?supported, "no common modern revision: trying initialize");
            }
            Err(
                e @ (ClientError::Closed(_) | ClientError::ProcessExited(_) | ClientError::Io(_)),
            ) => {
                return Err(e);
            }
            Err(e) => tracing::debug!(error = %e, "server/discover failed: trying initialize"),
        }
        match self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await {
            // A slow-starting modern server answered the timed-out probe after all, which
            // fixed the connection as modern: `initialize` gets the recognized modern error.
            // Discover again (no probe timeout now: the server is up and modern).
            Err(ClientError::Rpc(e)) if e.code == UNSUPPORTED_PROTOCOL_VERSION => {
                let mut supported = supported_of(&e);
                if supported.is_empty() {
                    supported.push(preferred.as_str().to_owned());
                }
                tracing::debug!(
                    ?supported,
                    "initialize refused as modern: discovering again"
                );
                match self.discover_listed(&supported, None).await {
                    Some(r) => r,
                    None => Err(ClientError::Rpc(e)),
                }
            }
            other => other,
        }
    }

    /// `server/discover` at the newest modern revision of `supported` we speak (`None`
    /// when there is none); a refusal of that one too is final.
    async fn discover_listed(
        &self,
        supported: &[String],
        timeout: Option<Duration>,
    ) -> Option<Result<(), ClientError>> {
        let v = supported
            .iter()
            .filter_map(|s| ProtocolVersion::parse(s))
            .filter(|v| v.era() == Era::Modern)
            .max()?;
        Some(match self.discover(v, timeout).await {
            Ok(Discovery::Modern) => Ok(()),
            Ok(Discovery::Retry(supported)) => Err(ClientError::UnsupportedVersion {
                requested: v.as_str().to_owned(),
                supported,
            }),
            Err(e) => Err(e),
        })
    }

    /// Auto mode over HTTP (protocol.md §4.3), remembering the era per URL.
    #[cfg(feature = "http")]
    pub(super) async fn auto_http(&self, url: &str, probe: Duration) -> Result<(), ClientError> {
        let cached = http_eras().lock().expect("era cache").get(url).copied();
        if let Some(era) = cached {
            let r = match era {
                HttpEra::Modern(v) => self.discover(v, Some(probe)).await.and_then(|d| match d {
                    Discovery::Modern => Ok(()),
                    Discovery::Retry(supported) => Err(ClientError::UnsupportedVersion {
                        requested: v.as_str().to_owned(),
                        supported,
                    }),
                }),
                HttpEra::Legacy => self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await,
                HttpEra::Sse => {
                    self.http_conn()?.open_sse().await?;
                    self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await
                }
            };
            match r {
                Ok(()) => return Ok(()),
                Err(e) => {
                    http_eras().lock().expect("era cache").remove(url);
                    if era == HttpEra::Sse || matches!(e, ClientError::Io(_)) {
                        return Err(e);
                    }
                    tracing::debug!(error = %e, "the remembered era failed: probing again");
                }
            }
        }
        let era = self.probe_http(probe).await?;
        http_eras()
            .lock()
            .expect("era cache")
            .insert(url.to_owned(), era);
        Ok(())
    }

    #[cfg(feature = "http")]
    fn http_conn(&self) -> Result<&Arc<http::HttpConn>, ClientError> {
        self.inner
            .http
            .as_ref()
            .ok_or_else(|| ClientError::Unsupported("not an HTTP connection".into()))
    }

    #[cfg(feature = "http")]
    async fn probe_http(&self, probe: Duration) -> Result<HttpEra, ClientError> {
        let preferred = ProtocolVersion::LATEST;
        match self.discover(preferred, Some(probe)).await {
            Ok(Discovery::Modern) => return Ok(HttpEra::Modern(preferred)),
            Ok(Discovery::Retry(supported)) => {
                let pick = supported
                    .iter()
                    .filter_map(|s| ProtocolVersion::parse(s))
                    .filter(|v| v.era() == Era::Modern)
                    .max();
                if let Some(v) = pick {
                    return match self.discover(v, Some(probe)).await? {
                        Discovery::Modern => Ok(HttpEra::Modern(v)),
                        Discovery::Retry(supported) => Err(ClientError::UnsupportedVersion {
                            requested: v.as_str().to_owned(),
                            supported,
                        }),
                    };
                }
                tracing::debug!(?supported, "no common modern revision: trying initialize");
            }
            Err(e @ ClientError::Io(_)) => return Err(e),
            Err(e) if e.code().is_some_and(modern_error_code) => return Err(e),
            Err(e) => tracing::debug!(error = %e, "modern probe failed: trying initialize"),
        }
        match self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await {
            Ok(()) => Ok(HttpEra::Legacy),
            Err(ClientError::Http { status, error, .. })
                if matches!(status, 400 | 404 | 405)
                    && !error.as_ref().is_some_and(|e| modern_error_code(e.code)) =>
            {
                tracing::debug!(
                    status,
                    "initialize refused: trying the 2024-11-05 HTTP+SSE transport"
                );
                self.http_conn()?.open_sse().await?;
                self.initialize(ProtocolVersion::LATEST_HANDSHAKE).await?;
                Ok(HttpEra::Sse)
            }
            Err(e) => Err(e),
        }
    }
}

/// The JSON-RPC codes only a 2026 server answers with (a recognized modern error).
#[cfg(feature = "http")]
fn modern_error_code(code: i32) -> bool {
    matches!(
        code,
        mcp_core::jsonrpc::HEADER_MISMATCH
            | mcp_core::jsonrpc::MISSING_REQUIRED_CLIENT_CAPABILITY
            | UNSUPPORTED_PROTOCOL_VERSION
    )
}

/// What auto mode found behind an HTTP URL.
#[cfg(feature = "http")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum HttpEra {
    Modern(ProtocolVersion),
    Legacy,
    Sse,
}

#[cfg(feature = "http")]
fn http_eras() -> &'static Mutex<std::collections::HashMap<String, HttpEra>> {
    static ERAS: std::sync::OnceLock<Mutex<std::collections::HashMap<String, HttpEra>>> =
        std::sync::OnceLock::new();
    ERAS.get_or_init(Default::default)
}

fn supported_of(e: &ErrorObject) -> Vec<String> {
    e.data
        .as_ref()
        .and_then(|d| d.get("supported"))
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}
