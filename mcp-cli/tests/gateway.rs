//! `mcp gateway --config FILE`, the built binary, with `examples/everything` as its
//! upstreams (one a child over stdio, one a process listening on loopback HTTP), driven by
//! `mcp` itself over stdio (the gateway as a TARGET command line) and over HTTP, in both
//! eras: every upstream's tools under its prefix; the HTTP upstream killed leaves the list
//! while the other answers, a call to it names it (and `mcp call` does not blame the
//! gateway), and it returns when started again; a gateway started with an upstream down
//! serves the rest; Claude Desktop's exact format; a bad file refused with its key and
//! line; a rate limit's `retryAfterMs` through the gateway, in text and `--json`;
//! `/healthz`, `/readyz` (503 while a fail-closed upstream is down) and `/metrics` (parsed
//! as Prometheus text, the calls counted per tool and upstream); the file's rate limit
//! telling anonymous callers apart behind a trusted proxy, and refusing a tool name the
//! gateway does not show; JWT principals and anonymous callers each their bucket, a role
//! claim seeing its tagged tool. (Upstreams behind OAuth: `gateway_oauth.rs`.) Every
//! process has a timeout.

mod support;

use std::process::Stdio;
use std::time::Duration;

use support::{
    ConfigFile, Listening, everything, free_port, gateway_http, issuer, listen, listen_on, mcp,
};

const MCP: &str = env!("CARGO_BIN_EXE_mcp");

/// `everything --http 127.0.0.1:PORT` on a port of our choosing (to start it again there).
async fn everything_on(port: u16, extra: &[&str]) -> Listening {
    let mut args = vec!["--http", "127.0.0.1:{port}"];
    args.extend(extra);
    let everything = everything().to_str().unwrap();
    listen_on(everything, &args, port, false, Stdio::null()).await
}

/// `program args` (quiet), waited for until it listens on `port`.
async fn process_on(program: &str, args: &[&str], port: u16) -> Listening {
    listen_on(program, args, port, false, Stdio::null()).await
}

/// A config of two upstreams: `st`, everything over stdio, and `web`, everything at `url`
/// (checked every second when quiet or down).
fn two_upstreams(url: &str) -> String {
    serde_json::json!({
        "mcpServers": {
            "st": { "command": everything(), "args": ["--stdio"], "env": { "RUST_LOG": "off" } },
            "web": { "url": url }
        },
        "gateway": { "servers": { "web": { "healthInterval": 1, "timeout": 5 } } }
    })
    .to_string()
}

/// The tool names `mcp list --json TARGET tools` prints (with extra options first).
async fn tools(target: &str, opts: &[&str]) -> Vec<String> {
    let mut args = vec!["list", "--json", "--quiet"];
    args.extend(opts);
    args.extend([target, "tools"]);
    let r = mcp(&args).await.expect(0);
    let names = r.json()["tools"].as_array().cloned().unwrap_or_default();
    (names.iter())
        .filter_map(|t| t["name"].as_str().map(str::to_owned))
        .collect()
}

