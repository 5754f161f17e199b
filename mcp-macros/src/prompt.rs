//! `#[prompt]`: parse → [`PromptModel`] → checks → a `PromptDef` implementation.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::FnArg;

use crate::injected::{self, Injected, Supply};
use crate::tool::Kind;
use crate::util::{
    self, Errors, FreeFnAttr, check_fn_shape, check_receiver, def_impl, doc_text, is_string,
    lit_str, option_inner, skip_value, unknown_key, unraw,
};

const PROMPT_KEYS: &[&str] = &["name", "title", "description"];
const ARG_KEYS: &[&str] = &["rename", "description"];

/// The normalised form of one `#[prompt]` function or method.
pub struct PromptModel {
    pub fn_ident: syn::Ident,
    pub name: String,
    pub name_span: Span,
    pub title: Option<syn::LitStr>,
    pub description: Option<String>,
    pub params: Vec<PParam>,
    pub ret: TokenStream,
    pub ret_span: Span,
}

#[allow(clippy::large_enum_variant)]
pub enum PParam {
    Injected(Injected),
    Arg {
        name: String,
        required: bool,
        description: Option<String>,
    },
}

/// Parses and checks a prompt; strips parameter attributes from `sig` in every case.
pub fn parse(
    args: TokenStream,
    attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    kind: Kind,
    errors: &mut Errors,
) -> Option<PromptModel> {
    let before = errors.len();
    let mut name: Option<syn::LitStr> = None;
    let mut title = None;
    let mut description: Option<syn::LitStr> = None;
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "name" => name = Some(lit_str(&meta)?),
            "title" => title = Some(lit_str(&meta)?),
            "description" => description = Some(lit_str(&meta)?),
            _ => {
                errors.spanned(&meta.path, unknown_key(&key, PROMPT_KEYS, "`#[prompt]`"));
                skip_value(&meta)?;
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        errors.push(e);
    }
    check_fn_shape(sig, "#[prompt]", errors);

    let mut params = Vec::new();
    let mut seen_self = false;
    let mut seen = injected::Seen::default();
    let mut names: Vec<String> = Vec::new();
    for input in sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(r) => {
                r.attrs.clear();
                seen_self = true;
                check_receiver(r, kind == Kind::Method, "#[prompt]", errors);
            }
            FnArg::Typed(pt) => {
                let (arg_attrs, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut pt.attrs)
                    .into_iter()
                    .partition(|a| a.path().is_ident("arg") || a.path().is_ident("doc"));
                pt.attrs = rest;
                if let Some(inj) = injected::take(pt, &arg_attrs, "prompt", &mut seen, errors) {
                    params.push(PParam::Injected(inj));
                    continue;
                }
                let Some(ident) = util::plain_param_name(
                    &pt.pat,
                    "a prompt parameter needs a plain name: it is the argument's name",
                    errors,
                ) else {
                    continue;
                };
                let required = if is_string(&pt.ty) {
                    true
                } else if option_inner(&pt.ty).is_some_and(is_string) {
                    false
                } else {
                    errors.spanned(
                        &pt.ty,
                        format!(
                            "prompt arguments are strings: declare `{ident}` as `String` \
                             (required) or `Option<String>` (optional), and parse it in the \
                             function; `{}` is not supported",
                            pt.ty.to_token_stream().to_string().replace(' ', "")
                        ),
                    );
                    continue;
                };
                let mut arg_name = unraw(&ident);
                let mut desc = doc_text(&arg_attrs);
                for a in arg_attrs.iter().filter(|a| a.path().is_ident("arg")) {
                    let res = a.parse_nested_meta(|meta| {
                        let key = meta
                            .path
                            .get_ident()
                            .map(ToString::to_string)
                            .unwrap_or_default();
                        match key.as_str() {
                            "rename" => arg_name = lit_str(&meta)?.value(),
                            "description" => desc = Some(lit_str(&meta)?.value()),
                            _ => {
                                errors.spanned(
                                    &meta.path,
                                    unknown_key(&key, ARG_KEYS, "prompt `#[arg]`"),
                                );
                                skip_value(&meta)?;
                            }
                        }
                        Ok(())
                    });
                    if let Err(e) = res {
                        errors.push(e);
                    }
                }
                if names.contains(&arg_name) {
                    errors.spanned(
                        &ident,
                        format!("two arguments of this prompt are named `{arg_name}`"),
                    );
                }
                names.push(arg_name.clone());
                params.push(PParam::Arg {
                    name: arg_name,
                    required,
                    description: desc,
                });
            }
        }
    }
    let without_self = kind == Kind::Method && !seen_self;
    util::check_method_has_self(sig, without_self, "prompt", "prompts", errors);
    let (name, name_span) = util::handler_name(name.as_ref(), sig);
    if name.is_empty() {
        errors.at(name_span, "a prompt name cannot be empty");
    }
    let (ret, ret_span) = util::return_type(sig, "prompt", "", errors);
    if errors.len() > before {
        return None;
    }
    Some(PromptModel {
        fn_ident: sig.ident.clone(),
        name,
        name_span,
        title,
        description: description.map(|d| d.value()).or_else(|| doc_text(attrs)),
        params,
        ret,
        ret_span,
    })
}

