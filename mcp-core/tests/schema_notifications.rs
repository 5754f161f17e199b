//! Schema tests for logging, progress, cancellation, the parameterless notifications,
//! `notifications/elicitation/complete`, `subscriptions/listen`, and the method-name tables.

mod common;

use mcp_core::jsonrpc::{RequestId, TypedNotification, TypedRequest, TypedResponse, V2};
use mcp_core::types::*;
use mcp_core::version::ProtocolVersion as V;
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

/// A notification as `rev` spells it (before 2025-11-25 the `XxxNotification` definitions
/// name only `method` and `params`).
fn notification(rev: V, method: &str, params: Option<Value>) -> Value {
    let mut n = if rev < V::V2025_11_25 {
        json!({"method": method})
    } else {
        json!({"jsonrpc": "2.0", "method": method})
    };
    if let Some(p) = params {
        n["params"] = p;
    }
    n
}

fn request(rev: V, method: &str, params: Value) -> Value {
    if rev < V::V2025_11_25 {
        json!({"method": method, "params": params})
    } else {
        json!({"jsonrpc": "2.0", "id": "r", "method": method, "params": params})
    }
}

fn modern_request_meta() -> Meta {
    obj(json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}
    }))
}

#[track_caller]
fn assert_idempotent<T: Adapt + Clone + serde::Serialize>(value: &T, rev: V) {
    let once = to_value_for(value, rev);
    let mut twice = value.clone();
    twice.adapt(rev);
    twice.adapt(rev);
    assert_eq!(serde_json::to_value(&twice).unwrap(), once, "{rev}");
}

/// Checks a params value for `rev` against the notification definition and, where the
/// revision names one, the params definition.
#[track_caller]
fn check_notification_params(
    spec: &common::Spec,
    rev: V,
    notification_def: &str,
    params_def: Option<&str>,
    method: &str,
    params: &Value,
) {
    spec.check(
        rev,
        notification_def,
        &notification(rev, method, Some(params.clone())),
    );
    if let Some(def) = params_def
        && spec.has_def(rev.as_str(), def)
    {
        spec.check(rev, def, params);
    }
}

// ---------------------------------------------------------------------------------------
// Logging
// ---------------------------------------------------------------------------------------

#[test]
fn logging_level_every_revision() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        for level in LoggingLevel::ALL {
            spec.check(rev, "LoggingLevel", &serde_json::to_value(level).unwrap());
        }
        assert!(
            spec.check_in(rev.as_str(), "LoggingLevel", &json!("trace"))
                .is_err()
        );
    }
    let names: Vec<_> = LoggingLevel::ALL.iter().map(|l| l.as_str()).collect();
    assert_eq!(
        names,
        [
            "debug",
            "info",
            "notice",
            "warning",
            "error",
            "critical",
            "alert",
            "emergency"
        ]
    );
    // Ordered by severity.
    assert!(LoggingLevel::ALL.windows(2).all(|w| w[0] < w[1]));
    assert!(LoggingLevel::Error.passes(LoggingLevel::Warning));
    assert!(!LoggingLevel::Info.passes(LoggingLevel::Notice));
    for level in LoggingLevel::ALL {
        let s = serde_json::to_string(&level).unwrap();
        assert_eq!(s, format!("\"{}\"", level.as_str()));
        assert_eq!(serde_json::from_str::<LoggingLevel>(&s).unwrap(), level);
        assert_eq!(level.as_str().parse::<LoggingLevel>().unwrap(), level);
        assert_eq!(level.to_string(), level.as_str());
    }
    assert!(serde_json::from_str::<LoggingLevel>("\"Warning\"").is_err());
    assert!(serde_json::from_str::<LoggingLevel>("\"trace\"").is_err());
    assert!("fatal".parse::<LoggingLevel>().is_err());
}

