//! The task engine: starts a tool call in the background, tracks what is running (its
//! cancellation token, its pending input), writes every change to the [`TaskStore`] and
//! announces it (`notifications/tasks/status` on legacy connections, the [`TaskNotifier`]
//! hook for 2026 listen streams).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{
    CallToolResult, DetailedTask, ExtTask, ExtTaskStatusNotificationParams, InputRequest,
    InputRequests, InputResponse, InputResponses, Task, TaskStatus, TaskStatusNotificationParams,
};
use mcp_core::version::{Era, ProtocolVersion};
use tokio::sync::{Notify, oneshot, watch};
use tokio_util::sync::CancellationToken;

use super::related::{RelatedTask, StatusSink};
use crate::common::error::McpError;
use crate::context::Context;
use crate::context::peer::Peer;
use crate::session::task_store::{TaskOutcome, TaskRecord, TaskStore, TaskStoreError, TaskUpdate};

/// How tasks are kept and announced.
#[derive(Debug, Clone)]
pub struct TaskOptions {
    /// Retention when the requestor asks for none (and always on 2026, where the server
    /// decides). `None`: unlimited.
    pub default_ttl: Option<Duration>,
    /// The longest retention granted; a longer requested `ttl` is cut to this.
    pub max_ttl: Option<Duration>,
    /// The suggested polling interval (`pollInterval` / `pollIntervalMs`).
    pub poll_interval: Duration,
    /// How many tasks a `tasks/list` page holds.
    pub page_size: usize,
}

impl Default for TaskOptions {
    fn default() -> Self {
        Self {
            default_ttl: Some(Duration::from_secs(3600)),
            max_ttl: Some(Duration::from_secs(24 * 3600)),
            poll_interval: Duration::from_millis(500),
            page_size: 100,
        }
    }
}

/// A task changed: what a 2026 `notifications/tasks` carries, for a listen stream.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskEvent {
    /// The task.
    pub task_id: String,
    /// The notification params (the detailed task shaped for 2026-07-28, without `_meta`).
    pub params: serde_json::Map<String, serde_json::Value>,
}

/// Where task changes go for 2026 clients: implement it on the subscription bus so each
/// `subscriptions/listen` stream whose `taskIds` name the task gets a `notifications/tasks`.
///
/// Any `Fn(TaskEvent)` is a notifier.
pub trait TaskNotifier: Send + Sync + 'static {
    /// Called after every change of a task started on a 2026 connection; must not block.
    fn task_changed(&self, event: TaskEvent);
}

impl<F: Fn(TaskEvent) + Send + Sync + 'static> TaskNotifier for F {
    fn task_changed(&self, event: TaskEvent) {
        self(event)
    }
}

/// What the engine knows of a task that is running in this process.
struct Running {
    cancel: CancellationToken,
    /// The connection that started it (legacy: status notifications go there).
    peer: Option<Peer>,
    /// Legacy: tags its messages and marks it `input_required` while a request waits.
    related: Option<Arc<dyn crate::context::peer::PeerScope>>,
    /// The revision it was started on.
    version: ProtocolVersion,
    /// Input the tool is waiting for (2026: answered through `tasks/update`).
    input: PendingInput,
}

/// The unanswered input requests of one task. Several calls may wait at once (a tool that
/// asks concurrently); each gets its answers when all of its own keys are answered.
#[derive(Default)]
struct PendingInput {
    /// Key → (request, the waiter it belongs to).
    pending: std::collections::BTreeMap<String, (InputRequest, u64)>,
    waiters: HashMap<u64, Waiter>,
    next_waiter: u64,
}

struct Waiter {
    remaining: usize,
    answered: InputResponses,
    reply: oneshot::Sender<InputResponses>,
}

impl PendingInput {
    fn requests(&self) -> InputRequests {
        self.pending
            .iter()
            .map(|(k, (r, _))| (k.clone(), r.clone()))
            .collect()
    }

    /// Hands checked answers to their waiters (a waiter resumes once all of its keys are
    /// answered); the task's next state, `None` when nothing was pending.
    fn accept(&mut self, accepted: Vec<(String, InputResponse)>) -> Option<TaskUpdate> {
        if self.pending.is_empty() {
            return None;
        }
        for (key, response) in accepted {
            let Some((_, waiter)) = self.pending.remove(&key) else {
                continue;
            };
            let Some(w) = self.waiters.get_mut(&waiter) else {
                continue;
            };
            w.answered.insert(key, response);
            w.remaining -= 1;
            if w.remaining == 0 {
                let w = self.waiters.remove(&waiter).expect("present");
                let _ = w.reply.send(w.answered);
            }
        }
        Some(if self.pending.is_empty() {
            TaskUpdate::working()
        } else {
            TaskUpdate::input_required(self.requests())
        })
    }
}

