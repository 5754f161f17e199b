//! `#[prompt]`: the model of one prompt function or method ([`Prompt`]: its `String` /
//! `Option<String>` parameters are the prompt's arguments), and the three passes —
//! [`parse`], [`check`], [`codegen`] (a `PromptDef` implementation).

mod check;
mod codegen;
mod parse;

use proc_macro2::{Span, TokenStream};

use crate::errors::Errors;
use crate::model::root::Root;
use crate::model::{HandlerFn, Param, option_inner, unraw};
use crate::pipeline::{self, Handler};

/// The normalised form of one `#[prompt]` function or method.
pub struct Prompt {
    pub root: Root,
    pub func: HandlerFn,
    pub name: Option<syn::LitStr>,
    pub title: Option<syn::LitStr>,
    pub description: Option<syn::LitStr>,
    /// `tags("admin", ...)`: `_meta.tags`.
    pub tags: Option<crate::model::Tags>,
    /// The `#[arg(...)]` options of each parameter, in the order of `func.params`.
    pub args: Vec<ArgOptions>,
}

/// The options of a prompt parameter's `#[arg(...)]`.
#[derive(Default)]
pub struct ArgOptions {
    pub rename: Option<syn::LitStr>,
    pub description: Option<syn::LitStr>,
}

impl Prompt {
    /// The prompt's name and where to report it.
    pub fn name(&self) -> (String, Span) {
        self.func.name(self.name.as_ref())
    }

    /// The argument a plain parameter is: its name (after `rename`) and description.
    pub fn argument(p: &Param, a: &ArgOptions) -> Option<(String, Option<String>)> {
        let name = match &a.rename {
            Some(r) => r.value(),
            None => unraw(p.ident()?),
        };
        let description = a.description.as_ref().map(syn::LitStr::value);
        Some((name, description.or_else(|| p.docs.clone())))
    }

    /// Whether a plain parameter is a required argument (`String`), not `Option<String>`.
    pub fn required(p: &Param) -> bool {
        option_inner(&p.ty).is_none()
    }
}

/// The `#[prompt]` attribute.
pub struct PromptAttr;

impl Handler for PromptAttr {
    type Model = Prompt;
    const NAME: &'static str = "prompt";
    const WRITTEN: &'static str = "#[mcp::prompt]";

    fn parse(
        args: TokenStream,
        attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
        method: bool,
        root: &Root,
        errors: &mut Errors,
    ) -> Prompt {
        parse::parse(args, attrs, sig, method, root, errors)
    }
    fn check(model: &Prompt, errors: &mut Errors) {
        check::check(model, errors);
    }
    fn codegen(model: &Prompt, def_ty: &TokenStream, server: Option<&TokenStream>) -> TokenStream {
        codegen::codegen(model, def_ty, server)
    }
    fn placeholder(model: &Prompt, def_ty: &TokenStream) -> TokenStream {
        codegen::placeholder(model, def_ty)
    }
}

/// `#[mcp::prompt]` on a free function.
pub fn prompt_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    pipeline::free_fn::<PromptAttr>(args, item)
}
