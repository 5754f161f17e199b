//! The stdio floor: the least a server can do to answer the benchmark's calls correctly. One
//! task reads stdin through tokio's non-blocking pipe driver, parses each line with serde_json
//! (params kept raw until the tool is known), and writes the answers of everything one read
//! brought in with one write. No framework: its throughput is what the machine allows.

use std::io;
use std::os::fd::AsFd;

use serde::Deserialize;
use serde_json::value::RawValue;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;

#[derive(Deserialize)]
struct Request<'a> {
    #[serde(borrow)]
    id: Option<&'a RawValue>,
    method: &'a str,
    #[serde(borrow)]
    params: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Call<'a> {
    name: &'a str,
    #[serde(borrow)]
    arguments: &'a RawValue,
}

#[derive(Deserialize)]
struct Add {
    a: i64,
    b: i64,
}

#[derive(Deserialize)]
struct Echo<'a> {
    #[serde(borrow)]
    text: std::borrow::Cow<'a, str>,
}

/// Appends the answer to one request line (nothing for a notification).
fn answer(line: &[u8], out: &mut Vec<u8>) {
    let Ok(req) = serde_json::from_slice::<Request>(line) else {
        out.extend_from_slice(
            br#"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}"#,
        );
        out.push(b'\n');
        return;
    };
    let Some(id) = req.id else { return };
    let text = match (req.method, req.params) {
        ("initialize", _) => {
            out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
            out.extend_from_slice(id.get().as_bytes());
            out.extend_from_slice(br#","result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"floor","version":"0"}}}"#);
            out.push(b'\n');
            return;
        }
        ("tools/call", Some(p)) => match serde_json::from_str::<Call>(p.get()) {
            Ok(c) if c.name == "add" => serde_json::from_str::<Add>(c.arguments.get())
                .map(|a| (a.a + a.b).to_string())
                .ok(),
            Ok(c) if c.name == "echo" => serde_json::from_str::<Echo>(c.arguments.get())
                .map(|e| e.text.into_owned())
                .ok(),
            _ => None,
        },
        _ => None,
    };
    out.extend_from_slice(br#"{"jsonrpc":"2.0","id":"#);
    out.extend_from_slice(id.get().as_bytes());
    match text {
        Some(t) => {
            out.extend_from_slice(br#","result":{"content":[{"type":"text","text":"#);
            serde_json::to_writer(&mut *out, &t).expect("writing to a Vec");
            out.extend_from_slice(br#"}],"isError":false}}"#);
        }
        None => out.extend_from_slice(br#","error":{"code":-32602,"message":"Invalid params"}}"#),
    }
    out.push(b'\n');
}

#[tokio::main]
async fn main() -> io::Result<()> {
    let mut input = pipe::Receiver::from_owned_fd(io::stdin().as_fd().try_clone_to_owned()?)?;
    let mut output = pipe::Sender::from_owned_fd(io::stdout().as_fd().try_clone_to_owned()?)?;
    let (mut buf, mut out) = (Vec::with_capacity(64 * 1024), Vec::with_capacity(64 * 1024));
    let mut start = 0; // first byte of the current (incomplete) line
    loop {
        if buf.capacity() - buf.len() < 16 * 1024 {
            buf.reserve(64 * 1024);
        }
        if input.read_buf(&mut buf).await? == 0 {
            return Ok(());
        }
        while let Some(nl) = buf[start..].iter().position(|&b| b == b'\n') {
            answer(&buf[start..start + nl], &mut out);
            start += nl + 1;
        }
        buf.drain(..start);
        start = 0;
        if !out.is_empty() {
            output.write_all(&out).await?;
            out.clear();
        }
    }
}
