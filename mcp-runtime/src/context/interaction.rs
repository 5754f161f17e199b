//! Asking the client for input from inside a handler: elicitation (forms and URLs), sampling
//! and roots, the same calls on every revision.
//!
//! - **Legacy** connections (≤ 2025-11-25) send a server-to-client request through the
//!   [`Peer`](crate::Peer) and wait for the answer.
//! - **Modern** requests (2026-07-28) have no server-to-client requests: the call records an
//!   input request under a key and fails with [`InteractionError::InputRequired`]; the
//!   dispatcher answers `input_required` with every request recorded during the run and a
//!   sealed `requestState` (see [`crate::session::request_state`]); the client retries with
//!   `inputResponses`, the handler runs again, and this time the same call returns the
//!   client's answer. To ask for several inputs in one round, start the calls together
//!   (`tokio::join!`): each records its request before any of them fails.
//!
//! Keys are deterministic: the call's own [`Ask::key`], or `<kind>-<n>` where `n` counts the
//! interaction calls of this run (`elicit-1`, `sample-2`, …), so a handler that makes the same
//! calls in the same order gets the same keys on every round.
//!
//! Where the answer comes from is an [`InputResolver`] attached to the context
//! ([`Context::set_input_resolver`]): the dispatcher attaches the multi-round one to modern
//! `tools/call`, `prompts/get` and `resources/read`; a task runner attaches its own that
//! parks the task as `input_required` and resumes it when `tasks/update` delivers the answer.
//!
//! ```no_run
//! # use mcp_runtime::{Context, McpError};
//! # use mcp_runtime::Elicitation;
//! #[derive(schemars::JsonSchema, serde::Deserialize)]
//! struct Name { name: String }
//!
//! async fn greet(ctx: Context) -> Result<String, McpError> {
//!     match ctx.elicit::<Name>("What is your name?").key("user_name").await? {
//!         Elicitation::Accept(n) => Ok(format!("Hello, {}!", n.name)),
//!         Elicitation::Decline | Elicitation::Cancel => Ok("Hello, stranger!".into()),
//!     }
//! }
//! ```

use std::fmt;
use std::future::IntoFuture;
use std::marker::PhantomData;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{
    Adapt, CreateMessageParams, CreateMessageResult, ElicitAction, ElicitFormParams, ElicitParams,
    ElicitResult, ElicitUrlParams, ElicitValue, IncludeContext, InputRequest, InputResponse,
    ListRootsParams, ListRootsResult, NumberType, PrimitiveSchemaDefinition, RequestedSchema, Root,
    UrlElicitationRequiredData,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde_json::{Map, Value, json};

use crate::common::error::McpError;
use crate::context::Context;
use crate::context::elicit_schema::FormSchemaError;
use crate::context::peer::PeerError;

pub use crate::common::BoxFuture;

/// Why asking the client for input did not produce an answer.
#[derive(Debug)]
#[non_exhaustive]
pub enum InteractionError {
    /// Modern request: the answer is not here yet. The request answers `input_required`
    /// (return this error with `?`); the handler runs again once the client answered.
    InputRequired {
        /// The key the input request was recorded under.
        key: String,
    },
    /// The client did not declare the capability this call needs.
    NotDeclared {
        /// The missing capabilities, as a `ClientCapabilities` object.
        required: Map<String, Value>,
    },
    /// The negotiated revision does not define this interaction.
    Unsupported {
        /// What was asked for.
        what: &'static str,
        /// The revision.
        revision: ProtocolVersion,
    },
    /// This modern request cannot carry input requests (only `tools/call`, `prompts/get`
    /// and `resources/read` can, and only in their handlers).
    NotAvailable,
    /// The derived form is not a valid elicitation form.
    Form(FormSchemaError),
    /// The client's answer does not fit the request.
    InvalidResponse(String),
    /// Two different input requests of one round used the same key.
    DuplicateKey(String),
    /// The connection failed, timed out, or the client answered with an error (legacy).
    Peer(PeerError),
}

impl fmt::Display for InteractionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InputRequired { key } => {
                write!(
                    f,
                    "input `{key}` requested from the client (input_required)"
                )
            }
            Self::NotDeclared { required } => write!(
                f,
                "the client did not declare the capability this needs: {}",
                Value::Object(required.clone())
            ),
            Self::Unsupported { what, revision } => {
                write!(f, "{what} does not exist in revision {}", revision.as_str())
            }
            Self::NotAvailable => f.write_str(
                "this request cannot ask the client for input (2026-07-28: only tools/call, \
                 prompts/get and resources/read handlers can)",
            ),
            Self::Form(e) => e.fmt(f),
            Self::InvalidResponse(e) => write!(f, "the client's answer is invalid: {e}"),
            Self::DuplicateKey(k) => {
                write!(
                    f,
                    "two different input requests use the key `{k}` in one round"
                )
            }
            Self::Peer(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for InteractionError {}

impl From<PeerError> for InteractionError {
    fn from(e: PeerError) -> Self {
        Self::Peer(e)
    }
}

impl From<InteractionError> for McpError {
    /// A missing capability is `-32021` with `data.requiredCapabilities` (on legacy revisions
    /// too, where the code is in the implementation-defined range); everything else is an
    /// internal error (logged). `InputRequired` never reaches the wire: the dispatcher
    /// answers `input_required` instead.
    fn from(e: InteractionError) -> Self {
        match e {
            InteractionError::NotDeclared { required } => McpError::Protocol(
                mcp_core::codec::missing_required_client_capability(required),
            ),
            other => McpError::Internal(Box::new(other)),
        }
    }
}

/// Where answers to input requests come from, for one request run.
///
/// `resolve` is called once per interaction call with the key and the request, already
/// checked against the client's capabilities and shaped for the revision. It returns the
/// client's answer, or [`InteractionError::InputRequired`] when the answer will come later
/// (modern rounds), or waits for it (a task parked as `input_required`).
pub trait InputResolver: Send + Sync + 'static {
    /// Answers (or records) one input request.
    fn resolve<'a>(
        &'a self,
        key: &'a str,
        request: InputRequest,
    ) -> BoxFuture<'a, Result<InputResponse, InteractionError>>;
}

