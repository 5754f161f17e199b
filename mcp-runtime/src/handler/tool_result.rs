//! What a tool may return: [`IntoToolResult`], [`Json`] and [`ToolError`].
//!
//! ```
//! use mcp_runtime::{IntoToolResult, Json};
//!
//! let r = "hello".into_tool_result().unwrap();
//! assert_eq!(r.content[0].as_text(), Some("hello"));
//!
//! let r = Json(vec![1, 2]).into_tool_result().unwrap();
//! assert_eq!(r.structured_content, Some(serde_json::json!({"result": [1, 2]})));
//!
//! let r = Err::<String, _>("no such book").into_tool_result().unwrap();
//! assert_eq!(r.is_error, Some(true));
//! ```

use std::borrow::Cow;
use std::fmt;

use mcp_core::types::{CallToolResult, ContentBlock, Meta};
use serde::Serialize;
use serde_json::Value;

use crate::common::error::McpError;
use crate::handler::tool_schema::{OutputSchema, output_schema_for};

/// A value a tool can return.
///
/// Text-like values (`String`, `&str`, numbers, `bool`) become one text block; [`Json`]
/// becomes `structuredContent` plus its JSON text (and gives the tool an `outputSchema`);
/// `ContentBlock`, `Vec<ContentBlock>` and `CallToolResult` are sent as they are; `()` is an
/// empty success; `Result<T, E: Display>` sends `Err` as `isError: true` with the message.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be returned from an MCP tool",
    label = "this is not a tool result",
    note = "return text (`String`, `&str`, a number), `Json<T>` for structured output, a `ContentBlock`, a `Vec<ContentBlock>`, a `CallToolResult`, or `Result<T, E>` of one of these with `E: Display`",
    note = "or implement `mcp::IntoToolResult` for `{Self}`"
)]
pub trait IntoToolResult {
    /// Converts the value into the result sent for `tools/call`.
    ///
    /// `Err` is for internal failures only (logged; the client sees `-32603`).
    fn into_tool_result(self) -> Result<CallToolResult, McpError>;

    /// The `outputSchema` this type implies (built once per tool).
    #[doc(hidden)]
    fn __output_schema() -> Option<OutputSchema> {
        None
    }

    /// Like `into_tool_result`, knowing whether structured content is wrapped as
    /// `{"result": v}` (decided once per tool from its output schema).
    #[doc(hidden)]
    fn __into_shaped(self, wrapped: bool) -> Result<CallToolResult, McpError>
    where
        Self: Sized,
    {
        let _ = wrapped;
        self.into_tool_result()
    }
}

fn text(s: impl Into<String>) -> Result<CallToolResult, McpError> {
    Ok(CallToolResult::success(vec![ContentBlock::text(s)]))
}

impl IntoToolResult for String {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        text(self)
    }
}

impl IntoToolResult for &str {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        text(self)
    }
}

impl IntoToolResult for Cow<'_, str> {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        text(self)
    }
}

macro_rules! display_results {
    ($($t:ty),*) => {$(
        impl IntoToolResult for $t {
            fn into_tool_result(self) -> Result<CallToolResult, McpError> {
                text(self.to_string())
            }
        }
    )*};
}

display_results!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64, bool, char
);

impl IntoToolResult for () {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(Vec::new()))
    }
}

impl IntoToolResult for ContentBlock {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(vec![self]))
    }
}

impl IntoToolResult for Vec<ContentBlock> {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(CallToolResult::success(self))
    }
}

impl IntoToolResult for CallToolResult {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        Ok(self)
    }
}

/// The result for a tool's `Err`.
///
/// `McpError` is the framework's own error: a protocol error stays a JSON-RPC error and an
/// internal one stays internal (its text never reaches the client). Any other error is the
/// tool's failure, shown to the model as an `isError` result.
fn tool_failure<E: fmt::Display + 'static>(e: E) -> Result<CallToolResult, McpError> {
    let any: Box<dyn std::any::Any> = Box::new(e);
    match any.downcast::<McpError>() {
        Ok(mcp) => Err(*mcp),
        Err(other) => match other.downcast::<E>() {
            Ok(e) => Ok(CallToolResult::error(e.to_string())),
            Err(_) => unreachable!("the box holds an E"),
        },
    }
}

impl<T: IntoToolResult, E: fmt::Display + 'static> IntoToolResult for Result<T, E> {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        match self {
            Ok(v) => v.into_tool_result(),
            Err(e) => tool_failure(e),
        }
    }
    fn __output_schema() -> Option<OutputSchema> {
        T::__output_schema()
    }
    fn __into_shaped(self, wrapped: bool) -> Result<CallToolResult, McpError> {
        match self {
            Ok(v) => v.__into_shaped(wrapped),
            Err(e) => tool_failure(e),
        }
    }
}

/// Structured output: the value goes out as `structuredContent` (with its JSON text as a text
/// block for clients without structured output), and the tool's `outputSchema` is `T`'s
/// schema.
///
/// The output schema always has an object root: when `T`'s schema is not
/// `{"type": "object", ...}` (a list, a number, an enum, an `Option`), both the schema and
/// every value are wrapped as `{"result": ...}`, on every revision, so the schema and the
/// values always agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Json<T>(pub T);

impl<T: Serialize + schemars::JsonSchema> IntoToolResult for Json<T> {
    fn into_tool_result(self) -> Result<CallToolResult, McpError> {
        let wrapped = output_schema_for::<T>().wrapped;
        self.__into_shaped(wrapped)
    }
    fn __output_schema() -> Option<OutputSchema> {
        Some(output_schema_for::<T>())
    }
    fn __into_shaped(self, wrapped: bool) -> Result<CallToolResult, McpError> {
        let mut value = serde_json::to_value(&self.0)?;
        if wrapped {
            let mut m = Meta::new();
            m.insert("result".into(), value);
            value = Value::Object(m);
        }
        Ok(CallToolResult::structured(value))
    }
}

/// A tool's own failure, sent as `isError: true` with its message.
///
/// Any `std::error::Error` converts into it, so `?` works in tools returning
/// `Result<_, ToolError>`.
///
/// ```
/// use mcp_runtime::ToolError;
/// fn parse(s: &str) -> Result<u32, ToolError> {
///     Ok(s.parse::<u32>()?)
/// }
/// assert!(parse("x").unwrap_err().to_string().contains("invalid digit"));
/// assert_eq!(ToolError::new("out of stock").to_string(), "out of stock");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolError(String);

impl ToolError {
    /// A failure with `message`.
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<E: std::error::Error> From<E> for ToolError {
    fn from(e: E) -> Self {
        Self(e.to_string())
    }
}
