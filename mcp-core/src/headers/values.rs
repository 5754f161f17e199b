//! Header values: the Base64 sentinel encoding of `Mcp-Name` / `Mcp-Param-*` values and the
//! comparison of a decoded value with the body value it mirrors.

use std::borrow::Cow;
use std::fmt;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::Value;

use super::{SENTINEL_PREFIX, SENTINEL_SUFFIX};

/// Whether `s` can be sent as a plain header value: only printable ASCII (`0x20..=0x7E`)
/// and no leading or trailing space. The empty string is safe.
pub fn is_header_safe(s: &str) -> bool {
    s.bytes().all(|b| (0x20..=0x7e).contains(&b)) && !s.starts_with(' ') && !s.ends_with(' ')
}

/// Whether `s` has the shape of a Base64 sentinel: starts with `=?base64?` and ends with
/// `?=` (markers exact and lowercase).
pub fn looks_like_sentinel(s: &str) -> bool {
    s.starts_with(SENTINEL_PREFIX) && s.ends_with(SENTINEL_SUFFIX)
}

/// Encodes a string for a `Mcp-Name` or `Mcp-Param-*` header: as-is when
/// [header-safe](is_header_safe) and not [sentinel-shaped](looks_like_sentinel), otherwise
/// `=?base64?{standard Base64 of the UTF-8 bytes}?=`.
///
/// ```
/// use mcp_core::headers::encode_header_value;
/// assert_eq!(encode_header_value("us-west1"), "us-west1");
/// assert_eq!(encode_header_value("Hello, 世界"), "=?base64?SGVsbG8sIOS4lueVjA==?=");
/// ```
pub fn encode_header_value(s: &str) -> Cow<'_, str> {
    if is_header_safe(s) && !looks_like_sentinel(s) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!(
            "{SENTINEL_PREFIX}{}{SENTINEL_SUFFIX}",
            STANDARD.encode(s.as_bytes())
        ))
    }
}

/// Why a sentinel-shaped header value could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SentinelError {
    /// The markers overlap (`=?base64?=`): there is no payload between them.
    Truncated,
    /// The payload is not canonical standard Base64 (alphabet `A–Z a–z 0–9 + /`, `=` padding).
    InvalidBase64,
    /// The decoded bytes are not UTF-8.
    InvalidUtf8,
}

impl fmt::Display for SentinelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Truncated => "the =?base64? and ?= markers overlap",
            Self::InvalidBase64 => "the payload is not valid standard Base64",
            Self::InvalidUtf8 => "the decoded payload is not UTF-8",
        })
    }
}

impl std::error::Error for SentinelError {}

/// Decodes a received `Mcp-Name` / `Mcp-Param-*` value: a [sentinel-shaped](looks_like_sentinel)
/// value is Base64-decoded, anything else is returned unchanged.
///
/// ```
/// use mcp_core::headers::decode_header_value;
/// assert_eq!(decode_header_value("=?base64?IHBhZGRlZCA=?=").unwrap(), " padded ");
/// assert_eq!(decode_header_value("plain").unwrap(), "plain");
/// assert!(decode_header_value("=?base64?not base64?=").is_err());
/// ```
pub fn decode_header_value(raw: &str) -> Result<Cow<'_, str>, SentinelError> {
    if !looks_like_sentinel(raw) {
        return Ok(Cow::Borrowed(raw));
    }
    if raw.len() < SENTINEL_PREFIX.len() + SENTINEL_SUFFIX.len() {
        return Err(SentinelError::Truncated);
    }
    let payload = &raw[SENTINEL_PREFIX.len()..raw.len() - SENTINEL_SUFFIX.len()];
    let bytes = STANDARD
        .decode(payload)
        .map_err(|_| SentinelError::InvalidBase64)?;
    String::from_utf8(bytes)
        .map(Cow::Owned)
        .map_err(|_| SentinelError::InvalidUtf8)
}

