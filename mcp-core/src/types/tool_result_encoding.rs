//! [`CallToolResult::encode`]: the one encoding of a `tools/call` result, with the `_meta`
//! members a server stamps on every result (`serverInfo` on 2026-07-28).
//!
//! A result with a long text takes a private fast path: its plain text blocks are escaped a
//! word at a time ([`crate::fast_json::write_str`]) instead of by serde_json's byte loop,
//! which for a large answer was most of its cost. Everything else, and every short result,
//! goes through serde. Both write the same bytes (the tests compare them).

use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::{CallToolResult, ContentBlock, Meta, ResultType};
use crate::fast_json::write_str;

/// Results with at least this much text take the fast path. Below it serde costs less: the
/// fast path's bytes are checked once more to become a `RawValue`, serde's are not.
const FAST_FROM: usize = 1024;

impl CallToolResult {
    /// This result as JSON, with the members of `extra_meta` (a JSON object, such as the
    /// `serverInfo` a 2026-07-28 server stamps on every result) added to its `_meta`.
    ///
    /// Without `extra_meta` the bytes are those of `serde_json::to_vec(self)`. With it, a
    /// result without `_meta` gets `"_meta": extra_meta` as its last member, and a result
    /// with `_meta` gets each member of `extra_meta` that its own `_meta` lacks (its own
    /// value wins). The result is written as it is: [adapt](super::Adapt) it for the
    /// revision first.
    ///
    /// Fails only when `extra_meta` is not an object and the result has its own `_meta`.
    ///
    /// ```
    /// use mcp_core::types::{CallToolResult, ContentBlock};
    /// use serde_json::value::RawValue;
    ///
    /// let result = CallToolResult::success(vec![ContentBlock::text("42")]);
    /// let stamp: &RawValue = serde_json::from_str(r#"{"k":1}"#).unwrap();
    /// assert_eq!(
    ///     result.encode(Some(stamp)).unwrap().get(),
    ///     r#"{"content":[{"type":"text","text":"42"}],"_meta":{"k":1}}"#
    /// );
    /// ```
    pub fn encode(
        &self,
        extra_meta: Option<&RawValue>,
    ) -> Result<Box<RawValue>, serde_json::Error> {
        crate::passes::result_encode();
        let text = text_len(&self.content);
        if text < FAST_FROM && extra_meta.is_none() {
            // Nothing to add: the derived encoding, a little cheaper than the `Fields` view.
            return serde_json::value::to_raw_value(self);
        }
        let merged;
        let (meta, last_meta) = match (extra_meta, &self.meta) {
            (None, own) => (own.as_ref(), None),
            (Some(extra), None) => (None, Some(extra)),
            (Some(extra), Some(own)) => {
                merged = merge_meta(own, extra)?;
                (Some(&merged), None)
            }
        };
        let fields = Fields {
            content: Some(&self.content),
            structured_content: self.structured_content.as_ref(),
            is_error: self.is_error,
            meta,
            result_type: self.result_type.as_ref(),
            last_meta,
        };
        if text < FAST_FROM {
            return serde_json::value::to_raw_value(&fields);
        }
        let mut out = Vec::with_capacity(text + 128);
        write_fast(&mut out, &self.content, fields)?;
        RawValue::from_string(String::from_utf8(out).expect("the encoder writes UTF-8"))
    }
}

