//! The tracing chapter's OpenTelemetry setup as a user copies it: a crate whose
//! `[dependencies]` are exactly the chapter's `Cargo.toml` block (its `mcp-framework` line
//! pointed at this checkout) and whose `main.rs` is the chapter's example (hidden lines
//! shown) is built and run; the example asserts that the call's span is exported with the
//! caller's trace as its parent.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// The fenced block of `lang` that follows the first line containing `after`.
fn block_after(text: &str, after: &str, lang: &str) -> String {
    let start = text.find(after).expect("the anchor is in the chapter");
    let fence = format!("```{lang}\n");
    let open = start + text[start..].find(&fence).expect("a fenced block") + fence.len();
    let len = text[open..].find("\n```").expect("a closed block");
    text[open..open + len + 1].to_owned()
}

/// Runs `cmd` to its end, killed after `limit`.
fn run(mut cmd: Command, limit: Duration) -> bool {
    let mut child = cmd.stdin(Stdio::null()).spawn().expect("running cargo");
    let deadline = Instant::now() + limit;
    loop {
        if let Some(status) = child.try_wait().expect("waiting for cargo") {
            return status.success();
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{cmd:?} ran past {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn the_tracing_chapters_cargo_toml_builds_its_example_which_exports_the_span() {
    let chapter = std::fs::read_to_string(format!("{ROOT}/docs/guide/tracing.md")).unwrap();
    let deps = block_after(&chapter, "## OpenTelemetry", "toml");
    let example = block_after(&chapter, "## OpenTelemetry", "rust");
    assert!(deps.starts_with("[dependencies]\n"), "{deps}");
    let line = "mcp-framework = { version = \"0.1\", features = [\"otel\"] }";
    assert!(
        deps.contains(line),
        "the chapter's mcp-framework line changed: {deps}"
    );
    let root = Path::new(ROOT).canonicalize().unwrap();
    let local = format!(
        "mcp-framework = {{ path = {:?}, features = [\"otel\"] }}",
        root.display()
    );
    let manifest = format!(
        "[package]\nname = \"tracing-chapter\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n{}",
        deps.replace(line, &local)
    );
    let main: String = (example.lines())
        .map(|l| {
            l.strip_prefix("# ")
                .or(l.strip_prefix('#').filter(|r| r.is_empty()))
                .unwrap_or(l)
        })
        .map(|l| format!("{l}\n"))
        .collect();

    let dir = std::env::temp_dir().join(format!("mcp-tracing-chapter-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/main.rs"), main).unwrap();
    // Our lockfile as the starting point: the versions this checkout builds and tests with.
    std::fs::copy(format!("{ROOT}/Cargo.lock"), dir.join("Cargo.lock")).unwrap();

    // This test's own target directory: the dependencies built for it are reused.
    let exe = std::env::current_exe().unwrap();
    let profile_dir = exe.parent().and_then(Path::parent).unwrap();
    let target_dir = profile_dir.parent().unwrap();
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&dir)
        .args(["run", "--quiet", "--target-dir"])
        .arg(target_dir)
        .env_remove("RUSTFLAGS");
    let ok = run(cmd, Duration::from_secs(1200));
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        ok,
        "the chapter's crate did not build, or its example failed"
    );
}
