//! The requested schema of a form-mode elicitation, derived from a Rust type.
//!
//! Elicitation forms are a deliberately small subset of JSON Schema: a flat object whose
//! fields are strings (with `format` email/uri/date/date-time, `minLength`, `maxLength`),
//! numbers or integers (`minimum`, `maximum`), booleans, single-select enums (plain or
//! titled) and multi-select arrays of enums, each with an optional title, description and
//! default. [`form_schema`] turns the schemars schema of a struct into that subset, and
//! refuses everything else (nested objects, maps, free arrays, patterns, …) with an error
//! naming the field and the reason, instead of sending a form the client cannot render.
//!
//! ```
//! use mcp_runtime::form_schema;
//!
//! #[derive(schemars::JsonSchema, serde::Deserialize)]
//! struct Signup {
//!     /// Your name
//!     name: String,
//!     #[schemars(range(min = 18))]
//!     age: u32,
//!     #[serde(default)]
//!     newsletter: bool,
//!     plan: Plan,
//! }
//!
//! #[derive(schemars::JsonSchema, serde::Deserialize)]
//! #[serde(rename_all = "lowercase")]
//! enum Plan { Free, Pro }
//!
//! let schema = form_schema::<Signup>().unwrap();
//! assert_eq!(schema.properties.len(), 4);
//! assert_eq!(schema.required.as_deref(), Some(&["name".to_owned(), "age".to_owned(), "plan".to_owned()][..]));
//!
//! #[derive(schemars::JsonSchema, serde::Deserialize)]
//! struct Nested { inner: Signup }
//! let err = form_schema::<Nested>().unwrap_err();
//! assert!(err.to_string().contains("field `inner`"));
//! ```

use std::any::TypeId;
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock};

use mcp_core::types::{
    BooleanSchema, NumberSchema, NumberType, PrimitiveSchemaDefinition, RequestedSchema,
    SchemaProperties, StringFormat, StringSchema, TitledEnumItems, TitledEnumOption,
    TitledMultiSelectEnumSchema, TitledSingleSelectEnumSchema, UntitledEnumItems,
    UntitledMultiSelectEnumSchema, UntitledSingleSelectEnumSchema,
};
use serde_json::{Map, Value};

/// Why a type cannot be an elicitation form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormSchemaError {
    /// The Rust type.
    pub type_name: &'static str,
    /// The offending field, when the problem is one field.
    pub field: Option<String>,
    /// What is wrong.
    pub reason: String,
}

