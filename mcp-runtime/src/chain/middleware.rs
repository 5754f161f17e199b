//! Onion middleware: the [`Middleware`] trait, [`Next`], and chains composed at compile time.
//!
//! A chain is a type. `(A, B, C)` wraps the dispatcher as `A(B(C(dispatcher)))`: element 0 is
//! outermost. Each layer calls the next through a generic [`Next`], so a call through ten
//! static layers is ordinary static dispatch the optimiser can inline — no boxing per layer.
//! Layers added at run time go into one dynamic slot ([`DynLayers`]), which boxes.

use std::future::Future;
use std::sync::Arc;

use tokio_util::either::Either;

use crate::common::error::HandlerResult;
use crate::context::Context;

pub use crate::common::BoxFuture;

/// Something that turns a message's context into its outcome: the dispatcher, or a chain
/// of middleware around it.
pub trait Endpoint: Send + Sync {
    /// Handles one message.
    fn call(&self, ctx: Context) -> impl Future<Output = HandlerResult> + Send + '_;
}

/// The rest of the chain, as seen by one middleware.
pub struct Next<'a, E: ?Sized> {
    inner: &'a E,
}

impl<'a, E: Endpoint + ?Sized> Next<'a, E> {
    /// Wraps an endpoint.
    pub fn new(inner: &'a E) -> Self {
        Self { inner }
    }

    /// Runs the rest of the chain (validation, lookup, the handler, result shaping).
    ///
    /// The inner endpoint's future itself, not a wrapper around it: each layer adds one
    /// level of nesting, not two, so deep static chains stay within rustc's default
    /// layout depth.
    pub fn run(self, ctx: Context) -> impl Future<Output = HandlerResult> + Send + 'a {
        self.inner.call(ctx)
    }
}

/// One layer of the onion.
///
/// ```
/// use mcp_runtime::middleware::{Endpoint, Middleware, Next};
/// use mcp_runtime::{Context, HandlerResult};
///
/// struct Audit;
///
/// impl Middleware for Audit {
///     async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
///         let method = ctx.method().to_owned();
///         let out = next.run(ctx).await;
///         eprintln!("{method} -> {}", if out.is_ok() { "ok" } else { "error" });
///         out
///     }
/// }
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an MCP middleware",
    note = "implement `mcp::Middleware` for it, or write it as `#[mcp::middleware] async fn name(ctx: Context, next: Next<'_>) -> HandlerResult`"
)]
pub trait Middleware: Send + Sync + 'static {
    /// Handles one message; call `next.run(ctx)` to continue inward.
    fn handle<E: Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: Next<'_, E>,
    ) -> impl Future<Output = HandlerResult> + Send;

    /// The tools and prompts this layer names (a policy's per-tool settings), which the
    /// server's build checks against the server's own: a name it does not have fails
    /// [`ServerBuilder::try_build`](crate::ServerBuilder::try_build). None by default.
    fn named(&self) -> Vec<Named> {
        Vec::new()
    }
}

/// A tool or prompt a middleware names ([`Middleware::named`]), by its own name in the
/// server (a mounted one's `ns_name`; never a transform's renaming).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    /// Who names it, for the build error: `"RateLimit::tool"`.
    pub by: &'static str,
    /// A tool or a prompt (other kinds are not checked).
    pub kind: super::policies::Kind,
    /// The name.
    pub name: String,
}

impl Named {
    /// The tool `name`, named by `by`.
    pub fn tool(by: &'static str, name: impl Into<String>) -> Self {
        let (kind, name) = (super::policies::Kind::Tool, name.into());
        Self { by, kind, name }
    }

    /// The prompt `name`, named by `by`.
    pub fn prompt(by: &'static str, name: impl Into<String>) -> Self {
        let (kind, name) = (super::policies::Kind::Prompt, name.into());
        Self { by, kind, name }
    }
}

/// A middleware wrapped around an inner endpoint.
pub struct Layered<M, E> {
    mw: M,
    inner: E,
}

impl<M, E> Layered<M, E> {
    /// `mw` around `inner`.
    pub fn new(mw: M, inner: E) -> Self {
        Self { mw, inner }
    }
}

impl<M: Middleware, E: Endpoint> Endpoint for Layered<M, E> {
    fn call(&self, ctx: Context) -> impl Future<Output = HandlerResult> + Send + '_ {
        self.mw.handle(ctx, Next::new(&self.inner))
    }
}

/// A list of middleware known at compile time: `()`, `(A,)`, `(A, B)`, … up to 12.
pub trait Chain: Send + Sync + 'static {
    /// The endpoint the chain builds around `inner`.
    type Wrapped<E: Endpoint>: Endpoint;
    /// Nests the layers around `inner`, element 0 outermost.
    fn wrap<E: Endpoint>(self, inner: E) -> Self::Wrapped<E>;
    /// How many layers the chain has.
    const LEN: usize;
    /// What its layers name ([`Middleware::named`]).
    fn named(&self) -> Vec<Named> {
        Vec::new()
    }
}

impl Chain for () {
    type Wrapped<E: Endpoint> = E;
    fn wrap<E: Endpoint>(self, inner: E) -> E {
        inner
    }
    const LEN: usize = 0;
}

