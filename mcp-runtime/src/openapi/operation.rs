//! One operation as a tool: its name, description, annotations, input and output schemas,
//! and the [`Plan`] that turns a call's arguments back into the HTTP request.
//!
//! Arguments: every parameter (path, query, header, cookie; the path item's and the
//! operation's, the operation's winning for the same name and place) is an argument of
//! its own name. A JSON (or form) request body that is an object with `properties` is
//! spread: each property is an argument. Any other body (an array, a scalar, a schema
//! built with `allOf`/`oneOf`, a non-JSON media type) is the one argument `body`. When a
//! name is taken more than once among the parameters and the body's arguments, each
//! *parameter* of that name is renamed `<in>_<name>` (`path_id`, `query_id`,
//! `header_id`, `cookie_id`; the body keeps its names), and a clash that is left gets
//! `_2`, `_3`, ... in document order.

use std::collections::HashMap;

use mcp_core::types::{Meta, Tool, ToolAnnotations};
use serde_json::{Map, Value};

use super::document::{Document, escape};
use super::error::OpenApiError;
use super::schema::{Converter, Direction};
use crate::handler::make_portable;

/// The methods an OpenAPI path item may hold, in the order tools are listed.
pub(super) const METHODS: &[&str] = &[
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Where a parameter goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum In {
    Path,
    Query,
    Header,
    Cookie,
}

impl In {
    fn parse(s: &str) -> Option<In> {
        Some(match s {
            "path" => In::Path,
            "query" => In::Query,
            "header" => In::Header,
            "cookie" => In::Cookie,
            _ => return None,
        })
    }

    fn word(self) -> &'static str {
        match self {
            In::Path => "path",
            In::Query => "query",
            In::Header => "header",
            In::Cookie => "cookie",
        }
    }
}

/// One parameter: the argument it is read from and how it is written.
#[derive(Debug, Clone)]
pub(super) struct Param {
    pub(super) arg: String,
    pub(super) name: String,
    pub(super) at: In,
    /// `explode` (arrays and objects as repeated `name=value` in the query).
    pub(super) explode: bool,
    /// `style: deepObject` (`name[key]=value`).
    pub(super) deep: bool,
}

/// The request body.
#[derive(Debug, Clone)]
pub(super) enum Body {
    /// These arguments (named as the body's properties) make the object sent.
    Spread { media: String, props: Vec<String> },
    /// The argument `arg` is the body.
    Whole { media: String, arg: String },
}

/// How a call's arguments become the request.
#[derive(Debug, Clone)]
pub(super) struct Plan {
    /// Upper case.
    pub(super) method: String,
    /// The path template (`/pets/{petId}`).
    pub(super) path: String,
    pub(super) params: Vec<Param>,
    pub(super) body: Option<Body>,
    /// The arguments a call must give.
    pub(super) required: Vec<String>,
    /// The success answer is declared JSON with a schema: results carry it structured.
    pub(super) structured: bool,
}

/// A tool and its plan.
#[derive(Debug, Clone)]
pub(super) struct Operation {
    pub(super) tool: Tool,
    pub(super) plan: Plan,
}

/// The tool name of an operation without a usable `operationId`: the method and the path's
/// segments joined by `_`, braces and other characters outside `A-Z a-z 0-9 _ - .` made
/// `_` (`GET /pets/{petId}` is `get_pets_petId`).
pub(super) fn fallback_name(method: &str, path: &str) -> String {
    sanitize(&format!("{method}_{path}"))
}

/// A tool name from any text: characters outside `A-Z a-z 0-9 _ - .` become `_`, runs of
/// `_` one, none at either end, at most 128 bytes.
pub(super) fn sanitize(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        let c = if c.is_ascii_alphanumeric() || matches!(c, '-' | '.') {
            c
        } else {
            '_'
        };
        if !(c == '_' && (out.is_empty() || out.ends_with('_'))) {
            out.push(c);
        }
    }
    let mut out = out.trim_end_matches('_').to_owned();
    out.truncate(128);
    out
}

