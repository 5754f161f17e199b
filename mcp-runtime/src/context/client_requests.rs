//! Typed server-to-client requests on the context (legacy connections): sampling,
//! elicitation, roots. Each checks that the client declared the capability, shapes the params
//! for the negotiated revision, and correlates the answer with a timeout.

use mcp_core::types::{
    Adapt, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult, ListRootsParams,
    ListRootsResult,
};
use mcp_core::version::ProtocolVersion;

use crate::context::Context;
use crate::context::peer::PeerError;

impl Context {
    fn shaped<T: Adapt>(&self, mut params: T) -> T {
        params.adapt(self.version.unwrap_or(ProtocolVersion::LATEST_HANDSHAKE));
        params
    }

    /// Asks the client's model for a completion (`sampling/createMessage`).
    pub async fn create_message(
        &self,
        params: CreateMessageParams,
    ) -> Result<CreateMessageResult, PeerError> {
        if self.client_capabilities().sampling.is_none() {
            return Err(PeerError::NotDeclared("sampling"));
        }
        let params = self.shaped(params);
        self.peer.request("sampling/createMessage", &params).await
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
        let params = self.shaped(params);
        self.peer.request("elicitation/create", &params).await
    }

    /// Asks the client for its roots (`roots/list`).
    pub async fn list_roots(&self) -> Result<ListRootsResult, PeerError> {
        if self.client_capabilities().roots.is_none() {
            return Err(PeerError::NotDeclared("roots"));
        }
        let params = self.shaped(ListRootsParams::default());
        self.peer.request("roots/list", &params).await
    }
}
