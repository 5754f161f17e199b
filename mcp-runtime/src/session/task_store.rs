//! Where tasks live: the [`TaskStore`] trait and its bounded in-memory default.
//!
//! A store keeps each task's state ([`TaskRecord`]): the task itself, who may see it, the
//! pending input requests while it is `input_required`, and the outcome once it is terminal.
//! The engine is the only writer; a store only enforces the rules every backend must keep
//! (a terminal task never changes, an expired task is gone, pages are in creation order).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{CallToolResult, InputRequests, InputResponses, Task, TaskStatus};

use crate::common::BoxFuture;

/// How a terminal task ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TaskOutcome {
    /// The tool returned a result (possibly a tool error, `isError: true`): `completed`.
    Completed(CallToolResult),
    /// The request ended with a JSON-RPC error (a protocol error, a panic): `failed`.
    Failed(ErrorObject),
}

/// One task as a store keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskRecord {
    /// The task (2025-11-25 shape; the extension's shape converts from it).
    pub task: Task,
    /// Who may see the task (`None`: anyone holding its id).
    pub owner: Option<String>,
    /// While `input_required`: the requests still waiting for an answer.
    pub input_requests: Option<InputRequests>,
    /// Once terminal (`completed`/`failed`): how it ended.
    pub outcome: Option<TaskOutcome>,
    /// When the store may forget the task (`None`: never).
    pub expires_at: Option<SystemTime>,
}

impl TaskRecord {
    /// A new `working` task created now, kept for `ttl` (`None`: unlimited).
    pub fn new(task_id: impl Into<String>, ttl: Option<Duration>, owner: Option<String>) -> Self {
        let now = SystemTime::now();
        let mut task = Task::new(task_id, iso8601(now));
        task.ttl = ttl.map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX));
        Self {
            task,
            owner,
            input_requests: None,
            outcome: None,
            expires_at: ttl.and_then(|d| now.checked_add(d)),
        }
    }

    /// Whether the task is gone at `now`.
    pub fn is_expired(&self, now: SystemTime) -> bool {
        self.expires_at.is_some_and(|e| e <= now)
    }
}

/// A change of a task's state, applied by [`TaskStore::update`].
#[derive(Debug, Clone, PartialEq)]
pub struct TaskUpdate {
    /// The new status.
    pub status: TaskStatus,
    /// The new `statusMessage` (`None` clears it).
    pub status_message: Option<String>,
    /// The pending input requests (kept only for `input_required`).
    pub input_requests: Option<InputRequests>,
    /// The outcome (kept only for `completed` / `failed`).
    pub outcome: Option<TaskOutcome>,
}

impl TaskUpdate {
    fn status(status: TaskStatus) -> Self {
        Self {
            status,
            status_message: None,
            input_requests: None,
            outcome: None,
        }
    }

    /// Back to `working` (after the input arrived).
    pub fn working() -> Self {
        Self::status(TaskStatus::Working)
    }

    /// `input_required` with the requests still unanswered.
    pub fn input_required(requests: InputRequests) -> Self {
        Self {
            input_requests: Some(requests),
            ..Self::status(TaskStatus::InputRequired)
        }
    }

    /// `completed` with the tool's result (store result).
    pub fn completed(result: CallToolResult) -> Self {
        Self {
            outcome: Some(TaskOutcome::Completed(result)),
            ..Self::status(TaskStatus::Completed)
        }
    }

    /// `failed` with the request's error.
    pub fn failed(error: ErrorObject) -> Self {
        Self {
            status_message: Some(error.message.clone()),
            outcome: Some(TaskOutcome::Failed(error)),
            ..Self::status(TaskStatus::Failed)
        }
    }

    /// `cancelled`.
    pub fn cancelled() -> Self {
        Self {
            status_message: Some("The task was cancelled".into()),
            ..Self::status(TaskStatus::Cancelled)
        }
    }

    /// The same update with a `statusMessage`.
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.status_message = Some(message.into());
        self
    }
}

/// One page of [`TaskStore::list`].
#[derive(Debug, Clone, PartialEq)]
pub struct TaskPage {
    /// The tasks, oldest first.
    pub tasks: Vec<Task>,
    /// Where the next page starts, if there is one.
    pub next_cursor: Option<String>,
}

/// Why a store refused an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum TaskStoreError {
    /// No task has this id (or it expired).
    NotFound,
    /// The task is terminal; it cannot change any more.
    Terminal(TaskStatus),
    /// A task with this id exists already.
    Duplicate,
    /// The store is at its bound and holds no finished task it could drop.
    Full,
    /// The cursor was not issued by this store.
    InvalidCursor,
    /// The backend failed.
    Backend(String),
}

