//! `mcp gateway --config FILE [--stdio | --http ADDR] [--watch]`: one MCP server in front of
//! every server of an `mcpServers` file (`config.rs`), built on `mcp::proxy` and served
//! with the library's own transports. Each upstream is a [`Proxy`] started with
//! [`Proxy::start`] (an upstream down at start does not stop the gateway), attached to the
//! gateway's server under its namespace ([`Proxy::attach_under`]) or unprefixed as the file
//! says, its readiness layer in one [`ReadinessSet`]; a failing upstream leaves the lists
//! and returns (the proxy's failure isolation). With `--watch` a changed file is applied
//! while the gateway serves: unchanged upstreams keep their proxies, others are detached
//! and attached (their items announced); an invalid file is reported and the running
//! configuration kept. Upstreams going down and coming back are reported on stderr.
//! Serving (stdio, or Streamable HTTP) and that report are `crate::serve`'s, shared with
//! `mcp bridge` (a proxy of one upstream, not namespaced).
//! Over HTTP the gateway serves `/healthz`, `/readyz` (the upstreams and their states;
//! not ready while a `failureMode: closed` upstream is down) and `/metrics` (Prometheus:
//! requests, errors and latency per method, tool and upstream, and each upstream up or
//! down) beside `/mcp` (`operator`), and checks bearer JWTs when the file asks (`auth`).
//! An `openapi` entry is not an MCP server: its document is read with `mcp::openapi`
//! (`api.rs`) and its operations are added to the gateway's table as tools, under the
//! same namespace and prefix rules.

mod api;
mod policies;
mod transforms;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::Server;
use mcp_runtime::metrics::Metrics;
use mcp_runtime::openapi::OpenApiTools;
use mcp_runtime::policies::{RateLimit, Visibility};
use mcp_runtime::proxy::config::{self, Config, UpstreamTools};
use mcp_runtime::proxy::{Proxy, ReadinessSet};
use mcp_runtime::transform::ToolTransforms;
use mcp_runtime::transport::http::jwt::{JwksSource, JwtValidator};
use mcp_runtime::transport::http::{AuthOptions, HttpOptions, Operator};

use crate::Failure;
use crate::serve::Serve;

/// What serves one upstream's items.
#[derive(Clone)]
enum Source {
    /// An MCP server, through its proxy.
    Mcp(Proxy),
    /// An HTTP API's operations (an `openapi` entry).
    Api(Arc<OpenApiTools>),
}

impl Source {
    /// Why it is down (an API never is).
    fn down(&self) -> Option<String> {
        match self {
            Source::Mcp(p) => p.down(),
            Source::Api(_) => None,
        }
    }
}

/// One upstream being served: as the file said, what serves it, and how it is attached.
struct Live {
    upstream: config::Entry,
    source: Source,
    /// Under `(namespace, separator)`, or unprefixed.
    under: Option<(String, String)>,
}

/// The gateway's server: its middleware, outermost first, are the file's tool transforms,
/// the metrics, the file's visibility and rate limit (the file's each a slot a reload
/// refills) and the upstreams' readiness.
type GatewayServer = Server<(
    policies::Slot<ToolTransforms>,
    Metrics,
    policies::Slot<Visibility>,
    policies::Slot<RateLimit>,
    ReadinessSet,
)>;

/// The gateway's server and what it serves; changed as a whole by [`apply`].
struct Gateway {
    server: GatewayServer,
    readiness: ReadinessSet,
    live: Arc<Mutex<Vec<Live>>>,
    /// The servers' tool transforms, `gateway.rateLimit` and `gateway.visibility`,
    /// replaced by each (re)load.
    policies: policies::Policies,
    /// The file as last applied.
    config: Arc<Mutex<Config>>,
}

