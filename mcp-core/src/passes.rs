//! How many times the runtime passes over a request's params and its tool arguments,
//! counted in debug builds only (in release every count is an empty inline function): the
//! test that one 2026 `tools/call` is read by one scan and one typed decode
//! (`tests/tests/one_scan.rs`) reads these. Counters are process-wide: a test that reads them
//! runs alone in its binary.

use std::sync::atomic::{AtomicUsize, Ordering};

static PARAMS: AtomicUsize = AtomicUsize::new(0);
static ARGUMENTS: AtomicUsize = AtomicUsize::new(0);

/// One pass over a request's whole params (a scan, a serde probe or parse).
#[inline]
pub fn params_pass() {
    #[cfg(debug_assertions)]
    PARAMS.fetch_add(1, Ordering::Relaxed);
}

/// One pass over a tool call's `arguments` alone (a validation, the typed decode).
#[inline]
pub fn arguments_pass() {
    #[cfg(debug_assertions)]
    ARGUMENTS.fetch_add(1, Ordering::Relaxed);
}

/// The passes counted so far: (params, arguments). Always (0, 0) in release builds.
pub fn counts() -> (usize, usize) {
    (
        PARAMS.load(Ordering::Relaxed),
        ARGUMENTS.load(Ordering::Relaxed),
    )
}

/// Sets both counts back to 0.
pub fn reset() {
    PARAMS.store(0, Ordering::Relaxed);
    ARGUMENTS.store(0, Ordering::Relaxed);
}
