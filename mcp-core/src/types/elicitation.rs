//! Elicitation (`elicitation/create`, 2025-06-18+): asking the user for input through the
//! client, either with a form (a restricted JSON Schema of primitive fields) or, from
//! 2025-11-25, by sending the user to a URL.
//!
//! Revision differences handled by [`Adapt`]:
//!
//! - 2025-06-18 has only form mode, no `mode` field, no `$schema`, no `default` on strings,
//!   numbers or enums, and a single enum shape (`enum` + optional `enumNames`). A titled
//!   single-select becomes `enum` + `enumNames`; a multi-select (no 2025-06-18 equivalent)
//!   becomes a single-select of the same options; `default`, `minItems`, `maxItems` are
//!   dropped. In [`ElicitResult`] a `string[]` value becomes its first element (the
//!   single-select answer).
//! - 2025-11-25 adds URL mode (with a required `elicitationId`), titled and multi-select
//!   enums, defaults, `task` and `_meta` on the params.
//! - 2026-07-28 elicitation is only an embedded input request of a multi-round-trip result:
//!   no `elicitationId`, no `task`, no `_meta` on params or on the result.

use std::collections::BTreeMap;

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};

use super::{Adapt, Meta, TaskMetadata, only_in, since};
use crate::version::ProtocolVersion as V;

/// Single-value `type` / `mode` markers of the elicitation schemas: each serializes as its
/// one string and refuses any other when deserialized.
pub mod tag {
    macro_rules! const_tag {
        ($(#[$doc:meta])* $name:ident = $lit:literal) => {
            $(#[$doc])*
            #[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
            pub struct $name;

            impl $name {
                /// The wire spelling.
                pub const VALUE: &'static str = $lit;
            }

            impl serde::Serialize for $name {
                fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                    s.serialize_str($lit)
                }
            }

            impl<'de> serde::Deserialize<'de> for $name {
                fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                    let v = <std::borrow::Cow<'de, str>>::deserialize(d)?;
                    if v == $lit {
                        Ok($name)
                    } else {
                        Err(serde::de::Error::invalid_value(
                            serde::de::Unexpected::Str(&v),
                            &$lit,
                        ))
                    }
                }
            }
        };
    }

    const_tag!(
        /// `"string"`.
        StringType = "string"
    );
    const_tag!(
        /// `"boolean"`.
        BooleanType = "boolean"
    );
    const_tag!(
        /// `"array"`.
        ArrayType = "array"
    );
    const_tag!(
        /// `"object"`.
        ObjectType = "object"
    );
    const_tag!(
        /// `"form"` (elicitation mode).
        FormMode = "form"
    );
    const_tag!(
        /// `"url"` (elicitation mode).
        UrlMode = "url"
    );
}

// ---------------------------------------------------------------------------------------------
// Primitive schemas
// ---------------------------------------------------------------------------------------------

/// The `format` of a [`StringSchema`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum StringFormat {
    /// `"email"`.
    #[serde(rename = "email")]
    Email,
    /// `"uri"`.
    #[serde(rename = "uri")]
    Uri,
    /// `"date"`.
    #[serde(rename = "date")]
    Date,
    /// `"date-time"`.
    #[serde(rename = "date-time")]
    DateTime,
}

/// A free-text field (`StringSchema`, 2025-06-18+).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StringSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub type_: tag::StringType,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Minimum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_length: Option<u64>,
    /// Maximum length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_length: Option<u64>,
    /// A format the value must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<StringFormat>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl Adapt for StringSchema {
    fn adapt(&mut self, rev: V) {
        since(&mut self.default, rev, V::V2025_11_25);
    }
}

/// Whether a [`NumberSchema`] accepts any number or integers only.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NumberType {
    /// `"number"`.
    #[default]
    Number,
    /// `"integer"`.
    Integer,
}

