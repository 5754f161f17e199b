//! [`LoopbackHttp`]: a server served over HTTP on a free loopback port for as long as the
//! value lives — what a test of the HTTP transports starts (ours and users' alike).

use std::net::SocketAddr;

use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::HttpOptions;
use crate::chain::middleware::Chain;
use crate::handler::ServerHandler;
use crate::server::Server;

/// A [`Server`] serving HTTP on `127.0.0.1` at a port the system chose, on a task of the
/// current runtime: Streamable HTTP at [`HttpOptions::path`], and the 2024-11-05 HTTP+SSE
/// transport where [`HttpOptions::legacy_sse`] says. Dropping it starts the graceful
/// shutdown in the background (no new connection is accepted, open streams end);
/// [`stop`](Self::stop) does the same and waits until it is over.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> std::io::Result<()> {
/// use mcp_runtime::Server;
/// use mcp_runtime::transport::http::{HttpOptions, LoopbackHttp};
///
/// let http = LoopbackHttp::start(&Server::builder("demo", "1.0.0").build(), HttpOptions::default()).await?;
/// assert!(http.url().starts_with("http://127.0.0.1:") && http.url().ends_with("/mcp"));
/// http.stop().await
/// # }
/// ```
#[derive(Debug)]
pub struct LoopbackHttp {
    addr: SocketAddr,
    path: String,
    stop: CancellationToken,
    task: Option<JoinHandle<std::io::Result<()>>>,
}

impl LoopbackHttp {
    /// Binds a free loopback port and serves `server` there with `opts`.
    pub async fn start<C, H>(server: &Server<C, H>, opts: HttpOptions) -> std::io::Result<Self>
    where
        C: Chain + 'static,
        H: ServerHandler + 'static,
    {
        let listener = tokio::net::TcpListener::bind(("127.0.0.1", 0)).await?;
        let addr = listener.local_addr()?;
        let path = opts.path.clone();
        let stop = CancellationToken::new();
        let (server, until) = (server.clone(), stop.clone());
        let task = tokio::spawn(async move { server.serve_http_on(listener, opts, until).await });
        Ok(Self {
            addr,
            path,
            stop,
            task: Some(task),
        })
    }

    /// The address served.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The Streamable HTTP endpoint: `http://127.0.0.1:<port><path>`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.addr, self.path)
    }

    /// Shuts the server down gracefully (as `serve_http_on` does when its token fires) and
    /// waits until it has; its error, if serving failed.
    pub async fn stop(mut self) -> std::io::Result<()> {
        self.stop.cancel();
        match self.task.take() {
            Some(task) => task.await.map_err(std::io::Error::other)?,
            None => Ok(()),
        }
    }
}

impl Drop for LoopbackHttp {
    fn drop(&mut self) {
        self.stop.cancel();
    }
}