/// Waits (up to 20 s) until the gateway's tool list satisfies `ok`.
async fn until(target: &str, what: &str, ok: impl Fn(&[String]) -> bool) {
    for _ in 0..80 {
        if ok(&tools(target, &[]).await) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    panic!("{what}: last list {:?}", tools(target, &[]).await);
}

#[tokio::test]
async fn every_upstreams_tools_are_listed_under_its_prefix_over_stdio_and_http() {
    let web = everything_on(free_port(), &[]).await;
    let config = ConfigFile::new(&two_upstreams(&web.url("/mcp")));
    let gw = gateway_http(&config, &[]).await;
    let url = gw.url("/mcp");
    for (target, rev) in [
        (url.as_str(), "2025-11-25"),
        (url.as_str(), "2026-07-28"),
        (config.stdio_target().as_str(), "2025-11-25"),
        (config.stdio_target().as_str(), "2026-07-28"),
    ] {
        let names = tools(target, &["--protocol", rev]).await;
        for n in ["st_add", "st_countdown", "web_add", "web_countdown"] {
            assert!(names.contains(&n.to_owned()), "{target} {rev}: {names:?}");
        }
        assert!(!names.contains(&"add".to_owned()), "{names:?}");
        for tool in ["st_add", "web_add"] {
            let r = mcp(&[
                "call",
                "--quiet",
                "--protocol",
                rev,
                target,
                tool,
                "a=2",
                "b=40",
            ])
            .await
            .expect(0);
            assert!(r.stdout.contains("42"), "{target} {rev} {tool}: {r:#?}");
        }
    }
}

#[tokio::test]
async fn a_killed_upstream_leaves_the_list_the_other_answers_and_it_returns() {
    let port = free_port();
    let mut web = everything_on(port, &[]).await;
    let config = ConfigFile::new(&two_upstreams(&format!("http://127.0.0.1:{port}/mcp")));
    let gw = gateway_http(&config, &[]).await;
    let url = gw.url("/mcp");
    assert!(tools(&url, &[]).await.contains(&"web_add".to_owned()));

    web.child.kill().await.unwrap();
    until(&url, "web's tools leave", |n| {
        !n.iter().any(|t| t.starts_with("web_"))
    })
    .await;
    let names = tools(&url, &["--protocol", "2026-07-28"]).await;
    assert!(names.contains(&"st_add".to_owned()), "{names:?}");
    for rev in ["2025-11-25", "2026-07-28"] {
        let r = mcp(&["call", "--protocol", rev, &url, "st_add", "a=1", "b=2"])
            .await
            .expect(0);
        assert!(r.stdout.contains('3'), "{r:#?}");
        // The gateway answered: the upstream is named, the gateway is not blamed.
        let r = mcp(&["call", "--protocol", rev, &url, "web_add", "a=1", "b=2"])
            .await
            .expect(4);
        assert!(r.stderr.contains("upstream `web` is unavailable"), "{r:#?}");
        assert!(!r.stderr.contains("cannot reach"), "{r:#?}");
    }

    let _web = everything_on(port, &[]).await;
    until(&url, "web returns", |n| n.contains(&"web_add".to_owned())).await;
    let r = mcp(&["call", &url, "web_add", "a=20", "b=22"])
        .await
        .expect(0);
    assert!(r.stdout.contains("42"), "{r:#?}");
}

#[tokio::test]
async fn a_gateway_started_with_an_upstream_down_serves_the_rest() {
    // Nothing listens there.
    let config = ConfigFile::new(&two_upstreams(&format!(
        "http://127.0.0.1:{}/mcp",
        free_port()
    )));
    let names = tools(&config.stdio_target(), &[]).await;
    assert!(names.contains(&"st_add".to_owned()), "{names:?}");
    assert!(!names.iter().any(|t| t.starts_with("web_")), "{names:?}");
    let gw = gateway_http(&config, &[]).await;
    let r = mcp(&["call", &gw.url("/mcp"), "st_add", "a=40", "b=2"])
        .await
        .expect(0);
    assert!(r.stdout.contains("42"), "{r:#?}");
}

#[tokio::test]
async fn claude_desktops_exact_format_works_unmodified() {
    // As Claude Desktop's documentation writes it: mcpServers, command, args, env.
    let text = format!(
        r#"{{
  "mcpServers": {{
    "everything": {{
      "command": "{}",
      "args": ["--stdio"],
      "env": {{
        "RUST_LOG": "off"
      }}
    }}
  }}
}}"#,
        everything().display()
    );
    let config = ConfigFile::new(&text);
    let names = tools(&config.stdio_target(), &[]).await;
    assert!(names.contains(&"everything_add".to_owned()), "{names:?}");
}

