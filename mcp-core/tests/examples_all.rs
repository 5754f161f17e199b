//! Every 2026-07-28 example file, in one place.
//!
//! Walks every `2026-07-28/examples/<Folder>/*.json`. Each folder has an explicit entry in
//! [`table`] naming the Rust type its files are read as; a folder without one fails the test,
//! so a new example cannot be skipped silently. For every file: it deserializes, serializes
//! back to the same JSON, and, shaped for 2026-07-28, validates strictly against the schema
//! definition named by its folder.

mod common;

use std::collections::BTreeMap;
use std::path::Path;

use mcp_core::jsonrpc::{
    ErrorObject, ErrorResponse, TypedNotification, TypedRequest, TypedResponse,
};
use mcp_core::types::*;
use mcp_core::version::ProtocolVersion as V;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Checks one example file (`folder`, `path`, parsed JSON).
type Check = fn(&common::Spec, &str, &str, &Value);

/// The number of example files the spec's SOURCES.md lists (2026-07-28, commit 271ecc9).
const EXPECTED_FILES: usize = 129;

/// Reads `json` as `T`, asserts it serializes back unchanged, and returns it.
fn read_back<T: DeserializeOwned + Serialize>(path: &str, json: &Value) -> T {
    let v: T = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{path}: does not deserialize: {e}"));
    assert_eq!(
        &serde_json::to_value(&v).unwrap(),
        json,
        "{path}: round trip"
    );
    v
}

/// Round trip as `T`, then adapt for 2026-07-28 (twice, to see idempotence) and validate
/// strictly against `folder`.
fn roundtrip<T>(spec: &common::Spec, folder: &str, path: &str, json: &Value)
where
    T: DeserializeOwned + Serialize + Adapt + Clone,
{
    let v: T = read_back(path, json);
    let shaped = to_value_for(&v, V::V2026_07_28);
    let mut twice = v;
    twice.adapt(V::V2026_07_28);
    twice.adapt(V::V2026_07_28);
    assert_eq!(
        serde_json::to_value(&twice).unwrap(),
        shaped,
        "{path}: adapt is not idempotent"
    );
    spec.check(V::V2026_07_28, folder, &shaped);
}

/// Round trip for revision-independent JSON-RPC error values (no [`Adapt`]): the value as
/// read validates strictly against `folder`.
fn as_is<T: DeserializeOwned + Serialize>(
    spec: &common::Spec,
    folder: &str,
    path: &str,
    json: &Value,
) {
    let v: T = read_back(path, json);
    spec.check(V::V2026_07_28, folder, &serde_json::to_value(&v).unwrap());
}

/// The ListRootsRequest example carries an `id` that the 2026 definition (an input request,
/// `{method, params?}`) lacks: it is read (and ignored) and not written back, so the round
/// trip compares with the example minus `id` (as tests/schema_client_features.rs does).
fn list_roots_request(spec: &common::Spec, folder: &str, path: &str, json: &Value) {
    assert!(json.get("id").is_some(), "{path}: the example has an id");
    assert!(
        spec.check_in("2026-07-28", folder, json).is_err(),
        "{path}: strictly, the raw example's id is undefined"
    );
    let mut expected = json.clone();
    expected.as_object_mut().unwrap().remove("id");
    let r: InputRequest = serde_json::from_value(json.clone())
        .unwrap_or_else(|e| panic!("{path}: does not deserialize: {e}"));
    assert_eq!(r, InputRequest::ListRoots(None), "{path}");
    roundtrip::<InputRequest>(spec, folder, path, &expected);
}

