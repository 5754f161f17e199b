//! [`Metrics`]: what operators scrape — the requests a server answered, its errors and their
//! latency, per method and tool, rendered in Prometheus' text exposition format.
//!
//! A middleware like any other: put it outermost to count what clients sent (refusals of
//! inner layers included), innermost to time the handlers alone. The OpenTelemetry
//! conventions (`otel` feature, `telemetry::metrics`) are the other way to export the
//! same facts; this one needs no collector and no feature.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::middleware::{Endpoint, Middleware, Next};
use super::policies::call::tool_name;
use crate::common::error::{HandlerResult, Reply};
use crate::context::Context;

/// The latency buckets' upper bounds, in seconds: a millisecond to ten seconds.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

/// At most this many series (method, tool, label) are kept; the ones after it count under
/// `tool="_other"`. Clients choose the names they call, so without a bound a client
/// sending made-up tool names would grow the scrape without end.
const MAX_SERIES: usize = 1024;

/// Counts, errors and latency of the requests a server answers, per method (`tools/call`,
/// `resources/read`, …), tool and an optional label of yours; [`render`](Self::render)
/// gives them in Prometheus' text format (the HTTP transport serves it at `/metrics` with
/// [`HttpOptions::operator`](crate::transport::http::HttpOptions::operator)).
///
/// An error is a JSON-RPC error or a `tools/call` result with `isError: true`.
/// Notifications are not counted. Cloning shares the counts.
///
/// ```
/// use mcp_runtime::metrics::Metrics;
///
/// // Which upstream a gateway's tool comes from: the part of its name before `_`.
/// let metrics = Metrics::new().label("upstream", |_ctx, tool| {
///     tool?.split_once('_').map(|(ns, _)| ns.to_owned())
/// });
/// assert!(metrics.render().contains("# TYPE mcp_requests_total counter"));
/// ```
#[derive(Clone)]
pub struct Metrics(Arc<Inner>);

/// A label computed from each request and the tool it calls.
type LabelFn = dyn Fn(&Context, Option<&str>) -> Option<String> + Send + Sync;

/// Lines a gauge adds at each scrape: each labels and a value.
type GaugeFn = dyn Fn() -> Vec<(Vec<(String, String)>, f64)> + Send + Sync;

struct Inner {
    series: Mutex<HashMap<Key, Series>>,
    label: Option<(String, Box<LabelFn>)>,
    gauges: Vec<Gauge>,
}

struct Gauge {
    name: String,
    help: String,
    read: Box<GaugeFn>,
}

/// One series: a method, a tool (`tools/call` only) and the label of yours.
#[derive(Clone, PartialEq, Eq, Hash)]
struct Key {
    method: String,
    tool: Option<String>,
    label: Option<String>,
}

#[derive(Default)]
struct Series {
    requests: u64,
    errors: u64,
    /// Per bucket of [`BUCKETS`], the requests at most that long (not cumulative here).
    buckets: [u64; BUCKETS.len()],
    seconds: f64,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Counts nothing yet.
    pub fn new() -> Self {
        Metrics(Arc::new(Inner {
            series: Mutex::new(HashMap::new()),
            label: None,
            gauges: Vec::new(),
        }))
    }

    /// One more label on every series, named `name`, its value `f` of each request and the
    /// tool it calls (an empty value when `f` says nothing). Its values should be few (an
    /// upstream, a tenant), not one per caller.
    pub fn label(
        self,
        name: impl Into<String>,
        f: impl Fn(&Context, Option<&str>) -> Option<String> + Send + Sync + 'static,
    ) -> Self {
        self.edit(|inner| inner.label = Some((name.into(), Box::new(f))))
    }

    /// A gauge read at each scrape: `read` gives each series' labels and value (a
    /// gateway's upstreams up or down, say).
    pub fn gauge(
        self,
        name: impl Into<String>,
        help: impl Into<String>,
        read: impl Fn() -> Vec<(Vec<(String, String)>, f64)> + Send + Sync + 'static,
    ) -> Self {
        let gauge = Gauge {
            name: name.into(),
            help: help.into(),
            read: Box::new(read),
        };
        self.edit(|inner| inner.gauges.push(gauge))
    }

    /// Configuration happens before the handle is shared (cloned into a server, say): its
    /// functions are boxed, so a shared one cannot be copied to be changed.
    fn edit(mut self, f: impl FnOnce(&mut Inner)) -> Self {
        let inner = Arc::get_mut(&mut self.0)
            .expect("Metrics: configure it (label, gauge) before cloning it");
        f(inner);
        self
    }