/// A numeric field (`NumberSchema`, 2025-06-18+). Bounds are kept as JSON numbers so that
/// `18` stays `18` and `0.5` stays `0.5`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NumberSchema {
    /// `"number"` or `"integer"`.
    #[serde(rename = "type")]
    pub type_: NumberType,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Inclusive minimum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<serde_json::Number>,
    /// Inclusive maximum.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<serde_json::Number>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<serde_json::Number>,
}

impl Adapt for NumberSchema {
    fn adapt(&mut self, rev: V) {
        since(&mut self.default, rev, V::V2025_11_25);
    }
}

/// A yes/no field (`BooleanSchema`, 2025-06-18+; `default` in every revision that has it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BooleanSchema {
    /// Always `"boolean"`.
    #[serde(rename = "type")]
    pub type_: tag::BooleanType,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<bool>,
}

impl Adapt for BooleanSchema {
    fn adapt(&mut self, _rev: V) {}
}

/// One option of a titled enum: `{const, title}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TitledEnumOption {
    /// The value sent back.
    #[serde(rename = "const")]
    pub const_: String,
    /// The label shown.
    pub title: String,
}

impl TitledEnumOption {
    /// An option with a value and a label.
    pub fn new(value: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            const_: value.into(),
            title: title.into(),
        }
    }
}

/// A single choice among plain strings (`UntitledSingleSelectEnumSchema`, 2025-11-25+; on
/// 2025-06-18 the same shape is `EnumSchema`, without `default`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub type_: tag::StringType,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub enum_: Vec<String>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl Adapt for UntitledSingleSelectEnumSchema {
    fn adapt(&mut self, rev: V) {
        since(&mut self.default, rev, V::V2025_11_25);
    }
}

/// A single choice among labelled values (`TitledSingleSelectEnumSchema`, 2025-11-25+).
/// Inside a [`PrimitiveSchemaDefinition`] for 2025-06-18 it becomes a
/// [`LegacyTitledEnumSchema`] (`enum` + `enumNames`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledSingleSelectEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub type_: tag::StringType,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The options.
    pub one_of: Vec<TitledEnumOption>,
    /// Default value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl TitledSingleSelectEnumSchema {
    /// The closest 2025-06-18 shape: `enum` + `enumNames`, without `default`.
    pub fn to_legacy(&self) -> LegacyTitledEnumSchema {
        LegacyTitledEnumSchema {
            type_: tag::StringType,
            title: self.title.clone(),
            description: self.description.clone(),
            enum_: self.one_of.iter().map(|o| o.const_.clone()).collect(),
            enum_names: Some(self.one_of.iter().map(|o| o.title.clone()).collect()),
            default: None,
        }
    }
}

impl Adapt for TitledSingleSelectEnumSchema {
    fn adapt(&mut self, _rev: V) {}
}

/// The `items` of an [`UntitledMultiSelectEnumSchema`]: `{type:"string", enum}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UntitledEnumItems {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub type_: tag::StringType,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub enum_: Vec<String>,
}

/// Several choices among plain strings (`UntitledMultiSelectEnumSchema`, 2025-11-25+).
/// Inside a [`PrimitiveSchemaDefinition`] for 2025-06-18 (which has no multi-select) it
/// becomes a single-select of the same values.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UntitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub type_: tag::ArrayType,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The allowed values.
    pub items: UntitledEnumItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

impl Adapt for UntitledMultiSelectEnumSchema {
    fn adapt(&mut self, _rev: V) {}
}

/// The `items` of a [`TitledMultiSelectEnumSchema`]: `{anyOf: [{const, title}]}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledEnumItems {
    /// The options.
    pub any_of: Vec<TitledEnumOption>,
}

/// Several choices among labelled values (`TitledMultiSelectEnumSchema`, 2025-11-25+).
/// Inside a [`PrimitiveSchemaDefinition`] for 2025-06-18 it becomes a single-select
/// `enum` + `enumNames`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TitledMultiSelectEnumSchema {
    /// Always `"array"`.
    #[serde(rename = "type")]
    pub type_: tag::ArrayType,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Fewest selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u64>,
    /// Most selections.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u64>,
    /// The options.
    pub items: TitledEnumItems,
    /// Default selection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<Vec<String>>,
}

