//! [`Server`]: a built server, and the serving boundary.
//!
//! `Server<C, H>` is generic over the user's static chain `C` and handler table `H` only in
//! name: it holds an [`ErasedServer`], whose kernel reaches the composed endpoint through
//! one trait object ([`ErasedEndpoint`](super::kernel::ErasedEndpoint)). Every way of
//! serving (the byte-stream reader, stdio, the in-memory pipe, the HTTP transports) is a
//! method of `ErasedServer`, compiled once in this crate; `Server<C, H>`'s own methods only
//! hand over to it, so what a user's crate compiles of them is a call.

use std::marker::PhantomData;
use std::sync::Arc;

use tokio::io::{AsyncBufRead, AsyncWrite};
use tokio_util::sync::CancellationToken;

use crate::chain::middleware::{BoxFuture, Chain};
use crate::handler::{Registry, ServerHandler};
use crate::server::kernel::Kernel;

/// A built server: serve it over stdio, any byte stream, or an in-memory pair.
///
/// The type parameters name the static middleware chain and the handler table it was built
/// with; what serves it does not depend on them: the kernel, the stream reader and the HTTP
/// transports reach the chain through one trait object and are compiled once, in this crate.
pub struct Server<C: Chain = (), H: ServerHandler = Registry> {
    pub(crate) erased: ErasedServer,
    types: PhantomData<fn() -> (C, H)>,
}

/// What only the HTTP transport reads, built with the server and handed to it.
#[derive(Clone)]
#[cfg_attr(not(feature = "http"), allow(dead_code))]
pub(crate) struct HttpInputs {
    /// The `inputSchema` of each tool whose schema carries `x-mcp-header` annotations, for
    /// the 2026 HTTP header checks (`Mcp-Param-*`); kept in step with dynamic registration.
    pub(crate) header_schemas: Arc<crate::handler::cell::HeaderSchemas>,
    /// Change notifications for legacy sessions the transport takes over from a session
    /// store; `None` when subscriptions are off.
    pub(crate) legacy: Option<Arc<crate::features::subscriptions::LegacyFeed>>,
}

/// A built server without its types: everything the transports serve.
#[derive(Clone)]
pub(crate) struct ErasedServer {
    pub(crate) kernel: Kernel,
    #[cfg_attr(not(feature = "http"), allow(dead_code))]
    pub(crate) http: HttpInputs,
    pub(crate) handle: crate::features::handle::ServerHandle,
    pub(crate) tasks: Option<Arc<crate::features::tasks::TaskEngine>>,
}

/// A reader of any type, as the byte-stream reader takes it when the type is the caller's.
type AnyReader<'a> = Box<dyn AsyncBufRead + Unpin + Send + 'a>;
/// A writer of any type, likewise.
type AnyWriter = Box<dyn AsyncWrite + Unpin + Send>;

