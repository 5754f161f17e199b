//! What every [`TaskStore`] must do, checked the same way on each backend (the in-memory
//! default and Redis): records round-trip, a terminal task never changes, unknown and
//! expired tasks are gone, pages run oldest first per owner with opaque cursors, input
//! answered elsewhere is handed out once, and at the bound the oldest finished task makes
//! room.

use std::time::Duration;

use mcp::tasks::{TaskOutcome, TaskRecord, TaskStore, TaskStoreError, TaskUpdate};
use mcp::types::{
    CallToolResult, ContentBlock, InputRequest, InputRequests, InputResponse, InputResponses,
    TaskStatus,
};
use serde_json::json;

fn ask() -> InputRequests {
    let r: InputRequest = serde_json::from_value(json!({
        "method": "elicitation/create",
        "params": {"message": "Name?", "requestedSchema": {"type": "object", "properties": {}}}
    }))
    .unwrap();
    InputRequests::from([("name".to_owned(), r)])
}

fn answer(name: &str) -> InputResponses {
    let r: InputResponse =
        serde_json::from_value(json!({"action": "accept", "content": {"name": name}})).unwrap();
    InputResponses::from([("name".to_owned(), r)])
}

/// Creation, reads, updates, terminal refusal, input delivery; ids start with `tag`.
pub async fn lifecycle(s: &dyn TaskStore, tag: &str) {
    let id = |n: &str| format!("{tag}-{n}");
    let hour = Some(Duration::from_secs(3600));
    let created = TaskRecord::new(id("a"), hour, Some("alice".into()));
    s.create(created.clone()).await.unwrap();
    assert_eq!(
        s.get(&id("a")).await,
        Ok(Some(created.clone())),
        "round trip"
    );
    assert_eq!(
        s.create(TaskRecord::new(id("a"), None, None)).await,
        Err(TaskStoreError::Duplicate)
    );
    assert_eq!(s.get(&id("nope")).await, Ok(None));
    assert_eq!(
        s.update(&id("nope"), TaskUpdate::working()).await,
        Err(TaskStoreError::NotFound)
    );

    // Pending input is kept only while input_required.
    let r = s
        .update(
            &id("a"),
            TaskUpdate::input_required(ask()).with_message("waiting"),
        )
        .await
        .unwrap();
    assert_eq!(r.task.status, TaskStatus::InputRequired);
    assert_eq!(r.task.status_message.as_deref(), Some("waiting"));
    assert_eq!(r.input_requests, Some(ask()));
    assert_eq!(r.task.created_at, created.task.created_at);
    assert_eq!(s.get(&id("a")).await, Ok(Some(r.clone())));

    // Input answered through another process: handed out once.
    assert_eq!(s.take_input(&id("a")).await, Ok(InputResponses::new()));
    s.deliver_input(&id("a"), answer("Ada")).await.unwrap();
    s.deliver_input(&id("a"), answer("Grace")).await.unwrap();
    assert_eq!(
        s.take_input(&id("a")).await,
        Ok(answer("Grace")),
        "the last"
    );
    assert_eq!(s.take_input(&id("a")).await, Ok(InputResponses::new()));
    assert_eq!(
        s.deliver_input(&id("nope"), answer("Ada")).await,
        Err(TaskStoreError::NotFound)
    );

    let mut bad = TaskUpdate::working();
    bad.input_requests = Some(ask());
    bad.outcome = Some(TaskOutcome::Completed(CallToolResult::default()));
    let r = s.update(&id("a"), bad).await.unwrap();
    assert_eq!((r.input_requests, r.outcome), (None, None));
    assert_eq!(r.task.status_message, None);

    let result = CallToolResult::success(vec![ContentBlock::text("done")]);
    let r = s
        .update(&id("a"), TaskUpdate::completed(result.clone()))
        .await
        .unwrap();
    assert_eq!(r.outcome, Some(TaskOutcome::Completed(result)));
    assert_eq!(s.get(&id("a")).await, Ok(Some(r.clone())));

    // Terminal: nothing changes it any more.
    for update in [
        TaskUpdate::cancelled(),
        TaskUpdate::working(),
        TaskUpdate::input_required(ask()),
    ] {
        assert_eq!(
            s.update(&id("a"), update).await,
            Err(TaskStoreError::Terminal(TaskStatus::Completed))
        );
    }
    assert_eq!(
        s.cancel(&id("a")).await,
        Err(TaskStoreError::Terminal(TaskStatus::Completed))
    );
    assert_eq!(
        s.deliver_input(&id("a"), answer("Ada")).await,
        Err(TaskStoreError::Terminal(TaskStatus::Completed))
    );
    assert_eq!(s.get(&id("a")).await, Ok(Some(r)));

    // A failure keeps its error; a cancel its message.
    s.create(TaskRecord::new(id("f"), hour, None))
        .await
        .unwrap();
    let err = mcp::jsonrpc::ErrorObject::invalid_params("bad");
    let r = s
        .update(&id("f"), TaskUpdate::failed(err.clone()))
        .await
        .unwrap();
    assert_eq!(r.outcome, Some(TaskOutcome::Failed(err)));
    assert_eq!(r.task.status_message.as_deref(), Some("bad"));
    s.create(TaskRecord::new(id("c"), None, None))
        .await
        .unwrap();
    let r = s.cancel(&id("c")).await.unwrap();
    assert_eq!(r.task.status, TaskStatus::Cancelled);
    assert_eq!(s.get(&id("c")).await, Ok(Some(r)));
}

