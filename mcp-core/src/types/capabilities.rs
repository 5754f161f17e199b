//! Client and server capabilities (`ClientCapabilities`, `ServerCapabilities`).
//!
//! Capabilities that are "present or absent" with no fields of their own (`logging`,
//! `completions`, `sampling.tools`, `elicitation.form`, ...) are open objects in every
//! revision; they are modelled as [`Meta`] so whatever settings a peer sends survive.
//!
//! What each revision defines:
//!
//! | field | 2024-11-05 | 2025-03-26 | 2025-06-18 | 2025-11-25 | 2026-07-28 |
//! | --- | --- | --- | --- | --- | --- |
//! | client `roots.listChanged` | ✔ | ✔ | ✔ | ✔ | — (`roots: {}`) |
//! | client `sampling.{context,tools}` | `{}` | `{}` | `{}` | ✔ | ✔ |
//! | client `elicitation` | — | — | `{}` | `{form?,url?}` | `{form?,url?}` |
//! | client / server `tasks` | — | — | — | ✔ | — |
//! | client / server `extensions` | open¹ | open¹ | open¹ | open¹ | ✔ |
//!
//! ¹ A legacy capabilities object is open ("not a closed set"): hosts on those revisions
//! negotiate extensions such as MCP Apps under `extensions` too, so it is kept there, less
//! the extensions that add 2026-only methods ([`MODERN_ONLY_EXTENSIONS`]).
//! | server `completions` | — | ✔ | ✔ | ✔ | ✔ |

use serde::{Deserialize, Serialize};

use super::{Adapt, Meta, only_in, since};
pub use crate::rules::{MODERN_ONLY_EXTENSIONS, check_extension_id};
use crate::version::ProtocolVersion;

/// Map of experimental (non-standard) capability name to its settings object.
pub type ExperimentalCapabilities = serde_json::Map<String, serde_json::Value>;

/// Map of extension identifier (e.g. `io.modelcontextprotocol/tasks`) to its settings object
/// (2026-07-28+).
pub type ExtensionCapabilities = serde_json::Map<String, serde_json::Value>;

/// Drops, on legacy revisions, the extensions that exist only on 2026.
fn adapt_extensions(ext: &mut Option<ExtensionCapabilities>, rev: ProtocolVersion) {
    if rev >= ProtocolVersion::V2026_07_28 {
        return;
    }
    if let Some(m) = ext {
        m.retain(|k, _| !MODERN_ONLY_EXTENSIONS.contains(&k.as_str()));
        if m.is_empty() {
            *ext = None;
        }
    }
}

/// The settings declared for extension `name`, decoded as `T`: `None` when it is not
/// declared or its settings do not decode.
fn settings_as<T: serde::de::DeserializeOwned>(
    ext: &Option<ExtensionCapabilities>,
    name: &str,
) -> Option<T> {
    T::deserialize(ext.as_ref()?.get(name)?).ok()
}

/// Drops `roots.listChanged` and friends that a revision does not define.
fn drop_from_2026<T>(field: &mut Option<T>, rev: ProtocolVersion) {
    if rev >= ProtocolVersion::V2026_07_28 {
        *field = None;
    }
}

// ---------------------------------------------------------------------------------------
// Client
// ---------------------------------------------------------------------------------------

/// Capabilities a client declares (in `initialize`, or per request in the 2026 `_meta`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientCapabilities {
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<ExperimentalCapabilities>,
    /// The client can list filesystem roots (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub roots: Option<RootsCapability>,
    /// The client can sample from an LLM (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<SamplingCapability>,
    /// The client can elicit input from the user (2025-06-18+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<ElicitationCapability>,
    /// Task-augmented requests the client accepts (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ClientTasksCapability>,
    /// Extensions the client supports, by identifier (2026-07-28+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<ExtensionCapabilities>,
}