/// Builds the operation `method` of the path item at `path`.
pub(super) fn build(
    doc: &Document,
    path: &str,
    item: &Value,
    method: &str,
    op: &Value,
) -> Result<Operation, OpenApiError> {
    let at = format!("#/paths/{}/{method}", escape(path));
    let text = |k: &str| op.get(k).and_then(Value::as_str).map(str::to_owned);
    let (summary, description) = (text("summary"), text("description"));
    let operation_id = text("operationId");
    let name = operation_id
        .as_deref()
        .map(sanitize)
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| fallback_name(method, path));
    let tags: Vec<String> = op
        .get("tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect();

    let mut input = Converter::new(doc, Direction::Input);
    let params = parameters(doc, path, item, op, &at, &mut input)?;
    let body = request_body(doc, op, &at, &mut input)?;
    let (schema, plan_params, body, required) = merge(params, body);
    let mut input_schema = schema;
    let defs = input.take_defs();
    if !defs.is_empty() {
        input_schema.insert("$defs".into(), Value::Object(defs));
    }
    make_portable(&mut input_schema, true);

    let output = output_schema(doc, op, &at)?;
    let mut tool = Tool::new(name);
    tool.title = summary.clone();
    tool.description = Some(match (summary, description) {
        (Some(s), Some(d)) if !d.trim().is_empty() => format!("{s}\n\n{d}"),
        (Some(s), _) => s,
        (None, Some(d)) => d,
        (None, None) => format!("{} {path}", method.to_ascii_uppercase()),
    });
    tool.input_schema = input_schema;
    tool.annotations = Some(annotations(method));
    if !tags.is_empty() {
        tool = tool.with_tags(tags);
    }
    let structured = output.is_some();
    tool.output_schema = output;
    Ok(Operation {
        tool,
        plan: Plan {
            method: method.to_ascii_uppercase(),
            path: path.to_owned(),
            params: plan_params,
            body,
            required,
            structured,
        },
    })
}

/// GET, HEAD and OPTIONS read only and idempotent; PUT idempotent; DELETE destructive and
/// idempotent; POST and PATCH neither. Every call reaches an outside system: open world.
fn annotations(method: &str) -> ToolAnnotations {
    let mut a = ToolAnnotations {
        open_world_hint: Some(true),
        read_only_hint: Some(false),
        ..Default::default()
    };
    match method {
        "get" | "head" | "options" | "trace" => {
            a.read_only_hint = Some(true);
            a.idempotent_hint = Some(true);
        }
        "put" => {
            a.idempotent_hint = Some(true);
            a.destructive_hint = Some(false);
        }
        "delete" => {
            a.destructive_hint = Some(true);
            a.idempotent_hint = Some(true);
        }
        _ => a.destructive_hint = Some(false),
    }
    a
}

/// A parameter read from the document, its schema converted.
struct ParamSpec {
    name: String,
    at: In,
    required: bool,
    schema: Value,
    explode: bool,
    deep: bool,
}

fn parameters(
    doc: &Document,
    path: &str,
    item: &Value,
    op: &Value,
    at: &str,
    conv: &mut Converter<'_>,
) -> Result<Vec<ParamSpec>, OpenApiError> {
    let item_at = format!("#/paths/{}", escape(path));
    let mut out: Vec<ParamSpec> = Vec::new();
    for (list, list_at) in [(item, item_at.as_str()), (op, at)] {
        let Some(list) = list.get("parameters") else {
            continue;
        };
        let Some(list) = list.as_array() else {
            return Err(doc.error(&format!("{list_at}/parameters"), "not an array"));
        };
        for (i, p) in list.iter().enumerate() {
            let here = format!("{list_at}/parameters/{i}");
            let spec = parameter(doc, p, &here, conv)?;
            // Header parameters the HTTP layer owns are ignored, as the specification says.
            if spec.at == In::Header
                && ["accept", "content-type", "authorization"]
                    .contains(&spec.name.to_ascii_lowercase().as_str())
            {
                continue;
            }
            out.retain(|o| !(o.name == spec.name && o.at == spec.at));
            out.push(spec);
        }
    }
    Ok(out)
}

