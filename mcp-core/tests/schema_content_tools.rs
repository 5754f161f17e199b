//! Content blocks and tools against every revision's schema (strict), the per-revision
//! conversions, and the 2026-07-28 examples of these types.

mod common;

use mcp_core::jsonrpc::{TypedNotification, TypedRequest, TypedResponse};
use mcp_core::types::*;
use mcp_core::version::ProtocolVersion as V;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// helpers

fn obj(v: Value) -> Meta {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// A valid 2026 request `_meta` envelope.
fn meta26() -> Meta {
    obj(json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "1"},
        "progressToken": 7
    }))
}

fn annotations() -> Annotations {
    Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.25),
        last_modified: Some("2025-01-12T15:00:58Z".into()),
    }
}

fn icons() -> Vec<Icon> {
    vec![Icon {
        src: "https://example.com/i.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["48x48".into()]),
        theme: Some(IconTheme::Dark),
    }]
}

fn some_meta() -> Option<Meta> {
    Some(obj(json!({"example.com/k": [1, 2]})))
}

/// Validates a request `{method, params}` for `rev`. Before 2025-11-25 the per-method
/// definitions have no `jsonrpc`/`id` and their inline params omit `_meta` (which the base
/// `Request` definition defines), so `_meta` is checked against `Request` separately.
#[track_caller]
fn check_request(spec: &common::Spec, rev: V, def: &str, method: &str, mut params: Value) {
    if rev < V::V2025_11_25 {
        if let Some(meta) = params.as_object_mut().and_then(|p| p.remove("_meta")) {
            spec.check(
                rev,
                "Request",
                &json!({"method": method, "params": {"_meta": meta}}),
            );
        }
        spec.check(rev, def, &json!({"method": method, "params": params}));
    } else {
        spec.check(
            rev,
            def,
            &json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}),
        );
    }
}

#[track_caller]
fn check_notification(spec: &common::Spec, rev: V, def: &str, method: &str, params: Value) {
    if rev < V::V2025_11_25 {
        spec.check(rev, def, &json!({"method": method, "params": params}));
    } else {
        spec.check(
            rev,
            def,
            &json!({"jsonrpc": "2.0", "method": method, "params": params}),
        );
    }
}

