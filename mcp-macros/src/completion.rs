//! `#[completion(prompt = "...", argument = "...")]` / `#[completion(resource = "...",
//! argument = "...")]`: parse → [`CompletionModel`] → checks → a `CompletionDef`
//! implementation.
//!
//! The function takes the partial value as one `String` parameter, and may take the
//! context and the already-resolved arguments (`ResolvedArguments`), each recognised by
//! type. Whether the prompt (with that argument) or template exists is checked by
//! `#[mcp::server]`, which sees all of them.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{FnArg, Type};

use crate::injected::context_type;
use crate::tool::Kind;
use crate::util::{
    self, Errors, FreeFnAttr, check_fn_shape, check_receiver, def_impl, is_string, lit_str,
    skip_value, unknown_key,
};

const COMPLETION_KEYS: &[&str] = &["prompt", "resource", "argument"];

/// What is completed.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Prompt,
    Resource,
}

/// The normalised form of one `#[completion]` function or method.
pub struct CompletionModel {
    pub fn_ident: syn::Ident,
    pub target: Target,
    /// The prompt's name or the URI template.
    pub reference: syn::LitStr,
    pub argument: syn::LitStr,
    pub params: Vec<CParam>,
    pub ret: TokenStream,
    pub ret_span: Span,
}

pub enum CParam {
    Context { by_ref: bool },
    Value,
    Resolved { by_ref: bool },
}