#[test]
fn set_level_params_every_legacy_revision() {
    let Some(spec) = common::spec() else { return };
    let min = SetLevelParams::new(LoggingLevel::Warning);
    let full = SetLevelParams {
        level: LoggingLevel::Debug,
        meta: Some(obj(json!({"progressToken": 1}))),
    };
    for rev in LEGACY {
        for p in [&min, &full] {
            let v = to_value_for(p, rev);
            spec.check(
                rev,
                "SetLevelRequest",
                &request(rev, SetLevelParams::METHOD, v.clone()),
            );
            if spec.has_def(rev.as_str(), "SetLevelRequestParams") {
                spec.check(rev, "SetLevelRequestParams", &v);
            }
        }
        assert_idempotent(&full, rev);
    }
    for rev in [V::V2024_11_05, V::V2025_03_26, V::V2025_06_18] {
        assert_eq!(to_value_for(&full, rev), json!({"level": "debug"}), "{rev}");
    }
    assert_eq!(
        to_value_for(&full, V::V2025_11_25)["_meta"]["progressToken"],
        1
    );
    assert!(!spec.has_def("2026-07-28", "SetLevelRequest"));
}

#[test]
fn logging_message_params_every_revision() {
    let Some(spec) = common::spec() else { return };
    let min = LoggingMessageParams::new(LoggingLevel::Info, "started");
    let full = LoggingMessageParams {
        level: LoggingLevel::Emergency,
        logger: Some("db".into()),
        data: json!({"error": "down", "retries": [1, 2]}),
        meta: Some(obj(json!({"io.modelcontextprotocol/subscriptionId": 4}))),
    };
    let null_data = LoggingMessageParams::new(LoggingLevel::Debug, Value::Null);
    for rev in common::revisions() {
        for p in [&min, &full, &null_data] {
            check_notification_params(
                spec,
                rev,
                "LoggingMessageNotification",
                Some("LoggingMessageNotificationParams"),
                LoggingMessageParams::METHOD,
                &to_value_for(p, rev),
            );
        }
        assert_idempotent(&full, rev);
    }
    assert_eq!(
        to_value_for(&null_data, V::V2024_11_05),
        json!({"level": "debug", "data": null})
    );
    for rev in [V::V2024_11_05, V::V2025_03_26, V::V2025_06_18] {
        assert!(to_value_for(&full, rev).get("_meta").is_none(), "{rev}");
        assert_eq!(to_value_for(&full, rev)["logger"], "db");
    }
    for rev in [V::V2025_11_25, V::V2026_07_28] {
        assert!(to_value_for(&full, rev).get("_meta").is_some(), "{rev}");
    }
    // `data` is required.
    assert!(serde_json::from_value::<LoggingMessageParams>(json!({"level": "info"})).is_err());
}

// ---------------------------------------------------------------------------------------
// Progress
// ---------------------------------------------------------------------------------------

#[test]
fn progress_params_every_revision() {
    let Some(spec) = common::spec() else { return };
    let min = ProgressParams::new("tok", 1.0);
    let full = ProgressParams {
        progress_token: RequestId::Number(7),
        progress: 2.5,
        total: Some(10.0),
        message: Some("working".into()),
        meta: Some(obj(json!({"vendor/x": 1}))),
    };
    for rev in common::revisions() {
        for p in [&min, &full] {
            check_notification_params(
                spec,
                rev,
                "ProgressNotification",
                Some("ProgressNotificationParams"),
                ProgressParams::METHOD,
                &to_value_for(p, rev),
            );
        }
        assert_idempotent(&full, rev);
    }
    assert_eq!(
        to_value_for(&full, V::V2024_11_05),
        json!({"progressToken": 7, "progress": 2.5, "total": 10})
    );
    let v = to_value_for(&full, V::V2025_03_26);
    assert_eq!(v["message"], "working");
    assert!(v.get("_meta").is_none());
    assert!(to_value_for(&full, V::V2025_06_18).get("_meta").is_none());
    assert_eq!(to_value_for(&full, V::V2025_11_25)["_meta"]["vendor/x"], 1);
    // Integral values stay integers on the wire; fractions stay fractions.
    assert_eq!(
        serde_json::to_string(&min).unwrap(),
        r#"{"progressToken":"tok","progress":1}"#
    );
    let big = ProgressParams::new(1, 1e300);
    assert_eq!(
        serde_json::to_value(&big).unwrap()["progress"],
        json!(1e300)
    );
    let parsed: ProgressParams =
        serde_json::from_value(json!({"progressToken": "a", "progress": 3, "total": 4.5})).unwrap();
    assert_eq!(parsed.progress, 3.0);
    assert_eq!(parsed.total, Some(4.5));
    assert_eq!(parsed.progress_token, RequestId::from("a"));
}