fn examples(spec: &common::Spec, folder: &str) -> Vec<(String, Value)> {
    let dir = spec.dir().join("2026-07-28/examples").join(folder);
    let mut out: Vec<(String, Value)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (
                p.display().to_string(),
                serde_json::from_str(&text).unwrap(),
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    assert!(!out.is_empty(), "no examples in {folder}");
    out
}

/// Every example of `folder` deserializes into `T`, serializes back unchanged, and after
/// adapting for 2026-07-28 still validates strictly against `folder`'s definition.
fn roundtrip_with<T, F>(spec: &common::Spec, folder: &str, adapt: F) -> usize
where
    T: DeserializeOwned + Serialize,
    F: Fn(&mut T),
{
    let all = examples(spec, folder);
    for (path, json) in &all {
        let mut value: T = serde_json::from_value(json.clone())
            .unwrap_or_else(|e| panic!("{path}: does not deserialize: {e}"));
        assert_eq!(&serde_json::to_value(&value).unwrap(), json, "{path}");
        adapt(&mut value);
        spec.check(
            V::V2026_07_28,
            folder,
            &serde_json::to_value(&value).unwrap(),
        );
    }
    all.len()
}

fn roundtrip<T: DeserializeOwned + Serialize + Adapt>(spec: &common::Spec, folder: &str) {
    roundtrip_with::<T, _>(spec, folder, |v| v.adapt(V::V2026_07_28));
}

fn roundtrip_request<P: DeserializeOwned + Serialize + Adapt + Default>(
    spec: &common::Spec,
    folder: &str,
) {
    roundtrip_with::<TypedRequest<P>, _>(spec, folder, |r| r.params.adapt(V::V2026_07_28));
}

fn roundtrip_response<R: DeserializeOwned + Serialize + Adapt>(spec: &common::Spec, folder: &str) {
    roundtrip_with::<TypedResponse<R>, _>(spec, folder, |r| r.result.adapt(V::V2026_07_28));
}

fn roundtrip_notification<P: DeserializeOwned + Serialize + Adapt + Default>(
    spec: &common::Spec,
    folder: &str,
) {
    roundtrip_with::<TypedNotification<P>, _>(spec, folder, |n| n.params.adapt(V::V2026_07_28));
}

/// The sampling-only blocks live in the sampling content enum (another module); this
/// stand-in tags them the same way for the tests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
enum SamplingBlock {
    #[serde(rename = "tool_use")]
    ToolUse(ToolUseContent),
    #[serde(rename = "tool_result")]
    ToolResult(ToolResultContent),
}

impl Adapt for SamplingBlock {
    fn adapt(&mut self, rev: V) {
        match self {
            SamplingBlock::ToolUse(u) => u.adapt(rev),
            SamplingBlock::ToolResult(r) => r.adapt(rev),
        }
    }
}

// ---------------------------------------------------------------------------------------
// content blocks

fn full_text() -> ContentBlock {
    ContentBlock::Text(TextContent {
        text: "hello".into(),
        annotations: Some(annotations()),
        meta: some_meta(),
    })
}

fn full_image() -> ContentBlock {
    ContentBlock::Image(ImageContent {
        annotations: Some(annotations()),
        meta: some_meta(),
        ..ImageContent::from_bytes(b"\x89PNG", "image/png")
    })
}

fn full_audio() -> ContentBlock {
    ContentBlock::Audio(AudioContent {
        annotations: Some(annotations()),
        meta: some_meta(),
        ..AudioContent::from_bytes(b"RIFF", "audio/wav")
    })
}

fn full_link() -> ContentBlock {
    ContentBlock::ResourceLink(Resource {
        uri: "file:///project/src/main.rs".into(),
        name: "main.rs".into(),
        title: Some("Main".into()),
        description: Some("Entry point".into()),
        mime_type: Some("text/x-rust".into()),
        annotations: Some(annotations()),
        size: Some(42),
        icons: Some(icons()),
        meta: some_meta(),
    })
}

fn full_embedded_text() -> ContentBlock {
    ContentBlock::Resource(EmbeddedResource {
        resource: ResourceContents::Text(TextResourceContents {
            uri: "file:///a.txt".into(),
            mime_type: Some("text/plain".into()),
            text: "A".into(),
            meta: some_meta(),
        }),
        annotations: Some(annotations()),
        meta: some_meta(),
    })
}

fn full_embedded_blob() -> ContentBlock {
    ContentBlock::Resource(EmbeddedResource {
        resource: ResourceContents::Blob(BlobResourceContents {
            uri: "file:///a.bin".into(),
            mime_type: Some("application/octet-stream".into()),
            blob: "AAEC".into(),
            meta: some_meta(),
        }),
        annotations: Some(annotations()),
        meta: some_meta(),
    })
}

fn all_full_blocks() -> Vec<ContentBlock> {
    vec![
        full_text(),
        full_image(),
        full_audio(),
        full_link(),
        full_embedded_text(),
        full_embedded_blob(),
    ]
}

fn minimal_blocks() -> Vec<ContentBlock> {
    vec![
        ContentBlock::text(""),
        ContentBlock::image("AA==", "image/png"),
        ContentBlock::audio("AA==", "audio/wav"),
        ContentBlock::resource_link("file:///x", "x"),
        ContentBlock::embedded_text("file:///x", "x"),
        ContentBlock::resource(ResourceContents::blob("file:///x", b"x")),
    ]
}

/// The schema definition a serialized block must match on `rev`.
fn def_of(block: &Value) -> &'static str {
    match block["type"].as_str().unwrap() {
        "text" => "TextContent",
        "image" => "ImageContent",
        "audio" => "AudioContent",
        "resource_link" => "ResourceLink",
        "resource" => "EmbeddedResource",
        other => panic!("unexpected block type {other}"),
    }
}

#[test]
fn content_blocks_validate_on_every_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        for block in all_full_blocks().into_iter().chain(minimal_blocks()) {
            let v = to_value_for(&block, rev);
            spec.check(rev, def_of(&v), &v);
            if rev >= V::V2025_06_18 {
                spec.check(rev, "ContentBlock", &v);
            }
            if let Some(res) = v.get("resource") {
                let def = if res.get("text").is_some() {
                    "TextResourceContents"
                } else {
                    "BlobResourceContents"
                };
                spec.check(rev, def, res);
            }
        }
    }
}

