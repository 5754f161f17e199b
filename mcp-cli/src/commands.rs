//! The subcommands: each connects, asks, prints, and shuts the connection down.

use mcp_runtime::client::{Client, ClientError, Transport};
use mcp_runtime::portability_problems;
use serde_json::{Map, Value, json};

use crate::Failure;
use crate::args::{Cli, Command, key_values};
use crate::connect::connect;
use crate::render;

/// Runs the subcommand, closing the connection (and stopping a child process) whatever the
/// outcome.
pub async fn run(cli: &Cli) -> Result<(), Failure> {
    // Bad arguments are found before anything is started.
    let arguments = match cli.command {
        Command::Call | Command::Prompt => {
            if cli.rest.is_empty() {
                let what = if cli.command == Command::Call {
                    "TOOL"
                } else {
                    "PROMPT"
                };
                return Err(Failure::usage(format!("missing {what} after TARGET")));
            }
            key_values(&cli.rest[1..]).map_err(Failure::usage)?
        }
        Command::Read if cli.rest.len() != 1 => {
            return Err(Failure::usage("read takes one URI after TARGET"));
        }
        Command::Inspect if !cli.rest.is_empty() => {
            return Err(Failure::usage("inspect takes nothing after TARGET"));
        }
        _ => Map::new(),
    };
    if cli.command == Command::Dev {
        return crate::dev::run(cli, &cli.watch, &cli.rest).await;
    }
    if cli.command == Command::Gateway {
        let serve = match &cli.http {
            Some(addr) => crate::serve::Serve::Http(addr.clone()),
            None => crate::serve::Serve::Stdio,
        };
        let path = cli.config.as_deref().unwrap_or_default();
        return crate::gateway::run(path, &serve, cli.gateway_watch).await;
    }
    if cli.command == Command::Bridge {
        return crate::bridge::run(cli).await;
    }
    let kinds = list_kinds(cli)?;
    let client = connect(cli).await?;
    let out = match cli.command {
        Command::List => list(&client, cli, &kinds).await,
        Command::Call => call(&client, cli, &cli.rest[0], arguments).await,
        Command::Read => read(&client, cli, &cli.rest[0]).await,
        Command::Prompt => prompt(&client, cli, &cli.rest[0], arguments).await,
        Command::Inspect => inspect(&client, cli).await,
        Command::Bridge | Command::Dev | Command::Gateway => Ok(()),
    };
    let _ = client.shutdown().await;
    out
}

/// What `mcp list` lists: the kinds named, else every kind the server declares.
fn list_kinds(cli: &Cli) -> Result<Vec<&'static str>, Failure> {
    if cli.command != Command::List {
        return Ok(Vec::new());
    }
    cli.rest
        .iter()
        .map(|k| match k.as_str() {
            "tools" => Ok("tools"),
            "resources" => Ok("resources"),
            "templates" => Ok("templates"),
            "prompts" => Ok("prompts"),
            other => Err(Failure::usage(format!(
                "list: unknown kind `{other}` (tools, resources, templates or prompts)"
            ))),
        })
        .collect()
}

/// A request the server refused (exit code 4), or a transport failure on the way (3). A
/// refusal's `retryAfterMs` (a rate limit's) is said.
fn refused(what: &str, e: ClientError) -> Failure {
    match e {
        ClientError::Rpc(err) => {
            let retry = retry_after_ms(&err)
                .map(|ms| format!("; retry after {ms} ms"))
                .unwrap_or_default();
            Failure::new(
                4,
                format!(
                    "{what}: the server refused it: {} (code {}){retry}",
                    err.message, err.code
                ),
            )
        }
        ClientError::Http { status, .. } if (400..500).contains(&status) => {
            Failure::new(4, format!("{what}: {e}"))
        }
        other => Failure::new(3, format!("{what}: {other}")),
    }
}

/// The wait a refusal asks for (`data.retryAfterMs`, a rate limit's), if any.
fn retry_after_ms(err: &mcp_core::jsonrpc::ErrorObject) -> Option<u64> {
    err.data.as_ref()?.get("retryAfterMs")?.as_u64()
}

/// [`refused`], and with `--json` the server's error object on stdout (`{"error": {code,
/// message, data}}`, `retryAfterMs` in its data), so a script reads it as it reads a result.
fn refusal(cli: &Cli, what: &str, e: ClientError) -> Failure {
    if cli.json
        && let ClientError::Rpc(err) = &e
    {
        render::json(&json!({ "error": to_value(err) }));
    }
    refused(what, e)
}

fn to_value<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).unwrap_or(Value::Null)
}

