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
use proptest::test_runner::{Config as ProptestConfig, FileFailurePersistence};
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
        // The seed corpus: failures found so far, replayed first (cargo runs tests from
        // the package root).
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "tests/proptest-regressions/fuzz.txt",
        ))),
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

mod framing {
    use super::*;
    use mcp::transport::framing::{FrameReader, Framing, ReadEvent, SKIPPED_HEAD, write_frame};
    use std::io;
    use std::pin::Pin;
    use std::task::{Context, Poll};
    use tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};

    /// A byte stream that hands out exactly the given chunks, one buffer each.
    struct Chunked {
        chunks: Vec<Vec<u8>>,
        at: usize,
        pos: usize,
    }

    impl Chunked {
        fn advance(&mut self, n: usize) {
            self.pos += n;
            if self
                .chunks
                .get(self.at)
                .is_some_and(|c| self.pos >= c.len())
            {
                self.at += 1;
                self.pos = 0;
            }
        }
    }

    impl AsyncRead for Chunked {
        fn poll_read(
            self: Pin<&mut Self>,
            _: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let this = self.get_mut();
            if let Some(c) = this.chunks.get(this.at) {
                let n = (c.len() - this.pos).min(buf.remaining());
                buf.put_slice(&c[this.pos..this.pos + n]);
                this.advance(n);
            }
            Poll::Ready(Ok(()))
        }
    }

    impl AsyncBufRead for Chunked {
        fn poll_fill_buf(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
            let this = self.get_mut();
            Poll::Ready(Ok(match this.chunks.get(this.at) {
                Some(c) => &c[this.pos..],
                None => &[],
            }))
        }

        fn consume(self: Pin<&mut Self>, amt: usize) {
            self.get_mut().advance(amt);
        }
    }

    /// `input` cut at `cuts` (indices into it), never into empty chunks.
    fn split(input: &[u8], cuts: &[prop::sample::Index]) -> Vec<Vec<u8>> {
        let mut at: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
        at.push(0);
        at.push(input.len());
        at.sort_unstable();
        at.dedup();
        at.windows(2).map(|w| input[w[0]..w[1]].to_vec()).collect()
    }

    /// Every event the reader gives for `chunks`, with the head kept for each oversized
    /// frame; checks the memory bounds on the way.
    fn read_all(chunks: Vec<Vec<u8>>, max: usize) -> Vec<(ReadEvent, Vec<u8>)> {
        let total: usize = chunks.iter().map(Vec::len).sum();
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        rt.block_on(async move {
            let mut reader = FrameReader::new(
                Chunked {
                    chunks,
                    at: 0,
                    pos: 0,
                },
                max,
            );
            let mut out = Vec::new();
            loop {
                assert!(out.len() <= total + 1, "the reader makes no progress");
                let ev = reader.next().await.unwrap();
                let head = match &ev {
                    ReadEvent::Eof => return out,
                    ReadEvent::Frame(f) => {
                        assert!(f.len() <= max, "a frame of {} above {max}", f.len());
                        Vec::new()
                    }
                    ReadEvent::Oversized { size } => {
                        assert!(*size > max, "oversized at {size} <= {max}");
                        assert!(reader.skipped_head().len() <= SKIPPED_HEAD);
                        reader.skipped_head().to_vec()
                    }
                    ReadEvent::BadHeader => Vec::new(),
                };
                out.push((ev, head));
            }
        })
    }

    /// Bytes rich in what the framer looks at.
    fn stream() -> impl Strategy<Value = Vec<u8>> {
        let alphabet: Vec<u8> = b"{}\r\n\n :Cc0123456789-Content-Length\t".to_vec();
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..512),
            prop::collection::vec(prop::sample::select(alphabet.clone()), 0..512),
            (
                prop::collection::vec(prop::sample::select(alphabet), 0..64),
                prop::collection::vec(any::<u8>(), 0..256)
            )
                .prop_map(|(h, b)| {
                    let mut v = b"Content-Length: ".to_vec();
                    v.extend(h);
                    v.extend(b);
                    v
                }),
        ]
    }

    fn cuts() -> impl Strategy<Value = Vec<prop::sample::Index>> {
        prop::collection::vec(any::<prop::sample::Index>(), 0..24)
    }

    proptest! {
        #![proptest_config(config(512))]

        #[test]
        fn chunking_does_not_change_the_frames(input in stream(), cuts in cuts(), max in 1usize..80) {
            let whole = read_all(vec![input.clone()], max);
            let chunked = read_all(split(&input, &cuts), max);
            prop_assert_eq!(whole, chunked);
        }

        #[test]
        fn newline_frames(
            bodies in prop::collection::vec(
                (prop::collection::vec(any::<u8>().prop_filter("no newline", |b| *b != b'\n'), 0..100), any::<bool>()),
                0..8,
            ),
            last_unterminated in any::<bool>(),
            cuts in cuts(),
            max in 1usize..64,
        ) {
            let mut input = Vec::new();
            let mut want = Vec::new();
            let n = bodies.len();
            for (i, (inner, crlf)) in bodies.into_iter().enumerate() {
                // `{...}`: never blank, never `C`, never ending in `\r`.
                let mut body = vec![b'{'];
                body.extend(inner);
                body.push(b'}');
                input.extend_from_slice(&body);
                let crlf = crlf && !(last_unterminated && i + 1 == n);
                if crlf {
                    input.push(b'\r');
                }
                if !(last_unterminated && i + 1 == n) {
                    input.push(b'\n');
                }
                want.push(if body.len() <= max {
                    ReadEvent::Frame(body)
                } else {
                    ReadEvent::Oversized { size: body.len() + usize::from(crlf) }
                });
            }
            let got: Vec<ReadEvent> = read_all(split(&input, &cuts), max)
                .into_iter()
                .map(|(ev, _)| ev)
                .collect();
            prop_assert_eq!(got, want);
        }

        #[test]
        fn content_length_frames(
            bodies in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..100), 0..8),
            cuts in cuts(),
            max in 1usize..64,
        ) {
            let mut input = Vec::new();
            let mut want = Vec::new();
            for body in bodies {
                write_frame(&mut input, Framing::ContentLength, &body);
                if body.len() > max {
                    want.push(ReadEvent::Oversized { size: body.len() });
                } else if !body.iter().all(u8::is_ascii_whitespace) {
                    want.push(ReadEvent::Frame(body));
                }
            }
            let got: Vec<ReadEvent> = read_all(split(&input, &cuts), max)
                .into_iter()
                .map(|(ev, _)| ev)
                .collect();
            prop_assert_eq!(got, want);
        }
    }
}

