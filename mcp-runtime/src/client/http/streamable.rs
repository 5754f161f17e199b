//! Streamable HTTP (both eras): POSTs and their answers, the standalone GET stream,
//! resumption with `Last-Event-ID`, cancellation, and re-initializing a forgotten session.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::{Bytes, Incoming};
use hyper::header;
use hyper::{Method, Request, Response, StatusCode, Uri};
use mcp_core::headers;
use mcp_core::jsonrpc::{ErrorObject, RequestId};
use mcp_core::version::ProtocolVersion;
use serde_json::Value;
use tokio::sync::oneshot;

use super::{HttpConn, Info, answers, http_error, io_error, is_sse, too_large, unusable_answer};
use crate::client::conn;
use crate::client::error::ClientError;
use crate::client::sse::SseParser;

/// How long `notifications/initialized` waits for the standalone GET stream to be answered.
const GET_READY: Duration = Duration::from_secs(2);

/// The `name` of a `tools/call`'s params.
fn tool_name(params: &serde_json::value::RawValue) -> Option<std::borrow::Cow<'_, str>> {
    #[derive(serde::Deserialize)]
    struct Named<'a> {
        #[serde(borrow)]
        name: std::borrow::Cow<'a, str>,
    }
    serde_json::from_str::<Named<'_>>(params.get())
        .ok()
        .map(|n| n.name)
}

impl HttpConn {
    /// POSTs a message to the Streamable HTTP endpoint.
    async fn post(
        &self,
        frame: &Bytes,
        info: &Info,
        session: Option<&str>,
    ) -> Result<Response<Incoming>, ClientError> {
        let mut mcp: Vec<(String, String)> = Vec::new();
        if info.modern {
            let method = info.method.as_deref().unwrap_or_default();
            let schema = match (method, &info.params) {
                ("tools/call", Some(p)) => tool_name(p).and_then(|n| {
                    let schemas = self.tool_schemas.lock().expect("schemas");
                    schemas.get(n.as_ref()).cloned()
                }),
                _ => None,
            };
            mcp = headers::request_headers(method, info.params.as_deref(), schema.as_deref());
        } else {
            if let Some(s) = session {
                mcp.push((headers::MCP_SESSION_ID.into(), s.to_owned()));
            }
            let v = self.state.lock().expect("http state lock").version;
            if let Some(v) = v {
                mcp.push((headers::MCP_PROTOCOL_VERSION.into(), v.as_str().to_owned()));
            }
        }
        let url = self.url.clone();
        self.send_with_auth(
            || {
                let mut b = Request::builder()
                    .method(Method::POST)
                    .uri(url.clone())
                    .header(header::CONTENT_TYPE, "application/json")
                    .header(header::ACCEPT, "application/json, text/event-stream");
                for (k, v) in &mcp {
                    b = b.header(k.as_str(), v.as_str());
                }
                b
            },
            frame,
        )
        .await
    }

    /// A GET of `uri` expecting an event stream.
    pub(super) async fn get(
        &self,
        uri: &Uri,
        session: Option<&str>,
        last_event_id: Option<&str>,
    ) -> Result<Response<Incoming>, ClientError> {
        let version = self.state.lock().expect("http state lock").version;
        self.send_with_auth(
            || {
                let mut b = Request::builder()
                    .method(Method::GET)
                    .uri(uri.clone())
                    .header(header::ACCEPT, "text/event-stream");
                if let Some(s) = session {
                    b = b.header(headers::MCP_SESSION_ID, s);
                }
                if let Some(v) = version {
                    b = b.header(headers::MCP_PROTOCOL_VERSION, v.as_str());
                }
                if let Some(l) = last_event_id {
                    b = b.header(headers::LAST_EVENT_ID, l);
                }
                b
            },
            &Bytes::new(),
        )
        .await
    }

