//! Schema tests for `Implementation`, capabilities, `initialize`, `ping` and `server/discover`.

mod common;

use mcp_core::jsonrpc::{TypedRequest, TypedResponse, V2};
use mcp_core::types::*;
use mcp_core::version::{ProtocolVersion as V, SupportedVersions};
use serde_json::{Value, json};

const LEGACY: [V; 4] = [
    V::V2024_11_05,
    V::V2025_03_26,
    V::V2025_06_18,
    V::V2025_11_25,
];

fn obj(v: Value) -> Meta {
    match v {
        Value::Object(m) => m,
        other => panic!("not an object: {other}"),
    }
}

/// A request as revision `rev` spells it: before 2025-11-25 the schema's `XxxRequest`
/// definitions name only `method` and `params`; from 2025-11-25 they are full JSON-RPC
/// requests.
fn request(rev: V, method: &str, params: Value) -> Value {
    if rev < V::V2025_11_25 {
        json!({"method": method, "params": params})
    } else {
        json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
    }
}

/// The 2026 request `_meta` envelope with only its required keys.
fn modern_request_meta() -> Meta {
    obj(json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    }))
}

fn full_implementation() -> Implementation {
    Implementation {
        name: "example".into(),
        version: "1.2.3".into(),
        title: Some("Example".into()),
        icons: Some(vec![Icon {
            src: "https://example.com/icon.png".into(),
            mime_type: Some("image/png".into()),
            sizes: Some(vec!["48x48".into(), "any".into()]),
            theme: Some(IconTheme::Dark),
        }]),
        description: Some("An example implementation".into()),
        website_url: Some("https://example.com".into()),
    }
}

fn full_client_capabilities() -> ClientCapabilities {
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
        extensions: Some(obj(json!({
            "io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}
        }))),
    }
}

