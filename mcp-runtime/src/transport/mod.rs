//! Transports: HTTP (Streamable HTTP for both eras, HTTP+SSE, auth), stdio helpers and
//! byte-stream framing.
//!
//! # Serving: every entry point and how they differ
//!
//! All of them run the same kernel with the same middleware, handlers and options; they
//! differ only in what carries the bytes and in what they decide for you.
//!
//! | call | carries | stops on | HTTP+SSE (2024-11-05) | paths | `Host` check |
//! | --- | --- | --- | --- | --- | --- |
//! | `Server::serve_stdio` | stdin/stdout | stdin EOF, SIGTERM/SIGINT (then a grace period) | n/a | n/a | n/a |
//! | `Server::serve(reader, writer)` | any byte stream | EOF | n/a | n/a | n/a |
//! | `Server::serve_buffered(reader, writer, stop)` | any buffered stream | EOF or `stop` | n/a | n/a | n/a |
//! | `Server::serve_in_memory()` | an in-memory pipe (returns the client's end) | the pipe closing | n/a | n/a | n/a |
//! | `Server::serve_http(addr)` | HTTP, binds `addr` | SIGTERM/SIGINT, then graceful | **on** (`/sse`, `/messages`): it owns the port, so every client revision is served | `/mcp`; matched by string, the rest 404 | `Auto`: off when bound to a non-loopback address |
//! | `Server::serve_http_on(listener, opts, stop)` | HTTP, your listener | `stop`, then graceful | as `opts.legacy_sse` (off by default) | `opts.path` and the above; matched by string, the rest 404 | as `opts.dns_rebinding` |
//! | `Server::http_router(opts)` | an `axum::Router` you serve | your server | as `opts.legacy_sse` (off by default) | the same paths as axum routes, so your app's routes sit beside them | as `opts.dns_rebinding` (`Auto`: loopback `Host` only) |
//! | `Server::http_service()` | `http_router` with the default `HttpOptions` | your server | off | `/mcp` | loopback `Host` only |
//!
//! The one default that differs is HTTP+SSE: `serve_http` turns it on because it owns the
//! port and serves every client revision; the router and `serve_http_on` leave it to
//! [`HttpOptions::legacy_sse`](http::HttpOptions::legacy_sse) because they share a port or
//! options with you.

#[cfg(feature = "http")]
pub mod http;
pub use crate::server::stdio;
pub use crate::wire::framing;
