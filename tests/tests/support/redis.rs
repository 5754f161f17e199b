//! A `redis-server` of a test's own on a free loopback port (no persistence, killed on
//! drop), and a raw RESP client to look at its keys beside the stores. Without
//! `redis-server` on the PATH, [`RedisServer::start`] fails when `CI` is set and says
//! `SKIPPED` (and gives `None`) otherwise.

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `redis-server` of this test's own, killed on drop.
pub struct RedisServer {
    child: Child,
    pub port: u16,
    /// A cluster node's config file, removed on drop.
    conf: Option<std::path::PathBuf>,
    /// Its working directory, of its own and removed on drop: a replica writes the data it
    /// synced there (`dump.rdb`), which any later `redis-server` started in a shared
    /// directory would load.
    dir: std::path::PathBuf,
}

impl RedisServer {
    /// A server on a free port; `None` (after saying why) when `redis-server` is missing
    /// outside CI.
    pub fn start() -> Option<Self> {
        Some(Self::start_on(Self::free_port()?))
    }

    /// A free loopback port; `None` (after saying why) when `redis-server` is missing
    /// outside CI.
    pub(crate) fn free_port() -> Option<u16> {
        if Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_err()
        {
            if std::env::var_os("CI").is_some() {
                panic!("redis-server is not installed (CI is set): .ci/run installs it");
            }
            eprintln!("SKIPPED: redis-server is not installed (apt-get install redis-server)");
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .expect("a free port")
            .port();
        Some(port)
    }

    pub fn start_on(port: u16) -> Self {
        Self::start_with(port, &[])
    }

    /// A server in cluster mode on a free port, owning every slot: a one-node Redis
    /// Cluster, which refuses a command or script naming keys of different slots
    /// (`CROSSSLOT`) as a cluster of several primaries does. `None` as [`Self::start`].
    pub fn start_cluster_node() -> Option<Self> {
        let port = Self::free_port()?;
        let conf = std::env::temp_dir().join(format!("mcp-test-nodes-{port}.conf"));
        let _ = std::fs::remove_file(&conf);
        let conf = conf.to_string_lossy().into_owned();
        let server = Self::start_with(
            port,
            &["--cluster-enabled", "yes", "--cluster-config-file", &conf],
        );
        assert_eq!(
            raw(port, &["CLUSTER", "ADDSLOTSRANGE", "0", "16383"]).unwrap(),
            Resp::Simple("OK".into())
        );
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let Ok(Resp::Bulk(Some(info))) = raw(port, &["CLUSTER", "INFO"]) else {
                panic!("CLUSTER INFO");
            };
            if String::from_utf8_lossy(&info).contains("cluster_state:ok") {
                break;
            }
            assert!(Instant::now() < deadline, "the cluster did not come up");
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(server)
    }

    pub(crate) fn start_with(port: u16, extra: &[&str]) -> Self {
        let conf = extra
            .windows(2)
            .find(|w| w[0] == "--cluster-config-file")
            .map(|w| w[1].into());
        let mut cmd = Command::new("redis-server");
        cmd.args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .args(extra);
        Self::spawn(cmd, port, conf)
    }

    /// A sentinel on a free port watching primary `service` at `primary` with a quorum of 2
    /// (down after 500 ms); its config file (Sentinel rewrites it) removed on drop.
    pub fn start_sentinel(service: &str, primary: u16) -> Self {
        let port = Self::free_port().expect("redis-server is there");
        let conf = std::env::temp_dir().join(format!("mcp-test-sentinel-{port}.conf"));
        std::fs::write(
            &conf,
            format!(
                "port {port}\nbind 127.0.0.1\nsentinel monitor {service} 127.0.0.1 {primary} 2\n\
                 sentinel down-after-milliseconds {service} 500\n\
                 sentinel failover-timeout {service} 5000\n"
            ),
        )
        .unwrap();
        let mut cmd = Command::new("redis-server");
        cmd.arg(&conf).arg("--sentinel");
        Self::spawn(cmd, port, Some(conf))
    }

    fn spawn(mut cmd: Command, port: u16, conf: Option<std::path::PathBuf>) -> Self {
        static SPAWNED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = SPAWNED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let dir =
            std::env::temp_dir().join(format!("mcp-test-redis-{}-{port}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a working directory");
        let child = cmd
            .current_dir(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server starts");
        let mut server = Self {
            child,
            port,
            conf,
            dir,
        };
        let deadline = Instant::now() + Duration::from_secs(10);
        while raw(port, &["PING"]).ok() != Some(Resp::Simple("PONG".into())) {
            assert!(Instant::now() < deadline, "redis-server did not come up");
            if let Ok(Some(status)) = server.child.try_wait() {
                panic!("redis-server exited ({status}): port {port} taken?");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        // Ours, not another test's that took the port first.
        let Ok(Resp::Bulk(Some(info))) = raw(port, &["INFO", "server"]) else {
            panic!("INFO server");
        };
        let pid = format!("process_id:{}", server.child.id());
        assert!(
            String::from_utf8_lossy(&info).lines().any(|l| l == pid),
            "port {port} answers for another redis-server"
        );
        server
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
        let _ = std::fs::remove_dir_all(&self.dir);
        if let Some(conf) = &self.conf {
            let _ = std::fs::remove_file(conf);
        }
    }
}

/// A RESP reply, as far as these tests read them.
#[derive(Debug, PartialEq)]
pub enum Resp {
    Simple(String),
    Int(i64),
    Bulk(Option<Vec<u8>>),
    Array(Vec<Resp>),
    Error(String),
}

/// One command on a connection of its own, beside the stores (bounded by a 5 s timeout).
pub fn raw(port: u16, args: &[&str]) -> std::io::Result<Resp> {
    let stream = TcpStream::connect(("127.0.0.1", port))?;
    stream.set_read_timeout(Some(Duration::from_secs(5)))?;
    let mut out = format!("*{}\r\n", args.len());
    for a in args {
        out.push_str(&format!("${}\r\n{a}\r\n", a.len()));
    }
    (&stream).write_all(out.as_bytes())?;
    read_resp(&mut BufReader::new(stream))
}

fn read_resp(r: &mut impl BufRead) -> std::io::Result<Resp> {
    let mut line = String::new();
    r.read_line(&mut line)?;
    let line = line.trim_end_matches("\r\n");
    let (kind, rest) = line.split_at(1);
    let n = || rest.parse::<i64>().expect("a length");
    Ok(match kind {
        "+" => Resp::Simple(rest.into()),
        "-" => Resp::Error(rest.into()),
        ":" => Resp::Int(n()),
        "$" if n() < 0 => Resp::Bulk(None),
        "$" => {
            let mut buf = vec![0; n() as usize + 2];
            r.read_exact(&mut buf)?;
            buf.truncate(buf.len() - 2);
            Resp::Bulk(Some(buf))
        }
        "*" => Resp::Array(
            (0..n().max(0))
                .map(|_| read_resp(r))
                .collect::<Result<_, _>>()?,
        ),
        other => panic!("unexpected RESP type {other:?}"),
    })
}

pub fn int(port: u16, args: &[&str]) -> i64 {
    match raw(port, args).expect("redis answers") {
        Resp::Int(n) => n,
        other => panic!("{args:?}: {other:?}"),
    }
}

/// Every key under `prefix` with its time to live in ms (-1: none).
pub fn keys_with_ttl(port: u16, prefix: &str) -> Vec<(String, i64)> {
    let Resp::Array(keys) = raw(port, &["KEYS", &format!("{prefix}*")]).unwrap() else {
        panic!("KEYS answers an array");
    };
    keys.into_iter()
        .map(|k| {
            let Resp::Bulk(Some(k)) = k else {
                panic!("a key")
            };
            let k = String::from_utf8(k).unwrap();
            let ttl = int(port, &["PTTL", &k]);
            (k, ttl)
        })
        .collect()
}

pub fn assert_every_key_expires(port: u16, prefix: &str) {
    let keys = keys_with_ttl(port, prefix);
    assert!(!keys.is_empty(), "keys under {prefix}");
    for (k, ttl) in keys {
        assert!(ttl > 0, "{k} has no expiry ({ttl})");
    }
}

/// A Redis Cluster of three primaries (no replicas) on free loopback ports, each node a
/// [`RedisServer`] killed on drop; made with `redis-cli --cluster create`.
pub struct RedisCluster {
    pub nodes: Vec<RedisServer>,
}

impl RedisCluster {
    /// Three nodes, every slot served; `None` as [`RedisServer::start`].
    pub fn start() -> Option<Self> {
        RedisServer::free_port()?;
        let mut nodes = Vec::new();
        while nodes.len() < 3 {
            // The cluster bus listens on the port + 10000.
            let port = RedisServer::free_port()?;
            if port > 55_000 || TcpListener::bind(("127.0.0.1", port + 10_000)).is_err() {
                continue;
            }
            let conf = std::env::temp_dir().join(format!("mcp-test-nodes-{port}.conf"));
            let _ = std::fs::remove_file(&conf);
            let conf = conf.to_string_lossy().into_owned();
            nodes.push(RedisServer::start_with(
                port,
                &["--cluster-enabled", "yes", "--cluster-config-file", &conf],
            ));
        }
        let addrs: Vec<String> = nodes
            .iter()
            .map(|n| format!("127.0.0.1:{}", n.port))
            .collect();
        let out = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addrs)
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .output()
            .expect("redis-cli runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stdout)
        );
        let deadline = Instant::now() + Duration::from_secs(20);
        for n in &nodes {
            loop {
                let Ok(Resp::Bulk(Some(info))) = raw(n.port, &["CLUSTER", "INFO"]) else {
                    panic!("CLUSTER INFO");
                };
                let info = String::from_utf8_lossy(&info).into_owned();
                if info.contains("cluster_state:ok") && info.contains("cluster_slots_ok:16384") {
                    break;
                }
                assert!(
                    Instant::now() < deadline,
                    "the cluster did not come up: {info}"
                );
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Some(Self { nodes })
    }

    /// `redis://127.0.0.1:<port>` of each node.
    pub fn urls(&self) -> Vec<String> {
        self.nodes
            .iter()
            .map(|n| format!("redis://127.0.0.1:{}", n.port))
            .collect()
    }
}

/// Every command Redis runs, as `MONITOR` shows it, from a connection of its own (a thread
/// that stops with the monitor). [`Monitor::around`] counts what one step sends.
pub struct Monitor {
    port: u16,
    lines: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
    stop: std::sync::Arc<std::sync::atomic::AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
    marks: usize,
}

/// What one step sent: `round_trips` commands from clients, `inner` commands scripts ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Commands {
    pub round_trips: usize,
    pub inner: usize,
}

impl Monitor {
    pub fn start(port: u16) -> Self {
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_millis(100)))
            .unwrap();
        (&stream).write_all(b"*1\r\n$7\r\nMONITOR\r\n").unwrap();
        let lines = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let (l, s) = (lines.clone(), stop.clone());
        let thread = std::thread::spawn(move || {
            let mut r = BufReader::new(stream);
            let mut line = String::new();
            while !s.load(std::sync::atomic::Ordering::Relaxed) {
                match r.read_line(&mut line) {
                    Ok(0) => return,
                    Ok(_) if line.ends_with('\n') => {
                        l.lock().unwrap().push(std::mem::take(&mut line));
                    }
                    _ => {}
                }
            }
        });
        let mut m = Self {
            port,
            lines,
            stop,
            thread: Some(thread),
            marks: 0,
        };
        m.mark();
        m
    }

    /// Sends a marker and waits until the monitor shows it; the lines before it.
    fn mark(&mut self) -> Vec<String> {
        self.marks += 1;
        let mark = format!("mcp-test-mark-{}", self.marks);
        raw(self.port, &["ECHO", &mark]).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            {
                let mut lines = self.lines.lock().unwrap();
                if let Some(i) = lines.iter().position(|l| l.contains(&mark)) {
                    let before: Vec<String> = lines.drain(..=i).collect();
                    return before[..before.len() - 1].to_vec();
                }
            }
            assert!(Instant::now() < deadline, "the monitor is stuck");
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// What Redis ran while `step` did, `ignoring` commands whose name it lists (say a
    /// bus's periodic `XREAD`).
    pub async fn around<F: std::future::Future>(
        &mut self,
        ignoring: &[&str],
        step: F,
    ) -> (F::Output, Commands) {
        self.mark();
        let out = step.await;
        // Writes a request makes after its answer (say, a session saved) land meanwhile.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let lines = self.mark();
        let wanted = |l: &&String| {
            !ignoring
                .iter()
                .any(|c| l.to_ascii_uppercase().contains(&format!("] \"{c}\"")))
        };
        if std::env::var_os("MCP_TEST_MONITOR").is_some() {
            for l in &lines {
                eprint!("  {l}");
            }
        }
        let inner = lines
            .iter()
            .filter(wanted)
            .filter(|l| l.contains("lua]"))
            .count();
        let round_trips = lines
            .iter()
            .filter(wanted)
            .filter(|l| !l.contains("lua]"))
            .count();
        (out, Commands { round_trips, inner })
    }
}

impl Drop for Monitor {
    fn drop(&mut self) {
        self.stop.store(true, std::sync::atomic::Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The text of `INFO <section>` (or of any bulk reply).
pub fn info(port: u16, args: &[&str]) -> String {
    match raw(port, args) {
        Ok(Resp::Bulk(Some(b))) => String::from_utf8_lossy(&b).into_owned(),
        other => format!("{other:?}"),
    }
}

/// A primary, its replica and three sentinels watching it as `mymaster`, each killed on
/// drop; ready once the replica is in sync and every sentinel knows the replica and the
/// other two.
pub struct RedisSentinels {
    pub primary: RedisServer,
    pub replica: RedisServer,
    pub sentinels: Vec<RedisServer>,
}

impl RedisSentinels {
    pub const SERVICE: &'static str = "mymaster";

    pub fn start() -> Option<Self> {
        let primary = RedisServer::start()?;
        let rport = RedisServer::free_port()?;
        let replica = RedisServer::start_with(
            rport,
            &["--replicaof", "127.0.0.1", &primary.port.to_string()],
        );
        let deadline = Instant::now() + Duration::from_secs(20);
        while !info(replica.port, &["INFO", "replication"]).contains("master_link_status:up") {
            assert!(Instant::now() < deadline, "the replica did not sync");
            std::thread::sleep(Duration::from_millis(20));
        }
        let sentinels: Vec<RedisServer> = (0..3)
            .map(|_| RedisServer::start_sentinel(Self::SERVICE, primary.port))
            .collect();
        for s in &sentinels {
            loop {
                let replicas = raw(s.port, &["SENTINEL", "REPLICAS", Self::SERVICE]);
                let others = raw(s.port, &["SENTINEL", "SENTINELS", Self::SERVICE]);
                let n = |r: &std::io::Result<Resp>| match r {
                    Ok(Resp::Array(a)) => a.len(),
                    _ => 0,
                };
                if n(&replicas) >= 1 && n(&others) >= 2 {
                    break;
                }
                assert!(Instant::now() < deadline, "the sentinels did not meet");
                std::thread::sleep(Duration::from_millis(50));
            }
        }
        Some(Self {
            primary,
            replica,
            sentinels,
        })
    }

    /// `redis+sentinel://127.0.0.1:<port>,.../mymaster`.
    pub fn url(&self) -> String {
        let hosts: Vec<String> = self
            .sentinels
            .iter()
            .map(|s| format!("127.0.0.1:{}", s.port))
            .collect();
        format!("redis+sentinel://{}/{}", hosts.join(","), Self::SERVICE)
    }

    /// The port of the primary the first sentinel names now.
    pub fn primary_port(&self) -> Option<u16> {
        match raw(
            self.sentinels[0].port,
            &["SENTINEL", "GET-MASTER-ADDR-BY-NAME", Self::SERVICE],
        ) {
            Ok(Resp::Array(a)) => match a.get(1) {
                Some(Resp::Bulk(Some(p))) => String::from_utf8_lossy(p).parse().ok(),
                _ => None,
            },
            _ => None,
        }
    }
}
