//! `#[server]`: on a struct (`tools(...)`, `middleware(...)`) or on an impl block whose
//! `#[tool]` methods it collects. Generates the `ServerHandler` (a `match` on the tool name),
//! the tool list built once, and `into_server()` / `serve_stdio()`.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;

use crate::tool::{self, Kind};
use crate::util::{
    Errors, RESERVED, doc_text, is_attr, lit_str, reserved_message, skip_value, unknown_key,
};
use crate::{completion, prompt, resource};

const SERVER_KEYS: &[&str] = &[
    "name",
    "version",
    "instructions",
    "tools",
    "prompts",
    "resources",
    "completions",
    "middleware",
];

#[derive(Default)]
struct ServerModel {
    name: Option<syn::LitStr>,
    version: Option<syn::LitStr>,
    instructions: Option<String>,
    /// Free tools (`tools(a, b)`).
    tools: Vec<syn::Path>,
    /// Free prompts (`prompts(a, b)`).
    prompts: Vec<syn::Path>,
    /// Free resources and templates (`resources(a, b)`).
    resources: Vec<syn::Path>,
    /// Free completions (`completions(a, b)`).
    completions: Vec<syn::Path>,
    /// The listed middleware, outermost first.
    middleware: Vec<syn::Path>,
    attr_span: Option<Span>,
}

fn parse_args(args: TokenStream, errors: &mut Errors) -> ServerModel {
    let mut m = ServerModel::default();
    let parser = syn::meta::parser(|meta| {
        let key = meta
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        match key.as_str() {
            "name" => m.name = Some(lit_str(&meta)?),
            "version" => m.version = Some(lit_str(&meta)?),
            "instructions" => m.instructions = Some(lit_str(&meta)?.value()),
            "tools" | "prompts" | "resources" | "completions" | "middleware" => {
                let mut list = Vec::new();
                meta.parse_nested_meta(|inner| {
                    if !inner.input.is_empty() && !inner.input.peek(syn::Token![,]) {
                        errors.spanned(&inner.path, format!("`{key}(...)` lists paths only"));
                        skip_value(&inner)?;
                    }
                    list.push(inner.path.clone());
                    Ok(())
                })?;
                match key.as_str() {
                    "tools" => m.tools.extend(list),
                    "prompts" => m.prompts.extend(list),
                    "resources" => m.resources.extend(list),
                    "completions" => m.completions.extend(list),
                    _ => m.middleware.extend(list),
                }
            }
            k if RESERVED.contains(&k) || k == "on_initialize" => {
                errors.spanned(&meta.path, reserved_message(k.trim_start_matches("on_")));
                skip_value(&meta)?;
            }
            "methods" | "handlers" | "handler" => {
                let mut reported = false;
                if meta.input.peek(syn::token::Paren) {
                    meta.parse_nested_meta(|inner| {
                        let n = inner
                            .path
                            .get_ident()
                            .map(ToString::to_string)
                            .unwrap_or_default();
                        if RESERVED.contains(&n.as_str()) {
                            errors.spanned(&inner.path, reserved_message(&n));
                            reported = true;
                        }
                        skip_value(&inner)
                    })?;
                } else {
                    skip_value(&meta)?;
                }
                if !reported {
                    errors.spanned(
                        &meta.path,
                        "custom method handlers are not supported; register tools with \
                         `tools(...)` and observe other methods with `middleware(...)`",
                    );
                }
            }
            _ => {
                errors.spanned(
                    &meta.path,
                    unknown_key(&key, SERVER_KEYS, "`#[mcp::server]`"),
                );
                skip_value(&meta)?;
            }
        }
        Ok(())
    });
    if let Err(e) = syn::parse::Parser::parse2(parser, args) {
        errors.push(e);
    }
    if let Some(n) = &m.name
        && n.value().is_empty()
    {
        errors.spanned(n, "the server name cannot be empty");
    }
    for (what, list) in [
        ("tool", &m.tools),
        ("prompt", &m.prompts),
        ("resource", &m.resources),
        ("completion", &m.completions),
    ] {
        let mut seen: Vec<String> = Vec::new();
        for path in list {
            let s = path.to_token_stream().to_string();
            if seen.contains(&s) {
                errors.spanned(path, format!("the {what} `{s}` is listed twice"));
            }
            seen.push(s);
        }
    }
    let mut seen: Vec<String> = Vec::new();
    for path in &m.middleware {
        let s = path.to_token_stream().to_string();
        if seen.contains(&s) {
            errors.spanned(path, format!("the middleware `{s}` is listed twice"));
        }
        seen.push(s);
    }
    if m.middleware.len() > 12 {
        errors.spanned(
            &m.middleware[12],
            "at most 12 middleware can be listed (nest tuples of layers with the builder for more)",
        );
    }
    m
}

