//! `loadgen`: a neutral MCP load generator. It speaks raw JSON-RPC (no MCP SDK inside), so
//! every server it drives is measured the same way, and it checks every answer.
//!
//! ```text
//! loadgen stdio    [common] [--window W] -- CMD ARGS...   pipelined calls over a child's stdio
//! loadgen http     [common] --url URL [--clients C] [--pid PID]
//! loadgen cold     [--runs N] -- CMD ARGS...              spawn to the `initialize` answer
//! loadgen idle     -- CMD ARGS...                         RSS after initialize + one call
//! loadgen sessions --url URL --count N --pid PID          RSS with N legacy sessions open
//! loadgen listen   --url URL --count N --pid PID          RSS with N subscriptions/listen open
//! common: --era legacy|modern  --tool add|echo  --payload BYTES  --warmup S  --duration S
//!         --prefix NS (call `NSadd`: the tool as a gateway mounts it, e.g. `bench_`)
//! ```
//!
//! Each run prints one JSON object on stdout; a wrong answer is counted in `errors` and the
//! exit status is 1.

mod http;
mod procfs;
mod proto;
mod stats;
mod stdio;

use std::time::Duration;

use proto::{Era, ToolKind, Workload};

struct Args {
    mode: String,
    era: Era,
    tool: ToolKind,
    payload: usize,
    window: usize,
    clients: usize,
    warmup: Duration,
    duration: Duration,
    url: Option<String>,
    pid: Option<u32>,
    count: usize,
    runs: usize,
    prefix: String,
    cmd: Vec<String>,
}

fn parse() -> Result<Args, String> {
    let mut it = std::env::args().skip(1);
    let mode = it
        .next()
        .ok_or("usage: loadgen stdio|http|cold|idle|sessions|listen ...")?;
    let mut a = Args {
        mode,
        era: Era::Legacy,
        tool: ToolKind::Add,
        payload: 0,
        window: 64,
        clients: 32,
        warmup: Duration::from_millis(500),
        duration: Duration::from_secs(2),
        url: None,
        pid: None,
        count: 1000,
        runs: 20,
        prefix: String::new(),
        cmd: Vec::new(),
    };
    fn num<T: std::str::FromStr>(flag: &str, v: Option<String>) -> Result<T, String> {
        let v = v.ok_or_else(|| format!("{flag} needs a value"))?;
        v.parse().map_err(|_| format!("{flag}: bad value {v}"))
    }
    let secs = |flag: &str, v| num::<f64>(flag, v).map(Duration::from_secs_f64);
    while let Some(flag) = it.next() {
        match flag.as_str() {
            "--era" => {
                a.era = match it.next().as_deref() {
                    Some("legacy") => Era::Legacy,
                    Some("modern") => Era::Modern,
                    other => return Err(format!("--era legacy|modern, not {other:?}")),
                }
            }
            "--tool" => {
                a.tool = match it.next().as_deref() {
                    Some("add") => ToolKind::Add,
                    Some("echo") => ToolKind::Echo,
                    other => return Err(format!("--tool add|echo, not {other:?}")),
                }
            }
            "--payload" => a.payload = num(&flag, it.next())?,
            "--prefix" => a.prefix = it.next().ok_or("--prefix needs a value")?,
            "--window" => a.window = num(&flag, it.next())?,
            "--clients" => a.clients = num(&flag, it.next())?,
            "--warmup" => a.warmup = secs(&flag, it.next())?,
            "--duration" => a.duration = secs(&flag, it.next())?,
            "--url" => a.url = it.next(),
            "--pid" => a.pid = Some(num(&flag, it.next())?),
            "--count" => a.count = num(&flag, it.next())?,
            "--runs" => a.runs = num(&flag, it.next())?,
            "--" => {
                a.cmd = it.by_ref().collect();
            }
            other => return Err(format!("unknown flag {other}")),
        }
    }
    Ok(a)
}

fn run(a: &Args) -> Result<serde_json::Value, String> {
    let work = Workload::new(a.era, a.tool, a.payload).with_prefix(&a.prefix);
    let need_cmd = || {
        if a.cmd.is_empty() {
            Err("give the server command after --")
        } else {
            Ok(())
        }
    };
    let url = || {
        a.url
            .as_deref()
            .ok_or("--url is required")
            .and_then(|u| http::Target::parse(u).map_err(|_| "bad --url"))
    };
    let rt = || {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| format!("runtime: {e}"))
    };
    match a.mode.as_str() {
        "stdio" => {
            need_cmd()?;
            let opts = stdio::RunOpts {
                window: a.window,
                warmup: a.warmup,
                duration: a.duration,
            };
            Ok(stdio::run(&a.cmd, &work, &opts)?.to_json())
        }
        "http" => {
            let target = url()?;
            let opts = http::RunOpts {
                clients: a.clients,
                warmup: a.warmup,
                duration: a.duration,
                pid: a.pid,
            };
            Ok(rt()?.block_on(http::run(&target, &work, &opts))?.to_json())
        }
        "cold" => {
            need_cmd()?;
            let mut s = stdio::cold(&a.cmd, a.runs)?;
            Ok(serde_json::json!({
                "runs": s.0.len(),
                "cold_p50_us": s.quantile_us(0.5),
                "cold_p90_us": s.quantile_us(0.9),
                "cold_min_us": s.quantile_us(0.0),
                "errors": 0,
            }))
        }
        "idle" => {
            need_cmd()?;
            let (rss, hwm) = stdio::idle(&a.cmd, &work)?;
            Ok(serde_json::json!({"rss_kib": rss, "peak_rss_kib": hwm, "errors": 0}))
        }
        "sessions" | "listen" => {
            let target = url()?;
            let pid = a.pid.ok_or("--pid is required")?;
            let rt = rt()?;
            let mut v = match a.mode.as_str() {
                "sessions" => rt.block_on(http::sessions(&target, a.count, pid))?,
                _ => rt.block_on(http::listen(&target, a.count, pid))?,
            };
            v["errors"] = 0.into();
            Ok(v)
        }
        other => Err(format!("unknown mode {other}")),
    }
}

fn main() {
    let args = match parse() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("loadgen: {e}");
            std::process::exit(2);
        }
    };
    match run(&args) {
        Ok(v) => {
            println!("{v}");
            let bad = v["errors"].as_u64().unwrap_or(0) > 0;
            std::process::exit(i32::from(bad));
        }
        Err(e) => {
            println!("{}", serde_json::json!({"errors": 1, "first_error": e}));
            eprintln!("loadgen: {e}");
            std::process::exit(1);
        }
    }
}
