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

const SERVER_KEYS: &[&str] = &["name", "version", "instructions", "tools", "middleware"];

#[derive(Default)]
struct ServerModel {
    name: Option<syn::LitStr>,
    version: Option<syn::LitStr>,
    instructions: Option<String>,
    /// Free tools (`tools(a, b)`).
    tools: Vec<syn::Path>,
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
            "tools" | "middleware" => {
                let mut list = Vec::new();
                meta.parse_nested_meta(|inner| {
                    if !inner.input.is_empty() && !inner.input.peek(syn::Token![,]) {
                        errors.spanned(&inner.path, format!("`{key}(...)` lists paths only"));
                        skip_value(&inner)?;
                    }
                    list.push(inner.path.clone());
                    Ok(())
                })?;
                if key == "tools" {
                    m.tools.extend(list);
                } else {
                    m.middleware.extend(list);
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
            "prompts" | "resources" => {
                errors.spanned(
                    &meta.path,
                    format!("`{key}(...)` is not supported by `#[mcp::server]` yet"),
                );
                skip_value(&meta)?;
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
    let mut seen: Vec<String> = Vec::new();
    for path in &m.tools {
        let s = path.to_token_stream().to_string();
        if seen.contains(&s) {
            errors.spanned(path, format!("the tool `{s}` is listed twice"));
        }
        seen.push(s);
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
            if model.tools.is_empty() && errors.is_empty() {
                errors.at(
                    s.ident.span(),
                    "this server offers nothing: list its tools with \
                     `#[mcp::server(tools(...))]`, or put `#[tool]` methods in a \
                     `#[mcp::server] impl` block",
                );
            }
            if !errors.is_empty() {
                let errs = errors.to_compile_errors();
                return quote!(#errs #s);
            }
            let body = expand(&model, &ty, Vec::new(), TokenStream::new());
            quote!(#s #body)
        }
        syn::Item::Enum(s) => {
            check_generics(&s.generics, &mut errors);
            let ty = s.ident.to_token_stream();
            if model.tools.is_empty() && errors.is_empty() {
                errors.at(
                    s.ident.span(),
                    "this server offers nothing: list its tools with `#[mcp::server(tools(...))]`",
                );
            }
            if !errors.is_empty() {
                let errs = errors.to_compile_errors();
                return quote!(#errs #s);
            }
            let body = expand(&model, &ty, Vec::new(), TokenStream::new());
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
            let mut method_tools = Vec::new();
            let mut defs = TokenStream::new();
            let mut names: Vec<(String, Span)> = Vec::new();
            for item in imp.items.iter_mut() {
                let syn::ImplItem::Fn(f) = item else { continue };
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
                    method_tools.push(hidden_ty);
                }
            }
            if method_tools.is_empty() && model.tools.is_empty() && errors.is_empty() {
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
            let body = expand(&model, &ty, method_tools, defs);
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

fn check_generics(g: &syn::Generics, errors: &mut Errors) {
    if !g.params.is_empty() || g.where_clause.is_some() {
        errors.spanned(g, "a `#[mcp::server]` type cannot be generic: its tool table is generated for one concrete type");
    }
}

fn expand(
    model: &ServerModel,
    ty: &TokenStream,
    method_tools: Vec<TokenStream>,
    defs: TokenStream,
) -> TokenStream {
    let p = quote!(::mcp::__private);
    let mut tools: Vec<(TokenStream, Span)> = method_tools
        .into_iter()
        .map(|t| {
            let s = t.span();
            (t, s)
        })
        .collect();
    tools.extend(model.tools.iter().map(|p| (p.to_token_stream(), p.span())));
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
    quote! {
        const _: () = {
            #defs
            const __MCP_NAMES: &[&str] = &[#(#defs_of::NAME),*];
            #(#unique)*
            impl #p::ServerHandler for #ty {
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
                    let __idx: usize = match name {
                        #(#defs_of::NAME => #idx,)*
                        _ => return ::core::option::Option::None,
                    };
                    ::core::option::Option::Some(async move {
                        match __idx {
                            #(#idx => #defs_of::call(self, ctx, arguments).await,)*
                            _ => ::core::unreachable!(),
                        }
                    })
                }
            }
            impl #ty {
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
            }
        };
    }
}
