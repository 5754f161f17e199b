//! Client features: sampling, elicitation, roots, and the 2026 multi-round-trip types, checked
//! strictly against every revision's schema, plus the 2026 examples.

mod common;

use std::collections::BTreeMap;

use mcp_core::types::*;
use mcp_core::version::ProtocolVersion as V;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------------
// helpers
// ---------------------------------------------------------------------------------------------

fn meta(k: &str, v: Value) -> Meta {
    let mut m = Meta::new();
    m.insert(k.into(), v);
    m
}

fn obj(v: Value) -> Meta {
    match v {
        Value::Object(m) => m,
        _ => panic!("not an object"),
    }
}

/// Adapting twice gives the same JSON as adapting once.
fn idempotent<T: Adapt + Clone + Serialize>(value: &T, rev: V) -> Value {
    let once = to_value_for(value, rev);
    let mut twice = value.clone();
    twice.adapt(rev);
    twice.adapt(rev);
    assert_eq!(
        once,
        serde_json::to_value(&twice).unwrap(),
        "adapt not idempotent for {rev}"
    );
    once
}

/// Every file of a 2026 example folder, as JSON.
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

/// Each example of `folder` deserializes into `T`, serializes back to the same JSON, and,
/// adapted for 2026, validates strictly against `def`. Returns the parsed values.
fn roundtrip<T>(spec: &common::Spec, folder: &str, def: &str) -> Vec<T>
where
    T: DeserializeOwned + Serialize + Adapt + Clone + std::fmt::Debug,
{
    examples(spec, folder)
        .into_iter()
        .map(|(path, json)| {
            let v: T = serde_json::from_value(json.clone())
                .unwrap_or_else(|e| panic!("{path}: does not deserialize: {e}"));
            assert_eq!(
                serde_json::to_value(&v).unwrap(),
                json,
                "{path}: round trip"
            );
            spec.check(V::V2026_07_28, def, &idempotent(&v, V::V2026_07_28));
            v
        })
        .collect()
}

/// A legacy request object `{jsonrpc, id, method, params}` (2025-11-25) or the inline shape
/// `{method, params}` of the older revisions and of 2026 input requests.
fn request(rev: V, method: &str, params: Option<Value>) -> Value {
    let mut r = json!({ "method": method });
    if let Some(p) = params {
        r["params"] = p;
    }
    if rev == V::V2025_11_25 {
        r["jsonrpc"] = json!("2.0");
        r["id"] = json!(7);
    }
    r
}

// ---------------------------------------------------------------------------------------------
// fixtures
// ---------------------------------------------------------------------------------------------

fn annotations() -> Annotations {
    Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.5),
        last_modified: Some("2025-01-01T00:00:00Z".into()),
    }
}

fn full_text(t: &str) -> TextContent {
    TextContent {
        text: t.into(),
        annotations: Some(annotations()),
        meta: Some(meta("com.example/t", json!(1))),
    }
}

fn full_image() -> ImageContent {
    ImageContent {
        data: "aGVsbG8=".into(),
        mime_type: "image/png".into(),
        annotations: Some(annotations()),
        meta: Some(meta("com.example/i", json!(1))),
    }
}

fn full_audio() -> AudioContent {
    AudioContent {
        data: "UklGRg==".into(),
        mime_type: "audio/wav".into(),
        annotations: Some(annotations()),
        meta: Some(meta("com.example/a", json!(1))),
    }
}

fn tool_use() -> ToolUseContent {
    ToolUseContent {
        id: "call_1".into(),
        name: "get_weather".into(),
        input: obj(json!({"city": "Paris"})),
        meta: Some(meta("com.example/u", json!(1))),
    }
}

fn tool_result() -> ToolResultContent {
    ToolResultContent {
        tool_use_id: "call_1".into(),
        content: vec![
            ContentBlock::text("18°C"),
            ContentBlock::image("aGVsbG8=", "image/png"),
        ],
        structured_content: Some(json!({"temperature": 18})),
        is_error: Some(false),
        meta: Some(meta("com.example/r", json!(1))),
    }
}

fn all_blocks() -> Vec<SamplingContent> {
    vec![
        full_text("hello").into(),
        full_image().into(),
        full_audio().into(),
        tool_use().into(),
        tool_result().into(),
    ]
}

fn full_message() -> SamplingMessage {
    SamplingMessage {
        role: Role::User,
        content: SamplingMessageContent::Multiple(all_blocks()),
        meta: Some(meta("com.example/m", json!(true))),
    }
}

fn full_prefs() -> ModelPreferences {
    ModelPreferences {
        hints: Some(vec![
            ModelHint::new("claude-3-sonnet"),
            ModelHint::default(),
        ]),
        cost_priority: Some(0.3),
        speed_priority: Some(0.8),
        intelligence_priority: Some(0.5),
    }
}

fn weather_tool() -> Tool {
    let mut t = Tool::new("get_weather");
    t.title = Some("Weather".into());
    t.description = Some("Get current weather for a city".into());
    t.input_schema = obj(json!({
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"]
    }));
    t
}

fn full_params() -> CreateMessageParams {
    CreateMessageParams {
        messages: vec![SamplingMessage::user_text("Weather?"), full_message()],
        model_preferences: Some(full_prefs()),
        system_prompt: Some("You are helpful.".into()),
        include_context: Some(IncludeContext::ThisServer),
        temperature: Some(0.7),
        max_tokens: 100,
        stop_sequences: Some(vec!["STOP".into()]),
        metadata: Some(obj(json!({"provider": {"x": 1}}))),
        tools: Some(vec![weather_tool()]),
        tool_choice: Some(ToolChoice {
            mode: Some(ToolChoiceMode::Required),
        }),
        task: Some(TaskMetadata { ttl: Some(60_000) }),
        meta: Some(meta("progressToken", json!("p1"))),
    }
}

fn full_result() -> CreateMessageResult {
    CreateMessageResult {
        role: Role::Assistant,
        content: SamplingMessageContent::Multiple(vec![
            full_text("Calling").into(),
            tool_use().into(),
        ]),
        model: "claude-3-sonnet".into(),
        stop_reason: Some(StopReason::ToolUse),
        meta: Some(meta("com.example/r", json!(1))),
    }
}