    /// A notification or a response, POSTed; waits for the `202`.
    pub(super) async fn post_oneway(
        self: &Arc<Self>,
        frame: &Bytes,
        info: &Info,
    ) -> Result<(), ClientError> {
        let initialized =
            info.method.as_deref() == Some("notifications/initialized") && !info.modern;
        let early_get = initialized && self.open_get_stream_first().await;
        let mut retried = false;
        loop {
            let session = if info.modern { None } else { self.session_id() };
            let resp = self.post(frame, info, session.as_deref()).await?;
            let status = resp.status();
            if status == StatusCode::NOT_FOUND
                && info.method.is_some()
                && !retried
                && let Some(s) = session
            {
                let _ = self.read_body(resp).await;
                self.reinitialize(s).await?;
                retried = true;
                continue;
            }
            let body = self.read_body(resp).await.unwrap_or_default();
            if !status.is_success() {
                return Err(http_error(status, &body));
            }
            if !body.is_empty() {
                // Not expected for a notification, but a server may answer anyway.
                conn::route(&self.shared, &self.out, &body);
            }
            if initialized && !early_get {
                self.start_get_stream(None);
            }
            return Ok(());
        }
    }

    /// Runs one request: POSTs it and routes its answer; a failure fails the request.
    pub(super) async fn request_task(self: Arc<Self>, frame: Bytes, info: Info) {
        let id = info.id.clone().expect("a request");
        match self.run_request(&frame, &info).await {
            Err(e) => self.shared.fail(&id, e),
            Ok(()) => {
                if self.shared.is_pending(&id) {
                    self.shared.fail(
                        &id,
                        ClientError::Closed(Some(
                            "the server ended the HTTP response without answering".into(),
                        )),
                    );
                }
            }
        }
        self.tasks.lock().expect("tasks lock").remove(&id);
    }

    fn capture_init(&self, payload: &[u8], id: &RequestId) {
        if !answers(payload, id) {
            return;
        }
        let v = serde_json::from_slice::<Value>(payload).ok().and_then(|v| {
            v.pointer("/result/protocolVersion")
                .and_then(Value::as_str)
                .and_then(ProtocolVersion::parse)
        });
        if let Some(v) = v {
            self.state.lock().expect("http state lock").version = Some(v);
        }
    }

    async fn run_request(self: &Arc<Self>, frame: &Bytes, info: &Info) -> Result<(), ClientError> {
        let id = info.id.as_ref().expect("a request");
        let is_init = info.method.as_deref() == Some("initialize");
        if is_init {
            let mut st = self.state.lock().expect("http state lock");
            st.init_params = info.params.clone();
            st.session_id = None;
            st.version = None;
        }
        let mut retried = false;
        loop {
            let session = if is_init || info.modern {
                None
            } else {
                self.session_id()
            };
            let resp = self.post(frame, info, session.as_deref()).await?;
            let status = resp.status();
            if status == StatusCode::NOT_FOUND
                && !retried
                && let Some(s) = session
            {
                let body = self.read_body(resp).await.unwrap_or_default();
                if answers(&body, id) {
                    conn::route(&self.shared, &self.out, &body);
                    return Ok(());
                }
                self.reinitialize(s).await?;
                retried = true;
                continue;
            }
            if status == StatusCode::ACCEPTED {
                return Ok(());
            }
            if !status.is_success() {
                let body = self.read_body(resp).await.unwrap_or_default();
                // A JSON-RPC answer to this very request is the answer, whatever the status.
                if answers(&body, id) {
                    conn::route(&self.shared, &self.out, &body);
                    return Ok(());
                }
                return Err(http_error(status, &body));
            }
            if is_init
                && let Some(sid) = resp
                    .headers()
                    .get(headers::MCP_SESSION_ID)
                    .and_then(|v| v.to_str().ok())
            {
                self.state.lock().expect("http state lock").session_id = Some(sid.to_owned());
            }
            if is_sse(&resp) {
                let mut parser = SseParser::new(self.settings.max_frame);
                self.read_sse(resp.into_body(), &mut parser, Some(id), is_init)
                    .await;
                if self.shared.is_pending(id) && parser.oversized > 0 {
                    return Err(too_large(self.settings.max_frame));
                }
                if self.shared.is_pending(id) && !info.modern && parser.last_id.is_some() {
                    self.resume(id, &mut parser).await?;
                }
            } else {
                let content_type = resp
                    .headers()
                    .get(header::CONTENT_TYPE)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                let body = self.read_body(resp).await?;
                if is_init {
                    self.capture_init(&body, id);
                }
                conn::route(&self.shared, &self.out, &body);
                if self.shared.is_pending(id) {
                    return Err(unusable_answer(status, &content_type, &body));
                }
            }
            return Ok(());
        }
    }

