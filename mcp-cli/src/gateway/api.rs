//! The gateway's OpenAPI upstreams: an entry `gateway.servers.NAME` with `openapi` read
//! with `mcp::openapi` ([`OpenApi`]) into [`OpenApiTools`], whose tools are added to the
//! gateway's run-time table under the upstream's namespace (or unprefixed) and taken out
//! again on reload. Each call is the library's: the real HTTP request, a non-2xx answer an
//! `isError` result with its status. There is no connection, so such an upstream is never
//! down.

use std::path::Path;
use std::sync::Arc;

use mcp_runtime::HandleError;
use mcp_runtime::openapi::{self, ApiKeyIn, Auth, OpenApi, OpenApiTools, Selection};
use serde_json::{Map, Value};

use crate::Failure;
use mcp_runtime::proxy::config::{self, Credential};

/// Reads the document of `api` (the upstream `u` of the file at `path`) and builds its
/// tools; any problem is a load error naming the file, the line and the key.
pub async fn build(
    path: &str,
    u: &config::Entry,
    api: &config::Api,
) -> Result<Arc<OpenApiTools>, Failure> {
    let fail = |e: openapi::OpenApiError| {
        Failure::usage(format!(
            "gateway config {path}: line {}: `gateway.servers.{}.openapi`: {e}",
            api.line, u.key
        ))
    };
    let remote = api.document.starts_with("http://") || api.document.starts_with("https://");
    let location = match Path::new(&api.document) {
        p if remote || p.is_absolute() => api.document.clone(),
        p => Path::new(path)
            .parent()
            .unwrap_or(Path::new("."))
            .join(p)
            .to_string_lossy()
            .into_owned(),
    };
    let mut o = OpenApi::load(&location).await.map_err(fail)?;
    if let Some(b) = &api.base {
        o = o.base_url(b);
    }
    let mut selection = Selection::new();
    for r in &api.include {
        selection = selection.include(rule(r));
    }
    for r in &api.exclude {
        selection = selection.exclude(rule(r));
    }
    o = o.select(selection);
    for c in &api.auth {
        o = o.auth(match c {
            Credential::Bearer(t) => Auth::bearer(t),
            Credential::Basic { user, password } => Auth::basic(user, password),
            Credential::ApiKey { place, name, value } => {
                let place = match place.as_str() {
                    "query" => ApiKeyIn::Query,
                    "cookie" => ApiKeyIn::Cookie,
                    _ => ApiKeyIn::Header,
                };
                Auth::api_key(place, name, value)
            }
        });
    }
    for (k, v) in &api.headers {
        o = o.header(k, v);
    }
    if let Some(t) = u.timeout {
        o = o.timeout(t);
    }
    o.build().map(Arc::new).map_err(fail)
}

fn rule(r: &config::Rule) -> openapi::Rule {
    let mut out = openapi::Rule::default();
    for p in &r.paths {
        out = out.or_path(p);
    }
    for m in &r.methods {
        out = out.or_method(m);
    }
    for t in &r.tags {
        out = out.or_tag(t);
    }
    for id in &r.operation_ids {
        out = out.or_operation_id(id);
    }
    out
}

/// The name a tool is served as.
fn shown(name: &str, under: Option<&(String, String)>) -> String {
    match under {
        Some((ns, sep)) => format!("{ns}{sep}{name}"),
        None => name.to_owned(),
    }
}

/// Adds the API's tools to `server`'s table (under `(namespace, separator)` when given).
pub fn attach(
    server: &super::GatewayServer,
    tools: &Arc<OpenApiTools>,
    under: Option<&(String, String)>,
) -> Result<(), HandleError> {
    server
        .handle()
        .update(|r| {
            for t in tools.tools() {
                let mut tool = t.clone();
                tool.name = shown(&t.name, under);
                let (tools, name) = (tools.clone(), t.name.clone());
                r.add_tool(tool, move |_ctx, args| {
                    let (tools, name) = (tools.clone(), name.clone());
                    async move { Ok(call(&tools, &name, args.as_deref()).await) }
                });
            }
        })
        .map(|_| ())
}

/// Takes the API's tools out of `server`'s table.
pub fn detach(
    server: &super::GatewayServer,
    tools: &OpenApiTools,
    under: Option<&(String, String)>,
) {
    let removed = server.handle().update(|r| {
        for t in tools.tools() {
            r.remove_tool(&shown(&t.name, under));
        }
    });
    if let Err(e) = removed {
        eprintln!("mcp gateway: an API's tools could not be taken out: {e}");
    }
}

async fn call(
    tools: &OpenApiTools,
    name: &str,
    args: Option<&serde_json::value::RawValue>,
) -> mcp_core::types::CallToolResult {
    use mcp_core::types::CallToolResult;
    let args = match args.map(|a| serde_json::from_str::<Value>(a.get())) {
        None | Some(Ok(Value::Null)) => Map::new(),
        Some(Ok(Value::Object(m))) => m,
        Some(_) => return CallToolResult::error("the arguments must be an object"),
    };
    match tools.call(name, args).await {
        Some(r) => r,
        None => CallToolResult::error(format!("no tool `{name}`")),
    }
}
