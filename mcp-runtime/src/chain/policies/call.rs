//! What the policies read of a `tools/call`: the tool's name, and nothing else.

use crate::common::error::McpError;
use crate::context::Context;

/// The name of a `tools/call` request, or `None` for any other message (notifications and
/// calls whose params do not name a tool included: those go on to fail inside `next`).
pub(crate) fn tool_name(ctx: &Context) -> Option<String> {
    /// Only the name: serde skips `arguments` without building it.
    #[derive(serde::Deserialize)]
    struct Named {
        name: String,
    }
    if ctx.method() != "tools/call" || ctx.is_notification() {
        return None;
    }
    ctx.decode_params::<Named>().ok().map(|n| n.name)
}

/// The error the dispatcher answers for a tool it does not have: a hidden tool answers the
/// same, so a client cannot tell hidden from absent.
pub(crate) fn unknown_tool(name: &str) -> McpError {
    McpError::invalid_params(format!("Unknown tool: {name}"))
}
