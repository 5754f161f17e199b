//! Onion middleware: the [`Middleware`] trait, [`Next`], and chains composed at compile time.
//!
//! A chain is a type. `ServerBuilder::middleware` adds one layer at a time, the first added
//! outermost: `.middleware(a).middleware(b)` is the chain `(A, B)`, which wraps the dispatcher
//! as `A(B(dispatcher))`. Each layer calls the next through a generic [`Next`], so a call
//! through ten static layers is ordinary static dispatch the optimiser can inline — no
//! boxing per layer. A boxed middleware (`Arc<dyn DynMiddleware>`, `Box<dyn DynMiddleware>`,
//! [`from_fn`]) is one element of the same chain that calls through the vtable, and boxes.

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

/// A list of middleware known at compile time: `()`, `(A,)`, `(A, B)`, … up to 12, then
/// [`Then`] for each one more. Element 0 is outermost.
pub trait Chain: Send + Sync + 'static {
    /// The endpoint the chain builds around `inner`.
    type Wrapped<E: Endpoint>: Endpoint;
    /// Nests the layers around `inner`, element 0 outermost.
    fn wrap<E: Endpoint>(self, inner: E) -> Self::Wrapped<E>;
    /// The chain with `M` added innermost (inside every layer already in it): `(A,)` with
    /// `B` is `(A, B)`; a chain of 12 with `M` is `Then<(...), M>`.
    type With<M: Middleware>: Chain;
    /// Adds `m` innermost.
    fn with<M: Middleware>(self, m: M) -> Self::With<M>;
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
    type With<M: Middleware> = (M,);
    fn with<M: Middleware>(self, m: M) -> (M,) {
        (m,)
    }
    const LEN: usize = 0;
}

macro_rules! tuple_chain {
    // The 12-tuple: one more nests it in `Then`.
    ($head:ident $(, $tail:ident)*) => {
        tuple_chain!(@impl [full] $head $(, $tail)*);
        tuple_chain!(@rest $($tail),*);
    };
    (@rest $head:ident $(, $tail:ident)*) => {
        tuple_chain!(@impl [open] $head $(, $tail)*);
        tuple_chain!(@rest $($tail),*);
    };
    (@rest) => {};
    (@with [full] $($all:ident),+) => {
        type With<M: Middleware> = Then<Self, M>;
        fn with<M: Middleware>(self, m: M) -> Then<Self, M> {
            Then { chain: self, mw: m }
        }
    };
    (@with [open] $($all:ident),+) => {
        type With<M: Middleware> = ($($all,)+ M,);
        #[allow(non_snake_case)]
        fn with<M: Middleware>(self, m: M) -> Self::With<M> {
            let ($($all,)+) = self;
            ($($all,)+ m,)
        }
    };
    (@impl [$kind:ident] $head:ident $(, $tail:ident)*) => {
        impl<$head: Middleware, $($tail: Middleware),*> Chain for ($head, $($tail,)*) {
            type Wrapped<E: Endpoint> = Layered<$head, <($($tail,)*) as Chain>::Wrapped<E>>;
            #[allow(non_snake_case)]
            fn wrap<E: Endpoint>(self, inner: E) -> Self::Wrapped<E> {
                let ($head, $($tail,)*) = self;
                Layered { mw: $head, inner: ($($tail,)*).wrap(inner) }
            }
            tuple_chain!(@with [$kind] $head $(, $tail)*);
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
    };
}

tuple_chain!(M1, M2, M3, M4, M5, M6, M7, M8, M9, M10, M11, M12);

/// A chain `C` with `M` added innermost: what a chain of 12 becomes with each layer more.
/// `Then<C, M>` wraps an endpoint as `C` around `M` around it.
pub struct Then<C, M> {
    chain: C,
    mw: M,
}

impl<C: Chain, M: Middleware> Chain for Then<C, M> {
    type Wrapped<E: Endpoint> = C::Wrapped<Layered<M, E>>;
    fn wrap<E: Endpoint>(self, inner: E) -> Self::Wrapped<E> {
        self.chain.wrap(Layered::new(self.mw, inner))
    }
    type With<M2: Middleware> = Then<Self, M2>;
    fn with<M2: Middleware>(self, m: M2) -> Then<Self, M2> {
        Then { chain: self, mw: m }
    }
    const LEN: usize = C::LEN + 1;
    fn named(&self) -> Vec<Named> {
        let mut all = self.chain.named();
        all.extend(self.mw.named());
        all
    }
}

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

/// The object-safe form of [`Middleware`]: a middleware behind a box. Every [`Middleware`]
/// is one; `Arc<dyn DynMiddleware>` and `Box<dyn DynMiddleware>` are in turn a
/// [`Middleware`], so a layer chosen at run time goes to `ServerBuilder::middleware` like
/// any other, at the cost of a boxed future per call.
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

/// The rest of a static chain seen through a reference, so that it can be a
/// `dyn DynEndpoint` whatever its type (sized or not).
struct ByRef<'a, E: ?Sized>(&'a E);

impl<E: Endpoint + ?Sized> Endpoint for ByRef<'_, E> {
    fn call(&self, ctx: Context) -> impl Future<Output = HandlerResult> + Send + '_ {
        self.0.call(ctx)
    }
}

