//! [`ClientGroup`]: one client of many servers, the gateway's upstream side for an agent.
//!
//! A group is what `mcp gateway` does to its upstreams, served to one [`Client`] in memory
//! instead of to the network: each server a [`Proxy`] started with [`Proxy::start`] (a
//! server down at start does not stop the group), attached to one server under the prefix
//! rules of the `mcpServers` file ([`Config::prefixes`]) and its tool transforms
//! ([`config::tool_transforms`]), its failure isolated (a down server's items leave the
//! lists, announced, and come back when it answers). So the aggregated view, the routing of
//! a call to its server and the reconnection are the proxy's, tested once for both.

use std::path::Path;

use super::config::{self, Config, ConfigError, UpstreamTools};
use super::{Proxy, ReadinessSet, Upstream};
use crate::chain::transform::ToolTransforms;
use crate::client::{Client, ClientError};
use crate::dispatch::caching::CacheHint;
use crate::server::Server;

/// One client of every server of an `mcpServers` file (or a list): their tools, prompts and
/// resources in one view, each under its server's prefix (`files_read`), calls routed to
/// their server, a server that fails left out until it answers again.
///
/// ```no_run
/// use mcp_runtime::proxy::ClientGroup;
///
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// let group = ClientGroup::from_file("claude_desktop_config.json").await?;
/// for t in group.client().list_tools(None).await?.tools {
///     println!("{}", t.name); // `everything_add`, `files_read`, …
/// }
/// for s in group.states() {
///     println!("{}: {}", s.name, s.down.as_deref().unwrap_or("up"));
/// }
/// # Ok(()) }
/// ```
pub struct ClientGroup {
    client: Client,
    members: Vec<(String, Proxy)>,
    /// The aggregate the client is connected to (held for the group's life).
    _server: Server<(Option<ToolTransforms>, ReadinessSet)>,
}

/// One server of a group, as it stands now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberState {
    /// Its name in the file (or the list).
    pub name: String,
    /// Why it is down; `None` while it answers.
    pub down: Option<String>,
}

/// Why a group could not be made.
#[derive(Debug)]
pub enum GroupError {
    /// The file could not be read.
    Read(String, std::io::Error),
    /// The file is not a valid `mcpServers` file (the key and line named).
    Config(ConfigError),
    /// An entry is not an MCP server a client can reach, or names clash (said how).
    Entry(String),
    /// The group's own in-memory client could not connect (a bug, not a server's fault).
    Client(ClientError),
}

impl std::fmt::Display for GroupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GroupError::Read(path, e) => write!(f, "{path}: cannot read it: {e}"),
            GroupError::Config(e) => write!(f, "{e}"),
            GroupError::Entry(m) => f.write_str(m),
            GroupError::Client(e) => write!(f, "the group's client: {e}"),
        }
    }
}

impl std::error::Error for GroupError {}

