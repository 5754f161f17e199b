//! An incremental `text/event-stream` parser for the HTTP client transports.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` field (`None`: the default, `message`).
    pub(crate) event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub(crate) data: String,
}

/// Feeds on body chunks; yields whole events. Comment lines (`:`) are ignored; `id:` and
/// `retry:` are remembered even on events without data (priming events).
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    line: Vec<u8>,
    data: Option<String>,
    event: Option<String>,
    /// The id of the last event dispatched (the `Last-Event-ID` to resume with). An `id:`
    /// line counts only once its event is complete (the blank line): the id of an event
    /// the stream cut was never delivered and must not be claimed.
    pub(crate) last_id: Option<String>,
    /// The SSE "last event ID buffer": the latest `id:` line, committed on dispatch.
    id_buffer: Option<String>,
    /// The last `retry:` seen, in milliseconds.
    pub(crate) retry: Option<u64>,
    /// How many events were dropped for a line above the limit.
    pub(crate) oversized: usize,
    /// The current line went past the limit: its event is dropped at the blank line.
    overflow: bool,
    /// The previous chunk ended with `\r` (a `\n` right after it is the same line end).
    after_cr: bool,
    limit: usize,
}

impl SseParser {
    pub(crate) fn new(limit: usize) -> Self {
        Self {
            limit,
            ..Self::default()
        }
    }

    /// A parser for a stream resuming after the event `id`.
    pub(crate) fn resuming(limit: usize, id: Option<String>) -> Self {
        Self {
            limit,
            last_id: id.clone(),
            id_buffer: id,
            ..Self::default()
        }
    }

    /// The stream ended: an event or line it cut is dropped, never joined with what a
    /// resumed stream sends; `id` and `retry` are kept for resuming.
    pub(crate) fn end_of_stream(&mut self) {
        if !self.line.is_empty() || self.data.is_some() {
            tracing::debug!("an SSE event cut by the end of its stream dropped");
        }
        self.line.clear();
        self.id_buffer.clone_from(&self.last_id);
        self.data = None;
        self.event = None;
        self.after_cr = false;
        self.overflow = false;
    }