/// `roots` client capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootsCapability {
    /// The client notifies when the roots list changes (not in 2026-07-28, which has no
    /// `notifications/roots/list_changed`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `sampling` client capability.
///
/// Before 2025-11-25 it is an empty object: `context` and `tools` are dropped there.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SamplingCapability {
    /// The client honours `includeContext` values other than `"none"` (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<Meta>,
    /// The client supports `tools` / `toolChoice` in sampling requests (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Meta>,
}

impl Adapt for SamplingCapability {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.context, rev, ProtocolVersion::V2025_11_25);
        since(&mut self.tools, rev, ProtocolVersion::V2025_11_25);
    }
}

/// `elicitation` client capability (2025-06-18+).
///
/// `{}` (neither mode named) means form mode only. 2025-06-18 knows only `{}`, meaning form
/// mode; see [`ClientCapabilities`]'s `Adapt` for how a URL-only capability is shaped there.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitationCapability {
    /// Form-mode elicitation (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub form: Option<Meta>,
    /// URL-mode elicitation (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Meta>,
}

impl ElicitationCapability {
    /// Form mode only, written explicitly: `{"form": {}}`.
    pub fn form_only() -> Self {
        Self {
            form: Some(Meta::new()),
            url: None,
        }
    }

    /// Both modes: `{"form": {}, "url": {}}`.
    pub fn form_and_url() -> Self {
        Self {
            form: Some(Meta::new()),
            url: Some(Meta::new()),
        }
    }

    /// Whether form mode is supported (`{}` counts as form mode).
    pub fn supports_form(&self) -> bool {
        self.form.is_some() || self.url.is_none()
    }

    /// Whether URL mode is supported.
    pub fn supports_url(&self) -> bool {
        self.url.is_some()
    }
}

/// `tasks` client capability (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientTasksCapability {
    /// The client supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<Meta>,
    /// The client supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<Meta>,
    /// Which server→client requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ClientTaskRequests>,
}

/// `tasks.requests` of the client capability (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClientTaskRequests {
    /// Task-augmented sampling requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<TaskSamplingRequests>,
    /// Task-augmented elicitation requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation: Option<TaskElicitationRequests>,
}

/// `tasks.requests.sampling` (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskSamplingRequests {
    /// `sampling/createMessage` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create_message: Option<Meta>,
}

/// `tasks.requests.elicitation` (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskElicitationRequests {
    /// `elicitation/create` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub create: Option<Meta>,
}

impl Adapt for ClientCapabilities {
    /// Drops what `rev` does not define. `elicitation` on 2025-06-18 (which knows only `{}`,
    /// meaning form mode) becomes `{}` when form mode is supported and is dropped when only
    /// URL mode is, since a 2025-06-18 server would otherwise send form requests.
    fn adapt(&mut self, rev: ProtocolVersion) {
        if let Some(roots) = &mut self.roots {
            drop_from_2026(&mut roots.list_changed, rev);
        }
        self.sampling.adapt(rev);
        since(&mut self.elicitation, rev, ProtocolVersion::V2025_06_18);
        if rev < ProtocolVersion::V2025_11_25
            && let Some(e) = &self.elicitation
        {
            self.elicitation = e.supports_form().then(ElicitationCapability::default);
        }
        only_in(&mut self.tasks, rev, ProtocolVersion::V2025_11_25);
        adapt_extensions(&mut self.extensions, rev);
    }
}

impl ClientCapabilities {
    /// Whether the client declared `roots`.
    pub fn supports_roots(&self) -> bool {
        self.roots.is_some()
    }

    /// Whether the client sends `notifications/roots/list_changed` (legacy revisions).
    pub fn roots_list_changed(&self) -> bool {
        self.roots
            .as_ref()
            .and_then(|r| r.list_changed)
            .unwrap_or(false)
    }

    /// Whether the client declared `sampling`.
    pub fn supports_sampling(&self) -> bool {
        self.sampling.is_some()
    }