impl fmt::Display for TaskStoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotFound => f.write_str("no such task"),
            Self::Terminal(s) => write!(f, "the task is already {s}"),
            Self::Duplicate => f.write_str("a task with this id exists"),
            Self::Full => f.write_str("the task store is full"),
            Self::InvalidCursor => f.write_str("invalid cursor"),
            Self::Backend(e) => write!(f, "task store backend failed: {e}"),
        }
    }
}

impl std::error::Error for TaskStoreError {}

/// Storage of tasks. Implement it to keep tasks in a database or share them between
/// replicas; [`InMemoryTaskStore`] is the default.
///
/// Every implementation must: never return an expired task; refuse to change a terminal
/// task ([`TaskStoreError::Terminal`]); list in creation order with opaque cursors.
pub trait TaskStore: Send + Sync + 'static {
    /// Stores a new task.
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>>;

    /// The task `task_id`, if it exists and has not expired.
    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>>;

    /// Applies `update` (status, message, pending input, result) and returns the new record.
    fn update<'a>(
        &'a self,
        task_id: &'a str,
        update: TaskUpdate,
    ) -> BoxFuture<'a, Result<TaskRecord, TaskStoreError>>;

    /// One page of the tasks `owner` may see (`None`: only tasks without owner), oldest
    /// first, at most `limit`.
    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>>;

    /// Moves the task to `cancelled`.
    fn cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<TaskRecord, TaskStoreError>> {
        self.update(task_id, TaskUpdate::cancelled())
    }

    /// Forgets every task whose ttl is over at `now`; returns how many.
    fn purge_expired(&self, now: SystemTime) -> BoxFuture<'_, Result<usize, TaskStoreError>>;

    /// Keeps answers to `task_id`'s pending input for the process that runs the task, when
    /// they reached another one (stores shared by replicas). Answers for a key already
    /// delivered replace it. `NotFound` / `Terminal` as [`update`](Self::update). The
    /// default carries nothing: a store only one process uses never needs it.
    fn deliver_input<'a>(
        &'a self,
        task_id: &'a str,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let _ = (task_id, responses);
        Box::pin(std::future::ready(Err(TaskStoreError::Backend(
            "this task store does not carry input between processes".into(),
        ))))
    }

    /// Takes the answers delivered for `task_id` (each is handed out once); empty when
    /// there are none or the task is unknown.
    fn take_input<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<InputResponses, TaskStoreError>> {
        let _ = task_id;
        Box::pin(std::future::ready(Ok(InputResponses::new())))
    }
}

/// A shared store is a store (`RedisStores::task_store` hands out an `Arc`).
impl<T: TaskStore + ?Sized> TaskStore for Arc<T> {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        (**self).create(record)
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        (**self).get(task_id)
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        update: TaskUpdate,
    ) -> BoxFuture<'a, Result<TaskRecord, TaskStoreError>> {
        (**self).update(task_id, update)
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>> {
        (**self).list(owner, cursor, limit)
    }

    fn cancel<'a>(&'a self, task_id: &'a str) -> BoxFuture<'a, Result<TaskRecord, TaskStoreError>> {
        (**self).cancel(task_id)
    }

    fn purge_expired(&self, now: SystemTime) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        (**self).purge_expired(now)
    }

    fn deliver_input<'a>(
        &'a self,
        task_id: &'a str,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        (**self).deliver_input(task_id, responses)
    }

    fn take_input<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<InputResponses, TaskStoreError>> {
        (**self).take_input(task_id)
    }
}

/// The default store: a bounded map in memory.
///
/// Expired tasks are dropped lazily (on every operation). At the bound, creating a task first
/// drops expired ones, then the oldest terminal one; if every task is still running the new
/// one is refused ([`TaskStoreError::Full`]).
#[derive(Debug)]
pub struct InMemoryTaskStore {
    inner: Mutex<Inner>,
    capacity: usize,
}

#[derive(Debug, Default)]
struct Inner {
    tasks: HashMap<String, (u64, TaskRecord)>,
    /// Creation sequence → task id: the listing order.
    order: BTreeMap<u64, String>,
    /// (expiry, creation sequence) of every task with a ttl, soonest first, so purging
    /// costs nothing until something is due.
    expiries: BTreeSet<(SystemTime, u64)>,
    /// Input answered through another engine sharing this store (`deliver_input`).
    delivered: HashMap<String, InputResponses>,
    next_seq: u64,
}

impl Inner {
    fn remove(&mut self, id: &str) {
        self.delivered.remove(id);
        if let Some((seq, r)) = self.tasks.remove(id) {
            self.order.remove(&seq);
            if let Some(e) = r.expires_at {
                self.expiries.remove(&(e, seq));
            }
        }
    }

