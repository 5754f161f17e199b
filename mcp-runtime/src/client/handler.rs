//! What a client does with the server's requests and notifications.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{
    Adapt, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsResult,
};
use mcp_core::version::ProtocolVersion;
use serde_json::Value;
use serde_json::value::RawValue;

/// A notification the server sent (progress, log messages, list changes, ...).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerNotification {
    /// The method, e.g. `notifications/message`.
    pub method: String,
    /// The params, decoded.
    pub params: Option<Value>,
}

impl ServerNotification {
    /// The `subscriptions/listen` stream this notification belongs to (its
    /// `_meta` `io.modelcontextprotocol/subscriptionId`), if any.
    pub fn subscription_id(&self) -> Option<mcp_core::jsonrpc::RequestId> {
        let id = self
            .params
            .as_ref()?
            .get("_meta")?
            .get("io.modelcontextprotocol/subscriptionId")?;
        serde_json::from_value(id.clone()).ok()
    }
}

/// Answers the server's requests on a legacy connection and observes its notifications.
///
/// Every method has a default: requests answer `-32601 Method not found` (declare the
/// matching client capability only when you implement one), notifications are ignored.
/// `ping` is always answered by the client itself.
///
/// ```
/// use mcp_runtime::client::ClientHandler;
/// use mcp_core::jsonrpc::ErrorObject;
/// use mcp_core::types::{CreateMessageParams, CreateMessageResult, TextContent};
///
/// struct Echo;
/// impl ClientHandler for Echo {
///     async fn create_message(
///         &self,
///         _params: CreateMessageParams,
///     ) -> Result<CreateMessageResult, ErrorObject> {
///         Ok(CreateMessageResult::new("echo-model", TextContent::new("hi")))
///     }
/// }
/// ```
pub trait ClientHandler: Send + Sync + 'static {
    /// `sampling/createMessage`: ask the host's model for a completion.
    fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> impl Future<Output = Result<CreateMessageResult, ErrorObject>> + Send {
        let _ = params;
        async { Err(ErrorObject::method_not_found("sampling/createMessage")) }
    }

    /// `elicitation/create`: ask the user for input.
    fn elicit(
        &self,
        params: ElicitParams,
    ) -> impl Future<Output = Result<ElicitResult, ErrorObject>> + Send {
        let _ = params;
        async { Err(ErrorObject::method_not_found("elicitation/create")) }
    }

    /// `roots/list`: the client's filesystem roots.
    fn list_roots(&self) -> impl Future<Output = Result<ListRootsResult, ErrorObject>> + Send {
        async { Err(ErrorObject::method_not_found("roots/list")) }
    }

    /// Every notification from the server (called on the reader task: keep it quick).
    fn on_notification(&self, notification: &ServerNotification) {
        let _ = notification;
    }
}

/// The handler that answers nothing (every server request gets `-32601`).
impl ClientHandler for () {}

/// A [`ClientHandler`] for the server requests of one request
/// ([`RequestOptions::handler`](super::RequestOptions::handler)).
///
/// ```
/// use mcp_runtime::client::{ClientHandler, RequestHandler, RequestOptions};
///
/// struct AskTheCaller;
/// impl ClientHandler for AskTheCaller {}
///
/// let mut opts = RequestOptions::default();
/// opts.handler = Some(RequestHandler::new(AskTheCaller));
/// ```
#[derive(Clone)]
pub struct RequestHandler(pub(crate) Arc<dyn DynHandler>);

impl RequestHandler {
    /// Wraps `handler`.
    pub fn new(handler: impl ClientHandler) -> Self {
        Self(Arc::new(handler))
    }
}

impl std::fmt::Debug for RequestHandler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RequestHandler")
    }
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The object-safe form of [`ClientHandler`] the connection stores.
pub(crate) trait DynHandler: Send + Sync + 'static {
    fn handle(
        self: Arc<Self>,
        method: String,
        params: Option<Box<RawValue>>,
        version: ProtocolVersion,
    ) -> BoxFuture<Result<String, ErrorObject>>;
    fn notify(&self, n: &ServerNotification);
}

fn decode<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Result<T, ErrorObject> {
    serde_json::from_str(params.map_or("{}", RawValue::get))
        .map_err(|e| ErrorObject::invalid_params(format!("Invalid params: {e}")))
}

fn encode<T: Adapt + serde::Serialize>(
    mut value: T,
    version: ProtocolVersion,
) -> Result<String, ErrorObject> {
    value.adapt(version);
    serde_json::to_string(&value).map_err(|_| ErrorObject::internal())
}

impl<H: ClientHandler> DynHandler for H {
    fn handle(
        self: Arc<Self>,
        method: String,
        params: Option<Box<RawValue>>,
        version: ProtocolVersion,
    ) -> BoxFuture<Result<String, ErrorObject>> {
        Box::pin(async move {
            match method.as_str() {
                "ping" => Ok("{}".to_owned()),
                "sampling/createMessage" => {
                    let p: CreateMessageParams = decode(params.as_deref())?;
                    encode(self.create_message(p).await?, version)
                }
                "elicitation/create" => {
                    let p: ElicitParams = decode(params.as_deref())?;
                    encode(self.elicit(p).await?, version)
                }
                "roots/list" => encode(self.list_roots().await?, version),
                other => Err(ErrorObject::method_not_found(other)),
            }
        })
    }

    fn notify(&self, n: &ServerNotification) {
        self.on_notification(n);
    }
}