#[test]
fn content_block_fields_by_revision() {
    let Some(spec) = common::spec() else { return };
    let _ = spec;
    for rev in common::revisions() {
        let t = to_value_for(&full_text(), rev);
        assert_eq!(t["type"], "text");
        assert_eq!(t.get("_meta").is_some(), rev >= V::V2025_06_18, "{rev}");
        assert_eq!(
            t["annotations"].get("lastModified").is_some(),
            rev >= V::V2025_06_18,
            "{rev}"
        );
        let e = to_value_for(&full_embedded_blob(), rev);
        assert_eq!(e["resource"].get("_meta").is_some(), rev >= V::V2025_06_18);
        assert_eq!(e.get("_meta").is_some(), rev >= V::V2025_06_18);
        let l = to_value_for(&full_link(), rev);
        if rev >= V::V2025_06_18 {
            assert_eq!(l["type"], "resource_link");
            assert_eq!(l.get("icons").is_some(), rev >= V::V2025_11_25, "{rev}");
            assert_eq!(l["title"], "Main");
        }
    }
}

#[test]
fn audio_becomes_text_before_2025_03_26() {
    let Some(spec) = common::spec() else { return };
    let v = to_value_for(&full_audio(), V::V2024_11_05);
    assert_eq!(v["type"], "text");
    assert_eq!(
        v["text"], "[audio: audio/wav, 8 base64 characters omitted]",
        "{v}"
    );
    assert_eq!(v["annotations"]["priority"], 0.25);
    assert!(v.get("_meta").is_none() && v.get("data").is_none());
    spec.check(V::V2024_11_05, "TextContent", &v);
    for rev in [
        V::V2025_03_26,
        V::V2025_06_18,
        V::V2025_11_25,
        V::V2026_07_28,
    ] {
        let v = to_value_for(&full_audio(), rev);
        assert_eq!(v["type"], "audio");
        assert_eq!(v["data"], "UklGRg==");
    }
}

#[test]
fn resource_link_becomes_text_before_2025_06_18() {
    let Some(spec) = common::spec() else { return };
    for rev in [V::V2024_11_05, V::V2025_03_26] {
        let v = to_value_for(&full_link(), rev);
        assert_eq!(
            v,
            json!({
                "type": "text",
                "text": "[resource link: Main <file:///project/src/main.rs> (text/x-rust)]\nEntry point",
                "annotations": {"audience": ["user", "assistant"], "priority": 0.25}
            })
        );
        spec.check(rev, "TextContent", &v);
        let minimal = to_value_for(&ContentBlock::resource_link("file:///x", "x"), rev);
        assert_eq!(
            minimal,
            json!({"type": "text", "text": "[resource link: x <file:///x>]"})
        );
    }
}

#[test]
fn adapting_blocks_is_idempotent() {
    for rev in common::revisions() {
        for block in all_full_blocks() {
            let mut once = block.clone();
            once.adapt(rev);
            let mut twice = once.clone();
            twice.adapt(rev);
            assert_eq!(once, twice, "{rev}");
        }
    }
}

#[test]
fn blocks_read_back_and_tolerate_unknown_fields() {
    let v = json!({"type": "text", "text": "hi", "extra": {"x": 1}});
    let b: ContentBlock = serde_json::from_value(v).unwrap();
    assert_eq!(b, ContentBlock::text("hi"));
    assert_eq!(b.as_text(), Some("hi"));
    assert_eq!(b.kind(), "text");
    let r: ResourceContents =
        serde_json::from_value(json!({"uri": "file:///b", "blob": "AA=="})).unwrap();
    assert!(matches!(r, ResourceContents::Blob(_)));
    assert_eq!(r.uri(), "file:///b");
    let r: ResourceContents =
        serde_json::from_value(json!({"uri": "file:///t", "text": "t", "mimeType": "text/plain"}))
            .unwrap();
    assert_eq!(
        r,
        ResourceContents::text("file:///t", "t").with_mime_type("text/plain")
    );
    assert!(serde_json::from_value::<ContentBlock>(json!({"type": "video", "data": ""})).is_err());
    for block in all_full_blocks() {
        let back: ContentBlock =
            serde_json::from_value(serde_json::to_value(&block).unwrap()).unwrap();
        assert_eq!(back, block);
    }
}

// ---------------------------------------------------------------------------------------
// sampling-only blocks

