//! Code generation shared by the handler macros: the head of a `…Def` implementation for a
//! free function or a method, the stand-in implementation written when there are errors,
//! the code that supplies injected parameters, and token rewriting (`Self`, spans).
//! Everything names the runtime through `<root>::__private` (`p` below).

mod tokens;

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, format_ident, quote};

use crate::model::inject::Injected;

pub use tokens::{respan, self_as};

/// The pieces of a `…Def` implementation of the trait `tr` (a path such as
/// `<p>::PromptDef`) for `def_ty` that depend on whether the function `fn_ident` is free
/// (`server` is `None`; `bounds` go on its `__S`) or a method of `server`: the impl head,
/// what the body calls (`f` or `__server.f`), the server type in the signature (`__S` or
/// the server), and the statement that marks `__server` used.
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

/// What a stand-in `…Def` implementation (for a function with errors) looks like: the
/// trait, its constants and listing functions, and the handler method whose future fails.
pub struct Placeholder<'a> {
    /// `<p>::ToolDef`.
    pub tr: TokenStream,
    pub items: TokenStream,
    /// The handler method (`call`) and its parameters after the server and the context.
    pub method: &'a str,
    pub extra: &'a [TokenStream],
    /// The handler's success type.
    pub output: TokenStream,
    /// "tool", for the error the stand-in would return.
    pub what: &'a str,
}

/// The stand-in implementation on `def_ty`, so a server listing it shows no follow-on
/// errors.
pub fn placeholder(p: &TokenStream, def_ty: &TokenStream, ph: Placeholder<'_>) -> TokenStream {
    let Placeholder {
        tr,
        items,
        method,
        extra,
        output,
        what,
    } = ph;
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

/// What the generated handler body needs for its injected parameters.
#[derive(Default)]
pub struct Supply {
    /// `let __injN = ...;` statements, run before the call.
    pub lets: Vec<TokenStream>,
    /// Bounds a free function's impl puts on the server type `__S` (`Sync`,
    /// `Provides<T>` per `State<T>`).
    pub state_bounds: Vec<TokenStream>,
}

impl Supply {
    /// The call argument for `inj`, the `i`-th parameter; `self_fix` maps `Self` in a
    /// state type to the server type. The body has `__server` and `__ctx` in scope (and a
    /// completion's `__resolved`).
    pub fn arg(
        &mut self,
        p: &TokenStream,
        inj: &Injected,
        i: usize,
        self_fix: impl Fn(TokenStream) -> TokenStream,
    ) -> TokenStream {
        let v = format_ident!("__inj{}", i);
        let (value, by_ref) = match inj {
            Injected::Context { by_ref: true, .. } => return quote!(&__ctx),
            Injected::Context { by_ref: false, .. } => return quote!(__ctx),
            Injected::Resolved { by_ref: true } => return quote!(&__resolved),
            Injected::Resolved { by_ref: false } => return quote!(__resolved),
            Injected::State { ty, .. } => {
                let t = match ty {
                    Some(t) => self_fix(t.to_token_stream()),
                    None => quote!(()),
                };
                if self.state_bounds.is_empty() {
                    // The future holds a borrow of the server.
                    self.state_bounds.push(quote!(::core::marker::Sync));
                }
                self.state_bounds.push(quote!(#p::Provides<#t>));
                (quote!(#p::State::<#t>::of(__server)), false)
            }
            Injected::Cancel { by_ref } => (
                quote!(::core::clone::Clone::clone(__ctx.cancellation())),
                *by_ref,
            ),
            Injected::Progress { by_ref } => (
                quote!(#p::Progress::new(::core::clone::Clone::clone(&__ctx))),
                *by_ref,
            ),
            // Only middleware takes `Next`; it has no generated handler body.
            Injected::Next => return quote!(::core::unreachable!()),
        };
        self.lets.push(quote!(let #v = #value;));
        if by_ref { quote!(&#v) } else { quote!(#v) }
    }
}

/// The statement that tags the listing entry `target` (`__t`, `__p`, `__r`), if tagged.
pub fn tags(
    p: &TokenStream,
    tags: Option<&crate::model::Tags>,
    target: &str,
) -> Option<TokenStream> {
    let list = &tags?.list;
    let target = syn::Ident::new(target, Span::call_site());
    Some(quote!(#p::set_tags(&mut #target.meta, [#(#list),*]);))
}
