//! MCP Apps (`io.modelcontextprotocol/ui`): the tool `_meta.ui` (`resourceUri`,
//! `visibility`, merged with other `_meta`), the UI resource (`text/html;profile=mcp-app`,
//! `_meta.ui` with `csp`, `permissions`, `domain`, `prefersBorder` on the list entry and the
//! read content) from the macros (`examples/apps.rs` and a fuller server here) and the
//! builder, `ctx.client_supports_apps()`, and every build-time check. Both eras; results
//! validated against the official schemas.

#[path = "../../examples/apps.rs"]
#[allow(dead_code)]
mod apps_example;

mod support;

use mcp::apps::UiResource;
use mcp::prelude::*;
use mcp::types::{
    APP_MIME_TYPE, CallToolResult, ContentBlock, ReadResourceResult, Resource, ResourceContents,
    Tool, UI_EXTENSION, UiToolMeta, UiVisibility,
};
use serde_json::{Value, json};
use support::{Wire, envelope};

const HTML: &str = "<!DOCTYPE html><html><body><p>hi</p></body></html>";

/// The official schema of `rev`, when the schema directory is present.
fn schema(rev: &str) -> Option<Value> {
    let dir = std::env::var_os("MCP_SPEC_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| {
            std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/..")).join("../shared/spec")
        });
    let text = std::fs::read_to_string(dir.join(rev).join("schema.json")).ok();
    if text.is_none() && std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("CI=true and the MCP schemas are missing (set MCP_SPEC_DIR)");
    }
    text.map(|t| serde_json::from_str(&t).unwrap())
}

/// Validates `value` as definition `def` of revision `rev`'s official schema.
#[track_caller]
fn validate(rev: &str, def: &str, value: &Value) {
    let Some(mut doc) = schema(rev) else {
        eprintln!("SKIPPED: no schema for {rev}");
        return;
    };
    let key = if doc.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    doc["$ref"] = json!(format!("#/{key}/{def}"));
    let v = jsonschema::validator_for(&doc).unwrap();
    let errors: Vec<String> = v.iter_errors(value).map(|e| e.to_string()).collect();
    assert!(errors.is_empty(), "{def} on {rev}: {errors:?}\n{value}");
}

/// A page of the view, with every `_meta.ui` field.
#[mcp::resource(
    "ui://full/view",
    title = "Full",
    csp(
        connect_domains("https://api.example.com", "wss://live.example.com"),
        resource_domains("https://cdn.example.com"),
        frame_domains("https://*.frames.example.com"),
        base_uri_domains("https://base.example.com")
    ),
    permissions(camera, microphone, geolocation, clipboard_write),
    domain = "https://full.example.com",
    prefers_border = false
)]
async fn full_view() -> String {
    HTML.to_owned()
}

/// A view without app keys: only the MIME type.
#[mcp::resource("ui://full/plain")]
async fn plain_view() -> &'static str {
    HTML
}

/// A broken view: its function returns a fragment.
#[mcp::resource("ui://full/broken")]
async fn broken_view() -> &'static str {
    "<div>not a document</div>"
}

/// Shows the full view.
#[mcp::tool(ui = "ui://full/view", meta("com.example/tag" = "kept"))]
async fn show(ctx: &Context) -> String {
    if ctx.client_supports_apps() {
        "shown in the view".to_owned()
    } else {
        "plain text for hosts without apps".to_owned()
    }
}

/// Called by the view only.
#[mcp::tool(ui = "ui://full/view", visibility("app"))]
async fn app_only() -> String {
    "ok".to_owned()
}

/// Both, said explicitly.
#[mcp::tool(ui = "ui://full/plain", visibility("model", "app"))]
async fn both() -> String {
    "ok".to_owned()
}

#[mcp::server(
    name = "full",
    tools(show, app_only, both),
    resources(full_view, plain_view, broken_view),
    extensions("com.example/other" = json!({"level": 1}))
)]
struct Full;

const UI_CAPS: &str = r#"{"extensions": {"io.modelcontextprotocol/ui": {"mimeTypes": ["text/html;profile=mcp-app"]}}}"#;

/// `_meta` of a 2026 request, with or without the Apps declaration.
fn meta(apps: bool) -> Value {
    let mut m = envelope();
    if apps {
        m["io.modelcontextprotocol/clientCapabilities"] = serde_json::from_str(UI_CAPS).unwrap();
    }
    m
}

