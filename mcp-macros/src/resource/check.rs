//! Every problem of a parsed [`Resource`]: the shared handler checks, a valid URI or level-1
//! template, each parameter bound to a template variable of its name and each variable to a
//! parameter, a non-empty name.

use proc_macro2::Span;
use syn::Type;

use super::Resource;
use crate::check::{self, Kind};
use crate::errors::Errors;
use crate::model::unraw;

const KIND: Kind = Kind {
    attr: "#[resource]",
    name: "resource",
    list: "resources",
    generic: "use concrete types",
    receiver: "a `#[resource]` method takes `&self`: handlers of one server may run \
               concurrently; use interior mutability (a `Mutex`) for state",
    output: "",
};

/// The MCP Apps checks: app keys only on a `ui://` URI; a UI resource concrete, with the app
/// MIME type, CSP entries that are origins, known directives and permissions, a non-empty
/// domain.
fn app(m: &Resource, vars: Option<&[String]>, errors: &mut Errors) {
    use mcp_core::rules::{APP_MIME_TYPE, check_origin, check_ui_uri};
    let (uri, uri_span) = m.uri();
    if !m.is_ui() {
        if let Some(span) = m.app.span {
            errors.at(
                span,
                format!(
                    "`csp`, `permissions`, `domain` and `prefers_border` are for MCP App views: \
                     the URI must be `ui://...`, not `{uri}`"
                ),
            );
        }
        return;
    }
    if let Err(e) = check_ui_uri(&uri) {
        errors.at(uri_span, e);
    }
    if vars.is_some_and(|v| !v.is_empty()) {
        errors.at(
            uri_span,
            "a UI resource is one document at a concrete `ui://` URI, not a template",
        );
    }
    if let Some(mime) = &m.mime_type
        && mime.value() != APP_MIME_TYPE
    {
        errors.spanned(
            mime,
            format!(
                "a `ui://` resource is served as `{APP_MIME_TYPE}` (the default), not `{}`",
                mime.value()
            ),
        );
    }
    let known = |keys: &[(&str, &str)]| {
        keys.iter()
            .map(|(k, _)| *k)
            .collect::<Vec<_>>()
            .join("`, `")
    };
    let mut seen: Vec<String> = Vec::new();
    for (k, list) in &m.app.csp {
        if !super::CSP_KEYS.iter().any(|(n, _)| k == n) {
            errors.spanned(k, format!("`csp(...)` takes `{}`", known(&super::CSP_KEYS)));
        }
        if seen.contains(&k.to_string()) {
            errors.spanned(k, format!("`{k}` is given twice"));
        }
        seen.push(k.to_string());
        for origin in list {
            if let Err(e) = check_origin(&origin.value()) {
                errors.spanned(origin, e);
            }
        }
    }
    let mut seen: Vec<String> = Vec::new();
    for p in &m.app.permissions {
        if !super::PERMISSION_KEYS.iter().any(|(n, _)| p == n) {
            errors.spanned(
                p,
                format!(
                    "`permissions(...)` takes `{}`",
                    known(&super::PERMISSION_KEYS)
                ),
            );
        }
        if seen.contains(&p.to_string()) {
            errors.spanned(p, format!("`{p}` is given twice"));
        }
        seen.push(p.to_string());
    }
    if let Some(d) = &m.app.domain
        && d.value().trim().is_empty()
    {
        errors.spanned(d, "`domain` cannot be empty");
    }
}

/// Reports every problem of a parsed resource.
pub fn check(m: &Resource, errors: &mut Errors) {
    check::handler(&m.func, &KIND, errors);
    let (uri, uri_span) = m.uri();
    if m.uri.is_none() {
        errors.at(
            Span::call_site(),
            "a resource needs its URI: `#[resource(\"scheme://path\")]`, or a template \
             such as `#[resource(\"books://{id}\")]`",
        );
    }
    let vars = match m.vars() {
        Ok(v) => Some(v),
        Err(problem) => {
            errors.at(uri_span, format!("invalid URI template `{uri}`: {problem}"));
            None
        }
    };
    if m.uri.is_some() && uri.is_empty() {
        errors.at(uri_span, "the resource URI cannot be empty");
    }
    params(m, vars.as_deref(), errors);
    app(m, vars.as_deref(), errors);
    check::tags(m.tags.as_ref(), errors);
    let (name, span) = m.name();
    if name.is_empty() {
        errors.at(span, "a resource name cannot be empty");
    }
    check::output(&m.func, &KIND, errors);
}

/// Each plain parameter names a template variable, and each variable has a parameter.
/// With a missing or invalid URI (already reported) the binding is not judged.
fn params(m: &Resource, vars: Option<&[String]>, errors: &mut Errors) {
    let (uri, uri_span) = m.uri();
    let known = vars.filter(|_| m.uri.is_some());
    let mut bound = vec![false; known.map_or(0, <[String]>::len)];
    for p in &m.func.params {
        if p.injected.is_some() {
            continue;
        }
        let Some(ident) = check::plain_name(
            p,
            "a resource parameter needs a plain name: it binds the URI template variable of \
             that name",
            errors,
        ) else {
            continue;
        };
        if let Type::Reference(r) = &p.ty {
            errors.spanned(
                r,
                "a resource parameter must be owned (it is parsed from the URI with \
                 `FromStr`): use `String` instead of `&str`",
            );
            continue;
        }
        let Some(vars) = known else { continue };
        let n = unraw(ident);
        match vars.iter().position(|v| *v == n) {
            Some(i) => bound[i] = true,
            None if vars.is_empty() => errors.spanned(
                ident,
                format!(
                    "the parameter `{n}` is not a variable of the URI `{uri}`, which has none: \
                     write the URI as a template (`{{{n}}}`) or remove the parameter"
                ),
            ),
            None => errors.spanned(
                ident,
                format!(
                    "the parameter `{n}` is not a variable of the URI template `{uri}` (its \
                     variables: {}); parameters bind to variables by name",
                    vars.iter()
                        .map(|v| format!("`{v}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ),
        }
    }
    for (v, b) in known.unwrap_or_default().iter().zip(&bound) {
        if !b {
            errors.at(
                uri_span,
                format!(
                    "the URI template variable `{{{v}}}` has no parameter: add `{v}: String` \
                     (or any `FromStr` type) to the function"
                ),
            );
        }
    }
}
