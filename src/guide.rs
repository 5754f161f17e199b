//! The guide: how to build with `mcp`, one chapter per topic. Every example is a doctest
//! that runs: it serves the server over an in-memory pipe and checks what an
//! [`mcp::Client`](crate::Client) sees, the way you can test your own server in process.
//!
//! The chapters' examples use the client, so they are in the documentation built with the
//! `client` feature (as on docs.rs, and with `cargo doc --all-features`).
//!
//! - [`macros`]: the attribute macros, key by key, with the injected parameter types.
//! - [`errors`]: which error a client sees for what a handler or middleware returns.
//! - [`middleware`]: observing, refusing, rewriting and answering messages; order; `initialize`.
//! - [`eras`]: the protocol's revisions, legacy and modern, and how one server serves them all.
//! - [`transports`]: stdio, Streamable HTTP and HTTP+SSE, mounting the router in an axum app,
//!   proxies, limits, several replicas.
//! - [`auth`]: bearer tokens, static or JWT, and the OAuth protected resource metadata.
//! - [`client`]: `mcp::Client`: connecting, timeouts, progress, cancellation, TLS, OAuth.
//! - [`testing`]: testing a server in process, on every revision, on the wire, over HTTP,
//!   and with the official clients.

#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/macros.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "The attribute macros: build the documentation with the `client` feature to read this chapter."
)]
pub mod macros {}

#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/errors.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "Errors: build the documentation with the `client` feature to read this chapter."
)]
pub mod errors {}

#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/middleware.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "Middleware: build the documentation with the `client` feature to read this chapter."
)]
pub mod middleware {}

#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/eras.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "The protocol's eras: build the documentation with the `client` feature to read this chapter."
)]
pub mod eras {}

#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/transports.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "Transports: build the documentation with the `client` feature to read this chapter."
)]
pub mod transports {}

#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/auth.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "Authorization: build the documentation with the `client` feature to read this chapter."
)]
pub mod auth {}

#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/client.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "The client: build the documentation with the `client` feature to read this chapter."
)]
pub mod client {}

#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/testing.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "Testing: build the documentation with the `client` feature to read this chapter."
)]
pub mod testing {}
