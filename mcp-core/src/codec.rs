//! The wire codec of one revision: which methods exist, how requests, results and
//! notifications are validated, how results are encoded, and which errors reach the wire.
//!
//! A [`WireCodec`] is built from a [`ProtocolVersion`] (or an [`Era`]) and the extensions in
//! use. Everything works on raw JSON text; nothing here builds a `serde_json::Value` of a
//! whole message.
//!
//! ```
//! use mcp_core::codec::{Direction, WireCodec};
//! use mcp_core::version::ProtocolVersion as V;
//!
//! let legacy = WireCodec::new(V::V2025_06_18);
//! assert!(legacy.is_client_request("initialize"));
//! assert!(legacy.is_server_request("elicitation/create"));
//!
//! let modern = WireCodec::new(V::V2026_07_28).with_tasks(true);
//! assert!(!modern.is_client_request("initialize"));
//! assert!(modern.is_client_request("tasks/update"));
//! assert!(modern.is_notification("notifications/tasks", Direction::ServerToClient));
//! assert_eq!(modern.encode_result(r#"{"tools":[]}"#), r#"{"resultType":"complete","tools":[]}"#);
//! ```

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::Deserializer;
use serde_json::value::RawValue;
use serde_json::{Map, Value, json};

use crate::jsonrpc::{
    self, ErrorObject, HEADER_MISMATCH, INTERNAL_ERROR, INVALID_PARAMS, INVALID_REQUEST,
    METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY, PARSE_ERROR, RESOURCE_NOT_FOUND,
    RequestId, UNSUPPORTED_PROTOCOL_VERSION, URL_ELICITATION_REQUIRED,
};
use crate::meta::{self, RequestMeta};
use crate::params::Params;
use crate::types::{ResultType, methods};
use crate::version::{Era, ProtocolVersion, SupportedVersions};

/// The capability key of the 2026 Tasks extension (SEP-2663).
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";
/// The capability key of the 2026 Skills extension (SEP-2640).
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// Which way a message travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    /// From the client to the server.
    ClientToServer,
    /// From the server to the client.
    ServerToClient,
}

/// The extensions a modern connection uses. They add methods and result types; on legacy
/// revisions they have no effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct WireExtensions {
    /// `io.modelcontextprotocol/tasks`: `tasks/get`, `tasks/update`, `tasks/cancel`,
    /// `notifications/tasks`, `resultType: "task"`.
    pub tasks: bool,
    /// `io.modelcontextprotocol/skills`: `skills/list`, `skills/get`,
    /// `resources/directory/read`.
    pub skills: bool,
}

impl WireExtensions {
    /// No extensions.
    pub const NONE: WireExtensions = WireExtensions {
        tasks: false,
        skills: false,
    };

    /// The extensions named in a capabilities object's `extensions` map (client or server
    /// capabilities of 2026), ignoring unknown ones.
    pub fn from_capabilities(capabilities: &Map<String, Value>) -> Self {
        let ext = capabilities.get("extensions").and_then(Value::as_object);
        let has = |k: &str| ext.is_some_and(|e| e.get(k).is_some_and(|v| !v.is_null()));
        WireExtensions {
            tasks: has(TASKS_EXTENSION),
            skills: has(SKILLS_EXTENSION),
        }
    }
}

/// An extension that adds methods on the modern era.
#[derive(Clone, Copy)]
enum Ext {
    /// The Tasks extension.
    Tasks,
    /// The Skills extension.
    Skills,
}

// Which core methods each revision defines comes from `crate::types::methods` (the single
// source of truth, checked against every schema's unions); only the extension methods are
// listed here.

/// Client → server requests added by extensions (modern era only).
const CLIENT_REQUEST_EXTENSIONS: &[(&str, Ext)] = &[
    (methods::TASKS_GET, Ext::Tasks),
    (methods::TASKS_UPDATE, Ext::Tasks),
    (methods::TASKS_CANCEL, Ext::Tasks),
    ("skills/list", Ext::Skills),
    ("skills/get", Ext::Skills),
    ("resources/directory/read", Ext::Skills),
];

/// Server → client notifications added by extensions (modern era only).
const SERVER_NOTIFICATION_EXTENSIONS: &[(&str, Ext)] = &[(methods::NOTIFICATION_TASKS, Ext::Tasks)];

/// No extension adds server → client requests or client → server notifications.
const NO_EXTENSIONS: &[(&str, Ext)] = &[];

/// Methods whose 2026 result may be `input_required` (MRTR, SEP-2322).
pub const MRTR_METHODS: [&str; 3] = ["tools/call", "resources/read", "prompts/get"];

/// Methods whose 2026 result may be a task handle (`resultType: "task"`, Tasks extension).
pub const TASK_METHODS: [&str; 1] = ["tools/call"];

/// Methods that list things; their 2026 result must be `complete`.
pub const LIST_METHODS: [&str; 6] = [
    "tools/list",
    "prompts/list",
    "resources/list",
    "resources/templates/list",
    "skills/list",
    "resources/directory/read",
];

/// The codec of one revision plus the extensions in use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct WireCodec {
    version: ProtocolVersion,
    extensions: WireExtensions,
}

/// Why a response received from a peer is invalid (client side).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidResponse {
    /// The method of the request that was answered.
    pub method: String,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for InvalidResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid response to {}: {}", self.method, self.reason)
    }
}

impl std::error::Error for InvalidResponse {}

/// A failure that happened on this side and has no JSON-RPC meaning of its own.
///
/// None of these may look like a peer's error on the wire: [`WireCodec::wire_error`] turns
/// each into `-32603 Internal error` without detail.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum LocalFailure {
    /// A deadline passed.
    Timeout,
    /// The transport failed (I/O error, broken pipe, HTTP failure).
    Transport,
    /// The connection or stream closed before an answer.
    Closed,
    /// The request was cancelled locally.
    Cancelled,
    /// The peer's response could not be used.
    InvalidResponse,
    /// A value could not be serialized.
    Encode,
    /// A handler panicked or failed unexpectedly.
    Handler,
    /// Any other local condition, with a local-only code (never sent).
    Other(i32),
}

/// What went wrong while serving a request: a local failure or a JSON-RPC error object.
#[derive(Debug, Clone, PartialEq)]
pub enum Failure {
    /// A local failure with no wire meaning.
    Local(LocalFailure),
    /// An error object produced by a handler or by validation.
    Error(ErrorObject),
}

impl From<LocalFailure> for Failure {
    fn from(f: LocalFailure) -> Self {
        Failure::Local(f)
    }
}

impl From<ErrorObject> for Failure {
    fn from(e: ErrorObject) -> Self {
        Failure::Error(e)
    }
}

/// The class of a JSON-RPC error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CodeClass {
    /// `-32700`, `-32600`, `-32601`, `-32602`, `-32603`.
    Standard,
    /// A code the MCP specification defines for some revision (`-32002`, `-32020`,
    /// `-32021`, `-32022`, `-32042`).
    Protocol,
    /// `-32000 … -32019`: implementation-defined server errors (SDKs use them locally).
    ImplementationDefined,
    /// Any other code in `-32768 … -32000`: reserved, meaningless on the wire.
    Reserved,
    /// A code outside `-32768 … -32000`: application-defined.
    Application,
}

