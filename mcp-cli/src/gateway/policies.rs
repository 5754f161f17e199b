//! The gateway's policies from its file, as layers a reload can replace: the tool
//! transforms (`gateway.servers.NAME.tools`, `transforms.rs`), the rate limit
//! (`gateway.rateLimit`) and who sees which tagged tools (`gateway.visibility`). The tools
//! a rate limit names are the upstreams' (known only once they answer), so they are checked
//! against what the gateway shows after each (re)load, not when the server is built; the
//! buckets live in one store for the gateway's life, so a reload keeps them.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use mcp_runtime::middleware::{Endpoint, Middleware, Next};
use mcp_runtime::policies::{
    CallerKey, InMemoryRateStore, ItemSet, Limit, RateLimit, Select, Visibility,
};
use mcp_runtime::{Context, HandlerResult, Principal};
use serde_json::Value;

use mcp_runtime::proxy::config::{CallerBy, RateLimitConfig, TagRule, ToolEdit, UpstreamTools};
use mcp_runtime::transform::ToolTransforms;

use super::transforms;

/// The policies in force, each a layer of the gateway's server holding the file's
/// policy, if it has one.
#[derive(Clone, Default)]
pub struct Policies {
    /// The upstreams' tools as the file shows them.
    pub transforms: Slot<ToolTransforms>,
    /// Who sees which tagged tools.
    pub visibility: Slot<Visibility>,
    /// Calls per caller and tool.
    pub rate: Slot<RateLimit>,
    store: Arc<InMemoryRateStore>,
}

/// What one version of the file asks for.
pub struct InForce {
    transforms: Option<Arc<ToolTransforms>>,
    rate: Option<Arc<RateLimit>>,
    visibility: Option<Arc<Visibility>>,
}

/// A layer whose middleware a reload replaces (none: the message goes on untouched).
pub struct Slot<M>(Arc<Mutex<Option<Arc<M>>>>);

impl<M> Clone for Slot<M> {
    fn clone(&self) -> Self {
        Slot(self.0.clone())
    }
}

impl<M> Default for Slot<M> {
    fn default() -> Self {
        Slot(Arc::default())
    }
}

impl<M> Slot<M> {
    fn set(&self, m: Option<Arc<M>>) {
        *self.0.lock().expect("policy lock") = m;
    }
}

impl<M: Middleware + Send + Sync + 'static> Middleware for Slot<M> {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let current = self.0.lock().expect("policy lock").clone();
        match current {
            Some(m) => m.handle(ctx, next).await,
            None => next.run(ctx).await,
        }
    }
}

impl Policies {
    /// The policies of a file: its tool transforms and its rate limit checked against
    /// the tools the gateway shows ([`rate_limit`](Self::rate_limit)), its tag rules.
    pub fn check(
        &self,
        (edits, upstreams): (&[ToolEdit], &[UpstreamTools<'_>]),
        rate: Option<&RateLimitConfig>,
        tags: &[TagRule],
        (shown, unknown): (&HashSet<String>, &[String]),
    ) -> Result<InForce, String> {
        let t = transforms::build(edits, upstreams)?;
        Ok(InForce {
            transforms: t.layer.map(Arc::new),
            rate: self.rate_limit(rate, (shown, unknown), &t.own_names)?,
            visibility: visibility(tags).map(Arc::new),
        })
    }

    /// The limit `config` describes, after checking that every tool it names is one of
    /// `shown` (the gateway's names) or may be one of a server that is down (`unknown`:
    /// the prefixes of those whose names are not known yet). A name a transform gives is
    /// taken for the tool's own (`own_names`): the limit runs inside the transforms.
    fn rate_limit(
        &self,
        config: Option<&RateLimitConfig>,
        (shown, unknown): (&HashSet<String>, &[String]),
        own_names: &HashMap<String, String>,
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
            let name = own_names.get(name).unwrap_or(name);
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

    /// Makes `policies` the ones in force.
    pub fn set(&self, policies: InForce) {
        self.transforms.set(policies.transforms);
        self.rate.set(policies.rate);
        self.visibility.set(policies.visibility);
    }
}

/// Tools tagged with a reserved tag are hidden from every caller but the principals whose
/// claim allows the tag: a caller is named by the set of reserved tags it may see, and
/// each such set (at most 2^8, the tags being at most 8) sees all but the others.
fn visibility(rules: &[TagRule]) -> Option<Visibility> {
    if rules.is_empty() {
        return None;
    }
    let tags: Vec<String> = rules.iter().map(|r| r.tag.clone()).collect();
    let hidden_but = |allowed: u32| {
        let hidden = (tags.iter().enumerate())
            .filter(|(i, _)| allowed & (1 << i) == 0)
            .map(|(_, t)| Select::tagged(t.clone()));
        ItemSet::except(hidden)
    };
    let mut v = Visibility::new(hidden_but(0));
    for allowed in 1..(1u32 << tags.len()) {
        v = v.caller(format!("tags:{allowed}"), hidden_but(allowed));
    }
    let rules = rules.to_vec();
    Some(v.key(CallerKey::from_fn(move |ctx| {
        let p = ctx.extensions().get::<Principal>()?;
        let allowed = (rules.iter().enumerate())
            .filter(|(_, r)| claim_holds(p, r))
            .fold(0u32, |m, (i, _)| m | (1 << i));
        (allowed != 0).then(|| format!("tags:{allowed}"))
    })))
}

/// Whether `p`'s claim named by `rule` is (or holds) one of its values.
fn claim_holds(p: &Principal, rule: &TagRule) -> bool {
    let is = |v: &Value| {
        v.as_str()
            .is_some_and(|s| rule.values.iter().any(|x| x == s))
    };
    match p.claims.get(&rule.claim) {
        Some(Value::Array(items)) => items.iter().any(is),
        Some(v) => is(v),
        None => false,
    }
}
