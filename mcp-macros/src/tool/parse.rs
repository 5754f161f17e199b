//! Reading `#[tool(...)]`, the function and each parameter's `#[arg(...)]` into a [`Tool`];
//! only syntax and option keys are judged here.

use proc_macro2::TokenStream;
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;

use super::{ArgOptions, Icons, Options, Tool};
use crate::attr::{self, Keys, Spec, flag, key_values, lit_str, skip_value};
use crate::errors::Errors;
use crate::model::inject::Site;
use crate::model::root::Root;
use crate::model::{HandlerFn, Param};

const TOOL: Spec = Spec {
    what: "`#[tool]`",
    known: &[
        "name",
        "title",
        "description",
        "read_only",
        "destructive",
        "idempotent",
        "open_world",
        "icons",
        "meta",
        "task",
        "ui",
        "visibility",
        "tags",
    ],
    takes_crate: true,
};
const ARG: Spec = Spec {
    what: "`#[arg]`",
    known: &["rename", "default", "description", "header"],
    takes_crate: false,
};

/// The tool's model; syntax and option-key errors go to `errors`.
pub fn parse(
    args: TokenStream,
    attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    method: bool,
    root: &Root,
    errors: &mut Errors,
) -> Tool {
    let mut keys = Keys::default();
    let mut o = Options::default();
    attr::parse(args, &TOOL, &mut keys, errors, |key, meta, errs| {
        match key {
            "name" => o.name = Some(lit_str(meta)?),
            "title" => o.title = Some(lit_str(meta)?),
            "description" => o.description = Some(lit_str(meta)?),
            "read_only" => o.hints[0] = Some(flag(meta)?),
            "destructive" => o.hints[1] = Some(flag(meta)?),
            "idempotent" => o.hints[2] = Some(flag(meta)?),
            "open_world" => o.hints[3] = Some(flag(meta)?),
            "icons" => o.icons = Some(icons(meta)?),
            "meta" => o.meta = key_values(meta)?,
            "task" => o.task = Some(lit_str(meta)?),
            "ui" => o.ui = Some(lit_str(meta)?),
            "visibility" => o.visibility = Some(str_list(meta)?),
            "tags" => o.tags = Some(attr::tags(meta, errs)?),
            "output_schema" => {
                o.unsupported.push(meta.path.clone());
                skip_value(meta)?;
            }
            _ => return Ok(false),
        }
        Ok(true)
    });
    let root = keys.root.unwrap_or_else(|| root.clone());
    let func = HandlerFn::take(attrs, sig, method, Site::Handler, &root);
    let args = func.params.iter().map(|p| arg_options(p, errors)).collect();
    Tool {
        root,
        func,
        opts: o,
        args,
    }
}

/// A plain parameter's `#[arg(...)]` options (keys unique across several `#[arg]`s).
/// Injected parameters have none: the check pass reports `#[arg]` on them.
fn arg_options(p: &Param, errors: &mut Errors) -> ArgOptions {
    let mut a = ArgOptions::default();
    if p.injected.is_some() {
        return a;
    }
    let mut keys = Keys::default();
    for at in &p.arg_attrs {
        attr::parse_attr(at, &ARG, &mut keys, errors, |key, meta, _| {
            match key {
                "rename" => a.rename = Some(lit_str(meta)?),
                "default" => a.default = Some(meta.value()?.parse()?),
                "description" => a.description = Some(lit_str(meta)?),
                "header" => a.header = Some(lit_str(meta)?),
                _ => return Ok(false),
            }
            Ok(true)
        });
    }
    a
}

/// `key("a", "b")`: string literals (and the key, for an empty list).
fn str_list(meta: &ParseNestedMeta<'_>) -> syn::Result<(proc_macro2::Span, Vec<syn::LitStr>)> {
    let content;
    syn::parenthesized!(content in meta.input);
    let list = Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated(&content)?;
    let key = syn::spanned::Spanned::span(&meta.path);
    Ok((key, list.into_iter().collect()))
}

/// `icons("https://...", "data:...")` or `icons = expr` (an `impl IntoIterator<Item = Icon>`).
fn icons(meta: &ParseNestedMeta<'_>) -> syn::Result<Icons> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Icons::Expr(meta.value()?.parse()?));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let list = Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated(&content)?;
    let key = syn::spanned::Spanned::span(&meta.path);
    Ok(Icons::Sources(key, list.into_iter().collect()))
}
