//! Resources, prompts and completion against every revision's schema (strict), and the
//! 2026-07-28 examples of these types.

mod common;

use std::collections::BTreeMap;

use mcp_core::jsonrpc::{TypedNotification, TypedRequest, TypedResponse};
use mcp_core::types::*;
use mcp_core::version::{Era, ProtocolVersion as V};
use serde::Serialize;
use serde::de::DeserializeOwned;
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
        "progressToken": "tok"
    }))
}

/// Request `_meta` for `rev`: the 2026 envelope, or a progress token on legacy revisions.
fn request_meta(rev: V) -> Meta {
    if rev.era() == Era::Modern {
        meta26()
    } else {
        obj(json!({"progressToken": 1}))
    }
}

/// `_meta` a minimal request of `rev` must carry (2026 requires it).
fn minimal_meta(rev: V) -> Option<Meta> {
    (rev.era() == Era::Modern).then(meta26)
}

fn some_meta() -> Option<Meta> {
    Some(obj(json!({"example.com/k": true})))
}

fn annotations() -> Annotations {
    Annotations {
        audience: Some(vec![Role::Assistant]),
        priority: Some(1.0),
        last_modified: Some("2025-05-03T14:30:00Z".into()),
    }
}

fn icons() -> Vec<Icon> {
    vec![Icon {
        src: "data:image/png;base64,AA==".into(),
        mime_type: Some("image/png".into()),
        sizes: Some(vec!["any".into()]),
        theme: Some(IconTheme::Light),
    }]
}

fn args(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Validates a request for `rev`. Before 2025-11-25 the per-method definitions have no
/// `jsonrpc`/`id` and their inline params omit `_meta` (defined by the base `Request`), so
/// `_meta` is checked against `Request` on its own.
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
            &json!({"jsonrpc": "2.0", "id": "r", "method": method, "params": params}),
        );
    }
}