impl Adapt for TitledMultiSelectEnumSchema {
    fn adapt(&mut self, _rev: V) {}
}

/// A single choice with optional parallel labels (`LegacyTitledEnumSchema` in 2025-11-25+,
/// deprecated there; `EnumSchema` in 2025-06-18, without `default`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LegacyTitledEnumSchema {
    /// Always `"string"`.
    #[serde(rename = "type")]
    pub type_: tag::StringType,
    /// Display label.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Help text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The allowed values.
    #[serde(rename = "enum")]
    pub enum_: Vec<String>,
    /// Labels, parallel to `enum`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enum_names: Option<Vec<String>>,
    /// Default value (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
}

impl Adapt for LegacyTitledEnumSchema {
    fn adapt(&mut self, rev: V) {
        since(&mut self.default, rev, V::V2025_11_25);
    }
}

/// One field of a form (`PrimitiveSchemaDefinition`).
///
/// Deserializing looks at `type` and at which keys are present (`enumNames`, `enum`,
/// `oneOf`, `items.anyOf`, `items.enum`); serializing writes the inner schema as is.
///
/// For 2025-06-18, [`Adapt`] converts what that revision cannot express: a titled
/// single-select becomes `enum` + `enumNames`; a multi-select becomes a single-select of the
/// same options (titled: with `enumNames`), dropping `minItems`, `maxItems` and `default`:
/// 2025-06-18 has no multi-select, and a single choice is the closest thing it can ask for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum PrimitiveSchemaDefinition {
    /// A free-text field.
    String(StringSchema),
    /// A numeric field.
    Number(NumberSchema),
    /// A yes/no field.
    Boolean(BooleanSchema),
    /// A single choice among plain strings.
    UntitledSingleSelect(UntitledSingleSelectEnumSchema),
    /// A single choice among labelled values.
    TitledSingleSelect(TitledSingleSelectEnumSchema),
    /// Several choices among plain strings.
    UntitledMultiSelect(UntitledMultiSelectEnumSchema),
    /// Several choices among labelled values.
    TitledMultiSelect(TitledMultiSelectEnumSchema),
    /// A single choice with `enumNames` labels.
    LegacyTitledEnum(LegacyTitledEnumSchema),
}

impl<'de> Deserialize<'de> for PrimitiveSchemaDefinition {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde_json::Value;
        #[derive(Clone, Copy)]
        enum K {
            Str,
            Num,
            Bool,
            Untitled1,
            Titled1,
            UntitledN,
            TitledN,
            Legacy,
        }
        fn conv<T: serde::de::DeserializeOwned, E: de::Error>(v: Value) -> Result<T, E> {
            serde_json::from_value(v).map_err(E::custom)
        }
        let v = Value::deserialize(d)?;
        let kind = {
            let has = |k: &str| v.get(k).is_some();
            let items_has = |k: &str| v.get("items").and_then(|i| i.get(k)).is_some();
            match v.get("type").and_then(Value::as_str) {
                Some("string") if has("enumNames") => K::Legacy,
                Some("string") if has("enum") => K::Untitled1,
                Some("string") if has("oneOf") => K::Titled1,
                Some("string") => K::Str,
                Some("number" | "integer") => K::Num,
                Some("boolean") => K::Bool,
                Some("array") if items_has("anyOf") => K::TitledN,
                Some("array") if items_has("enum") => K::UntitledN,
                Some("array") => {
                    return Err(de::Error::custom(
                        "array field schema needs `items.enum` or `items.anyOf`",
                    ));
                }
                Some(other) => {
                    return Err(de::Error::custom(format_args!(
                        "unsupported elicitation field type {other:?}"
                    )));
                }
                None => return Err(de::Error::custom("elicitation field schema without `type`")),
            }
        };
        match kind {
            K::Str => conv(v).map(Self::String),
            K::Num => conv(v).map(Self::Number),
            K::Bool => conv(v).map(Self::Boolean),
            K::Untitled1 => conv(v).map(Self::UntitledSingleSelect),
            K::Titled1 => conv(v).map(Self::TitledSingleSelect),
            K::UntitledN => conv(v).map(Self::UntitledMultiSelect),
            K::TitledN => conv(v).map(Self::TitledMultiSelect),
            K::Legacy => conv(v).map(Self::LegacyTitledEnum),
        }
    }
}