    fn record(&self, key: Key, took: Duration, error: bool) {
        let mut series = self.0.series.lock().expect("metrics lock");
        let key = if series.len() >= MAX_SERIES && !series.contains_key(&key) {
            Key {
                tool: key.tool.map(|_| "_other".to_owned()),
                method: if key.method.starts_with("tools/") {
                    key.method
                } else {
                    "_other".to_owned()
                },
                label: key.label,
            }
        } else {
            key
        };
        let s = series.entry(key).or_default();
        s.requests += 1;
        s.errors += u64::from(error);
        let secs = took.as_secs_f64();
        s.seconds += secs;
        if let Some(i) = BUCKETS.iter().position(|b| secs <= *b) {
            s.buckets[i] += 1;
        }
    }

    /// Everything counted so far, in Prometheus' text exposition format (version 0.0.4:
    /// serve it as `text/plain; version=0.0.4`).
    pub fn render(&self) -> String {
        let mut out = String::new();
        let label_name = self.0.label.as_ref().map(|(n, _)| n.as_str());
        let mut series: Vec<(Key, Series)> = {
            let map = self.0.series.lock().expect("metrics lock");
            map.iter()
                .map(|(k, s)| {
                    let copy = Series {
                        requests: s.requests,
                        errors: s.errors,
                        buckets: s.buckets,
                        seconds: s.seconds,
                    };
                    (k.clone(), copy)
                })
                .collect()
        };
        series.sort_by(|a, b| {
            (&a.0.method, &a.0.tool, &a.0.label).cmp(&(&b.0.method, &b.0.tool, &b.0.label))
        });
        let labels = |k: &Key, extra: Option<(&str, &str)>| {
            let mut l = format!("method=\"{}\"", escape(&k.method));
            if let Some(t) = &k.tool {
                let _ = write!(l, ",tool=\"{}\"", escape(t));
            }
            if let Some(name) = label_name {
                let v = k.label.as_deref().unwrap_or("");
                let _ = write!(l, ",{name}=\"{}\"", escape(v));
            }
            if let Some((n, v)) = extra {
                let _ = write!(l, ",{n}=\"{v}\"");
            }
            l
        };
        out.push_str("# HELP mcp_requests_total Requests answered, by method and tool.\n");
        out.push_str("# TYPE mcp_requests_total counter\n");
        for (k, s) in &series {
            let _ = writeln!(
                out,
                "mcp_requests_total{{{}}} {}",
                labels(k, None),
                s.requests
            );
        }
        out.push_str("# HELP mcp_request_errors_total Requests answered with a JSON-RPC error or an isError tool result.\n");
        out.push_str("# TYPE mcp_request_errors_total counter\n");
        for (k, s) in &series {
            let _ = writeln!(
                out,
                "mcp_request_errors_total{{{}}} {}",
                labels(k, None),
                s.errors
            );
        }
        out.push_str("# HELP mcp_request_duration_seconds Time from a request's arrival at this layer to its answer.\n");
        out.push_str("# TYPE mcp_request_duration_seconds histogram\n");
        for (k, s) in &series {
            let mut cumulative = 0;
            for (bound, n) in BUCKETS.iter().zip(s.buckets) {
                cumulative += n;
                let le = bound.to_string();
                let l = labels(k, Some(("le", &le)));
                let _ = writeln!(
                    out,
                    "mcp_request_duration_seconds_bucket{{{l}}} {cumulative}"
                );
            }
            let l = labels(k, Some(("le", "+Inf")));
            let _ = writeln!(
                out,
                "mcp_request_duration_seconds_bucket{{{l}}} {}",
                s.requests
            );
            let l = labels(k, None);
            let _ = writeln!(out, "mcp_request_duration_seconds_sum{{{l}}} {}", s.seconds);
            let _ = writeln!(
                out,
                "mcp_request_duration_seconds_count{{{l}}} {}",
                s.requests
            );
        }
        for g in &self.0.gauges {
            let _ = writeln!(out, "# HELP {} {}", g.name, g.help.replace('\n', " "));
            let _ = writeln!(out, "# TYPE {} gauge", g.name);
            for (labels, value) in (g.read)() {
                let l: Vec<String> = (labels.iter())
                    .map(|(n, v)| format!("{n}=\"{}\"", escape(v)))
                    .collect();
                let _ = writeln!(out, "{}{{{}}} {value}", g.name, l.join(","));
            }
        }
        out
    }
}

