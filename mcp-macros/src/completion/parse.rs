//! Reading `#[completion(...)]` and the function into a [`Completion`]; only syntax and
//! option keys are judged here.

use proc_macro2::TokenStream;

use super::Completion;
use crate::attr::{self, Keys, Spec, lit_str};
use crate::errors::Errors;
use crate::model::HandlerFn;
use crate::model::inject::Site;
use crate::model::root::Root;

const COMPLETION: Spec = Spec {
    what: "`#[completion]`",
    known: &["prompt", "resource", "argument"],
    takes_crate: true,
};

/// The completion's model; syntax and option-key errors go to `errors`.
pub fn parse(
    args: TokenStream,
    attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    method: bool,
    root: &Root,
    errors: &mut Errors,
) -> Completion {
    let mut keys = Keys::default();
    let (mut prompt, mut resource, mut argument) = (None, None, None);
    attr::parse(args, &COMPLETION, &mut keys, errors, |key, meta, _| {
        match key {
            "prompt" => prompt = Some(lit_str(meta)?),
            "resource" => resource = Some(lit_str(meta)?),
            "argument" => argument = Some(lit_str(meta)?),
            _ => return Ok(false),
        }
        Ok(true)
    });
    let root = keys.root.unwrap_or_else(|| root.clone());
    let func = HandlerFn::take(attrs, sig, method, Site::Completion, &root);
    Completion {
        root,
        func,
        prompt,
        resource,
        argument,
    }
}