/// Each kind's items (only the kinds the server declares, unless named).
async fn collect(client: &Client, kinds: &[&str]) -> Result<Map<String, Value>, Failure> {
    let caps = to_value(&client.server_capabilities());
    let named = !kinds.is_empty();
    let wanted = |kind: &str, cap: &str| {
        if named {
            kinds.contains(&kind)
        } else {
            caps.get(cap).is_some()
        }
    };
    let mut out = Map::new();
    if wanted("tools", "tools") {
        let tools = client
            .list_all_tools()
            .await
            .map_err(|e| refused("tools/list", e))?;
        out.insert("tools".into(), to_value(&tools));
    }
    if wanted("resources", "resources") {
        let r = client
            .list_all_resources()
            .await
            .map_err(|e| refused("resources/list", e))?;
        out.insert("resources".into(), to_value(&r));
    }
    if wanted("templates", "resources") {
        let mut all = Vec::new();
        let mut cursor = None;
        for _ in 0..1000 {
            let page = client
                .list_resource_templates(cursor)
                .await
                .map_err(|e| refused("resources/templates/list", e))?;
            all.extend(page.resource_templates);
            cursor = page.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        out.insert("templates".into(), to_value(&all));
    }
    if wanted("prompts", "prompts") {
        let p = client
            .list_all_prompts()
            .await
            .map_err(|e| refused("prompts/list", e))?;
        out.insert("prompts".into(), to_value(&p));
    }
    Ok(out)
}

async fn list(client: &Client, cli: &Cli, kinds: &[&str]) -> Result<(), Failure> {
    let all = collect(client, kinds).await?;
    if cli.json {
        render::json(&Value::Object(all));
    } else {
        print!("{}", render::lists(&all));
    }
    Ok(())
}

async fn call(
    client: &Client,
    cli: &Cli,
    tool: &str,
    arguments: Map<String, Value>,
) -> Result<(), Failure> {
    let what = format!("tools/call {tool}");
    let result = match client.call_tool(tool, Value::Object(arguments)).await {
        Ok(r) => to_value(&r),
        // Invalid params may be an unknown tool: said with the names there are. Any other
        // error is the server's own answer (a gateway's upstream failure names the
        // upstream), passed on as it is.
        Err(ClientError::Rpc(err)) if err.code == mcp_core::jsonrpc::INVALID_PARAMS => {
            if let Some(f) = unknown_tool(client, tool).await {
                return Err(f);
            }
            return Err(refusal(cli, &what, ClientError::Rpc(err)));
        }
        Err(e) => return Err(refusal(cli, &what, e)),
    };
    let failed = result.get("isError") == Some(&Value::Bool(true));
    if failed && let Some(f) = unknown_tool(client, tool).await {
        return Err(f);
    }
    if cli.json {
        render::json(&result);
    } else {
        print!("{}", render::call_result(&result));
    }
    if failed {
        return Err(Failure::new(
            1,
            format!("tool `{tool}` answered with isError"),
        ));
    }
    Ok(())
}

/// When `tool` is not among the server's tools: says so, with the names there are.
async fn unknown_tool(client: &Client, tool: &str) -> Option<Failure> {
    let tools = client.list_all_tools().await.ok()?;
    if tools.iter().any(|t| t.name == tool) {
        return None;
    }
    let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
    Some(Failure::new(
        4,
        format!(
            "unknown tool `{tool}` (this server has: {})",
            names.join(", ")
        ),
    ))
}

async fn read(client: &Client, cli: &Cli, uri: &str) -> Result<(), Failure> {
    let r = client
        .read_resource(uri)
        .await
        .map_err(|e| refusal(cli, &format!("resources/read {uri}"), e))?;
    let r = to_value(&r);
    if cli.json {
        render::json(&r);
    } else {
        print!("{}", render::read_result(&r));
    }
    Ok(())
}

async fn prompt(
    client: &Client,
    cli: &Cli,
    name: &str,
    arguments: Map<String, Value>,
) -> Result<(), Failure> {
    // Prompt arguments are strings: JSON values are passed as their text.
    let args = arguments.into_iter().map(|(k, v)| match v {
        Value::String(s) => (k, s),
        other => (k, other.to_string()),
    });
    let r = client
        .get_prompt(name, args)
        .await
        .map_err(|e| refusal(cli, &format!("prompts/get {name}"), e))?;
    let r = to_value(&r);
    if cli.json {
        render::json(&r);
    } else {
        print!("{}", render::prompt_result(&r));
    }
    Ok(())
}

async fn inspect(client: &Client, cli: &Cli) -> Result<(), Failure> {
    let session = client.session();
    let lists = collect(client, &[]).await?;
    let mut problems = Vec::new();
    for tool in lists
        .get("tools")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let name = tool.get("name").and_then(Value::as_str).unwrap_or_default();
        for (key, inputs) in [("inputSchema", true), ("outputSchema", false)] {
            if let Some(Value::Object(schema)) = tool.get(key) {
                for p in portability_problems(schema, inputs) {
                    problems.push(json!({"tool": name, "schema": key, "problem": p}));
                }
            }
        }
    }
    let transport = match client.transport() {
        Transport::Stream => "stdio",
        Transport::StreamableHttp => "Streamable HTTP",
        Transport::HttpSse => "HTTP+SSE",
    };
    let mut report = Map::new();
    report.insert("server".into(), to_value(&session.server_info));
    report.insert("protocolVersion".into(), json!(session.version.as_str()));
    report.insert("transport".into(), json!(transport));
    report.insert("capabilities".into(), to_value(&session.capabilities));
    report.insert("instructions".into(), to_value(&session.instructions));
    report.extend(lists);
    report.insert("problems".into(), Value::Array(problems.clone()));
    if cli.json {
        render::json(&Value::Object(report));
    } else {
        print!("{}", render::inspection(&report));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(
            1,
            format!("{} tool schema(s) strict clients refuse", problems.len()),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcp_core::jsonrpc::ErrorObject;

    #[test]
    fn a_rate_limit_refusal_says_when_to_retry() {
        let err = ErrorObject::new(-32029, "Rate limit exceeded")
            .with_data(json!({"retryAfterMs": 1500}));
        let f = refused("tools/call add", ClientError::Rpc(err));
        assert_eq!(f.code, 4);
        assert_eq!(
            f.message,
            "tools/call add: the server refused it: Rate limit exceeded (code -32029); retry after 1500 ms"
        );
        let plain = refused(
            "tools/call add",
            ClientError::Rpc(ErrorObject::new(
                -32603,
                "upstream `a` is unavailable: gone",
            )),
        );
        assert!(!plain.message.contains("retry"), "{}", plain.message);
        assert!(plain.message.contains("upstream `a` is unavailable"));
    }
}
