//! What of `_meta` crosses the hop: application keys and trace context (`traceparent`,
//! `tracestate`, `baggage`) pass both ways; the keys the connection owns — the 2026
//! envelope (protocol version, client capabilities and info, log level), `serverInfo`,
//! subscription ids, related tasks, and the progress token (the upstream call gets a token
//! of its own) — are never copied.

use mcp_core::meta;
use mcp_core::types::Meta;
use serde_json::Value;
use serde_json::value::RawValue;

use crate::context::Context;

/// The keys of `_meta` a connection owns: never copied from one side of the hop to the
/// other.
pub(super) const CONNECTION_OWNED: &[&str] = &[
    meta::PROTOCOL_VERSION,
    meta::CLIENT_CAPABILITIES,
    meta::CLIENT_INFO,
    meta::LOG_LEVEL,
    meta::SERVER_INFO,
    meta::SUBSCRIPTION_ID,
    meta::RELATED_TASK,
    meta::PROGRESS_TOKEN,
];

/// Drops the connection-owned keys of `meta` (and `meta` itself when nothing is left).
pub(crate) fn strip(meta: &mut Option<Meta>) {
    if let Some(m) = meta {
        m.retain(|k, _| !CONNECTION_OWNED.contains(&k.as_str()));
        if m.is_empty() {
            *meta = None;
        }
    }
}

/// The `_meta` of the downstream request that goes upstream: its application keys and
/// trace context, none of the connection's own. Only `_meta` is read (where the params' one
/// scan found it), and of it only the members that cross are decoded.
pub(crate) fn forwarded(ctx: &Context) -> Option<Meta> {
    let raw = match ctx.params.as_ref()?.meta() {
        Some(meta) => meta?,
        // Params the scan leaves to serde (a key written with escapes).
        None => {
            return request_meta(ctx.params()?)
                .map(|mut m| {
                    m.retain(|k, _| !CONNECTION_OWNED.contains(&k.as_str()));
                    m
                })
                .filter(|m| !m.is_empty());
        }
    };
    let members: Vec<(std::borrow::Cow<'_, str>, &RawValue)> =
        serde_json::from_str::<Members<'_>>(raw.get()).ok()?.0;
    let m: Meta = (members.into_iter())
        .filter(|(k, _)| !CONNECTION_OWNED.contains(&k.as_ref()))
        .filter_map(|(k, v)| Some((k.into_owned(), serde_json::from_str(v.get()).ok()?)))
        .collect();
    (!m.is_empty()).then_some(m)
}

/// The members of a JSON object, their values undecoded, in order.
struct Members<'a>(Vec<(std::borrow::Cow<'a, str>, &'a RawValue)>);

impl<'de> serde::Deserialize<'de> for Members<'de> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = Members<'de>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a `_meta` object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Members<'de>, A::Error> {
                let mut out = Vec::new();
                while let Some(k) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    out.push((k, map.next_value::<&'de RawValue>()?));
                }
                Ok(Members(out))
            }
        }
        d.deserialize_map(Visit)
    }
}

/// The `_meta` object of a params object, if it has one.
fn request_meta(params: &RawValue) -> Option<Meta> {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "_meta", default)]
        meta: Option<Value>,
    }
    match serde_json::from_str::<Probe>(params.get()).ok()?.meta? {
        Value::Object(m) => Some(m),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn app_keys_and_trace_context_pass_connection_keys_never() {
        let params = json!({"name": "t", "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
            "io.modelcontextprotocol/logLevel": "debug",
            "progressToken": 7,
            "traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01",
            "tracestate": "a=b",
            "com.example/tenant": "acme"
        }});
        let raw = serde_json::value::to_raw_value(&params).unwrap();
        let mut m = request_meta(&raw);
        m.as_mut()
            .unwrap()
            .retain(|k, _| !CONNECTION_OWNED.contains(&k.as_str()));
        let keys: Vec<_> = m.unwrap().keys().cloned().collect();
        assert_eq!(keys, ["com.example/tenant", "traceparent", "tracestate"]);

        let mut result = Some(
            json!({"io.modelcontextprotocol/serverInfo": {}})
                .as_object()
                .unwrap()
                .clone(),
        );
        strip(&mut result);
        assert!(result.is_none());
    }
}
