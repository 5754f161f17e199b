//! `mcp`: a command line for Model Context Protocol servers, built on the client of the
//! `mcp-framework` runtime. `mcp list | call | read | prompt | inspect [OPTIONS] TARGET ...`
//! where TARGET is a URL (Streamable HTTP, falling back to HTTP+SSE) or one shell-quoted
//! command line (a child process over stdio). `mcp --help` says the rest.

mod args;
mod bridge;
mod commands;
mod connect;
mod dev;
mod gateway;
mod openapi;
mod render;
mod serve;

use std::process::ExitCode;

use args::Parsed;

/// Why a run failed: the exit code and what stderr says.
#[derive(Debug)]
pub struct Failure {
    /// The exit code (see the usage text).
    pub code: u8,
    /// One line (or a few) for stderr.
    pub message: String,
}

impl Failure {
    /// A failure with this exit code.
    pub fn new(code: u8, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }

    /// Bad usage (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self::new(2, message)
    }
}

fn main() -> ExitCode {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    if argv.first().map(String::as_str) == Some("openapi") {
        return run_openapi(&argv[1..]);
    }
    let cli = match args::parse(&argv) {
        Ok(Parsed::Help) => {
            println!("{}", args::USAGE);
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Version) => {
            println!("mcp {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        Ok(Parsed::Run(cli)) => cli,
        Err(e) => {
            eprintln!("mcp: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(commands::run(&cli)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if !f.message.is_empty() {
                eprintln!("mcp: {}", f.message);
            }
            ExitCode::from(f.code)
        }
    }
}

/// `mcp openapi ...`: a document, not a server, so none of the target options apply.
fn run_openapi(args: &[String]) -> ExitCode {
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("mcp: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match rt.block_on(openapi::run(args)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => {
            if !f.message.is_empty() {
                eprintln!("mcp: {}", f.message);
            }
            ExitCode::from(f.code)
        }
    }
}
