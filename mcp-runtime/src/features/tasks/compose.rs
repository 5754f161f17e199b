//! Input rounds, then a task (2026-07-28, SEP-2322 + SEP-2663): a task-eligible
//! `tools/call` first runs inline under the multi-round resolver, so a tool that needs input
//! answers `input_required` (and is picked up again on the retry with its `requestState`).
//! Once a run is past its input — the tool waits on something without having asked for
//! anything it lacks — the call becomes a task: its future moves, as it is, into the task
//! engine, and the answer is `resultType: "task"` (never carrying the MRTR `requestState`).
//! Input the tool asks for after that parks the task as `input_required`, answered with
//! `tasks/update`.
//!
//! A run that finishes before its first wait still answers as a task, created already
//! terminal, so a task-eligible call always yields a task once its input is complete.

use std::future::{Future, poll_fn};
use std::sync::{Arc, OnceLock};
use std::task::Poll;

use mcp_core::types::{
    CallToolResult, ExtCreateTaskResult, InputRequest, InputRequests, InputResponse,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde_json::value::RawValue;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::engine::{TaskEngine, TaskHandle, new_task_id};
use crate::common::error::{HandlerResult, McpError};
use crate::common::panic::CatchUnwind;
use crate::context::Context;
use crate::context::interaction::{BoxFuture, InputResolver, InteractionError};
use crate::context::peer::PeerError;
use crate::features::host::Host;
use crate::features::input_rounds::{self as rounds, Round};

/// The tool's resolver: the round's while the call runs inline, the task's once it is one.
struct Phased {
    round: Arc<Round>,
    task: OnceLock<TaskHandle>,
}

impl InputResolver for Phased {
    fn resolve<'a>(
        &'a self,
        key: &'a str,
        request: InputRequest,
    ) -> BoxFuture<'a, Result<InputResponse, InteractionError>> {
        let Some(task) = self.task.get() else {
            return self.round.resolve(key, request);
        };
        Box::pin(async move {
            // The task ending (cancelled, expired) is what makes the wait fail.
            let gone = || InteractionError::Peer(PeerError::Disconnected);
            let mut answers = task
                .input(InputRequests::from([(key.to_owned(), request)]))
                .await
                .map_err(|_| gone())?;
            answers.remove(key).ok_or_else(gone)
        })
    }
}

/// Runs the tool a task was asked for with its context and arguments: the one call into
/// the handler table, made by the dispatcher (generic over the table), so that everything
/// else on the task path is compiled once.
pub(crate) type ToolRun = Box<
    dyn FnOnce(
            Context,
            Option<Box<RawValue>>,
        ) -> BoxFuture<'static, Result<CallToolResult, McpError>>
        + Send,
>;

/// How the inline part of a call ended.
enum Inline {
    /// The tool finished (its outcome, which may be an `input_required` round).
    Done(Result<CallToolResult, McpError>),
    /// The tool waits on something other than missing input: it becomes a task.
    Waiting,
    /// The request was cancelled first.
    Cancelled,
}

/// Runs task-eligible tool `name` on a 2026 request: inline while it asks for input, then
/// as a task.
pub(crate) async fn call<D: Host>(
    d: &D,
    engine: &Arc<TaskEngine>,
    ctx: &Context,
    name: String,
    args: Option<Box<RawValue>>,
    run: ToolRun,
    version: Option<ProtocolVersion>,
) -> HandlerResult {
    let mut hctx = d.handler_ctx(ctx);
    if ctx.era() != Era::Modern {
        return Err(McpError::internal(
            "input rounds exist only on 2026 requests",
        ));
    }
    let round = rounds::open(
        &mut hctx,
        d.identity(),
        ctx.method(),
        &name,
        args.as_deref(),
    )
    .await?;
    let id = new_task_id();
    let cancel = CancellationToken::new();
    let (created, ready) = watch::channel(false);
    let mut tctx = engine.task_context(&hctx, &id, &cancel, Some(ready));
    let handle = tctx.task().cloned().expect("task_context sets the handle");
    let phased = Arc::new(Phased {
        round: round.clone(),
        task: OnceLock::new(),
    });
    tctx.set_input_resolver(phased.clone());

    let mut work = Box::pin(CatchUnwind::boxed(run(tctx, args)));
    let inline = {
        let stopped = ctx.cancel.cancelled();
        tokio::pin!(stopped);
        poll_fn(|cx| {
            if stopped.as_mut().poll(cx).is_ready() {
                return Poll::Ready(Inline::Cancelled);
            }
            match work.as_mut().poll(cx) {
                Poll::Ready(out) => Poll::Ready(Inline::Done(out)),
                // It asked for input it lacks: its outcome is this round's answer.
                Poll::Pending if round.is_asking() => Poll::Pending,
                Poll::Pending => Poll::Ready(Inline::Waiting),
            }
        })
        .await
    };

    let ttl = engine.ttl_for(None);
    let task = match inline {
        Inline::Cancelled => {
            cancel.cancel();
            return Err(McpError::Cancelled);
        }
        Inline::Done(out) => {
            if let Some(ir) = rounds::finish_opened(&round)? {
                return d.shape(ir, version);
            }
            let task = engine.register(ctx, None, &id, ttl, &cancel).await?;
            engine.settle(&id, Some(out)).await;
            match engine.store().get(&id).await {
                Ok(Some(record)) => record.task,
                _ => task,
            }
        }
        Inline::Waiting => {
            let task = engine.register(ctx, None, &id, ttl, &cancel).await?;
            // From here the tool's input parks the task; its TaskHandle is usable.
            let _ = phased.task.set(handle);
            let _ = created.send(true);
            engine.spawn(id, ttl, cancel, work);
            task
        }
    };
    d.shape(ExtCreateTaskResult::new(task.into()), version)
}
