//! Request correlation, shared by server and client: ids minted, a waiter registered per
//! request, each response routed to its waiter, timeouts, and every waiter failed at close.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use mcp_core::jsonrpc::RequestId;
use tokio::sync::oneshot;

/// How the ids of outgoing requests look.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IdStyle {
    /// JSON numbers: `0`, `1`, ... (the client).
    #[cfg_attr(not(feature = "client"), allow(dead_code))] // used by the client only
    Number,
    /// Strings with a prefix, `srv-1`, `srv-2`, ...: they cannot collide with the ids of
    /// the requests the other side sends on the same connection (the server).
    Prefixed(&'static str),
}

/// Why a waiter got no outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WaitError {
    /// No response within the timeout (the waiter is removed).
    Timeout,
    /// The table was failed or closed, or the entry removed, before a response came.
    Closed,
}

/// The table of requests waiting for their responses: `T` is what a response delivers.
pub(crate) struct Pending<T> {
    table: Mutex<Table<T>>,
    next: AtomicU64,
    style: IdStyle,
}

struct Table<T> {
    waiters: HashMap<RequestId, oneshot::Sender<T>>,
    /// Set by [`Pending::close`]: later registrations are refused.
    closed: bool,
}

impl<T> Pending<T> {
    /// An empty table whose first minted id has the number `first`.
    pub(crate) fn new(style: IdStyle, first: u64) -> Self {
        Self {
            table: Mutex::new(Table {
                waiters: HashMap::new(),
                closed: false,
            }),
            next: AtomicU64::new(first),
            style,
        }
    }

    /// Mints ids from `first` on (a session several processes hold draws a random start
    /// in each, so their ids do not collide).
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) fn mint_from(&self, first: u64) {
        self.next.store(first, Ordering::Relaxed);
    }

    /// Mints the next id: its number (the client derives its progress tokens from it) and
    /// the id itself.
    pub(crate) fn next_id(&self) -> (u64, RequestId) {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let id = match self.style {
            IdStyle::Number => RequestId::Number(n as i64),
            IdStyle::Prefixed(p) => RequestId::String(format!("{p}{n}").into()),
        };
        (n, id)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Table<T>> {
        self.table.lock().expect("pending lock")
    }

    /// Registers a waiter for `id`, before the request is sent (so that a fast response
    /// finds it). `None` once the table is closed.
    pub(crate) fn register(&self, id: RequestId) -> Option<Waiter<'_, T>> {
        let (tx, rx) = oneshot::channel();
        let mut table = self.lock();
        if table.closed {
            return None;
        }
        table.waiters.insert(id.clone(), tx);
        Some(Waiter {
            pending: self,
            id,
            rx,
            done: false,
        })
    }

    /// Routes an outcome to the waiter of `id`, removing it. `false` when nobody waits for
    /// `id` (unknown, timed out, given up on) or the waiter is gone.
    pub(crate) fn complete(&self, id: &RequestId, outcome: T) -> bool {
        let waiter = self.lock().waiters.remove(id);
        match waiter {
            Some(tx) => tx.send(outcome).is_ok(),
            None => false,
        }
    }

    /// Whether the request `id` still waits for its response.
    #[cfg_attr(not(feature = "client"), allow(dead_code))] // used by the client only
    pub(crate) fn contains(&self, id: &RequestId) -> bool {
        self.lock().waiters.contains_key(id)
    }

    /// The id of the one waiting request, when exactly one waits.
    #[cfg_attr(not(feature = "client"), allow(dead_code))] // used by the client only
    pub(crate) fn only(&self) -> Option<RequestId> {
        let table = self.lock();
        match table.waiters.len() {
            1 => table.waiters.keys().next().cloned(),
            _ => None,
        }
    }

    /// Removes the waiter of `id`; whether it was still waiting.
    pub(crate) fn remove(&self, id: &RequestId) -> bool {
        self.lock().waiters.remove(id).is_some()
    }

    /// Fails every waiting request with [`WaitError::Closed`]; later registrations are
    /// still accepted (the server's connection, whose late requests then time out).
    pub(crate) fn fail_all(&self) {
        let waiters = std::mem::take(&mut self.lock().waiters);
        // Dropped outside the lock: dropping a sender wakes its waiter.
        drop(waiters);
    }

    /// Fails every waiting request and refuses later registrations (the client's
    /// connection, which answers them with the reason it closed).
    #[cfg_attr(not(feature = "client"), allow(dead_code))] // used by the client only
    pub(crate) fn close(&self) {
        let waiters = {
            let mut table = self.lock();
            table.closed = true;
            std::mem::take(&mut table.waiters)
        };
        drop(waiters);
    }
}

/// One request's wait for its response. Dropped before its response came, it removes its
/// entry, so a late response is reported as unknown.
pub(crate) struct Waiter<'a, T> {
    pending: &'a Pending<T>,
    id: RequestId,
    rx: oneshot::Receiver<T>,
    /// The outcome was received (its entry is gone): nothing to remove on drop.
    done: bool,
}