fn full_tool_result() -> ToolResultContent {
    ToolResultContent {
        tool_use_id: "call_1".into(),
        content: all_full_blocks(),
        structured_content: Some(json!([1, 2, 3])),
        is_error: Some(false),
        meta: some_meta(),
    }
}

#[test]
fn tool_use_and_result_blocks_validate() {
    let Some(spec) = common::spec() else { return };
    let use_full = SamplingBlock::ToolUse(ToolUseContent {
        id: "call_1".into(),
        name: "get_weather".into(),
        input: obj(json!({"city": "Paris"})),
        meta: some_meta(),
    });
    let use_min = SamplingBlock::ToolUse(ToolUseContent {
        id: "c".into(),
        name: "n".into(),
        ..Default::default()
    });
    let result_min = SamplingBlock::ToolResult(ToolResultContent {
        tool_use_id: "c".into(),
        ..Default::default()
    });
    for rev in [V::V2025_11_25, V::V2026_07_28] {
        spec.check(rev, "ToolUseContent", &to_value_for(&use_full, rev));
        spec.check(rev, "ToolUseContent", &to_value_for(&use_min, rev));
        spec.check(rev, "ToolResultContent", &to_value_for(&result_min, rev));
        let full = to_value_for(&SamplingBlock::ToolResult(full_tool_result()), rev);
        spec.check(rev, "ToolResultContent", &full);
        if rev == V::V2025_11_25 {
            assert_eq!(full["structuredContent"], json!({"result": [1, 2, 3]}));
        } else {
            assert_eq!(full["structuredContent"], json!([1, 2, 3]));
        }
    }
    // An object stays as it is on 2025-11-25.
    let mut r = full_tool_result();
    r.structured_content = Some(json!({"a": 1}));
    assert_eq!(
        to_value_for(&r, V::V2025_11_25)["structuredContent"],
        json!({"a": 1})
    );
    // Text fallbacks for revisions without these blocks.
    let SamplingBlock::ToolUse(u) = use_full else {
        unreachable!()
    };
    let t = u.to_text_fallback();
    assert_eq!(t.text, r#"[tool use call_1: get_weather {"city":"Paris"}]"#);
    spec.check(
        V::V2024_11_05,
        "TextContent",
        &to_value_for(&ContentBlock::Text(t), V::V2024_11_05),
    );
}

// ---------------------------------------------------------------------------------------
// tools

fn full_tool() -> Tool {
    Tool {
        name: "get_weather".into(),
        title: Some("Weather".into()),
        description: Some("Get the weather".into()),
        input_schema: obj(json!({
            "type": "object",
            "properties": {"location": {"type": "string"}},
            "required": ["location"]
        })),
        output_schema: Some(obj(json!({
            "type": "object",
            "properties": {"temperature": {"type": "number"}},
            "required": ["temperature"]
        }))),
        annotations: Some(ToolAnnotations {
            title: Some("Weather (annotation)".into()),
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: Some(true),
            open_world_hint: Some(true),
        }),
        execution: Some(ToolExecution {
            task_support: Some(TaskSupport::Optional),
        }),
        icons: Some(icons()),
        meta: some_meta(),
    }
}

#[test]
fn tool_validates_with_fields_by_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let v = to_value_for(&full_tool(), rev);
        spec.check(rev, "Tool", &v);
        spec.check(rev, "Tool", &to_value_for(&Tool::new("min"), rev));
        let has = |k: &str| v.get(k).is_some();
        assert!(has("name") && has("description") && has("inputSchema"));
        assert_eq!(has("title"), rev >= V::V2025_06_18, "title {rev}");
        assert_eq!(
            has("annotations"),
            rev >= V::V2025_03_26,
            "annotations {rev}"
        );
        assert_eq!(
            has("outputSchema"),
            rev >= V::V2025_06_18,
            "outputSchema {rev}"
        );
        assert_eq!(has("_meta"), rev >= V::V2025_06_18, "_meta {rev}");
        assert_eq!(has("icons"), rev >= V::V2025_11_25, "icons {rev}");
        assert_eq!(has("execution"), rev == V::V2025_11_25, "execution {rev}");
        if rev >= V::V2025_03_26 {
            spec.check(rev, "ToolAnnotations", &v["annotations"]);
        }
        if rev == V::V2025_11_25 {
            assert_eq!(v["execution"], json!({"taskSupport": "optional"}));
            spec.check(rev, "ToolExecution", &v["execution"]);
            spec.check(rev, "ToolExecution", &json!({}));
        }
    }
    let min = to_value_for(&Tool::new("min"), V::V2024_11_05);
    assert_eq!(
        min,
        json!({"name": "min", "inputSchema": {"type": "object"}})
    );
    assert_eq!(full_tool().display_name(), "Weather");
}

