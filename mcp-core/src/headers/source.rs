//! Reading the header fields of one request: the [`HeaderSource`] trait and the one
//! accessor every check goes through ([`single_header`]).

use super::{HeaderError, HeaderErrorKind};

/// Read access to the header fields of one HTTP request.
///
/// Implemented for slices, arrays and vectors of `(name, value)` pairs (names compared
/// ASCII-case-insensitively) and, through [`HeaderFn`], for any closure, e.g. over an
/// `http::HeaderMap`:
///
/// ```
/// use mcp_core::headers::{HeaderFn, HeaderSource};
///
/// let pairs = vec![("mcp-method".to_string(), "tools/list".to_string())];
/// let headers = HeaderFn(|name: &str, each: &mut dyn FnMut(&[u8])| {
///     for (k, v) in &pairs {
///         if k.eq_ignore_ascii_case(name) {
///             each(v.as_bytes());
///         }
///     }
/// });
/// let mut seen = Vec::new();
/// headers.for_each_value("Mcp-Method", &mut |v| seen.push(v.to_vec()));
/// assert_eq!(seen, vec![b"tools/list".to_vec()]);
/// ```
pub trait HeaderSource {
    /// Calls `each` with the raw value of every field line named `name`, in order, matching
    /// names ASCII-case-insensitively.
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8]));
}

impl<K: AsRef<str>, V: AsRef<[u8]>> HeaderSource for [(K, V)] {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        for (k, v) in self {
            if k.as_ref().eq_ignore_ascii_case(name) {
                each(v.as_ref());
            }
        }
    }
}

impl<K: AsRef<str>, V: AsRef<[u8]>, const N: usize> HeaderSource for [(K, V); N] {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        self.as_slice().for_each_value(name, each)
    }
}

impl<K: AsRef<str>, V: AsRef<[u8]>> HeaderSource for Vec<(K, V)> {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        self.as_slice().for_each_value(name, each)
    }
}

impl<T: HeaderSource + ?Sized> HeaderSource for &T {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        (**self).for_each_value(name, each)
    }
}

/// A [`HeaderSource`] backed by a closure `(name, each)` that calls `each` with every value
/// of the header `name`; the closure is responsible for case-insensitive name matching.
#[derive(Debug, Clone, Copy)]
pub struct HeaderFn<F>(pub F);

impl<F: Fn(&str, &mut dyn FnMut(&[u8]))> HeaderSource for HeaderFn<F> {
    fn for_each_value(&self, name: &str, each: &mut dyn FnMut(&[u8])) {
        (self.0)(name, each)
    }
}

/// The single value of header `name`, OWS-trimmed and checked to be printable ASCII.
///
/// `Ok(None)` when absent; [`HeaderErrorKind::Repeated`] when given on several field lines;
/// [`HeaderErrorKind::InvalidCharacters`] when a byte outside `0x20..=0x7E` remains.
pub fn single_header<H: HeaderSource + ?Sized>(
    headers: &H,
    name: &str,
) -> Result<Option<String>, HeaderError> {
    with_single_header(headers, name, |v| v.map(str::to_string))
}

/// [`single_header`] without copying the value: `judge` sees it in place (`None` when
/// absent) and its answer is returned, unless the header is repeated or holds invalid
/// characters (the same errors, in the same order, as [`single_header`]).
pub(super) fn with_single_header<H: HeaderSource + ?Sized, T>(
    headers: &H,
    name: &str,
    judge: impl FnOnce(Option<&str>) -> T,
) -> Result<T, HeaderError> {
    let mut judge = Some(judge);
    let mut first: Option<Result<T, HeaderErrorKind>> = None;
    let mut count = 0usize;
    headers.for_each_value(name, &mut |v| {
        count += 1;
        if let Some(judge) = judge.take() {
            let trimmed = trim_ows(v);
            first = Some(if trimmed.iter().all(|b| (0x20..=0x7e).contains(b)) {
                let text = std::str::from_utf8(trimmed).expect("printable ASCII is UTF-8");
                Ok(judge(Some(text)))
            } else {
                Err(HeaderErrorKind::InvalidCharacters)
            });
        }
    });
    if count > 1 {
        return Err(HeaderError::new(name, HeaderErrorKind::Repeated));
    }
    match (first, judge) {
        (Some(judged), _) => judged.map_err(|kind| HeaderError::new(name, kind)),
        (None, Some(judge)) => Ok(judge(None)),
        (None, None) => unreachable!("a judged value is kept"),
    }
}

fn trim_ows(v: &[u8]) -> &[u8] {
    let is_ows = |b: &u8| *b == b' ' || *b == b'\t';
    let start = v.iter().position(|b| !is_ows(b)).unwrap_or(v.len());
    let end = v.iter().rposition(|b| !is_ows(b)).map_or(start, |i| i + 1);
    &v[start..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::test_support::*;
    use crate::headers::{MCP_METHOD, MCP_PROTOCOL_VERSION, ParamsView, validate_request_headers};

    #[test]
    fn header_fn_adapter_and_duplicates() {
        let store: Vec<(&str, &[u8])> = vec![
            ("Mcp-Method", &b"ping"[..]),
            (MCP_PROTOCOL_VERSION, &b"2026-07-28"[..]),
        ];
        let src = HeaderFn(|name: &str, each: &mut dyn FnMut(&[u8])| {
            for (k, v) in &store {
                if k.eq_ignore_ascii_case(name) {
                    each(v);
                }
            }
        });
        assert_eq!(
            validate_request_headers(&src, "ping", ParamsView::None, Some(V), None),
            Ok(())
        );
        // obs-text bytes are invalid characters
        let bytes: Vec<(&str, &[u8])> = vec![
            (MCP_PROTOCOL_VERSION, &b"2026-07-28"[..]),
            (MCP_METHOD, &b"pi\xffng"[..]),
        ];
        assert_eq!(
            validate_request_headers(&bytes, "ping", ParamsView::None, Some(V), None),
            Err(HeaderError::new(
                MCP_METHOD,
                HeaderErrorKind::InvalidCharacters
            ))
        );
    }
}
