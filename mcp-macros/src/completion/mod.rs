//! `#[completion(prompt = "...", argument = "...")]` / `#[completion(resource = "...",
//! argument = "...")]`: the model of one completer ([`Completion`]) and the three passes —
//! [`parse`], [`check`], [`codegen`] (a `CompletionDef` implementation).
//!
//! The function takes the partial value as one `String` parameter, and may take the
//! context and the already-resolved arguments (`ResolvedArguments`), each recognised by
//! type. Whether the prompt (with that argument) or template exists is checked by
//! `#[mcp::server]`, which sees all of them.

mod check;
mod codegen;
mod parse;

use proc_macro2::TokenStream;

use crate::errors::Errors;
use crate::model::HandlerFn;
use crate::model::root::Root;
use crate::pipeline::{self, Handler};

/// The normalised form of one `#[completion]` function or method.
pub struct Completion {
    pub root: Root,
    pub func: HandlerFn,
    pub prompt: Option<syn::LitStr>,
    pub resource: Option<syn::LitStr>,
    pub argument: Option<syn::LitStr>,
}

/// The `#[completion]` attribute.
pub struct CompletionAttr;

impl Handler for CompletionAttr {
    type Model = Completion;
    const NAME: &'static str = "completion";
    const WRITTEN: &'static str = "#[mcp::completion]";

    fn parse(
        args: TokenStream,
        attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
        method: bool,
        root: &Root,
        errors: &mut Errors,
    ) -> Completion {
        parse::parse(args, attrs, sig, method, root, errors)
    }
    fn check(model: &Completion, errors: &mut Errors) {
        check::check(model, errors);
    }
    fn codegen(
        model: &Completion,
        def_ty: &TokenStream,
        server: Option<&TokenStream>,
    ) -> TokenStream {
        codegen::codegen(model, def_ty, server)
    }
    fn placeholder(model: &Completion, def_ty: &TokenStream) -> TokenStream {
        codegen::placeholder(model, def_ty)
    }
}

/// `#[mcp::completion]` on a free function.
pub fn completion_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    pipeline::free_fn::<CompletionAttr>(args, item)
}
