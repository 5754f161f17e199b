//! What the server's tracing layer and the client's spans share of the OpenTelemetry MCP
//! semantic conventions (`docs/gen-ai/mcp.md` of open-telemetry/semantic-conventions): the
//! span name `{mcp.method.name} {target}`, the target read from the params, the
//! `network.transport` values, the `isError` probe, and — with the `otel` feature — the
//! four duration histograms.

/// `network.transport` of a connection: `pipe` for stdio and other byte streams (the
/// in-memory pipe too), `tcp` for HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NetworkTransport {
    /// stdio, a child process's pipes, an in-memory pipe, any byte stream.
    #[default]
    Pipe,
    /// Streamable HTTP and HTTP+SSE.
    Tcp,
}

impl NetworkTransport {
    /// The attribute value.
    pub fn as_str(self) -> &'static str {
        match self {
            NetworkTransport::Pipe => "pipe",
            NetworkTransport::Tcp => "tcp",
        }
    }

    /// `network.protocol.name` (`http` over TCP; none on a pipe).
    pub fn protocol_name(self) -> Option<&'static str> {
        match self {
            NetworkTransport::Pipe => None,
            NetworkTransport::Tcp => Some("http"),
        }
    }

    /// `network.protocol.version` (HTTP/1.1 is the one version both sides speak).
    pub fn protocol_version(self) -> Option<&'static str> {
        self.protocol_name().map(|_| "1.1")
    }
}

/// What a request names in its params that the conventions record: the tool or prompt
/// name (`gen_ai.tool.name`, `gen_ai.prompt.name`, the span name's target) and the
/// resource URI (`mcp.resource.uri`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Target {
    /// `params.name` of `tools/call` and `prompts/get`.
    pub name: Option<String>,
    /// `params.uri` of `resources/read`, `resources/subscribe`, `resources/unsubscribe`
    /// and `notifications/resources/updated`.
    pub uri: Option<String>,
}

impl Target {
    /// Reads the target of `method` from its params (nothing is parsed for the methods
    /// that have none).
    pub fn of(method: &str, params: Option<&str>) -> Self {
        #[derive(serde::Deserialize)]
        struct Named {
            name: Option<String>,
        }
        #[derive(serde::Deserialize)]
        struct Uri {
            uri: Option<String>,
        }
        let Some(p) = params else {
            return Self::default();
        };
        match method {
            "tools/call" | "prompts/get" => Self {
                name: serde_json::from_str::<Named>(p).ok().and_then(|n| n.name),
                uri: None,
            },
            "resources/read"
            | "resources/subscribe"
            | "resources/unsubscribe"
            | "notifications/resources/updated" => Self {
                name: None,
                uri: serde_json::from_str::<Uri>(p).ok().and_then(|u| u.uri),
            },
            _ => Self::default(),
        }
    }

    /// `gen_ai.tool.name`.
    pub fn tool<'a>(&'a self, method: &str) -> Option<&'a str> {
        (method == "tools/call")
            .then_some(self.name.as_deref())
            .flatten()
    }

    /// `gen_ai.prompt.name`.
    pub fn prompt<'a>(&'a self, method: &str) -> Option<&'a str> {
        (method == "prompts/get")
            .then_some(self.name.as_deref())
            .flatten()
    }
}

/// `gen_ai.operation.name`: `execute_tool` for `tools/call`, and not set otherwise.
pub fn operation_name(method: &str) -> Option<&'static str> {
    (method == "tools/call").then_some("execute_tool")
}

/// `{mcp.method.name} {target}`, or the method alone when there is no low-cardinality
/// target (the resource URI is not one).
pub fn span_name(method: &str, target: Option<&str>) -> String {
    match target {
        Some(t) => format!("{method} {t}"),
        None => method.to_owned(),
    }
}

/// `error.type` of a tool result with `isError: true`.
pub const TOOL_ERROR: &str = "tool_error";

/// Whether a result is a tool result with `isError: true` (read from the member, not
/// from a text that happens to contain the words).
pub fn is_error_result(json: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Probe {
        #[serde(rename = "isError", default)]
        is_error: bool,
    }
    // Cheap pre-check: most results carry no `isError` at all (a vectorized search: the
    // result may hold a large text).
    static IS_ERROR: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
        std::sync::LazyLock::new(|| memchr::memmem::Finder::new(b"\"isError\""));
    IS_ERROR.find(json.as_bytes()).is_some()
        && serde_json::from_str::<Probe>(json).is_ok_and(|p| p.is_error)
}

#[cfg(feature = "otel")]
pub mod metrics {
    //! The four histograms of the conventions, in seconds with the explicit bucket
    //! boundaries the conventions give, made once from the global meter provider
    //! (`opentelemetry::global::set_meter_provider`, which must be installed before the
    //! first message: instruments made from the no-op provider stay no-op).

    use std::sync::OnceLock;

    use opentelemetry::KeyValue;
    use opentelemetry::metrics::Histogram;

