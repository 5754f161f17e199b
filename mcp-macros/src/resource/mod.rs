//! `#[resource("scheme://...")]`: the model of one resource function or method
//! ([`Resource`]; a URI with `{variables}`, RFC 6570 level 1, is a template whose variables
//! bind to the function's parameters by name), and the three passes — [`parse`], [`check`],
//! [`codegen`] (a `ResourceDef` implementation).

mod check;
mod codegen;
mod parse;

use proc_macro2::{Span, TokenStream};

use crate::errors::Errors;
use crate::model::HandlerFn;
use crate::model::root::Root;
use crate::pipeline::{self, Handler};

/// The normalised form of one `#[resource]` function or method.
pub struct Resource {
    pub root: Root,
    pub func: HandlerFn,
    /// The URI (the leading literal or `uri = "..."`).
    pub uri: Option<syn::LitStr>,
    pub name: Option<syn::LitStr>,
    pub title: Option<syn::LitStr>,
    pub description: Option<syn::LitStr>,
    pub mime_type: Option<syn::LitStr>,
    /// The MCP Apps keys of a `ui://` resource.
    pub app: AppOptions,
    /// `tags("admin", ...)`: `_meta.tags`.
    pub tags: Option<crate::model::Tags>,
}

/// `csp(...)`, `permissions(...)`, `domain`, `prefers_border`: a UI resource's `_meta.ui`.
#[derive(Default)]
pub struct AppOptions {
    /// Where the first of these keys is.
    pub span: Option<Span>,
    /// `csp(connect_domains("https://..."), ...)`: each directive and its origins.
    pub csp: Vec<(syn::Ident, Vec<syn::LitStr>)>,
    /// `permissions(camera, clipboard_write, ...)`.
    pub permissions: Vec<syn::Ident>,
    pub domain: Option<syn::LitStr>,
    pub prefers_border: Option<bool>,
}

/// The `csp(...)` directives: the key and the wire name.
pub const CSP_KEYS: [(&str, &str); 4] = [
    ("connect_domains", "connectDomains"),
    ("resource_domains", "resourceDomains"),
    ("frame_domains", "frameDomains"),
    ("base_uri_domains", "baseUriDomains"),
];

/// The `permissions(...)` names: the key and the wire name.
pub const PERMISSION_KEYS: [(&str, &str); 4] = [
    ("camera", "camera"),
    ("microphone", "microphone"),
    ("geolocation", "geolocation"),
    ("clipboard_write", "clipboardWrite"),
];

impl Resource {
    /// Whether this is an MCP App view (a `ui://` URI).
    pub fn is_ui(&self) -> bool {
        self.uri().0.starts_with(mcp_core::rules::UI_SCHEME)
    }

    /// The `_meta.ui` of the list entry as JSON text, when any app key is set.
    pub fn ui_json(&self) -> Option<String> {
        let a = &self.app;
        a.span?;
        let wire = |keys: &[(&str, &'static str)], k: &syn::Ident| {
            keys.iter().find(|(n, _)| k == n).map(|(_, w)| *w)
        };
        let mut ui = serde_json::Map::new();
        if !a.csp.is_empty() {
            let mut csp = serde_json::Map::new();
            for (k, list) in &a.csp {
                let origins = list.iter().map(syn::LitStr::value).collect::<Vec<_>>();
                csp.insert(wire(&CSP_KEYS, k)?.into(), origins.into());
            }
            ui.insert("csp".into(), csp.into());
        }
        if !a.permissions.is_empty() {
            let mut p = serde_json::Map::new();
            for k in &a.permissions {
                p.insert(wire(&PERMISSION_KEYS, k)?.into(), serde_json::json!({}));
            }
            ui.insert("permissions".into(), p.into());
        }
        if let Some(d) = &a.domain {
            ui.insert("domain".into(), d.value().into());
        }
        if let Some(b) = a.prefers_border {
            ui.insert("prefersBorder".into(), b.into());
        }
        Some(serde_json::Value::Object(ui).to_string())
    }

    /// The resource's name and where to report it.
    pub fn name(&self) -> (String, Span) {
        self.func.name(self.name.as_ref())
    }

    /// The URI and where to report it (empty at the attribute when missing).
    pub fn uri(&self) -> (String, Span) {
        match &self.uri {
            Some(u) => (u.value(), u.span()),
            None => (String::new(), Span::call_site()),
        }
    }

    /// The template's variables (none for a concrete URI), or the problem with it.
    pub fn vars(&self) -> Result<Vec<String>, String> {
        template_vars(&self.uri().0)
    }
}

/// The variables of a level-1 template, or the problem with it.
pub fn template_vars(uri: &str) -> Result<Vec<String>, String> {
    let mut vars: Vec<String> = Vec::new();
    let mut rest = uri;
    loop {
        let open = rest.find('{');
        let close = rest.find('}');
        match (open, close) {
            (None, None) => break,
            (Some(o), Some(c)) if o < c => {
                let var = &rest[o + 1..c];
                if var.is_empty() {
                    return Err("an empty `{}` expression".into());
                }
                if var.contains('{') {
                    return Err("a `{` inside an expression".into());
                }
                if !var.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
                    return Err(format!(
                        "the expression `{{{var}}}`: only level-1 `{{name}}` expressions \
                         (letters, digits, `_`) are supported, without operators or modifiers"
                    ));
                }
                if vars.iter().any(|v| v == var) {
                    return Err(format!("the variable `{var}` appears twice"));
                }
                vars.push(var.to_owned());
                rest = &rest[c + 1..];
            }
            _ => return Err("unbalanced `{` / `}`".into()),
        }
    }
    Ok(vars)
}

/// The `#[resource]` attribute.
pub struct ResourceAttr;

impl Handler for ResourceAttr {
    type Model = Resource;
    const NAME: &'static str = "resource";
    const WRITTEN: &'static str = "#[mcp::resource(\"...\")]";

    fn parse(
        args: TokenStream,
        attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
        method: bool,
        root: &Root,
        errors: &mut Errors,
    ) -> Resource {
        parse::parse(args, attrs, sig, method, root, errors)
    }
    fn check(model: &Resource, errors: &mut Errors) {
        check::check(model, errors);
    }
    fn codegen(
        model: &Resource,
        def_ty: &TokenStream,
        server: Option<&TokenStream>,
    ) -> TokenStream {
        codegen::codegen(model, def_ty, server)
    }
    fn placeholder(model: &Resource, def_ty: &TokenStream) -> TokenStream {
        codegen::placeholder(model, def_ty)
    }
}

/// `#[mcp::resource("...")]` on a free function.
pub fn resource_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    pipeline::free_fn::<ResourceAttr>(args, item)
}

#[cfg(test)]
mod tests {
    use super::template_vars;

    #[test]
    fn level_one_templates() {
        assert_eq!(
            template_vars("books://{shelf}/{id}").unwrap(),
            ["shelf", "id"]
        );
        assert!(template_vars("books://catalog").unwrap().is_empty());
        assert!(template_vars("books://{+path}").is_err());
        assert!(template_vars("books://{id}/{id}").is_err());
        assert!(template_vars("books://{id").is_err());
    }
}
