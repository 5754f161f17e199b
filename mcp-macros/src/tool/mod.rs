//! `#[tool]`: the model of one tool function or method ([`Tool`]), and the three passes —
//! [`parse`], [`check`] (with the protocol's naming rules in `rules`), [`codegen`] (a
//! `ToolDef` implementation).

mod check;
mod codegen;
mod parse;
mod rules;

use proc_macro2::{Span, TokenStream};

use crate::errors::Errors;
use crate::model::HandlerFn;
use crate::model::root::Root;
use crate::pipeline::{self, Handler};

/// The normalised form of one `#[tool]` function or method.
pub struct Tool {
    pub root: Root,
    pub func: HandlerFn,
    pub opts: Options,
    /// The `#[arg(...)]` options of each parameter, in the order of `func.params`.
    pub args: Vec<ArgOptions>,
}

/// The options of `#[tool(...)]`.
#[derive(Default)]
pub struct Options {
    pub name: Option<syn::LitStr>,
    pub title: Option<syn::LitStr>,
    pub description: Option<syn::LitStr>,
    /// `read_only`, `destructive`, `idempotent`, `open_world`.
    pub hints: [Option<bool>; 4],
    pub icons: Option<Icons>,
    /// `meta("key" = value, ...)`: `_meta` entries.
    pub meta: Vec<(syn::LitStr, syn::Expr)>,
    /// `task = "optional" | "required" | "forbidden"`: `execution.taskSupport`.
    pub task: Option<syn::LitStr>,
    /// `ui = "ui://..."`: the MCP Apps view (`_meta.ui.resourceUri`).
    pub ui: Option<syn::LitStr>,
    /// `visibility("model", "app")`: `_meta.ui.visibility` (the key, for an empty list).
    pub visibility: Option<(Span, Vec<syn::LitStr>)>,
    /// `tags("admin", ...)`: `_meta.tags`.
    pub tags: Option<crate::model::Tags>,
    /// Keys that are recognised but not supported yet (`output_schema`).
    pub unsupported: Vec<syn::Path>,
}

/// `icons(...)`: literal sources (and the key, for an empty list), or an expression giving
/// the `Vec<Icon>`.
pub enum Icons {
    Sources(Span, Vec<syn::LitStr>),
    Expr(syn::Expr),
}

/// The options of a parameter's `#[arg(...)]`.
#[derive(Default)]
pub struct ArgOptions {
    pub rename: Option<syn::LitStr>,
    pub default: Option<syn::Expr>,
    pub description: Option<syn::LitStr>,
    /// `#[arg(header = "Name")]`: the 2026 `x-mcp-header` annotation.
    pub header: Option<syn::LitStr>,
}

impl Tool {
    /// The tool's name and where to report it.
    pub fn name(&self) -> (String, Span) {
        self.func.name(self.opts.name.as_ref())
    }
}

/// The `#[tool]` attribute.
pub struct ToolAttr;

impl Handler for ToolAttr {
    type Model = Tool;
    const NAME: &'static str = "tool";
    const WRITTEN: &'static str = "#[mcp::tool]";

    fn parse(
        args: TokenStream,
        attrs: &[syn::Attribute],
        sig: &mut syn::Signature,
        method: bool,
        root: &Root,
        errors: &mut Errors,
    ) -> Tool {
        parse::parse(args, attrs, sig, method, root, errors)
    }
    fn check(model: &Tool, errors: &mut Errors) {
        check::check(model, errors);
    }
    fn codegen(model: &Tool, def_ty: &TokenStream, server: Option<&TokenStream>) -> TokenStream {
        codegen::codegen(model, def_ty, server)
    }
    fn placeholder(model: &Tool, def_ty: &TokenStream) -> TokenStream {
        codegen::placeholder(model, def_ty)
    }
}

/// `#[mcp::tool]` on a free function.
pub fn tool_attr(args: TokenStream, item: TokenStream) -> TokenStream {
    pipeline::free_fn::<ToolAttr>(args, item)
}
