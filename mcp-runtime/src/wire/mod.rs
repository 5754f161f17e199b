//! Byte-level message plumbing shared by server and client: stream framing (newline and
//! `Content-Length`), message filters, the batching writer, request correlation. Imports
//! `common` only.

pub mod filter;
pub mod framing;
pub(crate) mod pending;
pub(crate) mod writer;
