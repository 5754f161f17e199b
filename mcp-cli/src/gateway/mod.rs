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
//! An `openapi` entry is not an MCP server: its document is read with `mcp::openapi`
//! (`api.rs`) and its operations are added to the gateway's table as tools, under the
//! same namespace and prefix rules.

mod api;
pub mod config;

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use mcp_runtime::openapi::OpenApiTools;
use mcp_runtime::proxy::{FailureMode, Proxy, ReadinessSet, Sharing, Upstream};
use mcp_runtime::transport::http::HttpOptions;
use mcp_runtime::{CancellationToken, Server};

use crate::Failure;
use config::{Config, Prefix, Transport};

/// How the gateway is served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Serve {
    /// Over stdin and stdout (the default).
    Stdio,
    /// Streamable HTTP at `http://ADDR/mcp` (and HTTP+SSE at `/sse`).
    Http(String),
}

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
    upstream: config::Upstream,
    source: Source,
    /// Under `(namespace, separator)`, or unprefixed.
    under: Option<(String, String)>,
}

/// The gateway's server and what it serves; changed as a whole by [`apply`].
struct Gateway {
    server: Server,
    readiness: ReadinessSet,
    live: Arc<Mutex<Vec<Live>>>,
}

/// Reads `path`, starts every upstream, and serves until the transport ends; with `watch`,
/// reloads the file when it changes.
pub async fn run(path: &str, serve: &Serve, watch: bool) -> Result<(), Failure> {
    let config = load(path)?;
    let addr = match serve {
        Serve::Http(a) => Some(a.parse::<std::net::SocketAddr>().map_err(|_| {
            Failure::usage(format!(
                "--http `{a}`: expected HOST:PORT, e.g. 127.0.0.1:8080"
            ))
        })?),
        Serve::Stdio => None,
    };
    let readiness = ReadinessSet::new();
    let server = Server::builder(config.name.clone(), env!("CARGO_PKG_VERSION"))
        .instructions("A gateway: each upstream server's tools, prompts and resources, under its namespace unless configured otherwise.")
        .subscriptions(true)
        // The lists follow the upstreams, attached and detached while serving: never
        // cacheable for a minute, whatever a client cached before an upstream went down.
        .cache_hint(mcp_runtime::caching::CacheHint::private(0))
        .middleware(readiness.clone())
        .try_build()
        .map_err(|e| Failure::usage(format!("gateway: {e}")))?;
    let mut gateway = Gateway {
        server: server.clone(),
        readiness,
        live: Arc::default(),
    };
    apply(&mut gateway, &config, path).await?;
    tokio::spawn(report(gateway.live.clone()));
    if watch {
        tokio::spawn(reload_on_change(path.to_owned(), config, gateway));
    }
    match addr {
        None => server
            .serve_stdio()
            .await
            .map_err(|e| Failure::new(3, format!("serving stdio failed: {e}"))),
        Some(addr) => {
            let listener = tokio::net::TcpListener::bind(addr)
                .await
                .map_err(|e| Failure::new(3, format!("cannot listen on {addr}: {e}")))?;
            let bound = listener.local_addr().unwrap_or(addr);
            eprintln!("mcp gateway: serving http://{bound}/mcp");
            server
                .serve_http_on(listener, HttpOptions::default(), CancellationToken::new())
                .await
                .map_err(|e| Failure::new(3, format!("serving http://{bound}/mcp failed: {e}")))
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
    let old: Vec<(config::Upstream, Source)> = (gateway.live.lock().expect("live lock").iter())
        .map(|l| (l.upstream.clone(), l.source.clone()))
        .collect();
    let kept = |u: &config::Upstream| old.iter().find(|(o, _)| o == u).map(|(_, s)| s.clone());
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
            let proxy = Proxy::start(upstream_of(u)).await;
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
    Ok(())
}

/// The file read and checked: a clear error naming the file, line and key, never a dump.
pub fn load(path: &str) -> Result<Config, Failure> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| Failure::usage(format!("gateway config {path}: cannot read it: {e}")))?;
    config::parse(&text, &|k| std::env::var(k).ok())
        .map_err(|e| Failure::usage(format!("gateway config {path}: {e}")))
}