impl Adapt for PrimitiveSchemaDefinition {
    fn adapt(&mut self, rev: V) {
        if rev < V::V2025_11_25 {
            let converted = match &*self {
                Self::TitledSingleSelect(s) => Some(Self::LegacyTitledEnum(s.to_legacy())),
                Self::UntitledMultiSelect(s) => {
                    Some(Self::UntitledSingleSelect(UntitledSingleSelectEnumSchema {
                        type_: tag::StringType,
                        title: s.title.clone(),
                        description: s.description.clone(),
                        enum_: s.items.enum_.clone(),
                        default: None,
                    }))
                }
                Self::TitledMultiSelect(s) => {
                    Some(Self::LegacyTitledEnum(LegacyTitledEnumSchema {
                        type_: tag::StringType,
                        title: s.title.clone(),
                        description: s.description.clone(),
                        enum_: s.items.any_of.iter().map(|o| o.const_.clone()).collect(),
                        enum_names: Some(s.items.any_of.iter().map(|o| o.title.clone()).collect()),
                        default: None,
                    }))
                }
                _ => None,
            };
            if let Some(c) = converted {
                *self = c;
            }
        }
        match self {
            Self::String(s) => s.adapt(rev),
            Self::Number(s) => s.adapt(rev),
            Self::Boolean(s) => s.adapt(rev),
            Self::UntitledSingleSelect(s) => s.adapt(rev),
            Self::TitledSingleSelect(s) => s.adapt(rev),
            Self::UntitledMultiSelect(s) => s.adapt(rev),
            Self::TitledMultiSelect(s) => s.adapt(rev),
            Self::LegacyTitledEnum(s) => s.adapt(rev),
        }
    }
}

impl From<StringSchema> for PrimitiveSchemaDefinition {
    fn from(s: StringSchema) -> Self {
        Self::String(s)
    }
}
impl From<NumberSchema> for PrimitiveSchemaDefinition {
    fn from(s: NumberSchema) -> Self {
        Self::Number(s)
    }
}
impl From<BooleanSchema> for PrimitiveSchemaDefinition {
    fn from(s: BooleanSchema) -> Self {
        Self::Boolean(s)
    }
}
impl From<UntitledSingleSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: UntitledSingleSelectEnumSchema) -> Self {
        Self::UntitledSingleSelect(s)
    }
}
impl From<TitledSingleSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: TitledSingleSelectEnumSchema) -> Self {
        Self::TitledSingleSelect(s)
    }
}
impl From<UntitledMultiSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: UntitledMultiSelectEnumSchema) -> Self {
        Self::UntitledMultiSelect(s)
    }
}
impl From<TitledMultiSelectEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: TitledMultiSelectEnumSchema) -> Self {
        Self::TitledMultiSelect(s)
    }
}
impl From<LegacyTitledEnumSchema> for PrimitiveSchemaDefinition {
    fn from(s: LegacyTitledEnumSchema) -> Self {
        Self::LegacyTitledEnum(s)
    }
}

// ---------------------------------------------------------------------------------------------
// Requested schema
// ---------------------------------------------------------------------------------------------

/// The fields of a form, in the order they were inserted (or read): clients lay a form out in
/// this order, so it is kept rather than sorted. Inserting an existing name replaces it in
/// place.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchemaProperties(pub Vec<(String, PrimitiveSchemaDefinition)>);

