//! `#[resource("scheme://...")]`: parse → [`ResourceModel`] → checks → a `ResourceDef`
//! implementation. A URI with `{variables}` (RFC 6570 level 1) is a template whose
//! variables bind to the function's parameters by name.

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Type};

use crate::injected::{self, Injected, Supply};
use crate::tool::Kind;
use crate::util::{
    self, Errors, FreeFnAttr, check_fn_shape, check_receiver, def_impl, doc_text, lit_str,
    skip_value, unknown_key, unraw,
};

const RESOURCE_KEYS: &[&str] = &["uri", "name", "title", "description", "mime_type"];

/// The normalised form of one `#[resource]` function or method.
pub struct ResourceModel {
    pub fn_ident: syn::Ident,
    pub name: String,
    pub name_span: Span,
    pub uri: String,
    pub uri_span: Span,
    pub template: bool,
    pub title: Option<syn::LitStr>,
    pub description: Option<String>,
    pub mime_type: Option<syn::LitStr>,
    pub params: Vec<RParam>,
    pub ret: TokenStream,
    pub ret_span: Span,
}

#[allow(clippy::large_enum_variant)]
pub enum RParam {
    Injected(Injected),
    Var { var: usize, name: String, ty: Type },
}

/// The variables of a level-1 template, or the problem with it.
fn template_vars(uri: &str) -> Result<Vec<String>, String> {
    let mut vars: Vec<String> = Vec::new();
    let mut rest = uri;
    loop {
        let open = rest.find('{');
        let close = rest.find('}');
        match (open, close) {
            (None, None) => break,
            (Some(o), Some(c)) if o < c => {
                let var = &rest[o + 1..c];
                if var.is_empty() {
                    return Err("an empty `{}` expression".into());
                }
                if var.contains('{') {
                    return Err("a `{` inside an expression".into());
                }
                if !var.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                    return Err(format!(
                        "the expression `{{{var}}}`: only level-1 `{{name}}` expressions \
                         (letters, digits, `_`) are supported, without operators or modifiers"
                    ));
                }
                if vars.iter().any(|v| v == var) {
                    return Err(format!("the variable `{var}` appears twice"));
                }
                vars.push(var.to_owned());
                rest = &rest[c + 1..];
            }
            _ => return Err("unbalanced `{` / `}`".into()),
        }
    }
    Ok(vars)
}

/// Parses and checks a resource; strips parameter attributes from `sig` in every case.
pub fn parse(
    args: TokenStream,
    attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    kind: Kind,
    errors: &mut Errors,
) -> Option<ResourceModel> {
    let before = errors.len();
    let mut uri: Option<syn::LitStr> = None;
    // A leading string literal is the URI.
    let mut tokens: Vec<TokenTree> = args.into_iter().collect();
    if let Some(TokenTree::Literal(l)) = tokens.first() {
        match syn::parse2::<syn::LitStr>(TokenTree::Literal(l.clone()).into()) {
            Ok(s) => uri = Some(s),
            Err(e) => errors.push(e),
        }
        tokens.remove(0);
        if matches!(tokens.first(), Some(TokenTree::Punct(p)) if p.as_char() == ',') {
            tokens.remove(0);
        }
    }
    let mut name: Option<syn::LitStr> = None;
    let mut title = None;
    let mut description: Option<syn::LitStr> = None;
    let mut mime_type = None;
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "uri" => uri = Some(lit_str(&meta)?),
            "name" => name = Some(lit_str(&meta)?),
            "title" => title = Some(lit_str(&meta)?),
            "description" => description = Some(lit_str(&meta)?),
            "mime_type" => mime_type = Some(lit_str(&meta)?),
            _ => {
                errors.spanned(
                    &meta.path,
                    unknown_key(&key, RESOURCE_KEYS, "`#[resource]`"),
                );
                skip_value(&meta)?;
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, tokens.into_iter().collect()) {
        errors.push(e);
    }
    check_fn_shape(sig, "#[resource]", errors);
    let (uri_s, uri_span) = match &uri {
        Some(u) => (u.value(), u.span()),
        None => {
            errors.at(
                Span::call_site(),
                "a resource needs its URI: `#[resource(\"scheme://path\")]`, or a template \
                 such as `#[resource(\"books://{id}\")]`",
            );
            (String::new(), Span::call_site())
        }
    };
    let mut template_ok = true;
    let vars = match template_vars(&uri_s) {
        Ok(v) => v,
        Err(problem) => {
            template_ok = false;
            errors.at(
                uri_span,
                format!("invalid URI template `{uri_s}`: {problem}"),
            );
            Vec::new()
        }
    };
    if uri.is_some() && uri_s.is_empty() {
        errors.at(uri_span, "the resource URI cannot be empty");
    }

    let mut params = Vec::new();
    let mut bound = vec![false; vars.len()];
    let mut seen_self = false;
    let mut seen = injected::Seen::default();
    let var_list = vars
        .iter()
        .map(|v| format!("`{v}`"))
        .collect::<Vec<_>>()
        .join(", ");
    for input in sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(r) => {
                r.attrs.clear();
                seen_self = true;
                check_receiver(r, kind == Kind::Method, "#[resource]", errors);
            }
            FnArg::Typed(pt) => {
                let (arg_attrs, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut pt.attrs)
                    .into_iter()
                    .partition(|a| a.path().is_ident("arg") || a.path().is_ident("doc"));
                pt.attrs = rest;
                if let Some(inj) = injected::take(pt, &arg_attrs, "resource", &mut seen, errors) {
                    params.push(RParam::Injected(inj));
                    continue;
                }
                let Some(ident) = util::plain_param_name(
                    &pt.pat,
                    "a resource parameter needs a plain name: it binds the URI \
                             template variable of that name",
                    errors,
                ) else {
                    continue;
                };
                let n = unraw(&ident);
                if let Type::Reference(r) = &*pt.ty {
                    errors.spanned(
                        r,
                        "a resource parameter must be owned (it is parsed from the URI with \
                         `FromStr`): use `String` instead of `&str`",
                    );
                    continue;
                }
                match vars.iter().position(|v| *v == n) {
                    // An invalid template was reported; binding against it would mislead.
                    None if !template_ok || uri.is_none() => {}
                    Some(i) => {
                        bound[i] = true;
                        params.push(RParam::Var {
                            var: i,
                            name: n,
                            ty: (*pt.ty).clone(),
                        });
                    }
                    None if vars.is_empty() => errors.spanned(
                        &ident,
                        format!(
                            "the parameter `{n}` is not a variable of the URI `{uri_s}`, which \
                             has none: write the URI as a template (`{{{n}}}`) or remove the \
                             parameter"
                        ),
                    ),
                    None => errors.spanned(
                        &ident,
                        format!(
                            "the parameter `{n}` is not a variable of the URI template \
                             `{uri_s}` (its variables: {var_list}); parameters bind to \
                             variables by name"
                        ),
                    ),
                }
            }
        }
    }
    for (v, b) in vars.iter().zip(&bound) {
        if !b {
            errors.at(
                uri_span,
                format!(
                    "the URI template variable `{{{v}}}` has no parameter: add `{v}: String` \
                     (or any `FromStr` type) to the function"
                ),
            );
        }
    }
    let without_self = kind == Kind::Method && !seen_self;
    util::check_method_has_self(sig, without_self, "resource", "resources", errors);
    let (name, name_span) = util::handler_name(name.as_ref(), sig);
    if name.is_empty() {
        errors.at(name_span, "a resource name cannot be empty");
    }
    let (ret, ret_span) = util::return_type(sig, "resource", "", errors);
    if errors.len() > before {
        return None;
    }
    Some(ResourceModel {
        fn_ident: sig.ident.clone(),
        name,
        name_span,
        template: !vars.is_empty(),
        uri: uri_s,
        uri_span,
        title,
        description: description.map(|d| d.value()).or_else(|| doc_text(attrs)),
        mime_type,
        params,
        ret,
        ret_span,
    })
}