/// Classifies a JSON-RPC error code.
pub fn classify_code(code: i32) -> CodeClass {
    match code {
        PARSE_ERROR | INVALID_REQUEST | METHOD_NOT_FOUND | INVALID_PARAMS | INTERNAL_ERROR => {
            CodeClass::Standard
        }
        RESOURCE_NOT_FOUND
        | HEADER_MISMATCH
        | MISSING_REQUIRED_CLIENT_CAPABILITY
        | UNSUPPORTED_PROTOCOL_VERSION
        | URL_ELICITATION_REQUIRED => CodeClass::Protocol,
        -32019..=-32000 => CodeClass::ImplementationDefined,
        -32768..=-32020 => CodeClass::Reserved,
        _ => CodeClass::Application,
    }
}

/// The HTTP status for a JSON-RPC error response on Streamable HTTP.
///
/// `400` for `-32700`, `-32600`, `-32602`, `-32020`, `-32021`, `-32022`; `404` for
/// `-32601`; `200` for everything else, `-32603` and application codes included. The 2026
/// transport page fixes only the 400/404 cases; for other errors we keep the legacy
/// convention of a `200` carrying the JSON-RPC error body, so that proxies do not replace
/// the body and clients read the error from JSON-RPC as for any result.
pub fn http_status(code: i32) -> u16 {
    match code {
        PARSE_ERROR
        | INVALID_REQUEST
        | INVALID_PARAMS
        | HEADER_MISMATCH
        | MISSING_REQUIRED_CLIENT_CAPABILITY
        | UNSUPPORTED_PROTOCOL_VERSION => 400,
        METHOD_NOT_FOUND => 404,
        _ => 200,
    }
}

/// `-32022 Unsupported protocol version` with `data: {supported, requested}`.
pub fn unsupported_protocol_version<'a>(
    supported: impl IntoIterator<Item = &'a str>,
    requested: &str,
) -> ErrorObject {
    let supported: Vec<&str> = supported.into_iter().collect();
    ErrorObject::new(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version")
        .with_data(json!({ "supported": supported, "requested": requested }))
}

/// `-32021` with `data: {requiredCapabilities}` (a `ClientCapabilities` object naming what
/// the request needs).
pub fn missing_required_client_capability(
    required_capabilities: Map<String, Value>,
) -> ErrorObject {
    ErrorObject::new(
        MISSING_REQUIRED_CLIENT_CAPABILITY,
        "Missing required client capability",
    )
    .with_data(json!({ "requiredCapabilities": required_capabilities }))
}

/// `-32020 Header mismatch: <detail>`.
pub fn header_mismatch(detail: &str) -> ErrorObject {
    ErrorObject::new(HEADER_MISMATCH, format!("Header mismatch: {detail}"))
}

/// Picks the revision of a modern request from its envelope: the requested revision when it
/// is a modern revision in `supported`, otherwise `-32022` listing the supported modern
/// revisions (a legacy revision in a modern envelope is unsupported too). A missing version
/// is `-32602 missing required _meta field: …`.
pub fn negotiate_modern(
    meta: &RequestMeta,
    supported: SupportedVersions,
) -> Result<ProtocolVersion, ErrorObject> {
    let Some(requested) = meta.protocol_version.as_deref() else {
        return Err(meta::missing_field(meta::PROTOCOL_VERSION));
    };
    match meta.version {
        Some(v) if v.era() == Era::Modern && supported.contains(v) => Ok(v),
        _ => Err(unsupported_protocol_version(
            supported.modern().map(ProtocolVersion::as_str),
            requested,
        )),
    }
}

/// Keeps a present member even when it is `null`.
fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<&'de RawValue>, D::Error> {
    <&'de RawValue>::deserialize(d).map(Some)
}

/// The top-level `resultType` of a result object; every other member is skipped unparsed.
#[derive(Deserialize)]
struct ResultProbe<'a> {
    #[serde(rename = "resultType", borrow, default, deserialize_with = "present")]
    result_type: Option<&'a RawValue>,
}

/// The members of a message object that a notification must not have.
#[derive(Deserialize)]
struct NotificationProbe<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    id: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    method: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    params: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    result: Option<&'a RawValue>,
    #[serde(borrow, default, deserialize_with = "present")]
    error: Option<&'a RawValue>,
}

fn is_object(raw: &RawValue) -> bool {
    raw.get().starts_with('{')
}

/// Whether `method` is in `core` (a [`methods`] listing) or added by an extension in effect.
fn member(core: &[&str], ext: &[(&str, Ext)], method: &str, codec: &WireCodec) -> bool {
    core.contains(&method)
        || ext
            .iter()
            .any(|(m, e)| *m == method && codec.ext_enabled(*e))
}

