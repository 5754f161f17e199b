//! The one place a Redis call is made: [`Conn`], the shared connection (to one Redis, or
//! to a Redis Cluster) with its key prefix, each call bounded by the timeout and its errors
//! mapped to [`StoreError`], sent again once after a dropped connection where that is safe
//! ([`Resend`]); a write a client is told of followed by `WAIT` on the same connection when
//! the deployment asks for replicas ([`ReplicaWait`]).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use ::redis::aio::{ConnectionLike, ConnectionManager, MultiplexedConnection};
use ::redis::cluster_async::ClusterConnection;
use ::redis::sentinel::SentinelClient;
use ::redis::{
    Cmd, ErrorKind, FromRedisValue, RedisError, RedisResult, ScriptInvocation, ServerErrorKind,
};

use crate::session::StoreError;

/// The shared connection, the key prefix, the timeout of every call and the replicas a
/// write a client is told of must reach.
#[derive(Clone)]
pub(super) struct Conn {
    link: Link,
    prefix: Arc<str>,
    timeout: Duration,
    wait: Option<ReplicaWait>,
}

/// How many replicas must hold a write before a client is told of it, how long Redis may
/// wait for them (`WAIT <replicas> <timeout>`), and what a shortfall does.
#[derive(Debug, Clone)]
pub(super) struct ReplicaWait {
    pub(super) replicas: u32,
    pub(super) timeout: Duration,
    pub(super) fewer: FewerReplicas,
    pub(super) shortfall: Arc<Shortfall>,
}

/// What a write a client is told of does when fewer replicas than asked hold it in time
/// ([`RedisConfig::when_fewer_replicas`](super::RedisConfig::when_fewer_replicas)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FewerReplicas {
    /// The write is acknowledged all the same (it is on the primary, and on the replicas
    /// that answered), with a warning in the log and a count
    /// ([`RedisStores::under_replicated_writes`](super::RedisStores::under_replicated_writes)):
    /// losing one Redis node does not stop the service, but a second loss before the
    /// replicas are back may lose such writes. The default.
    #[default]
    Accept,
    /// The call fails as the store being unavailable (a 503 with `Retry-After` on HTTP):
    /// nothing is acknowledged that fewer replicas hold, and the service stops while too
    /// few replicas are reachable.
    Refuse,
}

/// How long a shortfall is remembered: in that time, under [`FewerReplicas::Accept`],
/// `WAIT` gives the replicas at most [`DEGRADED_WAIT`] (a missing replica would otherwise
/// cost every write the whole timeout), and the first write they all hold in it ends it;
/// after it, one write waits the whole timeout again.
const DEGRADED_FOR: Duration = Duration::from_secs(10);

/// `WAIT`'s timeout while a shortfall is remembered: enough for a replica on the same
/// network to acknowledge.
const DEGRADED_WAIT: Duration = Duration::from_millis(5);

/// Writes acknowledged with fewer replicas than asked, shared by every store of one
/// [`RedisStores`](super::RedisStores).
#[derive(Debug)]
pub(super) struct Shortfall {
    /// How many writes were acknowledged short of replicas.
    count: AtomicU64,
    /// When the last shortfall was seen, and when it was last logged.
    last: std::sync::Mutex<(Option<Instant>, Option<Instant>)>,
}

impl Shortfall {
    pub(super) fn new() -> Self {
        Self {
            count: AtomicU64::new(0),
            last: std::sync::Mutex::new((None, None)),
        }
    }

    pub(super) fn count(&self) -> u64 {
        self.count.load(Ordering::Relaxed)
    }

    fn degraded(&self) -> bool {
        let last = self.last.lock().expect("not poisoned");
        last.0.is_some_and(|at| at.elapsed() < DEGRADED_FOR)
    }

    /// Counts one write acknowledged short of replicas; warns at most every 10 s.
    fn accepted(&self, held: u32, w: &ReplicaWait) {
        self.count.fetch_add(1, Ordering::Relaxed);
        let now = Instant::now();
        let mut last = self.last.lock().expect("not poisoned");
        last.0 = Some(now);
        if last
            .1
            .is_none_or(|at| now.duration_since(at) >= Duration::from_secs(10))
        {
            last.1 = Some(now);
            tracing::warn!(
                held,
                asked = w.replicas,
                total = self.count(),
                "redis: a write acknowledged with fewer replicas than asked (WAIT); \
                 losing the primary now may lose it"
            );
        }
    }