/// Like [`check_request`] for notifications.
#[track_caller]
fn check_notification(spec: &common::Spec, rev: V, def: &str, method: &str, mut params: Value) {
    if rev < V::V2025_11_25 {
        if def == "ResourceUpdatedNotification"
            && let Some(meta) = params.as_object_mut().and_then(|p| p.remove("_meta"))
        {
            spec.check(
                rev,
                "Notification",
                &json!({"method": method, "params": {"_meta": meta}}),
            );
        }
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
fn roundtrip_with<T, F>(spec: &common::Spec, folder: &str, adapt: F)
where
    T: DeserializeOwned + Serialize,
    F: Fn(&mut T),
{
    for (path, json) in examples(spec, folder) {
        let mut value: T = serde_json::from_value(json.clone())
            .unwrap_or_else(|e| panic!("{path}: does not deserialize: {e}"));
        assert_eq!(serde_json::to_value(&value).unwrap(), json, "{path}");
        adapt(&mut value);
        spec.check(
            V::V2026_07_28,
            folder,
            &serde_json::to_value(&value).unwrap(),
        );
    }
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

fn idempotent<T: Adapt + Clone + PartialEq + std::fmt::Debug>(value: &T) {
    for rev in common::revisions() {
        let mut once = value.clone();
        once.adapt(rev);
        let mut twice = once.clone();
        twice.adapt(rev);
        assert_eq!(once, twice, "{rev}");
    }
}

/// Asserts the 2026-only result fields are present exactly on 2026-07-28.
#[track_caller]
fn assert_result_fields(v: &Value, rev: V, cacheable: bool) {
    let modern = rev == V::V2026_07_28;
    assert_eq!(v.get("resultType").is_some(), modern, "resultType {rev}");
    assert_eq!(v.get("ttlMs").is_some(), modern && cacheable, "ttlMs {rev}");
    assert_eq!(
        v.get("cacheScope").is_some(),
        modern && cacheable,
        "cacheScope {rev}"
    );
}

// ---------------------------------------------------------------------------------------
// resources

fn full_resource() -> Resource {
    Resource {
        uri: "file:///project/README.md".into(),
        name: "README.md".into(),
        title: Some("Docs".into()),
        description: Some("The readme".into()),
        mime_type: Some("text/markdown".into()),
        annotations: Some(annotations()),
        size: Some(1024),
        icons: Some(icons()),
        meta: some_meta(),
    }
}

fn full_template() -> ResourceTemplate {
    ResourceTemplate {
        uri_template: "file:///{path}".into(),
        name: "files".into(),
        title: Some("Files".into()),
        description: Some("Project files".into()),
        mime_type: Some("application/octet-stream".into()),
        annotations: Some(annotations()),
        icons: Some(icons()),
        meta: some_meta(),
    }
}

#[test]
fn resource_and_template_by_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let r = to_value_for(&full_resource(), rev);
        spec.check(rev, "Resource", &r);
        spec.check(
            rev,
            "Resource",
            &to_value_for(&Resource::new("file:///x", "x"), rev),
        );
        let t = to_value_for(&full_template(), rev);
        spec.check(rev, "ResourceTemplate", &t);
        spec.check(
            rev,
            "ResourceTemplate",
            &to_value_for(&ResourceTemplate::new("file:///{p}", "p"), rev),
        );
        for v in [&r, &t] {
            assert_eq!(
                v.get("title").is_some(),
                rev >= V::V2025_06_18,
                "title {rev}"
            );
            assert_eq!(
                v.get("_meta").is_some(),
                rev >= V::V2025_06_18,
                "_meta {rev}"
            );
            assert_eq!(
                v.get("icons").is_some(),
                rev >= V::V2025_11_25,
                "icons {rev}"
            );
            assert_eq!(
                v["annotations"].get("lastModified").is_some(),
                rev >= V::V2025_06_18
            );
            assert!(v["mimeType"].is_string());
        }
        assert_eq!(r["size"], 1024);
    }
    assert_eq!(
        to_value_for(&full_resource(), V::V2024_11_05),
        json!({
            "uri": "file:///project/README.md",
            "name": "README.md",
            "description": "The readme",
            "mimeType": "text/markdown",
            "annotations": {"audience": ["assistant"], "priority": 1.0},
            "size": 1024
        })
    );
    idempotent(&full_resource());
    idempotent(&full_template());
}

#[test]
fn list_resources_and_templates() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let full = ListResourcesParams {
            cursor: Some("c".into()),
            meta: Some(request_meta(rev)),
        };
        let min = ListResourcesParams {
            cursor: None,
            meta: minimal_meta(rev),
        };
        for p in [&full, &min] {
            let v = to_value_for(p, rev);
            check_request(
                spec,
                rev,
                "ListResourcesRequest",
                ListResourcesParams::METHOD,
                v.clone(),
            );
            if rev >= V::V2025_11_25 {
                spec.check(rev, "PaginatedRequestParams", &v);
            }
        }
        let full = ListResourceTemplatesParams {
            cursor: Some("c".into()),
            meta: Some(request_meta(rev)),
        };
        let min = ListResourceTemplatesParams {
            cursor: None,
            meta: minimal_meta(rev),
        };
        for p in [&full, &min] {
            check_request(
                spec,
                rev,
                "ListResourceTemplatesRequest",
                ListResourceTemplatesParams::METHOD,
                to_value_for(p, rev),
            );
        }

        let full = ListResourcesResult {
            resources: vec![full_resource(), Resource::new("file:///b", "b")],
            next_cursor: Some("n".into()),
            meta: some_meta(),
            result_type: Some(ResultType::Complete),
            ttl_ms: Some(600_000),
            cache_scope: Some(CacheScope::Private),
        };
        for r in [&full, &ListResourcesResult::default()] {
            let v = to_value_for(r, rev);
            spec.check(rev, "ListResourcesResult", &v);
            assert_result_fields(&v, rev, true);
            if rev == V::V2026_07_28 {
                spec.check(
                    rev,
                    "ListResourcesResultResponse",
                    &json!({"jsonrpc": "2.0", "id": 1, "result": v}),
                );
            }
        }
        let full = ListResourceTemplatesResult {
            resource_templates: vec![full_template()],
            next_cursor: Some("n".into()),
            meta: some_meta(),
            result_type: None,
            ttl_ms: None,
            cache_scope: Some(CacheScope::Public),
        };
        for r in [&full, &ListResourceTemplatesResult::default()] {
            let v = to_value_for(r, rev);
            spec.check(rev, "ListResourceTemplatesResult", &v);
            assert_result_fields(&v, rev, true);
            if rev == V::V2026_07_28 {
                spec.check(
                    rev,
                    "ListResourceTemplatesResultResponse",
                    &json!({"jsonrpc": "2.0", "id": 1, "result": v}),
                );
            }
        }
        if rev == V::V2026_07_28 {
            let v = to_value_for(&full, rev);
            // A scope that was set is kept; the missing TTL is filled with 0.
            assert_eq!(v["cacheScope"], "public");
            assert_eq!(v["ttlMs"], 0);
            assert_eq!(v["resultType"], "complete");
        }
    }
}

