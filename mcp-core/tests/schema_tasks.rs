//! Tasks: the 2025-11-25 experimental core tasks and the 2026 tasks extension
//! (`io.modelcontextprotocol/tasks`, validated against `ext-tasks/draft`).

mod common;

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::*;
use mcp_core::version::ProtocolVersion as V;
use serde_json::{Value, json};

const EXT: &str = "ext-tasks/draft";

// ---------- helpers ----------

fn request(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
}

fn notification(method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": method, "params": params})
}

fn without(mut v: Value, keys: &[&str]) -> Value {
    if let Value::Object(m) = &mut v {
        for k in keys {
            m.remove(*k);
        }
    }
    v
}

fn shaped<T: Adapt + Clone>(x: &T, rev: V) -> T {
    let mut y = x.clone();
    y.adapt(rev);
    y
}

fn meta(v: Value) -> Meta {
    v.as_object().cloned().expect("object")
}

fn full_core_task() -> Task {
    Task {
        task_id: "task-123".into(),
        status: TaskStatus::InputRequired,
        status_message: Some("Waiting for the user".into()),
        created_at: "2025-11-25T10:30:00Z".into(),
        last_updated_at: "2025-11-25T10:31:00Z".into(),
        ttl: Some(60_000),
        poll_interval: Some(5_000),
    }
}

fn full_ext_task() -> ExtTask {
    ExtTask {
        task_id: "task-456".into(),
        status: TaskStatus::Working,
        status_message: Some("Crunching".into()),
        created_at: "2026-08-01T12:00:00Z".into(),
        last_updated_at: "2026-08-01T12:00:30Z".into(),
        ttl_ms: Some(3_600_000),
        poll_interval_ms: Some(2_000),
    }
}

fn request_meta_2026() -> Meta {
    meta(json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {
            "extensions": {"io.modelcontextprotocol/tasks": {}}
        },
        "progressToken": "p1"
    }))
}

fn example(folder: &str) -> Option<Meta> {
    let spec = common::spec()?;
    let dir = spec.dir().join("2026-07-28/examples").join(folder);
    let entry = std::fs::read_dir(&dir).ok()?.next()?.ok()?;
    let text = std::fs::read_to_string(entry.path()).ok()?;
    serde_json::from_str::<Value>(&text)
        .ok()?
        .as_object()
        .cloned()
}

fn input_requests() -> InputRequests {
    let raw = example("InputRequests").expect("InputRequests example");
    serde_json::from_value(Value::Object(raw)).expect("typed InputRequests")
}

fn input_responses() -> InputResponses {
    let raw = example("InputResponses").expect("InputResponses example");
    serde_json::from_value(Value::Object(raw)).expect("typed InputResponses")
}

fn call_tool_result() -> CallToolResult {
    serde_json::from_value(json!({
        "content": [{"type": "text", "text": "42"}],
        "isError": false,
        "_meta": {"k": "v"}
    }))
    .expect("typed CallToolResult")
}

// ---------- 2025-11-25 core ----------

#[test]
fn task_status_wire_values_terminality_and_transitions() {
    let Some(spec) = common::spec() else { return };
    let wire: Vec<Value> = TaskStatus::ALL
        .iter()
        .map(|s| serde_json::to_value(s).unwrap())
        .collect();
    assert_eq!(
        wire,
        vec![
            json!("working"),
            json!("input_required"),
            json!("completed"),
            json!("failed"),
            json!("cancelled")
        ]
    );
    for (s, w) in TaskStatus::ALL.iter().zip(&wire) {
        assert_eq!(w, s.as_str());
        assert_eq!(s.to_string(), s.as_str());
        assert_eq!(serde_json::from_value::<TaskStatus>(w.clone()).unwrap(), *s);
        spec.check(V::V2025_11_25, "TaskStatus", w);
        spec.check_ext(EXT, "TaskStatus", w);
    }
    assert!(serde_json::from_value::<TaskStatus>(json!("running")).is_err());

    let terminal: Vec<TaskStatus> = TaskStatus::ALL
        .into_iter()
        .filter(|s| s.is_terminal())
        .collect();
    assert_eq!(
        terminal,
        vec![
            TaskStatus::Completed,
            TaskStatus::Failed,
            TaskStatus::Cancelled
        ]
    );
    for from in TaskStatus::ALL {
        for to in TaskStatus::ALL {
            assert_eq!(
                from.can_transition_to(to),
                !from.is_terminal(),
                "{from} -> {to}"
            );
        }
    }
    assert!(TaskStatus::InputRequired.can_transition_to(TaskStatus::Working));
    assert!(!TaskStatus::Cancelled.can_transition_to(TaskStatus::Working));
}