    /// The replicas answered in full again.
    fn recovered(&self) {
        self.last.lock().expect("not poisoned").0 = None;
    }
}

/// What a call goes over: both reconnect by themselves.
#[derive(Clone)]
pub(super) enum Link {
    /// One Redis (redis-rs's `ConnectionManager`).
    Single(ConnectionManager),
    /// A Redis Cluster: each call goes to the primary of its first key's slot.
    Cluster(ClusterConnection),
    /// The primary that Sentinel names, asked again after a call fails on it.
    Sentinel(Arc<SentinelLink>),
}

/// A primary found through Sentinel: one multiplexed connection to it, dropped when a call
/// fails on it (the connection went, or the server answers `READONLY`: it was demoted), so
/// the next call asks the sentinels again and reaches the new primary.
pub(super) struct SentinelLink {
    sentinel: tokio::sync::Mutex<SentinelClient>,
    current: std::sync::Mutex<Option<MultiplexedConnection>>,
    timeout: Duration,
}

impl SentinelLink {
    pub(super) fn new(sentinel: SentinelClient, timeout: Duration) -> Self {
        Self {
            sentinel: tokio::sync::Mutex::new(sentinel),
            current: std::sync::Mutex::new(None),
            timeout,
        }
    }

    /// A client of the primary the sentinels name now.
    pub(super) async fn primary(&self) -> RedisResult<::redis::Client> {
        self.sentinel.lock().await.async_get_client().await
    }

    async fn connection(&self) -> RedisResult<MultiplexedConnection> {
        if let Some(c) = self.current.lock().expect("not poisoned").clone() {
            return Ok(c);
        }
        let config = ::redis::AsyncConnectionConfig::new()
            .set_connection_timeout(Some(self.timeout))
            .set_response_timeout(Some(self.timeout));
        let con = self
            .primary()
            .await?
            .get_multiplexed_async_connection_with_config(&config)
            .await?;
        *self.current.lock().expect("not poisoned") = Some(con.clone());
        Ok(con)
    }

    /// Runs `req` on the primary; after a failure that may be a failover, forgets the
    /// connection and, where `resend` allows (or the old primary refused a write), runs it
    /// once more on the primary the sentinels name then.
    async fn call<T: FromRedisValue>(
        &self,
        req: &Request<'_>,
        resend: Resend,
        wait: Option<&ReplicaWait>,
    ) -> RedisResult<T> {
        let mut con = self.connection().await?;
        match req.run(&mut con, wait).await {
            Err(e) if failed_over(&e) => {
                *self.current.lock().expect("not poisoned") = None;
                if !(resend.allows(&e) || read_only(&e)) {
                    return Err(e);
                }
                let mut con = self.connection().await?;
                req.run(&mut con, wait).await
            }
            other => other,
        }
    }
}

fn read_only(e: &RedisError) -> bool {
    e.kind() == ErrorKind::Server(ServerErrorKind::ReadOnly)
}

fn failed_over(e: &RedisError) -> bool {
    read_only(e) || e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal()
}

/// One call: a command or a script.
enum Request<'a> {
    Cmd(&'a Cmd),
    Script(&'a ScriptInvocation<'a>),
}

impl Request<'_> {
    /// Runs it; with `wait`, then `WAIT` on the same connection (which counts the replicas
    /// holding every write this connection made so far), failing when too few do.
    async fn run<T: FromRedisValue>(
        &self,
        con: &mut impl ConnectionLike,
        wait: Option<&ReplicaWait>,
    ) -> RedisResult<T> {
        let out = match self {
            Request::Cmd(cmd) => cmd.query_async(con).await,
            Request::Script(script) => script.invoke_async(con).await,
        }?;
        if let Some(w) = wait {
            let degraded = w.fewer == FewerReplicas::Accept && w.shortfall.degraded();
            let timeout = if degraded {
                w.timeout.min(DEGRADED_WAIT)
            } else {
                w.timeout
            };
            let held: u32 = ::redis::cmd("WAIT")
                .arg(w.replicas)
                .arg(millis(timeout))
                .query_async(con)
                .await?;
            if held >= w.replicas {
                if degraded {
                    w.shortfall.recovered();
                }
            } else if w.fewer == FewerReplicas::Refuse {
                return Err(not_replicated(held, w));
            } else {
                w.shortfall.accepted(held, w);
            }
        }
        Ok(out)
    }

    /// Runs it, and once more as `resend` allows.
    async fn twice<T: FromRedisValue>(
        &self,
        con: &mut impl ConnectionLike,
        resend: Resend,
        wait: Option<&ReplicaWait>,
    ) -> RedisResult<T> {
        match self.run(con, wait).await {
            Err(e) if resend.allows(&e) => self.run(con, wait).await,
            other => other,
        }
    }
}