// ---------------------------------------------------------------------------------------
// Cancellation
// ---------------------------------------------------------------------------------------

#[test]
fn cancelled_params_every_revision() {
    let Some(spec) = common::spec() else { return };
    let min = CancelledParams::new(42);
    let full = CancelledParams {
        request_id: Some("abc".into()),
        reason: Some("user pressed stop".into()),
        meta: Some(obj(json!({"vendor/x": true}))),
    };
    for rev in common::revisions() {
        for p in [&min, &full] {
            check_notification_params(
                spec,
                rev,
                "CancelledNotification",
                Some("CancelledNotificationParams"),
                CancelledParams::METHOD,
                &to_value_for(p, rev),
            );
        }
        assert_idempotent(&full, rev);
    }
    assert_eq!(to_value_for(&min, V::V2024_11_05), json!({"requestId": 42}));
    assert_eq!(
        to_value_for(&full, V::V2025_06_18),
        json!({"requestId": "abc", "reason": "user pressed stop"})
    );
    assert!(to_value_for(&full, V::V2026_07_28).get("_meta").is_some());
    // `requestId` may be omitted on 2025-11-25 only.
    let no_id = CancelledParams::default().with_reason("task");
    let v = to_value_for(&no_id, V::V2025_11_25);
    assert_eq!(v, json!({"reason": "task"}));
    spec.check(V::V2025_11_25, "CancelledNotificationParams", &v);
    spec.check(
        V::V2025_11_25,
        "CancelledNotification",
        &notification(V::V2025_11_25, CancelledParams::METHOD, Some(v.clone())),
    );
    assert!(
        spec.check_in("2026-07-28", "CancelledNotificationParams", &v)
            .is_err()
    );
    for rev in [V::V2024_11_05, V::V2025_03_26, V::V2025_06_18] {
        let n = notification(rev, CancelledParams::METHOD, Some(v.clone()));
        assert!(
            spec.check_in(rev.as_str(), "CancelledNotification", &n)
                .is_err(),
            "{rev}"
        );
    }
    let parsed: CancelledParams = serde_json::from_value(json!({"reason": "x"})).unwrap();
    assert_eq!(parsed.request_id, None);
}

// ---------------------------------------------------------------------------------------
// Parameterless notifications
// ---------------------------------------------------------------------------------------

#[test]
fn initialized_and_roots_list_changed_every_legacy_revision() {
    let Some(spec) = common::spec() else { return };
    let meta = Some(obj(json!({"vendor/x": 1})));
    for rev in LEGACY {
        let min = InitializedParams::default();
        let full = InitializedParams { meta: meta.clone() };
        for p in [&min, &full] {
            let v = to_value_for(p, rev);
            spec.check(
                rev,
                "InitializedNotification",
                &notification(rev, InitializedParams::METHOD, Some(v.clone())),
            );
            if rev >= V::V2025_11_25 {
                spec.check(rev, "NotificationParams", &v);
            }
        }
        spec.check(
            rev,
            "InitializedNotification",
            &notification(rev, InitializedParams::METHOD, None),
        );
        assert_idempotent(&full, rev);

        let min = RootsListChangedParams::default();
        let full = RootsListChangedParams { meta: meta.clone() };
        for p in [&min, &full] {
            let v = to_value_for(p, rev);
            spec.check(
                rev,
                "RootsListChangedNotification",
                &notification(rev, RootsListChangedParams::METHOD, Some(v)),
            );
        }
        spec.check(
            rev,
            "RootsListChangedNotification",
            &notification(rev, RootsListChangedParams::METHOD, None),
        );
        assert_eq!(to_value_for(&full, rev), json!({"_meta": {"vendor/x": 1}}));
    }
    assert!(!spec.has_def("2026-07-28", "InitializedNotification"));
    assert!(!spec.has_def("2026-07-28", "RootsListChangedNotification"));
}

