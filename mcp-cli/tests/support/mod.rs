//! Running `mcp` and the servers it is pointed at: `examples/everything` (built once per
//! test binary), the Python SDK server of `interop/client/python_server.py` and the
//! TypeScript `server-everything` (installed by `interop/cli/setup.sh`; absent, their tests
//! are skipped with a note, unless `MCP_CLI_INTEROP=require`, as CI sets it).
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::OnceLock;
use std::time::Duration;

use tokio::process::{Child, Command};

/// What one `mcp` run printed and how it exited.
#[derive(Debug)]
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// The stdout as JSON (for `--json` runs).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {self:#?}"))
    }

    /// Asserts the exit code, showing the run when it differs.
    pub fn expect(self, code: i32) -> Self {
        assert_eq!(self.code, code, "unexpected exit code: {self:#?}");
        self
    }
}

/// Runs `mcp ARGS...` (60 s at most).
pub async fn mcp(args: &[&str]) -> Run {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mcp"));
    cmd.args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let child = cmd.spawn().expect("spawn mcp");
    let out = tokio::time::timeout(Duration::from_secs(60), child.wait_with_output())
        .await
        .unwrap_or_else(|_| panic!("mcp {args:?} ran over 60 s"))
        .expect("mcp output");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The workspace root.
pub fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("mcp-cli sits in the workspace")
}

/// `examples/everything`, built into this build's target directory once (`cargo test -p
/// mcp-framework-cli` does not build the root package's examples).
pub fn everything() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let exe = std::env::current_exe().expect("current_exe");
        let profile_dir = exe
            .parent()
            .and_then(Path::parent)
            .expect("test binary lives in <target>/<profile>/deps")
            .to_path_buf();
        let target_dir = profile_dir.parent().expect("target dir").to_path_buf();
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = std::process::Command::new(cargo);
        cmd.current_dir(root())
            .args([
                "build",
                "--quiet",
                "-p",
                "mcp-framework",
                "--example",
                "everything",
            ])
            .args(["--features", "http", "--target-dir"])
            .arg(&target_dir);
        if profile_dir.file_name().is_some_and(|n| n == "release") {
            cmd.arg("--release");
        }
        let status = cmd
            .status()
            .expect("running cargo build --example everything");
        assert!(
            status.success(),
            "building examples/everything failed: {status}"
        );
        profile_dir.join("examples").join("everything")
    })
}

/// `everything --stdio` as one command line.
pub fn everything_stdio() -> String {
    format!("{} --stdio", everything().display())
}

/// A server process on loopback, stopped when dropped.
pub struct Listening {
    pub child: Child,
    pub port: u16,
}

impl Listening {
    pub fn url(&self, path: &str) -> String {
        format!("http://127.0.0.1:{}{path}", self.port)
    }
}

/// A free loopback port (the kernel's choice for port 0).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

/// Starts `program args` (with `{port}` in an argument or `PORT` in the environment
/// replaced by a free port) and waits up to 60 s until it listens.
pub async fn listen(program: &str, args: &[&str], env_port: bool) -> Listening {
    listen_on(program, args, free_port(), env_port, Stdio::null()).await
}

