//! A checked [`Resource`] as a `ResourceDef` implementation (inside `const _: () = { ... };`):
//! the listing entry built once, and `read` parsing each bound variable with `FromStr`.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::Resource;
use crate::codegen::{self, Placeholder, Supply, def_impl};
use crate::model::unraw;

/// The `…Def` implementation of a checked resource on `def_ty` (`server` for methods).
pub fn codegen(
    model: &Resource,
    def_ty: &TokenStream,
    server: Option<&TokenStream>,
) -> TokenStream {
    let p = model.root.private();
    let self_fix = |t| codegen::self_as(server, t);
    let vars = model.vars().unwrap_or_default();
    let mut takes = Vec::new();
    let mut call_args = Vec::new();
    let mut supply = Supply::default();
    for (i, param) in model.func.params.iter().enumerate() {
        if let Some(inj) = &param.injected {
            call_args.push(supply.arg(&p, inj, i, self_fix));
            continue;
        }
        let name = unraw(param.ident().expect("checked: a plain name"));
        let var = vars
            .iter()
            .position(|v| *v == name)
            .expect("checked: bound");
        let v = format_ident!("__var{}", i);
        let ty = self_fix(param.ty.to_token_stream());
        takes.push(quote_spanned! {ty.span()=>
            let #v: #ty = #p::parse_var::<#ty>(&__vars[#var], #name)?;
        });
        call_args.push(quote!(#v));
    }
    let (name, _) = model.name();
    let (uri, _) = model.uri();
    let template = !vars.is_empty();
    let (config, mime_text) = config(model, &p);
    let entry = |ty: TokenStream| {
        quote! {
            static ENTRY: #p::OnceLock<#p::#ty> = #p::OnceLock::new();
            ::core::option::Option::Some(ENTRY.get_or_init(|| {
                let mut __r = #p::#ty::new(#uri, #name);
                #(#config)*
                __r
            }))
        }
    };
    let none = quote!(::core::option::Option::None);
    let (resource, tmpl) = if template {
        (none.clone(), entry(quote!(ResourceTemplate)))
    } else {
        (entry(quote!(Resource)), none)
    };
    let mime = match &mime_text {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let ret = self_fix(
        model
            .func
            .output()
            .map_or(quote!(()), ToTokens::to_token_stream),
    );
    let tr = quote!(#p::ResourceDef);
    let [head, callee, server_ty, server_use] =
        def_impl(tr, def_ty, &model.func.ident, server, &supply.state_bounds);
    let lets = &supply.lets;
    let finish = quote_spanned!(model.func.output_span()=>
        <#ret as #p::IntoReadResult>::into_read_result(__out, &__uri, #mime));
    quote! {
        const _: () = {
            #head {
                const NAME: &'static str = #name;
                const URI: &'static str = #uri;
                const TEMPLATE: bool = #template;
                fn resource() -> ::core::option::Option<&'static #p::Resource> {
                    #resource
                }
                fn template() -> ::core::option::Option<&'static #p::ResourceTemplate> {
                    #tmpl
                }
                fn read<'__a>(
                    __server: &'__a #server_ty,
                    __ctx: #p::Context,
                    __uri: ::std::string::String,
                    __vars: ::std::vec::Vec<::std::string::String>,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<#p::ReadResourceResult, #p::McpError>,
                > + ::core::marker::Send + '__a {
                    #server_use
                    async move {
                        let _ = (&__ctx, &__vars);
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

/// The statements that fill in the listing entry (`__r`), and the MIME type (the app one by
/// default for a `ui://` view).
fn config(model: &Resource, p: &TokenStream) -> (Vec<TokenStream>, Option<String>) {
    let mut config = Vec::new();
    if let Some(t) = &model.title {
        config.push(quote!(__r.title = ::core::option::Option::Some(#t.into());));
    }
    let description = model.description.as_ref().map(syn::LitStr::value);
    if let Some(d) = description.or_else(|| model.func.docs.clone()) {
        config.push(quote!(__r.description = ::core::option::Option::Some(#d.into());));
    }
    let app_mime = model.is_ui().then_some(mcp_core::rules::APP_MIME_TYPE);
    let mime_text = model
        .mime_type
        .as_ref()
        .map(syn::LitStr::value)
        .or(app_mime.map(str::to_owned));
    if let Some(m) = &mime_text {
        config.push(quote!(__r.mime_type = ::core::option::Option::Some(#m.into());));
    }
    if let Some(json) = model.is_ui().then(|| model.ui_json()).flatten() {
        config.push(quote! {
            __r.meta.get_or_insert_with(#p::Meta::new).insert(
                ::std::string::String::from("ui"),
                #p::serde_json::from_str(#json).expect("checked at compile time"),
            );
        });
    }
    config.extend(codegen::tags(p, model.tags.as_ref(), "__r"));
    (config, mime_text)
}

/// A stand-in `ResourceDef` for a resource with errors.
pub fn placeholder(model: &Resource, def_ty: &TokenStream) -> TokenStream {
    let p = model.root.private();
    let name = model.func.ident.to_string();
    let items = quote! {
        const NAME: &'static str = #name;
        const URI: &'static str = "";
        const TEMPLATE: bool = false;
        fn resource() -> ::core::option::Option<&'static #p::Resource> {
            ::core::option::Option::None
        }
        fn template() -> ::core::option::Option<&'static #p::ResourceTemplate> {
            ::core::option::Option::None
        }
    };
    let extra = [
        quote!(::std::string::String),
        quote!(::std::vec::Vec<::std::string::String>),
    ];
    codegen::placeholder(
        &p,
        def_ty,
        Placeholder {
            tr: quote!(#p::ResourceDef),
            items,
            method: "read",
            extra: &extra,
            output: quote!(#p::ReadResourceResult),
            what: "resource",
        },
    )
}