/// Reads `path`, starts every upstream, and serves until the transport ends; with `watch`,
/// reloads the file when it changes.
pub async fn run(path: &str, serve: &Serve, watch: bool) -> Result<(), Failure> {
    let config = load(path)?;
    // Fixed for the gateway's life (a reload changes the upstreams and the policies).
    let inbound = config.auth.as_ref().map(auth).transpose()?;
    // A bad or busy address fails before any upstream is started.
    let endpoint = serve.open().await?;
    let readiness = ReadinessSet::new();
    let live: Arc<Mutex<Vec<Live>>> = Arc::default();
    let metrics = metrics(&live);
    let policies = policies::Policies::default();
    let server = Server::builder(config.name.clone(), env!("CARGO_PKG_VERSION"))
        .instructions("A gateway: each upstream server's tools, prompts and resources, under its namespace unless configured otherwise.")
        .subscriptions(true)
        // Every upstream may be down when a client connects: it still lists them later.
        .declare_all_lists()
        // The lists follow the upstreams, attached and detached while serving: never
        // cacheable for a minute, whatever a client cached before an upstream went down.
        .cache_hint(mcp_runtime::caching::CacheHint::private(0))
        // Outermost: every layer inside sees the gateway's own names of tools.
        .middleware(policies.transforms.clone())
        .middleware(metrics.clone())
        .middleware(policies.visibility.clone())
        .middleware(policies.rate.clone())
        .middleware(readiness.clone())
        .try_build()
        .map_err(|e| Failure::usage(format!("gateway: {e}")))?;
    let mut gateway = Gateway {
        server: server.clone(),
        readiness,
        live,
        policies,
        config: Arc::new(Mutex::new(config.clone())),
    };
    let operator = operator(&gateway.live, metrics);
    apply(&mut gateway, &config, path).await?;
    tokio::spawn(check_as_they_come(path.to_owned(), gateway.checks()));
    let live = gateway.live.clone();
    tokio::spawn(crate::serve::report("mcp gateway", move || {
        (live.lock().expect("live lock").iter())
            .map(|l| (l.upstream.key.clone(), l.source.down()))
            .collect()
    }));
    if watch {
        tokio::spawn(reload_on_change(path.to_owned(), config, gateway));
    }
    let opts = HttpOptions {
        operator: Some(operator),
        auth: inbound,
        ..HttpOptions::default()
    };
    crate::serve::serve(&server, endpoint, "mcp gateway", opts).await
}

/// What [`check_as_they_come`] reads: the file as applied, the upstreams, the policies.
struct Checks {
    config: Arc<Mutex<Config>>,
    live: Arc<Mutex<Vec<Live>>>,
    policies: policies::Policies,
}

impl Gateway {
    fn checks(&self) -> Checks {
        Checks {
            config: self.config.clone(),
            live: self.live.clone(),
            policies: self.policies.clone(),
        }
    }
}

/// Checks the file's tool transforms and rate limit again each time a server whose tools
/// were not known comes up (down since it started: what the file says of its tools was
/// taken as written at the load). A mistake then found is reported once, naming the key;
/// the gateway serves on as loaded, and a reload of the fixed file applies the fix.
async fn check_as_they_come(path: String, checks: Checks) {
    let mut known: HashSet<String> = HashSet::new();
    let mut reported: Option<String> = None;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let live = checks.live.lock().expect("live lock");
        let upstreams = upstream_tools(&live);
        let now: HashSet<String> = (upstreams.iter())
            .filter(|u| u.tools.is_some())
            .map(|u| u.key.to_owned())
            .collect();
        let came = !now.is_subset(&known);
        known = now;
        if !came {
            continue;
        }
        // Locked inside `live`, as `apply` does.
        let config = checks.config.lock().expect("config lock").clone();
        let (shown, unknown) = shown_tools(&upstreams);
        let checked = checks.policies.check(
            (&config.tools, &upstreams),
            config.rate_limit.as_ref(),
            &config.visibility,
            (&shown, &unknown),
        );
        drop(live);
        match checked {
            Err(m) if reported.as_ref() != Some(&m) => {
                eprintln!(
                    "mcp gateway: gateway config {path}: {m} (found as a server that was down came up; the file is served as loaded until it is fixed)"
                );
                reported = Some(m);
            }
            Err(_) => {}
            Ok(_) => reported = None,
        }
    }
}