/// A label value as the text format wants it: backslash, quote and newline escaped.
fn escape(v: &str) -> String {
    v.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

/// Whether a `tools/call` result says `isError: true`, read without decoding the result
/// unless the text holds the key at all.
fn is_error_result(raw: &serde_json::value::RawValue) -> bool {
    #[derive(serde::Deserialize)]
    struct Flag {
        #[serde(rename = "isError", default)]
        is_error: bool,
    }
    raw.get().contains("\"isError\"")
        && serde_json::from_str::<Flag>(raw.get()).is_ok_and(|f| f.is_error)
}

impl Middleware for Metrics {
    async fn handle<E: Endpoint + ?Sized>(&self, ctx: Context, next: Next<'_, E>) -> HandlerResult {
        if ctx.is_notification() {
            return next.run(ctx).await;
        }
        let tool = tool_name(&ctx);
        let label = (self.0.label.as_ref()).and_then(|(_, f)| f(&ctx, tool.as_deref()));
        let key = Key {
            method: ctx.method().to_owned(),
            tool,
            label,
        };
        let started = Instant::now();
        let out = next.run(ctx).await;
        let error = match &out {
            Err(_) => true,
            Ok(Reply::Result(raw)) => key.method == "tools/call" && is_error_result(raw),
            Ok(Reply::None) => false,
        };
        self.record(key, started.elapsed(), error);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_format_counts_each_series_with_cumulative_buckets() {
        let m = Metrics::new();
        let call = |tool: &str| Key {
            method: "tools/call".into(),
            tool: Some(tool.into()),
            label: None,
        };
        m.record(call("add"), Duration::from_millis(3), false);
        m.record(call("add"), Duration::from_millis(30), true);
        m.record(call("a\"b"), Duration::from_secs(20), false);
        let text = m.render();
        assert!(
            text.contains("mcp_requests_total{method=\"tools/call\",tool=\"add\"} 2\n"),
            "{text}"
        );
        assert!(
            text.contains("mcp_request_errors_total{method=\"tools/call\",tool=\"add\"} 1\n"),
            "{text}"
        );
        // 3 ms is in the 5 ms bucket and every one above; 30 ms from 50 ms on.
        assert!(text.contains("mcp_request_duration_seconds_bucket{method=\"tools/call\",tool=\"add\",le=\"0.0025\"} 0\n"), "{text}");
        assert!(text.contains("mcp_request_duration_seconds_bucket{method=\"tools/call\",tool=\"add\",le=\"0.005\"} 1\n"), "{text}");
        assert!(text.contains("mcp_request_duration_seconds_bucket{method=\"tools/call\",tool=\"add\",le=\"0.05\"} 2\n"), "{text}");
        assert!(
            text.contains(
                "mcp_request_duration_seconds_count{method=\"tools/call\",tool=\"add\"} 2\n"
            ),
            "{text}"
        );
        // Longer than the last bucket: only in +Inf. A quote in a name is escaped.
        assert!(text.contains("mcp_request_duration_seconds_bucket{method=\"tools/call\",tool=\"a\\\"b\",le=\"10\"} 0\n"), "{text}");
        assert!(text.contains("mcp_request_duration_seconds_bucket{method=\"tools/call\",tool=\"a\\\"b\",le=\"+Inf\"} 1\n"), "{text}");
    }

    #[test]
    fn made_up_names_past_the_bound_share_one_series() {
        let m = Metrics::new();
        for i in 0..MAX_SERIES + 50 {
            let key = Key {
                method: "tools/call".into(),
                tool: Some(format!("t{i}")),
                label: None,
            };
            m.record(key, Duration::from_millis(1), true);
        }
        let series = m.0.series.lock().unwrap();
        assert_eq!(series.len(), MAX_SERIES + 1);
        let other = Key {
            method: "tools/call".into(),
            tool: Some("_other".into()),
            label: None,
        };
        assert_eq!(series[&other].requests, 50);
    }

    #[test]
    fn gauges_are_read_at_each_scrape() {
        let up = Arc::new(std::sync::atomic::AtomicBool::new(true));
        let seen = up.clone();
        let m = Metrics::new().gauge(
            "mcp_upstream_up",
            "1 when the upstream answers.",
            move || {
                let v = if seen.load(std::sync::atomic::Ordering::SeqCst) {
                    1.0
                } else {
                    0.0
                };
                vec![(vec![("upstream".to_owned(), "py".to_owned())], v)]
            },
        );
        assert!(m.render().contains("mcp_upstream_up{upstream=\"py\"} 1\n"));
        up.store(false, std::sync::atomic::Ordering::SeqCst);
        assert!(m.render().contains("mcp_upstream_up{upstream=\"py\"} 0\n"));
    }

    #[test]
    fn only_a_top_level_is_error_true_is_an_error() {
        let raw = |s: &str| serde_json::value::RawValue::from_string(s.to_owned()).unwrap();
        assert!(is_error_result(&raw(r#"{"content":[],"isError":true}"#)));
        assert!(!is_error_result(&raw(r#"{"content":[],"isError":false}"#)));
        assert!(!is_error_result(&raw(
            r#"{"content":[{"type":"text","text":"\"isError\": true"}]}"#
        )));
        assert!(!is_error_result(&raw(
            r#"{"structuredContent":{"isError":true}}"#
        )));
    }
}
