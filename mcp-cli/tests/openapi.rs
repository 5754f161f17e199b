//! `mcp openapi inspect`: the vendored Swagger Petstore document (the tests package's data)
//! shown as the tools it becomes, as text and as JSON; a document with a dangling `$ref`
//! refused with exit code 3 and its place named; bad usage exit code 2.

use std::process::{Command, Output};

fn mcp(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mcp"))
        .args(args)
        .output()
        .expect("the mcp binary runs")
}

fn petstore() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/tests/data/openapi/petstore3/openapi.yaml"
    )
    .to_owned()
}

#[test]
fn the_petstore_is_shown_as_its_tools() {
    let out = mcp(&["openapi", "inspect", &petstore()]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("19 tools\n"), "{text}");
    assert!(
        text.contains("GET    /pet/{petId}\n       getPetById(petId*)  -> structured\n"),
        "{text}"
    );
    // The path's `username` and the body's: the parameter renamed by its place.
    assert!(
        text.contains("updateUser(email firstName id lastName password path_username*"),
        "{text}"
    );
    assert!(
        text.contains("DELETE /pet/{petId}\n       deletePet(api_key petId*)\n"),
        "{text}"
    );
}

#[test]
fn json_output_lists_every_tool_with_its_route() {
    let out = mcp(&[
        "openapi",
        "inspect",
        &petstore(),
        "--json",
        "--base",
        "http://127.0.0.1:9/v3",
    ]);
    assert_eq!(out.status.code(), Some(0));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["base"], "http://127.0.0.1:9/v3");
    let tools = v["tools"].as_array().unwrap();
    assert_eq!(tools.len(), 19);
    let find = tools
        .iter()
        .find(|t| t["tool"]["name"] == "findPetsByStatus")
        .unwrap();
    assert_eq!(
        (find["method"].as_str(), find["path"].as_str()),
        (Some("GET"), Some("/pet/findByStatus"))
    );
    assert_eq!(find["tool"]["annotations"]["readOnlyHint"], true);
    assert_eq!(v["notPortable"], serde_json::json!([]));
}

#[test]
fn a_bad_document_names_its_place_and_bad_usage_is_refused() {
    let path = std::env::temp_dir().join(format!("mcp-cli-openapi-{}.json", std::process::id()));
    std::fs::write(
        &path,
        r##"{"openapi": "3.0.3", "paths": {"/a": {"get": {"responses": {"200": {"$ref": "#/components/responses/Gone"}}}}}}"##,
    )
    .unwrap();
    let out = mcp(&["openapi", "inspect", path.to_str().unwrap()]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(
        err.contains(
            "#/paths/~1a/get/responses/200: $ref `#/components/responses/Gone` names nothing"
        ),
        "{err}"
    );
    assert_eq!(mcp(&["openapi", "describe", "x"]).status.code(), Some(2));
    assert_eq!(mcp(&["openapi", "inspect"]).status.code(), Some(2));
}
