//! The whole model across every revision, in one aggregate check.
//!
//! A fully populated value of each main entity is shaped with `to_value_for(&v, rev)` for
//! every revision that has it and validated strictly against that revision's definition
//! (every failure is collected and reported together). Then, by name, across all of those
//! outputs: nothing 2024-11-05 lacks (`title`, `icons`, `outputSchema`, `structuredContent`,
//! `audio` / `resource_link` blocks) appears in 2024-11-05 output; `resultType` appears
//! only in 2026 output; `ttlMs` / `cacheScope` appear exactly on the 2026 cacheable results
//! (`server/discover`, `*/list`, `resources/read`). The per-module test files go into each
//! type's details; this file shows the model as a whole.

mod common;

use std::collections::BTreeMap;

use mcp_core::types::*;
use mcp_core::version::{ProtocolVersion as V, SupportedVersions};
use serde::Serialize;
use serde_json::{Value, json};

// ---------------------------------------------------------------------------------------
// Fully populated values
// ---------------------------------------------------------------------------------------

fn obj(v: Value) -> Meta {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

fn meta() -> Option<Meta> {
    Some(obj(json!({"com.example/trace": "abc"})))
}

fn annotations() -> Annotations {
    Annotations {
        audience: Some(vec![Role::User, Role::Assistant]),
        priority: Some(0.5),
        last_modified: Some("2025-01-12T15:00:58Z".into()),
    }
}

fn icons() -> Option<Vec<Icon>> {
    Some(vec![Icon {
        src: "https://example.com/icon.png".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["48x48".into(), "any".into()]),
        theme: Some(IconTheme::Light),
    }])
}

fn implementation() -> Implementation {
    Implementation {
        name: "example-server".into(),
        version: "1.2.3".into(),
        title: Some("Example Server".into()),
        icons: icons(),
        description: Some("An example".into()),
        website_url: Some("https://example.com".into()),
    }
}

fn client_capabilities() -> ClientCapabilities {
    ClientCapabilities {
        experimental: Some(obj(json!({"x-feature": {"level": 2}}))),
        roots: Some(RootsCapability {
            list_changed: Some(true),
        }),
        sampling: Some(SamplingCapability {
            context: Some(Meta::new()),
            tools: Some(Meta::new()),
        }),
        elicitation: Some(ElicitationCapability::form_and_url()),
        tasks: Some(ClientTasksCapability {
            list: Some(Meta::new()),
            cancel: Some(Meta::new()),
            requests: Some(ClientTaskRequests {
                sampling: Some(TaskSamplingRequests {
                    create_message: Some(Meta::new()),
                }),
                elicitation: Some(TaskElicitationRequests {
                    create: Some(Meta::new()),
                }),
            }),
        }),
        extensions: Some(obj(json!({"io.modelcontextprotocol/ui": {}}))),
    }
}

fn server_capabilities() -> ServerCapabilities {
    ServerCapabilities {
        experimental: Some(obj(json!({"x-feature": {}}))),
        logging: Some(Meta::new()),
        completions: Some(Meta::new()),
        prompts: Some(PromptsCapability {
            list_changed: Some(true),
        }),
        resources: Some(ResourcesCapability {
            subscribe: Some(true),
            list_changed: Some(true),
        }),
        tools: Some(ToolsCapability {
            list_changed: Some(true),
        }),
        tasks: Some(ServerTasksCapability {
            list: Some(Meta::new()),
            cancel: Some(Meta::new()),
            requests: Some(ServerTaskRequests {
                tools: Some(TaskToolsRequests {
                    call: Some(Meta::new()),
                }),
            }),
        }),
        extensions: Some(obj(json!({"io.modelcontextprotocol/tasks": {}}))),
    }
}