/// Polls `path` (twice a second) and brings the gateway to each valid new version; an
/// invalid one is reported and the running configuration kept.
async fn reload_on_change(path: String, mut current: Config, mut gateway: Gateway) {
    let stamp = |p: &str| {
        let m = std::fs::metadata(p).ok()?;
        Some((m.modified().ok()?, m.len()))
    };
    let mut seen = stamp(&path);
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = stamp(&path);
        if now == seen {
            continue;
        }
        seen = now;
        let next = match load(&path) {
            Ok(c) => c,
            Err(f) => {
                eprintln!(
                    "mcp gateway: not reloaded, the running configuration is kept: {}",
                    f.message
                );
                continue;
            }
        };
        if next.name != current.name {
            eprintln!(
                "mcp gateway: the new name `{}` takes effect at the next start",
                next.name
            );
        }
        match apply(&mut gateway, &next, &path).await {
            Ok(()) => {
                eprintln!("mcp gateway: {path} reloaded");
                current = next;
            }
            Err(f) => eprintln!(
                "mcp gateway: not reloaded, the running configuration is kept: {}",
                f.message
            ),
        }
    }
}

/// Brings the gateway to `config` (read from `path`): an upstream whose entry did not
/// change keeps its proxy (and its connection, its child process, its sessions); others
/// are started, the OpenAPI documents first (one that fails refuses the whole, before any
/// process is started). Prefixes are decided over the new set, and a clash refuses the
/// whole of it (nothing changes). Then what leaves, or is attached otherwise, is detached
/// (its items leave the lists, announced), and what comes is attached.
async fn apply(gateway: &mut Gateway, config: &Config, path: &str) -> Result<(), Failure> {
    let old: Vec<(config::Entry, Source)> = (gateway.live.lock().expect("live lock").iter())
        .map(|l| (l.upstream.clone(), l.source.clone()))
        .collect();
    let kept = |u: &config::Entry| old.iter().find(|(o, _)| o == u).map(|(_, s)| s.clone());
    let mut apis = HashMap::new();
    for u in &config.upstreams {
        if let (config::Transport::OpenApi(a), None) = (&u.transport, kept(u)) {
            apis.insert(u.key.clone(), api::build(path, u, a).await?);
        }
    }
    let mut sources = Vec::new();
    for u in &config.upstreams {
        if let Some(s) = kept(u) {
            sources.push(s);
        } else if let Some(tools) = apis.remove(&u.key) {
            eprintln!(
                "mcp gateway: `{}` is up: {} operations of its OpenAPI document",
                u.key,
                tools.tools().count()
            );
            sources.push(Source::Api(tools));
        } else {
            let proxy = Proxy::start(u.upstream().map_err(Failure::usage)?).await;
            match proxy.down() {
                None => eprintln!("mcp gateway: `{}` is up", u.key),
                Some(why) => eprintln!("mcp gateway: `{}` is down for now: {why}", u.key),
            }
            sources.push(Source::Mcp(proxy));
        }
    }
    let prefixed = prefixed(config, &sources)?;
    let mut namespaces = HashSet::new();
    let mut next = Vec::new();
    for ((u, source), prefixed) in config.upstreams.iter().zip(sources).zip(prefixed) {
        if prefixed && !namespaces.insert(u.namespace.clone()) {
            return Err(Failure::usage(format!(
                "gateway: two servers have the namespace `{}`: give one another under gateway.servers.{}.namespace",
                u.namespace, u.key
            )));
        }
        let under = prefixed.then(|| (u.namespace.clone(), config.separator.clone()));
        next.push(Live {
            upstream: u.clone(),
            source,
            under,
        });
    }
    // The transforms and the rate limit name tools as the gateway will show them: checked
    // before anything changes, so a bad name keeps the running configuration.
    let upstreams = upstream_tools(&next);
    let (shown, unknown) = shown_tools(&upstreams);
    let in_force = (gateway.policies)
        .check(
            (&config.tools, &upstreams),
            config.rate_limit.as_ref(),
            &config.visibility,
            (&shown, &unknown),
        )
        .map_err(|m| Failure::usage(format!("gateway config {path}: {m}")))?;
    let mut live = gateway.live.lock().expect("live lock");
    let same = |a: &Live, b: &Live| a.upstream == b.upstream && a.under == b.under;
    for l in live.iter() {
        if !next.iter().any(|n| same(l, n)) {
            match &l.source {
                Source::Mcp(p) => {
                    p.detach(&gateway.server);
                    gateway.readiness.remove(&p.readiness());
                }
                Source::Api(t) => api::detach(&gateway.server, t, l.under.as_ref()),
            }
        }
    }
    for n in &next {
        if live.iter().any(|l| same(l, n)) {
            continue;
        }
        let attached = match (&n.source, &n.under) {
            (Source::Mcp(p), Some((ns, sep))) => {
                p.attach_under(&gateway.server, ns.clone(), sep.clone())
            }
            (Source::Mcp(p), None) => p.attach(&gateway.server),
            (Source::Api(t), under) => api::attach(&gateway.server, t, under.as_ref()),
        };
        attached.map_err(|e| Failure::usage(format!("gateway: `{}`: {e}", n.upstream.key)))?;
        if let Source::Mcp(p) = &n.source {
            gateway.readiness.add(p.readiness());
        }
    }
    *live = next;
    gateway.policies.set(in_force);
    *gateway.config.lock().expect("config lock") = config.clone();
    Ok(())
}

