//! The `#[mcp::server(...)]` keys that name builder settings (`title`, `page_size`,
//! `subscriptions`, `max_listens`, `tracing`, `versions(...)`, `cache(...)`): read and
//! checked here, each error spanned at the user's token, and generated as the calls of the
//! table's `ServerHandler::declare`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::meta::ParseNestedMeta;

use crate::attr::{flag, lit_str, skip_value};
use crate::errors::Errors;

/// The keys this module reads.
pub const KEYS: &[&str] = &[
    "title",
    "page_size",
    "subscriptions",
    "max_listens",
    "tracing",
    "versions",
    "cache",
];

/// The revisions `versions(...)` can name (`mcp_core::version::ProtocolVersion`).
const REVISIONS: &[(&str, &str)] = &[
    ("2024-11-05", "V2024_11_05"),
    ("2025-03-26", "V2025_03_26"),
    ("2025-06-18", "V2025_06_18"),
    ("2025-11-25", "V2025_11_25"),
    ("2026-07-28", "V2026_07_28"),
];

/// The methods with a cacheable 2026 result (`mcp_runtime::caching::CACHEABLE_METHODS`).
const CACHEABLE: &[&str] = &[
    "server/discover",
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "resources/read",
];

/// One checked setting.
pub enum Setting {
    Title(syn::LitStr),
    PageSize(syn::LitInt),
    Subscriptions(bool),
    MaxListens(syn::LitInt),
    Tracing(bool),
    Versions(Vec<syn::Ident>),
    Cache {
        target: CacheTarget,
        ttl_ms: syn::LitInt,
        public: bool,
    },
}

/// What `cache(...)` applies to.
pub enum CacheTarget {
    Default,
    Method(syn::LitStr),
    Resource(syn::LitStr),
}

/// Reads `key` when it is a setting; `Ok(false)` when it is not one of [`KEYS`].
pub fn parse(
    key: &str,
    meta: &ParseNestedMeta<'_>,
    out: &mut Vec<Setting>,
    errors: &mut Errors,
) -> syn::Result<bool> {
    let s = match key {
        "title" => {
            let t = lit_str(meta)?;
            if t.value().trim().is_empty() {
                errors.spanned(&t, "the server title cannot be empty");
            }
            Setting::Title(t)
        }
        "page_size" => Setting::PageSize(positive(meta, "page_size", errors)?),
        "max_listens" => Setting::MaxListens(positive(meta, "max_listens", errors)?),
        "subscriptions" => Setting::Subscriptions(flag(meta)?),
        "tracing" => Setting::Tracing(flag(meta)?),
        "versions" => Setting::Versions(versions(meta, errors)?),
        "cache" => cache(meta, errors)?,
        _ => return Ok(false),
    };
    out.push(s);
    Ok(true)
}

/// `key = N` with `N > 0`.
fn positive(
    meta: &ParseNestedMeta<'_>,
    key: &str,
    errors: &mut Errors,
) -> syn::Result<syn::LitInt> {
    let n: syn::LitInt = meta.value()?.parse()?;
    match n.base10_parse::<u64>() {
        Ok(v) if v > 0 => {}
        _ => errors.spanned(&n, format!("`{key}` is a whole number of at least 1")),
    }
    Ok(n)
}

/// `versions("2025-11-25", "2026-07-28")`: known revisions, at least one, none twice.
fn versions(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Vec<syn::Ident>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let lits =
        content.parse_terminated(<syn::LitStr as syn::parse::Parse>::parse, syn::Token![,])?;
    let mut out = Vec::new();
    let mut seen = Vec::new();
    for lit in &lits {
        let v = lit.value();
        match REVISIONS.iter().find(|(r, _)| *r == v) {
            Some((_, variant)) if !seen.contains(&v) => {
                seen.push(v);
                out.push(syn::Ident::new(variant, lit.span()));
            }
            Some(_) => errors.spanned(lit, format!("the revision \"{v}\" is listed twice")),
            None => {
                let known = REVISIONS
                    .iter()
                    .map(|(r, _)| format!("\"{r}\""))
                    .collect::<Vec<_>>();
                errors.spanned(
                    lit,
                    format!(
                        "unknown protocol revision \"{v}\" (known: {})",
                        known.join(", ")
                    ),
                );
            }
        }
    }
    if lits.is_empty() {
        errors.spanned(&meta.path, "`versions(...)` names at least one revision");
    }
    Ok(out)
}

