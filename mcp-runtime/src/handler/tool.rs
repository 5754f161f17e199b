//! Tool argument decoding with errors a model can act on.
//!
//! Bad arguments are not protocol faults: they come back as `isError: true` results that
//! name the argument and the JSON type expected (not serde's "at line 1 column 2", nor a
//! Rust type such as `i64` or `struct Args`).

use mcp_core::types::CallToolResult;

use super::argument_path::path_at;
use serde::de::DeserializeOwned;
use serde_json::value::RawValue;

/// Decodes tool arguments into `T`; on failure, the `isError` result to send instead.
///
/// ```
/// use mcp_runtime::__private::decode_arguments;
/// #[derive(serde::Deserialize, Debug)]
/// struct Args { a: i64, b: i64 }
/// let raw = serde_json::value::to_raw_value(&serde_json::json!({"a": 1, "b": "x"})).unwrap();
/// let err = decode_arguments::<Args>(Some(&raw)).unwrap_err();
/// let text = serde_json::to_string(&err).unwrap();
/// assert!(text.contains(r#"argument \"b\": expected an integer, got a string"#), "{text}");
/// ```
#[doc(hidden)]
pub fn decode_arguments<T: DeserializeOwned>(args: Option<&RawValue>) -> Result<T, CallToolResult> {
    let json = args.map_or("{}", RawValue::get);
    mcp_core::passes::arguments_pass();
    // One instantiation of `T`'s `Deserialize`, straight from the raw JSON: a failure is
    // worded from serde's message and the position it stopped at, so no second decoding
    // (a path-tracking one, for the error) is compiled for every tool.
    serde_json::from_str::<T>(json).map_err(|e| decode_error(json, &e))
}

/// The `isError` result for arguments that did not decode (compiled once): not JSON or not
/// an object first, then the argument where decoding stopped and serde's message in JSON's
/// words.
fn decode_error(json: &str, e: &serde_json::Error) -> CallToolResult {
    if let Err(shape) = arguments_shape(json) {
        return shape;
    }
    // serde_json's message ends with the position; a model reasons in arguments.
    let full = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    let msg = full.strip_suffix(&position).unwrap_or(&full);
    let field_error = ["missing field ", "unknown field ", "duplicate field "]
        .iter()
        .any(|p| msg.starts_with(p));
    let path = path_at(json, e.line(), e.column(), field_error);
    if msg.starts_with("trailing characters") {
        // Valid JSON (checked above) with something left over: a tuple's array was longer
        // than the tuple. Decoding stopped at the extra element; the argument is the array.
        let array = path
            .rsplit_once('[')
            .map_or(path.as_str(), |(array, _)| array);
        return CallToolResult::error(format!("argument \"{array}\": expected fewer items"));
    }
    CallToolResult::error(argument_error(&path, msg))
}

/// The error for arguments that are not a JSON object (only after a failed decoding).
fn arguments_shape(json: &str) -> Result<(), CallToolResult> {
    let value: serde_json::Value = match serde_json::from_str(json) {
        Ok(v) => v,
        Err(_) => return Err(CallToolResult::error("Invalid arguments: not valid JSON")),
    };
    if !value.is_object() {
        return Err(CallToolResult::error(
            "Invalid arguments: expected an object",
        ));
    }
    Ok(())
}