    /// The instrumentation scope the instruments are made under.
    pub const SCOPE: &str = "mcp-framework";

    /// `[0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300]`: the explicit
    /// bucket boundaries of all four histograms.
    pub const BUCKETS: [f64; 14] = [
        0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
    ];

    /// `mcp.server.operation.duration`.
    pub const SERVER_OPERATION: &str = "mcp.server.operation.duration";
    /// `mcp.server.session.duration`.
    pub const SERVER_SESSION: &str = "mcp.server.session.duration";
    /// `mcp.client.operation.duration`.
    pub const CLIENT_OPERATION: &str = "mcp.client.operation.duration";
    /// `mcp.client.session.duration`.
    pub const CLIENT_SESSION: &str = "mcp.client.session.duration";

    /// The four instruments.
    pub struct Instruments {
        /// `mcp.server.operation.duration`.
        pub server_operation: Histogram<f64>,
        /// `mcp.server.session.duration`.
        pub server_session: Histogram<f64>,
        /// `mcp.client.operation.duration`.
        pub client_operation: Histogram<f64>,
        /// `mcp.client.session.duration`.
        pub client_session: Histogram<f64>,
    }

    /// The instruments, made on first use.
    pub fn instruments() -> &'static Instruments {
        static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
        INSTRUMENTS.get_or_init(|| {
            let meter = opentelemetry::global::meter(SCOPE);
            let histogram = |name: &'static str, description: &'static str| {
                meter
                    .f64_histogram(name)
                    .with_unit("s")
                    .with_description(description)
                    .with_boundaries(BUCKETS.to_vec())
                    .build()
            };
            Instruments {
                server_operation: histogram(
                    SERVER_OPERATION,
                    "MCP request or notification duration as observed on the receiver",
                ),
                server_session: histogram(
                    SERVER_SESSION,
                    "The duration of the MCP session as observed on the MCP server",
                ),
                client_operation: histogram(
                    CLIENT_OPERATION,
                    "The duration of the MCP request or notification as observed on the sender",
                ),
                client_session: histogram(
                    CLIENT_SESSION,
                    "The duration of the MCP session as observed on the MCP client",
                ),
            }
        })
    }

    /// Records a session's duration in `histogram` (one of the two session histograms).
    pub fn session_ended(
        histogram: &Histogram<f64>,
        started: std::time::Instant,
        version: Option<&str>,
        transport: super::NetworkTransport,
        error_type: Option<&str>,
    ) {
        let attributes = Attributes::default()
            .opt("error.type", error_type)
            .opt("mcp.protocol.version", version)
            .set("network.transport", transport.as_str())
            .opt("network.protocol.name", transport.protocol_name())
            .opt("network.protocol.version", transport.protocol_version());
        histogram.record(started.elapsed().as_secs_f64(), &attributes.0);
    }

    /// Attributes, each only when it has a value.
    #[derive(Default)]
    pub struct Attributes(pub Vec<KeyValue>);

    impl Attributes {
        /// Adds `key` when `value` is there.
        pub fn opt(mut self, key: &'static str, value: Option<&str>) -> Self {
            if let Some(v) = value {
                self.0.push(KeyValue::new(key, v.to_owned()));
            }
            self
        }

        /// Adds `key`.
        pub fn set(self, key: &'static str, value: &str) -> Self {
            self.opt(key, Some(value))
        }

        /// Adds an integer `key` when `value` is there.
        pub fn int(mut self, key: &'static str, value: Option<i64>) -> Self {
            if let Some(v) = value {
                self.0.push(KeyValue::new(key, v));
            }
            self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn is_error_is_read_from_the_member_not_the_text() {
        let text = format!("{}\\\"isError\\\":true", "x".repeat(70_000));
        let result =
            |tail: &str| format!(r#"{{"content":[{{"type":"text","text":"{text}"}}]{tail}}}"#);
        assert!(!is_error_result(&result("")));
        assert!(!is_error_result(&result(r#","isError":false"#)));
        assert!(is_error_result(&result(r#","isError":true"#)));
    }

    #[test]
    fn targets_per_method() {
        let t = Target::of("tools/call", Some(r#"{"name":"add","arguments":{}}"#));
        assert_eq!(t.tool("tools/call"), Some("add"));
        assert_eq!(t.prompt("tools/call"), None);
        let t = Target::of("prompts/get", Some(r#"{"name":"greet"}"#));
        assert_eq!(t.prompt("prompts/get"), Some("greet"));
        let t = Target::of("resources/read", Some(r#"{"uri":"file:///a"}"#));
        assert_eq!(t.uri.as_deref(), Some("file:///a"));
        assert_eq!(t.name, None);
        assert_eq!(Target::of("tools/list", Some("{}")), Target::default());
        assert_eq!(span_name("tools/call", Some("add")), "tools/call add");
        assert_eq!(span_name("ping", None), "ping");
        assert_eq!(operation_name("tools/call"), Some("execute_tool"));
        assert_eq!(operation_name("prompts/get"), None);
    }
}
