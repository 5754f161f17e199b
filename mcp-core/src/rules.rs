//! The checks a name, URI or identifier in a server's declarations passes, run by the
//! macros at compile time (each failure an error at the user's token) and by the builders at
//! build time: one rule, one place. These are plain functions over strings, with the few
//! constants and words they name.
//!
//! This is the part of the crate `mcp-framework-macros` links: it depends on this crate
//! with the `protocol` feature off, so a build compiles the rest of the crate (every
//! revision's types and the codec) once, for the target, and not a second time for the
//! compiler's host. Everything here is also re-exported where its entity lives
//! (`types::check_ui_uri` beside the Apps types, `types::check_tags` beside the tags).

use serde::{Deserialize, Serialize};

// Extensions (SEP-2133).

/// `Ok` for an extension identifier: `prefix/name`, the prefix dot-separated labels (each
/// starting with a letter and ending with a letter or digit, hyphens inside), the name
/// letters, digits, `-`, `_`, `.`, starting and ending with a letter or digit — the `_meta`
/// key rules with the mandatory prefix (SEP-2133).
pub fn check_extension_id(id: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("`{id}` is not an extension identifier: {why}"));
    let Some((prefix, name)) = id.split_once('/') else {
        return bad("it needs a `vendor.prefix/` (e.g. `com.example/my-extension`)");
    };
    let label = |l: &str| {
        let b = l.as_bytes();
        !b.is_empty()
            && b[0].is_ascii_alphabetic()
            && b[b.len() - 1].is_ascii_alphanumeric()
            && b.iter().all(|c| c.is_ascii_alphanumeric() || *c == b'-')
    };
    if !prefix.split('.').all(label) {
        return bad("the prefix must be dot-separated labels of letters, digits and hyphens");
    }
    let b = name.as_bytes();
    let ok_name = !b.is_empty()
        && b[0].is_ascii_alphanumeric()
        && b[b.len() - 1].is_ascii_alphanumeric()
        && b.iter()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'));
    if !ok_name {
        return bad(
            "the name must be letters, digits, `-`, `_`, `.`, starting and ending with a letter or digit",
        );
    }
    Ok(())
}

/// The tasks extension's identifier, the key under `capabilities.extensions`.
pub const TASKS_EXTENSION: &str = "io.modelcontextprotocol/tasks";

/// The skills extension's identifier, the key under `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// Extensions that add methods only the 2026-07-28 revision has (tasks, skills): dropped
/// from capabilities on legacy revisions.
pub const MODERN_ONLY_EXTENSIONS: [&str; 2] = [TASKS_EXTENSION, SKILLS_EXTENSION];

// MCP Apps (`io.modelcontextprotocol/ui`).

/// The MIME type of an MCP App's HTML document.
pub const APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// The URI scheme of UI resources.
pub const UI_SCHEME: &str = "ui://";

/// Who may call a tool: the model, the app (the view), or both.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UiVisibility {
    /// The model sees and calls the tool.
    Model,
    /// The app's view calls the tool.
    App,
}

impl UiVisibility {
    /// The wire word, `"model"` or `"app"`.
    pub fn as_str(self) -> &'static str {
        match self {
            UiVisibility::Model => "model",
            UiVisibility::App => "app",
        }
    }

    /// The visibility named `word`.
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "model" => Some(UiVisibility::Model),
            "app" => Some(UiVisibility::App),
            _ => None,
        }
    }
}

/// `Ok` for a `ui://` URI with something after the scheme.
pub fn check_ui_uri(uri: &str) -> Result<(), String> {
    match uri.strip_prefix(UI_SCHEME) {
        Some(rest) if !rest.is_empty() && !rest.contains(char::is_whitespace) => Ok(()),
        Some(_) => Err(format!("`{uri}` names no resource after `ui://`")),
        None => Err(format!(
            "`{uri}` is not a UI resource URI: MCP Apps views live at `ui://...`"
        )),
    }
}

/// `Ok` for a non-empty visibility list without repeats.
pub fn check_visibility(v: &[UiVisibility]) -> Result<(), String> {
    if v.is_empty() {
        return Err("`visibility` is empty: name `model`, `app` or both".to_owned());
    }
    if v.len() == 2 && v[0] == v[1] {
        return Err(format!("`visibility` names `{}` twice", v[0].as_str()));
    }
    if v.len() > 2 {
        return Err("`visibility` repeats an entry: it holds `model`, `app` or both".to_owned());
    }
    Ok(())
}

