//! Every problem of a parsed [`Completion`]: one target (a prompt or a template with that
//! variable) and its argument, the shared shape and receiver checks, and the parameters: one
//! `String` (the partial value), at most one context and one `ResolvedArguments`.

use proc_macro2::Span;
use quote::ToTokens;
use syn::spanned::Spanned;

use super::Completion;
use crate::check::{self, Kind};
use crate::errors::Errors;
use crate::model::inject::Injected;
use crate::model::is_string;

const KIND: Kind = Kind {
    attr: "#[completion]",
    name: "completion",
    list: "completions",
    generic: "use concrete types",
    receiver: "a `#[completion]` method takes `&self`: handlers of one server may run \
               concurrently; use interior mutability (a `Mutex`) for state",
    output: "",
};

/// Reports every problem of a parsed completion.
pub fn check(m: &Completion, errors: &mut Errors) {
    target(m, errors);
    check::shape(&m.func, &KIND, errors);
    check::receiver(&m.func, &KIND, errors);
    params(m, errors);
    check::output(&m.func, &KIND, errors);
}

fn target(m: &Completion, errors: &mut Errors) {
    let ident = &m.func.ident;
    match (&m.prompt, &m.resource) {
        (Some(_), Some(r)) => errors.spanned(
            r,
            "a completion is for a prompt or for a resource template, not both: write \
             two `#[completion]` functions",
        ),
        (None, None) => errors.spanned(
            ident,
            "say what this completes: `#[completion(prompt = \"name\", argument = \"arg\")]` \
             or `#[completion(resource = \"scheme://{var}\", argument = \"var\")]`",
        ),
        _ if m.argument.is_none() => errors.spanned(
            ident,
            "name the argument this completes: add `argument = \"...\"`",
        ),
        (Some(name), None) if name.value().is_empty() => {
            errors.spanned(name, "the prompt name cannot be empty");
        }
        _ => {}
    }
    if let (None, Some(uri), Some(arg)) = (&m.prompt, &m.resource, &m.argument) {
        let vars = template_variables(&uri.value());
        if vars.is_empty() {
            errors.spanned(
                uri,
                format!(
                    "`{}` has no `{{variables}}`: only resource templates have arguments to \
                     complete",
                    uri.value()
                ),
            );
        } else if !vars.contains(&arg.value()) {
            errors.spanned(
                arg,
                format!(
                    "the template `{}` has no variable `{}` (its variables: {})",
                    uri.value(),
                    arg.value(),
                    vars.iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            );
        }
    }
}

/// One slot per kind of parameter: the context, the value, the resolved arguments.
fn params(m: &Completion, errors: &mut Errors) {
    let mut seen: [Option<Span>; 3] = [None; 3];
    for p in &m.func.params {
        for a in &p.arg_attrs {
            errors.spanned(a, "`#[arg]` does not apply to completion parameters");
        }
        let (slot, what) = match &p.injected {
            Some(Injected::Context { mutable, .. }) => {
                if *mutable {
                    errors.spanned(
                        &p.ty,
                        "the context is shared: take `&Context` or `Context`, not `&mut Context`",
                    );
                }
                (0, "context parameter")
            }
            Some(_) => (2, "`ResolvedArguments` parameter"),
            None if is_string(&p.ty) => (1, "`String` parameter (the partial value)"),
            None => {
                errors.spanned(
                    &p.ty,
                    format!(
                        "a completion function takes the partial value as one `String`, \
                         and optionally `Context` and `ResolvedArguments` (the arguments \
                         already filled in); `{}` is none of these",
                        p.ty.to_token_stream().to_string().replace(' ', "")
                    ),
                );
                continue;
            }
        };
        if let Some(first) = seen[slot] {
            errors.twice_spanned(
                &p.ty,
                first,
                format!("a completion takes at most one {what}"),
            );
        }
        seen[slot] = Some(p.ty.span());
    }
}

/// The `{variables}` of a URI template, in order.
fn template_variables(uri: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = uri;
    while let Some(i) = rest.find('{') {
        let Some(j) = rest[i..].find('}') else { break };
        out.push(rest[i + 1..i + j].to_owned());
        rest = &rest[i + j + 1..];
    }
    out
}