impl CallToolResult {
    /// A result another server encoded for the same revision (`encoded`: what a mounted
    /// server or a proxied upstream answered) made this server's answer without decoding
    /// it: the members of its `_meta` named in `drop` left out (the keys of the connection
    /// it came over, a stamp this server replaces), each member of `stamp` (a JSON object,
    /// such as the `serverInfo` [`encode`](Self::encode) adds) that its `_meta` then lacks
    /// added (a `_meta` made, last, when it has none; left out when emptied), and
    /// `resultType` as a 2026-07-28 (`modern`) result has it (`"complete"` when absent) or
    /// an older one does not. Every other byte is copied as it was; a result that needs no
    /// change is handed back as it is.
    ///
    /// `Err` with `encoded` when a scan cannot tell the text is a result this can reshape:
    /// not an object, `content` missing or not an array, `isError` not a boolean, `_meta`
    /// not an object, a key written with escapes, a repeated member. Decode it then (which
    /// words what is wrong).
    ///
    /// ```
    /// use mcp_core::types::CallToolResult;
    /// use serde_json::value::RawValue;
    ///
    /// let child: Box<RawValue> = serde_json::from_str(
    ///     r#"{"content":[],"_meta":{"k":1,"io.modelcontextprotocol/serverInfo":{"name":"c"}},"resultType":"complete"}"#,
    /// ).unwrap();
    /// let stamp: &RawValue = serde_json::from_str(r#"{"io.modelcontextprotocol/serverInfo":{"name":"p"}}"#).unwrap();
    /// let ours = CallToolResult::restamp_encoded(
    ///     child, &["io.modelcontextprotocol/serverInfo"], Some(stamp), true,
    /// ).unwrap();
    /// assert_eq!(
    ///     ours.get(),
    ///     r#"{"content":[],"_meta":{"k":1,"io.modelcontextprotocol/serverInfo":{"name":"p"}},"resultType":"complete"}"#
    /// );
    /// ```
    pub fn restamp_encoded(
        encoded: Box<RawValue>,
        drop: &[&str],
        stamp: Option<&RawValue>,
        modern: bool,
    ) -> Result<Box<RawValue>, Box<RawValue>> {
        match Self::restamped(&encoded, drop, stamp, modern) {
            Some(Some(raw)) => Ok(raw),
            Some(None) => Ok(encoded),
            None => Err(encoded),
        }
    }

    /// [`restamp_encoded`](Self::restamp_encoded)'s work: `Some(None)` when nothing changes,
    /// `None` when a scan cannot tell.
    fn restamped(
        encoded: &RawValue,
        drop: &[&str],
        stamp: Option<&RawValue>,
        modern: bool,
    ) -> Option<Option<Box<RawValue>>> {
        use crate::meta::{each_member, skip_value};
        let text = encoded.get();
        let b = text.as_bytes();
        // Where a member's key (its opening quote) stands: `each_member` hands out the key
        // as a slice of the text.
        let at = |key: &str| key.as_ptr() as usize - text.as_ptr() as usize - 1;
        // Each member as (key, its whole text's span); `_meta`'s value span.
        let mut members: Vec<(&str, usize, usize)> = Vec::with_capacity(6);
        let mut meta = None;
        let mut content = false;
        each_member(text, 0, |key, start| {
            let end = skip_value(b, start)?;
            if members.iter().any(|(k, ..)| *k == key) {
                return None;
            }
            let value = &text[start..end];
            match key {
                "content" if !value.starts_with('[') => return None,
                "content" => content = true,
                "isError" if value != "true" && value != "false" => return None,
                "_meta" if !value.starts_with('{') => return None,
                "_meta" => meta = Some(start),
                _ => {}
            }
            members.push((key, at(key), end));
            Some(end)
        })?;
        if !content {
            return None;
        }
        let has_type = members.iter().any(|(k, ..)| *k == "resultType");
        // The new `_meta` object's text, when it changes (`Some(None)`: left out).
        let mut new_meta: Option<Option<String>> = None;
        match meta {
            None => {
                if let Some(stamp) = stamp.filter(|s| s.get().trim() != "{}") {
                    new_meta = Some(Some(stamp.get().to_owned()));
                }
            }
            Some(start) => {
                let mut kept: Vec<&str> = Vec::new();
                let mut out = String::from("{");
                let mut changed = false;
                each_member(text, start, |key, vstart| {
                    let end = skip_value(b, vstart)?;
                    if drop.contains(&key) {
                        changed = true;
                    } else {
                        if !kept.is_empty() {
                            out.push(',');
                        }
                        out.push_str(&text[at(key)..end]);
                        kept.push(key);
                    }
                    Some(end)
                })?;
                if let Some(stamp) = stamp {
                    let st = stamp.get();
                    let sat = |key: &str| key.as_ptr() as usize - st.as_ptr() as usize - 1;
                    let mut added = 0;
                    each_member(st, 0, |key, vstart| {
                        let end = skip_value(st.as_bytes(), vstart)?;
                        if !kept.contains(&key) {
                            if !kept.is_empty() || added > 0 {
                                out.push(',');
                            }
                            out.push_str(&st[sat(key)..end]);
                            added += 1;
                        }
                        Some(end)
                    })?;
                    changed |= added > 0;
                }
                out.push('}');
                if changed {
                    new_meta = Some((out != "{}").then_some(out));
                }
            }
        }
        let type_changes = has_type != modern;
        if new_meta.is_none() && !type_changes {
            return Some(None);
        }
        let mut out = String::with_capacity(text.len() + stamp.map_or(0, |s| s.get().len()) + 32);
        out.push('{');
        let mut first = true;
        let mut push = |out: &mut String, member: &str| {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str(member);
        };
        for &(key, start, end) in &members {
            match key {
                "_meta" => match &new_meta {
                    Some(Some(m)) => push(&mut out, &format!("\"_meta\":{m}")),
                    Some(None) => {}
                    None => push(&mut out, &text[start..end]),
                },
                "resultType" if !modern => {}
                _ => push(&mut out, &text[start..end]),
            }
        }
        if modern && !has_type {
            push(&mut out, "\"resultType\":\"complete\"");
        }
        if let (None, Some(Some(m))) = (meta, &new_meta) {
            push(&mut out, &format!("\"_meta\":{m}"));
        }
        out.push('}');
        RawValue::from_string(out).ok().map(Some)
    }
}

