//! Fuzzing on stable Rust: property tests (proptest) that feed arbitrary and
//! structure-aware inputs to the parts that read what a peer sends, and assert that nothing
//! panics and that a real invariant holds. One module per target:
//!
//! - `jsonrpc`: `mcp_core::jsonrpc::decode` (one frame);
//! - `framing`: the stdio framer (newline and `Content-Length`);
//! - `headers`: the 2026 Streamable HTTP header rules;
//! - `template`: RFC 6570 URI-template matching of resource templates;
//! - `tool_args`: a `#[mcp::tool]`'s generated argument decoder, served in memory.
//!
//! The client's SSE parser and the `requestState` sealing are crate-private: their fuzz
//! properties are unit tests in `mcp-runtime/src/client/sse.rs` and
//! `mcp-runtime/src/session/request_state.rs` (named `fuzz_*`).
//!
//! Each property runs a small number of cases by default, so CI stays fast;
//! `MCP_FUZZ_CASES=N` runs N cases per property, and `scripts/fuzz.sh [SECONDS]` runs every
//! target with a large N, each bounded by `timeout SECONDS`. A failure is shrunk and its
//! seed saved under `tests/proptest-regressions/`, which is committed and replayed first.

mod support;

use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use serde_json::{Map, Value};

/// `default` cases, or `MCP_FUZZ_CASES` when set.
fn config(default: u32) -> ProptestConfig {
    let cases = std::env::var("MCP_FUZZ_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        cases,
        // Inputs are cheap to reject: do not give up on heavily filtered strategies.
        max_global_rejects: cases.saturating_mul(4).max(1024),
        ..ProptestConfig::default()
    }
}

/// Any JSON value of a bounded size and depth.
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(Value::from),
        ".{0,12}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(".{0,8}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect::<Map<String, Value>>())),
        ]
    })
}

/// Arbitrary bytes, often close to JSON.
fn bytes() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..256),
        json_value().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        // JSON with one byte changed, cut or repeated.
        (json_value(), any::<prop::sample::Index>(), any::<u8>()).prop_map(|(v, i, b)| {
            let mut s = serde_json::to_vec(&v).unwrap();
            if !s.is_empty() {
                let i = i.index(s.len());
                s[i] = b;
            }
            s
        }),
        (json_value(), any::<prop::sample::Index>()).prop_map(|(v, i)| {
            let s = serde_json::to_vec(&v).unwrap();
            s[..i.index(s.len() + 1)].to_vec()
        }),
    ]
}

mod jsonrpc {
    use super::*;
    use mcp::jsonrpc::{
        DecodeOptions, ErrorObject, Frame, INVALID_REQUEST, Message, PARSE_ERROR, RequestId,
        decode, write_error, write_notification, write_request, write_result,
    };

    /// A decoded message as plain data, to compare two decodings.
    #[derive(Debug, PartialEq)]
    enum Plain {
        Request(RequestId, String, Option<String>),
        Notification(String, Option<String>),
        Result(Option<RequestId>, String),
        Error(Option<RequestId>, ErrorObject),
    }

    fn plain(m: &Message<'_>) -> Plain {
        match m {
            Message::Request(r) => Plain::Request(
                r.id.clone(),
                r.method.to_string(),
                r.params.map(|p| p.get().to_owned()),
            ),
            Message::Notification(n) => {
                Plain::Notification(n.method.to_string(), n.params.map(|p| p.get().to_owned()))
            }
            Message::Response(r) => match &r.outcome {
                Ok(v) => Plain::Result(r.id.clone(), v.get().to_owned()),
                Err(e) => Plain::Error(r.id.clone(), e.clone()),
            },
        }
    }

    /// The message encoded with the crate's own encoders.
    fn encode(m: &Message<'_>) -> Vec<u8> {
        let mut out = Vec::new();
        match m {
            Message::Request(r) => {
                write_request(&mut out, &r.id, &r.method, r.params.map(|p| p.get()))
            }
            Message::Notification(n) => {
                write_notification(&mut out, &n.method, n.params.map(|p| p.get()))
            }
            Message::Response(r) => match &r.outcome {
                Ok(v) => write_result(
                    &mut out,
                    r.id.as_ref().expect("a result has an id"),
                    v.get(),
                ),
                Err(e) => write_error(&mut out, r.id.as_ref(), e),
            },
        }
        out
    }

