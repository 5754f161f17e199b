//! A checked [`Prompt`] as a `PromptDef` implementation (inside `const _: () = { ... };`):
//! the listing built once, and `get` taking each argument out of the request's map.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};

use super::Prompt;
use crate::codegen::{self, Placeholder, Supply, def_impl};

/// The `…Def` implementation of a checked prompt on `def_ty` (`server` for methods).
pub fn codegen(model: &Prompt, def_ty: &TokenStream, server: Option<&TokenStream>) -> TokenStream {
    let p = model.root.private();
    let mut entries = Vec::new();
    let mut arg_names = Vec::new();
    let mut takes = Vec::new();
    let mut call_args = Vec::new();
    let self_fix = |t| codegen::self_as(server, t);
    let mut supply = Supply::default();
    for (i, (param, a)) in model.func.params.iter().zip(&model.args).enumerate() {
        if let Some(inj) = &param.injected {
            call_args.push(supply.arg(&p, inj, i, self_fix));
            continue;
        }
        let (name, description) = Prompt::argument(param, a).expect("checked: a plain name");
        let required = Prompt::required(param);
        let v = format_ident!("__arg{}", i);
        let desc = match description {
            Some(d) => quote!(::core::option::Option::Some(#d.into())),
            None => quote!(::core::option::Option::None),
        };
        entries.push(quote! {
            #p::PromptArgument {
                name: #name.into(),
                description: #desc,
                required: ::core::option::Option::Some(#required),
                ..::core::default::Default::default()
            }
        });
        if required {
            takes.push(quote!(let #v = #p::required_arg(&mut __args, #name)?;));
        } else {
            takes.push(quote!(let #v = #p::optional_arg(&mut __args, #name);));
        }
        call_args.push(quote!(#v));
        arg_names.push(name);
    }
    let (name, _) = model.name();
    let mut config = Vec::new();
    if let Some(t) = &model.title {
        config.push(quote!(__p.title = ::core::option::Option::Some(#t.into());));
    }
    let description = model.description.as_ref().map(syn::LitStr::value);
    if let Some(d) = description.or_else(|| model.func.docs.clone()) {
        config.push(quote!(__p.description = ::core::option::Option::Some(#d.into());));
    }
    config.extend(codegen::tags(&p, model.tags.as_ref(), "__p"));
    if !entries.is_empty() {
        config.push(
            quote!(__p.arguments = ::core::option::Option::Some(::std::vec![#(#entries),*]);),
        );
    }
    let ret = self_fix(
        model
            .func
            .output()
            .map_or(quote!(()), ToTokens::to_token_stream),
    );
    let tr = quote!(#p::PromptDef);
    let [head, callee, server_ty, server_use] =
        def_impl(tr, def_ty, &model.func.ident, server, &supply.state_bounds);
    let lets = &supply.lets;
    let finish = quote_spanned!(model.func.output_span()=>
        <#ret as #p::IntoPromptResult>::into_prompt_result(__out));
    quote! {
        const _: () = {
            #head {
                const NAME: &'static str = #name;
                const ARGUMENTS: &'static [&'static str] = &[#(#arg_names),*];
                fn prompt() -> &'static #p::Prompt {
                    static PROMPT: #p::OnceLock<#p::Prompt> = #p::OnceLock::new();
                    PROMPT.get_or_init(|| {
                        let mut __p = #p::Prompt::new(#name);
                        #(#config)*
                        __p
                    })
                }
                #[allow(unused_mut)]
                fn get<'__a>(
                    __server: &'__a #server_ty,
                    __ctx: #p::Context,
                    mut __args: #p::HashMap<::std::string::String, ::std::string::String>,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<#p::GetPromptResult, #p::McpError>,
                > + ::core::marker::Send + '__a {
                    #server_use
                    async move {
                        let _ = &__ctx;
                        #(#takes)*
                        #(#lets)*
                        let __out = #callee(#(#call_args),*).await;
                        #finish
                    }
                }
            }
        };
    }
}

/// A stand-in `PromptDef` for a prompt with errors.
pub fn placeholder(model: &Prompt, def_ty: &TokenStream) -> TokenStream {
    let p = model.root.private();
    let name = model.func.ident.to_string();
    let items = quote! {
        const NAME: &'static str = #name;
        const ARGUMENTS: &'static [&'static str] = &[];
        fn prompt() -> &'static #p::Prompt {
            ::core::unimplemented!()
        }
    };
    let args = [quote!(#p::HashMap<::std::string::String, ::std::string::String>)];
    codegen::placeholder(
        &p,
        def_ty,
        Placeholder {
            tr: quote!(#p::PromptDef),
            items,
            method: "get",
            extra: &args,
            output: quote!(#p::GetPromptResult),
            what: "prompt",
        },
    )
}