fn tool() -> Tool {
    Tool {
        name: "get_weather".into(),
        title: Some("Weather".into()),
        description: Some("Current weather for a city".into()),
        input_schema: obj(json!({
            "type": "object",
            "properties": {"city": {"type": "string"}},
            "required": ["city"]
        })),
        output_schema: Some(obj(json!({
            "type": "object",
            "properties": {"celsius": {"type": "number"}},
            "required": ["celsius"]
        }))),
        annotations: Some(ToolAnnotations {
            title: Some("Weather lookup".into()),
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: Some(true),
            open_world_hint: Some(true),
        }),
        execution: Some(ToolExecution {
            task_support: Some(TaskSupport::Optional),
        }),
        icons: icons(),
        meta: meta(),
    }
}

fn resource() -> Resource {
    Resource {
        uri: "file:///project/README.md".into(),
        name: "README.md".into(),
        title: Some("Read me".into()),
        description: Some("The project's readme".into()),
        mime_type: Some("text/markdown".into()),
        annotations: Some(annotations()),
        size: Some(1024),
        icons: icons(),
        meta: meta(),
    }
}

fn resource_template() -> ResourceTemplate {
    ResourceTemplate {
        uri_template: "file:///project/{path}".into(),
        name: "project-file".into(),
        title: Some("Project file".into()),
        description: Some("Any file of the project".into()),
        mime_type: Some("text/plain".into()),
        annotations: Some(annotations()),
        icons: icons(),
        meta: meta(),
    }
}

fn text_contents() -> ResourceContents {
    ResourceContents::Text(TextResourceContents {
        uri: "file:///project/README.md".into(),
        mime_type: Some("text/markdown".into()),
        text: "# Project".into(),
        meta: meta(),
    })
}

fn blob_contents() -> ResourceContents {
    ResourceContents::Blob(BlobResourceContents {
        uri: "file:///project/logo.png".into(),
        mime_type: Some("image/png".into()),
        blob: "iVBORw0KGgo=".into(),
        meta: meta(),
    })
}

/// One fully populated block of every [`ContentBlock`] kind (embedded text and blob).
fn every_block() -> Vec<ContentBlock> {
    vec![
        ContentBlock::Text(TextContent {
            text: "18°C and sunny".into(),
            annotations: Some(annotations()),
            meta: meta(),
        }),
        ContentBlock::Image(ImageContent {
            annotations: Some(annotations()),
            meta: meta(),
            ..ImageContent::from_bytes(b"\x89PNG", "image/png")
        }),
        ContentBlock::Audio(AudioContent {
            annotations: Some(annotations()),
            meta: meta(),
            ..AudioContent::from_bytes(b"RIFF", "audio/wav")
        }),
        ContentBlock::ResourceLink(resource()),
        ContentBlock::Resource(EmbeddedResource {
            resource: text_contents(),
            annotations: Some(annotations()),
            meta: meta(),
        }),
        ContentBlock::Resource(EmbeddedResource {
            resource: blob_contents(),
            annotations: Some(annotations()),
            meta: meta(),
        }),
    ]
}

fn call_tool_result() -> CallToolResult {
    CallToolResult {
        content: every_block(),
        structured_content: Some(json!({"celsius": 18})),
        is_error: Some(false),
        meta: meta(),
        result_type: Some(ResultType::Complete),
    }
}

fn prompt() -> Prompt {
    Prompt {
        name: "code_review".into(),
        title: Some("Code review".into()),
        description: Some("Review a change".into()),
        arguments: Some(vec![PromptArgument {
            name: "code".into(),
            title: Some("Code".into()),
            description: Some("The code to review".into()),
            required: Some(true),
        }]),
        icons: icons(),
        meta: meta(),
    }
}

/// Prompt messages with every content block kind.
fn prompt_messages() -> Vec<PromptMessage> {
    every_block()
        .into_iter()
        .enumerate()
        .map(|(i, content)| PromptMessage {
            role: if i % 2 == 0 {
                Role::User
            } else {
                Role::Assistant
            },
            content,
        })
        .collect()
}

fn list_tools_result() -> ListToolsResult {
    ListToolsResult {
        tools: vec![tool(), Tool::new("minimal")],
        next_cursor: Some("page-2".into()),
        meta: meta(),
        result_type: Some(ResultType::Complete),
        ttl_ms: Some(60_000),
        cache_scope: Some(CacheScope::Public),
    }
}