mod headers {
    use super::*;
    use mcp::headers::{
        ParamsView, RequestFields, decode_header_value, encode_header_value, is_header_safe,
        looks_like_sentinel, request_headers, validate_request_fields, validate_request_headers,
    };
    use serde_json::json;

    fn schema() -> Map<String, Value> {
        json!({
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "count": {"type": "integer", "x-mcp-header": "Count"},
                "dry": {"type": "boolean", "x-mcp-header": "Dry"},
                "plain": {"type": "string"}
            }
        })
        .as_object()
        .unwrap()
        .clone()
    }

    const NAMES: [&str; 8] = [
        "MCP-Protocol-Version",
        "mcp-method",
        "MCP-NAME",
        "Mcp-Param-Region",
        "mcp-param-count",
        "Mcp-Param-Dry",
        "Mcp-Param-Other",
        "Content-Type",
    ];
    const METHODS: [&str; 6] = [
        "tools/call",
        "prompts/get",
        "resources/read",
        "tasks/get",
        "tools/list",
        "ping",
    ];

    /// A header value: arbitrary bytes, or a sentinel-shaped one.
    fn header_value() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            prop::collection::vec(any::<u8>(), 0..24),
            ".{0,16}".prop_map(String::into_bytes),
            "[ \t]?=\\?base64\\?[A-Za-z0-9+/=]{0,12}\\?=[ \t]?".prop_map(String::into_bytes),
            Just(b"2026-07-28".to_vec()),
            Just(b"tools/call".to_vec()),
        ]
    }

    /// Params that are sometimes a real `tools/call` and often not.
    fn params() -> impl Strategy<Value = Value> {
        prop_oneof![
            json_value(),
            (
                prop::option::of(".{0,8}"),
                prop::collection::btree_map(
                    prop::sample::select(vec!["region", "count", "dry", "plain"]),
                    json_value(),
                    0..4
                ),
                prop::option::of(prop_oneof![Just(json!("2026-07-28")), json_value()]),
            )
                .prop_map(|(name, args, version)| {
                    let mut p = json!({"arguments": args});
                    if let Some(n) = name {
                        p["name"] = json!(n);
                    }
                    if let Some(v) = version {
                        p["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": v});
                    }
                    p
                }),
        ]
    }

    proptest! {
        #![proptest_config(config(512))]

        #[test]
        fn encoding_round_trips(s in ".{0,40}") {
            let encoded = encode_header_value(&s);
            prop_assert!(is_header_safe(&encoded), "{:?} encoded as {:?}", s, encoded);
            prop_assert_eq!(decode_header_value(&encoded).unwrap(), s.as_str());
        }

        #[test]
        fn decoding_arbitrary_values(raw in header_value()) {
            let raw = String::from_utf8_lossy(&raw);
            if let Ok(d) = decode_header_value(&raw)
                && !looks_like_sentinel(&raw)
            {
                prop_assert_eq!(d.as_ref(), raw.as_ref());
            }
        }

        /// Whatever a client derives from a request, the server accepts.
        #[test]
        fn the_server_accepts_what_the_client_sends(
            name in ".{0,16}",
            region in prop::option::of(".{0,16}"),
            count in prop::option::of(-(1i64 << 53) + 1..(1i64 << 53)),
            dry in prop::option::of(any::<bool>()),
            method in prop::sample::select(METHODS.to_vec()),
        ) {
            let mut args = Map::new();
            if let Some(r) = region {
                args.insert("region".into(), json!(r));
            }
            if let Some(c) = count {
                args.insert("count".into(), json!(c));
            }
            if let Some(d) = dry {
                args.insert("dry".into(), json!(d));
            }
            let params = json!({
                "name": name,
                "uri": name,
                "taskId": name,
                "arguments": args,
                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"},
            });
            let schema = schema();
            let headers = request_headers(method, ParamsView::Value(&params), Some(&schema));
            let r = validate_request_headers(&headers, method, ParamsView::Value(&params), Some("2026-07-28"), Some(&schema));
            prop_assert!(r.is_ok(), "{:?} refused: {:?}", headers, r);
            let raw = serde_json::value::to_raw_value(&params).unwrap();
            let r = validate_request_headers(&headers, method, ParamsView::Raw(&raw), Some("2026-07-28"), Some(&schema));
            prop_assert!(r.is_ok(), "{:?} refused (raw): {:?}", headers, r);
        }

        /// Arbitrary headers and bodies: no panic, and the scan of raw params judges as
        /// the full parse does.
        #[test]
        fn arbitrary_headers_and_bodies(
            headers in prop::collection::vec((prop::sample::select(NAMES.to_vec()), header_value()), 0..8),
            method in prop::sample::select(METHODS.to_vec()),
            params in params(),
            with_schema in any::<bool>(),
        ) {
            let schema = schema();
            let schema = with_schema.then_some(&schema);
            let raw = serde_json::value::to_raw_value(&params).unwrap();
            let full = RequestFields::of(ParamsView::Value(&params));
            let by_value = validate_request_headers(&headers, method, ParamsView::Value(&params), full.protocol_version(), schema);
            let by_raw = validate_request_headers(&headers, method, ParamsView::Raw(&raw), full.protocol_version(), schema);
            // Raw params whose `_meta` is neither an object nor `null` read as having no
            // fields (documented on `RequestFields::of`); parsed ones keep the others.
            let odd_meta = params.get("_meta").is_some_and(|m| !m.is_object() && !m.is_null());
            if !odd_meta {
                prop_assert_eq!(&by_value, &by_raw);
            }
            if let Some(scanned) = RequestFields::scan(Some(&raw)) {
                prop_assert_eq!(scanned.protocol_version(), full.protocol_version());
                prop_assert_eq!(scanned.name(), full.name());
                let by_scan = validate_request_fields(&headers, method, &scanned, schema);
                prop_assert_eq!(&by_scan, &by_value);
            }
        }
    }
}

