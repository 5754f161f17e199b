//! Driving a server as a child process over its stdin/stdout: pipelined calls with an
//! in-flight window, cold start, idle memory.
//!
//! Plain threads and blocking pipes: the writer keeps up to W requests in flight (flushing
//! whenever the window is full or the queue of ready requests is empty), the reader checks
//! every answer. With W = 1 one thread writes, then reads, so no thread hand-off is timed.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::SeqCst};
use std::time::{Duration, Instant};

use crate::procfs;
use crate::proto::{self, Era, Workload};
use crate::stats::{RunReport, Samples};

/// Send times are kept in a ring this large (indexed by id); it only has to outlast the
/// oldest request in flight.
const RING: usize = 1 << 20;

/// A server started as a child process.
pub struct Server {
    pub child: Child,
    /// `None` while a writer thread owns it.
    pub stdin: Option<BufWriter<ChildStdin>>,
    pub stdout: BufReader<ChildStdout>,
    pub started: Instant,
}

impl Server {
    /// Spawns `cmd` with piped stdin/stdout (stderr discarded).
    pub fn spawn(cmd: &[String]) -> Result<Self, String> {
        let started = Instant::now();
        let mut child = Command::new(&cmd[0])
            .args(&cmd[1..])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("spawning {}: {e}", cmd[0]))?;
        let stdin = BufWriter::with_capacity(64 * 1024, child.stdin.take().expect("piped"));
        let stdout = BufReader::with_capacity(256 * 1024, child.stdout.take().expect("piped"));
        Ok(Self {
            child,
            stdin: Some(stdin),
            stdout,
            started,
        })
    }

    /// Writes one line and flushes.
    pub fn send(&mut self, line: &[u8]) -> Result<(), String> {
        let stdin = self.stdin.as_mut().ok_or("stdin is owned by the writer")?;
        stdin.write_all(line).map_err(|e| format!("writing: {e}"))?;
        stdin
            .write_all(b"\n")
            .map_err(|e| format!("writing: {e}"))?;
        stdin.flush().map_err(|e| format!("writing: {e}"))
    }

    /// Reads one line (without the newline).
    pub fn recv(&mut self, buf: &mut Vec<u8>) -> Result<(), String> {
        buf.clear();
        match self.stdout.read_until(b'\n', buf) {
            Ok(0) => Err("the server closed stdout".into()),
            Ok(_) => {
                if buf.last() == Some(&b'\n') {
                    buf.pop();
                }
                Ok(())
            }
            Err(e) => Err(format!("reading: {e}")),
        }
    }

    /// Runs `initialize` and `notifications/initialized`.
    pub fn initialize(&mut self) -> Result<(), String> {
        self.send(proto::initialize_line().as_bytes())?;
        let mut buf = Vec::new();
        self.recv(&mut buf)?;
        proto::check_initialize(&buf)?;
        self.send(proto::INITIALIZED.as_bytes())
    }

    /// Closes stdin and waits a little for a clean exit, then kills.
    pub fn stop(self) {
        let Server {
            mut child,
            stdin,
            stdout,
            ..
        } = self;
        drop(stdin);
        drop(stdout);
        let deadline = Instant::now() + Duration::from_secs(2);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Options of a throughput run.
pub struct RunOpts {
    pub window: usize,
    pub warmup: Duration,
    pub duration: Duration,
}

/// Pipelined calls for `warmup + duration`; only what was sent after the warm-up counts.
pub fn run(cmd: &[String], work: &Workload, opts: &RunOpts) -> Result<RunReport, String> {
    let mut server = Server::spawn(cmd)?;
    if work.era == Era::Legacy {
        server.initialize()?;
    }
    let pid = server.child.id();
    let report = if opts.window <= 1 {
        run_lockstep(&mut server, work, opts)
    } else {
        run_pipelined(&mut server, work, opts)
    };
    let report = report.map(|mut r| {
        r.peak_rss_kib = procfs::status_kib(pid, "VmHWM");
        r
    });
    server.stop();
    report
}

/// Cpu seconds the child used between two readings.
fn cpu_between(pid: u32, before: Option<f64>) -> Option<f64> {
    Some(procfs::cpu_secs(pid)? - before?)
}

fn run_lockstep(server: &mut Server, work: &Workload, opts: &RunOpts) -> Result<RunReport, String> {
    let pid = server.child.id();
    let t0 = Instant::now();
    let (measure_from, end) = (t0 + opts.warmup, t0 + opts.warmup + opts.duration);
    let (mut line, mut buf) = (Vec::with_capacity(1024), Vec::with_capacity(1024));
    let mut samples = Samples::default();
    let (mut calls, mut cpu0, mut started) = (0u64, None, None);
    let (mut id, mut answered) = (0u64, 0u64);
    loop {
        let now = Instant::now();
        if now >= end {
            break;
        }
        if started.is_none() && now >= measure_from {
            started = Some(now);
            cpu0 = procfs::cpu_secs(pid);
        }
        id += 1;
        line.clear();
        work.write_call(id, &mut line);
        let sent = Instant::now();
        server.send(&line)?;
        loop {
            server.recv(&mut buf)?;
            match work.check(&buf)? {
                Some(got) if got == id => break,
                Some(got) => return Err(format!("answer for id {got} while waiting for {id}")),
                None => continue,
            }
        }
        answered += 1;
        if started.is_some() {
            samples.0.push(sent.elapsed().as_nanos() as u64);
            calls += 1;
        }
    }
    let started = started.unwrap_or(end);
    Ok(RunReport {
        calls,
        answered,
        elapsed: Instant::now() - started,
        samples,
        peak_rss_kib: None,
        server_cpu_secs: cpu_between(pid, cpu0),
        errors: 0,
        first_error: None,
    })
}

struct Shared {
    t0: Instant,
    sent_at: Vec<AtomicU64>,
    sent: AtomicU64,
    received: AtomicU64,
    writer_done: AtomicBool,
    writer_waiting: AtomicBool,
}

fn run_pipelined(
    server: &mut Server,
    work: &Workload,
    opts: &RunOpts,
) -> Result<RunReport, String> {
    let pid = server.child.id();
    let shared = Arc::new(Shared {
        t0: Instant::now(),
        sent_at: (0..RING).map(|_| AtomicU64::new(0)).collect(),
        sent: AtomicU64::new(0),
        received: AtomicU64::new(0),
        writer_done: AtomicBool::new(false),
        writer_waiting: AtomicBool::new(false),
    });
    let t0 = shared.t0;
    let (measure_from, end) = (t0 + opts.warmup, t0 + opts.warmup + opts.duration);
    let window = opts.window as u64;
    let stdin = server.stdin.take().ok_or("stdin is owned by the writer")?;
    let writer = {
        let (shared, work) = (shared.clone(), work.clone());
        std::thread::spawn(move || write_loop(stdin, &shared, &work, window, end))
    };
    let writer_thread = writer.thread().clone();

    let mut samples = Samples(Vec::with_capacity(1 << 20));
    let (mut calls, mut answered, mut errors, mut first_error) = (0u64, 0u64, 0u64, None::<String>);
    let (mut cpu0, mut started, mut last) = (None, None, t0);
    let mut buf = Vec::with_capacity(4096);
    let drain_deadline = end + Duration::from_secs(10);
    loop {
        let received = shared.received.load(SeqCst);
        let done = shared.writer_done.load(SeqCst);
        if received >= shared.sent.load(SeqCst) {
            // Nothing outstanding: reading now could block for ever.
            if done {
                break;
            }
            std::thread::yield_now();
            continue;
        }
        if Instant::now() > drain_deadline {
            return Err(format!(
                "{} answers missing 10 s after the end",
                shared.sent.load(SeqCst) - received
            ));
        }
        server.recv(&mut buf)?;
        let now = Instant::now();
        match work.check(&buf) {
            Ok(None) => continue,
            Ok(Some(id)) => {
                let slot = &shared.sent_at[id as usize % RING];
                let sent_ns = slot.swap(0, SeqCst);
                if sent_ns == 0 {
                    errors += 1;
                    first_error.get_or_insert_with(|| format!("unexpected or repeated id {id}"));
                } else {
                    answered += 1;
                    let sent = t0 + Duration::from_nanos(sent_ns - 1);
                    if sent >= measure_from && sent < end {
                        if started.is_none() {
                            started = Some(now);
                            cpu0 = procfs::cpu_secs(pid);
                        }
                        samples.0.push((now - sent).as_nanos() as u64);
                        calls += 1;
                        last = now;
                    }
                }
            }
            Err(e) => {
                errors += 1;
                first_error.get_or_insert(e);
            }
        }
        shared.received.fetch_add(1, SeqCst);
        // Wake the writer once per read, not once per answer: answers that arrived together
        // free their slots together, so the writer refills the window with one write.
        if !server.stdout.buffer().contains(&b'\n') && shared.writer_waiting.load(SeqCst) {
            writer_thread.unpark();
        }
    }
    let cpu = cpu_between(pid, cpu0);
    let stdin = writer
        .join()
        .map_err(|_| "writer thread panicked".to_string())??;
    server.stdin = Some(stdin);
    let started = started.unwrap_or(last);
    Ok(RunReport {
        calls,
        answered,
        elapsed: last
            .saturating_duration_since(started)
            .max(Duration::from_micros(1)),
        samples,
        peak_rss_kib: None,
        server_cpu_secs: cpu,
        errors,
        first_error,
    })
}

fn write_loop(
    mut out: BufWriter<ChildStdin>,
    shared: &Shared,
    work: &Workload,
    window: u64,
    end: Instant,
) -> Result<BufWriter<ChildStdin>, String> {
    let mut line = Vec::with_capacity(1024);
    let mut sent = 0u64;
    let result = (|| {
        loop {
            let received = shared.received.load(SeqCst);
            if Instant::now() >= end {
                return Ok(());
            }
            while sent - received < window {
                sent += 1;
                line.clear();
                work.write_call(sent, &mut line);
                line.push(b'\n');
                let ns = shared.t0.elapsed().as_nanos() as u64 + 1;
                shared.sent_at[sent as usize % RING].store(ns, SeqCst);
                shared.sent.store(sent, SeqCst);
                out.write_all(&line).map_err(|e| format!("writing: {e}"))?;
            }
            out.flush().map_err(|e| format!("writing: {e}"))?;
            shared.writer_waiting.store(true, SeqCst);
            if shared.received.load(SeqCst) == received {
                std::thread::park_timeout(Duration::from_millis(5));
            }
            shared.writer_waiting.store(false, SeqCst);
        }
    })();
    shared.writer_done.store(true, SeqCst);
    result.map(|()| out)
}

/// Spawn to the first answer (`initialize`), `runs` times.
pub fn cold(cmd: &[String], runs: usize) -> Result<Samples, String> {
    let mut samples = Samples::default();
    let mut buf = Vec::new();
    for _ in 0..runs {
        let mut server = Server::spawn(cmd)?;
        server.send(proto::initialize_line().as_bytes())?;
        server.recv(&mut buf)?;
        let took = server.started.elapsed();
        proto::check_initialize(&buf)?;
        samples.0.push(took.as_nanos() as u64);
        server.stop();
    }
    Ok(samples)
}

/// Resident memory of a server that answered `initialize` and one call, then sat idle.
pub fn idle(cmd: &[String], work: &Workload) -> Result<(u64, u64), String> {
    let mut server = Server::spawn(cmd)?;
    server.initialize()?;
    let mut line = Vec::new();
    work.write_call(1, &mut line);
    server.send(&line)?;
    let mut buf = Vec::new();
    loop {
        server.recv(&mut buf)?;
        if work.check(&buf)?.is_some() {
            break;
        }
    }
    std::thread::sleep(Duration::from_millis(300));
    let pid = server.child.id();
    let rss = procfs::status_kib(pid, "VmRSS").ok_or("no VmRSS")?;
    let hwm = procfs::status_kib(pid, "VmHWM").ok_or("no VmHWM")?;
    server.stop();
    Ok((rss, hwm))
}