    /// Feeds a chunk; returns the events it completes.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> Vec<SseEvent> {
        let mut out = Vec::new();
        for &b in chunk {
            if self.after_cr {
                self.after_cr = false;
                if b == b'\n' {
                    continue;
                }
            }
            match b {
                b'\n' | b'\r' => {
                    self.after_cr = b == b'\r';
                    let line = std::mem::take(&mut self.line);
                    if let Some(ev) = self.line_done(&line) {
                        out.push(ev);
                    }
                }
                _ => {
                    if self.line.len() < self.limit {
                        self.line.push(b);
                    } else {
                        self.overflow = true;
                    }
                }
            }
        }
        out
    }

    fn line_done(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            self.last_id.clone_from(&self.id_buffer);
            let data = self.data.take();
            let event = self.event.take();
            if std::mem::take(&mut self.overflow) {
                // Memory stays bounded: the event is not delivered cut.
                tracing::warn!(limit = self.limit, "an SSE event above the limit dropped");
                self.oversized += 1;
                return None;
            }
            return data
                .filter(|d| !d.is_empty())
                .map(|data| SseEvent { event, data });
        }
        if line[0] == b':' {
            return None;
        }
        let text = String::from_utf8_lossy(line);
        let (field, value) = match text.split_once(':') {
            Some((f, v)) => (f.to_owned(), v.strip_prefix(' ').unwrap_or(v).to_owned()),
            None => (text.into_owned(), String::new()),
        };
        match field.as_str() {
            "data" if self.data.as_ref().map_or(0, String::len) + value.len() >= self.limit => {
                // Many lines add up to one event: the limit holds for the whole.
                self.overflow = true;
            }
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(&value);
                }
                None => self.data = Some(value),
            },
            "event" => self.event = Some(value),
            "id" if !value.contains('\0') => self.id_buffer = Some(value),
            "retry" => {
                if let Ok(ms) = value.parse() {
                    self.retry = Some(ms);
                }
            }
            _ => {}
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_above_the_limit_is_dropped_whole() {
        let mut p = SseParser::new(16);
        let evs = p.push(b"data: 0123456789abcdefghij\ndata: x\n\ndata: ok\n\n");
        let mut evs = evs;
        evs.extend(p.push(b"data: 0123456\ndata: 0123456\ndata: 0123456\n\n"));
        assert_eq!(
            evs,
            vec![SseEvent {
                event: None,
                data: "ok".into()
            }]
        );
        assert_eq!(p.oversized, 2);
    }

    #[test]
    fn a_cut_event_is_not_joined_with_the_next_stream() {
        let mut p = SseParser::new(1 << 20);
        assert!(p.push(b"id: a-0\ndata:\n\n").is_empty());
        assert!(
            p.push(b"id: a-1\ndata: {\"x\":1}\ndata: {\"jsonrpc\":\"2.")
                .is_empty()
        );
        p.end_of_stream();
        // a-1 was cut: the stream resumes after a-0.
        assert_eq!(p.last_id.as_deref(), Some("a-0"));
        let evs = p.push(b"id: a-2\ndata: {}\n\n");
        assert_eq!(
            evs,
            vec![SseEvent {
                event: None,
                data: "{}".into()
            }]
        );
        assert_eq!(p.last_id.as_deref(), Some("a-2"));
    }

    #[test]
    fn events_across_chunks() {
        let mut p = SseParser::new(1 << 20);
        assert!(
            p.push(b": keep-alive\n\nid: 1\nretry: 500\ndata:\n\n")
                .is_empty()
        );
        assert_eq!(p.last_id.as_deref(), Some("1"));
        assert_eq!(p.retry, Some(500));
        let mut evs = p.push(b"event: endpoint\r\ndata: /messages?x=1\r\n\r\nda");
        evs.extend(p.push(b"ta: {\"a\":1}\ndata: 2\n\n"));
        assert_eq!(
            evs,
            vec![
                SseEvent {
                    event: Some("endpoint".into()),
                    data: "/messages?x=1".into()
                },
                SseEvent {
                    event: None,
                    data: "{\"a\":1}\n2".into()
                },
            ]
        );
    }

    /// Fuzzing (the parser is crate-private, so its properties live here; `tests/tests/fuzz.rs`
    /// has the others). `MCP_FUZZ_CASES` raises the number of cases.
    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        fn config(default: u32) -> ProptestConfig {
            let cases = std::env::var("MCP_FUZZ_CASES")
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(default);
            ProptestConfig::with_cases(cases)
        }

        /// What a parser ends with after `chunks`: the events, then its resumption state.
        type Outcome = (Vec<SseEvent>, Option<String>, Option<u64>, usize);

        fn run(chunks: &[&[u8]], limit: usize) -> Outcome {
            let mut p = SseParser::new(limit);
            let mut events = Vec::new();
            for c in chunks {
                events.extend(p.push(c));
                // Memory stays bounded by the limit.
                assert!(
                    p.line.len() <= limit,
                    "line of {} above {limit}",
                    p.line.len()
                );
                assert!(p.data.as_ref().map_or(0, String::len) < limit.max(1) + limit);
            }
            for e in &events {
                assert!(!e.data.is_empty());
                assert!(
                    e.data.len() < limit,
                    "an event of {} above {limit}",
                    e.data.len()
                );
            }
            (events, p.last_id, p.retry, p.oversized)
        }

        /// `input` cut at `cuts`.
        fn split<'a>(input: &'a [u8], cuts: &[prop::sample::Index]) -> Vec<&'a [u8]> {
            let mut at: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
            at.push(0);
            at.push(input.len());
            at.sort_unstable();
            at.dedup();
            at.windows(2).map(|w| &input[w[0]..w[1]]).collect()
        }

        fn stream() -> impl Strategy<Value = Vec<u8>> {
            let alphabet = b"data:event:id:retry: 0123456789\r\n\n\n:x\0".to_vec();
            prop_oneof![
                prop::collection::vec(any::<u8>(), 0..512),
                prop::collection::vec(prop::sample::select(alphabet), 0..512),
            ]
        }

        /// One event: its type, data lines (no line breaks in them), id, and line ending.
        fn event() -> impl Strategy<Value = (Option<String>, Vec<String>, Option<String>, u8)> {
            (
                prop::option::of("[a-z]{1,8}"),
                prop::collection::vec("[^\r\n]{0,12}", 0..4),
                prop::option::of("[a-z0-9-]{1,8}"),
                0u8..3,
            )
        }

        proptest! {
            #![proptest_config(config(512))]

            #[test]
            fn chunking_does_not_change_the_events(
                input in stream(),
                cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
                limit in 1usize..64,
            ) {
                let whole = run(&[&input], limit);
                let chunked = run(&split(&input, &cuts), limit);
                prop_assert_eq!(whole, chunked);
            }

            #[test]
            fn written_events_are_read_back(
                events in prop::collection::vec(event(), 0..6),
                cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..24),
            ) {
                let limit = 1 << 10;
                let mut input = Vec::new();
                let mut want = Vec::new();
                let mut last_id = None;
                for (kind, data, id, eol) in events {
                    let eol: &[u8] = [&b"\n"[..], b"\r", b"\r\n"][usize::from(eol)];
                    input.extend_from_slice(b": comment");
                    input.extend_from_slice(eol);
                    if let Some(k) = &kind {
                        input.extend_from_slice(format!("event: {k}").as_bytes());
                        input.extend_from_slice(eol);
                    }
                    if let Some(i) = &id {
                        input.extend_from_slice(format!("id: {i}").as_bytes());
                        input.extend_from_slice(eol);
                        last_id = Some(i.clone());
                    }
                    for d in &data {
                        input.extend_from_slice(format!("data: {d}").as_bytes());
                        input.extend_from_slice(eol);
                    }
                    input.extend_from_slice(eol);
                    let joined = data.join("\n");
                    if !data.is_empty() && !joined.is_empty() {
                        want.push(SseEvent { event: kind, data: joined });
                    }
                }
                let (got, id, _, oversized) = run(&split(&input, &cuts), limit);
                prop_assert_eq!(got, want);
                prop_assert_eq!(id, last_id);
                prop_assert_eq!(oversized, 0);
            }
        }
    }
}