/// Where a first attempt's interaction calls go on a 2026 connection before any round exists
/// (`features::input_rounds`): the round is made, and bound to the caller, on the first one.
pub(crate) trait DeferredInput: Send + Sync {
    /// The next default key for an interaction of `kind` (`elicit-1`, `sample-2`, ...).
    fn next_key(&self, kind: &str) -> String;

    /// Records one input request of the handler running under `ctx`.
    fn resolve<'a>(
        &'a self,
        ctx: &'a Context,
        key: &'a str,
        request: InputRequest,
    ) -> BoxFuture<'a, Result<InputResponse, InteractionError>>;
}

/// The resolver attached to a context, with the counter behind the default keys.
pub(crate) struct InputChannel {
    resolver: Arc<dyn InputResolver>,
    calls: AtomicUsize,
}

impl InputChannel {
    fn next_key(&self, kind: &str) -> String {
        let n = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{kind}-{n}")
    }
}

impl Context {
    /// Routes this context's interaction calls to `resolver` (replacing any other), with the
    /// default-key counter starting again at 1. A task runner uses this to park a task while
    /// it waits for `tasks/update`.
    pub fn set_input_resolver(&mut self, resolver: Arc<dyn InputResolver>) {
        self.lazy_round = None;
        self.extensions_mut().insert(InputChannel {
            resolver,
            calls: AtomicUsize::new(0),
        });
    }

    /// Asks the user to fill a form derived from `T` (`elicitation/create`, form mode).
    ///
    /// `T`'s schemars schema must be a flat struct of the spec's primitive fields (see
    /// [`form_schema`](crate::form_schema)); anything else fails with [`InteractionError::Form`], which
    /// [`crate::context::elicit_schema::form_schema`] reports up front (call it in a test).
    pub fn elicit<T>(&self, message: impl Into<String>) -> Ask<'_, ElicitForm<T>>
    where
        T: schemars::JsonSchema + serde::de::DeserializeOwned + Send + 'static,
    {
        Ask::new(
            self,
            ElicitForm {
                message: message.into(),
                schema: None,
                _t: PhantomData,
            },
        )
    }

