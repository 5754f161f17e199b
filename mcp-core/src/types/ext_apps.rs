//! The MCP Apps extension (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26): a
//! tool names a `ui://` resource holding an HTML document that the host renders beside the
//! conversation.
//!
//! - a tool's `_meta.ui` is [`UiToolMeta`]: `resourceUri` and `visibility`;
//! - a UI resource (its list entry and its read content) carries `_meta.ui`
//!   ([`UiResourceMeta`]: `csp`, `permissions`, `domain`, `prefersBorder`) and the MIME type
//!   [`APP_MIME_TYPE`];
//! - a host declares the extension with the MIME types it renders ([`UiClientSettings`]).
//!
//! The checks a server applies before serving these (a `ui://` URI, CSP entries that are
//! origins, a visibility list without repeats, a complete HTML document) are pure
//! functions here, shared by the macros (at compile time) and the builder (at build time).

use serde::{Deserialize, Serialize};

use super::{Meta, Resource, Tool};
pub use crate::rules::{
    APP_MIME_TYPE, UI_SCHEME, UiVisibility, check_origin, check_ui_uri, check_visibility,
};

/// The extension identifier.
pub const UI_EXTENSION: &str = "io.modelcontextprotocol/ui";

/// The settings a host declares for the extension (`capabilities.extensions[UI_EXTENSION]`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiClientSettings {
    /// The MIME types the host renders (`text/html;profile=mcp-app`).
    #[serde(default)]
    pub mime_types: Vec<String>,
}

impl UiClientSettings {
    /// What a host that renders MCP Apps declares.
    pub fn apps() -> Self {
        UiClientSettings {
            mime_types: vec![APP_MIME_TYPE.to_owned()],
        }
    }

    /// Whether the host renders [`APP_MIME_TYPE`].
    pub fn renders_apps(&self) -> bool {
        self.mime_types.iter().any(|m| m == APP_MIME_TYPE)
    }
}

/// A tool's `_meta.ui`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiToolMeta {
    /// The `ui://` resource the host renders for this tool.
    pub resource_uri: String,
    /// Who may call the tool (`["model", "app"]` unless said otherwise).
    pub visibility: Vec<UiVisibility>,
}

impl UiToolMeta {
    /// A tool shown by the resource at `uri`, callable by the model and the app.
    pub fn new(uri: impl Into<String>) -> Self {
        UiToolMeta {
            resource_uri: uri.into(),
            visibility: vec![UiVisibility::Model, UiVisibility::App],
        }
    }

    /// Only the app's view calls this tool; the model does not see it.
    pub fn app_only(mut self) -> Self {
        self.visibility = vec![UiVisibility::App];
        self
    }

    /// The problems with this value, each a sentence (none when it is valid).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        out.extend(check_ui_uri(&self.resource_uri).err());
        out.extend(check_visibility(&self.visibility).err());
        out
    }
}

/// A UI resource's `_meta.ui`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiResourceMeta {
    /// The origins the view may reach.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub csp: Option<UiCsp>,
    /// The browser permissions the view asks for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub permissions: Option<UiPermissions>,
    /// A dedicated origin for the view's sandbox.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub domain: Option<String>,
    /// Whether the host should draw a border around the view.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

impl UiResourceMeta {
    /// Whether nothing is set (then no `_meta.ui` is sent).
    pub fn is_empty(&self) -> bool {
        *self == UiResourceMeta::default()
    }

    /// The problems with this value, each a sentence (none when it is valid).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(csp) = &self.csp {
            for (field, list) in csp.lists() {
                for entry in list {
                    if let Err(e) = check_origin(entry) {
                        out.push(format!("csp.{field}: {e}"));
                    }
                }
            }
        }
        if let Some(d) = &self.domain
            && d.trim().is_empty()
        {
            out.push("`domain` is empty".to_owned());
        }
        out
    }
}

/// `_meta.ui.csp`: origins per directive.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiCsp {
    /// Origins for `fetch`, XHR and WebSocket (`connect-src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connect_domains: Option<Vec<String>>,
    /// Origins for scripts, styles, images, fonts and media.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_domains: Option<Vec<String>>,
    /// Origins of nested frames (`frame-src`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_domains: Option<Vec<String>>,
    /// Origins allowed as the document's base URI (`base-uri`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_uri_domains: Option<Vec<String>>,
}

impl UiCsp {
    /// Each directive's wire name and its origins.
    pub fn lists(&self) -> [(&'static str, &[String]); 4] {
        fn l(v: &Option<Vec<String>>) -> &[String] {
            v.as_deref().unwrap_or(&[])
        }
        [
            ("connectDomains", l(&self.connect_domains)),
            ("resourceDomains", l(&self.resource_domains)),
            ("frameDomains", l(&self.frame_domains)),
            ("baseUriDomains", l(&self.base_uri_domains)),
        ]
    }
}

/// `_meta.ui.permissions`: each present (an empty object) when the view asks for it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UiPermissions {
    /// The camera.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub camera: Option<Meta>,
    /// The microphone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub microphone: Option<Meta>,
    /// The location.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub geolocation: Option<Meta>,
    /// Writing to the clipboard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clipboard_write: Option<Meta>,
}

/// `_meta.ui` of `meta`, when present.
fn ui_of(meta: Option<&Meta>) -> Option<&serde_json::Value> {
    meta?.get("ui")
}

