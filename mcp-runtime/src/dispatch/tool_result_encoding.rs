//! `tools/call` results shaped for the wire: adapted for the revision, stamped with
//! `serverInfo` on modern ones, and encoded by the type's one encoder
//! ([`CallToolResult::encode`], which keeps its long-text fast path private). A result
//! forwarded from another server (a mounted child, a proxy's upstream) that was shaped for
//! the caller's revision is passed on as it was written, re-stamped in place
//! ([`CallToolResult::restamp_encoded`]); one shaped for another revision is decoded once to
//! be translated.

use mcp_core::types::{Adapt, CallToolResult};
use mcp_core::version::{Era, ProtocolVersion};

use super::dispatcher::{DispatchCore, ServerInfoStamp};
use crate::common::error::{HandlerResult, Reply};
use crate::handler::forwarded::ToolAnswer;

impl DispatchCore {
    /// [`shape`](Self::shape) for a `tools/call` result: the same bytes (the tests compare
    /// them), written by the result's own encoder; a forwarded result of the caller's
    /// revision re-stamped without being decoded.
    pub(crate) fn shape_tool_result(
        &self,
        answer: ToolAnswer,
        version: Option<ProtocolVersion>,
    ) -> HandlerResult {
        let rev = version.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
        let modern = rev.era() == Era::Modern;
        let stamp = modern.then(|| {
            self.server_info[rev as usize]
                .get_or_init(|| ServerInfoStamp::new(&self.identity.info, rev))
        });
        let stamp = stamp.map(|s| &*s.meta);
        let mut value = match answer {
            ToolAnswer::Typed(value) => value,
            ToolAnswer::Forwarded(mut f) => {
                if f.version.is_none_or(|v| v == rev) {
                    match CallToolResult::restamp_encoded(f.raw, f.drop, stamp, modern) {
                        Ok(raw) => return Ok(Reply::Result(raw)),
                        // Not readable by a scan: the decoder decides (and words why).
                        Err(raw) => f.raw = raw,
                    }
                }
                f.decode()?
            }
        };
        value.adapt(rev);
        Ok(Reply::Result(value.encode(stamp)?))
    }
}

#[cfg(test)]
mod tests {
    use mcp_core::meta::SERVER_INFO;
    use mcp_core::types::{ContentBlock, Implementation, Meta, ResultType};
    use serde_json::value::RawValue;

    use super::super::dispatcher::Stamped;
    use super::*;

    /// What `shape_tool_result` writes for an adapted result.
    fn encoded(r: &CallToolResult, stamp: Option<&ServerInfoStamp>) -> String {
        r.encode(stamp.map(|s| &*s.meta)).unwrap().get().to_owned()
    }

    fn results() -> Vec<CallToolResult> {
        let mut meta = Meta::new();
        meta.insert("k".into(), serde_json::json!([1, "two"]));
        vec![
            CallToolResult::success(vec![ContentBlock::text("x\"y\n".repeat(50))]),
            // Long enough for the encoder's fast path.
            CallToolResult::success(vec![ContentBlock::text("x\"y\n".repeat(500))]),
            CallToolResult::error("no such book"),
            CallToolResult {
                content: vec![ContentBlock::text("a"), ContentBlock::text("b")],
                structured_content: Some(serde_json::json!({"result": 3})),
                is_error: Some(false),
                meta: Some(meta.clone()),
                result_type: Some(ResultType::Complete),
            },
            CallToolResult {
                meta: Some(meta),
                ..CallToolResult::default()
            },
        ]
    }

    /// What `Dispatcher::shape` produces for the same value.
    fn shaped(mut value: CallToolResult, stamp: Option<&ServerInfoStamp>) -> String {
        let reply = match stamp {
            None => Reply::json(&value),
            Some(stamp) => match value.meta.as_mut() {
                None => Reply::json(&Stamped {
                    value: &value,
                    meta: stamp,
                }),
                Some(meta) => {
                    meta.insert(SERVER_INFO.to_owned(), stamp.value.clone());
                    Reply::json(&value)
                }
            },
        };
        reply.unwrap().as_json().unwrap().to_owned()
    }

    #[test]
    fn the_same_bytes_as_shape_with_and_without_the_server_info_stamp() {
        let info = Implementation::new("bench", "1.0");
        let stamp = ServerInfoStamp::new(&info, ProtocolVersion::V2026_07_28);
        for r in results() {
            for s in [None, Some(&stamp)] {
                assert_eq!(encoded(&r, s), shaped(r.clone(), s));
            }
        }
    }

    /// The stamp as `#[serde(flatten)]` writes it (what `Stamped` writes without flatten).
    #[derive(serde::Serialize)]
    struct Flattened<'a, T> {
        #[serde(flatten)]
        value: &'a T,
        #[serde(rename = "_meta")]
        meta: &'a RawValue,
    }

    fn both<T: serde::Serialize>(value: &T, stamp: &ServerInfoStamp) -> (String, String) {
        let stamped = serde_json::to_string(&Stamped { value, meta: stamp }).unwrap();
        let flat = serde_json::to_string(&Flattened {
            value,
            meta: &stamp.meta,
        })
        .unwrap();
        (stamped, flat)
    }

    #[test]
    fn the_stamp_writes_what_flatten_writes() {
        use mcp_core::types::{EmptyResult, ListToolsResult, Tool};
        let stamp = ServerInfoStamp::new(
            &Implementation::new("bench", "1.0"),
            ProtocolVersion::V2026_07_28,
        );
        for mut r in results() {
            r.meta = None;
            let (a, b) = both(&r, &stamp);
            assert_eq!(a, b);
        }
        let (a, b) = both(&EmptyResult::default(), &stamp);
        assert_eq!(a, b);
        assert!(a.starts_with(r#"{"_meta":{"#), "{a}");
        let tools = ListToolsResult {
            tools: vec![Tool::new("t")],
            ..Default::default()
        };
        let (a, b) = both(&tools, &stamp);
        assert_eq!(a, b);
        // A map is stamped too; a value that is not an object fails, as flatten does.
        let map: std::collections::BTreeMap<&str, u8> = [("k", 1)].into();
        let (a, b) = both(&map, &stamp);
        assert_eq!(a, b);
        assert!(
            serde_json::to_string(&Stamped {
                value: &3,
                meta: &stamp
            })
            .is_err()
        );
        assert!(
            serde_json::to_string(&Stamped {
                value: &vec![1],
                meta: &stamp
            })
            .is_err()
        );
    }

    #[test]
    fn a_result_that_already_names_a_server_keeps_it() {
        let stamp = ServerInfoStamp::new(
            &Implementation::new("bench", "1.0"),
            ProtocolVersion::V2026_07_28,
        );
        let mut meta = Meta::new();
        meta.insert(SERVER_INFO.into(), serde_json::json!({"name": "other"}));
        let r = CallToolResult {
            meta: Some(meta),
            ..CallToolResult::default()
        };
        let v: serde_json::Value = serde_json::from_str(&encoded(&r, Some(&stamp))).unwrap();
        assert_eq!(v["_meta"][SERVER_INFO]["name"], "other");
    }
}
