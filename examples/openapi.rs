//! Any HTTP API with an OpenAPI 3.0 or 3.1 document, served as MCP tools: every operation
//! (or those chosen) a tool that sends the real request.
//!
//! ```text
//! cargo run --example openapi --features openapi,tls -- \
//!     --spec https://petstore3.swagger.io/api/v3/openapi.json --stdio
//! cargo run --example openapi --features openapi -- \
//!     --spec tests/tests/data/openapi/petstore3/openapi.yaml --base http://127.0.0.1:8080/api/v3 \
//!     --http 127.0.0.1:3000                                      # http://127.0.0.1:3000/mcp
//! ```
//!
//! Options: `--spec URL_OR_PATH` (JSON or YAML), `--base URL` (where the document names no
//! absolute server), `--tag TAG` (only operations with one of these tags; repeatable),
//! `--exclude-method METHOD` (repeatable), `--auth SCHEME=ENV_VAR` (the document's security
//! scheme `SCHEME`, its secret read from `ENV_VAR`; repeatable), `--timeout SECONDS`, then
//! `--stdio` or `--http ADDR`.

use std::time::Duration;

use mcp::openapi::{Auth, OpenApi, OpenApiTools, Rule, Selection};

const USAGE: &str = "usage: openapi --spec URL_OR_PATH [--base URL] [--tag TAG]... \
    [--exclude-method METHOD]... [--auth SCHEME=ENV_VAR]... [--timeout SECONDS] \
    (--stdio | --http ADDR)";

/// Where to serve.
#[derive(Debug, Clone, PartialEq)]
pub enum Serve {
    /// Over stdin and stdout.
    Stdio,
    /// Streamable HTTP on this address.
    Http(std::net::SocketAddr),
}

/// The command line.
#[derive(Debug, Clone, Default)]
pub struct Options {
    spec: String,
    base: Option<String>,
    tags: Vec<String>,
    excluded_methods: Vec<String>,
    auth: Vec<(String, String)>,
    timeout: Option<Duration>,
    /// `None` until `--stdio` or `--http` is given.
    pub serve: Option<Serve>,
}

/// Reads the options (`args` without the program name).
pub fn parse(args: &[String]) -> Result<Options, String> {
    let mut o = Options::default();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut value = || it.next().cloned().ok_or(format!("{a} needs a value"));
        match a.as_str() {
            "--spec" => o.spec = value()?,
            "--base" => o.base = Some(value()?),
            "--tag" => o.tags.push(value()?),
            "--exclude-method" => o.excluded_methods.push(value()?),
            "--auth" => {
                let v = value()?;
                let (scheme, var) = v.split_once('=').ok_or("--auth takes SCHEME=ENV_VAR")?;
                o.auth.push((scheme.to_owned(), var.to_owned()));
            }
            "--timeout" => {
                let s: f64 = value()?.parse().map_err(|_| "--timeout takes seconds")?;
                o.timeout = Some(Duration::from_secs_f64(s));
            }
            "--stdio" => o.serve = Some(Serve::Stdio),
            "--http" => {
                let addr = value()?;
                let addr = addr
                    .parse()
                    .map_err(|_| format!("--http {addr}: not an address"))?;
                o.serve = Some(Serve::Http(addr));
            }
            other => return Err(format!("unknown option {other}")),
        }
    }
    if o.spec.is_empty() {
        return Err("--spec is required".into());
    }
    Ok(o)
}

/// The tools the options describe: the document read, the operations chosen, the
/// credentials read from the environment. Any problem is an error naming its place.
pub async fn tools(o: &Options) -> Result<OpenApiTools, Box<dyn std::error::Error>> {
    let mut api = OpenApi::load(&o.spec).await?;
    let mut selection = Selection::new();
    for t in &o.tags {
        selection = selection.include(Rule::tag(t));
    }
    for m in &o.excluded_methods {
        selection = selection.exclude(Rule::method(m));
    }
    api = api.select(selection);
    for (scheme, var) in &o.auth {
        let secret =
            std::env::var(var).map_err(|_| format!("--auth {scheme}: ${var} is not set"))?;
        let auth = Auth::for_scheme(api.document(), scheme, &secret)?;
        api = api.auth(auth);
    }
    if let Some(b) = &o.base {
        api = api.base_url(b);
    }
    if let Some(t) = o.timeout {
        api = api.timeout(t);
    }
    Ok(api.build()?)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(o) if o.serve.is_some() => o,
        Ok(_) => return Err(USAGE.into()),
        Err(e) => return Err(format!("{e}\n{USAGE}").into()),
    };
    let tools = tools(&o).await?;
    eprintln!("{} tools for {}", tools.tools().count(), tools.base_url());
    let server = tools.server("openapi", env!("CARGO_PKG_VERSION")).build();
    match o.serve {
        Some(Serve::Http(addr)) => {
            eprintln!("serving on http://{addr}/mcp");
            server.serve_http(addr).await?;
        }
        _ => server.serve_stdio().await?,
    }
    Ok(())
}
