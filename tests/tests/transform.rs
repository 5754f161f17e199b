//! `ServerBuilder::transform_tools`: renaming a tool, a new description, an argument hidden
//! (a constant or a per-request value from the `Context`) or renamed, filters by name and
//! tag; schemas rewritten to match; on local and mounted tools; checked at build time.
//! Driven with `mcp::client::Client` in both eras over the in-memory pipe.

use mcp::client::Client;
use mcp::client::ConnectMode;
use mcp::prelude::*;
use mcp::transform::{ToolTransform, ToolTransforms};
use mcp::types::Tool;
use serde_json::{Value, json};

use ProtocolVersion as V;

/// Echoes the arguments it got, as JSON text.
fn echo_tool(name: &str, props: Value, required: &[&str], tags: &[&str]) -> Tool {
    let mut t = Tool::new(name).with_input_schema(json!({
        "type": "object", "properties": props, "required": required,
    }));
    if !tags.is_empty() {
        let mut m = mcp::types::Meta::new();
        m.insert("tags".into(), json!(tags));
        t.meta = Some(m);
    }
    t
}

fn echo(builder: mcp::ServerBuilder, tool: Tool) -> mcp::ServerBuilder {
    builder.tool(tool, |_ctx, args: Value| async move {
        Ok(CallToolResult::success(vec![ContentBlock::text(
            args.to_string(),
        )]))
    })
}

fn shop() -> mcp::ServerBuilder {
    let b = Server::builder("shop", "1.0.0");
    let b = echo(
        b,
        echo_tool(
            "search",
            json!({"query": {"type": "string"}, "tenant": {"type": "string"}, "user": {"type": "string"}, "limit": {"type": "integer"}}),
            &["query", "tenant"],
            &["public"],
        ),
    );
    echo(b, echo_tool("admin_reset", json!({}), &[], &["admin"]))
}

fn transforms() -> ToolTransforms {
    ToolTransforms::new().tool(
        "search",
        ToolTransform::new()
            .rename("find")
            .description("Finds things.")
            .rename_arg("query", "q")
            .hide_arg("tenant", "acme")
            .hide_arg_with("user", |ctx: &Context| {
                // Per request: here the client's name, as a real server would use the principal.
                json!(
                    ctx.client_info()
                        .map(|i| i.name.clone())
                        .unwrap_or_default()
                )
            }),
    )
}

async fn connect(server: &Server<impl mcp::middleware::Chain>, mode: ConnectMode) -> Client {
    let info = mcp::types::Implementation {
        name: "alice-client".into(),
        version: "1".into(),
        ..Default::default()
    };
    Client::builder()
        .mode(mode)
        .info(info)
        .connect(server.serve_in_memory())
        .await
        .unwrap()
}

fn text(r: &CallToolResult) -> Value {
    serde_json::from_str(
        serde_json::to_value(&r.content[0]).unwrap()["text"]
            .as_str()
            .unwrap(),
    )
    .unwrap()
}

#[tokio::test]
async fn a_renamed_tool_with_hidden_and_renamed_arguments_in_both_eras() {
    let server = shop().transform_tools(transforms()).build();
    for mode in [
        ConnectMode::Legacy(V::V2025_11_25),
        ConnectMode::Modern(V::V2026_07_28),
    ] {
        let c = connect(&server, mode).await;
        let tools = c.list_all_tools().await.unwrap();
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["find", "admin_reset"]);
        let find = &tools[0];
        assert_eq!(find.description.as_deref(), Some("Finds things."));
        let schema = serde_json::to_value(&find.input_schema).unwrap();
        assert_eq!(
            schema["properties"],
            json!({"q": {"type": "string"}, "limit": {"type": "integer"}})
        );
        assert_eq!(schema["required"], json!(["q"]));

        // The tool gets its own names and the injected values; a value the client sends
        // for a hidden argument is replaced.
        let r = c
            .call_tool("find", json!({"q": "dune", "limit": 2, "tenant": "evil"}))
            .await
            .unwrap();
        assert_eq!(
            text(&r),
            json!({"query": "dune", "limit": 2, "tenant": "acme", "user": "alice-client"})
        );
        // The old name is gone.
        let e = c
            .call_tool("search", json!({"query": "x"}))
            .await
            .unwrap_err();
        assert_eq!(e.code(), Some(-32602));
    }
}

#[tokio::test]
async fn filters_by_name_and_by_tag_hide_from_the_list_and_the_call() {
    let by_name = shop().transform_tools(transforms().only(["find"])).build();
    let c = connect(&by_name, ConnectMode::Legacy(V::V2025_11_25)).await;
    let names: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["find"]);
    assert!(c.call_tool("admin_reset", json!({})).await.is_err());

    let by_tag = shop()
        .transform_tools(ToolTransforms::new().tagged("public"))
        .build();
    let c = connect(&by_tag, ConnectMode::Modern(V::V2026_07_28)).await;
    let names: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["search"]);
    assert_eq!(
        c.call_tool("admin_reset", json!({}))
            .await
            .unwrap_err()
            .code(),
        Some(-32602)
    );
    assert!(
        c.call_tool("search", json!({"query": "x", "tenant": "t"}))
            .await
            .is_ok()
    );
}