#[test]
fn read_resource_by_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let modern = rev == V::V2026_07_28;
        let full = ReadResourceParams {
            uri: "file:///a".into(),
            input_responses: Some(obj(json!({"k": {"action": "cancel"}}))),
            request_state: Some("s".into()),
            meta: Some(request_meta(rev)),
        };
        let mut min = ReadResourceParams::new("file:///a");
        min.meta = minimal_meta(rev);
        for p in [&full, &min] {
            let v = to_value_for(p, rev);
            check_request(
                spec,
                rev,
                "ReadResourceRequest",
                ReadResourceParams::METHOD,
                v.clone(),
            );
            if rev >= V::V2025_11_25 {
                spec.check(rev, "ReadResourceRequestParams", &v);
            }
        }
        let v = to_value_for(&full, rev);
        assert_eq!(v.get("inputResponses").is_some(), modern);
        assert_eq!(v.get("requestState").is_some(), modern);

        let full = ReadResourceResult {
            contents: vec![
                ResourceContents::Text(TextResourceContents {
                    uri: "file:///a".into(),
                    mime_type: Some("text/plain".into()),
                    text: "a".into(),
                    meta: some_meta(),
                }),
                ResourceContents::Blob(BlobResourceContents {
                    uri: "file:///b".into(),
                    mime_type: Some("image/png".into()),
                    blob: "AA==".into(),
                    meta: some_meta(),
                }),
            ],
            meta: some_meta(),
            result_type: Some(ResultType::Complete),
            ttl_ms: Some(60_000),
            cache_scope: Some(CacheScope::Private),
        };
        for r in [&full, &ReadResourceResult::default()] {
            let v = to_value_for(r, rev);
            spec.check(rev, "ReadResourceResult", &v);
            assert_result_fields(&v, rev, true);
            if modern {
                spec.check(
                    rev,
                    "ReadResourceResultResponse",
                    &json!({"jsonrpc": "2.0", "id": 1, "result": v}),
                );
            }
        }
        let v = to_value_for(&full, rev);
        for c in v["contents"].as_array().unwrap() {
            assert_eq!(c.get("_meta").is_some(), rev >= V::V2025_06_18);
        }
    }
    idempotent(&ReadResourceResult::default());
}

