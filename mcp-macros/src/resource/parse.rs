//! Reading `#[resource("uri", ...)]` and the function into a [`Resource`]; only syntax and
//! option keys are judged here. A leading string literal is the `uri` key.

use proc_macro2::{TokenStream, TokenTree};

use syn::punctuated::Punctuated;

use super::{AppOptions, Resource};
use crate::attr::{self, Keys, Spec, flag, lit_str};
use crate::errors::Errors;
use crate::model::HandlerFn;
use crate::model::inject::Site;
use crate::model::root::Root;

const RESOURCE: Spec = Spec {
    what: "`#[resource]`",
    known: &[
        "uri",
        "name",
        "title",
        "description",
        "mime_type",
        "csp",
        "permissions",
        "domain",
        "prefers_border",
        "tags",
    ],
    takes_crate: true,
};

/// The resource's model; syntax and option-key errors go to `errors`.
pub fn parse(
    args: TokenStream,
    attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    method: bool,
    root: &Root,
    errors: &mut Errors,
) -> Resource {
    let mut keys = Keys::default();
    let mut uri: Option<syn::LitStr> = None;
    let mut tokens: Vec<TokenTree> = args.into_iter().collect();
    if let Some(TokenTree::Literal(l)) = tokens.first() {
        match syn::parse2::<syn::LitStr>(TokenTree::Literal(l.clone()).into()) {
            Ok(s) => {
                keys.record("uri", s.span(), errors);
                uri = Some(s);
            }
            Err(e) => errors.push(e),
        }
        tokens.remove(0);
        if matches!(tokens.first(), Some(TokenTree::Punct(p)) if p.as_char() == ',') {
            tokens.remove(0);
        }
    }
    let (mut name, mut title, mut description, mut mime_type) = (None, None, None, None);
    let mut app = AppOptions::default();
    let mut tags = None;
    let rest = tokens.into_iter().collect();
    attr::parse(rest, &RESOURCE, &mut keys, errors, |key, meta, errs| {
        if matches!(key, "csp" | "permissions" | "domain" | "prefers_border") {
            app.span
                .get_or_insert_with(|| syn::spanned::Spanned::span(&meta.path));
        }
        match key {
            "csp" => meta.parse_nested_meta(|inner| {
                let content;
                syn::parenthesized!(content in inner.input);
                let list = Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated(&content)?;
                let ident = inner.path.require_ident()?.clone();
                app.csp.push((ident, list.into_iter().collect()));
                Ok(())
            })?,
            "permissions" => meta.parse_nested_meta(|inner| {
                app.permissions.push(inner.path.require_ident()?.clone());
                Ok(())
            })?,
            "domain" => app.domain = Some(lit_str(meta)?),
            "prefers_border" => app.prefers_border = Some(flag(meta)?),
            "uri" => uri = Some(lit_str(meta)?),
            "name" => name = Some(lit_str(meta)?),
            "title" => title = Some(lit_str(meta)?),
            "description" => description = Some(lit_str(meta)?),
            "mime_type" => mime_type = Some(lit_str(meta)?),
            "tags" => tags = Some(attr::tags(meta, errs)?),
            _ => return Ok(false),
        }
        Ok(true)
    });
    let root = keys.root.unwrap_or_else(|| root.clone());
    let func = HandlerFn::take(attrs, sig, method, Site::Handler, &root);
    Resource {
        root,
        func,
        uri,
        name,
        title,
        description,
        mime_type,
        app,
        tags,
    }
}
