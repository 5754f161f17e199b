//! Which argument a failed decoding stopped at, read from the raw JSON and serde_json's
//! position, so a tool's arguments are decoded by one instantiation of their
//! `Deserialize` (straight from the text, as fast as serde_json goes) and still fail with
//! the argument's name. Compiled once, not per tool; it runs only after a failure.
//!
//! The path has serde_path_to_error's form: `point.y`, `list[1]`, `.` for the top.

/// One open container on the way to the position.
enum Frame {
    /// An object: the key read last, and whether its value has begun.
    Object { key: Option<String>, value: bool },
    /// An array: the index of the element being read.
    Array(usize),
}

/// The path of the value serde_json was reading when it stopped at `line`/`column` (its
/// error's position, 1-based line, column counting the bytes read on that line) of `json`.
///
/// `field_error` is for errors naming a field of an object ("missing field", "unknown
/// field", "duplicate field"): their path is the object's, not the key's that was just
/// read.
pub(super) fn path_at(json: &str, line: usize, column: usize, field_error: bool) -> String {
    let end = offset(json, line, column);
    let bytes = json.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        let b = bytes[i];
        match b {
            b'{' => {
                begin_value(&mut stack);
                stack.push(Frame::Object {
                    key: None,
                    value: false,
                });
            }
            b'[' => {
                begin_value(&mut stack);
                stack.push(Frame::Array(0));
            }
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(n)) => *n += 1,
                Some(Frame::Object { key, value }) => (*key, *value) = (None, false),
                None => {}
            },
            b'"' => {
                let close = string_end(bytes, i);
                match stack.last_mut() {
                    Some(Frame::Object {
                        key: key @ None, ..
                    }) => {
                        *key = serde_json::from_str(&json[i..close.min(json.len())]).ok();
                    }
                    _ => begin_value(&mut stack),
                }
                i = close;
                continue;
            }
            b' ' | b'\t' | b'\r' | b'\n' | b':' => {}
            _ => begin_value(&mut stack),
        }
        i += 1;
    }
    if field_error {
        // The key just read names the field; the error is about its object.
        if let Some(Frame::Object { key, value: false }) = stack.last_mut() {
            *key = None;
        }
    }
    render(&stack)
}

/// The byte offset of serde_json's `line`/`column` in `json` (the end when out of range).
fn offset(json: &str, line: usize, column: usize) -> usize {
    let start = json
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum::<usize>();
    (start + column).min(json.len())
}

/// A value starts in the innermost container: an object's key now has its value.
fn begin_value(stack: &mut [Frame]) {
    if let Some(Frame::Object { value, .. }) = stack.last_mut() {
        *value = true;
    }
}

/// The index just past the string that opens at `open` (its closing quote included).
fn string_end(bytes: &[u8], open: usize) -> usize {
    let mut i = open + 1;
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    bytes.len()
}

/// serde_path_to_error's rendering: keys joined by `.`, indices as `[n]`, `.` when empty.
fn render(stack: &[Frame]) -> String {
    let mut path = String::new();
    for frame in stack {
        match frame {
            Frame::Object { key: Some(k), .. } => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(k);
            }
            Frame::Object { key: None, .. } => {}
            Frame::Array(n) => path.push_str(&format!("[{n}]")),
        }
    }
    if path.is_empty() {
        path.push('.');
    }
    path
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::path_at;

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    struct Point {
        x: i64,
        y: i64,
    }

    #[derive(Deserialize, Debug)]
    #[allow(dead_code)]
    #[serde(deny_unknown_fields)]
    struct Args {
        n: i64,
        name: String,
        list: Vec<i64>,
        point: Point,
        points: Option<Vec<Point>>,
    }

    /// The path `path_at` finds where serde_json stopped decoding `json` as `Args`.
    fn path(json: &str) -> String {
        let e = serde_json::from_str::<Args>(json).unwrap_err();
        let field = ["missing field", "unknown field", "duplicate field"]
            .iter()
            .any(|p| e.to_string().starts_with(p));
        path_at(json, e.line(), e.column(), field)
    }

    #[test]
    fn the_argument_where_decoding_stopped() {
        let cases = [
            (
                r#"{"n":"x","name":"a","list":[],"point":{"x":1,"y":2}}"#,
                "n",
            ),
            (
                r#"{"n":1,"name":"a","list":{},"point":{"x":1,"y":2}}"#,
                "list",
            ),
            (
                r#"{"n":1,"name":"a","list":[1,"2"],"point":{"x":1,"y":2}}"#,
                "list[1]",
            ),
            (
                r#"{"n":1,"name":"a","list":[],"point":{"x":1,"y":[true]}}"#,
                "point.y",
            ),
            (r#"{"n":1,"name":"a","list":[],"point":{"x":1}}"#, "point"),
            (r#"{"n":1,"list":[],"point":{"x":1,"y":2}}"#, "."),
            (
                r#"{"n":1,"name":"a","list":[],"point":{"x":1,"y":2},"zz":1}"#,
                ".",
            ),
            (
                r#"{"n":1,"n":2,"name":"a","list":[],"point":{"x":1,"y":2}}"#,
                ".",
            ),
            // Strings holding the characters that open and close containers.
            (
                r#"{"name":"{[\",]}","n":true,"list":[],"point":{"x":1,"y":2}}"#,
                "n",
            ),
            (
                r#"{"n":1,"name":"a","list":[],"point":{"x":1,"y":2},"points":[{"x":1,"y":2},{"x":"1","y":2}]}"#,
                "points[1].x",
            ),
            // Across lines, with spaces everywhere.
            (
                "{\n  \"n\" : 1 ,\n  \"name\" : \"a\",\n  \"list\" : [ 1 , { } ],\n  \"point\":{\"x\":1,\"y\":2}\n}",
                "list[1]",
            ),
        ];
        for (json, want) in cases {
            assert_eq!(path(json), want, "{json}");
        }
    }
}