    /// Asks the user to fill a hand-written form; the answer is the raw [`ElicitResult`].
    pub fn elicit_form(
        &self,
        message: impl Into<String>,
        schema: RequestedSchema,
    ) -> Ask<'_, ElicitForm<RawForm>> {
        Ask::new(
            self,
            ElicitForm {
                message: message.into(),
                schema: Some(schema),
                _t: PhantomData,
            },
        )
    }

    /// Sends the user to `url` (`elicitation/create`, URL mode; 2025-11-25 and 2026-07-28,
    /// needs the client's `elicitation.url`). The answer says whether the user agreed to go;
    /// the outcome of what happens there arrives out of band (2025-11-25: send
    /// [`Context::elicitation_complete`] when it is done; 2026: the client retries).
    pub fn elicit_url(
        &self,
        message: impl Into<String>,
        url: impl Into<String>,
    ) -> Ask<'_, ElicitUrl> {
        Ask::new(self, ElicitUrl(ElicitUrlParams::new(message, url)))
    }

    /// Asks the client's model for a completion (`sampling/createMessage`). `tools` and
    /// `toolChoice` need the client's `sampling.tools`; an `includeContext` other than
    /// `none` needs `sampling.context`.
    pub fn sample(&self, params: CreateMessageParams) -> Ask<'_, Sample> {
        Ask::new(self, Sample(params))
    }

    /// Asks the client for its roots (`roots/list`).
    pub fn roots(&self) -> Ask<'_, Roots> {
        Ask::new(self, Roots)
    }

    /// The `-32042` error that tells a 2025-11-25 client to complete these URL elicitations
    /// and retry. On other revisions (2026 must not emit the code) it is an internal error;
    /// use [`Context::elicit_url`] there.
    pub fn url_elicitation_required(&self, elicitations: Vec<ElicitUrlParams>) -> McpError {
        if self.protocol_version() != Some(ProtocolVersion::V2025_11_25) {
            return McpError::internal(
                "-32042 URL elicitation required exists only in revision 2025-11-25",
            );
        }
        McpError::Protocol(
            UrlElicitationRequiredData { elicitations }
                .to_error("This request requires more information."),
        )
    }

    /// Tells a 2025-11-25 client that the URL elicitation `elicitation_id` is complete
    /// (`notifications/elicitation/complete`). Other revisions have no such notification.
    pub async fn elicitation_complete(&self, elicitation_id: &str) -> Result<(), PeerError> {
        if self.protocol_version() != Some(ProtocolVersion::V2025_11_25) {
            return Err(PeerError::NotDeclared("notifications/elicitation/complete"));
        }
        let params = serde_json::value::to_raw_value(&json!({ "elicitationId": elicitation_id }))
            .expect("params");
        self.peer()
            .notify_raw("notifications/elicitation/complete", Some(&params))
            .await
    }

    /// Sends one input request through this context's resolver, or (legacy, no resolver)
    /// as a server-to-client request.
    async fn request_input(
        &self,
        key: Option<String>,
        kind: &str,
        mut request: InputRequest,
    ) -> Result<InputResponse, InteractionError> {
        request.adapt(self.revision());
        if let Some(ch) = self.extensions().get::<InputChannel>() {
            let key = key.unwrap_or_else(|| ch.next_key(kind));
            let resolver = ch.resolver.clone();
            return resolver.resolve(&key, request).await;
        }
        if let Some(lazy) = &self.lazy_round {
            let key = key.unwrap_or_else(|| lazy.next_key(kind));
            return lazy.resolve(self, &key, request).await;
        }
        if self.era() == Era::Modern {
            return Err(InteractionError::NotAvailable);
        }
        Ok(match request {
            InputRequest::Elicit(p) => {
                let r = self.elicit_raw(p.clone()).await?;
                check_elicit_answer(&p, &r).map_err(InteractionError::InvalidResponse)?;
                InputResponse::Elicit(r)
            }
            InputRequest::CreateMessage(p) => {
                InputResponse::CreateMessage(self.create_message(p).await?)
            }
            InputRequest::ListRoots(_) => InputResponse::ListRoots(self.list_roots().await?),
        })
    }

    fn revision(&self) -> ProtocolVersion {
        self.protocol_version().unwrap_or(match self.era() {
            Era::Legacy => ProtocolVersion::LATEST_HANDSHAKE,
            Era::Modern => ProtocolVersion::LATEST,
        })
    }
}

fn required(capability: &str, inner: Value) -> InteractionError {
    let mut m = Map::new();
    m.insert(capability.to_owned(), inner);
    InteractionError::NotDeclared { required: m }
}

/// One kind of interaction: what it asks and how its answer decodes. Implemented by
/// [`ElicitForm`], [`ElicitUrl`], [`Sample`] and [`Roots`].
pub trait Query: Send + Sized + 'static {
    /// What the call returns.
    type Output: Send;
    /// The prefix of default keys.
    const KIND: &'static str;
    /// The input request, after checking the client's capabilities and the revision.
    fn request(self, ctx: &Context) -> Result<InputRequest, InteractionError>;
    /// The typed answer.
    fn decode(response: InputResponse) -> Result<Self::Output, InteractionError>;
}

