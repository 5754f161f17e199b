//! Chosen `GET`s served as resources instead of tools ([`OpenApi::resources`]): one whose
//! only required parameters are in the path is a resource template whose URI template is
//! the request's URL (`{base}/pets/{pet_id}`: OpenAPI's path templates are RFC 6570 simple
//! expressions), one with none a resource at its URL. Reading it sends the `GET` (optional
//! parameters left out); the answer's body is the text, its `Content-Type` the MIME type.
//! A `404` is the protocol's resource-not-found error; any other failure an internal error
//! whose message has the status and body (a resource read has no `isError`).
//!
//! [`OpenApi::resources`]: super::OpenApi::resources

use std::sync::Arc;

use mcp_core::jsonrpc::INTERNAL_ERROR;
use mcp_core::types::{ReadResourceResult, Resource, ResourceContents, ResourceTemplate};
use serde_json::{Map, Value};

use super::operation::{In, Operation};
use super::request::Caller;
use crate::common::error::McpError;
use crate::handler::Registry;
use crate::handler::resource_def::{match_template, template_variables};

/// Whether `op` can be read as a resource: a `GET` with no body whose required arguments
/// are all path parameters.
pub(super) fn readable(op: &Operation) -> bool {
    let plan = &op.plan;
    plan.method == "GET"
        && plan.body.is_none()
        && plan
            .required
            .iter()
            .all(|r| plan.params.iter().any(|p| p.arg == *r && p.at == In::Path))
}

/// Registers `op` as a resource or template under `base`.
pub(super) fn install(registry: &mut Registry, caller: &Arc<Caller>, op: &Arc<Operation>) {
    let uri = format!("{}{}", caller.base, op.plan.path);
    let mime = op.plan.structured.then(|| "application/json".to_owned());
    let t = &op.tool;
    let (caller, op2) = (caller.clone(), op.clone());
    if op.plan.path.contains('{') {
        let mut template = ResourceTemplate::new(&uri, &t.name);
        template.title = t.title.clone();
        template.description = t.description.clone();
        template.mime_type = mime;
        template.meta = t.meta.clone();
        let pattern = uri.clone();
        registry.add_template(template, move |_ctx, uri| {
            let (caller, op, pattern) = (caller.clone(), op2.clone(), pattern.clone());
            async move { read(&caller, &op, Some(&pattern), uri).await }
        });
    } else {
        let mut resource = Resource::new(&uri, &t.name);
        resource.title = t.title.clone();
        resource.description = t.description.clone();
        resource.mime_type = mime;
        resource.meta = t.meta.clone();
        registry.add_resource(resource, move |_ctx, uri| {
            let (caller, op) = (caller.clone(), op2.clone());
            async move { read(&caller, &op, None, uri).await }
        });
    }
}

async fn read(
    caller: &Caller,
    op: &Operation,
    pattern: Option<&str>,
    uri: String,
) -> Result<ReadResourceResult, McpError> {
    let mut args = Map::new();
    if let Some(pattern) = pattern {
        let values =
            match_template(pattern, &uri).ok_or_else(|| McpError::resource_not_found(&uri))?;
        for (name, value) in template_variables(pattern).into_iter().zip(values) {
            if let Some(p) = op
                .plan
                .params
                .iter()
                .find(|p| p.at == In::Path && p.name == name)
            {
                args.insert(p.arg.clone(), Value::String(value));
            }
        }
    }
    let a = caller
        .fetch(&op.plan, &args)
        .await
        .map_err(|e| McpError::protocol(INTERNAL_ERROR, e))?;
    let text = String::from_utf8_lossy(&a.body).into_owned();
    if a.status == hyper::StatusCode::NOT_FOUND {
        return Err(McpError::resource_not_found(&uri));
    }
    if !a.status.is_success() {
        return Err(McpError::protocol(
            INTERNAL_ERROR,
            format!("{}: HTTP {}: {text}", a.what, a.status),
        ));
    }
    let media = a
        .media
        .split(';')
        .next()
        .unwrap_or_default()
        .trim()
        .to_owned();
    let mut contents = ResourceContents::text(&uri, text);
    if let ResourceContents::Text(t) = &mut contents
        && !media.is_empty()
    {
        t.mime_type = Some(media);
    }
    Ok(ReadResourceResult {
        contents: vec![contents],
        ..Default::default()
    })
}
