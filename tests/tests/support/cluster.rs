//! The loopback deployment of `deploy/cluster.sh` (Redis: one, a primary with two replicas
//! and three Sentinels, or a Redis Cluster of three primaries with a replica each; three `examples/everything` replicas; nginx round-robin in front)
//! for a test of its own, stopped on drop. Needs `redis-server` and `nginx`: without them a
//! test fails when `CI` is set and says `SKIPPED` otherwise.

use std::collections::HashSet;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// How many replicas `deploy/cluster.sh` starts.
pub const REPLICAS: u16 = 3;

/// The cluster of `deploy/cluster.sh`, stopped on drop (whatever the test did).
pub struct Cluster {
    pub dir: PathBuf,
    target: PathBuf,
    pub port: u16,
    /// nginx's MCP endpoint.
    pub url: String,
    /// Arguments every replica gets besides its address and Redis (`MCP_CLUSTER_ARGS`).
    replica_args: String,
}

/// The Redis behind the replicas (`deploy/cluster.sh --redis`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Redis {
    /// One Redis.
    Standalone,
    /// A primary, its two replicas and three Sentinels watching them (`redis-failover`).
    Sentinel,
    /// A Redis Cluster: three primaries and a replica of each (`redis-failover`).
    Cluster,
}

impl Redis {
    fn mode(self) -> &'static str {
        match self {
            Redis::Standalone => "standalone",
            Redis::Sentinel => "sentinel",
            Redis::Cluster => "cluster",
        }
    }

    /// The Redis processes, each on a port of its own after the replicas'.
    fn nodes(self) -> u16 {
        match self {
            Redis::Standalone => 1,
            Redis::Sentinel | Redis::Cluster => 6,
        }
    }
}

impl Cluster {
    /// Starts the cluster; `None` (after saying why) without redis-server or nginx outside CI.
    pub fn start() -> Option<Self> {
        Self::start_with_args("")
    }

    /// Starts the cluster with `args` added to every replica's command line.
    pub fn start_with_args(args: &str) -> Option<Self> {
        Self::start_on(Redis::Standalone, args)
    }

    /// Starts the cluster on `redis`, with `args` added to every replica's command line.
    pub fn start_on(redis: Redis, args: &str) -> Option<Self> {
        let missing: Vec<_> = [("redis-server", "--version"), ("nginx", "-v")]
            .into_iter()
            .filter(|(bin, arg)| !found(bin, arg))
            .map(|(bin, _)| bin)
            .collect();
        if !missing.is_empty() {
            if std::env::var_os("CI").is_some() {
                panic!("{missing:?} not installed (CI is set): .ci/run installs them");
            }
            eprintln!("SKIPPED: {missing:?} not installed (apt-get install redis-server nginx)");
            return None;
        }
        let exe = std::env::current_exe().expect("current_exe");
        let target = exe
            .parent()
            .and_then(Path::parent)
            .and_then(Path::parent)
            .expect("test binary lives in <target>/<profile>/deps")
            .to_path_buf();
        // A cluster node's bus listens on its port + 10000.
        let bus = (redis == Redis::Cluster).then_some(REPLICAS + 1);
        let port = free_port_base(REPLICAS + 1 + redis.nodes(), bus);
        let dir = target.join(format!("cluster-test-{port}-{redis:?}"));
        let _ = std::fs::remove_dir_all(&dir);
        let mut cluster = Cluster {
            dir,
            target,
            port,
            url: String::new(),
            replica_args: args.to_owned(),
        };
        // The build of `start` links the example against the library as this test has it.
        let out = cluster.script(&["--redis", redis.mode(), "start"], 900);
        let url = out
            .lines()
            .rev()
            .find_map(|l| l.strip_prefix("url="))
            .unwrap_or_else(|| panic!("no url= line from cluster.sh start: {out}"));
        assert_eq!(url, format!("http://127.0.0.1:{port}/mcp"));
        cluster.url = url.to_owned();
        Some(cluster)
    }