impl fmt::Display for FormSchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}` cannot be an elicitation form: ", self.type_name)?;
        if let Some(field) = &self.field {
            write!(f, "field `{field}`: ")?;
        }
        f.write_str(&self.reason)?;
        f.write_str(
            " (forms hold only string, number, integer, boolean, enum and multi-select enum \
             fields)",
        )
    }
}

impl std::error::Error for FormSchemaError {}

type Cache = Mutex<HashMap<TypeId, Result<Arc<RequestedSchema>, FormSchemaError>>>;

/// The form for `T`, derived once per type and cached. Fields keep their declaration order
/// (clients lay forms out in this order).
pub fn form_schema<T>() -> Result<RequestedSchema, FormSchemaError>
where
    T: schemars::JsonSchema + serde::de::DeserializeOwned + 'static,
{
    cached_form_schema::<T>().map(|s| (*s).clone())
}

pub(crate) fn cached_form_schema<T>() -> Result<Arc<RequestedSchema>, FormSchemaError>
where
    T: schemars::JsonSchema + serde::de::DeserializeOwned + 'static,
{
    static CACHE: OnceLock<Cache> = OnceLock::new();
    let cache = CACHE.get_or_init(Default::default);
    if let Some(hit) = cache.lock().expect("form cache").get(&TypeId::of::<T>()) {
        return hit.clone();
    }
    let root = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let made = from_json_schema(root.as_value())
        .map(|mut s| {
            if let Some(order) = declared_fields::<T>() {
                reorder(&mut s, order);
            }
            s
        })
        .map(Arc::new)
        .map_err(|(field, reason)| FormSchemaError {
            type_name: std::any::type_name::<T>(),
            field,
            reason,
        });
    cache
        .lock()
        .expect("form cache")
        .insert(TypeId::of::<T>(), made.clone());
    made
}

type Failure = (Option<String>, String);

/// The serialized field names of a struct in declaration order, read from what its
/// `Deserialize` impl asks for (schemars' map may be sorted by name).
fn declared_fields<T: serde::de::DeserializeOwned>() -> Option<&'static [&'static str]> {
    struct Probe(Option<&'static [&'static str]>);
    #[derive(Debug)]
    struct Stop;
    impl fmt::Display for Stop {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("probe")
        }
    }
    impl std::error::Error for Stop {}
    impl serde::de::Error for Stop {
        fn custom<M: fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    impl<'de> serde::Deserializer<'de> for &mut Probe {
        type Error = Stop;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _name: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0 = Some(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut probe = Probe(None);
    let _ = T::deserialize(&mut probe);
    probe.0
}

fn reorder(schema: &mut RequestedSchema, order: &[&str]) {
    let rank = |n: &str| order.iter().position(|o| *o == n).unwrap_or(usize::MAX);
    schema.properties.0.sort_by_key(|(n, _)| rank(n));
    if let Some(req) = &mut schema.required {
        req.sort_by_key(|n| rank(n));
    }
}

/// Converts a JSON Schema object (as schemars writes it) into a form.
fn from_json_schema(root: &Value) -> Result<RequestedSchema, Failure> {
    let defs = root
        .get("$defs")
        .or_else(|| root.get("definitions"))
        .and_then(Value::as_object);
    let top = resolve(
        root.as_object()
            .ok_or((None, "not a schema object".into()))?,
        defs,
    )
    .map_err(|r| (None, r))?;
    if top.get("type").and_then(Value::as_str) != Some("object") {
        return Err((None, "the form must be a struct with named fields".into()));
    }
    for k in ["oneOf", "anyOf", "allOf", "patternProperties"] {
        if top.contains_key(k) {
            return Err((None, format!("`{k}` at the top level is not a flat form")));
        }
    }
    let mut properties = SchemaProperties::new();
    if let Some(props) = top.get("properties").and_then(Value::as_object) {
        for (name, v) in props {
            let obj = v
                .as_object()
                .ok_or_else(|| (Some(name.clone()), "not a schema object".to_owned()))?;
            let field = field(obj, defs).map_err(|r| (Some(name.clone()), r))?;
            properties.insert(name.clone(), field);
        }
    }
    if properties.is_empty() {
        return Err((None, "the form has no fields".into()));
    }
    let required: Vec<String> = top
        .get("required")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default();
    let required: Vec<String> = properties
        .iter()
        .map(|(n, _)| n.to_owned())
        .filter(|n| required.contains(n))
        .collect();
    Ok(RequestedSchema {
        required: (!required.is_empty()).then_some(required),
        ..RequestedSchema::new(properties)
    })
}

/// Follows a local `$ref` (keeping the referring schema's annotations) and unwraps the
/// `null` alternative of an `Option`.
fn resolve(
    v: &Map<String, Value>,
    defs: Option<&Map<String, Value>>,
) -> Result<Map<String, Value>, String> {
    let mut out = v.clone();
    for _ in 0..8 {
        if let Some(r) = out.get("$ref").and_then(Value::as_str).map(str::to_owned) {
            let name = r
                .strip_prefix("#/$defs/")
                .or_else(|| r.strip_prefix("#/definitions/"))
                .ok_or_else(|| format!("unsupported reference {r}"))?;
            let target = defs
                .and_then(|d| d.get(name))
                .and_then(Value::as_object)
                .ok_or_else(|| format!("unresolved reference {r}"))?;
            out.remove("$ref");
            let mut merged = target.clone();
            merged.extend(out);
            out = merged;
            continue;
        }
        // Option<T>: `type: [T, "null"]` or `anyOf: [T, {type: null}]`.
        if let Some(Value::Array(types)) = out.get("type") {
            let non_null: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
            match non_null.as_slice() {
                [one] => {
                    out.insert("type".into(), one.clone());
                }
                _ => return Err("a field must have exactly one type".into()),
            }
        }
        for key in ["anyOf", "oneOf"] {
            let Some(Value::Array(alts)) = out.get(key) else {
                continue;
            };
            let is_null = |a: &Value| a.get("type").and_then(Value::as_str) == Some("null");
            if alts.len() == 2 && alts.iter().any(is_null) {
                let inner = alts
                    .iter()
                    .find(|a| !is_null(a))
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default();
                out.remove(key);
                let mut merged = inner;
                merged.extend(out);
                out = merged;
                break;
            }
        }
        if !out.contains_key("$ref") {
            return Ok(out);
        }
    }
    Err("references nest too deeply".into())
}

fn text(v: &Map<String, Value>, k: &str) -> Option<String> {
    v.get(k).and_then(Value::as_str).map(str::to_owned)
}

fn uint(v: &Map<String, Value>, k: &str) -> Result<Option<u64>, String> {
    match v.get(k) {
        None => Ok(None),
        Some(x) => x
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("`{k}` must be a non-negative integer")),
    }
}

fn number(v: &Map<String, Value>, k: &str) -> Result<Option<serde_json::Number>, String> {
    match v.get(k) {
        None => Ok(None),
        Some(Value::Number(n)) => Ok(Some(n.clone())),
        Some(_) => Err(format!("`{k}` must be a number")),
    }
}

/// The options of an enum: `enum: [..]` (untitled) or `oneOf`/`anyOf` of `const`s (titled
/// when any option has a title).
enum Options {
    Untitled(Vec<String>),
    Titled(Vec<TitledEnumOption>),
}

fn options(
    v: &Map<String, Value>,
    defs: Option<&Map<String, Value>>,
) -> Result<Option<Options>, String> {
    if let Some(e) = v.get("enum") {
        let values = e
            .as_array()
            .ok_or("`enum` must be an array")?
            .iter()
            .map(|x| x.as_str().map(str::to_owned))
            .collect::<Option<Vec<_>>>()
            .ok_or("enum values must be strings (use unit variants)")?;
        return Ok(Some(Options::Untitled(values)));
    }
    let Some(alts) = v
        .get("oneOf")
        .or_else(|| v.get("anyOf"))
        .and_then(Value::as_array)
    else {
        return Ok(None);
    };
    let mut opts = Vec::with_capacity(alts.len());
    let mut titled = false;
    for a in alts {
        let a = resolve(a.as_object().ok_or("not a schema object")?, defs)?;
        let value = match (a.get("const"), a.get("enum")) {
            (Some(Value::String(s)), _) => s.clone(),
            (None, Some(Value::Array(one))) if one.len() == 1 && one[0].is_string() => {
                one[0].as_str().unwrap_or_default().to_owned()
            }
            _ => {
                return Err(
                    "only enums of unit variants (string constants) are allowed, not data-carrying variants"
                        .into(),
                );
            }
        };
        let title = text(&a, "title");
        titled |= title.is_some();
        opts.push(TitledEnumOption::new(value.clone(), title.unwrap_or(value)));
    }
    Ok(Some(if titled {
        Options::Titled(opts)
    } else {
        Options::Untitled(opts.into_iter().map(|o| o.const_).collect())
    }))
}

/// The title and description every kind of field carries.
struct Labels {
    title: Option<String>,
    description: Option<String>,
}

fn field(
    v: &Map<String, Value>,
    defs: Option<&Map<String, Value>>,
) -> Result<PrimitiveSchemaDefinition, String> {
    let v = resolve(v, defs)?;
    for k in [
        "pattern",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "allOf",
        "not",
    ] {
        if v.contains_key(k) {
            return Err(format!("`{k}` is not part of an elicitation field schema"));
        }
    }
    let labels = Labels {
        title: text(&v, "title"),
        description: text(&v, "description"),
    };
    let default = v.get("default");
    let ty = v.get("type").and_then(Value::as_str);
    if matches!(ty, None | Some("string"))
        && let Some(opts) = options(&v, defs)?
    {
        return single_select(labels, opts, default_string(default)?);
    }
    match ty {
        Some("string") => string_field(&v, labels, default_string(default)?),
        Some(t @ ("integer" | "number")) => Ok(NumberSchema {
            type_: if t == "integer" {
                NumberType::Integer
            } else {
                NumberType::Number
            },
            title: labels.title,
            description: labels.description,
            minimum: number(&v, "minimum")?,
            maximum: number(&v, "maximum")?,
            default: match default {
                None | Some(Value::Null) => None,
                Some(Value::Number(n)) => Some(n.clone()),
                Some(_) => return Err("the default must be a number".into()),
            },
        }
        .into()),
        Some("boolean") => Ok(BooleanSchema {
            title: labels.title,
            description: labels.description,
            default: match default {
                None | Some(Value::Null) => None,
                Some(Value::Bool(b)) => Some(*b),
                Some(_) => return Err("the default must be a boolean".into()),
            },
            ..Default::default()
        }
        .into()),
        Some("array") => multi_select(&v, defs, labels, default),
        Some("object") => Err("nested objects and maps are not allowed in a form".into()),
        Some("null") => Err("a unit field has nothing to ask".into()),
        Some(other) => Err(format!("type {other:?} is not allowed")),
        None => Err("the field has no single type".into()),
    }
}

/// A string field's default: absent, `null` or a string.
fn default_string(default: Option<&Value>) -> Result<Option<String>, String> {
    match default {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err("the default must be a string".into()),
    }
}

/// A string field with a choice of values (an enum, with or without titles).
fn single_select(
    labels: Labels,
    opts: Options,
    default: Option<String>,
) -> Result<PrimitiveSchemaDefinition, String> {
    Ok(match opts {
        Options::Untitled(enum_) => UntitledSingleSelectEnumSchema {
            title: labels.title,
            description: labels.description,
            enum_,
            default,
            ..Default::default()
        }
        .into(),
        Options::Titled(one_of) => TitledSingleSelectEnumSchema {
            title: labels.title,
            description: labels.description,
            one_of,
            default,
            ..Default::default()
        }
        .into(),
    })
}

/// A free-text string field, with its length bounds and format.
fn string_field(
    v: &Map<String, Value>,
    labels: Labels,
    default: Option<String>,
) -> Result<PrimitiveSchemaDefinition, String> {
    let format = match v.get("format").and_then(Value::as_str) {
        None => None,
        Some("email") => Some(StringFormat::Email),
        Some("uri") => Some(StringFormat::Uri),
        Some("date") => Some(StringFormat::Date),
        Some("date-time") => Some(StringFormat::DateTime),
        Some(other) => {
            return Err(format!(
                "string format {other:?} is not one of email, uri, date, date-time"
            ));
        }
    };
    Ok(StringSchema {
        title: labels.title,
        description: labels.description,
        min_length: uint(v, "minLength")?,
        max_length: uint(v, "maxLength")?,
        format,
        default,
        ..Default::default()
    }
    .into())
}

/// An array field: a multi-select of an enum's values.
fn multi_select(
    v: &Map<String, Value>,
    defs: Option<&Map<String, Value>>,
    labels: Labels,
    default: Option<&Value>,
) -> Result<PrimitiveSchemaDefinition, String> {
    let items = v
        .get("items")
        .and_then(Value::as_object)
        .ok_or("an array field needs `items`")?;
    let items = resolve(items, defs)?;
    let opts = options(&items, defs)?
        .ok_or("an array field must be a multi-select of an enum (Vec of a unit-variant enum)")?;
    let default = match default {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) => Some(
            a.iter()
                .map(|x| x.as_str().map(str::to_owned))
                .collect::<Option<Vec<_>>>()
                .ok_or("the default must be an array of strings")?,
        ),
        Some(_) => return Err("the default must be an array of strings".into()),
    };
    let (min_items, max_items) = (uint(v, "minItems")?, uint(v, "maxItems")?);
    Ok(match opts {
        Options::Untitled(enum_) => UntitledMultiSelectEnumSchema {
            title: labels.title,
            description: labels.description,
            min_items,
            max_items,
            items: UntitledEnumItems {
                enum_,
                ..Default::default()
            },
            default,
            ..Default::default()
        }
        .into(),
        Options::Titled(any_of) => TitledMultiSelectEnumSchema {
            title: labels.title,
            description: labels.description,
            min_items,
            max_items,
            items: TitledEnumItems { any_of },
            default,
            ..Default::default()
        }
        .into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Everything {
        /// Full name
        #[schemars(length(min = 1, max = 50))]
        name: String,
        #[schemars(email)]
        email: String,
        #[schemars(range(min = 0, max = 150))]
        age: u8,
        score: f64,
        #[serde(default = "yes")]
        verified: bool,
        nickname: Option<String>,
        color: Color,
        #[schemars(length(max = 2))]
        tags: Vec<Color>,
        size: Size,
        sizes: Vec<Size>,
    }

    fn yes() -> bool {
        true
    }

    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[serde(rename_all = "lowercase")]
    #[allow(dead_code)]
    enum Color {
        Red,
        Green,
    }

    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    enum Size {
        #[schemars(title = "Small size")]
        S,
        #[schemars(title = "Large size")]
        L,
    }

    #[test]
    fn derives_every_primitive_kind() {
        let s = form_schema::<Everything>().unwrap();
        let v = serde_json::to_value(&s).unwrap();
        let p = &v["properties"];
        assert_eq!(
            p["name"],
            json!({"type": "string", "description": "Full name", "minLength": 1, "maxLength": 50})
        );
        assert_eq!(p["email"], json!({"type": "string", "format": "email"}));
        assert_eq!(
            p["age"],
            json!({"type": "integer", "minimum": 0, "maximum": 150})
        );
        assert_eq!(p["score"], json!({"type": "number"}));
        assert_eq!(p["verified"], json!({"type": "boolean", "default": true}));
        assert_eq!(p["nickname"], json!({"type": "string"}));
        assert_eq!(
            p["color"],
            json!({"type": "string", "enum": ["red", "green"]})
        );
        assert_eq!(
            p["tags"],
            json!({"type": "array", "maxItems": 2, "items": {"type": "string", "enum": ["red", "green"]}})
        );
        assert_eq!(
            p["size"],
            json!({"type": "string", "oneOf": [{"const": "S", "title": "Small size"}, {"const": "L", "title": "Large size"}]})
        );
        assert_eq!(
            p["sizes"],
            json!({"type": "array", "items": {"anyOf": [{"const": "S", "title": "Small size"}, {"const": "L", "title": "Large size"}]}})
        );
        assert_eq!(
            v["required"],
            json!([
                "name", "email", "age", "score", "color", "tags", "size", "sizes"
            ])
        );
        // Field order is declaration order.
        let names: Vec<&str> = s.properties.iter().map(|(n, _)| n).collect();
        assert_eq!(names[..3], ["name", "email", "age"]);
    }

    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Bad1 {
        inner: Inner,
    }
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        x: i32,
    }
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Bad2 {
        list: Vec<String>,
    }
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Bad3 {
        #[schemars(regex(pattern = "^a"))]
        code: String,
    }
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Bad4 {
        shape: Shape,
    }
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    enum Shape {
        Circle(f64),
        Square { side: f64 },
    }
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Bad5 {
        map: std::collections::HashMap<String, String>,
    }
    #[derive(schemars::JsonSchema, serde::Deserialize)]
    #[allow(dead_code)]
    struct Bad6 {
        #[schemars(url)]
        id: String,
        #[schemars(extend("format" = "uuid"))]
        other: String,
    }

    #[test]
    fn refuses_what_forms_cannot_hold_naming_the_field() {
        let cases: [(Result<RequestedSchema, FormSchemaError>, &str, &str); 6] = [
            (form_schema::<Bad1>(), "inner", "nested objects"),
            (form_schema::<Bad2>(), "list", "multi-select of an enum"),
            (form_schema::<Bad3>(), "code", "`pattern`"),
            (form_schema::<Bad4>(), "shape", "unit variants"),
            (form_schema::<Bad5>(), "map", "nested objects and maps"),
            (form_schema::<Bad6>(), "other", "\"uuid\""),
        ];
        for (r, field, reason) in cases {
            let e = r.unwrap_err();
            assert_eq!(e.field.as_deref(), Some(field), "{e}");
            assert!(e.to_string().contains(reason), "{e}");
            assert!(
                e.to_string().contains("cannot be an elicitation form"),
                "{e}"
            );
        }
        assert!(form_schema::<u32>().unwrap_err().field.is_none());
    }

    #[test]
    fn the_schema_is_cached_per_type() {
        let a = cached_form_schema::<Everything>().unwrap();
        let b = cached_form_schema::<Everything>().unwrap();
        assert!(Arc::ptr_eq(&a, &b));
    }
}
