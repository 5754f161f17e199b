//! Multi-round-trip requests (2026-07-28) on the server side: the resolver the dispatcher
//! attaches to modern `tools/call`, `prompts/get` and `resources/read` handlers, and the two
//! hooks around the handler.
//!
//! Before the handler, [`begin`] reads `inputResponses` and `requestState` from the params
//! (`-32602` when they are not an object / a string), opens the sealed state (`-32602
//! Invalid or expired requestState` when it does not open for this request), and gathers the
//! answers: those carried from earlier rounds plus the client's responses to the keys asked
//! last (other keys are ignored; without a state every response counts). The handler runs;
//! each interaction call takes its answer or records its request. After it, [`finish`] turns
//! recorded requests into an `input_required` result whose new state carries the answers the
//! handler used and the keys now asked, one round further (`-32602` past the round limit);
//! an answer that did not fit its request is `-32602` naming the key.
//!
//! A first attempt (params without `inputResponses` / `requestState`) has nothing to open:
//! [`begin`] then only arms a [`LazyRound`], and the round, its associated data and its
//! state exist only once the handler asks for input — most tools never do.

use std::collections::BTreeMap;
use std::collections::btree_map::Entry;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{InputRequest, InputRequiredResult, InputResponse, ResultType};
use mcp_core::version::Era;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use crate::common::error::McpError;
use crate::context::Context;
use crate::context::interaction::{
    BoxFuture, DeferredInput, InputResolver, InteractionError, decode_response,
    invalid_response_error,
};
use crate::session::ServerIdentity;
use crate::session::request_state::{Binding, RequestStateConfig, StatePayload};

/// One run of a modern request's handler.
pub(crate) struct Round {
    cfg: RequestStateConfig,
    aad: Vec<u8>,
    /// `input_required` answers so far.
    round: u32,
    answers: BTreeMap<String, Box<RawValue>>,
    inner: Mutex<RoundInner>,
}

impl Round {
    /// Whether this run asked for input it does not have yet (or got an answer that did
    /// not fit): its outcome will be `input_required` (or that error), so it must finish
    /// inline rather than become a task.
    pub(crate) fn is_asking(&self) -> bool {
        let inner = self.inner.lock().expect("round lock");
        !inner.pending.is_empty() || inner.failure.is_some()
    }
}

#[derive(Default)]
struct RoundInner {
    pending: BTreeMap<String, InputRequest>,
    used: BTreeMap<String, Box<RawValue>>,
    failure: Option<ErrorObject>,
}

impl InputResolver for Round {
    fn resolve<'a>(
        &'a self,
        key: &'a str,
        request: InputRequest,
    ) -> BoxFuture<'a, Result<InputResponse, InteractionError>> {
        let mut inner = self.inner.lock().expect("round lock");
        let outcome = match self.answers.get(key) {
            Some(raw) => match decode_response(&request, raw) {
                Ok(r) => {
                    inner.used.insert(key.to_owned(), raw.clone());
                    Ok(r)
                }
                Err(why) => {
                    inner
                        .failure
                        .get_or_insert_with(|| invalid_response_error(key, &why));
                    Err(InteractionError::InvalidResponse(why))
                }
            },
            None => match inner.pending.entry(key.to_owned()) {
                Entry::Occupied(e) if *e.get() != request => {
                    Err(InteractionError::DuplicateKey(key.to_owned()))
                }
                Entry::Occupied(_) => Err(InteractionError::InputRequired {
                    key: key.to_owned(),
                }),
                Entry::Vacant(e) => {
                    e.insert(request);
                    Err(InteractionError::InputRequired {
                        key: key.to_owned(),
                    })
                }
            },
        };
        Box::pin(std::future::ready(outcome))
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RetryParams<'a> {
    #[serde(default, borrow, deserialize_with = "present")]
    input_responses: Option<&'a RawValue>,
    #[serde(default, borrow, deserialize_with = "present")]
    request_state: Option<&'a RawValue>,
}

/// Keeps a present member even when it is `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

fn principal(ctx: &Context) -> Option<String> {
    let p = ctx
        .extensions()
        .get::<crate::common::principal::Principal>()?;
    Some(p.subject.clone())
}

