//! An HTTP API described by an OpenAPI 3.0 or 3.1 document, served as MCP tools (feature
//! `openapi`): each chosen operation is a tool that sends the real HTTP request.
//!
//! ```no_run
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! use mcp_runtime::Server;
//! use mcp_runtime::openapi::{Auth, OpenApi, Rule, Selection};
//!
//! let tools = OpenApi::load("https://petstore3.example/api/v3/openapi.json")
//!     .await?
//!     .select(Selection::new().exclude(Rule::method("DELETE")))
//!     .auth(Auth::api_key_from_env(mcp_runtime::openapi::ApiKeyIn::Header, "api_key", "PETSTORE_KEY")?)
//!     .build()?;
//! Server::builder("petstore", "1.0.0")
//!     .registry(|r| tools.install(r))
//!     .build()
//!     .serve_stdio()
//!     .await?;
//! # Ok(()) }
//! ```
//!
//! # Reading the document
//!
//! The document is read into a `serde_json::Value` (JSON with serde_json, YAML with
//! yaml-rust2, both already in this crate's tree) and walked directly, rather than through a
//! typed OpenAPI model crate: the typed crates each cover one version (`openapiv3` 3.0,
//! `oas3` 3.1), keep schemas as their own types where a tool needs plain JSON Schema, and
//! lose the place of what they refuse. Walking the JSON gives both versions one code path
//! and every error its JSON Pointer ([`OpenApiError::place`]). [`Document`] checks the
//! version and follows every `$ref` before anything is built: a dangling reference, one
//! outside the document, or a chain of references that loops is refused with its place;
//! a schema that refers to itself (a tree) is a recursive type, which a tool schema
//! expresses with `$defs`.
//!
//! # Operations as tools
//!
//! - **Name**: the `operationId`, characters outside `A-Z a-z 0-9 _ - .` made `_`; without
//!   one, the method and the path (`GET /pets/{petId}` is `get_pets_petId`). A name taken
//!   twice gets `_2`, `_3`, ... in the order tools are listed: by path (sorted), then by
//!   method (`get`, `put`, `post`, `delete`, `options`, `head`, `patch`, `trace`).
//! - **Description**: the summary, a blank line, the description (either alone when the
//!   other is missing; `METHOD /path` when both are); the title is the summary.
//! - **Arguments**: one input schema of the parameters and the JSON body, names kept
//!   distinct as [Arguments](#arguments) says: a parameter whose name is
//!   taken twice becomes `<in>_<name>` (`path_id`, `query_id`), the body keeping its names;
//!   a body that is not an object of properties is the argument `body`.
//! - **Schemas**: `$ref`s inlined (recursive ones kept as `$defs`), 3.0's `nullable` and
//!   boolean exclusive bounds rewritten, OpenAPI-only keywords dropped, `readOnly`
//!   properties left out of inputs and `writeOnly` out of outputs, then made portable for
//!   strict clients (no `type` arrays, no non-standard `format`).
//! - **Output**: the JSON schema of the first 2xx answer is the `outputSchema`; such a
//!   call's JSON answer is its `structuredContent` (and its text).
//! - **Annotations**: `GET`/`HEAD`/`OPTIONS` read-only and idempotent, `PUT` idempotent,
//!   `DELETE` destructive and idempotent; every tool open-world. Tags go to `_meta.tags`,
//!   so the visibility policy and tool transforms select by them.
//! - **Results**: a 2xx answer is the result (JSON as structured content or text, anything
//!   else as text); a non-2xx answer, a timeout or a refused connection is a result with
//!   `isError` whose text has the status and the body (`_meta.status` the code).
//!
//! Chosen `GET`s can be resources or resource templates instead ([`OpenApi::resources`]).
//!
//! # Arguments
//!
//! Each parameter is an argument of its own name; a JSON or form body that is an object
//! of `properties` is spread, one argument per property. When two share a name, each
//! parameter of that name is renamed `<in>_<name>`, and a clash still left gets `_2`.
//!
//! # Credentials
//!
//! [`Auth`] adds an API key (header, query or cookie), a bearer token, basic credentials
//! or an OAuth 2 client credentials token to every request, from the code or the
//! environment, or from the document's own security scheme ([`Auth::for_scheme`]). What the MCP client sent (its bearer token, its
//! headers) is never forwarded.

