//! Which resource URIs some client of this server subscribes to now, counted across sessions
//! and listen streams, with watchers told when a URI gains its first subscriber and loses
//! its last. A server that relays another's updates (a mount, a proxy) watches it to
//! subscribe where the updates come from only while someone here wants them.
//!
//! A legacy session holds its `resources/subscribe`s in a [`Lease`] kept in its state
//! (released with the session); a 2026 `subscriptions/listen` stream holds one for the
//! URIs its filter names, for as long as it is open.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, Weak};

use crate::common::BoxFuture;

/// What a watcher hands back to wait for: the relay of a subscription being in place where
/// the updates come from (an upstream subscribed), so the client's subscribe is answered
/// after it. Already started when returned; awaiting only waits.
pub(crate) type Settle = Vec<BoxFuture<'static, ()>>;

/// Told `(uri, true)` when `uri` gains its first subscriber, `(uri, false)` when it loses
/// its last; called in the order of those changes (under the counts' lock: it must not
/// block, nor change this `Interest`).
pub(crate) type InterestWatcher = Arc<dyn Fn(&str, bool) -> Settle + Send + Sync>;

/// The subscribed URIs of one server, counted.
#[derive(Default)]
pub(crate) struct Interest {
    counts: Mutex<HashMap<String, usize>>,
    watchers: Mutex<Vec<InterestWatcher>>,
}

impl std::fmt::Debug for Interest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interest")
            .field("uris", &self.counts.lock().expect("interest lock").len())
            .finish_non_exhaustive()
    }
}

impl Interest {
    /// One more subscriber of `uri`; what to wait for when it was the first.
    pub(crate) fn add(&self, uri: &str) -> Settle {
        let mut counts = self.counts.lock().expect("interest lock");
        let n = counts.entry(uri.to_owned()).or_insert(0);
        *n += 1;
        if *n > 1 {
            return Vec::new();
        }
        self.tell(uri, true)
    }

    /// One subscriber of `uri` fewer (nothing when it had none).
    pub(crate) fn remove(&self, uri: &str) {
        let mut counts = self.counts.lock().expect("interest lock");
        let Some(n) = counts.get_mut(uri) else {
            return;
        };
        *n -= 1;
        if *n == 0 {
            counts.remove(uri);
            // Nothing waits for an unsubscription.
            drop(self.tell(uri, false));
        }
    }

    /// Every URI some client subscribes to now.
    #[cfg_attr(not(feature = "proxy"), allow(dead_code))]
    pub(crate) fn held(&self) -> Vec<String> {
        let counts = self.counts.lock().expect("interest lock");
        counts.keys().cloned().collect()
    }

    /// Adds a watcher; it is told of the URIs held now as if each had just gained its
    /// first subscriber.
    pub(crate) fn watch(&self, watcher: InterestWatcher) -> Settle {
        let counts = self.counts.lock().expect("interest lock");
        self.watchers
            .lock()
            .expect("interest watchers lock")
            .push(watcher.clone());
        counts.keys().flat_map(|uri| watcher(uri, true)).collect()
    }

    /// Runs the watchers (the counts' lock held, so they see changes in order).
    fn tell(&self, uri: &str, on: bool) -> Settle {
        let watchers = self
            .watchers
            .lock()
            .expect("interest watchers lock")
            .clone();
        watchers.iter().flat_map(|w| w(uri, on)).collect()
    }
}

/// The URIs one subscriber (a legacy session, a listen stream) holds in an [`Interest`],
/// released when dropped.
pub(crate) struct Lease {
    interest: Weak<Interest>,
    uris: BTreeSet<String>,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease").field("uris", &self.uris).finish()
    }
}

impl Lease {
    /// A lease holding nothing yet.
    pub(crate) fn new(interest: &Arc<Interest>) -> Self {
        Self {
            interest: Arc::downgrade(interest),
            uris: BTreeSet::new(),
        }
    }

    /// Holds `uri` (once, however often asked); what to wait for.
    pub(crate) fn hold(&mut self, uri: &str) -> Settle {
        match self.interest.upgrade() {
            Some(i) if self.uris.insert(uri.to_owned()) => i.add(uri),
            _ => Vec::new(),
        }
    }

    /// Lets go of `uri`, if held.
    pub(crate) fn release(&mut self, uri: &str) {
        if self.uris.remove(uri)
            && let Some(i) = self.interest.upgrade()
        {
            i.remove(uri);
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(i) = self.interest.upgrade() {
            for uri in std::mem::take(&mut self.uris) {
                i.remove(&uri);
            }
        }
    }
}

/// Waits for what a subscription's relays started (see [`Settle`]).
pub(crate) async fn settled(settle: Settle) {
    for f in settle {
        f.await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn watchers_hear_the_first_subscriber_and_the_last_leaving_once() {
        let interest = Arc::new(Interest::default());
        let heard = Arc::new(Mutex::new(Vec::new()));
        let h = heard.clone();
        drop(interest.watch(Arc::new(move |uri: &str, on| {
            h.lock().unwrap().push((uri.to_owned(), on));
            Vec::new()
        })));
        let mut a = Lease::new(&interest);
        let mut b = Lease::new(&interest);
        drop(a.hold("x://1"));
        drop(a.hold("x://1"));
        drop(b.hold("x://1"));
        drop(b.hold("x://2"));
        assert_eq!(interest.held().len(), 2);
        a.release("x://1");
        a.release("x://1");
        assert_eq!(interest.held().len(), 2, "b still holds x://1");
        drop(b);
        assert!(interest.held().is_empty());
        assert_eq!(
            *heard.lock().unwrap(),
            [
                ("x://1".to_owned(), true),
                ("x://2".to_owned(), true),
                ("x://1".to_owned(), false),
                ("x://2".to_owned(), false),
            ]
        );
    }

    #[test]
    fn a_late_watcher_hears_what_is_held_already() {
        let interest = Arc::new(Interest::default());
        let mut a = Lease::new(&interest);
        drop(a.hold("x://1"));
        let heard = Arc::new(Mutex::new(Vec::new()));
        let h = heard.clone();
        drop(interest.watch(Arc::new(move |uri: &str, on| {
            h.lock().unwrap().push((uri.to_owned(), on));
            Vec::new()
        })));
        assert_eq!(*heard.lock().unwrap(), [("x://1".to_owned(), true)]);
    }
}
