//! `x-mcp-header` annotations of a tool's input schema: which are valid, and which header
//! mirrors which argument.

use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Value};

use super::{MCP_PARAM_PREFIX, X_MCP_HEADER};

/// Whether `s` is an RFC 9110 token (`1*tchar`): letters, digits and ``!#$%&'*+-.^_`|~``.
pub fn is_token(s: &str) -> bool {
    !s.is_empty()
        && s.bytes().all(|b| {
            b.is_ascii_alphanumeric()
                || matches!(
                    b,
                    b'!' | b'#'
                        | b'$'
                        | b'%'
                        | b'&'
                        | b'\''
                        | b'*'
                        | b'+'
                        | b'-'
                        | b'.'
                        | b'^'
                        | b'_'
                        | b'`'
                        | b'|'
                        | b'~'
                )
        })
}

/// The full header name for an `x-mcp-header` value: `Mcp-Param-{name}`.
pub fn param_header_name(name: &str) -> String {
    format!("{MCP_PARAM_PREFIX}{name}")
}

/// The primitive JSON type of an annotated property.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ParamType {
    /// `"type": "string"`.
    String,
    /// `"type": "integer"`.
    Integer,
    /// `"type": "boolean"`.
    Boolean,
}

/// One `x-mcp-header` annotation of a valid schema: which header mirrors which argument.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeaderParam {
    /// The `x-mcp-header` value, e.g. `Region`.
    pub name: String,
    /// The header name, e.g. `Mcp-Param-Region`.
    pub header: String,
    /// The property keys from the root of `arguments` to the annotated value.
    pub path: Vec<String>,
    /// The property's declared type.
    pub ty: ParamType,
}

impl HeaderParam {
    /// The argument's location as a JSON Pointer into `arguments`, e.g. `/location/region`.
    pub fn pointer(&self) -> String {
        self.path
            .iter()
            .map(|k| format!("/{}", escape_pointer(k)))
            .collect()
    }

    /// The argument's value in `arguments`, if every step of the path is present.
    pub fn lookup<'v>(&self, arguments: &'v Value) -> Option<&'v Value> {
        self.path
            .iter()
            .try_fold(arguments, |v, key| v.as_object()?.get(key))
    }
}

/// What is wrong with one `x-mcp-header` annotation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AnnotationProblemKind {
    /// The annotation is not a JSON string.
    NotAString,
    /// The annotation is the empty string.
    Empty,
    /// The annotation holds a control character (CR, LF, …).
    ControlCharacter,
    /// The annotation is not an RFC 9110 token.
    NotAToken,
    /// Another annotation has the same name, ignoring ASCII case.
    Duplicate {
        /// Schema pointer of the first annotation with that name.
        first: String,
    },
    /// The property's `type` is not exactly one of `string`, `integer`, `boolean`
    /// (optionally with `null`).
    UnsupportedType {
        /// The `type` keyword as JSON, or `(none)`.
        found: String,
    },
    /// The annotated schema is not reached from the root through `properties` keys alone
    /// (it sits under `items`, a combinator, a conditional, `$defs`, … or is the root).
    NotStaticallyReachable,
}

/// One invalid `x-mcp-header` annotation, located by a JSON Pointer into the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AnnotationProblem {
    /// JSON Pointer of the annotated (sub)schema, e.g. `/properties/region`.
    pub path: String,
    /// The annotation value as JSON (e.g. `"Region"`).
    pub annotation: String,
    /// What is wrong.
    pub kind: AnnotationProblemKind,
}

impl fmt::Display for AnnotationProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = if self.path.is_empty() {
            "(root)"
        } else {
            &self.path
        };
        write!(f, "x-mcp-header {} at {path}: ", self.annotation)?;
        match &self.kind {
            AnnotationProblemKind::NotAString => f.write_str("the annotation must be a string"),
            AnnotationProblemKind::Empty => f.write_str("the annotation must not be empty"),
            AnnotationProblemKind::ControlCharacter => {
                f.write_str("the annotation must not contain control characters")
            }
            AnnotationProblemKind::NotAToken => {
                f.write_str("the annotation must be an RFC 9110 token")
            }
            AnnotationProblemKind::Duplicate { first } => write!(
                f,
                "the name duplicates the annotation at {first} (case-insensitively)"
            ),
            AnnotationProblemKind::UnsupportedType { found } => write!(
                f,
                "only string, integer and boolean properties may be mirrored (type is {found})"
            ),
            AnnotationProblemKind::NotStaticallyReachable => f.write_str(
                "the property must be reachable from the root through `properties` keys only",
            ),
        }
    }
}