    /// Resumes a POST's stream that ended before its answer (`GET` + `Last-Event-ID`).
    async fn resume(
        self: &Arc<Self>,
        id: &RequestId,
        parser: &mut SseParser,
    ) -> Result<(), ClientError> {
        for _ in 0..5 {
            if !self.shared.is_pending(id) {
                return Ok(());
            }
            let wait = parser.retry.unwrap_or(1000).min(10_000);
            tokio::time::sleep(Duration::from_millis(wait)).await;
            let session = self.session_id();
            let last = parser.last_id.clone();
            let resp = self
                .get(&self.url, session.as_deref(), last.as_deref())
                .await?;
            let status = resp.status();
            if !status.is_success() || !is_sse(&resp) {
                let body = self.read_body(resp).await.unwrap_or_default();
                return Err(http_error(status, &body));
            }
            self.read_sse(resp.into_body(), parser, Some(id), false)
                .await;
        }
        Ok(())
    }

    /// Routes the events of a stream until it ends (or, with `want`, until that request
    /// is answered or an event was too large: on a request's stream that is its answer).
    pub(super) async fn read_sse(
        &self,
        mut body: Incoming,
        parser: &mut SseParser,
        want: Option<&RequestId>,
        is_init: bool,
    ) {
        let dropped = parser.oversized;
        loop {
            if let Some(id) = want
                && (!self.shared.is_pending(id) || parser.oversized > dropped)
            {
                return;
            }
            match body.frame().await {
                None => {
                    parser.end_of_stream();
                    return;
                }
                Some(Err(e)) => {
                    tracing::debug!(error = %e, "SSE stream broke");
                    parser.end_of_stream();
                    return;
                }
                Some(Ok(f)) => {
                    let Ok(data) = f.into_data() else { continue };
                    for ev in parser.push(&data) {
                        if ev.event.as_deref().is_some_and(|e| e != "message") {
                            continue;
                        }
                        if is_init && let Some(id) = want {
                            self.capture_init(ev.data.as_bytes(), id);
                        }
                        conn::route_on(&self.shared, &self.out, ev.data.as_bytes(), want);
                    }
                }
            }
        }
    }

    /// Opens the standalone GET stream and waits (up to [`GET_READY`]) for the server's
    /// answer, so that what it sends while handling `notifications/initialized` has a
    /// stream to go on. `true` when nothing is left to do: the stream is open, or the
    /// server has none (`405`).
    async fn open_get_stream_first(self: &Arc<Self>) -> bool {
        let (tx, rx) = oneshot::channel();
        self.start_get_stream(Some(tx));
        matches!(tokio::time::timeout(GET_READY, rx).await, Ok(Ok(true)))
    }

    /// Starts the GET loop (replacing a running one); `ready` hears how its first GET went.
    fn start_get_stream(self: &Arc<Self>, ready: Option<oneshot::Sender<bool>>) {
        if self.shut.load(Ordering::SeqCst) {
            return;
        }
        let session = self.session_id();
        let this = self.clone();
        let h = tokio::spawn(async move { this.get_loop(session, ready).await });
        let old = self
            .state
            .lock()
            .expect("http state lock")
            .get_stream
            .replace(h.abort_handle());
        if let Some(o) = old {
            o.abort();
        }
    }

