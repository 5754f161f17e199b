//! Content blocks: what tool results, prompt messages and sampling messages carry.
//!
//! The block structs ([`TextContent`], [`ImageContent`], ...) hold no `type` field: the
//! discriminator belongs to the enum that holds them ([`ContentBlock`] here, the sampling
//! content enum elsewhere), which is `#[serde(tag = "type")]`.
//!
//! # Blocks a revision lacks
//!
//! [`ContentBlock::adapt`] converts a block the target revision does not define into the
//! closest block it does define, so nothing a revision's schema rejects is ever emitted:
//!
//! | Block | Missing before | Becomes |
//! | --- | --- | --- |
//! | `audio` | 2025-03-26 | a `text` block naming the audio (`[audio: audio/wav, 4096 base64 characters omitted]`), annotations kept |
//! | `resource_link` | 2025-06-18 | a `text` block naming the link (`[resource link: main.rs <file:///main.rs>]`, plus description/MIME type), annotations kept |
//!
//! A text block is the only block every revision defines that can describe the original
//! without inventing data: an embedded resource would claim to carry the contents of the
//! linked resource, and a `data:` URI would duplicate the audio bytes.

use base64::Engine as _;
use serde::{Deserialize, Deserializer, Serialize};

use super::{Adapt, Annotations, Meta, Resource, since};
use crate::version::ProtocolVersion;

/// Deserializes an optional JSON value keeping an explicit `null` as `Some(Value::Null)`.
pub(crate) fn some_value<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<serde_json::Value>, D::Error> {
    serde_json::Value::deserialize(d).map(Some)
}

/// Text provided to or from a model (`type: "text"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl TextContent {
    /// A text block without annotations.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

impl Adapt for TextContent {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.annotations.adapt(rev);
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

/// An image, base64-encoded (`type: "image"`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImageContent {
    /// Base64-encoded image data.
    pub data: String,
    /// The image's MIME type, e.g. `image/png`.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ImageContent {
    /// An image from already base64-encoded data.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Self::default()
        }
    }

    /// An image from raw bytes (encoded here with standard padded base64).
    pub fn from_bytes(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self::new(
            base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type,
        )
    }
}

