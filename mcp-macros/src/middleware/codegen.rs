//! A [`Middleware`] as code: the zero-sized type named like the function (the one item this
//! adds to the user's namespace: `middleware(audit)` names it) and its `Middleware`
//! implementation, whose `handle` is the function's body; with errors, a pass-through
//! stand-in, and the user's parameter types named once inside `const _` so their imports stay
//! used.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::Type;

use super::Middleware;
use crate::model::inject::Injected;

/// The user's `Next<'_>` type with the endpoint parameter added: `Next<'_, __E>`.
fn next_type(ty: &Type) -> TokenStream {
    let mut ty = ty.clone();
    if let Type::Path(p) = &mut ty
        && let Some(seg) = p.path.segments.last_mut()
    {
        let lifetime = match &seg.arguments {
            syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
                syn::GenericArgument::Lifetime(l) => Some(l.clone()),
                _ => None,
            }),
            _ => None,
        }
        .unwrap_or_else(|| syn::Lifetime::new("'_", Span::call_site()));
        seg.arguments = syn::PathArguments::AngleBracketed(syn::parse_quote!(<#lifetime, __E>));
    }
    ty.to_token_stream()
}

/// The zero-sized type, with the function's doc comment.
fn strukt(m: &Middleware) -> TokenStream {
    let docs = m.item.attrs.iter().filter(|a| a.path().is_ident("doc"));
    let ident = &m.item.sig.ident;
    let vis = &m.item.vis;
    quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #ident;
    }
}

/// The type and its `Middleware` implementation, for a middleware without errors.
pub fn codegen(m: &Middleware) -> TokenStream {
    let p = m.root.private();
    let ident = &m.item.sig.ident;
    let other = m.item.attrs.iter().filter(|a| !a.path().is_ident("doc"));
    let [ctx, next] = &m.func.params[..] else {
        unreachable!("checked: two parameters")
    };
    let (ctx_pat, ctx_ty) = (&ctx.pat, &ctx.ty);
    let (next_pat, next_ty) = (&next.pat, next_type(&next.ty));
    let ret = m.func.output();
    let block = &m.item.block;
    let strukt = strukt(m);
    quote! {
        #strukt
        impl #p::Middleware for #ident {
            #(#other)*
            async fn handle<__E: #p::Endpoint + ?::core::marker::Sized>(
                &self, #ctx_pat: #ctx_ty, #next_pat: #next_ty,
            ) -> #ret #block
        }
    }
}

/// What is emitted with errors: the type, passing everything on.
pub fn stand_in(m: &Middleware) -> TokenStream {
    let p = m.root.private();
    let ident = &m.item.sig.ident;
    let tys = m.func.params.iter().map(|t| match t.injected {
        Some(Injected::Next) => next_type(&t.ty),
        _ => t.ty.to_token_stream(),
    });
    let (ret, none) = match m.func.output() {
        Some(ty) => (
            quote!(-> ::core::option::Option<#ty>),
            quote!(::core::option::Option::None),
        ),
        None => (quote!(), quote!()),
    };
    let strukt = strukt(m);
    quote! {
        const _: () = {
            #[allow(dead_code, clippy::all)]
            fn __mcp_signature<__E: ?::core::marker::Sized>(#(_: #tys),*) #ret { #none }
        };
        #strukt
        impl #p::Middleware for #ident {
            async fn handle<__E: #p::Endpoint + ?::core::marker::Sized>(
                &self, ctx: #p::Context, next: #p::Next<'_, __E>,
            ) -> #p::HandlerResult {
                next.run(ctx).await
            }
        }
    }
}