/// Sets `_meta.ui` to `value`, keeping the other `_meta` entries.
fn insert_ui(meta: &mut Option<Meta>, value: serde_json::Value) {
    meta.get_or_insert_with(Meta::new)
        .insert("ui".to_owned(), value);
}

impl Tool {
    /// Points the tool at a UI resource (`_meta.ui`, merged with any other `_meta`).
    pub fn with_ui(mut self, ui: UiToolMeta) -> Self {
        self.set_ui(ui);
        self
    }

    /// [`Tool::with_ui`] in place.
    pub fn set_ui(&mut self, ui: UiToolMeta) {
        insert_ui(
            &mut self.meta,
            serde_json::to_value(ui).expect("plain data"),
        );
    }

    /// The tool's `_meta.ui`: `None` when absent, `Some(Err)` when it is not of the
    /// extension's shape.
    pub fn ui(&self) -> Option<Result<UiToolMeta, String>> {
        ui_of(self.meta.as_ref()).map(|v| {
            UiToolMeta::deserialize(v).map_err(|e| format!("`_meta.ui` is malformed: {e}"))
        })
    }
}

impl Resource {
    /// Marks the resource as an MCP App view: the app MIME type and `_meta.ui` (when `ui`
    /// sets anything), merged with any other `_meta`.
    pub fn with_ui(mut self, ui: UiResourceMeta) -> Self {
        self.mime_type = Some(APP_MIME_TYPE.to_owned());
        if !ui.is_empty() {
            insert_ui(
                &mut self.meta,
                serde_json::to_value(ui).expect("plain data"),
            );
        }
        self
    }

    /// The resource's `_meta.ui` as a raw value, when present.
    pub fn ui_value(&self) -> Option<&serde_json::Value> {
        ui_of(self.meta.as_ref())
    }
}

/// `Ok` for a complete HTML document: a `<!DOCTYPE html>` (or `<html`) start and a closing
/// `</html>`.
pub fn check_html_document(html: &str) -> Result<(), String> {
    let start = html
        .trim_start()
        .get(..14)
        .unwrap_or("")
        .to_ascii_lowercase();
    if !(start.starts_with("<!doctype html") || start.starts_with("<html")) {
        return Err("the HTML is not a complete document: it must start with \
                    `<!DOCTYPE html>` (or `<html>`)"
            .to_owned());
    }
    if !html.to_ascii_lowercase().contains("</html>") {
        return Err("the HTML is not a complete document: it has no closing `</html>`".to_owned());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        for ok in [
            "https://api.example.com",
            "https://api.example.com/",
            "https://*.example.com",
            "http://localhost:8080",
            "wss://live.example.com:443",
            "https://[::1]:3000",
        ] {
            assert!(check_origin(ok).is_ok(), "{ok}");
        }
        for (bad, why) in [
            ("api.example.com", "scheme://"),
            ("ftp://example.com", "scheme must be"),
            ("javascript://x", "scheme must be"),
            ("https://example.com/path", "path"),
            ("https://example.com?q=1", "query"),
            ("https://user:pw@example.com", "credentials"),
            ("https://example.com:99999", "port"),
            ("https://", "host"),
            ("https://exa mple.com", "host"),
        ] {
            let e = check_origin(bad).unwrap_err();
            assert!(e.contains(why), "{bad}: {e}");
        }
    }

    #[test]
    fn visibility_and_uris() {
        use UiVisibility::*;
        assert!(check_visibility(&[Model, App]).is_ok());
        assert!(check_visibility(&[App]).is_ok());
        assert!(check_visibility(&[]).unwrap_err().contains("empty"));
        assert!(check_visibility(&[App, App]).unwrap_err().contains("twice"));
        assert!(check_ui_uri("ui://clock/view").is_ok());
        assert!(check_ui_uri("https://x").unwrap_err().contains("ui://"));
        assert!(check_ui_uri("ui://").is_err());
    }

    #[test]
    fn documents() {
        assert!(check_html_document("<!DOCTYPE html><html><body></body></html>").is_ok());
        assert!(check_html_document("\n<html lang=en></html>\n").is_ok());
        assert!(check_html_document("<div>hi</div>").is_err());
        assert!(check_html_document("<!doctype html><html>").is_err());
    }

    #[test]
    fn wire_shapes() {
        let t = UiToolMeta::new("ui://a/b");
        assert_eq!(
            serde_json::to_value(&t).unwrap(),
            serde_json::json!({"resourceUri": "ui://a/b", "visibility": ["model", "app"]})
        );
        let r = UiResourceMeta {
            csp: Some(UiCsp {
                connect_domains: Some(vec!["https://a.example".into()]),
                base_uri_domains: Some(vec![]),
                ..Default::default()
            }),
            permissions: Some(UiPermissions {
                clipboard_write: Some(Meta::new()),
                ..Default::default()
            }),
            domain: Some("https://app.example".into()),
            prefers_border: Some(true),
        };
        assert_eq!(
            serde_json::to_value(&r).unwrap(),
            serde_json::json!({
                "csp": {"connectDomains": ["https://a.example"], "baseUriDomains": []},
                "permissions": {"clipboardWrite": {}},
                "domain": "https://app.example",
                "prefersBorder": true
            })
        );
        let s: UiClientSettings =
            serde_json::from_value(serde_json::json!({"mimeTypes": [APP_MIME_TYPE]})).unwrap();
        assert!(s.renders_apps());
    }
}
