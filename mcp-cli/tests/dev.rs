//! `mcp dev`: a small cargo project (a stdio server on our framework, a path dependency on
//! this workspace, built into this build's target directory so only the project itself
//! compiles after the first time) is run through `mcp dev`; a client attached to `mcp dev`
//! lists one tool, the test edits the source to add a second, and the same client is told
//! `notifications/tools/list_changed` and lists both, at 2025-11-25 and at 2026-07-28.
//!
//! The first run compiles the framework with its default features (a minute or two on two
//! cores); each edit then rebuilds only the project.

mod support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_core::version::ProtocolVersion;
use mcp_runtime::client::{Client, ConnectMode};
use serde_json::json;

const MAIN: &str = r#"/// The first tool.
#[mcp::tool]
async fn alpha() -> String {
    "alpha".into()
}

// EXTRA

#[mcp::server(name = "dev-fixture", tools(alpha /* MORE */))]
struct Fixture;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    Fixture.serve_stdio().await
}
"#;

/// The project in a fresh directory, its lock file the workspace's (so nothing new is
/// resolved and `--offline` holds).
fn project(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mcp-cli-dev-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"dev-fixture\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         [dependencies]\nmcp = {{ package = \"mcp-framework\", path = {:?} }}\n\
         tokio = {{ version = \"1.47\", features = [\"rt-multi-thread\", \"macros\"] }}\n\n[workspace]\n",
        support::root().display().to_string()
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(support::root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    std::fs::write(dir.join("src/main.rs"), MAIN).unwrap();
    dir
}

/// This build's target directory (the project's dependencies are built there once).
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.ancestors()
        .nth(3)
        .expect("<target>/<profile>/deps/<exe>")
        .to_path_buf()
}

fn add_beta(dir: &Path) {
    let src = MAIN
        .replace(
            "// EXTRA",
            "/// The tool added while the server ran.\n#[mcp::tool]\nasync fn beta() -> String {\n    \"beta\".into()\n}",
        )
        .replace("/* MORE */", ", beta");
    std::fs::write(dir.join("src/main.rs"), src).unwrap();
}

async fn names(client: &Client) -> Vec<String> {
    let tools = client.list_all_tools().await.expect("tools/list");
    tools.into_iter().map(|t| t.name).collect()
}

async fn restart_shows_the_new_tool(version: ProtocolVersion) {
    let dir = project(version.as_str());
    let mut cmd = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp"));
    cmd.arg("dev")
        .arg("--manifest-path")
        .arg(dir.join("Cargo.toml"))
        .arg("--target-dir")
        .arg(target_dir())
        .arg("--offline");
    let mode = match version.era() {
        mcp_core::version::Era::Legacy => ConnectMode::Legacy(version),
        mcp_core::version::Era::Modern => ConnectMode::Modern(version),
    };
    // The first build may take minutes: the handshake waits for it.
    let client = Client::builder()
        .mode(mode)
        .no_cache()
        .request_timeout(Duration::from_secs(900))
        .spawn(cmd)
        .await
        .expect("a session through mcp dev");
    assert_eq!(client.protocol_version(), version);
    assert_eq!(names(&client).await, ["alpha"]);
    let mut notes = client.notifications();

    add_beta(&dir);
    let changed = tokio::time::timeout(Duration::from_secs(600), async {
        loop {
            let n = notes.recv().await.expect("the notification stream");
            if n.method == "notifications/tools/list_changed" {
                break;
            }
        }
    })
    .await;
    assert!(
        changed.is_ok(),
        "no tools/list_changed within 600 s of the edit"
    );
    assert_eq!(names(&client).await, ["alpha", "beta"]);
    let r = client
        .call_tool("beta", json!({}))
        .await
        .expect("tools/call beta");
    assert_eq!(serde_json::to_value(&r.content).unwrap()[0]["text"], "beta");
    let _ = client.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}

#[tokio::test]
async fn an_edit_restarts_the_server_and_the_attached_client_sees_the_new_tool() {
    restart_shows_the_new_tool(ProtocolVersion::V2025_11_25).await;
    restart_shows_the_new_tool(ProtocolVersion::V2026_07_28).await;
}
