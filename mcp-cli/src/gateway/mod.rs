//! `mcp gateway --config FILE [--stdio | --http ADDR]`: one MCP server in front of every
//! server of an `mcpServers` file (`config.rs`), built on `mcp::proxy` and served with the
//! library's own transports. Each upstream is a [`Proxy`] started with
//! [`Proxy::start`] (an upstream down at start does not stop the gateway), mounted under its
//! namespace or attached unprefixed as the file says; a failing upstream leaves the lists
//! and returns (the proxy's failure isolation). Upstreams going down and coming back are
//! reported on stderr.

pub mod config;

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use mcp_runtime::proxy::{FailureMode, Proxy, Sharing, Upstream};
use mcp_runtime::transport::http::HttpOptions;
use mcp_runtime::{CancellationToken, MountOptions, Server};

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

/// Reads `path`, starts every upstream, and serves until the transport ends.
pub async fn run(path: &str, serve: &Serve) -> Result<(), Failure> {
    let config = load(path)?;
    let addr = match serve {
        Serve::Http(a) => Some(a.parse::<std::net::SocketAddr>().map_err(|_| {
            Failure::usage(format!(
                "--http `{a}`: expected HOST:PORT, e.g. 127.0.0.1:8080"
            ))
        })?),
        Serve::Stdio => None,
    };
    let mut proxies = Vec::new();
    for u in &config.upstreams {
        let proxy = Proxy::start(upstream_of(u)).await;
        match proxy.down() {
            None => eprintln!("mcp gateway: `{}` is up", u.key),
            Some(why) => eprintln!("mcp gateway: `{}` is down for now: {why}", u.key),
        }
        proxies.push(proxy);
    }
    let server = assemble(&config, &proxies)?;
    tokio::spawn(report(
        config.upstreams.iter().map(|u| u.key.clone()).collect(),
        proxies,
    ));
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
fn prefixed(config: &Config, proxies: &[Proxy]) -> Result<Vec<bool>, Failure> {
    let names = |p: &Proxy| -> Vec<String> {
        let tools = p.tools().into_iter().map(|t| format!("tool `{}`", t.name));
        let prompts = p
            .prompts()
            .into_iter()
            .map(|t| format!("prompt `{}`", t.name));
        tools.chain(prompts).collect()
    };
    let all: Vec<Vec<String>> = proxies.iter().map(names).collect();
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
        let unknown = proxies[i].down().is_some() && all[i].is_empty();
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

/// The gateway's server: each upstream mounted under its namespace, or attached
/// unprefixed, with its readiness layer.
fn assemble(config: &Config, proxies: &[Proxy]) -> Result<Server, Failure> {
    let prefixed = prefixed(config, proxies)?;
    let mut namespaces = HashSet::new();
    let mut b = Server::builder(config.name.clone(), env!("CARGO_PKG_VERSION"))
        .instructions("A gateway: each upstream server's tools, prompts and resources, under its namespace unless configured otherwise.")
        .subscriptions(true);
    for ((u, p), prefix) in config.upstreams.iter().zip(proxies).zip(&prefixed) {
        if *prefix {
            if !namespaces.insert(u.namespace.clone()) {
                return Err(Failure::usage(format!(
                    "gateway: two servers have the namespace `{}`: give one another under gateway.servers.{}.namespace",
                    u.namespace, u.key
                )));
            }
            let opts = MountOptions::default().separator(config.separator.clone());
            b = b.mount_with(u.namespace.clone(), p.server(), opts);
        }
        b = b.middleware(p.readiness());
    }
    let server = b
        .try_build()
        .map_err(|e| Failure::usage(format!("gateway: {e}")))?;
    for ((u, p), prefix) in config.upstreams.iter().zip(proxies).zip(&prefixed) {
        if !*prefix {
            p.attach(&server)
                .map_err(|e| Failure::usage(format!("gateway: `{}`: {e}", u.key)))?;
        }
    }
    Ok(server)
}

/// Says on stderr when an upstream goes down or comes back.
async fn report(keys: Vec<String>, proxies: Vec<Proxy>) {
    let mut down: Vec<bool> = proxies.iter().map(|p| p.down().is_some()).collect();
    loop {
        tokio::time::sleep(Duration::from_millis(250)).await;
        for (i, p) in proxies.iter().enumerate() {
            let now = p.down();
            if now.is_some() != down[i] {
                down[i] = now.is_some();
                match now {
                    Some(why) => eprintln!("mcp gateway: `{}` is down: {why}", keys[i]),
                    None => eprintln!("mcp gateway: `{}` is up again", keys[i]),
                }
            }
        }
    }
}