fn list_resources_result() -> ListResourcesResult {
    ListResourcesResult {
        resources: vec![resource()],
        next_cursor: Some("page-2".into()),
        meta: meta(),
        result_type: Some(ResultType::Complete),
        ttl_ms: Some(60_000),
        cache_scope: Some(CacheScope::Private),
    }
}

fn list_resource_templates_result() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult {
        resource_templates: vec![resource_template()],
        next_cursor: Some("page-2".into()),
        meta: meta(),
        result_type: Some(ResultType::Complete),
        ttl_ms: Some(60_000),
        cache_scope: Some(CacheScope::Public),
    }
}

fn list_prompts_result() -> ListPromptsResult {
    ListPromptsResult {
        prompts: vec![prompt()],
        next_cursor: Some("page-2".into()),
        meta: meta(),
        result_type: Some(ResultType::Complete),
        ttl_ms: Some(60_000),
        cache_scope: Some(CacheScope::Public),
    }
}

fn read_resource_result() -> ReadResourceResult {
    ReadResourceResult {
        contents: vec![text_contents(), blob_contents()],
        meta: meta(),
        result_type: Some(ResultType::Complete),
        ttl_ms: Some(5_000),
        cache_scope: Some(CacheScope::Private),
    }
}

fn get_prompt_result() -> GetPromptResult {
    GetPromptResult {
        description: Some("A code review".into()),
        messages: prompt_messages(),
        meta: meta(),
        result_type: Some(ResultType::Complete),
    }
}

fn complete_result() -> CompleteResult {
    CompleteResult {
        completion: Completion {
            values: vec!["python".into(), "pytorch".into()],
            total: Some(10),
            has_more: Some(true),
        },
        meta: meta(),
        result_type: Some(ResultType::Complete),
    }
}

fn initialize_result(rev: V) -> InitializeResult {
    InitializeResult {
        instructions: Some("Prefer get_weather.".into()),
        meta: meta(),
        ..InitializeResult::new(rev, server_capabilities(), implementation())
    }
}

fn discover_result() -> DiscoverResult {
    DiscoverResult {
        instructions: Some("Prefer get_weather.".into()),
        ttl_ms: Some(60_000),
        cache_scope: Some(CacheScope::Public),
        meta: meta(),
        ..DiscoverResult::new(SupportedVersions::all(), server_capabilities())
    }
}

fn create_message_params() -> CreateMessageParams {
    let tool_use = ToolUseContent {
        id: "call_1".into(),
        name: "get_weather".into(),
        input: obj(json!({"city": "Paris"})),
        meta: meta(),
    };
    let tool_result = ToolResultContent {
        tool_use_id: "call_1".into(),
        content: vec![ContentBlock::text("18°C")],
        structured_content: Some(json!({"celsius": 18})),
        is_error: Some(false),
        meta: meta(),
    };
    let text = TextContent {
        text: "What is the weather?".into(),
        annotations: Some(annotations()),
        meta: meta(),
    };
    let image = ImageContent {
        annotations: Some(annotations()),
        meta: meta(),
        ..ImageContent::from_bytes(b"\x89PNG", "image/png")
    };
    let audio = AudioContent {
        annotations: Some(annotations()),
        meta: meta(),
        ..AudioContent::from_bytes(b"RIFF", "audio/wav")
    };
    CreateMessageParams {
        messages: vec![
            SamplingMessage {
                role: Role::User,
                content: SamplingMessageContent::Multiple(vec![
                    text.into(),
                    image.into(),
                    audio.into(),
                ]),
                meta: meta(),
            },
            SamplingMessage {
                role: Role::Assistant,
                content: SamplingMessageContent::Single(tool_use.into()),
                meta: meta(),
            },
            SamplingMessage {
                role: Role::User,
                content: SamplingMessageContent::Single(tool_result.into()),
                meta: meta(),
            },
        ],
        model_preferences: Some(ModelPreferences {
            hints: Some(vec![ModelHint::new("claude")]),
            cost_priority: Some(0.2),
            speed_priority: Some(0.5),
            intelligence_priority: Some(0.9),
        }),
        system_prompt: Some("You are helpful.".into()),
        include_context: Some(IncludeContext::ThisServer),
        temperature: Some(0.7),
        max_tokens: 200,
        stop_sequences: Some(vec!["STOP".into()]),
        metadata: Some(obj(json!({"provider": {"x": 1}}))),
        tools: Some(vec![tool()]),
        tool_choice: Some(ToolChoice {
            mode: Some(ToolChoiceMode::Auto),
        }),
        task: Some(TaskMetadata { ttl: Some(60_000) }),
        meta: meta(),
    }
}