impl Adapt for ImageContent {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.annotations.adapt(rev);
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

/// Audio, base64-encoded (`type: "audio"`, 2025-03-26+).
///
/// Inside a [`ContentBlock`] shaped for 2024-11-05 it becomes a text block (see the module
/// documentation).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudioContent {
    /// Base64-encoded audio data.
    pub data: String,
    /// The audio's MIME type, e.g. `audio/wav`.
    pub mime_type: String,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl AudioContent {
    /// Audio from already base64-encoded data.
    pub fn new(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self {
            data: data.into(),
            mime_type: mime_type.into(),
            ..Self::default()
        }
    }

    /// Audio from raw bytes (encoded here with standard padded base64).
    pub fn from_bytes(bytes: &[u8], mime_type: impl Into<String>) -> Self {
        Self::new(
            base64::engine::general_purpose::STANDARD.encode(bytes),
            mime_type,
        )
    }

    /// The text block that stands for this audio where a revision has no audio block.
    pub fn to_text_fallback(&self) -> TextContent {
        TextContent {
            text: format!(
                "[audio: {}, {} base64 characters omitted]",
                self.mime_type,
                self.data.len()
            ),
            annotations: self.annotations.clone(),
            meta: self.meta.clone(),
        }
    }
}

impl Adapt for AudioContent {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.annotations.adapt(rev);
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

/// A link to a resource the server can read (`type: "resource_link"`, 2025-06-18+).
///
/// It has exactly the fields of a [`Resource`]. Inside a [`ContentBlock`] shaped for a
/// revision before 2025-06-18 it becomes a text block (see the module documentation).
pub type ResourceLink = Resource;

/// The text block that stands for a resource link where a revision has no `resource_link`.
pub fn resource_link_text_fallback(link: &ResourceLink) -> TextContent {
    let mut text = format!(
        "[resource link: {}",
        link.title.as_deref().unwrap_or(&link.name)
    );
    text.push_str(&format!(" <{}>", link.uri));
    if let Some(mime) = &link.mime_type {
        text.push_str(&format!(" ({mime})"));
    }
    text.push(']');
    if let Some(d) = &link.description {
        text.push('\n');
        text.push_str(d);
    }
    TextContent {
        text,
        annotations: link.annotations.clone(),
        meta: link.meta.clone(),
    }
}

/// The text contents of a resource.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TextResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Adapt for TextResourceContents {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

/// The binary contents of a resource, base64-encoded.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// The MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Base64-encoded bytes.
    pub blob: String,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Adapt for BlobResourceContents {
    fn adapt(&mut self, rev: ProtocolVersion) {
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

/// The contents of a resource: text or blob, told apart by which of `text` / `blob` is
/// present (an object with both reads as text).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ResourceContents {
    /// Text contents.
    Text(TextResourceContents),
    /// Binary contents.
    Blob(BlobResourceContents),
}

impl ResourceContents {
    /// Text contents of `uri`.
    pub fn text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self::Text(TextResourceContents {
            uri: uri.into(),
            text: text.into(),
            ..Default::default()
        })
    }

    /// Binary contents of `uri` from raw bytes (encoded here with standard padded base64).
    pub fn blob(uri: impl Into<String>, bytes: &[u8]) -> Self {
        Self::Blob(BlobResourceContents {
            uri: uri.into(),
            blob: base64::engine::general_purpose::STANDARD.encode(bytes),
            ..Default::default()
        })
    }

    /// Sets the MIME type.
    pub fn with_mime_type(mut self, mime_type: impl Into<String>) -> Self {
        let m = Some(mime_type.into());
        match &mut self {
            Self::Text(t) => t.mime_type = m,
            Self::Blob(b) => b.mime_type = m,
        }
        self
    }

    /// The resource's URI.
    pub fn uri(&self) -> &str {
        match self {
            Self::Text(t) => &t.uri,
            Self::Blob(b) => &b.uri,
        }
    }
}

impl Adapt for ResourceContents {
    fn adapt(&mut self, rev: ProtocolVersion) {
        match self {
            Self::Text(t) => t.adapt(rev),
            Self::Blob(b) => b.adapt(rev),
        }
    }
}

/// The contents of a resource embedded into a prompt or tool result (`type: "resource"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedResource {
    /// The contents.
    pub resource: ResourceContents,
    /// Display hints.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// Metadata (2025-06-18+).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl EmbeddedResource {
    /// An embedded resource without annotations.
    pub fn new(resource: ResourceContents) -> Self {
        Self {
            resource,
            annotations: None,
            meta: None,
        }
    }
}

impl Adapt for EmbeddedResource {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.resource.adapt(rev);
        self.annotations.adapt(rev);
        since(&mut self.meta, rev, ProtocolVersion::V2025_06_18);
    }
}

/// A model's request to call a tool (`type: "tool_use"`; sampling only, 2025-11-25+).
///
/// It is not a [`ContentBlock`]; the sampling content enum holds it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUseContent {
    /// Unique id of this tool use, matched by [`ToolResultContent::tool_use_id`].
    pub id: String,
    /// The tool's name.
    pub name: String,
    /// The arguments, conforming to the tool's input schema.
    pub input: Meta,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ToolUseContent {
    /// A text block describing this tool use, for revisions without `tool_use` blocks.
    pub fn to_text_fallback(&self) -> TextContent {
        let input = serde_json::Value::Object(self.input.clone());
        TextContent::new(format!("[tool use {}: {} {}]", self.id, self.name, input))
    }
}

impl Adapt for ToolUseContent {
    fn adapt(&mut self, _rev: ProtocolVersion) {}
}

/// The result of a tool use given back to the model (`type: "tool_result"`; sampling only,
/// 2025-11-25+).
///
/// `structuredContent` is an object on 2025-11-25 and any JSON value on 2026-07-28;
/// shaped for 2025-11-25 a non-object value is wrapped as `{"result": value}` (as
/// [`CallToolResult`](super::CallToolResult) does).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolResultContent {
    /// The id of the [`ToolUseContent`] this answers.
    pub tool_use_id: String,
    /// Unstructured result content.
    pub content: Vec<ContentBlock>,
    /// Structured result.
    #[serde(
        default,
        deserialize_with = "some_value",
        skip_serializing_if = "Option::is_none"
    )]
    pub structured_content: Option<serde_json::Value>,
    /// Whether the tool use failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// Metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl Adapt for ToolResultContent {
    fn adapt(&mut self, rev: ProtocolVersion) {
        self.content.adapt(rev);
        shape_structured_content(&mut self.structured_content, rev);
    }
}

