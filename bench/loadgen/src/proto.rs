//! The JSON-RPC the load generator speaks, written by hand (no MCP SDK): request lines for
//! both eras and the check of every answer.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::value::RawValue;

/// The legacy revision used for `initialize`.
pub const LEGACY: &str = "2025-11-25";
/// The modern revision used in the `_meta` envelope.
pub const MODERN: &str = "2026-07-28";

/// Which era the requests belong to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Era {
    /// `initialize` first, then plain requests.
    Legacy,
    /// No `initialize`; every request carries the 2026 `_meta` envelope.
    Modern,
}

/// Which tool every call invokes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ToolKind {
    /// `add {a, b}`.
    Add,
    /// `echo {text}`.
    Echo,
}

/// Builds request lines and checks answers for one run.
#[derive(Clone)]
pub struct Workload {
    pub era: Era,
    pub tool: ToolKind,
    /// The body of every echo text (after the `<id>:` prefix).
    pub payload: String,
    /// The name the tool is called by: `add` or `echo`, after the namespace a gateway mounts
    /// its upstream under (`--prefix bench_`: `bench_add`).
    pub name: String,
}

const META: &str = r#","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"loadgen","version":"0.0.0"}}"#;

/// The `initialize` request (id 0).
pub fn initialize_line() -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":0,"method":"initialize","params":{{"protocolVersion":"{LEGACY}","capabilities":{{}},"clientInfo":{{"name":"loadgen","version":"0.0.0"}}}}}}"#
    )
}

/// The `notifications/initialized` notification.
pub const INITIALIZED: &str = r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;

impl Workload {
    /// A payload of `bytes` printable characters that need no JSON escaping.
    pub fn new(era: Era, tool: ToolKind, bytes: usize) -> Self {
        let payload = (0..bytes)
            .map(|i| (b'a' + (i % 26) as u8) as char)
            .collect();
        let name = match tool {
            ToolKind::Add => "add",
            ToolKind::Echo => "echo",
        };
        Self {
            era,
            tool,
            payload,
            name: name.to_owned(),
        }
    }

    /// Calls the tool under a namespace: `prefix` before its name.
    pub fn with_prefix(mut self, prefix: &str) -> Self {
        self.name.insert_str(0, prefix);
        self
    }

    /// The tool's name (the `Mcp-Name` header on 2026 HTTP).
    pub fn tool_name(&self) -> &str {
        &self.name
    }

    /// Appends the `tools/call` request with this id (no newline).
    pub fn write_call(&self, id: u64, out: &mut Vec<u8>) {
        use std::io::Write;
        let _ = write!(
            out,
            r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"#
        );
        match self.tool {
            ToolKind::Add => {
                let _ = write!(out, r#""{}","arguments":{{"a":{id},"b":7}}"#, self.name);
            }
            ToolKind::Echo => {
                let _ = write!(out, r#""{}","arguments":{{"text":"{id}:"#, self.name);
                out.extend_from_slice(self.payload.as_bytes());
                out.extend_from_slice(b"\"}");
            }
        }
        if self.era == Era::Modern {
            out.extend_from_slice(META.as_bytes());
        }
        out.extend_from_slice(b"}}");
    }

    /// Whether `text` is the right answer to call `id`.
    fn expected(&self, id: u64, text: &str) -> bool {
        match self.tool {
            ToolKind::Add => text.parse::<u64>() == Ok(id + 7),
            ToolKind::Echo => text
                .split_once(':')
                .is_some_and(|(n, rest)| n.parse::<u64>() == Ok(id) && rest == self.payload),
        }
    }

    /// Checks one answer: `Ok(Some(id))` for a correct result, `Ok(None)` for a message that
    /// is not a response (a notification), `Err` with what is wrong otherwise.
    pub fn check(&self, msg: &[u8]) -> Result<Option<u64>, String> {
        let r: Response = serde_json::from_slice(msg)
            .map_err(|e| format!("unparsable answer ({e}): {}", preview(msg)))?;
        let Some(id) = r.id else {
            return match r.method {
                Some(_) => Ok(None),
                None => Err(format!("answer without id: {}", preview(msg))),
            };
        };
        if let Some(e) = r.error {
            return Err(format!("error for id {id}: {}", e.get()));
        }
        let res = r.result.ok_or_else(|| format!("no result for id {id}"))?;
        match res.content.as_slice() {
            [b] if !res.is_error && b.kind == "text" => {
                let text = b.text.as_deref().unwrap_or("");
                if self.expected(id, text) {
                    Ok(Some(id))
                } else {
                    Err(format!(
                        "wrong content for id {id}: {}",
                        preview(text.as_bytes())
                    ))
                }
            }
            _ => Err(format!("unexpected result for id {id}: {}", preview(msg))),
        }
    }
}

#[derive(Deserialize)]
struct Response<'a> {
    id: Option<u64>,
    #[serde(borrow, default)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    result: Option<CallResult<'a>>,
    #[serde(borrow)]
    error: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct CallResult<'a> {
    #[serde(borrow, default)]
    content: Vec<Block<'a>>,
    #[serde(default, rename = "isError")]
    is_error: bool,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(borrow, rename = "type")]
    kind: Cow<'a, str>,
    #[serde(borrow)]
    text: Option<Cow<'a, str>>,
}

/// Checks an `initialize` answer: a result with a `protocolVersion`.
pub fn check_initialize(msg: &[u8]) -> Result<(), String> {
    #[derive(Deserialize)]
    struct Init<'a> {
        #[serde(borrow)]
        result: Option<InitResult<'a>>,
    }
    #[derive(Deserialize)]
    struct InitResult<'a> {
        #[serde(borrow, rename = "protocolVersion")]
        version: Cow<'a, str>,
    }
    match serde_json::from_slice::<Init>(msg) {
        Ok(Init { result: Some(r) }) if !r.version.is_empty() => Ok(()),
        _ => Err(format!("bad initialize answer: {}", preview(msg))),
    }
}

/// The first bytes of a message, for error reports.
pub fn preview(msg: &[u8]) -> String {
    let s = String::from_utf8_lossy(&msg[..msg.len().min(200)]);
    s.into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_and_checks_both_tools_and_eras() {
        for era in [Era::Legacy, Era::Modern] {
            let w = Workload::new(era, ToolKind::Echo, 5);
            let mut line = Vec::new();
            w.write_call(3, &mut line);
            let v: serde_json::Value = serde_json::from_slice(&line).unwrap();
            assert_eq!(v["params"]["arguments"]["text"], "3:abcde");
            assert_eq!(v["params"]["_meta"].is_object(), era == Era::Modern);
        }
        let w = Workload::new(Era::Legacy, ToolKind::Add, 0);
        let ok = br#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"12"}]}}"#;
        assert_eq!(w.check(ok), Ok(Some(5)));
        let wrong =
            br#"{"jsonrpc":"2.0","id":5,"result":{"content":[{"type":"text","text":"13"}]}}"#;
        assert!(w.check(wrong).is_err());
        let err = br#"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"x"}}"#;
        assert!(w.check(err).is_err());
        let note = br#"{"jsonrpc":"2.0","method":"notifications/message","params":{}}"#;
        assert_eq!(w.check(note), Ok(None));
    }
}
