//! A checked [`Completion`] as a `CompletionDef` implementation (inside
//! `const _: () = { ... };`).

use proc_macro2::TokenStream;
use quote::{ToTokens, quote, quote_spanned};

use super::Completion;
use crate::codegen::{self, Placeholder, Supply, def_impl};

/// The `…Def` implementation of a checked completion on `def_ty` (`server` for methods).
pub fn codegen(
    model: &Completion,
    def_ty: &TokenStream,
    server: Option<&TokenStream>,
) -> TokenStream {
    let p = model.root.private();
    let mut supply = Supply::default();
    let call_args: Vec<TokenStream> = model
        .func
        .params
        .iter()
        .enumerate()
        .map(|(i, param)| match &param.injected {
            Some(inj) => supply.arg(&p, inj, i, |t| t),
            None => quote!(__value),
        })
        .collect();
    let (kind, reference) = match (&model.prompt, &model.resource) {
        (Some(r), _) => (quote!(#p::RefKind::Prompt), r),
        (None, Some(r)) => (quote!(#p::RefKind::Resource), r),
        (None, None) => unreachable!("checked: a target"),
    };
    let argument = &model.argument;
    let ret = codegen::self_as(
        server,
        model
            .func
            .output()
            .map_or(quote!(()), ToTokens::to_token_stream),
    );
    let tr = quote!(#p::CompletionDef);
    let [head, callee, server_ty, server_use] =
        def_impl(tr, def_ty, &model.func.ident, server, &[]);
    let finish = quote_spanned!(model.func.output_span()=>
        <#ret as #p::IntoCompletion>::into_completion(__out));
    quote! {
        const _: () = {
            #head {
                const KIND: #p::RefKind = #kind;
                const REF: &'static str = #reference;
                const ARGUMENT: &'static str = #argument;
                fn complete<'__a>(
                    __server: &'__a #server_ty,
                    __ctx: #p::Context,
                    __value: ::std::string::String,
                    __resolved: #p::ResolvedArguments,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<#p::Completion, #p::McpError>,
                > + ::core::marker::Send + '__a {
                    #server_use
                    async move {
                        let _ = (&__ctx, &__value, &__resolved);
                        let __out = #callee(#(#call_args),*).await;
                        #finish
                    }
                }
            }
        };
    }
}

/// A stand-in `CompletionDef` for a completion with errors.
pub fn placeholder(model: &Completion, def_ty: &TokenStream) -> TokenStream {
    let p = model.root.private();
    let items = quote! {
        const KIND: #p::RefKind = #p::RefKind::Prompt;
        const REF: &'static str = "";
        const ARGUMENT: &'static str = "";
    };
    let extra = [quote!(::std::string::String), quote!(#p::ResolvedArguments)];
    codegen::placeholder(
        &p,
        def_ty,
        Placeholder {
            tr: quote!(#p::CompletionDef),
            items,
            method: "complete",
            extra: &extra,
            output: quote!(#p::Completion),
            what: "completion",
        },
    )
}
