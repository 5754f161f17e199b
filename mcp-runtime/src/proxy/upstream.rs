//! [`Upstream`]: how to reach one upstream server, and [`ProxyError`].

use std::ffi::OsString;
use std::time::Duration;

use mcp_core::types::{ClientCapabilities, Implementation};

use crate::client::{Client, ClientError, ClientHandler, ConnectMode};

/// How long after a failed connection to an upstream the next may be tried (the shared
/// connection's reconnection, a caller's own connection): an upstream that is down is not
/// hammered by every call.
pub(crate) const RECONNECT_EVERY: Duration = Duration::from_secs(1);

/// Where an upstream is.
#[derive(Debug, Clone)]
enum Target {
    /// A child process spoken to over its stdin and stdout.
    Stdio {
        program: OsString,
        args: Vec<OsString>,
        env: Vec<(OsString, OsString)>,
        cwd: Option<std::path::PathBuf>,
    },
    /// A Streamable HTTP endpoint (falling back to HTTP+SSE on the same URL), or with
    /// `sse` a 2024-11-05 HTTP+SSE endpoint only.
    #[cfg(feature = "http")]
    Http {
        url: String,
        headers: Headers,
        sse: bool,
    },
}

/// Headers configured for an HTTP upstream; their values may be secrets, so `Debug` shows
/// the names only.
#[cfg(feature = "http")]
#[derive(Clone, Default)]
struct Headers(Vec<(String, String)>);

#[cfg(feature = "http")]
impl std::fmt::Debug for Headers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|(k, _)| k))
            .finish()
    }
}

/// The credentials an HTTP upstream is reached with (the proxy's own, never the caller's).
#[cfg(feature = "http")]
#[derive(Clone)]
enum Credentials {
    /// A fixed bearer token.
    Bearer(String),
    /// Our OAuth client: its tokens, fetched and refreshed as the upstream asks.
    OAuth(crate::client::oauth::OAuth),
}

#[cfg(feature = "http")]
impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            // The token is a secret: never in a log line.
            Self::Bearer(_) => f.write_str("Bearer(..)"),
            Self::OAuth(o) => o.fmt(f),
        }
    }
}

/// How to reach one upstream server: a child process over stdio
/// ([`Upstream::stdio`]) or an HTTP endpoint ([`Upstream::http`]: Streamable HTTP, falling
/// back to the 2024-11-05 HTTP+SSE transport), any revision ([`ConnectMode::Auto`] unless
/// [`Upstream::mode`] pins one), with its own credentials (the caller's identity only when
/// asked for: [`Upstream::token_exchange`], [`Upstream::pass_through`]) and a per-call
/// timeout.
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
    credentials: Option<Credentials>,
    /// The caller's identity passed on (per-caller connections only).
    #[cfg(feature = "http")]
    identity: Option<super::identity::Identity>,
    timeout: Duration,
    connect_timeout: Duration,
    mode: ConnectMode,
    sharing: Sharing,
    caller_idle: Duration,
    max_callers: usize,
    failure: FailureMode,
    health_every: Duration,
    name: Option<String>,
}

