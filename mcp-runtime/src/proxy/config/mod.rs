//! The `mcpServers` file, as `mcp gateway` and [`ClientGroup`](super::ClientGroup) read it:
//! the standard `mcpServers` JSON (Claude Desktop's
//! format, which Cursor and others share), accepted as it is, with the gateway's own settings
//! under the key `gateway` in the same file. Every string of a server entry may name
//! environment variables as `${VAR}` (or `${VAR:-default}`). A mistake is an error naming
//! the key and its line; nothing is started. An HTTP API with an OpenAPI document is an
//! entry of its own under `gateway.servers` with the key `openapi` ([`Api`]): not an MCP
//! server a host could start, so not under `mcpServers`.
//!
//! ```json
//! {
//!   "mcpServers": {
//!     "files": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/srv"],
//!                "env": { "LOG": "${LOG_LEVEL:-info}" }, "cwd": "/srv" },
//!     "docs":  { "url": "https://docs.example.com/mcp",
//!                "headers": { "Authorization": "Bearer ${DOCS_TOKEN}" } }
//!   },
//!   "gateway": {
//!     "name": "team-gateway",
//!     "separator": "_",
//!     "servers": {
//!       "files": { "prefix": "never", "failureMode": "closed", "timeout": 30,
//!                  "tools": { "write_file": { "hidden": true } } },
//!       "docs":  { "namespace": "kb", "connection": "perCaller" },
//!       "pets":  { "openapi": "https://pets.example.com/openapi.json",
//!                  "include": { "tags": "pets" }, "auth": { "bearer": "${PETS_TOKEN}" } }
//!     },
//!     "rateLimit": { "perMinute": 600, "tools": { "kb_search": 30 },
//!                    "trustedProxies": ["10.0.0.5"] }
//!   }
//! }
//! ```
//!
//! `tools` ([`ToolEdit`], `tools.rs`) shows a server's tools, named as the server names
//! them, renamed, described anew, hidden, or with arguments renamed or fixed (`mcp
//! gateway`; a [`ClientGroup`](super::ClientGroup) shows them as they are).
//!
//! `rateLimit` ([`RateLimitConfig`]) counts each caller's calls per tool: a caller is its
//! principal, else its address (`X-Forwarded-For` believed only from `trustedProxies`), else
//! its session (`"by"` picks one); `tools` names tools as the gateway shows them, prefix
//! included (or a transform's name), and a name the gateway does not show is a load error.

use std::collections::HashMap;
use std::net::IpAddr;
use std::time::Duration;

use serde_json::{Map, Value};

mod access;
mod text;
mod tools;

#[cfg(all(feature = "jwt", feature = "tls"))]
pub use access::jwks_over_tls;
pub use text::expand;
use text::key_lines;
pub use tools::{ArgEdit, ToolEdit, UpstreamTools, tool_transforms};

/// How an upstream's names are given to the gateway's clients.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prefix {
    /// `namespace` + separator + name, always (the default).
    Always,
    /// As the upstream names them; a clash with another upstream's is a load error.
    Never,
    /// As the upstream names them, unless one clashes with another upstream's; then all of
    /// this upstream's are prefixed (decided at start; an upstream down at start is
    /// prefixed).
    OnClash,
}

/// How an upstream is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Transport {
    /// A child process over stdio.
    Stdio {
        /// The program.
        command: String,
        /// Its arguments.
        args: Vec<String>,
        /// Environment variables set for it.
        env: Vec<(String, String)>,
        /// Its working directory.
        cwd: Option<String>,
    },
    /// Streamable HTTP (falling back to HTTP+SSE).
    Http {
        /// The server's URL.
        url: String,
        /// Headers sent on every request.
        headers: Vec<(String, String)>,
    },
    /// Not an MCP server: an HTTP API described by an OpenAPI document (an entry under
    /// `gateway.servers` with the key `openapi`), its operations served as tools.
    OpenApi(Api),
}

/// An HTTP API of the file: `gateway.servers.NAME` with `openapi`. Two are equal when
/// everything but the line is (an entry only moved is not rebuilt on reload).
#[derive(Debug, Clone, Eq)]
pub struct Api {
    /// The document: an `http(s)://` URL, or a path (relative to the file's directory).
    pub document: String,
    /// The line of `gateway.servers.NAME.openapi`, for errors about the document.
    pub line: usize,
    /// The base URL requests go to, instead of the document's first server.
    pub base: Option<String>,
    /// Operations served (none: all of them).
    pub include: Vec<Rule>,
    /// Operations left out.
    pub exclude: Vec<Rule>,
    /// Credentials sent with every request.
    pub auth: Vec<Credential>,
    /// Headers sent with every request.
    pub headers: Vec<(String, String)>,
}

impl PartialEq for Api {
    fn eq(&self, o: &Api) -> bool {
        (&self.document, &self.base, &self.include, &self.exclude)
            == (&o.document, &o.base, &o.include, &o.exclude)
            && (&self.auth, &self.headers) == (&o.auth, &o.headers)
    }
}

/// A selection rule: an operation matches when it matches every list given (any value of
/// a list).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rule {
    /// Path patterns (`*` one segment, `**` any).
    pub paths: Vec<String>,
    /// HTTP methods.
    pub methods: Vec<String>,
    /// Tags.
    pub tags: Vec<String>,
    /// `operationId`s.
    pub operation_ids: Vec<String>,
}

/// A credential for the API (values already expanded from the environment).
#[derive(Clone, PartialEq, Eq)]
pub enum Credential {
    /// An API key: where (`header`, `query`, `cookie`), its name, its value.
    ApiKey {
        /// `header`, `query` or `cookie`.
        place: String,
        /// The header, parameter or cookie name.
        name: String,
        /// The key.
        value: String,
    },
    /// `Authorization: Bearer TOKEN`.
    Bearer(String),
    /// `Authorization: Basic ...`.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
}