impl ClientGroup {
    /// Every MCP server of the `mcpServers` file at `path` (`${VAR}` from the environment;
    /// the file's `gateway.servers` prefix settings and tool transforms honoured, as by
    /// `mcp gateway`; `gateway.servers` entries that are OpenAPI documents are refused:
    /// `mcp gateway` serves those).
    pub async fn from_file(path: impl AsRef<Path>) -> Result<ClientGroup, GroupError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path)
            .map_err(|e| GroupError::Read(path.display().to_string(), e))?;
        let config =
            config::parse(&text, &|k| std::env::var(k).ok()).map_err(GroupError::Config)?;
        ClientGroup::from_config(&config).await
    }

    /// Every server of `config`.
    pub async fn from_config(config: &Config) -> Result<ClientGroup, GroupError> {
        let mut proxies = Vec::new();
        for entry in &config.upstreams {
            let upstream = entry.upstream().map_err(GroupError::Entry)?;
            proxies.push((entry.key.clone(), Proxy::start(upstream).await));
        }
        let labelled = |p: &Proxy| -> Vec<String> {
            let tools = p.tools().into_iter().map(|t| format!("tool `{}`", t.name));
            let prompts = p
                .prompts()
                .into_iter()
                .map(|p| format!("prompt `{}`", p.name));
            tools.chain(prompts).collect()
        };
        let names: Vec<Vec<String>> = proxies.iter().map(|(_, p)| labelled(p)).collect();
        let down: Vec<bool> = proxies.iter().map(|(_, p)| p.down().is_some()).collect();
        let prefixed = config.prefixes(&names, &down).map_err(GroupError::Entry)?;
        let under: Vec<_> = (config.upstreams.iter().zip(prefixed))
            .map(|(e, p)| p.then(|| (e.namespace.clone(), config.separator.clone())))
            .collect();
        let views: Vec<UpstreamTools<'_>> = (proxies.iter().zip(&under))
            .map(|((key, p), under)| tool_view(key, p, under.as_ref()))
            .collect();
        let transforms =
            config::tool_transforms(&config.tools, &views).map_err(GroupError::Entry)?;
        ClientGroup::assemble(proxies, under, transforms).await
    }

    /// The servers given, each named and prefixed by its name (`name_tool`).
    pub async fn new<N: Into<String>>(
        servers: impl IntoIterator<Item = (N, Upstream)>,
    ) -> Result<ClientGroup, GroupError> {
        let mut proxies = Vec::new();
        let mut under = Vec::new();
        for (name, upstream) in servers {
            let name = name.into();
            under.push(Some((name.clone(), "_".to_owned())));
            proxies.push((name.clone(), Proxy::start(upstream.name(name)).await));
        }
        ClientGroup::assemble(proxies, under, None).await
    }

    /// The aggregate: one server with every proxy attached (`under` its prefix or as the
    /// server names its items), its tools shown through `transforms` (the outermost layer,
    /// as in `mcp gateway`), and the in-memory client connected to it.
    async fn assemble(
        members: Vec<(String, Proxy)>,
        under: Vec<Option<(String, String)>>,
        transforms: Option<ToolTransforms>,
    ) -> Result<ClientGroup, GroupError> {
        let readiness = ReadinessSet::new();
        let server = Server::builder("mcp-client-group", env!("CARGO_PKG_VERSION"))
            .subscriptions(true)
            // Every server may be down at the start: the lists are declared still.
            .declare_all_lists()
            // The lists follow the servers, which come and go: nothing cached for a minute.
            .cache_hint(CacheHint::private(0))
            .middleware(transforms)
            .middleware(readiness.clone())
            .try_build()
            .map_err(|e| GroupError::Entry(e.to_string()))?;
        for ((name, proxy), under) in members.iter().zip(under) {
            let attached = match under {
                Some((ns, sep)) => proxy.attach_under(&server, ns, sep),
                None => proxy.attach(&server),
            };
            attached.map_err(|e| GroupError::Entry(format!("`{name}`: {e}")))?;
            readiness.add(proxy.readiness());
        }
        let client = Client::builder()
            .no_cache()
            .connect(server.serve_in_memory())
            .await
            .map_err(GroupError::Client)?;
        Ok(ClientGroup {
            client,
            members,
            _server: server,
        })
    }

    /// The one client of every server: list, call, read, get prompts, subscribe, as with
    /// one server.
    pub fn client(&self) -> &Client {
        &self.client
    }

    /// Each server's state now, in the order given.
    pub fn states(&self) -> Vec<MemberState> {
        (self.members.iter())
            .map(|(name, p)| MemberState {
                name: name.clone(),
                down: p.down(),
            })
            .collect()
    }
}

/// A member for the tool transforms.
fn tool_view<'a>(key: &'a str, p: &Proxy, under: Option<&(String, String)>) -> UpstreamTools<'a> {
    let prefix = under.map(|(ns, sep)| format!("{ns}{sep}"));
    UpstreamTools::new(
        key,
        prefix.unwrap_or_default(),
        p.tools(),
        p.down().is_some(),
    )
}