#[test]
fn subscribe_and_unsubscribe_on_legacy_revisions() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        if rev.era() == Era::Modern {
            // Replaced by `subscriptions/listen`.
            assert!(!spec.has_def(common::rev_dir(rev), "SubscribeRequest"));
            assert!(!spec.has_def(common::rev_dir(rev), "UnsubscribeRequest"));
            continue;
        }
        for meta in [None, Some(request_meta(rev))] {
            let s = SubscribeParams {
                uri: "file:///a".into(),
                meta: meta.clone(),
            };
            let v = to_value_for(&s, rev);
            check_request(
                spec,
                rev,
                "SubscribeRequest",
                SubscribeParams::METHOD,
                v.clone(),
            );
            let u = UnsubscribeParams {
                uri: "file:///a".into(),
                meta,
            };
            let w = to_value_for(&u, rev);
            check_request(
                spec,
                rev,
                "UnsubscribeRequest",
                UnsubscribeParams::METHOD,
                w.clone(),
            );
            if rev == V::V2025_11_25 {
                spec.check(rev, "SubscribeRequestParams", &v);
                spec.check(rev, "UnsubscribeRequestParams", &w);
            }
        }
        spec.check(
            rev,
            "EmptyResult",
            &to_value_for(&EmptyResult::default(), rev),
        );
    }
}

#[test]
fn resource_notifications() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let sub = obj(json!({"io.modelcontextprotocol/subscriptionId": "listen-1"}));
        for meta in [None, Some(sub)] {
            let p = ResourceUpdatedParams {
                uri: "file:///a".into(),
                meta: meta.clone(),
            };
            let v = to_value_for(&p, rev);
            assert_eq!(v["uri"], "file:///a");
            check_notification(
                spec,
                rev,
                "ResourceUpdatedNotification",
                ResourceUpdatedParams::METHOD,
                v.clone(),
            );
            if rev >= V::V2025_11_25 {
                spec.check(rev, "ResourceUpdatedNotificationParams", &v);
            }
            check_notification(
                spec,
                rev,
                "ResourceListChangedNotification",
                ResourceListChangedParams::METHOD,
                to_value_for(&ResourceListChangedParams { meta }, rev),
            );
        }
        // Legacy list_changed may omit params altogether.
        if rev < V::V2025_11_25 {
            spec.check(
                rev,
                "ResourceListChangedNotification",
                &json!({"method": ResourceListChangedParams::METHOD}),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// prompts

fn full_prompt() -> Prompt {
    Prompt {
        name: "code_review".into(),
        title: Some("Code review".into()),
        description: Some("Reviews code".into()),
        arguments: Some(vec![
            PromptArgument {
                name: "code".into(),
                title: Some("Code".into()),
                description: Some("The code".into()),
                required: Some(true),
            },
            PromptArgument {
                name: "style".into(),
                ..Default::default()
            },
        ]),
        icons: Some(icons()),
        meta: some_meta(),
    }
}

fn all_messages() -> Vec<PromptMessage> {
    vec![
        PromptMessage::user("Review this"),
        PromptMessage::assistant("Sure"),
        PromptMessage {
            role: Role::User,
            content: ContentBlock::Text(TextContent {
                text: "annotated".into(),
                annotations: Some(annotations()),
                meta: some_meta(),
            }),
        },
        PromptMessage {
            role: Role::User,
            content: ContentBlock::image("AA==", "image/png"),
        },
        PromptMessage {
            role: Role::User,
            content: ContentBlock::audio("AA==", "audio/wav"),
        },
        PromptMessage {
            role: Role::Assistant,
            content: ContentBlock::ResourceLink(full_resource()),
        },
        PromptMessage {
            role: Role::User,
            content: ContentBlock::embedded_text("file:///a.rs", "fn main() {}"),
        },
        PromptMessage {
            role: Role::User,
            content: ContentBlock::resource(
                ResourceContents::blob("file:///a.bin", b"\x00\x01")
                    .with_mime_type("application/octet-stream"),
            ),
        },
    ]
}

#[test]
fn prompt_and_argument_by_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let v = to_value_for(&full_prompt(), rev);
        spec.check(rev, "Prompt", &v);
        spec.check(rev, "Prompt", &to_value_for(&Prompt::new("p"), rev));
        assert_eq!(v.get("title").is_some(), rev >= V::V2025_06_18, "{rev}");
        assert_eq!(v.get("_meta").is_some(), rev >= V::V2025_06_18, "{rev}");
        assert_eq!(v.get("icons").is_some(), rev >= V::V2025_11_25, "{rev}");
        let a = &v["arguments"][0];
        spec.check(rev, "PromptArgument", a);
        assert_eq!(a.get("title").is_some(), rev >= V::V2025_06_18, "{rev}");
        assert_eq!(a["required"], true);
        spec.check(rev, "PromptArgument", &v["arguments"][1]);
    }
    idempotent(&full_prompt());
}