#[test]
fn task_lifecycle_helpers_update_status_and_time() {
    let mut t = Task::new("t1", "2025-11-25T00:00:00Z");
    assert_eq!(t.status, TaskStatus::Working);
    assert_eq!(t.last_updated_at, t.created_at);
    assert_eq!(t.ttl, None);
    t.transition_to(TaskStatus::InputRequired, "2025-11-25T00:00:01Z")
        .unwrap();
    t.transition_to(TaskStatus::Working, "2025-11-25T00:00:02Z")
        .unwrap();
    t.transition_to(TaskStatus::Failed, "2025-11-25T00:00:03Z")
        .unwrap();
    assert!(t.is_terminal());
    assert_eq!(t.last_updated_at, "2025-11-25T00:00:03Z");
    let err = t
        .transition_to(TaskStatus::Completed, "2025-11-25T00:00:04Z")
        .unwrap_err();
    assert_eq!(
        err,
        TaskTransitionError {
            from: TaskStatus::Failed,
            to: TaskStatus::Completed
        }
    );
    assert!(err.to_string().contains("failed"));
    // A refused transition changes nothing.
    assert_eq!(t.status, TaskStatus::Failed);
    assert_eq!(t.last_updated_at, "2025-11-25T00:00:03Z");

    let mut e = ExtTask::new("t2", "2026-08-01T00:00:00Z");
    e.transition_to(TaskStatus::Cancelled, "2026-08-01T00:00:01Z")
        .unwrap();
    assert!(e.is_terminal());
    assert!(
        e.transition_to(TaskStatus::Working, "2026-08-01T00:00:02Z")
            .is_err()
    );
}

#[test]
fn core_task_minimal_and_full_validate_and_ttl_null_is_kept() {
    let Some(spec) = common::spec() else { return };
    for rev in common::revisions() {
        assert_eq!(
            spec.has_def(common::rev_dir(rev), "Task"),
            rev == V::V2025_11_25,
            "Task defined in {rev}"
        );
    }
    let min = Task::new("t1", "2025-11-25T10:30:00Z");
    let v = to_value_for(&min, V::V2025_11_25);
    spec.check(V::V2025_11_25, "Task", &v);
    // Required and nullable: written as null, not omitted.
    assert_eq!(v.get("ttl"), Some(&Value::Null));
    assert!(v.get("pollInterval").is_none());
    assert!(v.get("statusMessage").is_none());
    // Omitting ttl is rejected by the schema: the model must never do it.
    assert!(
        spec.check_in("2025-11-25", "Task", &without(v.clone(), &["ttl"]))
            .is_err()
    );

    let full = full_core_task();
    let v = to_value_for(&full, V::V2025_11_25);
    spec.check(V::V2025_11_25, "Task", &v);
    assert_eq!(
        v,
        json!({
            "taskId": "task-123",
            "status": "input_required",
            "statusMessage": "Waiting for the user",
            "createdAt": "2025-11-25T10:30:00Z",
            "lastUpdatedAt": "2025-11-25T10:31:00Z",
            "ttl": 60000,
            "pollInterval": 5000
        })
    );
    assert_eq!(serde_json::from_value::<Task>(v).unwrap(), full);
    // Input tolerance: absent ttl reads as unlimited; unknown fields are ignored.
    let t: Task = serde_json::from_value(json!({
        "taskId": "x", "status": "working", "createdAt": "a", "lastUpdatedAt": "b", "extra": 1
    }))
    .unwrap();
    assert_eq!(t.ttl, None);
}

