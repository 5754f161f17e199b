//! The body fields the headers mirror, read from a request's `params` once: [`ParamsView`],
//! [`RequestFields`], [`name_source_field`].

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;
use serde_json::value::RawValue;

use super::PROTOCOL_VERSION_META_KEY;

/// A request's `params`, parsed or raw; see the `From` impls.
#[derive(Debug, Clone, Copy, Default)]
pub enum ParamsView<'a> {
    /// No `params` member.
    #[default]
    None,
    /// Parsed params.
    Value(&'a Value),
    /// Params as received, e.g. [`crate::jsonrpc::Request::params`]; only the fields the
    /// headers mirror are parsed.
    Raw(&'a RawValue),
}

impl<'a> From<&'a Value> for ParamsView<'a> {
    fn from(v: &'a Value) -> Self {
        ParamsView::Value(v)
    }
}
impl<'a> From<Option<&'a Value>> for ParamsView<'a> {
    fn from(v: Option<&'a Value>) -> Self {
        v.map_or(ParamsView::None, ParamsView::Value)
    }
}
impl<'a> From<&'a RawValue> for ParamsView<'a> {
    fn from(v: &'a RawValue) -> Self {
        ParamsView::Raw(v)
    }
}
impl<'a> From<Option<&'a RawValue>> for ParamsView<'a> {
    fn from(v: Option<&'a RawValue>) -> Self {
        v.map_or(ParamsView::None, ParamsView::Raw)
    }
}

#[derive(Deserialize)]
struct MetaProbe {
    #[serde(default, rename = "io.modelcontextprotocol/protocolVersion")]
    protocol_version: Option<Value>,
}

#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(default)]
    name: Option<Value>,
    #[serde(default)]
    uri: Option<Value>,
    #[serde(default, rename = "taskId")]
    task_id: Option<Value>,
    #[serde(default, borrow)]
    arguments: Option<&'a RawValue>,
    // Kept raw: serde would read a struct from an array too (`["2026-07-28"]`).
    #[serde(default, borrow, rename = "_meta")]
    meta: Option<&'a RawValue>,
}

/// A string field of the probed body.
fn owned_string(v: Option<Value>) -> Option<Cow<'static, str>> {
    match v? {
        Value::String(s) => Some(Cow::Owned(s)),
        _ => None,
    }
}

/// The `tools/call` arguments: as received, or parsed.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Arguments<'a> {
    Raw(&'a str),
    Value(&'a Value),
}

/// The body fields a request's headers mirror, read from its `params` once: the `_meta`
/// protocol version and the `name`, `uri` and `taskId` strings (a field that is absent or
/// not a string reads as `None`), and the `arguments`.
///
/// [`RequestFields::scan`] reads raw params without decoding them, so a transport can take
/// the protocol version and the tool name from the same pass that
/// [`validate_request_fields`](super::validate_request_fields) then checks the headers against.
///
/// ```
/// use mcp_core::headers::{RequestFields, validate_request_fields};
/// use serde_json::value::RawValue;
///
/// let params: &RawValue = serde_json::from_str(
///     r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
/// )
/// .unwrap();
/// let fields = RequestFields::scan(Some(params)).unwrap();
/// assert_eq!(fields.name(), Some("add"));
/// assert_eq!(fields.protocol_version(), Some("2026-07-28"));
/// let headers = [
///     ("MCP-Protocol-Version", "2026-07-28"),
///     ("Mcp-Method", "tools/call"),
///     ("Mcp-Name", "add"),
/// ];
/// validate_request_fields(&headers, "tools/call", &fields, None).unwrap();
/// ```
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestFields<'a> {
    name: Option<Cow<'a, str>>,
    uri: Option<Cow<'a, str>>,
    task_id: Option<Cow<'a, str>>,
    arguments: Option<Arguments<'a>>,
    protocol_version: Option<Cow<'a, str>>,
}

