//! URL text: percent-encoding, a server URL's variables, a relative reference resolved.

use serde_json::Value;

/// Percent-encodes all but RFC 3986's unreserved characters.
pub(super) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A server URL with its `{variables}` at their defaults.
pub(super) fn with_defaults(url: &str, vars: Option<&Value>) -> String {
    let mut out = url.to_owned();
    for (k, v) in vars.and_then(Value::as_object).into_iter().flatten() {
        if let Some(d) = v.get("default").and_then(Value::as_str) {
            out = out.replace(&format!("{{{k}}}"), d);
        }
    }
    out
}

/// `reference` (an absolute path, or a path relative to `base`'s folder) against `base`.
pub(super) fn resolve(base: &str, reference: &str) -> String {
    let scheme_end = base.find("://").map_or(0, |i| i + 3);
    let origin_end = base[scheme_end..]
        .find('/')
        .map_or(base.len(), |i| scheme_end + i);
    if reference.starts_with('/') {
        return format!("{}{reference}", &base[..origin_end]);
    }
    let path = base[..base.find(['?', '#']).unwrap_or(base.len())].to_owned();
    let folder = path
        .rfind('/')
        .filter(|i| *i >= origin_end)
        .map_or(path.len(), |i| i);
    format!("{}/{}", &path[..folder], reference.trim_start_matches("./"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_server_urls_resolve_against_the_document() {
        assert_eq!(
            resolve("http://h:1/api/v3/openapi.json", "/api/v3"),
            "http://h:1/api/v3"
        );
        assert_eq!(resolve("http://h:1/openapi.json", "/"), "http://h:1/");
        assert_eq!(
            resolve("http://h:1/a/openapi.json", "v2"),
            "http://h:1/a/v2"
        );
        assert_eq!(
            with_defaults(
                "https://{host}/v1",
                Some(&serde_json::json!({"host": {"default": "api.example"}}))
            ),
            "https://api.example/v1"
        );
    }
}