/// Decodes the answers to the keys `pending` knows (others are ignored) and checks each
/// answers its request; any bad one is an error and nothing is accepted.
fn decode_answers<'r>(
    responses: serde_json::Map<String, serde_json::Value>,
    pending: impl Fn(&str) -> Option<&'r InputRequest>,
) -> Result<Vec<(String, InputResponse)>, McpError> {
    let mut accepted = Vec::new();
    for (key, value) in responses {
        let Some(request) = pending(&key) else {
            continue;
        };
        let response: InputResponse = serde_json::from_value(value)
            .map_err(|_| McpError::invalid_params(format!("Invalid input response for `{key}`")))?;
        if !request.is_answered_by(&response) {
            return Err(McpError::invalid_params(format!(
                "Input response for `{key}` does not answer {}",
                request.method()
            )));
        }
        accepted.push((key, response));
    }
    Ok(accepted)
}

/// The engine shared by every connection of a server.
pub struct TaskEngine {
    pub(crate) store: Arc<dyn TaskStore>,
    pub(crate) options: TaskOptions,
    notifier: Mutex<Option<Arc<dyn TaskNotifier>>>,
    running: Mutex<HashMap<String, Running>>,
    /// Woken on every change, for `tasks/result` waiters.
    changed: Notify,
}

impl std::fmt::Debug for TaskEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskEngine")
            .field("options", &self.options)
            .finish_non_exhaustive()
    }
}

/// Why a task could not be started.
fn store_error(e: TaskStoreError) -> McpError {
    McpError::internal(format!("task store: {e}"))
}

impl TaskEngine {
    /// An engine over `store`.
    pub fn new(store: Arc<dyn TaskStore>, options: TaskOptions) -> Self {
        Self {
            store,
            options,
            notifier: Mutex::new(None),
            running: Mutex::new(HashMap::new()),
            changed: Notify::new(),
        }
    }

    /// Sets where 2026 task changes are announced (the subscription bus).
    pub fn set_notifier(&self, notifier: Arc<dyn TaskNotifier>) {
        *self.notifier.lock().expect("notifier lock") = Some(notifier);
    }

    /// The store.
    pub fn store(&self) -> &Arc<dyn TaskStore> {
        &self.store
    }

    /// The retention for a requested `ttl` in ms (`None`: the default).
    pub(crate) fn ttl_for(&self, requested: Option<u64>) -> Option<Duration> {
        let wanted = requested
            .map(Duration::from_millis)
            .or(self.options.default_ttl);
        match (wanted, self.options.max_ttl) {
            (Some(w), Some(max)) => Some(w.min(max)),
            (None, Some(max)) => Some(max),
            (w, None) => w,
        }
    }

    /// Creates the task (durably: `tasks/get` finds it once this returns) and runs `work`
    /// in the background. The tool sees a context of its own: a fresh cancellation token
    /// (fired by `tasks/cancel`), a [`TaskHandle`] extension, and on legacy connections a
    /// peer writing to the session rather than to the finished request's stream.
    pub(crate) async fn start<W, Fut>(
        self: &Arc<Self>,
        ctx: &Context,
        requested_ttl: Option<u64>,
        work: W,
    ) -> Result<Task, McpError>
    where
        W: FnOnce(Context) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = Result<CallToolResult, McpError>> + Send + 'static,
    {
        let id = new_task_id();
        let cancel = CancellationToken::new();
        let tctx = self.task_context(ctx, &id, &cancel, None);
        let ttl = self.ttl_for(requested_ttl);
        let peer = (ctx.era == Era::Legacy).then(|| tctx.peer.clone());
        let task = self.register(ctx, peer, &id, ttl, &cancel).await?;
        self.spawn(id, ttl, cancel, work(tctx));
        Ok(task)
    }