impl<'a> RequestFields<'a> {
    /// The fields of `params`, as [`validate_request_headers`](super::validate_request_headers) reads them.
    ///
    /// Raw params that do not decode as the expected shape (a `_meta` that is not an
    /// object, a field given twice) read as having none of the fields.
    pub fn of(params: impl Into<ParamsView<'a>>) -> Self {
        match params.into() {
            ParamsView::None => Self::default(),
            ParamsView::Value(Value::Object(m)) => Self {
                name: m.get("name").and_then(Value::as_str).map(Cow::Borrowed),
                uri: m.get("uri").and_then(Value::as_str).map(Cow::Borrowed),
                task_id: m.get("taskId").and_then(Value::as_str).map(Cow::Borrowed),
                arguments: m.get("arguments").map(Arguments::Value),
                protocol_version: m
                    .get("_meta")
                    .and_then(|meta| meta.get(PROTOCOL_VERSION_META_KEY))
                    .and_then(Value::as_str)
                    .map(Cow::Borrowed),
            },
            ParamsView::Value(_) => Self::default(),
            ParamsView::Raw(raw) => Self::scan(Some(raw)).unwrap_or_else(|| Self::probe(raw)),
        }
    }

    /// The fields of raw params, found by a scan that decodes nothing but the strings it
    /// returns (and those only when they hold escapes).
    ///
    /// `None` when the scan cannot be sure to read what a full parse reads: params that are
    /// not an object, a key written with escapes, one of the fields given twice, a `_meta`
    /// that is neither an object nor `null`, a field that is a number, array or object
    /// (which no valid request has), or a string that does not decode. Then
    /// [`RequestFields::of`] parses them. When `Some`, every reading of the params agrees on
    /// these fields (a probe of the protocol version alone, or of the name alone, too).
    pub fn scan(params: Option<&'a RawValue>) -> Option<Self> {
        let Some(raw) = params else {
            return Some(Self::default());
        };
        crate::passes::params_pass();
        let keys = ["name", "uri", "taskId", "arguments", "_meta"];
        let ([name, uri, task_id, arguments, meta], version) =
            crate::fast_json::find_members_nested(raw.get(), keys, (4, PROTOCOL_VERSION_META_KEY))
                .ok()?;
        let protocol_version = match meta {
            None | Some("null") => None,
            Some(m) if m.starts_with('{') => scanned_string(version)?,
            Some(_) => return None,
        };
        Some(Self {
            name: scanned_string(name)?,
            uri: scanned_string(uri)?,
            task_id: scanned_string(task_id)?,
            arguments: arguments.map(Arguments::Raw),
            protocol_version,
        })
    }

    /// The fields of a request's params as the transport holds them: read from the params'
    /// one scan ([`crate::params::Params`], shared with the envelope and the dispatcher),
    /// with no pass of their own; where that scan cannot be sure (see
    /// [`RequestFields::scan`]), the parse of [`RequestFields::of`] decides. Every reading
    /// agrees: this is the one way a transport reads them.
    ///
    /// ```
    /// use mcp_core::headers::RequestFields;
    /// use mcp_core::params::Params;
    /// use serde_json::value::RawValue;
    ///
    /// let raw: &RawValue = serde_json::from_str(
    ///     r#"{"name":"add","_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}"#,
    /// )
    /// .unwrap();
    /// let params = Params::from(raw);
    /// let fields = RequestFields::of_params(Some(&params));
    /// assert_eq!(fields.name(), Some("add"));
    /// assert_eq!(fields.protocol_version(), Some("2026-07-28"));
    /// assert_eq!(fields, RequestFields::of(raw));
    /// assert_eq!(RequestFields::of_params(None), RequestFields::default());
    /// ```
    pub fn of_params(params: Option<&'a crate::params::Params>) -> Self {
        let Some(params) = params else {
            return Self::default();
        };
        Self::from_index(params).unwrap_or_else(|| Self::of(params.get()))
    }

    /// The fields from the params' one scan; `None` where [`RequestFields::scan`] would
    /// say `None`, or when the scan left the params to serde.
    fn from_index(params: &'a crate::params::Params) -> Option<Self> {
        let index = params.index()?;
        if index.meta.as_ref().is_some_and(|m| m.version_repeated) {
            return None; // the parse refuses a repeated protocolVersion: it decides
        }
        let member = |key| params.member(key);
        Some(Self {
            name: scanned_string(member("name")?)?,
            uri: scanned_string(member("uri")?)?,
            task_id: scanned_string(member("taskId")?)?,
            arguments: member("arguments")?.map(Arguments::Raw),
            protocol_version: index
                .meta
                .as_ref()
                .and_then(|m| m.protocol_version.as_deref())
                .map(Cow::Borrowed),
        })
    }