impl<T> Waiter<'_, T> {
    /// Waits for the outcome. Cancel-safe: `select!` may poll it again after another branch
    /// won.
    pub(crate) async fn recv(&mut self) -> Result<T, WaitError> {
        let outcome = (&mut self.rx).await.map_err(|_| WaitError::Closed);
        self.done = true;
        outcome
    }

    /// Waits for the outcome at most `timeout`; on timeout the entry is removed.
    pub(crate) async fn within(mut self, timeout: Duration) -> Result<T, WaitError> {
        match tokio::time::timeout(timeout, self.recv()).await {
            Ok(outcome) => outcome,
            Err(_) => Err(WaitError::Timeout),
        }
    }

    /// Gives up on the request: removes its entry; whether it was still waiting (then the
    /// other side may be told with `notifications/cancelled`).
    #[cfg_attr(not(feature = "client"), allow(dead_code))] // used by the client only
    pub(crate) fn forget(&mut self) -> bool {
        if std::mem::replace(&mut self.done, true) {
            return false;
        }
        self.pending.remove(&self.id)
    }
}

impl<T> Drop for Waiter<'_, T> {
    fn drop(&mut self) {
        if !self.done {
            self.pending.remove(&self.id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    type Table = Pending<Result<u32, &'static str>>;

    #[test]
    fn ids_follow_the_style() {
        let server = Table::new(IdStyle::Prefixed("srv-"), 1);
        assert_eq!(server.next_id(), (1, RequestId::from("srv-1")));
        assert_eq!(server.next_id(), (2, RequestId::from("srv-2")));
        let client = Table::new(IdStyle::Number, 0);
        assert_eq!(client.next_id(), (0, RequestId::Number(0)));
        assert_eq!(client.next_id(), (1, RequestId::Number(1)));
    }

    #[tokio::test]
    async fn a_response_reaches_its_waiter_only() {
        let table = Table::new(IdStyle::Number, 0);
        let (_, a) = table.next_id();
        let (_, b) = table.next_id();
        let mut wa = table.register(a.clone()).unwrap();
        let mut wb = table.register(b.clone()).unwrap();
        assert!(table.complete(&b, Err("no")));
        assert!(table.complete(&a, Ok(7)));
        assert_eq!(wa.recv().await, Ok(Ok(7)));
        assert_eq!(wb.recv().await, Ok(Err("no")));
        // Each is delivered once: a second response for the same id is unknown.
        assert!(!table.complete(&a, Ok(8)));
        assert!(!table.contains(&a));
    }

    #[tokio::test]
    async fn a_timeout_removes_the_entry() {
        let table = Table::new(IdStyle::Number, 0);
        let id = RequestId::Number(3);
        let waiter = table.register(id.clone()).unwrap();
        assert!(table.contains(&id));
        let got = waiter.within(Duration::from_millis(10)).await;
        assert_eq!(got, Err(WaitError::Timeout));
        assert!(!table.contains(&id));
        assert!(!table.complete(&id, Ok(1)), "a late response is unknown");
    }

    #[tokio::test]
    async fn a_response_within_the_timeout_arrives() {
        let table = Table::new(IdStyle::Number, 0);
        let id = RequestId::Number(1);
        let waiter = table.register(id.clone()).unwrap();
        assert!(table.complete(&id, Ok(5)));
        assert_eq!(waiter.within(Duration::from_secs(1)).await, Ok(Ok(5)));
    }

    #[tokio::test]
    async fn dropping_or_forgetting_a_waiter_removes_it() {
        let table = Table::new(IdStyle::Number, 0);
        let a = RequestId::Number(1);
        drop(table.register(a.clone()).unwrap());
        assert!(!table.contains(&a));
        let b = RequestId::Number(2);
        let mut w = table.register(b.clone()).unwrap();
        assert_eq!(table.only(), Some(b.clone()));
        assert!(w.forget(), "it was still waiting");
        assert!(!table.contains(&b));
        let mut w = table.register(b.clone()).unwrap();
        assert!(table.complete(&b, Ok(1)));
        assert!(!w.forget(), "answered: nothing to cancel");
    }

    #[tokio::test]
    async fn failing_all_wakes_every_waiter_and_accepts_later_ones() {
        let table = Table::new(IdStyle::Number, 0);
        let mut a = table.register(RequestId::Number(1)).unwrap();
        let mut b = table.register(RequestId::Number(2)).unwrap();
        assert_eq!(table.only(), None);
        table.fail_all();
        assert_eq!(a.recv().await, Err(WaitError::Closed));
        assert_eq!(b.recv().await, Err(WaitError::Closed));
        assert!(table.register(RequestId::Number(3)).is_some());
    }

    #[tokio::test]
    async fn closing_fails_every_waiter_and_refuses_later_ones() {
        let table = Table::new(IdStyle::Number, 0);
        let mut a = table.register(RequestId::Number(1)).unwrap();
        table.close();
        assert_eq!(a.recv().await, Err(WaitError::Closed));
        assert!(table.register(RequestId::Number(2)).is_none());
        assert!(!table.complete(&RequestId::Number(1), Ok(1)));
    }
}