/// How one handler run takes part in multi-round-trip requests (what [`begin`] set up).
pub(crate) enum Started {
    /// Legacy connections: interaction calls go to the peer.
    Off,
    /// A retry (the params carry `inputResponses` or `requestState`): the round was opened
    /// before the handler ran.
    Opened(Arc<Round>),
    /// A first attempt: bookkeeping starts only if the handler asks for input.
    Lazy(Arc<LazyRound>),
}

/// The multi-round slot of a first attempt: empty until the handler asks for input, so a
/// handler that never does pays one small allocation and no parse of its params.
pub(crate) struct LazyRound {
    cfg: RequestStateConfig,
    /// The default-key counter (`elicit-1`, `sample-2`, ...).
    calls: AtomicUsize,
    /// The round and the caller's principal, made on the first input request.
    round: OnceLock<(Round, Option<String>)>,
}

impl DeferredInput for LazyRound {
    fn next_key(&self, kind: &str) -> String {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{kind}-{n}")
    }

    /// Records (or answers, never: a first attempt has no answers) one input request.
    fn resolve<'a>(
        &'a self,
        ctx: &'a Context,
        key: &'a str,
        request: InputRequest,
    ) -> BoxFuture<'a, Result<InputResponse, InteractionError>> {
        let (round, _) = self.round.get_or_init(|| {
            let round = Round {
                cfg: self.cfg.clone(),
                aad: Vec::new(),
                round: 0,
                answers: BTreeMap::new(),
                inner: Mutex::default(),
            };
            (round, principal(ctx))
        });
        round.resolve(key, request)
    }
}

/// Whether `params` may carry retry members; a false positive only costs the full parse.
/// The intake's `_meta` pass knows for sure (present, even `null`, counts); otherwise a
/// search decides, where a backslash anywhere counts (a key may be written with escapes).
fn may_be_retry(ctx: &Context, params: &RawValue) -> bool {
    if let Some(p) = &ctx.params
        && let (Some(responses), Some(state)) =
            (p.member("inputResponses"), p.member("requestState"))
    {
        return responses.is_some() || state.is_some();
    }
    let params = params.get();
    params.contains("inputResponses") || params.contains("requestState") || params.contains('\\')
}

/// Prepares a modern request's handler run: [`Started::Off`] on legacy connections
/// (interaction calls go to the peer there) and for a call delegated to a mounted server
/// (the parent's round serves it). Not `async`: the dispatcher that awaits it is
/// generic, and what it polls is compiled in the user's crate; a retry's opening is boxed
/// here instead (once per retry), and a first attempt waits for nothing.
pub(crate) fn begin<'a>(
    ctx: &'a mut Context,
    identity: &'a ServerIdentity,
    method: &'a str,
    target: &'a str,
    arguments: Option<&'a RawValue>,
) -> Begun<'a> {
    if ctx.era() != Era::Modern {
        return Begun::Now(Started::Off);
    }
    // A call a parent delegated to a mounted server runs under the parent's round (its
    // names bind the `requestState`; its dispatcher answers `input_required`): the child
    // opens none of its own.
    if ctx
        .extensions()
        .get::<crate::features::handle::MountedHandle>()
        .is_some()
    {
        return Begun::Now(Started::Off);
    }
    let cfg = identity.request_state.clone();
    if !ctx.params().is_some_and(|p| may_be_retry(ctx, p)) {
        let lazy = Arc::new(LazyRound {
            cfg,
            calls: AtomicUsize::new(0),
            round: OnceLock::new(),
        });
        ctx.lazy_round = Some(lazy.clone());
        return Begun::Now(Started::Lazy(lazy));
    }
    Begun::Opening(Box::pin(async move {
        open(ctx, identity, method, target, arguments)
            .await
            .map(Started::Opened)
    }))
}

/// What [`begin`] found: the run's start, or a retry's round still being opened.
pub(crate) enum Begun<'a> {
    Now(Started),
    Opening(BoxFuture<'a, Result<Started, McpError>>),
}

impl Begun<'_> {
    /// The run's start, once a retry's round is open.
    pub(crate) async fn started(self) -> Result<Started, McpError> {
        match self {
            Begun::Now(started) => Ok(started),
            Begun::Opening(opening) => opening.await,
        }
    }
}

