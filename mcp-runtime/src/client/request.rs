//! Raw requests and notifications: ids, the `_meta` envelope, progress, timeouts, and
//! the cancellation of a request given up on.

use mcp_core::codec::WireCodec;
use mcp_core::jsonrpc::{self, RequestId};
use mcp_core::meta;
use mcp_core::types::{LoggingMessageParams, ProgressParams, ResultType};
use mcp_core::version::{Era, ProtocolVersion};
use serde::de::DeserializeOwned;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde_json::value::RawValue;
use serde_json::{Map, Value};
use tokio::sync::mpsc;
use tracing::Instrument;

use super::conn::{Outcome, Outgoing};
use super::mrtr;
use super::telemetry::RequestSpan;
use super::{Client, ClientError, Inner, MAX_INPUT_ROUNDS, RequestOptions, ServerNotification};
use crate::wire::pending::Waiter;

/// Fails every pending wait of a request that is dropped: removes it from the tables and,
/// when it was still unanswered, tells the server with `notifications/cancelled`.
struct PendingGuard<'a> {
    inner: &'a Inner,
    id: RequestId,
    waiter: Waiter<'a, Outcome>,
    token: Option<RequestId>,
    /// Whether the request takes its own log messages (an entry in `State::logs`).
    logs: bool,
    /// Whether the request answers its own server requests (an entry in `State::handlers`).
    handler: bool,
    cancellable: bool,
    reason: &'static str,
    modern: Option<ProtocolVersion>,
}

impl Drop for PendingGuard<'_> {
    fn drop(&mut self) {
        let was_pending = {
            let mut st = self.inner.shared.state.lock().expect("client state lock");
            if let Some(t) = &self.token {
                st.progress.remove(t);
            }
            if self.logs {
                st.logs.remove(&self.id);
            }
            if self.handler {
                st.handlers.remove(&self.id);
            }
            st.subscriptions.remove(&self.id);
            self.waiter.forget()
        };
        if was_pending && self.cancellable {
            let mut params = Map::new();
            params.insert(
                "requestId".into(),
                serde_json::to_value(&self.id).expect("ids"),
            );
            params.insert("reason".into(), self.reason.into());
            // 2026 notifications need no envelope, but stamping one is harmless and some
            // servers (ours, today) only apply a modern-era notification that carries it.
            let Ok(text) = encode_params(self.inner, Some(params), &[], self.modern) else {
                return;
            };
            let mut buf = Vec::new();
            jsonrpc::write_notification(&mut buf, "notifications/cancelled", text.as_deref());
            let _ = self.inner.out.send(Outgoing::Cancel {
                id: self.id.clone(),
                frame: buf,
            });
        }
    }
}

impl Client {
    /// Sends a notification (`params` must be an object or absent).
    pub async fn notify(&self, method: &str, params: Option<Value>) -> Result<(), ClientError> {
        let text = params.map(|p| p.to_string());
        let mut buf = Vec::new();
        jsonrpc::write_notification(&mut buf, method, text.as_deref());
        self.inner
            .out
            .send(Outgoing::Frame(buf))
            .map_err(|_| self.inner.shared.closed_error())
    }

    /// Sends a request and returns its raw result. On a modern connection the params are
    /// stamped with the `_meta` envelope and the result checked by the 2026 codec; an
    /// `input_required` result is answered with the handler and the request retried (a
    /// new id each round, `requestState` echoed) up to [`MAX_INPUT_ROUNDS`] times, after
    /// which it fails with [`ClientError::InputRequired`].
    pub async fn request_raw(
        &self,
        method: &str,
        params: Option<Value>,
        mut opts: RequestOptions,
    ) -> Result<Box<RawValue>, ClientError> {
        self.round_trips(method, params, &[], &mut opts).await
    }