/// One pending interaction call: `.await` it, optionally after [`Ask::key`].
#[must_use = "an interaction does nothing until awaited"]
pub struct Ask<'c, Q> {
    ctx: &'c Context,
    key: Option<String>,
    query: Q,
}

impl<'c, Q: Query> Ask<'c, Q> {
    fn new(ctx: &'c Context, query: Q) -> Self {
        Self {
            ctx,
            key: None,
            query,
        }
    }

    /// The key of this input request on modern rounds (default `<kind>-<n>`). Keys must be
    /// unique among the requests of one round.
    pub fn key(mut self, key: impl Into<String>) -> Self {
        self.key = Some(key.into());
        self
    }
}

impl<'c, Q: Query> IntoFuture for Ask<'c, Q> {
    type Output = Result<Q::Output, InteractionError>;
    type IntoFuture = BoxFuture<'c, Self::Output>;

    fn into_future(self) -> Self::IntoFuture {
        Box::pin(async move {
            let request = self.query.request(self.ctx)?;
            let response = self.ctx.request_input(self.key, Q::KIND, request).await?;
            Q::decode(response)
        })
    }
}

/// The outcome of a form elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum Elicitation<T> {
    /// The user submitted the form.
    Accept(T),
    /// The user declined.
    Decline,
    /// The user dismissed the form.
    Cancel,
}

impl<T> Elicitation<T> {
    /// The submitted value, if accepted.
    pub fn accepted(self) -> Option<T> {
        match self {
            Self::Accept(t) => Some(t),
            _ => None,
        }
    }
}

/// What an [`ElicitForm`] answer decodes into: a derived form type (as
/// [`Elicitation<T>`]) or, for a hand-written form ([`RawForm`]), the raw [`ElicitResult`].
pub trait FormAnswer: Send + 'static {
    /// The call's output.
    type Output: Send;
    /// The form to send when none was written by hand.
    fn schema() -> Result<RequestedSchema, InteractionError>;
    /// The typed answer.
    fn decode(result: ElicitResult) -> Result<Self::Output, InteractionError>;
}

/// The [`FormAnswer`] of a hand-written form: the raw [`ElicitResult`].
pub struct RawForm;

impl FormAnswer for RawForm {
    type Output = ElicitResult;
    fn schema() -> Result<RequestedSchema, InteractionError> {
        Err(InteractionError::InvalidResponse(
            "a hand-written form needs its schema".into(),
        ))
    }
    fn decode(result: ElicitResult) -> Result<ElicitResult, InteractionError> {
        Ok(result)
    }
}

impl<T> FormAnswer for T
where
    T: schemars::JsonSchema + serde::de::DeserializeOwned + Send + 'static,
{
    type Output = Elicitation<T>;
    fn schema() -> Result<RequestedSchema, InteractionError> {
        crate::context::elicit_schema::cached_form_schema::<T>()
            .map(|s| (*s).clone())
            .map_err(InteractionError::Form)
    }
    fn decode(result: ElicitResult) -> Result<Elicitation<T>, InteractionError> {
        Ok(match result.action {
            ElicitAction::Accept => {
                let content = serde_json::to_value(result.content.unwrap_or_default())
                    .map_err(|e| InteractionError::InvalidResponse(e.to_string()))?;
                Elicitation::Accept(serde_json::from_value(content).map_err(|e| {
                    InteractionError::InvalidResponse(format!(
                        "the submitted form does not fit the requested schema: {e}"
                    ))
                })?)
            }
            ElicitAction::Decline => Elicitation::Decline,
            ElicitAction::Cancel => Elicitation::Cancel,
        })
    }
}

/// A form-mode elicitation ([`Context::elicit`], [`Context::elicit_form`]).
pub struct ElicitForm<T> {
    message: String,
    schema: Option<RequestedSchema>,
    _t: PhantomData<fn() -> T>,
}

fn elicitation_supported(ctx: &Context, what: &'static str) -> Result<(), InteractionError> {
    match ctx.protocol_version() {
        Some(v) if !v.at_least(ProtocolVersion::V2025_06_18) => {
            Err(InteractionError::Unsupported { what, revision: v })
        }
        _ => Ok(()),
    }
}

impl<T: FormAnswer> Query for ElicitForm<T> {
    type Output = T::Output;
    const KIND: &'static str = "elicit";

