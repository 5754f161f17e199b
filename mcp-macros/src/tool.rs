//! `#[tool]`: parse → [`ToolModel`] → checks → a `ToolDef` implementation.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::meta::ParseNestedMeta;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::{FnArg, Type};

use crate::injected::{self, Injected, Supply};
use crate::util::{
    self, Errors, FreeFnAttr, RESERVED, def_impl, doc_text, flag, lit_str, reserved_message,
    skip_value, unknown_key, unraw,
};

const TOOL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "read_only",
    "destructive",
    "idempotent",
    "open_world",
    "icons",
    "meta",
    "task",
];
const ARG_KEYS: &[&str] = &["rename", "default", "description", "header"];

/// The normalised form of one `#[tool]` function or method.
pub struct ToolModel {
    pub fn_ident: syn::Ident,
    pub name: String,
    pub name_span: Span,
    pub title: Option<syn::LitStr>,
    pub description: Option<String>,
    pub hints: [Option<bool>; 4],
    pub icons: Option<Icons>,
    pub meta: Vec<(syn::LitStr, syn::Expr)>,
    /// `task = "optional" | "required" | "forbidden"`: `execution.taskSupport`.
    pub task: Option<syn::Ident>,
    pub params: Vec<Param>,
    pub ret: TokenStream,
    pub ret_span: Span,
}

#[allow(clippy::large_enum_variant)]
pub enum Param {
    Injected(Injected),
    Arg(Arg),
}

/// `icons(...)`: literal sources, or an expression giving the `Vec<Icon>`.
pub enum Icons {
    Sources(Vec<syn::LitStr>),
    Expr(syn::Expr),
}

pub struct Arg {
    pub ident: syn::Ident,
    pub ty: Type,
    pub rename: Option<syn::LitStr>,
    pub default: Option<syn::Expr>,
    pub description: Option<String>,
    /// `#[arg(header = "Name")]`: the 2026 `x-mcp-header` annotation.
    pub header: Option<syn::LitStr>,
}

/// Whether the function is a free function or a method taking `&self`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Free,
    Method,
}

/// The option tokens of `#[tool(...)]` (empty for `#[tool]`).
pub fn attr_args(attr: &syn::Attribute) -> TokenStream {
    match &attr.meta {
        syn::Meta::List(l) => l.tokens.clone(),
        _ => TokenStream::new(),
    }
}