/// Opens a modern request's round now (a retry's answers and state read and checked), and
/// makes it the context's input resolver. The task composer needs the round from the start,
/// to see whether the tool is asking.
pub(crate) async fn open(
    ctx: &mut Context,
    identity: &ServerIdentity,
    method: &str,
    target: &str,
    arguments: Option<&RawValue>,
) -> Result<Arc<Round>, McpError> {
    let cfg = identity.request_state.clone();
    let params = ctx.params().map_or("{}", RawValue::get);
    let retry: RetryParams<'_> =
        serde_json::from_str(params).map_err(|_| McpError::invalid_params("Invalid params"))?;
    let responses: BTreeMap<String, Box<RawValue>> = match retry.input_responses {
        None => BTreeMap::new(),
        Some(raw) => serde_json::from_str(raw.get()).map_err(|_| {
            McpError::invalid_params("inputResponses must be an object of input responses")
        })?,
    };
    let token: Option<String> = match retry.request_state {
        None => None,
        Some(raw) => Some(
            serde_json::from_str(raw.get())
                .map_err(|_| McpError::invalid_params("requestState must be a string"))?,
        ),
    };
    let principal = principal(ctx);
    let aad = Binding {
        method,
        target,
        arguments,
        audience: cfg.audience_name().unwrap_or(&identity.info.name),
        principal: principal.as_deref(),
    }
    .aad();
    let (round, answers) = match token {
        None => (0, responses),
        Some(token) => {
            let state = cfg.open(&aad, &token).await?;
            let mut answers = state.answers;
            for (k, v) in responses {
                if state.pending.contains_key(&k) {
                    answers.insert(k, v);
                }
            }
            (state.round, answers)
        }
    };
    let round = Arc::new(Round {
        cfg,
        aad,
        round,
        answers,
        inner: Mutex::default(),
    });
    ctx.set_input_resolver(round.clone());
    Ok(round)
}

/// After the handler: the `input_required` result when it asked for input, or the error
/// of an answer that did not fit; `None` to send the handler's own outcome. `binding` is
/// what [`begin`] was given (a lazy round computes its associated data only now).
pub(crate) fn finish(
    started: Started,
    identity: &ServerIdentity,
    method: &str,
    target: &str,
    arguments: Option<&RawValue>,
) -> Result<Option<InputRequiredResult>, McpError> {
    match started {
        Started::Off => Ok(None),
        Started::Opened(round) => input_required(&round, &round.aad),
        Started::Lazy(lazy) => {
            let Some((round, principal)) = lazy.round.get() else {
                return Ok(None);
            };
            let aad = Binding {
                method,
                target,
                arguments,
                audience: round.cfg.audience_name().unwrap_or(&identity.info.name),
                principal: principal.as_deref(),
            }
            .aad();
            input_required(round, &aad)
        }
    }
}

/// [`finish`] for a round [`open`]ed up front.
pub(crate) fn finish_opened(round: &Round) -> Result<Option<InputRequiredResult>, McpError> {
    input_required(round, &round.aad)
}

/// The outcome of a round whose handler has returned, sealed with `aad`.
fn input_required(round: &Round, aad: &[u8]) -> Result<Option<InputRequiredResult>, McpError> {
    let mut inner = round.inner.lock().expect("round lock");
    if let Some(e) = inner.failure.take() {
        return Err(e.into());
    }
    if inner.pending.is_empty() {
        return Ok(None);
    }
    let next = round.round + 1;
    let limit = round.cfg.round_limit();
    if next > limit {
        return Err(McpError::invalid_params(format!(
            "Too many input rounds: this request asked for input more than {limit} times"
        )));
    }
    let pending = std::mem::take(&mut inner.pending);
    let payload = StatePayload {
        exp: round.cfg.expiry(),
        round: next,
        answers: std::mem::take(&mut inner.used),
        pending: pending
            .iter()
            .map(|(k, r)| (k.clone(), r.method().to_owned()))
            .collect(),
    };
    Ok(Some(InputRequiredResult {
        result_type: ResultType::InputRequired,
        input_requests: Some(pending),
        request_state: Some(round.cfg.seal(aad, &payload)),
        meta: None,
    }))
}