    /// The standalone GET stream of a legacy session, reconnected (with `Last-Event-ID`)
    /// when the server ends it; over on 405, 404, 409 or repeated failures.
    async fn get_loop(
        self: Arc<Self>,
        session: Option<String>,
        mut ready: Option<oneshot::Sender<bool>>,
    ) {
        let mut parser = SseParser::new(self.settings.max_frame);
        let mut failures = 0;
        let mut tell = |ok: bool| {
            if let Some(tx) = ready.take() {
                let _ = tx.send(ok);
            }
        };
        loop {
            if self.shut.load(Ordering::SeqCst) || self.session_id() != session {
                return;
            }
            let last = parser.last_id.clone();
            match self
                .get(&self.url, session.as_deref(), last.as_deref())
                .await
            {
                Err(e) => {
                    tell(false);
                    failures += 1;
                    tracing::debug!(error = %e, "GET stream failed");
                    if failures > 3 {
                        return;
                    }
                }
                Ok(r) if r.status().is_success() && is_sse(&r) => {
                    tell(true);
                    failures = 0;
                    self.read_sse(r.into_body(), &mut parser, None, false).await;
                }
                Ok(r) => {
                    tell(r.status() == StatusCode::METHOD_NOT_ALLOWED);
                    tracing::debug!(status = %r.status(), "no GET stream");
                    return;
                }
            }
            let wait = parser.retry.unwrap_or(1000).min(30_000);
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
    }

    /// The session `old` is gone (404): a new `initialize` (the same params), then
    /// `notifications/initialized`; once for every request that found it gone.
    async fn reinitialize(self: &Arc<Self>, old: String) -> Result<(), ClientError> {
        let _serial = self.reinit.lock().await;
        let params = {
            let mut st = self.state.lock().expect("http state lock");
            if st.session_id.as_deref() != Some(old.as_str()) {
                // Someone else re-initialized already.
                return Ok(());
            }
            st.session_id = None;
            if let Some(h) = st.get_stream.take() {
                h.abort();
            }
            st.init_params.clone()
        };
        let Some(params) = params else {
            return Err(ClientError::Closed(Some(
                "the session expired before it was initialized".into(),
            )));
        };
        tracing::info!("the server forgot the session (404): re-initializing");
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("mcp-reinit-{n}").into());
        let frame = serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": "initialize", "params": params
        });
        let frame = Bytes::from(frame.to_string());
        let info = Info {
            method: Some("initialize".into()),
            id: Some(id.clone()),
            params: Some(params),
            modern: false,
        };
        let version = self.state.lock().expect("http state lock").version;
        let exchange = async {
            let resp = self.post(&frame, &info, None).await?;
            let status = resp.status();
            let sid = resp
                .headers()
                .get(headers::MCP_SESSION_ID)
                .and_then(|v| v.to_str().ok())
                .map(str::to_owned);
            let mut payloads = Vec::new();
            if is_sse(&resp) {
                let mut parser = SseParser::new(self.settings.max_frame);
                let mut body = resp.into_body();
                'read: while let Some(f) = body.frame().await {
                    let Ok(data) = f.map_err(|e| io_error(&e))?.into_data() else {
                        continue;
                    };
                    for ev in parser.push(&data) {
                        let done = answers(ev.data.as_bytes(), &id);
                        payloads.push(Bytes::from(ev.data));
                        if done {
                            break 'read;
                        }
                    }
                }
            } else {
                let body = self.read_body(resp).await?;
                if !status.is_success() {
                    return Err(http_error(status, &body));
                }
                payloads.push(body);
            }
            Ok::<_, ClientError>((sid, payloads))
        };
        let (sid, payloads) = tokio::time::timeout(self.request_timeout, exchange)
            .await
            .map_err(|_| ClientError::Timeout)??;
        let mut answered = false;
        for p in payloads {
            if answers(&p, &id) {
                let v: Value = serde_json::from_slice(&p).unwrap_or(Value::Null);
                if let Some(e) = v.get("error") {
                    let e = serde_json::from_value::<ErrorObject>(e.clone())
                        .unwrap_or_else(|_| ErrorObject::new(-32603, "re-initialize failed"));
                    return Err(ClientError::Rpc(e));
                }
                let got = v
                    .pointer("/result/protocolVersion")
                    .and_then(Value::as_str)
                    .and_then(ProtocolVersion::parse);
                if got != version {
                    tracing::warn!(?got, ?version, "re-initialize negotiated another revision");
                }
                answered = true;
            } else {
                conn::route(&self.shared, &self.out, &p);
            }
        }
        if !answered {
            return Err(ClientError::Closed(Some(
                "the server did not answer the re-initialize".into(),
            )));
        }
        self.state.lock().expect("http state lock").session_id = sid;
        self.reinitialized.fetch_add(1, Ordering::Relaxed);
        let note = Bytes::from_static(br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#);
        let info = Info {
            method: Some("notifications/initialized".into()),
            id: None,
            params: None,
            modern: false,
        };
        let early_get = self.open_get_stream_first().await;
        let session = self.session_id();
        let resp = self.post(&note, &info, session.as_deref()).await?;
        let status = resp.status();
        let body = self.read_body(resp).await.unwrap_or_default();
        if !status.is_success() {
            return Err(http_error(status, &body));
        }
        if !early_get {
            self.start_get_stream(None);
        }
        Ok(())
    }
}
