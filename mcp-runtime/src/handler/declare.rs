//! [`Declarations`]: the server settings a handler table declares beside its entries (what
//! `#[mcp::server(...)]` says about instructions, middleware, subscriptions, caching hints,
//! ...), applied by whichever builder serves the table.

use std::sync::Arc;

use mcp_core::types::CacheScope;
use mcp_core::version::ProtocolVersion;

use crate::chain::middleware::DynMiddleware;

/// The receiver of a table's declared settings ([`ServerHandler::declare`]): one method per
/// builder setting that a `#[mcp::server(...)]` key can name. The builder implements it;
/// [`ServerBuilder::handler`](crate::ServerBuilder::handler) calls `declare` with it.
///
/// [`ServerHandler::declare`]: crate::ServerHandler::declare
pub trait Declarations {
    /// `instructions = "..."`: the instructions sent to clients.
    fn instructions(&mut self, text: &str);
    /// `middleware(a, b)`: one layer of the table's own middleware, outermost first. They
    /// run inside every layer the builder adds (nearest the table).
    fn middleware(&mut self, layer: Arc<dyn DynMiddleware>);
    /// `title = "..."`: the server's human-readable title.
    fn title(&mut self, title: &str);
    /// `page_size = N`: the page size of list results.
    fn page_size(&mut self, n: usize);
    /// `subscriptions`: change notifications on (`list_changed`, `subscriptions/listen`).
    fn subscriptions(&mut self, on: bool);
    /// `max_listens = N`: the most `subscriptions/listen` streams open at once.
    fn max_listens(&mut self, n: usize);
    /// `tracing = false`: the default tracing layer off.
    fn tracing(&mut self, on: bool);
    /// `versions("2025-11-25", ...)`: the revisions served.
    fn versions(&mut self, versions: &[ProtocolVersion]);
    /// `extensions("vendor.prefix/name" = settings, ...)`: one protocol extension offered,
    /// with its settings (a JSON object), as `ServerBuilder::extension` declares it.
    fn extension(&mut self, id: &str, settings: serde_json::Value);
    /// `cache(ttl_ms = N, scope = "public")`, with `method = "tools/list"` or
    /// `resource = "uri"` for one method's or one resource's results: a 2026 caching hint.
    fn cache_hint(&mut self, target: CacheTarget<'_>, ttl_ms: u64, scope: CacheScope);
}

/// What a declared caching hint applies to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheTarget<'a> {
    /// Every cacheable result without a more specific hint.
    Default,
    /// The results of one method (`tools/list`, `resources/read`, ...).
    Method(&'a str),
    /// Reads of one resource URI.
    Resource(&'a str),
}