fn escape_pointer(key: &str) -> Cow<'_, str> {
    if key.contains(['~', '/']) {
        Cow::Owned(key.replace('~', "~0").replace('/', "~1"))
    } else {
        Cow::Borrowed(key)
    }
}

/// The declared primitive type of a property schema, if it is exactly one allowed type
/// (optionally with `null`).
fn param_type(schema: &Map<String, Value>) -> Result<ParamType, String> {
    let one = |t: &str| match t {
        "string" => Some(ParamType::String),
        "integer" => Some(ParamType::Integer),
        "boolean" => Some(ParamType::Boolean),
        _ => None,
    };
    let found = || {
        schema
            .get("type")
            .map_or("(none)".to_string(), Value::to_string)
    };
    match schema.get("type") {
        Some(Value::String(t)) => one(t).ok_or_else(found),
        Some(Value::Array(ts)) => {
            let mut non_null = ts.iter().filter(|t| t.as_str() != Some("null"));
            match (
                non_null.next().and_then(Value::as_str).and_then(one),
                non_null.next(),
            ) {
                (Some(t), None) => Ok(t),
                _ => Err(found()),
            }
        }
        _ => Err(found()),
    }
}

/// An annotation found while walking a schema.
struct Found<'s> {
    pointer: String,
    /// `Some(argument path)` when reached through `properties` alone (and not the root).
    arg_path: Option<Vec<String>>,
    annotation: &'s Value,
    schema: &'s Map<String, Value>,
}

/// Keywords whose value is a map of name -> subschema.
const SCHEMA_MAP_KEYWORDS: &[&str] = &[
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
    "dependencies",
];
/// Keywords whose value is one subschema (or, for `items` in draft-07, an array of them).
const SCHEMA_KEYWORDS: &[&str] = &[
    "items",
    "additionalItems",
    "additionalProperties",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "contentSchema",
];
/// Keywords whose value is an array of subschemas.
const SCHEMA_ARRAY_KEYWORDS: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];

fn walk<'s>(
    schema: &'s Value,
    pointer: &str,
    arg_path: Option<Vec<String>>,
    out: &mut Vec<Found<'s>>,
) {
    if let Value::Object(obj) = schema {
        walk_object(obj, pointer, arg_path, out);
    }
}

fn walk_object<'s>(
    obj: &'s Map<String, Value>,
    pointer: &str,
    arg_path: Option<Vec<String>>,
    out: &mut Vec<Found<'s>>,
) {
    if let Some(annotation) = obj.get(X_MCP_HEADER) {
        out.push(Found {
            pointer: pointer.to_string(),
            arg_path: arg_path.clone().filter(|p| !p.is_empty()),
            annotation,
            schema: obj,
        });
    }
    for (keyword, value) in obj {
        let here = format!("{pointer}/{}", escape_pointer(keyword));
        if SCHEMA_MAP_KEYWORDS.contains(&keyword.as_str()) {
            let Value::Object(children) = value else {
                continue;
            };
            for (key, child) in children {
                let child_path = if keyword == "properties" {
                    arg_path.as_ref().map(|p| {
                        let mut p = p.clone();
                        p.push(key.clone());
                        p
                    })
                } else {
                    None
                };
                walk(
                    child,
                    &format!("{here}/{}", escape_pointer(key)),
                    child_path,
                    out,
                );
            }
        } else if SCHEMA_KEYWORDS.contains(&keyword.as_str()) {
            match value {
                Value::Array(items) => {
                    for (i, item) in items.iter().enumerate() {
                        walk(item, &format!("{here}/{i}"), None, out);
                    }
                }
                _ => walk(value, &here, None, out),
            }
        } else if SCHEMA_ARRAY_KEYWORDS.contains(&keyword.as_str())
            && let Value::Array(items) = value
        {
            for (i, item) in items.iter().enumerate() {
                walk(item, &format!("{here}/{i}"), None, out);
            }
        }
    }
}

/// Every annotation in the schema, those reachable through `properties` first.
fn find_annotations(schema: &Map<String, Value>) -> Vec<Found<'_>> {
    let mut out = Vec::new();
    walk_object(schema, "", Some(Vec::new()), &mut out);
    out.sort_by_key(|f| f.arg_path.is_none());
    out
}