fn parameter(
    doc: &Document,
    p: &Value,
    here: &str,
    conv: &mut Converter<'_>,
) -> Result<ParamSpec, OpenApiError> {
    let (p, place) = doc.follow(p, here)?;
    let name = p
        .get("name")
        .and_then(Value::as_str)
        .ok_or_else(|| doc.error(&place, "a parameter without a `name`"))?;
    let where_ = p.get("in").and_then(Value::as_str).unwrap_or_default();
    let at = In::parse(where_)
        .ok_or_else(|| doc.error(&place, format!("parameter `in: {where_}` is not a place")))?;
    let style = p.get("style").and_then(Value::as_str);
    let explode = p
        .get("explode")
        .and_then(Value::as_bool)
        .unwrap_or(matches!(at, In::Query | In::Cookie) && style.is_none_or(|s| s == "form"));
    let raw_schema = p.get("schema").cloned().or_else(|| {
        p.get("content")
            .and_then(Value::as_object)
            .and_then(|c| c.values().next())
            .and_then(|m| m.get("schema").cloned())
    });
    let mut schema = match raw_schema {
        Some(s) => conv.convert(&s, &format!("{place}/schema"))?,
        None => serde_json::json!({"type": "string"}),
    };
    if let (Value::Object(m), Some(d)) = (&mut schema, p.get("description"))
        && !m.contains_key("description")
    {
        m.insert("description".into(), d.clone());
    }
    Ok(ParamSpec {
        name: name.to_owned(),
        at,
        required: at == In::Path || p.get("required") == Some(&Value::Bool(true)),
        schema,
        explode,
        deep: style == Some("deepObject"),
    })
}

/// The request body read from the document.
struct BodySpec {
    media: String,
    required: bool,
    schema: Value,
}

fn request_body(
    doc: &Document,
    op: &Value,
    at: &str,
    conv: &mut Converter<'_>,
) -> Result<Option<BodySpec>, OpenApiError> {
    let Some(b) = op.get("requestBody") else {
        return Ok(None);
    };
    let (b, place) = doc.follow(b, &format!("{at}/requestBody"))?;
    let Some(content) = b.get("content").and_then(Value::as_object) else {
        return Ok(None);
    };
    let chosen = content
        .iter()
        .find(|(k, _)| is_json(k))
        .or_else(|| {
            content
                .iter()
                .find(|(k, _)| k.starts_with("application/x-www-form-urlencoded"))
        })
        .or_else(|| content.iter().next());
    let Some((media, m)) = chosen else {
        return Ok(None);
    };
    let structured = is_json(media) || media.starts_with("application/x-www-form-urlencoded");
    let schema = match m.get("schema") {
        Some(s) if structured => {
            conv.convert(s, &format!("{place}/content/{}/schema", escape(media)))?
        }
        _ => serde_json::json!({"type": "string", "description": format!("The body, as {media}.")}),
    };
    Ok(Some(BodySpec {
        media: media.clone(),
        required: b.get("required") == Some(&Value::Bool(true)),
        schema,
    }))
}

/// `application/json`, `application/problem+json`, `application/json; charset=utf-8`.
pub(super) fn is_json(media: &str) -> bool {
    let base = media.split(';').next().unwrap_or_default().trim();
    base == "application/json" || base.ends_with("+json") || base == "*/*"
}

/// The body's properties, if it is an object described by them alone.
fn spreadable(schema: &Value) -> Option<&Map<String, Value>> {
    let m = schema.as_object()?;
    let composed = ["allOf", "anyOf", "oneOf", "$ref", "not", "if"]
        .iter()
        .any(|k| m.contains_key(*k));
    let object = m.get("type").is_none_or(|t| t == "object");
    if composed || !object {
        return None;
    }
    m.get("properties")?.as_object()
}

type Merged = (Meta, Vec<Param>, Option<Body>, Vec<String>);

/// One input schema of the parameters and the body, names made distinct (module doc).
fn merge(params: Vec<ParamSpec>, body: Option<BodySpec>) -> Merged {
    let mut body_args: Vec<(String, Value, bool)> = Vec::new();
    let plan_body = body.map(|b| match spreadable(&b.schema) {
        Some(props) => {
            let required: Vec<&str> = b
                .schema
                .get("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            for (k, s) in props {
                body_args.push((
                    k.clone(),
                    s.clone(),
                    b.required && required.contains(&k.as_str()),
                ));
            }
            Body::Spread {
                media: b.media,
                props: props.keys().cloned().collect(),
            }
        }
        None => {
            body_args.push(("body".into(), b.schema, b.required));
            Body::Whole {
                media: b.media,
                arg: "body".into(),
            }
        }
    });
    let mut count: HashMap<&str, usize> = HashMap::new();
    for n in params
        .iter()
        .map(|p| p.name.as_str())
        .chain(body_args.iter().map(|b| b.0.as_str()))
    {
        *count.entry(n).or_default() += 1;
    }
    let mut taken: Vec<String> = body_args.iter().map(|b| b.0.clone()).collect();
    let mut props = Map::new();
    let mut required = Vec::new();
    let mut plan_params = Vec::new();
    for p in &params {
        let mut arg = if count[p.name.as_str()] > 1 {
            format!("{}_{}", p.at.word(), p.name)
        } else {
            p.name.clone()
        };
        let base = arg.clone();
        let mut n = 2;
        while taken.contains(&arg) {
            arg = format!("{base}_{n}");
            n += 1;
        }
        taken.push(arg.clone());
        props.insert(arg.clone(), p.schema.clone());
        if p.required {
            required.push(arg.clone());
        }
        plan_params.push(Param {
            arg,
            name: p.name.clone(),
            at: p.at,
            explode: p.explode,
            deep: p.deep,
        });
    }
    for (k, s, req) in body_args {
        if req {
            required.push(k.clone());
        }
        props.insert(k, s);
    }
    let mut schema = Meta::new();
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(props));
    if !required.is_empty() {
        schema.insert("required".into(), Value::from(required.clone()));
    }
    (schema, plan_params, plan_body, required)
}

