//! Multi round-trip requests (MRTR, 2026-07-28 only).
//!
//! A `tools/call`, `resources/read` or `prompts/get` may answer with an
//! [`InputRequiredResult`]: input requests for the client (elicitation, sampling, roots),
//! each under a server-chosen key, and/or an opaque `requestState`. The client retries the
//! original request with a new id, adding `inputResponses` (same keys) and echoing
//! `requestState` verbatim. Input requests carry no `jsonrpc`/`id`; input responses carry no
//! `resultType`.

use std::collections::BTreeMap;
use std::fmt;

use serde::de::{self, Deserializer};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::{
    Adapt, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsParams,
    ListRootsResult, Meta, ResultType,
};
use crate::version::ProtocolVersion as V;

/// One embedded request for client input: `{method, params}` (`InputRequest`; on the wire
/// the `CreateMessageRequest`, `ElicitRequest` and `ListRootsRequest` definitions of
/// 2026-07-28). `roots/list` may omit `params`.
#[derive(Debug, Clone, PartialEq)]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit(ElicitParams),
    /// `sampling/createMessage`.
    CreateMessage(CreateMessageParams),
    /// `roots/list`.
    ListRoots(Option<ListRootsParams>),
}

impl InputRequest {
    /// The method name.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Elicit(_) => ElicitParams::METHOD,
            Self::CreateMessage(_) => CreateMessageParams::METHOD,
            Self::ListRoots(_) => ListRootsParams::METHOD,
        }
    }

    /// Whether `response` is the kind of answer this request expects.
    pub fn is_answered_by(&self, response: &InputResponse) -> bool {
        matches!(
            (self, response),
            (Self::Elicit(_), InputResponse::Elicit(_))
                | (Self::CreateMessage(_), InputResponse::CreateMessage(_))
                | (Self::ListRoots(_), InputResponse::ListRoots(_))
        )
    }
}

impl Serialize for InputRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        m.serialize_entry("method", self.method())?;
        match self {
            Self::Elicit(p) => m.serialize_entry("params", p)?,
            Self::CreateMessage(p) => m.serialize_entry("params", p)?,
            Self::ListRoots(Some(p)) => m.serialize_entry("params", p)?,
            Self::ListRoots(None) => {}
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for InputRequest {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Raw {
            method: String,
            #[serde(default)]
            params: Option<serde_json::Value>,
        }
        let raw = Raw::deserialize(d)?;
        let params = raw.params.filter(|p| !p.is_null());
        let required = |p: Option<serde_json::Value>| {
            p.ok_or_else(|| de::Error::custom(format_args!("{} needs params", raw.method)))
        };
        match raw.method.as_str() {
            ElicitParams::METHOD => serde_json::from_value(required(params)?)
                .map(Self::Elicit)
                .map_err(de::Error::custom),
            CreateMessageParams::METHOD => serde_json::from_value(required(params)?)
                .map(Self::CreateMessage)
                .map_err(de::Error::custom),
            ListRootsParams::METHOD => params
                .map(serde_json::from_value)
                .transpose()
                .map(Self::ListRoots)
                .map_err(de::Error::custom),
            other => Err(de::Error::custom(format_args!(
                "unknown input request method {other:?}"
            ))),
        }
    }
}

impl Adapt for InputRequest {
    fn adapt(&mut self, rev: V) {
        match self {
            Self::Elicit(p) => p.adapt(rev),
            Self::CreateMessage(p) => p.adapt(rev),
            Self::ListRoots(p) => p.adapt(rev),
        }
    }
}

impl From<ElicitParams> for InputRequest {
    fn from(p: ElicitParams) -> Self {
        Self::Elicit(p)
    }
}
impl From<CreateMessageParams> for InputRequest {
    fn from(p: CreateMessageParams) -> Self {
        Self::CreateMessage(p)
    }
}
impl From<ListRootsParams> for InputRequest {
    fn from(p: ListRootsParams) -> Self {
        Self::ListRoots(Some(p))
    }
}

/// Input requests by server-chosen key (`InputRequests`).
pub type InputRequests = BTreeMap<String, InputRequest>;

/// The client's answer to one [`InputRequest`] (`InputResponse`): no `resultType`, no tag.
///
/// Deserializing tells the three apart by their required fields, which no two share:
/// `action` ⇒ [`ElicitResult`], `roots` ⇒ [`ListRootsResult`], `model` ⇒
/// [`CreateMessageResult`]. Serializing writes the inner result as is.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum InputResponse {
    /// Answer to `elicitation/create`.
    Elicit(ElicitResult),
    /// Answer to `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// Answer to `roots/list`.
    ListRoots(ListRootsResult),
}

impl InputResponse {
    /// The method of the request this answers.
    pub fn method(&self) -> &'static str {
        match self {
            Self::Elicit(_) => ElicitParams::METHOD,
            Self::CreateMessage(_) => CreateMessageParams::METHOD,
            Self::ListRoots(_) => ListRootsParams::METHOD,
        }
    }
}

