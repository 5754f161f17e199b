//! The text of the file beyond its JSON: `${VAR}` expansion, and the line of each key (a
//! small scanner of the JSON text, so an error names the line of the key at fault).

use std::collections::HashMap;

/// `s` with each `${VAR}` (or `${VAR:-default}`) replaced from `env`; an unset variable
/// without a default, or an unclosed `${`, is an error.
pub fn expand(s: &str, env: &dyn Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("${") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let end = after
            .find('}')
            .ok_or_else(|| format!("`{}` has no closing `}}`", &rest[i..]))?;
        let inner = &after[..end];
        let (var, default) = match inner.split_once(":-") {
            Some((v, d)) => (v, Some(d)),
            None => (inner, None),
        };
        let valid = !var.is_empty() && var.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(format!("`${{{inner}}}` is not a variable name"));
        }
        match (env(var), default) {
            // As a shell does: `:-` takes the default for an empty value too.
            (Some(v), Some(d)) if v.is_empty() => out.push_str(d),
            (Some(v), _) => out.push_str(&v),
            (None, Some(d)) => out.push_str(d),
            (None, None) => {
                return Err(format!("`${{{var}}}` is not set in the environment"));
            }
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// The line of each object key in `text` (valid JSON), by its dotted path
/// (`mcpServers.files.args`; array elements `[i]`).
pub(super) fn key_lines(text: &str) -> HashMap<String, usize> {
    let mut s = Scan {
        b: text.as_bytes(),
        i: 0,
        line: 1,
        out: HashMap::new(),
    };
    s.value("");
    s.out
}

struct Scan<'a> {
    b: &'a [u8],
    i: usize,
    line: usize,
    out: HashMap<String, usize>,
}

impl Scan<'_> {
    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            match c {
                b'\n' => self.line += 1,
                b' ' | b'\t' | b'\r' => {}
                _ => return,
            }
            self.i += 1;
        }
    }

    fn value(&mut self, path: &str) {
        self.ws();
        match self.b.get(self.i) {
            Some(b'{') => {
                self.i += 1;
                loop {
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b'}') | None => {
                            self.i += 1;
                            return;
                        }
                        Some(b',') => self.i += 1,
                        _ => {
                            let line = self.line;
                            let key = self.string();
                            let p = if path.is_empty() {
                                key
                            } else {
                                format!("{path}.{key}")
                            };
                            self.out.entry(p.clone()).or_insert(line);
                            self.ws();
                            self.i += 1; // ':'
                            self.value(&p);
                        }
                    }
                }
            }
            Some(b'[') => {
                self.i += 1;
                let mut n = 0;
                loop {
                    self.ws();
                    match self.b.get(self.i) {
                        Some(b']') | None => {
                            self.i += 1;
                            return;
                        }
                        Some(b',') => self.i += 1,
                        _ => {
                            let p = format!("{path}[{n}]");
                            self.out.entry(p.clone()).or_insert(self.line);
                            self.value(&p);
                            n += 1;
                        }
                    }
                }
            }
            Some(b'"') => {
                self.string();
            }
            _ => {
                while let Some(&c) = self.b.get(self.i) {
                    if matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                        break;
                    }
                    self.i += 1;
                }
            }
        }
    }

    /// A string at `self.i` (its opening quote), decoded.
    fn string(&mut self) -> String {
        let start = self.i;
        self.i += 1;
        while let Some(&c) = self.b.get(self.i) {
            self.i += 1;
            match c {
                b'\\' => self.i += 1,
                b'"' => break,
                _ => {}
            }
        }
        let raw = std::str::from_utf8(&self.b[start..self.i.min(self.b.len())]).unwrap_or("\"\"");
        serde_json::from_str(raw).unwrap_or_default()
    }
}
