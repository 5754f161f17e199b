//! The list results (`tools/list`, `prompts/list`, `resources/list`,
//! `resources/templates/list`) encoded once per revision and page, instead of per request.
//!
//! An entry is kept until the handler's [`list_generation`] changes (a tool, prompt or
//! resource added or removed at run time), so a dynamic registry only has to bump its
//! counter. Tools sent to a revision before 2025-11-25 carry the draft-07 form of their
//! schemas ([`crate::handler::tool_def::draft07_form`]), built here once per cached page.
//!
//! [`list_generation`]: crate::handler::ServerHandler::list_generation

use std::collections::HashMap;
use std::sync::Mutex;

use mcp_core::types::{
    ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, Prompt,
    Resource, ResourceTemplate, Tool,
};
use mcp_core::version::ProtocolVersion;
use serde::Deserialize;
use serde_json::value::RawValue;

use crate::chain::policies::visibility::{Listed, Shown};
use crate::common::error::{HandlerResult, McpError, Reply};
use crate::dispatch::DispatchCore;
use crate::handler::ServerHandler;

/// Which list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum ListKind {
    Tools,
    Prompts,
    Resources,
    Templates,
}

/// Which page: the list, the revision (as an index), the first item's index.
pub(crate) type PageKey = (ListKind, usize, usize);

/// Encoded pages, each with the generation it was built at.
#[derive(Default)]
pub(crate) struct ListCache {
    pages: Mutex<HashMap<PageKey, (u64, Box<RawValue>)>>,
}

impl ListCache {
    /// The encoded page, from the cache when it was built at `generation`, otherwise built
    /// by `encode` and kept.
    pub(crate) fn get_or_encode(
        &self,
        key: PageKey,
        generation: u64,
        encode: impl FnOnce() -> Result<Box<RawValue>, McpError>,
    ) -> Result<Box<RawValue>, McpError> {
        if let Some((g, raw)) = self.pages.lock().expect("list cache lock").get(&key)
            && *g == generation
        {
            return Ok(raw.clone());
        }
        // Encoded outside the lock; two requests racing both encode, one wins.
        let raw = encode()?;
        let mut pages = self.pages.lock().expect("list cache lock");
        if pages.values().any(|(g, _)| *g != generation) {
            // The lists changed: every older page is stale.
            pages.retain(|_, (g, _)| *g == generation);
        }
        pages.insert(key, (generation, raw.clone()));
        Ok(raw)
    }
}

#[derive(Deserialize)]
struct CursorParam {
    #[serde(default)]
    cursor: Option<String>,
}

/// The first index of the page `params` asks for (its `cursor`), in a list of `len`.
pub(crate) fn page_start(len: usize, params: Option<&RawValue>) -> Result<usize, McpError> {
    let cursor = match params {
        Some(p) => {
            serde_json::from_str::<CursorParam>(p.get())
                .map_err(|_| McpError::invalid_params("invalid params"))?
                .cursor
        }
        None => None,
    };
    match cursor {
        None => Ok(0),
        Some(c) => crate::common::pagination::decode_cursor(&c, len)
            .ok_or_else(|| McpError::invalid_params("invalid cursor")),
    }
}

/// `all[start..]`, at most `size` of it, and the cursor of the next page.
pub(crate) fn page<T: Clone>(all: &[T], start: usize, size: usize) -> (Vec<T>, Option<String>) {
    let end = (start + size).min(all.len());
    let next = (end < all.len()).then(|| crate::common::pagination::encode_cursor(end));
    (all[start..end].to_vec(), next)
}

/// A handler table's lists as of one request, and their generation.
pub(crate) struct Lists<'a> {
    tools: &'a [Tool],
    prompts: &'a [Prompt],
    resources: &'a [Resource],
    templates: &'a [ResourceTemplate],
    generation: u64,
}

impl<'a> Lists<'a> {
    pub(crate) fn of<H: ServerHandler>(h: &'a H) -> Self {
        Self {
            tools: h.tools(),
            prompts: h.prompts(),
            resources: h.resources(),
            templates: h.resource_templates(),
            generation: h.list_generation(),
        }
    }