/// Words serde's error `msg` about the argument at `path` (`point.y`, `list[1]`,
/// `.` for the top) in JSON's vocabulary: the argument's name and the JSON type expected
/// ("an integer", "a number", "a boolean", "a string", "an array", "an object"), the range
/// of an integer out of range, never a Rust type.
///
/// The one place serde's wording (`invalid type: string "x", expected i64`, `missing field
/// `b``, ...) is translated; a message of another shape (a hand-written `Deserialize`) is
/// kept after the argument's name.
fn argument_error(path: &str, msg: &str) -> String {
    let top = path.is_empty() || path == ".";
    let join = |field: &str| {
        if top {
            field.to_owned()
        } else {
            format!("{path}.{field}")
        }
    };
    let at = |rest: String| {
        if top {
            format!("Invalid arguments: {rest}")
        } else {
            format!("argument \"{path}\": {rest}")
        }
    };
    // The name inside serde's backquotes, as in "missing field `b`".
    let quoted = |s: &str| {
        s.strip_prefix('`')
            .and_then(|s| s.split('`').next())
            .map(str::to_owned)
    };

    if let Some(field) = msg.strip_prefix("missing field ").and_then(quoted) {
        return format!("argument \"{}\" is required but missing", join(&field));
    }
    if let Some(rest) = msg.strip_prefix("unknown field ") {
        let field = quoted(rest).unwrap_or_default();
        return format!("argument \"{}\" is not accepted", join(&field));
    }
    if let Some(rest) = msg.strip_prefix("duplicate field ") {
        let field = quoted(rest).unwrap_or_default();
        return format!("argument \"{}\" is given twice", join(&field));
    }
    if let Some(rest) = msg.strip_prefix("unknown variant ") {
        // "unknown variant `alpha`, expected `relevance` or `date`"
        let got = quoted(rest).unwrap_or_default();
        let allowed: Vec<String> = rest
            .split_once(", expected ")
            .map(|(_, e)| {
                e.split('`')
                    .skip(1)
                    .step_by(2)
                    .map(|v| format!("\"{v}\""))
                    .collect()
            })
            .unwrap_or_default();
        return at(if allowed.is_empty() {
            format!("\"{got}\" is not an accepted value")
        } else {
            format!("expected one of {}, got \"{got}\"", allowed.join(", "))
        });
    }
    if msg.starts_with("data did not match any variant") {
        return at("does not match any accepted shape".to_owned());
    }
    if let Some(rest) = msg.strip_prefix("invalid length ") {
        // "invalid length 3, expected a tuple of size 2"
        let (n, exp) = rest.split_once(", expected ").unwrap_or((rest, ""));
        let size = exp
            .rsplit(' ')
            .find_map(|w| w.parse::<usize>().ok())
            .map_or(String::new(), |k| format!(" of {k} items"));
        return at(format!("expected an array{size}, got {n} items"));
    }
    let (kind, rest) = if let Some(r) = msg.strip_prefix("invalid type: ") {
        (false, r)
    } else if let Some(r) = msg.strip_prefix("invalid value: ") {
        (true, r)
    } else {
        return at(msg.to_owned());
    };
    let Some((unexp, exp)) = rest.rsplit_once(", expected ") else {
        return at(msg.to_owned());
    };
    let range = integer_range(exp);
    let value = unexp.split('`').nth(1);
    let got_integer = unexp.starts_with("integer `");
    if let (true, Some((lo, hi)), true, Some(v)) = (kind, &range, got_integer, value) {
        return at(format!(
            "expected an integer between {lo} and {hi}, got {v}"
        ));
    }
    let expected = if range.is_some() {
        "an integer".to_owned()
    } else {
        json_expected(exp)
    };
    let got = json_got(unexp, kind, value);
    at(format!("expected {expected}, got {got}"))
}

/// The range of a Rust integer type named in serde's "expected ..." (`i64`, `u8`, ...).
fn integer_range(exp: &str) -> Option<(String, String)> {
    Some(match exp {
        "i8" => (i8::MIN.to_string(), i8::MAX.to_string()),
        "i16" => (i16::MIN.to_string(), i16::MAX.to_string()),
        "i32" => (i32::MIN.to_string(), i32::MAX.to_string()),
        "i64" => (i64::MIN.to_string(), i64::MAX.to_string()),
        "i128" => (i128::MIN.to_string(), i128::MAX.to_string()),
        "isize" => (isize::MIN.to_string(), isize::MAX.to_string()),
        "u8" => ("0".to_owned(), u8::MAX.to_string()),
        "u16" => ("0".to_owned(), u16::MAX.to_string()),
        "u32" => ("0".to_owned(), u32::MAX.to_string()),
        "u64" => ("0".to_owned(), u64::MAX.to_string()),
        "u128" => ("0".to_owned(), u128::MAX.to_string()),
        "usize" => ("0".to_owned(), usize::MAX.to_string()),
        _ => return None,
    })
}

/// What serde's "expected ..." (other than an integer type) means in JSON's words.
fn json_expected(exp: &str) -> String {
    if exp.starts_with("a nonzero ") {
        return "an integer other than 0".to_owned();
    }
    match exp {
        "f32" | "f64" | "a JSON number" => "a number".to_owned(),
        "a boolean" => "a boolean".to_owned(),
        "a string" | "a borrowed string" | "path string" | "variant identifier"
        | "field identifier" => "a string".to_owned(),
        "a character" => "a string of one character".to_owned(),
        "a sequence" | "a set" => "an array".to_owned(),
        "a map" => "an object".to_owned(),
        "unit" => "null".to_owned(),
        "string or map" => "a string or an object".to_owned(),
        "any valid JSON value" => "any JSON value".to_owned(),
        e if e.starts_with("struct ") => "an object".to_owned(),
        e if e.starts_with("unit struct ") => "null".to_owned(),
        e if e.starts_with("tuple struct ")
            || e.starts_with("a tuple of size ")
            || e.starts_with("an array of length ") =>
        {
            "an array".to_owned()
        }
        e if e.starts_with("enum ") => "one of the accepted values".to_owned(),
        e => e.to_owned(),
    }
}