#[test]
fn task_metadata_related_task_and_augmented_params() {
    let Some(spec) = common::spec() else { return };
    let min = TaskMetadata::default();
    let v = to_value_for(&min, V::V2025_11_25);
    assert_eq!(v, json!({}));
    spec.check(V::V2025_11_25, "TaskMetadata", &v);
    let full = TaskMetadata { ttl: Some(30_000) };
    let v = to_value_for(&full, V::V2025_11_25);
    assert_eq!(v, json!({"ttl": 30000}));
    spec.check(V::V2025_11_25, "TaskMetadata", &v);

    let related = RelatedTaskMetadata {
        task_id: "task-123".into(),
    };
    let v = to_value_for(&related, V::V2025_11_25);
    assert_eq!(v, json!({"taskId": "task-123"}));
    spec.check(V::V2025_11_25, "RelatedTaskMetadata", &v);
    let mut m = meta(json!({"progressToken": 1}));
    assert_eq!(RelatedTaskMetadata::from_meta(&m), None);
    related.insert_into(&mut m);
    assert_eq!(
        RELATED_TASK_META_KEY,
        "io.modelcontextprotocol/related-task"
    );
    assert_eq!(m[RELATED_TASK_META_KEY], json!({"taskId": "task-123"}));
    assert_eq!(RelatedTaskMetadata::from_meta(&m), Some(related));
    m.insert(RELATED_TASK_META_KEY.into(), json!("garbage"));
    assert_eq!(RelatedTaskMetadata::from_meta(&m), None);

    let min = TaskAugmentedRequestParams::default();
    spec.check(
        V::V2025_11_25,
        "TaskAugmentedRequestParams",
        &to_value_for(&min, V::V2025_11_25),
    );
    let full = TaskAugmentedRequestParams {
        meta: Some(meta(json!({"progressToken": "p"}))),
        task: Some(TaskMetadata { ttl: Some(1000) }),
    };
    let v = to_value_for(&full, V::V2025_11_25);
    spec.check(V::V2025_11_25, "TaskAugmentedRequestParams", &v);
    assert_eq!(v["task"], json!({"ttl": 1000}));
    // `task` exists in 2025-11-25 only.
    for rev in [V::V2024_11_05, V::V2025_06_18, V::V2026_07_28] {
        assert!(to_value_for(&full, rev).get("task").is_none(), "{rev}");
    }
}

#[test]
fn core_create_get_cancel_results() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2025_11_25;
    for task in [Task::new("t1", "2025-11-25T10:30:00Z"), full_core_task()] {
        // CreateTaskResult
        let min = CreateTaskResult {
            meta: None,
            task: task.clone(),
        };
        let v = to_value_for(&min, rev);
        spec.check(rev, "CreateTaskResult", &v);
        assert!(v.get("resultType").is_none());
        let full = CreateTaskResult {
            meta: Some(meta(json!({"k": "v"}))),
            task: task.clone(),
        };
        let v = to_value_for(&full, rev);
        spec.check(rev, "CreateTaskResult", &v);
        assert_eq!(serde_json::from_value::<CreateTaskResult>(v).unwrap(), full);

        // GetTaskResult / CancelTaskResult = Result & Task (flat)
        let g = GetTaskResult {
            meta: Some(meta(json!({"k": "v"}))),
            task: task.clone(),
        };
        let v = to_value_for(&g, rev);
        spec.check(rev, "GetTaskResult", &v);
        // The composed definition is open; check the task part strictly too.
        spec.check(rev, "Task", &without(v.clone(), &["_meta"]));
        assert_eq!(v["taskId"], json!(task.task_id));
        assert_eq!(serde_json::from_value::<GetTaskResult>(v).unwrap(), g);
        let g = GetTaskResult {
            meta: None,
            task: task.clone(),
        };
        spec.check(rev, "Task", &to_value_for(&g, rev));

        let mut cancelled = task.clone();
        cancelled.status = TaskStatus::Cancelled;
        let c = CancelTaskResult {
            meta: Some(meta(json!({}))),
            task: cancelled,
        };
        let v = to_value_for(&c, rev);
        spec.check(rev, "CancelTaskResult", &v);
        spec.check(rev, "Task", &without(v.clone(), &["_meta"]));
        assert_eq!(v["status"], "cancelled");
        assert_eq!(serde_json::from_value::<CancelTaskResult>(v).unwrap(), c);
    }
}