fn elicit_form_params() -> ElicitParams {
    let mut properties = SchemaProperties::new();
    properties
        .insert(
            "email",
            StringSchema {
                title: Some("Email".into()),
                description: Some("Where to reach you".into()),
                min_length: Some(3),
                max_length: Some(200),
                format: Some(StringFormat::Email),
                default: Some("a@example.com".into()),
                ..Default::default()
            },
        )
        .insert(
            "age",
            NumberSchema {
                type_: NumberType::Integer,
                title: Some("Age".into()),
                description: Some("In years".into()),
                minimum: Some(0.into()),
                maximum: Some(150.into()),
                default: Some(30.into()),
            },
        )
        .insert(
            "subscribe",
            BooleanSchema {
                title: Some("Subscribe".into()),
                description: Some("Get the newsletter".into()),
                default: Some(false),
                ..Default::default()
            },
        )
        .insert(
            "color",
            TitledSingleSelectEnumSchema {
                title: Some("Color".into()),
                description: Some("Pick one".into()),
                one_of: vec![
                    TitledEnumOption::new("#f00", "Red"),
                    TitledEnumOption::new("#00f", "Blue"),
                ],
                default: Some("#f00".into()),
                ..Default::default()
            },
        )
        .insert(
            "sizes",
            TitledMultiSelectEnumSchema {
                title: Some("Sizes".into()),
                description: Some("Pick any".into()),
                min_items: Some(1),
                max_items: Some(2),
                items: TitledEnumItems {
                    any_of: vec![
                        TitledEnumOption::new("s", "Small"),
                        TitledEnumOption::new("l", "Large"),
                    ],
                },
                default: Some(vec!["s".into()]),
                ..Default::default()
            },
        );
    ElicitParams::Form(ElicitFormParams {
        task: Some(TaskMetadata { ttl: Some(1_000) }),
        meta: meta(),
        ..ElicitFormParams::new(
            "Tell us about you",
            RequestedSchema {
                schema: Some("https://json-schema.org/draft/2020-12/schema".into()),
                required: Some(vec!["email".into()]),
                ..RequestedSchema::new(properties)
            },
        )
    })
}

fn elicit_url_params() -> ElicitParams {
    ElicitParams::Url(ElicitUrlParams {
        task: Some(TaskMetadata { ttl: Some(1_000) }),
        meta: meta(),
        ..ElicitUrlParams::new("Set your API key", "https://example.com/key")
            .with_elicitation_id("e-1")
    })
}

fn logging_message_params() -> LoggingMessageParams {
    LoggingMessageParams {
        logger: Some("db".into()),
        meta: meta(),
        ..LoggingMessageParams::new(LoggingLevel::Error, json!({"error": "down"}))
    }
}

fn progress_params() -> ProgressParams {
    ProgressParams {
        total: Some(100.0),
        message: Some("Half way".into()),
        meta: meta(),
        ..ProgressParams::new("tok-1", 50.0)
    }
}

// ---------------------------------------------------------------------------------------
// Shaping and checking
// ---------------------------------------------------------------------------------------

/// What a shaped value is, for the named assertions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A plain entity (no `resultType`).
    Entity,
    /// A JSON-RPC result.
    Result,
    /// A 2026 cacheable result (`server/discover`, `*/list`, `resources/read`).
    CacheableResult,
    /// A request's or notification's params.
    Params,
}

/// One value shaped for one revision.
struct Shaped {
    entity: &'static str,
    kind: Kind,
    json: Value,
}