/// The JSON schema of the first success answer (`200`, `201`, ... then `2XX`), if it has one.
fn output_schema(doc: &Document, op: &Value, at: &str) -> Result<Option<Meta>, OpenApiError> {
    let Some(responses) = op.get("responses").and_then(Value::as_object) else {
        return Ok(None);
    };
    let mut codes: Vec<&String> = responses
        .keys()
        .filter(|k| k.len() == 3 && k.starts_with('2'))
        .collect();
    codes.sort_by_key(|k| (k.as_str() == "2XX" || k.as_str() == "2xx", k.to_string()));
    let Some(code) = codes.first() else {
        return Ok(None);
    };
    let here = format!("{at}/responses/{code}");
    let (r, place) = doc.follow(&responses[code.as_str()], &here)?;
    let Some((media, m)) = r
        .get("content")
        .and_then(Value::as_object)
        .and_then(|c| c.iter().find(|(k, _)| is_json(k)))
    else {
        return Ok(None);
    };
    let Some(s) = m.get("schema") else {
        return Ok(None);
    };
    let mut conv = Converter::new(doc, Direction::Output);
    let converted = conv.convert(s, &format!("{place}/content/{}/schema", escape(media)))?;
    let Value::Object(mut schema) = converted else {
        return Ok(None);
    };
    if schema.is_empty() {
        return Ok(None);
    }
    let defs = conv.take_defs();
    if !defs.is_empty() {
        schema.insert("$defs".into(), Value::Object(defs));
    }
    make_portable(&mut schema, false);
    Ok(Some(schema))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_fall_back_to_method_and_path() {
        assert_eq!(fallback_name("get", "/pets/{petId}"), "get_pets_petId");
        assert_eq!(fallback_name("post", "/"), "post");
        assert_eq!(sanitize("list pets!"), "list_pets");
    }

    #[test]
    fn parameters_sharing_a_name_with_the_body_are_renamed_by_place() {
        let doc = Document::from_value(
            json!({"openapi": "3.1.0", "paths": {"/items/{id}": {
                "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "integer"}}],
                "put": {
                    "operationId": "update item",
                    "parameters": [{"name": "id", "in": "query", "schema": {"type": "string"}},
                                   {"name": "X-Trace", "in": "header", "required": true}],
                    "requestBody": {"required": true, "content": {"application/json": {"schema": {
                        "type": "object", "required": ["id"],
                        "properties": {"id": {"type": "string"}, "name": {"type": "string"}}}}}},
                    "responses": {"200": {"description": "ok"}}}}}}),
            "d",
        )
        .unwrap();
        let item = &doc.value()["paths"]["/items/{id}"];
        let op = build(&doc, "/items/{id}", item, "put", &item["put"]).unwrap();
        assert_eq!(op.tool.name, "update_item");
        let props = op.tool.input_schema["properties"].as_object().unwrap();
        let mut names: Vec<&str> = props.keys().map(String::as_str).collect();
        names.sort_unstable();
        assert_eq!(names, ["X-Trace", "id", "name", "path_id", "query_id"]);
        assert_eq!(
            op.tool.input_schema["required"],
            json!(["path_id", "X-Trace", "id"])
        );
        let a = op.tool.annotations.unwrap();
        assert_eq!(a.idempotent_hint, Some(true));
        assert_eq!(a.read_only_hint, Some(false));
        assert!(op.tool.output_schema.is_none());
    }
}
