//! Where the cache meets the request path: the plan of a call (its mode, partition and
//! key), made before the request is sent.

use mcp_core::version::{Era, ProtocolVersion};
use serde_json::{Map, Value};

use super::{ANONYMOUS, CacheMode, Plan, ResponseCache};
use crate::client::Client;

impl Client {
    /// The cache plan of a request, `None` when the cache stays out of it: no cache, not a
    /// 2026 connection (legacy results carry no hints), not a cacheable request, or an
    /// authorization context that cannot be worked out.
    pub(crate) async fn cache_plan(
        &self,
        method: &str,
        params: Option<&Map<String, Value>>,
        mode: Option<CacheMode>,
        version: Option<ProtocolVersion>,
    ) -> Option<Plan> {
        let cache = self.inner.shared.cache.get()?;
        let version = version.filter(|v| v.era() == Era::Modern)?;
        if !ResponseCache::applies(method, params) {
            return None;
        }
        let partition = self.cache_partition(cache).await?;
        let mode = mode.unwrap_or(self.cache_mode);
        cache.plan(mode, version.as_str(), partition, method, params)
    }

    /// Whether the authorization context is still the one `plan` was made in. A request
    /// may change it (an OAuth client answers a `401` by authorizing, and the result came
    /// with a token the request started without): such a result is not stored, so no
    /// partition holds what another context fetched.
    pub(crate) async fn cache_partition_holds(&self, plan: &Plan) -> bool {
        match self.inner.shared.cache.get() {
            Some(cache) => {
                self.cache_partition(cache).await.as_deref() == Some(plan.partition.as_str())
            }
            None => false,
        }
    }

    /// The authorization context: the builder's partition, else a digest of the bearer
    /// token this request will carry, else [`ANONYMOUS`]. A token provider that fails
    /// leaves the request uncached (its own error comes with the request).
    async fn cache_partition(&self, cache: &ResponseCache) -> Option<String> {
        if let Some(p) = cache.fixed_partition() {
            return Some(p.to_owned());
        }
        #[cfg(feature = "http")]
        if let Some(provider) = self.inner.http.as_ref().and_then(|h| h.token_provider()) {
            return match provider.token().await {
                Ok(Some(token)) => Some(super::token_partition(&token)),
                Ok(None) => Some(ANONYMOUS.to_owned()),
                Err(_) => None,
            };
        }
        Some(ANONYMOUS.to_owned())
    }
}
