//! Byte-stream framing: newline-delimited JSON (the MCP stdio framing) and, detected per
//! connection, LSP-style `Content-Length:` framing that some clients and older guides use.
//!
//! The reader never holds more than the configured maximum frame size: an oversized frame is
//! skipped up to its end (the next newline, or its declared length) and reported, so the
//! stream resynchronizes at the next frame instead of desyncing or growing without bound.

use std::io;

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt};

/// How frames are delimited on a connection.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// One JSON message per line, `\n`-terminated (a trailing `\r` is tolerated).
    Newline,
    /// `Content-Length: N\r\n\r\n` followed by N bytes (N counts bytes, not characters).
    ContentLength,
}

/// What the reader produced.
#[derive(Debug, PartialEq, Eq)]
pub enum ReadEvent {
    /// One frame's bytes (without the delimiter).
    Frame(Vec<u8>),
    /// A frame larger than the limit was skipped; the stream is positioned at the next frame.
    Oversized {
        /// How many bytes the frame had (at least; for newline framing, what was skipped).
        size: usize,
    },
    /// A `Content-Length` header block that could not be understood was skipped.
    BadHeader,
    /// The stream ended.
    Eof,
}

/// Reads frames from a buffered byte stream, detecting the framing from the first frame.
pub struct FrameReader<R> {
    inner: R,
    max_frame: usize,
    framing: Option<Framing>,
    /// The first [`SKIPPED_HEAD`] bytes of the last oversized frame.
    skipped_head: Vec<u8>,
}

/// How much of an oversized frame is kept (enough for the `jsonrpc` and `id` members that
/// encoders write first), so the reader can say which request it answered.
pub const SKIPPED_HEAD: usize = 256;

impl<R: AsyncBufRead + Unpin> FrameReader<R> {
    /// A reader that rejects frames above `max_frame` bytes.
    pub fn new(inner: R, max_frame: usize) -> Self {
        Self {
            inner,
            max_frame,
            framing: None,
            skipped_head: Vec::new(),
        }
    }

    /// The first bytes (at most [`SKIPPED_HEAD`]) of the frame the last
    /// [`ReadEvent::Oversized`] skipped.
    pub fn skipped_head(&self) -> &[u8] {
        &self.skipped_head
    }

    /// The framing detected so far (`None` before the first frame).
    pub fn framing(&self) -> Option<Framing> {
        self.framing
    }

    /// Reads the next frame.
    pub async fn next(&mut self) -> io::Result<ReadEvent> {
        loop {
            let framing = match self.framing {
                Some(f) => f,
                None => match self.detect().await? {
                    Some(f) => {
                        self.framing = Some(f);
                        f
                    }
                    None => return Ok(ReadEvent::Eof),
                },
            };
            let ev = match framing {
                Framing::Newline => self.read_line().await?,
                Framing::ContentLength => self.read_lsp().await?,
            };
            match ev {
                // Blank lines between frames are not frames.
                Some(ReadEvent::Frame(f)) if f.iter().all(u8::is_ascii_whitespace) => continue,
                Some(ev) => return Ok(ev),
                None => continue,
            }
        }
    }