/// Folder name → how its files are read. Every folder must be listed.
fn table() -> BTreeMap<&'static str, Check> {
    let entries: &[(&'static str, Check)] = &[
        // Content blocks and resource contents.
        ("AudioContent", roundtrip::<ContentBlock>),
        ("BlobResourceContents", roundtrip::<BlobResourceContents>),
        ("EmbeddedResource", roundtrip::<ContentBlock>),
        ("ImageContent", roundtrip::<ContentBlock>),
        ("ResourceLink", roundtrip::<ContentBlock>),
        ("TextContent", roundtrip::<ContentBlock>),
        ("TextResourceContents", roundtrip::<TextResourceContents>),
        ("ToolResultContent", roundtrip::<SamplingContent>),
        ("ToolUseContent", roundtrip::<SamplingContent>),
        // Elicitation schemas.
        ("BooleanSchema", roundtrip::<BooleanSchema>),
        ("NumberSchema", roundtrip::<NumberSchema>),
        ("StringSchema", roundtrip::<StringSchema>),
        (
            "TitledMultiSelectEnumSchema",
            roundtrip::<TitledMultiSelectEnumSchema>,
        ),
        (
            "TitledSingleSelectEnumSchema",
            roundtrip::<TitledSingleSelectEnumSchema>,
        ),
        (
            "UntitledMultiSelectEnumSchema",
            roundtrip::<UntitledMultiSelectEnumSchema>,
        ),
        (
            "UntitledSingleSelectEnumSchema",
            roundtrip::<UntitledSingleSelectEnumSchema>,
        ),
        // Tools.
        ("Tool", roundtrip::<Tool>),
        ("PaginatedRequestParams", roundtrip::<ListToolsParams>),
        (
            "ListToolsRequest",
            roundtrip::<TypedRequest<ListToolsParams>>,
        ),
        ("ListToolsResult", roundtrip::<ListToolsResult>),
        (
            "ListToolsResultResponse",
            roundtrip::<TypedResponse<ListToolsResult>>,
        ),
        ("CallToolRequest", roundtrip::<TypedRequest<CallToolParams>>),
        ("CallToolRequestParams", roundtrip::<CallToolParams>),
        ("CallToolResult", roundtrip::<CallToolResult>),
        (
            "CallToolResultResponse",
            roundtrip::<TypedResponse<CallToolResult>>,
        ),
        (
            "ToolListChangedNotification",
            roundtrip::<TypedNotification<ToolListChangedParams>>,
        ),
        // Resources.
        ("Resource", roundtrip::<Resource>),
        (
            "ListResourcesRequest",
            roundtrip::<TypedRequest<ListResourcesParams>>,
        ),
        ("ListResourcesResult", roundtrip::<ListResourcesResult>),
        (
            "ListResourcesResultResponse",
            roundtrip::<TypedResponse<ListResourcesResult>>,
        ),
        (
            "ListResourceTemplatesRequest",
            roundtrip::<TypedRequest<ListResourceTemplatesParams>>,
        ),
        (
            "ListResourceTemplatesResult",
            roundtrip::<ListResourceTemplatesResult>,
        ),
        (
            "ListResourceTemplatesResultResponse",
            roundtrip::<TypedResponse<ListResourceTemplatesResult>>,
        ),
        (
            "ReadResourceRequest",
            roundtrip::<TypedRequest<ReadResourceParams>>,
        ),
        ("ReadResourceResult", roundtrip::<ReadResourceResult>),
        (
            "ReadResourceResultResponse",
            roundtrip::<TypedResponse<ReadResourceResult>>,
        ),
        (
            "ResourceUpdatedNotification",
            roundtrip::<TypedNotification<ResourceUpdatedParams>>,
        ),
        (
            "ResourceUpdatedNotificationParams",
            roundtrip::<ResourceUpdatedParams>,
        ),
        (
            "ResourceListChangedNotification",
            roundtrip::<TypedNotification<ResourceListChangedParams>>,
        ),
        // Prompts and completion.
        (
            "ListPromptsRequest",
            roundtrip::<TypedRequest<ListPromptsParams>>,
        ),
        ("ListPromptsResult", roundtrip::<ListPromptsResult>),
        (
            "ListPromptsResultResponse",
            roundtrip::<TypedResponse<ListPromptsResult>>,
        ),
        (
            "GetPromptRequest",
            roundtrip::<TypedRequest<GetPromptParams>>,
        ),
        ("GetPromptRequestParams", roundtrip::<GetPromptParams>),
        ("GetPromptResult", roundtrip::<GetPromptResult>),
        (
            "GetPromptResultResponse",
            roundtrip::<TypedResponse<GetPromptResult>>,
        ),
        (
            "PromptListChangedNotification",
            roundtrip::<TypedNotification<PromptListChangedParams>>,
        ),
        ("CompleteRequest", roundtrip::<TypedRequest<CompleteParams>>),
        ("CompleteRequestParams", roundtrip::<CompleteParams>),
        ("CompleteResult", roundtrip::<CompleteResult>),
        (
            "CompleteResultResponse",
            roundtrip::<TypedResponse<CompleteResult>>,
        ),
        // Lifecycle and capabilities.
        ("ClientCapabilities", roundtrip::<ClientCapabilities>),
        ("ServerCapabilities", roundtrip::<ServerCapabilities>),
        ("DiscoverRequest", roundtrip::<TypedRequest<DiscoverParams>>),
        ("DiscoverResult", roundtrip::<DiscoverResult>),
        (
            "DiscoverResultResponse",
            roundtrip::<TypedResponse<DiscoverResult>>,
        ),
        // Notifications and subscriptions.
        (
            "CancelledNotification",
            roundtrip::<TypedNotification<CancelledParams>>,
        ),
        ("CancelledNotificationParams", roundtrip::<CancelledParams>),
        (
            "LoggingMessageNotification",
            roundtrip::<TypedNotification<LoggingMessageParams>>,
        ),
        (
            "LoggingMessageNotificationParams",
            roundtrip::<LoggingMessageParams>,
        ),
        (
            "ProgressNotification",
            roundtrip::<TypedNotification<ProgressParams>>,
        ),
        ("ProgressNotificationParams", roundtrip::<ProgressParams>),
        (
            "SubscriptionsAcknowledgedNotification",
            roundtrip::<TypedNotification<SubscriptionsAcknowledgedParams>>,
        ),
        (
            "SubscriptionsListenRequest",
            roundtrip::<TypedRequest<SubscriptionsListenParams>>,
        ),
        (
            "SubscriptionsListenResult",
            roundtrip::<SubscriptionsListenResult>,
        ),
        (
            "SubscriptionsListenResultResponse",
            roundtrip::<TypedResponse<SubscriptionsListenResult>>,
        ),
        // Client features (in 2026: input requests / responses of a multi-round-trip result).
        ("CreateMessageRequest", roundtrip::<InputRequest>),
        (
            "CreateMessageRequestParams",
            roundtrip::<CreateMessageParams>,
        ),
        ("CreateMessageResult", roundtrip::<CreateMessageResult>),
        ("ModelPreferences", roundtrip::<ModelPreferences>),
        ("SamplingMessage", roundtrip::<SamplingMessage>),
        ("ElicitRequest", roundtrip::<InputRequest>),
        ("ElicitRequestFormParams", roundtrip::<ElicitFormParams>),
        ("ElicitRequestURLParams", roundtrip::<ElicitUrlParams>),
        ("ElicitResult", roundtrip::<ElicitResult>),
        ("ListRootsRequest", list_roots_request),
        ("ListRootsResult", roundtrip::<ListRootsResult>),
        ("Root", roundtrip::<Root>),
        ("InputRequests", roundtrip::<InputRequests>),
        ("InputResponses", roundtrip::<InputResponses>),
        ("InputRequiredResult", roundtrip::<InputRequiredResult>),
        // Errors. The examples of the standard JSON-RPC errors are bare error objects
        // (`{code, message, data?}`); the MCP-specific ones are whole error responses.
        ("ParseError", as_is::<ErrorObject>),
        ("InternalError", as_is::<ErrorObject>),
        ("InvalidParamsError", as_is::<ErrorObject>),
        ("MethodNotFoundError", as_is::<ErrorObject>),
        ("HeaderMismatchError", as_is::<ErrorResponse>),
        (
            "MissingRequiredClientCapabilityError",
            as_is::<ErrorResponse>,
        ),
        ("UnsupportedProtocolVersionError", as_is::<ErrorResponse>),
    ];
    let mut table = BTreeMap::new();
    for (folder, check) in entries {
        assert!(
            table.insert(*folder, *check).is_none(),
            "{folder} is listed twice"
        );
    }
    table
}