    /// The context a task's work runs with: `cancel` as its token, a [`TaskHandle`] (gated
    /// on `ready` when the task is created later than the context), and a peer writing to
    /// the connection rather than to the originating request's stream.
    pub(crate) fn task_context(
        self: &Arc<Self>,
        ctx: &Context,
        id: &str,
        cancel: &CancellationToken,
        ready: Option<watch::Receiver<bool>>,
    ) -> Context {
        let mut tctx = ctx.clone();
        tctx.cancel = cancel.clone();
        tctx.peer.out = None;
        if ctx.era == Era::Legacy {
            let engine: Weak<dyn StatusSink> = Arc::downgrade(self) as Weak<TaskEngine>;
            tctx.peer.task = Some(Arc::new(RelatedTask::new(id, engine)));
        }
        tctx.extensions.insert(TaskHandle {
            engine: self.clone(),
            task_id: id.to_owned(),
            ready,
        });
        tctx
    }

    /// Creates the record of task `id` (started by the request of `ctx`; `peer`: the legacy
    /// task's own, where its status notifications go untagged) and tracks it as running.
    pub(crate) async fn register(
        &self,
        ctx: &Context,
        peer: Option<Peer>,
        id: &str,
        ttl: Option<Duration>,
        cancel: &CancellationToken,
    ) -> Result<Task, McpError> {
        let mut record = TaskRecord::new(id, ttl, owner_of(ctx));
        record.task.poll_interval =
            Some(u64::try_from(self.options.poll_interval.as_millis()).unwrap_or(u64::MAX));
        let task = record.task.clone();
        self.store.create(record).await.map_err(store_error)?;
        let version = ctx.version.unwrap_or(match ctx.era {
            Era::Legacy => ProtocolVersion::LATEST_HANDSHAKE,
            Era::Modern => ProtocolVersion::LATEST,
        });
        let mut peer = peer;
        let related = peer.as_mut().and_then(|p| p.task.take());
        self.running.lock().expect("running lock").insert(
            id.to_owned(),
            Running {
                cancel: cancel.clone(),
                peer,
                related,
                version,
                input: PendingInput::default(),
            },
        );
        Ok(task)
    }

    /// Runs the work of registered task `id` in the background until it ends, is cancelled
    /// or outlives the task's retention, and records how it ended.
    pub(crate) fn spawn<Fut>(
        self: &Arc<Self>,
        id: String,
        ttl: Option<Duration>,
        cancel: CancellationToken,
        work: Fut,
    ) where
        Fut: std::future::Future<Output = Result<CallToolResult, McpError>> + Send + 'static,
    {
        let engine = self.clone();
        tokio::spawn(async move {
            let run = crate::common::panic::CatchUnwind::new(work);
            // Work outliving its task's retention is stopped: nobody can see its result.
            let expiry = async {
                match ttl {
                    Some(t) => tokio::time::sleep(t).await,
                    None => std::future::pending().await,
                }
            };
            let outcome = tokio::select! {
                biased;
                _ = cancel.cancelled() => None,
                _ = expiry => None,
                // Cancelled through another process sharing the store.
                _ = engine.follow_store(&id) => {
                    cancel.cancel();
                    None
                }
                out = run => Some(out),
            };
            engine.settle(&id, outcome).await;
        });
    }

    /// Records the outcome of task `id`'s work (`None`: it was stopped, the store already
    /// says why) and forgets it as running.
    pub(crate) async fn settle(&self, id: &str, outcome: Option<Result<CallToolResult, McpError>>) {
        let update = match outcome {
            None => None,
            Some(Ok(result)) => Some(TaskUpdate::completed(result)),
            Some(Err(McpError::Cancelled)) => Some(TaskUpdate::cancelled()),
            Some(Err(e)) => {
                if e.as_protocol().is_none() {
                    tracing::error!(task = %id, error = %e, "task failed");
                }
                Some(TaskUpdate::failed(e.to_wire()))
            }
        };
        if let Some(update) = update {
            self.apply(id, update).await.ok();
        }
        self.running.lock().expect("running lock").remove(id);
        self.changed.notify_waiters();
    }

    /// Writes `update` to the store and announces the new state.
    pub(crate) async fn apply(
        &self,
        task_id: &str,
        update: TaskUpdate,
    ) -> Result<TaskRecord, TaskStoreError> {
        let record = self.store.update(task_id, update).await?;
        self.changed.notify_waiters();
        self.announce(&record).await;
        Ok(record)
    }