mod auth;
mod document;
mod error;
mod operation;
mod request;
mod resources;
mod schema;
mod select;
mod url;

use std::sync::Arc;
use std::time::Duration;

use hyper::header::{HeaderName, HeaderValue};
use mcp_core::types::{CallToolResult, Tool};
use serde_json::{Map, Value};

pub use auth::{ApiKeyIn, Auth};
pub use document::{Document, SpecVersion};
pub use error::OpenApiError;
pub use select::{Rule, Selection};

use operation::{METHODS, Operation};
use request::Caller;
use select::OperationRef;

use crate::handler::Registry;
use crate::server::{Server, ServerBuilder};

/// How long a call waits for the API by default.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// The largest answer read by default (larger ones are an `isError` result).
pub const DEFAULT_MAX_BODY: usize = 10 << 20;

/// An OpenAPI document and how to serve it: which operations, which base URL, which
/// credentials. [`build`](Self::build) makes the tools (all of them, or an error naming the
/// place of the first problem: nothing is half-built).
#[derive(Debug, Clone)]
pub struct OpenApi {
    doc: Document,
    base: Option<String>,
    selection: Selection,
    /// The `GET`s served as resources.
    as_resources: Vec<Rule>,
    auth: Vec<Auth>,
    headers: Vec<(String, String)>,
    timeout: Duration,
    max_body: usize,
}

impl OpenApi {
    /// Serves `doc`.
    pub fn new(doc: Document) -> OpenApi {
        OpenApi {
            doc,
            base: None,
            selection: Selection::new(),
            as_resources: Vec::new(),
            auth: Vec::new(),
            headers: Vec::new(),
            timeout: DEFAULT_TIMEOUT,
            max_body: DEFAULT_MAX_BODY,
        }
    }

    /// Reads the document at `location`: an `http://` or `https://` URL (`https` with the
    /// `tls` feature) is fetched, anything else is a file path.
    pub async fn load(location: &str) -> Result<OpenApi, OpenApiError> {
        Ok(OpenApi::new(load_document(location).await?))
    }

    /// The document.
    pub fn document(&self) -> &Document {
        &self.doc
    }

