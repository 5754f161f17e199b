//! What a deployment configures: [`RedisConfig`] (URL, key prefix, timeout, event and task
//! bounds) and [`RedisStores`], the factory that `connect` gives, handing out every store,
//! the bus and the relay over one shared [`Conn`].

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};

use super::bus::{DEFAULT_BACKLOG, DEFAULT_QUEUE, RedisBus};
use super::connection::{
    Conn, Connector, FewerReplicas, Link, ReplicaWait, Resend, SentinelLink, Shortfall,
};
use super::events::RedisEventStore;
use super::rate::RedisRateStore;
use super::relay::RedisAnswerRelay;
use super::replay::RedisReplayGuard;
use super::sessions::RedisSessionStore;
use super::tasks::{RedisTaskStore, TaskLimits};
use crate::session::StoreError;

/// How to reach Redis and how to lay the stores' keys out there.
///
/// ```no_run
/// # async fn f() -> Result<(), mcp_runtime::session::StoreError> {
/// use std::time::Duration;
/// use mcp_runtime::backends::redis::RedisConfig;
///
/// let stores = RedisConfig::new("redis://127.0.0.1:6379/0")
///     .prefix("myapp:mcp:")
///     .timeout(Duration::from_millis(500))
///     .connect()
///     .await?;
/// let sessions = stores.session_store();
/// let events = stores.event_store();
/// let guard = stores.replay_guard();
/// # let _ = (sessions, events, guard);
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct RedisConfig {
    url: String,
    /// The seed nodes of a Redis Cluster (empty: one Redis at `url`).
    cluster: Vec<String>,
    /// The sentinels and the name of the primary they watch.
    sentinel: Option<(Vec<String>, String)>,
    prefix: String,
    timeout: Duration,
    event_ttl: Duration,
    max_events_per_stream: usize,
    tasks: TaskLimits,
    /// `WAIT` after the writes a client is told of: `None` the topology's default, `Some(0,
    /// _)` none.
    wait: Option<(u32, Option<Duration>)>,
    /// What a write does when fewer replicas hold it in time.
    fewer: FewerReplicas,
}

impl fmt::Debug for RedisConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisConfig")
            .field("url", &redacted(&self.url))
            .field(
                "cluster",
                &self.cluster.iter().map(|u| redacted(u)).collect::<Vec<_>>(),
            )
            .field("sentinel", &self.sentinel)
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .field("event_ttl", &self.event_ttl)
            .field("max_events_per_stream", &self.max_events_per_stream)
            .field("tasks", &self.tasks)
            .field("replica_wait", &self.replica_wait())
            .field("fewer_replicas", &self.fewer)
            .finish()
    }
}

/// `url` without its password (`redis://user:***@host`), for `Debug` output.
fn redacted(url: &str) -> String {
    match url.split_once("://") {
        Some((scheme, rest)) => match rest.split_once('@') {
            Some((user, host)) => {
                let user = user.split_once(':').map_or(user, |(u, _)| u);
                format!("{scheme}://{user}:***@{host}")
            }
            None => url.to_owned(),
        },
        None => url.to_owned(),
    }
}

/// The default key prefix.
pub const DEFAULT_PREFIX: &str = "mcp:";

impl RedisConfig {
    /// Redis at `url` (`redis://[user:password@]host:port/db`), keys under `mcp:`, a 1 s
    /// timeout per call, events kept for an hour after a stream's last event and at most
    /// 1024 per stream. `redis+cluster://[user:password@]host:port,host:port,...` is a Redis
    /// Cluster reached through those nodes (as [`cluster`](Self::cluster)).
    pub fn new(url: impl Into<String>) -> Self {
        let url = url.into();
        let cluster = cluster_nodes(&url).unwrap_or_default();
        let sentinel = sentinel_nodes(&url);
        // What `connect` opens a plain client on: a node, a sentinel, or the one Redis.
        let first = cluster
            .first()
            .or(sentinel.as_ref().and_then(|(n, _)| n.first()))
            .cloned();
        Self {
            url: first.unwrap_or(url),
            cluster,
            sentinel,
            prefix: DEFAULT_PREFIX.to_owned(),
            timeout: Duration::from_secs(1),
            event_ttl: Duration::from_secs(60 * 60),
            max_events_per_stream: 1024,
            tasks: TaskLimits::default(),
            wait: None,
            fewer: FewerReplicas::Accept,
        }
    }