#[test]
fn tool_schemas_are_shaped_for_older_revisions() {
    let Some(spec) = common::spec() else { return };
    let array_out = Tool::new("list_users").with_output_schema(json!({
        "type": "array",
        "items": {"type": "string"}
    }));
    for rev in [V::V2025_06_18, V::V2025_11_25] {
        let v = to_value_for(&array_out, rev);
        assert_eq!(
            v["outputSchema"],
            json!({
                "type": "object",
                "properties": {"result": {"type": "array", "items": {"type": "string"}}},
                "required": ["result"]
            })
        );
        spec.check(rev, "Tool", &v);
        // Idempotent: the wrapped schema is an object schema and stays as it is.
        let mut twice = array_out.clone();
        twice.adapt(rev);
        twice.adapt(rev);
        assert_eq!(serde_json::to_value(&twice).unwrap(), v);
    }
    let v = to_value_for(&array_out, V::V2026_07_28);
    assert_eq!(v["outputSchema"]["type"], "array");
    spec.check(V::V2026_07_28, "Tool", &v);
    // No `type` but `properties`: an object schema missing its `type`, which is filled.
    let untyped = Tool::new("t")
        .with_input_schema(json!({"properties": {"a": {"type": "string"}}}))
        .with_output_schema(json!({"properties": {"b": {"type": "number"}}}));
    for rev in common::revisions() {
        let v = to_value_for(&untyped, rev);
        assert_eq!(v["inputSchema"]["type"], "object");
        spec.check(rev, "Tool", &v);
        if (V::V2025_06_18..V::V2026_07_28).contains(&rev) {
            assert_eq!(v["outputSchema"]["type"], "object");
            assert!(v["outputSchema"]["properties"].get("b").is_some());
        }
    }
    // `$schema` is kept everywhere (inputSchema is open in every revision).
    let with_dialect = Tool::new("d").with_input_schema(
        json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object"}),
    );
    for rev in common::revisions() {
        let v = to_value_for(&with_dialect, rev);
        assert!(v["inputSchema"].get("$schema").is_some());
        spec.check(rev, "Tool", &v);
    }
}

#[test]
fn list_tools_params_and_request() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let meta = if rev.era() == mcp_core::version::Era::Modern {
            meta26()
        } else {
            obj(json!({"progressToken": "p"}))
        };
        let full = ListToolsParams {
            cursor: Some("c2".into()),
            meta: Some(meta.clone()),
        };
        let minimal = ListToolsParams {
            cursor: None,
            meta: (rev.era() == mcp_core::version::Era::Modern).then_some(meta),
        };
        for p in [&full, &minimal] {
            let v = to_value_for(p, rev);
            check_request(
                spec,
                rev,
                "ListToolsRequest",
                ListToolsParams::METHOD,
                v.clone(),
            );
            if rev >= V::V2025_11_25 {
                spec.check(rev, "PaginatedRequestParams", &v);
            }
        }
    }
    // Legacy: params may be absent altogether.
    spec.check(
        V::V2024_11_05,
        "ListToolsRequest",
        &json!({"method": "tools/list"}),
    );
}

#[test]
fn list_tools_result_by_revision() {
    let Some(spec) = common::spec() else { return };
    let full = ListToolsResult {
        tools: vec![full_tool(), Tool::new("b")],
        next_cursor: Some("n".into()),
        meta: some_meta(),
        result_type: Some(ResultType::Complete),
        ttl_ms: Some(60_000),
        cache_scope: Some(CacheScope::Public),
    };
    for rev in common::revisions() {
        let modern = rev == V::V2026_07_28;
        for r in [&full, &ListToolsResult::default()] {
            let v = to_value_for(r, rev);
            spec.check(rev, "ListToolsResult", &v);
            assert_eq!(v.get("resultType").is_some(), modern, "{rev}");
            assert_eq!(v.get("ttlMs").is_some(), modern, "{rev}");
            assert_eq!(v.get("cacheScope").is_some(), modern, "{rev}");
            if modern {
                spec.check(
                    rev,
                    "ListToolsResultResponse",
                    &json!({"jsonrpc": "2.0", "id": "x", "result": v}),
                );
            }
        }
    }
    let v = to_value_for(&full, V::V2026_07_28);
    assert_eq!(
        (v["ttlMs"].clone(), v["cacheScope"].clone()),
        (json!(60_000), json!("public"))
    );
    let v = to_value_for(&ListToolsResult::default(), V::V2026_07_28);
    assert_eq!(
        v,
        json!({"tools": [], "resultType": "complete", "ttlMs": 0, "cacheScope": "private"})
    );
}

