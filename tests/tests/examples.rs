//! The examples that serve, run as a user would run them: `examples/notes.rs` driven in
//! process by `mcp::client::Client`, `examples/axum_app.rs` on loopback through HTTP. (`testing.rs`
//! runs its own tests; `https_client.rs` runs in `tests/client_tls.rs`.)

#[path = "../../examples/notes.rs"]
#[allow(dead_code)]
mod notes;

#[path = "../../examples/axum_app.rs"]
#[allow(dead_code)]
mod axum_app;

use std::sync::{Arc, Mutex};

use mcp::client::RequestOptions;
use serde_json::{Value, json};

#[tokio::test]
async fn the_notes_server_does_what_its_tools_resources_and_prompt_say() {
    let client =
        mcp::client::Client::connect(notes::Notes::default().into_server().serve_in_memory())
            .await
            .unwrap();
    assert!(
        client
            .session()
            .instructions
            .as_deref()
            .unwrap()
            .contains("add_note"),
        "instructions are the server's own"
    );

    // A struct, an enum and an optional argument in; structured output back.
    let added: Value = client
        .call_tool_structured(
            "add_note",
            json!({"note": {"title": "Groceries", "body": "Milk, eggs", "tags": ["home"]},
                   "priority": "high"}),
        )
        .await
        .unwrap();
    assert_eq!(added["id"], 1);
    assert_eq!(added["priority"], "high");
    let second: Value = client
        .call_tool_structured(
            "add_note",
            json!({"note": {"title": "Ideas", "body": "Eggs benedict"}}),
        )
        .await
        .unwrap();
    assert_eq!(
        (second["id"].clone(), second["priority"].clone()),
        (json!(2), json!("normal"))
    );
    let bad = client
        .call_tool(
            "add_note",
            json!({"note": {"title": "x", "body": "y"}, "priority": "urgent"}),
        )
        .await
        .unwrap();
    assert_eq!(
        bad.is_error,
        Some(true),
        "an unknown priority is a tool error"
    );

    let found: Value = client
        .call_tool_structured("search", json!({"text": "EGGS"}))
        .await
        .unwrap();
    assert_eq!(found["notes"].as_array().unwrap().len(), 2);
    let tagged: Value = client
        .call_tool_structured("search", json!({"text": "eggs", "tag": "home"}))
        .await
        .unwrap();
    assert_eq!(tagged["notes"][0]["title"], "Groceries");
    assert_eq!(tagged["notes"].as_array().unwrap().len(), 1);

    // Progress, one report per note.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    let r = client
        .call_tool_with(
            "reindex",
            json!({}),
            RequestOptions::with_progress(move |p| log.lock().unwrap().push(p.progress)),
        )
        .await
        .unwrap();
    assert_eq!(r.content[0].as_text(), Some("2 notes reindexed"));
    assert_eq!(*seen.lock().unwrap(), [1.0, 2.0]);

    // The resource template, and a note that is not there.
    let r = client.read_resource("notes://1").await.unwrap();
    let note = serde_json::to_value(&r.contents[0]).unwrap();
    assert_eq!(note["text"], "# Groceries\n\nMilk, eggs");
    assert_eq!(note["mimeType"], "text/markdown");
    assert!(client.read_resource("notes://9").await.is_err());

    let p = client
        .get_prompt("summarize", [("id", "2"), ("style", "three words")])
        .await
        .unwrap();
    let text = serde_json::to_value(&p.messages[0]).unwrap()["content"]["text"].clone();
    assert!(
        text.as_str()
            .unwrap()
            .starts_with("Summarize this note in three words:"),
        "{text}"
    );
    let e = client
        .get_prompt("summarize", [("id", "two")])
        .await
        .unwrap_err();
    assert_eq!(e.code(), Some(-32602));
}

