//! `mcp::proxy::ClientGroup`: one client of the three servers of one `mcpServers` file —
//! `examples/everything` over stdio, the same over Streamable HTTP on a port of the test's,
//! and `tests/examples/client_matrix_server` over stdio — listed under their prefixes and
//! the file's tool transforms, each called through the group; the HTTP one killed leaves
//! the list while the others answer, its state says why, and it comes back when started
//! again on its port. Every process is killed when dropped and every wait is bounded.

#[path = "support/examples.rs"]
mod examples;

use std::process::Stdio;
use std::time::Duration;

use mcp::proxy::ClientGroup;
use serde_json::json;
use tokio::process::{Child, Command};

fn example(name: &str) -> String {
    let path = match name {
        "everything" => examples::built("mcp-framework", name, &["http"]),
        _ => examples::built(examples::TESTS, name, &[]),
    };
    path.to_str().unwrap().to_owned()
}

/// `everything --http 127.0.0.1:PORT`, waited for until it listens (30 s at most).
async fn everything_http(port: u16) -> Child {
    let mut child = Command::new(example("everything"))
        .args(["--http", &format!("127.0.0.1:{port}")])
        .env("RUST_LOG", "off")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    for _ in 0..300 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return child;
        }
        assert!(child.try_wait().unwrap().is_none(), "everything exited");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("everything did not listen on {port}");
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

async fn tool_names(group: &ClientGroup) -> Vec<String> {
    let tools = group.client().list_all_tools().await.unwrap();
    tools.into_iter().map(|t| t.name).collect()
}

/// Waits (20 s at most) until the group's tool list satisfies `ok`.
async fn until(group: &ClientGroup, what: &str, ok: impl Fn(&[String]) -> bool) {
    for _ in 0..80 {
        if ok(&tool_names(group).await) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("{what}: last list {:?}", tool_names(group).await);
}

fn text(r: &mcp::types::CallToolResult) -> String {
    r.content[0].as_text().expect("a text block").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_servers_from_one_file_listed_called_and_one_restarted() {
    let _ = (example("everything"), example("client_matrix_server"));
    let port = free_port();
    let mut web = Some(everything_http(port).await);
    let dir = std::env::temp_dir().join(format!("mcp-client-group-{}-{port}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    std::fs::write(
        &file,
        json!({
            "mcpServers": {
                "st": { "command": example("everything"), "args": ["--stdio"], "env": { "RUST_LOG": "off" } },
                "web": { "url": format!("http://127.0.0.1:{port}/mcp") },
                "matrix": { "command": example("client_matrix_server"), "args": ["--stdio"], "env": { "RUST_LOG": "off" } }
            },
            "gateway": { "servers": {
                "web": { "healthInterval": 1, "timeout": 5 },
                // As `mcp gateway` shows them: renamed, an argument fixed, one hidden.
                "st": { "tools": {
                    "add": { "name": "plus_two", "description": "Adds two.",
                             "arguments": { "b": { "value": 2 } } },
                    "stats": { "hidden": true }
                } }
            } }
        })
        .to_string(),
    )
    .unwrap();

    tokio::time::timeout(Duration::from_secs(120), async {
        let group = ClientGroup::from_file(&file).await.unwrap();
        assert!(
            group.states().iter().all(|s| s.down.is_none()),
            "{:?}",
            group.states()
        );
        let names = tool_names(&group).await;
        for t in ["plus_two", "web_add", "web_stats", "matrix_stats"] {
            assert!(names.contains(&t.to_owned()), "{t}: {names:?}");
        }
        for t in ["st_add", "st_stats"] {
            assert!(!names.contains(&t.to_owned()), "{t}: {names:?}");
        }
        let tools = group.client().list_all_tools().await.unwrap();
        let plus = tools.iter().find(|t| t.name == "plus_two").unwrap();
        assert_eq!(plus.description.as_deref(), Some("Adds two."));
        let schema = serde_json::to_string(&plus.input_schema).unwrap();
        assert!(!schema.contains("\"b\""), "{schema}");
        // Each call goes to its own server; the fixed argument replaces a client's.
        let c = group.client();
        let add = |a: i64| json!({"a": a, "b": 2});
        let plus_two = json!({"a": 40, "b": 1000});
        assert_eq!(
            text(&c.call_tool("plus_two", plus_two).await.unwrap()),
            "42"
        );
        let hidden = c.call_tool("st_stats", json!({})).await;
        assert!(
            hidden.is_err() || hidden.as_ref().unwrap().is_error == Some(true),
            "{hidden:?}"
        );
        assert_eq!(text(&c.call_tool("web_add", add(1)).await.unwrap()), "3");
        c.call_tool("matrix_stats", json!({})).await.unwrap();

        // The HTTP server dies: its tools leave, the others answer, its state says why.
        drop(web.take());
        until(&group, "web's tools leave", |n| {
            !n.iter().any(|t| t.starts_with("web_"))
        })
        .await;
        assert_eq!(
            text(&c.call_tool("plus_two", json!({"a": 0})).await.unwrap()),
            "2"
        );
        c.call_tool("matrix_stats", json!({})).await.unwrap();
        let e = c.call_tool("web_add", add(1)).await;
        assert!(
            e.is_err() || e.as_ref().unwrap().is_error == Some(true),
            "{e:?}"
        );
        let web_state = group
            .states()
            .into_iter()
            .find(|s| s.name == "web")
            .unwrap();
        assert!(web_state.down.is_some(), "{web_state:?}");

        // Started again on its port: back in the list and called.
        web = Some(everything_http(port).await);
        until(&group, "web's tools return", |n| {
            n.contains(&"web_add".to_owned())
        })
        .await;
        assert_eq!(text(&c.call_tool("web_add", add(5)).await.unwrap()), "7");
        assert!(group.states().iter().all(|s| s.down.is_none()));
    })
    .await
    .expect("the test's steps within 120 s");
    drop(web);
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn a_bad_file_or_an_api_entry_is_a_clear_error() {
    let dir = std::env::temp_dir().join(format!("mcp-client-group-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mcp.json");
    std::fs::write(&file, "{\"mcpServers\": {\"a\": {\"command\": 3}}}").unwrap();
    let e = ClientGroup::from_file(&file).await.err().expect("refused");
    assert!(e.to_string().contains("mcpServers.a.command"), "{e}");
    std::fs::write(
        &file,
        json!({"mcpServers": {}, "gateway": {"servers": {"pets": {"openapi": "pets.json"}}}})
            .to_string(),
    )
    .unwrap();
    let e = ClientGroup::from_file(&file).await.err().expect("refused");
    assert!(e.to_string().contains("not an MCP server"), "{e}");
    // A transform of a tool the server lacks, found once the server answers.
    let _ = example("client_matrix_server");
    std::fs::write(
        &file,
        json!({
            "mcpServers": { "m": { "command": example("client_matrix_server"), "args": ["--stdio"],
                                   "env": { "RUST_LOG": "off" } } },
            "gateway": { "servers": { "m": { "tools": { "nope": { "hidden": true } } } } }
        })
        .to_string(),
    )
    .unwrap();
    let e = tokio::time::timeout(Duration::from_secs(60), ClientGroup::from_file(&file))
        .await
        .expect("within 60 s")
        .err()
        .expect("refused");
    assert!(e.to_string().contains("gateway.servers.m.tools"), "{e}");
    let e = ClientGroup::from_file(dir.join("absent.json"))
        .await
        .err()
        .expect("refused");
    assert!(e.to_string().contains("cannot read it"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}