#[test]
fn core_requests_and_their_params() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2025_11_25;
    assert_eq!(GetTaskParams::METHOD, "tasks/get");
    assert_eq!(GetTaskPayloadParams::METHOD, "tasks/result");
    assert_eq!(ListTasksParams::METHOD, "tasks/list");
    assert_eq!(CancelTaskParams::METHOD, "tasks/cancel");
    let m = meta(json!({"progressToken": "p"}));

    let p = GetTaskParams::new("t1");
    spec.check(
        rev,
        "GetTaskRequest",
        &request(GetTaskParams::METHOD, to_value_for(&p, rev)),
    );
    // The 2025-11-25 params name only taskId: `_meta` is dropped for it.
    let p = GetTaskParams {
        meta: Some(m.clone()),
        task_id: "t1".into(),
    };
    let v = to_value_for(&p, rev);
    assert_eq!(v, json!({"taskId": "t1"}));
    spec.check(rev, "GetTaskRequest", &request(GetTaskParams::METHOD, v));
    assert!(
        spec.check_in(
            "2025-11-25",
            "GetTaskRequest",
            &request("tasks/get", json!({"taskId": "t1", "_meta": {}}))
        )
        .is_err()
    );

    let p = GetTaskPayloadParams {
        meta: Some(m.clone()),
        task_id: "t1".into(),
    };
    let v = to_value_for(&p, rev);
    assert_eq!(v, json!({"taskId": "t1"}));
    spec.check(
        rev,
        "GetTaskPayloadRequest",
        &request(GetTaskPayloadParams::METHOD, v),
    );
    spec.check(
        rev,
        "GetTaskPayloadRequest",
        &request(
            GetTaskPayloadParams::METHOD,
            to_value_for(&GetTaskPayloadParams::new("t2"), rev),
        ),
    );

    let p = CancelTaskParams {
        meta: Some(m.clone()),
        task_id: "t1".into(),
    };
    let v = to_value_for(&p, rev);
    assert_eq!(v, json!({"taskId": "t1"}));
    spec.check(
        rev,
        "CancelTaskRequest",
        &request(CancelTaskParams::METHOD, v),
    );
    spec.check(
        rev,
        "CancelTaskRequest",
        &request(
            CancelTaskParams::METHOD,
            to_value_for(&CancelTaskParams::new("t"), rev),
        ),
    );

    // tasks/list: PaginatedRequestParams keeps `_meta`; params may be omitted altogether.
    let min = ListTasksParams::default();
    spec.check(
        rev,
        "ListTasksRequest",
        &request("tasks/list", to_value_for(&min, rev)),
    );
    spec.check(
        rev,
        "ListTasksRequest",
        &json!({"jsonrpc": "2.0", "id": 1, "method": "tasks/list"}),
    );
    let full = ListTasksParams {
        meta: Some(m.clone()),
        cursor: Some("c1".into()),
    };
    let v = to_value_for(&full, rev);
    assert_eq!(v, json!({"_meta": {"progressToken": "p"}, "cursor": "c1"}));
    spec.check(
        rev,
        "ListTasksRequest",
        &request(ListTasksParams::METHOD, v.clone()),
    );
    assert_eq!(serde_json::from_value::<ListTasksParams>(v).unwrap(), full);
}

#[test]
fn core_list_and_payload_results() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2025_11_25;
    let min = ListTasksResult::default();
    let v = to_value_for(&min, rev);
    assert_eq!(v, json!({"tasks": []}));
    spec.check(rev, "ListTasksResult", &v);
    let full = ListTasksResult {
        meta: Some(meta(json!({"a": 1}))),
        tasks: vec![Task::new("t1", "2025-11-25T00:00:00Z"), full_core_task()],
        next_cursor: Some("next".into()),
    };
    let v = to_value_for(&full, rev);
    spec.check(rev, "ListTasksResult", &v);
    assert_eq!(v["tasks"][0]["ttl"], Value::Null);
    assert_eq!(serde_json::from_value::<ListTasksResult>(v).unwrap(), full);

    // tasks/result returns the underlying request's result verbatim.
    let min = GetTaskPayloadResult::default();
    spec.check(rev, "GetTaskPayloadResult", &to_value_for(&min, rev));
    let payload = json!({
        "_meta": {"io.modelcontextprotocol/related-task": {"taskId": "t1"}},
        "content": [{"type": "text", "text": "done"}],
        "isError": false
    });
    let full: GetTaskPayloadResult = serde_json::from_value(payload.clone()).unwrap();
    assert_eq!(
        RelatedTaskMetadata::from_meta(full.meta.as_ref().unwrap())
            .unwrap()
            .task_id,
        "t1"
    );
    assert_eq!(full.fields["isError"], json!(false));
    let v = to_value_for(&full, rev);
    assert_eq!(v, payload);
    spec.check(rev, "GetTaskPayloadResult", &v);
    spec.check(rev, "CallToolResult", &v);
    let back: Value = full.to_result().unwrap();
    assert_eq!(back, payload);
    let wrapped = GetTaskPayloadResult::from_result(&payload).unwrap();
    assert_eq!(wrapped, full);
    assert!(GetTaskPayloadResult::from_result(&json!([1])).is_none());
}