/// `core` followed by the extension methods in effect, without duplicates.
fn members(
    core: &[&'static str],
    ext: &[(&'static str, Ext)],
    codec: &WireCodec,
) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = core.to_vec();
    for (m, e) in ext {
        if codec.ext_enabled(*e) && !out.contains(m) {
            out.push(m);
        }
    }
    out
}

impl WireCodec {
    /// The codec of `version`, with no extensions.
    pub const fn new(version: ProtocolVersion) -> Self {
        Self {
            version,
            extensions: WireExtensions::NONE,
        }
    }

    /// The codec of the newest revision of `era` (2025-11-25 or 2026-07-28).
    pub const fn for_era(era: Era) -> Self {
        Self::new(match era {
            Era::Legacy => ProtocolVersion::LATEST_HANDSHAKE,
            Era::Modern => ProtocolVersion::LATEST,
        })
    }

    /// The same codec with the given extensions.
    pub const fn with_extensions(mut self, extensions: WireExtensions) -> Self {
        self.extensions = extensions;
        self
    }

    /// The same codec with the Tasks extension on or off.
    pub const fn with_tasks(mut self, on: bool) -> Self {
        self.extensions.tasks = on;
        self
    }

    /// The same codec with the Skills extension on or off.
    pub const fn with_skills(mut self, on: bool) -> Self {
        self.extensions.skills = on;
        self
    }

    /// The revision.
    pub const fn version(&self) -> ProtocolVersion {
        self.version
    }

    /// The era of the revision.
    pub const fn era(&self) -> Era {
        self.version.era()
    }

    /// Whether this is a modern-era codec.
    pub fn is_modern(&self) -> bool {
        self.era() == Era::Modern
    }

    /// The extensions as configured (they only take effect on the modern era).
    pub const fn extensions(&self) -> WireExtensions {
        self.extensions
    }

    /// Whether the Tasks extension is in effect (modern era and enabled).
    pub fn tasks_enabled(&self) -> bool {
        self.is_modern() && self.extensions.tasks
    }

    /// Whether the Skills extension is in effect (modern era and enabled).
    pub fn skills_enabled(&self) -> bool {
        self.is_modern() && self.extensions.skills
    }

    fn ext_enabled(&self, ext: Ext) -> bool {
        match ext {
            Ext::Tasks => self.tasks_enabled(),
            Ext::Skills => self.skills_enabled(),
        }
    }

    /// Whether `method` is a client → server request of this revision.
    pub fn is_client_request(&self, method: &str) -> bool {
        member(
            methods::client_requests(self.version),
            CLIENT_REQUEST_EXTENSIONS,
            method,
            self,
        )
    }

    /// Whether `method` is a server → client request of this revision (never on 2026).
    pub fn is_server_request(&self, method: &str) -> bool {
        member(
            methods::server_requests(self.version),
            NO_EXTENSIONS,
            method,
            self,
        )
    }

    /// Whether `method` is a request the sender in `direction` may send.
    pub fn is_request(&self, method: &str, direction: Direction) -> bool {
        match direction {
            Direction::ClientToServer => self.is_client_request(method),
            Direction::ServerToClient => self.is_server_request(method),
        }
    }

    /// Whether `method` is a notification that may travel in `direction`.
    pub fn is_notification(&self, method: &str, direction: Direction) -> bool {
        match direction {
            Direction::ClientToServer => member(
                methods::client_notifications(self.version),
                NO_EXTENSIONS,
                method,
                self,
            ),
            Direction::ServerToClient => member(
                methods::server_notifications(self.version),
                SERVER_NOTIFICATION_EXTENSIONS,
                method,
                self,
            ),
        }
    }

    /// Every request method the sender in `direction` may send, the revision's core methods
    /// (in [`methods`] order) then those of the extensions in effect.
    pub fn requests(&self, direction: Direction) -> Vec<&'static str> {
        match direction {
            Direction::ClientToServer => members(
                methods::client_requests(self.version),
                CLIENT_REQUEST_EXTENSIONS,
                self,
            ),
            Direction::ServerToClient => {
                members(methods::server_requests(self.version), NO_EXTENSIONS, self)
            }
        }
    }

    /// Every notification that may travel in `direction`: core, then extension ones.
    pub fn notifications(&self, direction: Direction) -> Vec<&'static str> {
        match direction {
            Direction::ClientToServer => members(
                methods::client_notifications(self.version),
                NO_EXTENSIONS,
                self,
            ),
            Direction::ServerToClient => members(
                methods::server_notifications(self.version),
                SERVER_NOTIFICATION_EXTENSIONS,
                self,
            ),
        }
    }

    /// `Ok` when `method` is a request the sender in `direction` may send, else
    /// `-32601 Method not found`.
    pub fn require_request(&self, method: &str, direction: Direction) -> Result<(), ErrorObject> {
        if self.is_request(method, direction) {
            Ok(())
        } else {
            Err(ErrorObject::method_not_found(method))
        }
    }

    /// Validates the params of a request received by a server.
    ///
    /// Modern: params must be present and an object, with a `_meta` object carrying
    /// `protocolVersion` and `clientCapabilities` (missing ⇒ `-32602` naming the key), and
    /// every reserved key of the right type (see [`RequestMeta::from_params`]); returns the
    /// parsed envelope. Legacy: params must be absent or an object (else `-32602`); a
    /// `_meta`, when present, is parsed and type-checked the same way and returned.
    ///
    /// Whether the requested revision is served is [`negotiate_modern`]'s question.
    pub fn validate_request(
        &self,
        params: Option<&Params>,
    ) -> Result<Option<RequestMeta>, ErrorObject> {
        self.validate_with(params.is_some(), || RequestMeta::from_params(params))
    }

    fn validate_with(
        &self,
        present: bool,
        read: impl FnOnce() -> Result<Option<RequestMeta>, ErrorObject>,
    ) -> Result<Option<RequestMeta>, ErrorObject> {
        if !self.is_modern() {
            return read();
        }
        if !present {
            return Err(ErrorObject::invalid_params("missing params"));
        }
        match read()? {
            None => Err(ErrorObject::invalid_params("missing required params._meta")),
            Some(m) => {
                m.require_envelope()?;
                Ok(Some(m))
            }
        }
    }

    /// Validates a result received by a client for a request of `method`, returning its
    /// result type.
    ///
    /// The result must be an object. Modern: `resultType` must be present and a string
    /// naming a known type: `complete`; `input_required` only for [`MRTR_METHODS`]; `task`
    /// only with the Tasks extension and only for [`TASK_METHODS`]. Every other method,
    /// listing methods included, must answer `complete`. Legacy: the result is `complete`
    /// (a `resultType` member is not defined there and is ignored).
    pub fn validate_result(
        &self,
        method: &str,
        result: &RawValue,
    ) -> Result<ResultType, InvalidResponse> {
        let bad = |reason: &str| InvalidResponse {
            method: method.to_owned(),
            reason: reason.to_owned(),
        };
        if !is_object(result) {
            return Err(bad("the result is not an object"));
        }
        if !self.is_modern() {
            return Ok(ResultType::Complete);
        }
        let probe: ResultProbe<'_> = serde_json::from_str(result.get())
            .map_err(|e| bad(&format!("malformed result: {e}")))?;
        let Some(rt) = probe.result_type else {
            return Err(bad("missing resultType"));
        };
        let rt: String =
            serde_json::from_str(rt.get()).map_err(|_| bad("resultType is not a string"))?;
        match rt.as_str() {
            "complete" => Ok(ResultType::Complete),
            "input_required" if MRTR_METHODS.contains(&method) => Ok(ResultType::InputRequired),
            "input_required" => Err(bad("input_required is not allowed for this method")),
            "task" if self.tasks_enabled() && TASK_METHODS.contains(&method) => {
                Ok(ResultType::Task)
            }
            "task" if self.tasks_enabled() => Err(bad("task is not allowed for this method")),
            other => Err(bad(&format!("unknown resultType {other:?}"))),
        }
    }

    /// Checks a raw notification object: it must be an object with a string `method`, no
    /// `id`, `result` or `error`, and `params` absent or an object. Fails with `-32600`.
    pub fn validate_notification(&self, message: &RawValue) -> Result<(), ErrorObject> {
        let invalid = |why: &str| ErrorObject::invalid_request(format!("Invalid Request: {why}"));
        if !is_object(message) {
            return Err(invalid("a notification is a JSON object"));
        }
        let probe: NotificationProbe<'_> = serde_json::from_str(message.get())
            .map_err(|e| invalid(&format!("malformed notification: {e}")))?;
        if probe.id.is_some() {
            return Err(invalid("a notification must not have an \"id\""));
        }
        if probe.result.is_some() || probe.error.is_some() {
            return Err(invalid(
                "a notification must not have a \"result\" or an \"error\"",
            ));
        }
        if !probe.method.is_some_and(|m| m.get().starts_with('"')) {
            return Err(invalid("a notification needs a string \"method\""));
        }
        if probe.params.is_some_and(|p| !is_object(p)) {
            return Err(invalid("notification params must be an object"));
        }
        Ok(())
    }

    /// Encodes a result object for the wire.
    ///
    /// Modern: inserts `"resultType":"complete"` when the object has no top-level
    /// `resultType` (spliced after the opening brace; the text is otherwise kept byte for
    /// byte) and borrows the input when the key is already there. Legacy, or input that is
    /// not a JSON object: returned untouched.
    pub fn encode_result<'a>(&self, result_json: &'a str) -> Cow<'a, str> {
        match self.splice_point(result_json) {
            None => Cow::Borrowed(result_json),
            Some((at, empty)) => {
                let mut s = String::with_capacity(result_json.len() + RESULT_TYPE_MEMBER.len() + 1);
                s.push_str(&result_json[..at]);
                s.push_str(RESULT_TYPE_MEMBER);
                if !empty {
                    s.push(',');
                }
                s.push_str(&result_json[at..]);
                Cow::Owned(s)
            }
        }
    }

    /// Appends a whole result response `{"jsonrpc":"2.0","id":…,"result":…}` to `out`, the
    /// result encoded as by [`WireCodec::encode_result`] without an intermediate copy.
    pub fn write_result(&self, out: &mut Vec<u8>, id: &RequestId, result_json: &str) {
        match self.splice_point(result_json) {
            None => jsonrpc::write_result(out, id, result_json),
            Some((at, empty)) => {
                // Write the envelope around nothing, then fill the result in.
                jsonrpc::write_result(out, id, "");
                out.pop(); // the closing brace of the envelope
                out.extend_from_slice(&result_json.as_bytes()[..at]);
                out.extend_from_slice(RESULT_TYPE_MEMBER.as_bytes());
                if !empty {
                    out.push(b',');
                }
                out.extend_from_slice(&result_json.as_bytes()[at..]);
                out.push(b'}');
            }
        }
    }

    /// Where to splice `resultType` into `result_json` (just after `{`) and whether the
    /// object is empty; `None` when nothing is to be inserted.
    fn splice_point(&self, result_json: &str) -> Option<(usize, bool)> {
        if !self.is_modern() {
            return None;
        }
        let lead = result_json.len() - result_json.trim_start().len();
        if !result_json[lead..].starts_with('{') {
            return None;
        }
        let probe: ResultProbe<'_> = serde_json::from_str(result_json).ok()?;
        if probe.result_type.is_some() {
            return None;
        }
        let at = lead + 1;
        let empty = result_json[at..].trim_start().starts_with('}');
        Some((at, empty))
    }

    /// The error object to put on the wire for a failure.
    ///
    /// - Local failures become `-32603 Internal error`, with no detail.
    /// - Standard codes pass as they are.
    /// - `-32020`, `-32021`, `-32022` pass with their `data` on every revision (a
    ///   modern-only server answers `initialize` with `-32022`).
    /// - `-32002` (resource not found) passes on legacy revisions and becomes `-32602` on
    ///   2026 (which requires `-32602`), keeping message and data.
    /// - `-32042` passes only on 2025-11-25 (2026 must not emit it).
    /// - Implementation-defined (`-32000 … -32019`) and other reserved codes are local-only
    ///   and become `-32603 Internal error`.
    /// - Application codes (outside `-32768 … -32000`) pass.
    pub fn wire_error(&self, failure: impl Into<Failure>) -> ErrorObject {
        let err = match failure.into() {
            Failure::Local(_) => return ErrorObject::internal(),
            Failure::Error(e) => e,
        };
        match classify_code(err.code) {
            CodeClass::Standard | CodeClass::Application => err,
            CodeClass::Protocol => match err.code {
                RESOURCE_NOT_FOUND if self.is_modern() => ErrorObject {
                    code: INVALID_PARAMS,
                    ..err
                },
                URL_ELICITATION_REQUIRED if self.version != ProtocolVersion::V2025_11_25 => {
                    ErrorObject::internal()
                }
                _ => err,
            },
            CodeClass::ImplementationDefined | CodeClass::Reserved => ErrorObject::internal(),
        }
    }
}

