//! Legacy sessions (2024-11-05 HTTP+SSE and 2025 Streamable HTTP): the connection state
//! that the stream kernel keeps per connection, kept here per `Mcp-Session-Id`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_core::jsonrpc::RequestId;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::dispatch::{Session, SessionState};
use crate::filter::Filters;
use crate::peer::ConnShared;

/// Messages kept for a session while no stream is open to carry them.
const BACKLOG: usize = 256;

/// Where a session's unrelated messages (server notifications, server-to-client requests,
/// and on 2024-11-05 every message) go: the open stream, or a bounded backlog.
#[derive(Default)]
pub(crate) struct Outlet {
    stream: Option<mpsc::Sender<Vec<u8>>>,
    backlog: VecDeque<Vec<u8>>,
}

/// An attached stream: its receiver, and the sender to detach it by.
pub(crate) type Attached = (mpsc::Receiver<Vec<u8>>, mpsc::Sender<Vec<u8>>);

pub(crate) struct HttpSession {
    pub(crate) id: String,
    pub(crate) state: Session,
    pub(crate) conn: Arc<ConnShared>,
    pub(crate) in_flight: Mutex<HashMap<RequestId, CancellationToken>>,
    /// Fires when the session ends (DELETE, expiry, shutdown, its SSE stream dropping).
    pub(crate) closed: CancellationToken,
    last_seen: Mutex<Instant>,
    outlet: Arc<Mutex<Outlet>>,
}

impl HttpSession {
    pub(crate) fn new(
        id: String,
        peer_request_timeout: Duration,
        filters: Filters,
        closed: CancellationToken,
    ) -> Arc<Self> {
        let (tx, mut rx) = mpsc::channel::<Vec<u8>>(256);
        let outlet = Arc::new(Mutex::new(Outlet::default()));
        let pump_outlet = outlet.clone();
        let stop = closed.clone();
        tokio::spawn(async move {
            loop {
                let m = tokio::select! {
                    m = rx.recv() => match m { Some(m) => m, None => break },
                    _ = stop.cancelled() => break,
                };
                let stream = {
                    let mut o = pump_outlet.lock().expect("outlet lock");
                    match &o.stream {
                        Some(s) => Some(s.clone()),
                        None => {
                            if o.backlog.len() == BACKLOG {
                                o.backlog.pop_front();
                            }
                            o.backlog.push_back(m);
                            continue;
                        }
                    }
                };
                if let Some(s) = stream
                    && let Err(e) = s.send(m).await
                {
                    pump_outlet
                        .lock()
                        .expect("outlet lock")
                        .backlog
                        .push_front(e.0);
                }
            }
        });
        Arc::new(Self {
            id,
            state: Arc::new(Mutex::new(SessionState::default())),
            conn: Arc::new(ConnShared::new(tx, peer_request_timeout, filters)),
            in_flight: Mutex::new(HashMap::new()),
            closed,
            last_seen: Mutex::new(Instant::now()),
            outlet,
        })
    }

    pub(crate) fn touch(&self) {
        *self.last_seen.lock().expect("session lock") = Instant::now();
    }

    pub(crate) fn initialized(&self) -> bool {
        self.state.lock().expect("session lock").initialized
    }

    /// Whether the session has been idle (no stream, nothing in flight) for `timeout`.
    pub(crate) fn expired(&self, timeout: Duration) -> bool {
        let busy = self.has_stream() || !self.in_flight.lock().expect("lock").is_empty();
        !busy && self.last_seen.lock().expect("session lock").elapsed() > timeout
    }

    pub(crate) fn has_stream(&self) -> bool {
        self.outlet
            .lock()
            .expect("outlet lock")
            .stream
            .as_ref()
            .is_some_and(|s| !s.is_closed())
    }

    /// Attaches a new stream, which first receives the backlog. `None` when a stream is
    /// already attached.
    pub(crate) fn attach(&self) -> Option<Attached> {
        let mut o = self.outlet.lock().expect("outlet lock");
        if o.stream.as_ref().is_some_and(|s| !s.is_closed()) {
            return None;
        }
        let (tx, rx) = mpsc::channel(BACKLOG + 64);
        while let Some(m) = o.backlog.pop_front() {
            if let Err(e) = tx.try_send(m) {
                let m = match e {
                    mpsc::error::TrySendError::Full(m) | mpsc::error::TrySendError::Closed(m) => m,
                };
                o.backlog.push_front(m);
                break;
            }
        }
        o.stream = Some(tx.clone());
        Some((rx, tx))
    }

    /// Detaches the stream `tx` (when it is still the attached one).
    pub(crate) fn detach(&self, tx: &mpsc::Sender<Vec<u8>>) {
        let mut o = self.outlet.lock().expect("outlet lock");
        if o.stream.as_ref().is_some_and(|s| s.same_channel(tx)) {
            o.stream = None;
        }
        self.touch();
    }

    /// Ends the session: in-flight work is cancelled, streams end.
    pub(crate) fn close(&self) {
        self.closed.cancel();
        for (_, t) in self.in_flight.lock().expect("lock").drain() {
            t.cancel();
        }
        self.conn.fail_all();
    }
}

/// A fresh session id: 128 random bits from the OS, as 32 hex digits.
pub(crate) fn new_session_id() -> String {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).expect("the OS random source failed");
    let mut s = String::with_capacity(32);
    for x in b {
        s.push_str(&format!("{x:02x}"));
    }
    s
}
