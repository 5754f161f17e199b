//! `mcp list | call | read | prompt | inspect` against `examples/everything`: over stdio,
//! Streamable HTTP and HTTP+SSE, at 2025-11-25 (`initialize`) and 2026-07-28
//! (`server/discover`); then the errors and exit codes of bad usage, unreachable targets,
//! unknown tools and resources.

mod support;

use serde_json::json;
use support::{everything, everything_stdio, listen, mcp};

const ERAS: [&str; 2] = ["2025-11-25", "2026-07-28"];

/// Every subcommand against one target at one revision.
async fn every_subcommand(target: &str, rev: &str) {
    let base = ["--quiet", "--protocol", rev];
    let with = |cmd: &'static str, rest: &[&'static str]| {
        let mut v = vec![cmd];
        v.extend(base);
        v.push(target);
        v.extend_from_slice(rest);
        v
    };
    // list: tables by default, JSON with --json.
    let table = mcp(&with("list", &[])).await.expect(0).stdout;
    assert!(table.contains("tools (15)"), "{table}");
    let add = table.lines().find(|l| l.starts_with("add "));
    let add: Vec<&str> = add.expect("a row for add").split_whitespace().collect();
    assert_eq!(
        add,
        ["add", "a:integer", "b:integer", "Adds", "two", "integers."]
    );
    assert!(table.contains("everything://notes/{id}"), "{table}");
    assert!(table.contains("greet"), "{table}");
    let listed = mcp(&with("list", &["--json", "tools", "prompts"]))
        .await
        .expect(0)
        .json();
    assert_eq!(
        listed["tools"].as_array().map(Vec::len),
        Some(15),
        "{listed}"
    );
    assert!(
        listed.get("resources").is_none(),
        "only the kinds named: {listed}"
    );
    assert_eq!(listed["prompts"][0]["name"], "greet");

    // call: numbers, strings, JSON objects as key=value.
    let sum = mcp(&with("call", &["add", "a=2", "b=40"])).await.expect(0);
    assert_eq!(sum.stdout, "42\n");
    let weather = mcp(&with("call", &["--json", "weather", "city=Paris"]))
        .await
        .expect(0)
        .json();
    assert_eq!(weather["structuredContent"]["city"], "Paris", "{weather}");
    let failed = mcp(&with("call", &["add", "a=2", "b=x"])).await.expect(1);
    assert!(
        failed
            .stdout
            .contains("argument \"b\": expected an integer"),
        "{failed:#?}"
    );
    assert!(
        failed.stderr.contains("tool `add` answered with isError"),
        "{failed:#?}"
    );

    // read and prompt.
    let note = mcp(&with("read", &["everything://notes/3"]))
        .await
        .expect(0);
    assert_eq!(note.stdout, "This is note 3.\n");
    let greet = mcp(&with("prompt", &["greet", "name=Ann"])).await.expect(0);
    assert!(
        greet.stdout.contains("user: Please greet Ann warmly."),
        "{greet:#?}"
    );

    // inspect: what the connection negotiated, and the schemas pass the strict checks.
    let report = mcp(&with("inspect", &["--json"])).await.expect(0).json();
    assert_eq!(report["protocolVersion"], rev);
    assert_eq!(report["server"]["name"], "everything");
    assert_eq!(
        report["capabilities"]["tools"],
        json!({"listChanged": true})
    );
    assert!(
        report["instructions"]
            .as_str()
            .is_some_and(|i| i.contains("Every feature"))
    );
    assert_eq!(report["problems"], json!([]));
    let add = report["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "add")
        .cloned();
    assert_eq!(add.unwrap()["inputSchema"]["required"], json!(["a", "b"]));
    let text = mcp(&with("inspect", &[])).await.expect(0).stdout;
    assert!(text.contains(&format!("protocol:     {rev}")), "{text}");
    assert!(
        text.contains("portability: every tool schema passes the strict checks"),
        "{text}"
    );
}

#[tokio::test]
async fn every_subcommand_over_stdio_in_both_eras() {
    let target = everything_stdio();
    for rev in ERAS {
        every_subcommand(&target, rev).await;
    }
    // Without --protocol the client negotiates (the 2026 probe succeeds).
    let r = mcp(&["inspect", "--json", &target]).await.expect(0).json();
    assert_eq!(r["protocolVersion"], "2026-07-28");
    assert_eq!(r["transport"], "stdio");
}

#[tokio::test]
async fn every_subcommand_over_streamable_http_in_both_eras() {
    let bin = everything().to_str().unwrap().to_owned();
    let server = listen(&bin, &["--http", "127.0.0.1:{port}"], false).await;
    let url = server.url("/mcp");
    for rev in ERAS {
        every_subcommand(&url, rev).await;
    }
    let r = mcp(&["inspect", "--json", &url]).await.expect(0).json();
    assert_eq!(r["transport"], "Streamable HTTP");
}