impl Upstream {
    fn new(target: Target) -> Self {
        Self {
            target,
            #[cfg(feature = "http")]
            credentials: None,
            #[cfg(feature = "http")]
            identity: None,
            timeout: Duration::from_secs(60),
            connect_timeout: Duration::from_secs(10),
            mode: ConnectMode::Auto,
            sharing: Sharing::Shared,
            caller_idle: Duration::from_secs(300),
            max_callers: 256,
            failure: FailureMode::Open,
            health_every: Duration::from_secs(10),
            name: None,
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
            cwd: None,
        })
    }

    /// A Streamable HTTP endpoint (`http://host:port/mcp`); a server that refuses it as a
    /// legacy one would (400/404/405) is reached over HTTP+SSE at the same URL (in
    /// [`ConnectMode::Auto`] and with a legacy revision pinned by [`Upstream::mode`]).
    #[cfg(feature = "http")]
    pub fn http(url: impl Into<String>) -> Self {
        Self::new(Target::Http {
            url: url.into(),
            headers: Headers::default(),
            sse: false,
        })
    }

    /// A 2024-11-05 HTTP+SSE endpoint (`http://host:port/sse`), with no Streamable HTTP
    /// attempt: the handshake offers the legacy revision pinned by [`Upstream::mode`], else
    /// the newest legacy one (a 2026-07-28 mode fails to connect: that revision does not
    /// run over HTTP+SSE). Headers and credentials as for [`Upstream::http`].
    #[cfg(feature = "http")]
    pub fn sse(url: impl Into<String>) -> Self {
        Self::new(Target::Http {
            url: url.into(),
            headers: Headers::default(),
            sse: true,
        })
    }

    /// An environment variable of the child process (stdio upstreams; ignored otherwise).
    pub fn env(mut self, key: impl Into<OsString>, value: impl Into<OsString>) -> Self {
        #[allow(irrefutable_let_patterns)] // without `http`, stdio is the only target
        if let Target::Stdio { env, .. } = &mut self.target {
            env.push((key.into(), value.into()));
        }
        self
    }

    /// The working directory of the child process (stdio upstreams; ignored otherwise).
    pub fn cwd(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        #[allow(irrefutable_let_patterns)] // without `http`, stdio is the only target
        if let Target::Stdio { cwd, .. } = &mut self.target {
            *cwd = Some(dir.into());
        }
        self
    }

    /// A header sent with every request to this upstream (HTTP upstreams; ignored
    /// otherwise), such as an API key the upstream expects. Never the caller's: only what
    /// is configured here crosses.
    #[cfg(feature = "http")]
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        if let Target::Http { headers, .. } = &mut self.target {
            headers.0.push((name.into(), value.into()));
        }
        self
    }

    /// The bearer token sent to this upstream (HTTP upstreams; replaces an
    /// [`Upstream::oauth`]). The token of the caller that reached the proxy is never
    /// forwarded: each upstream has its own credentials.
    #[cfg(feature = "http")]
    pub fn bearer_token(mut self, token: impl Into<String>) -> Self {
        self.credentials = Some(Credentials::Bearer(token.into()));
        self
    }

    /// Our OAuth client as this upstream's credentials (HTTP upstreams; replaces an
    /// [`Upstream::bearer_token`]): a machine-to-machine grant (client credentials, a JWT
    /// bearer assertion) suits a proxy, which has no user at hand to send to a browser. The
    /// first `401` runs its flow (discovery, the token request); its tokens are refreshed
    /// as they expire, and every connection to the upstream ([`Sharing::PerCaller`] too)
    /// shares them. A flow that fails fails [`Proxy::connect`](super::Proxy::connect) (or
    /// the call, on a reconnection or a caller's first call) with "upstream `X` is
    /// unreachable: authorization failed: why". The caller's token is never forwarded (see
    /// [`Upstream::token_exchange`] to act for the caller).
    ///
    /// ```
    /// use mcp_runtime::client::oauth::{ClientSecret, OAuth};
    /// use mcp_runtime::proxy::Upstream;
    ///
    /// let url = "https://tools.example.com/mcp";
    /// let oauth = OAuth::builder(url)
    ///     .client_credentials_grant(ClientSecret::new("gateway", Some("s3cret".into())))
    ///     .build()?;
    /// let tools = Upstream::http(url).oauth(oauth);
    /// # let _ = tools;
    /// # Ok::<(), mcp_runtime::client::ClientError>(())
    /// ```
    #[cfg(feature = "http")]
    pub fn oauth(mut self, oauth: crate::client::oauth::OAuth) -> Self {
        self.credentials = Some(Credentials::OAuth(oauth));
        self
    }

    /// The caller's identity passed on by RFC 8693 token exchange (HTTP upstreams; ignored
    /// otherwise): each caller gets its own connection ([`Sharing::PerCaller`], whatever
    /// [`Upstream::sharing`] says), reached with a token `oauth`'s authorization server
    /// issues for the upstream in exchange for the caller's bearer token
    /// ([`OAuth::exchange_token`](crate::client::oauth::OAuth::exchange_token): `oauth`'s
    /// client authenticates the exchange; `exchange` names the audience and scopes). The
    /// exchanged tokens are kept by the caller's token until 30 s before they expire, and
    /// exchanged again when the upstream answers `401`. A call that carries no bearer token
    /// (a caller over stdio, an anonymous one) fails with "upstream `X` is reached with the
    /// caller's identity: ...": it never goes out as the proxy. The upstream's lists (read
    /// on the shared connection, which no caller owns) are read with `oauth`'s own tokens,
    /// as with [`Upstream::oauth`]; the caller's token itself never reaches the upstream.
    ///
    /// ```
    /// use mcp_runtime::client::oauth::{ClientSecret, OAuth, TokenExchange};
    /// use mcp_runtime::proxy::Upstream;
    ///
    /// let url = "https://tools.example.com/mcp";
    /// let oauth = OAuth::builder(url)
    ///     .client_credentials_grant(ClientSecret::new("gateway", Some("s3cret".into())))
    ///     .build()?;
    /// let exchange = TokenExchange { scope: Some("tools".into()), ..TokenExchange::default() };
    /// let tools = Upstream::http(url).token_exchange(oauth, exchange);
    /// # let _ = tools;
    /// # Ok::<(), mcp_runtime::client::ClientError>(())
    /// ```
    #[cfg(feature = "http")]
    pub fn token_exchange(
        mut self,
        oauth: crate::client::oauth::OAuth,
        exchange: crate::client::oauth::TokenExchange,
    ) -> Self {
        if matches!(self.target, Target::Http { .. }) {
            self.credentials = Some(Credentials::OAuth(oauth.clone()));
            self.identity = Some(super::identity::Identity::exchange(oauth, exchange));
        }
        self
    }

    /// The caller's bearer token forwarded as it is (HTTP upstreams; ignored otherwise),
    /// only when its `aud` claim names `audience` (the upstream's resource, as its
    /// authorization server issues tokens for it): a token issued for the proxy alone is
    /// never passed on, and such a call fails with "upstream `X` is reached with the
    /// caller's identity: the caller's token is not for it ...", as does one without a
    /// token. Each caller gets its own connection ([`Sharing::PerCaller`]); the lists are
    /// read on the shared connection with this upstream's own credentials, if any.
    #[cfg(feature = "http")]
    pub fn pass_through(mut self, audience: impl Into<String>) -> Self {
        if matches!(self.target, Target::Http { .. }) {
            let audience = audience.into();
            self.identity = Some(super::identity::Identity::PassThrough { audience });
        }
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

    /// Whether callers share one connection to this upstream or each get their own
    /// (default [`Sharing::Shared`]; see [`Sharing`] for when to choose which, and who
    /// counts as a caller).
    ///
    /// ```
    /// # use std::time::Duration;
    /// use mcp_runtime::proxy::{Sharing, Upstream};
    ///
    /// // Each downstream session gets its own session upstream, closed when it ends.
    /// let shop = Upstream::http("http://127.0.0.1:8001/mcp")
    ///     .sharing(Sharing::PerCaller)
    ///     .caller_idle_timeout(Duration::from_secs(60))
    ///     .max_callers(100);
    /// # let _ = shop;
    /// ```
    pub fn sharing(mut self, sharing: Sharing) -> Self {
        self.sharing = sharing;
        self
    }

    /// With [`Sharing::PerCaller`]: how long a caller's connection stays open without a
    /// call before it is closed (default 5 minutes). A downstream session's connection is
    /// also closed as soon as the session ends (within a second); a principal's has only
    /// this to end it. A later call of the same caller connects again.
    pub fn caller_idle_timeout(mut self, t: Duration) -> Self {
        self.caller_idle = t;
        self
    }

    /// With [`Sharing::PerCaller`]: how many callers may hold a connection at once
    /// (default 256, at least 1). A new caller past it closes the least recently used
    /// connection not in a call; when every one is in a call, the new caller's call fails
    /// with "upstream `X` is unavailable: all N per-caller connections are in a call".
    pub fn max_callers(mut self, n: usize) -> Self {
        self.max_callers = n.max(1);
        self
    }

    /// What the proxy does while this upstream is down (default [`FailureMode::Open`]:
    /// its items leave the lists and the rest is served; see [`FailureMode`]).
    pub fn failure_mode(mut self, mode: FailureMode) -> Self {
        self.failure = mode;
        self
    }

    /// How often the upstream is pinged when nothing was heard from it (a frozen upstream
    /// is down after a ping unanswered within the call timeout, at most 5 s), and the
    /// longest wait between two attempts to reach it while it is down (default 10 s, at
    /// least 1 s). A closed connection (a child that exited) is noticed within a quarter
    /// of a second whatever this is.
    pub fn health_interval(mut self, every: Duration) -> Self {
        self.health_every = every.max(RECONNECT_EVERY);
        self
    }

    /// The name errors and logs give this upstream (by default its command line or URL),
    /// for example the key it has in a gateway's configuration.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The failure mode.
    pub(crate) fn failure_mode_now(&self) -> FailureMode {
        self.failure
    }

    /// The health interval.
    pub(crate) fn health_every(&self) -> Duration {
        self.health_every
    }

    /// The sharing policy (per caller whenever the caller's identity is passed on).
    pub(crate) fn sharing_now(&self) -> Sharing {
        #[cfg(feature = "http")]
        if self.identity.is_some() {
            return Sharing::PerCaller;
        }
        self.sharing
    }

    /// How the caller's identity is passed on, if it is.
    #[cfg(feature = "http")]
    pub(crate) fn identity(&self) -> Option<&super::identity::Identity> {
        self.identity.as_ref()
    }

    /// The idle timeout of a caller's connection.
    pub(crate) fn caller_idle(&self) -> Duration {
        self.caller_idle
    }

    /// The most callers holding a connection at once.
    pub(crate) fn max_callers_now(&self) -> usize {
        self.max_callers
    }

    /// The per-call timeout.
    pub(crate) fn call_timeout(&self) -> Duration {
        self.timeout
    }

    /// The upstream as errors name it: its [`Upstream::name`], else the command line or the
    /// URL.
    pub fn describe(&self) -> String {
        if let Some(name) = &self.name {
            return name.clone();
        }
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
            Target::Http { url, .. } => url.clone(),
        }
    }

    /// Connects, with `handler` answering the upstream's requests; bounded by the connect
    /// timeout.
    pub(crate) async fn connect(
        &self,
        handler: impl ClientHandler + Clone,
    ) -> Result<Client, ProxyError> {
        self.connect_as(handler, None).await
    }

    /// [`connect`](Self::connect) for one caller: with `subject`, the caller's current token
    /// (which the caller's connections of an upstream passing on identity always give),
    /// exchanged or passed on instead of the upstream's own credentials.
    pub(crate) async fn connect_as(
        &self,
        handler: impl ClientHandler + Clone,
        subject: Option<std::sync::Arc<std::sync::Mutex<String>>>,
    ) -> Result<Client, ProxyError> {
        #[cfg(feature = "http")]
        let caller = match (&self.identity, subject) {
            (Some(identity), Some(subject)) => Some(super::identity::CallerToken {
                identity: identity.clone(),
                subject,
            }),
            _ => None,
        };
        #[cfg(not(feature = "http"))]
        let _ = subject;
        let builder = || {
            Client::builder()
                .info(Implementation::new("mcp-proxy", env!("CARGO_PKG_VERSION")))
                .capabilities(relayed_capabilities())
                .handler(handler.clone())
                .mode(self.mode)
                .request_timeout(self.timeout)
                // The proxy keeps its own copy of the lists and re-reads them on list_changed.
                .no_cache()
        };
        let connecting = async {
            match &self.target {
                Target::Stdio {
                    program,
                    args,
                    env,
                    cwd,
                } => {
                    let mut cmd = tokio::process::Command::new(program);
                    cmd.args(args);
                    for (k, v) in env {
                        cmd.env(k, v);
                    }
                    if let Some(dir) = cwd {
                        cmd.current_dir(dir);
                    }
                    builder().spawn(cmd).await
                }
                #[cfg(feature = "http")]
                Target::Http { url, headers, sse } => {
                    let http = || {
                        let mut builder = builder().connect_timeout(self.connect_timeout);
                        for (k, v) in &headers.0 {
                            builder = builder.header(k, v);
                        }
                        if let Some(c) = &caller {
                            return builder.token_provider(c.clone());
                        }
                        match &self.credentials {
                            Some(Credentials::Bearer(t)) => builder.bearer_token(t.clone()),
                            Some(Credentials::OAuth(o)) => builder.token_provider(o.clone()),
                            None => builder,
                        }
                    };
                    if *sse {
                        return http().connect_sse(url).await;
                    }
                    match http().connect_http(url).await {
                        // A pinned legacy revision the endpoint refuses as Streamable HTTP
                        // (an HTTP+SSE endpoint); `ConnectMode::Auto` falls back itself.
                        Err(ClientError::Http {
                            status: 400 | 404 | 405,
                            ..
                        }) if matches!(self.mode, ConnectMode::Legacy(_)) => {
                            http().connect_sse(url).await
                        }
                        other => other,
                    }
                }
            }
        };
        match tokio::time::timeout(self.connect_timeout, connecting).await {
            Ok(Ok(client)) => Ok(client),
            Ok(Err(e)) => Err(ProxyError::Unreachable {
                upstream: self.describe(),
                reason: self.why_not(&e),
            }),
            Err(_) => Err(ProxyError::Unreachable {
                upstream: self.describe(),
                reason: format!("no answer within {:?}", self.connect_timeout),
            }),
        }
    }
}