/// The tool names the gateway shows for `upstreams`, and the prefixes of the servers whose
/// names are not known yet (down since they started; `""`: an unprefixed one, which could
/// be any name).
fn shown_tools(upstreams: &[UpstreamTools<'_>]) -> (HashSet<String>, Vec<String>) {
    let mut shown = HashSet::new();
    let mut unknown = Vec::new();
    for u in upstreams {
        match &u.tools {
            Some(tools) => shown.extend(tools.iter().map(|t| t.name.clone())),
            None => unknown.push(u.prefix.clone()),
        }
    }
    (shown, unknown)
}

/// Each upstream of `live` for the transforms: its tools under the gateway's names (none
/// while it is down and they are not known yet).
fn upstream_tools(live: &[Live]) -> Vec<UpstreamTools<'_>> {
    live.iter()
        .map(|l| {
            let prefix = match &l.under {
                Some((ns, sep)) => format!("{ns}{sep}"),
                None => String::new(),
            };
            let tools: Vec<_> = match &l.source {
                Source::Mcp(p) => p.tools(),
                Source::Api(t) => t.tools().cloned().collect(),
            };
            UpstreamTools::new(&l.upstream.key, prefix, tools, l.source.down().is_some())
        })
        .collect()
}

/// The file read and checked: a clear error naming the file, line and key, never a dump.
pub fn load(path: &str) -> Result<Config, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::usage(format!("gateway config {path}: cannot read it: {e}")))?;
    config::parse(&text, &|k| std::env::var(k).ok())
        .map_err(|e| Failure::usage(format!("gateway config {path}: {e}")))
}

/// Which upstreams are prefixed ([`Config::prefixes`]), from the names each offers now.
fn prefixed(config: &Config, sources: &[Source]) -> Result<Vec<bool>, Failure> {
    let names = |s: &Source| -> Vec<String> {
        let (tools, prompts) = match s {
            Source::Mcp(p) => (p.tools(), p.prompts()),
            Source::Api(t) => (t.tools().cloned().collect(), Vec::new()),
        };
        let tools = tools.into_iter().map(|t| format!("tool `{}`", t.name));
        let prompts = prompts.into_iter().map(|t| format!("prompt `{}`", t.name));
        tools.chain(prompts).collect()
    };
    let all: Vec<Vec<String>> = sources.iter().map(names).collect();
    let down: Vec<bool> = sources.iter().map(|s| s.down().is_some()).collect();
    config
        .prefixes(&all, &down)
        .map_err(|m| Failure::usage(format!("gateway: {m}")))
}