    /// [`Client::request_raw`] with the options borrowed (a retry reuses them), and `raw`
    /// members written into the params as they are (what a proxy forwards without decoding:
    /// a call's `arguments`), after those of `params`.
    pub(crate) async fn round_trips(
        &self,
        method: &str,
        params: Option<Value>,
        raw: &[(&str, &RawValue)],
        opts: &mut RequestOptions,
    ) -> Result<Box<RawValue>, ClientError> {
        let version = self.current_version();
        let original = match params {
            None => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                return Err(ClientError::Encode(format!(
                    "params must be an object, not {other}"
                )));
            }
        };
        // The response cache (2026 cacheable methods only): a fresh entry answers, unless
        // the connection is closed (a closed client fails its calls, cached or not).
        // Params with raw members are not keyed by the cache (no cached method has them).
        let plan = match raw.is_empty() {
            true => (self.cache_plan(method, original.as_ref(), opts.cache, version)).await,
            false => None,
        };
        let cache = self.inner.shared.cache.get();
        if let (Some(plan), Some(cache)) = (&plan, cache)
            && !self.is_closed()
            && let Some(hit) = cache.lookup(plan).await
        {
            return Ok(hit);
        }
        let mut round = original.clone().map(Value::Object);
        let mut rounds = 0;
        let outcome = loop {
            match self
                .send_request(method, round, raw, opts, version, None)
                .await
            {
                Err(ClientError::InputRequired(raw))
                    if version.is_some()
                        && rounds < opts.input_rounds.unwrap_or(MAX_INPUT_ROUNDS) =>
                {
                    let v = version.expect("checked");
                    let next =
                        mrtr::next_round(&self.inner.shared.handler, &original, &raw, v).await?;
                    round = Some(Value::Object(next));
                    rounds += 1;
                }
                other => break other,
            }
        };
        if let (Some(plan), Some(cache)) = (&plan, cache) {
            let seen = match &outcome {
                // Stored only when the credentials did not change on the way.
                Ok(raw) if self.cache_partition_holds(plan).await => Ok(&**raw),
                Ok(_) => return outcome,
                Err(e) => Err(e.code()),
            };
            cache.record(plan, seen, rounds == 0).await;
        }
        outcome
    }

    /// Sends a request and decodes its result as `R`.
    pub async fn request<R: DeserializeOwned>(
        &self,
        method: &str,
        params: Option<Value>,
        opts: RequestOptions,
    ) -> Result<R, ClientError> {
        let raw = self.request_raw(method, params, opts).await?;
        decode_result(method, &raw)
    }

    /// The negotiated revision (`None` before the handshake).
    pub(super) fn current_version(&self) -> Option<ProtocolVersion> {
        self.inner
            .session
            .lock()
            .expect("session lock")
            .as_ref()
            .map(|s| s.version)
    }

    /// `version`: `Some(modern)` stamps the envelope; `None` (before the handshake) or
    /// legacy sends the params as they are.
    pub(super) async fn send_request(
        &self,
        method: &str,
        params: Option<Value>,
        raw: &[(&str, &RawValue)],
        opts: &mut RequestOptions,
        version: Option<ProtocolVersion>,
        listen: Option<mpsc::UnboundedSender<ServerNotification>>,
    ) -> Result<Box<RawValue>, ClientError> {
        let params = match params {
            None => None,
            Some(Value::Object(m)) => Some(m),
            Some(other) => {
                return Err(ClientError::Encode(format!(
                    "params must be an object, not {other}"
                )));
            }
        };
        let traced = RequestSpan::begin(method, params.as_ref(), version, || self.telemetry_peer());
        let out = self
            .send_traced(method, params, raw, opts, version, listen, &traced)
            .instrument(traced.span().clone())
            .await;
        traced.finish(method, &out);
        out
    }

    /// [`Client::send_request`] inside the request's span.
    #[allow(clippy::too_many_arguments)]
    async fn send_traced(
        &self,
        method: &str,
        mut params: Option<Map<String, Value>>,
        raw: &[(&str, &RawValue)],
        opts: &mut RequestOptions,
        version: Option<ProtocolVersion>,
        listen: Option<mpsc::UnboundedSender<ServerNotification>>,
        traced: &RequestSpan,
    ) -> Result<Box<RawValue>, ClientError> {
        let inner = &*self.inner;
        let (n, id) = inner.shared.pending.next_id();
        traced.request_id(&id);
        // The caller's own trace context, if it set one, is sent as it is.
        let own = params
            .as_ref()
            .and_then(|p| p.get("_meta"))
            .and_then(Value::as_object)
            .is_some_and(|m| m.contains_key(meta::TRACEPARENT));
        let mut trace = Map::new();
        if !own {
            traced.inject(&mut trace);
        }
        if !trace.is_empty() {
            meta_mut(&mut params).extend(trace);
        }
        let modern = version.filter(|v| v.era() == Era::Modern);
        let token = opts
            .on_progress
            .as_ref()
            .map(|_| RequestId::String(format!("progress-{n}").into()));
        if let Some(t) = &token {
            meta_mut(&mut params).insert(
                meta::PROGRESS_TOKEN.into(),
                serde_json::to_value(t).expect("ids serialize"),
            );
        }
        if let (Some(_), Some(level)) = (modern, opts.log_level) {
            meta_mut(&mut params).insert(
                meta::LOG_LEVEL.into(),
                serde_json::to_value(level).expect("levels serialize"),
            );
        }
        let params_text = encode_params(inner, params, raw, modern)?;
        let mut buf = Vec::new();
        jsonrpc::write_request(&mut buf, &id, method, params_text.as_deref());

        // Refused once the connection is closed (`closed_error` then says why).
        let Some(waiter) = inner.shared.pending.register(id.clone()) else {
            return Err(inner.shared.closed_error());
        };
        // Progress and log messages are routed to a channel only when the caller asked.
        let mut prx = None;
        let mut lrx = None;
        let handler = opts.handler.as_ref().map(|h| h.0.clone());
        let own_handler = handler.is_some();
        if token.is_some() || listen.is_some() || opts.on_log.is_some() || own_handler {
            let mut st = inner.shared.state.lock().expect("client state lock");
            if let Some(t) = &token {
                let (ptx, rx) = mpsc::unbounded_channel();
                st.progress.insert(t.clone(), ptx);
                prx = Some(rx);
            }
            if opts.on_log.is_some() {
                let (ltx, rx) = mpsc::unbounded_channel();
                st.logs.insert(id.clone(), ltx);
                lrx = Some(rx);
            }
            if let Some(l) = listen {
                st.subscriptions.insert(id.clone(), l);
            }
            if let Some(h) = handler {
                st.handlers.insert(id.clone(), h);
            }
        }
        let mut guard = PendingGuard {
            inner,
            id: id.clone(),
            waiter,
            token,
            logs: lrx.is_some(),
            handler: own_handler,
            cancellable: method != "initialize",
            reason: "the request was dropped",
            modern,
        };
        if inner.out.send(Outgoing::Frame(buf)).is_err() {
            return Err(inner.shared.closed_error());
        }

        let timeout = opts.timeout.unwrap_or(inner.request_timeout);
        let start = tokio::time::Instant::now();
        let cap = start + opts.max_total.unwrap_or(timeout.saturating_mul(10));
        let mut deadline = start + timeout;
        let outcome = loop {
            tokio::select! {
                r = guard.waiter.recv() => break r,
                Some(p) = next(&mut prx) => {
                    if let Some(cb) = opts.on_progress.as_mut() {
                        cb(p);
                    }
                    deadline = (tokio::time::Instant::now() + timeout).min(cap);
                }
                Some(l) = next(&mut lrx) => {
                    if let Some(cb) = opts.on_log.as_mut() {
                        cb(l);
                    }
                }
                _ = tokio::time::sleep_until(deadline) => {
                    guard.reason = "timeout";
                    return Err(ClientError::Timeout);
                }
            }
        };
        late(opts, &mut prx, &mut lrx);
        drop(guard);
        let raw = match outcome {
            Ok(Ok(raw)) => raw,
            Ok(Err(e)) => return Err(e),
            Err(_) => return Err(inner.shared.closed_error()),
        };
        check_result(method, raw, version)
    }
}