/// The proxy's view of one upstream of the file.
fn upstream_of(u: &config::Upstream) -> Upstream {
    let mut up = match &u.transport {
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
        Transport::Http { url, headers } => {
            let mut up = Upstream::http(url);
            for (k, v) in headers {
                up = up.header(k.clone(), v.clone());
            }
            up
        }
        Transport::OpenApi(_) => unreachable!("an OpenAPI entry is served by `api`, not a proxy"),
    };
    up = up.name(u.key.clone());
    if u.fail_closed {
        up = up.failure_mode(FailureMode::Closed);
    }
    if u.per_caller {
        up = up.sharing(Sharing::PerCaller);
    }
    if let Some(t) = u.timeout {
        up = up.timeout(t);
    }
    if let Some(h) = u.health_interval {
        up = up.health_interval(h);
    }
    up
}

/// Which upstreams are prefixed: `always` ones, `onClash` ones whose names meet another's
/// (or that are down at start: their names are not known), never `never` ones; a clash
/// left among the unprefixed, or between a prefixed name and an unprefixed one, is an
/// error naming both.
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
    let mut out: Vec<bool> = (config.upstreams.iter())
        .map(|u| u.prefix == Prefix::Always)
        .collect();
    // The unprefixed names: every `never` upstream's, then each `onClash` one's that meets
    // none of them (in file order).
    let mut taken: HashSet<&String> = (config.upstreams.iter().zip(&all))
        .filter(|(u, _)| u.prefix == Prefix::Never)
        .flat_map(|(_, names)| names)
        .collect();
    for (i, u) in config.upstreams.iter().enumerate() {
        if u.prefix != Prefix::OnClash {
            continue;
        }
        let unknown = sources[i].down().is_some() && all[i].is_empty();
        out[i] = unknown || all[i].iter().any(|n| taken.contains(n));
        if !out[i] {
            taken.extend(&all[i]);
        }
    }
    // What each name ends up as, and whose it is.
    let mut owner: HashMap<String, &str> = HashMap::new();
    for (i, u) in config.upstreams.iter().enumerate() {
        for n in &all[i] {
            let shown = match out[i] {
                true => prefix_name(n, &u.namespace, &config.separator),
                false => n.clone(),
            };
            if let Some(first) = owner.insert(shown.clone(), &u.key) {
                return Err(Failure::usage(format!(
                    "gateway: `{first}` and `{}` both offer {shown}: give one of them \"prefix\": \"always\" or \"onClash\" under gateway.servers",
                    u.key
                )));
            }
        }
    }
    Ok(out)
}

/// `tool `name`` → `tool `ns_name``.
fn prefix_name(labelled: &str, ns: &str, sep: &str) -> String {
    match labelled.split_once('`') {
        Some((kind, rest)) => format!("{kind}`{ns}{sep}{rest}"),
        None => labelled.to_owned(),
    }
}

/// Says on stderr when an upstream goes down or comes back.
async fn report(live: Arc<Mutex<Vec<Live>>>) {
    let mut down: HashMap<String, bool> = HashMap::new();
    loop {
        tokio::time::sleep(Duration::from_millis(250)).await;
        let now: Vec<(String, Option<String>)> = (live.lock().expect("live lock").iter())
            .map(|l| (l.upstream.key.clone(), l.source.down()))
            .collect();
        for (key, why) in now {
            let was = down.insert(key.clone(), why.is_some());
            match (was, why) {
                (Some(false), Some(why)) => eprintln!("mcp gateway: `{key}` is down: {why}"),
                (Some(true), None) => eprintln!("mcp gateway: `{key}` is up again"),
                _ => {}
            }
        }
    }
}