const RESULT_TYPE_MEMBER: &str = "\"resultType\":\"complete\"";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::version::ProtocolVersion as V;

    fn raw(s: &str) -> Box<RawValue> {
        RawValue::from_string(s.to_owned()).unwrap()
    }

    const LEGACY: [V; 4] = [
        V::V2024_11_05,
        V::V2025_03_26,
        V::V2025_06_18,
        V::V2025_11_25,
    ];

    /// Column order: 2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28.
    type Row = (&'static str, [bool; 5]);

    const Y: bool = true;
    const N: bool = false;

    const CLIENT_REQ_TABLE: &[Row] = &[
        ("initialize", [Y, Y, Y, Y, N]),
        ("ping", [Y, Y, Y, Y, N]),
        ("server/discover", [N, N, N, N, Y]),
        ("completion/complete", [Y, Y, Y, Y, Y]),
        ("logging/setLevel", [Y, Y, Y, Y, N]),
        ("prompts/list", [Y, Y, Y, Y, Y]),
        ("prompts/get", [Y, Y, Y, Y, Y]),
        ("resources/list", [Y, Y, Y, Y, Y]),
        ("resources/templates/list", [Y, Y, Y, Y, Y]),
        ("resources/read", [Y, Y, Y, Y, Y]),
        ("resources/subscribe", [Y, Y, Y, Y, N]),
        ("resources/unsubscribe", [Y, Y, Y, Y, N]),
        ("subscriptions/listen", [N, N, N, N, Y]),
        ("tools/list", [Y, Y, Y, Y, Y]),
        ("tools/call", [Y, Y, Y, Y, Y]),
        ("tasks/get", [N, N, N, Y, N]),
        ("tasks/result", [N, N, N, Y, N]),
        ("tasks/list", [N, N, N, Y, N]),
        ("tasks/cancel", [N, N, N, Y, N]),
        ("tasks/update", [N, N, N, N, N]),
        ("skills/list", [N, N, N, N, N]),
        ("skills/get", [N, N, N, N, N]),
        ("resources/directory/read", [N, N, N, N, N]),
        ("sampling/createMessage", [N, N, N, N, N]),
        ("nope/nothing", [N, N, N, N, N]),
    ];

    const SERVER_REQ_TABLE: &[Row] = &[
        ("ping", [Y, Y, Y, Y, N]),
        ("sampling/createMessage", [Y, Y, Y, Y, N]),
        ("roots/list", [Y, Y, Y, Y, N]),
        ("elicitation/create", [N, N, Y, Y, N]),
        ("tasks/get", [N, N, N, Y, N]),
        ("tasks/result", [N, N, N, Y, N]),
        ("tasks/list", [N, N, N, Y, N]),
        ("tasks/cancel", [N, N, N, Y, N]),
        ("tools/call", [N, N, N, N, N]),
        ("initialize", [N, N, N, N, N]),
    ];

    const CLIENT_NOTE_TABLE: &[Row] = &[
        ("notifications/initialized", [Y, Y, Y, Y, N]),
        ("notifications/cancelled", [Y, Y, Y, Y, Y]),
        ("notifications/progress", [Y, Y, Y, Y, N]),
        ("notifications/roots/list_changed", [Y, Y, Y, Y, N]),
        ("notifications/tasks/status", [N, N, N, Y, N]),
        ("notifications/message", [N, N, N, N, N]),
        ("notifications/tools/list_changed", [N, N, N, N, N]),
        ("notifications/tasks", [N, N, N, N, N]),
    ];

    const SERVER_NOTE_TABLE: &[Row] = &[
        ("notifications/cancelled", [Y, Y, Y, Y, Y]),
        ("notifications/progress", [Y, Y, Y, Y, Y]),
        ("notifications/message", [Y, Y, Y, Y, Y]),
        ("notifications/resources/updated", [Y, Y, Y, Y, Y]),
        ("notifications/resources/list_changed", [Y, Y, Y, Y, Y]),
        ("notifications/tools/list_changed", [Y, Y, Y, Y, Y]),
        ("notifications/prompts/list_changed", [Y, Y, Y, Y, Y]),
        ("notifications/elicitation/complete", [N, N, N, Y, N]),
        ("notifications/tasks/status", [N, N, N, Y, N]),
        ("notifications/subscriptions/acknowledged", [N, N, N, N, Y]),
        ("notifications/tasks", [N, N, N, N, N]),
        ("notifications/initialized", [N, N, N, N, N]),
        ("notifications/roots/list_changed", [N, N, N, N, N]),
    ];

    fn check_table(table: &[Row], f: impl Fn(&WireCodec, &str) -> bool, what: &str) {
        for (method, cols) in table {
            for (i, v) in V::ALL.into_iter().enumerate() {
                assert_eq!(
                    f(&WireCodec::new(v), method),
                    cols[i],
                    "{what} {method} on {v}"
                );
            }
        }
    }

    #[test]
    fn method_membership_per_revision() {
        check_table(
            CLIENT_REQ_TABLE,
            |c, m| c.is_client_request(m),
            "client request",
        );
        check_table(
            SERVER_REQ_TABLE,
            |c, m| c.is_server_request(m),
            "server request",
        );
        check_table(
            CLIENT_NOTE_TABLE,
            |c, m| c.is_notification(m, Direction::ClientToServer),
            "client notification",
        );
        check_table(
            SERVER_NOTE_TABLE,
            |c, m| c.is_notification(m, Direction::ServerToClient),
            "server notification",
        );
    }

    #[test]
    fn listings_match_the_schema_unions() {
        // The unions of each revision's schema.json, sorted.
        let client_reqs: [&[&str]; 5] = [
            &[
                "completion/complete",
                "initialize",
                "logging/setLevel",
                "ping",
                "prompts/get",
                "prompts/list",
                "resources/list",
                "resources/read",
                "resources/subscribe",
                "resources/templates/list",
                "resources/unsubscribe",
                "tools/call",
                "tools/list",
            ],
            &[
                "completion/complete",
                "initialize",
                "logging/setLevel",
                "ping",
                "prompts/get",
                "prompts/list",
                "resources/list",
                "resources/read",
                "resources/subscribe",
                "resources/templates/list",
                "resources/unsubscribe",
                "tools/call",
                "tools/list",
            ],
            &[
                "completion/complete",
                "initialize",
                "logging/setLevel",
                "ping",
                "prompts/get",
                "prompts/list",
                "resources/list",
                "resources/read",
                "resources/subscribe",
                "resources/templates/list",
                "resources/unsubscribe",
                "tools/call",
                "tools/list",
            ],
            &[
                "completion/complete",
                "initialize",
                "logging/setLevel",
                "ping",
                "prompts/get",
                "prompts/list",
                "resources/list",
                "resources/read",
                "resources/subscribe",
                "resources/templates/list",
                "resources/unsubscribe",
                "tasks/cancel",
                "tasks/get",
                "tasks/list",
                "tasks/result",
                "tools/call",
                "tools/list",
            ],
            &[
                "completion/complete",
                "prompts/get",
                "prompts/list",
                "resources/list",
                "resources/read",
                "resources/templates/list",
                "server/discover",
                "subscriptions/listen",
                "tools/call",
                "tools/list",
            ],
        ];
        let server_notes: [&[&str]; 5] = [
            &[
                "notifications/cancelled",
                "notifications/message",
                "notifications/progress",
                "notifications/prompts/list_changed",
                "notifications/resources/list_changed",
                "notifications/resources/updated",
                "notifications/tools/list_changed",
            ],
            &[
                "notifications/cancelled",
                "notifications/message",
                "notifications/progress",
                "notifications/prompts/list_changed",
                "notifications/resources/list_changed",
                "notifications/resources/updated",
                "notifications/tools/list_changed",
            ],
            &[
                "notifications/cancelled",
                "notifications/message",
                "notifications/progress",
                "notifications/prompts/list_changed",
                "notifications/resources/list_changed",
                "notifications/resources/updated",
                "notifications/tools/list_changed",
            ],
            &[
                "notifications/cancelled",
                "notifications/elicitation/complete",
                "notifications/message",
                "notifications/progress",
                "notifications/prompts/list_changed",
                "notifications/resources/list_changed",
                "notifications/resources/updated",
                "notifications/tasks/status",
                "notifications/tools/list_changed",
            ],
            &[
                "notifications/cancelled",
                "notifications/message",
                "notifications/progress",
                "notifications/prompts/list_changed",
                "notifications/resources/list_changed",
                "notifications/resources/updated",
                "notifications/subscriptions/acknowledged",
                "notifications/tools/list_changed",
            ],
        ];
        for (i, v) in V::ALL.into_iter().enumerate() {
            let c = WireCodec::new(v);
            let mut got = c.requests(Direction::ClientToServer);
            got.sort();
            assert_eq!(got, client_reqs[i], "{v}");
            let mut got = c.notifications(Direction::ServerToClient);
            got.sort();
            assert_eq!(got, server_notes[i], "{v}");
        }
        let modern = WireCodec::new(V::V2026_07_28);
        assert!(modern.requests(Direction::ServerToClient).is_empty());
        assert_eq!(
            modern.notifications(Direction::ClientToServer),
            vec!["notifications/cancelled"]
        );
    }

    #[test]
    fn extensions_add_modern_methods_only() {
        let table: &[(&str, Direction, bool, bool)] = &[
            // (method, direction, needs tasks, needs skills)
            ("tasks/get", Direction::ClientToServer, true, false),
            ("tasks/update", Direction::ClientToServer, true, false),
            ("tasks/cancel", Direction::ClientToServer, true, false),
            (
                "notifications/tasks",
                Direction::ServerToClient,
                true,
                false,
            ),
            ("skills/list", Direction::ClientToServer, false, true),
            ("skills/get", Direction::ClientToServer, false, true),
            (
                "resources/directory/read",
                Direction::ClientToServer,
                false,
                true,
            ),
        ];
        let is = |c: &WireCodec, m: &str, d: Direction| match d {
            Direction::ClientToServer => c.is_client_request(m),
            Direction::ServerToClient => c.is_notification(m, d),
        };
        for (m, d, tasks, skills) in table {
            for t in [false, true] {
                for s in [false, true] {
                    let c = WireCodec::new(V::V2026_07_28).with_tasks(t).with_skills(s);
                    let want = (!tasks || t) && (!skills || s);
                    assert_eq!(is(&c, m, *d), want, "{m} tasks={t} skills={s}");
                    for lv in LEGACY {
                        let c = WireCodec::new(lv).with_tasks(t).with_skills(s);
                        // 2025-11-25 core tasks are independent of the extension.
                        let core =
                            lv == V::V2025_11_25 && matches!(*m, "tasks/get" | "tasks/cancel");
                        assert_eq!(is(&c, m, *d), core, "{m} on {lv}");
                    }
                }
            }
        }
        // tasks/result and tasks/list do not come back with the extension.
        let c = WireCodec::new(V::V2026_07_28).with_tasks(true);
        assert!(!c.is_client_request("tasks/result"));
        assert!(!c.is_client_request("tasks/list"));
        assert!(!c.is_notification("notifications/tasks", Direction::ClientToServer));
    }

    #[test]
    fn extensions_from_capabilities() {
        let caps = json!({"extensions":{"io.modelcontextprotocol/tasks":{},"com.example/x":{}}});
        let e = WireExtensions::from_capabilities(caps.as_object().unwrap());
        assert_eq!(
            e,
            WireExtensions {
                tasks: true,
                skills: false
            }
        );
        let caps = json!({"extensions":{"io.modelcontextprotocol/skills":{"directoryRead":true}}});
        let e = WireExtensions::from_capabilities(caps.as_object().unwrap());
        assert_eq!(
            e,
            WireExtensions {
                tasks: false,
                skills: true
            }
        );
        assert_eq!(
            WireExtensions::from_capabilities(&Map::new()),
            WireExtensions::NONE
        );
    }

    #[test]
    fn for_era_picks_the_newest_of_the_era() {
        assert_eq!(WireCodec::for_era(Era::Legacy).version(), V::V2025_11_25);
        assert_eq!(WireCodec::for_era(Era::Modern).version(), V::V2026_07_28);
        assert!(WireCodec::for_era(Era::Modern).is_modern());
    }

    #[test]
    fn require_request_is_method_not_found() {
        let c = WireCodec::new(V::V2026_07_28);
        assert!(
            c.require_request("tools/list", Direction::ClientToServer)
                .is_ok()
        );
        let e = c
            .require_request("initialize", Direction::ClientToServer)
            .unwrap_err();
        assert_eq!(e.code, METHOD_NOT_FOUND);
        let e = c
            .require_request("roots/list", Direction::ServerToClient)
            .unwrap_err();
        assert_eq!(e.code, METHOD_NOT_FOUND);
    }

    const FULL: &str = r#"{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}"#;

    #[test]
    fn modern_request_validation() {
        let c = WireCodec::new(V::V2026_07_28);
        let pv = meta::PROTOCOL_VERSION;
        let cc = meta::CLIENT_CAPABILITIES;
        let table: Vec<(Option<String>, Result<(), String>)> = vec![
            (None, Err("missing params".into())),
            (Some("[]".into()), Err("params must be an object".into())),
            (
                Some("{}".into()),
                Err("missing required params._meta".into()),
            ),
            (
                Some(r#"{"_meta":null}"#.into()),
                Err("missing required params._meta".into()),
            ),
            (
                Some(r#"{"_meta":[]}"#.into()),
                Err("invalid _meta field: _meta".into()),
            ),
            (
                Some(r#"{"_meta":{}}"#.into()),
                Err(format!("missing required _meta field: {pv}")),
            ),
            (
                Some(format!(r#"{{"_meta":{{"{cc}":{{}}}}}}"#)),
                Err(format!("missing required _meta field: {pv}")),
            ),
            (
                Some(format!(r#"{{"_meta":{{"{pv}":"2026-07-28"}}}}"#)),
                Err(format!("missing required _meta field: {cc}")),
            ),
            (
                Some(format!(
                    r#"{{"_meta":{{"{pv}":"2026-07-28","{cc}":true}}}}"#
                )),
                Err(format!("invalid _meta field: {cc}")),
            ),
            (
                Some(format!(r#"{{"_meta":{{"{pv}":7,"{cc}":{{}}}}}}"#)),
                Err(format!("invalid _meta field: {pv}")),
            ),
            (
                Some(format!(
                    r#"{{"_meta":{{"{pv}":"2026-07-28","{cc}":{{}},"io.modelcontextprotocol/clientInfo":1}}}}"#
                )),
                Err("invalid _meta field: io.modelcontextprotocol/clientInfo".into()),
            ),
            (
                Some(format!(
                    r#"{{"_meta":{{"{pv}":"2026-07-28","{cc}":{{}},"progressToken":{{}}}}}}"#
                )),
                Err("invalid _meta field: progressToken".into()),
            ),
            (Some(format!(r#"{{"_meta":{FULL}}}"#)), Ok(())),
            (Some(format!(r#"{{"cursor":"x","_meta":{FULL}}}"#)), Ok(())),
            // Unknown keys pass.
            (
                Some(format!(
                    r#"{{"_meta":{{"{pv}":"2026-07-28","{cc}":{{}},"com.example/k":[1]}}}}"#
                )),
                Ok(()),
            ),
        ];
        for (params, want) in table {
            let r = params.as_deref().map(raw);
            let got = c.validate_request(r.as_deref().map(Params::from).as_ref());
            match (got, want) {
                (Ok(m), Ok(())) => assert!(m.is_some(), "{params:?}"),
                (Err(e), Err(msg)) => {
                    assert_eq!(e.code, INVALID_PARAMS, "{params:?}");
                    assert_eq!(e.message, msg, "{params:?}");
                    assert_eq!(http_status(e.code), 400);
                }
                (got, want) => panic!("{params:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn legacy_request_validation() {
        let table: &[(Option<&str>, Option<i32>, bool)] = &[
            // (params, error code, has meta)
            (None, None, false),
            (Some("{}"), None, false),
            (
                Some(
                    r#"{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}"#,
                ),
                None,
                false,
            ),
            (Some(r#"{"_meta":{"progressToken":"p"}}"#), None, true),
            (Some("[1]"), Some(INVALID_PARAMS), false),
            (
                Some(r#"{"_meta":{"progressToken":[]}}"#),
                Some(INVALID_PARAMS),
                false,
            ),
        ];
        for v in LEGACY {
            let c = WireCodec::new(v);
            for (p, code, has_meta) in table {
                let r = p.map(raw);
                match (
                    c.validate_request(r.as_deref().map(Params::from).as_ref()),
                    code,
                ) {
                    (Ok(m), None) => assert_eq!(m.is_some(), *has_meta, "{p:?} on {v}"),
                    (Err(e), Some(code)) => assert_eq!(e.code, *code, "{p:?} on {v}"),
                    (got, _) => panic!("{p:?} on {v}: {got:?}"),
                }
            }
        }
    }

    #[test]
    fn negotiating_the_modern_revision() {
        let parse = |pv: &str| {
            let p = format!(
                r#"{{"_meta":{{"io.modelcontextprotocol/protocolVersion":"{pv}","io.modelcontextprotocol/clientCapabilities":{{}}}}}}"#
            );
            RequestMeta::from_params(Some(&Params::new(raw(&p))))
                .unwrap()
                .unwrap()
        };
        let all = SupportedVersions::all();
        assert_eq!(
            negotiate_modern(&parse("2026-07-28"), all),
            Ok(V::V2026_07_28)
        );
        for pv in ["2025-11-25", "1900-01-01", ""] {
            let e = negotiate_modern(&parse(pv), all).unwrap_err();
            assert_eq!(e.code, UNSUPPORTED_PROTOCOL_VERSION, "{pv}");
            assert_eq!(
                e.data,
                Some(json!({"supported":["2026-07-28"],"requested":pv}))
            );
        }
        let legacy_only = SupportedVersions::only(&[V::V2025_06_18]);
        let e = negotiate_modern(&parse("2026-07-28"), legacy_only).unwrap_err();
        assert_eq!(
            e.data,
            Some(json!({"supported":[],"requested":"2026-07-28"}))
        );
        let e = negotiate_modern(&RequestMeta::default(), all).unwrap_err();
        assert_eq!(e.code, INVALID_PARAMS);
    }

    #[test]
    fn modern_result_validation() {
        let c = WireCodec::new(V::V2026_07_28);
        let ct = WireCodec::new(V::V2026_07_28).with_tasks(true);
        use ResultType as R;
        // (codec, method, result, expected)
        let table: Vec<(&WireCodec, &str, &str, Option<R>)> = vec![
            (
                &c,
                "tools/list",
                r#"{"resultType":"complete","tools":[]}"#,
                Some(R::Complete),
            ),
            (&c, "tools/list", r#"{"tools":[]}"#, None),
            (&c, "tools/list", r#"{"resultType":"input_required"}"#, None),
            (
                &c,
                "prompts/list",
                r#"{"resultType":"input_required"}"#,
                None,
            ),
            (
                &c,
                "resources/list",
                r#"{"resultType":"input_required"}"#,
                None,
            ),
            (
                &c,
                "resources/templates/list",
                r#"{"resultType":"input_required"}"#,
                None,
            ),
            (
                &c,
                "server/discover",
                r#"{"resultType":"input_required"}"#,
                None,
            ),
            (
                &c,
                "completion/complete",
                r#"{"resultType":"input_required"}"#,
                None,
            ),
            (
                &c,
                "subscriptions/listen",
                r#"{"resultType":"input_required"}"#,
                None,
            ),
            (
                &c,
                "tools/call",
                r#"{"resultType":"input_required","requestState":"s"}"#,
                Some(R::InputRequired),
            ),
            (
                &c,
                "resources/read",
                r#"{"resultType":"input_required"}"#,
                Some(R::InputRequired),
            ),
            (
                &c,
                "prompts/get",
                r#"{"resultType":"input_required"}"#,
                Some(R::InputRequired),
            ),
            (
                &c,
                "tools/call",
                r#"{"resultType":"task","taskId":"t"}"#,
                None,
            ),
            (
                &ct,
                "tools/call",
                r#"{"resultType":"task","taskId":"t"}"#,
                Some(R::Task),
            ),
            (&ct, "tools/list", r#"{"resultType":"task"}"#, None),
            (
                &ct,
                "tasks/get",
                r#"{"resultType":"complete","taskId":"t"}"#,
                Some(R::Complete),
            ),
            (&c, "tools/call", r#"{"resultType":"partial"}"#, None),
            (&c, "tools/call", r#"{"resultType":"Complete"}"#, None),
            (&c, "tools/call", r#"{"resultType":1}"#, None),
            (&c, "tools/call", r#"{"resultType":null}"#, None),
            (
                &c,
                "tools/call",
                r#"{"resultType":"complete","resultType":"complete"}"#,
                None,
            ),
            (&c, "tools/call", r#"[]"#, None),
            (&c, "tools/call", r#""complete""#, None),
            // Only the top level counts.
            (
                &c,
                "tools/call",
                r#"{"structuredContent":{"resultType":"complete"}}"#,
                None,
            ),
            (
                &c,
                "tools/call",
                r#"{"content":[],"structuredContent":{"resultType":"x"},"resultType":"complete"}"#,
                Some(R::Complete),
            ),
            (
                &c,
                "tools/call",
                r#"{"resultType":"complete","x":"\u00e9"}"#,
                Some(R::Complete),
            ),
        ];
        for (codec, method, result, want) in table {
            let got = codec.validate_result(method, &raw(result));
            match want {
                Some(w) => assert_eq!(got, Ok(w), "{method} {result}"),
                None => {
                    let e = got.expect_err(result);
                    assert_eq!(e.method, method);
                }
            }
        }
    }

    #[test]
    fn legacy_results_are_complete() {
        for v in LEGACY {
            let c = WireCodec::new(v).with_tasks(true);
            for (m, r) in [
                ("tools/list", r#"{"tools":[]}"#),
                ("tools/call", r#"{"content":[]}"#),
                ("tools/call", r#"{"resultType":"weird"}"#),
                ("ping", "{}"),
            ] {
                assert_eq!(
                    c.validate_result(m, &raw(r)),
                    Ok(ResultType::Complete),
                    "{r} on {v}"
                );
            }
            assert!(c.validate_result("ping", &raw("null")).is_err());
        }
    }

    #[test]
    fn notification_validation() {
        let c = WireCodec::new(V::V2026_07_28);
        let table: &[(&str, bool)] = &[
            (
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}"#,
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
                true,
            ),
            (
                r#"{"jsonrpc":"2.0","id":1,"method":"notifications/cancelled"}"#,
                false,
            ),
            (
                r#"{"jsonrpc":"2.0","id":null,"method":"notifications/cancelled"}"#,
                false,
            ),
            (r#"{"jsonrpc":"2.0","method":"x","result":{}}"#, false),
            (
                r#"{"jsonrpc":"2.0","method":"x","error":{"code":1,"message":"m"}}"#,
                false,
            ),
            (r#"{"jsonrpc":"2.0","method":"x","result":null}"#, false),
            (r#"{"jsonrpc":"2.0","method":5}"#, false),
            (r#"{"jsonrpc":"2.0"}"#, false),
            (r#"{"jsonrpc":"2.0","method":"x","params":[1]}"#, false),
            (
                r#"{"jsonrpc":"2.0","method":"x","params":{"id":1,"result":2}}"#,
                true,
            ),
            (r#"[]"#, false),
        ];
        for (msg, ok) in table {
            let got = c.validate_notification(&raw(msg));
            assert_eq!(got.is_ok(), *ok, "{msg}: {got:?}");
            if let Err(e) = got {
                assert_eq!(e.code, INVALID_REQUEST);
            }
        }
    }

    #[test]
    fn modern_result_encoding() {
        let c = WireCodec::new(V::V2026_07_28);
        let table: &[(&str, &str, bool)] = &[
            // (input, output, borrowed)
            (
                r#"{"tools":[]}"#,
                r#"{"resultType":"complete","tools":[]}"#,
                false,
            ),
            ("{}", r#"{"resultType":"complete"}"#, false),
            ("{ }", r#"{"resultType":"complete" }"#, false),
            (" {\n}", " {\"resultType\":\"complete\"\n}", false),
            (r#"{ "a":1}"#, r#"{"resultType":"complete", "a":1}"#, false),
            (
                r#"{"resultType":"input_required"}"#,
                r#"{"resultType":"input_required"}"#,
                true,
            ),
            (
                r#"{"a":{"resultType":"x"}}"#,
                r#"{"resultType":"complete","a":{"resultType":"x"}}"#,
                false,
            ),
            (
                r#"{"a":1,"resultType":"complete"}"#,
                r#"{"a":1,"resultType":"complete"}"#,
                true,
            ),
            (r#"[1]"#, r#"[1]"#, true),
            (r#"{bad"#, r#"{bad"#, true),
        ];
        for (input, output, borrowed) in table {
            let got = c.encode_result(input);
            assert_eq!(got, *output, "{input}");
            assert_eq!(matches!(got, Cow::Borrowed(_)), *borrowed, "{input}");
            if input.trim_start().starts_with('{') && !input.contains("bad") {
                let v: Value = serde_json::from_str(&got).unwrap();
                assert!(v.get("resultType").is_some());
                assert!(c.validate_result("tools/call", &raw(&got)).is_ok());
            }
        }
    }

    #[test]
    fn legacy_result_encoding_is_untouched() {
        for v in LEGACY {
            let c = WireCodec::new(v);
            for input in [r#"{"tools":[]}"#, "{}", r#"{"resultType":"complete"}"#] {
                assert!(matches!(c.encode_result(input), Cow::Borrowed(s) if s == input));
            }
        }
    }

    #[test]
    fn write_result_splices_in_place() {
        let m = WireCodec::new(V::V2026_07_28);
        let l = WireCodec::new(V::V2025_06_18);
        let table: &[(&WireCodec, RequestId, &str, &str)] = &[
            (
                &m,
                1.into(),
                "{}",
                r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}"#,
            ),
            (
                &m,
                "a".into(),
                r#"{"x":1}"#,
                r#"{"jsonrpc":"2.0","id":"a","result":{"resultType":"complete","x":1}}"#,
            ),
            (
                &m,
                2.into(),
                r#"{"resultType":"task"}"#,
                r#"{"jsonrpc":"2.0","id":2,"result":{"resultType":"task"}}"#,
            ),
            (
                &l,
                3.into(),
                r#"{"x":1}"#,
                r#"{"jsonrpc":"2.0","id":3,"result":{"x":1}}"#,
            ),
        ];
        for (c, id, result, want) in table {
            let mut out = b"prefix".to_vec();
            c.write_result(&mut out, id, result);
            assert_eq!(String::from_utf8(out).unwrap(), format!("prefix{want}"));
        }
    }

    #[test]
    fn wire_errors_per_era() {
        let app = ErrorObject::new(-1, "User rejected sampling request");
        let pnf = ErrorObject::new(RESOURCE_NOT_FOUND, "Resource not found")
            .with_data(json!({"uri":"file:///x"}));
        let upv = unsupported_protocol_version(["2026-07-28"], "1900-01-01");
        let mrc = missing_required_client_capability(
            json!({"elicitation":{}}).as_object().unwrap().clone(),
        );
        let hm = header_mismatch("Mcp-Method");
        let url = ErrorObject::new(URL_ELICITATION_REQUIRED, "URL elicitation required")
            .with_data(json!({"elicitations":[]}));
        let impl_def = ErrorObject::new(-32001, "Request timed out");
        let reserved = ErrorObject::new(-32500, "x");
        let reserved_mcp = ErrorObject::new(-32050, "x");
        let internal = ErrorObject::internal();
        let std_codes = [
            ErrorObject::parse_error(),
            ErrorObject::invalid_request("Invalid Request: x"),
            ErrorObject::method_not_found("x"),
            ErrorObject::invalid_params("Unknown tool: y").with_data(json!({"k":1})),
            ErrorObject::new(INTERNAL_ERROR, "Internal error"),
        ];
        let as_invalid_params = ErrorObject {
            code: INVALID_PARAMS,
            ..pnf.clone()
        };

        for v in V::ALL {
            let c = WireCodec::new(v);
            let modern = v.era() == Era::Modern;
            // Local failures never carry detail.
            for f in [
                LocalFailure::Timeout,
                LocalFailure::Transport,
                LocalFailure::Closed,
                LocalFailure::Cancelled,
                LocalFailure::InvalidResponse,
                LocalFailure::Encode,
                LocalFailure::Handler,
                LocalFailure::Other(-32001),
            ] {
                assert_eq!(c.wire_error(f.clone()), internal, "{f:?} on {v}");
            }
            let table: Vec<(&ErrorObject, ErrorObject)> = vec![
                (&app, app.clone()),
                (&upv, upv.clone()),
                (&mrc, mrc.clone()),
                (&hm, hm.clone()),
                (
                    &pnf,
                    if modern {
                        as_invalid_params.clone()
                    } else {
                        pnf.clone()
                    },
                ),
                (
                    &url,
                    if v == V::V2025_11_25 {
                        url.clone()
                    } else {
                        internal.clone()
                    },
                ),
                (&impl_def, internal.clone()),
                (&reserved, internal.clone()),
                (&reserved_mcp, internal.clone()),
            ];
            for (input, want) in table {
                assert_eq!(c.wire_error(input.clone()), want, "{} on {v}", input.code);
            }
            for e in &std_codes {
                assert_eq!(&c.wire_error(e.clone()), e, "{} on {v}", e.code);
            }
        }
    }

    #[test]
    fn code_classes() {
        let table: &[(i32, CodeClass)] = &[
            (-32700, CodeClass::Standard),
            (-32600, CodeClass::Standard),
            (-32601, CodeClass::Standard),
            (-32602, CodeClass::Standard),
            (-32603, CodeClass::Standard),
            (-32002, CodeClass::Protocol),
            (-32020, CodeClass::Protocol),
            (-32021, CodeClass::Protocol),
            (-32022, CodeClass::Protocol),
            (-32042, CodeClass::Protocol),
            (-32000, CodeClass::ImplementationDefined),
            (-32019, CodeClass::ImplementationDefined),
            (-32023, CodeClass::Reserved),
            (-32099, CodeClass::Reserved),
            (-32768, CodeClass::Reserved),
            (-32769, CodeClass::Application),
            (-31999, CodeClass::Application),
            (-1, CodeClass::Application),
            (0, CodeClass::Application),
            (42, CodeClass::Application),
        ];
        for (code, class) in table {
            assert_eq!(classify_code(*code), *class, "{code}");
        }
    }

    #[test]
    fn http_statuses() {
        let table: &[(i32, u16)] = &[
            (PARSE_ERROR, 400),
            (INVALID_REQUEST, 400),
            (INVALID_PARAMS, 400),
            (HEADER_MISMATCH, 400),
            (MISSING_REQUIRED_CLIENT_CAPABILITY, 400),
            (UNSUPPORTED_PROTOCOL_VERSION, 400),
            (METHOD_NOT_FOUND, 404),
            (INTERNAL_ERROR, 200),
            (RESOURCE_NOT_FOUND, 200),
            (URL_ELICITATION_REQUIRED, 200),
            (-32001, 200),
            (-1, 200),
        ];
        for (code, status) in table {
            assert_eq!(http_status(*code), *status, "{code}");
        }
    }

    #[test]
    fn standard_error_builders() {
        let e = unsupported_protocol_version(["2026-07-28", "2025-11-25"], "1900-01-01");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"code":-32022,"message":"Unsupported protocol version",
                   "data":{"supported":["2026-07-28","2025-11-25"],"requested":"1900-01-01"}})
        );
        let e = missing_required_client_capability(
            json!({"elicitation":{}}).as_object().unwrap().clone(),
        );
        assert_eq!(e.code, -32021);
        assert_eq!(
            e.data,
            Some(json!({"requiredCapabilities":{"elicitation":{}}}))
        );
        let e = header_mismatch("Mcp-Name header value 'foo' does not match body value 'bar'");
        assert_eq!(
            serde_json::to_value(&e).unwrap(),
            json!({"code":-32020,
                   "message":"Header mismatch: Mcp-Name header value 'foo' does not match body value 'bar'"})
        );
    }
}