/// Parses and checks a tool; strips the parameter attributes (`#[arg]`, docs) from `sig`
/// in every case, so the function itself still compiles when there are errors.
pub fn parse(
    args: TokenStream,
    attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    kind: Kind,
    errors: &mut Errors,
) -> Option<ToolModel> {
    let before = errors.len();
    let mut name: Option<syn::LitStr> = None;
    let mut title = None;
    let mut description: Option<syn::LitStr> = None;
    let mut hints = [None; 4];
    let mut icons = None;
    let mut meta_entries = Vec::new();
    let mut task = None;
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
            "read_only" => hints[0] = Some(flag(&meta)?),
            "destructive" => hints[1] = Some(flag(&meta)?),
            "idempotent" => hints[2] = Some(flag(&meta)?),
            "open_world" => hints[3] = Some(flag(&meta)?),
            "icons" => icons = Some(parse_icons(&meta, errors)?),
            "meta" => meta_entries = parse_meta(&meta, errors)?,
            "task" => task = Some(task_support(&meta, errors)?),
            "output_schema" => {
                errors.spanned(
                    &meta.path,
                    format!("`{key}` is not supported by `#[tool]` yet"),
                );
                skip_value(&meta)?;
            }
            _ => {
                errors.spanned(&meta.path, unknown_key(&key, TOOL_KEYS, "`#[tool]`"));
                skip_value(&meta)?;
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        errors.push(e);
    }

    // The function's shape.
    if sig.asyncness.is_none() {
        errors.spanned(
            sig.fn_token,
            "a `#[tool]` function must be `async`: write `async fn`",
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.spanned(
            &sig.generics,
            "a `#[tool]` function cannot be generic: the server needs one concrete argument \
             schema per tool; use concrete types",
        );
    }
    if let Some(c) = &sig.constness {
        errors.spanned(c, "a `#[tool]` function cannot be `const`");
    }
    if let Some(u) = &sig.unsafety {
        errors.spanned(u, "a `#[tool]` function cannot be `unsafe`");
    }
    if let Some(v) = &sig.variadic {
        errors.spanned(v, "a `#[tool]` function cannot be variadic");
    }

    let mut params = Vec::new();
    let mut seen = injected::Seen::default();
    let mut seen_self = false;
    for input in sig.inputs.iter_mut() {
        match input {
            FnArg::Receiver(r) => {
                r.attrs.clear();
                seen_self = true;
                if kind == Kind::Free {
                    errors.spanned(
                        &*r,
                        "a `#[tool]` method must be inside a `#[mcp::server] impl` block; \
                         add `#[mcp::server]` to the impl",
                    );
                } else if r.reference.is_none() || r.mutability.is_some() || r.colon_token.is_some()
                {
                    errors.spanned(
                        &*r,
                        "a tool method takes `&self`: tools of one server may run concurrently, \
                         so `self`, `&mut self` and other receivers are not supported; \
                         use interior mutability (a `Mutex`) for state",
                    );
                }
            }
            FnArg::Typed(pt) => {
                let (arg_attrs, rest): (Vec<_>, Vec<_>) = std::mem::take(&mut pt.attrs)
                    .into_iter()
                    .partition(|a| a.path().is_ident("arg") || a.path().is_ident("doc"));
                pt.attrs = rest;
                if let Some(inj) = injected::take(pt, &arg_attrs, "tool", &mut seen, errors) {
                    params.push(Param::Injected(inj));
                    continue;
                }
                let Some(ident) = util::plain_param_name(
                    &pt.pat,
                    "a tool parameter needs a plain name: the name is the argument's \
                             name in the schema",
                    errors,
                ) else {
                    continue;
                };
                if matches!(&*pt.ty, Type::ImplTrait(_)) {
                    errors.spanned(&pt.ty, "a tool parameter cannot be `impl Trait`");
                    continue;
                }
                if let Type::Reference(r) = &*pt.ty {
                    errors.spanned(
                        r,
                        "a tool parameter must be owned (arguments are decoded per call): use \
                         `String` instead of `&str`, `Vec<T>` instead of `&[T]`; only the \
                         context may be taken by reference",
                    );
                    continue;
                }
                let mut arg = Arg {
                    ident,
                    ty: (*pt.ty).clone(),
                    rename: None,
                    default: None,
                    description: doc_text(&arg_attrs),
                    header: None,
                };
                for a in arg_attrs.iter().filter(|a| a.path().is_ident("arg")) {
                    let res = a.parse_nested_meta(|meta| {
                        let key = meta
                            .path
                            .get_ident()
                            .map(ToString::to_string)
                            .unwrap_or_default();
                        match key.as_str() {
                            "rename" => {
                                let s = lit_str(&meta)?;
                                if s.value().is_empty() {
                                    errors.spanned(&s, "`rename` cannot be empty");
                                }
                                arg.rename = Some(s);
                            }
                            "default" => arg.default = Some(meta.value()?.parse()?),
                            "description" => arg.description = Some(lit_str(&meta)?.value()),
                            "header" => {
                                let s = lit_str(&meta)?;
                                check_header(&s, &arg.ty, errors);
                                arg.header = Some(s);
                            }
                            _ => {
                                errors.spanned(&meta.path, unknown_key(&key, ARG_KEYS, "`#[arg]`"));
                                skip_value(&meta)?;
                            }
                        }
                        Ok(())
                    });
                    if let Err(e) = res {
                        errors.push(e);
                    }
                }
                params.push(Param::Arg(arg));
            }
        }
    }
    let without_self = kind == Kind::Method && !seen_self;
    util::check_method_has_self(sig, without_self, "tool", "tools", errors);

    // Duplicate argument names (after `rename`).
    let mut names: Vec<(String, Span)> = Vec::new();
    for p in &params {
        if let Param::Arg(a) = p {
            let (n, span) = match &a.rename {
                Some(r) => (r.value(), r.span()),
                None => (unraw(&a.ident), a.ident.span()),
            };
            if names.iter().any(|(m, _)| *m == n) {
                errors.at(span, format!("two arguments of this tool are named `{n}`"));
            }
            names.push((n, span));
        }
    }
    // `x-mcp-header` names are unique ignoring ASCII case.
    let mut headers: Vec<&syn::LitStr> = Vec::new();
    for p in &params {
        if let Param::Arg(Arg {
            header: Some(h), ..
        }) = p
        {
            if let Some(first) = headers
                .iter()
                .find(|f| f.value().eq_ignore_ascii_case(&h.value()))
            {
                let mut e = syn::Error::new(
                    h.span(),
                    format!(
                        "two parameters of this tool are mirrored to the header `Mcp-Param-{}`: \
                         `x-mcp-header` names must be unique ignoring case",
                        h.value()
                    ),
                );
                e.combine(syn::Error::new(first.span(), "the first one is here"));
                errors.push(e);
            }
            headers.push(h);
        }
    }

    let (name, name_span) = util::handler_name(name.as_ref(), sig);
    if !is_valid_tool_name(&name) {
        errors.at(
            name_span,
            format!(
                "invalid tool name `{name}`: use 1 to 128 of `A-Z a-z 0-9 _ - .` \
                 (set it with `#[tool(name = \"...\")]`)"
            ),
        );
    }
    if RESERVED.contains(&name.as_str()) {
        errors.at(name_span, reserved_message(&name));
    }

    let (ret, ret_span) = util::return_type(sig, "tool", " (it decides the output schema)", errors);

    if errors.len() > before {
        return None;
    }
    Some(ToolModel {
        fn_ident: sig.ident.clone(),
        name,
        name_span,
        title,
        description: description.map(|d| d.value()).or_else(|| doc_text(attrs)),
        hints,
        icons,
        meta: meta_entries,
        task,
        params,
        ret,
        ret_span,
    })
}

/// `icons("https://...", "data:...")` or `icons = expr` (an `impl IntoIterator<Item = Icon>`).
fn parse_icons(meta: &ParseNestedMeta<'_>, errors: &mut Errors) -> syn::Result<Icons> {
    if meta.input.peek(syn::Token![=]) {
        return Ok(Icons::Expr(meta.value()?.parse()?));
    }
    let content;
    syn::parenthesized!(content in meta.input);
    let list = Punctuated::<syn::LitStr, syn::Token![,]>::parse_terminated(&content)?;
    if list.is_empty() {
        errors.spanned(&meta.path, "`icons(...)` lists at least one icon URI");
    }
    for src in &list {
        if let Err(why) = check_icon_src(&src.value()) {
            errors.spanned(src, why);
        }
    }
    Ok(Icons::Sources(list.into_iter().collect()))
}

/// An icon source is an `https:`/`http:` URL with a host, or a `data:` URI.
fn check_icon_src(src: &str) -> Result<(), String> {
    if let Some(rest) = src
        .strip_prefix("https://")
        .or_else(|| src.strip_prefix("http://"))
    {
        if rest.split(['/', '?', '#']).next().is_none_or(str::is_empty) {
            return Err(format!("the icon URL `{src}` has no host"));
        }
        return Ok(());
    }
    if let Some(rest) = src.strip_prefix("data:") {
        if !rest.contains(',') {
            return Err(format!(
                "the icon `data:` URI `{src}` has no data: write `data:<mime>;base64,<data>`"
            ));
        }
        return Ok(());
    }
    Err(format!(
        "an icon source is an `https:` URL or a `data:` URI, not `{src}` \
         (clients fetch it themselves, so a relative path cannot work)"
    ))
}

/// `meta("com.example/key" = value, ...)`: `_meta` entries, values any `Serialize` expression.
fn parse_meta(
    meta: &ParseNestedMeta<'_>,
    errors: &mut Errors,
) -> syn::Result<Vec<(syn::LitStr, syn::Expr)>> {
    let content;
    syn::parenthesized!(content in meta.input);
    let mut out: Vec<(syn::LitStr, syn::Expr)> = Vec::new();
    while !content.is_empty() {
        let key: syn::LitStr = content.parse()?;
        content.parse::<syn::Token![=]>()?;
        let value: syn::Expr = content.parse()?;
        if let Err(why) = check_meta_key(&key.value()) {
            errors.spanned(&key, why);
        }
        if let Some((first, _)) = out.iter().find(|(k, _)| k.value() == key.value()) {
            let mut e = syn::Error::new(
                key.span(),
                format!("the `_meta` key `{}` is given twice", key.value()),
            );
            e.combine(syn::Error::new(first.span(), "the first one is here"));
            errors.push(e);
        }
        out.push((key, value));
        if content.is_empty() {
            break;
        }
        content.parse::<syn::Token![,]>()?;
    }
    Ok(out)
}

/// `task = "..."`: the `TaskSupport` variant it names (an error for anything else).
fn task_support(
    meta: &syn::meta::ParseNestedMeta<'_>,
    errors: &mut Errors,
) -> syn::Result<syn::Ident> {
    let lit = lit_str(meta)?;
    let variant = match lit.value().as_str() {
        "forbidden" => "Forbidden",
        "optional" => "Optional",
        "required" => "Required",
        other => {
            errors.spanned(
                &lit,
                format!("`task` is \"optional\", \"required\" or \"forbidden\", not {other:?}"),
            );
            "Forbidden"
        }
    };
    Ok(syn::Ident::new(variant, lit.span()))
}

/// The spec's `_meta` key rules: an optional prefix of dot-separated labels ending in `/`,
/// then a name; prefixes whose labels hold `modelcontextprotocol` or `mcp` are reserved,
/// and so are the W3C trace-context keys.
fn check_meta_key(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.rfind('/') {
        Some(i) => (Some(&key[..i]), &key[i + 1..]),
        None => (None, key),
    };
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    let name_ok = name.is_empty()
        || (alnum(name.chars().next())
            && alnum(name.chars().last())
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')));
    if !name_ok {
        return Err(format!(
            "`{key}` is not a valid `_meta` key: the name after the prefix begins and ends \
             with a letter or digit and holds only letters, digits, `-`, `_` and `.`"
        ));
    }
    if let Some(prefix) = prefix {
        for label in prefix.split('.') {
            let ok = label
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic())
                && alnum(label.chars().last())
                && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
            if !ok {
                return Err(format!(
                    "`{key}` is not a valid `_meta` key: each label of the prefix `{prefix}/` \
                     starts with a letter, ends with a letter or digit, and holds only \
                     letters, digits and `-`"
                ));
            }
        }
        if prefix
            .split('.')
            .any(|l| l == "modelcontextprotocol" || l == "mcp")
        {
            return Err(format!(
                "the `_meta` prefix `{prefix}/` is reserved for the protocol: use a \
                 reverse-DNS prefix of your own, like `com.example/`"
            ));
        }
    } else if matches!(key, "traceparent" | "tracestate" | "baggage") {
        return Err(format!(
            "the `_meta` key `{key}` is reserved for W3C trace context: use a prefixed key \
             like `com.example/{key}`"
        ));
    } else if key.is_empty() {
        return Err("a `_meta` key cannot be empty".into());
    }
    Ok(())
}

/// RFC 9110 `token`: one or more of letters, digits and ``!#$%&'*+-.^_`|~``.
fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// The JSON type a parameter type maps to, decided from its syntax: `Some("string")`,
/// `Some("integer")`, `Some("boolean")`, or `None` for anything else.
fn header_json_type(ty: &Type) -> Option<&'static str> {
    let Type::Path(p) = ty else { return None };
    if p.qself.is_some() {
        return None;
    }
    let seg = p.path.segments.last()?;
    let name = seg.ident.to_string();
    match name.as_str() {
        "String" | "str" | "Cow" => Some("string"),
        "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64" | "u128"
        | "usize" => Some("integer"),
        "bool" => Some("boolean"),
        "Option" => match &seg.arguments {
            syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
                syn::GenericArgument::Type(inner) => header_json_type(inner),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The spec's rules for one `x-mcp-header` value (uniqueness is checked per tool).
fn check_header(name: &syn::LitStr, ty: &Type, errors: &mut Errors) {
    let v = name.value();
    if v.is_empty() {
        errors.spanned(
            name,
            "the `header` name cannot be empty: it names the HTTP header `Mcp-Param-{name}`",
        );
    } else if !is_token(&v) {
        let bad: String = v
            .chars()
            .filter(|c| !c.is_ascii() || !is_token(&c.to_string()))
            .map(|c| format!("{c:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        errors.spanned(
            name,
            format!(
                "`{v}` is not a valid header name (an RFC 9110 token): it may hold only letters, \
                 digits and !#$%&'*+-.^_`|~, not {bad}"
            ),
        );
    }
    if header_json_type(ty).is_none() {
        errors.spanned(
            ty,
            format!(
                "only string, integer and boolean parameters can be mirrored to a header \
                 (`x-mcp-header`); `{}` is not one of them: use `String`, an integer type, \
                 `bool`, or an `Option` of one",
                ty.to_token_stream().to_string().replace(' ', "")
            ),
        );
    }
}

fn is_valid_tool_name(name: &str) -> bool {
    (1..=128).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
}

/// The `ToolDef` implementation for `model`, on `def_ty`.
///
/// `server` is the concrete server type for methods (`None` for free functions, which
/// implement `ToolDef<S>` for every `S`).
pub fn expand(
    model: &ToolModel,
    def_ty: &TokenStream,
    server: Option<&TokenStream>,
) -> TokenStream {
    let p = quote!(::mcp::__private);
    let args_ident = format_ident!("__McpArgs");
    let mut fields = Vec::new();
    let mut defaults = Vec::new();
    let mut call_args = Vec::new();
    let mut checks = Vec::new();
    let self_fix = |t| util::self_as(server, t);
    let mut supply = Supply::default();
    for (i, param) in model.params.iter().enumerate() {
        match param {
            Param::Injected(inj) => call_args.push(supply.arg(inj, i, self_fix)),
            Param::Arg(a) => {
                let ident = &a.ident;
                let ty = self_fix(a.ty.to_token_stream());
                let span = a.ty.span();
                let mut attrs = Vec::new();
                if let Some(d) = &a.description {
                    attrs.push(quote!(#[doc = #d]));
                }
                if let Some(r) = &a.rename {
                    attrs.push(quote!(#[serde(rename = #r)]));
                }
                if let Some(h) = &a.header {
                    attrs.push(quote!(#[schemars(extend("x-mcp-header" = #h))]));
                }
                if let Some(d) = &a.default {
                    let f = format_ident!("__mcp_default_{}", i);
                    let fname = f.to_string();
                    let value = match d {
                        syn::Expr::Lit(syn::ExprLit {
                            lit: syn::Lit::Str(_),
                            ..
                        }) => quote_spanned!(d.span()=> ::core::convert::From::from(#d)),
                        _ => quote_spanned!(d.span()=> #d),
                    };
                    defaults.push(quote!(fn #f() -> #ty { #value }));
                    attrs.push(quote!(#[serde(default = #fname)]));
                }
                fields.push(quote!(#(#attrs)* #ident: #ty));
                checks.push(quote_spanned!(span=> #p::assert_tool_arg::<#ty>();));
                call_args.push(quote!(__a.#ident));
            }
        }
    }
    let ret = self_fix(model.ret.clone());
    let name = &model.name;
    let mut config = Vec::new();
    if let Some(t) = &model.title {
        config.push(quote!(__t.title = ::core::option::Option::Some(#t.into());));
    }
    if let Some(d) = &model.description {
        config.push(quote!(__t.description = ::core::option::Option::Some(#d.into());));
    }
    if model.hints.iter().any(Option::is_some) {
        let opt = |h: Option<bool>| match h {
            Some(b) => quote!(::core::option::Option::Some(#b)),
            None => quote!(::core::option::Option::None),
        };
        let [r, d, i, o] = model.hints.map(opt);
        config.push(quote! {
            __t.annotations = ::core::option::Option::Some(#p::ToolAnnotations {
                read_only_hint: #r,
                destructive_hint: #d,
                idempotent_hint: #i,
                open_world_hint: #o,
                ..::core::default::Default::default()
            });
        });
    }
    match &model.icons {
        Some(Icons::Sources(list)) => config.push(quote! {
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
    if !model.meta.is_empty() {
        let keys = model.meta.iter().map(|(k, _)| k);
        let values = model
            .meta
            .iter()
            .map(|(_, v)| quote_spanned!(v.span()=> #p::meta_value(&(#v))));
        config.push(quote! {
            let mut __m = #p::Meta::new();
            #(__m.insert(::std::string::String::from(#keys), #values);)*
            __t.meta = ::core::option::Option::Some(__m);
        });
    }
    if let Some(v) = &model.task {
        config.push(quote! {
            __t.execution = ::core::option::Option::Some(#p::ToolExecution {
                task_support: ::core::option::Option::Some(#p::TaskSupport::#v),
            });
        });
    }
    let tr = quote!(#p::ToolDef);
    let [head, callee, server_ty, server_use] =
        def_impl(tr, def_ty, &model.fn_ident, server, &supply.state_bounds);
    let lets = &supply.lets;
    let finish =
        quote_spanned!(model.ret_span=> <Self as #p::ToolDef<#server_ty>>::info().finish(__out));
    let decode = quote! {
        let __a: #args_ident = match #p::decode_arguments::<#args_ident>(__args.as_deref()) {
            ::core::result::Result::Ok(a) => a,
            ::core::result::Result::Err(bad) => return ::core::result::Result::Ok(bad),
        };
    };
    quote! {
        const _: () = {
            #[derive(#p::serde::Deserialize, #p::schemars::JsonSchema)]
            #[serde(crate = "::mcp::__private::serde")]
            #[schemars(crate = "::mcp::__private::schemars")]
            #[allow(non_camel_case_types, dead_code)]
            struct #args_ident { #(#fields,)* }
            #(#[allow(non_snake_case)] #defaults)*
            #[allow(dead_code)]
            fn __mcp_checks() {
                #(#checks)*
            }
            #head {
                const NAME: &'static str = #name;
                fn info() -> &'static #p::ToolInfo {
                    static INFO: #p::OnceLock<#p::ToolInfo> = #p::OnceLock::new();
                    INFO.get_or_init(|| {
                        #p::ToolInfo::new::<#args_ident, #ret>(#name, |__t| { let _ = &__t; #(#config)* })
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
                        #decode
                        #(#lets)*
                        let __out = #callee(#(#call_args),*).await;
                        #finish
                    }
                }
            }
        };
    }
}

/// A stand-in `ToolDef` for a tool with errors.
pub fn placeholder(def_ty: &TokenStream, name: &str) -> TokenStream {
    let p = quote!(::mcp::__private);
    let items = quote! {
        const NAME: &'static str = #name;
        fn info() -> &'static #p::ToolInfo {
            ::core::unimplemented!()
        }
    };
    let args = quote!(::core::option::Option<::std::boxed::Box<#p::RawValue>>);
    util::placeholder(
        quote!(#p::ToolDef),
        def_ty,
        items,
        "call",
        &[args],
        quote!(#p::CallToolResult),
        "tool",
    )
}

/// `#[mcp::tool]` on a free function.
pub fn tool_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    util::free_fn_attr(
        &FreeFnAttr {
            name: "tool",
            written: "#[mcp::tool]",
            parse: |args, attrs, sig, errors| parse(args, attrs, sig, Kind::Free, errors),
            expand: |m, def_ty| expand(m, def_ty, None),
            placeholder,
        },
        args,
        item,
    )
}
