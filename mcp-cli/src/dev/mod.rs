//! `mcp dev [--watch PATH]... CARGO_ARGS... [-- SERVER_ARGS...]`: runs the user's stdio
//! server with `cargo run`, serving the client attached to `mcp dev`'s own stdin/stdout
//! through the relay of `relay.rs`. The package's files are polled (their mtimes and
//! sizes, every 300 ms; no watcher crate); on a change `cargo build` runs, and when it
//! succeeds the server is restarted: a new `cargo run`, the client's `initialize` (or
//! `server/discover`) replayed to it, the old process shut down, and the client sent
//! `notifications/tools/list_changed` (and those of prompts and resources). A failed build
//! leaves the running server as it is.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;

use crate::Failure;
use crate::args::Cli;
use relay::relay_stdio;

mod relay;

/// How often the files are polled.
const POLL: Duration = Duration::from_millis(300);

/// Runs `mcp dev` until its stdin closes.
pub async fn run(cli: &Cli, watch: &[PathBuf], cargo_args: &[String]) -> Result<(), Failure> {
    let build_args: Vec<String> = cargo_args
        .iter()
        .take_while(|a| *a != "--")
        .cloned()
        .collect();
    let roots = if watch.is_empty() {
        vec![package_dir(&build_args)]
    } else {
        watch.to_vec()
    };
    if let Some(missing) = roots.iter().find(|r| !r.exists()) {
        return Err(Failure::usage(format!(
            "dev: nothing to watch at {}",
            missing.display()
        )));
    }
    // Built first, so the first `cargo run` only starts it, and errors show at once.
    if !build(&build_args).await {
        eprintln!("mcp dev: the build failed; fix it and the next change rebuilds");
    }
    let (tx, rx) = mpsc::unbounded_channel();
    let watcher = tokio::spawn(watch_loop(roots, build_args, tx));
    let out = relay_stdio(cli, cargo_args, rx).await;
    watcher.abort();
    out
}

/// The directory of `--manifest-path`'s manifest, else the current directory.
fn package_dir(args: &[String]) -> PathBuf {
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let path = match a.strip_prefix("--manifest-path=") {
            Some(p) => Some(p.to_owned()),
            None if a == "--manifest-path" => it.next().cloned(),
            None => None,
        };
        if let Some(p) = path {
            return Path::new(&p)
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."));
        }
    }
    PathBuf::from(".")
}

/// `cargo build ARGS`, its output on stderr (stdout is the MCP stream).
async fn build(args: &[String]) -> bool {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let status = tokio::process::Command::new(cargo)
        .arg("build")
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .kill_on_drop(true)
        .status()
        .await;
    matches!(status, Ok(s) if s.success())
}

/// Polls the files; on a change, builds and (if the build succeeds) asks for a restart.
async fn watch_loop(
    roots: Vec<PathBuf>,
    build_args: Vec<String>,
    restart: mpsc::UnboundedSender<()>,
) {
    let mut seen = fingerprint(&roots);
    loop {
        tokio::time::sleep(POLL).await;
        let now = fingerprint(&roots);
        if now == seen {
            continue;
        }
        // An editor writes in steps: wait for the files to settle.
        tokio::time::sleep(POLL).await;
        seen = fingerprint(&roots);
        eprintln!("mcp dev: a file changed; rebuilding");
        if !build(&build_args).await {
            eprintln!("mcp dev: the build failed; the running server stays");
        } else if restart.send(()).is_err() {
            return;
        }
    }
}

/// Every file under the roots (not `target/` nor hidden directories) with its mtime and
/// size, sorted.
fn fingerprint(roots: &[PathBuf]) -> Vec<(PathBuf, SystemTime, u64)> {
    let mut out = Vec::new();
    let mut stack: Vec<PathBuf> = roots.to_vec();
    while let Some(p) = stack.pop() {
        let Ok(meta) = std::fs::metadata(&p) else {
            continue;
        };
        if meta.is_dir() {
            let Ok(entries) = std::fs::read_dir(&p) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name == "target" || name.starts_with('.') {
                    continue;
                }
                stack.push(e.path());
            }
        } else {
            let mtime = meta.modified().unwrap_or(SystemTime::UNIX_EPOCH);
            out.push((p, mtime, meta.len()));
        }
    }
    out.sort();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_package_dir_comes_from_the_manifest_path() {
        let s = |v: &[&str]| v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        assert_eq!(
            package_dir(&s(&["--manifest-path", "a/b/Cargo.toml"])),
            PathBuf::from("a/b")
        );
        assert_eq!(
            package_dir(&s(&["-q", "--manifest-path=x/Cargo.toml"])),
            PathBuf::from("x")
        );
        assert_eq!(package_dir(&s(&["--bin", "s"])), PathBuf::from("."));
    }
}