/// Collects the outputs for one revision and every validation failure.
struct Run<'a> {
    spec: &'a common::Spec,
    rev: V,
    shaped: Vec<Shaped>,
    failures: Vec<String>,
}

impl Run<'_> {
    fn validate(&mut self, entity: &str, def: &str, value: &Value) {
        if let Err(errors) = self.spec.check_in(common::rev_dir(self.rev), def, value) {
            self.failures.push(format!(
                "{entity} as {def} for {}:\n    {}\n  value: {value}",
                self.rev,
                errors.join("\n    ")
            ));
        }
    }

    /// Shapes `value` for the revision, checks that adapting is idempotent, validates it
    /// against `def`, and keeps the output.
    fn entity<T: Adapt + Clone + Serialize>(
        &mut self,
        entity: &'static str,
        kind: Kind,
        def: &str,
        value: &T,
    ) -> Value {
        let json = to_value_for(value, self.rev);
        let mut twice = value.clone();
        twice.adapt(self.rev);
        twice.adapt(self.rev);
        if serde_json::to_value(&twice).unwrap() != json {
            self.failures.push(format!(
                "{entity}: adapt is not idempotent for {}",
                self.rev
            ));
        }
        self.validate(entity, def, &json);
        self.shaped.push(Shaped {
            entity,
            kind,
            json: json.clone(),
        });
        json
    }

    /// Params: validated against `params_def` where the revision names it, and always inside
    /// their message (`message_def`): older revisions inline the params there.
    fn params<T: Adapt + Clone + Serialize>(
        &mut self,
        entity: &'static str,
        params_def: &str,
        message_def: &str,
        message: Message,
        method: &str,
        value: &T,
    ) {
        let json = to_value_for(value, self.rev);
        if self.spec.has_def(common::rev_dir(self.rev), params_def) {
            self.validate(entity, params_def, &json);
        }
        let envelope = message.wrap(self.rev, method, json.clone());
        self.validate(entity, message_def, &envelope);
        self.shaped.push(Shaped {
            entity,
            kind: Kind::Params,
            json,
        });
    }
}

/// How a params value travels.
#[derive(Clone, Copy)]
enum Message {
    /// A server → client request: a JSON-RPC request on 2025-11-25, `{method, params}` on
    /// the older revisions (whose per-method definitions name no `jsonrpc`/`id`) and on
    /// 2026-07-28 (where it is an input request of a multi-round-trip result).
    ClientRequest,
    /// A notification: `{jsonrpc, method, params}` from 2025-11-25 on, `{method, params}`
    /// before.
    Notification,
}

impl Message {
    fn wrap(self, rev: V, method: &str, params: Value) -> Value {
        let mut m = json!({"method": method, "params": params});
        match self {
            Message::ClientRequest if rev == V::V2025_11_25 => {
                m["jsonrpc"] = json!("2.0");
                m["id"] = json!(1);
            }
            Message::Notification if rev >= V::V2025_11_25 => m["jsonrpc"] = json!("2.0"),
            _ => {}
        }
        m
    }
}

