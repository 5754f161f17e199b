//! Every problem of a parsed [`Prompt`]: the shared handler checks, string arguments with
//! plain, unique names, a non-empty prompt name.

use quote::ToTokens;

use super::Prompt;
use crate::check::{self, Kind};
use crate::errors::Errors;
use crate::model::{is_string, option_inner};

const KIND: Kind = Kind {
    attr: "#[prompt]",
    name: "prompt",
    list: "prompts",
    generic: "use concrete types",
    receiver: "a `#[prompt]` method takes `&self`: handlers of one server may run \
               concurrently; use interior mutability (a `Mutex`) for state",
    output: "",
};

/// Reports every problem of a parsed prompt.
pub fn check(m: &Prompt, errors: &mut Errors) {
    check::handler(&m.func, &KIND, errors);
    check::tags(m.tags.as_ref(), errors);
    let mut names: Vec<String> = Vec::new();
    for (p, a) in m.func.params.iter().zip(&m.args) {
        if p.injected.is_some() {
            continue;
        }
        let Some(ident) = check::plain_name(
            p,
            "a prompt parameter needs a plain name: it is the argument's name",
            errors,
        ) else {
            continue;
        };
        if !is_string(&p.ty) && !option_inner(&p.ty).is_some_and(is_string) {
            errors.spanned(
                &p.ty,
                format!(
                    "prompt arguments are strings: declare `{ident}` as `String` (required) or \
                     `Option<String>` (optional), and parse it in the function; `{}` is not \
                     supported",
                    p.ty.to_token_stream().to_string().replace(' ', "")
                ),
            );
            continue;
        }
        let Some((name, _)) = Prompt::argument(p, a) else {
            continue;
        };
        if names.contains(&name) {
            errors.spanned(
                ident,
                format!("two arguments of this prompt are named `{name}`"),
            );
        }
        names.push(name);
    }
    let (name, span) = m.name();
    if name.is_empty() {
        errors.at(span, "a prompt name cannot be empty");
    }
    check::output(&m.func, &KIND, errors);
}
