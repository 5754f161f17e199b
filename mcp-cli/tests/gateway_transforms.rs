//! `mcp gateway`'s tool transforms from the file (`gateway.servers.NAME.tools`), the built
//! binary in front of `examples/everything` over stdio, driven by `mcp` over HTTP in both
//! eras: a tool renamed and described anew, one argument renamed and one fixed to a value
//! (hidden from clients), a tool hidden; the old names answer as unknown tools; the rate
//! limit names the tool as clients see it; a reload (`--watch`) drops the transforms and
//! keeps the upstream's process; mistakes refused with their key and line, and a mistake
//! about a server down at start reported when it comes up. Every process has a timeout.

mod support;

use std::process::Stdio;
use std::time::Duration;

use serde_json::{Value, json};
use support::{ConfigFile, everything, free_port, listen, listen_on, mcp};

/// The file: `st` (everything over stdio) with `tools` as its transforms, and `rate` as
/// the rate limit's tools if given.
fn config(tools: Value, rate: Option<Value>) -> String {
    let mut file = json!({
        "mcpServers": {
            "st": { "command": everything(), "args": ["--stdio"], "env": { "RUST_LOG": "off" } }
        },
        "gateway": { "servers": { "st": { "tools": tools } } }
    });
    if let Some(rate) = rate {
        file["gateway"]["rateLimit"] = json!({ "tools": rate });
    }
    file.to_string()
}

/// `add` is `sum`, its `a` is `x` and its `b` always 10; `sleep` is hidden.
fn transforms() -> Value {
    json!({
        "add": { "name": "sum", "description": "Adds ten to x.",
                 "arguments": { "a": { "name": "x" }, "b": { "value": 10 } } },
        "sleep": { "hidden": true }
    })
}

/// `mcp list --json [--protocol REV] URL tools`: the tools as listed.
async fn listed(url: &str, rev: &str) -> Vec<Value> {
    let r = mcp(&["list", "--json", "--quiet", "--protocol", rev, url, "tools"]).await;
    let r = r.expect(0);
    r.json()["tools"].as_array().cloned().unwrap_or_default()
}

fn names(tools: &[Value]) -> Vec<&str> {
    tools.iter().filter_map(|t| t["name"].as_str()).collect()
}