/// Every main entity shaped for `rev` and validated; returns the outputs.
fn shape_all(run: &mut Run<'_>) {
    let rev = run.rev;
    run.entity("Tool", Kind::Entity, "Tool", &tool());
    run.entity(
        "CallToolResult",
        Kind::Result,
        "CallToolResult",
        &call_tool_result(),
    );
    run.entity("Resource", Kind::Entity, "Resource", &resource());
    run.entity(
        "ResourceTemplate",
        Kind::Entity,
        "ResourceTemplate",
        &resource_template(),
    );
    run.entity("Prompt", Kind::Entity, "Prompt", &prompt());
    for m in prompt_messages() {
        run.entity("PromptMessage", Kind::Entity, "PromptMessage", &m);
    }
    run.entity(
        "Implementation",
        Kind::Entity,
        "Implementation",
        &implementation(),
    );
    run.entity(
        "ClientCapabilities",
        Kind::Entity,
        "ClientCapabilities",
        &client_capabilities(),
    );
    run.entity(
        "ServerCapabilities",
        Kind::Entity,
        "ServerCapabilities",
        &server_capabilities(),
    );
    if rev < V::V2026_07_28 {
        let v = run.entity(
            "InitializeResult",
            Kind::Result,
            "InitializeResult",
            &initialize_result(rev),
        );
        assert_eq!(v["protocolVersion"], rev.as_str());
    } else {
        run.entity(
            "DiscoverResult",
            Kind::CacheableResult,
            "DiscoverResult",
            &discover_result(),
        );
    }
    run.entity(
        "ListToolsResult",
        Kind::CacheableResult,
        "ListToolsResult",
        &list_tools_result(),
    );
    run.entity(
        "ListResourcesResult",
        Kind::CacheableResult,
        "ListResourcesResult",
        &list_resources_result(),
    );
    run.entity(
        "ListResourceTemplatesResult",
        Kind::CacheableResult,
        "ListResourceTemplatesResult",
        &list_resource_templates_result(),
    );
    run.entity(
        "ListPromptsResult",
        Kind::CacheableResult,
        "ListPromptsResult",
        &list_prompts_result(),
    );
    run.entity(
        "ReadResourceResult",
        Kind::CacheableResult,
        "ReadResourceResult",
        &read_resource_result(),
    );
    run.entity(
        "GetPromptResult",
        Kind::Result,
        "GetPromptResult",
        &get_prompt_result(),
    );
    run.entity(
        "CompleteResult",
        Kind::Result,
        "CompleteResult",
        &complete_result(),
    );
    run.params(
        "CreateMessageParams",
        "CreateMessageRequestParams",
        "CreateMessageRequest",
        Message::ClientRequest,
        CreateMessageParams::METHOD,
        &create_message_params(),
    );
    if rev >= V::V2025_06_18 {
        for p in [elicit_form_params(), elicit_url_params()] {
            run.params(
                "ElicitParams",
                "ElicitRequestParams",
                "ElicitRequest",
                Message::ClientRequest,
                ElicitParams::METHOD,
                &p,
            );
        }
    } else {
        assert!(!run.spec.has_def(rev.as_str(), "ElicitRequest"), "{rev}");
    }
    run.params(
        "LoggingMessageParams",
        "LoggingMessageNotificationParams",
        "LoggingMessageNotification",
        Message::Notification,
        LoggingMessageParams::METHOD,
        &logging_message_params(),
    );
    run.params(
        "ProgressParams",
        "ProgressNotificationParams",
        "ProgressNotification",
        Message::Notification,
        ProgressParams::METHOD,
        &progress_params(),
    );
}

// ---------------------------------------------------------------------------------------
// Named assertions
// ---------------------------------------------------------------------------------------

/// Values whose contents are open JSON (schemas, arguments, metadata, ...): a key inside them
/// is data, not a field of the model.
const OPEN: &[&str] = &[
    "_meta",
    "inputSchema",
    "outputSchema",
    "requestedSchema",
    "experimental",
    "extensions",
    "arguments",
    "structuredContent",
    "metadata",
    "input",
    "data",
];

/// The paths of every occurrence of `key` as a model field in `v` (not inside open values,
/// except that an open value's own key is reported).
fn find_key(v: &Value, key: &str, path: &str, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let here = format!("{path}/{k}");
                if k == key {
                    out.push(here.clone());
                }
                if !OPEN.contains(&k.as_str()) {
                    find_key(x, key, &here, out);
                }
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                find_key(x, key, &format!("{path}/{i}"), out);
            }
        }
        _ => {}
    }
}

fn occurrences(v: &Value, key: &str) -> Vec<String> {
    let mut out = Vec::new();
    find_key(v, key, "", &mut out);
    out
}

/// Every `type` of a content block anywhere in `v`.
fn block_types(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(t)) = m.get("type")
                && (m.contains_key("text")
                    || m.contains_key("data")
                    || m.contains_key("uri")
                    || m.contains_key("resource")
                    || m.contains_key("toolUseId")
                    || m.contains_key("input"))
            {
                out.push(t.clone());
            }
            for (k, x) in m {
                if !OPEN.contains(&k.as_str()) {
                    block_types(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| block_types(x, out)),
        _ => {}
    }
}