#[test]
fn core_status_notification() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2025_11_25;
    assert_eq!(
        TaskStatusNotificationParams::METHOD,
        "notifications/tasks/status"
    );
    let min = TaskStatusNotificationParams {
        meta: None,
        task: Task::new("t1", "2025-11-25T00:00:00Z"),
    };
    let v = to_value_for(&min, rev);
    spec.check(rev, "TaskStatusNotificationParams", &v);
    spec.check(rev, "Task", &v);
    spec.check(
        rev,
        "TaskStatusNotification",
        &notification(TaskStatusNotificationParams::METHOD, v),
    );
    let mut m = Meta::new();
    RelatedTaskMetadata {
        task_id: "task-123".into(),
    }
    .insert_into(&mut m);
    let full = TaskStatusNotificationParams {
        meta: Some(m),
        task: full_core_task(),
    };
    let v = to_value_for(&full, rev);
    spec.check(rev, "TaskStatusNotificationParams", &v);
    spec.check(
        rev,
        "TaskStatusNotification",
        &notification(TaskStatusNotificationParams::METHOD, v.clone()),
    );
    assert_eq!(
        serde_json::from_value::<TaskStatusNotificationParams>(v).unwrap(),
        full
    );
}

// ---------- 2026 tasks extension ----------

#[test]
fn ext_capability_and_subscription_filter() {
    let Some(spec) = common::spec() else { return };
    assert_eq!(TASKS_EXTENSION, "io.modelcontextprotocol/tasks");
    assert_eq!(TasksExtensionCapability::NAME, TASKS_EXTENSION);
    let v = to_value_for(&TasksExtensionCapability::default(), V::V2026_07_28);
    assert_eq!(v, json!({}));
    spec.check_ext(EXT, "TasksExtensionCapability", &v);
    assert!(
        spec.check_in(EXT, "TasksExtensionCapability", &json!({"x": 1}))
            .is_err()
    );
    // Capability objects of 2026 core accept it under `extensions`.
    spec.check(
        V::V2026_07_28,
        "ServerCapabilities",
        &json!({"extensions": {TASKS_EXTENSION: v}}),
    );

    let min = TaskSubscriptionNotifications::default();
    let v = to_value_for(&min, V::V2026_07_28);
    assert_eq!(v, json!({}));
    spec.check_ext(EXT, "TaskSubscriptionNotifications", &v);
    spec.check_ext(EXT, "TaskSubscriptionAcknowledgedNotifications", &v);
    let full: TaskSubscriptionAcknowledgedNotifications = TaskSubscriptionNotifications {
        task_ids: Some(vec!["a".into(), "b".into()]),
    };
    let v = to_value_for(&full, V::V2026_07_28);
    assert_eq!(v, json!({"taskIds": ["a", "b"]}));
    spec.check_ext(EXT, "TaskSubscriptionNotifications", &v);
    spec.check_ext(EXT, "TaskSubscriptionAcknowledgedNotifications", &v);
}

#[test]
fn ext_task_minimal_full_and_conversion() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let min = ExtTask::new("t1", "2026-08-01T00:00:00Z");
    let v = to_value_for(&min, rev);
    spec.check_ext(EXT, "Task", &v);
    assert_eq!(v.get("ttlMs"), Some(&Value::Null));
    assert!(v.get("ttl").is_none());
    assert!(v.get("pollIntervalMs").is_none());
    assert!(spec.check_in(EXT, "Task", &without(v, &["ttlMs"])).is_err());

    let full = full_ext_task();
    let v = to_value_for(&full, rev);
    spec.check_ext(EXT, "Task", &v);
    assert_eq!(
        v,
        json!({
            "taskId": "task-456",
            "status": "working",
            "statusMessage": "Crunching",
            "createdAt": "2026-08-01T12:00:00Z",
            "lastUpdatedAt": "2026-08-01T12:00:30Z",
            "ttlMs": 3600000,
            "pollIntervalMs": 2000
        })
    );
    assert_eq!(serde_json::from_value::<ExtTask>(v).unwrap(), full);
    // The 2025-11-25 Task field names are not the extension's.
    assert!(
        spec.check_in(EXT, "Task", &to_value_for(&full_core_task(), rev))
            .is_err()
    );

    // Conversions keep every value and rename ttl/pollInterval.
    let core: Task = full.clone().into();
    assert_eq!(core.ttl, Some(3_600_000));
    assert_eq!(core.poll_interval, Some(2_000));
    spec.check(V::V2025_11_25, "Task", &to_value_for(&core, V::V2025_11_25));
    let back: ExtTask = core.into();
    assert_eq!(back, full);
    let from_core: ExtTask = full_core_task().into();
    spec.check_ext(EXT, "Task", &to_value_for(&from_core, rev));
}