/// Delivers the progress and log messages that raced the response.
fn late(
    opts: &mut RequestOptions,
    prx: &mut Option<mpsc::UnboundedReceiver<ProgressParams>>,
    lrx: &mut Option<mpsc::UnboundedReceiver<LoggingMessageParams>>,
) {
    while let Some(Ok(p)) = prx.as_mut().map(mpsc::UnboundedReceiver::try_recv) {
        if let Some(cb) = opts.on_progress.as_mut() {
            cb(p);
        }
    }
    while let Some(Ok(l)) = lrx.as_mut().map(mpsc::UnboundedReceiver::try_recv) {
        if let Some(cb) = opts.on_log.as_mut() {
            cb(l);
        }
    }
}

/// The next progress (or log message) of a request that asked for it; never, for one that
/// did not.
async fn next<T>(rx: &mut Option<mpsc::UnboundedReceiver<T>>) -> Option<T> {
    match rx {
        Some(rx) => rx.recv().await,
        None => std::future::pending().await,
    }
}

/// A request's or notification's params as JSON text, the `raw` members written as they
/// are after the others: on a modern connection (`modern` set) with the 2026 `_meta`
/// envelope (protocol version, client capabilities and info, replacing any the caller put
/// there), written from the client's pre-encoded capabilities and info; as they are
/// otherwise.
fn encode_params(
    inner: &Inner,
    params: Option<Map<String, Value>>,
    raw: &[(&str, &RawValue)],
    modern: Option<ProtocolVersion>,
) -> Result<Option<String>, ClientError> {
    let text = match (modern, &params) {
        (Some(version), _) => serde_json::to_string(&Stamped {
            params: params.as_ref(),
            raw,
            version,
            info: &inner.info_json,
            caps: &inner.caps_json,
        }),
        (None, Some(p)) if raw.is_empty() => serde_json::to_string(p),
        (None, p) if !raw.is_empty() => serde_json::to_string(&Members {
            params: p.as_ref(),
            raw,
        }),
        (None, _) => return Ok(None),
    };
    text.map(Some)
        .map_err(|e| ClientError::Encode(e.to_string()))
}