#[tokio::test]
async fn a_bad_file_is_refused_with_its_key_and_line_and_nothing_starts() {
    let config = ConfigFile::new(
        "{\n  \"mcpServers\": {\n    \"a\": {\n      \"command\": \"x\",\n      \"args\": \"--stdio\"\n    }\n  }\n}\n",
    );
    let r = mcp(&["gateway", "--config", config.path(), "--stdio"])
        .await
        .expect(2);
    assert!(
        r.stderr
            .contains("line 5: `mcpServers.a.args`: expected an array of strings"),
        "{r:#?}"
    );
    assert!(r.stderr.contains(config.path()), "{r:#?}");
    let config =
        ConfigFile::new(r#"{"mcpServers": {"a": {"command": "${MCP_GATEWAY_TEST_UNSET}"}}}"#);
    let r = mcp(&["gateway", "--config", config.path()]).await.expect(2);
    assert!(
        r.stderr
            .contains("`${MCP_GATEWAY_TEST_UNSET}` is not set in the environment"),
        "{r:#?}"
    );
    let r = mcp(&["gateway", "--config", "/nonexistent/gateway.json"])
        .await
        .expect(2);
    assert!(r.stderr.contains("cannot read it"), "{r:#?}");
    assert!(
        !r.stderr.contains("Custom {") && !r.stderr.contains("Error:"),
        "{r:#?}"
    );
    // An upstream that cannot be started: said plainly, and the gateway serves on (its
    // stdin is empty here, so it ends at once, cleanly).
    let config = ConfigFile::new(r#"{"mcpServers": {"gone": {"command": "/nonexistent/server"}}}"#);
    let r = mcp(&["gateway", "--config", config.path(), "--stdio"])
        .await
        .expect(0);
    assert!(
        r.stderr.contains(
            "`gone` is down for now: cannot start `/nonexistent/server`: no such program"
        ),
        "{r:#?}"
    );
    assert!(
        !r.stderr.contains("Custom {") && !r.stderr.contains("Error:"),
        "{r:#?}"
    );
}

#[tokio::test]
async fn a_rate_limit_through_the_gateway_shows_retry_after_in_text_and_json() {
    let config = ConfigFile::new(
        &serde_json::json!({
            "mcpServers": {
                "st": { "command": everything(), "args": ["--stdio", "--rate-limit", "add=1"],
                        "env": { "RUST_LOG": "off" } }
            }
        })
        .to_string(),
    );
    let gw = gateway_http(&config, &[]).await;
    let url = gw.url("/mcp");
    // One shared upstream session: its bucket holds one call a minute.
    mcp(&["call", &url, "st_add", "a=1", "b=1"]).await.expect(0);
    let r = mcp(&["call", &url, "st_add", "a=1", "b=1"]).await.expect(4);
    assert!(r.stderr.contains("retry after "), "{r:#?}");
    assert!(r.stderr.contains(" ms"), "{r:#?}");
    let r = mcp(&["call", "--json", &url, "st_add", "a=1", "b=1"])
        .await
        .expect(4);
    let ms = r.json()["error"]["data"]["retryAfterMs"].as_u64();
    assert!(ms.is_some_and(|ms| ms > 0), "{r:#?}");
}

#[tokio::test]
async fn failing_closed_an_upstream_down_is_named_and_the_gateway_not_blamed() {
    let down = format!("http://127.0.0.1:{}/mcp", free_port());
    let config = ConfigFile::new(
        &serde_json::json!({
            "mcpServers": { "web": { "url": down } },
            "gateway": { "servers": { "web": { "failureMode": "closed" } } }
        })
        .to_string(),
    );
    let gw = gateway_http(&config, &[]).await;
    for rev in ["2025-11-25", "2026-07-28"] {
        let r = mcp(&["list", "--protocol", rev, &gw.url("/mcp")])
            .await
            .expect(4);
        assert!(r.stderr.contains("upstream `web` is unavailable"), "{r:#?}");
        assert!(!r.stderr.contains("cannot reach"), "{r:#?}");
    }
}

#[tokio::test]
async fn prefix_modes_never_on_clash_and_a_clash_refused() {
    let config_of = |one: &str, two: &str| {
        let every = serde_json::json!({ "command": everything(), "args": ["--stdio"],
                                        "env": { "RUST_LOG": "off" } });
        serde_json::json!({
            "mcpServers": { "one": every, "two": every },
            "gateway": { "separator": ".", "servers": {
                "one": { "prefix": one }, "two": { "prefix": two, "namespace": "second" } } }
        })
        .to_string()
    };
    // `one` unprefixed; `two` meets its names, so it is prefixed (with its namespace).
    let config = ConfigFile::new(&config_of("never", "onClash"));
    let names = tools(&config.stdio_target(), &[]).await;
    assert!(names.contains(&"add".to_owned()), "{names:?}");
    assert!(names.contains(&"second.add".to_owned()), "{names:?}");
    assert!(!names.iter().any(|n| n.starts_with("one")), "{names:?}");
    let r = mcp(&[
        "call",
        "--quiet",
        &config.stdio_target(),
        "add",
        "a=1",
        "b=2",
    ])
    .await
    .expect(0);
    assert!(r.stdout.contains('3'), "{r:#?}");
    // Both unprefixed: a load error naming both, and nothing served.
    let config = ConfigFile::new(&config_of("never", "never"));
    let r = mcp(&["gateway", "--config", config.path(), "--stdio"])
        .await
        .expect(2);
    assert!(
        r.stderr.contains("`one` and `two` both offer tool `add`"),
        "{r:#?}"
    );
}

#[tokio::test]
async fn the_python_sdk_over_http_and_server_everything_over_stdio_behind_the_gateway() {
    let (Some(python), Some(entry)) = (support::python(), support::ts_everything()) else {
        return;
    };
    let python = python.to_str().unwrap().to_owned();
    let script = support::root().join("interop/client/python_server.py");
    let script = script.to_str().unwrap().to_owned();
    let port = free_port();
    let py_args = [script.as_str(), "http", &port.to_string()].map(str::to_owned);
    let py_args: Vec<&str> = py_args.iter().map(String::as_str).collect();
    let mut py = process_on(&python, &py_args, port).await;
    let config = ConfigFile::new(
        &serde_json::json!({
            "mcpServers": {
                "py": { "url": format!("http://127.0.0.1:{port}/mcp") },
                "ts": { "command": "node", "args": [entry, "stdio"] },
                "st": { "command": everything(), "args": ["--stdio"], "env": { "RUST_LOG": "off" } }
            },
            "gateway": { "servers": { "py": { "healthInterval": 1, "timeout": 10 } } }
        })
        .to_string(),
    );
    let gw = gateway_http(&config, &[]).await;
    let url = gw.url("/mcp");
    let calls = [
        ("py_add", "42"),
        ("ts_get-sum", "The sum of 2 and 40 is 42."),
        ("st_add", "42"),
    ];
    for (target, rev) in [
        (url.as_str(), "2025-11-25"),
        (url.as_str(), "2026-07-28"),
        (config.stdio_target().as_str(), "2025-11-25"),
        (config.stdio_target().as_str(), "2026-07-28"),
    ] {
        let names = tools(target, &["--protocol", rev]).await;
        for (tool, answer) in calls {
            assert!(
                names.contains(&tool.to_owned()),
                "{target} {rev}: {names:?}"
            );
            let r = mcp(&[
                "call",
                "--quiet",
                "--protocol",
                rev,
                target,
                tool,
                "a=2",
                "b=40",
            ])
            .await
            .expect(0);
            assert!(r.stdout.contains(answer), "{target} {rev} {tool}: {r:#?}");
        }
    }

    // The Python server killed: its tools leave, the others answer, a call to it names it.
    py.child.kill().await.unwrap();
    until(&url, "py's tools leave", |n| {
        !n.iter().any(|t| t.starts_with("py_"))
    })
    .await;
    for (tool, answer) in &calls[1..] {
        let r = mcp(&["call", &url, tool, "a=2", "b=40"]).await.expect(0);
        assert!(r.stdout.contains(answer), "{tool}: {r:#?}");
    }
    let r = mcp(&["call", &url, "py_add", "a=2", "b=40"])
        .await
        .expect(4);
    assert!(r.stderr.contains("upstream `py` is unavailable"), "{r:#?}");
    let _py = process_on(&python, &py_args, port).await;
    until(&url, "py returns", |n| n.contains(&"py_add".to_owned())).await;
    let r = mcp(&["call", &url, "py_add", "a=2", "b=40"])
        .await
        .expect(0);
    assert!(r.stdout.contains("42"), "{r:#?}");
}

#[tokio::test]
async fn watch_adds_and_removes_an_upstream_keeps_the_others_and_refuses_a_bad_edit() {
    let web = everything_on(free_port(), &[]).await;
    let st = serde_json::json!({ "command": everything(), "args": ["--stdio"],
                                 "env": { "RUST_LOG": "off" } });
    let st_only = serde_json::json!({ "mcpServers": { "st": st } }).to_string();
    let both = serde_json::json!({
        "mcpServers": { "st": st, "web": { "url": web.url("/mcp") } }
    })
    .to_string();
    let config = ConfigFile::new(&st_only);
    let gw = listen(
        MCP,
        &[
            "gateway",
            "--config",
            config.path(),
            "--http",
            "127.0.0.1:{port}",
            "--watch",
        ],
        false,
    )
    .await;
    let url = gw.url("/mcp");
    // State kept in `st`'s process: a tool it adds at run time.
    mcp(&["call", &url, "st_enable_echo"]).await.expect(0);
    until(&url, "st_echo appears", |n| {
        n.contains(&"st_echo".to_owned())
    })
    .await;

    std::fs::write(&config.path, &both).unwrap();
    until(&url, "web arrives", |n| n.contains(&"web_add".to_owned())).await;
    let names = tools(&url, &[]).await;
    assert!(names.contains(&"st_echo".to_owned()), "st kept: {names:?}");
    let r = mcp(&["call", &url, "web_add", "a=40", "b=2"])
        .await
        .expect(0);
    assert!(r.stdout.contains("42"), "{r:#?}");

    // An invalid edit changes nothing.
    std::fs::write(&config.path, "{ \"mcpServers\": ").unwrap();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let names = tools(&url, &["--protocol", "2026-07-28"]).await;
    assert!(names.contains(&"web_add".to_owned()), "{names:?}");
    assert!(names.contains(&"st_echo".to_owned()), "{names:?}");

    std::fs::write(&config.path, &st_only).unwrap();
    until(&url, "web leaves", |n| {
        !n.iter().any(|t| t.starts_with("web_"))
    })
    .await;
    let r = mcp(&["call", &url, "st_echo", "text=still here"])
        .await
        .expect(0);
    assert!(r.stdout.contains("still here"), "{r:#?}");
}

/// `GET path` on the gateway over a plain HTTP/1.1 connection: the status and the body.
async fn get(port: u16, path: &str) -> (u16, String) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.unwrap();
    let mut raw = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut raw))
        .await
        .expect("an answer within 10 s")
        .unwrap();
    let text = String::from_utf8(raw).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").expect("a head and a body");
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    // Chunked or not, the bodies here are one chunk: keep what is between the sizes.
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        let mut out = String::new();
        let mut rest = body;
        while let Some((size, after)) = rest.split_once("\r\n") {
            let n = usize::from_str_radix(size.trim(), 16).unwrap();
            if n == 0 {
                break;
            }
            out.push_str(&after[..n]);
            rest = &after[n + 2..];
        }
        out
    } else {
        body.to_owned()
    };
    (status, body)
}