/// The `PromptDef` implementation for `model`, on `def_ty` (`server` for methods).
pub fn expand(
    model: &PromptModel,
    def_ty: &TokenStream,
    server: Option<&TokenStream>,
) -> TokenStream {
    let p = quote!(::mcp::__private);
    let mut entries = Vec::new();
    let mut takes = Vec::new();
    let mut call_args = Vec::new();
    let self_fix = |t| util::self_as(server, t);
    let mut supply = Supply::default();
    for (i, param) in model.params.iter().enumerate() {
        match param {
            PParam::Injected(inj) => call_args.push(supply.arg(inj, i, self_fix)),
            PParam::Arg {
                name,
                required,
                description,
            } => {
                let v = quote::format_ident!("__arg{}", i);
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
                if *required {
                    takes.push(quote!(let #v = #p::required_arg(&mut __args, #name)?;));
                } else {
                    takes.push(quote!(let #v = #p::optional_arg(&mut __args, #name);));
                }
                call_args.push(quote!(#v));
            }
        }
    }
    let name = &model.name;
    let arg_names = model.params.iter().filter_map(|p| match p {
        PParam::Arg { name, .. } => Some(name),
        PParam::Injected(_) => None,
    });
    let mut config = Vec::new();
    if let Some(t) = &model.title {
        config.push(quote!(__p.title = ::core::option::Option::Some(#t.into());));
    }
    if let Some(d) = &model.description {
        config.push(quote!(__p.description = ::core::option::Option::Some(#d.into());));
    }
    if !entries.is_empty() {
        config.push(
            quote!(__p.arguments = ::core::option::Option::Some(::std::vec![#(#entries),*]);),
        );
    }
    let ret = self_fix(model.ret.clone());
    let tr = quote!(#p::PromptDef);
    let [head, callee, server_ty, server_use] =
        def_impl(tr, def_ty, &model.fn_ident, server, &supply.state_bounds);
    let lets = &supply.lets;
    let finish =
        quote_spanned!(model.ret_span=> <#ret as #p::IntoPromptResult>::into_prompt_result(__out));
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
pub fn placeholder(def_ty: &TokenStream, name: &str) -> TokenStream {
    let p = quote!(::mcp::__private);
    let items = quote! {
        const NAME: &'static str = #name;
        const ARGUMENTS: &'static [&'static str] = &[];
        fn prompt() -> &'static #p::Prompt {
            ::core::unimplemented!()
        }
    };
    let args = quote!(#p::HashMap<::std::string::String, ::std::string::String>);
    util::placeholder(
        quote!(#p::PromptDef),
        def_ty,
        items,
        "get",
        &[args],
        quote!(#p::GetPromptResult),
        "prompt",
    )
}

/// `#[mcp::prompt]` on a free function.
pub fn prompt_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    util::free_fn_attr(
        &FreeFnAttr {
            name: "prompt",
            written: "#[mcp::prompt]",
            parse: |args, attrs, sig, errors| parse(args, attrs, sig, Kind::Free, errors),
            expand: |m, def_ty| expand(m, def_ty, None),
            placeholder,
        },
        args,
        item,
    )
}