/// The tool names of each page of `tools/list`, following `nextCursor`.
async fn pages(c: &Client) -> Vec<Vec<String>> {
    let (mut pages, mut cursor) = (Vec::new(), None);
    loop {
        let page = c.list_tools(cursor).await.unwrap();
        pages.push(page.tools.into_iter().map(|t| t.name).collect());
        match page.next_cursor {
            Some(next) => cursor = Some(next),
            None => return pages,
        }
    }
}

#[tokio::test]
async fn a_filter_leaves_tools_out_before_paging_so_every_page_is_full() {
    // t0..t5, the even ones tagged "kept"; two tools a page.
    let mut b = Server::builder("many", "1.0.0").page_size(2);
    for i in 0..6 {
        let tags: &[&str] = if i % 2 == 0 { &["kept"] } else { &[] };
        b = echo(b, echo_tool(&format!("t{i}"), json!({}), &[], tags));
    }
    let by_tag = b
        .transform_tools(ToolTransforms::new().tagged("kept"))
        .build();
    for mode in [
        ConnectMode::Legacy(V::V2025_11_25),
        ConnectMode::Modern(V::V2026_07_28),
    ] {
        let c = connect(&by_tag, mode).await;
        assert_eq!(pages(&c).await, [vec!["t0", "t2"], vec!["t4"]]);
    }

    let mut b = Server::builder("many", "1.0.0").page_size(2);
    for i in 0..6 {
        b = echo(b, echo_tool(&format!("t{i}"), json!({}), &[], &[]));
    }
    let renamed = ToolTransforms::new()
        .tool("t5", ToolTransform::new().rename("five"))
        .only(["t1", "t3", "five"]);
    let by_name = b.transform_tools(renamed).build();
    let c = connect(&by_name, ConnectMode::Legacy(V::V2025_11_25)).await;
    assert_eq!(pages(&c).await, [vec!["t1", "t3"], vec!["five"]]);
}

#[tokio::test]
async fn transforms_apply_to_mounted_tools() {
    let server = Server::builder("gateway", "1.0.0")
        .mount("shop", shop().build())
        .transform_tools(
            ToolTransforms::new().tool(
                "shop_search",
                ToolTransform::new()
                    .rename("search")
                    .hide_arg("tenant", "t1"),
            ),
        )
        .build();
    let c = connect(&server, ConnectMode::Legacy(V::V2025_11_25)).await;
    let names: Vec<String> = c
        .list_all_tools()
        .await
        .unwrap()
        .into_iter()
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["search", "shop_admin_reset"]);
    let r = c.call_tool("search", json!({"query": "q"})).await.unwrap();
    assert_eq!(text(&r), json!({"query": "q", "tenant": "t1"}));
}

#[test]
fn what_a_transform_names_is_checked_at_build_time() {
    let err = |t: ToolTransforms| {
        shop()
            .transform_tools(t)
            .try_build()
            .err()
            .unwrap()
            .to_string()
    };
    let e = err(ToolTransforms::new().tool("nope", ToolTransform::new().rename("x")));
    assert!(
        e.contains("transform of tool `nope`: the server has no such tool"),
        "{e}"
    );
    let e = err(ToolTransforms::new().tool("search", ToolTransform::new().hide_arg("nope", 1)));
    assert!(e.contains("it has no argument `nope`"), "{e}");
    let e = err(ToolTransforms::new().tool("search", ToolTransform::new().rename("admin_reset")));
    assert!(e.contains("two tools would be named `admin_reset`"), "{e}");
    let e = err(
        ToolTransforms::new().tool("search", ToolTransform::new().rename_arg("query", "limit"))
    );
    assert!(e.contains("which it already has"), "{e}");
}

#[tokio::test]
async fn hide_by_name_and_by_tag_leaves_the_list_and_the_call() {
    let b = echo(shop(), echo_tool("stats", json!({}), &[], &["admin"]));
    // By the name the client sees: the renamed `search` is hidden as `find`.
    let by_name = b
        .transform_tools(transforms().hide(["find", "stats"]))
        .build();
    for mode in [
        ConnectMode::Legacy(V::V2025_11_25),
        ConnectMode::Modern(V::V2026_07_28),
    ] {
        let c = connect(&by_name, mode).await;
        let names: Vec<String> = (c.list_all_tools().await.unwrap().into_iter())
            .map(|t| t.name)
            .collect();
        assert_eq!(names, ["admin_reset"]);
        for hidden in ["find", "stats"] {
            let e = c.call_tool(hidden, json!({"q": "x"})).await.unwrap_err();
            assert_eq!(e.code(), Some(-32602), "{hidden}: {e}");
        }
        assert!(c.call_tool("admin_reset", json!({})).await.is_ok());
    }

    // By tag, together with an allowlist: both apply.
    let by_tag = echo(shop(), echo_tool("stats", json!({}), &[], &["admin"]))
        .transform_tools(
            ToolTransforms::new()
                .only(["search", "stats"])
                .hide_tagged("admin"),
        )
        .build();
    let c = connect(&by_tag, ConnectMode::Modern(V::V2026_07_28)).await;
    let names: Vec<String> = (c.list_all_tools().await.unwrap().into_iter())
        .map(|t| t.name)
        .collect();
    assert_eq!(names, ["search"]);
    let e = c.call_tool("stats", json!({})).await.unwrap_err();
    assert_eq!(e.code(), Some(-32602));
}

