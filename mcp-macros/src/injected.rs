//! The parameters every handler kind (`#[tool]`, `#[prompt]`, `#[resource]`) recognises by
//! type and gets from the runtime instead of the client: the context, `State<T>`, the
//! request's `CancellationToken` and its `Progress` reporter. Recognising them, refusing
//! two of one kind, and the code that supplies them live here once.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};
use syn::spanned::Spanned;
use syn::{PatType, Type};

use crate::util::Errors;

/// A parameter recognised by its type and supplied by the runtime, not the client.
pub enum Injected {
    /// `Context` / `&Context`.
    Context { by_ref: bool },
    /// `State<T>`: `T` borrowed from the server (`Provides<T>`).
    State(Box<Type>),
    /// `CancellationToken` / `&CancellationToken`: the request's cancellation.
    Cancel { by_ref: bool },
    /// `Progress` / `&Progress`: the request's progress reporter.
    Progress { by_ref: bool },
}

impl Injected {
    fn label(&self) -> &'static str {
        match self {
            Injected::Context { .. } => "context (`Context`)",
            Injected::State(_) => "state (`State<T>`)",
            Injected::Cancel { .. } => "cancellation token (`CancellationToken`)",
            Injected::Progress { .. } => "progress reporter (`Progress`)",
        }
    }
}

/// The injected parameters of one function seen so far, to refuse a second of a kind.
#[derive(Default)]
pub struct Seen(Vec<(std::mem::Discriminant<Injected>, Span)>);

/// Recognises `pt` as an injected parameter of a `what` ("tool", "prompt", "resource"):
/// spells out `State`'s lifetime, reports a second one of its kind and `#[arg]` on it.
/// `arg_attrs` are the parameter's `#[arg]`/doc attributes, already taken off it.
pub fn take(
    pt: &mut PatType,
    arg_attrs: &[syn::Attribute],
    what: &str,
    seen: &mut Seen,
    errors: &mut Errors,
) -> Option<Injected> {
    let inj = injected_type(&pt.ty, errors)?;
    if matches!(inj, Injected::State(_)) {
        // `async fn` parameters need the borrow's lifetime spelled out.
        elide_state_lifetime(&mut pt.ty);
    }
    let kind = std::mem::discriminant(&inj);
    if let Some((_, first)) = seen.0.iter().find(|(k, _)| *k == kind) {
        let mut e = syn::Error::new_spanned(
            &pt.ty,
            format!("a {what} takes at most one {} parameter", inj.label()),
        );
        e.combine(syn::Error::new(*first, "the first one is here"));
        errors.push(e);
    }
    seen.0.push((kind, pt.ty.span()));
    for a in arg_attrs.iter().filter(|a| a.path().is_ident("arg")) {
        errors.spanned(
            a,
            format!("`#[arg]` does not apply to the injected {}", inj.label()),
        );
    }
    Some(inj)
}

/// `Some(by_ref)` when `ty` is the injected context (`Context`, `&Context`, any path ending
/// in `Context`).
pub fn context_type(ty: &Type, errors: &mut Errors) -> Option<bool> {
    fn is_ctx(ty: &Type) -> bool {
        matches!(ty, Type::Path(p) if p.qself.is_none()
            && p.path.segments.last().is_some_and(|s| s.ident == "Context" && s.arguments.is_none()))
    }
    match ty {
        Type::Reference(r) if is_ctx(&r.elem) => {
            if r.mutability.is_some() {
                errors.spanned(
                    ty,
                    "the context is shared: take `&Context` or `Context`, not `&mut Context`",
                );
            }
            Some(true)
        }
        t if is_ctx(t) => Some(false),
        _ => None,
    }
}

