//! `#[middleware]`: an `async fn(ctx: Context, next: Next<'_>) -> HandlerResult` becomes a
//! zero-sized type implementing `Middleware`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::{FnArg, Type};

use crate::util::Errors;

const SIGNATURE: &str =
    "write it as `async fn name(ctx: Context, next: Next<'_>) -> HandlerResult`";

fn last_segment(ty: &Type) -> Option<&syn::PathSegment> {
    match ty {
        Type::Path(p) if p.qself.is_none() => p.path.segments.last(),
        _ => None,
    }
}

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

pub fn middleware_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    let f: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                format!("`#[mcp::middleware]` goes on an `async fn`: {SIGNATURE}"),
            );
            {
                let e = e.to_compile_error();
                return quote!(#e #item);
            }
        }
    };
    let mut errors = Errors::default();
    if !args.is_empty() {
        errors.spanned(&args, "`#[mcp::middleware]` takes no options");
    }
    let sig = &f.sig;
    if sig.asyncness.is_none() {
        errors.spanned(
            sig.fn_token,
            format!("a middleware must be `async`: {SIGNATURE}"),
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.spanned(
            &sig.generics,
            format!("a middleware cannot be generic: {SIGNATURE}"),
        );
    }
    let mut pats = Vec::new();
    let typed: Vec<&syn::PatType> = sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(t) => Some(t),
            FnArg::Receiver(r) => {
                errors.spanned(r, format!("a middleware takes no `self`: {SIGNATURE}"));
                None
            }
        })
        .collect();
    if typed.len() != 2 {
        errors.spanned(
            &sig.inputs,
            format!(
                "a middleware takes exactly two parameters, the context and the rest of the chain: {SIGNATURE}"
            ),
        );
    } else {
        let ctx_ok = last_segment(&typed[0].ty)
            .is_some_and(|s| s.ident == "Context" && s.arguments.is_none());
        if !ctx_ok {
            errors.spanned(
                &typed[0].ty,
                format!("the first parameter of a middleware is the context, taken by value (`ctx: Context`): {SIGNATURE}"),
            );
        }
        let next_ok = last_segment(&typed[1].ty).is_some_and(|s| s.ident == "Next");
        if !next_ok {
            errors.spanned(
                &typed[1].ty,
                format!("the second parameter of a middleware is the rest of the chain (`next: Next<'_>`): {SIGNATURE}"),
            );
        }
        pats.push((typed[0].pat.clone(), typed[0].ty.to_token_stream()));
        pats.push((typed[1].pat.clone(), next_type(&typed[1].ty)));
    }
    match &sig.output {
        syn::ReturnType::Default => errors.spanned(
            &sig.ident,
            format!(
                "a middleware returns the outcome of the chain (`-> HandlerResult`): {SIGNATURE}"
            ),
        ),
        syn::ReturnType::Type(_, ty) => {
            if last_segment(ty).is_none_or(|s| s.ident != "HandlerResult") {
                errors.spanned(
                    ty,
                    format!("a middleware returns `HandlerResult` (what `next.run(ctx).await` gives): {SIGNATURE}"),
                );
            }
        }
    }

    let p = quote!(::mcp::__private);
    let ident = &sig.ident;
    let vis = &f.vis;
    let docs: Vec<_> = f
        .attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .collect();
    let other: Vec<_> = f
        .attrs
        .iter()
        .filter(|a| !a.path().is_ident("doc"))
        .collect();
    let strukt = quote! {
        #(#docs)*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default)]
        #vis struct #ident;
    };
    if !errors.is_empty() {
        let errs = errors.to_compile_errors();
        // The user's parameter and return types, named once so their imports stay used.
        let tys = typed.iter().map(|t| {
            if last_segment(&t.ty).is_some_and(|s| s.ident == "Next") {
                next_type(&t.ty)
            } else {
                t.ty.to_token_stream()
            }
        });
        let ret = match &sig.output {
            syn::ReturnType::Type(_, ty) => quote!(-> ::core::option::Option<#ty>),
            syn::ReturnType::Default => quote!(),
        };
        let none = match &sig.output {
            syn::ReturnType::Type(..) => quote!(::core::option::Option::None),
            syn::ReturnType::Default => quote!(),
        };
        return quote! {
            #errs
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
        };
    }
    let block = &f.block;
    let ((ctx_pat, ctx_ty), (next_pat, next_ty)) = (&pats[0], &pats[1]);
    let ret = match &sig.output {
        syn::ReturnType::Type(_, ty) => ty.to_token_stream(),
        syn::ReturnType::Default => quote!(#p::HandlerResult),
    };
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