/// A legacy connection at `rev`, declaring the extension or not.
async fn legacy<H: mcp::ServerHandler>(s: &mcp::Server<(), H>, rev: &str, apps: bool) -> Wire {
    let mut w = Wire::new(s.serve_in_memory());
    let caps: Value = if apps {
        serde_json::from_str(UI_CAPS).unwrap()
    } else {
        json!({})
    };
    let r = w
        .request(
            json!(0),
            "initialize",
            json!({"protocolVersion": rev, "capabilities": caps,
                   "clientInfo": {"name": "host", "version": "1"}}),
        )
        .await;
    assert!(r.get("result").is_some(), "{r}");
    validate(rev, "InitializeResult", &r["result"]);
    assert_eq!(
        r["result"]["capabilities"]["extensions"][UI_EXTENSION],
        json!({"mimeTypes": [APP_MIME_TYPE]}),
        "{r}"
    );
    w.notify("notifications/initialized", json!({})).await;
    w
}

/// Sends `method` on `w`: plain on legacy, with the modern `_meta` on 2026.
async fn call(w: &mut Wire, rev: &str, id: u64, method: &str, mut params: Value) -> Value {
    if rev == "2026-07-28" {
        params["_meta"] = meta(true);
    }
    let r = w.request(json!(id), method, params).await;
    assert!(r.get("result").is_some(), "{method}: {r}");
    r["result"].clone()
}

const FULL_UI: &str = r#"{
    "csp": {
        "connectDomains": ["https://api.example.com", "wss://live.example.com"],
        "resourceDomains": ["https://cdn.example.com"],
        "frameDomains": ["https://*.frames.example.com"],
        "baseUriDomains": ["https://base.example.com"]
    },
    "permissions": {"camera": {}, "microphone": {}, "geolocation": {}, "clipboardWrite": {}},
    "domain": "https://full.example.com",
    "prefersBorder": false
}"#;

#[tokio::test]
async fn macro_tools_and_views_on_every_revision_with_meta() {
    let s = Full.into_server();
    let full_ui: Value = serde_json::from_str(FULL_UI).unwrap();
    for rev in ["2025-06-18", "2025-11-25", "2026-07-28"] {
        let mut w = if rev == "2026-07-28" {
            Wire::new(s.serve_in_memory())
        } else {
            legacy(&s, rev, true).await
        };
        if rev == "2026-07-28" {
            let d = call(&mut w, rev, 9, "server/discover", json!({})).await;
            validate(rev, "DiscoverResult", &d);
            let ext = &d["capabilities"]["extensions"];
            assert_eq!(ext[UI_EXTENSION], json!({"mimeTypes": [APP_MIME_TYPE]}));
            assert_eq!(
                ext["com.example/other"],
                json!({"level": 1}),
                "the macro key"
            );
        }
        let tools = call(&mut w, rev, 1, "tools/list", json!({})).await;
        validate(rev, "ListToolsResult", &tools);
        let by = |n: &str| {
            tools["tools"]
                .as_array()
                .unwrap()
                .iter()
                .find(|t| t["name"] == n)
                .unwrap()
                .clone()
        };
        assert_eq!(
            by("show")["_meta"],
            json!({"com.example/tag": "kept",
                   "ui": {"resourceUri": "ui://full/view", "visibility": ["model", "app"]}}),
            "{rev}"
        );
        assert_eq!(by("app_only")["_meta"]["ui"]["visibility"], json!(["app"]));
        assert_eq!(
            by("both")["_meta"]["ui"],
            json!({"resourceUri": "ui://full/plain", "visibility": ["model", "app"]})
        );

        let list = call(&mut w, rev, 2, "resources/list", json!({})).await;
        validate(rev, "ListResourcesResult", &list);
        let res = list["resources"].as_array().unwrap();
        let view = res.iter().find(|r| r["uri"] == "ui://full/view").unwrap();
        assert_eq!(view["mimeType"], APP_MIME_TYPE);
        assert_eq!(view["_meta"]["ui"], full_ui, "{rev}");
        let plain = res.iter().find(|r| r["uri"] == "ui://full/plain").unwrap();
        assert_eq!(plain["mimeType"], APP_MIME_TYPE);
        assert!(plain.get("_meta").is_none(), "no app keys, no _meta.ui");

        let read = call(
            &mut w,
            rev,
            3,
            "resources/read",
            json!({"uri": "ui://full/view"}),
        )
        .await;
        validate(rev, "ReadResourceResult", &read);
        let c = &read["contents"][0];
        assert_eq!(c["mimeType"], APP_MIME_TYPE);
        assert_eq!(c["_meta"]["ui"], full_ui);
        assert!(c["text"].as_str().unwrap().starts_with("<!DOCTYPE html>"));
    }
}

