//! [`RedisTaskStore`]: tasks in Redis, shared by the replicas of a deployment, with the
//! semantics of the [`InMemoryTaskStore`](crate::session::task_store::InMemoryTaskStore).
//!
//! Each task is a hash (`<prefix>{tasks}:task:<id>`) that expires with the task: `base`
//! (what never changes: the task as created, its owner, its expiry), `status`, `state`
//! (message, last update, pending input, outcome) and one `in:<key>` field per input answer
//! delivered for the process running it. Each owner has an index by creation order
//! (`<prefix>{tasks}:tasks:<owner>`, scores the creation time in ms, one more than the
//! newest entry's when that is not below it) and one by expiry
//! (`<prefix>{tasks}:task-exp:<owner>`), both kept to [`TaskLimits::max_tasks_per_owner`].
//! Every change is one Lua script, so writers on several replicas never interleave (a
//! terminal task never changes, whoever writes last). The scripts reach tasks through the
//! indexes and a task by its id alone, so every task key carries the one hash tag
//! `{tasks}`: on Redis Cluster the task store lives in one slot.

use std::sync::LazyLock;
use std::time::{Duration, SystemTime};

use ::redis::Script;
use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{CallToolResult, InputRequests, InputResponses, Task, TaskStatus};
use serde::{Deserialize, Serialize};

use super::connection::{Conn, Resend, millis};
use crate::common::BoxFuture;
use crate::session::store::StoreError;
use crate::session::task_store::{
    DEFAULT_TASK_CAPACITY, TaskOutcome, TaskPage, TaskRecord, TaskStore, TaskStoreError,
    TaskUpdate, iso8601,
};

/// How long tasks are kept in Redis and how many each owner may have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TaskLimits {
    /// The longest a task is kept: a task with a longer ttl, or none (unlimited), is
    /// forgotten after this. Default 24 h.
    pub max_task_ttl: Duration,
    /// The bound of each owner's index: at it, creating a task first drops the owner's
    /// expired tasks, then its oldest finished one, else is refused
    /// ([`TaskStoreError::Full`]). Default [`DEFAULT_TASK_CAPACITY`].
    pub max_tasks_per_owner: usize,
}

impl Default for TaskLimits {
    fn default() -> Self {
        Self {
            max_task_ttl: Duration::from_secs(24 * 3600),
            max_tasks_per_owner: DEFAULT_TASK_CAPACITY,
        }
    }
}

/// The kind of a task's key (`<prefix>{tasks}:task:<id>`).
const TASK: &str = "{tasks}:task";

/// Shared by the scripts: whether status `s` is terminal.
const TERMINAL: &str = "local function terminal(s)
    return s == 'completed' or s == 'failed' or s == 'cancelled'
end
";

/// KEYS: task, index, expiries. ARGV: id, base, status, state, ttl ms, expiry (epoch ms),
/// now (epoch ms), bound, task key prefix. 1 created, -1 duplicate, 0 full.
static CREATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{TERMINAL}
        if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
        local function drop(id)
            redis.call('DEL', ARGV[9] .. id)
            redis.call('ZREM', KEYS[2], id)
            redis.call('ZREM', KEYS[3], id)
        end
        for _, id in ipairs(redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', ARGV[7])) do
            drop(id)
        end
        if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[8]) then
            local victim
            for _, id in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
                local s = redis.call('HGET', ARGV[9] .. id, 'status')
                if not s or terminal(s) then victim = id break end
            end
            if not victim then return 0 end
            drop(victim)
        end
        local seq = tonumber(ARGV[7])
        local top = redis.call('ZREVRANGE', KEYS[2], 0, 0, 'WITHSCORES')
        if top[2] and tonumber(top[2]) >= seq then seq = tonumber(top[2]) + 1 end
        redis.call('HSET', KEYS[1], 'base', ARGV[2], 'status', ARGV[3], 'state', ARGV[4],
            'exp', ARGV[6])
        redis.call('PEXPIRE', KEYS[1], ARGV[5])
        redis.call('ZADD', KEYS[2], seq, ARGV[1])
        redis.call('ZADD', KEYS[3], ARGV[6], ARGV[1])
        for i = 2, 3 do
            if redis.call('PTTL', KEYS[i]) < tonumber(ARGV[5]) then
                redis.call('PEXPIRE', KEYS[i], ARGV[5])
            end
        end
        return 1"
    ))
});

/// KEYS: task. ARGV: status, state, now. {0} gone, {1, status} terminal, {2, base} done.
static UPDATE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{TERMINAL}
        local v = redis.call('HMGET', KEYS[1], 'base', 'status', 'exp')
        if not v[1] or tonumber(v[3]) <= tonumber(ARGV[3]) then return {{0, ''}} end
        if terminal(v[2]) then return {{1, v[2]}} end
        redis.call('HSET', KEYS[1], 'status', ARGV[1], 'state', ARGV[2])
        return {{2, v[1]}}"
    ))
});