/// The injected parameter `ty` is, if any: the context, `State<T>`, `CancellationToken`,
/// `Progress` (by the last segment of the path; a reference for all but `State`).
fn injected_type(ty: &Type, errors: &mut Errors) -> Option<Injected> {
    if let Some(by_ref) = context_type(ty, errors) {
        return Some(Injected::Context { by_ref });
    }
    let (inner, by_ref) = match ty {
        Type::Reference(r) => (&*r.elem, true),
        t => (t, false),
    };
    let Type::Path(p) = inner else { return None };
    if p.qself.is_some() {
        return None;
    }
    let seg = p.path.segments.last()?;
    let plain = seg.arguments.is_none();
    let inj = match seg.ident.to_string().as_str() {
        "CancellationToken" if plain => Injected::Cancel { by_ref },
        "Progress" if plain => Injected::Progress { by_ref },
        "State" => {
            let syn::PathArguments::AngleBracketed(a) = &seg.arguments else {
                errors.spanned(ty, "write the state's type: `State<MyServer>`");
                return Some(Injected::State(Box::new(syn::parse_quote!(()))));
            };
            let types: Vec<&Type> = a
                .args
                .iter()
                .filter_map(|g| match g {
                    syn::GenericArgument::Type(t) => Some(t),
                    _ => None,
                })
                .collect();
            if types.len() != 1 {
                errors.spanned(ty, "write the state's type: `State<MyServer>`");
                return Some(Injected::State(Box::new(syn::parse_quote!(()))));
            }
            if by_ref {
                errors.spanned(
                    ty,
                    "take `State<T>` by value: it is already a borrow of the server's state",
                );
            }
            Injected::State(Box::new(types[0].clone()))
        }
        _ => return None,
    };
    Some(inj)
}

/// Writes `State<T>` as `State<'_, T>` (an `async fn` parameter may not leave it implicit).
fn elide_state_lifetime(ty: &mut Type) {
    if let Type::Path(p) = ty
        && let Some(seg) = p.path.segments.last_mut()
        && let syn::PathArguments::AngleBracketed(a) = &mut seg.arguments
        && !a
            .args
            .iter()
            .any(|g| matches!(g, syn::GenericArgument::Lifetime(_)))
    {
        a.args.insert(0, syn::parse_quote!('_));
    }
}

/// What the generated handler body needs for its injected parameters.
#[derive(Default)]
pub struct Supply {
    /// `let __injN = ...;` statements, run before the call.
    pub lets: Vec<TokenStream>,
    /// Bounds a free function's impl puts on the server type `__S` (`Sync`,
    /// `Provides<T>` per `State<T>`).
    pub state_bounds: Vec<TokenStream>,
}

impl Supply {
    /// The call argument for `inj`, the `i`-th parameter; `self_fix` maps `Self` in a
    /// state type to the server type. The body has `__server` and `__ctx` in scope.
    pub fn arg(
        &mut self,
        inj: &Injected,
        i: usize,
        self_fix: impl Fn(TokenStream) -> TokenStream,
    ) -> TokenStream {
        let p = quote!(::mcp::__private);
        let v = format_ident!("__inj{}", i);
        let (value, by_ref) = match inj {
            Injected::Context { by_ref: true } => return quote!(&__ctx),
            Injected::Context { by_ref: false } => return quote!(__ctx),
            Injected::State(t) => {
                let t = self_fix(t.to_token_stream());
                if self.state_bounds.is_empty() {
                    // The future holds a borrow of the server.
                    self.state_bounds.push(quote!(::core::marker::Sync));
                }
                self.state_bounds.push(quote!(#p::Provides<#t>));
                (quote!(#p::State::<#t>::of(__server)), false)
            }
            Injected::Cancel { by_ref } => (
                quote!(::core::clone::Clone::clone(__ctx.cancellation())),
                *by_ref,
            ),
            Injected::Progress { by_ref } => (
                quote!(#p::Progress::new(::core::clone::Clone::clone(&__ctx))),
                *by_ref,
            ),
        };
        self.lets.push(quote!(let #v = #value;));
        if by_ref { quote!(&#v) } else { quote!(#v) }
    }
}
