//! The one place a Redis call is made: [`Conn`], the shared connection (to one Redis, or
//! to a Redis Cluster) with its key prefix, each call bounded by the timeout and its errors
//! mapped to [`StoreError`], sent again once after a dropped connection where that is safe
//! ([`Resend`]).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use ::redis::aio::{ConnectionLike, ConnectionManager};
use ::redis::cluster_async::ClusterConnection;
use ::redis::{Cmd, ErrorKind, FromRedisValue, RedisError, RedisResult, ScriptInvocation};

use crate::session::StoreError;

/// The shared connection, the key prefix and the timeout of every call.
#[derive(Clone)]
pub(super) struct Conn {
    link: Link,
    prefix: Arc<str>,
    timeout: Duration,
}

/// What a call goes over: both reconnect by themselves.
#[derive(Clone)]
pub(super) enum Link {
    /// One Redis (redis-rs's `ConnectionManager`).
    Single(ConnectionManager),
    /// A Redis Cluster: each call goes to the primary of its first key's slot.
    Cluster(ClusterConnection),
}

impl Conn {
    pub(super) fn new(link: Link, prefix: Arc<str>, timeout: Duration) -> Self {
        Self {
            link,
            prefix,
            timeout,
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

    /// Runs one command within the timeout; sends it again once (within the same timeout)
    /// after a failed connection, as `resend` allows.
    pub(super) async fn cmd<T: FromRedisValue>(
        &self,
        cmd: &Cmd,
        resend: Resend,
    ) -> Result<T, StoreError> {
        async fn run<T: FromRedisValue>(
            con: &mut impl ConnectionLike,
            cmd: &Cmd,
            resend: Resend,
        ) -> RedisResult<T> {
            match cmd.query_async(con).await {
                Err(e) if resend.allows(&e) => cmd.query_async(con).await,
                other => other,
            }
        }
        match self.link.clone() {
            Link::Single(mut con) => self.bounded(run(&mut con, cmd, resend)).await,
            Link::Cluster(mut con) => self.bounded(run(&mut con, cmd, resend)).await,
        }
    }

    /// Runs one script within the timeout, as [`cmd`](Self::cmd).
    pub(super) async fn script<T: FromRedisValue>(
        &self,
        script: &ScriptInvocation<'_>,
        resend: Resend,
    ) -> Result<T, StoreError> {
        async fn run<T: FromRedisValue>(
            con: &mut impl ConnectionLike,
            script: &ScriptInvocation<'_>,
            resend: Resend,
        ) -> RedisResult<T> {
            match script.invoke_async(con).await {
                Err(e) if resend.allows(&e) => script.invoke_async(con).await,
                other => other,
            }
        }
        match self.link.clone() {
            Link::Single(mut con) => self.bounded(run(&mut con, script, resend)).await,
            Link::Cluster(mut con) => self.bounded(run(&mut con, script, resend)).await,
        }
    }

    async fn bounded<T>(
        &self,
        call: impl Future<Output = RedisResult<T>>,
    ) -> Result<T, StoreError> {
        match tokio::time::timeout(self.timeout, call).await {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(e)) => Err(store_error(e)),
            Err(_) => Err(StoreError::Unavailable(format!(
                "redis did not answer within {:?}",
                self.timeout
            ))),
        }
    }
}

/// How a task opens a connection of its own (the bus's reader, whose `XREAD BLOCK` holds
/// it): to the one Redis, or to the cluster.
#[derive(Clone)]
pub(super) enum Connector {
    Single(::redis::Client),
    Cluster(Box<::redis::cluster::ClusterClient>),
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
            Connector::Single(client) => {
                let config = ::redis::AsyncConnectionConfig::new()
                    .set_connection_timeout(Some(timeout))
                    .set_response_timeout(Some(response));
                let con = client
                    .get_multiplexed_async_connection_with_config(&config)
                    .await?;
                Ok(Own::Single(con))
            }
            Connector::Cluster(client) => {
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
