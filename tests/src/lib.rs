//! The repository's tests package: integration tests (`tests/`), the macros' trybuild cases
//! (`tests/ui/`), and the guide chapters whose examples need crates only a test needs.
//!
//! Those chapters are rendered in the facade's `mcp::guide` (its documentation build); their
//! examples run here, as doctests, where a JWT signer, a private CA and an in-memory span
//! exporter are dev-dependencies. Keeping them out of the facade keeps its dev-dependencies,
//! and so `cargo run --example bookshop`, to the library's own dependency tree.

#[cfg(all(doctest, feature = "client", feature = "http", feature = "jwt"))]
#[doc = include_str!("../../docs/guide/auth.md")]
pub struct AuthGuide;

#[cfg(all(doctest, feature = "client", feature = "tls"))]
#[doc = include_str!("../../docs/guide/client.md")]
pub struct ClientGuide;

#[cfg(all(doctest, feature = "client", feature = "otel"))]
#[doc = include_str!("../../docs/guide/tracing.md")]
pub struct TracingGuide;