impl SchemaProperties {
    /// No fields.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds (or replaces) a field; returns `self` for chaining.
    pub fn insert(
        &mut self,
        name: impl Into<String>,
        schema: impl Into<PrimitiveSchemaDefinition>,
    ) -> &mut Self {
        let (name, schema) = (name.into(), schema.into());
        match self.0.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = schema,
            None => self.0.push((name, schema)),
        }
        self
    }

    /// The field named `name`.
    pub fn get(&self, name: &str) -> Option<&PrimitiveSchemaDefinition> {
        self.0.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    /// The fields in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &PrimitiveSchemaDefinition)> {
        self.0.iter().map(|(n, s)| (n.as_str(), s))
    }

    /// How many fields.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are no fields.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: Into<String>, S: Into<PrimitiveSchemaDefinition>> FromIterator<(K, S)>
    for SchemaProperties
{
    fn from_iter<I: IntoIterator<Item = (K, S)>>(iter: I) -> Self {
        let mut p = Self::new();
        for (k, s) in iter {
            p.insert(k, s);
        }
        p
    }
}

impl Serialize for SchemaProperties {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for SchemaProperties {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct PropsVisitor;
        impl<'de> Visitor<'de> for PropsVisitor {
            type Value = SchemaProperties;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an object of field schemas")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut p = SchemaProperties::new();
                while let Some((k, v)) = a.next_entry::<String, PrimitiveSchemaDefinition>()? {
                    p.insert(k, v);
                }
                Ok(p)
            }
        }
        d.deserialize_map(PropsVisitor)
    }
}

impl Adapt for SchemaProperties {
    fn adapt(&mut self, rev: V) {
        for (_, s) in &mut self.0 {
            s.adapt(rev);
        }
    }
}

/// The form of a form-mode elicitation: `{type:"object", properties, required?, $schema?}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct RequestedSchema {
    /// The JSON Schema dialect (2025-11-25+).
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// Always `"object"`.
    #[serde(rename = "type")]
    pub type_: tag::ObjectType,
    /// The fields, by name.
    pub properties: SchemaProperties,
    /// Names of the fields that must be filled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required: Option<Vec<String>>,
}

impl RequestedSchema {
    /// A form with these fields and nothing required.
    pub fn new(properties: SchemaProperties) -> Self {
        Self {
            properties,
            ..Self::default()
        }
    }
}

impl Adapt for RequestedSchema {
    fn adapt(&mut self, rev: V) {
        since(&mut self.schema, rev, V::V2025_11_25);
        self.properties.adapt(rev);
    }
}

// ---------------------------------------------------------------------------------------------
// Params
// ---------------------------------------------------------------------------------------------

/// Form-mode elicitation params (`ElicitRequestFormParams` 2025-11-25+; the inline params of
/// `ElicitRequest` in 2025-06-18).
///
/// `mode` is kept as received: absent means form mode. It is removed for 2025-06-18, which
/// does not define it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitFormParams {
    /// `"form"` or absent (2025-11-25+).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<tag::FormMode>,
    /// What is asked, for the user.
    pub message: String,
    /// The form.
    pub requested_schema: RequestedSchema,
    /// Run as a task (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata (2025-11-25 only: the 2025-06-18 schema defines no `_meta` here and
    /// 2026 input requests carry none).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitFormParams {
    /// A form request.
    pub fn new(message: impl Into<String>, requested_schema: RequestedSchema) -> Self {
        Self {
            message: message.into(),
            requested_schema,
            ..Self::default()
        }
    }
}

impl Adapt for ElicitFormParams {
    fn adapt(&mut self, rev: V) {
        since(&mut self.mode, rev, V::V2025_11_25);
        only_in(&mut self.task, rev, V::V2025_11_25);
        self.task.adapt(rev);
        only_in(&mut self.meta, rev, V::V2025_11_25);
        self.requested_schema.adapt(rev);
    }
}