#[test]
fn a_filter_naming_no_tool_fails_the_build_with_the_names_it_could_mean() {
    let e = shop()
        .transform_tools(transforms().hide(["search"]))
        .try_build()
        .err()
        .expect("a build error")
        .to_string();
    // `search` is offered as `find` only.
    assert!(e.contains("ToolTransforms::hide"), "{e}");
    assert!(e.contains("`search`"), "{e}");
    assert!(e.contains("(known: `find`, `admin_reset`)"), "{e}");
    let e = shop()
        .transform_tools(ToolTransforms::new().only(["serch"]))
        .try_build()
        .err()
        .expect("a build error")
        .to_string();
    assert!(e.contains("ToolTransforms::only"), "{e}");
    assert!(e.contains("`serch`; did you mean `search`?"), "{e}");
}

/// A layer that records the tool name each `tools/call` carries as it passes.
#[derive(Clone, Default)]
struct SeenNames(std::sync::Arc<std::sync::Mutex<Vec<String>>>);

impl mcp::Middleware for SeenNames {
    async fn handle<E: mcp::middleware::Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: mcp::Next<'_, E>,
    ) -> mcp::HandlerResult {
        if ctx.method() == "tools/call" {
            let p: Value = ctx.decode_params().unwrap();
            self.0
                .lock()
                .unwrap()
                .push(p["name"].as_str().unwrap().to_owned());
        }
        next.run(ctx).await
    }
}

#[tokio::test]
async fn every_middleware_and_policy_sees_the_tools_own_names_inside_the_transforms() {
    use mcp::policies::{Limit, RateLimit};
    let seen = SeenNames::default();
    // `search` is shown as `find`; the rate limit names it by its own name, and fires.
    let server = shop()
        .middleware(
            RateLimit::none().tool("search", Limit::new(1, std::time::Duration::from_secs(60))),
        )
        .middleware(seen.clone())
        .transform_tools(transforms())
        .build();
    let c = connect(&server, ConnectMode::Modern(V::V2026_07_28)).await;
    c.call_tool("find", json!({"q": "a"})).await.unwrap();
    let e = c.call_tool("find", json!({"q": "b"})).await.unwrap_err();
    assert_eq!(e.code(), Some(-32029), "{e}");
    assert_eq!(*seen.0.lock().unwrap(), ["search"]);
}

#[test]
fn a_policy_naming_no_tool_fails_the_build_naming_it_and_what_it_could_mean() {
    use mcp::policies::{ItemSet, Limit, RateLimit, Select, ToolTimeout, Visibility};
    use std::time::Duration;
    fn err<C: mcp::middleware::Chain, H: mcp::ServerHandler>(
        b: mcp::ServerBuilder<C, H>,
    ) -> String {
        b.try_build().err().expect("a build error").to_string()
    }

    let e = err(shop().middleware(RateLimit::none().tool("serch", Limit::per_second(1))));
    assert!(
        e.contains("RateLimit::tool: the server has no tool `serch`; did you mean `search`?"),
        "{e}"
    );
    let e = err(
        shop().middleware(Visibility::new(ItemSet::except([Select::tool(
            "admin_rest",
        )]))),
    );
    assert!(
        e.contains("Visibility: the server has no tool `admin_rest`; did you mean `admin_reset`?"),
        "{e}"
    );
    let e = err(shop().middleware(Visibility::new(ItemSet::only([Select::prompt("greet")]))));
    assert!(
        e.contains("Visibility: the server has no prompt `greet` (there are none)"),
        "{e}"
    );
    // In a static chain too.
    let e = err(shop().middleware(ToolTimeout::none().tool("nope", Duration::from_secs(1))));
    assert!(
        e.contains("ToolTimeout::tool: the server has no tool `nope`"),
        "{e}"
    );
    // The name a transform shows is not the tool's own: the error says which is.
    let e = err(shop()
        .middleware(RateLimit::none().tool("find", Limit::per_second(1)))
        .transform_tools(transforms()));
    assert!(
        e.contains("`find` is how a transform shows `search`"),
        "{e}"
    );
    // Mounted tools are named as mounted.
    let gateway = Server::builder("gateway", "1.0.0")
        .mount("shop", shop().build())
        .middleware(RateLimit::none().tool("shop_search", Limit::per_second(1)));
    assert!(gateway.try_build().is_ok());
}