    /// [`RequestFields::of`] raw params, by a serde probe.
    ///
    /// Only an object has fields: serde would read a struct from an array too, by position
    /// (`["add"]` as the name `add`), where a parsed `Value` has none.
    pub(super) fn probe(raw: &'a RawValue) -> Self {
        crate::passes::params_pass();
        let is_object = |text: &str| text.trim_start().starts_with('{');
        if !is_object(raw.get()) {
            return Self::default();
        }
        let Ok(p) = serde_json::from_str::<Probe<'_>>(raw.get()) else {
            return Self::default();
        };
        let meta = match p.meta.map(RawValue::get) {
            None => None,
            Some(m) if is_object(m) => match serde_json::from_str::<MetaProbe>(m) {
                Ok(m) => Some(m),
                Err(_) => return Self::default(),
            },
            // A `_meta` that is no object: none of the fields, as documented on `of`.
            Some(_) => return Self::default(),
        };
        Self {
            name: owned_string(p.name),
            uri: owned_string(p.uri),
            task_id: owned_string(p.task_id),
            arguments: p.arguments.map(|a| Arguments::Raw(a.get())),
            protocol_version: meta.and_then(|m| owned_string(m.protocol_version)),
        }
    }

    /// `_meta["io.modelcontextprotocol/protocolVersion"]`, when a string.
    pub fn protocol_version(&self) -> Option<&str> {
        self.protocol_version.as_deref()
    }

    /// `params.name` (the tool of a `tools/call`), when a string.
    pub fn name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// The string field `field` (`name`, `uri` or `taskId`).
    pub(super) fn field(&self, field: &str) -> Option<&str> {
        match field {
            "name" => self.name.as_deref(),
            "uri" => self.uri.as_deref(),
            "taskId" => self.task_id.as_deref(),
            _ => None,
        }
    }

    /// The `arguments`, parsed; `None` when absent or not JSON a `Value` holds.
    pub(super) fn arguments(&self) -> Option<Cow<'a, Value>> {
        match self.arguments? {
            Arguments::Raw(text) => serde_json::from_str(text).ok().map(Cow::Owned),
            Arguments::Value(v) => Some(Cow::Borrowed(v)),
        }
    }
}

/// The string a scanned member holds: `Some(None)` when absent, `null` or a boolean;
/// `None` when the scan cannot tell what a parse into a `Value` gives (a number may be out
/// of range, an escape a lone surrogate), so the full parse decides.
fn scanned_string(member: Option<&str>) -> Option<Option<Cow<'_, str>>> {
    let Some(text) = member else {
        return Some(None);
    };
    if matches!(text, "null" | "true" | "false") {
        return Some(None);
    }
    let inner = text.strip_prefix('"')?.strip_suffix('"')?;
    if !inner.contains('\\') {
        // Valid JSON (the text of a `RawValue`) without escapes is the string itself.
        return Some(Some(Cow::Borrowed(inner)));
    }
    serde_json::from_str::<String>(text)
        .ok()
        .map(|s| Some(Cow::Owned(s)))
}

