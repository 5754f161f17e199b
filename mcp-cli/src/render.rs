//! Readable output: tables of tools, resources and prompts; a call's content; the inspect
//! report. (`--json` prints the values as they are instead.)

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// Prints `v` as pretty JSON on stdout.
pub fn json(v: &Value) {
    println!(
        "{}",
        serde_json::to_string_pretty(v).unwrap_or_else(|_| v.to_string())
    );
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// The first line of a description, at most 72 characters.
fn short(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default().trim();
    if line.chars().count() > 72 {
        let cut: String = line.chars().take(71).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// Rows as left-aligned columns, the header underlined.
fn table(header: &[&str], rows: &[Vec<String>]) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: Vec<String>| {
        let last = cells.len() - 1;
        let mut l = String::new();
        for (i, (c, w)) in cells.iter().zip(&widths).enumerate() {
            if i == last {
                l.push_str(c);
            } else {
                let _ = write!(l, "{c:<w$}  ");
            }
        }
        out.push_str(l.trim_end());
        out.push('\n');
    };
    line(header.iter().map(|h| (*h).to_owned()).collect());
    line(widths.iter().map(|w| "-".repeat(*w)).collect());
    for row in rows {
        line(row.clone());
    }
    out
}

/// `a:integer b?:string`: the arguments of an input schema, optional ones marked `?`.
pub fn arguments(schema: Option<&Value>) -> String {
    let Some(props) = schema
        .and_then(|s| s.get("properties"))
        .and_then(Value::as_object)
    else {
        return String::new();
    };
    let required: Vec<&str> = schema
        .and_then(|s| s.get("required"))
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    props
        .iter()
        .map(|(name, p)| {
            let ty = match p.get("type") {
                Some(Value::String(t)) => t.clone(),
                Some(Value::Array(ts)) => ts
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("|"),
                _ if p.get("anyOf").is_some() || p.get("oneOf").is_some() => "union".into(),
                _ => "any".into(),
            };
            let opt = if required.contains(&name.as_str()) {
                ""
            } else {
                "?"
            };
            format!("{name}{opt}:{ty}")
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The tables of `mcp list` (each kind present in `all`).
pub fn lists(all: &Map<String, Value>) -> String {
    let mut out = String::new();
    let items = |k: &str| {
        all.get(k)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default()
    };
    let mut section = |title: &str, header: &[&str], rows: Vec<Vec<String>>| {
        if !out.is_empty() {
            out.push('\n');
        }
        let _ = writeln!(out, "{title} ({})", rows.len());
        if !rows.is_empty() {
            out.push_str(&table(header, &rows));
        }
    };
    if all.contains_key("tools") {
        let rows = items("tools")
            .iter()
            .map(|t| {
                vec![
                    str_of(t, "name").to_owned(),
                    arguments(t.get("inputSchema")),
                    short(str_of(t, "description")),
                ]
            })
            .collect();
        section("tools", &["NAME", "ARGUMENTS", "DESCRIPTION"], rows);
    }
    if all.contains_key("resources") {
        let rows = items("resources")
            .iter()
            .map(|r| {
                vec![
                    str_of(r, "uri").to_owned(),
                    str_of(r, "name").to_owned(),
                    str_of(r, "mimeType").to_owned(),
                    short(str_of(r, "description")),
                ]
            })
            .collect();
        section(
            "resources",
            &["URI", "NAME", "MIME TYPE", "DESCRIPTION"],
            rows,
        );
    }
    if all.contains_key("templates") {
        let rows = items("templates")
            .iter()
            .map(|r| {
                vec![
                    str_of(r, "uriTemplate").to_owned(),
                    str_of(r, "name").to_owned(),
                    short(str_of(r, "description")),
                ]
            })
            .collect();
        section(
            "resource templates",
            &["URI TEMPLATE", "NAME", "DESCRIPTION"],
            rows,
        );
    }
    if all.contains_key("prompts") {
        let rows = items("prompts")
            .iter()
            .map(|p| {
                let args = p
                    .get("arguments")
                    .and_then(Value::as_array)
                    .map(|a| {
                        a.iter()
                            .map(|x| {
                                let req = x.get("required") == Some(&Value::Bool(true));
                                format!("{}{}", str_of(x, "name"), if req { "" } else { "?" })
                            })
                            .collect::<Vec<_>>()
                            .join(" ")
                    })
                    .unwrap_or_default();
                vec![
                    str_of(p, "name").to_owned(),
                    args,
                    short(str_of(p, "description")),
                ]
            })
            .collect();
        section("prompts", &["NAME", "ARGUMENTS", "DESCRIPTION"], rows);
    }
    out
}

/// One content block (of a call result or a prompt message) as text.
fn content(c: &Value) -> String {
    match str_of(c, "type") {
        "text" => str_of(c, "text").to_owned(),
        "image" | "audio" => format!(
            "[{} {}, {} bytes base64]",
            str_of(c, "type"),
            str_of(c, "mimeType"),
            str_of(c, "data").len()
        ),
        "resource_link" => format!("[resource link {}]", str_of(c, "uri")),
        "resource" => {
            let r = c.get("resource").cloned().unwrap_or_default();
            format!("[resource {}]\n{}", str_of(&r, "uri"), resource_text(&r))
        }
        _ => c.to_string(),
    }
}

fn resource_text(r: &Value) -> String {
    match r.get("text").and_then(Value::as_str) {
        Some(t) => t.to_owned(),
        None => format!(
            "[blob {}, {} bytes base64]",
            str_of(r, "mimeType"),
            str_of(r, "blob").len()
        ),
    }
}

fn with_newline(mut s: String) -> String {
    if !s.is_empty() && !s.ends_with('\n') {
        s.push('\n');
    }
    s
}

/// A `tools/call` result: its content, then its structured content.
pub fn call_result(r: &Value) -> String {
    let mut out = String::new();
    if r.get("isError") == Some(&Value::Bool(true)) {
        out.push_str("error (isError):\n");
    }
    let blocks = r
        .get("content")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let structured = r.get("structuredContent");
    // The usual text twin of the structured content is printed once, pretty.
    let twin = structured.is_some()
        && matches!(blocks.as_slice(), [c] if str_of(c, "type") == "text"
        && serde_json::from_str::<Value>(str_of(c, "text")).ok().as_ref() == structured);
    for c in blocks.iter().filter(|_| !twin) {
        out.push_str(&with_newline(content(c)));
    }
    if let Some(s) = structured {
        let _ = writeln!(
            out,
            "structuredContent:\n{}",
            serde_json::to_string_pretty(s).unwrap_or_default()
        );
    }
    out
}

/// A `resources/read` result: each content's URI and text.
pub fn read_result(r: &Value) -> String {
    let contents = r
        .get("contents")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let many = contents.len() > 1;
    let mut out = String::new();
    for c in &contents {
        if many {
            let _ = writeln!(out, "== {}", str_of(c, "uri"));
        }
        out.push_str(&with_newline(resource_text(c)));
    }
    out
}

/// A `prompts/get` result: its description, then each message as `role: text`.
pub fn prompt_result(r: &Value) -> String {
    let mut out = String::new();
    if let Some(d) = r.get("description").and_then(Value::as_str) {
        let _ = writeln!(out, "{d}\n");
    }
    for m in r
        .get("messages")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let text = m.get("content").map(content).unwrap_or_default();
        out.push_str(&with_newline(format!("{}: {text}", str_of(m, "role"))));
    }
    out
}

fn indented(v: &Value, by: &str) -> String {
    serde_json::to_string_pretty(v)
        .unwrap_or_default()
        .lines()
        .map(|l| format!("{by}{l}\n"))
        .collect()
}

/// The `mcp inspect` report.
pub fn inspection(r: &Map<String, Value>) -> String {
    let mut out = String::new();
    let null = Value::Null;
    let server = r.get("server").unwrap_or(&null);
    let _ = writeln!(
        out,
        "server:       {} {}",
        str_of(server, "name"),
        str_of(server, "version")
    );
    let _ = writeln!(
        out,
        "protocol:     {}",
        str_of(&Value::Object(r.clone()), "protocolVersion")
    );
    let _ = writeln!(
        out,
        "transport:    {}",
        str_of(&Value::Object(r.clone()), "transport")
    );
    let _ = write!(
        out,
        "capabilities:\n{}",
        indented(r.get("capabilities").unwrap_or(&null), "  ")
    );
    match r.get("instructions").and_then(Value::as_str) {
        Some(i) => {
            out.push_str("instructions:\n");
            for l in i.lines() {
                let _ = writeln!(out, "  {l}");
            }
        }
        None => out.push_str("instructions: (none)\n"),
    }
    if let Some(tools) = r.get("tools").and_then(Value::as_array) {
        let _ = writeln!(out, "\ntools ({}):", tools.len());
        for t in tools {
            let _ = writeln!(
                out,
                "\n  {}: {}",
                str_of(t, "name"),
                short(str_of(t, "description"))
            );
            if let Some(a) = t.get("annotations") {
                let _ = writeln!(out, "    annotations: {a}");
            }
            for key in ["inputSchema", "outputSchema"] {
                if let Some(s) = t.get(key) {
                    let _ = write!(out, "    {key}:\n{}", indented(s, "      "));
                }
            }
        }
    }
    let mut rest = Map::new();
    for k in ["resources", "templates", "prompts"] {
        if let Some(v) = r.get(k) {
            rest.insert(k.into(), v.clone());
        }
    }
    if !rest.is_empty() {
        out.push('\n');
        out.push_str(&lists(&rest));
    }
    let problems = r
        .get("problems")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if problems.is_empty() {
        out.push_str("\nportability: every tool schema passes the strict checks\n");
    } else {
        let _ = writeln!(out, "\nportability: {} problem(s)", problems.len());
        for p in &problems {
            let _ = writeln!(
                out,
                "  tool {} {} {}",
                str_of(p, "tool"),
                str_of(p, "schema"),
                str_of(p, "problem")
            );
        }
    }
    out
}