fn full_server_capabilities() -> ServerCapabilities {
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
            list_changed: Some(false),
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

/// Checks capabilities strictly; on legacy revisions, where `extensions` is an open key
/// (see `common::open_legacy_extensions`), none of the 2026-only extensions is left in it.
#[track_caller]
fn check_caps(spec: &common::Spec, rev: V, def: &str, v: &Value) {
    if rev < V::V2026_07_28
        && let Some(ext) = v.get("extensions")
    {
        let ext = ext.as_object().expect("an object");
        assert!(!ext.is_empty(), "an empty `extensions` is not sent");
        for id in MODERN_ONLY_EXTENSIONS {
            assert!(!ext.contains_key(id), "{id} on {rev}");
        }
    }
    spec.check(rev, def, v);
}

#[track_caller]
fn assert_idempotent<T: Adapt + Clone + serde::Serialize>(value: &T, rev: V) {
    let once = to_value_for(value, rev);
    let mut twice = value.clone();
    twice.adapt(rev);
    twice.adapt(rev);
    assert_eq!(serde_json::to_value(&twice).unwrap(), once, "{rev}");
}

// ---------------------------------------------------------------------------------------
// Implementation
// ---------------------------------------------------------------------------------------

#[test]
fn implementation_every_revision() {
    let Some(spec) = common::spec() else { return };
    let full = full_implementation();
    let min = Implementation::new("x", "1");
    for rev in common::revisions() {
        spec.check(rev, "Implementation", &to_value_for(&min, rev));
        spec.check(rev, "Implementation", &to_value_for(&full, rev));
        assert_idempotent(&full, rev);
    }
    assert_eq!(
        to_value_for(&min, V::V2026_07_28),
        json!({"name": "x", "version": "1"})
    );

    let old = to_value_for(&full, V::V2024_11_05);
    assert_eq!(old, json!({"name": "example", "version": "1.2.3"}));
    assert_eq!(to_value_for(&full, V::V2025_03_26), old);
    let titled = to_value_for(&full, V::V2025_06_18);
    assert_eq!(titled["title"], "Example");
    for absent in ["icons", "description", "websiteUrl"] {
        assert!(titled.get(absent).is_none(), "{absent} on 2025-06-18");
    }
    for rev in [V::V2025_11_25, V::V2026_07_28] {
        let v = to_value_for(&full, rev);
        assert_eq!(v["icons"][0]["theme"], "dark");
        assert_eq!(v["description"], "An example implementation");
        assert_eq!(v["websiteUrl"], "https://example.com");
    }
    // Unknown fields are tolerated on input.
    let parsed: Implementation =
        serde_json::from_value(json!({"name": "a", "version": "b", "vendor": "z"})).unwrap();
    assert_eq!(parsed, Implementation::new("a", "b"));
}

// ---------------------------------------------------------------------------------------
// ClientCapabilities
// ---------------------------------------------------------------------------------------

#[test]
fn client_capabilities_every_revision() {
    let Some(spec) = common::spec() else { return };
    let full = full_client_capabilities();
    let min = ClientCapabilities::default();
    for rev in common::revisions() {
        assert_eq!(to_value_for(&min, rev), json!({}));
        spec.check(rev, "ClientCapabilities", &to_value_for(&min, rev));
        check_caps(spec, rev, "ClientCapabilities", &to_value_for(&full, rev));
        assert_idempotent(&full, rev);
        // Every sub-object on its own, too.
        let mut one = ClientCapabilities {
            elicitation: Some(ElicitationCapability {
                form: None,
                url: Some(Meta::new()),
            }),
            ..Default::default()
        };
        spec.check(rev, "ClientCapabilities", &to_value_for(&one, rev));
        one.elicitation = Some(ElicitationCapability::default());
        spec.check(rev, "ClientCapabilities", &to_value_for(&one, rev));
    }

    // 2024-11-05 / 2025-03-26: sampling is `{}`, no elicitation or tasks; the open
    // `extensions` (MCP Apps) kept.
    let ui = json!({"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}});
    for rev in [V::V2024_11_05, V::V2025_03_26] {
        let v = to_value_for(&full, rev);
        assert_eq!(
            v,
            json!({"experimental": {"x-feature": {"level": 2}},
                   "roots": {"listChanged": true}, "sampling": {}, "extensions": ui}),
            "{rev}"
        );
    }
    // 2025-06-18: elicitation `{}` (form mode), still no sampling sub-capabilities.
    let v = to_value_for(&full, V::V2025_06_18);
    assert_eq!(v["elicitation"], json!({}));
    assert_eq!(v["sampling"], json!({}));
    assert!(v.get("tasks").is_none());
    assert_eq!(v["extensions"], ui);
    // URL-only elicitation has no 2025-06-18 equivalent: it is dropped, not turned into form.
    let url_only = ClientCapabilities {
        elicitation: Some(ElicitationCapability {
            form: None,
            url: Some(Meta::new()),
        }),
        ..Default::default()
    };
    assert_eq!(to_value_for(&url_only, V::V2025_06_18), json!({}));
    assert_eq!(
        to_value_for(&url_only, V::V2025_11_25),
        json!({"elicitation": {"url": {}}})
    );
    // 2025-11-25: everything, `extensions` as an open key.
    let v = to_value_for(&full, V::V2025_11_25);
    assert_eq!(v["sampling"], json!({"context": {}, "tools": {}}));
    assert_eq!(v["elicitation"], json!({"form": {}, "url": {}}));
    assert_eq!(
        v["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {
            "sampling": {"createMessage": {}}, "elicitation": {"create": {}}}})
    );
    assert_eq!(v["roots"], json!({"listChanged": true}));
    assert_eq!(v["extensions"], ui);
    // 2026-07-28: no roots.listChanged, no tasks; extensions kept.
    let v = to_value_for(&full, V::V2026_07_28);
    assert_eq!(v["roots"], json!({}));
    assert!(v.get("tasks").is_none());
    assert_eq!(
        v["extensions"]["io.modelcontextprotocol/ui"]["mimeTypes"][0],
        "text/html;profile=mcp-app"
    );
    // The strict harness itself rejects what we drop (2026: `tasks`; 2025-11-25: a
    // settings value that is not an object).
    let raw = serde_json::to_value(&full).unwrap();
    assert!(
        spec.check_in("2026-07-28", "ClientCapabilities", &raw)
            .is_err()
    );
    let mut odd = raw.clone();
    odd["extensions"]["com.example/x"] = json!(true);
    assert!(
        spec.check_in("2025-11-25", "ClientCapabilities", &odd)
            .is_err()
    );
}

#[test]
fn client_capability_helpers() {
    let none = ClientCapabilities::default();
    assert!(!none.supports_elicitation() && !none.elicitation_form() && !none.elicitation_url());
    assert!(!none.supports_sampling() && !none.supports_sampling_tools());
    assert!(!none.supports_roots() && !none.roots_list_changed());

    let implicit: ClientCapabilities = serde_json::from_value(json!({"elicitation": {}})).unwrap();
    assert!(implicit.elicitation_form(), "`{{}}` means form mode");
    assert!(!implicit.elicitation_url());
    let url: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {"url": {}}})).unwrap();
    assert!(!url.elicitation_form() && url.elicitation_url());
    let both: ClientCapabilities =
        serde_json::from_value(json!({"elicitation": {"form": {}, "url": {}}})).unwrap();
    assert!(both.elicitation_form() && both.elicitation_url());

    let full = full_client_capabilities();
    assert!(full.supports_sampling_tools() && full.supports_sampling_context());
    assert!(full.roots_list_changed());
    let tasks = full.tasks.as_ref().unwrap();
    assert!(tasks.sampling_create_message() && tasks.elicitation_create());
    assert!(full.has_extension("io.modelcontextprotocol/ui"));
    assert!(!full.has_extension("io.modelcontextprotocol/tasks"));
    let built =
        ClientCapabilities::default().with_extension("io.modelcontextprotocol/tasks", Meta::new());
    assert!(built.has_extension("io.modelcontextprotocol/tasks"));
    assert_eq!(
        built.extension("io.modelcontextprotocol/tasks"),
        Some(&json!({}))
    );

    let sampling_only: ClientCapabilities =
        serde_json::from_value(json!({"sampling": {}})).unwrap();
    assert!(sampling_only.supports_sampling() && !sampling_only.supports_sampling_tools());
}

