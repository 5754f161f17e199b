//! What the policies read of a `tools/call`: the tool's name, and nothing else.

use crate::common::error::{HandlerResult, McpError, Reply};
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

/// A `tools/list` result with only the tools `keep` accepts; anything else about it
/// (`nextCursor`, `_meta`, the cache hints) as it was. A result that is not a list goes out
/// as is.
pub(super) fn retain_tools(out: Reply, keep: impl Fn(&str) -> bool) -> HandlerResult {
    let Some(Ok(mut list)) = out.decode::<serde_json::Value>() else {
        return Ok(out);
    };
    let Some(tools) = list.get_mut("tools").and_then(|t| t.as_array_mut()) else {
        return Ok(out);
    };
    tools.retain(|t| t.get("name").and_then(|n| n.as_str()).is_some_and(&keep));
    Reply::json(&list)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_keeps_what_it_should_and_the_rest_as_it_was() {
        let out = Reply::json(&serde_json::json!({
            "tools": [{"name": "a"}, {"name": "b"}],
            "nextCursor": "2", "ttlMs": 60000, "cacheScope": "public",
        }))
        .unwrap();
        let kept = retain_tools(out, |n| n == "a").unwrap();
        let v: serde_json::Value = kept.decode().unwrap().unwrap();
        assert_eq!(
            v,
            serde_json::json!({"tools": [{"name": "a"}], "nextCursor": "2", "ttlMs": 60000, "cacheScope": "public"})
        );
    }
}