fn string_schema() -> StringSchema {
    StringSchema {
        title: Some("Email".into()),
        description: Some("Your email".into()),
        min_length: Some(3),
        max_length: Some(50),
        format: Some(StringFormat::Email),
        default: Some("a@example.com".into()),
        ..Default::default()
    }
}

fn number_schema() -> NumberSchema {
    NumberSchema {
        type_: NumberType::Integer,
        title: Some("Age".into()),
        description: Some("Your age".into()),
        minimum: Some(18.into()),
        maximum: Some(120.into()),
        default: Some(30.into()),
    }
}

fn boolean_schema() -> BooleanSchema {
    BooleanSchema {
        title: Some("Subscribe".into()),
        description: Some("Get news".into()),
        default: Some(true),
        ..Default::default()
    }
}

fn colors() -> Vec<String> {
    vec!["red".into(), "green".into()]
}

fn titled_options() -> Vec<TitledEnumOption> {
    vec![
        TitledEnumOption::new("#f00", "Red"),
        TitledEnumOption::new("#0f0", "Green"),
    ]
}

fn untitled_single() -> UntitledSingleSelectEnumSchema {
    UntitledSingleSelectEnumSchema {
        title: Some("Color".into()),
        description: Some("Pick one".into()),
        enum_: colors(),
        default: Some("red".into()),
        ..Default::default()
    }
}

fn titled_single() -> TitledSingleSelectEnumSchema {
    TitledSingleSelectEnumSchema {
        title: Some("Color".into()),
        description: Some("Pick one".into()),
        one_of: titled_options(),
        default: Some("#f00".into()),
        ..Default::default()
    }
}

fn untitled_multi() -> UntitledMultiSelectEnumSchema {
    UntitledMultiSelectEnumSchema {
        title: Some("Colors".into()),
        description: Some("Pick some".into()),
        min_items: Some(1),
        max_items: Some(2),
        items: UntitledEnumItems {
            enum_: colors(),
            ..Default::default()
        },
        default: Some(vec!["red".into()]),
        ..Default::default()
    }
}

fn titled_multi() -> TitledMultiSelectEnumSchema {
    TitledMultiSelectEnumSchema {
        title: Some("Colors".into()),
        description: Some("Pick some".into()),
        min_items: Some(1),
        max_items: Some(2),
        items: TitledEnumItems {
            any_of: titled_options(),
        },
        default: Some(vec!["#f00".into()]),
        ..Default::default()
    }
}

fn legacy_enum() -> LegacyTitledEnumSchema {
    LegacyTitledEnumSchema {
        title: Some("Color".into()),
        description: Some("Pick one".into()),
        enum_: colors(),
        enum_names: Some(vec!["Red".into(), "Green".into()]),
        default: Some("red".into()),
        ..Default::default()
    }
}

fn all_fields() -> Vec<(&'static str, PrimitiveSchemaDefinition)> {
    vec![
        ("email", string_schema().into()),
        ("age", number_schema().into()),
        ("subscribe", boolean_schema().into()),
        ("color", untitled_single().into()),
        ("titled", titled_single().into()),
        ("colors", untitled_multi().into()),
        ("titledColors", titled_multi().into()),
        ("legacy", legacy_enum().into()),
    ]
}

fn full_form() -> ElicitFormParams {
    ElicitFormParams {
        mode: Some(tag::FormMode),
        message: "Tell us about you".into(),
        requested_schema: RequestedSchema {
            schema: Some("https://json-schema.org/draft/2020-12/schema".into()),
            properties: all_fields().into_iter().collect(),
            required: Some(vec!["email".into()]),
            ..Default::default()
        },
        task: Some(TaskMetadata { ttl: Some(1000) }),
        meta: Some(meta("progressToken", json!(3))),
    }
}

fn minimal_form() -> ElicitFormParams {
    ElicitFormParams::new("Name?", RequestedSchema::default())
}

fn full_url() -> ElicitUrlParams {
    ElicitUrlParams {
        elicitation_id: Some("e-1".into()),
        task: Some(TaskMetadata { ttl: Some(1000) }),
        meta: Some(meta("progressToken", json!("x"))),
        ..ElicitUrlParams::new("Set your API key", "https://example.com/key")
    }
}

fn full_elicit_result() -> ElicitResult {
    let mut content = BTreeMap::new();
    content.insert("email".to_owned(), ElicitValue::from("a@example.com"));
    content.insert("age".to_owned(), ElicitValue::from(30));
    content.insert("subscribe".to_owned(), ElicitValue::from(true));
    content.insert("colors".to_owned(), ElicitValue::from(colors()));
    content.insert("none".to_owned(), ElicitValue::StringArray(vec![]));
    ElicitResult {
        meta: Some(meta("com.example/e", json!(1))),
        ..ElicitResult::accept(content)
    }
}

fn full_root() -> Root {
    Root {
        meta: Some(meta("com.example/r", json!(1))),
        ..Root::new("file:///home/user/project").with_name("Project")
    }
}

// ---------------------------------------------------------------------------------------------
// sampling
// ---------------------------------------------------------------------------------------------

#[test]
fn sampling_message_every_revision() {
    let Some(spec) = common::spec() else { return };
    let minimal = SamplingMessage::user_text("hi");
    for rev in common::revisions() {
        spec.check(rev, "SamplingMessage", &idempotent(&minimal, rev));
        let full = idempotent(&full_message(), rev);
        spec.check(rev, "SamplingMessage", &full);
        // Each block kind on its own, as a single block.
        for b in all_blocks() {
            let m = SamplingMessage::new(Role::Assistant, b);
            spec.check(rev, "SamplingMessage", &idempotent(&m, rev));
        }
        if rev >= V::V2025_11_25 {
            assert!(full["content"].is_array());
            assert_eq!(full["_meta"], json!({"com.example/m": true}));
            for b in all_blocks() {
                spec.check(rev, "SamplingMessageContentBlock", &idempotent(&b, rev));
            }
        } else {
            // One block only, no `_meta`: all blocks but the first cannot be expressed.
            assert!(full["content"].is_object());
            assert!(full.get("_meta").is_none());
        }
    }
}

