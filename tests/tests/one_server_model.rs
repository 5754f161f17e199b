//! One server model: a `#[mcp::server]` table with run-time entries beside its declared
//! ones (and `list_changed` sent), `Server::builder(..).handler(X)` keeping what `X`
//! declares, and the settings keys of `#[mcp::server(...)]`, driven with `mcp::client::Client` in
//! both eras.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use mcp::client::Client;
use mcp::client::{ConnectMode, ServerNotification};
use mcp::prelude::*;
use mcp::types::{ReadResourceResult, Resource, ResourceContents, SubscriptionFilter};
use mcp::{HandleError, ServerHandler};
use serde_json::json;

use ProtocolVersion as V;

/// A notebook whose notes are resources: the index is declared, each note is added at run
/// time by the `write` tool.
struct Notebook {
    written: AtomicUsize,
}

#[mcp::server(
    name = "notebook",
    instructions = "Write notes, then read them.",
    subscriptions
)]
impl Notebook {
    /// How many notes were written.
    #[resource("notes://index")]
    async fn index(&self) -> String {
        format!("{} notes", self.written.load(Ordering::SeqCst))
    }

    /// Writes a note, served from then on as `notes://NAME`.
    #[tool]
    async fn write(&self, ctx: &Context, name: String, text: String) -> Result<String, ToolError> {
        let server = ctx.server().expect("a tool has the server handle");
        let uri = format!("notes://{name}");
        server
            .add_resource(Resource::new(&uri, &name), move |_ctx, uri| {
                let text = text.clone();
                async move {
                    Ok(ReadResourceResult {
                        contents: vec![ResourceContents::text(uri, text)],
                        ..Default::default()
                    })
                }
            })
            .map_err(|e| ToolError::new(e.to_string()))?;
        self.written.fetch_add(1, Ordering::SeqCst);
        Ok(uri)
    }
}

fn notebook() -> Notebook {
    Notebook {
        written: AtomicUsize::new(0),
    }
}

async fn connect(
    server: &Server<impl mcp::middleware::Chain + 'static, impl ServerHandler>,
    mode: ConnectMode,
) -> Client {
    Client::builder()
        .mode(mode)
        .connect(server.serve_in_memory())
        .await
        .expect("connects")
}

async fn next_kind(rx: &mut tokio::sync::broadcast::Receiver<ServerNotification>, method: &str) {
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            let n = rx.recv().await.expect("notifications flow");
            if n.method == method {
                return;
            }
        }
    })
    .await
    .unwrap_or_else(|_| panic!("no {method} within 5 s"));
}

fn uris(list: &[Resource]) -> Vec<&str> {
    list.iter().map(|r| r.uri.as_str()).collect()
}

#[tokio::test]
async fn a_macro_server_gains_a_resource_at_run_time_and_a_legacy_client_sees_it_after_list_changed()
 {
    let server = notebook().into_server();
    let client = connect(&server, ConnectMode::Legacy(V::V2025_11_25)).await;
    assert_eq!(
        client.session().instructions.as_deref(),
        Some("Write notes, then read them.")
    );
    assert!(client.server_capabilities().resources_list_changed());
    let mut rx = client.notifications();
    assert_eq!(
        uris(&client.list_all_resources().await.unwrap()),
        ["notes://index"]
    );

    let r = client
        .call_tool("write", json!({"name": "groceries", "text": "eggs"}))
        .await
        .unwrap();
    assert_ne!(r.is_error, Some(true), "{r:?}");
    next_kind(&mut rx, "notifications/resources/list_changed").await;
    assert_eq!(
        uris(&client.list_all_resources().await.unwrap()),
        ["notes://index", "notes://groceries"]
    );
    let read = client.read_resource("notes://groceries").await.unwrap();
    assert_eq!(
        serde_json::to_value(&read.contents[0]).unwrap()["text"],
        "eggs"
    );
    // The declared reader still answers, and sees the state the tool changed.
    let index = client.read_resource("notes://index").await.unwrap();
    assert_eq!(
        serde_json::to_value(&index.contents[0]).unwrap()["text"],
        "1 notes"
    );
}

#[tokio::test]
async fn a_macro_server_gains_a_resource_at_run_time_and_a_2026_listener_hears_of_it() {
    let server = notebook().into_server();
    let client = connect(&server, ConnectMode::Modern(V::V2026_07_28)).await;
    let mut sub = client
        .listen(SubscriptionFilter {
            resources_list_changed: Some(true),
            ..SubscriptionFilter::default()
        })
        .await
        .unwrap();
    client
        .call_tool("write", json!({"name": "todo", "text": "ship"}))
        .await
        .unwrap();
    let n = tokio::time::timeout(Duration::from_secs(5), sub.next())
        .await
        .expect("a notification within 5 s")
        .expect("the stream is open");
    assert_eq!(n.method, "notifications/resources/list_changed");
    assert!(uris(&client.list_all_resources().await.unwrap()).contains(&"notes://todo"));
}