/// `own` with each member of `extra` it lacks, inserted as the map inserts (so the bytes
/// are those of the same insert done by hand).
fn merge_meta(own: &Meta, extra: &RawValue) -> Result<Meta, serde_json::Error> {
    let mut meta = own.clone();
    for (key, value) in serde_json::from_str::<Meta>(extra.get())? {
        meta.entry(key).or_insert(value);
    }
    Ok(meta)
}

/// The bytes of text the result's text blocks hold.
fn text_len(content: &[ContentBlock]) -> usize {
    content
        .iter()
        .filter_map(ContentBlock::as_text)
        .map(str::len)
        .sum()
}

/// The members of a [`CallToolResult`] in the order, with the names and skip rules, of its
/// derived `Serialize`, plus the stamped `_meta` last. The fast path writes `content` itself
/// and leaves it `None` here.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Fields<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    content: Option<&'a [ContentBlock]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    structured_content: Option<&'a Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    is_error: Option<bool>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Meta>,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_type: Option<&'a ResultType>,
    /// `extra_meta` for a result without `_meta` of its own.
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    last_meta: Option<&'a RawValue>,
}

/// Appends the result whose members are `content` and `rest`: plain text blocks (no
/// annotations, no `_meta`) escaped by [`write_str`], every other part through serde.
fn write_fast(
    out: &mut Vec<u8>,
    content: &[ContentBlock],
    rest: Fields<'_>,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(b"{\"content\":[");
    for (i, block) in content.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        match block {
            ContentBlock::Text(t) if t.annotations.is_none() && t.meta.is_none() => {
                out.extend_from_slice(b"{\"type\":\"text\",\"text\":");
                write_str(out, &t.text);
                out.push(b'}');
            }
            other => serde_json::to_writer(&mut *out, other)?,
        }
    }
    out.push(b']');
    let mark = out.len();
    serde_json::to_writer(
        &mut *out,
        &Fields {
            content: None,
            ..rest
        },
    )?;
    if out.len() - mark == 2 {
        // `{}`: nothing after `content`.
        out.truncate(mark);
        out.push(b'}');
    } else {
        // `{"isError":true,…}` continues the object: its `{` becomes a `,`.
        out[mark] = b',';
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::types::{
        Annotations, AudioContent, EmbeddedResource, ImageContent, ResourceContents, TextContent,
    };

    /// Content lists of every block kind, short and long, with escapes and non-ASCII text.
    fn contents() -> Vec<Vec<ContentBlock>> {
        let mut meta = Meta::new();
        meta.insert("k".into(), json!({"x": [1, "é\n"]}));
        let annotated = ContentBlock::Text(TextContent {
            text: "annotated \"t\"".into(),
            annotations: Some(Annotations {
                priority: Some(0.5),
                ..Default::default()
            }),
            meta: Some(meta),
        });
        let long: String = (0..3000u32)
            .map(|i| char::from_u32(i % 0x250).unwrap_or('?'))
            .collect();
        vec![
            vec![],
            vec![ContentBlock::text("42")],
            vec![ContentBlock::text("a \"b\"\n\\ \u{1} é 😀".repeat(100))],
            vec![ContentBlock::text(long), ContentBlock::text("")],
            vec![
                ContentBlock::text("x".repeat(FAST_FROM)),
                annotated,
                ContentBlock::Image(ImageContent::new("AAAA", "image/png")),
                ContentBlock::Audio(AudioContent::new("UklG", "audio/wav")),
                ContentBlock::Resource(EmbeddedResource::new(ResourceContents::text(
                    "file:///a.txt",
                    "contents\t\"q\"",
                ))),
                ContentBlock::Resource(EmbeddedResource::new(ResourceContents::blob(
                    "file:///b.bin",
                    &[0, 1, 2, 255],
                ))),
                ContentBlock::resource_link("file:///c", "c"),
            ],
        ]
    }

    fn results() -> Vec<CallToolResult> {
        let structured = [
            None,
            Some(Value::Null),
            Some(json!(true)),
            Some(json!(-1.5e3)),
            Some(json!("s \"q\" ü")),
            Some(json!([1, "two", null])),
            Some(json!({"result": {"n": 3}, "é": "\n"})),
        ];
        let mut own = Meta::new();
        own.insert("z".into(), json!(1));
        own.insert("a\"b".into(), json!("ö"));
        let mut out = Vec::new();
        for content in contents() {
            for sc in &structured {
                for is_error in [None, Some(true), Some(false)] {
                    for meta in [None, Some(own.clone())] {
                        for result_type in [None, Some(ResultType::Complete)] {
                            out.push(CallToolResult {
                                content: content.clone(),
                                structured_content: sc.clone(),
                                is_error,
                                meta: meta.clone(),
                                result_type,
                            });
                        }
                    }
                }
            }
        }
        out
    }

    /// What each path writes for `r` with `extra`.
    fn both(r: &CallToolResult, extra: Option<&RawValue>) -> (String, String) {
        let merged = match (extra, &r.meta) {
            (Some(e), Some(own)) => Some(merge_meta(own, e).unwrap()),
            _ => None,
        };
        let fields = || Fields {
            content: Some(&r.content),
            structured_content: r.structured_content.as_ref(),
            is_error: r.is_error,
            meta: merged.as_ref().or(r.meta.as_ref()),
            result_type: r.result_type.as_ref(),
            last_meta: extra.filter(|_| r.meta.is_none()),
        };
        let plain = serde_json::to_string(&fields()).unwrap();
        let mut fast = Vec::new();
        write_fast(&mut fast, &r.content, fields()).unwrap();
        (plain, String::from_utf8(fast).unwrap())
    }

    #[test]
    fn the_fast_path_writes_the_bytes_of_the_plain_one() {
        let stamp: Box<RawValue> =
            serde_json::from_str(r#"{"io.modelcontextprotocol/serverInfo":{"name":"s"}}"#).unwrap();
        let results = results();
        assert!(
            results.len() >= 400,
            "every shape is combined with every other"
        );
        for r in &results {
            for extra in [None, Some(&*stamp)] {
                let (plain, fast) = both(r, extra);
                assert_eq!(fast, plain);
                // And `encode` writes that, whichever path the text length picks.
                assert_eq!(r.encode(extra).unwrap().get(), plain);
            }
        }
    }

    #[test]
    fn without_extra_meta_the_bytes_are_the_derived_serialization() {
        for r in results() {
            assert_eq!(
                r.encode(None).unwrap().get(),
                serde_json::to_string(&r).unwrap()
            );
        }
    }

    #[test]
    fn extra_meta_is_appended_last_or_merged_into_the_results_own() {
        let extra: Box<RawValue> = serde_json::from_str(r#"{"s":{"n":1},"z":2}"#).unwrap();
        let r = CallToolResult {
            result_type: Some(ResultType::Complete),
            ..CallToolResult::error("bad")
        };
        assert_eq!(
            r.encode(Some(&extra)).unwrap().get(),
            r#"{"content":[{"type":"text","text":"bad"}],"isError":true,"resultType":"complete","_meta":{"s":{"n":1},"z":2}}"#
        );
        // The result's own `_meta` keeps its members and gains the ones it lacks.
        let mut own = Meta::new();
        own.insert("z".into(), json!("own"));
        let r = CallToolResult {
            meta: Some(own),
            ..r
        };
        let v: Value = serde_json::from_str(r.encode(Some(&extra)).unwrap().get()).unwrap();
        assert_eq!(v["_meta"], json!({"s": {"n": 1}, "z": "own"}));
        assert_eq!(v["resultType"], "complete");
        // What is not an object cannot be merged.
        let not_object: Box<RawValue> = serde_json::from_str("[1]").unwrap();
        assert!(r.encode(Some(&not_object)).is_err());
    }

    /// The typed way to the same answer: decoded, `drop` taken out of `_meta`, adapted
    /// (`resultType` as the era has it), encoded with `stamp`.
    fn typed(encoded: &RawValue, drop: &[&str], stamp: Option<&RawValue>, modern: bool) -> Value {
        let mut r: CallToolResult = serde_json::from_str(encoded.get()).unwrap();
        if let Some(m) = &mut r.meta {
            m.retain(|k, _| !drop.contains(&k.as_str()));
            if m.is_empty() {
                r.meta = None;
            }
        }
        r.result_type = modern.then_some(ResultType::Complete);
        serde_json::from_str(r.encode(stamp).unwrap().get()).unwrap()
    }

    #[test]
    fn restamping_the_encoded_answer_writes_what_the_typed_way_writes() {
        let info = crate::meta::SERVER_INFO;
        let stamp: Box<RawValue> =
            serde_json::from_str(&format!(r#"{{"{info}":{{"name":"parent"}}}}"#)).unwrap();
        let mut child_stamp = Meta::new();
        child_stamp.insert(info.into(), json!({"name": "child"}));
        child_stamp.insert("traceparent".into(), json!("00-x"));
        for mut r in results() {
            for meta in [r.meta.clone(), Some(child_stamp.clone())] {
                r.meta = meta;
                let encoded = r.encode(None).unwrap();
                for drop in [&[][..], &[info, "z"][..]] {
                    for s in [None, Some(&*stamp)] {
                        for modern in [false, true] {
                            let got =
                                CallToolResult::restamp_encoded(encoded.clone(), drop, s, modern);
                            // A key written with escapes is left to the decoder.
                            let escaped = (r.meta.iter().flatten()).any(|(k, _)| k.contains('"'));
                            let Ok(got) = got else {
                                assert!(escaped, "{encoded}");
                                continue;
                            };
                            let got: Value = serde_json::from_str(got.get()).unwrap();
                            assert_eq!(got, typed(&encoded, drop, s, modern), "{encoded}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn restamping_leaves_an_answer_it_cannot_read_by_a_scan_to_the_decoder() {
        for text in [
            r#"{"content":5}"#,
            r#"{"isError":"yes","content":[]}"#,
            r#"{"structuredContent":{}}"#,
            r#"{"content":[],"_meta":null}"#,
            r#"{"content":[],"content":[]}"#,
            r#"{"cont\u0065nt":[]}"#,
            "[1]",
        ] {
            let raw: Box<RawValue> = serde_json::from_str(text).unwrap();
            assert!(
                CallToolResult::restamp_encoded(raw, &[], None, false).is_err(),
                "{text}"
            );
        }
        // Nothing to change: the same text back.
        let raw: Box<RawValue> = serde_json::from_str(r#"{ "content" : [ ] }"#).unwrap();
        let back = CallToolResult::restamp_encoded(raw, &["x"], None, false).unwrap();
        assert_eq!(back.get(), r#"{ "content" : [ ] }"#);
    }
}
