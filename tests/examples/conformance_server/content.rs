//! Fixtures of the content scenarios: tools returning image, audio, embedded-resource and
//! mixed content, a binary resource, a resource template, prompts with arguments, an
//! embedded resource and an image, and a tool whose input schema uses JSON Schema 2020-12
//! keywords that must reach the client untouched.

use mcp::__private::match_template;
use mcp::ServerBuilder;
use mcp::prelude::*;
use mcp_core::types::{PromptArgument, Resource, ResourceContents, ResourceTemplate, Role};
use serde_json::json;

/// A 1x1 red pixel, PNG, base64.
const RED_PIXEL_PNG: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// Eight samples of 8-bit mono silence at 8 kHz, WAV, base64.
const SILENCE_WAV: &str =
    "UklGRiwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YQgAAACAgICAgICAgA==";

const TEMPLATE: &str = "test://template/{id}/data";

#[derive(serde::Deserialize)]
struct NoArgs {}

fn no_args_tool(name: &str, description: &str) -> Tool {
    Tool::new(name)
        .with_description(description)
        .with_input_schema(json!({"type": "object", "properties": {}}))
}

fn ok(content: Vec<ContentBlock>) -> Result<CallToolResult, McpError> {
    Ok(CallToolResult::success(content))
}

fn user(content: ContentBlock) -> PromptMessage {
    PromptMessage {
        role: Role::User,
        content,
    }
}

fn argument(name: &str, description: &str) -> PromptArgument {
    PromptArgument {
        description: Some(description.into()),
        required: Some(true),
        name: name.into(),
        title: None,
    }
}

/// The input schema of `json_schema_2020_12_tool`: `$schema`, `$defs` with `$anchor`, a
/// `$ref`, composition and conditional keywords, `additionalProperties: false`.
fn schema_2020_12() -> serde_json::Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

/// Adds the content scenarios' tools, resources and prompts.
pub fn install(builder: ServerBuilder) -> ServerBuilder {
    tools(builder).registry(|r| {
        resources(r);
        prompts(r);
    })
}

fn tools(builder: ServerBuilder) -> ServerBuilder {
    builder
        .tool(
            no_args_tool("test_image_content", "Returns an image"),
            |_ctx, _: NoArgs| async { ok(vec![ContentBlock::image(RED_PIXEL_PNG, "image/png")]) },
        )
        .tool(
            no_args_tool("test_audio_content", "Returns audio"),
            |_ctx, _: NoArgs| async { ok(vec![ContentBlock::audio(SILENCE_WAV, "audio/wav")]) },
        )
        .tool(
            no_args_tool("test_embedded_resource", "Returns an embedded resource"),
            |_ctx, _: NoArgs| async {
                ok(vec![ContentBlock::resource(
                    ResourceContents::text(
                        "test://embedded-resource",
                        "This is an embedded resource content.",
                    )
                    .with_mime_type("text/plain"),
                )])
            },
        )
        .tool(
            no_args_tool(
                "test_multiple_content_types",
                "Returns text, an image and an embedded resource",
            ),
            |_ctx, _: NoArgs| async {
                ok(vec![
                    ContentBlock::text("Multiple content types test:"),
                    ContentBlock::image(RED_PIXEL_PNG, "image/png"),
                    ContentBlock::resource(
                        ResourceContents::text(
                            "test://mixed-content-resource",
                            r#"{"test":"data","value":123}"#,
                        )
                        .with_mime_type("application/json"),
                    ),
                ])
            },
        )
        .tool_with_schema(
            Tool::new("json_schema_2020_12_tool")
                .with_description("Its input schema uses JSON Schema 2020-12 keywords")
                .with_input_schema(schema_2020_12()),
            |_ctx, _args| async { ok(vec![ContentBlock::text("Schema accepted")]) },
        )
}

fn resources(r: &mut mcp::Registry) {
    r.add_resource(
        Resource {
            description: Some("A static binary resource (a PNG image)".into()),
            mime_type: Some("image/png".into()),
            ..Resource::new("test://static-binary", "static-binary")
        },
        |_ctx, uri| async move {
            let blob = ResourceContents::Blob(mcp_core::types::BlobResourceContents {
                uri,
                mime_type: Some("image/png".into()),
                blob: RED_PIXEL_PNG.into(),
                meta: None,
            });
            Ok(ReadResourceResult {
                contents: vec![blob],
                ..Default::default()
            })
        },
    );
    r.add_template(
        ResourceTemplate {
            description: Some("Data for one id".into()),
            mime_type: Some("application/json".into()),
            ..ResourceTemplate::new(TEMPLATE, "template-data")
        },
        |_ctx, uri| async move {
            // A URI this template does not match gets empty contents, which the dispatcher
            // answers with the revision's not-found error.
            let Some(vars) = match_template(TEMPLATE, &uri) else {
                return Ok(ReadResourceResult::default());
            };
            let id = &vars[0];
            let text =
                json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")});
            Ok(ReadResourceResult {
                contents: vec![
                    ResourceContents::text(uri, text.to_string())
                        .with_mime_type("application/json"),
                ],
                ..Default::default()
            })
        },
    );
}

fn prompts(r: &mut mcp::Registry) {
    r.add_prompt(
        mcp_core::types::Prompt {
            description: Some("A prompt with two required arguments".into()),
            arguments: Some(vec![
                argument("arg1", "First test argument"),
                argument("arg2", "Second test argument"),
            ]),
            ..mcp_core::types::Prompt::new("test_prompt_with_arguments")
        },
        |_ctx, args| async move {
            let (Some(a1), Some(a2)) = (args.get("arg1"), args.get("arg2")) else {
                return Err(McpError::invalid_params(
                    "arg1 and arg2 are required arguments",
                ));
            };
            Ok(GetPromptResult {
                messages: vec![PromptMessage::user(format!(
                    "Prompt with arguments: arg1='{a1}', arg2='{a2}'"
                ))],
                ..Default::default()
            })
        },
    );
    r.add_prompt(
        mcp_core::types::Prompt {
            description: Some("A prompt embedding the resource it is given".into()),
            arguments: Some(vec![argument(
                "resourceUri",
                "URI of the resource to embed",
            )]),
            ..mcp_core::types::Prompt::new("test_prompt_with_embedded_resource")
        },
        |_ctx, args| async move {
            let Some(uri) = args.get("resourceUri") else {
                return Err(McpError::invalid_params(
                    "resourceUri is a required argument",
                ));
            };
            Ok(GetPromptResult {
                messages: vec![
                    user(ContentBlock::resource(
                        ResourceContents::text(
                            uri.clone(),
                            "Embedded resource content for testing.",
                        )
                        .with_mime_type("text/plain"),
                    )),
                    PromptMessage::user("Please process the embedded resource above."),
                ],
                ..Default::default()
            })
        },
    );
    r.add_prompt(
        mcp_core::types::Prompt {
            description: Some("A prompt with an image".into()),
            ..mcp_core::types::Prompt::new("test_prompt_with_image")
        },
        |_ctx, _args| async {
            Ok(GetPromptResult {
                messages: vec![
                    user(ContentBlock::image(RED_PIXEL_PNG, "image/png")),
                    PromptMessage::user("Please analyze the image above."),
                ],
                ..Default::default()
            })
        },
    );
}
