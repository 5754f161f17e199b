//! A handler macro as three passes — parse into a model, check it (every error collected),
//! generate code from a model that passed — and the driver that runs them for an attribute
//! on a free function. `#[mcp::server] impl` runs the same passes for each method.

use proc_macro2::{Span, TokenStream};
use quote::quote;

use crate::errors::Errors;
use crate::model::root::Root;

/// One handler attribute (`#[tool]`, `#[prompt]`, `#[resource]`, `#[completion]`).
pub trait Handler {
    /// The normalised input: the attribute's options and the function's model.
    type Model;
    /// The attribute's name, as recognised inside `#[mcp::server] impl`: `tool`.
    const NAME: &'static str;
    /// How it is written in the error on something that is not a function.
    const WRITTEN: &'static str;

    /// Reads the attribute's options (`args`) and the function; strips the parameter
    /// attributes from `sig`. Syntax errors and option errors (unknown or repeated keys) go
    /// to `errors`; the model holds what could be read. `root` is the crate path unless the
    /// options say `crate = "..."`.
    fn parse(
        args: TokenStream,
        attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
        method: bool,
        root: &Root,
        errors: &mut Errors,
    ) -> Self::Model;

    /// Reports every problem of a parsed model.
    fn check(model: &Self::Model, errors: &mut Errors);

    /// The trait implementation on `def_ty` for a model without errors; `server` is the
    /// server type for methods (free functions implement the trait for every server).
    fn codegen(
        model: &Self::Model,
        def_ty: &TokenStream,
        server: Option<&TokenStream>,
    ) -> TokenStream;

    /// A stand-in implementation on `def_ty` for a model with errors, so a server listing
    /// it shows no follow-on errors.
    fn placeholder(model: &Self::Model, def_ty: &TokenStream) -> TokenStream;
}

/// The attribute `H` on a free function: the function as written (less parameter
/// attributes), a hidden type of the same name implementing the handler trait, and every
/// error at once. With errors the type gets a stand-in implementation, except for a method
/// outside `#[mcp::server] impl`, where only the method may be emitted.
///
/// The hidden type is the one item this adds to the user's namespace, and it must be named:
/// `#[mcp::server(tools(search))]` names it. It is a braced struct (`struct search {}`), so
/// it lives in the type namespace beside the function without clashing with it; everything
/// else is inside `const _: () = { ... };`.
pub fn free_fn<H: Handler>(args: TokenStream, item: TokenStream) -> TokenStream {
    let mut f: syn::ItemFn = match syn::parse2(item.clone()) {
        Ok(f) => f,
        Err(_) => {
            let e = syn::Error::new(
                Span::call_site(),
                format!(
                    "`{}` goes on an `async fn` (or on `&self` methods inside `#[mcp::server] impl`)",
                    H::WRITTEN
                ),
            )
            .to_compile_error();
            return quote!(#e #item);
        }
    };
    let mut errors = Errors::default();
    let root = Root::default();
    f.attrs.retain(|a| !root.names(a.path(), H::NAME));
    let model = H::parse(args, &f.attrs, &mut f.sig, false, &root, &mut errors);
    H::check(&model, &mut errors);
    let ident = &f.sig.ident;
    let vis = &f.vis;
    let def_ty = quote!(#ident);
    let strukt = quote! {
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis struct #ident {}
    };
    if errors.is_empty() {
        let body = H::codegen(&model, &def_ty, None);
        return quote!(#f #strukt #body);
    }
    let errs = errors.to_compile_errors();
    if matches!(f.sig.inputs.first(), Some(syn::FnArg::Receiver(_))) {
        return quote!(#errs #f);
    }
    let ph = H::placeholder(&model, &def_ty);
    quote!(#errs #f #strukt const _: () = { #ph };)
}
