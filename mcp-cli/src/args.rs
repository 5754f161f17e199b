//! The command line: the subcommand, the options, the target and the `key=value` arguments.

use mcp_core::version::ProtocolVersion;
use serde_json::{Map, Value};

/// What `mcp --help` prints.
pub const USAGE: &str = "\
mcp: a command line for Model Context Protocol servers

usage:
  mcp list    [OPTIONS] TARGET [tools|resources|templates|prompts]...
  mcp call    [OPTIONS] TARGET TOOL [key=value]...
  mcp read    [OPTIONS] TARGET URI
  mcp prompt  [OPTIONS] TARGET PROMPT [key=value]...
  mcp inspect [OPTIONS] TARGET
  mcp bridge  --stdio [OPTIONS] URL
  mcp bridge  --http HOST:PORT [OPTIONS] 'CMD ARGS'
  mcp dev     [--watch PATH]... CARGO_ARGS... [-- SERVER_ARGS...]
  mcp openapi inspect SPEC [--base URL] [--json]
  mcp gateway --config FILE [--stdio | --http HOST:PORT] [--watch]

`mcp bridge --stdio URL` serves the remote server at URL over stdio, so a client that only
speaks stdio can use it (start `mcp bridge --stdio URL` as its server); --header, --token
and --sse say how URL is reached, --protocol pins the revision spoken to it.
`mcp bridge --http HOST:PORT 'CMD ARGS'` serves the stdio server CMD over Streamable HTTP
at http://HOST:PORT/mcp (and HTTP+SSE at /sse): a process per legacy session, one for
2026-07-28. A bridge is a gateway of one server, unprefixed: its name, tools, prompts and
resources are the server's; progress, cancellation, logging and the server's requests
(sampling, elicitation, roots) pass through; a legacy server is served at the legacy
revisions up to its own; if it fails, its items leave the lists until it answers again.

`mcp gateway --config FILE` is one MCP server in front of every server of FILE, the
`mcpServers` JSON of Claude Desktop, Cursor and others (`command`/`args`/`env`/`cwd`, or
`url`/`headers`; `${VAR}` from the environment), served over stdio (the default) or, with
`--http`, Streamable HTTP at http://HOST:PORT/mcp. Each server's tools and prompts are named
SERVER_NAME; an upstream that fails leaves the lists until it answers again, and the rest is
served. With --watch a changed FILE is applied while the gateway serves (an invalid one
is reported and the running configuration kept). The gateway's own settings go under the
key \"gateway\" of the same file (see the guide, \"Run a gateway\"):
  \"gateway\": {\"servers\": {\"files\": {\"prefix\": \"never\", \"failureMode\": \"closed\"}}}

`mcp dev` is a stdio server that runs yours with `cargo run CARGO_ARGS -- SERVER_ARGS`,
polls its package's files (or each --watch PATH), rebuilds on a change and restarts it,
replaying the client's handshake and sending it notifications/tools/list_changed:
  mcp dev --manifest-path my-server/Cargo.toml -- --stdio

`mcp openapi inspect SPEC` shows the tools an OpenAPI 3.0/3.1 document (a file or a URL,
JSON or YAML) becomes with mcp::openapi: method, path, arguments (* required), structured
answers, and the portability check of `mcp inspect`.

TARGET is a URL (Streamable HTTP, falling back to the 2024-11-05 HTTP+SSE transport) or one
shell-quoted command line, run as a child process spoken to over stdio:
  mcp call './server --stdio' add a=2 b=40
  mcp call --protocol 2026-07-28 http://127.0.0.1:3000/mcp echo message=hi

