//! `subscriptions/listen` (2026-07-28): a long-lived request whose notifications (tagged
//! with the request's id as `io.modelcontextprotocol/subscriptionId`) form a stream.
//!
//! [`Client::listen`] sends the request, waits for the server's
//! `notifications/subscriptions/acknowledged`, and hands back a [`Subscription`]: an async
//! [`Stream`](futures_core::Stream) of the stream's notifications that ends when the server
//! ends the subscription (its final result) or the connection closes. Dropping it cancels
//! the subscription (`notifications/cancelled` on streams; on HTTP closing the response
//! stream is the cancellation).

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use mcp_core::types::{SubscriptionFilter, SubscriptionsAcknowledgedParams};
use mcp_core::version::Era;
use serde_json::Value;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::error::ClientError;
use super::handler::ServerNotification;
use super::{Client, RequestOptions};

/// How long a subscription may stay open (a listen request has no useful timeout).
const LISTEN_TIMEOUT: Duration = Duration::from_secs(365 * 24 * 3600);

/// An open `subscriptions/listen` stream (see [`Client::listen`]).
pub struct Subscription {
    acknowledged: SubscriptionFilter,
    rx: mpsc::UnboundedReceiver<ServerNotification>,
    request: JoinHandle<Result<(), ClientError>>,
}

impl std::fmt::Debug for Subscription {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Subscription")
            .field("acknowledged", &self.acknowledged)
            .finish_non_exhaustive()
    }
}

impl Subscription {
    /// What the server agreed to send (a subset of the filter asked for).
    pub fn acknowledged(&self) -> &SubscriptionFilter {
        &self.acknowledged
    }

    /// The next notification; `None` once the subscription has ended.
    pub async fn next(&mut self) -> Option<ServerNotification> {
        self.rx.recv().await
    }

    /// Waits for the end of a subscription that stopped delivering ([`Subscription::next`]
    /// gave `None`): `Ok` when the server ended it gracefully, else why it broke.
    pub async fn finish(mut self) -> Result<(), ClientError> {
        match (&mut self.request).await {
            Ok(r) => r,
            Err(e) => Err(ClientError::Closed(Some(format!(
                "the subscription task failed: {e}"
            )))),
        }
    }
}

impl futures_core::Stream for Subscription {
    type Item = ServerNotification;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.rx.poll_recv(cx)
    }
}

impl Drop for Subscription {
    fn drop(&mut self) {
        // Dropping the request cancels it on the server.
        self.request.abort();
    }
}

impl Client {
    /// Opens a `subscriptions/listen` stream for `filter` (2026-07-28 connections only)
    /// and waits for the server's acknowledgement.
    ///
    /// ```no_run
    /// # async fn demo(client: mcp_runtime::client::Client) -> Result<(), mcp_runtime::client::ClientError> {
    /// use mcp_core::types::SubscriptionFilter;
    ///
    /// let filter = SubscriptionFilter {
    ///     tools_list_changed: Some(true),
    ///     ..SubscriptionFilter::default()
    /// };
    /// let mut sub = client.listen(filter).await?;
    /// while let Some(n) = sub.next().await {
    ///     println!("{}", n.method);
    /// }
    /// # Ok(()) }
    /// ```
    pub async fn listen(&self, filter: SubscriptionFilter) -> Result<Subscription, ClientError> {
        let version = self.current_version();
        if version.map(|v| v.era()) != Some(Era::Modern) {
            return Err(ClientError::Unsupported(
                "subscriptions/listen needs a 2026-07-28 connection (legacy servers push \
                 notifications on the session; see Client::notifications)"
                    .into(),
            ));
        }
        let params = serde_json::to_value(mcp_core::types::SubscriptionsListenParams {
            meta: None,
            notifications: filter,
        })
        .map_err(|e| ClientError::Encode(e.to_string()))?;
        let (tx, mut rx) = mpsc::unbounded_channel();
        let client = self.clone();
        let request = tokio::spawn(async move {
            let mut opts = RequestOptions {
                timeout: Some(LISTEN_TIMEOUT),
                max_total: Some(LISTEN_TIMEOUT),
                ..RequestOptions::default()
            };
            client
                .send_request(
                    "subscriptions/listen",
                    Some(params),
                    &[],
                    &mut opts,
                    version,
                    Some(tx),
                )
                .await
                .map(|_| ())
        });
        let mut sub = Subscription {
            acknowledged: SubscriptionFilter::default(),
            rx: mpsc::unbounded_channel().1,
            request,
        };
        // The acknowledgement is the first message of the stream.
        match rx.recv().await {
            Some(n) if n.method == SubscriptionsAcknowledgedParams::METHOD => {
                let ack: SubscriptionsAcknowledgedParams =
                    serde_json::from_value(n.params.unwrap_or(Value::Null)).map_err(|e| {
                        ClientError::InvalidResponse(format!("subscription acknowledgement: {e}"))
                    })?;
                sub.acknowledged = ack.notifications;
                sub.rx = rx;
                Ok(sub)
            }
            Some(n) => Err(ClientError::InvalidResponse(format!(
                "the subscription began with {} instead of its acknowledgement",
                n.method
            ))),
            // The request ended (refused, or the connection closed) before any message.
            None => Err(match sub.finish().await {
                Err(e) => e,
                Ok(()) => ClientError::InvalidResponse(
                    "the subscription ended before it was acknowledged".into(),
                ),
            }),
        }
    }
}
