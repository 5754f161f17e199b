//! Parameters the macros inject by type instead of decoding them from the arguments:
//! [`State`] (the server's state), [`Progress`] (a progress reporter), alongside
//! [`Context`] and the request's `CancellationToken`.
//!
//! ```
//! use mcp_runtime::{Provides, State};
//!
//! struct Shop { db: Vec<&'static str> }
//! struct Db;
//! // The server itself is always its own state; a part of it is provided by hand.
//! impl Provides<Vec<&'static str>> for Shop {
//!     fn provide(&self) -> &Vec<&'static str> { &self.db }
//! }
//! let shop = Shop { db: vec!["Dune"] };
//! let whole: State<'_, Shop> = State::of(&shop);
//! let part: State<'_, Vec<&'static str>> = State::of(&shop);
//! assert_eq!(whole.db.len(), part.len());
//! # let _ = Db;
//! ```

use std::ops::Deref;

/// The cancellation of a request, as injected into tools (`ctx.cancellation()`).
pub use tokio_util::sync::CancellationToken;

use crate::context::{Context, ProgressError};

/// A borrow of the state of the server a tool runs in: `State<'_, MyServer>` is the server
/// itself, `State<'_, T>` any part of it the server [`Provides`].
///
/// In a `#[mcp::tool]` function it is injected (not part of the input schema); a free
/// function with a `State<T>` parameter can be listed only on servers that provide `T`.
#[derive(Debug)]
pub struct State<'a, T: ?Sized>(&'a T);

impl<'a, T: ?Sized> State<'a, T> {
    /// The `T` that `server` provides.
    pub fn of<S: Provides<T> + ?Sized>(server: &'a S) -> Self {
        Self(server.provide())
    }

    /// The state, with the lifetime of the server borrow.
    pub fn get(&self) -> &'a T {
        self.0
    }
}

impl<T: ?Sized> Clone for State<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T: ?Sized> Copy for State<'_, T> {}

impl<T: ?Sized> Deref for State<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.0
    }
}

/// A server that can lend a `T` to tools taking `State<T>`. Every type provides itself;
/// implement it for parts of your server (a database handle, a configuration).
#[diagnostic::on_unimplemented(
    message = "the server `{Self}` does not provide the state `{T}`",
    label = "a `State<{T}>` parameter borrows this from the server",
    note = "list the tool on a `#[mcp::server]` of type `{T}`, or implement `mcp::Provides<{T}>` for `{Self}`"
)]
pub trait Provides<T: ?Sized> {
    /// The state.
    fn provide(&self) -> &T;
}

impl<T: ?Sized> Provides<T> for T {
    fn provide(&self) -> &T {
        self
    }
}

/// Reports the progress of the current request (`notifications/progress`), if the client
/// asked for it with a progress token; otherwise reporting does nothing.
#[derive(Debug, Clone)]
pub struct Progress {
    ctx: Context,
}

impl Progress {
    /// The reporter of the request `ctx` belongs to.
    pub fn new(ctx: Context) -> Self {
        Self { ctx }
    }

    /// Whether the client asked for progress (sent a progress token).
    pub fn is_requested(&self) -> bool {
        self.ctx.progress_token().is_some()
    }

    /// Sends `progress` (strictly increasing from call to call) out of `total`, with an
    /// optional message (dropped for 2024-11-05 clients, which do not define it).
    pub async fn report(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), ProgressError> {
        self.ctx.progress(progress, total, message).await
    }
}
