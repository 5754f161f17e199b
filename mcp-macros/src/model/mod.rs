//! The normalised input every macro starts from: one model of a handler function (its
//! signature walked once, here, for tools, prompts, resources, completions and middleware),
//! the injected parameter types, and where the `mcp` crate is.

/// Injected parameter types, recognised by path.
pub mod inject;
/// The crate root generated code names, and which paths are ours.
pub mod root;

use proc_macro2::Span;
use syn::spanned::Spanned;

/// `tags("admin", "billing")` on a tool, prompt or resource: its `_meta.tags`.
pub struct Tags {
    /// The `tags` key, where an empty list is reported.
    pub key: Span,
    /// The string literals given (anything else was reported while parsing).
    pub list: Vec<syn::LitStr>,
    /// Whether the parentheses held nothing at all.
    pub empty: bool,
}

use inject::{Injected, Site};
use root::Root;

/// A handler function as written: what the macros read from its signature. Building it
/// strips the parameter attributes (`#[arg]`, docs) from the signature, so the function
/// itself compiles whatever the macro reports.
pub struct HandlerFn {
    pub ident: syn::Ident,
    /// The signature, parameter attributes removed (for the shape checks and spans).
    pub sig: syn::Signature,
    /// The function's doc comment.
    pub docs: Option<String>,
    pub receiver: Option<syn::Receiver>,
    pub params: Vec<Param>,
    /// Whether it is a method inside `#[mcp::server] impl`.
    pub method: bool,
}

/// One typed parameter.
pub struct Param {
    pub pat: syn::Pat,
    pub ty: syn::Type,
    /// The runtime supplies it (recognised by type at this kind of function's site).
    pub injected: Option<Injected>,
    /// Its doc comment: the argument's description.
    pub docs: Option<String>,
    /// Its `#[arg(...)]` attributes, read by the macro whose options they are.
    pub arg_attrs: Vec<syn::Attribute>,
}

impl HandlerFn {
    /// Walks `sig` (of a function with attributes `attrs`) for a function of kind `site`.
    pub fn take(
        attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
        method: bool,
        site: Site,
        root: &Root,
    ) -> HandlerFn {
        let mut receiver = None;
        let mut params = Vec::new();
        for input in sig.inputs.iter_mut() {
            match input {
                syn::FnArg::Receiver(r) => {
                    r.attrs.clear();
                    receiver = Some(r.clone());
                }
                syn::FnArg::Typed(pt) => {
                    let (ours, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut pt.attrs)
                        .into_iter()
                        .partition(|a| a.path().is_ident("arg") || a.path().is_ident("doc"));
                    pt.attrs = rest;
                    let injected = Injected::recognise(&pt.ty, site, root);
                    if let Some(Injected::State { .. }) = injected {
                        inject::elide_state_lifetime(&mut pt.ty);
                    }
                    let (arg_attrs, docs): (Vec<_>, Vec<_>) =
                        ours.into_iter().partition(|a| a.path().is_ident("arg"));
                    params.push(Param {
                        pat: (*pt.pat).clone(),
                        ty: (*pt.ty).clone(),
                        injected,
                        docs: doc_text(&docs),
                        arg_attrs,
                    });
                }
            }
        }
        HandlerFn {
            ident: sig.ident.clone(),
            sig: sig.clone(),
            docs: doc_text(attrs),
            receiver,
            params,
            method,
        }
    }

    /// The handler's name (`name = "..."`, else the function's) and where to report it.
    pub fn name(&self, name: Option<&syn::LitStr>) -> (String, Span) {
        match name {
            Some(n) => (n.value(), n.span()),
            None => (unraw(&self.ident), self.ident.span()),
        }
    }

    /// The return type as written (`None` for `()`) .
    pub fn output(&self) -> Option<&syn::Type> {
        match &self.sig.output {
            syn::ReturnType::Default => None,
            syn::ReturnType::Type(_, ty) => Some(ty),
        }
    }

    /// Where a problem with the return type is reported.
    pub fn output_span(&self) -> Span {
        self.output().map_or(self.ident.span(), Spanned::span)
    }
}

impl Param {
    /// The parameter's name when it is a plain identifier (`query`, `mut query`).
    pub fn ident(&self) -> Option<&syn::Ident> {
        match &self.pat {
            syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(&pi.ident),
            _ => None,
        }
    }
}

/// The identifier without a leading `r#`.
pub fn unraw(i: &syn::Ident) -> String {
    let s = i.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// The text of `///` comments (`#[doc = "..."]`), one line each, joined and trimmed.
pub fn doc_text(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for a in attrs {
        if a.path().is_ident("doc")
            && let syn::Meta::NameValue(nv) = &a.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let v = s.value();
            lines.push(v.strip_prefix(' ').unwrap_or(&v).trim_end().to_owned());
        }
    }
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// `Some(inner)` when `ty` is `Option<inner>`.
pub fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Option" {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `ty` is (a path ending in) `String`.
pub fn is_string(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "String" && s.arguments.is_none()))
}
