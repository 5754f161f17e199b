//! Every request and notification method name of every revision, and which revision defines
//! which (taken from each schema's `ClientRequest` / `ServerRequest` / `ClientNotification` /
//! `ServerNotification` unions).
//!
//! ```
//! use mcp_core::types::methods;
//! use mcp_core::version::ProtocolVersion as V;
//!
//! assert!(methods::client_requests(V::V2025_11_25).contains(&methods::INITIALIZE));
//! assert!(!methods::client_requests(V::V2026_07_28).contains(&methods::INITIALIZE));
//! assert!(methods::server_requests(V::V2026_07_28).is_empty());
//! ```

use crate::version::ProtocolVersion;

// Requests.

/// `initialize` (legacy).
pub const INITIALIZE: &str = "initialize";
/// `ping` (legacy, both directions).
pub const PING: &str = "ping";
/// `server/discover` (2026-07-28+).
pub const SERVER_DISCOVER: &str = "server/discover";
/// `completion/complete`.
pub const COMPLETION_COMPLETE: &str = "completion/complete";
/// `logging/setLevel` (legacy).
pub const LOGGING_SET_LEVEL: &str = "logging/setLevel";
/// `prompts/list`.
pub const PROMPTS_LIST: &str = "prompts/list";
/// `prompts/get`.
pub const PROMPTS_GET: &str = "prompts/get";
/// `resources/list`.
pub const RESOURCES_LIST: &str = "resources/list";
/// `resources/templates/list`.
pub const RESOURCES_TEMPLATES_LIST: &str = "resources/templates/list";
/// `resources/read`.
pub const RESOURCES_READ: &str = "resources/read";
/// `resources/subscribe` (legacy).
pub const RESOURCES_SUBSCRIBE: &str = "resources/subscribe";
/// `resources/unsubscribe` (legacy).
pub const RESOURCES_UNSUBSCRIBE: &str = "resources/unsubscribe";
/// `subscriptions/listen` (2026-07-28+).
pub const SUBSCRIPTIONS_LISTEN: &str = "subscriptions/listen";
/// `tools/list`.
pub const TOOLS_LIST: &str = "tools/list";
/// `tools/call`.
pub const TOOLS_CALL: &str = "tools/call";
/// `tasks/get` (2025-11-25 core, both directions; 2026 tasks extension).
pub const TASKS_GET: &str = "tasks/get";
/// `tasks/result` (2025-11-25 only).
pub const TASKS_RESULT: &str = "tasks/result";
/// `tasks/list` (2025-11-25 only).
pub const TASKS_LIST: &str = "tasks/list";
/// `tasks/cancel` (2025-11-25 core; 2026 tasks extension).
pub const TASKS_CANCEL: &str = "tasks/cancel";
/// `tasks/update` (2026 tasks extension only).
pub const TASKS_UPDATE: &str = "tasks/update";
/// `sampling/createMessage` (legacy server→client request; 2026 MRTR input request).
pub const SAMPLING_CREATE_MESSAGE: &str = "sampling/createMessage";
/// `roots/list` (legacy server→client request; 2026 MRTR input request).
pub const ROOTS_LIST: &str = "roots/list";
/// `elicitation/create` (2025-06-18+ server→client request; 2026 MRTR input request).
pub const ELICITATION_CREATE: &str = "elicitation/create";

// Notifications.

/// `notifications/initialized` (legacy).
pub const NOTIFICATION_INITIALIZED: &str = "notifications/initialized";
/// `notifications/cancelled`.
pub const NOTIFICATION_CANCELLED: &str = "notifications/cancelled";
/// `notifications/progress`.
pub const NOTIFICATION_PROGRESS: &str = "notifications/progress";
/// `notifications/roots/list_changed` (legacy).
pub const NOTIFICATION_ROOTS_LIST_CHANGED: &str = "notifications/roots/list_changed";
/// `notifications/message` (log message).
pub const NOTIFICATION_MESSAGE: &str = "notifications/message";
/// `notifications/resources/updated`.
pub const NOTIFICATION_RESOURCES_UPDATED: &str = "notifications/resources/updated";
/// `notifications/resources/list_changed`.
pub const NOTIFICATION_RESOURCES_LIST_CHANGED: &str = "notifications/resources/list_changed";
/// `notifications/tools/list_changed`.
pub const NOTIFICATION_TOOLS_LIST_CHANGED: &str = "notifications/tools/list_changed";
/// `notifications/prompts/list_changed`.
pub const NOTIFICATION_PROMPTS_LIST_CHANGED: &str = "notifications/prompts/list_changed";
/// `notifications/elicitation/complete` (2025-11-25 only).
pub const NOTIFICATION_ELICITATION_COMPLETE: &str = "notifications/elicitation/complete";
/// `notifications/tasks/status` (2025-11-25 only).
pub const NOTIFICATION_TASKS_STATUS: &str = "notifications/tasks/status";
/// `notifications/tasks` (2026 tasks extension).
pub const NOTIFICATION_TASKS: &str = "notifications/tasks";
/// `notifications/subscriptions/acknowledged` (2026-07-28+).
pub const NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED: &str =
    "notifications/subscriptions/acknowledged";