#[test]
fn list_changed_every_revision() {
    let Some(spec) = common::spec() else { return };
    let min = ListChangedParams::default();
    let full = ListChangedParams {
        meta: Some(obj(
            json!({"io.modelcontextprotocol/subscriptionId": "listen-1"}),
        )),
    };
    let kinds = [
        (
            "ToolListChangedNotification",
            ListChangedParams::TOOLS_METHOD,
        ),
        (
            "PromptListChangedNotification",
            ListChangedParams::PROMPTS_METHOD,
        ),
        (
            "ResourceListChangedNotification",
            ListChangedParams::RESOURCES_METHOD,
        ),
    ];
    for rev in common::revisions() {
        for (def, method) in kinds {
            for p in [&min, &full] {
                let v = to_value_for(p, rev);
                spec.check(rev, def, &notification(rev, method, Some(v)));
            }
            spec.check(rev, def, &notification(rev, method, None));
        }
        assert_idempotent(&full, rev);
    }
    assert_eq!(to_value_for(&min, V::V2026_07_28), json!({}));
}

#[test]
fn elicitation_complete_2025_11_25_only() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2025_11_25;
    let p = ElicitationCompleteParams {
        elicitation_id: "e-1".into(),
    };
    let v = to_value_for(&p, rev);
    assert_eq!(v, json!({"elicitationId": "e-1"}));
    spec.check(
        rev,
        "ElicitationCompleteNotification",
        &notification(rev, ElicitationCompleteParams::METHOD, Some(v)),
    );
    for other in [
        V::V2024_11_05,
        V::V2025_03_26,
        V::V2025_06_18,
        V::V2026_07_28,
    ] {
        assert!(
            !spec.has_def(other.as_str(), "ElicitationCompleteNotification"),
            "{other}"
        );
    }
    assert!(serde_json::from_value::<ElicitationCompleteParams>(json!({})).is_err());
}

// ---------------------------------------------------------------------------------------
// subscriptions/listen (2026)
// ---------------------------------------------------------------------------------------

fn full_filter() -> SubscriptionFilter {
    SubscriptionFilter {
        tools_list_changed: Some(true),
        prompts_list_changed: Some(true),
        resources_list_changed: Some(false),
        resource_subscriptions: Some(vec!["file:///a.txt".into(), "file:///b.txt".into()]),
        ..Default::default()
    }
}

#[test]
fn subscription_filter_2026_and_tasks_extension() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let min = SubscriptionFilter::default();
    assert!(min.is_empty());
    assert_eq!(to_value_for(&min, rev), json!({}));
    spec.check(rev, "SubscriptionFilter", &to_value_for(&min, rev));
    let full = full_filter();
    assert!(!full.is_empty());
    spec.check(rev, "SubscriptionFilter", &to_value_for(&full, rev));
    assert_idempotent(&full, rev);

    // Extension fields: `taskIds` is the tasks extension's part, others are kept as they came.
    let with_tasks: SubscriptionFilter = serde_json::from_value(json!({
        "toolsListChanged": true, "taskIds": ["t1"], "vendor/widgets": ["w"]
    }))
    .unwrap();
    assert_eq!(with_tasks.task_ids, Some(vec!["t1".to_owned()]));
    assert_eq!(with_tasks.other.get("vendor/widgets"), Some(&json!(["w"])));
    let v = to_value_for(&with_tasks, rev);
    assert_eq!(
        v,
        json!({"toolsListChanged": true, "taskIds": ["t1"], "vendor/widgets": ["w"]})
    );
    let tasks_part = SubscriptionFilter {
        task_ids: Some(vec!["t1".into(), "t2".into()]),
        ..Default::default()
    };
    let tv = to_value_for(&tasks_part, rev);
    spec.check_ext("ext-tasks/draft", "TaskSubscriptionNotifications", &tv);
    spec.check_ext(
        "ext-tasks/draft",
        "TaskSubscriptionAcknowledgedNotifications",
        &tv,
    );
    // The core definition alone does not know `taskIds`.
    assert!(
        spec.check_in("2026-07-28", "SubscriptionFilter", &tv)
            .is_err()
    );
    for old in LEGACY {
        assert!(!spec.has_def(old.as_str(), "SubscriptionFilter"));
    }
}

