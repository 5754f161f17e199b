//! Other SDKs' servers as `mcp::proxy` upstreams over stdio, installed by
//! `interop/cli/setup.sh` (`INTEROP_VENV`, `INTEROP_NPM_DIR`): `None` with a note when one is
//! missing, a failure instead under `MCP_CLI_INTEROP=require` (CI).

use std::path::{Path, PathBuf};

use mcp::proxy::Upstream;

fn root() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
}

/// `path` if it exists; else a skip (a failure under `MCP_CLI_INTEROP=require`).
fn installed(path: PathBuf, what: &str) -> Option<PathBuf> {
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var("MCP_CLI_INTEROP").as_deref() != Ok("require"),
        "{what} is not installed at {} (run interop/cli/setup.sh)",
        path.display()
    );
    eprintln!(
        "skipped: {what} is not installed at {} (run interop/cli/setup.sh)",
        path.display()
    );
    None
}

/// The official Python SDK server, `interop/client/python_server.py`.
pub fn python() -> Option<Upstream> {
    let venv = std::env::var_os("INTEROP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/interop-venv"));
    let python = installed(venv.join("bin/python"), "the Python SDK venv")?;
    let script = root().join("interop/client/python_server.py");
    Some(Upstream::stdio(
        python,
        [script.as_os_str(), "stdio".as_ref()],
    ))
}

/// The TypeScript `@modelcontextprotocol/server-everything`.
pub fn ts_everything() -> Option<Upstream> {
    let dir = std::env::var_os("INTEROP_NPM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/interop-everything"));
    let entry = installed(
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "the TypeScript server-everything",
    )?;
    Some(Upstream::stdio(
        "node",
        [entry.as_os_str(), "stdio".as_ref()],
    ))
}
