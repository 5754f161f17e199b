//! MCP Apps (`io.modelcontextprotocol/ui`): UI resources served with the app MIME type and
//! `_meta.ui`, the checks a server runs on its tools and resources before it serves, and
//! the read-side finishing that copies a UI resource's `_meta.ui` onto its content.
//!
//! The wire types and the pure checks are in `mcp_core::types` (`UiToolMeta`, `UiResourceMeta`, ...).

use std::future::Future;
use std::sync::Arc;

use mcp_core::types::{
    APP_MIME_TYPE, ReadResourceResult, Resource, ResourceContents, Tool, UI_EXTENSION, UI_SCHEME,
    UiClientSettings, UiCsp, UiPermissions, UiResourceMeta, check_html_document, check_ui_uri,
};

use crate::common::BoxFuture;
use crate::common::error::McpError;
use crate::context::Context;

/// Where a UI resource's HTML comes from.
#[derive(Clone)]
enum Source {
    /// A fixed document (a literal or `include_str!`), checked at build time.
    Text(Arc<str>),
    /// A function called on each read, its document checked then.
    Func(Arc<dyn Fn(Context) -> BoxFuture<'static, Result<String, McpError>> + Send + Sync>),
}

/// An MCP App view: a `ui://` resource serving an HTML document as
/// `text/html;profile=mcp-app`, with `_meta.ui` (CSP, permissions, domain, border) on its
/// list entry and its read content. Register it with
/// [`ServerBuilder::ui_resource`](crate::ServerBuilder::ui_resource).
///
/// ```
/// use mcp_runtime::apps::UiResource;
/// let view = UiResource::new("ui://clock/view", "<!DOCTYPE html><html><body>…</body></html>")
///     .title("Clock")
///     .connect_domain("https://time.example.com")
///     .clipboard_write()
///     .prefers_border(true);
/// # let _ = view;
/// ```
#[derive(Clone)]
pub struct UiResource {
    resource: Resource,
    ui: UiResourceMeta,
    source: Source,
}

impl UiResource {
    /// A view at `uri` serving the document `html` (a literal, or a file through
    /// `include_str!`).
    pub fn new(uri: impl Into<String>, html: impl Into<String>) -> Self {
        let html: String = html.into();
        Self::with_source(uri.into(), Source::Text(html.into()))
    }

    /// A view at `uri` whose document `f` produces on each read.
    pub fn from_fn<F, Fut>(uri: impl Into<String>, f: F) -> Self
    where
        F: Fn(Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, McpError>> + Send + 'static,
    {
        let f = Arc::new(move |ctx| -> BoxFuture<'static, _> { Box::pin(f(ctx)) });
        Self::with_source(uri.into(), Source::Func(f))
    }

    fn with_source(uri: String, source: Source) -> Self {
        let name = uri.strip_prefix(UI_SCHEME).unwrap_or(&uri).to_owned();
        UiResource {
            resource: Resource::new(uri, name),
            ui: UiResourceMeta::default(),
            source,
        }
    }

    /// The programmatic name (default: the URI without `ui://`).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.resource.name = name.into();
        self
    }

    /// The title shown to people.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.resource.title = Some(title.into());
        self
    }

    /// What the view shows.
    pub fn description(mut self, text: impl Into<String>) -> Self {
        self.resource.description = Some(text.into());
        self
    }

    /// The whole CSP at once.
    pub fn csp(mut self, csp: UiCsp) -> Self {
        self.ui.csp = Some(csp);
        self
    }

    fn csp_list(&mut self, pick: fn(&mut UiCsp) -> &mut Option<Vec<String>>) -> &mut Vec<String> {
        pick(self.ui.csp.get_or_insert_with(UiCsp::default)).get_or_insert_with(Vec::new)
    }

    /// An origin the view may `fetch` / open a WebSocket to (`csp.connectDomains`).
    pub fn connect_domain(mut self, origin: impl Into<String>) -> Self {
        self.csp_list(|c| &mut c.connect_domains)
            .push(origin.into());
        self
    }

    /// An origin of scripts, styles, images, fonts (`csp.resourceDomains`).
    pub fn resource_domain(mut self, origin: impl Into<String>) -> Self {
        self.csp_list(|c| &mut c.resource_domains)
            .push(origin.into());
        self
    }

    /// An origin of nested frames (`csp.frameDomains`).
    pub fn frame_domain(mut self, origin: impl Into<String>) -> Self {
        self.csp_list(|c| &mut c.frame_domains).push(origin.into());
        self
    }

    /// An origin allowed as the base URI (`csp.baseUriDomains`).
    pub fn base_uri_domain(mut self, origin: impl Into<String>) -> Self {
        self.csp_list(|c| &mut c.base_uri_domains)
            .push(origin.into());
        self
    }

    /// The browser permissions at once.
    pub fn permissions(mut self, permissions: UiPermissions) -> Self {
        self.ui.permissions = Some(permissions);
        self
    }

    fn permission(
        mut self,
        pick: fn(&mut UiPermissions) -> &mut Option<mcp_core::types::Meta>,
    ) -> Self {
        *pick(
            self.ui
                .permissions
                .get_or_insert_with(UiPermissions::default),
        ) = Some(Default::default());
        self
    }

    /// Asks for the camera (`permissions.camera`).
    pub fn camera(self) -> Self {
        self.permission(|p| &mut p.camera)
    }

    /// Asks for the microphone (`permissions.microphone`).
    pub fn microphone(self) -> Self {
        self.permission(|p| &mut p.microphone)
    }