/// Client→server requests the core schema of `rev` defines.
pub fn client_requests(rev: ProtocolVersion) -> &'static [&'static str] {
    use ProtocolVersion as V;
    match rev {
        V::V2024_11_05 | V::V2025_03_26 | V::V2025_06_18 => &[
            INITIALIZE,
            PING,
            RESOURCES_LIST,
            RESOURCES_TEMPLATES_LIST,
            RESOURCES_READ,
            RESOURCES_SUBSCRIBE,
            RESOURCES_UNSUBSCRIBE,
            PROMPTS_LIST,
            PROMPTS_GET,
            TOOLS_LIST,
            TOOLS_CALL,
            LOGGING_SET_LEVEL,
            COMPLETION_COMPLETE,
        ],
        V::V2025_11_25 => &[
            INITIALIZE,
            PING,
            RESOURCES_LIST,
            RESOURCES_TEMPLATES_LIST,
            RESOURCES_READ,
            RESOURCES_SUBSCRIBE,
            RESOURCES_UNSUBSCRIBE,
            PROMPTS_LIST,
            PROMPTS_GET,
            TOOLS_LIST,
            TOOLS_CALL,
            TASKS_GET,
            TASKS_RESULT,
            TASKS_CANCEL,
            TASKS_LIST,
            LOGGING_SET_LEVEL,
            COMPLETION_COMPLETE,
        ],
        V::V2026_07_28 => &[
            SERVER_DISCOVER,
            RESOURCES_LIST,
            RESOURCES_TEMPLATES_LIST,
            RESOURCES_READ,
            SUBSCRIPTIONS_LISTEN,
            PROMPTS_LIST,
            PROMPTS_GET,
            TOOLS_LIST,
            TOOLS_CALL,
            COMPLETION_COMPLETE,
        ],
    }
}

/// Server→client requests the core schema of `rev` defines (none in 2026-07-28, where
/// sampling, roots and elicitation travel as MRTR input requests instead).
pub fn server_requests(rev: ProtocolVersion) -> &'static [&'static str] {
    use ProtocolVersion as V;
    match rev {
        V::V2024_11_05 | V::V2025_03_26 => &[PING, SAMPLING_CREATE_MESSAGE, ROOTS_LIST],
        V::V2025_06_18 => &[
            PING,
            SAMPLING_CREATE_MESSAGE,
            ROOTS_LIST,
            ELICITATION_CREATE,
        ],
        V::V2025_11_25 => &[
            PING,
            TASKS_GET,
            TASKS_RESULT,
            TASKS_CANCEL,
            TASKS_LIST,
            SAMPLING_CREATE_MESSAGE,
            ROOTS_LIST,
            ELICITATION_CREATE,
        ],
        V::V2026_07_28 => &[],
    }
}

/// Client→server notifications the core schema of `rev` defines.
pub fn client_notifications(rev: ProtocolVersion) -> &'static [&'static str] {
    use ProtocolVersion as V;
    match rev {
        V::V2024_11_05 | V::V2025_03_26 | V::V2025_06_18 => &[
            NOTIFICATION_CANCELLED,
            NOTIFICATION_INITIALIZED,
            NOTIFICATION_PROGRESS,
            NOTIFICATION_ROOTS_LIST_CHANGED,
        ],
        V::V2025_11_25 => &[
            NOTIFICATION_CANCELLED,
            NOTIFICATION_INITIALIZED,
            NOTIFICATION_PROGRESS,
            NOTIFICATION_TASKS_STATUS,
            NOTIFICATION_ROOTS_LIST_CHANGED,
        ],
        V::V2026_07_28 => &[NOTIFICATION_CANCELLED],
    }
}

/// Server→client notifications the core schema of `rev` defines.
pub fn server_notifications(rev: ProtocolVersion) -> &'static [&'static str] {
    use ProtocolVersion as V;
    match rev {
        V::V2024_11_05 | V::V2025_03_26 | V::V2025_06_18 => &[
            NOTIFICATION_CANCELLED,
            NOTIFICATION_PROGRESS,
            NOTIFICATION_RESOURCES_LIST_CHANGED,
            NOTIFICATION_RESOURCES_UPDATED,
            NOTIFICATION_PROMPTS_LIST_CHANGED,
            NOTIFICATION_TOOLS_LIST_CHANGED,
            NOTIFICATION_MESSAGE,
        ],
        V::V2025_11_25 => &[
            NOTIFICATION_CANCELLED,
            NOTIFICATION_PROGRESS,
            NOTIFICATION_RESOURCES_LIST_CHANGED,
            NOTIFICATION_RESOURCES_UPDATED,
            NOTIFICATION_PROMPTS_LIST_CHANGED,
            NOTIFICATION_TOOLS_LIST_CHANGED,
            NOTIFICATION_TASKS_STATUS,
            NOTIFICATION_MESSAGE,
            NOTIFICATION_ELICITATION_COMPLETE,
        ],
        V::V2026_07_28 => &[
            NOTIFICATION_CANCELLED,
            NOTIFICATION_PROGRESS,
            NOTIFICATION_RESOURCES_LIST_CHANGED,
            NOTIFICATION_SUBSCRIPTIONS_ACKNOWLEDGED,
            NOTIFICATION_RESOURCES_UPDATED,
            NOTIFICATION_PROMPTS_LIST_CHANGED,
            NOTIFICATION_TOOLS_LIST_CHANGED,
            NOTIFICATION_MESSAGE,
        ],
    }
}

/// Whether `method` is a request (in either direction) that `rev` defines.
pub fn is_request_in(method: &str, rev: ProtocolVersion) -> bool {
    client_requests(rev).contains(&method) || server_requests(rev).contains(&method)
}

/// Whether `method` is a notification (in either direction) that `rev` defines.
pub fn is_notification_in(method: &str, rev: ProtocolVersion) -> bool {
    client_notifications(rev).contains(&method) || server_notifications(rev).contains(&method)
}
