//! Hand-written JSON for the payload-heavy hot path: string literals escaped in one
//! word-at-a-time pass, and members of an object found without decoding it.
//!
//! Private to the crate and below everything else in it (it imports nothing of it): the
//! types, the frame decoder, the envelope and the header checks each keep their fast path
//! private inside the one public function it speeds up.
//!
//! serde_json escapes strings byte by byte (a table lookup per byte); for a tool that returns
//! a large text that loop is most of the cost of the answer. The output here is byte for
//! byte what `serde_json::to_vec` writes (the tests compare them), so either may be used.

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Non-zero when some byte of `w` is `< 0x20`, `"` or `\` (the bytes JSON strings escape).
#[inline]
fn escape_mask(w: u64) -> u64 {
    let zero_byte = |x: u64| x.wrapping_sub(LO) & !x & HI;
    let control = w.wrapping_sub(LO * 0x20) & !w & HI;
    control | zero_byte(w ^ (LO * u64::from(b'"'))) | zero_byte(w ^ (LO * u64::from(b'\\')))
}

/// The escape sequence of `b`, if it needs one (serde_json's choice: the short forms where
/// JSON has them, `\u00xx` with lower-case hex otherwise).
#[inline]
fn escape_of(b: u8) -> Option<&'static [u8]> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    // `\u00xx` for every control byte, built once.
    static CONTROL: [[u8; 6]; 32] = {
        let mut t = [[0u8; 6]; 32];
        let mut i = 0;
        while i < 32 {
            t[i] = [b'\\', b'u', b'0', b'0', HEX[i >> 4], HEX[i & 0xf]];
            i += 1;
        }
        t
    };
    Some(match b {
        b'"' => b"\\\"",
        b'\\' => b"\\\\",
        b'\n' => b"\\n",
        b'\r' => b"\\r",
        b'\t' => b"\\t",
        0x08 => b"\\b",
        0x0c => b"\\f",
        0..=0x1f => &CONTROL[b as usize],
        _ => return None,
    })
}

/// Appends `s` as a JSON string literal, quotes included.
pub fn write_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    out.reserve(bytes.len() + 2);
    out.push(b'"');
    let mut run = 0; // start of the bytes not yet copied
    let mut i = 0;
    while i < bytes.len() {
        // 32 clean bytes at a time (the usual case in a long text), then word by word.
        if let Some(block) = bytes.get(i..i + 32) {
            let m = |k: usize| {
                escape_mask(u64::from_le_bytes(
                    block[k..k + 8].try_into().expect("8 bytes"),
                ))
            };
            if m(0) | m(8) | m(16) | m(24) == 0 {
                i += 32;
                continue;
            }
        }
        if let Some(word) = bytes.get(i..i + 8) {
            let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
            if escape_mask(w) == 0 {
                i += 8;
                continue;
            }
        }
        if let Some(esc) = escape_of(bytes[i]) {
            out.extend_from_slice(&bytes[run..i]);
            out.extend_from_slice(esc);
            run = i + 1;
        }
        i += 1;
    }
    out.extend_from_slice(&bytes[run..]);
    out.push(b'"');
}

/// [`find_member`] could not answer without decoding: the text is not an object, a key has
/// escapes (it might spell the wanted one), or the wanted key appears twice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NeedsParse;

/// The raw text of member `key` of the JSON object `object`, found without decoding
/// anything: each string is skipped with one memchr search, so a large argument costs a
/// fraction of a serde pass over it.
///
/// `object` should be valid JSON (the text of a `RawValue`, which serde has checked); for
/// other text the answer is unspecified, but this never panics.
pub fn find_member<'a>(object: &'a str, key: &str) -> Result<Option<&'a str>, NeedsParse> {
    // The one-key case of the shared walk.
    find_members(object, [key]).map(|[v]| v)
}

/// [`find_member`] for several keys in one pass: the raw text of each member of `keys`
/// (in their order), `None` for an absent one.
///
/// [`NeedsParse`] as for [`find_member`], and when any one of `keys` appears twice (a serde
/// probe of those keys fails on that).
pub fn find_members<'a, const N: usize>(
    object: &'a str,
    keys: [&str; N],
) -> Result<[Option<&'a str>; N], NeedsParse> {
    let mut spans = [None; N];
    walk_object(
        object.as_bytes(),
        skip_ws(object.as_bytes(), 0),
        &keys,
        &mut spans,
        None,
    )?;
    span_texts(object, spans)
}

/// [`find_members`], and in the same pass the member `inner.1` of the value of
/// `keys[inner.0]` when that value is an object (`None` when it is not, or lacks the key):
/// what [`find_member`] would find in it, read without walking the object twice.
pub fn find_members_nested<'a, const N: usize>(
    object: &'a str,
    keys: [&str; N],
    inner: (usize, &str),
) -> Result<([Option<&'a str>; N], Option<&'a str>), NeedsParse> {
    let mut spans = [None; N];
    let mut inner_span = [None];
    let b = object.as_bytes();
    walk_object(
        b,
        skip_ws(b, 0),
        &keys,
        &mut spans,
        Some((inner.0, inner.1, &mut inner_span)),
    )?;
    Ok((
        span_texts(object, spans)?,
        span_texts(object, inner_span)?[0],
    ))
}

/// The text of each recorded span.
fn span_texts<const N: usize>(
    text: &str,
    spans: [Option<(usize, usize)>; N],
) -> Result<[Option<&str>; N], NeedsParse> {
    let mut out = [None; N];
    for (o, span) in out.iter_mut().zip(spans) {
        if let Some((start, end)) = span {
            *o = Some(text.get(start..end).ok_or(NeedsParse)?);
        }
    }
    Ok(out)
}

/// The member value `keys[within]` of an object walked by [`walk_object`], when it is an
/// object, is walked in turn for `key` (its span recorded in `found`) instead of skipped.
type Inner<'k, 'f> = (usize, &'k str, &'f mut [Option<(usize, usize)>; 1]);

/// Walks the object whose `{` is at `b[i]`, recording the value span of each of `keys` in
/// `found`; the index just past the object. [`NeedsParse`] on escaped keys, on one of
/// `keys` given twice, and on text that is no object.
fn walk_object(
    b: &[u8],
    mut i: usize,
    keys: &[&str],
    found: &mut [Option<(usize, usize)>],
    mut inner: Option<Inner<'_, '_>>,
) -> Result<usize, NeedsParse> {
    if b.get(i) != Some(&b'{') {
        return Err(NeedsParse);
    }
    i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Ok(i + 1);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return Err(NeedsParse);
        }
        let key_end = string_end(b, i + 1)?;
        let name = &b[i + 1..key_end];
        if memchr::memchr(b'\\', name).is_some() {
            return Err(NeedsParse);
        }
        i = skip_ws(b, key_end + 1);
        if b.get(i) != Some(&b':') {
            return Err(NeedsParse);
        }
        let start = skip_ws(b, i + 1);
        let k = keys.iter().position(|k| k.as_bytes() == name);
        let end = match (&mut inner, k) {
            (Some((within, key, inner_found)), Some(k))
                if *within == k && b.get(start) == Some(&b'{') =>
            {
                walk_object(b, start, &[*key], &mut inner_found[..], None)?
            }
            _ => value_end(b, start)?,
        };
        if let Some(k) = k {
            if found[k].is_some() {
                return Err(NeedsParse);
            }
            found[k] = Some((start, end));
        }
        i = skip_ws(b, end);
        match b.get(i) {
            Some(b',') => i = skip_ws(b, i + 1),
            Some(b'}') => return Ok(i + 1),
            _ => return Err(NeedsParse),
        }
    }
}

/// The index of the quote closing the string whose contents start at `i`, and whether the
/// string has escapes. Short strings (keys, versions) are read a word at a time, cheaper
/// than a search call; past 64 bytes a search takes over (a long text argument).
pub(crate) fn string_close(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    // The lowest set bit marks the first byte equal to `c` (higher ones may be false).
    let hits = |w: u64, c: u8| {
        let x = w ^ (LO * u64::from(c));
        x.wrapping_sub(LO) & !x & HI
    };
    let mut escaped = false;
    let stop = i + 64;
    while i < stop {
        let Some(word) = b.get(i..i + 8) else {
            // The last few bytes.
            while let Some(&c) = b.get(i) {
                match c {
                    b'"' => return Some((i, escaped)),
                    b'\\' => {
                        escaped = true;
                        i += 2;
                    }
                    _ => i += 1,
                }
            }
            return None;
        };
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        let m = hits(w, b'"') | hits(w, b'\\');
        if m == 0 {
            i += 8;
            continue;
        }
        i += (m.trailing_zeros() / 8) as usize;
        if b[i] == b'"' {
            return Some((i, escaped));
        }
        escaped = true;
        i += 2;
    }
    loop {
        let rest = b.get(i..)?;
        match memchr::memchr2(b'"', b'\\', rest) {
            Some(k) if rest[k] == b'\\' => {
                escaped = true;
                i += k + 2;
            }
            Some(k) => return Some((i + k, escaped)),
            None => return None,
        }
    }
}

pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// The index of the quote that closes the string whose contents start at `i`.
fn string_end(b: &[u8], mut i: usize) -> Result<usize, NeedsParse> {
    loop {
        let rest = b.get(i..).ok_or(NeedsParse)?;
        match memchr::memchr2(b'"', b'\\', rest) {
            Some(k) if rest[k] == b'\\' => i += k + 2,
            Some(k) => return Ok(i + k),
            None => return Err(NeedsParse),
        }
    }
}

/// The index just past the JSON value that starts at `i`.
fn value_end(b: &[u8], mut i: usize) -> Result<usize, NeedsParse> {
    match b.get(i) {
        Some(b'"') => Ok(string_end(b, i + 1)? + 1),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            while let Some(&c) = b.get(i) {
                i += 1;
                match c {
                    b'"' => i = string_end(b, i)? + 1,
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Ok(i);
                        }
                    }
                    _ => {}
                }
            }
            Err(NeedsParse)
        }
        Some(_) => {
            // A number or a literal: up to the next delimiter.
            while !matches!(
                b.get(i),
                None | Some(b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            ) {
                i += 1;
            }
            Ok(i)
        }
        None => Err(NeedsParse),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn serde_str(s: &str) -> Vec<u8> {
        serde_json::to_vec(s).unwrap()
    }

    fn fast_str(s: &str) -> Vec<u8> {
        let mut out = Vec::new();
        write_str(&mut out, s);
        out
    }

    #[test]
    fn every_byte_escapes_as_serde_json_does() {
        // Each ASCII byte alone, at every offset of a 32-byte block and of a word, beside
        // non-ASCII text (whose bytes are all >= 0x80 and never escaped).
        for b in 0u8..0x80 {
            let c = char::from(b);
            for pad in 0..70 {
                let s = format!("{}{c}é{}", "x".repeat(pad), "y".repeat(69 - pad));
                assert_eq!(fast_str(&s), serde_str(&s), "byte {b:#x} at {pad}");
            }
        }
        for s in [
            "",
            "\"",
            "\\\\",
            "\u{7f}\u{80}\u{ffff}😀",
            "tab\there\r\n\u{1}\u{1f}",
        ] {
            assert_eq!(fast_str(s), serde_str(s), "{s:?}");
        }
    }

    #[test]
    fn long_text_with_scattered_escapes_matches_serde_json() {
        let mut s = String::new();
        for i in 0..5000u32 {
            s.push(char::from_u32(i % 0x250).unwrap_or('?'));
            if i % 97 == 0 {
                s.push_str("\"\\\n");
            }
        }
        assert_eq!(fast_str(&s), serde_str(&s));
    }

    #[test]
    fn members_are_found_as_serde_finds_them() {
        let cases = [
            (r#"{}"#, None),
            (
                r#" { "a" : 1 , "_meta" : { "x" : [ "}" , "\\\"" ] } } "#,
                Some(r#"{ "x" : [ "}" , "\\\"" ] }"#),
            ),
            (r#"{"_meta":null}"#, Some("null")),
            (r#"{"a":"_meta","b":{"_meta":1},"c":[{"_meta":2}]}"#, None),
            (r#"{"a":-1.5e3,"_meta":true}"#, Some("true")),
            (r#"{"text":"\"_meta\":1","_meta":"x"}"#, Some(r#""x""#)),
            (r#"{"_meta":12}"#, Some("12")),
        ];
        for (text, want) in cases {
            assert_eq!(find_member(text, "_meta"), Ok(want), "{text}");
            // The same answer as a serde probe of the one member.
            #[derive(serde::Deserialize)]
            struct Probe<'a> {
                #[serde(rename = "_meta", borrow)]
                meta: Option<&'a serde_json::value::RawValue>,
            }
            let p: Probe<'_> = serde_json::from_str(text).unwrap();
            if want != Some("null") {
                assert_eq!(p.meta.map(|r| r.get()), want, "{text}");
            }
        }
    }

    #[test]
    fn several_members_are_found_as_one_at_a_time() {
        let texts = [
            r#"{}"#,
            r#" { "name" : "add" , "_meta" : { "x" : [ "}" , "\\\"" ] }, "uri": 1 } "#,
            r#"{"a":"name","b":{"name":1},"c":[{"_meta":2}],"_meta":null}"#,
            r#"{"uri":"u","name":true,"taskId":-1.5e3}"#,
        ];
        for text in texts {
            let keys = ["name", "uri", "taskId", "_meta"];
            let one = keys.map(|k| find_member(text, k).unwrap());
            assert_eq!(find_members(text, keys), Ok(one), "{text}");
            let inner = one[3]
                .filter(|m| m.starts_with('{'))
                .and_then(|m| find_member(m, "x").unwrap());
            assert_eq!(
                find_members_nested(text, keys, (3, "x")),
                Ok((one, inner)),
                "{text}"
            );
        }
        // The inner object is held to what `find_member` holds it to.
        for text in [r#"{"_meta":{"x":1,"x":2}}"#, r#"{"_meta":{"\u0078":1}}"#] {
            assert_eq!(
                find_members_nested(text, ["_meta"], (0, "x")),
                Err(NeedsParse),
                "{text}"
            );
        }
        assert_eq!(
            find_members_nested(r#"{"_meta":{"y":{"x":1}},"b":2}"#, ["_meta", "b"], (0, "x")),
            Ok(([Some(r#"{"y":{"x":1}}"#), Some("2")], None))
        );
        for text in [
            r#"{"name":1,"uri":2,"name":3}"#,
            r#"{"n\u0061me":1}"#,
            r#"[1]"#,
            r#"{"a":"unterminated"#,
            "",
        ] {
            assert_eq!(
                find_members(text, ["name", "uri"]),
                Err(NeedsParse),
                "{text}"
            );
        }
        // A key outside `keys` may repeat (serde ignores it too).
        assert_eq!(
            find_members(r#"{"x":1,"x":2,"name":"a"}"#, ["name"]),
            Ok([Some(r#""a""#)])
        );
    }

    #[test]
    fn strings_end_where_serde_ends_them_at_every_length() {
        // Quotes and escapes at every offset of the word-at-a-time part and past it.
        for len in 0..80 {
            for esc in [
                None,
                Some(0),
                Some(7),
                Some(8),
                Some(31),
                Some(32),
                Some(40),
            ] {
                let mut s: String = (0..len)
                    .map(|i| char::from(b'a' + (i % 26) as u8))
                    .collect();
                if let Some(at) = esc.filter(|&at| at <= len) {
                    s.insert_str(at, "\\\"é");
                }
                let text = format!(r#"{{"k":"{s}","z":1}}"#);
                let want: serde_json::Value = serde_json::from_str(&text).unwrap();
                let got = find_member(&text, "k").unwrap().unwrap();
                assert_eq!(
                    serde_json::from_str::<serde_json::Value>(got).unwrap(),
                    want["k"]
                );
                assert_eq!(find_member(&text, "z"), Ok(Some("1")), "{text}");
            }
        }
    }

    #[test]
    fn members_that_need_a_parse_say_so() {
        for text in [
            r#"{"_meta":1,"_meta":2}"#,
            r#"{"_m\u0065ta":1}"#,
            r#"[1]"#,
            r#"{"a":"unterminated"#,
            r#"{"a":[1,2"#,
            r#"{"a" 1}"#,
            "",
        ] {
            assert_eq!(find_member(text, "_meta"), Err(NeedsParse), "{text}");
        }
    }
}