#[test]
fn prompt_messages_by_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        for m in all_messages() {
            let v = to_value_for(&m, rev);
            spec.check(rev, "PromptMessage", &v);
            let kind = v["content"]["type"].as_str().unwrap();
            match m.content.kind() {
                "audio" if rev < V::V2025_03_26 => assert_eq!(kind, "text"),
                "resource_link" if rev < V::V2025_06_18 => {
                    assert_eq!(kind, "text");
                    assert!(
                        v["content"]["text"]
                            .as_str()
                            .unwrap()
                            .contains("<file:///project/README.md>")
                    );
                }
                other => assert_eq!(kind, other),
            }
        }
    }
}

#[test]
fn list_and_get_prompts() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let modern = rev == V::V2026_07_28;
        for p in [
            ListPromptsParams {
                cursor: Some("c".into()),
                meta: Some(request_meta(rev)),
            },
            ListPromptsParams {
                cursor: None,
                meta: minimal_meta(rev),
            },
        ] {
            check_request(
                spec,
                rev,
                "ListPromptsRequest",
                ListPromptsParams::METHOD,
                to_value_for(&p, rev),
            );
        }
        let full = ListPromptsResult {
            prompts: vec![full_prompt(), Prompt::new("b")],
            next_cursor: Some("n".into()),
            meta: some_meta(),
            result_type: Some(ResultType::Complete),
            ttl_ms: Some(1),
            cache_scope: Some(CacheScope::Public),
        };
        for r in [&full, &ListPromptsResult::default()] {
            let v = to_value_for(r, rev);
            spec.check(rev, "ListPromptsResult", &v);
            assert_result_fields(&v, rev, true);
            if modern {
                spec.check(
                    rev,
                    "ListPromptsResultResponse",
                    &json!({"jsonrpc": "2.0", "id": 1, "result": v}),
                );
            }
        }

        let full = GetPromptParams {
            name: "code_review".into(),
            arguments: Some(args(&[("code", "x = 1"), ("style", "pep8")])),
            input_responses: Some(obj(json!({"k": {"action": "decline"}}))),
            request_state: Some("state".into()),
            meta: Some(request_meta(rev)),
        };
        let mut min = GetPromptParams::new("p");
        min.meta = minimal_meta(rev);
        for p in [&full, &min] {
            let v = to_value_for(p, rev);
            check_request(
                spec,
                rev,
                "GetPromptRequest",
                GetPromptParams::METHOD,
                v.clone(),
            );
            if rev >= V::V2025_11_25 {
                spec.check(rev, "GetPromptRequestParams", &v);
            }
        }
        let v = to_value_for(&full, rev);
        assert_eq!(v.get("inputResponses").is_some(), modern);
        assert_eq!(v.get("requestState").is_some(), modern);
        assert_eq!(v["arguments"]["style"], "pep8");

        let full = GetPromptResult {
            description: Some("Code review prompt".into()),
            messages: all_messages(),
            meta: some_meta(),
            result_type: Some(ResultType::Complete),
        };
        for r in [&full, &GetPromptResult::default()] {
            let v = to_value_for(r, rev);
            spec.check(rev, "GetPromptResult", &v);
            assert_result_fields(&v, rev, false);
            if modern {
                spec.check(
                    rev,
                    "GetPromptResultResponse",
                    &json!({"jsonrpc": "2.0", "id": 1, "result": v}),
                );
            }
        }
    }
    idempotent(&GetPromptResult {
        messages: all_messages(),
        ..Default::default()
    });
}

