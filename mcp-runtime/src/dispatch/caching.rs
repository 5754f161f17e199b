//! 2026-07-28 caching hints (`ttlMs`, `cacheScope`) on cacheable results: `server/discover`,
//! the four lists and `resources/read`.
//!
//! What a result carries, first match wins: the value the handler set on the result itself;
//! the hint for the resource's URI (`resources/read`); the hint for the method; the server
//! default; for `server/discover` and the four lists, [`AS_SERVED`] (`ttlMs: 60000`,
//! `cacheScope: "private"`) while the server's lists are those it first served (no tool,
//! prompt, resource or template added or removed since — every later change is a
//! `list_changed` to the listening clients, and from then on these results fall through);
//! and finally the revision's safe fill (`ttlMs: 0`, `cacheScope: "private"`), which is
//! what `resources/read` gets unless configured (contents change without a list change).
//! A list shown per caller (a [`Visibility`](crate::policies::Visibility)) never gets
//! [`AS_SERVED`], nor does a server that mounts others (proxies included): its lists
//! follow servers it does not control, and change at any time. Legacy revisions never carry hints (`Adapt` removes them).

use std::sync::OnceLock;

use std::collections::HashMap;

use mcp_core::types::{
    CacheScope, DiscoverResult, ListPromptsResult, ListResourceTemplatesResult,
    ListResourcesResult, ListToolsResult, ReadResourceResult,
};

/// A caching hint: how long a client may reuse a result, and who may share it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CacheHint {
    /// Freshness in milliseconds (0: stale at once).
    pub ttl_ms: u64,
    /// `public` (shareable across users) or `private` (same authorization context only).
    pub scope: CacheScope,
}

impl CacheHint {
    /// Fresh for `ttl_ms`, reusable only within the same authorization context.
    pub fn private(ttl_ms: u64) -> Self {
        Self {
            ttl_ms,
            scope: CacheScope::Private,
        }
    }

    /// Fresh for `ttl_ms`, shareable by any client or intermediary.
    pub fn public(ttl_ms: u64) -> Self {
        Self {
            ttl_ms,
            scope: CacheScope::Public,
        }
    }
}

/// The hint of `server/discover` and the four lists when none is configured, while the
/// server's lists are those it first served: fresh for a minute, for the same
/// authorization context only.
pub const AS_SERVED: CacheHint = CacheHint {
    ttl_ms: 60_000,
    scope: CacheScope::Private,
};

/// The methods [`AS_SERVED`] applies to.
const AS_SERVED_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
];

/// The list generation a server first served at: whether its lists are still those.
#[derive(Debug, Default)]
pub(crate) struct FirstServed {
    at: OnceLock<u64>,
    /// The lists follow servers this one does not control (mounted children, proxied
    /// upstreams): they may change at any time, so [`AS_SERVED`] never applies.
    never: bool,
}

impl FirstServed {
    /// A server whose lists follow others': never "as first served".
    pub(crate) fn never() -> Self {
        Self {
            at: OnceLock::new(),
            never: true,
        }
    }

    /// Whether `generation` (the handler's, now) is the one first served (the first call
    /// records it).
    pub(crate) fn holds(&self, generation: u64) -> bool {
        !self.never && *self.at.get_or_init(|| generation) == generation
    }
}

/// The hints a server applies: a default, per method, per resource URI.
#[derive(Debug, Clone, Default)]
pub struct CachePolicy {
    default: Option<CacheHint>,
    methods: HashMap<String, CacheHint>,
    resources: HashMap<String, CacheHint>,
}

/// The methods whose results are cacheable on 2026-07-28.
pub const CACHEABLE_METHODS: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

impl CachePolicy {
    /// Whether nothing is configured (results get the revision's safe fill).
    pub fn is_empty(&self) -> bool {
        self.default.is_none() && self.methods.is_empty() && self.resources.is_empty()
    }

    /// Sets the default for every cacheable result.
    pub fn set_default(&mut self, hint: CacheHint) {
        self.default = Some(hint);
    }

    /// Sets the hint for one method; `Err` with the method when it has no cacheable result.
    pub fn set_method(&mut self, method: &str, hint: CacheHint) -> Result<(), String> {
        if !CACHEABLE_METHODS.contains(&method) {
            return Err(method.to_owned());
        }
        self.methods.insert(method.to_owned(), hint);
        Ok(())
    }

    /// Sets the hint for reads of resource `uri`.
    pub fn set_resource(&mut self, uri: impl Into<String>, hint: CacheHint) {
        self.resources.insert(uri.into(), hint);
    }