/// The samples of a Prometheus text exposition, each `(name{labels}, value)`; panics on a
/// line that is neither a comment (`# HELP`/`# TYPE`) nor a sample with a number.
fn samples(text: &str) -> Vec<(String, f64)> {
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("# HELP ") || line.starts_with("# TYPE ") {
            let kind = line.split(' ').nth(3);
            if line.starts_with("# TYPE ") {
                assert!(
                    matches!(kind, Some("counter" | "gauge" | "histogram")),
                    "{line}"
                );
            }
            continue;
        }
        let (series, value) = line.rsplit_once(' ').unwrap_or_else(|| panic!("{line}"));
        let name_ok = series.split('{').next().is_some_and(|n| {
            !n.is_empty() && n.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        assert!(name_ok, "a metric name: {line}");
        if let Some(labels) = series.split_once('{').map(|(_, l)| l) {
            assert!(labels.ends_with('}'), "{line}");
        }
        let value = match value {
            "+Inf" => f64::INFINITY,
            v => v.parse().unwrap_or_else(|_| panic!("a number: {line}")),
        };
        out.push((series.to_owned(), value));
    }
    out
}

#[tokio::test]
async fn healthz_readyz_and_metrics_answer_and_count_the_calls() {
    // `st` answers; `gone` (fail-open) never does: it is shown down, and the gateway is
    // still ready.
    let config = ConfigFile::new(
        &serde_json::json!({
            "mcpServers": {
                "st": { "command": everything(), "args": ["--stdio"], "env": { "RUST_LOG": "off" } },
                "gone": { "url": format!("http://127.0.0.1:{}/mcp", free_port()) }
            }
        })
        .to_string(),
    );
    let gw = gateway_http(&config, &[]).await;
    let (status, body) = get(gw.port, "/healthz").await;
    assert_eq!((status, body.as_str()), (200, r#"{"status":"ok"}"#));
    let (status, body) = get(gw.port, "/readyz").await;
    assert_eq!(status, 200, "{body}");
    let ready: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(ready["ready"], true, "{body}");
    assert_eq!(ready["upstreams"]["st"]["state"], "up", "{body}");
    assert_eq!(ready["upstreams"]["gone"]["state"], "down", "{body}");
    assert!(ready["upstreams"]["gone"]["reason"].is_string(), "{body}");

    for rev in ["2025-11-25", "2026-07-28", "2026-07-28"] {
        let r = mcp(&[
            "call",
            "--protocol",
            rev,
            &gw.url("/mcp"),
            "st_add",
            "a=40",
            "b=2",
        ])
        .await
        .expect(0);
        assert!(r.stdout.contains("42"), "{r:#?}");
    }
    let r = mcp(&["call", &gw.url("/mcp"), "st_add", "a=x", "b=2"]).await;
    assert_ne!(r.code, 0, "a bad argument fails: {r:#?}");

    let (status, body) = get(gw.port, "/metrics").await;
    assert_eq!(status, 200, "{body}");
    let samples = samples(&body);
    let value = |series: &str| {
        (samples.iter())
            .find(|(s, _)| s == series)
            .map(|(_, v)| *v)
            .unwrap_or_else(|| panic!("{series} missing:\n{body}"))
    };
    let add = r#"method="tools/call",tool="st_add",upstream="st""#;
    assert_eq!(value(&format!("mcp_requests_total{{{add}}}")), 4.0);
    assert_eq!(value(&format!("mcp_request_errors_total{{{add}}}")), 1.0);
    assert_eq!(
        value(&format!("mcp_request_duration_seconds_count{{{add}}}")),
        4.0
    );
    assert_eq!(
        value(&format!(
            "mcp_request_duration_seconds_bucket{{{add},le=\"+Inf\"}}"
        )),
        4.0
    );
    assert_eq!(value(r#"mcp_gateway_upstream_up{upstream="st"}"#), 1.0);
    assert_eq!(value(r#"mcp_gateway_upstream_up{upstream="gone"}"#), 0.0);
}

#[tokio::test]
async fn readyz_is_503_while_a_fail_closed_upstream_is_down() {
    let config = ConfigFile::new(
        &serde_json::json!({
            "mcpServers": { "web": { "url": format!("http://127.0.0.1:{}/mcp", free_port()) } },
            "gateway": { "servers": { "web": { "failureMode": "closed" } } }
        })
        .to_string(),
    );
    let gw = gateway_http(&config, &[]).await;
    let (status, body) = get(gw.port, "/readyz").await;
    assert_eq!(status, 503, "{body}");
    let ready: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(ready["ready"], false, "{body}");
    assert_eq!(ready["upstreams"]["web"]["state"], "down", "{body}");
    // Alive all the same.
    assert_eq!(get(gw.port, "/healthz").await.0, 200);
}

#[tokio::test]
async fn the_files_rate_limit_counts_anonymous_callers_apart_behind_a_trusted_proxy() {
    let config = ConfigFile::new(
        &serde_json::json!({
            "mcpServers": {
                "st": { "command": everything(), "args": ["--stdio"], "env": { "RUST_LOG": "off" } }
            },
            "gateway": { "rateLimit": { "tools": { "st_add": 2 }, "trustedProxies": ["127.0.0.1"] } }
        })
        .to_string(),
    );
    let gw = gateway_http(&config, &[]).await;
    let url = gw.url("/mcp");
    // As a reverse proxy on loopback would say who it forwards.
    let call = |client: &'static str, rev: &'static str| {
        let url = url.clone();
        async move {
            let header = format!("X-Forwarded-For:{client}");
            mcp(&[
                "call",
                "--protocol",
                rev,
                "--header",
                &header,
                &url,
                "st_add",
                "a=1",
                "b=1",
            ])
            .await
        }
    };
    // Each client's session per call and both eras land in its one bucket of two.
    call("203.0.113.1", "2025-11-25").await.expect(0);
    call("203.0.113.1", "2026-07-28").await.expect(0);
    let r = call("203.0.113.1", "2025-11-25").await.expect(4);
    assert!(r.stderr.contains("retry after "), "{r:#?}");
    // Another client is not held up; another tool is not limited.
    call("203.0.113.2", "2026-07-28").await.expect(0);
    call("203.0.113.2", "2025-11-25").await.expect(0);
    call("203.0.113.2", "2026-07-28").await.expect(4);
    mcp(&["call", &url, "st_stats"]).await.expect(0);
}

#[tokio::test]
async fn a_rate_limit_naming_a_tool_the_gateway_does_not_show_is_a_load_error() {
    // `add` is the upstream's own name; the gateway shows it as `st_add`.
    let config = ConfigFile::new(
        &serde_json::json!({
            "mcpServers": {
                "st": { "command": everything(), "args": ["--stdio"], "env": { "RUST_LOG": "off" } }
            },
            "gateway": { "rateLimit": { "tools": { "add": 2 } } }
        })
        .to_string(),
    );
    let r = mcp(&["gateway", "--config", config.path(), "--stdio"])
        .await
        .expect(2);
    assert!(
        r.stderr
            .contains("gateway.rateLimit.tools.add: the gateway shows no tool of that name"),
        "{r:#?}"
    );
    assert!(r.stderr.contains("st_add"), "{r:#?}");
    // A key the file format does not have: its line.
    let config = ConfigFile::new(
        "{\"mcpServers\": {},\n \"gateway\": {\"rateLimit\": {\"perMinute\": 0}}}\n",
    );
    let r = mcp(&["gateway", "--config", config.path(), "--stdio"])
        .await
        .expect(2);
    assert!(
        r.stderr
            .contains("line 2: `gateway.rateLimit.perMinute`: expected a whole number from 1"),
        "{r:#?}"
    );
}

#[tokio::test]
async fn identity_principals_and_anonymous_callers_each_their_limit_and_a_role_sees_its_tag() {
    let iss = issuer();
    let mut config = ConfigFile::new("{}");
    let jwks = config.dir.join("jwks.json");
    std::fs::write(&jwks, iss.jwks.to_string()).unwrap();
    config.rewrite(
        &serde_json::json!({
            "mcpServers": {
                "st": { "command": everything(), "args": ["--stdio"], "env": { "RUST_LOG": "off" } }
            },
            "gateway": {
                "auth": { "resource": "http://gateway.test/mcp", "issuer": "http://issuer.test",
                          "jwks": jwks, "anonymous": true },
                "rateLimit": { "tools": { "st_add": 2 }, "trustedProxies": ["127.0.0.1"] },
                "visibility": { "tags": { "admin": { "claim": "role", "values": ["admin"] } } }
            }
        })
        .to_string(),
    );
    let gw = gateway_http(&config, &[]).await;
    let url = gw.url("/mcp");
    let (alice, bob) = (iss.token("alice", "admin"), iss.token("bob", "user"));
    let as_ = |who: Vec<String>| {
        let url = url.clone();
        async move {
            let mut args: Vec<&str> = vec!["call"];
            args.extend(who.iter().map(String::as_str));
            args.extend([url.as_str(), "st_add", "a=1", "b=1"]);
            mcp(&args).await
        }
    };
    let token = |t: &str| vec!["--token".to_owned(), t.to_owned()];
    let anon = |ip: &str| vec!["--header".to_owned(), format!("X-Forwarded-For:{ip}")];
    // Two principals and two anonymous callers: a bucket of two each.
    for who in [
        token(&alice),
        token(&bob),
        anon("203.0.113.1"),
        anon("203.0.113.2"),
    ] {
        as_(who.clone()).await.expect(0);
        as_(who.clone()).await.expect(0);
        let r = as_(who.clone()).await.expect(4);
        assert!(r.stderr.contains("retry after "), "{who:?}: {r:#?}");
    }
    // A principal's bucket is its own whatever address it comes from.
    let mut alice_elsewhere = token(&alice);
    alice_elsewhere.extend(anon("198.51.100.7"));
    as_(alice_elsewhere).await.expect(4);

    // `st_stats` is tagged `admin`: listed and callable for the admin role only.
    let list = |who: Vec<String>| {
        let url = url.clone();
        async move {
            let mut args: Vec<&str> = vec!["list", "--json", "--quiet"];
            args.extend(who.iter().map(String::as_str));
            args.extend([url.as_str(), "tools"]);
            let r = mcp(&args).await.expect(0);
            let tools = r.json()["tools"].as_array().cloned().unwrap_or_default();
            (tools.iter())
                .filter_map(|t| t["name"].as_str().map(str::to_owned))
                .collect::<Vec<_>>()
        }
    };
    assert!(list(token(&alice)).await.contains(&"st_stats".to_owned()));
    for who in [token(&bob), anon("203.0.113.9")] {
        let names = list(who.clone()).await;
        assert!(names.contains(&"st_add".to_owned()), "{names:?}");
        assert!(
            !names.contains(&"st_stats".to_owned()),
            "{who:?}: {names:?}"
        );
    }
    let stats = |who: Vec<String>| {
        let url = url.clone();
        async move {
            let mut args: Vec<&str> = vec!["call"];
            args.extend(who.iter().map(String::as_str));
            args.extend([url.as_str(), "st_stats"]);
            mcp(&args).await
        }
    };
    stats(token(&alice)).await.expect(0);
    assert_ne!(stats(token(&bob)).await.code, 0);

    // A token the JWKS did not sign is refused, not taken as anonymous.
    let forged = issuer().token("alice", "admin");
    let r = as_(token(&forged)).await;
    assert_ne!(r.code, 0, "{r:#?}");
    assert!(
        r.stderr.contains("401") || r.stderr.to_lowercase().contains("token"),
        "{r:#?}"
    );
}
