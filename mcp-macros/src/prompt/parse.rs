//! Reading `#[prompt(...)]`, the function and each parameter's `#[arg(...)]` into a
//! [`Prompt`]; only syntax and option keys are judged here.

use proc_macro2::TokenStream;

use super::{ArgOptions, Prompt};
use crate::attr::{self, Keys, Spec, lit_str};
use crate::errors::Errors;
use crate::model::HandlerFn;
use crate::model::inject::Site;
use crate::model::root::Root;

const PROMPT: Spec = Spec {
    what: "`#[prompt]`",
    known: &["name", "title", "description", "tags"],
    takes_crate: true,
};
const ARG: Spec = Spec {
    what: "prompt `#[arg]`",
    known: &["rename", "description"],
    takes_crate: false,
};

/// The prompt's model; syntax and option-key errors go to `errors`.
pub fn parse(
    args: TokenStream,
    attrs: &[syn::Attribute],
    sig: &mut syn::Signature,
    method: bool,
    root: &Root,
    errors: &mut Errors,
) -> Prompt {
    let mut keys = Keys::default();
    let (mut name, mut title, mut description, mut tags) = (None, None, None, None);
    attr::parse(args, &PROMPT, &mut keys, errors, |key, meta, errs| {
        match key {
            "name" => name = Some(lit_str(meta)?),
            "title" => title = Some(lit_str(meta)?),
            "description" => description = Some(lit_str(meta)?),
            "tags" => tags = Some(attr::tags(meta, errs)?),
            _ => return Ok(false),
        }
        Ok(true)
    });
    let root = keys.root.unwrap_or_else(|| root.clone());
    let func = HandlerFn::take(attrs, sig, method, Site::Handler, &root);
    let args = func
        .params
        .iter()
        .map(|p| {
            let mut a = ArgOptions::default();
            if p.injected.is_some() {
                return a;
            }
            let mut keys = Keys::default();
            for at in &p.arg_attrs {
                attr::parse_attr(at, &ARG, &mut keys, errors, |key, meta, _| {
                    match key {
                        "rename" => a.rename = Some(lit_str(meta)?),
                        "description" => a.description = Some(lit_str(meta)?),
                        _ => return Ok(false),
                    }
                    Ok(true)
                });
            }
            a
        })
        .collect();
    Prompt {
        root,
        func,
        name,
        title,
        description,
        tags,
        args,
    }
}