#[test]
fn every_entity_validates_on_every_revision() {
    let Some(spec) = common::spec() else { return };
    let mut failures = Vec::new();
    let mut outputs: BTreeMap<V, Vec<Shaped>> = BTreeMap::new();
    for rev in common::revisions() {
        let mut run = Run {
            spec,
            rev,
            shaped: Vec::new(),
            failures: Vec::new(),
        };
        shape_all(&mut run);
        failures.append(&mut run.failures);
        outputs.insert(rev, run.shaped);
    }

    // Named assertions over every output.
    for (rev, shaped) in &outputs {
        let rev = *rev;
        for s in shaped {
            let mut fail = |what: String| failures.push(format!("{} for {rev}: {what}", s.entity));
            if rev == V::V2024_11_05 {
                for key in ["title", "icons", "outputSchema", "structuredContent"] {
                    let found = occurrences(&s.json, key);
                    if !found.is_empty() {
                        fail(format!("`{key}` is not defined in 2024-11-05: {found:?}"));
                    }
                }
                let mut types = Vec::new();
                block_types(&s.json, &mut types);
                for t in types {
                    if !["text", "image", "resource"].contains(&t.as_str()) {
                        fail(format!("a `{t}` block is not defined in 2024-11-05"));
                    }
                }
            }
            let result_type = occurrences(&s.json, "resultType");
            let expect_result_type =
                rev == V::V2026_07_28 && matches!(s.kind, Kind::Result | Kind::CacheableResult);
            if expect_result_type {
                if result_type != ["/resultType"] {
                    fail(format!(
                        "`resultType` expected at the top only: {result_type:?}"
                    ));
                }
                if s.json["resultType"] != "complete" {
                    fail(format!("resultType = {}", s.json["resultType"]));
                }
            } else if !result_type.is_empty() {
                fail(format!("unexpected `resultType`: {result_type:?}"));
            }
            for key in ["ttlMs", "cacheScope"] {
                let found = occurrences(&s.json, key);
                let expected = rev == V::V2026_07_28 && s.kind == Kind::CacheableResult;
                if expected && found != [format!("/{key}")] {
                    fail(format!("`{key}` expected at the top only: {found:?}"));
                } else if !expected && !found.is_empty() {
                    fail(format!("unexpected `{key}`: {found:?}"));
                }
            }
        }
    }

    // The fields that distinguish the revisions are really there where they are defined.
    let find = |rev: V, entity: &str| -> &Value {
        &outputs[&rev]
            .iter()
            .find(|s| s.entity == entity)
            .unwrap_or_else(|| panic!("{entity} for {rev}"))
            .json
    };
    for rev in common::revisions() {
        let tool = find(rev, "Tool");
        let result = find(rev, "CallToolResult");
        assert_eq!(
            tool.get("outputSchema").is_some(),
            rev >= V::V2025_06_18,
            "{rev}"
        );
        assert_eq!(tool.get("title").is_some(), rev >= V::V2025_06_18, "{rev}");
        assert_eq!(tool.get("icons").is_some(), rev >= V::V2025_11_25, "{rev}");
        assert_eq!(
            result.get("structuredContent").is_some(),
            rev >= V::V2025_06_18,
            "{rev}"
        );
        // Every block survives (converted where the revision lacks its kind).
        assert_eq!(
            result["content"].as_array().map(Vec::len),
            Some(every_block().len()),
            "{rev}"
        );
    }
    let discover = find(V::V2026_07_28, "DiscoverResult");
    assert_eq!(
        (&discover["ttlMs"], &discover["cacheScope"]),
        (&json!(60_000), &json!("public"))
    );
    let list = find(V::V2026_07_28, "ListResourcesResult");
    assert_eq!(
        (&list["ttlMs"], &list["cacheScope"]),
        (&json!(60_000), &json!("private"))
    );

    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