mod template {
    use super::*;
    use mcp::__private::match_template;

    /// Percent-encodes every byte outside the unreserved set (and `/` unless `keep_slash`).
    fn encode(s: &str, keep_slash: bool) -> String {
        let mut out = String::new();
        for b in s.bytes() {
            if b.is_ascii_alphanumeric()
                || matches!(b, b'-' | b'.' | b'_' | b'~')
                || (keep_slash && b == b'/')
            {
                out.push(b as char);
            } else {
                out.push_str(&format!("%{b:02X}"));
            }
        }
        out
    }

    #[derive(Debug, Clone)]
    enum Op {
        Simple,
        Reserved,
        Fragment,
    }

    /// One expression with its value and the literal after it: the literal starts with a
    /// character no encoded value holds, so it ends the value.
    fn part() -> impl Strategy<Value = (Op, String, String, String)> {
        (
            prop_oneof![Just(Op::Simple), Just(Op::Reserved), Just(Op::Fragment)],
            "[a-z][a-z0-9_]{0,6}",
            ".{1,12}",
            "[:?=&,;!*$@][a-z0-9:/.?=&-]{0,6}",
        )
            .prop_map(|(op, var, value, lit)| (op, var, value, lit))
    }

    proptest! {
        #![proptest_config(config(512))]

        #[test]
        fn generated_uris_give_back_their_values(
            scheme in "[a-z]{1,8}://[a-z0-9./-]{0,8}",
            parts in prop::collection::vec(part(), 1..5),
            last_literal in any::<bool>(),
        ) {
            let mut template = scheme.clone();
            let mut uri = scheme;
            let mut want = Vec::new();
            let n = parts.len();
            for (i, (op, var, value, lit)) in parts.into_iter().enumerate() {
                let (prefix, encoded) = match op {
                    Op::Simple => ("", encode(&value, false)),
                    Op::Reserved => ("+", encode(&value, true)),
                    Op::Fragment => ("#", encode(&value, false)),
                };
                template.push_str(&format!("{{{prefix}{var}}}"));
                if matches!(op, Op::Fragment) {
                    uri.push('#');
                }
                uri.push_str(&encoded);
                want.push(value);
                if i + 1 < n || last_literal {
                    template.push_str(&lit);
                    uri.push_str(&lit);
                }
            }
            let got = match_template(&template, &uri);
            prop_assert_eq!(got, Some(want), "{} against {}", template, uri);
        }

        #[test]
        fn arbitrary_templates_and_uris(template in "[a-z:/{}+#?=&%0-9A-F]{0,24}", uri in "[a-z:/{}+#?=&%0-9A-F]{0,24}") {
            if let Some(values) = match_template(&template, &uri) {
                // Each value is a non-empty, decoded part of the URI.
                for v in values {
                    prop_assert!(!v.is_empty());
                }
            }
        }

        #[test]
        fn arbitrary_strings(template in ".{0,24}", uri in ".{0,24}") {
            let _ = match_template(&template, &uri);
        }
    }
}