    fn tools(&self) -> &'a [Tool] {
        self.tools
    }
    fn prompts(&self) -> &'a [Prompt] {
        self.prompts
    }
    fn resources(&self) -> &'a [Resource] {
        self.resources
    }
    fn resource_templates(&self) -> &'a [ResourceTemplate] {
        self.templates
    }
}

impl DispatchCore {
    /// Answers a list request from the cache, encoding the page on a miss; a caller a
    /// [`Visibility`](crate::chain::policies::Visibility), a
    /// [`ReadOnly`](crate::chain::policies::ReadOnly) or a tool filter restricts (`shown`)
    /// gets its list filtered before it is cut into pages, encoded per request.
    pub(crate) fn list(
        &self,
        h: Lists<'_>,
        kind: ListKind,
        params: Option<&RawValue>,
        version: Option<ProtocolVersion>,
        shown: Option<&Shown>,
    ) -> HandlerResult {
        if let Some(shown) = shown {
            return self.own_list(&h, kind, params, version, shown);
        }
        let len = match kind {
            ListKind::Tools => h.tools().len(),
            ListKind::Prompts => h.prompts().len(),
            ListKind::Resources => {
                crate::features::skills::serve::listing(h.resources(), self.skills.as_deref()).len()
            }
            ListKind::Templates => h.resource_templates().len(),
        };
        let start = page_start(len, params)?;
        let rev = version.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        let key = (kind, rev as usize, start);
        let as_served = self.first_served.holds(h.generation);
        let encode = || self.encode_page(&h, kind, start, rev, as_served);
        let raw = self.lists.get_or_encode(key, h.generation, encode)?;
        Ok(Reply::Result(raw))
    }

    fn encode_page(
        &self,
        h: &Lists<'_>,
        kind: ListKind,
        start: usize,
        rev: ProtocolVersion,
        as_served: bool,
    ) -> Result<Box<RawValue>, McpError> {
        let size = self.identity.page_size.max(1);
        let reply = match kind {
            ListKind::Tools => {
                let (mut tools, next_cursor) = page(h.tools(), start, size);
                if !rev.at_least(ProtocolVersion::V2025_11_25) {
                    for t in &mut tools {
                        crate::handler::tool_def::to_draft07(t);
                    }
                }
                let result = ListToolsResult {
                    tools,
                    next_cursor,
                    ..Default::default()
                };
                self.shape_cached(result, Some(rev), "tools/list", None, as_served)?
            }
            ListKind::Prompts => {
                let (prompts, next_cursor) = page(h.prompts(), start, size);
                let result = ListPromptsResult {
                    prompts,
                    next_cursor,
                    ..Default::default()
                };
                self.shape_cached(result, Some(rev), "prompts/list", None, as_served)?
            }
            ListKind::Resources => {
                let all =
                    crate::features::skills::serve::listing(h.resources(), self.skills.as_deref());
                let (resources, next_cursor) = page(&all, start, size);
                let result = ListResourcesResult {
                    resources,
                    next_cursor,
                    ..Default::default()
                };
                self.shape_cached(result, Some(rev), "resources/list", None, as_served)?
            }
            ListKind::Templates => {
                let (resource_templates, next_cursor) = page(h.resource_templates(), start, size);
                let result = ListResourceTemplatesResult {
                    resource_templates,
                    next_cursor,
                    ..Default::default()
                };
                self.shape_cached(
                    result,
                    Some(rev),
                    "resources/templates/list",
                    None,
                    as_served,
                )?
            }
        };
        match reply {
            Reply::Result(raw) => Ok(raw),
            Reply::None => Err(McpError::internal("a list encoded to nothing")),
        }
    }
}

