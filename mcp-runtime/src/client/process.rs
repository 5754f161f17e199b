//! The child-process (stdio) transport: spawning, stderr, exit status, shutdown.

use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{Child, ChildStderr, Command};
use tokio::sync::{mpsc, watch};

use super::conn::EofHook;
use super::error::ClientError;

/// What happens to the server's stderr.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum StderrMode {
    /// Passed through to this process's stderr (the default).
    #[default]
    Inherit,
    /// Collected; read it with [`Client::stderr`](super::Client::stderr) (the last 1 MiB).
    Capture,
    /// Discarded.
    Null,
}

/// The timeouts of each shutdown step.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ShutdownTimeouts {
    /// How long to wait for the server to exit after its stdin is closed.
    pub after_close: Duration,
    /// How long to wait after SIGTERM (Unix; skipped elsewhere).
    pub after_sigterm: Duration,
    /// How long to wait after SIGKILL.
    pub after_sigkill: Duration,
}

impl Default for ShutdownTimeouts {
    fn default() -> Self {
        Self {
            after_close: Duration::from_secs(5),
            after_sigterm: Duration::from_secs(3),
            after_sigkill: Duration::from_secs(3),
        }
    }
}

const STDERR_CAP: usize = 1 << 20;

/// The client's handle on its server process.
pub(crate) struct Process {
    pub(crate) pid: Option<u32>,
    pub(crate) exit: watch::Receiver<Option<ExitStatus>>,
    kill: mpsc::UnboundedSender<()>,
    pub(crate) stderr: Option<Arc<Mutex<Vec<u8>>>>,
    pub(crate) timeouts: ShutdownTimeouts,
}

/// A spawned server with its pipes.
pub(crate) struct Spawned {
    pub(crate) process: Process,
    pub(crate) stdin: tokio::process::ChildStdin,
    pub(crate) stdout: tokio::process::ChildStdout,
    pub(crate) eof_hook: EofHook,
}

pub(crate) fn spawn(
    mut cmd: Command,
    stderr: StderrMode,
    timeouts: ShutdownTimeouts,
) -> Result<Spawned, ClientError> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(match stderr {
            StderrMode::Inherit => Stdio::inherit(),
            StderrMode::Capture => Stdio::piped(),
            StderrMode::Null => Stdio::null(),
        })
        .kill_on_drop(true);
    let mut child = cmd.spawn()?;
    let stdin = child.stdin.take().expect("stdin is piped");
    let stdout = child.stdout.take().expect("stdout is piped");
    let captured = child.stderr.take().map(capture);
    let pid = child.id();
    let (exit_tx, exit_rx) = watch::channel(None);
    let (kill_tx, kill_rx) = mpsc::unbounded_channel();
    tokio::spawn(watch_child(child, exit_tx, kill_rx));
    let mut hook_rx = exit_rx.clone();
    let eof_hook: EofHook = Box::new(move || {
        Box::pin(async move {
            // Stdout closed: the process is exiting (or has). Name its status if it comes
            // soon; a process that closed stdout but lives on is just "closed".
            let waited =
                tokio::time::timeout(Duration::from_secs(2), hook_rx.wait_for(|s| s.is_some()))
                    .await;
            match waited {
                Ok(Ok(s)) => ClientError::ProcessExited(s.expect("waited for Some")),
                _ => ClientError::Closed(Some("the server closed its stdout".into())),
            }
        })
    });
    Ok(Spawned {
        process: Process {
            pid,
            exit: exit_rx,
            kill: kill_tx,
            stderr: captured,
            timeouts,
        },
        stdin,
        stdout,
        eof_hook,
    })
}

fn capture(mut pipe: ChildStderr) -> Arc<Mutex<Vec<u8>>> {
    let sink = Arc::new(Mutex::new(Vec::new()));
    let buf = sink.clone();
    tokio::spawn(async move {
        let mut chunk = [0u8; 8192];
        while let Ok(n) = pipe.read(&mut chunk).await {
            if n == 0 {
                break;
            }
            let mut b = buf.lock().expect("stderr lock");
            b.extend_from_slice(&chunk[..n]);
            if b.len() > STDERR_CAP {
                let cut = b.len() - STDERR_CAP;
                b.drain(..cut);
            }
        }
    });
    sink
}

/// Owns the child: publishes its exit status and kills it on request.
async fn watch_child(
    mut child: Child,
    exit: watch::Sender<Option<ExitStatus>>,
    mut kill: mpsc::UnboundedReceiver<()>,
) {
    let status = loop {
        tokio::select! {
            s = child.wait() => break s,
            k = kill.recv() => match k {
                Some(()) => { let _ = child.start_kill(); }
                // Every handle is gone: keep waiting (stdin is closed, the server should
                // exit; kill_on_drop covers a runtime shutdown).
                None => break child.wait().await,
            },
        }
    };
    match status {
        Ok(s) => {
            let _ = exit.send(Some(s));
        }
        Err(e) => tracing::warn!(error = %e, "waiting for the server process failed"),
    }
}

impl Process {
    /// The exit status, if the process has exited.
    pub(crate) fn status(&self) -> Option<ExitStatus> {
        *self.exit.borrow()
    }

    async fn wait_for(&self, limit: Duration) -> Option<ExitStatus> {
        let mut rx = self.exit.clone();
        match tokio::time::timeout(limit, rx.wait_for(|s| s.is_some())).await {
            Ok(Ok(s)) => *s,
            _ => None,
        }
    }

    /// After stdin has been closed: wait, then SIGTERM, wait, then SIGKILL, wait.
    pub(crate) async fn shutdown(&self) -> Result<ExitStatus, ClientError> {
        let t = self.timeouts;
        if let Some(s) = self.wait_for(t.after_close).await {
            return Ok(s);
        }
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            tracing::debug!(pid, "server did not exit on stdin EOF: SIGTERM");
            let _ = Command::new("kill")
                .args(["-TERM", &pid.to_string()])
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .await;
            if let Some(s) = self.wait_for(t.after_sigterm).await {
                return Ok(s);
            }
        }
        tracing::debug!("server did not exit: SIGKILL");
        let _ = self.kill.send(());
        self.wait_for(t.after_sigkill)
            .await
            .ok_or_else(|| ClientError::Closed(Some("the server process did not exit".into())))
    }
}