mod tool_args {
    use super::*;
    use serde_json::json;
    use support::Wire;

    /// A point.
    #[derive(serde::Deserialize, schemars::JsonSchema)]
    struct Point {
        /// Across.
        x: i64,
        /// Down.
        y: i64,
    }

    /// One argument of each kind the decoder handles.
    #[mcp::tool]
    async fn typed(
        /// An integer.
        n: i64,
        /// A small integer.
        small: u8,
        /// A flag.
        flag: bool,
        /// A name.
        name: String,
        /// Maybe a note.
        note: Option<String>,
        /// Some integers.
        list: Vec<i64>,
        /// A point.
        point: Point,
    ) -> String {
        format!(
            "{n} {small} {flag} {name} {note:?} {} {} {}",
            list.len(),
            point.x,
            point.y
        )
    }

    #[mcp::server(name = "fuzz", version = "1", tools(typed))]
    struct Fuzz;

    const ARGS: [&str; 7] = ["n", "small", "flag", "name", "note", "list", "point"];

    fn is_i64(v: &Value) -> bool {
        v.as_i64().is_some()
    }

    /// Whether `v` is a valid value for argument `name` (`None`: absent).
    fn valid(name: &str, v: Option<&Value>) -> bool {
        match (name, v) {
            ("note", None | Some(Value::Null | Value::String(_))) => true,
            (_, None) => false,
            ("n", Some(v)) => is_i64(v),
            ("small", Some(v)) => v.as_u64().is_some_and(|n| n <= 255),
            ("flag", Some(v)) => v.is_boolean(),
            ("name", Some(v)) => v.is_string(),
            ("list", Some(Value::Array(a))) => a.iter().all(is_i64),
            ("point", Some(Value::Object(o))) => {
                o.get("x").is_some_and(is_i64) && o.get("y").is_some_and(is_i64)
            }
            // serde also reads a struct from an array of its fields, in order (found by
            // this target; the input schema says "object", the decoder is lenient).
            ("point", Some(Value::Array(a))) => a.len() == 2 && a.iter().all(is_i64),
            _ => false,
        }
    }