impl<'de> Deserialize<'de> for InputResponse {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = serde_json::Value::deserialize(d)?;
        let Some(obj) = v.as_object() else {
            return Err(de::Error::custom("an input response must be an object"));
        };
        if obj.contains_key("action") {
            serde_json::from_value(v)
                .map(Self::Elicit)
                .map_err(de::Error::custom)
        } else if obj.contains_key("roots") {
            serde_json::from_value(v)
                .map(Self::ListRoots)
                .map_err(de::Error::custom)
        } else if obj.contains_key("model") {
            serde_json::from_value(v)
                .map(Self::CreateMessage)
                .map_err(de::Error::custom)
        } else {
            Err(de::Error::custom(
                "input response is none of ElicitResult (action), ListRootsResult (roots), \
                 CreateMessageResult (model)",
            ))
        }
    }
}

impl Adapt for InputResponse {
    fn adapt(&mut self, rev: V) {
        match self {
            Self::Elicit(r) => r.adapt(rev),
            Self::CreateMessage(r) => r.adapt(rev),
            Self::ListRoots(r) => r.adapt(rev),
        }
    }
}

impl From<ElicitResult> for InputResponse {
    fn from(r: ElicitResult) -> Self {
        Self::Elicit(r)
    }
}
impl From<CreateMessageResult> for InputResponse {
    fn from(r: CreateMessageResult) -> Self {
        Self::CreateMessage(r)
    }
}
impl From<ListRootsResult> for InputResponse {
    fn from(r: ListRootsResult) -> Self {
        Self::ListRoots(r)
    }
}

/// Input responses by the keys of the [`InputRequests`] they answer (`InputResponses`).
pub type InputResponses = BTreeMap<String, InputResponse>;

/// Why an [`InputRequiredResult`] is not valid.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InputRequiredError {
    /// Neither `inputRequests` nor `requestState` is present.
    Empty,
    /// `resultType` is not `"input_required"`.
    WrongResultType(String),
}

impl fmt::Display for InputRequiredError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str(
                "an input_required result needs inputRequests or requestState (or both)",
            ),
            Self::WrongResultType(t) => {
                write!(f, "resultType is {t:?}, not \"input_required\"")
            }
        }
    }
}

impl std::error::Error for InputRequiredError {}

fn input_required() -> ResultType {
    ResultType::InputRequired
}

/// The interim result asking the client for input (`InputRequiredResult`, 2026-07-28).
///
/// At least one of `inputRequests` and `requestState` must be present: build it with
/// [`InputRequiredResult::new`] (or the `with_*` helpers) and check received ones with
/// [`InputRequiredResult::validate`]. Deserializing does not check, so that a received value
/// can be inspected before it is judged. [`Adapt`] always writes `resultType:
/// "input_required"` and shapes the embedded requests for the revision (the type itself exists
/// only in 2026-07-28).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InputRequiredResult {
    /// Always `"input_required"`.
    #[serde(default = "input_required")]
    pub result_type: ResultType,
    /// What the client must provide, by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<InputRequests>,
    /// Opaque server state, echoed verbatim on the retry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_state: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl InputRequiredResult {
    /// A result with these parts; fails when both are `None`.
    pub fn new(
        input_requests: Option<InputRequests>,
        request_state: Option<String>,
    ) -> Result<Self, InputRequiredError> {
        let r = Self {
            result_type: ResultType::InputRequired,
            input_requests,
            request_state,
            meta: None,
        };
        r.validate()?;
        Ok(r)
    }

    /// A result asking for these inputs.
    pub fn with_requests(input_requests: InputRequests) -> Self {
        Self {
            result_type: ResultType::InputRequired,
            input_requests: Some(input_requests),
            request_state: None,
            meta: None,
        }
    }

    /// A result carrying only state (the client may retry at once).
    pub fn with_state(request_state: impl Into<String>) -> Self {
        Self {
            result_type: ResultType::InputRequired,
            input_requests: None,
            request_state: Some(request_state.into()),
            meta: None,
        }
    }

    /// Checks `resultType` and that `inputRequests` or `requestState` is present.
    pub fn validate(&self) -> Result<(), InputRequiredError> {
        if self.result_type != ResultType::InputRequired {
            return Err(InputRequiredError::WrongResultType(
                self.result_type.as_str().to_owned(),
            ));
        }
        if self.input_requests.is_none() && self.request_state.is_none() {
            return Err(InputRequiredError::Empty);
        }
        Ok(())
    }
}

impl Adapt for InputRequiredResult {
    fn adapt(&mut self, rev: V) {
        self.result_type = ResultType::InputRequired;
        if let Some(reqs) = &mut self.input_requests {
            for r in reqs.values_mut() {
                r.adapt(rev);
            }
        }
    }
}