#[tokio::test]
async fn an_http_sse_endpoint_is_reached_by_fallback_or_with_sse() {
    let bin = everything().to_str().unwrap().to_owned();
    let server = listen(&bin, &["--sse", "127.0.0.1:{port}"], false).await;
    let url = server.url("/sse");
    for args in [
        vec!["inspect", "--json", url.as_str()],
        vec![
            "inspect",
            "--json",
            "--protocol",
            "2024-11-05",
            url.as_str(),
        ],
        vec!["inspect", "--json", "--sse", url.as_str()],
    ] {
        let r = mcp(&args).await.expect(0).json();
        assert_eq!(r["transport"], "HTTP+SSE", "{args:?}");
    }
    let r = mcp(&["inspect", "--json", "--protocol", "2024-11-05", &url])
        .await
        .json();
    assert_eq!(r["protocolVersion"], "2024-11-05");
    let sum = mcp(&[
        "call",
        "--protocol",
        "2025-03-26",
        &url,
        "add",
        "a=1",
        "b=2",
    ])
    .await;
    assert_eq!(sum.expect(0).stdout, "3\n");
}

#[tokio::test]
async fn bad_usage_exits_2_before_anything_starts() {
    // A missing program would be exit 3: exit 2 shows nothing was started.
    for (args, says) in [
        (
            vec!["call", "/nonexistent/server", "add", "a"],
            "argument `a`: expected key=value",
        ),
        (
            vec!["call", "/nonexistent/server", "add", "o={a:1}"],
            "not valid JSON",
        ),
        (
            vec!["call", "/nonexistent/server", "add", "a=1", "a=2"],
            "given twice",
        ),
        (vec!["call", "/nonexistent/server"], "missing TOOL"),
        (vec!["call"], "missing TARGET"),
        (vec!["read", "/nonexistent/server"], "read takes one URI"),
        (
            vec!["list", "/nonexistent/server", "widgets"],
            "unknown kind `widgets`",
        ),
        (
            vec!["list", "--bogus", "/nonexistent/server"],
            "unknown option `--bogus`",
        ),
        (
            vec!["list", "--protocol", "2020-01-01", "x"],
            "unknown revision `2020-01-01`",
        ),
        (
            vec!["list", "--header", "nocolon", "x"],
            "expected NAME:VALUE",
        ),
        (vec!["list", "'unbalanced"], "unbalanced quotes"),
        (vec!["frobnicate", "x"], "unknown command `frobnicate`"),
    ] {
        let r = mcp(&args).await;
        assert_eq!(r.code, 2, "{args:?}: {r:#?}");
        assert!(r.stderr.contains(says), "{args:?}: {r:#?}");
    }
    let help = mcp(&["--help"]).await.expect(0);
    assert!(help.stdout.contains("exit codes:"), "{help:#?}");
}

#[tokio::test]
async fn unreachable_targets_exit_3() {
    let port = support::free_port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let r = mcp(&["list", &url]).await.expect(3);
    assert!(
        r.stderr
            .contains(&format!("cannot reach {url}: connection refused")),
        "{r:#?}"
    );
    let r = mcp(&["list", "/nonexistent/server --stdio"])
        .await
        .expect(3);
    assert!(
        r.stderr
            .contains("cannot reach `/nonexistent/server --stdio`: no such program"),
        "{r:#?}"
    );
    // A program that is no MCP server: it exits at once.
    let r = mcp(&["list", "true"]).await.expect(3);
    assert!(r.stderr.contains("cannot reach `true`"), "{r:#?}");
}

#[tokio::test]
async fn unknown_tools_and_resources_exit_4() {
    let target = everything_stdio();
    for rev in ERAS {
        let r = mcp(&["call", "--quiet", "--protocol", rev, &target, "nope", "x=1"])
            .await
            .expect(4);
        assert!(
            r.stderr
                .contains("unknown tool `nope` (this server has: add, media"),
            "{r:#?}"
        );
        let r = mcp(&[
            "read",
            "--quiet",
            "--protocol",
            rev,
            &target,
            "everything://missing",
        ])
        .await;
        let r = r.expect(4);
        assert!(
            r.stderr
                .contains("resources/read everything://missing: the server refused it"),
            "{r:#?}"
        );
        let r = mcp(&["prompt", "--quiet", "--protocol", rev, &target, "nope"])
            .await
            .expect(4);
        assert!(
            r.stderr.contains("prompts/get nope: the server refused it"),
            "{r:#?}"
        );
    }
}