    /// Runs `deploy/cluster.sh ARGS` within `secs` seconds; its standard output.
    pub fn script(&self, args: &[&str], secs: u32) -> String {
        let script =
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("deploy/cluster.sh");
        let out = Command::new("timeout")
            .arg(secs.to_string())
            .arg(&script)
            .args(args)
            .env("MCP_CLUSTER_PORT", self.port.to_string())
            .env("MCP_CLUSTER_DIR", &self.dir)
            .env("MCP_CLUSTER_TTL", "600")
            .env("MCP_CLUSTER_FEATURES", features())
            .env("CARGO_TARGET_DIR", &self.target)
            .env("MCP_CLUSTER_ARGS", &self.replica_args)
            .env_remove("MCP_REQUEST_STATE_KEYS")
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .expect("running deploy/cluster.sh");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            out.status.success(),
            "cluster.sh {args:?}: {}\n{stdout}",
            out.status
        );
        stdout
    }

    /// The `examples/everything` binary the replicas run.
    pub fn binary(&self) -> PathBuf {
        self.target.join("debug/examples/everything")
    }

    /// nginx's address.
    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    /// The replica (1..=3) a response came from: the last address of `X-Upstream` (nginx
    /// lists each one it tried).
    pub fn replica(&self, r: &hyper::http::HeaderMap) -> u16 {
        let up = r
            .get("x-upstream")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("no X-Upstream: {r:?}"));
        let last = up.rsplit(',').next().unwrap().trim();
        let port: u16 = last.rsplit(':').next().unwrap().parse().unwrap();
        let n = port - self.port;
        assert!((1..=REPLICAS).contains(&n), "{up}");
        n
    }

    /// The replicas that served requests of `session`, from nginx's access log.
    pub fn replicas_in_log(&self, session: &str) -> HashSet<String> {
        let log = std::fs::read_to_string(self.dir.join("nginx/access.log")).unwrap();
        log.lines()
            .filter(|l| l.contains(&format!("session={session}")))
            .flat_map(|l| {
                l.split_whitespace()
                    .filter(|w| w.starts_with("127.0.0.1:"))
                    .map(|w| w.trim_end_matches(',').to_owned())
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        let script =
            Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("deploy/cluster.sh");
        let _ = Command::new("timeout")
            .args(["60"])
            .arg(&script)
            .arg("stop")
            .env("MCP_CLUSTER_PORT", self.port.to_string())
            .env("MCP_CLUSTER_DIR", &self.dir)
            .stdin(Stdio::null())
            .status();
    }
}

fn found(bin: &str, arg: &str) -> bool {
    let run = |b: &str| {
        Command::new(b)
            .arg(arg)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok()
    };
    run(bin) || run(&format!("/usr/sbin/{bin}"))
}

/// The root crate's features this test was built with: `start` builds the example with the
/// same, so cargo only links it.
fn features() -> String {
    let all = [
        (cfg!(feature = "http"), "http"),
        (cfg!(feature = "client"), "client"),
        (cfg!(feature = "schema-validation"), "schema-validation"),
        (cfg!(feature = "jwt"), "jwt"),
        (cfg!(feature = "oauth-signing"), "oauth-signing"),
        (cfg!(feature = "otel"), "otel"),
        (cfg!(feature = "redis"), "redis"),
        (cfg!(feature = "full"), "full"),
    ];
    all.iter()
        .filter(|(on, _)| *on)
        .map(|(_, f)| *f)
        .collect::<Vec<_>>()
        .join(",")
}

/// A base port whose next `count - 1` are free too (nginx, three replicas, the Redis nodes),
/// and with `bus` those from `bus` on 10000 higher (a Redis Cluster node's bus).
fn free_port_base(count: u16, bus: Option<u16>) -> u16 {
    let pid = std::process::id();
    for attempt in 0..200u32 {
        // Below Linux's ephemeral range (32768..), which outgoing connections draw from.
        let slot = (pid % 2500 + attempt * 37) % 2500;
        let base = u16::try_from(20000 + slot * 5).expect("below 32500");
        let free = (0..count).all(|i| std::net::TcpListener::bind(("127.0.0.1", base + i)).is_ok())
            && bus.is_none_or(|from| {
                (from..count)
                    .all(|i| std::net::TcpListener::bind(("127.0.0.1", base + 10000 + i)).is_ok())
            });
        if free {
            return base;
        }
    }
    panic!("no {count} free ports");
}