/// URL-mode elicitation params (`ElicitRequestURLParams`, 2025-11-25+).
///
/// `elicitationId` is required by 2025-11-25 and absent from 2026. Adapting for 2025-11-25
/// fills a missing one with an id derived from `message` and `url` (stable for the same
/// request); set it yourself to correlate a later `notifications/elicitation/complete`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitUrlParams {
    /// Always `"url"`.
    pub mode: tag::UrlMode,
    /// Why the user should go there.
    pub message: String,
    /// The URL to open.
    pub url: String,
    /// Correlates completion notifications (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elicitation_id: Option<String>,
    /// Run as a task (2025-11-25 only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task: Option<TaskMetadata>,
    /// Request metadata (2025-11-25 only).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitUrlParams {
    /// A URL request.
    pub fn new(message: impl Into<String>, url: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            url: url.into(),
            ..Self::default()
        }
    }

    /// The same request with an `elicitationId`.
    pub fn with_elicitation_id(mut self, id: impl Into<String>) -> Self {
        self.elicitation_id = Some(id.into());
        self
    }

    /// The id adapting for 2025-11-25 fills in when none is set: FNV-1a of message and URL.
    pub fn derived_elicitation_id(&self) -> String {
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in self
            .message
            .bytes()
            .chain(std::iter::once(0))
            .chain(self.url.bytes())
        {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0000_0100_0000_01b3);
        }
        format!("elicitation-{h:016x}")
    }
}

impl Adapt for ElicitUrlParams {
    fn adapt(&mut self, rev: V) {
        if rev == V::V2025_11_25 {
            if self.elicitation_id.is_none() {
                self.elicitation_id = Some(self.derived_elicitation_id());
            }
        } else {
            self.elicitation_id = None;
        }
        only_in(&mut self.task, rev, V::V2025_11_25);
        self.task.adapt(rev);
        only_in(&mut self.meta, rev, V::V2025_11_25);
    }
}

/// `elicitation/create` params (`ElicitRequestParams` 2025-11-25+): a form or a URL.
///
/// Deserializing dispatches on `mode`: absent or `"form"` is a form, `"url"` a URL; any other
/// mode is an error (a client answers it with `-32602`).
///
/// URL mode does not exist before 2025-11-25: shaped for 2025-06-18 a URL request becomes a
/// form request with no fields whose message is the original message followed by the URL,
/// so the user still sees where to go and can accept or decline. (A client must still have
/// declared `elicitation.url` before a 2025-11-25+ server sends URL mode.)
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum ElicitParams {
    /// Form mode.
    Form(ElicitFormParams),
    /// URL mode (2025-11-25+).
    Url(ElicitUrlParams),
}

impl ElicitParams {
    /// The method name.
    pub const METHOD: &'static str = "elicitation/create";

    /// The user-facing message.
    pub fn message(&self) -> &str {
        match self {
            Self::Form(p) => &p.message,
            Self::Url(p) => &p.message,
        }
    }
}

impl<'de> Deserialize<'de> for ElicitParams {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde_json::Value;
        let v = Value::deserialize(d)?;
        let url = match v.get("mode") {
            None => false,
            Some(Value::String(m)) if m == "form" => false,
            Some(Value::String(m)) if m == "url" => true,
            Some(m) => {
                return Err(de::Error::custom(format_args!(
                    "unsupported elicitation mode {m}"
                )));
            }
        };
        if url {
            serde_json::from_value(v)
                .map(Self::Url)
                .map_err(de::Error::custom)
        } else {
            serde_json::from_value(v)
                .map(Self::Form)
                .map_err(de::Error::custom)
        }
    }
}

impl Adapt for ElicitParams {
    fn adapt(&mut self, rev: V) {
        match self {
            Self::Url(u) if rev < V::V2025_11_25 => {
                *self = Self::Form(ElicitFormParams::new(
                    format!("{}\n\n{}", u.message, u.url),
                    RequestedSchema::default(),
                ));
            }
            _ => {}
        }
        match self {
            Self::Form(p) => p.adapt(rev),
            Self::Url(p) => p.adapt(rev),
        }
    }
}

impl From<ElicitFormParams> for ElicitParams {
    fn from(p: ElicitFormParams) -> Self {
        Self::Form(p)
    }
}

impl From<ElicitUrlParams> for ElicitParams {
    fn from(p: ElicitUrlParams) -> Self {
        Self::Url(p)
    }
}

// ---------------------------------------------------------------------------------------------
// Result
// ---------------------------------------------------------------------------------------------

