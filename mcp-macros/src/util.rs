//! Shared pieces: the error accumulator, attribute-key parsing with "did you mean", docs.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote};
use syn::meta::ParseNestedMeta;

/// Collects every error of one macro invocation, so the user sees all mistakes at once.
#[derive(Default)]
pub struct Errors(Vec<syn::Error>);

impl Errors {
    pub fn push(&mut self, e: syn::Error) {
        self.0.push(e);
    }
    pub fn spanned(&mut self, tokens: impl ToTokens, msg: impl std::fmt::Display) {
        self.0.push(syn::Error::new_spanned(tokens, msg));
    }
    pub fn at(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.0.push(syn::Error::new(span, msg));
    }
    pub fn len(&self) -> usize {
        self.0.len()
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn to_compile_errors(&self) -> TokenStream {
        self.0.iter().map(syn::Error::to_compile_error).collect()
    }
}

/// Consumes whatever follows an attribute key (`= value` or `(...)`), so parsing can go on
/// after an error.
pub fn skip_value(meta: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if meta.input.peek(syn::Token![=]) {
        let _: syn::Expr = meta.value()?.parse()?;
    } else if meta.input.peek(syn::token::Paren) {
        let _group: proc_macro2::Group = meta.input.parse()?;
    }
    Ok(())
}

/// `unknown key` with the closest known key, if any is close.
pub fn unknown_key(key: &str, known: &[&str], what: &str) -> String {
    let best = known
        .iter()
        .map(|k| (levenshtein(key, k), *k))
        .filter(|(d, k)| *d <= 2.max(k.len() / 3) || k.starts_with(key) || key.starts_with(k))
        .min();
    let list = known
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    match best {
        Some((_, k)) => {
            format!("unknown {what} option `{key}`; did you mean `{k}`? (known: {list})")
        }
        None => format!("unknown {what} option `{key}` (known: {list})"),
    }
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// The text of `///` comments (`#[doc = "..."]`), one line each, joined and trimmed.
pub fn doc_text(attrs: &[syn::Attribute]) -> Option<String> {
    let mut lines = Vec::new();
    for a in attrs {
        if a.path().is_ident("doc")
            && let syn::Meta::NameValue(nv) = &a.meta
            && let syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) = &nv.value
        {
            let v = s.value();
            lines.push(v.strip_prefix(' ').unwrap_or(&v).trim_end().to_owned());
        }
    }
    let text = lines.join("\n").trim().to_owned();
    (!text.is_empty()).then_some(text)
}

/// A `name = "string"` value.
pub fn lit_str(meta: &ParseNestedMeta<'_>) -> syn::Result<syn::LitStr> {
    meta.value()?.parse()
}

/// A flag (`read_only`) or `read_only = true|false`.
pub fn flag(meta: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if meta.input.peek(syn::Token![=]) {
        let b: syn::LitBool = meta.value()?.parse()?;
        Ok(b.value)
    } else {
        Ok(true)
    }
}

/// The last segment of a path, as a string.
pub fn last_ident(path: &syn::Path) -> String {
    path.segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default()
}

/// Whether `attr` is `#[name]` or `#[mcp::name]` (any path ending in `name`).
pub fn is_attr(attr: &syn::Attribute, name: &str) -> bool {
    last_ident(attr.path()) == name
}

/// Methods the kernel answers itself: never a tool or handler.
pub const RESERVED: &[&str] = &["initialize", "ping"];

/// The message for registering a reserved method.
pub fn reserved_message(name: &str) -> String {
    format!(
        "`{name}` is answered by the MCP kernel and cannot be registered as a tool or handler; \
         to observe or change it, write a `#[mcp::middleware]` that checks \
         `ctx.method() == \"{name}\"` and list it in `#[mcp::server(middleware(...))]`"
    )
}

/// `tokens` with `Self` as the server type of a method (`server`), as they are for a free
/// function.
pub fn self_as(server: Option<&TokenStream>, tokens: TokenStream) -> TokenStream {
    match server {
        Some(s) => replace_self(tokens, s),
        None => tokens,
    }
}

/// Replaces `Self` with `ty` (for code generated outside the user's impl block).
pub fn replace_self(tokens: TokenStream, ty: &TokenStream) -> TokenStream {
    use proc_macro2::TokenTree;
    tokens
        .into_iter()
        .flat_map(|tt| -> Vec<TokenTree> {
            match tt {
                TokenTree::Ident(i) if i == "Self" => ty.clone().into_iter().collect(),
                TokenTree::Group(g) => {
                    let mut ng =
                        proc_macro2::Group::new(g.delimiter(), replace_self(g.stream(), ty));
                    ng.set_span(g.span());
                    vec![TokenTree::Group(ng)]
                }
                other => vec![other],
            }
        })
        .collect()
}

/// The checks every `#[tool]`/`#[prompt]`/`#[resource]` function shares: `async`, not
/// generic, not `const`/`unsafe`/variadic.
pub fn check_fn_shape(sig: &syn::Signature, what: &str, errors: &mut Errors) {
    if sig.asyncness.is_none() {
        errors.spanned(
            sig.fn_token,
            format!("a `{what}` function must be `async`: write `async fn`"),
        );
    }
    if !sig.generics.params.is_empty() || sig.generics.where_clause.is_some() {
        errors.spanned(
            &sig.generics,
            format!("a `{what}` function cannot be generic: use concrete types"),
        );
    }
    if let Some(c) = &sig.constness {
        errors.spanned(c, format!("a `{what}` function cannot be `const`"));
    }
    if let Some(u) = &sig.unsafety {
        errors.spanned(u, format!("a `{what}` function cannot be `unsafe`"));
    }
    if let Some(v) = &sig.variadic {
        errors.spanned(v, format!("a `{what}` function cannot be variadic"));
    }
}

/// Checks the receiver of a `#[prompt]`/`#[resource]` (`&self` inside `#[mcp::server] impl`,
/// none for free functions).
pub fn check_receiver(r: &syn::Receiver, method: bool, what: &str, errors: &mut Errors) {
    if !method {
        errors.spanned(
            r,
            format!(
                "a `{what}` method must be inside a `#[mcp::server] impl` block; add \
                 `#[mcp::server]` to the impl"
            ),
        );
    } else if r.reference.is_none() || r.mutability.is_some() || r.colon_token.is_some() {
        errors.spanned(
            r,
            format!(
                "a `{what}` method takes `&self`: handlers of one server may run concurrently; \
                 use interior mutability (a `Mutex`) for state"
            ),
        );
    }
}

/// The identifier without a leading `r#`.
pub fn unraw(i: &syn::Ident) -> String {
    let s = i.to_string();
    s.strip_prefix("r#").map(str::to_owned).unwrap_or(s)
}

/// `Some(inner)` when `ty` is `Option<inner>`.
pub fn option_inner(ty: &syn::Type) -> Option<&syn::Type> {
    let syn::Type::Path(p) = ty else { return None };
    let seg = p.path.segments.last()?;
    if seg.ident != "Option" {
        return None;
    }
    match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) if a.args.len() == 1 => match &a.args[0] {
            syn::GenericArgument::Type(t) => Some(t),
            _ => None,
        },
        _ => None,
    }
}

