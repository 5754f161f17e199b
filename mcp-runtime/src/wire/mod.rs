//! Byte-level message plumbing: stream framing (newline and `Content-Length`) and message
//! filters. Imports `common` only.

pub mod filter;
pub mod framing;