    fn purge(&mut self, now: SystemTime) -> usize {
        let mut n = 0;
        while let Some(&(at, seq)) = self.expiries.first() {
            if at > now {
                break;
            }
            self.expiries.pop_first();
            if let Some(id) = self.order.remove(&seq) {
                self.tasks.remove(&id);
                self.delivered.remove(&id);
                n += 1;
            }
        }
        n
    }
}

/// How many tasks [`InMemoryTaskStore::default`] keeps.
pub const DEFAULT_TASK_CAPACITY: usize = 10_000;

impl InMemoryTaskStore {
    /// A store keeping at most `capacity` tasks (at least 1).
    pub fn new(capacity: usize) -> Self {
        Self {
            inner: Mutex::new(Inner::default()),
            capacity: capacity.max(1),
        }
    }

    /// How many tasks are stored (expired ones not yet dropped included).
    pub fn len(&self) -> usize {
        self.inner.lock().expect("task store lock").tasks.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn with<T>(&self, f: impl FnOnce(&mut Inner) -> T) -> T {
        let mut inner = self.inner.lock().expect("task store lock");
        inner.purge(SystemTime::now());
        f(&mut inner)
    }
}

impl Default for InMemoryTaskStore {
    fn default() -> Self {
        Self::new(DEFAULT_TASK_CAPACITY)
    }
}

const CURSOR_PREFIX: &str = "tk.";

impl TaskStore for InMemoryTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        let out = self.with(|inner| {
            if inner.tasks.contains_key(&record.task.task_id) {
                return Err(TaskStoreError::Duplicate);
            }
            if inner.tasks.len() >= self.capacity {
                let oldest_done = inner
                    .order
                    .values()
                    .find(|id| inner.tasks[*id].1.task.is_terminal())
                    .cloned();
                match oldest_done {
                    Some(id) => inner.remove(&id),
                    None => return Err(TaskStoreError::Full),
                }
            }
            let seq = inner.next_seq;
            inner.next_seq += 1;
            inner.order.insert(seq, record.task.task_id.clone());
            if let Some(e) = record.expires_at {
                inner.expiries.insert((e, seq));
            }
            inner
                .tasks
                .insert(record.task.task_id.clone(), (seq, record));
            Ok(())
        });
        Box::pin(std::future::ready(out))
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        let out = self.with(|inner| inner.tasks.get(task_id).map(|(_, r)| r.clone()));
        Box::pin(std::future::ready(Ok(out)))
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        update: TaskUpdate,
    ) -> BoxFuture<'a, Result<TaskRecord, TaskStoreError>> {
        let out = self.with(|inner| {
            let (_, record) = inner
                .tasks
                .get_mut(task_id)
                .ok_or(TaskStoreError::NotFound)?;
            let status = update.status;
            record
                .task
                .transition_to(status, iso8601(SystemTime::now()))
                .map_err(|e| TaskStoreError::Terminal(e.from))?;
            record.task.status_message = update.status_message;
            record.input_requests = update
                .input_requests
                .filter(|_| status == TaskStatus::InputRequired);
            record.outcome = update
                .outcome
                .filter(|_| matches!(status, TaskStatus::Completed | TaskStatus::Failed));
            Ok(record.clone())
        });
        Box::pin(std::future::ready(out))
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>> {
        let out = (|| {
            let start = match cursor {
                None => 0,
                Some(c) => c
                    .strip_prefix(CURSOR_PREFIX)
                    .and_then(|s| u64::from_str_radix(s, 16).ok())
                    .ok_or(TaskStoreError::InvalidCursor)?,
            };
            Ok(self.with(|inner| {
                let mut visible = inner
                    .order
                    .range(start..)
                    .map(|(seq, id)| (*seq, &inner.tasks[id].1))
                    .filter(|(_, r)| r.owner.as_deref() == owner);
                let tasks: Vec<Task> = visible
                    .by_ref()
                    .take(limit.max(1))
                    .map(|(_, r)| r.task.clone())
                    .collect();
                let next_cursor = visible
                    .next()
                    .map(|(seq, _)| format!("{CURSOR_PREFIX}{seq:x}"));
                TaskPage { tasks, next_cursor }
            }))
        })();
        Box::pin(std::future::ready(out))
    }

    fn purge_expired(&self, now: SystemTime) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        let n = self.inner.lock().expect("task store lock").purge(now);
        Box::pin(std::future::ready(Ok(n)))
    }

    fn deliver_input<'a>(
        &'a self,
        task_id: &'a str,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        let out = self.with(|inner| {
            let (_, record) = inner.tasks.get(task_id).ok_or(TaskStoreError::NotFound)?;
            if record.task.is_terminal() {
                return Err(TaskStoreError::Terminal(record.task.status));
            }
            inner
                .delivered
                .entry(task_id.to_owned())
                .or_default()
                .extend(responses);
            Ok(())
        });
        Box::pin(std::future::ready(out))
    }

    fn take_input<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<InputResponses, TaskStoreError>> {
        let out = self.with(|inner| inner.delivered.remove(task_id).unwrap_or_default());
        Box::pin(std::future::ready(Ok(out)))
    }
}

