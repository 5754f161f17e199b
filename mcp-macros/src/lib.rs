//! Attribute macros of the `mcp` framework: `#[mcp::tool]`, `#[mcp::prompt]`,
//! `#[mcp::resource]`, `#[mcp::completion]`, `#[mcp::middleware]`, `#[mcp::server]`.
//!
//! Each macro runs three passes, as serde_derive does: parse the attribute and the item into
//! a normalised model (one model of a handler function, shared by every macro), check the
//! model (collecting every error, each spanned at the user's code), and generate a small
//! amount of code that implements the runtime's traits (`ToolDef`, `Middleware`,
//! `ServerHandler`). On error the original item is still emitted (with stand-ins for what the
//! macro would have generated), so the only errors shown are the macro's own. Generated code
//! names only `<root>::__private` (`::mcp`, or `crate = "..."` on any attribute), so users
//! need neither serde nor schemars in their `Cargo.toml`; generated helpers live inside
//! `const _: () = { ... };`.
//!
//! Layout, bottom to top: `errors` (the accumulator), `model` (the handler-function model,
//! injected types, the crate root and which paths are ours), `attr` (option keys), `check`
//! (checks every handler shares), `codegen` (code every handler shares), `pipeline` (the
//! passes and the free-function driver), then one folder per macro with its model, `parse`,
//! `check` and `codegen`.
//!
//! Use them through the `mcp` crate (`mcp::tool`, ...). Each macro's page lists its keys with
//! an example (the examples are the `mcp` crate's doctests: this crate cannot run them, as it
//! does not depend on `mcp`); the guide's
//! [macro chapter](https://docs.rs/mcp-framework/latest/mcp/guide/macros/index.html) shows
//! every key at work.

use proc_macro::TokenStream;

mod attr;
mod check;
mod codegen;
mod completion;
mod errors;
mod middleware;
mod model;
mod pipeline;
mod prompt;
mod resource;
mod server;
mod tool;

#[doc = include_str!("../docs/tool.md")]
#[proc_macro_attribute]
pub fn tool(args: TokenStream, item: TokenStream) -> TokenStream {
    tool::tool_attr(args.into(), item.into()).into()
}

#[doc = include_str!("../docs/prompt.md")]
#[proc_macro_attribute]
pub fn prompt(args: TokenStream, item: TokenStream) -> TokenStream {
    prompt::prompt_attr(args.into(), item.into()).into()
}

#[doc = include_str!("../docs/resource.md")]
#[proc_macro_attribute]
pub fn resource(args: TokenStream, item: TokenStream) -> TokenStream {
    resource::resource_attr(args.into(), item.into()).into()
}

#[doc = include_str!("../docs/completion.md")]
#[proc_macro_attribute]
pub fn completion(args: TokenStream, item: TokenStream) -> TokenStream {
    completion::completion_attr(args.into(), item.into()).into()
}

#[doc = include_str!("../docs/middleware.md")]
#[proc_macro_attribute]
pub fn middleware(args: TokenStream, item: TokenStream) -> TokenStream {
    middleware::middleware_attr(args.into(), item.into()).into()
}

#[doc = include_str!("../docs/server.md")]
#[proc_macro_attribute]
pub fn server(args: TokenStream, item: TokenStream) -> TokenStream {
    server::server_attr(args.into(), item.into()).into()
}
