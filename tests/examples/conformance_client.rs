//! The client the official conformance suite's client scenarios drive:
//!
//! ```text
//! conformance client --command "target/debug/examples/conformance_client" --scenario <name>
//! ```
//!
//! The suite appends the scenario server's URL as the last argument and passes the scenario
//! in `MCP_CONFORMANCE_SCENARIO`, the revision in `MCP_CONFORMANCE_PROTOCOL_VERSION` (0.2
//! suites) and scenario data (pre-registered credentials, ...) as JSON in
//! `MCP_CONFORMANCE_CONTEXT`.
//!
//! Every scenario runs the same session: connect over Streamable HTTP pinned to the
//! revision, list the tools, call each one with arguments made from its input schema,
//! close. The handlers answer sampling, elicitation (accepting with the schema's defaults)
//! and roots; OAuth runs when the server answers `401` (with a fresh DPoP key, and the
//! scenario's `private_key_pem` for `private_key_jwt`). The exit status is non-zero when
//! anything failed (scenarios that expect a refusal accept that).

use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

use mcp::client::oauth::{ClientSecret, IdentityAssertion, OAuth, SigningKey};
use mcp::client::{Client, ClientError, ClientHandler, ConnectMode};
use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{
    ClientCapabilities, CreateMessageParams, CreateMessageResult, ElicitParams, ElicitResult,
    ElicitValue, ElicitationCapability, ListRootsResult, Root, RootsCapability, SamplingCapability,
    TextContent, Tool,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde_json::{Map, Value, json};

/// Where the headless authorization flow says it is redirected to (never listened on: the
/// suite's authorization endpoint redirects straight back and the client reads `Location`).
const REDIRECT_URI: &str = "http://127.0.0.1:3989/callback";
/// The Client ID Metadata Document URL the suite's CIMD scenarios expect.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

struct Host;

impl ClientHandler for Host {
    async fn create_message(
        &self,
        _params: CreateMessageParams,
    ) -> Result<CreateMessageResult, ErrorObject> {
        Ok(CreateMessageResult::new(
            "conformance-model",
            TextContent::new("This is a test response from the conformance client"),
        ))
    }

    async fn elicit(&self, params: ElicitParams) -> Result<ElicitResult, ErrorObject> {
        let ElicitParams::Form(form) = params else {
            return Ok(ElicitResult::decline());
        };
        // Accept with every default the schema gives (SEP-1034).
        let schema = serde_json::to_value(&form.requested_schema).unwrap_or(Value::Null);
        let mut content = BTreeMap::new();
        if let Some(props) = schema.get("properties").and_then(Value::as_object) {
            for (name, prop) in props {
                if let Some(v) = prop.get("default").cloned()
                    && let Ok(v) = serde_json::from_value::<ElicitValue>(v)
                {
                    content.insert(name.clone(), v);
                }
            }
        }
        Ok(ElicitResult::accept(content))
    }

    async fn list_roots(&self) -> Result<ListRootsResult, ErrorObject> {
        let mut root = Root::new("file:///tmp/conformance");
        root.name = Some("conformance".into());
        Ok(ListRootsResult::new(vec![root]))
    }
}

/// An argument value that fits a JSON Schema (numbers, strings, booleans, nested objects).
fn sample(schema: &Value) -> Value {
    if let Some(d) = schema.get("default") {
        return d.clone();
    }
    if let Some(e) = schema
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return e.clone();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some("number") | Some("integer") => json!(2),
        Some("boolean") => json!(true),
        Some("array") => json!([]),
        Some("object") => Value::Object(arguments(schema)),
        _ => json!("test"),
    }
}

/// Arguments for every required property of an input schema (and the optional ones with
/// a simple type).
fn arguments(schema: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    if let Some(props) = schema.get("properties").and_then(Value::as_object) {
        for (name, prop) in props {
            out.insert(name.clone(), sample(prop));
        }
    }
    out
}

fn capabilities() -> ClientCapabilities {
    ClientCapabilities {
        sampling: Some(SamplingCapability::default()),
        elicitation: Some(ElicitationCapability::default()),
        roots: Some(RootsCapability::default()),
        ..ClientCapabilities::default()
    }
}

/// The scenario data of `MCP_CONFORMANCE_CONTEXT`.
fn context() -> Map<String, Value> {
    std::env::var("MCP_CONFORMANCE_CONTEXT")
        .ok()
        .and_then(|c| serde_json::from_str::<Value>(&c).ok())
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default()
}