/// `Ok` for a CSP origin: `https://host[:port]`, `http://…`, `wss://…`, `ws://…`, with an
/// optional leading `*.` wildcard label; no path, query, fragment or credentials.
pub fn check_origin(entry: &str) -> Result<(), String> {
    let bad = |why: &str| Err(format!("`{entry}` is not an origin: {why}"));
    let Some((scheme, rest)) = entry.split_once("://") else {
        return bad("it has no `scheme://`");
    };
    if !matches!(scheme, "https" | "http" | "wss" | "ws") {
        return bad("the scheme must be https, http, wss or ws");
    }
    if rest.contains('@') {
        return bad("it carries credentials");
    }
    if rest.contains('?') || rest.contains('#') {
        return bad("it has a query or fragment");
    }
    let host_port = match rest.strip_suffix('/') {
        Some(h) => h,
        None => rest,
    };
    if host_port.contains('/') {
        return bad("it has a path");
    }
    let (host, port) = match host_port.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || host_port.starts_with('[') => (h, Some(p)),
        _ => (host_port, None),
    };
    if let Some(p) = port
        && (p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()) || p.parse::<u16>().is_err())
    {
        return bad("the port is not a number up to 65535");
    }
    let host = host.strip_prefix("*.").unwrap_or(host);
    let ok_label = |l: &str| {
        !l.is_empty()
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !l.starts_with('-')
    };
    let ipv6 = host.starts_with('[') && host.ends_with(']');
    if host.is_empty() || !(ipv6 || host.split('.').all(ok_label)) {
        return bad("the host is not a domain name or address");
    }
    Ok(())
}

// Tags (`_meta.tags`).

/// What is wrong with a list of tags, if anything: an empty tag, or one given twice.
///
/// ```
/// use mcp_core::rules::check_tags;
///
/// assert!(check_tags(&["admin", "billing"]).is_ok());
/// assert_eq!(check_tags(&["admin", ""]).unwrap_err(), "a tag cannot be empty");
/// assert_eq!(check_tags(&["a", "a"]).unwrap_err(), "the tag \"a\" is given twice");
/// ```
pub fn check_tags<S: AsRef<str>>(tags: &[S]) -> Result<(), String> {
    for (i, t) in tags.iter().enumerate() {
        let t = t.as_ref();
        if t.is_empty() {
            return Err("a tag cannot be empty".into());
        }
        if tags[..i].iter().any(|u| u.as_ref() == t) {
            return Err(format!("the tag {t:?} is given twice"));
        }
    }
    Ok(())
}

/// The error for a name that is none of `known`: `what` says who named it and what kind of
/// item it is (`"RateLimit::tool: no tool"`), followed by the names it could have meant —
/// the nearest of `known` by edit distance, or, when none is near, the first few of them.
///
/// ```
/// use mcp_core::rules::unknown_name;
///
/// let known = ["py_add", "py_sub", "search"];
/// assert_eq!(
///     unknown_name("RateLimit::tool: no tool", "add", &known),
///     "RateLimit::tool: no tool `add`; did you mean `py_add`? (3 known)"
/// );
/// assert_eq!(
///     unknown_name("Visibility: no tool", "zzzz", &known),
///     "Visibility: no tool `zzzz` (known: `py_add`, `py_sub`, `search`)"
/// );
/// ```
pub fn unknown_name<S: AsRef<str>>(what: &str, name: &str, known: &[S]) -> String {
    let near = nearest(name, known);
    if !near.is_empty() {
        let list: Vec<String> = near.iter().map(|k| format!("`{k}`")).collect();
        return format!(
            "{what} `{name}`; did you mean {}? ({} known)",
            list.join(" or "),
            known.len()
        );
    }
    const SHOWN: usize = 8;
    let mut list: Vec<String> = (known.iter().take(SHOWN))
        .map(|k| format!("`{}`", k.as_ref()))
        .collect();
    if known.len() > SHOWN {
        list.push(format!("and {} more", known.len() - SHOWN));
    }
    match list.is_empty() {
        true => format!("{what} `{name}` (there are none)"),
        false => format!("{what} `{name}` (known: {})", list.join(", ")),
    }
}

/// Up to three of `known` close to `name`: within an edit distance of a third of the
/// longer name (at least 2), or one containing the other; nearest first.
fn nearest<'a, S: AsRef<str>>(name: &str, known: &'a [S]) -> Vec<&'a str> {
    let mut near: Vec<(usize, &str)> = (known.iter().map(AsRef::as_ref))
        .filter(|k| *k != name)
        .map(|k| (levenshtein(name, k), k))
        .filter(|(d, k)| {
            *d <= 2.max(name.len().max(k.len()) / 3) || k.contains(name) || name.contains(k)
        })
        .collect();
    near.sort();
    near.into_iter().take(3).map(|(_, k)| k).collect()
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