Arguments are key=value; a value that parses as JSON is that JSON (n=3 is a number,
o='{\"a\":1}' an object, flag=true a boolean), any other is a string (s=hi). A value that
starts like JSON ({, [ or \") but does not parse is an error.

options:
  --protocol REV    the revision to speak (2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25,
                    2026-07-28); default: negotiate (server/discover, then initialize);
                    for mcp bridge, the revision spoken to the bridged server
  --header K:V      an HTTP header on every request (repeatable)
  --token TOKEN     a bearer token (Authorization: Bearer TOKEN)
  --sse             the URL is a 2024-11-05 HTTP+SSE endpoint (no Streamable HTTP attempt)
  --timeout SECS    how long one request may take (default 60)
  --quiet           discard the stderr of a stdio server (default: passed through)
  --json            machine-readable output (one JSON document on stdout)
  -h, --help        this text
  -V, --version     the version

exit codes:
  0  success
  1  a tool answered with isError, or inspect found a schema strict clients refuse
  2  bad usage: an unknown option, a missing TARGET, a bad key=value
  3  the target could not be reached (not listening, not found, no MCP handshake)
  4  the server refused the request (unknown tool, prompt or resource; invalid arguments)";

/// The subcommands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    /// `mcp list`: tools, resources, templates, prompts.
    List,
    /// `mcp call TOOL key=value...`.
    Call,
    /// `mcp read URI`.
    Read,
    /// `mcp prompt NAME key=value...`.
    Prompt,
    /// `mcp inspect`: capabilities, instructions, schemas and the portability check.
    Inspect,
    /// `mcp bridge --stdio URL | --http HOST:PORT 'CMD'`: a proxy of one server, served
    /// over the other transport.
    Bridge,
    /// `mcp dev CARGO_ARGS`: the user's server, rebuilt and restarted on a change.
    Dev,
    /// `mcp gateway --config FILE`: one server in front of an `mcpServers` file's.
    Gateway,
}

/// Where the server is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// An `http://` or `https://` URL.
    Url(String),
    /// A program and its arguments (split from one shell-quoted command line).
    Process(Vec<String>),
}

/// Everything the command line says.
#[derive(Debug, Clone)]
pub struct Cli {
    /// The subcommand.
    pub command: Command,
    /// The server.
    pub target: Target,
    /// The positional arguments after the target (tool, URI, prompt, `key=value`s, kinds).
    pub rest: Vec<String>,
    /// `--protocol`.
    pub protocol: Option<ProtocolVersion>,
    /// `--header K:V`, in order.
    pub headers: Vec<(String, String)>,
    /// `--token`.
    pub token: Option<String>,
    /// `--sse`.
    pub sse: bool,
    /// `--timeout`, in seconds.
    pub timeout: u64,
    /// `--quiet`.
    pub quiet: bool,
    /// `--json`.
    pub json: bool,
    /// `--stdio` (of `mcp bridge`).
    pub stdio: bool,
    /// `--http HOST:PORT` (of `mcp bridge`).
    pub http: Option<String>,
    /// `--watch PATH` (of `mcp dev`), in order.
    pub watch: Vec<std::path::PathBuf>,
    /// `--config FILE` (of `mcp gateway`).
    pub config: Option<String>,
    /// `--watch` (of `mcp gateway`): reload the file on a change.
    pub gateway_watch: bool,
}

/// What the command line asks for.
#[derive(Debug)]
pub enum Parsed {
    /// Run a subcommand.
    Run(Box<Cli>),
    /// Print the usage.
    Help,
    /// Print the version.
    Version,
}

/// Parses the arguments after the program name. Options may come anywhere after the
/// subcommand; `--` ends them.
pub fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut it = args.iter();
    let command = match it.next().map(String::as_str) {
        None | Some("-h" | "--help" | "help") => return Ok(Parsed::Help),
        Some("-V" | "--version") => return Ok(Parsed::Version),
        Some("list") => Command::List,
        Some("call") => Command::Call,
        Some("read") => Command::Read,
        Some("prompt") => Command::Prompt,
        Some("inspect") => Command::Inspect,
        Some("bridge") => Command::Bridge,
        Some("dev") => Command::Dev,
        Some("gateway") => Command::Gateway,
        Some(other) => {
            return Err(format!(
                "unknown command `{other}` (expected list, call, read, prompt, inspect, bridge, dev or gateway)"
            ));
        }
    };
    let mut cli = Cli {
        command,
        target: Target::Url(String::new()),
        rest: Vec::new(),
        protocol: None,
        headers: Vec::new(),
        token: None,
        sse: false,
        timeout: 60,
        quiet: false,
        json: false,
        stdio: false,
        http: None,
        watch: Vec::new(),
        config: None,
        gateway_watch: false,
    };
    if command == Command::Dev {
        return dev(cli, it.cloned().collect());
    }
    let mut positional = Vec::new();
    let mut options_done = false;
    while let Some(arg) = it.next() {
        if options_done || !arg.starts_with("--") && arg != "-h" && arg != "-V" {
            positional.push(arg.clone());
            continue;
        }
        let (name, inline) = match arg.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n, Some(v.to_owned())),
            _ => (arg.as_str(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next().cloned())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match name {
            "--" => options_done = true,
            "-h" | "--help" => return Ok(Parsed::Help),
            "-V" | "--version" => return Ok(Parsed::Version),
            "--json" => cli.json = true,
            "--sse" => cli.sse = true,
            "--quiet" => cli.quiet = true,
            "--stdio" if matches!(command, Command::Bridge | Command::Gateway) => cli.stdio = true,
            "--http" if matches!(command, Command::Bridge | Command::Gateway) => {
                cli.http = Some(value(name)?)
            }
            "--config" if command == Command::Gateway => cli.config = Some(value(name)?),
            "--watch" if command == Command::Gateway => cli.gateway_watch = true,
            "--protocol" => {
                let v = value(name)?;
                let known: Vec<&str> = ProtocolVersion::ALL.iter().map(|v| v.as_str()).collect();
                cli.protocol = Some(ProtocolVersion::parse(&v).ok_or_else(|| {
                    format!(
                        "--protocol: unknown revision `{v}` (known: {})",
                        known.join(", ")
                    )
                })?);
            }
            "--header" => {
                let v = value(name)?;
                let (k, val) = v
                    .split_once(':')
                    .filter(|(k, _)| !k.trim().is_empty())
                    .ok_or_else(|| format!("--header `{v}`: expected NAME:VALUE"))?;
                cli.headers
                    .push((k.trim().to_owned(), val.trim().to_owned()));
            }
            "--token" => cli.token = Some(value(name)?),
            "--timeout" => {
                let v = value(name)?;
                cli.timeout = v
                    .parse()
                    .ok()
                    .filter(|s| *s > 0)
                    .ok_or_else(|| format!("--timeout `{v}`: expected a number of seconds"))?;
            }
            other => return Err(format!("unknown option `{other}` (see mcp --help)")),
        }
    }
    finish(cli, positional)
}

