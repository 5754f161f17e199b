//! The one place a Redis call is made: [`Conn`], the shared connection with its key prefix,
//! each call bounded by the timeout and its errors mapped to [`StoreError`], sent again once
//! after a dropped connection where that is safe ([`Resend`]).

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use ::redis::aio::ConnectionManager;
use ::redis::{Cmd, ErrorKind, FromRedisValue, RedisError, RedisResult, ScriptInvocation};

use crate::session::StoreError;

/// The shared connection, the key prefix and the timeout of every call.
#[derive(Clone)]
pub(super) struct Conn {
    manager: ConnectionManager,
    prefix: Arc<str>,
    timeout: Duration,
}

impl Conn {
    pub(super) fn new(manager: ConnectionManager, prefix: Arc<str>, timeout: Duration) -> Self {
        Self {
            manager,
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
        let mut con = self.manager.clone();
        self.bounded(async move {
            match cmd.query_async(&mut con).await {
                Err(e) if resend.allows(&e) => cmd.query_async(&mut con).await,
                other => other,
            }
        })
        .await
    }

    /// Runs one script within the timeout, as [`cmd`](Self::cmd).
    pub(super) async fn script<T: FromRedisValue>(
        &self,
        script: &ScriptInvocation<'_>,
        resend: Resend,
    ) -> Result<T, StoreError> {
        let mut con = self.manager.clone();
        self.bounded(async move {
            match script.invoke_async(&mut con).await {
                Err(e) if resend.allows(&e) => script.invoke_async(&mut con).await,
                other => other,
            }
        })
        .await
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