#[test]
fn call_tool_params_by_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let modern = rev == V::V2026_07_28;
        let meta = if modern {
            meta26()
        } else {
            obj(json!({"progressToken": 3}))
        };
        let full = CallToolParams {
            name: "get_weather".into(),
            arguments: Some(obj(json!({"location": "NYC", "n": [1]}))),
            task: Some(CallToolTask { ttl: Some(60_000) }),
            input_responses: Some(obj(json!({"login": {"action": "decline"}}))),
            request_state: Some("opaque".into()),
            meta: Some(meta.clone()),
        };
        let mut minimal = CallToolParams::new("x", Value::Null);
        if modern {
            minimal.meta = Some(meta);
        }
        for p in [&full, &minimal] {
            let v = to_value_for(p, rev);
            check_request(
                spec,
                rev,
                "CallToolRequest",
                CallToolParams::METHOD,
                v.clone(),
            );
            if rev >= V::V2025_11_25 {
                spec.check(rev, "CallToolRequestParams", &v);
            }
        }
        let v = to_value_for(&full, rev);
        assert_eq!(v.get("task").is_some(), rev == V::V2025_11_25, "task {rev}");
        assert_eq!(
            v.get("inputResponses").is_some(),
            modern,
            "inputResponses {rev}"
        );
        assert_eq!(
            v.get("requestState").is_some(),
            modern,
            "requestState {rev}"
        );
        assert_eq!(v["arguments"]["location"], "NYC");
    }
    let p = CallToolParams::new("add", json!({"a": 1}));
    assert_eq!(p.arguments, Some(obj(json!({"a": 1}))));
}

fn full_call_result() -> CallToolResult {
    CallToolResult {
        content: all_full_blocks(),
        structured_content: Some(json!("just a string")),
        is_error: Some(false),
        meta: some_meta(),
        result_type: Some(ResultType::Complete),
    }
}