    async fn announce(&self, record: &TaskRecord) {
        let origin = {
            let running = self.running.lock().expect("running lock");
            running
                .get(&record.task.task_id)
                .map(|r| (r.peer.clone(), r.version))
        };
        match origin {
            Some((Some(peer), ProtocolVersion::V2025_11_25)) => {
                let params = TaskStatusNotificationParams {
                    meta: None,
                    task: record.task.clone(),
                };
                if let Ok(raw) = serde_json::value::to_raw_value(&params) {
                    // Best effort: the client may be gone; the store has the truth.
                    let _ = peer
                        .notify_raw(TaskStatusNotificationParams::METHOD, Some(&raw))
                        .await;
                }
            }
            Some((None, v)) if v.era() == Era::Modern => {
                let notifier = self.notifier.lock().expect("notifier lock").clone();
                if let Some(n) = notifier {
                    let params = ExtTaskStatusNotificationParams::new(detailed(record));
                    let value =
                        mcp_core::types::to_value_for(&params, ProtocolVersion::V2026_07_28);
                    if let serde_json::Value::Object(params) = value {
                        n.task_changed(TaskEvent {
                            task_id: record.task.task_id.clone(),
                            params,
                        });
                    }
                }
            }
            _ => {}
        }
    }

    /// The task `task_id` as `owner` may see it; `-32602` when unknown (or someone else's).
    pub(crate) async fn visible(
        &self,
        task_id: &str,
        owner: Option<&str>,
    ) -> Result<TaskRecord, McpError> {
        match self.store.get(task_id).await.map_err(store_error)? {
            Some(r) if r.owner.is_none() || r.owner.as_deref() == owner => Ok(r),
            _ => Err(unknown_task(task_id)),
        }
    }

    /// Waits until the task is terminal (for `tasks/result`); cancelling the request drops
    /// this future.
    pub(crate) async fn wait_terminal(
        &self,
        task_id: &str,
        owner: Option<&str>,
    ) -> Result<TaskRecord, McpError> {
        loop {
            let notified = self.changed.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let record = self.visible(task_id, owner).await?;
            if record.task.is_terminal() {
                return Ok(record);
            }
            // The poll interval bounds the wait for stores shared with other processes.
            let _ = tokio::time::timeout(self.options.poll_interval, notified).await;
        }
    }

    /// `tasks/cancel`: marks the task cancelled and stops its work. `Err(Terminal)` when it
    /// had already finished.
    pub(crate) async fn cancel(&self, task_id: &str) -> Result<TaskRecord, TaskStoreError> {
        let record = self.apply(task_id, TaskUpdate::cancelled()).await?;
        let token = self
            .running
            .lock()
            .expect("running lock")
            .get(task_id)
            .map(|r| r.cancel.clone());
        if let Some(t) = token {
            t.cancel();
        }
        Ok(record)
    }

    /// `tasks/update`: records the answers to pending input requests. Keys the task is not
    /// waiting for are ignored; once every pending request is answered, the tool resumes.
    /// A task running in another process (a store shared by replicas) gets the answers
    /// through the store ([`TaskStore::deliver_input`]).
    pub(crate) async fn answer(
        &self,
        task_id: &str,
        responses: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), McpError> {
        let here = self
            .running
            .lock()
            .expect("running lock")
            .contains_key(task_id);
        if !here {
            return self.answer_elsewhere(task_id, responses).await;
        }
        let step = {
            let mut running = self.running.lock().expect("running lock");
            let Some(input) = running.get_mut(task_id).map(|r| &mut r.input) else {
                return Ok(());
            };
            // Decode and check everything first: a bad answer changes nothing.
            let accepted = decode_answers(responses, |k| input.pending.get(k).map(|(r, _)| r))?;
            input.accept(accepted)
        };
        self.step(task_id, step).await
    }

    /// Moves the task on after answers were accepted (`None`: nothing changed).
    async fn step(&self, task_id: &str, step: Option<TaskUpdate>) -> Result<(), McpError> {
        let Some(step) = step else {
            return Ok(());
        };
        match self.apply(task_id, step).await {
            Ok(_) | Err(TaskStoreError::Terminal(_)) => Ok(()),
            Err(e) => Err(store_error(e)),
        }
    }

    /// `tasks/update` for a task this process does not run: checked against the pending
    /// requests the store holds, then left in the store for the process that runs it.
    async fn answer_elsewhere(
        &self,
        task_id: &str,
        responses: serde_json::Map<String, serde_json::Value>,
    ) -> Result<(), McpError> {
        let Some(record) = self.store.get(task_id).await.map_err(store_error)? else {
            return Ok(());
        };
        if record.task.status != TaskStatus::InputRequired {
            return Ok(());
        }
        let pending = record.input_requests.unwrap_or_default();
        let accepted = decode_answers(responses, |k| pending.get(k))?;
        if accepted.is_empty() {
            return Ok(());
        }
        match self
            .store
            .deliver_input(task_id, accepted.into_iter().collect())
            .await
        {
            Ok(()) | Err(TaskStoreError::Terminal(_)) | Err(TaskStoreError::NotFound) => Ok(()),
            Err(e) => Err(store_error(e)),
        }
    }

