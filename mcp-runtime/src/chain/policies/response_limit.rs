//! [`ResponseLimit`]: a cap on the size of a tool's result, run as a task or not.

use serde_json::Value;

use crate::chain::middleware::{Endpoint, Middleware, Next};
use crate::common::error::{HandlerResult, McpError, Reply};
use crate::context::Context;

/// The marker appended to text cut by a [`ResponseLimit`], unless another is set.
pub const TRUNCATION_MARKER: &str = "\n\n[truncated: the response exceeded its size limit]";

/// A cap, in bytes of encoded JSON, on the result of `tools/call`.
///
/// A result within the cap goes out untouched. Over it:
/// - **text content is truncated**: text blocks are kept in order while they fit, the block
///   that crosses the cap is cut (at a character boundary) and ends with the marker, and the
///   text blocks after it are dropped. Other blocks (images, resources) are kept whole.
/// - **structured content is refused**, never cut: a cut `structuredContent` would no longer
///   match the tool's `outputSchema`, and its text twin would no longer agree with it. So
///   would a result whose non-text blocks alone exceed the cap. The client gets
///   `-32603 "Response too large"` with `data: {"size": <bytes>, "limit": <bytes>}`.
///
/// A tool run as a task is held to the same cap when its result is fetched: the result of
/// `tasks/result` (2025-11-25) as a `tools/call` result is, and the result a 2026
/// `tasks/get` inlines — text cut the same way; a refused one turns the task `failed` with
/// the refusal as its `error`, since answering the poll itself with an error would leave
/// the client polling.
///
/// Results of other methods, and results without `content` (a task handle, an
/// `input_required` round), pass untouched.
///
/// ```
/// use mcp_runtime::policies::ResponseLimit;
///
/// let limit = ResponseLimit::new(1_000_000).marker(" [cut]");
/// assert_eq!(limit.max_bytes(), 1_000_000);
/// ```
#[derive(Debug, Clone)]
pub struct ResponseLimit {
    max: usize,
    marker: String,
}

impl ResponseLimit {
    /// At most `max_bytes` of encoded result per tool call.
    pub fn new(max_bytes: usize) -> Self {
        Self {
            max: max_bytes,
            marker: TRUNCATION_MARKER.to_owned(),
        }
    }

    /// Ends cut text with `marker` instead of [`TRUNCATION_MARKER`].
    pub fn marker(mut self, marker: impl Into<String>) -> Self {
        self.marker = marker.into();
        self
    }

    /// The cap, in bytes.
    pub fn max_bytes(&self) -> usize {
        self.max
    }

    /// `out` within the cap: as is, with its text cut, or refused.
    fn enforce(&self, out: Reply) -> HandlerResult {
        let size = out.as_json().map_or(0, str::len);
        if size <= self.max {
            return Ok(out);
        }
        let Some(Ok(mut result)) = out.decode::<Value>() else {
            return Ok(out);
        };
        let too_large = || {
            McpError::from(
                mcp_core::jsonrpc::ErrorObject::new(
                    mcp_core::jsonrpc::INTERNAL_ERROR,
                    "Response too large",
                )
                .with_data(serde_json::json!({ "size": size, "limit": self.max })),
            )
        };
        if result.get("structuredContent").is_some() {
            return Err(too_large());
        }
        let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) else {
            return Ok(out);
        };
        // The room for text: the cap less everything that is not the text itself.
        let texts: Vec<String> = content.iter_mut().filter_map(take_text).collect();
        let fixed = serde_json::to_string(&result)?.len();
        let Some(mut room) = self.max.checked_sub(fixed) else {
            return Err(too_large());
        };
        let marker_len = encoded_len(&self.marker);
        let mut kept = Vec::with_capacity(texts.len());
        for text in texts {
            let len = encoded_len(&text);
            if len <= room {
                room -= len;
                kept.push(Some(text));
            } else if room >= marker_len {
                kept.push(Some(cut(&text, room - marker_len) + &self.marker));
                room = 0;
            } else {
                // No room even for the marker: the block goes.
                kept.push(None);
                room = 0;
            }
        }
        if let Some(content) = result.get_mut("content").and_then(Value::as_array_mut) {
            put_texts(content, kept);
        }
        Reply::json(&result)
    }
}

/// Empties a text block, returning its text (`None` for any other block).
fn take_text(block: &mut Value) -> Option<String> {
    if block.get("type")?.as_str()? != "text" {
        return None;
    }
    match block.get_mut("text")? {
        Value::String(s) => Some(std::mem::take(s)),
        _ => None,
    }
}

