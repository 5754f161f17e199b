//! A checked [`Tool`] as code: the arguments struct (serde + schemars derives, each field
//! decoded through `__private::Arg` and a marker type per parameter), the per-parameter
//! checks spanned at the user's types, and the `ToolDef` implementation. All of it inside
//! `const _: () = { ... };`.
//!
//! One mistake, one error: a parameter type meets its bound (`ToolArg`) only in its check,
//! and the return type only in `finish_tool`; every other use goes through a probe
//! (`ArgProbe`, `ReturnProbe`) that picks the real implementation when the bound holds and
//! a stand-in that never runs when it does not, so it adds no error of its own.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use super::{ArgOptions, Icons, Tool, rules};
use crate::codegen::{self, Placeholder, Supply, def_impl};
use crate::model::Param;

/// The `…Def` implementation of a checked tool on `def_ty` (`server` for methods).
pub fn codegen(model: &Tool, def_ty: &TokenStream, server: Option<&TokenStream>) -> TokenStream {
    let p = model.root.private();
    let self_fix = |t| codegen::self_as(server, t);
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    let mut call_args = Vec::new();
    let mut checks = Vec::new();
    let mut markers = Vec::new();
    let mut supply = Supply::default();
    for (i, (param, a)) in model.func.params.iter().zip(&model.args).enumerate() {
        if let Some(inj) = &param.injected {
            call_args.push(supply.arg(&p, inj, i, self_fix));
            continue;
        }
        let ident = param.ident().expect("checked: a plain name");
        let ty = self_fix(param.ty.to_token_stream());
        let span = param.ty.span();
        let (attrs, default) = field_attrs(param, a, i);
        let marker = format_ident!("__mcp_arg_{}", i);
        defaults.extend(default.map(|(f, value)| {
            quote!(#[allow(non_snake_case)] fn #f() -> #p::Arg<#marker> { #p::Arg(#value) })
        }));
        markers.push(quote! {
            #[allow(non_camel_case_types, dead_code)]
            struct #marker;
            impl #p::ArgField for #marker {
                type Ty = #ty;
                fn deserialize<'de, D: #p::serde::Deserializer<'de>>(
                    d: D,
                ) -> ::core::result::Result<#ty, D::Error> {
                    #[allow(unused_imports)]
                    use #p::{NotToolArgProbe as _, ToolArgProbe as _};
                    (&#p::ArgProbe::<#ty>::new()).deserialize(d)
                }
                fn schema() -> #p::ArgSchema {
                    #[allow(unused_imports)]
                    use #p::{NotToolArgProbe as _, ToolArgProbe as _};
                    (&#p::ArgProbe::<#ty>::new()).schema()
                }
            }
        });
        fields.push(quote!(#(#attrs)* #ident: #p::Arg<#marker>));
        checks.push(quote_spanned!(span=> #p::assert_tool_arg::<#ty>();));
        call_args.push(quote!(__a.#ident.0));
    }
    let ret = self_fix(
        model
            .func
            .output()
            .map_or(quote!(()), ToTokens::to_token_stream),
    );
    let ret_span = model.func.output_span();
    let (name, _) = model.name();
    let config = config(model, &p);
    let tr = quote!(#p::ToolDef);
    let [head, callee, server_ty, server_use] =
        def_impl(tr, def_ty, &model.func.ident, server, &supply.state_bounds);
    let lets = &supply.lets;
    let finish = quote_spanned!(ret_span=>
        #p::finish_tool::<#ret>(<Self as #p::ToolDef<#server_ty>>::info(), __out));

    let serde_crate = model.root.private_str("serde");
    let schemars_crate = model.root.private_str("schemars");
    quote! {
        const _: () = {
            #[derive(#p::serde::Deserialize, #p::schemars::JsonSchema)]
            #[serde(crate = #serde_crate)]
            #[schemars(crate = #schemars_crate)]
            #[allow(non_camel_case_types, dead_code)]
            struct __McpArgs { #(#fields,)* }
            #(#markers)*
            #(#defaults)*
            #[allow(dead_code)]
            fn __mcp_checks() {
                #(#checks)*
            }
            #head {
                const NAME: &'static str = #name;
                fn info() -> &'static #p::ToolInfo {
                    static INFO: #p::OnceLock<#p::ToolInfo> = #p::OnceLock::new();
                    INFO.get_or_init(|| {
                        #[allow(unused_imports)]
                        use #p::{NotToolReturnProbe as _, ToolReturnProbe as _};
                        (&#p::ReturnProbe::<#ret>::new())
                            .tool_info::<__McpArgs>(#name, |__t| { let _ = &__t; #(#config)* })
                    })
                }
                fn call<'__a>(
                    __server: &'__a #server_ty,
                    __ctx: #p::Context,
                    __args: ::core::option::Option<::std::boxed::Box<#p::RawValue>>,
                ) -> impl ::core::future::Future<
                    Output = ::core::result::Result<#p::CallToolResult, #p::McpError>,
                > + ::core::marker::Send + '__a {
                    #server_use
                    async move {
                        let __a: __McpArgs = match #p::decode_arguments::<__McpArgs>(__args.as_deref()) {
                            ::core::result::Result::Ok(a) => a,
                            ::core::result::Result::Err(bad) => return ::core::result::Result::Ok(bad),
                        };
                        #(#lets)*
                        let __out = #callee(#(#call_args),*).await;
                        #finish
                    }
                }
            }
        };
    }
}

/// The serde/schemars attributes of one argument field, and its default function (name and
/// value) when it has `#[arg(default = ...)]`.
fn field_attrs(
    param: &Param,
    a: &ArgOptions,
    i: usize,
) -> (Vec<TokenStream>, Option<(syn::Ident, TokenStream)>) {
    let mut attrs = Vec::new();
    let description = a.description.as_ref().map(syn::LitStr::value);
    if let Some(d) = description.or_else(|| param.docs.clone()) {
        attrs.push(quote!(#[doc = #d]));
    }
    if let Some(r) = &a.rename {
        attrs.push(quote!(#[serde(rename = #r)]));
    }
    if let Some(h) = &a.header {
        attrs.push(quote!(#[schemars(extend("x-mcp-header" = #h))]));
    }
    let default = a.default.as_ref().map(|d| {
        let f = format_ident!("__mcp_default_{}", i);
        let fname = f.to_string();
        attrs.push(quote!(#[serde(default = #fname)]));
        let value = match d {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(_),
                ..
            }) => quote_spanned!(d.span()=> ::core::convert::From::from(#d)),
            _ => quote_spanned!(d.span()=> #d),
        };
        (f, value)
    });
    (attrs, default)
}

/// The statements that fill in the `Tool` listing (`__t`) from the options.
fn config(model: &Tool, p: &TokenStream) -> Vec<TokenStream> {
    let o = &model.opts;
    let mut config = Vec::new();
    if let Some(t) = &o.title {
        config.push(quote!(__t.title = ::core::option::Option::Some(#t.into());));
    }
    let description = o.description.as_ref().map(syn::LitStr::value);
    if let Some(d) = description.or_else(|| model.func.docs.clone()) {
        config.push(quote!(__t.description = ::core::option::Option::Some(#d.into());));
    }
    if o.hints.iter().any(Option::is_some) {
        let opt = |h: Option<bool>| match h {
            Some(b) => quote!(::core::option::Option::Some(#b)),
            None => quote!(::core::option::Option::None),
        };
        let [r, d, i, w] = o.hints.map(opt);
        config.push(quote! {
            __t.annotations = ::core::option::Option::Some(#p::ToolAnnotations {
                read_only_hint: #r,
                destructive_hint: #d,
                idempotent_hint: #i,
                open_world_hint: #w,
                ..::core::default::Default::default()
            });
        });
    }
    match &o.icons {
        Some(Icons::Sources(_, list)) => config.push(quote! {
            __t.icons = ::core::option::Option::Some(::std::vec![#(#p::Icon {
                src: #list.into(),
                ..::core::default::Default::default()
            }),*]);
        }),
        Some(Icons::Expr(e)) => config.push(quote_spanned! {e.span()=>
            __t.icons = ::core::option::Option::Some(
                ::core::iter::IntoIterator::into_iter(#e).collect::<::std::vec::Vec<#p::Icon>>(),
            );
        }),
        None => {}
    }
    if !o.meta.is_empty() {
        let keys = o.meta.iter().map(|(k, _)| k);
        let values = o
            .meta
            .iter()
            .map(|(_, v)| quote_spanned!(v.span()=> #p::meta_value(&(#v))));
        config.push(quote! {
            let mut __m = #p::Meta::new();
            #(__m.insert(::std::string::String::from(#keys), #values);)*
            __t.meta = ::core::option::Option::Some(__m);
        });
    }
    if let Some(uri) = &o.ui {
        let visibility = ui_visibility(o.visibility.as_ref().map(|(_, l)| l.as_slice()));
        config.push(quote! {
            __t.set_ui(#p::UiToolMeta {
                resource_uri: ::std::string::String::from(#uri),
                visibility: ::std::vec![#(#p::UiVisibility::#visibility),*],
            });
        });
    }
    config.extend(codegen::tags(p, o.tags.as_ref(), "__t"));
    if let Some(task) = &o.task {
        let v = rules::task_variant(&task.value()).unwrap_or("Forbidden");
        let v = syn::Ident::new(v, task.span());
        config.push(quote! {
            __t.execution = ::core::option::Option::Some(#p::ToolExecution {
                task_support: ::core::option::Option::Some(#p::TaskSupport::#v),
            });
        });
    }
    config
}

/// The variants of the tool's `_meta.ui.visibility` (checked words; `model` and `app`
/// unless said otherwise).
fn ui_visibility(visibility: Option<&[syn::LitStr]>) -> Vec<syn::Ident> {
    use mcp_core::rules::UiVisibility;
    let words = match visibility {
        Some(list) => list
            .iter()
            .filter_map(|v| UiVisibility::parse(&v.value()))
            .collect(),
        None => vec![UiVisibility::Model, UiVisibility::App],
    };
    words
        .into_iter()
        .map(|v| match v {
            UiVisibility::Model => format_ident!("Model"),
            UiVisibility::App => format_ident!("App"),
        })
        .collect()
}

/// A stand-in `ToolDef` for a tool with errors.
pub fn placeholder(model: &Tool, def_ty: &TokenStream) -> TokenStream {
    let p = model.root.private();
    let name = model.func.ident.to_string();
    let items = quote! {
        const NAME: &'static str = #name;
        fn info() -> &'static #p::ToolInfo {
            ::core::unimplemented!()
        }
    };
    let args = [quote!(::core::option::Option<::std::boxed::Box<#p::RawValue>>)];
    codegen::placeholder(
        &p,
        def_ty,
        Placeholder {
            tr: quote!(#p::ToolDef),
            items,
            method: "call",
            extra: &args,
            output: quote!(#p::CallToolResult),
            what: "tool",
        },
    )
}
