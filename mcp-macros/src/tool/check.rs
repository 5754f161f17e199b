//! Every problem of a parsed [`Tool`]: its options, the shared handler checks, each plain
//! parameter (a name, an owned type, its `#[arg]` options), unique argument and header
//! names, and the tool's name.

use proc_macro2::Span;
use quote::ToTokens;
use syn::Type;

use super::{Icons, Tool, rules};
use crate::check::{self, Kind};
use crate::errors::Errors;
use crate::model::unraw;

const KIND: Kind = Kind {
    attr: "#[tool]",
    name: "tool",
    list: "tools",
    generic: "the server needs one concrete argument schema per tool; use concrete types",
    receiver: "a tool method takes `&self`: tools of one server may run concurrently, so \
               `self`, `&mut self` and other receivers are not supported; use interior \
               mutability (a `Mutex`) for state",
    output: " (it decides the output schema)",
};

/// Reports every problem of a parsed tool.
pub fn check(t: &Tool, errors: &mut Errors) {
    options(t, errors);
    check::handler(&t.func, &KIND, errors);
    params(t, errors);
    let (name, span) = t.name();
    if !rules::is_valid_tool_name(&name) {
        errors.at(
            span,
            format!(
                "invalid tool name `{name}`: use 1 to 128 of `A-Z a-z 0-9 _ - .` \
                 (set it with `#[tool(name = \"...\")]`)"
            ),
        );
    }
    if let Some(message) = rules::reserved(&name) {
        errors.at(span, message);
    }
    check::output(&t.func, &KIND, errors);
}

fn options(t: &Tool, errors: &mut Errors) {
    let o = &t.opts;
    if let Some(Icons::Sources(key, list)) = &o.icons {
        if list.is_empty() {
            errors.at(*key, "`icons(...)` lists at least one icon URI");
        }
        for src in list {
            if let Err(why) = rules::icon_src(&src.value()) {
                errors.spanned(src, why);
            }
        }
    }
    for (i, (key, _)) in o.meta.iter().enumerate() {
        if let Err(why) = rules::meta_key(&key.value()) {
            errors.spanned(key, why);
        }
        if let Some((first, _)) = o.meta[..i].iter().find(|(k, _)| k.value() == key.value()) {
            errors.twice(
                key.span(),
                first.span(),
                format!("the `_meta` key `{}` is given twice", key.value()),
            );
        }
    }
    if let Some(task) = &o.task
        && rules::task_variant(&task.value()).is_none()
    {
        errors.spanned(
            task,
            format!(
                "`task` is \"optional\", \"required\" or \"forbidden\", not {:?}",
                task.value()
            ),
        );
    }
    ui(o, errors);
    check::tags(o.tags.as_ref(), errors);
    if o.tags.is_some()
        && let Some((k, _)) = o.meta.iter().find(|(k, _)| k.value() == "tags")
    {
        errors.spanned(
            k,
            "`_meta.tags` is set by `tags(...)`; do not give it in `meta(...)` too",
        );
    }
    for path in &o.unsupported {
        errors.spanned(
            path,
            format!(
                "`{}` is not supported by `#[tool]` yet",
                path.to_token_stream()
            ),
        );
    }
}

/// `ui = "ui://..."` and `visibility(...)`: a `ui://` URI, a visibility of `"model"` and/or
/// `"app"` without repeats and only beside `ui`, and no hand-written `_meta` `ui` key.
fn ui(o: &super::Options, errors: &mut Errors) {
    use mcp_core::rules::{UiVisibility, check_ui_uri, check_visibility};
    if let Some(uri) = &o.ui
        && let Err(e) = check_ui_uri(&uri.value())
    {
        errors.spanned(uri, e);
    }
    if let Some((key, list)) = &o.visibility {
        if o.ui.is_none() {
            errors.at(*key, "`visibility(...)` needs `ui = \"ui://...\"`: it is the visibility of the tool's MCP App");
        }
        let mut seen = Vec::new();
        for v in list {
            match UiVisibility::parse(&v.value()) {
                Some(x) => {
                    if seen.contains(&x) {
                        errors.spanned(v, format!("`visibility` names `{}` twice", x.as_str()));
                    }
                    seen.push(x);
                }
                None => errors.spanned(
                    v,
                    format!(
                        "`visibility` holds \"model\" and/or \"app\", not {:?}",
                        v.value()
                    ),
                ),
            }
        }
        if list.is_empty()
            && let Err(e) = check_visibility(&[])
        {
            errors.at(*key, e);
        }
    }
    if o.ui.is_some()
        && let Some((k, _)) = o.meta.iter().find(|(k, _)| k.value() == "ui")
    {
        errors.spanned(
            k,
            "`_meta.ui` is set by `ui = \"...\"` (and `visibility(...)`); do not give it in `meta(...)` too",
        );
    }
}

