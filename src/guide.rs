//! The guide: how to build with `mcp`, one chapter per topic. Every example is a doctest
//! that runs: it serves the server over an in-memory pipe (or a loopback HTTP port) and
//! checks what an [`mcp::client::Client`](crate::client::Client) sees, the way you can test your own server.
//!
//! The chapters' examples use the client, and some use the HTTP transports, TLS, JWT or
//! OpenTelemetry, so each chapter is in the documentation built with the features its
//! examples need (all of them on docs.rs, and with `cargo doc --all-features`). The
//! examples of [`auth`], [`client`] and [`tracing`] also need crates only a test needs (a
//! JWT signer, a private CA, an in-memory span exporter): they run as doctests of the
//! repository's `tests` package, the others as this crate's.
//!
//! - [`macros`]: the attribute macros, key by key, with the injected parameter types.
//! - [`errors`]: which error a client sees for what a handler or middleware returns.
//! - [`middleware`]: observing, refusing, rewriting and answering messages; order; `initialize`.
//! - [`eras`]: the protocol's revisions, legacy and modern, and how one server serves them all.
//! - [`transports`]: stdio, Streamable HTTP and HTTP+SSE, mounting the router in an axum app,
//!   proxies, limits, several replicas.
//! - [`auth`]: bearer tokens, static or JWT, and the OAuth protected resource metadata.
//! - [`client`]: `mcp::client::Client`: connecting, timeouts, progress, cancellation, TLS, OAuth.
//! - [`composition`]: run-time entries beside declared ones, the builder keeping what the
//!   attribute declared, mounting servers under a namespace, proxying upstream servers,
//!   tool transforms.
//! - [`gateway`]: `mcp gateway`, one server in front of an `mcpServers` file's; what
//!   happens when one of them fails.
//! - [`testing`]: testing a server in process, on every revision, on the wire, over HTTP,
//!   and with the official clients.
//! - [`tracing`]: the span of each message, logs to the client, OpenTelemetry.
//! - [`apps`]: protocol extensions in general, and MCP Apps: tools with interactive views.
//! - [`openapi`]: an HTTP API's OpenAPI document served as tools.

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

#[cfg_attr(all(feature = "client", feature = "http"), doc = include_str!("../docs/guide/transports.md"))]
#[cfg_attr(
    not(all(feature = "client", feature = "http")),
    doc = "Transports: build the documentation with the `client` and `http` features to read this chapter."
)]
pub mod transports {}

#[cfg_attr(all(not(doctest), feature = "client", feature = "http", feature = "jwt"), doc = include_str!("../docs/guide/auth.md"))]
#[cfg_attr(
    not(all(not(doctest), feature = "client", feature = "http", feature = "jwt")),
    doc = "Authorization: build the documentation with the `client`, `http` and `jwt` features to read this chapter."
)]
pub mod auth {}

#[cfg_attr(all(not(doctest), feature = "client", feature = "tls"), doc = include_str!("../docs/guide/client.md"))]
#[cfg_attr(
    not(all(not(doctest), feature = "client", feature = "tls")),
    doc = "The client: build the documentation with the `client` and `tls` features to read this chapter."
)]
pub mod client {}

#[cfg_attr(feature = "proxy", doc = include_str!("../docs/guide/composition.md"))]
#[cfg_attr(
    not(feature = "proxy"),
    doc = "Composition: build the documentation with the `proxy` feature to read this chapter."
)]
pub mod composition {}

#[cfg_attr(all(feature = "proxy", feature = "http"), doc = include_str!("../docs/guide/gateway.md"))]
#[cfg_attr(
    not(all(feature = "proxy", feature = "http")),
    doc = "Run a gateway: build the documentation with the `proxy` and `http` features to read this chapter."
)]
pub mod gateway {}

#[cfg_attr(all(feature = "client", feature = "http"), doc = include_str!("../docs/guide/testing.md"))]
#[cfg_attr(
    not(all(feature = "client", feature = "http")),
    doc = "Testing: build the documentation with the `client` and `http` features to read this chapter."
)]
pub mod testing {}

#[cfg_attr(
    all(not(doctest), feature = "client", feature = "otel"),
    doc = include_str!("../docs/guide/tracing.md")
)]
#[cfg_attr(
    not(all(not(doctest), feature = "client", feature = "otel")),
    doc = "Tracing: build the documentation with the `client` and `otel` features to read this chapter."
)]
pub mod tracing {}

#[cfg_attr(feature = "client", doc = include_str!("../docs/guide/apps.md"))]
#[cfg_attr(
    not(feature = "client"),
    doc = "Extensions and MCP Apps: build the documentation with the `client` feature to read this chapter."
)]
pub mod apps {}

#[cfg_attr(feature = "openapi", doc = include_str!("../docs/guide/openapi.md"))]
#[cfg_attr(
    not(feature = "openapi"),
    doc = "OpenAPI: build the documentation with the `openapi` feature to read this chapter."
)]
pub mod openapi {}
