//! A `tools/call` answer as the run-time table hands it to the dispatcher: typed (what a
//! handler returned), or [`Forwarded`]: the JSON another server wrote (a mounted child's
//! endpoint, a proxy's upstream), passed back without decoding. The dispatcher makes a
//! forwarded answer its own with one re-stamp when it was shaped for the caller's revision,
//! and decodes it (once) only to translate it for another
//! (`dispatch/tool_result_encoding.rs`).

use mcp_core::types::CallToolResult;
use mcp_core::version::ProtocolVersion;
use serde_json::value::RawValue;

use crate::common::error::McpError;

/// What a tool of the run-time table answered.
pub(crate) enum ToolAnswer {
    /// A handler's result.
    Typed(CallToolResult),
    /// Another server's result, as that server encoded it.
    Forwarded(Forwarded),
}

/// A result object another server encoded.
pub(crate) struct Forwarded {
    /// The result object as it was written.
    pub(crate) raw: Box<RawValue>,
    /// The revision it was shaped for; `None`: the caller's own (a mounted child answers the
    /// very request the parent was sent).
    pub(crate) version: Option<ProtocolVersion>,
    /// The `_meta` keys that do not cross: the far server's stamp, and for a proxy's
    /// upstream the keys its connection owns (`proxy/meta.rs`).
    pub(crate) drop: &'static [&'static str],
    /// The error of a result that does not decode.
    pub(crate) invalid: fn(serde_json::Error) -> McpError,
}

impl Forwarded {
    /// The result typed, what does not cross taken out of its `_meta` and its `resultType`
    /// left for this server's revision: the one decode of a hop that translates.
    pub(crate) fn decode(self) -> Result<CallToolResult, McpError> {
        mcp_core::passes::result_decode();
        let mut r: CallToolResult = serde_json::from_str(self.raw.get()).map_err(self.invalid)?;
        if let Some(m) = &mut r.meta {
            m.retain(|k, _| !self.drop.contains(&k.as_str()));
            if m.is_empty() {
                r.meta = None;
            }
        }
        r.result_type = None;
        Ok(r)
    }
}