/// Judges one annotation on its own (not duplicates).
fn judge(found: &Found<'_>) -> Result<(String, ParamType, Vec<String>), AnnotationProblemKind> {
    let Value::String(name) = found.annotation else {
        return Err(AnnotationProblemKind::NotAString);
    };
    if name.is_empty() {
        return Err(AnnotationProblemKind::Empty);
    }
    if name.chars().any(char::is_control) {
        return Err(AnnotationProblemKind::ControlCharacter);
    }
    if !is_token(name) {
        return Err(AnnotationProblemKind::NotAToken);
    }
    let Some(path) = &found.arg_path else {
        return Err(AnnotationProblemKind::NotStaticallyReachable);
    };
    let ty = param_type(found.schema)
        .map_err(|found| AnnotationProblemKind::UnsupportedType { found })?;
    Ok((name.clone(), ty, path.clone()))
}

/// Every problem with the `x-mcp-header` annotations of a tool's `inputSchema`; `Ok(())`
/// when there are none (including when there are no annotations).
///
/// Rules: the value is a non-empty RFC 9110 token without control characters, unique
/// ignoring ASCII case, on a property of type `string`, `integer` or `boolean`, reached from
/// the root through `properties` keys only. Annotations are searched in every subschema
/// keyword (`items`, `allOf`, `if`, `$defs`, …) so misplaced ones are reported too; values
/// of non-schema keywords (`const`, `default`, `examples`, unknown keywords) are not.
///
/// A client on Streamable HTTP drops a tool for which this fails, logging the problems.
pub fn validate_header_annotations(
    schema: &Map<String, Value>,
) -> Result<(), Vec<AnnotationProblem>> {
    header_params(schema).map(|_| ())
}

/// The header-to-argument map of a tool's `inputSchema`, in schema order; the problems of
/// [`validate_header_annotations`] when any annotation is invalid.
pub fn header_params(
    schema: &Map<String, Value>,
) -> Result<Vec<HeaderParam>, Vec<AnnotationProblem>> {
    let (params, problems) = judge_all(schema);
    if problems.is_empty() {
        Ok(params)
    } else {
        Err(problems)
    }
}

/// Judges every annotation: the usable ones (valid on their own, first of each name, those
/// reachable through `properties` taking precedence) and every problem. One annotation may
/// have two problems: its own and being a duplicate.
fn judge_all(schema: &Map<String, Value>) -> (Vec<HeaderParam>, Vec<AnnotationProblem>) {
    let mut params = Vec::new();
    let mut problems = Vec::new();
    // (lowercase name, pointer of its first occurrence)
    let mut seen: Vec<(String, String)> = Vec::new();
    for found in find_annotations(schema) {
        let problem = |kind| AnnotationProblem {
            path: found.pointer.clone(),
            annotation: found.annotation.to_string(),
            kind,
        };
        let judged = judge(&found);
        let mut duplicate = false;
        if let Value::String(name) = found.annotation {
            let lower = name.to_ascii_lowercase();
            if let Some((_, first)) = seen.iter().find(|(n, _)| *n == lower) {
                duplicate = true;
                problems.push(problem(AnnotationProblemKind::Duplicate {
                    first: first.clone(),
                }));
            } else if !name.is_empty() {
                seen.push((lower, found.pointer.clone()));
            }
        }
        match judged {
            Ok((name, ty, path)) if !duplicate => params.push(HeaderParam {
                header: param_header_name(&name),
                name,
                path,
                ty,
            }),
            Ok(_) => {}
            Err(kind) => problems.push(problem(kind)),
        }
    }
    (params, problems)
}