// Each way of serving returns its future boxed: a future polled only by the user's code
// would be compiled there (an `async fn`'s body is generated where it is polled, unless this
// crate polls it too), where a box made here is polled through a vtable built here. One box
// per connection, not per message.
impl ErasedServer {
    /// Serves one connection over a reader and a writer of the caller's types, behind one
    /// box each (a dynamic call per read or write, not per message).
    pub(crate) fn serve_any<'a>(
        &'a self,
        reader: AnyReader<'a>,
        writer: AnyWriter,
        stop: CancellationToken,
    ) -> BoxFuture<'a, std::io::Result<()>> {
        Box::pin(
            self.kernel
                .serve(reader, writer, stop, CancellationToken::new()),
        )
    }

    /// See [`Server::serve_stdio`].
    pub(crate) fn serve_stdio(&self) -> BoxFuture<'_, std::io::Result<()>> {
        Box::pin(async move {
            use tokio::runtime::{Handle, RuntimeFlavor};
            if Handle::current().runtime_flavor() != RuntimeFlavor::MultiThread {
                return self.stdio_loop().await;
            }
            // On a multi-thread runtime the loop runs on a worker, beside the tasks it
            // spawns and the writer it wakes: awaited where `#[tokio::main]` blocks on it
            // (the main thread, no worker), every request that waits and every answer
            // would cross threads. The task ends with this future.
            struct AbortOnDrop(tokio::task::JoinHandle<std::io::Result<()>>);
            impl Drop for AbortOnDrop {
                fn drop(&mut self) {
                    self.0.abort();
                }
            }
            let this = self.clone();
            let mut task = AbortOnDrop(tokio::spawn(async move { this.stdio_loop().await }));
            match (&mut task.0).await {
                Ok(r) => r,
                Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
                Err(e) => Err(std::io::Error::other(e)),
            }
        })
    }

    /// The stdio serving loop, in the task that polls it.
    async fn stdio_loop(&self) -> std::io::Result<()> {
        let stop = CancellationToken::new();
        crate::server::stdio::stop_on_signals(stop.clone());
        #[cfg(target_os = "linux")]
        if let Some((reader, writer)) = crate::server::stdio::pipes() {
            let reader = tokio::io::BufReader::with_capacity(64 * 1024, reader);
            let gone = CancellationToken::new();
            crate::server::stdio::watch_stdout_closed(gone.clone());
            let r = self.kernel.serve(reader, writer, stop, gone.clone()).await;
            // Ends the watcher (and its hold on stdout).
            gone.cancel();
            return r;
        }
        let reader =
            tokio::io::BufReader::with_capacity(64 * 1024, crate::server::stdio::Stdin::new());
        self.kernel
            .serve(reader, tokio::io::stdout(), stop, CancellationToken::new())
            .await
    }

    /// See [`Server::serve_in_memory`].
    pub(crate) fn serve_in_memory(&self) -> tokio::io::DuplexStream {
        let (client, server) = tokio::io::duplex(1 << 20);
        let this = self.clone();
        tokio::spawn(async move {
            let (r, w) = tokio::io::split(server);
            let r = tokio::io::BufReader::new(r);
            let stop = CancellationToken::new();
            if let Err(e) = this
                .kernel
                .serve(r, w, stop, CancellationToken::new())
                .await
            {
                tracing::debug!(error = %e, "in-memory connection ended with an error");
            }
        });
        client
    }
}

impl<C: Chain, H: ServerHandler> Server<C, H> {
    /// Wraps what `ServerBuilder::try_build` built.
    pub(crate) fn from_erased(erased: ErasedServer) -> Self {
        Self {
            erased,
            types: PhantomData,
        }
    }
}

impl<C: Chain, H: ServerHandler> Clone for Server<C, H> {
    fn clone(&self) -> Self {
        Self::from_erased(self.erased.clone())
    }
}

impl<C: Chain, H: ServerHandler> Server<C, H> {
    /// The handle for dynamic registration and change notifications while serving.
    pub fn handle(&self) -> crate::features::handle::ServerHandle {
        self.erased.handle.clone()
    }

    /// The task engine, when the server runs tasks (to reach its store, or to attach a
    /// notifier after building).
    pub fn task_engine(&self) -> Option<&Arc<crate::features::tasks::TaskEngine>> {
        self.erased.tasks.as_ref()
    }

    /// Serves one connection over a reader and a writer until EOF.
    pub async fn serve<R, W>(&self, reader: R, writer: W) -> std::io::Result<()>
    where
        R: tokio::io::AsyncRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        let reader = Box::new(tokio::io::BufReader::new(reader));
        self.erased
            .serve_any(reader, Box::new(writer), CancellationToken::new())
            .await
    }

    /// Serves one connection; `stop` ends reading early (then in-flight work drains).
    pub async fn serve_buffered<R, W>(
        &self,
        reader: R,
        writer: W,
        stop: CancellationToken,
    ) -> std::io::Result<()>
    where
        R: AsyncBufRead + Unpin + Send,
        W: AsyncWrite + Unpin + Send + 'static,
    {
        self.erased
            .serve_any(Box::new(reader), Box::new(writer), stop)
            .await
    }

    /// Serves stdin/stdout until stdin closes or SIGTERM/SIGINT arrives, then lets
    /// in-flight requests finish within the grace period and flushes.
    ///
    /// A client that vanishes (closes stdout's pipe) ends the server at once, with no grace
    /// and no error: nobody is left to answer.
    pub async fn serve_stdio(&self) -> std::io::Result<()> {
        self.erased.serve_stdio().await
    }

    /// Starts the server on one end of an in-memory pipe and returns the other end, for
    /// tests and in-process clients.
    pub fn serve_in_memory(&self) -> tokio::io::DuplexStream
    where
        C: 'static,
    {
        self.erased.serve_in_memory()
    }
}