#[tokio::test]
async fn a_run_time_entry_cannot_take_a_declared_name() {
    let server = notebook().into_server();
    let e = server
        .handle()
        .add_resource(
            Resource::new("notes://index", "clash"),
            |_ctx, _uri| async { Ok(ReadResourceResult::default()) },
        )
        .unwrap_err();
    assert!(
        matches!(&e, HandleError::Conflict(m) if m.contains("notes://index")),
        "{e}"
    );
    // Nothing changed: the declared reader still answers.
    let client = connect(&server, ConnectMode::Legacy(V::V2025_06_18)).await;
    let index = client.read_resource("notes://index").await.unwrap();
    assert_eq!(
        serde_json::to_value(&index.contents[0]).unwrap()["text"],
        "0 notes"
    );
}

// ---------------------------------------------------------------------------------------
// The builder keeps what the table declares.

/// Counts the requests it sees and stamps the tool results it passes back.
#[mcp::middleware]
async fn counted(ctx: Context, next: Next<'_>) -> HandlerResult {
    SEEN.fetch_add(1, Ordering::SeqCst);
    next.run(ctx).await
}

static SEEN: AtomicUsize = AtomicUsize::new(0);

/// Echoes its text.
#[mcp::tool]
async fn echo(text: String) -> String {
    text
}

#[mcp::server(
    name = "declared",
    instructions = "Echo things.",
    tools(echo),
    middleware(counted),
    title = "The Echo Server",
    page_size = 1
)]
struct Declared;

/// The builder's own layer: records how many requests the table's layer had seen when it
/// ran (so which of the two ran first).
#[mcp::middleware]
async fn outer(ctx: Context, next: Next<'_>) -> HandlerResult {
    OUTER_LOG.lock().unwrap().push(SEEN.load(Ordering::SeqCst));
    next.run(ctx).await
}

static OUTER_LOG: std::sync::Mutex<Vec<usize>> = std::sync::Mutex::new(Vec::new());

#[tokio::test]
async fn the_builder_keeps_the_tables_instructions_middleware_and_settings_and_adds_to_them() {
    let server = Server::builder("composed", "2.0.0")
        .handler(Declared)
        .middleware(outer)
        .build();
    let before = SEEN.load(Ordering::SeqCst);
    let client = connect(&server, ConnectMode::Legacy(V::V2025_11_25)).await;
    let session = client.session();
    assert_eq!(session.instructions.as_deref(), Some("Echo things."));
    let info = session.server_info.unwrap();
    assert_eq!(
        (info.name.as_str(), info.version.as_str()),
        ("composed", "2.0.0")
    );
    assert_eq!(info.title.as_deref(), Some("The Echo Server"));
    let r = client
        .call_tool("echo", json!({"text": "hi"}))
        .await
        .unwrap();
    assert_eq!(serde_json::to_value(&r.content[0]).unwrap()["text"], "hi");
    // Both layers saw initialize and the call; the builder's ran first (outside).
    let log = OUTER_LOG.lock().unwrap().clone();
    assert!(log.len() >= 2, "{log:?}");
    assert!(SEEN.load(Ordering::SeqCst) - before >= 2);
    assert_eq!(
        log[0], before,
        "the builder's layer runs before the table's: {log:?}"
    );
    // page_size = 1 from the table.
    let page = client.list_tools(None).await.unwrap();
    assert_eq!(page.tools.len(), 1);
}

#[tokio::test]
async fn a_builder_setting_after_handler_replaces_the_declared_one() {
    let server = Server::builder("composed", "2.0.0")
        .handler(Declared)
        .instructions("Replaced.")
        .build();
    let client = connect(&server, ConnectMode::Modern(V::V2026_07_28)).await;
    assert_eq!(client.session().instructions.as_deref(), Some("Replaced."));
}

// ---------------------------------------------------------------------------------------
// Settings keys.

#[mcp::server(
    name = "settings",
    tools(echo),
    versions("2025-11-25", "2026-07-28"),
    cache(ttl_ms = 60000, scope = "public", method = "tools/list"),
    tracing = false,
    max_listens = 1,
    subscriptions
)]
struct Settings;

#[tokio::test]
async fn the_settings_keys_reach_the_server() {
    let server = Settings.into_server();
    // versions: 2025-06-18 is not served; the server answers with the legacy revision it has.
    if let Ok(old) = Client::builder()
        .mode(ConnectMode::Legacy(V::V2025_06_18))
        .connect(server.serve_in_memory())
        .await
    {
        assert_eq!(old.protocol_version(), V::V2025_11_25);
    }
    let client = connect(&server, ConnectMode::Modern(V::V2026_07_28)).await;
    let list = client.list_tools(None).await.unwrap();
    let v = serde_json::to_value(&list).unwrap();
    assert_eq!(v["ttlMs"], 60000, "{v}");
    assert_eq!(v["cacheScope"], "public", "{v}");
    // max_listens = 1: a second listen is refused.
    let filter = SubscriptionFilter {
        tools_list_changed: Some(true),
        ..SubscriptionFilter::default()
    };
    let _first = client.listen(filter.clone()).await.unwrap();
    assert!(client.listen(filter).await.is_err());
}