/// Every `*.json` file of `dir`, sorted.
fn json_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "json"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_2026_example_round_trips_and_validates() {
    let Some(spec) = common::spec() else { return };
    let root = spec.dir().join("2026-07-28/examples");
    let table = table();

    let mut folders: Vec<(String, std::path::PathBuf)> = std::fs::read_dir(&root)
        .unwrap_or_else(|e| panic!("{}: {e}", root.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .map(|p| (p.file_name().unwrap().to_string_lossy().into_owned(), p))
        .collect();
    folders.sort();

    let unmapped: Vec<&str> = folders
        .iter()
        .map(|(name, _)| name.as_str())
        .filter(|name| !table.contains_key(name))
        .collect();
    assert!(
        unmapped.is_empty(),
        "example folders without a table entry (add one): {unmapped:?}"
    );
    let stale: Vec<&&str> = table
        .keys()
        .filter(|k| !folders.iter().any(|(name, _)| name == *k))
        .collect();
    assert!(
        stale.is_empty(),
        "table entries without a folder: {stale:?}"
    );

    let mut checked = 0;
    for (folder, dir) in &folders {
        let files = json_files(dir);
        assert!(!files.is_empty(), "no examples in {folder}");
        let check = table[folder.as_str()];
        for file in files {
            let path = file.display().to_string();
            let text = std::fs::read_to_string(&file).unwrap();
            let json: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
            check(spec, folder, &path, &json);
            checked += 1;
        }
    }
    assert!(
        checked >= EXPECTED_FILES,
        "checked {checked} example files, expected at least {EXPECTED_FILES}"
    );
    // Every example file counted above is a `*.json` in a folder: nothing else lies there.
    let all_files: usize = folders
        .iter()
        .map(|(_, d)| std::fs::read_dir(d).unwrap().count())
        .sum();
    assert_eq!(all_files, checked, "non-JSON files among the examples");
}