impl DispatchCore {
    /// The list of a caller that sees only some items: the items it sees, paged, the cache
    /// hints filled and never `"public"` when the list is this caller's own.
    fn own_list(
        &self,
        h: &Lists<'_>,
        kind: ListKind,
        params: Option<&RawValue>,
        version: Option<ProtocolVersion>,
        shown: &Shown,
    ) -> HandlerResult {
        fn kept<T: Clone + Listed>(all: &[T], shown: &Shown) -> Vec<T> {
            all.iter()
                .filter(|x| shown.shows(&x.item()))
                .cloned()
                .collect()
        }
        let rev = version.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        let as_served = self.first_served.holds(h.generation);
        match kind {
            ListKind::Tools => {
                let all = kept(h.tools(), shown);
                let (mut tools, next_cursor) = self.page(&all, params)?;
                if !rev.at_least(ProtocolVersion::V2025_11_25) {
                    tools
                        .iter_mut()
                        .for_each(crate::handler::tool_def::to_draft07);
                }
                let result = ListToolsResult {
                    tools,
                    next_cursor,
                    ..Default::default()
                };
                self.shape_own(result, rev, "tools/list", shown, as_served)
            }
            ListKind::Prompts => {
                let all = kept(h.prompts(), shown);
                let (prompts, next_cursor) = self.page(&all, params)?;
                let result = ListPromptsResult {
                    prompts,
                    next_cursor,
                    ..Default::default()
                };
                self.shape_own(result, rev, "prompts/list", shown, as_served)
            }
            ListKind::Resources => {
                let all =
                    crate::features::skills::serve::listing(h.resources(), self.skills.as_deref());
                let all = kept(&all, shown);
                let (resources, next_cursor) = self.page(&all, params)?;
                let result = ListResourcesResult {
                    resources,
                    next_cursor,
                    ..Default::default()
                };
                self.shape_own(result, rev, "resources/list", shown, as_served)
            }
            ListKind::Templates => {
                let all = kept(h.resource_templates(), shown);
                let (resource_templates, next_cursor) = self.page(&all, params)?;
                let result = ListResourceTemplatesResult {
                    resource_templates,
                    next_cursor,
                    ..Default::default()
                };
                self.shape_own(result, rev, "resources/templates/list", shown, as_served)
            }
        }
    }

    /// [`shape_cached`](Self::shape_cached) for a filtered list: a `"public"` scope becomes
    /// `"private"` when the list is this caller's own.
    fn shape_own<T>(
        &self,
        mut result: T,
        rev: ProtocolVersion,
        method: &str,
        shown: &Shown,
        as_served: bool,
    ) -> HandlerResult
    where
        T: mcp_core::types::Adapt
            + serde::Serialize
            + crate::features::host::ResultMeta
            + crate::dispatch::caching::Cacheable,
    {
        // A caller's own list (a `Visibility`) gets only what is configured.
        let as_served = as_served && !shown.per_caller();
        self.cache.apply(&mut result, method, None, as_served);
        let (_, scope) = result.hints_mut();
        if shown.per_caller() && *scope == Some(mcp_core::types::CacheScope::Public) {
            *scope = Some(mcp_core::types::CacheScope::Private);
        }
        self.shape(result, Some(rev))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw(s: &str) -> Result<Box<RawValue>, McpError> {
        Ok(RawValue::from_string(s.to_owned()).unwrap())
    }

    #[test]
    fn kept_per_generation() {
        let cache = ListCache::default();
        let key = (ListKind::Tools, 3, 0);
        let built = std::cell::Cell::new(0);
        let get = |generation: u64, text: &str| {
            cache
                .get_or_encode(key, generation, || {
                    built.set(built.get() + 1);
                    raw(text)
                })
                .unwrap()
                .get()
                .to_owned()
        };
        assert_eq!(get(0, "[1]"), "[1]");
        assert_eq!(get(0, "[2]"), "[1]");
        assert_eq!(get(1, "[3]"), "[3]");
        assert_eq!(get(1, "[4]"), "[3]");
        assert_eq!(built.get(), 2);
        let other = (ListKind::Tools, 2, 0);
        let got = cache.get_or_encode(other, 1, || raw("[5]")).unwrap();
        assert_eq!(got.get(), "[5]");
        assert_eq!(cache.pages.lock().unwrap().len(), 2);
    }
}