/// Parses and checks a completion; strips parameter attributes from `sig` in every case.
pub fn parse(
    args: TokenStream,
    sig: &mut syn::Signature,
    kind: Kind,
    errors: &mut Errors,
) -> Option<CompletionModel> {
    let before = errors.len();
    let mut prompt: Option<syn::LitStr> = None;
    let mut resource: Option<syn::LitStr> = None;
    let mut argument: Option<syn::LitStr> = None;
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "prompt" => prompt = Some(lit_str(&meta)?),
            "resource" => resource = Some(lit_str(&meta)?),
            "argument" => argument = Some(lit_str(&meta)?),
            _ => {
                errors.spanned(
                    &meta.path,
                    unknown_key(&key, COMPLETION_KEYS, "`#[completion]`"),
                );
                skip_value(&meta)?;
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        errors.push(e);
    }
    let target = match (&prompt, &resource) {
        (Some(_), Some(r)) => {
            errors.spanned(
                r,
                "a completion is for a prompt or for a resource template, not both: write \
                 two `#[completion]` functions",
            );
            None
        }
        (Some(p), None) => Some((Target::Prompt, p.clone())),
        (None, Some(r)) => Some((Target::Resource, r.clone())),
        (None, None) => {
            errors.spanned(
                &sig.ident,
                "say what this completes: `#[completion(prompt = \"name\", argument = \"arg\")]` \
                 or `#[completion(resource = \"scheme://{var}\", argument = \"var\")]`",
            );
            None
        }
    };
    if argument.is_none() && target.is_some() {
        errors.spanned(
            &sig.ident,
            "name the argument this completes: add `argument = \"...\"`",
        );
    }
    if let (Some((Target::Resource, uri)), Some(arg)) = (&target, &argument) {
        let vars = template_variables(&uri.value());
        if vars.is_empty() {
            errors.spanned(
                uri,
                format!(
                    "`{}` has no `{{variables}}`: only resource templates have arguments to \
                     complete",
                    uri.value()
                ),
            );
        } else if !vars.contains(&arg.value()) {
            errors.spanned(
                arg,
                format!(
                    "the template `{}` has no variable `{}` (its variables: {})",
                    uri.value(),
                    arg.value(),
                    vars.iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
    if let (Some((Target::Prompt, name)), _) = (&target, &argument)
        && name.value().is_empty()
    {
        errors.spanned(name, "the prompt name cannot be empty");
    }
    check_fn_shape(sig, "#[completion]", errors);

    let mut params = Vec::new();
    let mut seen_self = false;
    let mut seen: [Option<Span>; 3] = [None; 3];
    for input in sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(r) => {
                r.attrs.clear();
                seen_self = true;
                check_receiver(r, kind == Kind::Method, "#[completion]", errors);
            }
            FnArg::Typed(pt) => {
                pt.attrs.retain(|a| !a.path().is_ident("doc"));
                let (slot, param, what) = if let Some(by_ref) = context_type(&pt.ty, errors) {
                    (0, CParam::Context { by_ref }, "context parameter")
                } else if let Some(by_ref) = resolved_type(&pt.ty) {
                    (
                        2,
                        CParam::Resolved { by_ref },
                        "`ResolvedArguments` parameter",
                    )
                } else if is_string(&pt.ty) {
                    (1, CParam::Value, "`String` parameter (the partial value)")
                } else {
                    errors.spanned(
                        &pt.ty,
                        format!(
                            "a completion function takes the partial value as one `String`, \
                             and optionally `Context` and `ResolvedArguments` (the arguments \
                             already filled in); `{}` is none of these",
                            pt.ty.to_token_stream().to_string().replace(' ', "")
                        ),
                    );
                    continue;
                };
                if let Some(first) = seen[slot] {
                    let mut e = syn::Error::new_spanned(
                        &pt.ty,
                        format!("a completion takes at most one {what}"),
                    );
                    e.combine(syn::Error::new(first, "the first one is here"));
                    errors.push(e);
                }
                seen[slot] = Some(pt.ty.span());
                params.push(param);
            }
        }
    }
    let without_self = kind == Kind::Method && !seen_self;
    util::check_method_has_self(sig, without_self, "completion", "completions", errors);
    let (ret, ret_span) = util::return_type(sig, "completion", "", errors);
    if errors.len() > before {
        return None;
    }
    let (target, reference) = target?;
    Some(CompletionModel {
        fn_ident: sig.ident.clone(),
        target,
        reference,
        argument: argument?,
        params,
        ret,
        ret_span,
    })
}

/// `Some(by_ref)` when `ty` is (a path ending in) `ResolvedArguments`, or a reference to it.
fn resolved_type(ty: &Type) -> Option<bool> {
    let is = |t: &Type| {
        matches!(t, Type::Path(p) if p.qself.is_none()
            && p.path.segments.last().is_some_and(|s| s.ident == "ResolvedArguments" && s.arguments.is_none()))
    };
    match ty {
        Type::Reference(r) if is(&r.elem) => Some(true),
        t if is(t) => Some(false),
        _ => None,
    }
}

/// The `{variables}` of a URI template, in order.
fn template_variables(uri: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = uri;
    while let Some(i) = rest.find('{') {
        let Some(j) = rest[i..].find('}') else { break };
        out.push(rest[i + 1..i + j].to_owned());
        rest = &rest[i + j + 1..];
    }
    out
}

/// The `CompletionDef` implementation for `model`, on `def_ty` (`server` for methods).
pub fn expand(
    model: &CompletionModel,
    def_ty: &TokenStream,
    server: Option<&TokenStream>,
) -> TokenStream {
    let p = quote!(::mcp::__private);
    let call_args: Vec<TokenStream> = model
        .params
        .iter()
        .map(|param| match param {
            CParam::Context { by_ref: true } => quote!(&__ctx),
            CParam::Context { by_ref: false } => quote!(__ctx),
            CParam::Value => quote!(__value),
            CParam::Resolved { by_ref: true } => quote!(&__resolved),
            CParam::Resolved { by_ref: false } => quote!(__resolved),
        })
        .collect();
    let kind = match model.target {
        Target::Prompt => quote!(#p::RefKind::Prompt),
        Target::Resource => quote!(#p::RefKind::Resource),
    };
    let reference = &model.reference;
    let argument = &model.argument;
    let ret = util::self_as(server, model.ret.clone());
    let tr = quote!(#p::CompletionDef);
    let [head, callee, server_ty, server_use] = def_impl(tr, def_ty, &model.fn_ident, server, &[]);
    let finish =
        quote_spanned!(model.ret_span=> <#ret as #p::IntoCompletion>::into_completion(__out));
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
pub fn placeholder(def_ty: &TokenStream, _name: &str) -> TokenStream {
    let p = quote!(::mcp::__private);
    let items = quote! {
        const KIND: #p::RefKind = #p::RefKind::Prompt;
        const REF: &'static str = "";
        const ARGUMENT: &'static str = "";
    };
    util::placeholder(
        quote!(#p::CompletionDef),
        def_ty,
        items,
        "complete",
        &[quote!(::std::string::String), quote!(#p::ResolvedArguments)],
        quote!(#p::Completion),
        "completion",
    )
}

/// `#[mcp::completion]` on a free function.
pub fn completion_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    util::free_fn_attr(
        &FreeFnAttr {
            name: "completion",
            written: "#[mcp::completion]",
            parse: |args, _attrs, sig, errors| parse(args, sig, Kind::Free, errors),
            expand: |m, def_ty| expand(m, def_ty, None),
            placeholder,
        },
        args,
        item,
    )
}
