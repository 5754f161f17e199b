//! What a caller may see, as the methods that name an item ask it: a tool, prompt or
//! template hidden by a [`Visibility`] rule answers as one the server does not have, and a
//! hidden resource's updates are never sent. The rules themselves are `chain/policies/`'s;
//! this file applies the [`Shown`] they leave on the request to the handler's items.
//!
//! [`Visibility`]: crate::chain::policies::Visibility

use crate::chain::policies::visibility::{Item, Shown};
use crate::common::error::McpError;
use crate::context::Context;
use crate::handler::{Overlay, ServerHandler};

/// Whether a resource URI is one the caller may not see (a [`Visibility`] rule hides it).
///
/// [`Visibility`]: crate::chain::policies::Visibility
pub(crate) type HiddenResource<'a> = dyn Fn(&str) -> bool + Send + Sync + 'a;

/// Which resource URIs `ctx`'s caller may not see: a subscription to one is accepted, as
/// one to a URI the server does not have is, and never hears of it.
pub(super) fn hidden_resources<'a, H: ServerHandler>(
    ctx: &'a Context,
    handler: &'a Overlay<H>,
) -> impl Fn(&str) -> bool + Send + Sync + 'a {
    let (resources, templates) = (handler.resources(), handler.resource_templates());
    let shown = Shown::of(ctx);
    move |uri| shown.is_some_and(|s| !s.shows(&resource_item(resources, templates, uri)))
}

/// A `completion/complete` naming a prompt or template the caller may not see answers what
/// the completion answers for one the server does not have.
pub(super) fn check_reference(
    shown: &Shown,
    prompts: &[mcp_core::types::Prompt],
    templates: &[mcp_core::types::ResourceTemplate],
    params: &mcp_core::types::CompleteParams,
) -> Result<(), McpError> {
    use mcp_core::types::CompletionReference as Ref;
    match &params.reference {
        Ref::Prompt(p) => check_named(shown, prompts, |p| &p.name, Item::prompt, &p.name, "prompt"),
        Ref::Resource(r) => check_named(
            shown,
            templates,
            |t| &t.uri_template,
            Item::template,
            &r.uri,
            "resource template",
        ),
    }
}

/// A request naming an item (a tool, a prompt, a template: `what`) the caller may not see
/// answers as one the server does not have, `Unknown <what>: <name>`: the item is found in
/// `items` by `name_of`, and checked as `item` makes it.
pub(super) fn check_named<'a, T>(
    shown: &Shown,
    items: &'a [T],
    name_of: impl Fn(&T) -> &str,
    item: impl FnOnce(&'a T) -> Item<'a>,
    name: &str,
    what: &str,
) -> Result<(), McpError> {
    let unknown = || McpError::invalid_params(format!("Unknown {what}: {name}"));
    let found = items.iter().find(|t| name_of(t) == name);
    shown.check(&item(found.ok_or_else(unknown)?), name, unknown)
}

/// What serves `uri`, as a visibility rule sees it: a concrete resource, else the first
/// template matching it, else the bare URI.
pub(super) fn resource_item<'a>(
    resources: &'a [mcp_core::types::Resource],
    templates: &'a [mcp_core::types::ResourceTemplate],
    uri: &'a str,
) -> Item<'a> {
    if let Some(r) = resources.iter().find(|r| r.uri == uri) {
        return Item::resource(r);
    }
    let matches = |t: &&mcp_core::types::ResourceTemplate| {
        crate::handler::resource_def::match_template(&t.uri_template, uri).is_some()
    };
    match templates.iter().find(matches) {
        Some(t) => Item::template(t),
        None => Item::bare_resource(uri),
    }
}