#[test]
fn sampling_blocks_convert_for_older_revisions() {
    let Some(_spec) = common::spec() else { return };
    let audio = SamplingContent::from(full_audio());
    // Audio is not sent to 2024-11-05: it becomes a text block naming it.
    let old = to_value_for(&audio, V::V2024_11_05);
    assert_eq!(old["type"], "text");
    assert!(old["text"].as_str().unwrap().contains("audio/wav"));
    assert!(old.get("data").is_none());
    assert_eq!(to_value_for(&audio, V::V2025_03_26)["type"], "audio");
    // tool_use / tool_result only from 2025-11-25.
    for rev in [V::V2024_11_05, V::V2025_03_26, V::V2025_06_18] {
        let u = to_value_for(&SamplingContent::from(tool_use()), rev);
        assert_eq!(u["type"], "text");
        assert!(u["text"].as_str().unwrap().contains("get_weather"));
        let r = to_value_for(&SamplingContent::from(tool_result()), rev);
        assert_eq!(r["type"], "text");
        assert!(r["text"].as_str().unwrap().contains("18°C"));
        assert!(r["text"].as_str().unwrap().contains("call_1"));
    }
    let u = to_value_for(&SamplingContent::from(tool_use()), V::V2025_11_25);
    assert_eq!(u["type"], "tool_use");
    // Text blocks of an array are joined into one for the older revisions.
    let two = SamplingMessageContent::Multiple(vec![
        SamplingContent::text("a"),
        SamplingContent::text("b"),
    ]);
    assert_eq!(
        to_value_for(&two, V::V2025_06_18),
        json!({"type": "text", "text": "a\nb"})
    );
    let empty = SamplingMessageContent::Multiple(vec![]);
    assert_eq!(
        to_value_for(&empty, V::V2025_06_18),
        json!({"type": "text", "text": ""})
    );
    assert_eq!(to_value_for(&empty, V::V2025_11_25), json!([]));
}

#[test]
fn model_preferences_and_hints_every_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        spec.check(rev, "ModelPreferences", &idempotent(&full_prefs(), rev));
        spec.check(
            rev,
            "ModelPreferences",
            &idempotent(&ModelPreferences::default(), rev),
        );
        spec.check(
            rev,
            "ModelHint",
            &idempotent(&ModelHint::new("claude"), rev),
        );
        spec.check(rev, "ModelHint", &idempotent(&ModelHint::default(), rev));
    }
}

#[test]
fn tool_choice_from_2025_11_25() {
    let Some(spec) = common::spec() else { return };
    for rev in [V::V2025_11_25, V::V2026_07_28] {
        for mode in [
            ToolChoiceMode::Auto,
            ToolChoiceMode::Required,
            ToolChoiceMode::None,
        ] {
            let c = ToolChoice { mode: Some(mode) };
            spec.check(rev, "ToolChoice", &idempotent(&c, rev));
        }
        spec.check(rev, "ToolChoice", &idempotent(&ToolChoice::default(), rev));
    }
    for rev in [V::V2024_11_05, V::V2025_03_26, V::V2025_06_18] {
        assert!(!spec.has_def(rev.as_str(), "ToolChoice"));
    }
}

fn check_create_message_params(spec: &common::Spec, rev: V, p: &CreateMessageParams) -> Value {
    let v = idempotent(p, rev);
    if rev >= V::V2025_11_25 {
        spec.check(rev, "CreateMessageRequestParams", &v);
    }
    spec.check(
        rev,
        "CreateMessageRequest",
        &request(rev, CreateMessageParams::METHOD, Some(v.clone())),
    );
    v
}

#[test]
fn unadapted_values_fail_older_revisions() {
    // The checks above are meaningful: without adapting, the newer fields are rejected.
    let Some(spec) = common::spec() else { return };
    let raw = serde_json::to_value(full_params()).unwrap();
    let req = request(
        V::V2025_06_18,
        CreateMessageParams::METHOD,
        Some(raw.clone()),
    );
    assert!(
        spec.check_in("2025-06-18", "CreateMessageRequest", &req)
            .is_err()
    );
    assert!(
        spec.check_in("2026-07-28", "CreateMessageRequestParams", &raw)
            .is_err()
    );
    let audio = serde_json::to_value(SamplingMessage::new(Role::User, full_audio())).unwrap();
    assert!(
        spec.check_in("2024-11-05", "SamplingMessage", &audio)
            .is_err()
    );
    let titled = serde_json::to_value(PrimitiveSchemaDefinition::from(titled_single())).unwrap();
    assert!(
        spec.check_in("2025-06-18", "PrimitiveSchemaDefinition", &titled)
            .is_err()
    );
    let url = serde_json::to_value(full_url()).unwrap();
    assert!(
        spec.check_in("2026-07-28", "ElicitRequestURLParams", &url)
            .is_err()
    );
    let no_id = serde_json::to_value(ElicitUrlParams::new("m", "https://x")).unwrap();
    assert!(
        spec.check_in("2025-11-25", "ElicitRequestURLParams", &no_id)
            .is_err()
    );
    let result = serde_json::to_value(full_elicit_result()).unwrap();
    assert!(
        spec.check_in("2025-06-18", "ElicitResult", &result)
            .is_err()
    );
    assert!(
        spec.check_in("2026-07-28", "ElicitResult", &result)
            .is_err()
    );
}

#[test]
fn create_message_params_every_revision() {
    let Some(spec) = common::spec() else { return };
    let minimal = CreateMessageParams::new(vec![SamplingMessage::user_text("hi")], 10);
    for rev in common::revisions() {
        let v = check_create_message_params(spec, rev, &minimal);
        assert_eq!(
            v,
            json!({"messages": [{"role": "user", "content": {"type": "text", "text": "hi"}}], "maxTokens": 10})
        );
        for ctx in [
            IncludeContext::None,
            IncludeContext::ThisServer,
            IncludeContext::AllServers,
        ] {
            let p = CreateMessageParams {
                include_context: Some(ctx),
                ..minimal.clone()
            };
            check_create_message_params(spec, rev, &p);
        }
        let full = check_create_message_params(spec, rev, &full_params());
        assert_eq!(full["includeContext"], "thisServer");
        assert_eq!(full["metadata"], json!({"provider": {"x": 1}}));
        if rev >= V::V2025_11_25 {
            assert_eq!(full["tools"][0]["name"], "get_weather");
            assert_eq!(full["toolChoice"], json!({"mode": "required"}));
            assert_eq!(full["messages"].as_array().unwrap().len(), 2);
            assert!(full["messages"][1]["content"].is_array());
        } else {
            assert!(full.get("tools").is_none(), "tools before 2025-11-25");
            assert!(
                full.get("toolChoice").is_none(),
                "toolChoice before 2025-11-25"
            );
            // The five-block message is split into five single-block user messages.
            let msgs = full["messages"].as_array().unwrap();
            assert_eq!(msgs.len(), 6);
            assert!(
                msgs[1..]
                    .iter()
                    .all(|m| m["role"] == "user" && m["content"].is_object())
            );
            let kinds: Vec<&str> = msgs
                .iter()
                .map(|m| m["content"]["type"].as_str().unwrap())
                .collect();
            let audio = if rev == V::V2024_11_05 {
                "text"
            } else {
                "audio"
            };
            assert_eq!(kinds, ["text", "text", "image", audio, "text", "text"]);
        }
        if rev == V::V2025_11_25 {
            assert_eq!(full["task"], json!({"ttl": 60000}));
            assert_eq!(full["_meta"], json!({"progressToken": "p1"}));
        } else {
            assert!(full.get("task").is_none(), "task outside 2025-11-25");
            assert!(full.get("_meta").is_none(), "_meta outside 2025-11-25");
        }
    }
}

