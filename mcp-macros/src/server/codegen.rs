//! A checked [`Server`] as code, all inside one `const _: () = { ... };`: the method handlers'
//! hidden types, the `ServerHandler` implementation (tools here; prompts, resources and
//! completions in `lists`), and `into_server()` / `serve_stdio()` / `serve()`. Every listed
//! item gets one bound spanned at the path the user wrote, so a wrong item is one error there.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote, quote_spanned};
use syn::spanned::Spanned;

use super::Server;
use super::lists::{self, Listed};
use crate::codegen::respan;

/// Everything `#[mcp::server]` adds after the item.
pub fn codegen(s: &Server) -> TokenStream {
    let p = s.root.private();
    let ty = &s.ty;
    let mut imports = Vec::new();
    let mut with_spans = |kind: &str, own: &[TokenStream], listed: &[syn::Path]| -> Vec<Listed> {
        let mut v: Vec<Listed> = own.iter().map(|t| (t.clone(), t.span())).collect();
        for (i, path) in listed.iter().enumerate() {
            let (t, import) = listed_name(kind, i, path);
            imports.push(import);
            v.push((t, path.span()));
        }
        v
    };
    let tools = with_spans("tool", &s.methods.tools, &s.opts.tools);
    let prompts = with_spans("prompt", &s.methods.prompts, &s.opts.prompts);
    let resources = with_spans("resource", &s.methods.resources, &s.opts.resources);
    let completions = with_spans("completion", &s.methods.completions, &s.opts.completions);
    let prompts_impl = lists::prompts(&p, ty, &prompts);
    let resources_impl = lists::resources(&p, ty, &resources);
    let completions_impl = lists::completions(&p, ty, &completions, &prompts, &resources);
    let tools_impl = tools_impl(&p, ty, &tools);
    let mut bounds: Vec<TokenStream> = Vec::new();
    for (list, tr) in [
        (&tools, "ToolDef"),
        (&prompts, "PromptDef"),
        (&resources, "ResourceDef"),
        (&completions, "CompletionDef"),
    ] {
        let tr = syn::Ident::new(tr, Span::call_site());
        for (t, span) in list {
            bounds.push(respan(quote!(for<'__mcp> #t: #p::#tr<#ty>,), *span));
        }
    }
    let tool_defs = tools
        .iter()
        .map(|(t, span)| quote_spanned!(*span=> <#t as #p::ToolDef<#ty>>));
    let unique = tools.iter().enumerate().map(|(i, (_, span))| {
        quote_spanned! {*span=>
            const _: () = ::core::assert!(
                !#p::name_taken(__MCP_NAMES, #i),
                "two tools of this server have the same name; rename one with #[tool(name = \"...\")]"
            );
        }
    });
    let defs = &s.methods.defs;
    let constructors = constructors(s, &bounds);
    let declare = declare(s);
    quote! {
        const _: () = {
            #(#imports)*
            #defs
            #[allow(dead_code)]
            const __MCP_NAMES: &[&str] = &[#(#tool_defs::NAME),*];
            #(#unique)*
            impl #p::ServerHandler for #ty where #(#bounds)* {
                #prompts_impl
                #resources_impl
                #tools_impl
                #completions_impl
                #declare
            }
            #constructors
        };
    }
}

/// How the generated code names the `i`-th listed `kind` (`tool`, ...) at `path`, and the
/// items that make that name.
///
/// `#[mcp::tool]` leaves the user's function callable under its name and adds a type of the
/// same name, so a listed path names a type (the handler) and a value (the function). A
/// plain function is only the value, and naming it as a type would be rustc's "expected
/// type, found function", which cannot suggest the attribute. So the path is imported under
/// a local name (`use path as __mcp_tool_0;`, every namespace the path has) over a glob
/// import that supplies a stand-in type of the function's name in the type namespace only
/// where the path has none: for a plain function, the `ToolDef` bound then fails on the
/// stand-in with the trait's own message ("`search` is not an MCP tool", "mark the function
/// with `#[mcp::tool]`"), at the path. Paths with generic arguments cannot be imported and
/// are named as written.
fn listed_name(kind: &str, i: usize, path: &syn::Path) -> (TokenStream, TokenStream) {
    let last = path.segments.last().map(|s| &s.ident);
    let generic = path
        .segments
        .iter()
        .any(|s| !matches!(s.arguments, syn::PathArguments::None));
    let Some(last) = last.filter(|_| !generic) else {
        return (path.to_token_stream(), TokenStream::new());
    };
    let alias = quote::format_ident!("__mcp_{}_{}", kind, i, span = path.span());
    let glob = quote::format_ident!("__mcp_{}_stand_in_{}", kind, i);
    let import = quote! {
        #[allow(dead_code, non_camel_case_types)]
        mod #glob {
            mod inner {
                pub struct #last;
            }
            pub type #alias = inner::#last;
        }
        #[allow(unused_imports)]
        use #glob::*;
        #[allow(unused_imports)]
        use #path as #alias;
    };
    (alias.to_token_stream(), import)
}

/// `tools()` / `call_tool()` over the tool types (nothing when there are none).
fn tools_impl(p: &TokenStream, ty: &TokenStream, tools: &[Listed]) -> TokenStream {
    if tools.is_empty() {
        return TokenStream::new();
    }
    let defs_of: Vec<TokenStream> = tools
        .iter()
        .map(|(t, span)| quote_spanned!(*span=> <#t as #p::ToolDef<#ty>>))
        .collect();
    let idx: Vec<usize> = (0..tools.len()).collect();
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
}

/// `declare()`: the instructions, the middleware (each boxed, for a builder given this table
/// with `.handler(...)`; `into_server()` nests them statically instead) and the settings keys.
fn declare(s: &Server) -> TokenStream {
    let p = s.root.private();
    let instructions = s
        .opts
        .instructions
        .as_ref()
        .map(|i| quote!(server.instructions(#i);));
    let mw = s.opts.middleware.iter().map(|m| {
        quote! {
            if let ::core::option::Option::Some(layer) =
                (&&#p::LayerProbe::<#m>(::core::marker::PhantomData)).boxed_layer(#m)
            {
                server.middleware(layer);
            }
        }
    });
    let settings = super::settings::calls(&p, &s.opts.settings);
    let extensions = s.opts.extensions.iter().map(|(id, settings)| {
        quote! {
            server.extension(
                #id,
                #p::serde_json::to_value(&#settings).unwrap_or(#p::serde_json::Value::Null),
            );
        }
    });
    quote! {
        fn declare(&self, server: &mut dyn #p::Declarations) {
            #[allow(unused_imports)]
            use #p::{IsALayer as _, NotALayer as _};
            #instructions
            #(#mw)*
            #settings
            #(#extensions)*
        }
    }
}

/// `into_server()`, `serve_stdio()` and `serve()` on the server type, under the listed
/// items' bounds and each middleware's `Middleware` bound (spanned at its path).
fn constructors(s: &Server, bounds: &[TokenStream]) -> TokenStream {
    let p = s.root.private();
    let ty = &s.ty;
    let mw = &s.opts.middleware;
    let mw_bounds: Vec<TokenStream> = mw
        .iter()
        .map(|m| quote_spanned!(m.span()=> #m: #p::Middleware,))
        .collect();
    let chain = chain_type(&p, mw);
    let name = match &s.opts.name {
        Some(n) => quote!(#n),
        None => quote!(::core::env!("CARGO_PKG_NAME")),
    };
    let version = match &s.opts.version {
        Some(v) => quote!(#v),
        None => quote!(::core::env!("CARGO_PKG_VERSION")),
    };
    quote! {
        impl #ty where #(#bounds)* {
            /// This server, built: serve it over stdio, a byte stream or an in-memory pipe.
            #[allow(dead_code)]
            pub fn into_server(self) -> #p::Server<#chain, Self>
            where
                #(#mw_bounds)*
            {
                #p::Server::builder(#name, #version)
                    #(.middleware(#mw))*
                    .handler_with_static_layers(self)
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
    }
}

/// The type of the chain that `.middleware(a)` … `.middleware(z)` builds from `()`: the
/// tuple `(A, …)` up to 12, then `Then<_, M>` for each one more (`Chain::With`).
fn chain_type(p: &TokenStream, mw: &[syn::Path]) -> TokenStream {
    let (head, tail) = mw.split_at(mw.len().min(12));
    let mut ty = quote!((#(#head,)*));
    for m in tail {
        ty = quote!(#p::Then<#ty, #m>);
    }
    ty
}
