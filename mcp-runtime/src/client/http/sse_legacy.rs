//! The 2024-11-05 HTTP+SSE transport: the `endpoint` handshake, the event stream and its
//! reconnection, POSTs to the endpoint.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::{Bytes, Incoming};
use hyper::header;
use hyper::{Method, Request, Uri};
use mcp_core::jsonrpc::{ErrorObject, RequestId};
use serde_json::Value;

use super::{HttpConn, Kind, answers, http_error, io_error, is_sse};
use crate::client::conn;
use crate::client::error::ClientError;
use crate::client::sse::SseParser;

/// How many reconnections in a row a broken 2024-11-05 SSE stream gets.
const SSE_RECONNECTS: u32 = 5;

impl HttpConn {
    /// Opens the 2024-11-05 SSE stream on the URL and waits for its `endpoint` event; from
    /// then on every message is POSTed there. When the stream ends the driver reconnects
    /// (see [`HttpConn::sse_reader`]).
    pub(crate) async fn open_sse(self: &Arc<Self>) -> Result<(), ClientError> {
        let mut parser = SseParser::new(self.settings.max_frame);
        let (post, body, early) = self.sse_handshake(&mut parser, None).await?;
        tracing::debug!(%post, "HTTP+SSE endpoint");
        *self.kind.lock().expect("kind lock") = Kind::Sse { post };
        let this = self.clone();
        let h = tokio::spawn(async move {
            for m in early {
                conn::route(&this.shared, &this.out, m.as_bytes());
            }
            this.sse_reader(body, parser).await;
        });
        self.state.lock().expect("http state lock").sse_stream = Some(h.abort_handle());
        Ok(())
    }

    /// `GET` the SSE URL (with `Last-Event-ID` when resuming) and read up to its `endpoint`
    /// event: the POST URL, the stream, and the messages that came with the endpoint.
    async fn sse_handshake(
        &self,
        parser: &mut SseParser,
        last_event_id: Option<&str>,
    ) -> Result<(Uri, Incoming, Vec<String>), ClientError> {
        let opened = async {
            let resp = self.get(&self.url, None, last_event_id).await?;
            let status = resp.status();
            if !status.is_success() {
                let body = self.read_body(resp).await.unwrap_or_default();
                return Err(http_error(status, &body));
            }
            if !is_sse(&resp) {
                return Err(ClientError::InvalidResponse(
                    "the SSE endpoint did not answer with text/event-stream".into(),
                ));
            }
            let mut body = resp.into_body();
            let mut early = Vec::new();
            loop {
                let Some(f) = body.frame().await else {
                    return Err(ClientError::Closed(Some(
                        "the SSE stream ended before its endpoint event".into(),
                    )));
                };
                let Ok(data) = f.map_err(|e| io_error(&e))?.into_data() else {
                    continue;
                };
                let mut endpoint = None;
                for ev in parser.push(&data) {
                    if endpoint.is_none() && ev.event.as_deref() == Some("endpoint") {
                        endpoint = Some(ev.data);
                    } else if endpoint.is_some() || ev.event.is_none_or(|e| e == "message") {
                        early.push(ev.data);
                    }
                }
                if let Some(e) = endpoint {
                    return Ok((e, body, early));
                }
            }
        };
        let (endpoint, body, early) = tokio::time::timeout(self.settings.connect_timeout, opened)
            .await
            .map_err(|_| {
                ClientError::Closed(Some("no endpoint event on the SSE stream in time".into()))
            })??;
        let post = resolve(&self.url, endpoint.trim())?;
        Ok((post, body, early))
    }

    /// Reads the HTTP+SSE stream; when the server ends or breaks it, reconnects after the
    /// stream's `retry:` (default 1 s) with `Last-Event-ID`, up to [`SSE_RECONNECTS`]
    /// attempts in a row. A new `endpoint` means a new session: the client is
    /// re-initialized there with the params of its `initialize`. Gives up by closing the
    /// connection (pending requests fail with the reason).
    async fn sse_reader(self: Arc<Self>, mut body: Incoming, mut parser: SseParser) {
        loop {
            self.read_sse(body, &mut parser, None, false).await;
            if self.shut.load(Ordering::SeqCst) {
                return;
            }
            let mut attempt = 0;
            body = loop {
                attempt += 1;
                if attempt > SSE_RECONNECTS {
                    self.shared.close(ClientError::Closed(Some(
                        "the SSE stream ended and reconnecting failed".into(),
                    )));
                    return;
                }
                let wait = parser.retry.unwrap_or(1000).min(30_000);
                tokio::time::sleep(Duration::from_millis(wait)).await;
                if self.shut.load(Ordering::SeqCst) {
                    return;
                }
                match self.sse_reconnect(&mut parser).await {
                    Ok(b) => break b,
                    Err(e) => tracing::debug!(error = %e, attempt, "SSE reconnect failed"),
                }
            };
        }
    }