    fn request(self, ctx: &Context) -> Result<InputRequest, InteractionError> {
        elicitation_supported(ctx, "elicitation")?;
        // `elicitation: {}` means form only; `{url: {}}` alone means no forms.
        let form_ok = ctx
            .client_capabilities()
            .elicitation
            .as_ref()
            .is_some_and(|e| e.form.is_some() || e.url.is_none());
        if !form_ok {
            return Err(required("elicitation", json!({ "form": {} })));
        }
        let schema = match self.schema {
            Some(s) => s,
            None => T::schema()?,
        };
        Ok(InputRequest::Elicit(ElicitParams::Form(
            ElicitFormParams::new(self.message, schema),
        )))
    }

    fn decode(response: InputResponse) -> Result<T::Output, InteractionError> {
        match response {
            InputResponse::Elicit(r) => T::decode(r),
            other => Err(wrong_kind(ElicitParams::METHOD, &other)),
        }
    }
}

/// A URL-mode elicitation ([`Context::elicit_url`]).
pub struct ElicitUrl(ElicitUrlParams);

impl ElicitUrl {
    /// Sets the `elicitationId` (2025-11-25; derived from message and URL when unset).
    pub fn id(mut self, id: impl Into<String>) -> Self {
        self.0.elicitation_id = Some(id.into());
        self
    }
}

impl Ask<'_, ElicitUrl> {
    /// Sets the `elicitationId` a later [`Context::elicitation_complete`] names (2025-11-25).
    pub fn elicitation_id(mut self, id: impl Into<String>) -> Self {
        self.query = self.query.id(id);
        self
    }
}

impl Query for ElicitUrl {
    type Output = ElicitAction;
    const KIND: &'static str = "elicit";

    fn request(self, ctx: &Context) -> Result<InputRequest, InteractionError> {
        match ctx.protocol_version() {
            Some(v) if v.era() == Era::Legacy && v != ProtocolVersion::V2025_11_25 => {
                return Err(InteractionError::Unsupported {
                    what: "URL-mode elicitation",
                    revision: v,
                });
            }
            _ => {}
        }
        let url_ok = ctx
            .client_capabilities()
            .elicitation
            .as_ref()
            .is_some_and(|e| e.url.is_some());
        if !url_ok {
            return Err(required("elicitation", json!({ "url": {} })));
        }
        Ok(InputRequest::Elicit(ElicitParams::Url(self.0)))
    }

    fn decode(response: InputResponse) -> Result<ElicitAction, InteractionError> {
        match response {
            InputResponse::Elicit(r) => Ok(r.action),
            other => Err(wrong_kind(ElicitParams::METHOD, &other)),
        }
    }
}

/// A sampling request ([`Context::sample`]).
pub struct Sample(CreateMessageParams);

impl Query for Sample {
    type Output = CreateMessageResult;
    const KIND: &'static str = "sample";

    fn request(self, ctx: &Context) -> Result<InputRequest, InteractionError> {
        let Some(cap) = ctx.client_capabilities().sampling.as_ref() else {
            return Err(required("sampling", json!({})));
        };
        let with_tools = self.0.tools.is_some() || self.0.tool_choice.is_some();
        if let Some(v) = ctx.protocol_version().filter(|v| v.era() == Era::Legacy)
            && with_tools
            && !v.at_least(ProtocolVersion::V2025_11_25)
        {
            return Err(InteractionError::Unsupported {
                what: "sampling with tools",
                revision: v,
            });
        }
        if with_tools && cap.tools.is_none() {
            return Err(required("sampling", json!({ "tools": {} })));
        }
        let wants_context = self
            .0
            .include_context
            .is_some_and(|c| c != IncludeContext::None);
        if wants_context && cap.context.is_none() {
            return Err(required("sampling", json!({ "context": {} })));
        }
        Ok(InputRequest::CreateMessage(self.0))
    }

    fn decode(response: InputResponse) -> Result<CreateMessageResult, InteractionError> {
        match response {
            InputResponse::CreateMessage(r) => Ok(r),
            other => Err(wrong_kind(CreateMessageParams::METHOD, &other)),
        }
    }
}

/// A roots request ([`Context::roots`]).
pub struct Roots;

impl Query for Roots {
    type Output = Vec<Root>;
    const KIND: &'static str = "roots";

    fn request(self, ctx: &Context) -> Result<InputRequest, InteractionError> {
        if ctx.client_capabilities().roots.is_none() {
            return Err(required("roots", json!({})));
        }
        Ok(InputRequest::ListRoots(Some(ListRootsParams::default())))
    }

