//! The `ServerHandler` methods for prompts, resources and completions: the lists built
//! once, lookup by name (or URI, or completion target), and the compile-time checks that
//! names are unique and that each completion's prompt or template is on this server.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};

use crate::codegen::respan;

/// A handler type (a method's hidden type or a listed path) and where to report it.
pub type Listed = (TokenStream, proc_macro2::Span);

/// `prompts()` / `get_prompt()` over the prompt types (nothing when there are none).
pub fn prompts(p: &TokenStream, ty: &TokenStream, prompts: &[Listed]) -> TokenStream {
    if prompts.is_empty() {
        return TokenStream::new();
    }
    let defs_of: Vec<TokenStream> = prompts
        .iter()
        .map(|(t, span)| respan(quote!(<#t as #p::PromptDef<#ty>>), *span))
        .collect();
    let idx: Vec<usize> = (0..prompts.len()).collect();
    let unique = prompts.iter().enumerate().map(|(i, (_, span))| {
        quote_spanned! {*span=>
            const _: () = ::core::assert!(
                !#p::name_taken(__NAMES, #i),
                "two prompts of this server have the same name; rename one with #[prompt(name = \"...\")]"
            );
        }
    });
    quote! {
        fn prompts(&self) -> &[#p::Prompt] {
            const __NAMES: &[&str] = &[#(#defs_of::NAME),*];
            #(#unique)*
            static PROMPTS: #p::OnceLock<::std::vec::Vec<#p::Prompt>> = #p::OnceLock::new();
            PROMPTS.get_or_init(|| ::std::vec![#(#defs_of::prompt().clone()),*])
        }
        fn get_prompt(
            &self,
            name: &str,
            ctx: #p::Context,
            arguments: #p::HashMap<::std::string::String, ::std::string::String>,
        ) -> ::core::option::Option<
            impl ::core::future::Future<
                Output = ::core::result::Result<#p::GetPromptResult, #p::McpError>,
            > + ::core::marker::Send + '_,
        > {
            let __idx: usize = #(if name == #defs_of::NAME { #idx } else)* {
                return ::core::option::Option::None;
            };
            ::core::option::Option::Some(async move {
                match __idx {
                    #(#idx => #defs_of::get(self, ctx, arguments).await,)*
                    _ => ::core::unreachable!(),
                }
            })
        }
    }
}

/// `resources()` / `resource_templates()` / `read_resource()` over the resource types:
/// concrete URIs match exactly first, then templates in order.
pub fn resources(p: &TokenStream, ty: &TokenStream, resources: &[Listed]) -> TokenStream {
    if resources.is_empty() {
        return TokenStream::new();
    }
    let defs_of: Vec<TokenStream> = resources
        .iter()
        .map(|(t, span)| respan(quote!(<#t as #p::ResourceDef<#ty>>), *span))
        .collect();
    let idx: Vec<usize> = (0..resources.len()).collect();
    let unique = resources.iter().enumerate().map(|(i, (_, span))| {
        quote_spanned! {*span=>
            const _: () = ::core::assert!(
                !#p::name_taken(__NAMES, #i),
                "two resources of this server have the same name; rename one with #[resource(\"...\", name = \"...\")]"
            );
            const _: () = ::core::assert!(
                !#p::name_taken(__URIS, #i),
                "two resources of this server have the same URI or URI template"
            );
        }
    });
    quote! {
        fn resources(&self) -> &[#p::Resource] {
            const __NAMES: &[&str] = &[#(#defs_of::NAME),*];
            const __URIS: &[&str] = &[#(#defs_of::URI),*];
            #(#unique)*
            static LIST: #p::OnceLock<::std::vec::Vec<#p::Resource>> = #p::OnceLock::new();
            LIST.get_or_init(|| {
                let mut __v = ::std::vec::Vec::new();
                #(if let ::core::option::Option::Some(r) = #defs_of::resource() { __v.push(r.clone()); })*
                __v
            })
        }
        fn resource_templates(&self) -> &[#p::ResourceTemplate] {
            static LIST: #p::OnceLock<::std::vec::Vec<#p::ResourceTemplate>> = #p::OnceLock::new();
            LIST.get_or_init(|| {
                let mut __v = ::std::vec::Vec::new();
                #(if let ::core::option::Option::Some(r) = #defs_of::template() { __v.push(r.clone()); })*
                __v
            })
        }
        fn read_resource(
            &self,
            uri: &str,
            ctx: #p::Context,
        ) -> ::core::option::Option<
            impl ::core::future::Future<
                Output = ::core::result::Result<#p::ReadResourceResult, #p::McpError>,
            > + ::core::marker::Send + '_,
        > {
            let mut __found: ::core::option::Option<(usize, ::std::vec::Vec<::std::string::String>)> =
                ::core::option::Option::None;
            #(
                if __found.is_none() && !#defs_of::TEMPLATE && uri == #defs_of::URI {
                    __found = ::core::option::Option::Some((#idx, ::std::vec::Vec::new()));
                }
            )*
            #(
                if __found.is_none() && #defs_of::TEMPLATE {
                    if let ::core::option::Option::Some(v) = #p::match_template(#defs_of::URI, uri) {
                        __found = ::core::option::Option::Some((#idx, v));
                    }
                }
            )*
            let (__idx, __vars) = __found?;
            let __uri = ::std::string::ToString::to_string(uri);
            ::core::option::Option::Some(async move {
                match __idx {
                    #(#idx => #defs_of::read(self, ctx, __uri, __vars).await,)*
                    _ => ::core::unreachable!(),
                }
            })
        }
    }
}

/// `has_completions()` / `complete()` over the completion types, and the compile-time check
/// that each one's prompt (with that argument) or template is on this server.
pub fn completions(
    p: &TokenStream,
    ty: &TokenStream,
    completions: &[Listed],
    prompts: &[Listed],
    resources: &[Listed],
) -> TokenStream {
    if completions.is_empty() {
        return TokenStream::new();
    }
    let defs_of: Vec<TokenStream> = completions
        .iter()
        .map(|(t, span)| respan(quote!(<#t as #p::CompletionDef<#ty>>), *span))
        .collect();
    let prompt_defs: Vec<TokenStream> = prompts
        .iter()
        .map(|(t, span)| respan(quote!(<#t as #p::PromptDef<#ty>>), *span))
        .collect();
    let resource_defs: Vec<TokenStream> = resources
        .iter()
        .map(|(t, span)| respan(quote!(<#t as #p::ResourceDef<#ty>>), *span))
        .collect();
    let idx: Vec<usize> = (0..completions.len()).collect();
    let checks = defs_of.iter().zip(completions).map(|(d, (_, span))| {
        quote_spanned! {*span=>
            const _: () = ::core::assert!(
                match #d::KIND {
                    #p::RefKind::Prompt => #p::prompt_has_argument(__PROMPT_NAMES, __PROMPT_ARGS, #d::REF, #d::ARGUMENT),
                    #p::RefKind::Resource => #p::has_template(__TEMPLATES, #d::REF),
                },
                "this completion is for a prompt argument or a resource template this server does not have: check its `prompt`/`resource` and `argument` against the server's prompts and resources"
            );
        }
    });
    quote! {
        fn has_completions(&self) -> bool {
            const __PROMPT_NAMES: &[&str] = &[#(#prompt_defs::NAME),*];
            const __PROMPT_ARGS: &[&[&str]] = &[#(#prompt_defs::ARGUMENTS),*];
            const __TEMPLATES: &[(&str, bool)] = &[#((#resource_defs::URI, #resource_defs::TEMPLATE)),*];
            #(#checks)*
            true
        }
        fn complete(
            &self,
            ctx: #p::Context,
            params: #p::CompleteParams,
        ) -> ::core::option::Option<
            impl ::core::future::Future<
                Output = ::core::result::Result<#p::Completion, #p::McpError>,
            > + ::core::marker::Send + '_,
        > {
            let (__kind, __ref, __arg) = #p::target(&params);
            let __idx: usize = #(
                if __kind == #defs_of::KIND && __ref == #defs_of::REF && __arg == #defs_of::ARGUMENT {
                    #idx
                } else
            )* {
                return ::core::option::Option::None;
            };
            let (__value, __resolved) = #p::split_params(params);
            ::core::option::Option::Some(async move {
                match __idx {
                    #(#idx => #defs_of::complete(self, ctx, __value, __resolved).await,)*
                    _ => ::core::unreachable!(),
                }
            })
        }
    }
}