impl Upstream {
    /// Why connecting failed, said plainly: a program that cannot be started is named.
    #[allow(irrefutable_let_patterns)] // without `http`, stdio is the only target
    fn why_not(&self, e: &ClientError) -> String {
        let Target::Stdio { program, .. } = &self.target else {
            return e.to_string();
        };
        let program = program.to_string_lossy();
        match e {
            ClientError::Io(io) if io.kind() == std::io::ErrorKind::NotFound => {
                format!("cannot start `{program}`: no such program")
            }
            ClientError::Io(io) if io.kind() == std::io::ErrorKind::PermissionDenied => {
                format!("cannot start `{program}`: permission denied")
            }
            other => other.to_string(),
        }
    }
}

/// What the proxy declares to its upstreams: it relays elicitation (form and URL mode),
/// sampling and roots to whichever downstream client caused the call, which answers or
/// refuses (a caller without the capability is refused for with a clear error).
fn relayed_capabilities() -> ClientCapabilities {
    serde_json::from_value(serde_json::json!({
        "elicitation": { "form": {}, "url": {} },
        "sampling": {},
        "roots": {}
    }))
    .unwrap_or_default()
}

/// Whether the callers of a proxy share one upstream connection
/// ([`Upstream::sharing`]).
///
/// The default is [`Sharing::Shared`]: one connection carries every caller's requests, which
/// is right for 2026-07-28 upstreams (they hold no session) and for legacy upstreams whose
/// state is not per caller, and costs one connection (one child process, one HTTP session)
/// however many callers there are. Choose [`Sharing::PerCaller`] when the upstream keeps
/// state per session that must not leak between callers (a login, a working directory, a
/// shopping cart), or when a legacy stdio upstream not built with this SDK asks for input
/// or logs while several callers have calls in flight (its messages name no call): on its
/// own connection each caller's input requests and logs find their caller.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum Sharing {
    /// One upstream connection for every caller (the default).
    #[default]
    Shared,
    /// One upstream connection per downstream caller, connected on the caller's first call.
    /// The caller is, in this order: the downstream legacy session (a stdio or in-memory
    /// connection, a 2025-era HTTP session: one per `Mcp-Session-Id`), else the subject of
    /// the authenticated [`Principal`](crate::Principal) (a 2026-07-28 caller behind the HTTP
    /// transport's authentication: all of one subject's requests share a connection), else
    /// none: a 2026 caller without authentication uses the shared connection (with
    /// [`Upstream::token_exchange`] or [`Upstream::pass_through`], its bearer token; a call
    /// without one fails). A session's
    /// connection is closed within a second of the session ending; any caller's after
    /// [`Upstream::caller_idle_timeout`] without a call, or to make room past
    /// [`Upstream::max_callers`]. The upstream's lists are read, and followed, on the
    /// shared connection only, which the proxy keeps in both modes.
    PerCaller,
}

/// What a proxy does while its upstream is down ([`Upstream::failure_mode`]).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum FailureMode {
    /// Serve the rest (the default): the upstream's items leave the lists (one
    /// `list_changed` per kind), a call naming one of them fails with
    /// "upstream `X` is unavailable: why", and they return when it answers again.
    #[default]
    Open,
    /// All or nothing: the upstream's items stay listed, but `initialize`,
    /// `server/discover` and every list of a server serving it (with
    /// [`Readiness`](super::Readiness)) fail
    /// with "upstream `X` is unavailable: why" until it answers again.
    Closed,
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
    /// The upstream is reached with the caller's identity, and this call's caller has none
    /// it may pass on.
    Identity {
        /// The upstream ([`Upstream::describe`]).
        upstream: String,
        /// Why not.
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
            Self::Identity { upstream, reason } => {
                write!(
                    f,
                    "upstream `{upstream}` is reached with the caller's identity: {reason}"
                )
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