    fn check_roundtrip(m: &Message<'_>) {
        let bytes = encode(m);
        match decode(&bytes, DecodeOptions::default()) {
            Frame::Single(Ok(again)) => assert_eq!(
                plain(&again),
                plain(m),
                "re-encoded as {}",
                String::from_utf8_lossy(&bytes)
            ),
            other => panic!(
                "{} did not decode again: {other:?}",
                String::from_utf8_lossy(&bytes)
            ),
        }
    }

    /// Decodes `bytes` both ways (batches refused and allowed) and checks every outcome.
    fn check(bytes: &[u8]) {
        let is_json = std::str::from_utf8(bytes).is_ok()
            && serde_json::from_slice::<&serde_json::value::RawValue>(bytes).is_ok();
        for allow_batch in [false, true] {
            let opts = DecodeOptions {
                allow_batch,
                ..DecodeOptions::default()
            };
            let results = match decode(bytes, opts) {
                Frame::Single(r) => vec![r],
                Frame::Batch(items) => {
                    assert!(allow_batch, "a batch without allow_batch");
                    assert!(!items.is_empty(), "an empty batch decoded");
                    items
                }
            };
            for r in &results {
                match r {
                    Ok(m) => {
                        assert!(is_json, "not JSON, yet decoded: {m:?}");
                        check_roundtrip(m);
                    }
                    Err(e) if !is_json => assert_eq!(
                        e.error.code,
                        PARSE_ERROR,
                        "{:?}: {e:?}",
                        String::from_utf8_lossy(bytes)
                    ),
                    Err(e) => assert!(
                        e.error.code == INVALID_REQUEST
                            || (e.error.code == PARSE_ERROR && e.error.message.contains("nesting")),
                        "{:?}: {e:?}",
                        String::from_utf8_lossy(bytes)
                    ),
                }
            }
        }
    }

    /// A member value that is sometimes right and often wrong.
    fn id() -> impl Strategy<Value = Option<Value>> {
        prop::option::weighted(
            0.8,
            prop_oneof![
                4 => any::<i64>().prop_map(Value::from),
                4 => ".{0,8}".prop_map(Value::String),
                1 => Just(Value::Null),
                1 => json_value(),
            ],
        )
    }

    fn error_object() -> impl Strategy<Value = Value> {
        prop_oneof![
            3 => (any::<i32>(), ".{0,12}", prop::option::of(json_value())).prop_map(
                |(code, message, data)| {
                    let mut e = serde_json::json!({"code": code, "message": message});
                    if let Some(d) = data {
                        e["data"] = d;
                    }
                    e
                }
            ),
            1 => json_value(),
        ]
    }

    /// A JSON-RPC message, or something close to one.
    fn message() -> impl Strategy<Value = Value> {
        (
            prop::option::weighted(
                0.9,
                prop_oneof![9 => Just(Value::from("2.0")), 1 => json_value()],
            ),
            id(),
            prop::option::of(prop_oneof![
                4 => "[a-z/_]{1,16}".prop_map(Value::String),
                1 => json_value(),
            ]),
            prop::option::of(prop_oneof![
                3 => prop::collection::btree_map("[a-z_]{1,6}", json_value(), 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
                1 => json_value(),
            ]),
            prop::option::weighted(0.3, json_value()),
            prop::option::weighted(0.3, error_object()),
            prop::collection::btree_map("[a-z]{1,4}", json_value(), 0..2),
        )
            .prop_map(|(jsonrpc, id, method, params, result, error, extra)| {
                let mut m: Map<String, Value> = extra.into_iter().collect();
                for (k, v) in [
                    ("jsonrpc", jsonrpc),
                    ("id", id),
                    ("method", method),
                    ("params", params),
                    ("result", result),
                    ("error", error),
                ] {
                    if let Some(v) = v {
                        m.insert(k.to_owned(), v);
                    }
                }
                Value::Object(m)
            })
    }

    proptest! {
        #![proptest_config(config(512))]

        #[test]
        fn arbitrary_bytes(b in bytes()) {
            check(&b);
        }

        #[test]
        fn messages(m in message()) {
            check(&serde_json::to_vec(&m).unwrap());
            check(&serde_json::to_vec_pretty(&m).unwrap());
        }

        #[test]
        fn batches(ms in prop::collection::vec(message(), 0..5)) {
            check(&serde_json::to_vec(&ms).unwrap());
        }

        #[test]
        fn json_that_is_no_message_is_32600(v in json_value()) {
            let bytes = serde_json::to_vec(&v).unwrap();
            if let Frame::Single(Err(e)) = decode(&bytes, DecodeOptions::default()) {
                prop_assert_eq!(e.error.code, INVALID_REQUEST, "{}: {:?}", v, e);
            }
            check(&bytes);
        }
    }
}