impl std::fmt::Debug for Credential {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The values are secrets: never in a log line.
        match self {
            Credential::ApiKey { place, name, .. } => write!(f, "ApiKey({place} {name})"),
            Credential::Bearer(_) => f.write_str("Bearer(..)"),
            Credential::Basic { .. } => f.write_str("Basic(..)"),
        }
    }
}

/// One server of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// Its key under `mcpServers`.
    pub key: String,
    /// How it is reached.
    pub transport: Transport,
    /// Its prefix (default: the key).
    pub namespace: String,
    /// When its names are prefixed.
    pub prefix: Prefix,
    /// Failing closed (all or nothing) rather than open.
    pub fail_closed: bool,
    /// The per-call timeout.
    pub timeout: Option<Duration>,
    /// How often it is pinged when quiet, and the longest wait between attempts while down.
    pub health_interval: Option<Duration>,
    /// One connection per caller rather than one shared.
    pub per_caller: bool,
    /// `gateway.servers.NAME.oauth`: the gateway's own OAuth client toward an HTTP server.
    pub oauth: Option<OAuthClient>,
    /// `gateway.servers.NAME.passThrough.audience`: the caller's token forwarded as it is
    /// when its `aud` names this.
    pub pass_through: Option<String>,
}

/// The gateway's OAuth client toward one HTTP server (the client credentials grant): the
/// server's authorization server is discovered from it, as any MCP client does.
#[derive(Clone, PartialEq, Eq)]
pub struct OAuthClient {
    /// The client's id at the authorization server.
    pub client_id: String,
    /// Its secret (`${VAR}` expanded; never printed).
    pub client_secret: Option<String>,
    /// `tokenExchange`: the caller's token exchanged (RFC 8693) for one for the server,
    /// this client authenticating the exchange.
    pub token_exchange: Option<Exchange>,
}

/// `gateway.servers.NAME.oauth.tokenExchange`: what the exchanged token is asked for.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Exchange {
    /// The `audience` (default: the server's resource).
    pub audience: Option<String>,
    /// The scopes, space-separated (default: none asked).
    pub scope: Option<String>,
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuthClient")
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "…"))
            .field("token_exchange", &self.token_exchange)
            .finish()
    }
}

/// The whole file.
#[derive(Debug, Clone)]
pub struct Config {
    /// The gateway's server name (default `mcp-gateway`).
    pub name: String,
    /// Between a namespace and a name (default `_`).
    pub separator: String,
    /// The upstreams, in file order (disabled ones left out).
    pub upstreams: Vec<Entry>,
    /// `gateway.rateLimit`, if any.
    pub rate_limit: Option<RateLimitConfig>,
    /// `gateway.auth`, if any.
    pub auth: Option<AuthConfig>,
    /// `gateway.visibility`: per tag, who may see the tools that carry it.
    pub visibility: Vec<TagRule>,
    /// `gateway.servers.NAME.tools`: the upstreams' tools as the file changes them.
    pub tools: Vec<ToolEdit>,
}

/// `gateway.auth`: bearer JWTs checked against a JWKS.
#[derive(Debug, Clone, PartialEq)]
pub struct AuthConfig {
    /// The gateway's canonical URL, as clients request tokens for it.
    pub resource: String,
    /// The token issuer (`iss`), also named as the authorization server.
    pub issuer: String,
    /// The audience tokens must carry (default: `resource`).
    pub audience: String,
    /// Where the keys are: an `https://` or `http://` URL, or a JSON file's path.
    pub jwks: String,
    /// Whether a request without a token goes in (with no principal).
    pub anonymous: bool,
}

/// `gateway.visibility.tags.TAG`: the tools tagged `tag` are listed and callable only by
/// principals whose claim `claim` holds one of `values`.
#[derive(Debug, Clone, PartialEq)]
pub struct TagRule {
    /// The tag (`_meta.tags`).
    pub tag: String,
    /// The claim read (a string, or an array of strings).
    pub claim: String,
    /// The values that may see the tag.
    pub values: Vec<String>,
}

/// `gateway.rateLimit`: calls per minute, per caller and per tool.
#[derive(Debug, Clone, PartialEq)]
pub struct RateLimitConfig {
    /// For every tool not named in `tools`.
    pub per_minute: Option<u32>,
    /// A bucket's size (default: its per-minute count).
    pub burst: Option<u32>,
    /// Per tool, by the name the gateway shows.
    pub tools: Vec<(String, u32)>,
    /// Who a caller is.
    pub by: CallerBy,
    /// The reverse proxies whose `X-Forwarded-For` is believed.
    pub trusted_proxies: Vec<IpAddr>,
}

/// `gateway.rateLimit.by`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallerBy {
    /// The principal, else the address, else the session (the default).
    Default,
    /// The authenticated principal only (others share one bucket).
    Principal,
    /// The client's address only.
    Address,
    /// The legacy session only.
    Session,
}

/// The keys of an `openapi` server besides the common ones.
const API_KEYS: &[&str] = &["openapi", "base", "include", "exclude", "auth", "headers"];

/// A mistake in the file: where and what.
#[derive(Debug)]
pub struct ConfigError {
    /// The line (1-based), when known.
    pub line: Option<usize>,
    /// The key, as a dotted path (`mcpServers.files.args`).
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.key.is_empty()) {
            (Some(l), false) => write!(f, "line {l}: `{}`: {}", self.key, self.message),
            (Some(l), true) => write!(f, "line {l}: {}", self.message),
            (None, false) => write!(f, "`{}`: {}", self.key, self.message),
            (None, true) => f.write_str(&self.message),
        }
    }
}

/// Reads the file's text; `env` looks up `${VAR}`.
pub fn parse(text: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<Config, ConfigError> {
    let root: Value = serde_json::from_str(text).map_err(|e| ConfigError {
        line: Some(e.line()),
        key: String::new(),
        message: format!("not valid JSON: {e}"),
    })?;
    let lines = key_lines(text);
    let p = Parser { lines, env };
    p.config(&root)
}

struct Parser<'a> {
    lines: HashMap<String, usize>,
    env: &'a dyn Fn(&str) -> Option<String>,
}