// ---------------------------------------------------------------------------------------
// ServerCapabilities
// ---------------------------------------------------------------------------------------

#[test]
fn server_capabilities_every_revision() {
    let Some(spec) = common::spec() else { return };
    let full = full_server_capabilities();
    let min = ServerCapabilities::default();
    for rev in common::revisions() {
        assert_eq!(to_value_for(&min, rev), json!({}));
        spec.check(rev, "ServerCapabilities", &to_value_for(&min, rev));
        check_caps(spec, rev, "ServerCapabilities", &to_value_for(&full, rev));
        assert_idempotent(&full, rev);
    }
    let v = to_value_for(&full, V::V2024_11_05);
    assert!(
        v.get("completions").is_none(),
        "no completions in 2024-11-05"
    );
    assert!(v.get("tasks").is_none() && v.get("extensions").is_none());
    assert_eq!(v["logging"], json!({}));
    assert_eq!(
        v["resources"],
        json!({"subscribe": true, "listChanged": true})
    );
    for rev in [V::V2025_03_26, V::V2025_06_18] {
        let v = to_value_for(&full, rev);
        assert_eq!(v["completions"], json!({}), "{rev}");
        assert!(
            v.get("tasks").is_none() && v.get("extensions").is_none(),
            "{rev}"
        );
    }
    let v = to_value_for(&full, V::V2025_11_25);
    assert_eq!(
        v["tasks"],
        json!({"list": {}, "cancel": {}, "requests": {"tools": {"call": {}}}})
    );
    assert!(v.get("extensions").is_none());
    let v = to_value_for(&full, V::V2026_07_28);
    assert!(v.get("tasks").is_none(), "no core tasks in 2026");
    assert_eq!(
        v["extensions"],
        json!({"io.modelcontextprotocol/tasks": {}})
    );
    assert_eq!(v["tools"], json!({"listChanged": false}));

    assert!(full.supports_logging() && full.supports_completions());
    assert!(
        full.prompts_list_changed() && full.resources_subscribe() && full.resources_list_changed()
    );
    assert!(full.supports_tools() && !full.tools_list_changed());
    assert!(full.supports_task_tool_calls());
    assert!(full.has_extension("io.modelcontextprotocol/tasks"));
    assert!(!min.supports_tools() && !min.supports_resources() && !min.supports_prompts());
    assert!(!min.has_extension("io.modelcontextprotocol/tasks"));
    let built = ServerCapabilities::default().with_extension(
        "io.modelcontextprotocol/skills",
        obj(json!({"directoryRead": true})),
    );
    assert_eq!(
        built.extension("io.modelcontextprotocol/skills"),
        Some(&json!({"directoryRead": true}))
    );
}

