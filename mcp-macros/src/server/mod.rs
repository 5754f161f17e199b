//! `#[server]`: on a struct (`tools(...)`, `middleware(...)`) or on an impl block whose
//! `#[tool]` / `#[prompt]` / `#[resource]` / `#[completion]` methods it collects. The passes:
//! [`parse`] (the options), [`methods`] (each method through its own macro's passes),
//! [`check`], [`codegen`] (the `ServerHandler`, a `match` on the name per kind, the lists
//! built once, and `into_server()` / `serve_stdio()` / `serve()`).

mod check;
mod codegen;
mod lists;
mod methods;
mod parse;
mod settings;

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};

use crate::errors::Errors;
use crate::model::root::Root;

/// The options of `#[mcp::server(...)]`.
#[derive(Default)]
pub struct Options {
    pub name: Option<syn::LitStr>,
    pub version: Option<syn::LitStr>,
    pub instructions: Option<String>,
    /// Free tools (`tools(a, b)`).
    pub tools: Vec<syn::Path>,
    /// Free prompts (`prompts(a, b)`).
    pub prompts: Vec<syn::Path>,
    /// Free resources and templates (`resources(a, b)`).
    pub resources: Vec<syn::Path>,
    /// Free completions (`completions(a, b)`).
    pub completions: Vec<syn::Path>,
    /// The listed middleware, outermost first.
    pub middleware: Vec<syn::Path>,
    /// The builder settings named by keys (`title`, `page_size`, `subscriptions`, ...),
    /// checked, as calls on `Declarations`.
    pub settings: Vec<settings::Setting>,
    /// `extensions("vendor.prefix/name" = settings, ...)`: protocol extensions declared
    /// through `ServerBuilder::extension`.
    pub extensions: Vec<(syn::LitStr, syn::Expr)>,
}

impl Options {
    fn offers_nothing(&self) -> bool {
        self.tools.is_empty() && self.prompts.is_empty() && self.resources.is_empty()
    }
}

/// The normalised form of one `#[mcp::server]`: its options, the server type, and the
/// handlers defined as methods (for the impl-block form).
pub struct Server {
    pub root: Root,
    pub opts: Options,
    pub ty: TokenStream,
    pub methods: methods::Methods,
}

/// `#[mcp::server]` on a struct, an enum or an inherent impl block.
pub fn server_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut errors = Errors::default();
    let (opts, root) = parse::parse(args, &mut errors);
    let parsed: syn::Item = match syn::parse2(item.clone()) {
        Ok(i) => i,
        Err(e) => {
            let e = e.to_compile_error();
            return quote!(#e #item);
        }
    };
    let (item, ty, methods, nothing) = match parsed {
        syn::Item::Struct(s) => {
            check::generics(&s.generics, &mut errors);
            let span = s.ident.span();
            let ty = s.ident.to_token_stream();
            (
                s.into_token_stream(),
                ty,
                None,
                (span, check::NOTHING_STRUCT),
            )
        }
        syn::Item::Enum(s) => {
            check::generics(&s.generics, &mut errors);
            let span = s.ident.span();
            let ty = s.ident.to_token_stream();
            (s.into_token_stream(), ty, None, (span, check::NOTHING_ENUM))
        }
        syn::Item::Impl(mut imp) => {
            check::impl_block(&imp, &mut errors);
            let ty = imp.self_ty.to_token_stream();
            let methods = methods::collect(&mut imp, &ty, &root, &mut errors);
            let span = syn::spanned::Spanned::span(&imp.self_ty);
            (
                imp.into_token_stream(),
                ty,
                Some(methods),
                (span, check::NOTHING_IMPL),
            )
        }
        other => {
            let e = syn::Error::new_spanned(
                &other,
                "`#[mcp::server]` goes on a struct (with `tools(...)`) or on an impl block with `#[tool]` methods",
            )
            .to_compile_error();
            return quote!(#e #other);
        }
    };
    let server = Server {
        root,
        opts,
        ty,
        methods: methods.unwrap_or_default(),
    };
    check::check(&server, nothing, &mut errors);
    if !errors.is_empty() {
        let errs = errors.to_compile_errors();
        return quote!(#errs #item);
    }
    let body = codegen::codegen(&server);
    quote!(#item #body)
}