#[tokio::test]
async fn the_files_transforms_rename_describe_fix_and_hide_in_both_eras_and_a_reload_drops_them() {
    let mut file = ConfigFile::new(&config(transforms(), Some(json!({ "sum": 3 }))));
    let args = [
        "gateway",
        "--config",
        file.path(),
        "--http",
        "127.0.0.1:{port}",
        "--watch",
    ];
    let gw = listen(env!("CARGO_BIN_EXE_mcp"), &args, false).await;
    let url = gw.url("/mcp");
    for rev in ["2025-11-25", "2026-07-28"] {
        let tools = listed(&url, rev).await;
        let names = names(&tools);
        assert!(names.contains(&"sum"), "{rev}: {names:?}");
        for gone in ["st_add", "st_sleep", "sleep"] {
            assert!(!names.contains(&gone), "{rev}: {gone} listed: {names:?}");
        }
        assert!(
            names.contains(&"st_countdown"),
            "the others stay: {names:?}"
        );
        let sum = tools.iter().find(|t| t["name"] == "sum").unwrap();
        assert_eq!(sum["description"], "Adds ten to x.", "{rev}");
        let props = sum["inputSchema"]["properties"].as_object().unwrap();
        let mut props: Vec<&str> = props.keys().map(String::as_str).collect();
        props.sort();
        assert_eq!(props, ["x"], "{rev}: a renamed, b hidden: {sum}");
        // `b` is 10 whatever the client sends for it.
        let args = ["call", "--protocol", rev, &url, "sum", "x=2", "b=1000"];
        let r = mcp(&args).await.expect(0);
        assert!(r.stdout.contains("12"), "{rev}: {r:#?}");
        // The old names are unknown tools.
        for old in ["st_add", "st_sleep"] {
            let r = mcp(&["call", "--protocol", rev, &url, old, "a=1", "b=1", "ms=1"]).await;
            assert_ne!(r.code, 0, "{rev}: {old} answered: {r:#?}");
            assert!(r.stderr.contains("nknown tool"), "{rev}: {old}: {r:#?}");
        }
    }
    // The rate limit names `sum` as clients see it: 3 a minute, two spent above.
    mcp(&["call", &url, "sum", "x=1"]).await.expect(0);
    let r = mcp(&["call", &url, "sum", "x=1"]).await.expect(4);
    assert!(r.stderr.contains("retry after"), "{r:#?}");

    // Reloaded without transforms: the upstream's own names again, its process kept (the
    // tool it added at run time is still there).
    mcp(&["call", &url, "st_enable_echo"]).await.expect(0);
    file.rewrite(&config(json!({}), None));
    let mut names_now = Vec::new();
    for _ in 0..40 {
        names_now = listed(&url, "2025-11-25").await;
        if names(&names_now).contains(&"st_add") {
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let names = names(&names_now);
    assert!(
        names.contains(&"st_add") && names.contains(&"st_sleep"),
        "{names:?}"
    );
    assert!(!names.contains(&"sum"), "{names:?}");
    assert!(names.contains(&"st_echo"), "the same process: {names:?}");
}

#[tokio::test]
async fn mistaken_transforms_are_refused_naming_the_key() {
    // A tool or argument the server does not have: the key and the name.
    for (tools, says) in [
        (
            json!({ "ad": { "name": "sum" } }),
            "gateway.servers.st.tools: transform of tool `st_ad`: the server has no such tool",
        ),
        (
            json!({ "add": { "arguments": { "c": { "value": 1 } } } }),
            "gateway.servers.st.tools: transform of tool `st_add`: it has no argument `c`",
        ),
        (
            json!({ "add": { "name": "st_echo_twice" }, "countdown": { "name": "st_echo_twice" } }),
            "two tools would be named `st_echo_twice`",
        ),
    ] {
        let file = ConfigFile::new(&config(tools, None));
        let r = mcp(&["gateway", "--config", file.path(), "--stdio"]).await;
        let r = r.expect(2);
        assert!(r.stderr.contains(says), "{says}: {r:#?}");
    }
    // A malformed entry: its key and line, and nothing starts.
    let text = config(json!({ "add": { "hidden": "yes" } }), None);
    let text = serde_json::to_string_pretty(&serde_json::from_str::<Value>(&text).unwrap());
    let file = ConfigFile::new(&text.unwrap());
    let r = mcp(&["gateway", "--config", file.path(), "--stdio"])
        .await
        .expect(2);
    assert!(
        r.stderr
            .contains("`gateway.servers.st.tools.add.hidden`: expected true or false"),
        "{r:#?}"
    );
    assert!(r.stderr.contains("line "), "{r:#?}");
}

/// A transform of a server that is down when the gateway starts is taken as written (its
/// tools are not known); when the server comes up without that tool, the gateway says so
/// on its stderr, naming the key, once, and serves on.
#[tokio::test]
async fn a_transform_of_a_server_down_at_start_is_checked_when_it_comes_up() {
    let web_port = free_port();
    let file = ConfigFile::new(
        &json!({
            "mcpServers": {
                "st": { "command": everything(), "args": ["--stdio"], "env": { "RUST_LOG": "off" } },
                "web": { "url": format!("http://127.0.0.1:{web_port}/mcp") }
            },
            "gateway": { "servers": { "web": {
                "healthInterval": 1, "timeout": 5,
                "tools": { "no_such_tool": { "hidden": true } }
            } } }
        })
        .to_string(),
    );
    let log = std::env::temp_dir().join(format!(
        "mcp-gateway-late-{}-{web_port}.log",
        std::process::id()
    ));
    let stderr = Stdio::from(std::fs::File::create(&log).unwrap());
    let args = [
        "gateway",
        "--config",
        file.path(),
        "--http",
        "127.0.0.1:{port}",
    ];
    let gw = listen_on(env!("CARGO_BIN_EXE_mcp"), &args, free_port(), false, stderr).await;
    let said = || std::fs::read_to_string(&log).unwrap_or_default();
    assert!(!said().contains("gateway.servers.web.tools"), "{}", said());

    let everything = everything().to_str().unwrap().to_owned();
    let _web = listen_on(
        &everything,
        &["--http", "127.0.0.1:{port}"],
        web_port,
        false,
        Stdio::null(),
    )
    .await;
    let mut found = false;
    for _ in 0..120 {
        if said().contains("gateway.servers.web.tools") {
            found = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    let text = said();
    assert!(found, "{text}");
    assert!(text.contains("no_such_tool"), "{text}");
    // Once, however long it stays up; and the gateway serves on.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert_eq!(
        said().matches("gateway.servers.web.tools").count(),
        1,
        "{}",
        said()
    );
    let r = mcp(&["call", &gw.url("/mcp"), "web_add", "a=40", "b=2"]).await;
    assert!(r.expect(0).stdout.contains("42"));
    let _ = std::fs::remove_file(&log);
}