/// The write is on the primary but on fewer replicas than asked: not to be acknowledged (a
/// failover now could lose it). Neither a dropped connection nor a failover, so it is not
/// sent again; the request fails as the store being unavailable (503, retried).
fn not_replicated(held: u32, w: &ReplicaWait) -> RedisError {
    RedisError::from((
        ErrorKind::Extension,
        "write not replicated",
        format!(
            "{held} of {} replicas held it within {:?} (WAIT)",
            w.replicas, w.timeout
        ),
    ))
}

impl Conn {
    pub(super) fn new(
        link: Link,
        prefix: Arc<str>,
        timeout: Duration,
        wait: Option<ReplicaWait>,
    ) -> Self {
        Self {
            link,
            prefix,
            timeout,
            wait,
        }
    }

    /// `<prefix><kind>:<name>`.
    pub(super) fn key(&self, kind: &str, name: &str) -> String {
        format!("{}{kind}:{name}", self.prefix)
    }

    /// `<prefix><kind>:{<tag>}`: Redis Cluster places the key by `tag` alone, so the keys
    /// of one item, tagged alike, share a slot and one script may touch them all.
    pub(super) fn tagged(&self, kind: &str, tag: &str) -> String {
        format!("{}{kind}:{{{tag}}}", self.prefix)
    }

    pub(super) fn prefix(&self) -> &str {
        &self.prefix
    }

    /// How long one call may take.
    pub(super) fn timeout(&self) -> Duration {
        self.timeout
    }

    /// The replicas a write a client is told of must reach, if any.
    pub(super) fn replica_wait(&self) -> Option<&ReplicaWait> {
        self.wait.as_ref()
    }

    /// Runs one command within the timeout; sends it again once (within the same timeout)
    /// after a failed connection, as `resend` allows.
    pub(super) async fn cmd<T: FromRedisValue>(
        &self,
        cmd: &Cmd,
        resend: Resend,
    ) -> Result<T, StoreError> {
        self.call(Request::Cmd(cmd), resend, None).await
    }

    /// Runs one script within the timeout, as [`cmd`](Self::cmd).
    pub(super) async fn script<T: FromRedisValue>(
        &self,
        script: &ScriptInvocation<'_>,
        resend: Resend,
    ) -> Result<T, StoreError> {
        self.call(Request::Script(script), resend, None).await
    }

    /// A write a client is told of (a session created or changed, an event given its id, a
    /// task written, a `requestState` marked used, a relayed message appended), as
    /// [`cmd`](Self::cmd); when the deployment asks for replicas, followed by `WAIT` on the
    /// same connection, failing as [`StoreError::Unavailable`] when fewer hold it in time.
    pub(super) async fn write_cmd<T: FromRedisValue>(
        &self,
        cmd: &Cmd,
        resend: Resend,
    ) -> Result<T, StoreError> {
        self.call(Request::Cmd(cmd), resend, self.wait.as_ref())
            .await
    }

    /// A script that writes what a client is told of, as [`write_cmd`](Self::write_cmd).
    pub(super) async fn write_script<T: FromRedisValue>(
        &self,
        script: &ScriptInvocation<'_>,
        resend: Resend,
    ) -> Result<T, StoreError> {
        self.call(Request::Script(script), resend, self.wait.as_ref())
            .await
    }

    async fn call<T: FromRedisValue>(
        &self,
        req: Request<'_>,
        resend: Resend,
        wait: Option<&ReplicaWait>,
    ) -> Result<T, StoreError> {
        // WAIT's own time comes on top of the call's.
        let bound = self.timeout + wait.map_or(Duration::ZERO, |w| w.timeout);
        match self.link.clone() {
            Link::Single(mut con) => self.bounded(bound, req.twice(&mut con, resend, wait)).await,
            Link::Cluster(mut con) => self.bounded(bound, req.twice(&mut con, resend, wait)).await,
            Link::Sentinel(s) => self.bounded(bound, s.call(&req, resend, wait)).await,
        }
    }