/// `structuredContent`: absent before 2025-06-18, an object on 2025-06-18 / 2025-11-25
/// (a non-object value is wrapped as `{"result": value}`), any value from 2026-07-28.
pub(crate) fn shape_structured_content(v: &mut Option<serde_json::Value>, rev: ProtocolVersion) {
    if rev < ProtocolVersion::V2025_06_18 {
        *v = None;
    } else if rev < ProtocolVersion::V2026_07_28
        && let Some(value) = v
        && !value.is_object()
    {
        let inner = std::mem::take(value);
        let mut m = serde_json::Map::new();
        m.insert("result".into(), inner);
        *value = serde_json::Value::Object(m);
    }
}

/// A content block of a tool result or prompt message.
///
/// Shaped for a revision without audio (before 2025-03-26) or resource links (before
/// 2025-06-18), such blocks become text blocks; see the module documentation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
pub enum ContentBlock {
    /// `type: "text"`.
    #[serde(rename = "text")]
    Text(TextContent),
    /// `type: "image"`.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// `type: "audio"` (2025-03-26+).
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// `type: "resource_link"` (2025-06-18+).
    #[serde(rename = "resource_link")]
    ResourceLink(ResourceLink),
    /// `type: "resource"`.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }

    /// An image block from base64 data.
    pub fn image(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Image(ImageContent::new(data, mime_type))
    }

    /// An audio block from base64 data.
    pub fn audio(data: impl Into<String>, mime_type: impl Into<String>) -> Self {
        Self::Audio(AudioContent::new(data, mime_type))
    }

    /// A resource link to `uri` named `name`.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self::ResourceLink(Resource::new(uri, name))
    }

    /// An embedded resource block.
    pub fn resource(contents: ResourceContents) -> Self {
        Self::Resource(EmbeddedResource::new(contents))
    }

    /// An embedded text resource block.
    pub fn embedded_text(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self::resource(ResourceContents::text(uri, text))
    }

    /// The wire `type` of this block.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Text(_) => "text",
            Self::Image(_) => "image",
            Self::Audio(_) => "audio",
            Self::ResourceLink(_) => "resource_link",
            Self::Resource(_) => "resource",
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Self::Text(t) => Some(&t.text),
            _ => None,
        }
    }
}

impl Adapt for ContentBlock {
    fn adapt(&mut self, rev: ProtocolVersion) {
        match self {
            Self::Audio(a) if rev < ProtocolVersion::V2025_03_26 => {
                *self = Self::Text(a.to_text_fallback());
            }
            Self::ResourceLink(l) if rev < ProtocolVersion::V2025_06_18 => {
                *self = Self::Text(resource_link_text_fallback(l));
            }
            _ => {}
        }
        match self {
            Self::Text(t) => t.adapt(rev),
            Self::Image(i) => i.adapt(rev),
            Self::Audio(a) => a.adapt(rev),
            Self::ResourceLink(l) => l.adapt(rev),
            Self::Resource(r) => r.adapt(rev),
        }
    }
}

impl From<TextContent> for ContentBlock {
    fn from(v: TextContent) -> Self {
        Self::Text(v)
    }
}

impl From<ImageContent> for ContentBlock {
    fn from(v: ImageContent) -> Self {
        Self::Image(v)
    }
}

impl From<AudioContent> for ContentBlock {
    fn from(v: AudioContent) -> Self {
        Self::Audio(v)
    }
}

impl From<Resource> for ContentBlock {
    fn from(v: Resource) -> Self {
        Self::ResourceLink(v)
    }
}

impl From<EmbeddedResource> for ContentBlock {
    fn from(v: EmbeddedResource) -> Self {
        Self::Resource(v)
    }
}

impl From<&str> for ContentBlock {
    fn from(v: &str) -> Self {
        Self::text(v)
    }
}

impl From<String> for ContentBlock {
    fn from(v: String) -> Self {
        Self::text(v)
    }
}