fn detailed_variants() -> Vec<DetailedTask> {
    let min = ExtTask::new("t-min", "2026-08-01T00:00:00Z");
    let full = full_ext_task();
    let mut out = Vec::new();
    for t in [min, full] {
        out.push(DetailedTask::working(t.clone()));
        out.push(DetailedTask::input_required(t.clone(), input_requests()));
        out.push(DetailedTask::completed(t.clone(), call_tool_result()));
        out.push(DetailedTask::failed(
            t.clone(),
            ErrorObject::new(-32603, "boom").with_data(json!({"detail": "x"})),
        ));
        out.push(DetailedTask::failed(
            t.clone(),
            ErrorObject::new(-32602, "bad"),
        ));
        out.push(DetailedTask::cancelled(t));
    }
    out
}

#[test]
fn ext_detailed_task_variants_validate() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    for d in detailed_variants() {
        assert!(d.is_consistent(), "{d:?}");
        let v = to_value_for(&d, rev);
        spec.check_ext(EXT, "DetailedTask", &v);
        spec.check_ext(EXT, d.variant_name(), &v);
        assert_eq!(v["status"], d.task.status.as_str());
        assert_eq!(
            serde_json::from_value::<DetailedTask>(v.clone()).unwrap(),
            shaped(&d, rev)
        );
        // Each variant carries exactly its own payload field.
        let has = |k: &str| v.get(k).is_some();
        match d.task.status {
            TaskStatus::InputRequired => {
                assert!(has("inputRequests") && !has("result") && !has("error"));
                spec.check_ext(EXT, "InputRequests", &v["inputRequests"]);
            }
            TaskStatus::Completed => {
                assert!(has("result") && !has("inputRequests") && !has("error"));
                spec.check(V::V2026_07_28, "CallToolResult", &v["result"]);
                // The embedded result is a 2026 result: shaped with its resultType.
                assert_eq!(v["result"]["resultType"], "complete");
            }
            TaskStatus::Failed => {
                assert!(has("error") && !has("result") && !has("inputRequests"));
                spec.check_ext(EXT, "Error", &v["error"]);
            }
            TaskStatus::Working | TaskStatus::Cancelled => {
                assert!(!has("error") && !has("result") && !has("inputRequests"));
            }
        }
        // The other variants' definitions reject it.
        for other in [
            "WorkingTask",
            "InputRequiredTask",
            "CompletedTask",
            "FailedTask",
            "CancelledTask",
        ] {
            if other != d.variant_name() {
                assert!(
                    spec.check_in(EXT, other, &v).is_err(),
                    "{other} accepted {v}"
                );
            }
        }
    }
}

#[test]
fn ext_detailed_task_shaping_repairs_mismatches() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    // Payload of the wrong status is dropped.
    let mut d = DetailedTask::completed(full_ext_task(), call_tool_result());
    d.task.status = TaskStatus::Working;
    d.error = Some(ErrorObject::new(1, "x"));
    d.input_requests = Some(input_requests());
    assert!(!d.is_consistent());
    let v = to_value_for(&d, rev);
    spec.check_ext(EXT, "WorkingTask", &v);
    assert!(v.get("result").is_none() && v.get("error").is_none());
    assert!(v.get("inputRequests").is_none());

    // Missing required payloads are filled.
    for status in TaskStatus::ALL {
        let mut t = ExtTask::new("t", "2026-08-01T00:00:00Z");
        t.status = status;
        let d = DetailedTask::from(t);
        let mut shaped = d.clone();
        shaped.adapt(rev);
        assert!(shaped.is_consistent(), "{status}");
        let v = serde_json::to_value(&shaped).unwrap();
        spec.check_ext(EXT, "DetailedTask", &v);
        spec.check_ext(EXT, shaped.variant_name(), &v);
        // Idempotent.
        let mut twice = shaped.clone();
        twice.adapt(rev);
        assert_eq!(twice, shaped);
    }
    let mut t = ExtTask::new("t", "2026-08-01T00:00:00Z");
    t.status = TaskStatus::Failed;
    t.status_message = Some("disk full".into());
    let v = to_value_for(&DetailedTask::from(t), rev);
    assert_eq!(v["error"], json!({"code": -32603, "message": "disk full"}));

    // Constructors set the status from the variant.
    let d = DetailedTask::cancelled(full_ext_task());
    assert_eq!(d.task.status, TaskStatus::Cancelled);
    assert_eq!(d.variant_name(), "CancelledTask");
}