/// Whether `ty` is (a path ending in) `String`.
pub fn is_string(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Path(p) if p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| s.ident == "String" && s.arguments.is_none()))
}

/// The pieces of a `…Def` implementation of the trait `tr` (a path such as
/// `::mcp::__private::PromptDef`) for `def_ty` that depend on whether the function
/// `fn_ident` is free (`server` is `None`; `bounds` go on its `__S`) or a method of
/// `server`: the impl head, what the body calls (`f` or `__server.f`), the server type in
/// the signature (`__S` or the server), and the statement that marks `__server` used.
pub fn def_impl(
    tr: TokenStream,
    def_ty: &TokenStream,
    fn_ident: &syn::Ident,
    server: Option<&TokenStream>,
    bounds: &[TokenStream],
) -> [TokenStream; 4] {
    match server {
        None => [
            quote!(impl<__S: ?::core::marker::Sized #(+ #bounds)*> #tr<__S> for #def_ty),
            quote!(#fn_ident),
            quote!(__S),
            quote!(let _ = __server;),
        ],
        Some(s) => [
            quote!(impl #tr<#s> for #def_ty),
            quote!(__server.#fn_ident),
            s.clone(),
            TokenStream::new(),
        ],
    }
}

/// A stand-in implementation of `tr` (a `…Def` trait) for a function with errors, so a
/// server listing it shows no follow-on errors: `items` (its constants and listing
/// functions) and the handler `method(server, ctx, extra...)` that fails with
/// "invalid `what`".
pub fn placeholder(
    tr: TokenStream,
    def_ty: &TokenStream,
    items: TokenStream,
    method: &str,
    extra: &[TokenStream],
    output: TokenStream,
    what: &str,
) -> TokenStream {
    let p = quote!(::mcp::__private);
    let method = syn::Ident::new(method, Span::call_site());
    let message = format!("invalid {what}");
    quote! {
        impl<__S: ?::core::marker::Sized> #tr<__S> for #def_ty {
            #items
            fn #method<'__a>(
                _: &'__a __S,
                _: #p::Context,
                #(_: #extra,)*
            ) -> impl ::core::future::Future<
                Output = ::core::result::Result<#output, #p::McpError>,
            > + ::core::marker::Send + '__a {
                ::core::future::ready(::core::result::Result::Err(#p::McpError::internal(#message)))
            }
        }
    }
}

/// How one attribute macro treats a function: parse it into a model (reporting into
/// `Errors`), expand a model for the definition type, or write a stand-in.
pub struct FreeFnAttr<M> {
    /// The attribute's name (`prompt`): the attribute is removed from the function.
    pub name: &'static str,
    /// How the attribute is written, for the error on a non-function (`#[mcp::prompt]`).
    pub written: &'static str,
    /// Parses and checks; strips parameter attributes from the signature in every case.
    pub parse: fn(TokenStream, &[syn::Attribute], &mut syn::Signature, &mut Errors) -> Option<M>,
    /// The trait implementation for a model, on the definition type.
    pub expand: fn(&M, &TokenStream) -> TokenStream,
    /// The stand-in implementation on the definition type, given the function's name.
    pub placeholder: fn(&TokenStream, &str) -> TokenStream,
}

/// `#[mcp::tool]`-style attributes on a free function: the function as written (less
/// parameter attributes), a hidden unit struct of the same name that implements the
/// handler trait, and every error at once. With errors the struct gets a stand-in
/// implementation, except for a method outside `#[mcp::server] impl`, where only the
/// method may be emitted.
pub fn free_fn_attr<M>(attr: &FreeFnAttr<M>, args: TokenStream, item: TokenStream) -> TokenStream {
    let mut f: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                format!(
                    "`{}` goes on an `async fn` (or on `&self` methods inside `#[mcp::server] impl`)",
                    attr.written
                ),
            )
            .to_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors = Errors::default();
    f.attrs.retain(|a| !is_attr(a, attr.name));
    let model = (attr.parse)(args, &f.attrs, &mut f.sig, &mut errors);
    let ident = &f.sig.ident;
    let vis = &f.vis;
    let def_ty = quote!(#ident);
    let strukt = quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #ident {}
    };
    match model {
        Some(m) if errors.is_empty() => {
            let body = (attr.expand)(&m, &def_ty);
            quote!(#f #strukt #body)
        }
        _ if matches!(f.sig.inputs.first(), Some(syn::FnArg::Receiver(_))) => {
            let errs = errors.to_compile_errors();
            quote!(#errs #f)
        }
        _ => {
            let errs = errors.to_compile_errors();
            let ph = (attr.placeholder)(&def_ty, &ident.to_string());
            quote!(#errs #f #strukt #ph)
        }
    }
}

/// Reports a handler method inside `#[mcp::server] impl` (`kind` a method) that takes no
/// `self`: `attr` is its attribute (`prompt`), `list` the server option for free
/// functions (`prompts`).
pub fn check_method_has_self(
    sig: &syn::Signature,
    method_without_self: bool,
    attr: &str,
    list: &str,
    errors: &mut Errors,
) {
    if method_without_self {
        errors.spanned(
            &sig.ident,
            format!(
                "a `#[{attr}]` method inside `#[mcp::server] impl` takes `&self`; move functions \
                 without `self` out of the impl and list them in `{list}(...)`"
            ),
        );
    }
}

/// The handler's name (`name = "..."`, else the function's) and where to report it.
pub fn handler_name(name: Option<&syn::LitStr>, sig: &syn::Signature) -> (String, Span) {
    match name {
        Some(n) => (n.value(), n.span()),
        None => (unraw(&sig.ident), sig.ident.span()),
    }
}

/// The function's return type (`()` when none) and its span; `impl Trait` is refused
/// ("a `what` cannot return `impl Trait`: name the type`why`").
pub fn return_type(
    sig: &syn::Signature,
    what: &str,
    why: &str,
    errors: &mut Errors,
) -> (TokenStream, Span) {
    match &sig.output {
        syn::ReturnType::Default => (quote!(()), sig.ident.span()),
        syn::ReturnType::Type(_, ty) => {
            if matches!(&**ty, syn::Type::ImplTrait(_)) {
                errors.spanned(
                    ty,
                    format!("a {what} cannot return `impl Trait`: name the type{why}"),
                );
            }
            (ty.to_token_stream(), syn::spanned::Spanned::span(&**ty))
        }
    }
}

/// The parameter's name when `pat` is a plain identifier; otherwise reports `message`.
pub fn plain_param_name(pat: &syn::Pat, message: &str, errors: &mut Errors) -> Option<syn::Ident> {
    match pat {
        syn::Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(pi.ident.clone()),
        other => {
            errors.spanned(other, message);
            None
        }
    }
}