/// The `ResourceDef` implementation for `model`, on `def_ty` (`server` for methods).
pub fn expand(
    model: &ResourceModel,
    def_ty: &TokenStream,
    server: Option<&TokenStream>,
) -> TokenStream {
    let p = quote!(::mcp::__private);
    let self_fix = |t| util::self_as(server, t);
    let mut takes = Vec::new();
    let mut call_args = Vec::new();
    let mut supply = Supply::default();
    for (i, param) in model.params.iter().enumerate() {
        match param {
            RParam::Injected(inj) => call_args.push(supply.arg(inj, i, self_fix)),
            RParam::Var { var, name, ty } => {
                let v = format_ident!("__var{}", i);
                let ty = self_fix(ty.to_token_stream());
                takes.push(quote_spanned! {ty.span()=>
                    let #v: #ty = #p::parse_var::<#ty>(&__vars[#var], #name)?;
                });
                call_args.push(quote!(#v));
            }
        }
    }
    let name = &model.name;
    let uri = &model.uri;
    let template = model.template;
    let mut config = Vec::new();
    if let Some(t) = &model.title {
        config.push(quote!(__r.title = ::core::option::Option::Some(#t.into());));
    }
    if let Some(d) = &model.description {
        config.push(quote!(__r.description = ::core::option::Option::Some(#d.into());));
    }
    if let Some(m) = &model.mime_type {
        config.push(quote!(__r.mime_type = ::core::option::Option::Some(#m.into());));
    }
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
    let mime = match &model.mime_type {
        Some(m) => quote!(::core::option::Option::Some(#m)),
        None => quote!(::core::option::Option::None),
    };
    let ret = self_fix(model.ret.clone());
    let tr = quote!(#p::ResourceDef);
    let [head, callee, server_ty, server_use] =
        def_impl(tr, def_ty, &model.fn_ident, server, &supply.state_bounds);
    let lets = &supply.lets;
    let finish = quote_spanned!(model.ret_span=>
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

/// A stand-in `ResourceDef` for a resource with errors.
pub fn placeholder(def_ty: &TokenStream, name: &str) -> TokenStream {
    let p = quote!(::mcp::__private);
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
    util::placeholder(
        quote!(#p::ResourceDef),
        def_ty,
        items,
        "read",
        &[
            quote!(::std::string::String),
            quote!(::std::vec::Vec<::std::string::String>),
        ],
        quote!(#p::ReadResourceResult),
        "resource",
    )
}

/// `#[mcp::resource("...")]` on a free function.
pub fn resource_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    util::free_fn_attr(
        &FreeFnAttr {
            name: "resource",
            written: "#[mcp::resource(\"...\")]",
            parse: |args, attrs, sig, errors| parse(args, attrs, sig, Kind::Free, errors),
            expand: |m, def_ty| expand(m, def_ty, None),
            placeholder,
        },
        args,
        item,
    )
}