pub fn server_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let args_span = args.span();
    let mut model = parse_args(args, &mut errors);
    model.attr_span = Some(args_span);
    let parsed: syn::Item = match syn::parse2(item.clone()) {
        Ok(i) => i,
        Err(e) => {
            let e = e.to_compile_error();
            return quote!(#e #item);
        }
    };
    match parsed {
        syn::Item::Struct(s) => {
            check_generics(&s.generics, &mut errors);
            if model.instructions.is_none() {
                model.instructions = doc_text(&s.attrs);
            }
            let ty = s.ident.to_token_stream();
            if model.offers_nothing() && errors.is_empty() {
                errors.at(
                    s.ident.span(),
                    "this server offers nothing: list its tools with \
                     `#[mcp::server(tools(...))]` (or `prompts(...)`, `resources(...)`), or put \
                     `#[tool]` methods in a `#[mcp::server] impl` block",
                );
            }
            if !errors.is_empty() {
                let errs = errors.to_compile_errors();
                return quote!(#errs #s);
            }
            let body = expand(&model, &ty, Methods::default(), TokenStream::new());
            quote!(#s #body)
        }
        syn::Item::Enum(s) => {
            check_generics(&s.generics, &mut errors);
            let ty = s.ident.to_token_stream();
            if model.offers_nothing() && errors.is_empty() {
                errors.at(
                    s.ident.span(),
                    "this server offers nothing: list its tools with `#[mcp::server(tools(...))]`",
                );
            }
            if !errors.is_empty() {
                let errs = errors.to_compile_errors();
                return quote!(#errs #s);
            }
            let body = expand(&model, &ty, Methods::default(), TokenStream::new());
            quote!(#s #body)
        }
        syn::Item::Impl(mut imp) => {
            check_generics(&imp.generics, &mut errors);
            if let Some((_, path, _)) = &imp.trait_ {
                errors.spanned(path, "`#[mcp::server]` goes on an inherent impl block (`impl MyServer { ... }`), not on a trait impl");
            }
            let ty = imp.self_ty.to_token_stream();
            if model.instructions.is_none() {
                model.instructions = doc_text(&imp.attrs);
            }
            let mut methods = Methods::default();
            let mut defs = TokenStream::new();
            let mut names: Vec<(String, Span)> = Vec::new();
            let mut prompt_names: Vec<(String, Span)> = Vec::new();
            let mut resource_names: Vec<(String, Span)> = Vec::new();
            let mut resource_uris: Vec<(String, Span)> = Vec::new();
            for item in imp.items.iter_mut() {
                let syn::ImplItem::Fn(f) = item else { continue };
                let kinds: Vec<&str> = ["tool", "prompt", "resource", "completion"]
                    .into_iter()
                    .filter(|k| f.attrs.iter().any(|a| is_attr(a, k)))
                    .collect();
                if kinds.len() > 1 {
                    errors.spanned(
                        &f.sig.ident,
                        "a method can be only one of `#[tool]`, `#[prompt]`, `#[resource]` and \
                         `#[completion]`",
                    );
                    continue;
                }
                if kinds == ["completion"] {
                    let pos = f
                        .attrs
                        .iter()
                        .position(|a| is_attr(a, "completion"))
                        .unwrap_or(0);
                    let attr = f.attrs.remove(pos);
                    let before = errors.len();
                    let m = completion::parse(
                        tool::attr_args(&attr),
                        &mut f.sig,
                        Kind::Method,
                        &mut errors,
                    );
                    if let Some(m) = m
                        && errors.len() == before
                    {
                        let hidden = format_ident!("__McpCompletion_{}", f.sig.ident);
                        let hidden_ty = hidden.to_token_stream();
                        let body = completion::expand(&m, &hidden_ty, Some(&ty));
                        defs.extend(quote! {
                            #[allow(non_camel_case_types)]
                            struct #hidden;
                            #body
                        });
                        methods.completions.push(hidden_ty);
                    }
                    continue;
                }
                if kinds == ["prompt"] || kinds == ["resource"] {
                    let k = kinds[0];
                    let pos = f.attrs.iter().position(|a| is_attr(a, k)).unwrap_or(0);
                    let attr = f.attrs.remove(pos);
                    let before = errors.len();
                    if k == "prompt" {
                        let m = prompt::parse(
                            tool::attr_args(&attr),
                            &f.attrs,
                            &mut f.sig,
                            Kind::Method,
                            &mut errors,
                        );
                        if let Some(m) = m
                            && errors.len() == before
                        {
                            duplicate(
                                &mut prompt_names,
                                &m.name,
                                m.name_span,
                                "prompts",
                                &mut errors,
                            );
                            let hidden = format_ident!("__McpPrompt_{}", f.sig.ident);
                            let hidden_ty = hidden.to_token_stream();
                            let body = prompt::expand(&m, &hidden_ty, Some(&ty));
                            defs.extend(quote! {
                                #[allow(non_camel_case_types)]
                                struct #hidden;
                                #body
                            });
                            methods.prompts.push(hidden_ty);
                        }
                    } else {
                        let m = resource::parse(
                            tool::attr_args(&attr),
                            &f.attrs,
                            &mut f.sig,
                            Kind::Method,
                            &mut errors,
                        );
                        if let Some(m) = m
                            && errors.len() == before
                        {
                            duplicate(
                                &mut resource_names,
                                &m.name,
                                m.name_span,
                                "resources",
                                &mut errors,
                            );
                            if let Some((_, first)) =
                                resource_uris.iter().find(|(u, _)| *u == m.uri)
                            {
                                let mut e = syn::Error::new(
                                    m.uri_span,
                                    format!(
                                        "two resources of this server have the URI `{}`",
                                        m.uri
                                    ),
                                );
                                e.combine(syn::Error::new(*first, "the first one is here"));
                                errors.push(e);
                            }
                            resource_uris.push((m.uri.clone(), m.uri_span));
                            let hidden = format_ident!("__McpResource_{}", f.sig.ident);
                            let hidden_ty = hidden.to_token_stream();
                            let body = resource::expand(&m, &hidden_ty, Some(&ty));
                            defs.extend(quote! {
                                #[allow(non_camel_case_types)]
                                struct #hidden;
                                #body
                            });
                            methods.resources.push(hidden_ty);
                        }
                    }
                    continue;
                }
                let Some(pos) = f.attrs.iter().position(|a| is_attr(a, "tool")) else {
                    continue;
                };
                let attr = f.attrs.remove(pos);
                if let Some(extra) = f.attrs.iter().find(|a| is_attr(a, "tool")) {
                    errors.spanned(extra, "`#[tool]` appears twice on this method");
                }
                let before = errors.len();
                let m = tool::parse(
                    tool::attr_args(&attr),
                    &f.attrs,
                    &mut f.sig,
                    Kind::Method,
                    &mut errors,
                );
                if let Some(m) = m
                    && errors.len() == before
                {
                    if let Some((_, first)) = names.iter().find(|(n, _)| *n == m.name) {
                        let mut e = syn::Error::new(
                            m.name_span,
                            format!("two tools of this server are named `{}`", m.name),
                        );
                        e.combine(syn::Error::new(*first, "the first one is here"));
                        errors.push(e);
                    }
                    names.push((m.name.clone(), m.name_span));
                    let hidden = format_ident!("__McpTool_{}", f.sig.ident);
                    let hidden_ty = hidden.to_token_stream();
                    let body = tool::expand(&m, &hidden_ty, Some(&ty));
                    defs.extend(quote! {
                        #[allow(non_camel_case_types)]
                        struct #hidden;
                        #body
                    });
                    methods.tools.push(hidden_ty);
                }
            }
            if methods.tools.is_empty()
                && methods.prompts.is_empty()
                && methods.resources.is_empty()
                && model.offers_nothing()
                && errors.is_empty()
            {
                errors.spanned(
                    &imp.self_ty,
                    "this server offers nothing: mark methods with `#[tool]` (they take `&self`), \
                     or list free tools with `#[mcp::server(tools(...))]`",
                );
            }
            if !errors.is_empty() {
                let errs = errors.to_compile_errors();
                return quote!(#errs #imp);
            }
            let body = expand(&model, &ty, methods, defs);
            quote!(#imp #body)
        }
        other => {
            let e = syn::Error::new_spanned(
                &other,
                "`#[mcp::server]` goes on a struct (with `tools(...)`) or on an impl block with `#[tool]` methods",
            );
            {
                let e = e.to_compile_error();
                quote!(#e #other)
            }
        }
    }
}

impl ServerModel {
    fn offers_nothing(&self) -> bool {
        self.tools.is_empty() && self.prompts.is_empty() && self.resources.is_empty()
    }
}

/// The hidden types generated for `#[tool]`/`#[prompt]`/`#[resource]` methods.
#[derive(Default)]
struct Methods {
    tools: Vec<TokenStream>,
    prompts: Vec<TokenStream>,
    resources: Vec<TokenStream>,
    completions: Vec<TokenStream>,
}

/// Reports `name` when it is already in `seen` (spanned at both), then records it.
fn duplicate(
    seen: &mut Vec<(String, Span)>,
    name: &str,
    span: Span,
    what: &str,
    errors: &mut Errors,
) {
    if let Some((_, first)) = seen.iter().find(|(n, _)| n == name) {
        let mut e = syn::Error::new(
            span,
            format!("two {what} of this server are named `{name}`"),
        );
        e.combine(syn::Error::new(*first, "the first one is here"));
        errors.push(e);
    }
    seen.push((name.to_owned(), span));
}

fn check_generics(g: &syn::Generics, errors: &mut Errors) {
    if !g.params.is_empty() || g.where_clause.is_some() {
        errors.spanned(g, "a `#[mcp::server]` type cannot be generic: its tool table is generated for one concrete type");
    }
}

fn expand(
    model: &ServerModel,
    ty: &TokenStream,
    methods: Methods,
    defs: TokenStream,
) -> TokenStream {
    let p = quote!(::mcp::__private);
    let with_spans = |own: Vec<TokenStream>, listed: &[syn::Path]| {
        let mut v: Vec<(TokenStream, Span)> = own
            .into_iter()
            .map(|t| {
                let s = t.span();
                (t, s)
            })
            .collect();
        v.extend(listed.iter().map(|p| (p.to_token_stream(), p.span())));
        v
    };
    let prompts = with_spans(methods.prompts, &model.prompts);
    let resources = with_spans(methods.resources, &model.resources);
    let completions = with_spans(methods.completions, &model.completions);
    let prompts_impl = expand_prompts(ty, &prompts);
    let resources_impl = expand_resources(ty, &resources);
    let completions_impl = expand_completions(ty, &completions, &prompts, &resources);
    let mut tools: Vec<(TokenStream, Span)> = methods
        .tools
        .into_iter()
        .map(|t| {
            let s = t.span();
            (t, s)
        })
        .collect();
    tools.extend(model.tools.iter().map(|p| (p.to_token_stream(), p.span())));
    // Each listed item must be what its list says: one bound per item, spanned at its path,
    // on both impls. A wrong item is then one error there (the same error on both impls is
    // reported once), and the generated bodies see the bound as given.
    let p_ = quote!(::mcp::__private);
    let mut bounds: Vec<TokenStream> = Vec::new();
    for (t, span) in &tools {
        bounds.push(respan(quote!(for<'__mcp> #t: #p_::ToolDef<#ty>,), *span));
    }
    for (t, span) in &prompts {
        bounds.push(respan(quote!(for<'__mcp> #t: #p_::PromptDef<#ty>,), *span));
    }
    for (t, span) in &resources {
        bounds.push(respan(
            quote!(for<'__mcp> #t: #p_::ResourceDef<#ty>,),
            *span,
        ));
    }
    for (t, span) in &completions {
        bounds.push(respan(
            quote!(for<'__mcp> #t: #p_::CompletionDef<#ty>,),
            *span,
        ));
    }
    let defs_of: Vec<TokenStream> = tools
        .iter()
        .map(|(t, span)| quote_spanned!(*span=> <#t as #p::ToolDef<#ty>>))
        .collect();
    let idx: Vec<usize> = (0..tools.len()).collect();
    let unique: Vec<TokenStream> = tools
        .iter()
        .enumerate()
        .map(|(i, (_, span))| {
            quote_spanned! {*span=>
                const _: () = ::core::assert!(
                    !#p::name_taken(__MCP_NAMES, #i),
                    "two tools of this server have the same name; rename one with #[tool(name = \"...\")]"
                );
            }
        })
        .collect();
    let mw: Vec<&syn::Path> = model.middleware.iter().collect();
    // Spanned at each listed path: a type that is not a middleware is one error, there.
    let mw_bounds: Vec<TokenStream> = mw
        .iter()
        .map(|m| quote_spanned!(m.span()=> #m: #p::Middleware,))
        .collect();
    let name = match &model.name {
        Some(n) => quote!(#n),
        None => quote!(::core::env!("CARGO_PKG_NAME")),
    };
    let version = match &model.version {
        Some(v) => quote!(#v),
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    let instructions = model
        .instructions
        .as_ref()
        .map(|i| quote!(.instructions(#i)));
    let tools_impl = if tools.is_empty() {
        quote!()
    } else {
        quote! {
                fn tools(&self) -> &[#p::Tool] {
                    static TOOLS: #p::OnceLock<::std::vec::Vec<#p::Tool>> = #p::OnceLock::new();
                    TOOLS.get_or_init(|| ::std::vec![#(#defs_of::info().tool.clone()),*])
                }
                fn call_tool(
                    &self,
                    name: &str,
                    ctx: #p::Context,
                    arguments: ::core::option::Option<::std::boxed::Box<#p::RawValue>>,
                ) -> ::core::option::Option<
                    impl ::core::future::Future<
                        Output = ::core::result::Result<#p::CallToolResult, #p::McpError>,
                    > + ::core::marker::Send + '_,
                > {
                    // An `if` chain, not a `match`: the names are associated consts of
                    // bounded types, which cannot be patterns.
                    let __idx: usize = #(if name == #defs_of::NAME { #idx } else)* {
                        return ::core::option::Option::None;
                    };
                    ::core::option::Option::Some(async move {
                        match __idx {
                            #(#idx => #defs_of::call(self, ctx, arguments).await,)*
                            _ => ::core::unreachable!(),
                        }
                    })
                }
        }
    };
    quote! {
        const _: () = {
            #defs
            #[allow(dead_code)]
            const __MCP_NAMES: &[&str] = &[#(#defs_of::NAME),*];
            #(#unique)*
            impl #p::ServerHandler for #ty where #(#bounds)* {
                #prompts_impl
                #resources_impl
                #tools_impl
                #completions_impl
            }
            impl #ty where #(#bounds)* {
                /// This server, built: serve it over stdio, a byte stream or an in-memory pipe.
                #[allow(dead_code)]
                pub fn into_server(self) -> #p::Server<(#(#mw,)*), Self>
                where
                    #(#mw_bounds)*
                {
                    #p::Server::builder(#name, #version)
                        #instructions
                        .handler(self)
                        .layers((#(#mw,)*))
                        .build()
                }
                /// Serves this server over stdin/stdout until stdin closes or a signal arrives.
                #[allow(dead_code)]
                pub async fn serve_stdio(self) -> ::std::io::Result<()>
                where
                    #(#mw_bounds)*
                {
                    self.into_server().serve_stdio().await
                }
                /// Serves this server over one byte stream (a TCP or Unix socket, one end of
                /// `tokio::io::duplex`, ...) until it closes.
                #[allow(dead_code)]
                pub async fn serve<__T>(self, transport: __T) -> ::std::io::Result<()>
                where
                    __T: #p::AsyncRead + #p::AsyncWrite + ::core::marker::Send + ::core::marker::Unpin + 'static,
                    #(#mw_bounds)*
                {
                    let (__r, __w) = #p::split(transport);
                    self.into_server().serve(__r, __w).await
                }
            }
        };
    }
}

/// `prompts()` / `get_prompt()` over the prompt types (nothing when there are none).
fn expand_prompts(ty: &TokenStream, prompts: &[(TokenStream, Span)]) -> TokenStream {
    if prompts.is_empty() {
        return TokenStream::new();
    }
    let p = quote!(::mcp::__private);
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
fn expand_resources(ty: &TokenStream, resources: &[(TokenStream, Span)]) -> TokenStream {
    if resources.is_empty() {
        return TokenStream::new();
    }
    let p = quote!(::mcp::__private);
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
fn expand_completions(
    ty: &TokenStream,
    completions: &[(TokenStream, Span)],
    prompts: &[(TokenStream, Span)],
    resources: &[(TokenStream, Span)],
) -> TokenStream {
    if completions.is_empty() {
        return TokenStream::new();
    }
    let p = quote!(::mcp::__private);
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

/// `tokens` with every span set to `span`, so that a type which is not what its list says
/// is reported once, at the path the user wrote, however often the generated code names it.
fn respan(tokens: TokenStream, span: Span) -> TokenStream {
    use proc_macro2::TokenTree;
    tokens
        .into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut ng = proc_macro2::Group::new(g.delimiter(), respan(g.stream(), span));
                ng.set_span(span);
                TokenTree::Group(ng)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}
