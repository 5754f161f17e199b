//! The gateway's rate limit (`gateway.rateLimit`) as one layer whose limit a reload can
//! replace: the tools it names are the upstreams' (known only once they answer), so they
//! are checked against what the gateway shows after each (re)load, not when the server is
//! built; the buckets live in one store for the gateway's life, so a reload keeps them.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use mcp_runtime::middleware::{Endpoint, Middleware, Next};
use mcp_runtime::policies::{CallerKey, InMemoryRateStore, Limit, RateLimit};
use mcp_runtime::{Context, HandlerResult};

use super::config::{CallerBy, RateLimitConfig};

/// The current rate limit, if the file has one.
#[derive(Clone, Default)]
pub struct Limits {
    current: Arc<Mutex<Option<Arc<RateLimit>>>>,
    store: Arc<InMemoryRateStore>,
}

impl Limits {
    /// The limit `config` describes, after checking that every tool it names is one of
    /// `shown` (the names the gateway's clients see) or may be one of a server that is
    /// down (`unknown`: the prefixes of those whose names are not known yet).
    pub fn check(
        &self,
        config: Option<&RateLimitConfig>,
        shown: &HashSet<String>,
        unknown: &[String],
    ) -> Result<Option<Arc<RateLimit>>, String> {
        let Some(c) = config else { return Ok(None) };
        let limit = |n: u32| match c.burst {
            Some(b) => Limit::per_minute(n).burst(b),
            None => Limit::per_minute(n),
        };
        let mut rl = match c.per_minute {
            Some(n) => RateLimit::new(limit(n)),
            None => RateLimit::none(),
        };
        for (name, n) in &c.tools {
            let maybe = unknown.iter().any(|p| name.starts_with(p.as_str()));
            if !shown.contains(name) && !maybe {
                let mut near: Vec<&String> = shown.iter().collect();
                near.sort();
                return Err(format!(
                    "gateway.rateLimit.tools.{name}: the gateway shows no tool of that name (name tools as clients see them, prefix included: {})",
                    near.iter()
                        .take(12)
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            rl = rl.tool(name.clone(), limit(*n));
        }
        let address = CallerKey::forwarded_for(c.trusted_proxies.iter().copied());
        let by = match c.by {
            CallerBy::Default => CallerKey::principal().or(address).or(CallerKey::session()),
            CallerBy::Principal => CallerKey::principal(),
            CallerBy::Address => address,
            CallerBy::Session => CallerKey::session(),
        };
        Ok(Some(Arc::new(rl.caller(by).store(self.store.clone()))))
    }

    /// Makes `limit` the one in force.
    pub fn set(&self, limit: Option<Arc<RateLimit>>) {
        *self.current.lock().expect("limits lock") = limit;
    }
}

impl Middleware for Limits {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let current = self.current.lock().expect("limits lock").clone();
        match current {
            Some(rl) => rl.handle(ctx, next).await,
            None => next.run(ctx).await,
        }
    }
}
