//! Decode a `tools/call` request and encode its result: the framework's path (borrowed raw
//! params, typed arguments, direct result writing) against the naive path through
//! `serde_json::Value`.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_core::jsonrpc::{DecodeOptions, Frame, Message, RequestId, decode, write_result};
use mcp_core::types::{CallToolParams, CallToolResult, ContentBlock, into_string_for};
use mcp_core::version::ProtocolVersion;
use serde::Deserialize;

const FRAME: &[u8] = br#"{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"name":"add","arguments":{"a":20,"b":22},"_meta":{"progressToken":"p-1"}}}"#;

#[derive(Deserialize)]
struct AddArgs {
    a: i64,
    b: i64,
}

fn framework(out: &mut Vec<u8>) -> usize {
    let Frame::Single(Ok(Message::Request(req))) =
        decode(black_box(FRAME), DecodeOptions::default())
    else {
        unreachable!()
    };
    let params: CallToolParams = serde_json::from_str(req.params.unwrap().get()).unwrap();
    let args: AddArgs =
        serde_json::from_value(serde_json::Value::Object(params.arguments.unwrap())).unwrap();
    let result = CallToolResult {
        content: vec![ContentBlock::text((args.a + args.b).to_string())],
        ..Default::default()
    };
    let json = into_string_for(result, ProtocolVersion::V2025_11_25);
    out.clear();
    write_result(out, &req.id, &json);
    out.len()
}

#[derive(Deserialize)]
struct RawCall<'a> {
    #[allow(dead_code)]
    name: &'a str,
    #[serde(borrow)]
    arguments: &'a serde_json::value::RawValue,
}

fn framework_raw_args(out: &mut Vec<u8>) -> usize {
    let Frame::Single(Ok(Message::Request(req))) =
        decode(black_box(FRAME), DecodeOptions::default())
    else {
        unreachable!()
    };
    let call: RawCall<'_> = serde_json::from_str(req.params.unwrap().get()).unwrap();
    let args: AddArgs = serde_json::from_str(call.arguments.get()).unwrap();
    let result = CallToolResult {
        content: vec![ContentBlock::text((args.a + args.b).to_string())],
        ..Default::default()
    };
    let json = into_string_for(result, ProtocolVersion::V2025_11_25);
    out.clear();
    write_result(out, &RequestId::from(42), &json);
    out.len()
}

fn naive(out: &mut Vec<u8>) -> usize {
    let v: serde_json::Value = serde_json::from_slice(black_box(FRAME)).unwrap();
    let a = v["params"]["arguments"]["a"].as_i64().unwrap();
    let b = v["params"]["arguments"]["b"].as_i64().unwrap();
    let resp = serde_json::json!({
        "jsonrpc": "2.0",
        "id": v["id"].clone(),
        "result": {"content": [{"type": "text", "text": (a + b).to_string()}]},
    });
    out.clear();
    serde_json::to_writer(&mut *out, &resp).unwrap();
    out.len()
}

fn bench(c: &mut Criterion) {
    let mut out = Vec::with_capacity(256);
    let mut g = c.benchmark_group("tools_call_decode_encode");
    g.bench_function("framework_raw_args", |b| {
        b.iter(|| framework_raw_args(&mut out))
    });
    g.bench_function("framework_typed_params", |b| b.iter(|| framework(&mut out)));
    g.bench_function("naive_value", |b| b.iter(|| naive(&mut out)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