#[test]
fn create_message_result_every_revision() {
    let Some(spec) = common::spec() else { return };
    let minimal = CreateMessageResult::new("m", TextContent::new("ok"));
    let reasons = [
        StopReason::EndTurn,
        StopReason::StopSequence,
        StopReason::MaxTokens,
        StopReason::Other("provider_specific".into()),
    ];
    for rev in common::revisions() {
        let v = idempotent(&minimal, rev);
        spec.check(rev, "CreateMessageResult", &v);
        assert!(v.get("resultType").is_none(), "no resultType on {rev}");
        for r in &reasons {
            let res = CreateMessageResult {
                stop_reason: Some(r.clone()),
                ..minimal.clone()
            };
            let v = idempotent(&res, rev);
            spec.check(rev, "CreateMessageResult", &v);
            assert_eq!(v["stopReason"], r.as_str());
        }
        let full = idempotent(&full_result(), rev);
        spec.check(rev, "CreateMessageResult", &full);
        assert_eq!(full["_meta"], json!({"com.example/r": 1}));
        assert!(full.get("resultType").is_none());
        if rev >= V::V2025_11_25 {
            assert_eq!(full["stopReason"], "toolUse");
            assert_eq!(full["content"][1]["type"], "tool_use");
        } else {
            assert_eq!(full["stopReason"], "endTurn");
            assert_eq!(full["content"]["type"], "text");
            assert!(
                full["content"]["text"]
                    .as_str()
                    .unwrap()
                    .contains("get_weather")
            );
        }
    }
    // Unknown stop reasons survive a round trip.
    let r: CreateMessageResult = serde_json::from_value(json!({
        "role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m",
        "stopReason": "refusal", "resultType": "complete"
    }))
    .unwrap();
    assert_eq!(r.stop_reason, Some(StopReason::Other("refusal".into())));
    assert!(
        serde_json::to_value(&r)
            .unwrap()
            .get("resultType")
            .is_none()
    );
}

// ---------------------------------------------------------------------------------------------
// elicitation
// ---------------------------------------------------------------------------------------------

const ELICIT_REVS: [V; 3] = [V::V2025_06_18, V::V2025_11_25, V::V2026_07_28];

#[test]
fn primitive_schemas_every_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in ELICIT_REVS {
        let modern = rev >= V::V2025_11_25;
        // Standalone definitions.
        let s = idempotent(&string_schema(), rev);
        spec.check(rev, "StringSchema", &s);
        spec.check(
            rev,
            "StringSchema",
            &idempotent(&StringSchema::default(), rev),
        );
        let n = idempotent(&number_schema(), rev);
        spec.check(rev, "NumberSchema", &n);
        spec.check(
            rev,
            "NumberSchema",
            &idempotent(&NumberSchema::default(), rev),
        );
        let b = idempotent(&boolean_schema(), rev);
        spec.check(rev, "BooleanSchema", &b);
        spec.check(
            rev,
            "BooleanSchema",
            &idempotent(&BooleanSchema::default(), rev),
        );
        assert_eq!(
            b["default"], true,
            "boolean default exists since 2025-06-18"
        );
        assert_eq!(s.get("default").is_some(), modern);
        assert_eq!(n.get("default").is_some(), modern);
        assert_eq!(n["minimum"], json!(18));
        if modern {
            spec.check(
                rev,
                "UntitledSingleSelectEnumSchema",
                &idempotent(&untitled_single(), rev),
            );
            spec.check(
                rev,
                "TitledSingleSelectEnumSchema",
                &idempotent(&titled_single(), rev),
            );
            spec.check(
                rev,
                "UntitledMultiSelectEnumSchema",
                &idempotent(&untitled_multi(), rev),
            );
            spec.check(
                rev,
                "TitledMultiSelectEnumSchema",
                &idempotent(&titled_multi(), rev),
            );
            spec.check(
                rev,
                "LegacyTitledEnumSchema",
                &idempotent(&legacy_enum(), rev),
            );
            let minimal_multi = UntitledMultiSelectEnumSchema::default();
            spec.check(
                rev,
                "UntitledMultiSelectEnumSchema",
                &idempotent(&minimal_multi, rev),
            );
            let minimal_titled = TitledSingleSelectEnumSchema::default();
            spec.check(
                rev,
                "TitledSingleSelectEnumSchema",
                &idempotent(&minimal_titled, rev),
            );
        }
        // Every field kind as a PrimitiveSchemaDefinition (2025-06-18: via conversion).
        for (name, f) in all_fields() {
            let v = idempotent(&f, rev);
            spec.check(rev, "PrimitiveSchemaDefinition", &v);
            if !modern && name != "email" && name != "age" && name != "subscribe" {
                spec.check(rev, "EnumSchema", &v);
            }
            spec.check(rev, "PrimitiveSchemaDefinition", &idempotent(&f, rev));
            // And it reads back as the same variant (after adaptation: as the converted one).
            let back: PrimitiveSchemaDefinition = serde_json::from_value(v.clone()).unwrap();
            assert_eq!(serde_json::to_value(&back).unwrap(), v);
            if modern {
                assert_eq!(back, f, "{name} reads back as itself");
            }
        }
    }
}