#[test]
fn subscriptions_listen_params_2026() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let min = SubscriptionsListenParams {
        meta: Some(modern_request_meta()),
        notifications: SubscriptionFilter::default(),
    };
    let mut meta = modern_request_meta();
    meta.insert(
        "io.modelcontextprotocol/clientInfo".into(),
        json!({"name": "c", "version": "1"}),
    );
    meta.insert("io.modelcontextprotocol/logLevel".into(), json!("info"));
    let full = SubscriptionsListenParams {
        meta: Some(meta),
        notifications: full_filter(),
    };
    for p in [&min, &full] {
        let v = to_value_for(p, rev);
        spec.check(rev, "SubscriptionsListenRequestParams", &v);
        spec.check(
            rev,
            "SubscriptionsListenRequest",
            &request(rev, SubscriptionsListenParams::METHOD, v),
        );
    }
    assert_idempotent(&full, rev);
    assert!(serde_json::from_value::<SubscriptionsListenParams>(json!({"_meta": {}})).is_err());
    for old in LEGACY {
        assert!(!spec.has_def(old.as_str(), "SubscriptionsListenRequest"));
    }
}

#[test]
fn subscriptions_acknowledged_params_2026() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let min = SubscriptionsAcknowledgedParams {
        meta: None,
        notifications: SubscriptionFilter::default(),
    };
    let id = RequestId::from("listen-1");
    let mut full = SubscriptionsAcknowledgedParams::new(&id, full_filter());
    full.meta.as_mut().unwrap().insert(
        "traceparent".into(),
        json!("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"),
    );
    for p in [&min, &full] {
        let v = to_value_for(p, rev);
        spec.check(rev, "SubscriptionsAcknowledgedNotificationParams", &v);
        spec.check(
            rev,
            "SubscriptionsAcknowledgedNotification",
            &notification(rev, SubscriptionsAcknowledgedParams::METHOD, Some(v)),
        );
    }
    assert_idempotent(&full, rev);
    assert_eq!(full.subscription_id(), Some(id));
    assert_eq!(min.subscription_id(), None);
    // The id keeps its JSON type.
    let numeric =
        SubscriptionsAcknowledgedParams::new(&RequestId::Number(9), SubscriptionFilter::default());
    assert_eq!(
        to_value_for(&numeric, rev),
        json!({"_meta": {"io.modelcontextprotocol/subscriptionId": 9}, "notifications": {}})
    );
    assert_eq!(numeric.subscription_id(), Some(RequestId::Number(9)));
    for old in LEGACY {
        assert!(!spec.has_def(old.as_str(), "SubscriptionsAcknowledgedNotification"));
    }
}

#[test]
fn subscriptions_listen_result_2026() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let id = RequestId::from("listen-1");
    let min = SubscriptionsListenResult::new(&id);
    let mut full = SubscriptionsListenResult::new(&id);
    full.result_type = Some(ResultType::Complete);
    full.meta.as_mut().unwrap().insert(
        "io.modelcontextprotocol/serverInfo".into(),
        json!({"name": "s", "version": "1", "title": "S"}),
    );
    for r in [&min, &full] {
        let v = to_value_for(r, rev);
        spec.check(rev, "SubscriptionsListenResult", &v);
        let resp = TypedResponse {
            jsonrpc: V2,
            id: id.clone(),
            result: v,
        };
        spec.check(
            rev,
            "SubscriptionsListenResultResponse",
            &serde_json::to_value(&resp).unwrap(),
        );
    }
    assert_idempotent(&full, rev);
    assert_eq!(
        to_value_for(&min, rev),
        json!({"resultType": "complete", "_meta": {"io.modelcontextprotocol/subscriptionId": "listen-1"}})
    );
    assert_eq!(min.subscription_id(), Some(id));
    assert_eq!(
        SubscriptionsListenResult::SUBSCRIPTION_ID_KEY,
        "io.modelcontextprotocol/subscriptionId"
    );
    // Without the subscription id it is not a valid result.
    let bare = to_value_for(&SubscriptionsListenResult::default(), rev);
    assert!(
        spec.check_in("2026-07-28", "SubscriptionsListenResult", &bare)
            .is_err()
    );
    // Legacy revisions get no resultType.
    assert!(
        to_value_for(&min, V::V2025_11_25)
            .get("resultType")
            .is_none()
    );
}