/// Runs the boxed `mw` with the rest of the chain, `next`, behind a `dyn DynEndpoint`.
async fn handle_boxed<E: Endpoint + ?Sized>(
    mw: &dyn DynMiddleware,
    ctx: Context,
    next: Next<'_, E>,
) -> HandlerResult {
    let rest = ByRef(next.inner);
    let rest: &(dyn DynEndpoint + '_) = &rest;
    mw.handle_dyn(ctx, Next::new(rest)).await
}

impl Middleware for Arc<dyn DynMiddleware> {
    fn handle<E: Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: Next<'_, E>,
    ) -> impl Future<Output = HandlerResult> + Send {
        handle_boxed(&**self, ctx, next)
    }

    fn named(&self) -> Vec<Named> {
        (**self).named_dyn()
    }
}

impl Middleware for Box<dyn DynMiddleware> {
    fn handle<E: Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: Next<'_, E>,
    ) -> impl Future<Output = HandlerResult> + Send {
        handle_boxed(&**self, ctx, next)
    }

    fn named(&self) -> Vec<Named> {
        (**self).named_dyn()
    }
}

/// A layer that may be absent: `None` passes every message on untouched, so a builder can
/// add a middleware chosen at run time without its type depending on the choice.
impl<M: Middleware> Middleware for Option<M> {
    fn handle<E: Endpoint + ?Sized>(
        &self,
        ctx: Context,
        next: Next<'_, E>,
    ) -> impl Future<Output = HandlerResult> + Send {
        match self {
            Some(m) => Either::Left(m.handle(ctx, next)),
            None => Either::Right(next.run(ctx)),
        }
    }

    fn named(&self) -> Vec<Named> {
        self.as_ref().map_or_else(Vec::new, Middleware::named)
    }
}

/// A middleware from an async closure that returns a boxed future:
/// `from_fn(|ctx, next| Box::pin(async move { next.run(ctx).await }))`. The rest of the
/// chain is reached through a `dyn DynEndpoint`, so each call boxes.
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

impl<F> Middleware for FnMiddleware<F>
where
    F: for<'a> Fn(Context, Next<'a, dyn DynEndpoint + 'a>) -> BoxFuture<'a, HandlerResult>
        + Send
        + Sync
        + 'static,
{
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        let rest = ByRef(next.inner);
        let rest: &(dyn DynEndpoint + '_) = &rest;
        (self.0)(ctx, Next::new(rest)).await
    }
}

/// The one dynamic slot: boxed layers, first outermost, around `inner`. Internal: a handler
/// table's own middleware ([`Declarations::middleware`](crate::Declarations::middleware))
/// given to a builder with `.handler(..)` goes here, inside the builder's chain.
#[doc(hidden)]
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A layer known by its number.
    struct L<const N: usize>;

    impl<const N: usize> Middleware for L<N> {
        fn handle<E: Endpoint + ?Sized>(
            &self,
            ctx: Context,
            next: Next<'_, E>,
        ) -> impl Future<Output = HandlerResult> + Send {
            next.run(ctx)
        }

        fn named(&self) -> Vec<Named> {
            vec![Named::tool("L", N.to_string())]
        }
    }

    struct Inner;

    impl Endpoint for Inner {
        async fn call(&self, _ctx: Context) -> HandlerResult {
            Ok(crate::common::error::Reply::None)
        }
    }

    type Twelve = (
        L<1>,
        L<2>,
        L<3>,
        L<4>,
        L<5>,
        L<6>,
        L<7>,
        L<8>,
        L<9>,
        L<10>,
        L<11>,
        L<12>,
    );

    /// `Layered<L<a>, Layered<L<b>, ... E>>`.
    macro_rules! nested {
        ($e:ty;) => { $e };
        ($e:ty; $n:literal $(, $rest:literal)*) => { Layered<L<$n>, nested!($e; $($rest),*)> };
    }

    #[test]
    fn each_layer_added_goes_inside_the_ones_before_past_twelve_too() {
        let chain =
            ().with(L::<1>)
                .with(L::<2>)
                .with(L::<3>)
                .with(L::<4>)
                .with(L::<5>)
                .with(L::<6>)
                .with(L::<7>)
                .with(L::<8>)
                .with(L::<9>)
                .with(L::<10>)
                .with(L::<11>)
                .with(L::<12>);
        // Up to 12 the chain is the tuple of the layers in the order added.
        let _: &Twelve = &chain;
        let chain = chain.with(L::<13>).with(L::<14>);
        assert_eq!(chain.named().len(), 14);
        let names: Vec<String> = chain.named().into_iter().map(|n| n.name).collect();
        let want: Vec<String> = (1..=14).map(|n| n.to_string()).collect();
        assert_eq!(names, want);
        assert_eq!(<Then<Then<(L<1>,), L<2>>, L<3>> as Chain>::LEN, 3);
        // The first added is outermost, the 14th next to the endpoint.
        let _: nested!(Inner; 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14) = chain.wrap(Inner);
    }

    #[test]
    fn boxed_and_optional_layers_are_elements_of_the_chain() {
        let boxed: Arc<dyn DynMiddleware> = Arc::new(L::<2>);
        let chain =
            ().with(L::<1>)
                .with(boxed)
                .with(Box::new(L::<3>) as Box<dyn DynMiddleware>)
                .with(None::<L<4>>)
                .with(Some(L::<5>));
        let names: Vec<String> = chain.named().into_iter().map(|n| n.name).collect();
        assert_eq!(names, ["1", "2", "3", "5"]);
        assert_eq!(<(L<1>, Option<L<4>>) as Chain>::LEN, 2);
    }
}
