//! Every problem of a parsed [`Server`]: a non-empty name, nothing listed twice,
//! well-formed extension ids, a concrete inherent type, and something to offer.

use proc_macro2::Span;
use quote::ToTokens;

use super::Server;
use crate::errors::Errors;

/// "Offers nothing" for a struct.
pub const NOTHING_STRUCT: &str = "this server offers nothing: list its tools with \
     `#[mcp::server(tools(...))]` (or `prompts(...)`, `resources(...)`), or put `#[tool]` \
     methods in a `#[mcp::server] impl` block";
/// "Offers nothing" for an enum.
pub const NOTHING_ENUM: &str =
    "this server offers nothing: list its tools with `#[mcp::server(tools(...))]`";
/// "Offers nothing" for an impl block.
pub const NOTHING_IMPL: &str = "this server offers nothing: mark methods with `#[tool]` (they \
     take `&self`), or list free tools with `#[mcp::server(tools(...))]`";

/// The server-wide checks; `nothing` is where and how to say that it offers nothing (only
/// said when there is no other error).
pub fn check(s: &Server, nothing: (Span, &str), errors: &mut Errors) {
    let o = &s.opts;
    if let Some(n) = &o.name
        && n.value().is_empty()
    {
        errors.spanned(n, "the server name cannot be empty");
    }
    for (what, list) in [
        ("tool", &o.tools),
        ("prompt", &o.prompts),
        ("resource", &o.resources),
        ("completion", &o.completions),
        ("middleware", &o.middleware),
    ] {
        let mut seen: Vec<String> = Vec::new();
        for path in list {
            let s = path.to_token_stream().to_string();
            if seen.contains(&s) {
                errors.spanned(path, format!("the {what} `{s}` is listed twice"));
            }
            seen.push(s);
        }
    }
    let mut ids: Vec<String> = Vec::new();
    for (id, _) in &o.extensions {
        let v = id.value();
        if let Err(e) = mcp_core::rules::check_extension_id(&v) {
            errors.spanned(id, e);
        } else if mcp_core::rules::MODERN_ONLY_EXTENSIONS.contains(&v.as_str()) {
            errors.spanned(
                id,
                format!("`{v}` is declared by the framework when the feature is on"),
            );
        } else if ids.contains(&v) {
            errors.spanned(id, format!("the extension `{v}` is declared twice"));
        }
        ids.push(v);
    }
    let m = &s.methods;
    let offers = !o.offers_nothing()
        || !m.tools.is_empty()
        || !m.prompts.is_empty()
        || !m.resources.is_empty();
    if !offers && errors.is_empty() {
        errors.at(nothing.0, nothing.1);
    }
}

/// A server type is concrete: its tables are generated for one type.
pub fn generics(g: &syn::Generics, errors: &mut Errors) {
    if !g.params.is_empty() || g.where_clause.is_some() {
        errors.spanned(
            g,
            "a `#[mcp::server]` type cannot be generic: its tool table is generated for one \
             concrete type",
        );
    }
}

/// An inherent, non-generic impl block.
pub fn impl_block(imp: &syn::ItemImpl, errors: &mut Errors) {
    generics(&imp.generics, errors);
    if let Some((_, path, _)) = &imp.trait_ {
        errors.spanned(
            path,
            "`#[mcp::server]` goes on an inherent impl block (`impl MyServer { ... }`), not on \
             a trait impl",
        );
    }
}