    /// A value that fits `name`, or often one that does not.
    fn value_for(name: &'static str) -> BoxedStrategy<Value> {
        let good: BoxedStrategy<Value> = match name {
            "n" => any::<i64>().prop_map(Value::from).boxed(),
            "small" => (0u64..=300).prop_map(Value::from).boxed(),
            "flag" => any::<bool>().prop_map(Value::from).boxed(),
            "name" | "note" => ".{0,8}".prop_map(Value::from).boxed(),
            "list" => prop::collection::vec(any::<i64>(), 0..4)
                .prop_map(|v| json!(v))
                .boxed(),
            _ => (any::<i64>(), any::<i64>(), prop::option::of(json_value()))
                .prop_map(|(x, y, extra)| {
                    let mut p = json!({"x": x, "y": y});
                    if let Some(e) = extra {
                        p["x"] = e;
                    }
                    p
                })
                .boxed(),
        };
        prop_oneof![4 => good, 1 => json_value()].boxed()
    }

    /// An arguments object: each argument present (often well-typed) or absent.
    fn arguments() -> impl Strategy<Value = Value> {
        let members: Vec<_> = ARGS
            .iter()
            .map(|&a| prop::option::weighted(0.9, value_for(a)))
            .collect();
        prop_oneof![
            6 => (members, prop::option::weighted(0.2, ("[a-z]{1,4}", json_value()))).prop_map(
                |(values, extra)| {
                    let mut m = Map::new();
                    for (name, v) in ARGS.iter().zip(values) {
                        if let Some(v) = v {
                            m.insert((*name).to_owned(), v);
                        }
                    }
                    if let Some((k, v)) = extra {
                        m.entry(k).or_insert(v);
                    }
                    Value::Object(m)
                }
            ),
            1 => json_value(),
        ]
    }

    proptest! {
        #![proptest_config(config(64))]

        /// Every call gets one answer: a result, an `isError` result naming a bad argument,
        /// or (for params that are no object) -32602; never -32603.
        #[test]
        fn one_answer_per_call_and_bad_arguments_named(calls in prop::collection::vec(arguments(), 1..12)) {
            let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            rt.block_on(async {
                let mut wire = Wire::new(Fuzz.into_server().serve_in_memory());
                wire.initialize("2025-11-25").await;
                for (i, args) in calls.iter().enumerate() {
                    wire.send(&json!({
                        "jsonrpc": "2.0", "id": i, "method": "tools/call",
                        "params": {"name": "typed", "arguments": args},
                    })).await;
                }
                let mut answered = vec![false; calls.len()];
                for _ in 0..calls.len() {
                    let r = wire.recv().await;
                    let id = r["id"].as_u64().unwrap_or_else(|| panic!("no id: {r}")) as usize;
                    assert!(!answered[id], "answered twice: {r}");
                    answered[id] = true;
                    // `"arguments": null` is no arguments.
                    let args = match &calls[id] {
                        Value::Null => &json!({}),
                        a => a,
                    };
                    if let Some(e) = r.get("error") {
                        assert_ne!(e["code"], -32603, "{args} -> {r}");
                        assert!(!args.is_object(), "{args} -> {r}");
                        continue;
                    }
                    let result = &r["result"];
                    let all_valid = args.as_object().is_some_and(|o| {
                        ARGS.iter().all(|a| valid(a, o.get(*a)))
                    });
                    if result["isError"] == true {
                        assert!(!all_valid, "valid arguments refused: {args} -> {r}");
                        let text = result["content"][0]["text"].as_str().unwrap();
                        if let Some(o) = args.as_object() {
                            let named = ARGS.iter().find(|a| {
                                text.starts_with(&format!("argument \"{a}\""))
                                    || text.starts_with(&format!("argument \"{a}."))
                                    || text.starts_with(&format!("argument \"{a}["))
                            });
                            let named = named.unwrap_or_else(|| panic!("names no argument: {args} -> {text}"));
                            assert!(!valid(named, o.get(*named)), "{named} is valid: {args} -> {text}");
                        } else {
                            assert!(text.contains("expected an object"), "{args} -> {text}");
                        }
                    } else {
                        assert!(all_valid, "invalid arguments accepted: {args} -> {r}");
                    }
                }
                wire.expect_silence(20).await;
            });
        }
    }
}
