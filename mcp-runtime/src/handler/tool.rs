//! Tool argument decoding with errors a model can act on.
//!
//! Bad arguments are not protocol faults: they come back as `isError: true` results that
//! name the field path and what was expected (not serde's "at line 1 column 2").

use mcp_core::types::CallToolResult;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

/// Decodes tool arguments into `T`; on failure, the `isError` result to send instead.
///
/// ```
/// use mcp_runtime::tool::decode_arguments;
/// #[derive(serde::Deserialize, Debug)]
/// struct Args { a: i64, b: i64 }
/// let raw = serde_json::value::to_raw_value(&serde_json::json!({"a": 1, "b": "x"})).unwrap();
/// let err = decode_arguments::<Args>(Some(&raw)).unwrap_err();
/// let text = serde_json::to_string(&err).unwrap();
/// assert!(text.contains("`b`") && text.contains("expected i64"), "{text}");
/// ```
pub fn decode_arguments<T: DeserializeOwned>(args: Option<&RawValue>) -> Result<T, CallToolResult> {
    let json = args.map_or("{}", RawValue::get);
    // Fast path: straight from the raw JSON.
    if let Ok(v) = serde_json::from_str::<T>(json) {
        return Ok(v);
    }
    // Slow path, only on failure: decode through a Value to get a path and a message
    // without byte positions.
    let value: serde_json::Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(_) => return Err(CallToolResult::error("Invalid arguments: not valid JSON")),
    };
    if !value.is_object() {
        return Err(CallToolResult::error(
            "Invalid arguments: expected an object",
        ));
    }
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(v) => Ok(v),
        Err(e) => {
            let path = e.path().to_string();
            let msg = e.into_inner().to_string();
            Err(CallToolResult::error(if path == "." || path.is_empty() {
                format!("Invalid arguments: {msg}")
            } else {
                format!("Invalid arguments: `{path}`: {msg}")
            }))
        }
    }
}