#[test]
fn enums_convert_for_2025_06_18() {
    let Some(_spec) = common::spec() else { return };
    let r = V::V2025_06_18;
    let t = to_value_for(&PrimitiveSchemaDefinition::from(titled_single()), r);
    assert_eq!(
        t,
        json!({"type": "string", "title": "Color", "description": "Pick one",
               "enum": ["#f00", "#0f0"], "enumNames": ["Red", "Green"]})
    );
    let m = to_value_for(&PrimitiveSchemaDefinition::from(untitled_multi()), r);
    assert_eq!(
        m,
        json!({"type": "string", "title": "Colors", "description": "Pick some", "enum": ["red", "green"]})
    );
    let tm = to_value_for(&PrimitiveSchemaDefinition::from(titled_multi()), r);
    assert_eq!(tm["enum"], json!(["#f00", "#0f0"]));
    assert_eq!(tm["enumNames"], json!(["Red", "Green"]));
    assert!(
        tm.get("minItems").is_none() && tm.get("items").is_none() && tm.get("default").is_none()
    );
    let l = to_value_for(&PrimitiveSchemaDefinition::from(legacy_enum()), r);
    assert!(l.get("default").is_none());
    let u = to_value_for(&PrimitiveSchemaDefinition::from(untitled_single()), r);
    assert!(u.get("default").is_none());
    // Unchanged from 2025-11-25 on.
    for rev in [V::V2025_11_25, V::V2026_07_28] {
        let t = to_value_for(&PrimitiveSchemaDefinition::from(titled_single()), rev);
        assert!(t.get("oneOf").is_some() && t.get("enumNames").is_none());
        assert_eq!(
            to_value_for(&PrimitiveSchemaDefinition::from(untitled_multi()), rev)["type"],
            "array"
        );
    }
}

#[test]
fn primitive_schema_dispatch_and_errors() {
    let Some(_spec) = common::spec() else { return };
    let p = |v: Value| serde_json::from_value::<PrimitiveSchemaDefinition>(v);
    assert!(matches!(
        p(json!({"type": "string"})).unwrap(),
        PrimitiveSchemaDefinition::String(_)
    ));
    assert!(matches!(
        p(json!({"type": "integer"})).unwrap(),
        PrimitiveSchemaDefinition::Number(_)
    ));
    assert!(matches!(
        p(json!({"type": "string", "enum": ["a"], "enumNames": ["A"]})).unwrap(),
        PrimitiveSchemaDefinition::LegacyTitledEnum(_)
    ));
    assert!(p(json!({"type": "object"})).is_err());
    assert!(p(json!({"type": "array", "items": {"type": "string"}})).is_err());
    assert!(p(json!({"title": "no type"})).is_err());
    assert!(p(json!({"type": "string", "format": "color"})).is_err());
    // The standalone schemas insist on their own `type`.
    assert!(serde_json::from_value::<BooleanSchema>(json!({"type": "string"})).is_err());
}

#[test]
fn form_properties_keep_their_order() {
    let Some(_spec) = common::spec() else { return };
    let text = r#"{"type":"object","properties":{"z":{"type":"string"},"a":{"type":"boolean"},"m":{"type":"number"}}}"#;
    let s: RequestedSchema = serde_json::from_str(text).unwrap();
    let names: Vec<&str> = s.properties.iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["z", "a", "m"]);
    assert_eq!(serde_json::to_string(&s).unwrap(), text);
}

fn check_elicit_params(spec: &common::Spec, rev: V, p: &ElicitParams) -> Value {
    let v = idempotent(p, rev);
    if rev >= V::V2025_11_25 {
        spec.check(rev, "ElicitRequestParams", &v);
        let def = match p {
            ElicitParams::Form(_) => "ElicitRequestFormParams",
            ElicitParams::Url(_) => "ElicitRequestURLParams",
        };
        spec.check(rev, def, &v);
    }
    spec.check(
        rev,
        "ElicitRequest",
        &request(rev, ElicitParams::METHOD, Some(v.clone())),
    );
    v
}

#[test]
fn elicit_form_params_every_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in ELICIT_REVS {
        let min = check_elicit_params(spec, rev, &minimal_form().into());
        assert_eq!(
            min,
            json!({"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}})
        );
        let full = check_elicit_params(spec, rev, &full_form().into());
        let rs = &full["requestedSchema"];
        assert_eq!(rs["properties"].as_object().unwrap().len(), 8);
        assert_eq!(rs["required"], json!(["email"]));
        if rev >= V::V2025_11_25 {
            assert_eq!(full["mode"], "form");
            assert!(rs.get("$schema").is_some());
            assert!(rs["properties"]["titled"].get("oneOf").is_some());
        } else {
            assert!(full.get("mode").is_none(), "no mode in 2025-06-18");
            assert!(rs.get("$schema").is_none(), "no $schema in 2025-06-18");
            assert!(rs["properties"]["titled"].get("enumNames").is_some());
            assert_eq!(rs["properties"]["colors"]["type"], "string");
            assert!(rs["properties"]["email"].get("default").is_none());
        }
        if rev == V::V2025_11_25 {
            assert_eq!(full["task"], json!({"ttl": 1000}));
            assert_eq!(full["_meta"], json!({"progressToken": 3}));
        } else {
            assert!(full.get("task").is_none() && full.get("_meta").is_none());
        }
    }
}

#[test]
fn elicit_url_params_from_2025_11_25() {
    let Some(spec) = common::spec() else { return };
    let minimal = ElicitUrlParams::new("Go there", "https://example.com/x");
    for rev in [V::V2025_11_25, V::V2026_07_28] {
        let full = check_elicit_params(spec, rev, &full_url().into());
        let min = check_elicit_params(spec, rev, &minimal.clone().into());
        assert_eq!(full["mode"], "url");
        if rev == V::V2025_11_25 {
            assert_eq!(full["elicitationId"], "e-1");
            assert_eq!(full["task"], json!({"ttl": 1000}));
            // A missing (required) id is filled, stably.
            assert_eq!(
                min["elicitationId"],
                minimal.derived_elicitation_id().as_str()
            );
            assert_eq!(min, to_value_for(&ElicitParams::from(minimal.clone()), rev));
        } else {
            assert!(
                full.get("elicitationId").is_none(),
                "no elicitationId in 2026"
            );
            assert!(full.get("task").is_none() && full.get("_meta").is_none());
            assert_eq!(
                min,
                json!({"mode": "url", "message": "Go there", "url": "https://example.com/x"})
            );
        }
    }
}

#[test]
fn elicit_url_params_become_a_form_for_2025_06_18() {
    let Some(spec) = common::spec() else { return };
    let p = ElicitParams::from(full_url());
    let v = check_elicit_params(spec, V::V2025_06_18, &p);
    assert_eq!(
        v,
        json!({"message": "Set your API key\n\nhttps://example.com/key",
               "requestedSchema": {"type": "object", "properties": {}}})
    );
}

#[test]
fn elicit_params_dispatch_on_mode() {
    let Some(_spec) = common::spec() else { return };
    let form = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}});
    let p: ElicitParams = serde_json::from_value(form.clone()).unwrap();
    assert!(matches!(&p, ElicitParams::Form(f) if f.mode.is_none()));
    assert_eq!(
        serde_json::to_value(&p).unwrap(),
        form,
        "absent mode stays absent"
    );
    let url = json!({"mode": "url", "message": "m", "url": "https://x"});
    assert!(matches!(
        serde_json::from_value::<ElicitParams>(url).unwrap(),
        ElicitParams::Url(_)
    ));
    let bad = json!({"mode": "voice", "message": "m"});
    let err = serde_json::from_value::<ElicitParams>(bad)
        .unwrap_err()
        .to_string();
    assert!(err.contains("unsupported elicitation mode"), "{err}");
    assert!(
        serde_json::from_value::<ElicitFormParams>(json!({"mode": "url", "message": "m",
        "requestedSchema": {"type": "object", "properties": {}}}))
        .is_err()
    );
}