    /// Skips leading whitespace and decides the framing from the first byte that follows.
    async fn detect(&mut self) -> io::Result<Option<Framing>> {
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                return Ok(None);
            }
            let ws = buf.iter().take_while(|b| b.is_ascii_whitespace()).count();
            if ws > 0 {
                self.inner.consume(ws);
                continue;
            }
            let first = buf[0];
            return Ok(Some(if first == b'C' || first == b'c' {
                Framing::ContentLength
            } else {
                Framing::Newline
            }));
        }
    }

    /// Reads up to and including the next `\n`, keeping at most `max` bytes.
    /// Returns (bytes kept, total length of the line, whether a newline ended it).
    async fn read_until_newline(&mut self, max: usize) -> io::Result<(Vec<u8>, usize, bool)> {
        let mut out = Vec::new();
        let mut total = 0usize;
        loop {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                return Ok((out, total, false));
            }
            let (chunk, done) = match memchr::memchr(b'\n', buf) {
                Some(i) => (&buf[..i], Some(i + 1)),
                None => (buf, None),
            };
            if total + chunk.len() <= max {
                if done.is_none() {
                    // The line goes on past this buffer: make room for at least as much
                    // again (capped at the limit), so a large frame grows in a few steps
                    // instead of being copied at each doubling from a small start.
                    let want = (2 * (total + chunk.len())).min(max);
                    out.reserve(want.saturating_sub(out.len()));
                }
                out.extend_from_slice(chunk);
            } else {
                // Too long: keep only the head, for `skipped_head`.
                if out.len() > SKIPPED_HEAD {
                    out.truncate(SKIPPED_HEAD);
                    out.shrink_to_fit();
                }
                let room = SKIPPED_HEAD.saturating_sub(out.len()).min(chunk.len());
                out.extend_from_slice(&chunk[..room]);
            }
            total += chunk.len();
            let used = done.unwrap_or(buf.len());
            self.inner.consume(used);
            if done.is_some() {
                return Ok((out, total, true));
            }
        }
    }

    async fn read_line(&mut self) -> io::Result<Option<ReadEvent>> {
        // One byte of slack for a trailing `\r`.
        let (mut line, total, ended) = self.read_until_newline(self.max_frame + 1).await?;
        if total == 0 && !ended {
            return Ok(Some(ReadEvent::Eof));
        }
        if total > self.max_frame + 1 {
            self.skipped_head = line;
            return Ok(Some(ReadEvent::Oversized { size: total }));
        }
        if line.last() == Some(&b'\r') {
            line.pop();
        }
        if line.len() > self.max_frame {
            line.truncate(SKIPPED_HEAD);
            let size = self.max_frame + 1;
            self.skipped_head = line;
            return Ok(Some(ReadEvent::Oversized { size }));
        }
        Ok(Some(ReadEvent::Frame(line)))
    }

    async fn read_lsp(&mut self) -> io::Result<Option<ReadEvent>> {
        // Header block: lines until an empty one. Headers are small; cap them.
        const MAX_HEADER_LINE: usize = 1024;
        let mut length: Option<usize> = None;
        let mut bad = false;
        let mut saw_any = false;
        loop {
            let (mut line, total, ended) = self.read_until_newline(MAX_HEADER_LINE).await?;
            if !ended && total == 0 {
                return Ok(Some(ReadEvent::Eof));
            }
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            if total > MAX_HEADER_LINE {
                bad = true;
                continue;
            }
            if line.is_empty() {
                if !saw_any {
                    continue;
                }
                break;
            }
            saw_any = true;
            let text = String::from_utf8_lossy(&line);
            match text.split_once(':') {
                Some((name, value)) if name.trim().eq_ignore_ascii_case("content-length") => {
                    match value.trim().parse::<usize>() {
                        Ok(n) => length = Some(n),
                        Err(_) => bad = true,
                    }
                }
                Some(_) => {} // Content-Type and friends: ignored.
                None => bad = true,
            }
            if !ended {
                return Ok(Some(ReadEvent::Eof));
            }
        }
        let Some(n) = length.filter(|_| !bad) else {
            return Ok(Some(ReadEvent::BadHeader));
        };
        if n > self.max_frame {
            self.skip(n).await?;
            return Ok(Some(ReadEvent::Oversized { size: n }));
        }
        let mut body = vec![0u8; n];
        match tokio::io::AsyncReadExt::read_exact(&mut self.inner, &mut body).await {
            Ok(_) => Ok(Some(ReadEvent::Frame(body))),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(Some(ReadEvent::Eof)),
            Err(e) => Err(e),
        }
    }

    /// Skips `n` bytes, keeping the first [`SKIPPED_HEAD`] in `skipped_head`.
    async fn skip(&mut self, mut n: usize) -> io::Result<()> {
        self.skipped_head.clear();
        while n > 0 {
            let buf = self.inner.fill_buf().await?;
            if buf.is_empty() {
                return Ok(());
            }
            let k = n.min(buf.len());
            let room = SKIPPED_HEAD.saturating_sub(self.skipped_head.len()).min(k);
            self.skipped_head.extend_from_slice(&buf[..room]);
            self.inner.consume(k);
            n -= k;
        }
        Ok(())
    }
}