    fn decode(response: InputResponse) -> Result<Vec<Root>, InteractionError> {
        match response {
            InputResponse::ListRoots(ListRootsResult { roots, .. }) => Ok(roots),
            other => Err(wrong_kind(ListRootsParams::METHOD, &other)),
        }
    }
}

fn wrong_kind(expected: &str, got: &InputResponse) -> InteractionError {
    InteractionError::InvalidResponse(format!(
        "expected an answer to {expected}, got one to {}",
        got.method()
    ))
}

/// Decodes a client's answer as the answer to `request` (by the request's method, not by
/// guessing from the fields). For resolvers that receive raw JSON.
pub fn decode_response(
    request: &InputRequest,
    raw: &serde_json::value::RawValue,
) -> Result<InputResponse, String> {
    let err = |e: serde_json::Error| format!("not a valid answer to {}: {e}", request.method());
    Ok(match request {
        InputRequest::Elicit(p) => {
            let r = serde_json::from_str::<ElicitResult>(raw.get()).map_err(err)?;
            check_elicit_answer(p, &r)?;
            InputResponse::Elicit(r)
        }
        InputRequest::CreateMessage(_) => InputResponse::CreateMessage(
            serde_json::from_str::<CreateMessageResult>(raw.get()).map_err(err)?,
        ),
        InputRequest::ListRoots(_) => InputResponse::ListRoots(
            serde_json::from_str::<ListRootsResult>(raw.get()).map_err(err)?,
        ),
    })
}

/// The error a resolver reports for an answer that does not decode: `-32602` naming the key.
pub fn invalid_response_error(key: &str, why: &str) -> ErrorObject {
    ErrorObject::invalid_params(format!("Invalid input response for \"{key}\": {why}"))
}

/// Checks an accepted form against the form asked: every required field present, every
/// known field of the right kind (and among the options of an enum).
pub fn check_elicit_answer(request: &ElicitParams, result: &ElicitResult) -> Result<(), String> {
    let ElicitParams::Form(form) = request else {
        return Ok(());
    };
    if result.action != ElicitAction::Accept {
        return Ok(());
    }
    let empty = Default::default();
    let content = result.content.as_ref().unwrap_or(&empty);
    let schema = &form.requested_schema;
    for name in schema.required.iter().flatten() {
        if !content.contains_key(name) {
            return Err(format!("the required field `{name}` is missing"));
        }
    }
    for (name, value) in content {
        let Some(field) = schema.properties.get(name) else {
            continue;
        };
        check_field(field, value).map_err(|why| format!("field `{name}`: {why}"))?;
    }
    Ok(())
}

fn check_field(field: &PrimitiveSchemaDefinition, value: &ElicitValue) -> Result<(), String> {
    use PrimitiveSchemaDefinition as P;
    let one_of = |options: &mut dyn Iterator<Item = &str>, v: &str| {
        let mut options = options.peekable();
        if options.peek().is_none() || options.any(|o| o == v) {
            Ok(())
        } else {
            Err(format!("{v:?} is not one of the options"))
        }
    };
    match (field, value) {
        (P::String(_), ElicitValue::String(_)) => Ok(()),
        (P::Number(n), ElicitValue::Number(x)) => {
            if n.type_ == NumberType::Integer && !(x.is_i64() || x.is_u64()) {
                Err("expected an integer".into())
            } else {
                Ok(())
            }
        }
        (P::Boolean(_), ElicitValue::Boolean(_)) => Ok(()),
        (P::UntitledSingleSelect(e), ElicitValue::String(v)) => {
            one_of(&mut e.enum_.iter().map(String::as_str), v)
        }
        (P::LegacyTitledEnum(e), ElicitValue::String(v)) => {
            one_of(&mut e.enum_.iter().map(String::as_str), v)
        }
        (P::TitledSingleSelect(e), ElicitValue::String(v)) => {
            one_of(&mut e.one_of.iter().map(|o| o.const_.as_str()), v)
        }
        (P::UntitledMultiSelect(e), ElicitValue::StringArray(vs)) => vs
            .iter()
            .try_for_each(|v| one_of(&mut e.items.enum_.iter().map(String::as_str), v)),
        (P::TitledMultiSelect(e), ElicitValue::StringArray(vs)) => vs
            .iter()
            .try_for_each(|v| one_of(&mut e.items.any_of.iter().map(|o| o.const_.as_str()), v)),
        _ => Err("the value has the wrong type".into()),
    }
}