#[test]
fn call_tool_result_by_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let v = to_value_for(&full_call_result(), rev);
        spec.check(rev, "CallToolResult", &v);
        spec.check(
            rev,
            "CallToolResult",
            &to_value_for(&CallToolResult::default(), rev),
        );
        spec.check(
            rev,
            "CallToolResult",
            &to_value_for(&CallToolResult::error("boom"), rev),
        );
        assert_eq!(
            v.get("resultType").is_some(),
            rev == V::V2026_07_28,
            "{rev}"
        );
        assert_eq!(v["isError"], false);
        let kinds: Vec<&str> = v["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect();
        let expected: &[&str] = match rev {
            V::V2024_11_05 => &["text", "image", "text", "text", "resource", "resource"],
            V::V2025_03_26 => &["text", "image", "audio", "text", "resource", "resource"],
            _ => &[
                "text",
                "image",
                "audio",
                "resource_link",
                "resource",
                "resource",
            ],
        };
        assert_eq!(kinds, expected, "{rev}");
        match rev {
            V::V2024_11_05 | V::V2025_03_26 => assert!(v.get("structuredContent").is_none()),
            V::V2025_06_18 | V::V2025_11_25 => {
                assert_eq!(v["structuredContent"], json!({"result": "just a string"}))
            }
            V::V2026_07_28 => assert_eq!(v["structuredContent"], "just a string"),
        }
        if rev == V::V2026_07_28 {
            spec.check(
                rev,
                "CallToolResultResponse",
                &json!({"jsonrpc": "2.0", "id": 1, "result": v}),
            );
        }
    }
    // The wrap is consistent with the wrapped output schema.
    let tool = Tool::new("s").with_output_schema(json!({"type": "string"}));
    let t = to_value_for(&tool, V::V2025_06_18);
    assert_eq!(t["outputSchema"]["required"], json!(["result"]));
    // An explicit JSON null survives reading and writing on 2026.
    let r: CallToolResult =
        serde_json::from_value(json!({"content": [], "structuredContent": null})).unwrap();
    assert_eq!(r.structured_content, Some(Value::Null));
    let v = to_value_for(&r, V::V2026_07_28);
    assert_eq!(v["structuredContent"], Value::Null);
    spec.check(V::V2026_07_28, "CallToolResult", &v);
    assert_eq!(
        to_value_for(&r, V::V2025_11_25)["structuredContent"],
        json!({"result": null})
    );
    // The structured constructor also gives the JSON as text.
    let s = CallToolResult::structured(json!({"t": 1}));
    assert_eq!(s.content, vec![ContentBlock::text(r#"{"t":1}"#)]);
    let v = to_value_for(&s, V::V2024_11_05);
    assert_eq!(
        v,
        json!({"content": [{"type": "text", "text": "{\"t\":1}"}]})
    );
}

#[test]
fn call_tool_result_adapt_is_idempotent() {
    for rev in common::revisions() {
        let mut once = full_call_result();
        once.adapt(rev);
        let mut twice = once.clone();
        twice.adapt(rev);
        assert_eq!(once, twice, "{rev}");
        let mut t = full_tool();
        t.adapt(rev);
        let mut t2 = t.clone();
        t2.adapt(rev);
        assert_eq!(t, t2, "{rev}");
    }
}

#[test]
fn tool_list_changed_notification() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        for p in [
            ToolListChangedParams::default(),
            ToolListChangedParams { meta: some_meta() },
        ] {
            let v = to_value_for(&p, rev);
            check_notification(
                spec,
                rev,
                "ToolListChangedNotification",
                ToolListChangedParams::METHOD,
                v,
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// 2026-07-28 examples

#[test]
fn examples_2026_round_trip() {
    let Some(spec) = common::spec() else { return };
    for folder in [
        "TextContent",
        "ImageContent",
        "AudioContent",
        "ResourceLink",
        "EmbeddedResource",
    ] {
        roundtrip::<ContentBlock>(spec, folder);
    }
    roundtrip::<TextResourceContents>(spec, "TextResourceContents");
    roundtrip::<BlobResourceContents>(spec, "BlobResourceContents");
    roundtrip::<ResourceContents>(spec, "TextResourceContents");
    roundtrip::<ResourceContents>(spec, "BlobResourceContents");
    roundtrip::<SamplingBlock>(spec, "ToolUseContent");
    roundtrip::<SamplingBlock>(spec, "ToolResultContent");
    roundtrip::<Tool>(spec, "Tool");
    roundtrip::<ListToolsParams>(spec, "PaginatedRequestParams");
    roundtrip_request::<ListToolsParams>(spec, "ListToolsRequest");
    roundtrip::<ListToolsResult>(spec, "ListToolsResult");
    roundtrip_response::<ListToolsResult>(spec, "ListToolsResultResponse");
    roundtrip_request::<CallToolParams>(spec, "CallToolRequest");
    roundtrip::<CallToolParams>(spec, "CallToolRequestParams");
    roundtrip::<CallToolResult>(spec, "CallToolResult");
    roundtrip_response::<CallToolResult>(spec, "CallToolResultResponse");
    roundtrip_notification::<ToolListChangedParams>(spec, "ToolListChangedNotification");
}

#[test]
fn tool_examples_shape_for_older_revisions() {
    let Some(spec) = common::spec() else { return };
    // Every 2026 tool and result example, shaped for each older revision, is valid there.
    for rev in common::revisions() {
        for (path, json) in examples(spec, "Tool") {
            let tool: Tool = serde_json::from_value(json).unwrap();
            let v = to_value_for(&tool, rev);
            if let Err(e) = spec.check_in(common::rev_dir(rev), "Tool", &v) {
                panic!("{path} for {rev}: {e:?}");
            }
        }
        for (path, json) in examples(spec, "CallToolResult") {
            let r: CallToolResult = serde_json::from_value(json).unwrap();
            let v = to_value_for(&r, rev);
            if let Err(e) = spec.check_in(common::rev_dir(rev), "CallToolResult", &v) {
                panic!("{path} for {rev}: {e:?}");
            }
        }
    }
}