#[tokio::test]
async fn the_axum_app_serves_its_routes_and_mcp_behind_its_token() {
    use mcp::transport::http::axum;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let url = format!("http://{addr}/mcp");
    let (router, _handle) = axum_app::app(&url, "s3cret".into());
    let server = tokio::spawn(async move { axum::serve(listener, router).await });

    // The app's own route, and CORS for a browser client.
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let req = format!(
        "OPTIONS /mcp HTTP/1.1\r\nhost: {addr}\r\norigin: http://localhost:6274\r\naccess-control-request-method: POST\r\naccess-control-request-headers: authorization, mcp-session-id\r\nconnection: close\r\n\r\n"
    );
    let preflight = exchange(&mut tcp, &req).await.to_lowercase();
    assert!(preflight.starts_with("http/1.1 200"), "{preflight}");
    assert!(
        preflight.contains("access-control-allow-headers:"),
        "{preflight}"
    );
    assert!(preflight.contains("mcp-session-id"), "{preflight}");
    let mut tcp = tokio::net::TcpStream::connect(addr).await.unwrap();
    let health = exchange(
        &mut tcp,
        &format!("GET /health HTTP/1.1\r\nhost: {addr}\r\nconnection: close\r\n\r\n"),
    )
    .await;
    assert!(
        health.starts_with("HTTP/1.1 200") && health.ends_with("ok"),
        "{health}"
    );

    // No token: refused with a plain bearer challenge. The token: served.
    let refused = mcp::client::Client::builder()
        .connect_http(&url)
        .await
        .unwrap_err();
    assert_eq!(refused.http_status(), Some(401), "{refused}");
    let client = mcp::client::Client::builder()
        .bearer_token("s3cret")
        .connect_http(&url)
        .await
        .unwrap();
    let r = client.call_tool("whoami", ()).await.unwrap();
    assert_eq!(r.content[0].as_text(), Some("hello, operator"));
    client.close().await.unwrap();
    server.abort();
}

/// Sends `req` and reads the whole answer (the request asks the server to close).
async fn exchange(tcp: &mut tokio::net::TcpStream, req: &str) -> String {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    tcp.write_all(req.as_bytes()).await.unwrap();
    let mut out = Vec::new();
    tokio::time::timeout(std::time::Duration::from_secs(5), tcp.read_to_end(&mut out))
        .await
        .expect("an answer within 5 s")
        .unwrap();
    String::from_utf8_lossy(&out).into_owned()
}

/// `examples/` teaches: every file in it is in the README's table of examples, every file
/// the table names exists, and every example the facade builds is in the table. (Fixtures
/// live in `tests/examples/`.)
#[test]
fn the_readme_table_lists_every_file_in_examples_and_nothing_else() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).unwrap();
    // The first column of the table's rows: `examples/x.rs` (and its view) ...
    let listed: Vec<String> = (readme.lines())
        .filter(|l| l.starts_with("| `examples/"))
        .flat_map(|l| {
            let first = l.split('|').nth(1).unwrap_or("");
            let names: Vec<String> = (first.split('`').skip(1).step_by(2))
                .filter(|n| n.starts_with("examples/"))
                .map(str::to_owned)
                .collect();
            names
        })
        .collect();
    let mut files: Vec<String> = std::fs::read_dir(format!("{root}/examples"))
        .unwrap()
        .map(|e| format!("examples/{}", e.unwrap().file_name().to_string_lossy()))
        .collect();
    files.sort();
    let mut in_table = listed.clone();
    in_table.sort();
    assert_eq!(files, in_table, "examples/ and the README's table differ");
    // Every `[[example]]` of the facade is a file of the table.
    let manifest = std::fs::read_to_string(format!("{root}/Cargo.toml")).unwrap();
    for block in manifest.split("[[example]]").skip(1) {
        let name = block
            .lines()
            .find_map(|l| l.strip_prefix("name = "))
            .unwrap();
        let file = format!("examples/{}.rs", name.trim_matches('"'));
        assert!(
            listed.contains(&file),
            "{file} is built but not in the README's table"
        );
    }
}