/// What serde's "invalid type/value: ..." says was given, in JSON's words (`kind`: an
/// invalid value rather than type, so an integer is shown as itself).
fn json_got(unexp: &str, kind: bool, value: Option<&str>) -> String {
    match unexp.split_once(' ').map_or(unexp, |(w, _)| w) {
        _ if unexp == "null" || unexp == "unit value" => "null".to_owned(),
        "string" | "character" => "a string".to_owned(),
        "integer" if kind => value.unwrap_or("an integer").to_owned(),
        "integer" => "an integer".to_owned(),
        "floating" => format!("the number {}", value.unwrap_or_default()),
        "boolean" => "a boolean".to_owned(),
        "sequence" => "an array".to_owned(),
        "map" => "an object".to_owned(),
        _ => unexp.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::value::RawValue;

    use super::{argument_error, decode_arguments};

    /// The text of the error result for `json` decoded as `T`.
    fn error_text<T: serde::de::DeserializeOwned>(json: &str) -> String {
        let raw = RawValue::from_string(json.to_owned()).unwrap();
        let Err(result) = decode_arguments::<T>(Some(&raw)) else {
            panic!("{json} decoded");
        };
        let v = serde_json::to_value(&result).unwrap();
        v["content"][0]["text"].as_str().unwrap().to_owned()
    }

    #[test]
    fn errors_name_the_argument_where_decoding_stopped() {
        #[derive(serde::Deserialize, Debug)]
        #[allow(dead_code)]
        struct Args {
            pair: (i32, i32),
            #[serde(default)]
            tags: Vec<String>,
        }
        let cases = [
            (
                r#"{"pair":[1,2,3]}"#,
                r#"argument "pair": expected fewer items"#,
            ),
            (
                r#"{"pair":[1]}"#,
                r#"argument "pair": expected an array of 2 items, got 1 items"#,
            ),
            (
                r#"{"pair":[1,2],"tags":["a",7]}"#,
                r#"argument "tags[1]": expected a string, got an integer"#,
            ),
            (
                r#"{"tags":[]}"#,
                r#"argument "pair" is required but missing"#,
            ),
            (
                r#"{"pair":[1,2],"pair":[3,4]}"#,
                r#"argument "pair" is given twice"#,
            ),
            (r#"[1,2]"#, "Invalid arguments: expected an object"),
        ];
        for (json, want) in cases {
            assert_eq!(error_text::<Args>(json), want, "{json}");
        }
    }

    #[test]
    fn serde_wording_becomes_json_wording() {
        let cases = [
            (
                "a",
                r#"invalid type: string "x", expected i64"#,
                r#"argument "a": expected an integer, got a string"#,
            ),
            (
                "n",
                "invalid value: integer `300`, expected u8",
                r#"argument "n": expected an integer between 0 and 255, got 300"#,
            ),
            (
                "f",
                "invalid type: boolean `true`, expected f64",
                r#"argument "f": expected a number, got a boolean"#,
            ),
            (
                "v[1]",
                "invalid type: floating point `1.5`, expected u32",
                r#"argument "v[1]": expected an integer, got the number 1.5"#,
            ),
            (
                "s",
                "invalid type: sequence, expected struct Point",
                r#"argument "s": expected an object, got an array"#,
            ),
            (
                "l",
                "invalid type: map, expected a sequence",
                r#"argument "l": expected an array, got an object"#,
            ),
            (
                "b",
                "invalid type: null, expected a boolean",
                r#"argument "b": expected a boolean, got null"#,
            ),
            (
                ".",
                "missing field `b`",
                r#"argument "b" is required but missing"#,
            ),
            (
                "p",
                "missing field `x`",
                r#"argument "p.x" is required but missing"#,
            ),
            (
                "sortBy",
                "unknown variant `alpha`, expected `relevance` or `date`",
                r#"argument "sortBy": expected one of "relevance", "date", got "alpha""#,
            ),
        ];
        for (path, msg, want) in cases {
            assert_eq!(argument_error(path, msg), want);
        }
    }
}