#[test]
fn elicit_result_every_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in ELICIT_REVS {
        for r in [
            ElicitResult::decline(),
            ElicitResult::cancel(),
            ElicitResult::accept(BTreeMap::new()),
        ] {
            spec.check(rev, "ElicitResult", &idempotent(&r, rev));
        }
        let full = idempotent(&full_elicit_result(), rev);
        spec.check(rev, "ElicitResult", &full);
        assert_eq!(full["content"]["age"], json!(30));
        assert!(full.get("resultType").is_none());
        if rev >= V::V2025_11_25 {
            assert_eq!(full["content"]["colors"], json!(["red", "green"]));
            assert_eq!(full["content"]["none"], json!([]));
        } else {
            // string[] becomes the single-select answer; an empty one goes.
            assert_eq!(full["content"]["colors"], "red");
            assert!(full["content"].get("none").is_none());
        }
        if rev == V::V2026_07_28 {
            assert!(
                full.get("_meta").is_none(),
                "2026 ElicitResult has no _meta"
            );
        } else {
            assert_eq!(full["_meta"], json!({"com.example/e": 1}));
        }
    }
}

#[test]
fn url_elicitation_required_error_2025_11_25() {
    let Some(spec) = common::spec() else { return };
    for data in [
        UrlElicitationRequiredData::default(),
        UrlElicitationRequiredData {
            elicitations: vec![
                full_url(),
                ElicitUrlParams::new("Log in", "https://example.com/login"),
            ],
        },
    ] {
        let err = data.to_error("URL elicitation required");
        assert_eq!(err.code, -32042);
        let msg = json!({"jsonrpc": "2.0", "id": 1, "error": err});
        spec.check(V::V2025_11_25, "URLElicitationRequiredError", &msg);
        for e in msg["error"]["data"]["elicitations"].as_array().unwrap() {
            assert!(e["elicitationId"].is_string());
        }
    }
    assert!(!spec.has_def("2026-07-28", "URLElicitationRequiredError"));
}

// ---------------------------------------------------------------------------------------------
// roots
// ---------------------------------------------------------------------------------------------