    /// A Redis Cluster reached through any of `nodes` (`redis://host:port` each; the others
    /// are discovered), with the defaults of [`new`](Self::new). Every script names keys of
    /// one hash slot; the answer relay subscribes through the first node (a cluster hands a
    /// `PUBLISH` to every node).
    pub fn cluster<S: Into<String>>(nodes: impl IntoIterator<Item = S>) -> Self {
        let cluster: Vec<String> = nodes.into_iter().map(Into::into).collect();
        let mut config = Self::new(cluster.first().cloned().unwrap_or_default());
        config.cluster = cluster;
        config
    }

    /// The primary named `service` that the sentinels at `nodes` (`redis://host:port` each)
    /// watch, followed through failovers: a call that fails on the old primary asks the
    /// sentinels again (and is sent again where that is safe). The primary is reached with
    /// database 0 and no password. With the defaults of [`new`](Self::new).
    pub fn sentinel<S: Into<String>>(
        nodes: impl IntoIterator<Item = S>,
        service: impl Into<String>,
    ) -> Self {
        let nodes: Vec<String> = nodes.into_iter().map(Into::into).collect();
        let mut config = Self::new(nodes.first().cloned().unwrap_or_default());
        config.sentinel = Some((nodes, service.into()));
        config
    }

    /// Every key starts with `prefix` (deployments sharing one Redis use different ones).
    pub fn prefix(mut self, prefix: impl Into<String>) -> Self {
        self.prefix = prefix.into();
        self
    }