#[test]
fn ext_create_task_result() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    for task in [ExtTask::new("t1", "2026-08-01T00:00:00Z"), full_ext_task()] {
        let min = ExtCreateTaskResult::new(task.clone());
        let v = to_value_for(&min, rev);
        spec.check_ext(EXT, "CreateTaskResult", &v);
        spec.check_ext(EXT, "Task", &without(v.clone(), &["resultType"]));
        assert_eq!(v["resultType"], "task");
        // A result without resultType (as a peer might build it) gets "task" when shaped.
        let mut bare = min.clone();
        bare.result_type = None;
        assert_eq!(to_value_for(&bare, rev)["resultType"], "task");
        // resultType is a 2026 notion.
        assert!(
            to_value_for(&min, V::V2025_11_25)
                .get("resultType")
                .is_none()
        );

        let full = ExtCreateTaskResult {
            meta: Some(meta(json!({
                "io.modelcontextprotocol/serverInfo": {"name": "srv", "version": "1.0.0"}
            }))),
            result_type: Some(ResultType::Task),
            task,
        };
        let v = to_value_for(&full, rev);
        spec.check_ext(EXT, "CreateTaskResult", &v);
        spec.check_ext(EXT, "Task", &without(v.clone(), &["resultType", "_meta"]));
        assert_eq!(
            serde_json::from_value::<ExtCreateTaskResult>(v).unwrap(),
            full
        );
    }
    assert!(
        spec.check_in(
            EXT,
            "CreateTaskResult",
            &json!({"resultType": "complete", "taskId": "t", "status": "working",
                    "createdAt": "a", "lastUpdatedAt": "b", "ttlMs": null})
        )
        .is_err()
    );
}

#[test]
fn ext_get_task_result_every_variant() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    for d in detailed_variants() {
        let min = ExtGetTaskResult::new(d.clone());
        let v = to_value_for(&min, rev);
        spec.check_ext(EXT, "GetTaskResult", &v);
        assert_eq!(v["resultType"], "complete");
        // The composed definition is open: check the task strictly too.
        spec.check_ext(EXT, "DetailedTask", &without(v.clone(), &["resultType"]));

        let full = ExtGetTaskResult {
            meta: Some(meta(json!({"k": 1}))),
            result_type: Some(ResultType::Task), // wrong: shaping fixes it to "complete"
            task: d.clone(),
        };
        let v = to_value_for(&full, rev);
        assert_eq!(v["resultType"], "complete");
        spec.check_ext(EXT, "GetTaskResult", &v);
        spec.check_ext(
            EXT,
            d.variant_name(),
            &without(v.clone(), &["resultType", "_meta"]),
        );
        let back: ExtGetTaskResult = serde_json::from_value(v).unwrap();
        assert_eq!(back.task, shaped(&d, rev));
        assert_eq!(back.result_type, Some(ResultType::Complete));
    }
}