/// Each plain parameter, then the names they have in the schema and their headers.
fn params(t: &Tool, errors: &mut Errors) {
    let mut names: Vec<(String, Span)> = Vec::new();
    let mut headers: Vec<&syn::LitStr> = Vec::new();
    for (p, a) in t.func.params.iter().zip(&t.args) {
        if p.injected.is_some() {
            continue;
        }
        let Some(ident) = check::plain_name(
            p,
            "a tool parameter needs a plain name: the name is the argument's name in the schema",
            errors,
        ) else {
            continue;
        };
        if matches!(p.ty, Type::ImplTrait(_)) {
            errors.spanned(&p.ty, "a tool parameter cannot be `impl Trait`");
            continue;
        }
        if let Type::Reference(r) = &p.ty {
            errors.spanned(
                r,
                "a tool parameter must be owned (arguments are decoded per call): use \
                 `String` instead of `&str`, `Vec<T>` instead of `&[T]`; only the \
                 context may be taken by reference",
            );
            continue;
        }
        if let Some(r) = &a.rename
            && r.value().is_empty()
        {
            errors.spanned(r, "`rename` cannot be empty");
        }
        if let Some(h) = &a.header {
            header(h, &p.ty, errors);
            if let Some(first) = headers
                .iter()
                .find(|f| f.value().eq_ignore_ascii_case(&h.value()))
            {
                errors.twice(
                    h.span(),
                    first.span(),
                    format!(
                        "two parameters of this tool are mirrored to the header `Mcp-Param-{}`: \
                         `x-mcp-header` names must be unique ignoring case",
                        h.value()
                    ),
                );
            }
            headers.push(h);
        }
        let (n, span) = match &a.rename {
            Some(r) => (r.value(), r.span()),
            None => (unraw(ident), ident.span()),
        };
        if names.iter().any(|(m, _)| *m == n) {
            errors.at(span, format!("two arguments of this tool are named `{n}`"));
        }
        names.push((n, span));
    }
}

/// The spec's rules for one `x-mcp-header` value (uniqueness is checked per tool).
fn header(name: &syn::LitStr, ty: &Type, errors: &mut Errors) {
    let v = name.value();
    if v.is_empty() {
        errors.spanned(
            name,
            "the `header` name cannot be empty: it names the HTTP header `Mcp-Param-{name}`",
        );
    } else if !rules::is_token(&v) {
        let bad: String = v
            .chars()
            .filter(|c| !c.is_ascii() || !rules::is_token(&c.to_string()))
            .map(|c| format!("{c:?}"))
            .collect::<Vec<_>>()
            .join(", ");
        errors.spanned(
            name,
            format!(
                "`{v}` is not a valid header name (an RFC 9110 token): it may hold only letters, \
                 digits and !#$%&'*+-.^_`|~, not {bad}"
            ),
        );
    }
    if rules::header_json_type(ty).is_none() {
        errors.spanned(
            ty,
            format!(
                "only string, integer and boolean parameters can be mirrored to a header \
                 (`x-mcp-header`); `{}` is not one of them: use `String`, an integer type, \
                 `bool`, or an `Option` of one",
                ty.to_token_stream().to_string().replace(' ', "")
            ),
        );
    }
}