    /// How long one store call may take, connecting included (at least 1 ms); past it the
    /// call fails with [`StoreError::Unavailable`].
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// How long a stream's events are kept after its last event (at least 1 s).
    pub fn event_ttl(mut self, ttl: Duration) -> Self {
        self.event_ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// How many events each stream keeps (the oldest go first; at least 1). A client
    /// resuming after an evicted event gets the rest, flagged `truncated`.
    pub fn max_events_per_stream(mut self, max: usize) -> Self {
        self.max_events_per_stream = max.max(1);
        self
    }

    /// The longest a task is kept (at least 1 s; default 24 h): a task with a longer ttl,
    /// or an unlimited one, is forgotten after this.
    pub fn max_task_ttl(mut self, ttl: Duration) -> Self {
        self.tasks.max_task_ttl = ttl.max(Duration::from_secs(1));
        self
    }

    /// How many tasks each owner keeps (at least 1; default 10 000): at the bound the
    /// owner's oldest finished task makes room, and with none finished a new task is
    /// refused.
    pub fn max_tasks_per_owner(mut self, max: usize) -> Self {
        self.tasks.max_tasks_per_owner = max.max(1);
        self
    }

    /// Before a client is told of a write (a session created or changed, an event given its
    /// id, a task written, a `requestState` marked used, an answer or a server event relayed),
    /// wait until `replicas` replicas hold it (`WAIT replicas timeout` on the connection that
    /// wrote), at most `timeout` (capped at half the call [`timeout`](Self::timeout)), so a
    /// failover that promotes a replica does not lose what a client was told. When fewer
    /// hold it in time, [`when_fewer_replicas`](Self::when_fewer_replicas) decides: by
    /// default the write is acknowledged all the same, with a warning and a count
    /// ([`RedisStores::under_replicated_writes`]). Writes the client was not told of yet (the
    /// bus's background appends) wait alike. `replicas` 0 waits for none.
    ///
    /// The default: one replica under Sentinel ([`sentinel`](Self::sentinel),
    /// `redis+sentinel://`), half the call timeout; none for one Redis (no replica to wait
    /// for) and for a Redis Cluster (the primaries of a cluster need not have replicas; with
    /// them, ask here: `WAIT` then goes to every primary and the fewest count).
    ///
    /// To survive the loss of any one Redis node with every acknowledged write on a
    /// surviving node, run one more replica than you wait for: under Sentinel a primary
    /// with two replicas and one waited for (the sentinels point the remaining replica at
    /// the promoted one), so after any one loss a replica still acknowledges.
    pub fn wait_for_replicas(mut self, replicas: u32, timeout: Duration) -> Self {
        self.wait = Some((replicas, Some(timeout)));
        self
    }

    /// What a write a client is told of does when fewer replicas than
    /// [`wait_for_replicas`](Self::wait_for_replicas) asks hold it in time:
    /// [`FewerReplicas::Accept`] (the default: the service stays up while a Redis node is
    /// lost, each such write counted and logged) or [`FewerReplicas::Refuse`] (the write
    /// fails as [`StoreError::Unavailable`], a 503 with `Retry-After` on HTTP, until the
    /// replicas are back).
    pub fn when_fewer_replicas(mut self, fewer: FewerReplicas) -> Self {
        self.fewer = fewer;
        self
    }

    /// What [`wait_for_replicas`](Self::wait_for_replicas) resolves to for this topology and
    /// timeout: `None` when writes wait for no replica.
    fn replica_wait(&self) -> Option<ReplicaWait> {
        let (replicas, timeout) = match self.wait {
            Some(w) => w,
            None if self.sentinel.is_some() => (1, None),
            None => return None,
        };
        let half = self.timeout / 2;
        (replicas > 0).then(|| ReplicaWait {
            replicas,
            fewer: self.fewer,
            shortfall: Arc::new(Shortfall::new()),
            timeout: timeout
                .unwrap_or(half)
                .min(half)
                .max(Duration::from_millis(1)),
        })
    }

    /// Connects, and checks within the timeout that Redis answers (`PING`).
    ///
    /// Once connected, the stores reconnect by themselves: while Redis is away each call
    /// fails with [`StoreError::Unavailable`] within the timeout, and calls succeed again
    /// once it is back.
    pub async fn connect(self) -> Result<RedisStores, StoreError> {
        let stores = self.connect_lazy()?;
        stores
            .conn
            .cmd::<String>(&::redis::cmd("PING"), Resend::Dropped)
            .await?;
        Ok(stores)
    }

    /// The stores without a round trip: the connection is made on the first call (so a
    /// server may start while Redis is still away). Fails only on a malformed URL. Call it
    /// inside a Tokio runtime.
    pub fn connect_lazy(self) -> Result<RedisStores, StoreError> {
        let bad = |e: ::redis::RedisError| StoreError::Unavailable(format!("bad redis URL: {e}"));
        let wait = self.replica_wait();
        let client = ::redis::Client::open(self.url.as_str()).map_err(bad)?;
        let (link, connector) = if let Some((nodes, service)) = &self.sentinel {
            let sentinel = ::redis::sentinel::SentinelClient::build(
                nodes.clone(),
                service.clone(),
                None,
                ::redis::sentinel::SentinelServerType::Master,
            )
            .map_err(bad)?;
            let link = Arc::new(SentinelLink::new(sentinel, self.timeout));
            (Link::Sentinel(link.clone()), Connector::Sentinel(link))
        } else if self.cluster.is_empty() {
            let config = ConnectionManagerConfig::new()
                .set_connection_timeout(Some(self.timeout))
                .set_response_timeout(Some(self.timeout))
                .set_number_of_retries(2)
                .set_min_delay(Duration::from_millis(20))
                .set_max_delay(Duration::from_millis(200));
            let manager = ConnectionManager::new_lazy_with_config(client.clone(), config)
                .map_err(|e| StoreError::Unavailable(format!("redis: {e}")))?;
            (Link::Single(manager), Connector::Single(client.clone()))
        } else {
            // redis-rs waits at least 1.28 s before it retries a call that met a cluster
            // mid-failover (`CLUSTERDOWN`, `TRYAGAIN`, a slot with no known owner): longer
            // than a call may take, so a replica whose slot map was stale failed its calls
            // for seconds after the cluster had promoted a replica. Retried as the single
            // Redis's manager is: after 20 ms, doubling, 200 ms at most.
            let cluster = ::redis::cluster::ClusterClientBuilder::new(self.cluster.clone())
                .connection_timeout(self.timeout)
                .response_timeout(self.timeout)
                .min_retry_wait(20)
                .max_retry_wait(200)
                .build()
                .map_err(bad)?;
            let config = ::redis::cluster::ClusterConfig::new()
                .set_connection_timeout(self.timeout)
                .set_response_timeout(self.timeout);
            let con = cluster.get_pending_async_connection_with_config(config);
            let node = Box::new((cluster, client.clone()));
            (Link::Cluster(con), Connector::Cluster(node))
        };
        Ok(RedisStores {
            connector,
            conn: Conn::new(link, Arc::from(self.prefix), self.timeout, wait),
            event_ttl: self.event_ttl,
            max_events_per_stream: self.max_events_per_stream,
            tasks: self.tasks,
        })
    }
}

/// The sentinels and the service of a `redis+sentinel://host:port,host:port/<service>` URL,
/// each sentinel as `redis://host:port`; `None` for any other URL.
fn sentinel_nodes(url: &str) -> Option<(Vec<String>, String)> {
    let rest = url.strip_prefix("redis+sentinel://")?;
    let (hosts, service) = rest.split_once('/')?;
    let nodes: Vec<String> = hosts
        .split(',')
        .filter(|h| !h.is_empty())
        .map(|h| format!("redis://{h}"))
        .collect();
    let service = service.trim_end_matches('/');
    (!nodes.is_empty() && !service.is_empty()).then(|| (nodes, service.to_owned()))
}

/// The nodes of a `redis+cluster://[userinfo@]host:port,host:port[/]` URL, each as
/// `redis://[userinfo@]host:port`; `None` for any other URL.
fn cluster_nodes(url: &str) -> Option<Vec<String>> {
    let rest = url.strip_prefix("redis+cluster://")?;
    let rest = rest.trim_end_matches('/');
    let (user, hosts) = match rest.rsplit_once('@') {
        Some((user, hosts)) => (format!("{user}@"), hosts),
        None => (String::new(), rest),
    };
    let nodes: Vec<String> = hosts
        .split(',')
        .filter(|h| !h.is_empty())
        .map(|h| format!("redis://{user}{h}"))
        .collect();
    (!nodes.is_empty()).then_some(nodes)
}

/// A connection to Redis that hands out the stores; every store it gives shares it.
#[derive(Clone)]
pub struct RedisStores {
    /// For the bus's reading and the relay's pub/sub connections (the stores share `conn`).
    connector: Connector,
    conn: Conn,
    event_ttl: Duration,
    max_events_per_stream: usize,
    tasks: TaskLimits,
}

impl RedisStores {
    /// Connects to `url` with the defaults of [`RedisConfig::new`].
    pub async fn connect(url: impl Into<String>) -> Result<Self, StoreError> {
        RedisConfig::new(url).connect().await
    }