    /// One reconnection: the handshake, then a re-`initialize` when the endpoint changed.
    async fn sse_reconnect(
        self: &Arc<Self>,
        parser: &mut SseParser,
    ) -> Result<Incoming, ClientError> {
        let last = parser.last_id.clone();
        let mut fresh = SseParser::resuming(self.settings.max_frame, last.clone());
        fresh.retry = parser.retry;
        let (post, mut body, early) = self.sse_handshake(&mut fresh, last.as_deref()).await?;
        *parser = fresh;
        let old = std::mem::replace(
            &mut *self.kind.lock().expect("kind lock"),
            Kind::Sse { post: post.clone() },
        );
        for m in early {
            conn::route(&self.shared, &self.out, m.as_bytes());
        }
        if old != (Kind::Sse { post }) {
            tracing::info!("the SSE stream came back with a new endpoint: re-initializing");
            self.reinitialize_sse(&mut body, parser).await?;
        }
        Ok(body)
    }

    /// `initialize` + `notifications/initialized` on a new HTTP+SSE session; the answer
    /// is read off the new stream (other messages on it are routed as usual).
    async fn reinitialize_sse(
        &self,
        body: &mut Incoming,
        parser: &mut SseParser,
    ) -> Result<(), ClientError> {
        let Some(params) = self
            .state
            .lock()
            .expect("http state lock")
            .init_params
            .clone()
        else {
            return Err(ClientError::Closed(Some(
                "the SSE session was lost before it was initialized".into(),
            )));
        };
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = RequestId::String(format!("mcp-reinit-sse-{n}").into());
        let frame = serde_json::json!({
            "jsonrpc": "2.0", "id": id, "method": "initialize", "params": params
        });
        self.post_sse(&Bytes::from(frame.to_string())).await?;
        let answer = async {
            while let Some(f) = body.frame().await {
                let Ok(data) = f.map_err(|e| io_error(&e))?.into_data() else {
                    continue;
                };
                for ev in parser.push(&data) {
                    if answers(ev.data.as_bytes(), &id) {
                        return Ok(ev.data);
                    }
                    conn::route(&self.shared, &self.out, ev.data.as_bytes());
                }
            }
            Err(ClientError::Closed(Some(
                "the SSE stream ended during re-initialization".into(),
            )))
        };
        let answer = tokio::time::timeout(self.request_timeout, answer)
            .await
            .map_err(|_| ClientError::Timeout)??;
        let v: Value = serde_json::from_str(&answer).unwrap_or(Value::Null);
        if let Some(e) = v.get("error") {
            let e = serde_json::from_value::<ErrorObject>(e.clone())
                .unwrap_or_else(|_| ErrorObject::new(-32603, "re-initialize failed"));
            return Err(ClientError::Rpc(e));
        }
        let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
        self.post_sse(&Bytes::from_static(note)).await?;
        self.reinitialized.fetch_add(1, Ordering::Relaxed);
        Ok(())
    }

    /// POSTs one message to the endpoint the `endpoint` event named.
    pub(super) async fn post_sse(&self, frame: &Bytes) -> Result<(), ClientError> {
        let Kind::Sse { post } = self.kind() else {
            unreachable!("only in SSE mode")
        };
        let resp = self
            .send_with_auth(
                || {
                    Request::builder()
                        .method(Method::POST)
                        .uri(post.clone())
                        .header(header::CONTENT_TYPE, "application/json")
                },
                frame,
            )
            .await?;
        let status = resp.status();
        let body = self.read_body(resp).await.unwrap_or_default();
        if status.is_success() {
            Ok(())
        } else {
            Err(http_error(status, &body))
        }
    }
}

/// The POST endpoint an `endpoint` event names, against the SSE URL; only the same origin.
fn resolve(base: &Uri, endpoint: &str) -> Result<Uri, ClientError> {
    let bad = |why: &str| ClientError::InvalidResponse(format!("endpoint {endpoint:?}: {why}"));
    if endpoint.contains("://") {
        let u: Uri = endpoint.parse().map_err(|_| bad("not a URI"))?;
        if u.scheme() != base.scheme() || u.authority() != base.authority() {
            return Err(bad("another origin than the SSE stream's"));
        }
        return Ok(u);
    }
    let scheme = base.scheme_str().unwrap_or("http");
    let authority = base.authority().map(|a| a.as_str()).unwrap_or_default();
    let path = if endpoint.starts_with('/') {
        endpoint.to_owned()
    } else {
        let dir = base.path().rsplit_once('/').map_or("", |(d, _)| d);
        format!("{dir}/{endpoint}")
    };
    format!("{scheme}://{authority}{path}")
        .parse()
        .map_err(|_| bad("not a URI"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoint_resolution() {
        let base: Uri = "http://127.0.0.1:9/a/sse".parse().unwrap();
        assert_eq!(
            resolve(&base, "/messages?sessionId=1").unwrap().to_string(),
            "http://127.0.0.1:9/messages?sessionId=1"
        );
        assert_eq!(
            resolve(&base, "messages?x").unwrap().to_string(),
            "http://127.0.0.1:9/a/messages?x"
        );
        assert!(resolve(&base, "http://evil.example/messages").is_err());
        assert!(resolve(&base, "http://127.0.0.1:9/m").is_ok());
    }
}