/// The `params` field `Mcp-Name` mirrors for `method`: `name` for `tools/call` and
/// `prompts/get`, `uri` for `resources/read`, `taskId` for the tasks extension's
/// `tasks/get`, `tasks/update` and `tasks/cancel`; `None` for other methods.
pub fn name_source_field(method: &str) -> Option<&'static str> {
    match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        "tasks/get" | "tasks/update" | "tasks/cancel" => Some("taskId"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by fuzzing (`tests/tests/fuzz.rs`, `headers::arbitrary_headers_and_bodies`): raw
    /// params that are an array, or whose `_meta` is an array, were read by position as
    /// if they were objects, so `["add"]` had the name `add` (and required `Mcp-Name`)
    /// where the parsed params have no fields.
    #[test]
    fn arrays_have_no_fields() {
        let raw = |s: &str| RawValue::from_string(s.to_owned()).unwrap();
        for text in [
            r#"["add", "file:///a", "t", {}, {"io.modelcontextprotocol/protocolVersion": "v"}]"#,
            r#"[""]"#,
            r#"{"name": "add", "_meta": ["2026-07-28"]}"#,
        ] {
            let p = raw(text);
            assert_eq!(
                RequestFields::of(ParamsView::Raw(&p)),
                RequestFields::default(),
                "{text}"
            );
        }
        let p = raw(r#"{"name": "add", "_meta": null}"#);
        assert_eq!(RequestFields::probe(&p).name(), Some("add"));
    }

    #[test]
    fn scan_reads_what_the_probe_reads_or_leaves_it_to_the_probe() {
        let pv = r#""io.modelcontextprotocol/protocolVersion""#;
        let raw = |s: &str| RawValue::from_string(s.to_owned()).unwrap();
        let agree = [
            "{}".to_owned(),
            format!(
                r#" {{ "name" : "add" , "_meta" : {{ {pv} : "2026-07-28" , "x" : [ 1 ] }} }} "#
            ),
            format!(r#"{{"uri":"file:///a\"b","taskId":"t\u00e9","_meta":{{{pv}:null}}}}"#),
            r#"{"name":null,"uri":true,"taskId":false,"_meta":null,"arguments":[1, 2]}"#.to_owned(),
            r#"{"name":"\ud83d\ude00","arguments":{"a":{"name":1}},"other":[{"_meta":5}]}"#
                .to_owned(),
            // Repeats of keys the probe ignores are no failure for it either.
            format!(r#"{{"x":1,"x":2,"_meta":{{"y":1,"y":2,{pv}:"v"}}}}"#),
        ];
        for text in &agree {
            let p = raw(text);
            let scanned = RequestFields::scan(Some(&p)).unwrap_or_else(|| panic!("{text}"));
            assert_eq!(scanned, RequestFields::probe(&p), "{text}");
        }
        let p = raw(&agree[2]);
        let f = RequestFields::scan(Some(&p)).unwrap();
        assert_eq!(f.field("uri"), Some("file:///a\"b"));
        assert_eq!(f.field("taskId"), Some("té"));
        assert_eq!(f.protocol_version(), None);
        assert!(matches!(f.uri, Some(Cow::Owned(_))));
        let p = raw(&agree[1]);
        let f = RequestFields::scan(Some(&p)).unwrap();
        assert!(matches!(f.name, Some(Cow::Borrowed("add"))));
        assert_eq!(f.protocol_version(), Some("2026-07-28"));
        assert_eq!(RequestFields::scan(None), Some(RequestFields::default()));

        // What only a parse can judge: the scan declines, and `of` takes the probe's answer.
        let decline = [
            "[\"add\"]".to_owned(),
            r#"{"name":"a","name":"b"}"#.to_owned(),
            r#"{"n\u0061me":"a"}"#.to_owned(),
            r#"{"name":"a","_meta":5}"#.to_owned(),
            format!(r#"{{"name":"a","_meta":[{pv}]}}"#),
            format!(r#"{{"name":"a","_meta":{{{pv}:"x",{pv}:"y"}}}}"#),
            r#"{"name":"a","uri":1e400}"#.to_owned(),
            r#"{"name":"\ud800","uri":"u"}"#.to_owned(),
            r#"{"name":{"x":1},"uri":"u"}"#.to_owned(),
            format!(r#"{{"name":"a","_meta":{{{pv}:7}}}}"#),
        ];
        for text in &decline {
            let p = raw(text);
            assert_eq!(RequestFields::scan(Some(&p)), None, "{text}");
            assert_eq!(RequestFields::of(&*p), RequestFields::probe(&p), "{text}");
        }
        // The params' one scan reads the same fields, or declines where `scan` declines;
        // either way `of_params` answers what the parse answers.
        for text in agree.iter().chain(&decline) {
            let p = raw(text);
            let params = crate::params::Params::from(&*p);
            match RequestFields::from_index(&params) {
                Some(f) => assert_eq!(Some(f), RequestFields::scan(Some(&p)), "{text}"),
                None => assert!(
                    decline.contains(text) || RequestFields::scan(Some(&p)).is_some(),
                    "{text}"
                ),
            }
            assert_eq!(
                RequestFields::of_params(Some(&params)),
                RequestFields::of(&*p),
                "{text}"
            );
        }
        // A probe that fails reads no field at all (the params check rejects such a body).
        let p = raw(&decline[3]);
        assert_eq!(RequestFields::of(&*p), RequestFields::default());
        let p = raw(&decline[8]);
        assert_eq!(RequestFields::of(&*p).field("uri"), Some("u"));
    }
}