    /// The [`SessionStore`](crate::session::SessionStore) (`HttpOptions::session_store`).
    pub fn session_store(&self) -> Arc<RedisSessionStore> {
        Arc::new(RedisSessionStore::new(self.conn.clone()))
    }

    /// The [`EventStore`](crate::session::EventStore) (`HttpOptions::event_store`).
    pub fn event_store(&self) -> Arc<RedisEventStore> {
        Arc::new(RedisEventStore::new(
            self.conn.clone(),
            self.event_ttl,
            self.max_events_per_stream,
        ))
    }

    /// The [`ReplayGuard`](crate::session::request_state::ReplayGuard)
    /// (`RequestStateConfig::single_use`).
    pub fn replay_guard(&self) -> Arc<RedisReplayGuard> {
        Arc::new(RedisReplayGuard::new(self.conn.clone()))
    }

    /// The [`RateStore`](crate::session::rate_store::RateStore) (`RateLimit::store`): a rate
    /// limit counted once for every replica that shares it.
    pub fn rate_store(&self) -> Arc<RedisRateStore> {
        Arc::new(RedisRateStore::new(self.conn.clone()))
    }

    /// The [`TaskStore`](crate::session::task_store::TaskStore) (`ServerBuilder::task_store`):
    /// replicas sharing it serve each other's tasks.
    pub fn task_store(&self) -> Arc<RedisTaskStore> {
        Arc::new(RedisTaskStore::new(self.conn.clone(), self.tasks))
    }

    /// A [`RedisBus`] (`ServerBuilder::subscription_bus`): server events fanned out to every
    /// process through the stream `<prefix>bus` (about [`DEFAULT_BACKLOG`] entries kept),
    /// with a queue of [`DEFAULT_QUEUE`] events waiting to be appended. Each call makes a
    /// bus of its own (one reading connection, two background tasks, ended when it is
    /// dropped); call it inside a Tokio runtime.
    pub fn bus(&self) -> RedisBus {
        self.bus_with_queue(DEFAULT_QUEUE)
    }

    /// A [`RedisBus`] whose publishing queue holds `queue` events (at least 1); past it,
    /// events are still delivered in this process but not published (and counted).
    pub fn bus_with_queue(&self, queue: usize) -> RedisBus {
        RedisBus::start(
            self.connector.clone(),
            self.conn.clone(),
            queue,
            DEFAULT_BACKLOG,
        )
    }

    /// A [`RedisAnswerRelay`] (`HttpOptions::answer_relay`): a client's answer to a
    /// server-to-client request posted to another process reaches the one that sent the
    /// request, over the stream `<prefix>answers` (read from the last entry delivered, so
    /// a cut connection loses nothing; each message delivered once). One reading connection
    /// and two tasks, ended when it is dropped; call it inside a Tokio runtime.
    pub fn answer_relay(&self) -> Arc<RedisAnswerRelay> {
        Arc::new(RedisAnswerRelay::start(
            self.connector.clone(),
            self.conn.clone(),
            DEFAULT_QUEUE,
        ))
    }

