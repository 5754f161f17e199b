//! Tool argument errors speak JSON, not Rust: a bad argument names the argument and the JSON
//! type expected ("an integer", "a boolean", ...), never `i64`, `String` or `struct`.

mod support;

use serde_json::{Value, json};
use support::Wire;

/// A point.
#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Point {
    /// Across.
    x: i64,
    /// Down.
    y: i64,
}

/// Takes one argument of each JSON type.
#[mcp::tool]
async fn typed(
    /// An integer.
    n: i64,
    /// A flag.
    flag: bool,
    /// A name.
    name: String,
    /// Some integers.
    list: Vec<i64>,
    /// A point.
    point: Point,
    /// A small integer.
    small: u8,
    /// A ratio.
    ratio: f64,
) -> String {
    format!(
        "{n} {flag} {name} {} {} {} {small} {ratio}",
        list.len(),
        point.x,
        point.y
    )
}

#[mcp::server(name = "args", version = "1", tools(typed))]
struct Args;

fn good() -> Value {
    json!({
        "n": 1, "flag": true, "name": "a", "list": [1, 2],
        "point": {"x": 1, "y": 2}, "small": 3, "ratio": 0.5
    })
}

/// Calls `typed` with `good()` but `field` set to `value`; the text of the error result.
async fn error_for(wire: &mut Wire, id: i64, field: &str, value: Value) -> String {
    let mut args = good();
    args[field] = value;
    let r = wire
        .request(
            json!(id),
            "tools/call",
            json!({"name": "typed", "arguments": args}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    r["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {r}"))
        .to_owned()
}

#[tokio::test]
async fn wrong_json_types_are_named_in_json_terms() {
    let mut wire = Wire::new(Args.into_server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    // The good call works.
    let r = wire
        .request(
            json!(1),
            "tools/call",
            json!({"name": "typed", "arguments": good()}),
        )
        .await;
    assert!(r["result"].get("isError").is_none(), "{r}");

    let cases = [
        (
            "n",
            json!("x"),
            r#"argument "n": expected an integer, got a string"#,
        ),
        (
            "flag",
            json!(1),
            r#"argument "flag": expected a boolean, got an integer"#,
        ),
        (
            "name",
            json!(true),
            r#"argument "name": expected a string, got a boolean"#,
        ),
        (
            "list",
            json!({}),
            r#"argument "list": expected an array, got an object"#,
        ),
        (
            "point",
            json!("p"),
            r#"argument "point": expected an object, got a string"#,
        ),
        (
            "small",
            json!(300),
            r#"argument "small": expected an integer between 0 and 255, got 300"#,
        ),
        (
            "ratio",
            json!("half"),
            r#"argument "ratio": expected a number, got a string"#,
        ),
        (
            "n",
            json!(1.5),
            r#"argument "n": expected an integer, got the number 1.5"#,
        ),
    ];
    for (i, (field, value, want)) in cases.into_iter().enumerate() {
        let text = error_for(&mut wire, 10 + i as i64, field, value).await;
        assert_eq!(text, want);
        for rust in ["i64", "u8", "f64", "String", "Vec", "struct"] {
            assert!(!text.contains(rust), "{text} names {rust}");
        }
    }
    // Nested: the path of the argument inside the object.
    let text = error_for(&mut wire, 30, "point", json!({"x": 1, "y": "2"})).await;
    assert_eq!(
        text,
        r#"argument "point.y": expected an integer, got a string"#
    );
    let text = error_for(&mut wire, 31, "list", json!([1, "2"])).await;
    assert_eq!(
        text,
        r#"argument "list[1]": expected an integer, got a string"#
    );
    // A missing argument.
    let mut args = good();
    args.as_object_mut().unwrap().remove("flag");
    let r = wire
        .request(
            json!(32),
            "tools/call",
            json!({"name": "typed", "arguments": args}),
        )
        .await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(
        r["result"]["content"][0]["text"],
        r#"argument "flag" is required but missing"#
    );
}

#[tokio::test]
async fn an_argument_given_twice_is_refused_not_overwritten() {
    // JSON allows a repeated key; decoding straight from the raw text sees it, where a
    // detour through a map would keep only the last value.
    let mut wire = Wire::new(Args.into_server().serve_in_memory());
    wire.initialize("2025-11-25").await;
    let line = r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"typed","arguments":{"n":1,"n":2,"flag":true,"name":"a","list":[],"point":{"x":1,"y":2},"small":3,"ratio":0.5}}}"#;
    wire.send_raw(format!("{line}\n").as_bytes()).await;
    let (r, _) = wire.response(json!(7)).await;
    assert_eq!(r["result"]["isError"], true, "{r}");
    assert_eq!(
        r["result"]["content"][0]["text"],
        r#"argument "n" is given twice"#
    );
}
