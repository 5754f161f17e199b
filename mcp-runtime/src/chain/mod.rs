//! The middleware chain: `Middleware`, `Next`, static and dynamic chains, hooks, metrics, the tracing
//! layer, the log bridge, and running one request through a chain. Imports `context` and below.

pub mod hooks;
pub mod log_bridge;
pub mod metrics;
pub mod middleware;
pub mod policies;
pub(crate) mod request_run;
pub mod tracing_layer;
pub mod transform;
