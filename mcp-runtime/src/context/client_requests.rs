//! Typed server-to-client requests on the context (legacy connections): sampling,
//! elicitation, roots. Each checks that the client declared the capability, shapes the params
//! for the negotiated revision, names the request it comes from on a byte stream, and
//! correlates the answer with a timeout.

use mcp_core::types::{
    Adapt, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsParams,
    ListRootsResult,
};
use mcp_core::version::ProtocolVersion;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::context::Context;
use crate::context::peer::PeerError;

impl Context {
    /// Sends `method` with `params` shaped for the negotiated revision and, on a byte
    /// stream, this request's id in their `_meta` ([`Context::name_request`]): a proxy of
    /// ours in front of this server hands the request to the caller of the call it came
    /// from, however many calls are in flight.
    async fn ask<P: Adapt + Serialize, R: DeserializeOwned>(
        &self,
        method: &str,
        mut params: P,
    ) -> Result<R, PeerError> {
        params.adapt(self.version.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE));
        // As `Peer::request` reports a params type that does not serialize.
        let mut params =
            serde_json::to_value(params).map_err(|e| PeerError::InvalidResponse(e.to_string()))?;
        if let Value::Object(params) = &mut params {
            self.name_request(params);
        }
        self.peer.request(method, &params).await
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    pub async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, PeerError> {
        if self.client_capabilities().sampling.is_none() {
            return Err(PeerError::NotDeclared("sampling"));
        }
        self.ask("sampling/createMessage", params).await
    }

    /// Asks the user for input (`elicitation/create`, 2025-06-18+).
    pub async fn elicit_raw(&self, params: ElicitParams) -> Result<ElicitResult, PeerError> {
        if self.client_capabilities().elicitation.is_none() {
            return Err(PeerError::NotDeclared("elicitation"));
        }
        if self
            .version
            .is_some_and(|v| !v.at_least(ProtocolVersion::V2025_06_18))
        {
            return Err(PeerError::NotDeclared("elicitation"));
        }
        self.ask("elicitation/create", params).await
    }

    /// Asks the client for its roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<ListRootsResult, PeerError> {
        if self.client_capabilities().roots.is_none() {
            return Err(PeerError::NotDeclared("roots"));
        }
        self.ask("roots/list", ListRootsParams::default()).await
    }
}
