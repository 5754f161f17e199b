//! What the OAuth tests' loopback servers share: form decoding and JSON answers.

#![allow(dead_code)]

use std::collections::HashMap;

use mcp::transport::http::axum;
use serde_json::Value;

/// An `application/x-www-form-urlencoded` body as a map (a test helper: panics on bad input).
pub fn decode_form(s: &str) -> HashMap<String, String> {
    fn dec(s: &str) -> String {
        let b = s.as_bytes();
        let mut out = Vec::new();
        let mut i = 0;
        while i < b.len() {
            match b[i] {
                b'+' => out.push(b' '),
                b'%' if i + 2 < b.len() => {
                    out.push(u8::from_str_radix(&s[i + 1..i + 3], 16).unwrap());
                    i += 2;
                }
                c => out.push(c),
            }
            i += 1;
        }
        String::from_utf8(out).unwrap()
    }
    s.split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (k, v) = p.split_once('=').unwrap_or((p, ""));
            (dec(k), dec(v))
        })
        .collect()
}

/// A JSON answer with `status`.
pub fn json_response(status: u16, v: Value) -> axum::response::Response {
    axum::response::Response::builder()
        .status(status)
        .header("content-type", "application/json")
        .body(axum::body::Body::from(v.to_string()))
        .unwrap()
}