/// The usable annotations of a possibly invalid schema. Client and server use the same
/// set, so they agree even on a schema a client should have dropped.
pub(super) fn usable_header_params(schema: &Map<String, Value>) -> Vec<HeaderParam> {
    judge_all(schema).0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::test_support::*;
    use serde_json::json;

    #[test]
    fn token_table() {
        let table: &[(&str, bool)] = &[
            ("Region", true),
            ("X-Tenant_Id.v2", true),
            ("!#$%&'*+-.^_`|~09azAZ", true),
            ("", false),
            ("a b", false),
            ("a:b", false),
            ("a/b", false),
            ("a\"b", false),
            ("(a)", false),
            ("a\r\n", false),
            ("ä", false),
        ];
        for (s, want) in table {
            assert_eq!(is_token(s), *want, "{s:?}");
        }
    }

    fn problems(schema: Value) -> Vec<(String, AnnotationProblemKind)> {
        match validate_header_annotations(&obj(schema)) {
            Ok(()) => Vec::new(),
            Err(ps) => ps.into_iter().map(|p| (p.path, p.kind)).collect(),
        }
    }

    #[test]
    fn annotation_validity_table() {
        use AnnotationProblemKind::*;
        let unreachable = |p: &str| vec![(p.to_string(), NotStaticallyReachable)];
        let table: Vec<(Value, Vec<(String, AnnotationProblemKind)>)> = vec![
            // valid
            (json!({"type": "object"}), vec![]),
            (
                json!({"type": "object", "properties": {
                    "s": {"type": "string", "x-mcp-header": "S"},
                    "i": {"type": "integer", "x-mcp-header": "I"},
                    "b": {"type": "boolean", "x-mcp-header": "B"},
                    "n": {"type": ["string", "null"], "x-mcp-header": "N"},
                    "o": {"type": "object", "properties": {
                        "deep": {"type": "string", "x-mcp-header": "Deep"}
                    }}
                }}),
                vec![],
            ),
            // a property *named* x-mcp-header is not an annotation; const/default data is not schema
            (
                json!({"type": "object", "properties": {
                    "x-mcp-header": {"type": "string"},
                    "c": {"type": "object", "const": {"x-mcp-header": 5}, "default": {"x-mcp-header": ""}}
                }}),
                vec![],
            ),
            // name rules
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": ""}}}),
                vec![("/properties/a".into(), Empty)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A B"}}}),
                vec![("/properties/a".into(), NotAToken)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A:B"}}}),
                vec![("/properties/a".into(), NotAToken)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "A\r\nB"}}}),
                vec![("/properties/a".into(), ControlCharacter)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": "Ä"}}}),
                vec![("/properties/a".into(), NotAToken)],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "string", "x-mcp-header": 7}}}),
                vec![("/properties/a".into(), NotAString)],
            ),
            // uniqueness, case-insensitive
            (
                json!({"type": "object", "properties": {
                    "a": {"type": "string", "x-mcp-header": "Region"},
                    "b": {"type": "string", "x-mcp-header": "REGION"}
                }}),
                vec![(
                    "/properties/b".into(),
                    Duplicate {
                        first: "/properties/a".into(),
                    },
                )],
            ),
            // types
            (
                json!({"type": "object", "properties": {"a": {"type": "number", "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "\"number\"".into(),
                    },
                )],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "object", "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "\"object\"".into(),
                    },
                )],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": "array", "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "\"array\"".into(),
                    },
                )],
            ),
            (
                json!({"type": "object", "properties": {"a": {"enum": ["x"], "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "(none)".into(),
                    },
                )],
            ),
            (
                json!({"type": "object", "properties": {"a": {"type": ["string", "integer"], "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a".into(),
                    UnsupportedType {
                        found: "[\"string\",\"integer\"]".into(),
                    },
                )],
            ),
            // reachability
            (
                json!({"type": "object", "x-mcp-header": "Root"}),
                unreachable(""),
            ),
            (
                json!({"type": "object", "properties": {"list": {"type": "array",
                    "items": {"type": "string", "x-mcp-header": "A"}}}}),
                unreachable("/properties/list/items"),
            ),
            (
                json!({"type": "object", "properties": {"list": {"type": "array",
                    "items": {"type": "object", "properties": {"x": {"type": "string", "x-mcp-header": "A"}}}}}}),
                unreachable("/properties/list/items/properties/x"),
            ),
            (
                json!({"type": "object", "properties": {"t": {"type": "array",
                    "prefixItems": [{"type": "string", "x-mcp-header": "A"}]}}}),
                unreachable("/properties/t/prefixItems/0"),
            ),
            (
                json!({"type": "object", "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                unreachable("/anyOf/0/properties/a"),
            ),
            (
                json!({"type": "object", "oneOf": [{"type": "object"}, {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                unreachable("/oneOf/1/properties/a"),
            ),
            (
                json!({"type": "object", "allOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}]}),
                unreachable("/allOf/0/properties/a"),
            ),
            (
                json!({"type": "object", "not": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}),
                unreachable("/not/properties/a"),
            ),
            (
                json!({"type": "object", "if": {"properties": {"a": {"const": "x"}}},
                    "then": {"properties": {"b": {"type": "string", "x-mcp-header": "B"}}},
                    "else": {"properties": {"c": {"type": "string", "x-mcp-header": "C"}}}}),
                vec![
                    ("/else/properties/c".into(), NotStaticallyReachable),
                    ("/then/properties/b".into(), NotStaticallyReachable),
                ],
            ),
            (
                json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/r"}},
                    "$defs": {"r": {"type": "string", "x-mcp-header": "A"}}}),
                unreachable("/$defs/r"),
            ),
            (
                json!({"type": "object", "additionalProperties": {"type": "string", "x-mcp-header": "A"}}),
                unreachable("/additionalProperties"),
            ),
            (
                json!({"type": "object", "patternProperties": {"^a": {"type": "string", "x-mcp-header": "A"}}}),
                unreachable("/patternProperties/^a"),
            ),
            (
                json!({"type": "object", "properties": {"o": {"type": "object",
                    "dependentSchemas": {"k": {"properties": {"a": {"type": "string", "x-mcp-header": "A"}}}}}}}),
                unreachable("/properties/o/dependentSchemas/k/properties/a"),
            ),
            // draft-07 tuple `items`
            (
                json!({"type": "object", "properties": {"t": {"type": "array",
                    "items": [{"type": "string", "x-mcp-header": "A"}]}}}),
                unreachable("/properties/t/items/0"),
            ),
            // a misplaced duplicate: its own problem and the duplicate, the reachable one wins
            (
                json!({"type": "object",
                    "anyOf": [{"properties": {"a": {"type": "string", "x-mcp-header": "region"}}}],
                    "properties": {"a": {"type": "string", "x-mcp-header": "Region"}}}),
                vec![
                    (
                        "/anyOf/0/properties/a".into(),
                        Duplicate {
                            first: "/properties/a".into(),
                        },
                    ),
                    ("/anyOf/0/properties/a".into(), NotStaticallyReachable),
                ],
            ),
            // pointer escaping in the reported path
            (
                json!({"type": "object", "properties": {"a/b~c": {"type": "number", "x-mcp-header": "A"}}}),
                vec![(
                    "/properties/a~1b~0c".into(),
                    UnsupportedType {
                        found: "\"number\"".into(),
                    },
                )],
            ),
        ];
        for (schema, want) in table {
            let got = problems(schema.clone());
            // Map order is not significant for this assertion.
            let mut got_sorted = got.clone();
            got_sorted.sort_by(|a, b| a.0.cmp(&b.0));
            let mut want_sorted = want.clone();
            want_sorted.sort_by(|a, b| a.0.cmp(&b.0));
            assert_eq!(got_sorted, want_sorted, "schema {schema}");
        }
    }

    #[test]
    fn all_problems_reported_with_readable_messages() {
        let schema = obj(json!({"type": "object", "properties": {
            "a": {"type": "number", "x-mcp-header": "A"},
            "b": {"type": "string", "x-mcp-header": "bad name"},
            "c": {"type": "array", "items": {"type": "string", "x-mcp-header": "C"}},
            "d": {"type": "string", "x-mcp-header": "Ok"}
        }}));
        let ps = validate_header_annotations(&schema).unwrap_err();
        assert_eq!(ps.len(), 3);
        let text: Vec<String> = ps.iter().map(ToString::to_string).collect();
        assert!(
            text.iter()
                .any(|t| t.contains("/properties/a") && t.contains("number")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("/properties/b") && t.contains("token")),
            "{text:?}"
        );
        assert!(
            text.iter()
                .any(|t| t.contains("/properties/c/items") && t.contains("properties")),
            "{text:?}"
        );
    }

    #[test]
    fn extraction_of_header_params() {
        let schema = obj(json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "loc": {"type": "object", "properties": {
                "zone/id": {"type": "integer", "x-mcp-header": "Zone"}
            }},
            "dry": {"type": ["boolean", "null"], "x-mcp-header": "Dry-Run"},
            "query": {"type": "string"}
        }}));
        let mut params = header_params(&schema).unwrap();
        params.sort_by(|a, b| a.name.cmp(&b.name));
        let summary: Vec<(&str, &str, String, ParamType)> = params
            .iter()
            .map(|p| (p.name.as_str(), p.header.as_str(), p.pointer(), p.ty))
            .collect();
        assert_eq!(
            summary,
            vec![
                (
                    "Dry-Run",
                    "Mcp-Param-Dry-Run",
                    "/dry".to_string(),
                    ParamType::Boolean
                ),
                (
                    "Region",
                    "Mcp-Param-Region",
                    "/region".to_string(),
                    ParamType::String
                ),
                (
                    "Zone",
                    "Mcp-Param-Zone",
                    "/loc/zone~1id".to_string(),
                    ParamType::Integer
                ),
            ]
        );
        let args = json!({"region": "eu", "loc": {"zone/id": 3}});
        assert_eq!(params[2].lookup(&args), Some(&json!(3)));
        assert_eq!(params[0].lookup(&args), None);
        assert_eq!(params[2].lookup(&json!({"loc": 5})), None);
        assert!(
            header_params(&obj(json!({"type": "object"})))
                .unwrap()
                .is_empty()
        );
    }
}