#[test]
fn ext_requests_get_update_cancel() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    assert_eq!(UpdateTaskParams::METHOD, "tasks/update");

    // Minimal params validate against the extension's request definitions.
    let v = to_value_for(&GetTaskParams::new("t1"), rev);
    assert_eq!(v, json!({"taskId": "t1"}));
    spec.check_ext(EXT, "GetTaskRequest", &request(GetTaskParams::METHOD, v));
    let v = to_value_for(&CancelTaskParams::new("t1"), rev);
    spec.check_ext(
        EXT,
        "CancelTaskRequest",
        &request(CancelTaskParams::METHOD, v),
    );
    let upd = UpdateTaskParams::new("t1", input_responses());
    let v = to_value_for(&upd, rev);
    spec.check_ext(
        EXT,
        "UpdateTaskRequest",
        &request(UpdateTaskParams::METHOD, v.clone()),
    );
    spec.check_ext(EXT, "InputResponses", &v["inputResponses"]);
    assert_eq!(serde_json::from_value::<UpdateTaskParams>(v).unwrap(), upd);
    assert!(
        spec.check_in(
            EXT,
            "UpdateTaskRequest",
            &request("tasks/update", json!({"taskId": "t1"}))
        )
        .is_err()
    );

    // Fully populated: the 2026 per-request `_meta` envelope is kept on the wire. The extension
    // schema does not name `_meta` in these params, so the strict check runs on the rest and
    // the envelope is checked against the 2026 core `RequestMetaObject`.
    let m = request_meta_2026();
    let cases: Vec<(&str, &str, Value)> = vec![
        (
            "GetTaskRequest",
            GetTaskParams::METHOD,
            to_value_for(
                &GetTaskParams {
                    meta: Some(m.clone()),
                    task_id: "t1".into(),
                },
                rev,
            ),
        ),
        (
            "CancelTaskRequest",
            CancelTaskParams::METHOD,
            to_value_for(
                &CancelTaskParams {
                    meta: Some(m.clone()),
                    task_id: "t1".into(),
                },
                rev,
            ),
        ),
        (
            "UpdateTaskRequest",
            UpdateTaskParams::METHOD,
            to_value_for(
                &UpdateTaskParams {
                    meta: Some(m.clone()),
                    ..UpdateTaskParams::new("t1", input_responses())
                },
                rev,
            ),
        ),
    ];
    for (def, method, params) in cases {
        assert_eq!(params["_meta"], Value::Object(m.clone()), "{def}");
        spec.check(V::V2026_07_28, "RequestMetaObject", &params["_meta"]);
        // (The strict harness rejects `_meta` here: the extension schema does not name it.)
        assert!(
            spec.check_in(EXT, def, &request(method, params.clone()))
                .is_err()
        );
        spec.check_ext(EXT, def, &request(method, without(params, &["_meta"])));
    }
}

#[test]
fn ext_update_and_cancel_results_are_empty_complete() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    let min: UpdateTaskResult = EmptyResult::default();
    let v = to_value_for(&min, rev);
    assert_eq!(v, json!({"resultType": "complete"}));
    spec.check_ext(EXT, "UpdateTaskResult", &v);
    spec.check_ext(EXT, "CancelTaskResult", &v);
    let full: ExtCancelTaskResult = EmptyResult {
        meta: Some(meta(json!({"x": true}))),
        result_type: Some(ResultType::Complete),
    };
    let v = to_value_for(&full, rev);
    spec.check_ext(EXT, "UpdateTaskResult", &v);
    spec.check_ext(EXT, "CancelTaskResult", &v);
    assert!(
        spec.check_in(EXT, "CancelTaskResult", &json!({"resultType": "task"}))
            .is_err()
    );
}

#[test]
fn ext_status_notification_every_variant() {
    let Some(spec) = common::spec() else { return };
    let rev = V::V2026_07_28;
    assert_eq!(
        ExtTaskStatusNotificationParams::METHOD,
        "notifications/tasks"
    );
    for d in detailed_variants() {
        let min = ExtTaskStatusNotificationParams::new(d.clone());
        let v = to_value_for(&min, rev);
        spec.check_ext(EXT, "TaskStatusNotificationParams", &v);
        spec.check_ext(EXT, d.variant_name(), &v);
        spec.check_ext(
            EXT,
            "TaskStatusNotification",
            &notification(ExtTaskStatusNotificationParams::METHOD, v),
        );

        let full = ExtTaskStatusNotificationParams {
            meta: Some(meta(json!({"io.modelcontextprotocol/subscriptionId": 3}))),
            task: d.clone(),
        };
        let v = to_value_for(&full, rev);
        spec.check_ext(EXT, "TaskStatusNotificationParams", &v);
        spec.check_ext(
            EXT,
            "TaskStatusNotification",
            &notification(ExtTaskStatusNotificationParams::METHOD, v.clone()),
        );
        assert_eq!(
            serde_json::from_value::<ExtTaskStatusNotificationParams>(v).unwrap(),
            shaped(&full, rev)
        );
    }
    // The 2025-11-25 method name is not the extension's.
    assert!(
        spec.check_in(
            EXT,
            "TaskStatusNotification",
            &notification(
                TaskStatusNotificationParams::METHOD,
                to_value_for(
                    &ExtTaskStatusNotificationParams::new(DetailedTask::working(full_ext_task())),
                    rev
                )
            )
        )
        .is_err()
    );
}