#[test]
fn prompt_list_changed_notification() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        for meta in [None, some_meta()] {
            check_notification(
                spec,
                rev,
                "PromptListChangedNotification",
                PromptListChangedParams::METHOD,
                to_value_for(&PromptListChangedParams { meta }, rev),
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// completion

#[test]
fn complete_params_by_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        let full_prompt_ref = CompleteParams {
            reference: CompletionReference::Prompt(PromptReference {
                name: "code_review".into(),
                title: Some("Code review".into()),
            }),
            argument: CompletionArgument {
                name: "framework".into(),
                value: "fla".into(),
            },
            context: Some(CompletionContext {
                arguments: Some(args(&[("language", "python")])),
            }),
            meta: Some(request_meta(rev)),
        };
        let mut resource_ref = CompleteParams::new(
            CompletionReference::resource("file:///{path}"),
            "path",
            "sr",
        );
        resource_ref.meta = minimal_meta(rev);
        let mut empty_context = resource_ref.clone();
        empty_context.context = Some(CompletionContext::default());
        for p in [&full_prompt_ref, &resource_ref, &empty_context] {
            let v = to_value_for(p, rev);
            check_request(
                spec,
                rev,
                "CompleteRequest",
                CompleteParams::METHOD,
                v.clone(),
            );
            if rev >= V::V2025_11_25 {
                spec.check(rev, "CompleteRequestParams", &v);
            }
            let ref_def = match v["ref"]["type"].as_str().unwrap() {
                "ref/prompt" => "PromptReference",
                _ if rev < V::V2025_06_18 => "ResourceReference",
                _ => "ResourceTemplateReference",
            };
            spec.check(rev, ref_def, &v["ref"]);
        }
        let v = to_value_for(&full_prompt_ref, rev);
        assert_eq!(v["ref"]["type"], "ref/prompt");
        assert_eq!(
            v["ref"].get("title").is_some(),
            rev >= V::V2025_06_18,
            "{rev}"
        );
        assert_eq!(v.get("context").is_some(), rev >= V::V2025_06_18, "{rev}");
        let v = to_value_for(&resource_ref, rev);
        assert_eq!(
            v["ref"],
            json!({"type": "ref/resource", "uri": "file:///{path}"})
        );
    }
    // The older name is the same type.
    let r: ResourceReference = ResourceTemplateReference { uri: "u".into() };
    assert_eq!(r.uri, "u");
}

#[test]
fn complete_result_by_revision_and_the_100_value_cap() {
    let Some(spec) = common::spec() else { return };
    let full = CompleteResult {
        completion: Completion {
            values: vec!["python".into(), "pytorch".into()],
            total: Some(10),
            has_more: Some(true),
        },
        meta: some_meta(),
        result_type: Some(ResultType::Complete),
    };
    let many = CompleteResult::from_values((0..250).map(|i| format!("v{i}")));
    assert_eq!(many.completion.values.len(), 100);
    assert_eq!(many.completion.values[99], "v99");
    assert_eq!(many.completion.total, Some(250));
    assert_eq!(many.completion.has_more, Some(true));
    let few = CompleteResult::from_values(["a", "b"]);
    assert_eq!(
        few.completion,
        Completion {
            values: vec!["a".into(), "b".into()],
            total: Some(2),
            has_more: Some(false)
        }
    );
    // A hand-built oversized list is cut when shaped.
    let raw = CompleteResult {
        completion: Completion {
            values: (0..101).map(|i| i.to_string()).collect(),
            total: None,
            has_more: None,
        },
        ..Default::default()
    };
    for rev in common::revisions() {
        for r in [&full, &many, &few, &raw, &CompleteResult::default()] {
            let v = to_value_for(r, rev);
            spec.check(rev, "CompleteResult", &v);
            assert_result_fields(&v, rev, false);
            if rev == V::V2026_07_28 {
                spec.check(
                    rev,
                    "CompleteResultResponse",
                    &json!({"jsonrpc": "2.0", "id": 1, "result": v}),
                );
            }
        }
        let v = to_value_for(&raw, rev);
        assert_eq!(v["completion"]["values"].as_array().unwrap().len(), 100);
        assert_eq!(v["completion"]["hasMore"], true);
        assert_eq!(v["completion"]["total"], 101);
    }
    idempotent(&raw);
}

