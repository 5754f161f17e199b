//! How the dispatcher serves a [`SkillSet`]: the three extension methods, and the skill
//! files inside `resources/list` and `resources/read`.

use std::borrow::Cow;

use mcp_core::jsonrpc::ErrorObject;
use mcp_core::types::{
    GetSkillParams, GetSkillResult, ListSkillsResult, ReadResourceDirectoryParams,
    ReadResourceDirectoryResult, ReadResourceResult, Resource,
};
use mcp_core::version::{Era, ProtocolVersion};
use serde_json::value::RawValue;

use super::{SCHEME, SkillSet};
use crate::common::error::resource_not_found;
use crate::common::error::{HandlerResult, McpError};
use crate::features::host::Host;

/// Answers `skills/list`, `skills/get` or `resources/directory/read`.
pub(crate) fn handle<D: Host>(
    d: &D,
    skills: &SkillSet,
    method: &str,
    params: Option<&RawValue>,
    version: Option<ProtocolVersion>,
) -> HandlerResult {
    match method {
        "skills/list" => {
            let (page, next_cursor) = d.page(skills.skills(), params)?;
            d.shape(
                ListSkillsResult {
                    skills: page,
                    next_cursor,
                    ..Default::default()
                },
                version,
            )
        }
        "skills/get" => {
            let p: GetSkillParams = parse(params)?;
            match skills.get(&p.uri) {
                Some(skill) => d.shape(GetSkillResult::new(skill.clone()), version),
                None => Err(McpError::invalid_params(format!(
                    "No skill is served at {}",
                    p.uri
                ))),
            }
        }
        "resources/directory/read" if skills.serves_directory_read() => {
            let p: ReadResourceDirectoryParams = parse(params)?;
            let children = skills
                .read_directory(&p.uri)
                .map_err(|e| McpError::invalid_params(e.to_string()))?
                .ok_or_else(|| {
                    McpError::invalid_params(format!("{} is not a directory resource", p.uri))
                })?;
            let (resources, next_cursor) = d.page(&children, params)?;
            d.shape(
                ReadResourceDirectoryResult {
                    resources,
                    next_cursor,
                    ..Default::default()
                },
                version,
            )
        }
        other => Err(ErrorObject::method_not_found(other).into()),
    }
}

/// `resources/read` of a `skill://` URI; `None` for other URIs (the handler reads those).
pub(crate) fn read(
    skills: &SkillSet,
    uri: &str,
    era: Era,
) -> Option<Result<ReadResourceResult, McpError>> {
    if !uri.starts_with(SCHEME) {
        return None;
    }
    Some(match skills.read(uri) {
        Ok(Some(contents)) => Ok(ReadResourceResult {
            contents: vec![contents],
            ..Default::default()
        }),
        Ok(None) => Err(resource_not_found(uri, era)),
        Err(escape) => Err(McpError::invalid_params(escape.to_string())),
    })
}

/// The `resources/list` entries: the handler's, then each skill's `SKILL.md`.
pub(crate) fn listing<'a>(base: &'a [Resource], skills: Option<&SkillSet>) -> Cow<'a, [Resource]> {
    match skills {
        Some(s) if !s.listed_resources().is_empty() => {
            Cow::Owned([base, s.listed_resources()].concat())
        }
        _ => Cow::Borrowed(base),
    }
}

fn parse<T: serde::de::DeserializeOwned>(params: Option<&RawValue>) -> Result<T, McpError> {
    serde_json::from_str(params.map_or("{}", RawValue::get))
        .map_err(|_| McpError::invalid_params("Invalid params"))
}