    async fn bounded<T>(
        &self,
        bound: Duration,
        call: impl Future<Output = RedisResult<T>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(bound, call).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(store_error(e)),
            Err(_) => Err(StoreError::Unavailable(format!(
                "redis did not answer within {bound:?}"
            ))),
        }
    }
}

/// How a task opens a connection of its own (the bus's reader, whose `XREAD BLOCK` holds
/// it): to the one Redis, or to the cluster.
#[derive(Clone)]
pub(super) enum Connector {
    Single(::redis::Client),
    /// The cluster, and a client of one node for pub/sub (a cluster hands a `PUBLISH` to
    /// every node).
    Cluster(Box<(::redis::cluster::ClusterClient, ::redis::Client)>),
    Sentinel(Arc<SentinelLink>),
}

/// A connection of one's own, from a [`Connector`].
pub(super) enum Own {
    Single(::redis::aio::MultiplexedConnection),
    Cluster(ClusterConnection),
}

impl Connector {
    /// Connects within `timeout`; each answer may then take up to `response`.
    pub(super) async fn connect(&self, timeout: Duration, response: Duration) -> RedisResult<Own> {
        match self {
            Connector::Single(_) | Connector::Sentinel(_) => {
                let client = self.node_client().await?;
                let config = ::redis::AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(timeout))
                    .set_response_timeout(Some(response));
                let con = client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await?;
                Ok(Own::Single(con))
            }
            Connector::Cluster(clients) => {
                let client = &clients.0;
                let config = ::redis::cluster::ClusterConfig::new()
                    .set_connection_timeout(timeout)
                    .set_response_timeout(response);
                let connect = client.get_async_connection_with_config(config);
                match tokio::time::timeout(timeout, connect).await {
                    Ok(con) => Ok(Own::Cluster(con?)),
                    Err(_) => Err(RedisError::from(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "connecting to the cluster timed out",
                    ))),
                }
            }
        }
    }
}

impl Connector {
    /// A client of one server: the one Redis, a cluster node, the primary.
    pub(super) async fn node_client(&self) -> RedisResult<::redis::Client> {
        match self {
            Connector::Single(client) => Ok(client.clone()),
            Connector::Cluster(clients) => Ok(clients.1.clone()),
            Connector::Sentinel(link) => link.primary().await,
        }
    }
}

impl Own {
    /// One command, as sent (no timeout but the connection's own).
    pub(super) async fn query<T: FromRedisValue>(&mut self, cmd: &Cmd) -> RedisResult<T> {
        match self {
            Own::Single(con) => cmd.query_async(con).await,
            Own::Cluster(con) => cmd.query_async(con).await,
        }
    }
}

/// When a call that failed on its connection is sent again, once: the connection manager
/// has begun reconnecting by then, and the second try goes over the new connection. This is
/// what makes the first call after Redis came back succeed on a connection that sat idle
/// through the outage (its socket is stale until used).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Resend {
    /// The call is idempotent: again after any dropped connection.
    Dropped,
    /// It is not (an append, a first use): again only when the connection was refused,
    /// i.e. nothing was sent.
    Refused,
}

impl Resend {
    fn allows(self, e: &RedisError) -> bool {
        match self {
            Resend::Dropped => e.is_connection_dropped() || e.is_connection_refusal(),
            Resend::Refused => e.is_connection_refusal(),
        }
    }
}

/// An answer of the wrong shape is corrupt data; anything else (I/O, refused, timed out,
/// a server error such as `LOADING` or `READONLY`) is an unavailable store.
fn store_error(e: RedisError) -> StoreError {
    match e.kind() {
        ErrorKind::Parse | ErrorKind::UnexpectedReturnType => {
            StoreError::Corrupt(format!("redis: {e}"))
        }
        _ => StoreError::Unavailable(format!("redis: {e}")),
    }
}

/// A duration as whole milliseconds, at least 1 (Redis refuses an expiry of 0).
pub(super) fn millis(d: Duration) -> u64 {
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX).max(1)
}