    /// Asks for the location (`permissions.geolocation`).
    pub fn geolocation(self) -> Self {
        self.permission(|p| &mut p.geolocation)
    }

    /// Asks to write the clipboard (`permissions.clipboardWrite`).
    pub fn clipboard_write(self) -> Self {
        self.permission(|p| &mut p.clipboard_write)
    }

    /// A dedicated origin for the view's sandbox (`domain`).
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.ui.domain = Some(domain.into());
        self
    }

    /// Whether the host should draw a border (`prefersBorder`).
    pub fn prefers_border(mut self, on: bool) -> Self {
        self.ui.prefers_border = Some(on);
        self
    }

    /// The problems that keep this view from being served, each a sentence.
    pub fn problems(&self) -> Vec<String> {
        let uri = &self.resource.uri;
        let mut out: Vec<String> = check_ui_uri(uri).err().into_iter().collect();
        out.extend(
            self.ui
                .problems()
                .into_iter()
                .map(|p| format!("UI resource `{uri}`: {p}")),
        );
        if let Source::Text(html) = &self.source
            && let Err(e) = check_html_document(html)
        {
            out.push(format!("UI resource `{uri}`: {e}"));
        }
        out
    }

    /// The list entry and the reader, for the registry.
    pub(crate) fn into_parts(
        self,
    ) -> (
        Resource,
        impl Fn(Context, String) -> BoxFuture<'static, Result<ReadResourceResult, McpError>>
        + Send
        + Sync
        + 'static,
    ) {
        let resource = self.resource.with_ui(self.ui);
        let source = self.source;
        let read = move |ctx: Context, uri: String| -> BoxFuture<'static, _> {
            let source = source.clone();
            Box::pin(async move {
                let html = match source {
                    Source::Text(t) => t.to_string(),
                    Source::Func(f) => f(ctx).await?,
                };
                Ok(ReadResourceResult {
                    contents: vec![ResourceContents::text(uri, html)],
                    ..Default::default()
                })
            })
        };
        (resource, read)
    }
}

/// The settings a server that serves views declares (`mimeTypes`).
pub fn server_settings() -> serde_json::Value {
    serde_json::to_value(UiClientSettings::apps()).expect("plain data")
}

/// The extension identifier, for [`ServerBuilder::extension`](crate::ServerBuilder::extension)
/// and `ctx.client_extension(...)`.
pub const EXTENSION: &str = UI_EXTENSION;

/// The problems of a server's tools and resources as MCP Apps: a tool's `_meta.ui` that is
/// malformed, not `ui://`, with a bad `visibility`, or naming a resource that is not
/// registered; a `ui://` resource without the app MIME type or with a bad `_meta.ui`.
pub fn check(tools: &[Tool], resources: &[Resource]) -> Vec<String> {
    let mut out = Vec::new();
    for r in resources.iter().filter(|r| r.uri.starts_with(UI_SCHEME)) {
        if r.mime_type.as_deref() != Some(APP_MIME_TYPE) {
            out.push(format!(
                "UI resource `{}` has MIME type {}: a `ui://` resource is served as `{APP_MIME_TYPE}`",
                r.uri,
                r.mime_type
                    .as_deref()
                    .map_or("none".to_owned(), |m| format!("`{m}`"))
            ));
        }
        if let Some(v) = r.ui_value() {
            match <UiResourceMeta as serde::Deserialize>::deserialize(v) {
                Ok(m) => out.extend(
                    m.problems()
                        .into_iter()
                        .map(|p| format!("UI resource `{}`: {p}", r.uri)),
                ),
                Err(e) => out.push(format!(
                    "UI resource `{}`: `_meta.ui` is malformed: {e}",
                    r.uri
                )),
            }
        }
    }
    for t in tools {
        let Some(ui) = t.ui() else { continue };
        let ui = match ui {
            Ok(ui) => ui,
            Err(e) => {
                out.push(format!("tool `{}`: {e}", t.name));
                continue;
            }
        };
        out.extend(
            ui.problems()
                .into_iter()
                .map(|p| format!("tool `{}`: {p}", t.name)),
        );
        if ui.resource_uri.starts_with(UI_SCHEME)
            && !resources.iter().any(|r| r.uri == ui.resource_uri)
        {
            out.push(format!(
                "tool `{}` points at UI resource `{}`, which is not registered",
                t.name, ui.resource_uri
            ));
        }
    }
    out
}

/// Finishes a `ui://` read: each content of the listed resource gets the app MIME type and
/// the list entry's `_meta.ui` when it has none of its own; a text document that is not a
/// complete HTML document is an internal error (the reason goes to the log, not the wire).
pub(crate) fn finish_read(
    result: &mut ReadResourceResult,
    listed: Option<&Resource>,
) -> Result<(), McpError> {
    let Some(listed) = listed else { return Ok(()) };
    let ui = listed.ui_value();
    for c in &mut result.contents {
        let ResourceContents::Text(t) = c else {
            continue;
        };
        if t.uri != listed.uri {
            continue;
        }
        let mime = t.mime_type.get_or_insert_with(|| APP_MIME_TYPE.to_owned());
        if mime == APP_MIME_TYPE
            && let Err(e) = check_html_document(&t.text)
        {
            tracing::error!(uri = %t.uri, "{e}");
            return Err(McpError::internal(format!("UI resource `{}`: {e}", t.uri)));
        }
        if let Some(ui) = ui {
            let meta = t.meta.get_or_insert_with(Default::default);
            meta.entry("ui").or_insert_with(|| ui.clone());
        }
    }
    Ok(())
}
