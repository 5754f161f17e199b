//! Multi round-trip requests (2026-07-28): answering a server's `input_required` result
//! with the [`ClientHandler`](super::ClientHandler) and building the retry.
//!
//! Each round answers every input request (elicitation, sampling, roots) under its key,
//! echoes `requestState` verbatim (omitted when the server sent none) and goes out under
//! a new JSON-RPC id; the `inputResponses`/`requestState` of one round never leak into
//! the next or into other requests.

use std::sync::Arc;

use mcp_core::types::InputRequiredResult;
use mcp_core::version::ProtocolVersion;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

use super::error::ClientError;
use super::handler::DynHandler;

/// How many `input_required` rounds one request may take before it fails.
pub const MAX_INPUT_ROUNDS: usize = 8;

/// The params of the next round: the original params, plus this round's answers and
/// state (and nothing of an earlier round's).
pub(crate) async fn next_round(
    handler: &Arc<dyn DynHandler>,
    original: &Option<Map<String, Value>>,
    raw: &str,
    version: ProtocolVersion,
) -> Result<Map<String, Value>, ClientError> {
    let result: InputRequiredResult = serde_json::from_str(raw)
        .map_err(|e| ClientError::InvalidResponse(format!("input_required result: {e}")))?;
    result
        .validate()
        .map_err(|e| ClientError::InvalidResponse(format!("input_required result: {e}")))?;
    let mut params = original.clone().unwrap_or_default();
    params.remove("inputResponses");
    params.remove("requestState");
    if let Some(requests) = &result.input_requests {
        let mut responses = Map::new();
        for (key, request) in requests {
            let method = request.method();
            let request_params = match serde_json::to_value(request)
                .map_err(|e| ClientError::Encode(e.to_string()))?
                .get("params")
            {
                Some(p) => Some(
                    RawValue::from_string(p.to_string())
                        .map_err(|e| ClientError::Encode(e.to_string()))?,
                ),
                None => None,
            };
            let answer = handler
                .clone()
                .handle(method.to_owned(), request_params, version)
                .await
                .map_err(|e| {
                    ClientError::Unsupported(format!(
                        "the server needs {method} input ({key:?}) the handler does not give: {e}"
                    ))
                })?;
            let value: Value = serde_json::from_str(&answer)
                .map_err(|e| ClientError::Encode(format!("the {method} answer: {e}")))?;
            responses.insert(key.clone(), value);
        }
        params.insert("inputResponses".into(), Value::Object(responses));
    }
    if let Some(state) = result.request_state {
        params.insert("requestState".into(), Value::String(state));
    }
    Ok(params)
}
