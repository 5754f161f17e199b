//! [`Upstream`]: how to reach one upstream server, and [`ProxyError`].

use std::ffi::OsString;
use std::time::Duration;

use mcp_core::types::{ClientCapabilities, Implementation};

use crate::client::{Client, ClientError, ClientHandler, ConnectMode};

/// Where an upstream is.
#[derive(Debug, Clone)]
enum Target {
    /// A child process spoken to over its stdin and stdout.
    Stdio {
        program: OsString,
        args: Vec<OsString>,
        env: Vec<(OsString, OsString)>,
    },
    /// A Streamable HTTP endpoint (falling back to HTTP+SSE on the same URL).
    #[cfg(feature = "http")]
    Http { url: String },
}

/// How to reach one upstream server: a child process over stdio
/// ([`Upstream::stdio`]) or an HTTP endpoint ([`Upstream::http`]: Streamable HTTP, falling
/// back to the 2024-11-05 HTTP+SSE transport), any revision ([`ConnectMode::Auto`] unless
/// [`Upstream::mode`] pins one), with its own credentials (never the caller's) and a
/// per-call timeout.
///
/// ```
/// # use std::time::Duration;
/// use mcp_runtime::proxy::Upstream;
///
/// let weather = Upstream::stdio("weather-server", ["--stdio"]).timeout(Duration::from_secs(20));
/// # let _ = weather;
/// ```
#[derive(Debug, Clone)]
pub struct Upstream {
    target: Target,
    #[cfg(feature = "http")]
    token: Option<String>,
    timeout: Duration,
    connect_timeout: Duration,
    mode: ConnectMode,
}

impl Upstream {
    fn new(target: Target) -> Self {
        Self {
            target,
            #[cfg(feature = "http")]
            token: None,
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            mode: ConnectMode::Auto,
        }
    }

    /// A child process: `program` with `args`, spoken to over its stdin and stdout (its
    /// stderr is inherited).
    pub fn stdio<I, S>(program: impl Into<OsString>, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<OsString>,
    {
        Self::new(Target::Stdio {
            program: program.into(),
            args: args.into_iter().map(Into::into).collect(),
            env: Vec::new(),
        })
    }

    /// A Streamable HTTP endpoint (`http://host:port/mcp`); a server that refuses it as a
    /// legacy one would (400/404/405) is reached over HTTP+SSE at the same URL.
    #[cfg(feature = "http")]
    pub fn http(url: impl Into<String>) -> Self {
        Self::new(Target::Http { url: url.into() })
    }

    /// An environment variable of the child process (stdio upstreams; ignored otherwise).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        #[allow(irrefutable_let_patterns)] // without `http`, stdio is the only target
        if let Target::Stdio { env, .. } = &mut self.target {
            env.push((key.into(), value.into()));
        }
        self
    }

    /// The bearer token sent to this upstream (HTTP upstreams). The token of the caller
    /// that reached the proxy is never forwarded: each upstream has its own credentials.
    #[cfg(feature = "http")]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.token = Some(token.into());
        self
    }

    /// How long one forwarded request may take (default 60 s): past it the call fails with
    /// a timeout error and is cancelled upstream. Progress from the upstream restarts it, up
    /// to ten times this in all.
    pub fn timeout(mut self, t: Duration) -> Self {
        self.timeout = t;
        self
    }

    /// How long connecting (spawning or reaching the server, and the handshake) may take
    /// (default 10 s).
    pub fn connect_timeout(mut self, t: Duration) -> Self {
        self.connect_timeout = t;
        self
    }

    /// How the revision is picked (default [`ConnectMode::Auto`]: 2026-07-28 when the
    /// upstream speaks it, else the newest legacy revision it accepts).
    pub fn mode(mut self, mode: ConnectMode) -> Self {
        self.mode = mode;
        self
    }

    /// The per-call timeout.
    pub(crate) fn call_timeout(&self) -> Duration {
        self.timeout
    }

    /// The upstream as errors name it: the command line or the URL.
    pub fn describe(&self) -> String {
        match &self.target {
            Target::Stdio { program, args, .. } => {
                let mut s = program.to_string_lossy().into_owned();
                for a in args {
                    s.push(' ');
                    s.push_str(&a.to_string_lossy());
                }
                s
            }
            #[cfg(feature = "http")]
            Target::Http { url } => url.clone(),
        }
    }

    /// Connects, with `handler` answering the upstream's requests; bounded by the connect
    /// timeout.
    pub(crate) async fn connect(&self, handler: impl ClientHandler) -> Result<Client, ProxyError> {
        let builder = Client::builder()
            .info(Implementation::new("mcp-proxy", env!("CARGO_PKG_VERSION")))
            .capabilities(relayed_capabilities())
            .handler(handler)
            .mode(self.mode)
            .request_timeout(self.timeout)
            // The proxy keeps its own copy of the lists and re-reads them on list_changed.
            .no_cache();
        let connecting = async {
            match &self.target {
                Target::Stdio { program, args, env } => {
                    let mut cmd = tokio::process::Command::new(program);
                    cmd.args(args);
                    for (k, v) in env {
                        cmd.env(k, v);
                    }
                    builder.spawn(cmd).await
                }
                #[cfg(feature = "http")]
                Target::Http { url } => {
                    let builder = builder.connect_timeout(self.connect_timeout);
                    let builder = match &self.token {
                        Some(t) => builder.bearer_token(t.clone()),
                        None => builder,
                    };
                    builder.connect_http(url).await
                }
            }
        };
        match tokio::time::timeout(self.connect_timeout, connecting).await {
            Ok(Ok(client)) => Ok(client),
            Ok(Err(e)) => Err(ProxyError::Unreachable {
                upstream: self.describe(),
                reason: e.to_string(),
            }),
            Err(_) => Err(ProxyError::Unreachable {
                upstream: self.describe(),
                reason: format!("no answer within {:?}", self.connect_timeout),
            }),
        }
    }
}

/// What the proxy declares to its upstreams: it relays form elicitation, sampling
/// and roots to whichever downstream client caused the call, which answers or refuses.
fn relayed_capabilities() -> ClientCapabilities {
    serde_json::from_value(serde_json::json!({
        "elicitation": { "form": {} },
        "sampling": {},
        "roots": {}
    }))
    .unwrap_or_default()
}

/// Why a proxy could not be set up or an upstream could not be used.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProxyError {
    /// The upstream could not be reached, or its handshake failed.
    Unreachable {
        /// The upstream ([`Upstream::describe`]).
        upstream: String,
        /// What went wrong.
        reason: String,
    },
    /// The upstream answered, but reading what it offers failed.
    Listing {
        /// The upstream ([`Upstream::describe`]).
        upstream: String,
        /// The list method that failed.
        method: &'static str,
        /// The error.
        error: ClientError,
    },
}

impl std::fmt::Display for ProxyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Unreachable { upstream, reason } => {
                write!(f, "upstream `{upstream}` is unreachable: {reason}")
            }
            Self::Listing {
                upstream,
                method,
                error,
            } => write!(f, "upstream `{upstream}` failed {method}: {error}"),
        }
    }
}

impl std::error::Error for ProxyError {}