/// The positional arguments checked against the subcommand.
fn finish(mut cli: Cli, positional: Vec<String>) -> Result<Parsed, String> {
    let command = cli.command;
    if command == Command::Gateway {
        return match (
            &cli.config,
            cli.stdio && cli.http.is_some(),
            positional.is_empty(),
        ) {
            (Some(_), false, true) => Ok(Parsed::Run(Box::new(cli))),
            _ => Err(
                "usage: mcp gateway --config FILE [--stdio | --http HOST:PORT] [--watch]".into(),
            ),
        };
    }
    let mut positional = positional.into_iter();
    let target = positional
        .next()
        .ok_or("missing TARGET: a URL or a quoted command line (see mcp --help)")?;
    cli.target = parse_target(&target)?;
    cli.rest = positional.collect();
    if command == Command::Bridge {
        let fits = matches!(
            (&cli.target, cli.stdio, &cli.http),
            (Target::Url(_), true, None) | (Target::Process(_), false, Some(_))
        );
        if !fits || !cli.rest.is_empty() {
            return Err(
                "usage: mcp bridge --stdio [OPTIONS] URL | mcp bridge --http HOST:PORT 'CMD ARGS'"
                    .into(),
            );
        }
    }
    if cli.sse && !matches!(cli.target, Target::Url(_)) {
        return Err("--sse needs a URL target".into());
    }
    Ok(Parsed::Run(Box::new(cli)))
}

/// `mcp dev`: `--watch PATH`s (before `--`), the rest for cargo.
fn dev(mut cli: Cli, args: Vec<String>) -> Result<Parsed, String> {
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        if a == "--" {
            cli.rest.push(a);
            cli.rest.extend(it.by_ref());
        } else if a == "--watch" {
            let p = it.next().ok_or("--watch needs a path")?;
            cli.watch.push(p.into());
        } else if let Some(p) = a.strip_prefix("--watch=") {
            cli.watch.push(p.into());
        } else {
            cli.rest.push(a);
        }
    }
    Ok(Parsed::Run(Box::new(cli)))
}

/// A URL, or a command line split as a POSIX shell would.
pub fn parse_target(target: &str) -> Result<Target, String> {
    if target.starts_with("http://") || target.starts_with("https://") {
        return Ok(Target::Url(target.to_owned()));
    }
    match shlex::split(target) {
        Some(argv) if !argv.is_empty() => Ok(Target::Process(argv)),
        Some(_) => Err("the TARGET command line is empty".into()),
        None => Err(format!(
            "TARGET `{target}`: unbalanced quotes (give the whole command line as one argument)"
        )),
    }
}