// ---------------------------------------------------------------------------------------
// Method names
// ---------------------------------------------------------------------------------------

fn union_methods(spec: &common::Spec, rev: V, union: &str) -> Vec<String> {
    let doc = spec.document(rev.as_str());
    let defs = doc.get("$defs").or_else(|| doc.get("definitions")).unwrap();
    let Some(u) = defs.get(union) else {
        return Vec::new();
    };
    let method_of = |d: &Value| {
        d["properties"]["method"]["const"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    match u.get("anyOf").and_then(Value::as_array) {
        Some(parts) => parts
            .iter()
            .map(|p| {
                let name = p["$ref"].as_str().unwrap().rsplit('/').next().unwrap();
                method_of(&defs[name])
            })
            .collect(),
        None => vec![method_of(u)],
    }
}

#[test]
fn method_tables_match_every_schema() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        for (union, ours) in [
            ("ClientRequest", methods::client_requests(rev)),
            ("ServerRequest", methods::server_requests(rev)),
            ("ClientNotification", methods::client_notifications(rev)),
            ("ServerNotification", methods::server_notifications(rev)),
        ] {
            let mut want = union_methods(spec, rev, union);
            let mut got: Vec<String> = ours.iter().map(|s| s.to_string()).collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{union} of {rev}");
        }
    }
    assert!(methods::is_request_in(methods::PING, V::V2024_11_05));
    assert!(!methods::is_request_in(methods::PING, V::V2026_07_28));
    assert!(methods::is_notification_in(
        methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
        V::V2026_07_28
    ));
    assert!(!methods::is_notification_in(
        methods::NOTIFICATION_ELICITATION_COMPLETE,
        V::V2026_07_28
    ));
    // Associated constants agree with the table.
    assert_eq!(InitializeParams::METHOD, methods::INITIALIZE);
    assert_eq!(PingParams::METHOD, methods::PING);
    assert_eq!(DiscoverParams::METHOD, methods::SERVER_DISCOVER);
    assert_eq!(SetLevelParams::METHOD, methods::LOGGING_SET_LEVEL);
    assert_eq!(
        SubscriptionsListenParams::METHOD,
        methods::SUBSCRIPTIONS_LISTEN
    );
    assert_eq!(LoggingMessageParams::METHOD, methods::NOTIFICATION_MESSAGE);
    assert_eq!(ProgressParams::METHOD, methods::NOTIFICATION_PROGRESS);
    assert_eq!(CancelledParams::METHOD, methods::NOTIFICATION_CANCELLED);
    assert_eq!(InitializedParams::METHOD, methods::NOTIFICATION_INITIALIZED);
    assert_eq!(
        RootsListChangedParams::METHOD,
        methods::NOTIFICATION_ROOTS_LIST_CHANGED
    );
    assert_eq!(
        ListChangedParams::TOOLS_METHOD,
        methods::NOTIFICATION_TOOLS_LIST_CHANGED
    );
    assert_eq!(
        ListChangedParams::PROMPTS_METHOD,
        methods::NOTIFICATION_PROMPTS_LIST_CHANGED
    );
    assert_eq!(
        ListChangedParams::RESOURCES_METHOD,
        methods::NOTIFICATION_RESOURCES_LIST_CHANGED
    );
    assert_eq!(
        ElicitationCompleteParams::METHOD,
        methods::NOTIFICATION_ELICITATION_COMPLETE
    );
    assert_eq!(
        SubscriptionsAcknowledgedParams::METHOD,
        methods::NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED
    );
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

fn round_trip<T>(spec: &common::Spec, folder: &str, adapt: impl Fn(&mut T))
where
    T: serde::de::DeserializeOwned + serde::Serialize,
{
    for (path, json) in examples(spec, folder) {
        let mut value: T =
            serde_json::from_value(json.clone()).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert_eq!(serde_json::to_value(&value).unwrap(), json, "{path}");
        adapt(&mut value);
        spec.check(
            V::V2026_07_28,
            folder,
            &serde_json::to_value(&value).unwrap(),
        );
    }
}

#[test]
fn examples_2026_notifications_and_subscriptions() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    round_trip::<TypedNotification<CancelledParams>>(spec, "CancelledNotification", |n| {
        n.params.adapt(rev)
    });
    round_trip::<CancelledParams>(spec, "CancelledNotificationParams", |p| p.adapt(rev));
    // `TypedNotification<P>` derives `Deserialize` with a `P: Default` bound (serde adds it
    // for the `#[serde(default)]` params); params without a `Default` go through `Option<P>`,
    // which serializes identically.
    round_trip::<TypedNotification<Option<LoggingMessageParams>>>(
        spec,
        "LoggingMessageNotification",
        |n| n.params.adapt(rev),
    );
    round_trip::<LoggingMessageParams>(spec, "LoggingMessageNotificationParams", |p| p.adapt(rev));
    round_trip::<TypedNotification<Option<ProgressParams>>>(spec, "ProgressNotification", |n| {
        n.params.adapt(rev)
    });
    round_trip::<ProgressParams>(spec, "ProgressNotificationParams", |p| p.adapt(rev));
    round_trip::<TypedNotification<SubscriptionsAcknowledgedParams>>(
        spec,
        "SubscriptionsAcknowledgedNotification",
        |n| n.params.adapt(rev),
    );
    round_trip::<TypedRequest<SubscriptionsListenParams>>(
        spec,
        "SubscriptionsListenRequest",
        |r| r.params.adapt(rev),
    );
    round_trip::<SubscriptionsListenResult>(spec, "SubscriptionsListenResult", |r| r.adapt(rev));
    round_trip::<TypedResponse<SubscriptionsListenResult>>(
        spec,
        "SubscriptionsListenResultResponse",
        |r| r.result.adapt(rev),
    );

    // What the examples mean.
    let (_, v) = &examples(spec, "LoggingMessageNotification")[0];
    let n: TypedNotification<Option<LoggingMessageParams>> =
        serde_json::from_value(v.clone()).unwrap();
    assert_eq!(n.method, LoggingMessageParams::METHOD);
    let p = n.params.flatten().unwrap();
    assert_eq!(p.level, LoggingLevel::Error);
    assert_eq!(p.data["details"]["port"], 5432);
    let (_, v) = &examples(spec, "ProgressNotificationParams")[0];
    let p: ProgressParams = serde_json::from_value(v.clone()).unwrap();
    assert_eq!((p.progress, p.total), (50.0, Some(100.0)));
    let (_, v) = &examples(spec, "SubscriptionsAcknowledgedNotification")[0];
    let n: TypedNotification<SubscriptionsAcknowledgedParams> =
        serde_json::from_value(v.clone()).unwrap();
    let p = n.params.unwrap();
    assert_eq!(p.subscription_id(), Some(RequestId::from("listen-1")));
    assert_eq!(p.notifications.tools_list_changed, Some(true));
    let (_, v) = &examples(spec, "SubscriptionsListenResult")[0];
    let r: SubscriptionsListenResult = serde_json::from_value(v.clone()).unwrap();
    assert_eq!(r.subscription_id(), Some(RequestId::from("listen-1")));
    assert_eq!(r.result_type, Some(ResultType::Complete));
}