// ---------------------------------------------------------------------------------------
// initialize
// ---------------------------------------------------------------------------------------

fn full_initialize_params() -> InitializeParams {
    InitializeParams {
        protocol_version: "2025-11-25".into(),
        capabilities: full_client_capabilities(),
        client_info: full_implementation(),
        meta: Some(obj(json!({"progressToken": 5, "vendor/x": true}))),
    }
}

#[test]
fn initialize_params_every_legacy_revision() {
    let Some(spec) = common::spec() else { return };
    let full = full_initialize_params();
    for rev in LEGACY {
        let min = InitializeParams::new(
            rev,
            ClientCapabilities::default(),
            Implementation::new("c", "1"),
        );
        for p in [&min, &full] {
            let v = to_value_for(p, rev);
            spec.check(
                rev,
                "InitializeRequest",
                &request(rev, InitializeParams::METHOD, v.clone()),
            );
            if spec.has_def(rev.as_str(), "InitializeRequestParams") {
                spec.check(rev, "InitializeRequestParams", &v);
            }
        }
        assert_idempotent(&full, rev);
        assert_eq!(
            to_value_for(&min, rev),
            json!({"protocolVersion": rev.as_str(), "capabilities": {},
                   "clientInfo": {"name": "c", "version": "1"}})
        );
    }
    // `_meta` is only named on initialize params from 2025-11-25: the strict schema rejects it
    // before, so it is dropped there.
    let raw = serde_json::to_value(InitializeParams {
        capabilities: ClientCapabilities::default(),
        client_info: Implementation::new("c", "1"),
        ..full.clone()
    })
    .unwrap();
    assert!(
        spec.check_in(
            "2025-06-18",
            "InitializeRequest",
            &request(V::V2025_06_18, "initialize", raw)
        )
        .is_err()
    );
    for rev in [V::V2024_11_05, V::V2025_03_26, V::V2025_06_18] {
        assert!(to_value_for(&full, rev).get("_meta").is_none(), "{rev}");
    }
    let v = to_value_for(&full, V::V2025_11_25);
    assert_eq!(v["_meta"]["progressToken"], 5);
    // Children are adapted too.
    let v = to_value_for(&full, V::V2024_11_05);
    assert!(v["clientInfo"].get("title").is_none());
    assert_eq!(v["capabilities"]["sampling"], json!({}));
    assert!(!spec.has_def("2026-07-28", "InitializeRequest"));
}

#[test]
fn initialize_params_keep_an_unknown_version() {
    let p: InitializeParams = serde_json::from_value(json!({
        "protocolVersion": "2099-01-01",
        "capabilities": {"roots": {"listChanged": true}, "future": {}},
        "clientInfo": {"name": "c", "version": "9"}
    }))
    .unwrap();
    assert_eq!(p.protocol_version, "2099-01-01");
    assert_eq!(p.known_version(), None);
    assert!(p.capabilities.roots_list_changed());
    assert_eq!(
        SupportedVersions::all().negotiate_initialize(&p.protocol_version),
        Some(V::V2025_11_25)
    );
    let known = InitializeParams::new(
        V::V2025_03_26,
        Default::default(),
        Implementation::new("c", "1"),
    );
    assert_eq!(known.known_version(), Some(V::V2025_03_26));
}