/// `t` as ISO 8601 UTC with milliseconds (`2026-08-01T12:00:00.000Z`).
pub fn iso8601(t: SystemTime) -> String {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970-01-01 (proleptic Gregorian calendar).
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        d.subsec_millis()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block<T>(f: BoxFuture<'_, T>) -> T {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
            .block_on(f)
    }

    #[test]
    fn iso8601_formats_known_instants() {
        assert_eq!(iso8601(SystemTime::UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
        let t = SystemTime::UNIX_EPOCH + Duration::from_millis(1_709_251_199_123);
        assert_eq!(iso8601(t), "2024-02-29T23:59:59.123Z");
    }

    #[test]
    fn terminal_tasks_never_change() {
        let s = InMemoryTaskStore::new(4);
        block(s.create(TaskRecord::new("a", None, None))).unwrap();
        let r = block(s.update("a", TaskUpdate::completed(CallToolResult::default()))).unwrap();
        assert_eq!(r.task.status, TaskStatus::Completed);
        assert!(r.outcome.is_some());
        assert_eq!(
            block(s.cancel("a")),
            Err(TaskStoreError::Terminal(TaskStatus::Completed))
        );
        assert_eq!(block(s.cancel("nope")), Err(TaskStoreError::NotFound));
        assert_eq!(
            block(s.create(TaskRecord::new("a", None, None))),
            Err(TaskStoreError::Duplicate)
        );
    }

    #[test]
    fn input_requests_are_kept_only_while_input_required() {
        let s = InMemoryTaskStore::new(4);
        block(s.create(TaskRecord::new("a", None, None))).unwrap();
        let mut reqs = InputRequests::new();
        reqs.insert("k".into(), mcp_core::types::InputRequest::ListRoots(None));
        let r = block(s.update("a", TaskUpdate::input_required(reqs.clone()))).unwrap();
        assert_eq!(r.input_requests, Some(reqs.clone()));
        let mut bad = TaskUpdate::working();
        bad.input_requests = Some(reqs);
        let r = block(s.update("a", bad)).unwrap();
        assert_eq!(r.input_requests, None);
    }

    #[test]
    fn bound_drops_oldest_finished_then_refuses() {
        let s = InMemoryTaskStore::new(2);
        block(s.create(TaskRecord::new("a", None, None))).unwrap();
        block(s.create(TaskRecord::new("b", None, None))).unwrap();
        assert_eq!(
            block(s.create(TaskRecord::new("c", None, None))),
            Err(TaskStoreError::Full)
        );
        block(s.update("b", TaskUpdate::cancelled())).unwrap();
        block(s.create(TaskRecord::new("c", None, None))).unwrap();
        assert!(block(s.get("b")).unwrap().is_none());
        assert!(block(s.get("a")).unwrap().is_some());
    }

    #[test]
    fn expired_tasks_are_gone() {
        let s = InMemoryTaskStore::new(4);
        block(s.create(TaskRecord::new("a", Some(Duration::from_millis(1)), None))).unwrap();
        block(s.create(TaskRecord::new("b", None, None))).unwrap();
        std::thread::sleep(Duration::from_millis(5));
        assert!(block(s.get("a")).unwrap().is_none());
        assert_eq!(
            block(s.update("a", TaskUpdate::working())),
            Err(TaskStoreError::NotFound)
        );
        assert_eq!(s.len(), 1);
        let far = SystemTime::now() + Duration::from_secs(3600);
        block(s.create(TaskRecord::new("c", Some(Duration::from_secs(60)), None))).unwrap();
        assert_eq!(block(s.purge_expired(far)).unwrap(), 1);
    }

    #[test]
    fn list_pages_in_creation_order_per_owner() {
        let s = InMemoryTaskStore::new(16);
        for i in 0..5 {
            block(s.create(TaskRecord::new(format!("t{i}"), None, Some("me".into())))).unwrap();
            block(s.create(TaskRecord::new(format!("o{i}"), None, Some("other".into())))).unwrap();
        }
        let mut seen = Vec::new();
        let mut cursor = None;
        loop {
            let page = block(s.list(Some("me"), cursor.as_deref(), 2)).unwrap();
            assert!(page.tasks.len() <= 2);
            seen.extend(page.tasks.into_iter().map(|t| t.task_id));
            match page.next_cursor {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, ["t0", "t1", "t2", "t3", "t4"]);
        assert_eq!(
            block(s.list(Some("me"), Some("bogus"), 2)),
            Err(TaskStoreError::InvalidCursor)
        );
    }
}