/// Puts the kept texts back into the emptied text blocks, in order, dropping those with none.
fn put_texts(content: &mut Vec<Value>, kept: Vec<Option<String>>) {
    let mut kept = kept.into_iter();
    content.retain_mut(|block| {
        if take_text(block).is_none() {
            return true;
        }
        match kept.next().flatten() {
            Some(text) => {
                block["text"] = Value::String(text);
                true
            }
            None => false,
        }
    });
}

/// How many bytes `c` takes inside a JSON string.
fn char_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if (c as u32) < 0x20 => 6,
        c => c.len_utf8(),
    }
}

/// How many bytes `s` takes inside a JSON string (without the quotes).
fn encoded_len(s: &str) -> usize {
    s.chars().map(char_len).sum()
}

/// The longest prefix of `s` that takes at most `room` bytes encoded.
fn cut(s: &str, mut room: usize) -> String {
    let mut end = 0;
    for (i, c) in s.char_indices() {
        let n = char_len(c);
        if n > room {
            break;
        }
        room -= n;
        end = i + c.len_utf8();
    }
    s[..end].to_owned()
}

impl ResponseLimit {
    /// A 2026 `tasks/get` answer with its inlined tool result within the cap: as is, with
    /// the result's text cut, or the task `failed` with the refusal as its `error`.
    fn enforce_task(&self, out: Reply) -> HandlerResult {
        // The inlined result is smaller than the whole answer: within the cap, nothing to do.
        if out.as_json().map_or(0, str::len) <= self.max {
            return Ok(out);
        }
        let Some(Ok(mut task)) = out.decode::<Value>() else {
            return Ok(out);
        };
        let Some(result) = task.get_mut("result").filter(|r| r.is_object()) else {
            return Ok(out);
        };
        match self.enforce(Reply::json(&result.take())?) {
            Ok(kept) => {
                *result = kept.decode::<Value>().transpose()?.unwrap_or_default();
            }
            Err(refused) => {
                let task = task.as_object_mut().expect("decoded as an object above");
                task.remove("result");
                task.insert("status".into(), "failed".into());
                task.insert("error".into(), serde_json::to_value(refused.to_wire())?);
            }
        }
        Reply::json(&task)
    }
}

impl Middleware for ResponseLimit {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.is_notification() {
            return next.run(ctx).await;
        }
        match ctx.method() {
            "tools/call" | "tasks/result" => self.enforce(next.run(ctx).await?),
            "tasks/get" => self.enforce_task(next.run(ctx).await?),
            _ => next.run(ctx).await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text_result(texts: &[&str]) -> Reply {
        let content: Vec<Value> = texts
            .iter()
            .map(|t| serde_json::json!({"type": "text", "text": t}))
            .collect();
        Reply::json(&serde_json::json!({ "content": content })).unwrap()
    }

    #[test]
    fn a_result_within_the_cap_is_untouched() {
        let out = text_result(&["hello"]);
        let before = out.as_json().unwrap().to_owned();
        let after = ResponseLimit::new(1000).enforce(out).unwrap();
        assert_eq!(after.as_json().unwrap(), before);
    }

    #[test]
    fn cut_text_fits_exactly_and_ends_with_the_marker() {
        let long = "é\"x\n".repeat(500);
        for max in [100, 101, 102, 333, 1000] {
            let out = ResponseLimit::new(max)
                .marker("[cut]")
                .enforce(text_result(&[&long, "second"]));
            let out = out.unwrap();
            let json = out.as_json().unwrap();
            assert!(json.len() <= max, "{} > {max}", json.len());
            let v: Value = serde_json::from_str(json).unwrap();
            let content = v["content"].as_array().unwrap();
            assert_eq!(content.len(), 1, "the text after the cut is dropped: {v}");
            let text = content[0]["text"].as_str().unwrap();
            assert!(text.ends_with("[cut]") && long.starts_with(&text[..text.len() - 5]));
        }
    }

    #[test]
    fn structured_content_over_the_cap_is_refused() {
        let out = Reply::json(&serde_json::json!({
            "content": [{"type": "text", "text": "x".repeat(100)}],
            "structuredContent": {"x": "x".repeat(100)},
        }))
        .unwrap();
        let err = ResponseLimit::new(50).enforce(out).unwrap_err().to_wire();
        assert_eq!(
            (err.code, err.message.as_str()),
            (-32603, "Response too large")
        );
        assert_eq!(err.data.unwrap()["limit"], 50);
    }
}