#[test]
fn initialize_result_every_legacy_revision() {
    let Some(spec) = common::spec() else { return };
    let full = InitializeResult {
        protocol_version: "2025-06-18".into(),
        capabilities: full_server_capabilities(),
        server_info: full_implementation(),
        instructions: Some("Use the tools.".into()),
        meta: Some(obj(json!({"vendor/trace": "abc"}))),
    };
    for rev in LEGACY {
        let min = InitializeResult::new(
            rev,
            ServerCapabilities::default(),
            Implementation::new("s", "1"),
        );
        spec.check(rev, "InitializeResult", &to_value_for(&min, rev));
        spec.check(rev, "InitializeResult", &to_value_for(&full, rev));
        assert_idempotent(&full, rev);
        let v = to_value_for(&full, rev);
        assert_eq!(v["instructions"], "Use the tools.");
        assert_eq!(v["_meta"]["vendor/trace"], "abc");
        assert!(v.get("resultType").is_none(), "{rev}");
        assert_eq!(min.known_version(), Some(rev));
    }
    let v = to_value_for(&full, V::V2024_11_05);
    assert!(v["capabilities"].get("completions").is_none());
    assert!(v["serverInfo"].get("title").is_none());
    assert!(!spec.has_def("2026-07-28", "InitializeResult"));
}

// ---------------------------------------------------------------------------------------
// ping
// ---------------------------------------------------------------------------------------

#[test]
fn ping_params_every_legacy_revision() {
    let Some(spec) = common::spec() else { return };
    let min = PingParams::default();
    let full = PingParams {
        meta: Some(obj(json!({"progressToken": "p1"}))),
    };
    for rev in LEGACY {
        for p in [&min, &full] {
            let v = to_value_for(p, rev);
            spec.check(
                rev,
                "PingRequest",
                &request(rev, PingParams::METHOD, v.clone()),
            );
            if rev >= V::V2025_11_25 {
                spec.check(rev, "RequestParams", &v);
            }
        }
        // Params are optional on ping.
        let bare = if rev < V::V2025_11_25 {
            json!({"method": "ping"})
        } else {
            json!({"jsonrpc": "2.0", "id": 1, "method": "ping"})
        };
        spec.check(rev, "PingRequest", &bare);
    }
    assert_eq!(
        to_value_for(&full, V::V2024_11_05),
        json!({"_meta": {"progressToken": "p1"}})
    );
    assert!(!spec.has_def("2026-07-28", "PingRequest"));
}

// ---------------------------------------------------------------------------------------
// server/discover
// ---------------------------------------------------------------------------------------

#[test]
fn discover_params_2026() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let min = DiscoverParams {
        meta: Some(modern_request_meta()),
    };
    let mut full_meta = modern_request_meta();
    full_meta.insert(
        "io.modelcontextprotocol/clientInfo".into(),
        to_value_for(&full_implementation(), rev),
    );
    full_meta.insert(
        "io.modelcontextprotocol/clientCapabilities".into(),
        to_value_for(&full_client_capabilities(), rev),
    );
    full_meta.insert("io.modelcontextprotocol/logLevel".into(), json!("debug"));
    full_meta.insert("progressToken".into(), json!(3));
    let full = DiscoverParams {
        meta: Some(full_meta),
    };
    for p in [&min, &full] {
        let v = to_value_for(p, rev);
        spec.check(rev, "RequestParams", &v);
        spec.check(
            rev,
            "DiscoverRequest",
            &request(rev, DiscoverParams::METHOD, v),
        );
    }
    assert_idempotent(&full, rev);
    // Without `_meta` it is not a valid 2026 request (the envelope code fills it).
    assert!(
        spec.check_in(
            "2026-07-28",
            "DiscoverRequest",
            &request(rev, "server/discover", json!({}))
        )
        .is_err()
    );
    for old in LEGACY {
        assert!(!spec.has_def(old.as_str(), "DiscoverRequest"));
    }
}