/// `key=value` arguments as a JSON object: a value that parses as JSON is that JSON, any
/// other is a string; a value that starts like JSON but does not parse is an error.
pub fn key_values(args: &[String]) -> Result<Map<String, Value>, String> {
    let mut out = Map::new();
    for arg in args {
        let (key, raw) = arg
            .split_once('=')
            .ok_or_else(|| format!("argument `{arg}`: expected key=value"))?;
        if key.is_empty() {
            return Err(format!("argument `{arg}`: the key is empty"));
        }
        let value = match serde_json::from_str::<Value>(raw) {
            Ok(v) => v,
            Err(e) if raw.trim_start().starts_with(['{', '[', '"']) => {
                return Err(format!(
                    "argument `{key}`: the value is not valid JSON: {e}"
                ));
            }
            Err(_) => Value::String(raw.to_owned()),
        };
        if out.insert(key.to_owned(), value).is_some() {
            return Err(format!("argument `{key}` given twice"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn s(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn values_are_json_when_they_parse() {
        let m = key_values(&s(&[
            "n=3",
            "s=hi",
            r#"o={"a":1}"#,
            "b=true",
            "e=",
            "x=a=b",
        ]))
        .unwrap();
        assert_eq!(
            Value::Object(m),
            json!({"n": 3, "s": "hi", "o": {"a": 1}, "b": true, "e": "", "x": "a=b"})
        );
        assert!(
            key_values(&s(&["noequals"]))
                .unwrap_err()
                .contains("key=value")
        );
        assert!(
            key_values(&s(&["=1"]))
                .unwrap_err()
                .contains("key is empty")
        );
        assert!(
            key_values(&s(&["o={a:1}"]))
                .unwrap_err()
                .contains("not valid JSON")
        );
        assert!(
            key_values(&s(&["a=1", "a=2"]))
                .unwrap_err()
                .contains("twice")
        );
    }

    #[test]
    fn options_anywhere_and_targets_of_both_kinds() {
        let Parsed::Run(cli) = parse(&s(&[
            "call",
            "--protocol",
            "2026-07-28",
            "http://h/mcp",
            "echo",
            "--json",
            "message=hi",
            "--header=X-A: 1",
        ]))
        .unwrap() else {
            panic!()
        };
        assert_eq!(cli.command, Command::Call);
        assert_eq!(cli.protocol, Some(ProtocolVersion::V2026_07_28));
        assert_eq!(cli.target, Target::Url("http://h/mcp".into()));
        assert_eq!(cli.rest, s(&["echo", "message=hi"]));
        assert_eq!(cli.headers, vec![("X-A".into(), "1".into())]);
        assert!(cli.json);
        assert_eq!(
            parse_target("'./my server' --stdio -v").unwrap(),
            Target::Process(s(&["./my server", "--stdio", "-v"]))
        );
        assert!(parse(&s(&["call"])).unwrap_err().contains("missing TARGET"));
        assert!(
            parse(&s(&["frob", "x"]))
                .unwrap_err()
                .contains("unknown command")
        );
        assert!(
            parse(&s(&["list", "--bogus", "x"]))
                .unwrap_err()
                .contains("unknown option")
        );
        assert!(
            parse(&s(&["list", "--protocol", "2020-01-01", "x"]))
                .unwrap_err()
                .contains("known: 2024-11-05")
        );
        let Parsed::Run(gw) = parse(&s(&[
            "gateway",
            "--config",
            "g.json",
            "--http",
            "127.0.0.1:0",
        ]))
        .unwrap() else {
            panic!()
        };
        assert_eq!(gw.command, Command::Gateway);
        assert_eq!(gw.config.as_deref(), Some("g.json"));
        assert_eq!(gw.http.as_deref(), Some("127.0.0.1:0"));
        for bad in [
            &["gateway"][..],
            &["gateway", "--config", "g.json", "extra"],
            &["gateway", "--config", "g.json", "--stdio", "--http", "a:1"],
        ] {
            assert!(
                parse(&s(bad)).unwrap_err().contains("usage: mcp gateway"),
                "{bad:?}"
            );
        }
        assert!(
            parse_target("'unbalanced")
                .unwrap_err()
                .contains("unbalanced")
        );
    }
}