    /// Whether the client accepts `tools`/`toolChoice` in sampling requests.
    pub fn supports_sampling_tools(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.tools.is_some())
    }

    /// Whether the client honours `includeContext` other than `"none"`.
    pub fn supports_sampling_context(&self) -> bool {
        self.sampling.as_ref().is_some_and(|s| s.context.is_some())
    }

    /// Whether the client declared `elicitation` at all.
    pub fn supports_elicitation(&self) -> bool {
        self.elicitation.is_some()
    }

    /// Whether form-mode elicitation is supported (`elicitation: {}` means form only).
    pub fn elicitation_form(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(ElicitationCapability::supports_form)
    }

    /// Whether URL-mode elicitation is supported.
    pub fn elicitation_url(&self) -> bool {
        self.elicitation
            .as_ref()
            .is_some_and(ElicitationCapability::supports_url)
    }

    /// Whether the client declared the extension `name` (e.g. `io.modelcontextprotocol/tasks`).
    pub fn has_extension(&self, name: &str) -> bool {
        self.extension(name).is_some()
    }

    /// The settings the client declared for extension `name`.
    pub fn extension(&self, name: &str) -> Option<&serde_json::Value> {
        self.extensions.as_ref().and_then(|m| m.get(name))
    }

    /// The settings the client declared for extension `name`, decoded as `T` (`None`
    /// when not declared or not of that shape).
    pub fn extension_as<T: serde::de::DeserializeOwned>(&self, name: &str) -> Option<T> {
        settings_as(&self.extensions, name)
    }

    /// The client's MCP Apps settings, when it declared the extension.
    pub fn ui(&self) -> Option<super::UiClientSettings> {
        self.extension_as(super::UI_EXTENSION)
    }

    /// Whether the client renders MCP Apps: it declared `io.modelcontextprotocol/ui` with
    /// `text/html;profile=mcp-app` among its `mimeTypes`.
    pub fn supports_apps(&self) -> bool {
        self.ui().is_some_and(|u| u.renders_apps())
    }

    /// Declares extension `name` with `settings` (builder style).
    pub fn with_extension(mut self, name: impl Into<String>, settings: Meta) -> Self {
        self.extensions
            .get_or_insert_with(Default::default)
            .insert(name.into(), serde_json::Value::Object(settings));
        self
    }
}

// ---------------------------------------------------------------------------------------
// Server
// ---------------------------------------------------------------------------------------

/// Capabilities a server declares (in the `initialize` result or in `server/discover`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerCapabilities {
    /// Experimental, non-standard capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experimental: Option<ExperimentalCapabilities>,
    /// The server can send log messages (deprecated in 2026-07-28).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logging: Option<Meta>,
    /// The server answers `completion/complete` (2025-03-26+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub completions: Option<Meta>,
    /// The server offers prompts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<PromptsCapability>,
    /// The server offers resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourcesCapability>,
    /// The server offers tools.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<ToolsCapability>,
    /// Task-augmented requests the server accepts (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tasks: Option<ServerTasksCapability>,
    /// Extensions the server supports, by identifier (2026-07-28+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extensions: Option<ExtensionCapabilities>,
}

/// `prompts` server capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptsCapability {
    /// The server notifies when the prompt list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `resources` server capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourcesCapability {
    /// The server supports subscribing to updates of individual resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subscribe: Option<bool>,
    /// The server notifies when the resource list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `tools` server capability.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsCapability {
    /// The server notifies when the tool list changes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list_changed: Option<bool>,
}

/// `tasks` server capability (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTasksCapability {
    /// The server supports `tasks/list`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub list: Option<Meta>,
    /// The server supports `tasks/cancel`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancel: Option<Meta>,
    /// Which client→server requests may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requests: Option<ServerTaskRequests>,
}

/// `tasks.requests` of the server capability (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ServerTaskRequests {
    /// Task-augmented tool requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<TaskToolsRequests>,
}

