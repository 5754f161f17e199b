//! `#[middleware]`: an `async fn(ctx: Context, next: Next<'_>) -> HandlerResult` becomes a
//! zero-sized type implementing `Middleware`. The model ([`Middleware`]) is the shared
//! handler-function model plus what is re-emitted; parsing is here, then [`check`] and
//! [`codegen`].

mod check;
mod codegen;

use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::attr::{self, Keys, Spec, skip_value};
use crate::errors::Errors;
use crate::model::HandlerFn;
use crate::model::inject::Site;
use crate::model::root::Root;

/// How a middleware is written, said after each mistake.
const SIGNATURE: &str =
    "write it as `async fn name(ctx: Context, next: Next<'_>) -> HandlerResult`";

const MIDDLEWARE: Spec = Spec {
    what: "`#[mcp::middleware]`",
    known: &[],
    takes_crate: true,
};

/// The normalised form of one `#[middleware]` function.
pub struct Middleware {
    pub root: Root,
    pub func: HandlerFn,
    pub item: syn::ItemFn,
}

/// `#[mcp::middleware]` on a function.
pub fn middleware_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    let f: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                format!("`#[mcp::middleware]` goes on an `async fn`: {SIGNATURE}"),
            )
            .to_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors = Errors::default();
    let model = parse(args, f, &mut errors);
    check::check(&model, &mut errors);
    if errors.is_empty() {
        codegen::codegen(&model)
    } else {
        let errs = errors.to_compile_errors();
        let stand_in = codegen::stand_in(&model);
        quote!(#errs #stand_in)
    }
}

/// Reads the options (only `crate = "..."`) and the function.
fn parse(args: TokenStream, mut item: syn::ItemFn, errors: &mut Errors) -> Middleware {
    let mut keys = Keys::default();
    attr::parse(args, &MIDDLEWARE, &mut keys, errors, |_, meta, errors| {
        errors.spanned(
            &meta.path,
            "`#[mcp::middleware]` takes no options (other than `crate = \"...\"`)",
        );
        skip_value(meta)?;
        Ok(true)
    });
    let root = keys.root.unwrap_or_default();
    let func = HandlerFn::take(&item.attrs, &mut item.sig, false, Site::Middleware, &root);
    Middleware { root, func, item }
}