#[test]
fn discover_result_2026() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let min = DiscoverResult::new(SupportedVersions::all(), ServerCapabilities::default());
    let full = DiscoverResult {
        result_type: Some(ResultType::Complete),
        supported_versions: vec!["2026-07-28".into()],
        capabilities: full_server_capabilities(),
        instructions: Some("Prefer get_weather.".into()),
        ttl_ms: Some(60_000),
        cache_scope: Some(CacheScope::Public),
        meta: Some(obj(json!({
            "io.modelcontextprotocol/serverInfo": to_value_for(&full_implementation(), rev)
        }))),
    };
    for r in [&min, &full] {
        let v = to_value_for(r, rev);
        spec.check(rev, "DiscoverResult", &v);
        let resp = TypedResponse {
            jsonrpc: V2,
            id: "d".into(),
            result: v,
        };
        spec.check(
            rev,
            "DiscoverResultResponse",
            &serde_json::to_value(&resp).unwrap(),
        );
    }
    assert_idempotent(&full, rev);
    assert_idempotent(&min, rev);
    // Required fields are filled with the safe defaults; only modern revisions are listed.
    assert_eq!(
        to_value_for(&min, rev),
        json!({"resultType": "complete", "supportedVersions": ["2026-07-28"],
               "capabilities": {}, "ttlMs": 0, "cacheScope": "private"})
    );
    assert_eq!(min.known_versions(), vec![V::V2026_07_28]);
    let v = to_value_for(&full, rev);
    assert_eq!(v["ttlMs"], 60_000);
    assert_eq!(v["cacheScope"], "public");
    assert!(v["capabilities"].get("tasks").is_none());
    // A legacy-only server advertises nothing modern.
    let legacy_only = DiscoverResult::new(
        SupportedVersions::only(&[V::V2025_06_18]),
        ServerCapabilities::default(),
    );
    assert!(legacy_only.supported_versions.is_empty());
    // Tolerates a version it does not know.
    let parsed: DiscoverResult = serde_json::from_value(json!({
        "resultType": "complete", "supportedVersions": ["2026-07-28", "2027-01-01"],
        "capabilities": {}, "ttlMs": 5, "cacheScope": "private"
    }))
    .unwrap();
    assert_eq!(parsed.known_versions(), vec![V::V2026_07_28]);
    for old in LEGACY {
        assert!(!spec.has_def(old.as_str(), "DiscoverResult"));
    }
}

// ---------------------------------------------------------------------------------------
// 2026 examples
// ---------------------------------------------------------------------------------------

fn examples(spec: &common::Spec, folder: &str) -> Vec<(String, Value)> {
    let dir = spec.dir().join("2026-07-28/examples").join(folder);
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).unwrap();
            out.push((
                path.display().to_string(),
                serde_json::from_str(&text).unwrap(),
            ));
        }
    }
    assert!(!out.is_empty(), "no examples in {folder}");
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Deserializes each example of `folder` as `T`, checks it serializes back unchanged, and
/// that the value shaped for 2026 by `adapt` validates strictly against `folder`'s definition.
fn round_trip<T>(spec: &common::Spec, folder: &str, adapt: impl Fn(&mut T))
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    for (path, json) in examples(spec, folder) {
        let mut value: T =
            serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(serde_json::to_value(&value).unwrap(), json, "{path}");
        adapt(&mut value);
        let shaped = serde_json::to_value(&value).unwrap();
        spec.check(V::V2026_07_28, folder, &shaped);
    }
}

#[test]
fn examples_2026_lifecycle_and_capabilities() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    round_trip::<ClientCapabilities>(spec, "ClientCapabilities", |v| v.adapt(rev));
    round_trip::<ServerCapabilities>(spec, "ServerCapabilities", |v| v.adapt(rev));
    round_trip::<TypedRequest<DiscoverParams>>(spec, "DiscoverRequest", |r| r.params.adapt(rev));
    round_trip::<DiscoverResult>(spec, "DiscoverResult", |v| v.adapt(rev));
    round_trip::<TypedResponse<DiscoverResult>>(spec, "DiscoverResultResponse", |r| {
        r.result.adapt(rev)
    });

    // Spot checks on what the examples mean.
    let (_, v) = &examples(spec, "DiscoverResult")[0];
    let d: DiscoverResult = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(d.result_type, Some(ResultType::Complete));
    assert_eq!(d.cache_scope, Some(CacheScope::Public));
    assert!(d.capabilities.supports_tools() && d.capabilities.supports_resources());
    let (_, v) = examples(spec, "ClientCapabilities")
        .into_iter()
        .find(|(p, _)| p.ends_with("elicitation-form-only-implicit.json"))
        .unwrap();
    let c: ClientCapabilities = serde_json::from_value(v).unwrap();
    assert!(c.elicitation_form() && !c.elicitation_url());
}