    /// The URL the operations' paths are appended to, instead of the document's first
    /// server (needed when it names none and was not fetched from a URL).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base = Some(url.into());
        self
    }

    /// Which operations become tools (all by default).
    pub fn select(mut self, selection: Selection) -> Self {
        self.selection = selection;
        self
    }

    /// Serves the chosen `GET` operations `rule` matches as resources instead of tools: a
    /// resource template at the request's URL (`{base}/pets/{pet_id}`) when it has path
    /// parameters, a resource at its URL when it has none. One that needs another
    /// parameter (a required query parameter, a header) stays a tool.
    pub fn resources(mut self, rule: Rule) -> Self {
        self.as_resources.push(rule);
        self
    }

    /// Adds a credential sent with every request. One for the same place and name (two
    /// `Authorization` headers: bearer, then basic) replaces the earlier one.
    pub fn auth(mut self, auth: Auth) -> Self {
        self.auth
            .retain(|a| !(a.place() == auth.place() && a.name().eq_ignore_ascii_case(auth.name())));
        self.auth.push(auth);
        self
    }

    /// Adds a header sent with every request.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// How long a call waits for the whole answer ([`DEFAULT_TIMEOUT`]).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The largest answer read ([`DEFAULT_MAX_BODY`]).
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// The tools the chosen operations become, by path then method (what
    /// [`build`](Self::build) would serve; no base URL needed).
    pub fn tools(&self) -> Result<Vec<Tool>, OpenApiError> {
        let (tools, _) = self.operations()?;
        Ok(tools.into_iter().map(|o| o.tool).collect())
    }

    /// The chosen operations: those served as tools, and those served as resources.
    fn operations(&self) -> Result<(Vec<Operation>, Vec<Operation>), OpenApiError> {
        let doc = &self.doc;
        let mut out: Vec<Operation> = Vec::new();
        let mut read: Vec<Operation> = Vec::new();
        let Some(paths) = doc.value().get("paths").and_then(Value::as_object) else {
            return Ok((out, read));
        };
        for (path, item) in paths {
            let item_at = format!("#/paths/{}", document::escape(path));
            let (item, _) = doc.follow(item, &item_at)?;
            for &method in METHODS {
                let Some(op) = item.get(method) else {
                    continue;
                };
                let tags: Vec<String> = op
                    .get("tags")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|t| t.as_str().map(str::to_owned))
                    .collect();
                let upper = method.to_ascii_uppercase();
                let seen = OperationRef {
                    path,
                    method: &upper,
                    tags: &tags,
                    operation_id: op.get("operationId").and_then(Value::as_str),
                };
                if !self.selection.chooses(&seen) {
                    continue;
                }
                let mut o = operation::build(doc, path, item, method, op)?;
                if self.as_resources.iter().any(|r| r.matches(&seen)) && resources::readable(&o) {
                    read.push(o);
                    continue;
                }
                let base = o.tool.name.clone();
                let mut n = 2;
                while out.iter().any(|x| x.tool.name == o.tool.name) {
                    o.tool.name = format!("{base}_{n}");
                    n += 1;
                }
                out.push(o);
            }
        }
        Ok((out, read))
    }

    /// The base URL: the configured one, else the document's first server (its variables
    /// at their defaults), resolved against the document's URL when relative.
    fn base(&self) -> Result<String, OpenApiError> {
        if let Some(b) = &self.base {
            return Ok(b.trim_end_matches('/').to_owned());
        }
        let server = self
            .doc
            .value()
            .pointer("/servers/0")
            .and_then(|s| s.get("url"))
            .and_then(Value::as_str)
            .map(|u| url::with_defaults(u, self.doc.value().pointer("/servers/0/variables")));
        let url = server.unwrap_or_else(|| "/".to_owned());
        if url.starts_with("http://") || url.starts_with("https://") {
            return Ok(url.trim_end_matches('/').to_owned());
        }
        let Some(doc_url) = self.doc.url() else {
            return Err(self.doc.error(
                "#/servers",
                format!("the server URL `{url}` is not absolute and the document was not fetched from a URL: give a base URL"),
            ));
        };
        Ok(url::resolve(doc_url, &url).trim_end_matches('/').to_owned())
    }

    /// The tools, ready to install into a server.
    pub fn build(self) -> Result<OpenApiTools, OpenApiError> {
        let (ops, read) = self.operations()?;
        let base = self.base()?;
        let mut headers = Vec::new();
        for (k, v) in &self.headers {
            let bad = || {
                self.doc
                    .error("", format!("the header `{k}` cannot be sent"))
            };
            headers.push((
                HeaderName::from_bytes(k.as_bytes()).map_err(|_| bad())?,
                HeaderValue::from_str(v).map_err(|_| bad())?,
            ));
        }
        let caller = Arc::new(Caller {
            send: crate::client::any_scheme_sender(),
            base,
            auth: self.auth,
            headers,
            timeout: self.timeout,
            max_body: self.max_body,
        });
        Ok(OpenApiTools {
            ops: ops.into_iter().map(Arc::new).collect(),
            read: read.into_iter().map(Arc::new).collect(),
            caller,
        })
    }
}

/// The tools of an API: [`install`](Self::install) them in a server's table.
#[derive(Clone)]
pub struct OpenApiTools {
    ops: Vec<Arc<Operation>>,
    /// The operations served as resources.
    read: Vec<Arc<Operation>>,
    caller: Arc<Caller>,
}

