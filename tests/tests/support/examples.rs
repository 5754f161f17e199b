//! The example binaries tests spawn (a server over stdio, a fixture), built on first use
//! into this test binary's own target directory: `cargo test --test NAME` alone builds no
//! examples. Included with `#[path = "support/examples.rs"] mod examples;` by the tests that
//! spawn one, so they need none of the rest of `support`.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// This package's examples are built with every feature, as CI tests it, so building one
/// compiles nothing but the example again.
pub const TESTS: &str = "mcp-framework-tests";

/// `example` of `package` built with `features` (for this package, every feature), once per
/// test binary; its path. Examples of the facade (`mcp-framework`) take the features they
/// require.
pub fn built(package: &str, example: &str, features: &[&str]) -> PathBuf {
    static BUILT: Mutex<Vec<String>> = Mutex::new(Vec::new());
    static BUILDING: Mutex<()> = Mutex::new(());
    let dir = profile_dir().join("examples");
    let path = dir.join(format!("{example}{}", std::env::consts::EXE_SUFFIX));
    let done = || {
        let built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
        built.iter().any(|b| b == example)
    };
    // An example built already is never kept waiting by another's build (a test that asks
    // again inside its time bound).
    if done() {
        return path;
    }
    // Held while building: two tests asking at once build once.
    let _building = BUILDING.lock().unwrap_or_else(|e| e.into_inner());
    if done() {
        return path;
    }
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = std::process::Command::new(cargo);
    cmd.current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["build", "--quiet", "-p", package, "--example", example]);
    if package == TESTS {
        cmd.arg("--all-features");
    } else if !features.is_empty() {
        cmd.args(["--features", &features.join(",")]);
    }
    let target_dir = profile_dir().parent().expect("target dir").to_path_buf();
    cmd.arg("--target-dir").arg(target_dir);
    if profile_dir().file_name().is_some_and(|n| n == "release") {
        cmd.arg("--release");
    }
    let status = cmd.status().expect("running cargo build --example");
    assert!(
        status.success(),
        "building example {example} failed: {status}"
    );
    assert!(path.exists(), "example binary missing: {}", path.display());
    (BUILT.lock().unwrap_or_else(|e| e.into_inner())).push(example.to_owned());
    path
}

/// `<target>/<profile>`, from this test binary at `<target>/<profile>/deps/NAME-HASH`.
fn profile_dir() -> &'static Path {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let exe = std::env::current_exe().expect("current_exe");
        (exe.parent().and_then(Path::parent))
            .expect("test binary lives in <target>/<profile>/deps")
            .to_path_buf()
    })
}