/// What the user did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// Submitted / confirmed.
    Accept,
    /// Explicitly declined.
    Decline,
    /// Dismissed without choosing.
    Cancel,
}

/// One submitted form value: `string | number | boolean | string[]` (arrays 2025-11-25+).
/// Numbers stay JSON numbers (`30` stays an integer).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ElicitValue {
    /// A string.
    String(String),
    /// A number.
    Number(serde_json::Number),
    /// A boolean.
    Boolean(bool),
    /// Selected values of a multi-select (2025-11-25+).
    StringArray(Vec<String>),
}

impl From<&str> for ElicitValue {
    fn from(s: &str) -> Self {
        Self::String(s.to_owned())
    }
}
impl From<String> for ElicitValue {
    fn from(s: String) -> Self {
        Self::String(s)
    }
}
impl From<bool> for ElicitValue {
    fn from(b: bool) -> Self {
        Self::Boolean(b)
    }
}
impl From<i64> for ElicitValue {
    fn from(n: i64) -> Self {
        Self::Number(n.into())
    }
}
impl From<Vec<String>> for ElicitValue {
    fn from(v: Vec<String>) -> Self {
        Self::StringArray(v)
    }
}

/// The client's answer to `elicitation/create` (`ElicitResult`, 2025-06-18+).
///
/// No `resultType` in any revision (2026: it is an input response). `_meta` exists in
/// 2025-06-18 and 2025-11-25 only. For 2025-06-18 a `string[]` value becomes its first
/// element (an empty array is removed), matching the single-select a multi-select becomes
/// on that revision.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// Submitted values (only with `accept` in form mode).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<BTreeMap<String, ElicitValue>>,
    /// Result metadata (2025-06-18 and 2025-11-25).
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Meta>,
}

impl ElicitResult {
    /// An `accept` with these values.
    pub fn accept(content: BTreeMap<String, ElicitValue>) -> Self {
        Self {
            action: ElicitAction::Accept,
            content: Some(content),
            meta: None,
        }
    }
    /// A `decline`.
    pub fn decline() -> Self {
        Self {
            action: ElicitAction::Decline,
            content: None,
            meta: None,
        }
    }
    /// A `cancel`.
    pub fn cancel() -> Self {
        Self {
            action: ElicitAction::Cancel,
            content: None,
            meta: None,
        }
    }
}

impl Adapt for ElicitResult {
    fn adapt(&mut self, rev: V) {
        let arrays_unsupported = rev < V::V2025_11_25;
        if let Some(content) = self.content.as_mut().filter(|_| arrays_unsupported) {
            content.retain(|_, v| !matches!(v, ElicitValue::StringArray(a) if a.is_empty()));
            for v in content.values_mut() {
                if let ElicitValue::StringArray(a) = v {
                    let first = std::mem::take(a).into_iter().next().unwrap_or_default();
                    *v = ElicitValue::String(first);
                }
            }
        }
        if rev.era() == crate::version::Era::Modern {
            self.meta = None;
        }
    }
}

// ---------------------------------------------------------------------------------------------
// -32042
// ---------------------------------------------------------------------------------------------

/// The `data` of a `-32042` URL-elicitation-required error (`URLElicitationRequiredError`,
/// 2025-11-25 only; 2026 reserves the code and must not emit it).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UrlElicitationRequiredData {
    /// The URL elicitations to complete before retrying.
    pub elicitations: Vec<ElicitUrlParams>,
}

impl UrlElicitationRequiredData {
    /// The error code.
    pub const CODE: i32 = -32042;

    /// The error object carrying this data (adapted for 2025-11-25).
    pub fn to_error(&self, message: impl Into<String>) -> crate::jsonrpc::ErrorObject {
        crate::jsonrpc::ErrorObject::new(Self::CODE, message)
            .with_data(super::to_value_for(self, V::V2025_11_25))
    }
}

impl Adapt for UrlElicitationRequiredData {
    fn adapt(&mut self, rev: V) {
        self.elicitations.adapt(rev);
    }
}