#[tokio::test]
async fn the_oldest_revisions_have_no_meta_but_keep_the_app_mime_type() {
    let s = Full.into_server();
    for rev in ["2024-11-05", "2025-03-26"] {
        let mut w = legacy(&s, rev, true).await;
        let tools = call(&mut w, rev, 1, "tools/list", json!({})).await;
        validate(rev, "ListToolsResult", &tools);
        assert!(tools["tools"][0].get("_meta").is_none(), "{rev}: {tools}");
        let read = call(
            &mut w,
            rev,
            2,
            "resources/read",
            json!({"uri": "ui://full/view"}),
        )
        .await;
        validate(rev, "ReadResourceResult", &read);
        assert_eq!(read["contents"][0]["mimeType"], APP_MIME_TYPE);
    }
}

#[tokio::test]
async fn hosts_without_the_extension_get_plain_content() {
    let s = Full.into_server();
    // Legacy: declared in initialize, or not.
    for (apps, text) in [
        (true, "shown in the view"),
        (false, "plain text for hosts without apps"),
    ] {
        let mut w = legacy(&s, "2025-11-25", apps).await;
        let r = call(
            &mut w,
            "2025-11-25",
            1,
            "tools/call",
            json!({"name": "show"}),
        )
        .await;
        assert_eq!(r["content"][0]["text"], text);
    }
    // 2026: per request.
    let mut w = Wire::new(s.serve_in_memory());
    for (id, apps, text) in [
        (1, true, "shown in the view"),
        (2, false, "plain text for hosts without apps"),
    ] {
        let r = w
            .request(
                json!(id),
                "tools/call",
                json!({"name": "show", "_meta": meta(apps)}),
            )
            .await;
        assert_eq!(r["result"]["content"][0]["text"], text, "{r}");
    }
}

#[tokio::test]
async fn a_view_that_is_not_a_document_is_an_internal_error_at_read_time() {
    let s = Full.into_server();
    let mut w = legacy(&s, "2025-11-25", true).await;
    let r = w
        .request(
            json!(1),
            "resources/read",
            json!({"uri": "ui://full/broken"}),
        )
        .await;
    assert_eq!(r["error"]["code"], -32603, "{r}");
    assert!(!r.to_string().contains("complete document"), "no internals");
}

#[tokio::test]
async fn the_example_serves_its_dice_view() {
    let s = apps_example::Dice.into_server();
    let mut w = legacy(&s, "2025-11-25", false).await;
    let tools = call(&mut w, "2025-11-25", 1, "tools/list", json!({})).await;
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["roll_dice", "reroll"]);
    assert_eq!(
        tools["tools"][1]["_meta"]["ui"],
        json!({"resourceUri": apps_example::VIEW, "visibility": ["app"]})
    );
    let read = call(
        &mut w,
        "2025-11-25",
        2,
        "resources/read",
        json!({"uri": apps_example::VIEW}),
    )
    .await;
    let c = &read["contents"][0];
    assert_eq!(c["mimeType"], APP_MIME_TYPE);
    assert_eq!(
        c["_meta"]["ui"],
        json!({"csp": {"connectDomains": [], "resourceDomains": []},
               "permissions": {"clipboardWrite": {}}, "prefersBorder": true})
    );
    assert!(c["text"].as_str().unwrap().contains("ui/initialize"));
    // Without the extension: the roll as text, and the structured roll beside it.
    let r = call(
        &mut w,
        "2025-11-25",
        3,
        "tools/call",
        json!({"name": "roll_dice", "arguments": {"sides": 6, "count": 3}}),
    )
    .await;
    let text = r["content"][0]["text"].as_str().unwrap();
    assert!(text.starts_with("Rolled 3d6: "), "{text}");
    assert!(!text.contains("view"), "{text}");
    let faces = r["structuredContent"]["faces"].as_array().unwrap();
    assert_eq!(faces.len(), 3);
    assert!(faces.iter().all(|f| (1..=6).contains(&f.as_u64().unwrap())));
}

// ---------------------------------------------------------------------------------------
// The builder
// ---------------------------------------------------------------------------------------

