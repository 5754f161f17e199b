//! `mcp openapi inspect SPEC [--base URL] [--json]`: what an OpenAPI document would become
//! as MCP tools (`mcp_runtime::openapi`), without serving it: each tool's name, its HTTP
//! method and path, its arguments (`*` required), whether it answers structured content,
//! and the portability check `mcp inspect` runs on a server's tools. Exit codes as the
//! other commands: 1 when a schema is not portable, 2 bad usage, 3 a document that cannot
//! be read or served (the error names the place).

use mcp_runtime::openapi::{OpenApi, OpenApiTools};
use mcp_runtime::portability_problems;
use serde_json::{Value, json};

use crate::Failure;

/// What `mcp openapi --help` prints.
pub const USAGE: &str = "\
usage: mcp openapi inspect SPEC [--base URL] [--json]

SPEC is an OpenAPI 3.0 or 3.1 document, JSON or YAML, a file path or an http(s) URL.
--base URL is where requests would go when the document names no absolute server.";

/// Runs `mcp openapi ARGS` (the words after `openapi`).
pub async fn run(args: &[String]) -> Result<(), Failure> {
    let (spec, base, json_out) = parse(args)?;
    let mut api = OpenApi::load(&spec)
        .await
        .map_err(|e| Failure::new(3, e.to_string()))?;
    // Where requests would go does not change what the tools are: any base will do when
    // the document names none.
    let named = base.is_some();
    api = api.base_url(base.unwrap_or_else(|| "http://base.invalid".into()));
    let tools = api.build().map_err(|e| Failure::new(3, e.to_string()))?;
    let problems: Vec<(String, String)> = tools
        .tools()
        .flat_map(|t| {
            let mut p = portability_problems(&t.input_schema, true);
            if let Some(out) = &t.output_schema {
                p.extend(portability_problems(out, false));
            }
            p.into_iter().map(|x| (t.name.clone(), x))
        })
        .collect();
    if json_out {
        println!("{}", as_json(&tools, named, &problems));
    } else {
        print_table(&tools, named);
        for (tool, p) in &problems {
            println!("not portable: {tool}: {p}");
        }
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(Failure::new(1, ""))
    }
}

fn parse(args: &[String]) -> Result<(String, Option<String>, bool), Failure> {
    let mut it = args.iter();
    match it.next().map(String::as_str) {
        Some("inspect") => {}
        Some("-h" | "--help") | None => return Err(Failure::usage(USAGE)),
        Some(other) => {
            return Err(Failure::usage(format!(
                "unknown `mcp openapi {other}`\n{USAGE}"
            )));
        }
    }
    let (mut spec, mut base, mut json_out) = (None, None, false);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--base" => {
                base = Some(
                    it.next()
                        .cloned()
                        .ok_or_else(|| Failure::usage("--base needs a URL"))?,
                )
            }
            "--json" => json_out = true,
            s if s.starts_with('-') => {
                return Err(Failure::usage(format!("unknown option {s}\n{USAGE}")));
            }
            s if spec.is_none() => spec = Some(s.to_owned()),
            s => return Err(Failure::usage(format!("unexpected {s:?}\n{USAGE}"))),
        }
    }
    let spec = spec.ok_or_else(|| Failure::usage(format!("no SPEC\n{USAGE}")))?;
    Ok((spec, base, json_out))
}

/// The arguments of a tool, required ones marked `*`.
fn arguments(t: &mcp_core::types::Tool) -> String {
    let required: Vec<&str> = t
        .input_schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    let props = t.input_schema.get("properties").and_then(Value::as_object);
    props
        .into_iter()
        .flat_map(|p| p.keys())
        .map(|k| {
            if required.contains(&k.as_str()) {
                format!("{k}*")
            } else {
                k.clone()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn print_table(tools: &OpenApiTools, named: bool) {
    let count = tools.tools().count();
    if named {
        println!("{count} tools, requests to {}", tools.base_url());
    } else {
        println!("{count} tools");
    }
    for t in tools.tools() {
        let (method, path) = tools.route(&t.name).unwrap_or_default();
        let structured = if t.output_schema.is_some() {
            "  -> structured"
        } else {
            ""
        };
        println!(
            "{:<7}{path}\n       {}({}){structured}",
            method,
            t.name,
            arguments(t)
        );
    }
}

fn as_json(tools: &OpenApiTools, named: bool, problems: &[(String, String)]) -> Value {
    let list: Vec<Value> = tools
        .tools()
        .map(|t| {
            let (method, path) = tools.route(&t.name).unwrap_or_default();
            json!({"method": method, "path": path, "tool": t})
        })
        .collect();
    json!({
        "base": if named { Some(tools.base_url()) } else { None },
        "tools": list,
        "notPortable": problems.iter().map(|(t, p)| json!({"tool": t, "problem": p})).collect::<Vec<_>>(),
    })
}