impl Parser<'_> {
    fn err(&self, key: &str, message: impl Into<String>) -> ConfigError {
        // The line of the key, else of the nearest enclosing key.
        let mut k = key;
        let line = loop {
            if let Some(l) = self.lines.get(k) {
                break Some(*l);
            }
            match k.rfind(['.', '[']) {
                Some(i) => k = &k[..i],
                None => break None,
            }
        };
        ConfigError {
            line: line.or(Some(1)),
            key: key.to_owned(),
            message: message.into(),
        }
    }

    fn config(&self, root: &Value) -> Result<Config, ConfigError> {
        let root = root
            .as_object()
            .ok_or_else(|| self.err("", "the file must hold a JSON object"))?;
        let servers = match root.get("mcpServers") {
            Some(Value::Object(m)) => m,
            Some(_) => return Err(self.err("mcpServers", "expected an object of servers")),
            None => {
                return Err(self.err(
                    "mcpServers",
                    "missing: the file must have \"mcpServers\": { \"name\": { \"command\": ... } }",
                ));
            }
        };
        let settings = match root.get("gateway") {
            None => Map::new(),
            Some(Value::Object(m)) => m.clone(),
            Some(_) => return Err(self.err("gateway", "expected an object")),
        };
        let mut config = Config {
            name: "mcp-gateway".into(),
            separator: "_".into(),
            upstreams: Vec::new(),
            rate_limit: None,
            auth: None,
            visibility: Vec::new(),
            tools: Vec::new(),
        };
        let mut per_server = Map::new();
        for (k, v) in &settings {
            let key = format!("gateway.{k}");
            match k.as_str() {
                "name" => config.name = self.text(&key, v)?,
                "separator" => {
                    config.separator = self.text(&key, v)?;
                    if config.separator.is_empty() {
                        return Err(self.err(&key, "must not be empty"));
                    }
                }
                "servers" => {
                    per_server = v
                        .as_object()
                        .cloned()
                        .ok_or_else(|| self.err(&key, "expected an object keyed by server"))?;
                }
                "rateLimit" => config.rate_limit = Some(self.rate_limit(&key, v)?),
                "auth" => config.auth = Some(self.auth(&key, v)?),
                "visibility" => config.visibility = self.visibility(&key, v)?,
                _ => {
                    return Err(self.err(
                        &key,
                        "unknown key (known: name, separator, servers, rateLimit, auth, visibility)",
                    ));
                }
            }
        }
        for (k, s) in &per_server {
            let api = s.get("openapi").is_some();
            match (servers.contains_key(k), api) {
                (false, false) => {
                    return Err(self.err(
                        &format!("gateway.servers.{k}"),
                        "no server of that name under mcpServers (and no `openapi` document)",
                    ));
                }
                (true, true) => {
                    return Err(self.err(
                        &format!("gateway.servers.{k}.openapi"),
                        "names an OpenAPI document, but mcpServers has a server of that name too: give the API another name",
                    ));
                }
                (false, true) => config.upstreams.push(self.api(k, s)?),
                (true, false) => {}
            }
        }
        for (name, entry) in servers {
            if let Some(u) = self.upstream(name, entry, per_server.get(name))? {
                config.upstreams.push(u);
            }
        }
        // Apart from their entries: a changed transform does not restart a server.
        for u in &config.upstreams {
            let tools = per_server.get(&u.key).and_then(|s| s.get("tools"));
            if let Some(t) = tools {
                config.tools.extend(self.tool_edits(&u.key, t)?);
            }
        }
        // File order (the map's order may be sorted).
        config.upstreams.sort_by_key(|u| {
            let at = match u.transport {
                Transport::OpenApi(_) => "gateway.servers",
                _ => "mcpServers",
            };
            self.lines.get(&format!("{at}.{}", u.key)).copied()
        });
        Ok(config)
    }

    fn upstream(
        &self,
        name: &str,
        entry: &Value,
        settings: Option<&Value>,
    ) -> Result<Option<Entry>, ConfigError> {
        let at = format!("mcpServers.{name}");
        if name.is_empty() {
            return Err(self.err(&at, "a server's name must not be empty"));
        }
        let e = entry
            .as_object()
            .ok_or_else(|| self.err(&at, "expected an object with `command` or `url`"))?;
        if e.get("disabled") == Some(&Value::Bool(true)) {
            return Ok(None);
        }
        let transport = match (e.get("command"), e.get("url")) {
            (Some(_), Some(_)) => {
                return Err(self.err(&at, "has both `command` and `url`: give one"));
            }
            (Some(c), None) => Transport::Stdio {
                command: self.expanded(&format!("{at}.command"), c)?,
                args: self.strings(&format!("{at}.args"), e.get("args"))?,
                env: self.pairs(&format!("{at}.env"), e.get("env"))?,
                cwd: match e.get("cwd") {
                    Some(v) => Some(self.expanded(&format!("{at}.cwd"), v)?),
                    None => None,
                },
            },
            (None, Some(u)) => {
                let url = self.expanded(&format!("{at}.url"), u)?;
                if !url.starts_with("http://") && !url.starts_with("https://") {
                    return Err(
                        self.err(&format!("{at}.url"), "expected an http:// or https:// URL")
                    );
                }
                Transport::Http {
                    url,
                    headers: self.pairs(&format!("{at}.headers"), e.get("headers"))?,
                }
            }
            (None, None) => {
                return Err(self.err(&at, "needs `command` (a program to run) or `url`"));
            }
        };
        if let Some(t) = e.get("type") {
            let t = self.text(&format!("{at}.type"), t)?;
            let stdio = matches!(transport, Transport::Stdio { .. });
            let fits = match t.as_str() {
                "stdio" => stdio,
                "http" | "sse" | "streamable-http" | "streamableHttp" => !stdio,
                _ => false,
            };
            if !fits {
                return Err(self.err(
                    &format!("{at}.type"),
                    format!("`{t}` does not fit (stdio with `command`; http, streamable-http or sse with `url`)"),
                ));
            }
        }
        let mut u = Entry {
            key: name.to_owned(),
            transport,
            namespace: name.to_owned(),
            prefix: Prefix::Always,
            fail_closed: false,
            timeout: None,
            health_interval: None,
            per_caller: false,
            oauth: None,
            pass_through: None,
        };
        if let Some(s) = settings {
            self.settings(&mut u, s)?;
        }
        Ok(Some(u))
    }

    /// `gateway.servers.NAME`.
    fn settings(&self, u: &mut Entry, s: &Value) -> Result<(), ConfigError> {
        let at = format!("gateway.servers.{}", u.key);
        let s = s
            .as_object()
            .ok_or_else(|| self.err(&at, "expected an object"))?;
        let api = matches!(u.transport, Transport::OpenApi(_));
        for (k, v) in s {
            let key = format!("{at}.{k}");
            if (api && API_KEYS.contains(&k.as_str())) || k == "tools" {
                continue; // read by `api`, `tool_edits`
            }
            if api && ["failureMode", "healthInterval", "connection"].contains(&k.as_str()) {
                return Err(self.err(
                    &key,
                    "does not apply to an `openapi` server (its calls are HTTP requests, not a connection)",
                ));
            }
            let word = |known: &[&str]| -> Result<String, ConfigError> {
                let w = self.text(&key, v)?;
                if known.contains(&w.as_str()) {
                    Ok(w)
                } else {
                    Err(self.err(&key, format!("`{w}`: expected one of {}", known.join(", "))))
                }
            };
            match k.as_str() {
                "namespace" => {
                    u.namespace = self.text(&key, v)?;
                    if u.namespace.is_empty() {
                        return Err(self.err(&key, "must not be empty"));
                    }
                }
                "prefix" => {
                    u.prefix = match word(&["always", "never", "onClash"])?.as_str() {
                        "never" => Prefix::Never,
                        "onClash" => Prefix::OnClash,
                        _ => Prefix::Always,
                    }
                }
                "failureMode" => u.fail_closed = word(&["open", "closed"])? == "closed",
                "connection" => u.per_caller = word(&["shared", "perCaller"])? == "perCaller",
                "timeout" => u.timeout = Some(self.seconds(&key, v)?),
                "healthInterval" => u.health_interval = Some(self.seconds(&key, v)?),
                "oauth" => {
                    if !matches!(u.transport, Transport::Http { .. }) {
                        return Err(self.err(&key, "applies to a server with a `url` only"));
                    }
                    u.oauth = Some(self.oauth(&key, v)?);
                }
                "passThrough" => {
                    if !matches!(u.transport, Transport::Http { .. }) {
                        return Err(self.err(&key, "applies to a server with a `url` only"));
                    }
                    u.pass_through = Some(self.pass_through(&key, v)?);
                }
                _ => {
                    return Err(self.err(
                        &key,
                        "unknown key (known: namespace, prefix, failureMode, timeout, healthInterval, connection, oauth, passThrough, tools; for an API: openapi, base, include, exclude, auth, headers)",
                    ));
                }
            }
        }
        let exchange = (u.oauth.as_ref()).is_some_and(|o| o.token_exchange.is_some());
        if exchange && u.pass_through.is_some() {
            return Err(self.err(
                &format!("{at}.passThrough"),
                "the caller's token is either exchanged (oauth.tokenExchange) or passed through: give one",
            ));
        }
        Ok(())
    }

    /// `gateway.servers.NAME` with `openapi`: an HTTP API, its settings beside.
    fn api(&self, name: &str, s: &Value) -> Result<Entry, ConfigError> {
        let at = format!("gateway.servers.{name}");
        let o = s
            .as_object()
            .ok_or_else(|| self.err(&at, "expected an object"))?;
        let document = self.expanded(&format!("{at}.openapi"), &o["openapi"])?;
        if document.is_empty() {
            return Err(self.err(&format!("{at}.openapi"), "must not be empty"));
        }
        let base = match o.get("base") {
            Some(v) => {
                let b = self.expanded(&format!("{at}.base"), v)?;
                if !b.starts_with("http://") && !b.starts_with("https://") {
                    return Err(
                        self.err(&format!("{at}.base"), "expected an http:// or https:// URL")
                    );
                }
                Some(b)
            }
            None => None,
        };
        let api = Api {
            document,
            line: self.err(&format!("{at}.openapi"), "").line.unwrap_or(1),
            base,
            include: self.rules(&format!("{at}.include"), o.get("include"))?,
            exclude: self.rules(&format!("{at}.exclude"), o.get("exclude"))?,
            auth: self.credentials(&format!("{at}.auth"), o.get("auth"))?,
            headers: self.pairs(&format!("{at}.headers"), o.get("headers"))?,
        };
        let mut u = Entry {
            key: name.to_owned(),
            transport: Transport::OpenApi(api),
            namespace: name.to_owned(),
            prefix: Prefix::Always,
            fail_closed: false,
            timeout: None,
            health_interval: None,
            per_caller: false,
            oauth: None,
            pass_through: None,
        };
        self.settings(&mut u, s)?;
        Ok(u)
    }

    /// `include` or `exclude`: one rule object or an array of them, each of `paths`,
    /// `methods`, `tags`, `operationIds` (a string or an array of strings).
    fn rules(&self, key: &str, v: Option<&Value>) -> Result<Vec<Rule>, ConfigError> {
        let items: Vec<(String, &Value)> = match v {
            None => return Ok(Vec::new()),
            Some(Value::Array(a)) => (a.iter().enumerate())
                .map(|(i, r)| (format!("{key}[{i}]"), r))
                .collect(),
            Some(r) => vec![(key.to_owned(), r)],
        };
        let mut out = Vec::new();
        for (at, r) in items {
            let o = r.as_object().ok_or_else(|| {
                self.err(
                    &at,
                    "expected an object of paths, methods, tags, operationIds",
                )
            })?;
            let mut rule = Rule::default();
            for (k, v) in o {
                let key = format!("{at}.{k}");
                let list = match v {
                    Value::String(_) => vec![self.expanded(&key, v)?],
                    _ => self.strings(&key, Some(v))?,
                };
                match k.as_str() {
                    "paths" => rule.paths = list,
                    "methods" => rule.methods = list,
                    "tags" => rule.tags = list,
                    "operationIds" => rule.operation_ids = list,
                    _ => {
                        return Err(self.err(
                            &key,
                            "unknown key (known: paths, methods, tags, operationIds)",
                        ));
                    }
                }
            }
            out.push(rule);
        }
        Ok(out)
    }

    /// `auth`: one credential or an array of them: `{"bearer": TOKEN}`,
    /// `{"basic": {"user": U, "password": P}}`, `{"apiKey": {"in": "header" | "query" |
    /// "cookie", "name": N, "value": V}}`, values usually `${VAR}`.
    fn credentials(&self, key: &str, v: Option<&Value>) -> Result<Vec<Credential>, ConfigError> {
        let items: Vec<(String, &Value)> = match v {
            None => return Ok(Vec::new()),
            Some(Value::Array(a)) => (a.iter().enumerate())
                .map(|(i, r)| (format!("{key}[{i}]"), r))
                .collect(),
            Some(r) => vec![(key.to_owned(), r)],
        };
        let mut out = Vec::new();
        for (at, c) in items {
            let o = c.as_object().filter(|o| o.len() == 1).ok_or_else(|| {
                self.err(
                    &at,
                    "expected one of {\"bearer\": ...}, {\"basic\": ...}, {\"apiKey\": ...}",
                )
            })?;
            let (kind, v) = o.iter().next().expect("one key");
            let at = format!("{at}.{kind}");
            let field = |name: &str| -> Result<String, ConfigError> {
                let f = format!("{at}.{name}");
                match v.get(name) {
                    Some(x) => self.expanded(&f, x),
                    None => Err(self.err(&f, "missing")),
                }
            };
            out.push(match kind.as_str() {
                "bearer" => Credential::Bearer(self.expanded(&at, v)?),
                "basic" => Credential::Basic {
                    user: field("user")?,
                    password: field("password")?,
                },
                "apiKey" => {
                    let place = field("in")?;
                    if !["header", "query", "cookie"].contains(&place.as_str()) {
                        return Err(self.err(
                            &format!("{at}.in"),
                            format!("`{place}`: expected one of header, query, cookie"),
                        ));
                    }
                    Credential::ApiKey {
                        place,
                        name: field("name")?,
                        value: field("value")?,
                    }
                }
                _ => {
                    return Err(self.err(&at, "unknown credential (known: bearer, basic, apiKey)"));
                }
            });
        }
        Ok(out)
    }

    fn rate_limit(&self, key: &str, v: &Value) -> Result<RateLimitConfig, ConfigError> {
        let m = v
            .as_object()
            .ok_or_else(|| self.err(key, "expected an object"))?;
        let mut r = RateLimitConfig {
            per_minute: None,
            burst: None,
            tools: Vec::new(),
            by: CallerBy::Default,
            trusted_proxies: Vec::new(),
        };
        for (k, v) in m {
            let key = format!("{key}.{k}");
            match k.as_str() {
                "perMinute" => r.per_minute = Some(self.count(&key, v)?),
                "burst" => r.burst = Some(self.count(&key, v)?),
                "tools" => {
                    let tools = v
                        .as_object()
                        .ok_or_else(|| self.err(&key, "expected an object of tool: perMinute"))?;
                    for (name, n) in tools {
                        let n = self.count(&format!("{key}.{name}"), n)?;
                        r.tools.push((name.clone(), n));
                    }
                }
                "by" => {
                    let words = ["principal", "address", "session"];
                    r.by = match self.text(&key, v)?.as_str() {
                        "principal" => CallerBy::Principal,
                        "address" => CallerBy::Address,
                        "session" => CallerBy::Session,
                        other => {
                            return Err(self.err(
                                &key,
                                format!("`{other}`: expected one of {}", words.join(", ")),
                            ));
                        }
                    };
                }
                "trustedProxies" => {
                    for (i, a) in self.strings(&key, Some(v))?.iter().enumerate() {
                        let ip = a.parse().map_err(|_| {
                            self.err(&format!("{key}[{i}]"), format!("`{a}`: not an IP address"))
                        })?;
                        r.trusted_proxies.push(ip);
                    }
                }
                _ => {
                    return Err(self.err(
                        &key,
                        "unknown key (known: perMinute, burst, tools, by, trustedProxies)",
                    ));
                }
            }
        }
        if r.per_minute.is_none() && r.tools.is_empty() {
            return Err(self.err(key, "limits nothing: give perMinute or tools"));
        }
        Ok(r)
    }

    /// A whole number from 1 up.
    fn count(&self, key: &str, v: &Value) -> Result<u32, ConfigError> {
        (v.as_u64())
            .filter(|n| *n >= 1)
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| self.err(key, "expected a whole number from 1"))
    }

    fn seconds(&self, key: &str, v: &Value) -> Result<Duration, ConfigError> {
        v.as_f64()
            .filter(|s| *s > 0.0 && s.is_finite())
            .map(Duration::from_secs_f64)
            .ok_or_else(|| self.err(key, "expected a positive number of seconds"))
    }

    fn text(&self, key: &str, v: &Value) -> Result<String, ConfigError> {
        v.as_str()
            .map(str::to_owned)
            .ok_or_else(|| self.err(key, "expected a string"))
    }

    /// A string with `${VAR}` expanded.
    fn expanded(&self, key: &str, v: &Value) -> Result<String, ConfigError> {
        let s = self.text(key, v)?;
        expand(&s, self.env).map_err(|m| self.err(key, m))
    }

    fn strings(&self, key: &str, v: Option<&Value>) -> Result<Vec<String>, ConfigError> {
        let Some(v) = v else {
            return Ok(Vec::new());
        };
        let items = v
            .as_array()
            .ok_or_else(|| self.err(key, "expected an array of strings"))?;
        (items.iter().enumerate())
            .map(|(i, a)| self.expanded(&format!("{key}[{i}]"), a))
            .collect()
    }

    fn pairs(&self, key: &str, v: Option<&Value>) -> Result<Vec<(String, String)>, ConfigError> {
        let Some(v) = v else {
            return Ok(Vec::new());
        };
        let m = v
            .as_object()
            .ok_or_else(|| self.err(key, "expected an object of strings"))?;
        m.iter()
            .map(|(k, val)| Ok((k.clone(), self.expanded(&format!("{key}.{k}"), val)?)))
            .collect()
    }
}