/// [`listen`] on `port` (to start a server again where it was), its stderr to `stderr`.
pub async fn listen_on(
    program: &str,
    args: &[&str],
    port: u16,
    env_port: bool,
    stderr: Stdio,
) -> Listening {
    let mut cmd = Command::new(program);
    cmd.args(args.iter().map(|a| a.replace("{port}", &port.to_string())))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(stderr)
        .kill_on_drop(true);
    if env_port {
        cmd.env("PORT", port.to_string());
    }
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("spawn {program}: {e}"));
    for _ in 0..600 {
        if tokio::net::TcpStream::connect(("127.0.0.1", port))
            .await
            .is_ok()
        {
            return Listening { child, port };
        }
        if let Ok(Some(status)) = child.try_wait() {
            panic!("{program} {args:?} exited before listening: {status}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{program} {args:?} did not listen on {port} within 60 s");
}

/// An interop install (the Python venv, the npm directory), or `None` with a note when it
/// is absent and not required.
fn interop(path: PathBuf, what: &str) -> Option<PathBuf> {
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

/// The venv's python with the official Python SDK (`interop/cli/setup.sh`), if installed.
pub fn python() -> Option<PathBuf> {
    let venv = std::env::var_os("INTEROP_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/interop-venv"));
    interop(venv.join("bin/python"), "the Python SDK venv")
}

/// The entry point of `@modelcontextprotocol/server-everything`, if installed.
pub fn ts_everything() -> Option<PathBuf> {
    let dir = std::env::var_os("INTEROP_NPM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target/interop-everything"));
    interop(
        dir.join("node_modules/@modelcontextprotocol/server-everything/dist/index.js"),
        "the TypeScript server-everything",
    )
}

/// An ES256 key: what signs the tests' tokens (issuer `http://issuer.test`, audience
/// `http://gateway.test/mcp`), and its JWKS document.
pub struct Issuer {
    key: jsonwebtoken::EncodingKey,
    pub jwks: serde_json::Value,
}

pub fn issuer() -> Issuer {
    use jsonwebtoken::jwk::{Jwk, JwkSet};
    use p256::elliptic_curve::Generate;
    use p256::pkcs8::EncodePrivateKey;
    let der = p256::SecretKey::generate().to_pkcs8_der().unwrap();
    let key = jsonwebtoken::EncodingKey::from_ec_der(der.as_bytes());
    let mut jwk = Jwk::from_encoding_key(&key, jsonwebtoken::Algorithm::ES256).unwrap();
    jwk.common.key_id = Some("k1".into());
    let jwks = serde_json::to_value(JwkSet { keys: vec![jwk] }).unwrap();
    Issuer { key, jwks }
}

impl Issuer {
    /// A token for the gateway, for `sub`, with `role`.
    pub fn token(&self, sub: &str, role: &str) -> String {
        let exp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs()
            + 3600;
        let claims = serde_json::json!({
            "iss": "http://issuer.test", "aud": "http://gateway.test/mcp",
            "sub": sub, "exp": exp, "role": role
        });
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some("k1".into());
        jsonwebtoken::encode(&header, &claims, &self.key).unwrap()
    }
}

/// A gateway config file in a fresh temporary directory, removed when dropped.
pub struct ConfigFile {
    /// The directory (a test may put other files beside the config).
    pub dir: PathBuf,
    pub path: PathBuf,
}

impl ConfigFile {
    pub fn new(text: &str) -> Self {
        let dir = std::env::temp_dir().join(format!(
            "mcp-gateway-test-{}-{}",
            std::process::id(),
            free_port()
        ));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("gateway.json");
        std::fs::write(&path, text).unwrap();
        ConfigFile { dir, path }
    }

    pub fn path(&self) -> &str {
        self.path.to_str().unwrap()
    }

    /// Replaces the file's text.
    pub fn rewrite(&mut self, text: &str) {
        std::fs::write(&self.path, text).unwrap();
    }

    /// `mcp gateway --config FILE` as one TARGET command line (served over stdio).
    pub fn stdio_target(&self) -> String {
        format!(
            "{} gateway --config {}",
            env!("CARGO_BIN_EXE_mcp"),
            self.path()
        )
    }
}

impl Drop for ConfigFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `mcp gateway --config FILE --http 127.0.0.1:PORT` (and `extra`), listening.
pub async fn gateway_http(config: &ConfigFile, extra: &[&str]) -> Listening {
    let mut args = vec![
        "gateway",
        "--config",
        config.path(),
        "--http",
        "127.0.0.1:{port}",
    ];
    args.extend(extra);
    listen(env!("CARGO_BIN_EXE_mcp"), &args, false).await
}