macro_rules! tuple_chain {
    ($head:ident $(, $tail:ident)*) => {
        impl<$head: Middleware, $($tail: Middleware),*> Chain for ($head, $($tail,)*) {
            type Wrapped<E: Endpoint> = Layered<$head, <($($tail,)*) as Chain>::Wrapped<E>>;
            #[allow(non_snake_case)]
            fn wrap<E: Endpoint>(self, inner: E) -> Self::Wrapped<E> {
                let ($head, $($tail,)*) = self;
                Layered { mw: $head, inner: ($($tail,)*).wrap(inner) }
            }
            const LEN: usize = 1 + <($($tail,)*) as Chain>::LEN;
            #[allow(non_snake_case)]
            fn named(&self) -> Vec<Named> {
                let ($head, $($tail,)*) = self;
                #[allow(unused_mut)]
                let mut all = $head.named();
                $(all.extend($tail.named());)*
                all
            }
        }
        tuple_chain!($($tail),*);
    };
    () => {};
}

tuple_chain!(M1, M2, M3, M4, M5, M6, M7, M8, M9, M10, M11, M12);

/// The object-safe form of [`Endpoint`], used under boxed middleware.
pub trait DynEndpoint: Send + Sync {
    /// Handles one message, boxing the future.
    fn call_boxed(&self, ctx: Context) -> BoxFuture<'_, HandlerResult>;
}

impl<E: Endpoint> DynEndpoint for E {
    fn call_boxed(&self, ctx: Context) -> BoxFuture<'_, HandlerResult> {
        Box::pin(self.call(ctx))
    }
}

impl Endpoint for dyn DynEndpoint + '_ {
    fn call(&self, ctx: Context) -> impl Future<Output = HandlerResult> + Send + '_ {
        self.call_boxed(ctx)
    }
}

/// A middleware added at run time, behind a box.
pub trait DynMiddleware: Send + Sync + 'static {
    /// Handles one message.
    fn handle_dyn<'a>(
        &'a self,
        ctx: Context,
        next: Next<'a, dyn DynEndpoint + 'a>,
    ) -> BoxFuture<'a, HandlerResult>;

    /// What it names ([`Middleware::named`]).
    fn named_dyn(&self) -> Vec<Named> {
        Vec::new()
    }
}

impl<M: Middleware> DynMiddleware for M {
    fn handle_dyn<'a>(
        &'a self,
        ctx: Context,
        next: Next<'a, dyn DynEndpoint + 'a>,
    ) -> BoxFuture<'a, HandlerResult> {
        Box::pin(self.handle(ctx, next))
    }

    fn named_dyn(&self) -> Vec<Named> {
        self.named()
    }
}

/// A middleware from an async closure: `from_fn(|ctx, next| async move { next.run(ctx).await })`.
pub fn from_fn<F>(f: F) -> FnMiddleware<F>
where
    F: for<'a> Fn(Context, Next<'a, dyn DynEndpoint + 'a>) -> BoxFuture<'a, HandlerResult>
        + Send
        + Sync
        + 'static,
{
    FnMiddleware(f)
}

/// See [`from_fn`].
pub struct FnMiddleware<F>(F);

impl<F> DynMiddleware for FnMiddleware<F>
where
    F: for<'a> Fn(Context, Next<'a, dyn DynEndpoint + 'a>) -> BoxFuture<'a, HandlerResult>
        + Send
        + Sync
        + 'static,
{
    fn handle_dyn<'a>(
        &'a self,
        ctx: Context,
        next: Next<'a, dyn DynEndpoint + 'a>,
    ) -> BoxFuture<'a, HandlerResult> {
        (self.0)(ctx, next)
    }
}

/// The one dynamic slot: layers added at run time, first added outermost, around `inner`.
pub struct DynLayers<E> {
    layers: Arc<[Arc<dyn DynMiddleware>]>,
    inner: E,
}

impl<E> DynLayers<E> {
    /// Wraps `inner` in `layers` (index 0 outermost).
    pub fn new(layers: Vec<Arc<dyn DynMiddleware>>, inner: E) -> Self {
        Self {
            layers: layers.into(),
            inner,
        }
    }
}

/// One step of the dynamic slot; the innermost endpoint is reached through a box, so the
/// slot's future does not nest the endpoint's (the boxed path allocates per layer anyway).
struct DynStep<'a> {
    rest: &'a [Arc<dyn DynMiddleware>],
    inner: &'a dyn DynEndpoint,
}

impl Endpoint for DynStep<'_> {
    async fn call(&self, ctx: Context) -> HandlerResult {
        match self.rest.split_first() {
            None => self.inner.call_boxed(ctx).await,
            Some((first, rest)) => {
                let step = DynStep {
                    rest,
                    inner: self.inner,
                };
                let next: Next<'_, dyn DynEndpoint> = Next::new(&step);
                first.handle_dyn(ctx, next).await
            }
        }
    }
}

impl<E: Endpoint> Endpoint for DynLayers<E> {
    fn call(&self, ctx: Context) -> impl Future<Output = HandlerResult> + Send + '_ {
        if self.layers.is_empty() {
            // The common case costs nothing: the endpoint's own future.
            return Either::Left(self.inner.call(ctx));
        }
        Either::Right(async move {
            DynStep {
                rest: &self.layers,
                inner: &self.inner,
            }
            .call(ctx)
            .await
        })
    }
}