/// Params with the 2026 envelope in their `_meta`: what [`meta::stamp_request`] makes,
/// encoded without copying the client's info and capabilities into them.
struct Stamped<'a> {
    params: Option<&'a Map<String, Value>>,
    raw: &'a [(&'a str, &'a RawValue)],
    version: ProtocolVersion,
    info: &'a RawValue,
    caps: &'a RawValue,
}

impl Serialize for Stamped<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        let mut own = None;
        for (k, v) in self.params.into_iter().flatten() {
            if k == "_meta" {
                own = v.as_object();
            } else {
                m.serialize_entry(k, v)?;
            }
        }
        for (k, v) in self.raw {
            m.serialize_entry(k, v)?;
        }
        m.serialize_entry("_meta", &Envelope { own, stamp: self })?;
        m.end()
    }
}

/// Params without the envelope: the members of `params`, then the `raw` ones.
struct Members<'a> {
    params: Option<&'a Map<String, Value>>,
    raw: &'a [(&'a str, &'a RawValue)],
}

impl Serialize for Members<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, v) in self.params.into_iter().flatten() {
            m.serialize_entry(k, v)?;
        }
        for (k, v) in self.raw {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// A `_meta` object: the caller's members, then the envelope's.
struct Envelope<'a> {
    own: Option<&'a Map<String, Value>>,
    stamp: &'a Stamped<'a>,
}