/// Pages of each owner, oldest first, `limit` at a time: the ids listed.
async fn all_pages(s: &dyn TaskStore, owner: Option<&str>, limit: usize) -> Vec<String> {
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..100 {
        let page = s.list(owner, cursor.as_deref(), limit).await.unwrap();
        assert!(page.tasks.len() <= limit.max(1));
        seen.extend(page.tasks.into_iter().map(|t| t.task_id));
        match page.next_cursor {
            Some(c) => cursor = Some(c),
            None => return seen,
        }
    }
    panic!("more than 100 pages");
}

/// Listing: per owner (`None` lists only tasks without one), in creation order, every
/// page size; a cursor not issued by the store is refused. Owners start with `tag`.
pub async fn listing(s: &dyn TaskStore, tag: &str) {
    let (me, other) = (format!("{tag}-me"), format!("{tag}-other"));
    for i in 0..5 {
        for (owner, n) in [
            (Some(me.clone()), "t"),
            (Some(other.clone()), "o"),
            (None, "n"),
        ] {
            let r = TaskRecord::new(format!("{tag}-{n}{i}"), None, owner);
            s.create(r).await.unwrap();
        }
    }
    let mine: Vec<String> = (0..5).map(|i| format!("{tag}-t{i}")).collect();
    for limit in [1, 2, 3, 5, 6, 100] {
        assert_eq!(all_pages(s, Some(&me), limit).await, mine, "limit {limit}");
    }
    assert_eq!(all_pages(s, Some(&other), 2).await.len(), 5);
    let anon: Vec<String> = (0..5).map(|i| format!("{tag}-n{i}")).collect();
    let listed = all_pages(s, None, 2).await;
    assert!(listed.ends_with(&anon), "{listed:?}");
    assert!(!listed.iter().any(|id| id.starts_with(&format!("{tag}-t"))));
    assert_eq!(all_pages(s, Some("nobody"), 2).await, Vec::<String>::new());
    assert_eq!(
        s.list(Some(&me), Some("bogus"), 2).await,
        Err(TaskStoreError::InvalidCursor)
    );
    // A finished task is still listed, with its status.
    s.cancel(&format!("{tag}-t1")).await.unwrap();
    let page = s.list(Some(&me), None, 2).await.unwrap();
    assert_eq!(page.tasks[1].status, TaskStatus::Cancelled);
}

/// An expired task is gone: not read, not changed, not listed.
pub async fn expiry(s: &dyn TaskStore, tag: &str) {
    let owner = Some(format!("{tag}-exp"));
    let short = TaskRecord::new(
        format!("{tag}-short"),
        Some(Duration::from_millis(150)),
        owner.clone(),
    );
    s.create(short).await.unwrap();
    let long = TaskRecord::new(
        format!("{tag}-long"),
        Some(Duration::from_secs(60)),
        owner.clone(),
    );
    s.create(long).await.unwrap();
    assert_eq!(all_pages(s, owner.as_deref(), 10).await.len(), 2);
    tokio::time::sleep(Duration::from_millis(300)).await;
    let short = format!("{tag}-short");
    assert_eq!(s.get(&short).await, Ok(None));
    assert_eq!(
        s.update(&short, TaskUpdate::working()).await,
        Err(TaskStoreError::NotFound)
    );
    assert_eq!(s.cancel(&short).await, Err(TaskStoreError::NotFound));
    assert_eq!(
        all_pages(s, owner.as_deref(), 10).await,
        [format!("{tag}-long")]
    );
}

/// A store holding at most 2 tasks of owner `tag`: a third is refused while both run; once
/// one finished, it makes room (the other stays).
pub async fn bound_of_two(s: &dyn TaskStore, tag: &str) {
    let owner = Some(tag.to_owned());
    let rec = |n: &str| TaskRecord::new(format!("{tag}-{n}"), None, owner.clone());
    s.create(rec("a")).await.unwrap();
    s.create(rec("b")).await.unwrap();
    assert_eq!(s.create(rec("c")).await, Err(TaskStoreError::Full));
    s.cancel(&format!("{tag}-b")).await.unwrap();
    s.create(rec("c")).await.unwrap();
    assert_eq!(
        s.get(&format!("{tag}-b")).await,
        Ok(None),
        "the finished one made room"
    );
    assert!(s.get(&format!("{tag}-a")).await.unwrap().is_some());
    assert_eq!(
        all_pages(s, owner.as_deref(), 10).await,
        [format!("{tag}-a"), format!("{tag}-c")]
    );
}
