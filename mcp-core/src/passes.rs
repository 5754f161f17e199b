//! How many times the runtime passes over a request's params and its tool arguments, and
//! how many times a `tools/call` result is decoded into a typed value and encoded from
//! one, counted in debug builds only (in release every count is an empty inline function):
//! the test that one 2026 `tools/call` is read by one scan and one typed decode
//! (`tests/tests/one_scan.rs`) and the test that a forwarded result crosses a mount or a
//! proxy undecoded (`tests/tests/hop_passes.rs`) read these. Counters are process-wide: a
//! test that reads them runs alone in its binary.

use std::sync::atomic::{AtomicUsize, Ordering};

static PARAMS: AtomicUsize = AtomicUsize::new(0);
static ARGUMENTS: AtomicUsize = AtomicUsize::new(0);
static RESULT_DECODES: AtomicUsize = AtomicUsize::new(0);
static RESULT_ENCODES: AtomicUsize = AtomicUsize::new(0);

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

/// A `tools/call` result's JSON decoded into a `CallToolResult` (a hop that translates it).
#[inline]
pub fn result_decode() {
    #[cfg(debug_assertions)]
    RESULT_DECODES.fetch_add(1, Ordering::Relaxed);
}

/// A `CallToolResult` encoded as JSON ([`CallToolResult::encode`](crate::types::CallToolResult::encode)).
#[inline]
pub fn result_encode() {
    #[cfg(debug_assertions)]
    RESULT_ENCODES.fetch_add(1, Ordering::Relaxed);
}

/// The passes counted so far: (params, arguments). Always (0, 0) in release builds.
pub fn counts() -> (usize, usize) {
    (
        PARAMS.load(Ordering::Relaxed),
        ARGUMENTS.load(Ordering::Relaxed),
    )
}

/// The `tools/call` results decoded and encoded so far: (decodes, encodes). Always (0, 0)
/// in release builds.
pub fn results() -> (usize, usize) {
    (
        RESULT_DECODES.load(Ordering::Relaxed),
        RESULT_ENCODES.load(Ordering::Relaxed),
    )
}

/// Sets every count back to 0.
pub fn reset() {
    PARAMS.store(0, Ordering::Relaxed);
    ARGUMENTS.store(0, Ordering::Relaxed);
    RESULT_DECODES.store(0, Ordering::Relaxed);
    RESULT_ENCODES.store(0, Ordering::Relaxed);
}