/// `cache(ttl_ms = N, scope = "public" | "private", method = "..." | resource = "...")`.
fn cache(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Setting> {
    let mut ttl = None;
    let mut public = false;
    let mut target = CacheTarget::Default;
    meta.parse_nested_meta(|inner| {
        let key = inner
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "ttl_ms" => ttl = Some(<syn::LitInt as syn::parse::Parse>::parse(inner.value()?)?),
            "scope" => {
                let s = lit_str(&inner)?;
                match s.value().as_str() {
                    "public" => public = true,
                    "private" => public = false,
                    _ => errors.spanned(&s, "`scope` is \"public\" or \"private\""),
                }
            }
            "method" => {
                let m = lit_str(&inner)?;
                if !CACHEABLE.contains(&m.value().as_str()) {
                    errors.spanned(
                        &m,
                        format!(
                            "`{}` has no cacheable result (cacheable: {})",
                            m.value(),
                            CACHEABLE.join(", ")
                        ),
                    );
                }
                target = CacheTarget::Method(m);
            }
            "resource" => target = CacheTarget::Resource(lit_str(&inner)?),
            _ => {
                errors.spanned(
                    &inner.path,
                    "`cache(...)` takes `ttl_ms = N`, `scope = \"public\"|\"private\"` and one of \
                     `method = \"...\"`, `resource = \"...\"`",
                );
                skip_value(&inner)?;
            }
        }
        Ok(())
    })?;
    let Some(ttl_ms) = ttl else {
        errors.spanned(&meta.path, "`cache(...)` needs `ttl_ms = N`");
        return Ok(Setting::Cache {
            target,
            ttl_ms: syn::LitInt::new("0", syn::spanned::Spanned::span(&meta.path)),
            public,
        });
    };
    if ttl_ms.base10_parse::<u64>().is_err() {
        errors.spanned(&ttl_ms, "`ttl_ms` is a whole number of milliseconds");
    }
    Ok(Setting::Cache {
        target,
        ttl_ms,
        public,
    })
}

/// The calls on `server: &mut dyn Declarations` for `settings` (`p`: the private module).
pub fn calls(p: &TokenStream, settings: &[Setting]) -> TokenStream {
    let calls = settings.iter().map(|s| match s {
        Setting::Title(t) => quote!(server.title(#t);),
        Setting::PageSize(n) => quote!(server.page_size(#n);),
        Setting::Subscriptions(on) => quote!(server.subscriptions(#on);),
        Setting::MaxListens(n) => quote!(server.max_listens(#n);),
        Setting::Tracing(on) => quote!(server.tracing(#on);),
        Setting::Versions(v) => quote!(server.versions(&[#(#p::ProtocolVersion::#v),*]);),
        Setting::Cache {
            target,
            ttl_ms,
            public,
        } => {
            let target = match target {
                CacheTarget::Default => quote!(#p::CacheTarget::Default),
                CacheTarget::Method(m) => quote!(#p::CacheTarget::Method(#m)),
                CacheTarget::Resource(r) => quote!(#p::CacheTarget::Resource(#r)),
            };
            let scope = if *public {
                quote!(#p::CacheScope::Public)
            } else {
                quote!(#p::CacheScope::Private)
            };
            quote!(server.cache_hint(#target, #ttl_ms, #scope);)
        }
    });
    quote!(#(#calls)*)
}
