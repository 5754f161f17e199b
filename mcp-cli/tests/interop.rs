//! `mcp` against servers written with other SDKs: the official Python SDK
//! (`interop/client/python_server.py`) over stdio and Streamable HTTP at 2025-11-25 and
//! 2026-07-28, and the TypeScript reference `server-everything` (TypeScript SDK v1: legacy
//! revisions only) over stdio, Streamable HTTP and HTTP+SSE. Both are installed by
//! `interop/cli/setup.sh`; absent, these tests print a note and pass, unless
//! `MCP_CLI_INTEROP=require` (CI).

mod support;

use serde_json::json;
use support::{listen, mcp};

/// `mcp SUBCOMMAND --quiet --protocol REV TARGET REST...`.
async fn run(cmd: &str, rev: &str, target: &str, rest: &[&str]) -> support::Run {
    let mut args = vec![cmd, "--quiet", "--protocol", rev, target];
    args.extend_from_slice(rest);
    mcp(&args).await
}

async fn python_subcommands(target: &str, rev: &str) {
    let listed = run("list", rev, target, &["--json"]).await.expect(0).json();
    let names: Vec<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names.len(), 12, "{names:?}");
    assert!(
        names.contains(&"echo") && names.contains(&"changed"),
        "{names:?}"
    );
    assert_eq!(listed["prompts"][0]["name"], "greet");
    assert_eq!(listed["templates"][0]["uriTemplate"], "demo://notes/{id}");

    let echo = run("call", rev, target, &["echo", "message=hi"])
        .await
        .expect(0);
    assert_eq!(echo.stdout.lines().next(), Some("Echo: hi"), "{echo:#?}");
    let sum = run("call", rev, target, &["--json", "add", "a=2", "b=40"])
        .await
        .expect(0);
    assert_eq!(sum.json()["content"][0]["text"], "42");
    let weather = run("call", rev, target, &["--json", "weather", "city=Oslo"])
        .await
        .expect(0);
    assert_eq!(weather.json()["structuredContent"]["city"], "Oslo");
    let r = run("call", rev, target, &["nope"]).await.expect(4);
    assert!(
        r.stderr
            .contains("unknown tool `nope` (this server has: echo, add"),
        "{r:#?}"
    );

    let readme = run("read", rev, target, &["demo://readme"]).await.expect(0);
    assert_eq!(readme.stdout, "# Python server\n");
    let note = run("read", rev, target, &["demo://notes/7"])
        .await
        .expect(0);
    assert_eq!(note.stdout, "note 7\n");
    let greet = run(
        "prompt",
        rev,
        target,
        &["greet", "name=Ann", "style=warmly"],
    )
    .await;
    assert!(greet.expect(0).stdout.contains("user: Hello Ann, warmly!"));

    // The SDK describes `changed(uri: str | None = None)` as nullable: strict clients refuse
    // that, and inspect says so (exit 1), naming the tool and the place.
    let report = run("inspect", rev, target, &["--json"]).await.expect(1);
    let report = report.json();
    assert_eq!(report["protocolVersion"], rev);
    assert_eq!(report["server"]["name"], "python-interop-server");
    let problems = report["problems"].as_array().unwrap();
    assert_eq!(problems.len(), 1, "{problems:#?}");
    assert_eq!(problems[0]["tool"], "changed");
    assert_eq!(problems[0]["schema"], "inputSchema");
    let p = problems[0]["problem"].as_str().unwrap();
    assert!(
        p.starts_with("/properties/uri: an optional argument that is also nullable"),
        "{p}"
    );
    let text = run("inspect", rev, target, &[]).await.expect(1);
    assert!(
        text.stdout.contains("portability: 1 problem(s)"),
        "{text:#?}"
    );
    assert!(
        text.stderr
            .contains("1 tool schema(s) strict clients refuse"),
        "{text:#?}"
    );
}

#[tokio::test]
async fn the_python_sdk_server_over_stdio_and_http_in_both_eras() {
    let Some(python) = support::python() else {
        return;
    };
    let script = support::root().join("interop/client/python_server.py");
    let stdio = format!("{} {} stdio", python.display(), script.display());
    let server = listen(
        python.to_str().unwrap(),
        &[script.to_str().unwrap(), "http", "{port}"],
        false,
    )
    .await;
    let url = server.url("/mcp");
    for rev in ["2025-11-25", "2026-07-28"] {
        python_subcommands(&stdio, rev).await;
        python_subcommands(&url, rev).await;
    }
}

async fn ts_subcommands(target: &str, rev: &str) {
    let listed = run("list", rev, target, &["--json"]).await.expect(0).json();
    let tools = listed["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["name"] == "get-sum"), "{listed}");
    assert!(
        listed["prompts"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["name"] == "args-prompt")
    );
    let echo = run("call", rev, target, &["echo", "message=hi"])
        .await
        .expect(0);
    assert_eq!(echo.stdout, "Echo: hi\n");
    let sum = run("call", rev, target, &["get-sum", "a=2", "b=40"])
        .await
        .expect(0);
    assert_eq!(sum.stdout, "The sum of 2 and 40 is 42.\n");
    let text = run("read", rev, target, &["demo://resource/dynamic/text/1"])
        .await
        .expect(0);
    assert!(
        text.stdout
            .starts_with("Resource 1: This is a plaintext resource"),
        "{text:#?}"
    );
    let prompt = run("prompt", rev, target, &["args-prompt", "city=Paris"])
        .await
        .expect(0);
    assert_eq!(prompt.stdout, "user: What's weather in Paris?\n");
    let r = run("call", rev, target, &["nope"]).await.expect(4);
    assert!(
        r.stderr
            .contains("unknown tool `nope` (this server has: echo,"),
        "{r:#?}"
    );
    let report = run("inspect", rev, target, &["--json"])
        .await
        .expect(0)
        .json();
    assert_eq!(report["protocolVersion"], rev);
    assert_eq!(report["problems"], json!([]));
}

#[tokio::test]
async fn the_typescript_server_everything_over_stdio_http_and_sse() {
    let Some(entry) = support::ts_everything() else {
        return;
    };
    let entry = entry.to_str().unwrap().to_owned();
    let stdio = format!("node {entry} stdio");
    let http = listen("node", &[&entry, "streamableHttp"], true).await;
    let sse = listen("node", &[&entry, "sse"], true).await;
    for rev in ["2025-11-25", "2025-06-18"] {
        ts_subcommands(&stdio, rev).await;
        ts_subcommands(&http.url("/mcp"), rev).await;
    }
    ts_subcommands(&sse.url("/sse"), "2024-11-05").await;
    // Negotiated: the 2026 probe fails, the client falls back to initialize.
    let r = mcp(&["inspect", "--quiet", "--json", &stdio])
        .await
        .expect(0)
        .json();
    assert_eq!(r["protocolVersion"], "2025-11-25");
    // Pinned to 2026-07-28, a legacy-only server cannot be reached, and mcp says why.
    let r = run("list", "2026-07-28", &stdio, &[]).await.expect(3);
    assert!(r.stderr.contains("Method not found"), "{r:#?}");
}