    /// How many writes a client was told of reached fewer replicas than
    /// [`RedisConfig::wait_for_replicas`] asks (acknowledged under
    /// [`FewerReplicas::Accept`]); 0 when writes wait for no replica. A number to watch: it
    /// grows while a Redis node is lost, and a second loss then may lose those writes.
    pub fn under_replicated_writes(&self) -> u64 {
        self.conn.replica_wait().map_or(0, |w| w.shortfall.count())
    }

    /// The prefix of every key.
    pub fn key_prefix(&self) -> &str {
        self.conn.prefix()
    }
}

impl fmt::Debug for RedisStores {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisStores")
            .field("prefix", &self.conn.prefix())
            .field("timeout", &self.conn.timeout())
            .field("replica_wait", &self.conn.replica_wait())
            .field("under_replicated_writes", &self.under_replicated_writes())
            .field("event_ttl", &self.event_ttl)
            .field("max_events_per_stream", &self.max_events_per_stream)
            .field("tasks", &self.tasks)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sentinel_url_names_its_sentinels_and_service() {
        let cfg = RedisConfig::new("redis+sentinel://10.0.0.1:26379,10.0.0.2:26379/mymaster");
        assert_eq!(
            cfg.sentinel,
            Some((
                vec![
                    "redis://10.0.0.1:26379".to_owned(),
                    "redis://10.0.0.2:26379".to_owned()
                ],
                "mymaster".to_owned()
            ))
        );
        assert_eq!(sentinel_nodes("redis+sentinel://h:1"), None, "no service");
        assert_eq!(sentinel_nodes("redis://h:1/0"), None);
    }

    #[test]
    fn writes_wait_for_a_replica_under_sentinel_only_unless_asked() {
        let wait = |c: &RedisConfig| c.replica_wait().map(|w| (w.replicas, w.timeout));
        let ms = Duration::from_millis;
        let sentinel = RedisConfig::new("redis+sentinel://h:1/m");
        assert_eq!(wait(&sentinel), Some((1, ms(500))), "on by default");
        assert_eq!(wait(&sentinel.clone().timeout(ms(200))), Some((1, ms(100))));
        assert_eq!(wait(&sentinel.wait_for_replicas(0, ms(9))), None);
        assert_eq!(wait(&RedisConfig::new("redis://h:1/0")), None);
        assert_eq!(wait(&RedisConfig::new("redis+cluster://h:1,h:2")), None);
        let asked = RedisConfig::new("redis://h:1/0").wait_for_replicas(2, ms(5_000));
        assert_eq!(
            wait(&asked),
            Some((2, ms(500))),
            "capped at half the call timeout"
        );
        assert!(format!("{asked:?}").contains("replicas: 2"));
        assert!(
            format!("{asked:?}").contains("fewer_replicas: Accept"),
            "the default"
        );
        let refuse = asked.when_fewer_replicas(FewerReplicas::Refuse);
        assert_eq!(
            refuse.replica_wait().map(|w| w.fewer),
            Some(FewerReplicas::Refuse)
        );
    }

    #[test]
    fn a_cluster_url_names_its_nodes() {
        let cfg = RedisConfig::new("redis+cluster://u:pw@10.0.0.1:7000,10.0.0.2:7001/");
        assert_eq!(
            cfg.cluster,
            ["redis://u:pw@10.0.0.1:7000", "redis://u:pw@10.0.0.2:7001"]
        );
        assert_eq!(cfg.url, "redis://u:pw@10.0.0.1:7000");
        assert!(!format!("{cfg:?}").contains("pw"));
        assert_eq!(
            cluster_nodes("redis+cluster://h:1"),
            Some(vec!["redis://h:1".to_owned()])
        );
        assert_eq!(cluster_nodes("redis://h:1/0"), None);
        assert_eq!(cluster_nodes("redis+cluster://"), None);
        assert!(RedisConfig::new("redis://h:1/0").cluster.is_empty());
    }

    #[test]
    fn debug_output_hides_the_password() {
        let cfg = RedisConfig::new("redis://app:s3cret@10.0.0.1:6379/2").prefix("x:");
        let shown = format!("{cfg:?}");
        assert!(shown.contains("redis://app:***@10.0.0.1:6379/2"), "{shown}");
        assert!(!shown.contains("s3cret"));
        assert_eq!(redacted("redis://127.0.0.1/0"), "redis://127.0.0.1/0");
        assert_eq!(redacted("redis://:pw@h/0"), "redis://:***@h/0");
    }
}