#[test]
fn roots_every_revision() {
    let Some(spec) = common::spec() else { return };
    let minimal = Root::new("file:///tmp");
    let full_result = ListRootsResult {
        roots: vec![full_root(), minimal.clone()],
        meta: Some(meta("com.example/l", json!(1))),
    };
    let full_params = ListRootsParams {
        meta: Some(meta("progressToken", json!(9))),
    };
    for rev in common::revisions() {
        spec.check(rev, "Root", &idempotent(&minimal, rev));
        let r = idempotent(&full_root(), rev);
        spec.check(rev, "Root", &r);
        assert_eq!(r["name"], "Project");
        assert_eq!(
            r.get("_meta").is_some(),
            rev >= V::V2025_06_18,
            "Root._meta on {rev}"
        );

        spec.check(
            rev,
            "ListRootsResult",
            &idempotent(&ListRootsResult::default(), rev),
        );
        let l = idempotent(&full_result, rev);
        spec.check(rev, "ListRootsResult", &l);
        assert!(l.get("resultType").is_none());
        assert_eq!(
            l.get("_meta").is_some(),
            rev != V::V2026_07_28,
            "ListRootsResult._meta on {rev}"
        );

        let p = idempotent(&full_params, rev);
        assert_eq!(p, json!({"_meta": {"progressToken": 9}}));
        spec.check(
            rev,
            "ListRootsRequest",
            &request(rev, ListRootsParams::METHOD, Some(p)),
        );
        let p = idempotent(&ListRootsParams::default(), rev);
        spec.check(
            rev,
            "ListRootsRequest",
            &request(rev, ListRootsParams::METHOD, Some(p)),
        );
        spec.check(
            rev,
            "ListRootsRequest",
            &request(rev, ListRootsParams::METHOD, None),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// MRTR (2026)
// ---------------------------------------------------------------------------------------------

fn all_requests() -> InputRequests {
    let mut m = InputRequests::new();
    m.insert("form".into(), ElicitParams::from(full_form()).into());
    m.insert("url".into(), ElicitParams::from(full_url()).into());
    m.insert("sample".into(), full_params().into());
    m.insert(
        "roots".into(),
        ListRootsParams {
            meta: Some(meta("com.example/x", json!(1))),
        }
        .into(),
    );
    m.insert("bareRoots".into(), InputRequest::ListRoots(None));
    m
}

fn all_responses() -> InputResponses {
    let mut m = InputResponses::new();
    m.insert("form".into(), full_elicit_result().into());
    m.insert("url".into(), ElicitResult::accept(BTreeMap::new()).into());
    m.insert("sample".into(), full_result().into());
    m.insert(
        "roots".into(),
        ListRootsResult::new(vec![full_root()]).into(),
    );
    m
}

#[test]
fn input_requests_2026() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let reqs = all_requests();
    for (key, r) in &reqs {
        let v = idempotent(r, rev);
        spec.check(rev, "InputRequest", &v);
        let def = match r {
            InputRequest::Elicit(_) => "ElicitRequest",
            InputRequest::CreateMessage(_) => "CreateMessageRequest",
            InputRequest::ListRoots(_) => "ListRootsRequest",
        };
        spec.check(rev, def, &v);
        assert_eq!(v["method"], r.method());
        assert!(v.get("jsonrpc").is_none() && v.get("id").is_none(), "{key}");
        let back: InputRequest = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(serde_json::to_value(&back).unwrap(), v);
    }
    assert_eq!(
        idempotent(&reqs["bareRoots"], rev),
        json!({"method": "roots/list"})
    );
    let map = serde_json::to_value(
        reqs.iter()
            .map(|(k, r)| (k.clone(), to_value_for(r, rev)))
            .collect::<BTreeMap<_, _>>(),
    )
    .unwrap();
    spec.check(rev, "InputRequests", &map);
    // Unknown methods and missing params are refused.
    assert!(
        serde_json::from_value::<InputRequest>(json!({"method": "tools/call", "params": {}}))
            .is_err()
    );
    assert!(
        serde_json::from_value::<InputRequest>(json!({"method": "sampling/createMessage"}))
            .is_err()
    );
}

#[test]
fn input_responses_2026() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let resps = all_responses();
    for r in resps.values() {
        let v = idempotent(r, rev);
        spec.check(rev, "InputResponse", &v);
        assert!(
            v.get("resultType").is_none(),
            "input responses carry no resultType"
        );
        let back: InputResponse = serde_json::from_value(v.clone()).unwrap();
        assert_eq!(back.method(), r.method());
        assert_eq!(serde_json::to_value(&back).unwrap(), v);
    }
    let map = serde_json::to_value(
        resps
            .iter()
            .map(|(k, r)| (k.clone(), to_value_for(r, rev)))
            .collect::<BTreeMap<_, _>>(),
    )
    .unwrap();
    spec.check(rev, "InputResponses", &map);
    let reqs = all_requests();
    for (k, r) in &resps {
        assert!(reqs[k].is_answered_by(r), "{k}");
    }
    assert!(!reqs["sample"].is_answered_by(&resps["form"]));
    // Discrimination by required field.
    let p = |v: Value| serde_json::from_value::<InputResponse>(v);
    assert!(matches!(
        p(json!({"action": "cancel"})).unwrap(),
        InputResponse::Elicit(_)
    ));
    assert!(matches!(
        p(json!({"roots": []})).unwrap(),
        InputResponse::ListRoots(_)
    ));
    assert!(matches!(
        p(json!({"role": "assistant", "content": {"type": "text", "text": "x"}, "model": "m"}))
            .unwrap(),
        InputResponse::CreateMessage(_)
    ));
    assert!(p(json!({"something": 1})).is_err());
    assert!(p(json!("accept")).is_err());
}

#[test]
fn input_required_result_2026() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let full = InputRequiredResult {
        meta: Some(meta("com.example/s", json!(1))),
        ..InputRequiredResult::new(Some(all_requests()), Some("opaque".into())).unwrap()
    };
    let v = idempotent(&full, rev);
    spec.check(rev, "InputRequiredResult", &v);
    assert_eq!(v["resultType"], "input_required");
    assert_eq!(v["requestState"], "opaque");
    assert!(v.get("ttlMs").is_none() && v.get("cacheScope").is_none());
    // Embedded requests are shaped for 2026: no elicitationId, task or params _meta.
    assert!(
        v["inputRequests"]["url"]["params"]
            .get("elicitationId")
            .is_none()
    );
    assert!(
        v["inputRequests"]["sample"]["params"]
            .get("_meta")
            .is_none()
    );
    let only_state = InputRequiredResult::with_state("s");
    spec.check(rev, "InputRequiredResult", &idempotent(&only_state, rev));
    let only_requests = InputRequiredResult::with_requests(all_requests());
    spec.check(rev, "InputRequiredResult", &idempotent(&only_requests, rev));
    assert!(only_state.validate().is_ok() && only_requests.validate().is_ok());
    // At least one of the two.
    assert_eq!(
        InputRequiredResult::new(None, None),
        Err(InputRequiredError::Empty)
    );
    let empty: InputRequiredResult =
        serde_json::from_value(json!({"resultType": "input_required"})).unwrap();
    assert_eq!(empty.validate(), Err(InputRequiredError::Empty));
    let wrong: InputRequiredResult =
        serde_json::from_value(json!({"resultType": "complete", "requestState": "s"})).unwrap();
    assert_eq!(
        wrong.validate(),
        Err(InputRequiredError::WrongResultType("complete".into()))
    );
    // Adapting fixes the result type.
    assert_eq!(to_value_for(&wrong, rev)["resultType"], "input_required");
    for r in [
        V::V2024_11_05,
        V::V2025_03_26,
        V::V2025_06_18,
        V::V2025_11_25,
    ] {
        assert!(!spec.has_def(r.as_str(), "InputRequiredResult"));
    }
}

// ---------------------------------------------------------------------------------------------
// 2026 examples
// ---------------------------------------------------------------------------------------------