/// `gateway.auth`: bearer JWTs for the gateway's URL, checked against the JWKS named
/// (fetched over `https://` trusting the platform's roots or over `http://`, or read from
/// a file now), anonymous callers let in when the file says so. The metadata clients
/// discover the issuer by is served as usual.
fn auth(a: &config::AuthConfig) -> Result<AuthOptions, Failure> {
    let keys = if a.jwks.starts_with("http://") {
        JwksSource::url(&a.jwks)
    } else if a.jwks.starts_with("https://") {
        https_jwks(&a.jwks)
    } else {
        std::fs::read(&a.jwks)
            .map_err(|e| format!("cannot read {}: {e}", a.jwks))
            .and_then(|doc| JwksSource::from_json(&doc))
    }
    .map_err(|e| Failure::usage(format!("gateway.auth.jwks: {e}")))?;
    let validator = JwtValidator::new(a.issuer.clone(), a.audience.clone(), keys);
    let opts =
        AuthOptions::new(a.resource.clone(), validator).authorization_server(a.issuer.clone());
    Ok(if a.anonymous {
        opts.allow_anonymous()
    } else {
        opts
    })
}

/// The JWKS at an `https://` URL (the `tls` feature, on by default).
#[cfg(feature = "tls")]
fn https_jwks(url: &str) -> Result<JwksSource, String> {
    let tls = mcp_runtime::client::TlsConfig::platform();
    mcp_runtime::proxy::config::jwks_over_tls(url, &tls)
}

#[cfg(not(feature = "tls"))]
fn https_jwks(url: &str) -> Result<JwksSource, String> {
    Err(format!("{url}: this mcp was built without the tls feature"))
}

/// The gateway's metrics: each request labelled with the upstream that serves its tool,
/// and a gauge of each upstream up (1) or down (0).
fn metrics(live: &Arc<Mutex<Vec<Live>>>) -> Metrics {
    let (by_tool, states) = (live.clone(), live.clone());
    Metrics::new()
        .label("upstream", move |_, tool| {
            let tool = tool?;
            let live = by_tool.lock().expect("live lock");
            let serves = |l: &Live| match (&l.under, &l.source) {
                (Some((ns, sep)), _) => tool
                    .strip_prefix(ns.as_str())
                    .is_some_and(|rest| rest.starts_with(sep.as_str())),
                (None, Source::Mcp(p)) => p.tools().iter().any(|t| t.name == tool),
                (None, Source::Api(t)) => t.tools().any(|t| t.name == tool),
            };
            live.iter()
                .find(|l| serves(l))
                .map(|l| l.upstream.key.clone())
        })
        .gauge(
            "mcp_gateway_upstream_up",
            "1 while the upstream answers, 0 while it is down.",
            move || {
                let live = states.lock().expect("live lock");
                (live.iter())
                    .map(|l| {
                        let up = if l.source.down().is_none() { 1.0 } else { 0.0 };
                        (vec![("upstream".to_owned(), l.upstream.key.clone())], up)
                    })
                    .collect()
            },
        )
}

/// `/healthz`, `/readyz` and `/metrics`: ready while no `failureMode: closed` upstream is
/// down (a fail-open one down leaves only its own items out), every upstream's state shown.
fn operator(live: &Arc<Mutex<Vec<Live>>>, metrics: Metrics) -> Operator {
    let live = live.clone();
    Operator::new().metrics(metrics).ready(move || {
        let live = live.lock().expect("live lock");
        let mut ready = true;
        let mut upstreams = serde_json::Map::new();
        for l in live.iter() {
            let down = l.source.down();
            ready &= !(l.upstream.fail_closed && down.is_some());
            let state = match down {
                None => serde_json::json!({ "state": "up" }),
                Some(why) => serde_json::json!({ "state": "down", "reason": why }),
            };
            upstreams.insert(l.upstream.key.clone(), state);
        }
        (ready, serde_json::json!({ "upstreams": upstreams }))
    })
}