    /// While task `id` runs here, follows what other processes sharing the store do to it,
    /// every poll interval: returns (after announcing it) once the store says the task
    /// ended or is gone (cancelled elsewhere), and hands input answered elsewhere to the
    /// waiting tool. A store that does not answer changes nothing: the task runs on.
    async fn follow_store(&self, id: &str) {
        loop {
            tokio::time::sleep(self.options.poll_interval).await;
            match self.store.get(id).await {
                Ok(None) => return,
                Ok(Some(r)) if r.task.is_terminal() => {
                    self.changed.notify_waiters();
                    self.announce(&r).await;
                    return;
                }
                Ok(Some(_)) | Err(_) => {}
            }
            let waiting = self
                .running
                .lock()
                .expect("running lock")
                .get(id)
                .is_some_and(|r| !r.input.pending.is_empty());
            if !waiting {
                continue;
            }
            let delivered = match self.store.take_input(id).await {
                Ok(d) if !d.is_empty() => d,
                _ => continue,
            };
            let step = {
                let mut running = self.running.lock().expect("running lock");
                running.get_mut(id).and_then(|r| {
                    let pending = &r.input.pending;
                    let accepted: Vec<_> = delivered
                        .into_iter()
                        .filter(|(k, _)| pending.contains_key(k))
                        .collect();
                    r.input.accept(accepted)
                })
            };
            if let Err(e) = self.step(id, step).await {
                tracing::warn!(task = %id, error = %e, "input answered elsewhere not recorded");
            }
        }
    }

    async fn request_input(
        &self,
        task_id: &str,
        requests: InputRequests,
    ) -> Result<InputResponses, McpError> {
        let (tx, rx) = oneshot::channel();
        let legacy = {
            let running = self.running.lock().expect("running lock");
            let r = running
                .get(task_id)
                .ok_or_else(|| McpError::internal("the task is not running"))?;
            match (&r.peer, r.version.era()) {
                (Some(p), Era::Legacy) => {
                    let mut peer = p.clone();
                    peer.task = r.related.clone();
                    Some(peer)
                }
                _ => None,
            }
        };
        if let Some(peer) = legacy {
            // 2025-11-25: the receiver asks the requestor itself, as ordinary requests
            // tagged with the related task (which marks the task `input_required` while
            // they wait: `related.rs`).
            return ask_legacy(&peer, requests).await;
        }
        let all_pending = {
            let mut running = self.running.lock().expect("running lock");
            let r = running
                .get_mut(task_id)
                .ok_or_else(|| McpError::internal("the task is not running"))?;
            let input = &mut r.input;
            if let Some(k) = requests.keys().find(|k| input.pending.contains_key(*k)) {
                return Err(McpError::internal(format!(
                    "input key `{k}` is already waiting for an answer"
                )));
            }
            let id = input.next_waiter;
            input.next_waiter += 1;
            input.waiters.insert(
                id,
                Waiter {
                    remaining: requests.len(),
                    answered: InputResponses::new(),
                    reply: tx,
                },
            );
            for (k, req) in &requests {
                input.pending.insert(k.clone(), (req.clone(), id));
            }
            input.requests()
        };
        self.apply(task_id, TaskUpdate::input_required(all_pending))
            .await
            .map_err(store_error)?;
        // `tasks/update` moves the task back to `working` (or keeps it waiting for another
        // caller's keys).
        rx.await.map_err(|_| McpError::Cancelled)
    }
}

async fn ask_legacy(peer: &Peer, requests: InputRequests) -> Result<InputResponses, McpError> {
    let mut out = InputResponses::new();
    for (key, request) in requests {
        let method = request.method();
        // The task's peer adds the related-task `_meta`.
        let mut params = match &request {
            InputRequest::Elicit(p) => serde_json::to_value(p),
            InputRequest::CreateMessage(p) => serde_json::to_value(p),
            InputRequest::ListRoots(p) => serde_json::to_value(p),
        }
        .map_err(McpError::from)?;
        if !params.is_object() {
            params = serde_json::json!({});
        }
        let raw = serde_json::value::to_raw_value(&params).map_err(McpError::from)?;
        let answer = peer.request_raw(method, Some(&raw)).await?;
        let response: InputResponse = serde_json::from_str(answer.get())
            .map_err(|e| McpError::internal(format!("client answer to {method}: {e}")))?;
        out.insert(key, response);
    }
    Ok(out)
}