/// Appends one frame (`body` is one JSON message without newlines) in `framing` to `out`.
pub fn write_frame(out: &mut Vec<u8>, framing: Framing, body: &[u8]) {
    match framing {
        Framing::Newline => {
            out.extend_from_slice(body);
            out.push(b'\n');
        }
        Framing::ContentLength => {
            use std::io::Write;
            write!(out, "Content-Length: {}\r\n\r\n", body.len()).expect("Vec write");
            out.extend_from_slice(body);
        }
    }
}

/// Writes a buffer of frames and flushes.
pub async fn flush_frames<W: AsyncWrite + Unpin>(w: &mut W, buf: &[u8]) -> io::Result<()> {
    w.write_all(buf).await?;
    w.flush().await
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn all(input: &[u8], max: usize) -> (Vec<ReadEvent>, Option<Framing>) {
        let mut r = FrameReader::new(tokio::io::BufReader::with_capacity(7, input), max);
        let mut out = Vec::new();
        loop {
            let ev = r.next().await.unwrap();
            let eof = ev == ReadEvent::Eof;
            out.push(ev);
            if eof {
                return (out, r.framing());
            }
        }
    }

    fn f(s: &str) -> ReadEvent {
        ReadEvent::Frame(s.as_bytes().to_vec())
    }

    #[tokio::test]
    async fn newline_and_crlf() {
        let (ev, fr) = all(b"{\"a\":1}\n{\"b\":\"\xc3\xa9\"}\r\n\n{\"c\":3}", 100).await;
        assert_eq!(fr, Some(Framing::Newline));
        assert_eq!(
            ev,
            vec![
                f("{\"a\":1}"),
                f("{\"b\":\"é\"}"),
                f("{\"c\":3}"),
                ReadEvent::Eof
            ]
        );
    }

    #[tokio::test]
    async fn oversized_line_is_skipped_and_the_stream_resyncs() {
        let big = format!("{{\"x\":\"{}\"}}", "y".repeat(50));
        let input = format!("{{\"a\":1}}\n{big}\n{{\"b\":2}}\n");
        let (ev, _) = all(input.as_bytes(), 20).await;
        assert_eq!(
            ev,
            vec![
                f("{\"a\":1}"),
                ReadEvent::Oversized { size: big.len() },
                f("{\"b\":2}"),
                ReadEvent::Eof
            ]
        );
    }

    #[tokio::test]
    async fn an_oversized_frame_keeps_only_its_head() {
        let big = format!("{{\"id\":7,\"x\":\"{}\"}}", "y".repeat(5000));
        for input in [
            format!("{big}\n{{}}\n"),
            format!("Content-Length: {}\r\n\r\n{big}", big.len()),
        ] {
            let mut r = FrameReader::new(
                tokio::io::BufReader::with_capacity(64, input.as_bytes()),
                100,
            );
            assert_eq!(
                r.next().await.unwrap(),
                ReadEvent::Oversized { size: big.len() }
            );
            assert_eq!(r.skipped_head(), &big.as_bytes()[..SKIPPED_HEAD]);
        }
    }

    #[tokio::test]
    async fn content_length_counts_bytes() {
        let body = "{\"t\":\"héllo\"}"; // é is two bytes
        let input = format!(
            "Content-Length: {}\r\n\r\n{body}content-length: 7\r\nContent-Type: application/json\r\n\r\n{{\"a\":1}}",
            body.len()
        );
        let (ev, fr) = all(input.as_bytes(), 100).await;
        assert_eq!(fr, Some(Framing::ContentLength));
        assert_eq!(ev, vec![f(body), f("{\"a\":1}"), ReadEvent::Eof]);
    }

    #[tokio::test]
    async fn content_length_oversized_and_bad_headers() {
        let input = "Content-Length: 30\r\n\r\n012345678901234567890123456789Content-Length: x\r\n\r\nContent-Length: 2\r\n\r\n{}";
        let (ev, _) = all(input.as_bytes(), 10).await;
        assert_eq!(
            ev,
            vec![
                ReadEvent::Oversized { size: 30 },
                ReadEvent::BadHeader,
                f("{}"),
                ReadEvent::Eof
            ]
        );
    }

    #[test]
    fn writes_each_framing() {
        let mut out = Vec::new();
        write_frame(&mut out, Framing::Newline, b"{}");
        write_frame(&mut out, Framing::ContentLength, "\"é\"".as_bytes());
        assert_eq!(out, "{}\nContent-Length: 4\r\n\r\n\"é\"".as_bytes());
    }
}