/// `tasks.requests.tools` (2025-11-25 only).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskToolsRequests {
    /// `tools/call` may be task-augmented.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Meta>,
}

impl Adapt for ServerCapabilities {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.completions, rev, ProtocolVersion::V2025_03_26);
        only_in(&mut self.tasks, rev, ProtocolVersion::V2025_11_25);
        adapt_extensions(&mut self.extensions, rev);
    }
}

impl ServerCapabilities {
    /// Whether the server declared `logging`.
    pub fn supports_logging(&self) -> bool {
        self.logging.is_some()
    }

    /// Whether the server declared `completions`.
    pub fn supports_completions(&self) -> bool {
        self.completions.is_some()
    }

    /// Whether the server declared `prompts`.
    pub fn supports_prompts(&self) -> bool {
        self.prompts.is_some()
    }

    /// Whether the server sends `notifications/prompts/list_changed`.
    pub fn prompts_list_changed(&self) -> bool {
        self.prompts
            .as_ref()
            .and_then(|p| p.list_changed)
            .unwrap_or(false)
    }

    /// Whether the server declared `resources`.
    pub fn supports_resources(&self) -> bool {
        self.resources.is_some()
    }

    /// Whether the server supports per-resource update subscriptions.
    pub fn resources_subscribe(&self) -> bool {
        self.resources
            .as_ref()
            .and_then(|r| r.subscribe)
            .unwrap_or(false)
    }

    /// Whether the server sends `notifications/resources/list_changed`.
    pub fn resources_list_changed(&self) -> bool {
        self.resources
            .as_ref()
            .and_then(|r| r.list_changed)
            .unwrap_or(false)
    }

    /// Whether the server declared `tools`.
    pub fn supports_tools(&self) -> bool {
        self.tools.is_some()
    }

    /// Whether the server sends `notifications/tools/list_changed`.
    pub fn tools_list_changed(&self) -> bool {
        self.tools
            .as_ref()
            .and_then(|t| t.list_changed)
            .unwrap_or(false)
    }

    /// Whether `tools/call` may be task-augmented (2025-11-25 core tasks).
    pub fn supports_task_tool_calls(&self) -> bool {
        self.tasks
            .as_ref()
            .and_then(|t| t.requests.as_ref())
            .and_then(|r| r.tools.as_ref())
            .is_some_and(|t| t.call.is_some())
    }

    /// Whether the server declared the extension `name` (e.g. `io.modelcontextprotocol/tasks`).
    pub fn has_extension(&self, name: &str) -> bool {
        self.extension(name).is_some()
    }

    /// The settings the server declared for extension `name`.
    pub fn extension(&self, name: &str) -> Option<&serde_json::Value> {
        self.extensions.as_ref().and_then(|m| m.get(name))
    }

    /// The settings the server declared for extension `name`, decoded as `T`.
    pub fn extension_as<T: serde::de::DeserializeOwned>(&self, name: &str) -> Option<T> {
        settings_as(&self.extensions, name)
    }

    /// Declares extension `name` with `settings` (builder style).
    pub fn with_extension(mut self, name: impl Into<String>, settings: Meta) -> Self {
        self.extensions
            .get_or_insert_with(Default::default)
            .insert(name.into(), serde_json::Value::Object(settings));
        self
    }
}

impl ClientTasksCapability {
    /// Whether `sampling/createMessage` may be task-augmented.
    pub fn sampling_create_message(&self) -> bool {
        self.requests
            .as_ref()
            .and_then(|r| r.sampling.as_ref())
            .is_some_and(|s| s.create_message.is_some())
    }

    /// Whether `elicitation/create` may be task-augmented.
    pub fn elicitation_create(&self) -> bool {
        self.requests
            .as_ref()
            .and_then(|r| r.elicitation.as_ref())
            .is_some_and(|e| e.create.is_some())
    }
}