// ---------------------------------------------------------------------------------------
// 2026-07-28 examples

#[test]
fn examples_2026_round_trip() {
    let Some(spec) = common::spec() else { return };
    roundtrip::<Resource>(spec, "Resource");
    roundtrip_request::<ListResourcesParams>(spec, "ListResourcesRequest");
    roundtrip::<ListResourcesResult>(spec, "ListResourcesResult");
    roundtrip_response::<ListResourcesResult>(spec, "ListResourcesResultResponse");
    roundtrip_request::<ListResourceTemplatesParams>(spec, "ListResourceTemplatesRequest");
    roundtrip::<ListResourceTemplatesResult>(spec, "ListResourceTemplatesResult");
    roundtrip_response::<ListResourceTemplatesResult>(spec, "ListResourceTemplatesResultResponse");
    roundtrip_request::<ReadResourceParams>(spec, "ReadResourceRequest");
    roundtrip::<ReadResourceResult>(spec, "ReadResourceResult");
    roundtrip_response::<ReadResourceResult>(spec, "ReadResourceResultResponse");
    roundtrip_notification::<ResourceUpdatedParams>(spec, "ResourceUpdatedNotification");
    roundtrip::<ResourceUpdatedParams>(spec, "ResourceUpdatedNotificationParams");
    roundtrip_notification::<ResourceListChangedParams>(spec, "ResourceListChangedNotification");
    roundtrip_request::<ListPromptsParams>(spec, "ListPromptsRequest");
    roundtrip::<ListPromptsResult>(spec, "ListPromptsResult");
    roundtrip_response::<ListPromptsResult>(spec, "ListPromptsResultResponse");
    roundtrip_request::<GetPromptParams>(spec, "GetPromptRequest");
    roundtrip::<GetPromptParams>(spec, "GetPromptRequestParams");
    roundtrip::<GetPromptResult>(spec, "GetPromptResult");
    roundtrip_response::<GetPromptResult>(spec, "GetPromptResultResponse");
    roundtrip_notification::<PromptListChangedParams>(spec, "PromptListChangedNotification");
    roundtrip_request::<CompleteParams>(spec, "CompleteRequest");
    roundtrip::<CompleteParams>(spec, "CompleteRequestParams");
    roundtrip::<CompleteResult>(spec, "CompleteResult");
    roundtrip_response::<CompleteResult>(spec, "CompleteResultResponse");
}

#[test]
fn read_result_example_without_cache_hints_gets_them_on_2026() {
    let Some(spec) = common::spec() else { return };
    for (path, json) in examples(spec, "ReadResourceResultResponse") {
        let r: TypedResponse<ReadResourceResult> = serde_json::from_value(json).unwrap();
        let v = to_value_for(&r.result, V::V2026_07_28);
        assert!(
            v.get("ttlMs").is_some() && v.get("cacheScope").is_some(),
            "{path}"
        );
        if r.result.ttl_ms.is_none() {
            assert_eq!(
                (v["ttlMs"].clone(), v["cacheScope"].clone()),
                (json!(0), json!("private"))
            );
        }
        for rev in [V::V2024_11_05, V::V2025_11_25] {
            let v = to_value_for(&r.result, rev);
            spec.check(rev, "ReadResourceResult", &v);
            assert_result_fields(&v, rev, true);
        }
    }
}