impl Entry {
    /// How the proxy reaches this server (an `openapi` entry is not an MCP server: an
    /// error). The error names the key at fault.
    pub fn upstream(&self) -> Result<super::Upstream, String> {
        use super::{FailureMode, Sharing, Upstream};
        let mut up = match &self.transport {
            Transport::Stdio {
                command,
                args,
                env,
                cwd,
            } => {
                let mut up = Upstream::stdio(command, args);
                for (k, v) in env {
                    up = up.env(k, v);
                }
                match cwd {
                    Some(dir) => up.cwd(dir),
                    None => up,
                }
            }
            #[cfg(feature = "http")]
            Transport::Http { url, headers } => {
                let mut up = Upstream::http(url);
                for (k, v) in headers {
                    up = up.header(k.clone(), v.clone());
                }
                if let Some(o) = &self.oauth {
                    let client = self.oauth_client(url, o)?;
                    up = match &o.token_exchange {
                        Some(x) => up.token_exchange(
                            client,
                            crate::client::oauth::TokenExchange {
                                audience: x.audience.clone(),
                                scope: x.scope.clone(),
                            },
                        ),
                        None => up.oauth(client),
                    };
                }
                if let Some(audience) = &self.pass_through {
                    up = up.pass_through(audience.clone());
                }
                up
            }
            #[cfg(not(feature = "http"))]
            Transport::Http { .. } => {
                return Err(format!(
                    "mcpServers.{}: a `url` server needs the `http` feature",
                    self.key
                ));
            }
            Transport::OpenApi(_) => {
                return Err(format!(
                    "gateway.servers.{}: an OpenAPI document, not an MCP server (`mcp gateway` serves it)",
                    self.key
                ));
            }
        };
        up = up.name(self.key.clone());
        if self.fail_closed {
            up = up.failure_mode(FailureMode::Closed);
        }
        if self.per_caller {
            up = up.sharing(Sharing::PerCaller);
        }
        if let Some(t) = self.timeout {
            up = up.timeout(t);
        }
        if let Some(h) = self.health_interval {
            up = up.health_interval(h);
        }
        Ok(up)
    }