/// KEYS: task. ARGV: now, then key, answer pairs. {0} gone, {1, status} terminal, {2} kept.
static DELIVER: LazyLock<Script> = LazyLock::new(|| {
    Script::new(&format!(
        "{TERMINAL}
        local v = redis.call('HMGET', KEYS[1], 'status', 'exp')
        if not v[1] or tonumber(v[2]) <= tonumber(ARGV[1]) then return {{0, ''}} end
        if terminal(v[1]) then return {{1, v[1]}} end
        for i = 2, #ARGV, 2 do
            redis.call('HSET', KEYS[1], 'in:' .. ARGV[i], ARGV[i + 1])
        end
        return {{2, ''}}"
    ))
});

/// KEYS: task. Key, answer pairs, each removed as it is taken.
static TAKE: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "local out = {}
        local all = redis.call('HGETALL', KEYS[1])
        for i = 1, #all, 2 do
            if string.sub(all[i], 1, 3) == 'in:' then
                out[#out + 1] = string.sub(all[i], 4)
                out[#out + 1] = all[i + 1]
                redis.call('HDEL', KEYS[1], all[i])
            end
        end
        return out",
    )
});

/// KEYS: index, expiries. ARGV: task key prefix, first sequence number, how many, now.
/// Flat (seq, base, status, state) of the live tasks from there, oldest first; entries of
/// tasks Redis has expired are dropped on the way.
static LIST: LazyLock<Script> = LazyLock::new(|| {
    Script::new(
        "local out = {}
        local from = ARGV[2]
        local want = tonumber(ARGV[3])
        while true do
            local batch = redis.call('ZRANGEBYSCORE', KEYS[1], from, '+inf', 'WITHSCORES',
                'LIMIT', 0, want)
            if #batch == 0 then return out end
            for i = 1, #batch, 2 do
                local id, seq = batch[i], batch[i + 1]
                local v = redis.call('HMGET', ARGV[1] .. id, 'base', 'status', 'state', 'exp')
                if not v[1] then
                    redis.call('ZREM', KEYS[1], id)
                    redis.call('ZREM', KEYS[2], id)
                elseif tonumber(v[4]) > tonumber(ARGV[4]) then
                    out[#out + 1] = seq
                    out[#out + 1] = v[1]
                    out[#out + 1] = v[2]
                    out[#out + 1] = v[3]
                    if #out == want * 4 then return out end
                end
                from = '(' .. seq
            end
        end",
    )
});

/// What never changes in a task.
#[derive(Serialize, Deserialize)]
struct Base {
    task: Task,
    owner: Option<String>,
    expires_at: Option<SystemTime>,
}

/// What [`TaskStore::update`] changes.
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct State {
    status_message: Option<String>,
    last_updated_at: String,
    input_requests: Option<InputRequests>,
    outcome: Option<Outcome>,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
enum Outcome {
    Completed(CallToolResult),
    Failed(ErrorObject),
}

impl From<TaskOutcome> for Outcome {
    fn from(o: TaskOutcome) -> Self {
        match o {
            TaskOutcome::Completed(r) => Outcome::Completed(r),
            TaskOutcome::Failed(e) => Outcome::Failed(e),
        }
    }
}

impl From<Outcome> for TaskOutcome {
    fn from(o: Outcome) -> Self {
        match o {
            Outcome::Completed(r) => TaskOutcome::Completed(r),
            Outcome::Failed(e) => TaskOutcome::Failed(e),
        }
    }
}

/// A [`TaskStore`] in Redis, shared by every process that connects to the same Redis with
/// the same prefix (from [`RedisStores::task_store`](super::RedisStores::task_store)).
///
/// It keeps the rules of the in-memory store: an expired task is never returned, a
/// terminal one never changes, pages run oldest first with opaque cursors, and at its
/// bound (per owner here) an owner's expired then oldest finished task makes room. Redis
/// expires tasks by itself, so [`purge_expired`](TaskStore::purge_expired) has nothing to
/// do and answers 0.
pub struct RedisTaskStore {
    conn: Conn,
    limits: TaskLimits,
}

impl std::fmt::Debug for RedisTaskStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisTaskStore")
            .field("prefix", &self.conn.prefix())
            .field("limits", &self.limits)
            .finish()
    }
}

const CURSOR_PREFIX: &str = "tk.";

fn backend(e: StoreError) -> TaskStoreError {
    TaskStoreError::Backend(e.to_string())
}

fn corrupt(what: &str, e: impl std::fmt::Display) -> TaskStoreError {
    backend(StoreError::Corrupt(format!("task {what}: {e}")))
}

fn to_json(v: &impl Serialize) -> Result<String, TaskStoreError> {
    serde_json::to_string(v).map_err(|e| corrupt("encoding", e))
}

fn epoch_ms(t: SystemTime) -> u64 {
    let d = t.duration_since(SystemTime::UNIX_EPOCH).unwrap_or_default();
    u64::try_from(d.as_millis()).unwrap_or(u64::MAX)
}

fn status_of(s: &str) -> Result<TaskStatus, TaskStoreError> {
    serde_json::from_value(serde_json::Value::String(s.to_owned()))
        .map_err(|e| corrupt("status", e))
}

/// `Terminal` for a status the scripts report.
fn terminal(s: &str) -> TaskStoreError {
    match status_of(s) {
        Ok(s) => TaskStoreError::Terminal(s),
        Err(e) => e,
    }
}

/// The record from its three parts.
fn decode(base: &str, status: &str, state: &str) -> Result<TaskRecord, TaskStoreError> {
    let base: Base = serde_json::from_str(base).map_err(|e| corrupt("base", e))?;
    let state: State = serde_json::from_str(state).map_err(|e| corrupt("state", e))?;
    let mut task = base.task;
    task.status = status_of(status)?;
    task.status_message = state.status_message;
    task.last_updated_at = state.last_updated_at;
    Ok(TaskRecord {
        task,
        owner: base.owner,
        input_requests: state.input_requests,
        outcome: state.outcome.map(Into::into),
        expires_at: base.expires_at,
    })
}

impl RedisTaskStore {
    pub(super) fn new(conn: Conn, limits: TaskLimits) -> Self {
        Self { conn, limits }
    }

    fn key(&self, id: &str) -> String {
        self.conn.key(TASK, id)
    }

    /// The index and the expiries of `owner`'s tasks.
    fn owner_keys(&self, owner: Option<&str>) -> (String, String) {
        let tag = owner.map_or_else(|| "none".to_owned(), |o| format!("o:{o}"));
        (
            self.conn.key("{tasks}:tasks", &tag),
            self.conn.key("{tasks}:task-exp", &tag),
        )
    }

    /// When Redis forgets a task created now (at most the cap; an unlimited task at it).
    fn key_ttl(&self, record: &TaskRecord, now: SystemTime) -> Duration {
        let left = record.expires_at.map_or(self.limits.max_task_ttl, |e| {
            e.duration_since(now).unwrap_or_default()
        });
        left.min(self.limits.max_task_ttl)
    }

    async fn create_record(&self, record: TaskRecord) -> Result<(), TaskStoreError> {
        let now = SystemTime::now();
        let ttl = self.key_ttl(&record, now);
        let (index, expiries) = self.owner_keys(record.owner.as_deref());
        let id = record.task.task_id.clone();
        let status = record.task.status.as_str();
        let state = to_json(&State {
            status_message: record.task.status_message.clone(),
            last_updated_at: record.task.last_updated_at.clone(),
            input_requests: record.input_requests,
            outcome: record.outcome.map(Into::into),
        })?;
        let base = to_json(&Base {
            task: record.task,
            owner: record.owner,
            expires_at: record.expires_at,
        })?;
        let mut call = CREATE.prepare_invoke();
        call.key(self.key(&id)).key(index).key(expiries);
        call.arg(&id)
            .arg(base)
            .arg(status)
            .arg(state)
            .arg(millis(ttl))
            .arg(epoch_ms(now) + millis(ttl))
            .arg(epoch_ms(now))
            .arg(self.limits.max_tasks_per_owner.max(1))
            .arg(self.conn.key(TASK, ""));
        match self.conn.write_script::<i64>(&call, Resend::Refused).await {
            Ok(1) => Ok(()),
            Ok(-1) => Err(TaskStoreError::Duplicate),
            Ok(_) => Err(TaskStoreError::Full),
            Err(e) => Err(backend(e)),
        }
    }

    async fn get_record(&self, id: &str) -> Result<Option<TaskRecord>, TaskStoreError> {
        let parts: Vec<Option<String>> = self
            .conn
            .cmd(
                ::redis::cmd("HMGET")
                    .arg(self.key(id))
                    .arg(&["base", "status", "state"]),
                Resend::Dropped,
            )
            .await
            .map_err(backend)?;
        let [Some(base), Some(status), Some(state)] = parts.as_slice() else {
            return Ok(None);
        };
        let record = decode(base, status, state)?;
        Ok((!record.is_expired(SystemTime::now())).then_some(record))
    }

    async fn update_record(
        &self,
        id: &str,
        update: TaskUpdate,
    ) -> Result<TaskRecord, TaskStoreError> {
        let now = SystemTime::now();
        let status = update.status;
        let state = State {
            status_message: update.status_message,
            last_updated_at: iso8601(now),
            input_requests: update
                .input_requests
                .filter(|_| status == TaskStatus::InputRequired),
            outcome: update
                .outcome
                .filter(|_| matches!(status, TaskStatus::Completed | TaskStatus::Failed))
                .map(Into::into),
        };
        let state_json = to_json(&state)?;
        let mut call = UPDATE.prepare_invoke();
        call.key(self.key(id))
            .arg(status.as_str())
            .arg(&state_json)
            .arg(epoch_ms(now));
        let (code, detail): (i64, String) = self
            .conn
            .write_script(&call, Resend::Refused)
            .await
            .map_err(backend)?;
        match code {
            2 => decode(&detail, status.as_str(), &state_json),
            1 => Err(terminal(&detail)),
            _ => Err(TaskStoreError::NotFound),
        }
    }

    async fn list_page(
        &self,
        owner: Option<&str>,
        cursor: Option<&str>,
        limit: usize,
    ) -> Result<TaskPage, TaskStoreError> {
        let start = match cursor {
            None => 0,
            Some(c) => c
                .strip_prefix(CURSOR_PREFIX)
                .and_then(|s| u64::from_str_radix(s, 16).ok())
                .ok_or(TaskStoreError::InvalidCursor)?,
        };
        let limit = limit.max(1);
        let (index, expiries) = self.owner_keys(owner);
        let mut call = LIST.prepare_invoke();
        call.key(index)
            .key(expiries)
            .arg(self.conn.key(TASK, ""))
            .arg(start)
            .arg(limit + 1)
            .arg(epoch_ms(SystemTime::now()));
        let flat: Vec<String> = self
            .conn
            .script(&call, Resend::Dropped)
            .await
            .map_err(backend)?;
        let mut tasks = Vec::new();
        let mut next_cursor = None;
        for row in flat.chunks_exact(4) {
            if tasks.len() == limit {
                let seq: u64 = row[0].parse().map_err(|e| corrupt("sequence", e))?;
                next_cursor = Some(format!("{CURSOR_PREFIX}{seq:x}"));
                break;
            }
            tasks.push(decode(&row[1], &row[2], &row[3])?.task);
        }
        Ok(TaskPage { tasks, next_cursor })
    }

    async fn deliver(&self, id: &str, responses: InputResponses) -> Result<(), TaskStoreError> {
        let mut call = DELIVER.prepare_invoke();
        call.key(self.key(id)).arg(epoch_ms(SystemTime::now()));
        for (key, response) in &responses {
            call.arg(key).arg(to_json(response)?);
        }
        let (code, detail): (i64, String) = self
            .conn
            .write_script(&call, Resend::Dropped)
            .await
            .map_err(backend)?;
        match code {
            2 => Ok(()),
            1 => Err(terminal(&detail)),
            _ => Err(TaskStoreError::NotFound),
        }
    }

    async fn take(&self, id: &str) -> Result<InputResponses, TaskStoreError> {
        let mut call = TAKE.prepare_invoke();
        call.key(self.key(id));
        let flat: Vec<String> = self
            .conn
            .script(&call, Resend::Refused)
            .await
            .map_err(backend)?;
        flat.chunks_exact(2)
            .map(|kv| {
                let response = serde_json::from_str(&kv[1]).map_err(|e| corrupt("input", e))?;
                Ok((kv[0].clone(), response))
            })
            .collect()
    }
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> BoxFuture<'_, Result<(), TaskStoreError>> {
        Box::pin(self.create_record(record))
    }

    fn get<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<Option<TaskRecord>, TaskStoreError>> {
        Box::pin(self.get_record(task_id))
    }

    fn update<'a>(
        &'a self,
        task_id: &'a str,
        update: TaskUpdate,
    ) -> BoxFuture<'a, Result<TaskRecord, TaskStoreError>> {
        Box::pin(self.update_record(task_id, update))
    }

    fn list<'a>(
        &'a self,
        owner: Option<&'a str>,
        cursor: Option<&'a str>,
        limit: usize,
    ) -> BoxFuture<'a, Result<TaskPage, TaskStoreError>> {
        Box::pin(self.list_page(owner, cursor, limit))
    }

    fn purge_expired(&self, _now: SystemTime) -> BoxFuture<'_, Result<usize, TaskStoreError>> {
        // Redis expires each task's key; the indexes drop their entries lazily.
        Box::pin(std::future::ready(Ok(0)))
    }

    fn deliver_input<'a>(
        &'a self,
        task_id: &'a str,
        responses: InputResponses,
    ) -> BoxFuture<'a, Result<(), TaskStoreError>> {
        Box::pin(self.deliver(task_id, responses))
    }

    fn take_input<'a>(
        &'a self,
        task_id: &'a str,
    ) -> BoxFuture<'a, Result<InputResponses, TaskStoreError>> {
        Box::pin(self.take(task_id))
    }
}
