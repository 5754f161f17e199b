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
    /// The last `id:` seen.
    pub(crate) last_id: Option<String>,
    /// The last `retry:` seen, in milliseconds.
    pub(crate) retry: Option<u64>,
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
                    }
                }
            }
        }
        out
    }

    fn line_done(&mut self, line: &[u8]) -> Option<SseEvent> {
        if line.is_empty() {
            let data = self.data.take();
            let event = self.event.take();
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
            "data" => match &mut self.data {
                Some(d) => {
                    d.push('\n');
                    d.push_str(&value);
                }
                None => self.data = Some(value),
            },
            "event" => self.event = Some(value),
            "id" if !value.contains('\0') => self.last_id = Some(value),
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
}