    /// The OAuth client of `oauth` toward `url` (the client credentials grant).
    #[cfg(feature = "http")]
    fn oauth_client(
        &self,
        url: &str,
        o: &OAuthClient,
    ) -> Result<crate::client::oauth::OAuth, String> {
        use crate::client::oauth::{ClientSecret, OAuth};
        let secret = ClientSecret::new(o.client_id.clone(), o.client_secret.clone());
        OAuth::builder(url.to_owned())
            .client_credentials_grant(secret)
            .build()
            .map_err(|e| format!("gateway.servers.{}.oauth: {e}", self.key))
    }
}

impl Config {
    /// Which servers are prefixed, given the names each offers now (`names[i]`, labelled
    /// `tool `x`` or `prompt `x``) and whether it is down (`down[i]`): `always` ones,
    /// `onClash` ones whose names meet another's (or that are down with no names known),
    /// never `never` ones. A clash left among the unprefixed, or between a prefixed name
    /// and an unprefixed one, is an error naming both.
    pub fn prefixes(&self, names: &[Vec<String>], down: &[bool]) -> Result<Vec<bool>, String> {
        let mut out: Vec<bool> = (self.upstreams.iter())
            .map(|u| u.prefix == Prefix::Always)
            .collect();
        // The unprefixed names: every `never` server's, then each `onClash` one's that meets
        // none of them (in file order).
        let mut taken: std::collections::HashSet<&String> = (self.upstreams.iter().zip(names))
            .filter(|(u, _)| u.prefix == Prefix::Never)
            .flat_map(|(_, names)| names)
            .collect();
        for (i, u) in self.upstreams.iter().enumerate() {
            if u.prefix != Prefix::OnClash {
                continue;
            }
            let unknown = down[i] && names[i].is_empty();
            out[i] = unknown || names[i].iter().any(|n| taken.contains(n));
            if !out[i] {
                taken.extend(&names[i]);
            }
        }
        // What each name ends up as, and whose it is.
        let mut owner: HashMap<String, &str> = HashMap::new();
        for (i, u) in self.upstreams.iter().enumerate() {
            for n in &names[i] {
                let shown = match out[i] {
                    true => prefix_name(n, &u.namespace, &self.separator),
                    false => n.clone(),
                };
                if let Some(first) = owner.insert(shown.clone(), &u.key) {
                    return Err(format!(
                        "`{first}` and `{}` both offer {shown}: give one of them \"prefix\": \"always\" or \"onClash\" under gateway.servers",
                        u.key
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// `tool `name`` → `tool `ns_name``.
fn prefix_name(labelled: &str, ns: &str, sep: &str) -> String {
    match labelled.split_once('`') {
        Some((kind, rest)) => format!("{kind}`{ns}{sep}{rest}"),
        None => labelled.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(k: &str) -> Option<String> {
        match k {
            "TOKEN" => Some("s3cret".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn claude_desktops_format_is_read_as_it_is() {
        let text = r#"{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-filesystem", "/Users/me/Desktop"]
    },
    "docs": { "url": "https://docs.example.com/mcp",
              "headers": { "Authorization": "Bearer ${TOKEN}" } }
  },
  "globalShortcut": "Ctrl+Space"
}"#;
        let c = parse(text, &env).unwrap();
        assert_eq!(c.upstreams.len(), 2);
        let fs = &c.upstreams[0];
        assert_eq!(fs.key, "filesystem");
        assert_eq!(fs.prefix, Prefix::Always);
        assert_eq!(
            fs.transport,
            Transport::Stdio {
                command: "npx".into(),
                args: vec![
                    "-y".into(),
                    "@modelcontextprotocol/server-filesystem".into(),
                    "/Users/me/Desktop".into()
                ],
                env: vec![],
                cwd: None
            }
        );
        assert_eq!(
            c.upstreams[1].transport,
            Transport::Http {
                url: "https://docs.example.com/mcp".into(),
                headers: vec![("Authorization".into(), "Bearer s3cret".into())]
            }
        );
    }

    #[test]
    fn the_gateways_settings_are_read_and_checked() {
        let text = r#"{
  "mcpServers": { "a": { "command": "x" }, "b": { "command": "y" } },
  "gateway": { "name": "gw", "separator": ".",
    "servers": { "a": { "prefix": "never", "failureMode": "closed", "timeout": 2.5,
                        "connection": "perCaller", "namespace": "aa" } } }
}"#;
        let c = parse(text, &env).unwrap();
        assert_eq!((c.name.as_str(), c.separator.as_str()), ("gw", "."));
        let a = &c.upstreams[0];
        assert_eq!(a.prefix, Prefix::Never);
        assert!(a.fail_closed && a.per_caller);
        assert_eq!(a.namespace, "aa");
        assert_eq!(a.timeout, Some(Duration::from_millis(2500)));
        assert_eq!(c.upstreams[1].prefix, Prefix::Always);
    }

    #[test]
    fn tool_transforms_are_read_per_server_apart_from_its_entry() {
        let text = r#"{
  "mcpServers": { "a": { "command": "x" }, "off": { "command": "y", "disabled": true } },
  "gateway": { "servers": {
    "a": { "tools": { "add": { "name": "sum", "description": "Sums.", "hidden": true,
                               "arguments": { "x": { "name": "left" }, "y": { "value": 2 } } } } },
    "off": { "tools": { "t": { "hidden": true } } } } }
}"#;
        let c = parse(text, &env).unwrap();
        assert_eq!(
            c.tools,
            [ToolEdit {
                upstream: "a".into(),
                tool: "add".into(),
                name: Some("sum".into()),
                description: Some("Sums.".into()),
                hidden: true,
                arguments: vec![
                    ("x".into(), ArgEdit::Rename("left".into())),
                    ("y".into(), ArgEdit::Value(serde_json::json!(2))),
                ],
            }]
        );
        let bad = r#"{ "mcpServers": { "a": { "command": "x" } },
  "gateway": { "servers": { "a": { "tools": { "add": { "arguments": { "x": { "name": "" } } } } } } } }"#;
        let e = parse(bad, &env).unwrap_err();
        assert_eq!(e.key, "gateway.servers.a.tools.add.arguments.x.name");
        assert_eq!((e.line, e.message.as_str()), (Some(2), "must not be empty"));
        let bad = bad.replace(r#"{ "name": "" }"#, r#"{ "name": "l", "value": 1 }"#);
        let e = parse(&bad, &env).unwrap_err();
        assert_eq!(e.key, "gateway.servers.a.tools.add.arguments.x");
    }

    #[test]
    fn mistakes_name_the_key_and_line() {
        let bad = |text: &str| parse(text, &env).unwrap_err().to_string();
        let e = bad(
            "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\",\n      \"args\": \"-v\"\n    }\n  }\n}",
        );
        assert_eq!(
            e,
            "line 5: `mcpServers.a.args`: expected an array of strings"
        );
        let e = bad(
            "{\"mcpServers\": {\"a\": {\"command\": \"x\"}},\n \"gateway\": {\"servers\": {\"a\": {\n \"prefix\": \"sometimes\"}}}}",
        );
        assert!(
            e.starts_with("line 3: `gateway.servers.a.prefix`: `sometimes`"),
            "{e}"
        );
        let e = bad("{\"mcpServers\": {\"a\": {\"command\": \"${NOPE}\"}}}");
        assert!(
            e.contains("`mcpServers.a.command`: `${NOPE}` is not set"),
            "{e}"
        );
        let e = bad("{\"mcpServers\": {\"a\": {\"args\": []}}}");
        assert!(e.contains("needs `command`"), "{e}");
        let e = bad("{\"mcpServers\": {},\n\"gateway\": {\"servers\": {\"zz\": {}}}}");
        assert!(
            e.starts_with("line 2: `gateway.servers.zz`: no server"),
            "{e}"
        );
        let e = bad("{\"mcpServers\": {}, \"gateway\": {\"colour\": 1}}");
        assert!(e.contains("`gateway.colour`: unknown key"), "{e}");
        let e = bad("{\n\"mcpServers\": {\n\"a\": {\"command\": \"x\",}\n}}");
        assert!(e.starts_with("line 3: not valid JSON"), "{e}");
        assert!(bad("{}").contains("`mcpServers`: missing"));
    }

    #[test]
    fn an_openapi_entry_is_read_with_its_selection_and_credentials() {
        let text = r#"{
  "mcpServers": { "a": { "command": "x" } },
  "gateway": { "servers": {
    "api": { "openapi": "spec.yaml", "base": "http://127.0.0.1:8000",
             "include": [{ "tags": "pets", "methods": ["GET", "POST"] }],
             "exclude": { "operationIds": ["delete_pet"] },
             "auth": [{ "bearer": "${TOKEN}" },
                      { "apiKey": { "in": "query", "name": "k", "value": "v" } }],
             "headers": { "X-Env": "test" }, "namespace": "pets", "timeout": 5 } } }
}"#;
        let c = parse(text, &env).unwrap();
        assert_eq!(c.upstreams.len(), 2);
        let api = &c.upstreams[1];
        assert_eq!((api.key.as_str(), api.namespace.as_str()), ("api", "pets"));
        assert_eq!(api.timeout, Some(Duration::from_secs(5)));
        let Transport::OpenApi(a) = &api.transport else {
            panic!("{api:?}")
        };
        assert_eq!((a.document.as_str(), a.line), ("spec.yaml", 4));
        assert_eq!(a.base.as_deref(), Some("http://127.0.0.1:8000"));
        assert_eq!(a.include[0].tags, ["pets"]);
        assert_eq!(a.include[0].methods, ["GET", "POST"]);
        assert_eq!(a.exclude[0].operation_ids, ["delete_pet"]);
        assert_eq!(a.auth[0], Credential::Bearer("s3cret".into()));
        assert!(!format!("{:?}", a.auth).contains("s3cret"));
        assert_eq!(a.headers, [("X-Env".to_owned(), "test".to_owned())]);

        let bad = |api: &str| {
            let text = format!(
                "{{\"mcpServers\": {{\"a\": {{\"command\": \"x\"}}}},\n\"gateway\": {{\"servers\": {{\n{api}}}}}}}"
            );
            parse(&text, &env).unwrap_err().to_string()
        };
        let e = bad(r#""a": {"openapi": "s.json"}"#);
        assert!(
            e.contains(
                "`gateway.servers.a.openapi`: names an OpenAPI document, but mcpServers has"
            ),
            "{e}"
        );
        let e = bad(r#""b": {"openapi": "s.json", "base": "ftp://x"}"#);
        assert!(
            e.starts_with("line 3: `gateway.servers.b.base`: expected an http"),
            "{e}"
        );
        let e = bad(r#""b": {"openapi": "s.json", "include": {"verbs": "GET"}}"#);
        assert!(
            e.contains("`gateway.servers.b.include.verbs`: unknown key"),
            "{e}"
        );
        let e = bad(
            r#""b": {"openapi": "s.json", "auth": {"apiKey": {"in": "body", "name": "k", "value": "v"}}}"#,
        );
        assert!(
            e.contains("`gateway.servers.b.auth.apiKey.in`: `body`: expected one of"),
            "{e}"
        );
        let e = bad(r#""b": {"openapi": "${NOPE}"}"#);
        assert!(
            e.contains("`gateway.servers.b.openapi`: `${NOPE}` is not set"),
            "{e}"
        );
        let e = bad(r#""b": {"openapi": "s.json", "connection": "perCaller"}"#);
        assert!(
            e.contains("`gateway.servers.b.connection`: does not apply"),
            "{e}"
        );
        let e = bad(r#""b": {"namespace": "x"}"#);
        assert!(e.contains("no server of that name under mcpServers"), "{e}");
    }

    #[test]
    fn the_callers_identity_is_exchanged_or_passed_through_only_as_configured() {
        let file = |settings: &str| {
            format!(
                "{{\"mcpServers\": {{\"a\": {{\"url\": \"http://up.test/mcp\"}}, \"s\": {{\"command\": \"x\"}}}},\n\"gateway\": {{\"servers\": {{\n{settings}}}}}}}"
            )
        };
        let c = parse(
            &file(
                r#""a": {"oauth": {"clientId": "gw", "clientSecret": "${TOKEN}",
                       "tokenExchange": {"audience": "up", "scope": "tools"}}}"#,
            ),
            &env,
        )
        .unwrap();
        let o = c.upstreams[0].oauth.as_ref().unwrap();
        let x = o.token_exchange.as_ref().unwrap();
        assert_eq!(
            (x.audience.as_deref(), x.scope.as_deref()),
            (Some("up"), Some("tools"))
        );
        assert!(!format!("{o:?}").contains("s3cret"));
        assert!(format!("{:?}", c.upstreams[0].upstream().unwrap()).contains("TokenExchange"));
        let c = parse(
            &file(r#""a": {"passThrough": {"audience": "http://up.test/mcp"}}"#),
            &env,
        )
        .unwrap();
        assert_eq!(
            c.upstreams[0].pass_through.as_deref(),
            Some("http://up.test/mcp")
        );

        let bad = |settings: &str| parse(&file(settings), &env).unwrap_err().to_string();
        let e = bad(r#""a": {"oauth": {"clientId": "gw", "tokenExchange": {"aud": "x"}}}"#);
        assert!(
            e.starts_with("line 3: `gateway.servers.a.oauth.tokenExchange.aud`: unknown key"),
            "{e}"
        );
        let e = bad(r#""a": {"passThrough": {}}"#);
        assert!(
            e.contains("`gateway.servers.a.passThrough`: missing `audience`"),
            "{e}"
        );
        let e = bad(r#""s": {"passThrough": {"audience": "x"}}"#);
        assert!(e.contains("applies to a server with a `url` only"), "{e}");
        let e = bad(
            r#""a": {"oauth": {"clientId": "gw", "tokenExchange": {}}, "passThrough": {"audience": "x"}}"#,
        );
        assert!(
            e.contains("`gateway.servers.a.passThrough`: the caller's token is either exchanged"),
            "{e}"
        );
    }

    #[test]
    fn variables_expand_with_defaults() {
        assert_eq!(expand("a${TOKEN}b", &env).unwrap(), "as3cretb");
        assert_eq!(expand("${NOPE:-x y}", &env).unwrap(), "x y");
        assert_eq!(expand("${EMPTY:-d}", &env).unwrap(), "d");
        assert_eq!(expand("<${EMPTY}>", &env).unwrap(), "<>");
        assert!(expand("${NOPE}", &env).unwrap_err().contains("not set"));
        assert!(expand("${OPEN", &env).unwrap_err().contains("closing"));
        assert!(
            expand("${a b}", &env)
                .unwrap_err()
                .contains("not a variable")
        );
        assert_eq!(expand("plain $HOME", &env).unwrap(), "plain $HOME");
    }
}