fn ok_tool(tool: Tool) -> impl FnOnce(mcp::ServerBuilder) -> mcp::ServerBuilder {
    move |b| {
        b.tool(tool, |_: Context, _: Value| async {
            Ok(CallToolResult::success(vec![ContentBlock::text("ok")]))
        })
    }
}

#[tokio::test]
async fn builder_views_from_a_string_and_a_function() {
    let s = Server::builder("b", "1")
        .ui_resource(
            UiResource::new("ui://b/string", HTML)
                .title("String")
                .connect_domain("https://api.example.com")
                .resource_domain("https://cdn.example.com")
                .frame_domain("https://frames.example.com")
                .base_uri_domain("https://base.example.com")
                .camera()
                .microphone()
                .geolocation()
                .clipboard_write()
                .domain("https://b.example.com")
                .prefers_border(true),
        )
        .ui_resource(UiResource::from_fn(
            "ui://b/fn",
            |ctx: Context| async move {
                let who = ctx.client_info().map_or("?".to_owned(), |i| i.name.clone());
                Ok(format!("<!DOCTYPE html><html><body>{who}</body></html>"))
            },
        ))
        .tool(
            Tool::new("t").with_ui(UiToolMeta::new("ui://b/string")),
            |_: Context, _: Value| async {
                Ok(CallToolResult::success(vec![ContentBlock::text("ok")]))
            },
        )
        .tool(
            Tool::new("a").with_ui(UiToolMeta::new("ui://b/fn").app_only()),
            |_: Context, _: Value| async {
                Ok(CallToolResult::success(vec![ContentBlock::text("ok")]))
            },
        )
        .build();
    let mut w = Wire::new(s.serve_in_memory());
    let init = w.initialize("2025-11-25").await;
    assert_eq!(
        init["capabilities"]["extensions"][UI_EXTENSION]["mimeTypes"],
        json!([APP_MIME_TYPE])
    );
    let list = w.request(json!(1), "resources/list", json!({})).await;
    validate("2025-11-25", "ListResourcesResult", &list["result"]);
    let r = &list["result"]["resources"][0];
    assert_eq!(r["name"], "b/string");
    assert_eq!(r["mimeType"], APP_MIME_TYPE);
    assert_eq!(
        r["_meta"]["ui"],
        json!({
            "csp": {"connectDomains": ["https://api.example.com"],
                    "resourceDomains": ["https://cdn.example.com"],
                    "frameDomains": ["https://frames.example.com"],
                    "baseUriDomains": ["https://base.example.com"]},
            "permissions": {"camera": {}, "microphone": {}, "geolocation": {}, "clipboardWrite": {}},
            "domain": "https://b.example.com",
            "prefersBorder": true
        })
    );
    let read = w
        .request(json!(2), "resources/read", json!({"uri": "ui://b/fn"}))
        .await;
    validate("2025-11-25", "ReadResourceResult", &read["result"]);
    assert_eq!(
        read["result"]["contents"][0]["text"],
        "<!DOCTYPE html><html><body>test-client</body></html>"
    );
    assert_eq!(read["result"]["contents"][0]["mimeType"], APP_MIME_TYPE);
    let tools = w.request(json!(3), "tools/list", json!({})).await;
    assert_eq!(
        tools["result"]["tools"][1]["_meta"]["ui"],
        json!({"resourceUri": "ui://b/fn", "visibility": ["app"]})
    );
    // 2026 too.
    let mut w = Wire::new(s.serve_in_memory());
    let read = w
        .request(
            json!(1),
            "resources/read",
            json!({"uri": "ui://b/string", "_meta": meta(false)}),
        )
        .await;
    validate("2026-07-28", "ReadResourceResult", &read["result"]);
    assert_eq!(
        read["result"]["contents"][0]["_meta"]["ui"]["prefersBorder"],
        true
    );
}

/// The build error of `b`, as one string.
fn build_error(b: mcp::ServerBuilder) -> String {
    b.try_build().err().expect("a build error").to_string()
}

