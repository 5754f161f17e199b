//! Attribute options (`#[tool(name = "...", read_only)]`, `#[arg(...)]`, ...), parsed the same
//! way for every attribute: each key at most once (a second is an error at both places),
//! `crate = "..."` everywhere, unknown keys reported with the closest known one. What a key
//! means is the caller's business; this module only walks the keys.

mod value;

use proc_macro2::{Span, TokenStream};
use syn::meta::ParseNestedMeta;

pub use value::{flag, key_values, lit_str, skip_value, tags};

use crate::errors::Errors;
use crate::model::root::Root;

/// The keys of one attribute (or of several `#[arg]`s on one parameter) seen so far.
#[derive(Default)]
pub struct Keys {
    seen: Vec<(String, Span)>,
    /// `crate = "..."`, when given.
    pub root: Option<Root>,
}

impl Keys {
    /// Records `key`; reports it when it was given before.
    pub fn record(&mut self, key: &str, span: Span, errors: &mut Errors) {
        if let Some((_, first)) = self.seen.iter().find(|(k, _)| k == key) {
            errors.twice(span, *first, format!("the option `{key}` is given twice"));
        }
        self.seen.push((key.to_owned(), span));
    }
}

/// How one attribute is written in messages (`` `#[tool]` ``) and which keys it knows
/// (for "did you mean"; `crate` is known to every attribute and not listed).
pub struct Spec {
    pub what: &'static str,
    pub known: &'static [&'static str],
    /// Whether `crate = "..."` is an option (on the macros, not on `#[arg]`).
    pub takes_crate: bool,
}

/// Parses `args` (the tokens inside `#[attr(...)]`) key by key into `keys`. `on_key` handles
/// one key and returns whether it knows it; syntax errors and unknown keys go to `errors`,
/// and parsing goes on after each so every mistake is reported.
pub fn parse(
    args: TokenStream,
    spec: &Spec,
    keys: &mut Keys,
    errors: &mut Errors,
    on_key: impl FnMut(&str, &ParseNestedMeta<'_>, &mut Errors) -> syn::Result<bool>,
) {
    let parser = syn::meta::parser(key_parser(spec, keys, errors, on_key));
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        errors.push(e);
    }
}

/// `#[name(...)]` attributes: as [`parse`], for an attribute already parsed by syn.
pub fn parse_attr(
    attr: &syn::Attribute,
    spec: &Spec,
    keys: &mut Keys,
    errors: &mut Errors,
    on_key: impl FnMut(&str, &ParseNestedMeta<'_>, &mut Errors) -> syn::Result<bool>,
) {
    if let syn::Meta::Path(_) = attr.meta {
        return;
    }
    if let Err(e) = attr.parse_nested_meta(key_parser(spec, keys, errors, on_key)) {
        errors.push(e);
    }
}

/// The option tokens of `#[tool(...)]` (empty for `#[tool]`).
pub fn args_of(attr: &syn::Attribute) -> TokenStream {
    match &attr.meta {
        syn::Meta::List(l) => l.tokens.clone(),
        _ => TokenStream::new(),
    }
}

fn key_parser<'a>(
    spec: &'a Spec,
    keys: &'a mut Keys,
    errors: &'a mut Errors,
    mut on_key: impl FnMut(&str, &ParseNestedMeta<'_>, &mut Errors) -> syn::Result<bool> + 'a,
) -> impl FnMut(ParseNestedMeta<'_>) -> syn::Result<()> + 'a {
    move |meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let span = syn::spanned::Spanned::span(&meta.path);
        if key == "crate" && spec.takes_crate {
            keys.record(&key, span, errors);
            let s = lit_str(&meta)?;
            match s.parse::<syn::Path>() {
                Ok(path) => keys.root = Some(Root::custom(path)),
                Err(_) => errors.spanned(
                    &s,
                    format!(
                        "`crate` is the path the `mcp` crate is reachable at, such as \
                         `crate = \"my_reexport::mcp\"`; `{}` is not a path",
                        s.value()
                    ),
                ),
            }
            return Ok(());
        }
        if !key.is_empty() && spec.known.contains(&key.as_str()) {
            keys.record(&key, span, errors);
        }
        if !on_key(&key, &meta, errors)? {
            errors.spanned(&meta.path, value::unknown_key(&key, spec.known, spec.what));
            skip_value(&meta)?;
        }
        Ok(())
    }
}
