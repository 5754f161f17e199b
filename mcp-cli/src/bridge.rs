//! `mcp bridge`: a server whose table is an `mcp::proxy` [`Proxy`] of one upstream, served
//! with the library's own transports (`crate::serve`, as `mcp gateway` serves its proxies;
//! a bridge is a gateway of one upstream, not namespaced):
//!
//! - `mcp bridge --stdio URL`: the remote server at URL (Streamable HTTP falling back to
//!   HTTP+SSE, or with `--sse` HTTP+SSE only; `--header` and `--token` its credentials)
//!   served over stdio, for a client that only speaks stdio;
//! - `mcp bridge --http HOST:PORT 'CMD ARGS'`: the stdio server CMD served over Streamable
//!   HTTP at `http://HOST:PORT/mcp`, each legacy session with its own child process
//!   ([`Sharing::PerCaller`]) and 2026-07-28 requests with the shared one.
//!
//! The server takes the upstream's name, version and instructions. The upstream is
//! connected at start, at the revision `--protocol` pins, else the newest it speaks; the
//! revisions served follow it: a legacy upstream is served at the legacy revisions up to
//! its own (so a client probing with `server/discover` falls back to `initialize`, as it
//! would against the upstream itself), a 2026-07-28 one at every revision. The proxy relays
//! the rest: progress, cancellation, logging under each client's level, the upstream's
//! sampling, elicitation and roots requests to the client whose call caused them (2026-07-28
//! clients get them as `input_required` rounds), list changes and resource updates. An
//! upstream down at start, or later, is served without its items until it answers again
//! (reported on stderr).

use std::time::Duration;

use mcp_core::version::{Era, ProtocolVersion, SupportedVersions};
use mcp_runtime::caching::CacheHint;
use mcp_runtime::client::ConnectMode;
use mcp_runtime::proxy::{Proxy, Sharing, Upstream};
use mcp_runtime::transport::http::HttpOptions;

use crate::Failure;
use crate::args::{Cli, Target};
use crate::serve::Serve;

/// Runs `mcp bridge` (its arguments checked by `args`) until its transport ends.
pub async fn run(cli: &Cli) -> Result<(), Failure> {
    let (upstream, serve) = match (&cli.target, &cli.http) {
        (Target::Url(url), _) => (remote(cli, url), Serve::Stdio),
        (Target::Process(argv), Some(addr)) => {
            let child = Upstream::stdio(&argv[0], &argv[1..]).sharing(Sharing::PerCaller);
            (child, Serve::Http(addr.clone()))
        }
        (Target::Process(_), None) => {
            return Err(Failure::usage(
                "usage: mcp bridge --stdio [OPTIONS] URL | mcp bridge --http HOST:PORT 'CMD ARGS'",
            ));
        }
    };
    // A bad or busy address fails before the upstream is started.
    let endpoint = serve.open().await?;
    let timeout = Duration::from_secs(cli.timeout);
    let mut upstream = upstream.timeout(timeout).connect_timeout(timeout);
    if let Some(v) = cli.protocol {
        upstream = upstream.mode(match v.era() {
            Era::Legacy => ConnectMode::Legacy(v),
            Era::Modern => ConnectMode::Modern(v),
        });
    }
    let name = upstream.describe();
    let proxy = Proxy::start(upstream).await;
    match proxy.down() {
        None => eprintln!("mcp bridge: `{name}` is up"),
        Some(why) => eprintln!("mcp bridge: `{name}` is down for now: {why}"),
    }
    let server = proxy
        .builder()
        .supported_versions(served(&proxy, cli.protocol))
        // The lists follow the upstream's (and leave while it is down): never cacheable.
        .cache_hint(CacheHint::private(0))
        .try_build()
        .map_err(|e| Failure::usage(format!("bridge: {e}")))?;
    proxy
        .attach(&server)
        .map_err(|e| Failure::usage(format!("bridge: {e}")))?;
    let watched = proxy.clone();
    tokio::spawn(crate::serve::report("mcp bridge", move || {
        vec![(name.clone(), watched.down())]
    }));
    crate::serve::serve(&server, endpoint, "mcp bridge", HttpOptions::default()).await
}

/// The remote upstream at `url`, with the command line's transport and credentials.
fn remote(cli: &Cli, url: &str) -> Upstream {
    let mut up = match cli.sse {
        true => Upstream::sse(url),
        false => Upstream::http(url),
    };
    for (k, v) in &cli.headers {
        up = up.header(k.clone(), v.clone());
    }
    match &cli.token {
        Some(t) => up.bearer_token(t.clone()),
        None => up,
    }
}

/// The revisions the bridge serves: those up to a legacy upstream's (pinned, or as it was
/// connected at start), every one for a 2026-07-28 upstream or one not reached yet.
fn served(proxy: &Proxy, pinned: Option<ProtocolVersion>) -> SupportedVersions {
    let upstream = pinned.or_else(|| proxy.client().map(|c| c.protocol_version()));
    match upstream {
        Some(v) if v.era() == Era::Legacy => (ProtocolVersion::ALL.into_iter())
            .filter(|r| r.era() == Era::Legacy && v.at_least(*r))
            .collect(),
        _ => SupportedVersions::all(),
    }
}
