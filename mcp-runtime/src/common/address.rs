//! [`ClientAddress`]: where a request came from over the network.

use std::net::{IpAddr, SocketAddr};

/// Where a request came from over the network, as a typed extension of its context
/// (`ctx.extensions().get::<ClientAddress>()`), set by the HTTP transport when it knows the
/// connection's peer ([`Server::serve_http`](crate::Server::serve_http) and `serve_http_on`
/// always do; an `http_router` served with axum's
/// `into_make_service_with_connect_info::<SocketAddr>()` does too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientAddress {
    /// The client's end of the TCP connection: a reverse proxy's, behind one.
    pub peer: SocketAddr,
    /// The addresses of the `X-Forwarded-For` headers, in order (the client first, as each
    /// proxy appends the address it was reached from). Anyone can send the header: trust
    /// only the entries that proxies you know added ([`behind`](Self::behind)).
    pub forwarded_for: Vec<IpAddr>,
}

impl ClientAddress {
    /// The client's IP address, seen through the reverse proxies `trusted`: when the
    /// connection comes from one of them, the last `X-Forwarded-For` address that is not
    /// itself one of them; else the connection's own.
    ///
    /// ```
    /// use mcp_runtime::ClientAddress;
    ///
    /// let nginx = "10.0.0.5".parse().unwrap();
    /// let a = ClientAddress {
    ///     peer: "10.0.0.5:41234".parse().unwrap(),
    ///     forwarded_for: vec!["6.6.6.6".parse().unwrap(), "203.0.113.7".parse().unwrap()],
    /// };
    /// // nginx appended 203.0.113.7; the first entry came from the client and proves nothing.
    /// assert_eq!(a.behind(&[nginx]).to_string(), "203.0.113.7");
    /// // Not through a trusted proxy: the header is ignored.
    /// assert_eq!(a.behind(&[]).to_string(), "10.0.0.5");
    /// ```
    pub fn behind(&self, trusted: &[IpAddr]) -> IpAddr {
        let peer = self.peer.ip();
        if !trusted.contains(&peer) {
            return peer;
        }
        let outside = self
            .forwarded_for
            .iter()
            .rev()
            .find(|a| !trusted.contains(a));
        outside.copied().unwrap_or(peer)
    }
}