    /// The hint for `method` (and `uri`, for `resources/read`), if configured.
    pub fn hint(&self, method: &str, uri: Option<&str>) -> Option<CacheHint> {
        uri.and_then(|u| self.resources.get(u))
            .or_else(|| self.methods.get(method))
            .or(self.default.as_ref())
            .copied()
    }

    /// Fills the hint fields of `result` that the handler left unset; `as_served`: the
    /// lists are those first served, so [`AS_SERVED`] applies where nothing is configured.
    pub(crate) fn apply<T: Cacheable>(
        &self,
        result: &mut T,
        method: &str,
        uri: Option<&str>,
        as_served: bool,
    ) {
        let fallback = (as_served && AS_SERVED_METHODS.contains(&method)).then_some(AS_SERVED);
        let Some(hint) = self.hint(method, uri).or(fallback) else {
            return;
        };
        let (ttl, scope) = result.hints_mut();
        ttl.get_or_insert(hint.ttl_ms);
        scope.get_or_insert(hint.scope);
    }
}

/// Results that carry the 2026 caching hints.
pub(crate) trait Cacheable {
    fn hints_mut(&mut self) -> (&mut Option<u64>, &mut Option<CacheScope>);
}

macro_rules! cacheable {
    ($($t:ty),*) => {$(
        impl Cacheable for $t {
            fn hints_mut(&mut self) -> (&mut Option<u64>, &mut Option<CacheScope>) {
                (&mut self.ttl_ms, &mut self.cache_scope)
            }
        }
    )*};
}

cacheable!(
    DiscoverResult,
    ListToolsResult,
    ListPromptsResult,
    ListResourcesResult,
    ListResourceTemplatesResult,
    ReadResourceResult
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precedence_is_result_then_uri_then_method_then_default() {
        let mut p = CachePolicy::default();
        p.set_default(CacheHint::private(1));
        p.set_method("resources/read", CacheHint::public(2))
            .unwrap();
        p.set_resource("a://x", CacheHint::public(3));
        assert_eq!(p.hint("tools/list", None), Some(CacheHint::private(1)));
        assert_eq!(
            p.hint("resources/read", Some("a://y")),
            Some(CacheHint::public(2))
        );
        assert_eq!(
            p.hint("resources/read", Some("a://x")),
            Some(CacheHint::public(3))
        );

        let mut r = ReadResourceResult {
            ttl_ms: Some(9),
            ..Default::default()
        };
        p.apply(&mut r, "resources/read", Some("a://x"), true);
        assert_eq!(
            (r.ttl_ms, r.cache_scope),
            (Some(9), Some(CacheScope::Public))
        );
    }

    #[test]
    fn a_method_without_a_cacheable_result_is_refused() {
        let mut p = CachePolicy::default();
        assert_eq!(
            p.set_method("tools/call", CacheHint::public(5)),
            Err("tools/call".to_owned())
        );
        assert!(p.is_empty());
    }

    #[test]
    fn lists_that_follow_other_servers_are_never_as_first_served() {
        let never = FirstServed::never();
        assert!(!never.holds(0));
        assert!(!never.holds(0));
        let first = FirstServed::default();
        assert!(first.holds(3));
        assert!(first.holds(3));
        assert!(!first.holds(4));
    }

    #[test]
    fn unconfigured_lists_are_fresh_for_a_minute_while_as_first_served() {
        let p = CachePolicy::default();
        let mut l = ListToolsResult::default();
        p.apply(&mut l, "tools/list", None, true);
        assert_eq!(
            (l.ttl_ms, l.cache_scope),
            (Some(60_000), Some(CacheScope::Private))
        );
        let mut l = ListToolsResult::default();
        p.apply(&mut l, "tools/list", None, false);
        assert_eq!((l.ttl_ms, l.cache_scope), (None, None));
        let mut r = ReadResourceResult::default();
        p.apply(&mut r, "resources/read", Some("a://x"), true);
        assert_eq!(r.ttl_ms, None);
        // A configured hint wins, `ttlMs: 0` included.
        let mut p = CachePolicy::default();
        p.set_default(CacheHint::private(0));
        let mut l = ListToolsResult::default();
        p.apply(&mut l, "tools/list", None, true);
        assert_eq!(l.ttl_ms, Some(0));

        let first = FirstServed::default();
        assert!(first.holds(3) && first.holds(3) && !first.holds(4));
    }
}
