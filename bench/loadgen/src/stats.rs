//! Latency percentiles and the one-line JSON report.

use std::time::Duration;

/// Latency samples in nanoseconds.
#[derive(Default)]
pub struct Samples(pub Vec<u64>);

impl Samples {
    /// The q-quantile (0..=1) in microseconds, nearest rank.
    pub fn quantile_us(&mut self, q: f64) -> f64 {
        if self.0.is_empty() {
            return f64::NAN;
        }
        self.0.sort_unstable();
        let rank = ((q * self.0.len() as f64).ceil() as usize).clamp(1, self.0.len());
        self.0[rank - 1] as f64 / 1000.0
    }
}

/// What one throughput run measured.
pub struct RunReport {
    pub calls: u64,
    /// Every correct answer, warm-up included (to relate a profile's totals to calls).
    pub answered: u64,
    pub elapsed: Duration,
    pub samples: Samples,
    pub peak_rss_kib: Option<u64>,
    pub server_cpu_secs: Option<f64>,
    pub errors: u64,
    pub first_error: Option<String>,
}

impl RunReport {
    /// The report as one JSON object.
    pub fn to_json(mut self) -> serde_json::Value {
        let secs = self.elapsed.as_secs_f64();
        let cpu_us = self
            .server_cpu_secs
            .map(|c| c * 1e6 / self.calls.max(1) as f64);
        serde_json::json!({
            "calls": self.calls,
            "answered": self.answered,
            "secs": secs,
            "calls_per_s": self.calls as f64 / secs,
            "p50_us": self.samples.quantile_us(0.50),
            "p90_us": self.samples.quantile_us(0.90),
            "p99_us": self.samples.quantile_us(0.99),
            "peak_rss_kib": self.peak_rss_kib,
            "server_cpu_us_per_call": cpu_us,
            "errors": self.errors,
            "first_error": self.first_error,
        })
    }
}