/// The header value a client sends for an annotated argument, or `None` when no header is
/// sent: strings [encoded](encode_header_value), integers in decimal, booleans
/// `true`/`false`; `null`, arrays and objects give `None`.
///
/// A non-integral number (which the schema forbids) is written as JSON writes it, so a
/// server comparing numerically still agrees.
pub fn argument_header_value(value: &Value) -> Option<String> {
    match value {
        Value::String(s) => Some(encode_header_value(s).into_owned()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(match body_number(n) {
            BodyNumber::Integer(i) => i.to_string(),
            BodyNumber::Float(_) => n.to_string(),
        }),
        Value::Null | Value::Array(_) | Value::Object(_) => None,
    }
}

// ---------------------------------------------------------------------------------------
// Comparison
// ---------------------------------------------------------------------------------------

enum BodyNumber {
    Integer(i128),
    Float(f64),
}

fn body_number(n: &serde_json::Number) -> BodyNumber {
    if let Some(i) = n.as_i64() {
        BodyNumber::Integer(i.into())
    } else if let Some(u) = n.as_u64() {
        BodyNumber::Integer(u.into())
    } else {
        let f = n.as_f64().unwrap_or(f64::NAN);
        if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e18 {
            BodyNumber::Integer(f as i128)
        } else {
            BodyNumber::Float(f)
        }
    }
}

/// Parses `-?[0-9]+(.[0-9]+)?` whose fraction is all zeros into an integer.
fn parse_decimal_integer(s: &str) -> Option<i128> {
    let (neg, rest) = match s.strip_prefix('-') {
        Some(r) => (true, r),
        None => (false, s),
    };
    let (int, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    if int.is_empty() || !int.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if let Some(f) = frac
        && (f.is_empty() || !f.bytes().all(|b| b == b'0'))
    {
        return None;
    }
    let mut v: i128 = 0;
    for b in int.bytes() {
        v = v.checked_mul(10)?.checked_add(i128::from(b - b'0'))?;
    }
    Some(if neg { -v } else { v })
}

/// Parses `-?[0-9]+(.[0-9]+)?([eE][+-]?[0-9]+)?` as a float.
fn parse_decimal_float(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let mut i = usize::from(b.first() == Some(&b'-'));
    let digits = |i: &mut usize| {
        let start = *i;
        while *i < b.len() && b[*i].is_ascii_digit() {
            *i += 1;
        }
        *i > start
    };
    if !digits(&mut i) {
        return None;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        if !digits(&mut i) {
            return None;
        }
    }
    if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
        i += 1;
        if i < b.len() && (b[i] == b'+' || b[i] == b'-') {
            i += 1;
        }
        if !digits(&mut i) {
            return None;
        }
    }
    if i != b.len() {
        return None;
    }
    s.parse().ok()
}

/// Whether a decoded header value mirrors the body value `body`.
///
/// Driven by the body value's JSON type: a string must be equal byte for byte; a boolean
/// must be spelled `true` or `false`; an integer must be a plain decimal of the same value
/// (`"007"` and `"42.0"` are accepted, `"+7"`, `"4.2e1"`, `"0x2A"` are not); a non-integral
/// number is compared as a float. `null`, arrays and objects match nothing.
pub fn header_value_matches(decoded: &str, body: &Value) -> bool {
    match body {
        Value::String(s) => decoded == s,
        Value::Bool(b) => decoded == if *b { "true" } else { "false" },
        Value::Number(n) => match body_number(n) {
            BodyNumber::Integer(i) => parse_decimal_integer(decoded) == Some(i),
            BodyNumber::Float(f) => parse_decimal_float(decoded) == Some(f),
        },
        Value::Null | Value::Array(_) | Value::Object(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn encoding_table_including_spec_examples() {
        let table: &[(&str, &str)] = &[
            ("us-west1", "us-west1"),
            ("Hello, 世界", "=?base64?SGVsbG8sIOS4lueVjA==?="),
            (" padded ", "=?base64?IHBhZGRlZCA=?="),
            ("line1\nline2", "=?base64?bGluZTEKbGluZTI=?="),
            ("=?base64?literal?=", "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="),
            ("", ""),
            ("a b", "a b"),
            ("tab\there", "=?base64?dGFiCWhlcmU=?="),
            ("trailing ", "=?base64?dHJhaWxpbmcg?="),
            (" leading", "=?base64?IGxlYWRpbmc=?="),
            ("del\u{7f}", "=?base64?ZGVsfw==?="),
            ("caf\u{e9}", "=?base64?Y2Fmw6k=?="),
            ("=?BASE64?x?=", "=?BASE64?x?="), // markers are case-sensitive
            ("=?base64?unterminated", "=?base64?unterminated"),
            ("=?base64?=", "=?base64?PT9iYXNlNjQ/PQ==?="), // overlapping markers still look like one
            (
                "file:///projects/myapp/config.json",
                "file:///projects/myapp/config.json",
            ),
        ];
        for (input, want) in table {
            assert_eq!(encode_header_value(input), *want, "encode {input:?}");
            assert_eq!(
                decode_header_value(want).unwrap(),
                *input,
                "round trip {input:?}"
            );
        }
    }

    #[test]
    fn header_safety_table() {
        let table: &[(&str, bool)] = &[
            ("", true),
            ("abc", true),
            ("a b", true),
            ("~!@#$%^&*()", true),
            (" a", false),
            ("a ", false),
            ("\t", false),
            ("a\r\nb", false),
            ("ü", false),
            ("\u{0}", false),
        ];
        for (s, want) in table {
            assert_eq!(is_header_safe(s), *want, "{s:?}");
        }
    }

    #[test]
    fn decoding_table() {
        let ok: &[(&str, &str)] = &[
            ("plain", "plain"),
            ("=?base64??=", ""),
            ("=?base64?4pyT?=", "✓"),
            ("=?BASE64?eA==?=", "=?BASE64?eA==?="), // not a sentinel: literal
            ("=?base64?eA==", "=?base64?eA=="),
        ];
        for (raw, want) in ok {
            assert_eq!(decode_header_value(raw).unwrap(), *want, "{raw:?}");
        }
        let bad: &[(&str, SentinelError)] = &[
            ("=?base64?=", SentinelError::Truncated),
            ("=?base64?not base64?=", SentinelError::InvalidBase64),
            ("=?base64?eA?=", SentinelError::InvalidBase64), // missing padding
            ("=?base64?eA=?=", SentinelError::InvalidBase64),
            ("=?base64?e-_A?=", SentinelError::InvalidBase64), // URL-safe alphabet
            ("=?base64?/w==?=", SentinelError::InvalidUtf8),   // 0xFF
        ];
        for (raw, want) in bad {
            assert_eq!(decode_header_value(raw).unwrap_err(), *want, "{raw:?}");
        }
    }

    #[test]
    fn argument_value_table() {
        let table: &[(Value, Option<&str>)] = &[
            (json!("us-west1"), Some("us-west1")),
            (
                json!("Hello, 世界"),
                Some("=?base64?SGVsbG8sIOS4lueVjA==?="),
            ),
            (json!(42), Some("42")),
            (json!(-7), Some("-7")),
            (json!(0), Some("0")),
            (json!(9_007_199_254_740_991_i64), Some("9007199254740991")),
            (json!(u64::MAX), Some("18446744073709551615")),
            (json!(42.0), Some("42")),
            (json!(1.5), Some("1.5")),
            (json!(true), Some("true")),
            (json!(false), Some("false")),
            (json!(null), None),
            (json!([1]), None),
            (json!({"a": 1}), None),
        ];
        for (v, want) in table {
            assert_eq!(argument_header_value(v).as_deref(), *want, "{v}");
        }
    }

    #[test]
    fn comparison_table() {
        let table: &[(&str, Value, bool)] = &[
            // strings: exact, case-sensitive
            ("abc", json!("abc"), true),
            ("ABC", json!("abc"), false),
            ("abc ", json!("abc"), false),
            ("", json!(""), true),
            ("42", json!("42"), true),
            // integers: numeric
            ("42", json!(42), true),
            ("42.0", json!(42), true),
            ("42.000", json!(42), true),
            ("007", json!(7), true),
            ("-0", json!(0), true),
            ("-7", json!(-7), true),
            ("42", json!(42.0), true),
            ("42.5", json!(42), false),
            ("43", json!(42), false),
            ("+42", json!(42), false),
            ("4.2e1", json!(42), false),
            ("0x2A", json!(42), false),
            ("42.", json!(42), false),
            (".0", json!(0), false),
            ("", json!(0), false),
            (" 42", json!(42), false),
            ("9007199254740993", json!(9_007_199_254_740_992_i64), false), // no f64 rounding
            ("18446744073709551615", json!(u64::MAX), true),
            ("-9223372036854775808", json!(i64::MIN), true),
            ("99999999999999999999999999999999999999999", json!(1), false), // overflow
            // non-integral numbers (forbidden by the schema, still compared numerically)
            ("1.5", json!(1.5), true),
            ("1.50", json!(1.5), true),
            ("15e-1", json!(1.5), true),
            ("1.6", json!(1.5), false),
            ("NaN", json!(1.5), false),
            ("inf", json!(1.5), false),
            // booleans: lowercase only
            ("true", json!(true), true),
            ("false", json!(false), true),
            ("True", json!(true), false),
            ("1", json!(true), false),
            ("false", json!(true), false),
            // non-primitives never match
            ("null", json!(null), false),
            ("[]", json!([]), false),
            ("{}", json!({}), false),
        ];
        for (header, body, want) in table {
            assert_eq!(
                header_value_matches(header, body),
                *want,
                "{header:?} vs {body}"
            );
        }
    }
}
