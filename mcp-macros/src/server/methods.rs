//! The handler methods of a `#[mcp::server] impl` block: each method carrying one of our
//! attributes (recognised by path: `#[tool]`, `#[mcp::tool]`, not `#[other::tool]`) goes
//! through its own macro's passes, then the server checks names and URIs across methods.
//! Each becomes a hidden unit struct implementing the handler trait for the server; the
//! codegen puts them inside the server's `const _: () = { ... };`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};

use crate::attr;
use crate::completion::CompletionAttr;
use crate::errors::Errors;
use crate::model::root::Root;
use crate::pipeline::Handler;
use crate::prompt::PromptAttr;
use crate::resource::ResourceAttr;
use crate::tool::ToolAttr;

/// The hidden types generated for the methods, and their definitions.
#[derive(Default)]
pub struct Methods {
    pub tools: Vec<TokenStream>,
    pub prompts: Vec<TokenStream>,
    pub resources: Vec<TokenStream>,
    pub completions: Vec<TokenStream>,
    /// The hidden structs and their trait implementations.
    pub defs: TokenStream,
}

/// Names (and URIs) seen so far, per kind, to report a second one at both places.
#[derive(Default)]
struct Seen {
    tools: Vec<(String, Span)>,
    prompts: Vec<(String, Span)>,
    resources: Vec<(String, Span)>,
    uris: Vec<(String, Span)>,
}

const KINDS: [&str; 4] = ["tool", "prompt", "resource", "completion"];

/// Runs every handler method of `imp` (a server of type `ty`) through its macro, removing
/// our attributes from the methods.
pub fn collect(
    imp: &mut syn::ItemImpl,
    ty: &TokenStream,
    root: &Root,
    errors: &mut Errors,
) -> Methods {
    let mut out = Methods::default();
    let mut seen = Seen::default();
    for item in imp.items.iter_mut() {
        let syn::ImplItem::Fn(f) = item else { continue };
        let ours = |a: &syn::Attribute| KINDS.iter().find(|k| root.names(a.path(), k)).copied();
        let kinds: Vec<&str> = KINDS
            .into_iter()
            .filter(|k| f.attrs.iter().any(|a| ours(a) == Some(*k)))
            .collect();
        let [kind] = kinds[..] else {
            if kinds.len() > 1 {
                errors.spanned(
                    &f.sig.ident,
                    "a method can be only one of `#[tool]`, `#[prompt]`, `#[resource]` and \
                     `#[completion]`",
                );
            }
            continue;
        };
        let pos = f.attrs.iter().position(|a| ours(a).is_some()).unwrap_or(0);
        let attr = f.attrs.remove(pos);
        if let Some(extra) = f.attrs.iter().find(|a| ours(a).is_some()) {
            errors.spanned(extra, format!("`#[{kind}]` appears twice on this method"));
        }
        let args = attr::args_of(&attr);
        match kind {
            "tool" => {
                if let Some(m) = method::<ToolAttr>(f, args, ty, root, &mut out.defs, errors) {
                    let (name, span) = m.0.name();
                    duplicate(&mut seen.tools, &name, span, "tools", errors);
                    out.tools.push(m.1);
                }
            }
            "prompt" => {
                if let Some(m) = method::<PromptAttr>(f, args, ty, root, &mut out.defs, errors) {
                    let (name, span) = m.0.name();
                    duplicate(&mut seen.prompts, &name, span, "prompts", errors);
                    out.prompts.push(m.1);
                }
            }
            "resource" => {
                if let Some(m) = method::<ResourceAttr>(f, args, ty, root, &mut out.defs, errors) {
                    let (name, span) = m.0.name();
                    duplicate(&mut seen.resources, &name, span, "resources", errors);
                    let (uri, span) = m.0.uri();
                    if let Some((_, first)) = seen.uris.iter().find(|(u, _)| *u == uri) {
                        let message = format!("two resources of this server have the URI `{uri}`");
                        errors.twice(span, *first, message);
                    }
                    seen.uris.push((uri, span));
                    out.resources.push(m.1);
                }
            }
            _ => {
                if let Some(m) = method::<CompletionAttr>(f, args, ty, root, &mut out.defs, errors)
                {
                    out.completions.push(m.1);
                }
            }
        }
    }
    out
}

/// One method through `H`'s passes; with no errors, its hidden type (whose definition is
/// added to `defs`) and its model.
fn method<H: Handler>(
    f: &mut syn::ImplItemFn,
    args: TokenStream,
    server: &TokenStream,
    root: &Root,
    defs: &mut TokenStream,
    errors: &mut Errors,
) -> Option<(H::Model, TokenStream)> {
    let before = errors.len();
    let model = H::parse(args, &f.attrs, &mut f.sig, true, root, errors);
    H::check(&model, errors);
    if errors.len() > before {
        return None;
    }
    let mut kind = H::NAME.to_owned();
    kind[..1].make_ascii_uppercase();
    let hidden = format_ident!("__Mcp{}_{}", kind, f.sig.ident);
    let hidden_ty = hidden.to_token_stream();
    let body = H::codegen(&model, &hidden_ty, Some(server));
    defs.extend(quote! {
        #[allow(non_camel_case_types)]
        struct #hidden;
        #body
    });
    Some((model, hidden_ty))
}

/// Reports `name` when it is already in `seen` (spanned at both), then records it.
fn duplicate(
    seen: &mut Vec<(String, Span)>,
    name: &str,
    span: Span,
    what: &str,
    errors: &mut Errors,
) {
    if let Some((_, first)) = seen.iter().find(|(n, _)| n == name) {
        errors.twice(
            span,
            *first,
            format!("two {what} of this server are named `{name}`"),
        );
    }
    seen.push((name.to_owned(), span));
}