/// The handle a tool running as a task finds in its context
/// ([`Context::task`](crate::Context::task)): its id, and a way to ask the client for input.
#[derive(Clone)]
pub struct TaskHandle {
    engine: Arc<TaskEngine>,
    task_id: String,
    /// Set while the call still runs inline (its input rounds, 2026): the task exists once
    /// this turns `true`; dropped unset when the call finished inline.
    ready: Option<watch::Receiver<bool>>,
}

// Defined here rather than in `context`, which sits below the tasks feature.
impl Context {
    /// The task this call runs as, when it runs as one (`crate::features::tasks`).
    pub fn task(&self) -> Option<&TaskHandle> {
        self.extensions.get::<TaskHandle>()
    }
}

impl std::fmt::Debug for TaskHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskHandle")
            .field("task_id", &self.task_id)
            .finish()
    }
}

impl StatusSink for TaskEngine {
    fn update<'a>(
        &'a self,
        task_id: &'a str,
        update: TaskUpdate,
    ) -> crate::common::BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(async move { self.apply(task_id, update).await.map(|_| ()) })
    }
}

impl TaskHandle {
    /// The task id.
    pub fn task_id(&self) -> &str {
        &self.task_id
    }

    /// Waits until the task exists: a call that starts inline (2026, input rounds first)
    /// becomes a task at its first wait, which may be this one.
    async fn created(&self) -> Result<(), McpError> {
        match &self.ready {
            None => Ok(()),
            Some(rx) => rx
                .clone()
                .wait_for(|created| *created)
                .await
                .map(|_| ())
                .map_err(|_| McpError::Cancelled),
        }
    }

    /// Parks the task in `input_required` with `requests` (keyed by ids of your choosing)
    /// and waits for every answer. On 2026 the client reads them from `tasks/get` and
    /// answers with `tasks/update` (one key at a time if it likes); on 2025-11-25 they are
    /// sent to the client as requests tagged with the related task. Calls may run
    /// concurrently (distinct keys); each returns when its own keys are answered, and the
    /// task is `working` again once nothing is pending.
    pub async fn input(&self, requests: InputRequests) -> Result<InputResponses, McpError> {
        if requests.is_empty() {
            return Ok(InputResponses::new());
        }
        self.created().await?;
        self.engine.request_input(&self.task_id, requests).await
    }

    /// Updates the task's `statusMessage` (it stays `working`).
    pub async fn set_status_message(&self, message: impl Into<String>) -> Result<(), McpError> {
        self.created().await?;
        self.engine
            .apply(&self.task_id, TaskUpdate::working().with_message(message))
            .await
            .map(|_| ())
            .map_err(store_error)
    }
}

/// The detailed (2026) view of a record.
pub(crate) fn detailed(record: &TaskRecord) -> DetailedTask {
    let task = ExtTask::from(record.task.clone());
    match (record.task.status, &record.outcome) {
        (TaskStatus::Completed, Some(TaskOutcome::Completed(r))) => {
            DetailedTask::completed(task, r.clone())
        }
        (TaskStatus::Failed, Some(TaskOutcome::Failed(e))) => DetailedTask::failed(task, e.clone()),
        (TaskStatus::InputRequired, _) => {
            DetailedTask::input_required(task, record.input_requests.clone().unwrap_or_default())
        }
        _ => DetailedTask::from(task),
    }
}

/// `-32602` for a task id nobody knows.
pub(crate) fn unknown_task(task_id: &str) -> McpError {
    McpError::Protocol(
        ErrorObject::invalid_params(format!("Unknown task: {task_id}"))
            .with_data(serde_json::json!({ "taskId": task_id })),
    )
}

/// Who may see a task started by this request: the authenticated subject when there is one,
/// else the legacy connection (tasks/list is per session); `None` on 2026 without auth (the
/// unguessable id is the capability).
pub(crate) fn owner_of(ctx: &Context) -> Option<String> {
    if let Some(p) = ctx.extensions.get::<crate::common::principal::Principal>() {
        return Some(format!("principal:{}", p.subject));
    }
    match ctx.era {
        Era::Legacy => ctx
            .session()
            .map(|s| s.lock().expect("session lock").task_scope().to_owned()),
        Era::Modern => None,
    }
}

/// A random 128-bit task id.
pub(crate) fn new_task_id() -> String {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).expect("the OS random source failed");
    let mut s = String::with_capacity(32);
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    s
}
