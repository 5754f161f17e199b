//! Reading `#[mcp::server(...)]` into [`Options`]: scalar keys, the lists of free handlers and
//! middleware, and the keys that try to register what the kernel answers itself.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;

use super::Options;
use crate::attr::{self, Keys, Spec, key_values, lit_str, skip_value};
use crate::check::{RESERVED, reserved_message};
use crate::errors::Errors;
use crate::model::root::Root;

const SERVER: Spec = Spec {
    what: "`#[mcp::server]`",
    known: &[
        "name",
        "version",
        "instructions",
        "tools",
        "prompts",
        "resources",
        "completions",
        "middleware",
        "title",
        "page_size",
        "subscriptions",
        "max_listens",
        "tracing",
        "versions",
        "cache",
        "extensions",
    ],
    takes_crate: true,
};

/// The options, and the crate root they name (`::mcp` unless `crate = "..."`).
pub fn parse(args: TokenStream, errors: &mut Errors) -> (Options, Root) {
    let mut keys = Keys::default();
    let mut m = Options::default();
    attr::parse(args, &SERVER, &mut keys, errors, |key, meta, errors| {
        match key {
            "name" => m.name = Some(lit_str(meta)?),
            "version" => m.version = Some(lit_str(meta)?),
            "instructions" => m.instructions = Some(lit_str(meta)?.value()),
            "tools" => m.tools = paths(key, meta, errors)?,
            "prompts" => m.prompts = paths(key, meta, errors)?,
            "resources" => m.resources = paths(key, meta, errors)?,
            "completions" => m.completions = paths(key, meta, errors)?,
            "middleware" => m.middleware = paths(key, meta, errors)?,
            "extensions" => m.extensions = key_values(meta)?,
            k if RESERVED.contains(&k) || k == "on_initialize" => {
                errors.spanned(&meta.path, reserved_message(k.trim_start_matches("on_")));
                skip_value(meta)?;
            }
            "methods" | "handlers" | "handler" => custom_handlers(meta, errors)?,
            k if super::settings::KEYS.contains(&k) => {
                return super::settings::parse(k, meta, &mut m.settings, errors);
            }
            _ => return Ok(false),
        }
        Ok(true)
    });
    (m, keys.root.unwrap_or_default())
}

/// `key(a, b::c)`: a list of paths.
fn paths(
    key: &str,
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
) -> syn::Result<Vec<syn::Path>> {
    let mut list = Vec::new();
    meta.parse_nested_meta(|inner| {
        if !inner.input.is_empty() && !inner.input.peek(syn::Token![,]) {
            errors.spanned(&inner.path, format!("`{key}(...)` lists paths only"));
            skip_value(&inner)?;
        }
        list.push(inner.path.clone());
        Ok(())
    })?;
    Ok(list)
}

/// `methods(...)` / `handlers(...)`: not supported; naming a reserved method gets the
/// reserved-method message instead.
fn custom_handlers(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<()> {
    let mut reported = false;
    if meta.input.peek(syn::token::Paren) {
        meta.parse_nested_meta(|inner| {
            let n = inner
                .path
                .get_ident()
                .map(ToString::to_string)
                .unwrap_or_default();
            if RESERVED.contains(&n.as_str()) {
                errors.spanned(&inner.path, reserved_message(&n));
                reported = true;
            }
            skip_value(&inner)
        })?;
    } else {
        skip_value(meta)?;
    }
    if !reported {
        errors.spanned(
            &meta.path,
            "custom method handlers are not supported; register tools with \
             `tools(...)` and observe other methods with `middleware(...)`",
        );
    }
    Ok(())
}