impl std::fmt::Debug for OpenApiTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenApiTools")
            .field("base", &self.caller.base)
            .field(
                "tools",
                &self.ops.iter().map(|o| &o.tool.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl OpenApiTools {
    /// The tools, by path then method.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.ops.iter().map(|o| &o.tool)
    }

    /// The URIs of the resources and the URI templates of the resource templates that
    /// [`OpenApi::resources`] made of `GET`s.
    pub fn resources(&self) -> impl Iterator<Item = String> + '_ {
        self.read
            .iter()
            .map(|o| format!("{}{}", self.caller.base, o.plan.path))
    }

    /// The method (upper case) and path template the tool `name` sends its request to.
    pub fn route(&self, name: &str) -> Option<(&str, &str)> {
        let op = self.ops.iter().find(|o| o.tool.name == name)?;
        Some((op.plan.method.as_str(), op.plan.path.as_str()))
    }

    /// The base URL requests go to.
    pub fn base_url(&self) -> &str {
        &self.caller.base
    }

    /// Registers every tool (and resource) in `registry` (a builder's, through
    /// [`ServerBuilder::registry`], or a running server's through its handle).
    pub fn install(&self, registry: &mut Registry) {
        for op in &self.ops {
            let (op, caller) = (op.clone(), self.caller.clone());
            registry.add_tool(op.tool.clone(), move |_ctx, args| {
                let (op, caller) = (op.clone(), caller.clone());
                async move { Ok(call(&caller, &op, args.as_deref()).await) }
            });
        }
        for op in &self.read {
            resources::install(registry, &self.caller, op);
        }
    }

    /// A server builder named `name` at `version` holding these tools.
    pub fn server(&self, name: impl Into<String>, version: impl Into<String>) -> ServerBuilder {
        Server::builder(name, version).registry(|r| self.install(r))
    }

    /// Calls the tool `name` directly, without a server (`None`: no such tool).
    pub async fn call(&self, name: &str, args: Map<String, Value>) -> Option<CallToolResult> {
        let op = self.ops.iter().find(|o| o.tool.name == name)?;
        Some(self.caller.call(&op.plan, args).await)
    }
}

async fn call(
    caller: &Caller,
    op: &Operation,
    args: Option<&serde_json::value::RawValue>,
) -> CallToolResult {
    let args = match args.map(|a| serde_json::from_str::<Value>(a.get())) {
        None => Map::new(),
        Some(Ok(Value::Object(m))) => m,
        Some(Ok(Value::Null)) => Map::new(),
        Some(_) => return CallToolResult::error("the arguments must be an object"),
    };
    caller.call(&op.plan, args).await
}

/// Fetches or reads a document (see [`OpenApi::load`]).
pub async fn load_document(location: &str) -> Result<Document, OpenApiError> {
    if !(location.starts_with("http://") || location.starts_with("https://")) {
        return Document::from_file(location);
    }
    let fail = |why: String| OpenApiError::new(location, "", why);
    let req = hyper::Request::get(location)
        .header(
            hyper::header::ACCEPT,
            "application/json, application/yaml;q=0.9, */*;q=0.5",
        )
        .body(http_body_util::Full::new(hyper::body::Bytes::new()))
        .map_err(|e| fail(format!("not a URL: {e}")))?;
    let fetch = async {
        use http_body_util::BodyExt;
        let resp = crate::client::any_scheme_sender()
            .send(req)
            .await
            .map_err(|e| fail(format!("cannot fetch the document: {e}")))?;
        let status = resp.status();
        let body = http_body_util::Limited::new(resp.into_body(), 64 << 20)
            .collect()
            .await
            .map_err(|e| fail(format!("reading the document: {e}")))?
            .to_bytes();
        if !status.is_success() {
            return Err(fail(format!("fetching the document answered {status}")));
        }
        Ok(body)
    };
    let body = tokio::time::timeout(DEFAULT_TIMEOUT, fetch)
        .await
        .map_err(|_| fail(format!("no answer within {DEFAULT_TIMEOUT:?}")))??;
    let text =
        String::from_utf8(body.to_vec()).map_err(|_| fail("the document is not UTF-8".into()))?;
    let mut doc = Document::parse(&text, location)?;
    doc.set_url(location.to_owned());
    Ok(doc)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_name_taken_twice_is_numbered() {
        let doc = Document::from_value(
            serde_json::json!({"openapi": "3.0.0", "paths": {
                "/a": {"get": {"operationId": "x", "responses": {}}},
                "/b": {"get": {"operationId": "x", "responses": {}}, "post": {"responses": {}}}}}),
            "d",
        )
        .unwrap();
        let api = OpenApi::new(doc);
        let names: Vec<String> = api.tools().unwrap().into_iter().map(|t| t.name).collect();
        assert_eq!(names, ["x", "x_2", "post_b"]);
        let e = api.build().unwrap_err();
        assert!(e.to_string().contains("give a base URL"), "{e}");
    }
}
