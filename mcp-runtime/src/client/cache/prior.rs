//! Connecting without a round trip: a `server/discover` result already known (given to
//! the builder, persisted by the application, or fresh in the cache's store) stands in for
//! the handshake, so a client reconnecting to a known 2026 server sends nothing before its
//! first call.

use mcp_core::meta;
use mcp_core::types::DiscoverResult;
use mcp_core::version::{Era, ProtocolVersion};

use super::CacheMode;
use crate::client::request::decode_result;
use crate::client::{Client, ConnectMode, ServerSession};

impl Client {
    /// Adopts a `server/discover` result as the connection's: the session it describes at
    /// `version`. `from_wire`: it was just received (so the cache may keep it).
    pub(crate) fn adopt_discover(
        &self,
        version: ProtocolVersion,
        result: DiscoverResult,
        raw: String,
        from_wire: bool,
    ) {
        let server_info = result
            .meta
            .as_ref()
            .and_then(|m| m.get(meta::SERVER_INFO))
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        *self.inner.shared.version.lock().expect("version lock") = version;
        *self.inner.session.lock().expect("session lock") = Some(ServerSession {
            version,
            capabilities: result.capabilities,
            server_info,
            instructions: result.instructions,
        });
        *self.inner.discovered.lock().expect("discover lock") = Some((raw, from_wire));
    }

    /// The `server/discover` result this 2026 connection runs on (received, given to
    /// [`ClientBuilder::prior_discover`](crate::client::ClientBuilder::prior_discover), or
    /// from the cache); `None` on a legacy connection. Persist it to connect to the same
    /// server later without a round trip.
    pub fn discover_result(&self) -> Option<DiscoverResult> {
        let d = self.inner.discovered.lock().expect("discover lock");
        d.as_ref()
            .and_then(|(raw, _)| serde_json::from_str(raw).ok())
    }

    /// Sets the session from what is already known, when `mode` allows a modern
    /// connection and the known result lists a revision it accepts: the builder's prior
    /// result first, else a fresh `server/discover` entry of the cache (only when the
    /// server's origin is known before connecting: HTTP, or a builder-named origin).
    /// `true` when nothing needs to be sent.
    pub(crate) async fn connect_from_prior(&self, mode: ConnectMode) -> bool {
        let wanted = match mode {
            ConnectMode::Legacy(_) => return false,
            ConnectMode::Modern(v) => Some(v),
            ConnectMode::Auto => None,
        };
        let given = self.inner.prior.lock().expect("prior lock").take();
        let raw = match given {
            Some(r) => r,
            None => match self.cached_discover().await {
                Some(r) => r,
                None => return false,
            },
        };
        let Ok(result) = decode_result::<DiscoverResult>("server/discover", &raw) else {
            return false;
        };
        // The revision: the pinned one if listed, else the newest modern one listed.
        let known = result.known_versions();
        let version = match wanted {
            Some(v) => known.contains(&v).then_some(v),
            None => known.into_iter().filter(|v| v.era() == Era::Modern).max(),
        };
        let Some(version) = version else {
            return false;
        };
        tracing::debug!(%version, "connected from a known server/discover result");
        self.adopt_discover(version, result, raw.get().to_owned(), false);
        true
    }

    async fn cached_discover(&self) -> Option<Box<serde_json::value::RawValue>> {
        let cache = self.inner.shared.cache.get()?;
        if !cache.shares_discover() {
            return None;
        }
        let plan = self
            .cache_plan(
                "server/discover",
                None,
                Some(CacheMode::Use),
                Some(ProtocolVersion::LATEST),
            )
            .await?;
        cache.lookup(&plan).await
    }

    /// Offers the `server/discover` result just received in the handshake to the cache
    /// (kept when its hints allow), so a later connection can skip the round trip.
    pub(crate) async fn remember_discover(&self) {
        let raw = match &*self.inner.discovered.lock().expect("discover lock") {
            Some((raw, true)) => raw.clone(),
            _ => return,
        };
        let Some(cache) = self
            .inner
            .shared
            .cache
            .get()
            .filter(|c| c.shares_discover())
        else {
            return;
        };
        let Ok(raw) = serde_json::value::RawValue::from_string(raw) else {
            return;
        };
        let version = self.current_version();
        if let Some(plan) = self
            .cache_plan("server/discover", None, Some(CacheMode::Use), version)
            .await
        {
            cache.record(&plan, Ok(&raw), true).await;
        }
    }
}