#[test]
fn examples_2026_schemas() {
    let Some(spec) = common::spec() else { return };
    roundtrip::<BooleanSchema>(spec, "BooleanSchema", "BooleanSchema");
    roundtrip::<NumberSchema>(spec, "NumberSchema", "NumberSchema");
    roundtrip::<StringSchema>(spec, "StringSchema", "StringSchema");
    roundtrip::<TitledMultiSelectEnumSchema>(
        spec,
        "TitledMultiSelectEnumSchema",
        "TitledMultiSelectEnumSchema",
    );
    roundtrip::<TitledSingleSelectEnumSchema>(
        spec,
        "TitledSingleSelectEnumSchema",
        "TitledSingleSelectEnumSchema",
    );
    roundtrip::<UntitledMultiSelectEnumSchema>(
        spec,
        "UntitledMultiSelectEnumSchema",
        "UntitledMultiSelectEnumSchema",
    );
    roundtrip::<UntitledSingleSelectEnumSchema>(
        spec,
        "UntitledSingleSelectEnumSchema",
        "UntitledSingleSelectEnumSchema",
    );
    // The same files read as the right PrimitiveSchemaDefinition variant.
    for (folder, kind) in [
        ("BooleanSchema", "Boolean"),
        ("NumberSchema", "Number"),
        ("StringSchema", "String"),
        ("TitledMultiSelectEnumSchema", "TitledMultiSelect"),
        ("TitledSingleSelectEnumSchema", "TitledSingleSelect"),
        ("UntitledMultiSelectEnumSchema", "UntitledMultiSelect"),
        ("UntitledSingleSelectEnumSchema", "UntitledSingleSelect"),
    ] {
        for p in roundtrip::<PrimitiveSchemaDefinition>(spec, folder, "PrimitiveSchemaDefinition") {
            assert!(
                format!("{p:?}").starts_with(&format!("{kind}(")),
                "{folder}: {p:?}"
            );
        }
    }
}

#[test]
fn examples_2026_elicitation() {
    let Some(spec) = common::spec() else { return };
    roundtrip::<ElicitFormParams>(spec, "ElicitRequestFormParams", "ElicitRequestFormParams");
    for p in roundtrip::<ElicitParams>(spec, "ElicitRequestFormParams", "ElicitRequestParams") {
        assert!(matches!(p, ElicitParams::Form(_)));
    }
    roundtrip::<ElicitUrlParams>(spec, "ElicitRequestURLParams", "ElicitRequestURLParams");
    for p in roundtrip::<ElicitParams>(spec, "ElicitRequestURLParams", "ElicitRequestParams") {
        assert!(matches!(p, ElicitParams::Url(_)));
    }
    roundtrip::<ElicitResult>(spec, "ElicitResult", "ElicitResult");
    for r in roundtrip::<InputRequest>(spec, "ElicitRequest", "ElicitRequest") {
        assert!(matches!(r, InputRequest::Elicit(ElicitParams::Form(_))));
    }
}

#[test]
fn examples_2026_sampling() {
    let Some(spec) = common::spec() else { return };
    roundtrip::<CreateMessageParams>(
        spec,
        "CreateMessageRequestParams",
        "CreateMessageRequestParams",
    );
    let results =
        roundtrip::<CreateMessageResult>(spec, "CreateMessageResult", "CreateMessageResult");
    assert!(
        results
            .iter()
            .any(|r| r.stop_reason == Some(StopReason::ToolUse))
    );
    roundtrip::<ModelPreferences>(spec, "ModelPreferences", "ModelPreferences");
    roundtrip::<SamplingMessage>(spec, "SamplingMessage", "SamplingMessage");
    for r in roundtrip::<InputRequest>(spec, "CreateMessageRequest", "CreateMessageRequest") {
        assert!(matches!(r, InputRequest::CreateMessage(_)));
    }
}

#[test]
fn examples_2026_roots() {
    let Some(spec) = common::spec() else { return };
    roundtrip::<Root>(spec, "Root", "Root");
    roundtrip::<ListRootsResult>(spec, "ListRootsResult", "ListRootsResult");
    // The ListRootsRequest example carries an `id` that the 2026 definition (an input request:
    // `{method, params?}`) does not have: it is read (and ignored) and not written back.
    for (path, json) in examples(spec, "ListRootsRequest") {
        assert!(json.get("id").is_some(), "{path}: the example has an id");
        assert!(
            spec.check_in("2026-07-28", "ListRootsRequest", &json)
                .is_err(),
            "{path}: strictly, the raw example's id is undefined"
        );
        let r: InputRequest = serde_json::from_value(json.clone()).unwrap();
        assert_eq!(r, InputRequest::ListRoots(None), "{path}");
        let mut expected = json.clone();
        expected.as_object_mut().unwrap().remove("id");
        assert_eq!(serde_json::to_value(&r).unwrap(), expected, "{path}");
        spec.check(
            V::V2026_07_28,
            "ListRootsRequest",
            &idempotent(&r, V::V2026_07_28),
        );
    }
}

#[test]
fn examples_2026_mrtr() {
    let Some(spec) = common::spec() else { return };
    for reqs in roundtrip_map::<InputRequest>(spec, "InputRequests", "InputRequests") {
        assert!(matches!(reqs["github_login"], InputRequest::Elicit(_)));
        assert!(matches!(
            reqs["capital_of_france"],
            InputRequest::CreateMessage(_)
        ));
    }
    for resps in roundtrip_map::<InputResponse>(spec, "InputResponses", "InputResponses") {
        assert!(matches!(resps["github_login"], InputResponse::Elicit(_)));
        assert!(matches!(
            resps["capital_of_france"],
            InputResponse::CreateMessage(_)
        ));
    }
    let results =
        roundtrip::<InputRequiredResult>(spec, "InputRequiredResult", "InputRequiredResult");
    assert_eq!(results.len(), 2);
    for r in &results {
        r.validate().unwrap();
    }
    assert!(results.iter().any(|r| r.input_requests.is_none()));
}

/// [`roundtrip`] for the `InputRequests` / `InputResponses` maps (type aliases of `BTreeMap`,
/// adapted entry by entry).
fn roundtrip_map<T>(spec: &common::Spec, folder: &str, def: &str) -> Vec<BTreeMap<String, T>>
where
    T: DeserializeOwned + Serialize + Adapt + Clone + std::fmt::Debug,
{
    examples(spec, folder)
        .into_iter()
        .map(|(path, json)| {
            let m: BTreeMap<String, T> = serde_json::from_value(json.clone())
                .unwrap_or_else(|e| panic!("{path}: does not deserialize: {e}"));
            assert_eq!(
                serde_json::to_value(&m).unwrap(),
                json,
                "{path}: round trip"
            );
            let adapted: BTreeMap<&String, Value> = m
                .iter()
                .map(|(k, v)| (k, idempotent(v, V::V2026_07_28)))
                .collect();
            spec.check(V::V2026_07_28, def, &serde_json::to_value(adapted).unwrap());
            m
        })
        .collect()
}