#[test]
fn every_build_time_check() {
    let view = || UiResource::new("ui://v/1", HTML);
    let base = || Server::builder("b", "1");
    // A UI resource URI that is not ui://.
    let e = build_error(base().ui_resource(UiResource::new("https://x/view", HTML)));
    assert!(e.contains("not a UI resource URI"), "{e}");
    // A tool pointing at a UI resource that is not registered.
    let e = build_error(ok_tool(
        Tool::new("t").with_ui(UiToolMeta::new("ui://v/none")),
    )(base().ui_resource(view())));
    assert!(e.contains("`ui://v/none`, which is not registered"), "{e}");
    // A tool pointing at something that is not ui://.
    let e = build_error(ok_tool(
        Tool::new("t").with_ui(UiToolMeta::new("https://x")),
    )(base()));
    assert!(
        e.contains("tool `t`") && e.contains("not a UI resource URI"),
        "{e}"
    );
    // A non-app MIME type on a ui:// resource (registered by hand).
    let e = build_error(base().registry(|r| {
        let mut res = Resource::new("ui://v/html", "html");
        res.mime_type = Some("text/html".into());
        r.add_resource(res, |_: Context, uri: String| async move {
            Ok(ReadResourceResult {
                contents: vec![ResourceContents::text(uri, HTML)],
                ..Default::default()
            })
        });
    }));
    assert!(e.contains("has MIME type `text/html`"), "{e}");
    // An empty or duplicated visibility.
    for (v, why) in [
        (vec![], "empty"),
        (vec![UiVisibility::App, UiVisibility::App], "twice"),
    ] {
        let mut ui = UiToolMeta::new("ui://v/1");
        ui.visibility = v;
        let e = build_error(ok_tool(Tool::new("t").with_ui(ui))(
            base().ui_resource(view()),
        ));
        assert!(e.contains(why), "{e}");
    }
    // A malformed `_meta.ui` written by hand.
    let mut t = Tool::new("t");
    t.meta = Some(
        json!({"ui": {"resourceUri": 3}})
            .as_object()
            .unwrap()
            .clone(),
    );
    let e = build_error(ok_tool(t)(base()));
    assert!(e.contains("malformed"), "{e}");
    // CSP entries that are not origins.
    for (origin, why) in [
        ("https://a.example.com/path", "a path"),
        ("https://a.example.com?q=1", "query"),
        ("https://user:pw@a.example.com", "credentials"),
        ("ftp://a.example.com", "scheme"),
        ("a.example.com", "scheme://"),
    ] {
        let e = build_error(base().ui_resource(view().connect_domain(origin)));
        assert!(
            e.contains("csp.connectDomains") && e.contains(why),
            "{origin}: {e}"
        );
    }
    let e = build_error(base().ui_resource(view().frame_domain("javascript://x")));
    assert!(e.contains("csp.frameDomains"), "{e}");
    // HTML that is not a complete document.
    let e = build_error(base().ui_resource(UiResource::new("ui://v/2", "<p>hi</p>")));
    assert!(e.contains("not a complete document"), "{e}");
    let e =
        build_error(base().ui_resource(UiResource::new("ui://v/3", "<!DOCTYPE html><html><body>")));
    assert!(e.contains("no closing `</html>`"), "{e}");
    // A view declared twice on purpose is fine: the second replaces the first.
    assert!(
        base()
            .ui_resource(view())
            .ui_resource(view())
            .try_build()
            .is_ok()
    );
}

#[tokio::test]
async fn the_client_reads_ui_metadata_and_the_view() {
    use mcp::client::Client;
    use mcp::client::ConnectMode;
    use mcp::version::ProtocolVersion as V;
    let s = Full.into_server();
    for mode in [
        ConnectMode::Legacy(V::V2025_11_25),
        ConnectMode::Modern(V::V2026_07_28),
    ] {
        let c = Client::builder()
            .mode(mode)
            .extension(UI_EXTENSION, json!({"mimeTypes": [APP_MIME_TYPE]}))
            .connect(s.serve_in_memory())
            .await
            .unwrap();
        assert!(c.server_capabilities().has_extension(UI_EXTENSION));
        let tools = c.list_tools(None).await.unwrap();
        let show = tools.tools.iter().find(|t| t.name == "show").unwrap();
        let ui = show.ui().unwrap().unwrap();
        assert_eq!(ui.resource_uri, "ui://full/view");
        assert_eq!(ui.visibility, [UiVisibility::Model, UiVisibility::App]);
        let read = c.read_resource(&ui.resource_uri).await.unwrap();
        let ResourceContents::Text(t) = &read.contents[0] else {
            panic!("text")
        };
        assert_eq!(t.mime_type.as_deref(), Some(APP_MIME_TYPE));
        let r = c.call_tool("show", json!({})).await.unwrap();
        assert_eq!(
            r.content[0].as_text(),
            Some("shown in the view"),
            "{mode:?}"
        );
    }
}