impl Serialize for Envelope<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(None)?;
        for (k, v) in self.own.into_iter().flatten() {
            if ![
                meta::PROTOCOL_VERSION,
                meta::CLIENT_CAPABILITIES,
                meta::CLIENT_INFO,
            ]
            .contains(&k.as_str())
            {
                m.serialize_entry(k, v)?;
            }
        }
        m.serialize_entry(meta::PROTOCOL_VERSION, self.stamp.version.as_str())?;
        m.serialize_entry(meta::CLIENT_CAPABILITIES, self.stamp.caps)?;
        m.serialize_entry(meta::CLIENT_INFO, self.stamp.info)?;
        m.end()
    }
}

/// Checks a result as the revision's codec does: `input_required` becomes
/// [`ClientError::InputRequired`], another `resultType` than `complete` an invalid response.
fn check_result(
    method: &str,
    raw: Box<RawValue>,
    version: Option<ProtocolVersion>,
) -> Result<Box<RawValue>, ClientError> {
    let modern = version.is_some_and(|v| v.era() == Era::Modern);
    if modern && raw.get().starts_with('{') && !has_result_type(&raw) {
        // SEP-2322: a client assumes `complete` when a result names no resultType.
        return Ok(raw);
    }
    let codec = WireCodec::new(version.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE));
    match codec.validate_result(method, &raw) {
        Ok(ResultType::Complete) => Ok(raw),
        Ok(ResultType::InputRequired) => Err(ClientError::InputRequired(raw.get().to_owned())),
        Ok(other) => Err(ClientError::InvalidResponse(format!(
            "unexpected resultType {} for {method}",
            other.as_str()
        ))),
        Err(e) => Err(ClientError::InvalidResponse(e.to_string())),
    }
}

/// Whether a result object has a `resultType` member (any value).
fn has_result_type(raw: &RawValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe<'a> {
        #[serde(rename = "resultType", borrow, default)]
        result_type: Option<&'a RawValue>,
    }
    serde_json::from_str::<Probe<'_>>(raw.get()).is_ok_and(|p| p.result_type.is_some())
}

fn meta_mut(params: &mut Option<Map<String, Value>>) -> &mut Map<String, Value> {
    let p = params.get_or_insert_with(Map::new);
    let m = p
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if !m.is_object() {
        *m = Value::Object(Map::new());
    }
    m.as_object_mut().expect("just made an object")
}

pub(super) fn decode_result<R: DeserializeOwned>(
    method: &str,
    raw: &RawValue,
) -> Result<R, ClientError> {
    serde_json::from_str(raw.get())
        .map_err(|e| ClientError::InvalidResponse(format!("{method}: {e}")))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// The envelope written from the pre-encoded info and capabilities is the one
    /// `meta::stamp_request` builds, whatever `_meta` the params bring.
    #[test]
    fn stamped_params_are_what_stamp_request_makes() {
        let info = json!({"name": "c", "version": "1.0.0"});
        let caps = json!({"elicitation": {"form": {}}, "roots": {"listChanged": true}});
        let (info_raw, caps_raw) = (
            serde_json::value::to_raw_value(&info).unwrap(),
            serde_json::value::to_raw_value(&caps).unwrap(),
        );
        let cases = [
            None,
            Some(json!({})),
            Some(json!({"name": "add", "arguments": {"a": 1, "b": 2}})),
            Some(json!({"name": "add", "_meta": {"progressToken": "p-1",
                "io.modelcontextprotocol/protocolVersion": "stale", "traceparent": "00-x"}})),
            Some(json!({"uri": "data://x", "_meta": "not an object"})),
        ];
        for params in cases {
            let params = params.map(|p| p.as_object().unwrap().clone());
            let v = ProtocolVersion::LATEST;
            let written = serde_json::to_string(&Stamped {
                params: params.as_ref(),
                raw: &[],
                version: v,
                info: &info_raw,
                caps: &caps_raw,
            })
            .unwrap();
            let expected = meta::stamp_request(
                params.clone(),
                v,
                info.as_object(),
                caps.as_object().unwrap(),
            );
            let got: Value = serde_json::from_str(&written).unwrap();
            assert_eq!(got, Value::Object(expected), "{params:?}");
        }
    }
}