fn oauth_for(url: &str, scenario: &str) -> Result<OAuth, ClientError> {
    let ctx = context();
    let text = |k: &str| ctx.get(k).and_then(Value::as_str).map(str::to_owned);
    let mut b = OAuth::builder(url)
        .redirect_uri(REDIRECT_URI)
        .client_name("mcp-rust-conformance-client")
        .client_metadata_url(CLIENT_METADATA_URL)
        .offline_access(scenario == "auth/offline-access-scope")
        // DPoP-bound tokens from authorization servers that offer them (auth/dpop*).
        .dpop(SigningKey::generate_es256());
    if let Some(pem) = text("private_key_pem") {
        // private_key_jwt (auth/client-credentials-jwt): the key the server registered.
        b = b.private_key_jwt(SigningKey::from_pem(&pem)?);
    }
    let Some(id) = text("client_id") else {
        return b.build();
    };
    let creds = ClientSecret::new(id.clone(), text("client_secret"));
    b = if let (Some(endpoint), Some(id_token), Some(idp_id)) = (
        text("idp_token_endpoint"),
        text("idp_id_token"),
        text("idp_client_id"),
    ) {
        b.identity_assertion_grant(IdentityAssertion {
            idp_token_endpoint: endpoint,
            id_token,
            idp_client: ClientSecret::new(idp_id, None),
            client: creds,
        })
    } else if let Some(jwt) = text("valid_jwt") {
        b.jwt_bearer_grant(jwt, id)
    } else if scenario.starts_with("auth/client-credentials") {
        b.client_credentials_grant(creds)
    } else {
        b.pre_registered(creds)
    };
    b.build()
}

/// The tool calls to make: those the scenario's context lists, the schema round trip of
/// the preservation scenario, else every tool with arguments from its schema.
fn plan(scenario: &str, tools: &[Tool]) -> Vec<(String, Value)> {
    if let Some(calls) = context().get("toolCalls").and_then(Value::as_array) {
        return calls
            .iter()
            .filter_map(|c| {
                let name = c.get("name")?.as_str()?.to_owned();
                Some((name, c.get("arguments").cloned().unwrap_or(json!({}))))
            })
            .collect();
    }
    let schema_of = |t: &Tool| serde_json::to_value(&t.input_schema).unwrap_or(Value::Null);
    if scenario == "json-schema-2020-12-preservation"
        && let Some(focal) = tools.iter().find(|t| t.name != "json_schema_echo")
    {
        // Hand the focal tool's inputSchema back verbatim: what the client kept of it.
        return vec![(
            "json_schema_echo".into(),
            json!({ "schema": schema_of(focal) }),
        )];
    }
    tools
        .iter()
        .map(|t| (t.name.clone(), Value::Object(arguments(&schema_of(t)))))
        .collect()
}

async fn session(url: &str, scenario: &str, version: ProtocolVersion) -> Result<(), ClientError> {
    let mode = match version.era() {
        Era::Modern => ConnectMode::Modern(version),
        Era::Legacy => ConnectMode::Legacy(version),
    };
    let client = Client::builder()
        .mode(mode)
        .capabilities(capabilities())
        .handler(Host)
        .request_timeout(Duration::from_secs(20))
        .token_provider(oauth_for(url, scenario)?)
        .connect_http(url)
        .await?;
    let result = async {
        let tools: Vec<Tool> = client.list_all_tools().await?;
        for (name, args) in plan(scenario, &tools) {
            match client.call_tool(&name, args).await {
                Ok(r) => eprintln!("{name}: {}", serde_json::to_string(&r).unwrap_or_default()),
                // A tool error or a refused call is the server's answer, which the
                // scenario judges; it is not a client failure.
                Err(ClientError::ToolFailed(t)) => eprintln!("{name}: tool error {t}"),
                Err(ClientError::Rpc(e)) => eprintln!("{name}: JSON-RPC error {e}"),
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
    .await;
    let _ = client.close().await;
    result
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: conformance_client <server-url>");
        return ExitCode::from(2);
    };
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let version = std::env::var("MCP_CONFORMANCE_PROTOCOL_VERSION")
        .ok()
        .and_then(|v| ProtocolVersion::parse(&v))
        .unwrap_or(ProtocolVersion::LATEST_HANDSHAKE);
    eprintln!("scenario {scenario:?} at {version} against {url}");
    match session(&url, &scenario, version).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("conformance client: {e}");
            ExitCode::FAILURE
        }
    }
}
