//! The JSON Schema (draft 2020-12, as OpenAPI 3.1 embeds it) of the document's values: one variant per kind of value, each with the keywords that bound it, serialized by serde.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde::{Serialize, Serializer};
use serde_json::Value;

/// A description or other text: mostly a literal, sometimes built from a table.
pub(super) type Text = Cow<'static, str>;

/// A schema.
#[derive(Clone, Debug)]
pub(super) enum Schema {
    /// `"type": "string"` (or `["string", "null"]`).
    String(StringSchema),
    /// `"type": "integer"` (or `["integer", "null"]`).
    Integer(IntegerSchema),
    /// `"type": "number"`, unbounded.
    Number,
    /// `"type": "number"` with bounds (a length in millimetres).
    BoundedNumber(NumberSchema),
    /// `"type": "boolean"`.
    Boolean(BooleanSchema),
    /// `"type": "object"` (or `["object", "null"]`).
    Object(ObjectSchema),
    /// `"type": "array"`.
    Array(ArraySchema),
    /// `"$ref"` to a component schema.
    Ref(RefSchema),
    /// `"oneOf"`: exactly one of the schemas.
    OneOf(Vec<Schema>),
    /// `"const"` without a type: the one value allowed.
    Const(Constant),
    /// `"anyOf"`: at least one of the schemas.
    AnyOf(Vec<Schema>),
    /// `{}`: any JSON value (an item the server judges alone, failing it alone).
    Any,
}

/// A `format` the document uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub(super) enum Format {
    /// An RFC 4122 UUID.
    Uuid,
    /// An absolute URI.
    Uri,
    /// An RFC 3339 date-time.
    DateTime,
    /// An RFC 3339 full date.
    Date,
    /// Bytes that are not text (an image, an archive).
    Binary,
}

/// The value of a `const` schema.
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(untagged)]
pub(super) enum Constant {
    /// A boolean.
    Flag(bool),
    /// A string.
    Text(&'static str),
    /// `null`.
    Null,
}

/// The keywords of a string schema.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct StringSchema {
    /// Whether `null` is allowed too.
    #[serde(skip)]
    nullable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    format: Option<Format>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_length: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_length: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pattern: Option<Text>,
    #[serde(rename = "enum", skip_serializing_if = "Option::is_none")]
    enum_values: Option<Vec<Text>>,
    #[serde(rename = "const", skip_serializing_if = "Option::is_none")]
    const_value: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Text>,
    /// The member of the same object this instant must come after (a rule JSON Schema cannot
    /// state, for clients and the fuzzer's hooks).
    #[serde(rename = "x-after", skip_serializing_if = "Option::is_none")]
    after: Option<&'static str>,
}

/// The keywords of an integer schema.
#[derive(Clone, Debug, Default, Serialize)]
pub(super) struct IntegerSchema {
    /// Whether `null` is allowed too.
    #[serde(skip)]
    nullable: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    minimum: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    maximum: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Text>,
}

/// The keywords of a bounded number schema.
#[derive(Clone, Debug, Default, Serialize)]
pub(super) struct NumberSchema {
    #[serde(skip_serializing_if = "Option::is_none")]
    minimum: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    maximum: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    default: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Text>,
}

/// The keywords of a boolean schema.
#[derive(Clone, Debug, Default, Serialize)]
pub(super) struct BooleanSchema {
    #[serde(skip_serializing_if = "Option::is_none")]
    default: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Text>,
}

/// The keywords of an object schema.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ObjectSchema {
    /// Whether `null` is allowed too.
    #[serde(skip)]
    nullable: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    required: Vec<&'static str>,
    /// `false` when members beyond `properties` are refused; absent when they are allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    additional_properties: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_properties: Option<usize>,
    /// Members that require others (`{"gradient": ["color2"]}`).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    dependent_required: BTreeMap<&'static str, Vec<&'static str>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    properties: BTreeMap<&'static str, Schema>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Text>,
    /// An example value (a request body's, which the tests send).
    #[serde(skip_serializing_if = "Option::is_none")]
    example: Option<Value>,
}

/// The keywords of an array schema.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ArraySchema {
    items: Box<Schema>,
    #[serde(skip_serializing_if = "Option::is_none")]
    min_items: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    max_items: Option<usize>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    unique_items: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Text>,
}

/// A reference to a component schema, by name.
#[derive(Clone, Debug, Serialize)]
pub(super) struct RefSchema {
    #[serde(rename = "$ref", serialize_with = "component_path")]
    name: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<Text>,
}

fn component_path<S: Serializer>(name: &&'static str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&format!("#/components/schemas/{name}"))
}

/// A string schema without bounds.
pub(super) fn string() -> StringSchema {
    StringSchema::default()
}

/// A string schema with one of `values`.
pub(super) fn one_of_strings<T: Into<Text>>(values: impl IntoIterator<Item = T>) -> StringSchema {
    StringSchema {
        enum_values: Some(values.into_iter().map(Into::into).collect()),
        ..StringSchema::default()
    }
}

/// An integer schema without bounds.
pub(super) fn integer() -> IntegerSchema {
    IntegerSchema::default()
}

/// A boolean schema.
pub(super) fn boolean() -> BooleanSchema {
    BooleanSchema::default()
}

/// An object schema without members.
pub(super) fn object() -> ObjectSchema {
    ObjectSchema::default()
}

/// An array of `items`.
pub(super) fn array(items: impl Into<Schema>) -> ArraySchema {
    ArraySchema {
        items: Box::new(items.into()),
        min_items: None,
        max_items: None,
        unique_items: false,
        description: None,
    }
}

/// A reference to the component schema `name`.
pub(super) fn reference(name: &'static str) -> RefSchema {
    RefSchema {
        name,
        description: None,
    }
}

/// Bytes that are not text: `{"type": "string", "format": "binary"}`.
pub(super) fn binary() -> StringSchema {
    string().format(Format::Binary)
}

/// A count: an integer of at least 0.
pub(super) fn count() -> IntegerSchema {
    integer().minimum(0)
}

impl StringSchema {
    /// Allows `null` too.
    pub(super) fn nullable(mut self) -> Self {
        self.nullable = true;
        self
    }

    /// The `format`.
    pub(super) fn format(mut self, format: Format) -> Self {
        self.format = Some(format);
        self
    }

    /// The fewest characters.
    pub(super) fn min_length(mut self, chars: usize) -> Self {
        self.min_length = Some(chars);
        self
    }

    /// The most characters.
    pub(super) fn max_length(mut self, chars: usize) -> Self {
        self.max_length = Some(chars);
        self
    }

    /// The regular expression the value matches.
    pub(super) fn pattern(mut self, pattern: impl Into<Text>) -> Self {
        self.pattern = Some(pattern.into());
        self
    }

    /// The member of the same object this instant must come after.
    pub(super) fn after(mut self, member: &'static str) -> Self {
        self.after = Some(member);
        self
    }

    /// The one value allowed.
    pub(super) fn constant(mut self, value: &'static str) -> Self {
        self.const_value = Some(value);
        self
    }

    /// The value meant when the parameter is absent.
    pub(super) fn default_value(mut self, value: &'static str) -> Self {
        self.default = Some(value);
        self
    }

    /// The description.
    pub(super) fn describe(mut self, text: impl Into<Text>) -> Self {
        self.description = Some(text.into());
        self
    }
}

impl IntegerSchema {
    /// Allows `null` too.
    pub(super) fn nullable(mut self) -> Self {
        self.nullable = true;
        self
    }

    /// The least value.
    pub(super) fn minimum(mut self, value: impl Into<i64>) -> Self {
        self.minimum = Some(value.into());
        self
    }

    /// The greatest value.
    pub(super) fn maximum(mut self, value: impl Into<i64>) -> Self {
        self.maximum = Some(value.into());
        self
    }

    /// The least and the greatest value.
    pub(super) fn range(self, least: impl Into<i64>, greatest: impl Into<i64>) -> Self {
        self.minimum(least).maximum(greatest)
    }

    /// The value meant when the parameter is absent.
    pub(super) fn default_value(mut self, value: impl Into<i64>) -> Self {
        self.default = Some(value.into());
        self
    }

    /// The description.
    pub(super) fn describe(mut self, text: impl Into<Text>) -> Self {
        self.description = Some(text.into());
        self
    }
}

/// A number schema from `least` to `greatest`.
pub(super) fn number(least: f64, greatest: f64) -> NumberSchema {
    NumberSchema {
        minimum: Some(least),
        maximum: Some(greatest),
        ..NumberSchema::default()
    }
}

impl NumberSchema {
    /// The value meant when the member is absent.
    pub(super) fn default_value(mut self, value: f64) -> Self {
        self.default = Some(value);
        self
    }

    /// The description.
    pub(super) fn describe(mut self, text: impl Into<Text>) -> Self {
        self.description = Some(text.into());
        self
    }
}

impl From<NumberSchema> for Schema {
    fn from(schema: NumberSchema) -> Self {
        Schema::BoundedNumber(schema)
    }
}

impl BooleanSchema {
    /// The value meant when the parameter is absent.
    pub(super) fn default_value(mut self, value: bool) -> Self {
        self.default = Some(value);
        self
    }

    /// The description.
    pub(super) fn describe(mut self, text: impl Into<Text>) -> Self {
        self.description = Some(text.into());
        self
    }
}

impl ObjectSchema {
    /// Allows `null` too.
    pub(super) fn nullable(mut self) -> Self {
        self.nullable = true;
        self
    }

    /// The members that must be present.
    pub(super) fn required(mut self, names: &[&'static str]) -> Self {
        self.required = names.to_vec();
        self
    }

    /// Refuses members beyond `properties` (`"additionalProperties": false`).
    pub(super) fn closed(mut self) -> Self {
        self.additional_properties = Some(false);
        self
    }

    /// The fewest members.
    pub(super) fn min_properties(mut self, members: usize) -> Self {
        self.min_properties = Some(members);
        self
    }

    /// When `member` is present, `required` must be too.
    pub(super) fn dependent_required(
        mut self,
        member: &'static str,
        required: &[&'static str],
    ) -> Self {
        self.dependent_required.insert(member, required.to_vec());
        self
    }

    /// Adds (or replaces) the member `name`.
    pub(super) fn property(mut self, name: &'static str, schema: impl Into<Schema>) -> Self {
        self.properties.insert(name, schema.into());
        self
    }

    /// Adds (or replaces) every member of `properties`.
    pub(super) fn properties(
        mut self,
        properties: impl IntoIterator<Item = (&'static str, Schema)>,
    ) -> Self {
        self.properties.extend(properties);
        self
    }

    /// The description.
    pub(super) fn describe(mut self, text: impl Into<Text>) -> Self {
        self.description = Some(text.into());
        self
    }

    /// An example value.
    pub(super) fn example(mut self, value: Value) -> Self {
        self.example = Some(value);
        self
    }
}

impl ArraySchema {
    /// The fewest items.
    pub(super) fn min_items(mut self, items: usize) -> Self {
        self.min_items = Some(items);
        self
    }

    /// The most items.
    pub(super) fn max_items(mut self, items: usize) -> Self {
        self.max_items = Some(items);
        self
    }

    /// Refuses repeated items.
    pub(super) fn unique(mut self) -> Self {
        self.unique_items = true;
        self
    }

    /// The description.
    pub(super) fn describe(mut self, text: impl Into<Text>) -> Self {
        self.description = Some(text.into());
        self
    }
}

impl RefSchema {
    /// The description (beside the reference, it describes this use of the component).
    pub(super) fn describe(mut self, text: impl Into<Text>) -> Self {
        self.description = Some(text.into());
        self
    }
}

impl From<StringSchema> for Schema {
    fn from(schema: StringSchema) -> Self {
        Schema::String(schema)
    }
}

impl From<IntegerSchema> for Schema {
    fn from(schema: IntegerSchema) -> Self {
        Schema::Integer(schema)
    }
}

impl From<BooleanSchema> for Schema {
    fn from(schema: BooleanSchema) -> Self {
        Schema::Boolean(schema)
    }
}

impl From<ObjectSchema> for Schema {
    fn from(schema: ObjectSchema) -> Self {
        Schema::Object(schema)
    }
}

impl From<ArraySchema> for Schema {
    fn from(schema: ArraySchema) -> Self {
        Schema::Array(schema)
    }
}

impl From<RefSchema> for Schema {
    fn from(schema: RefSchema) -> Self {
        Schema::Ref(schema)
    }
}

/// The `type` keyword: one type, or the type and `null`.
struct TypeName {
    name: &'static str,
    nullable: bool,
}

impl Serialize for TypeName {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        if self.nullable {
            [self.name, "null"].serialize(serializer)
        } else {
            self.name.serialize(serializer)
        }
    }
}

/// A typed schema as written: `type` beside the kind's own keywords.
#[derive(Serialize)]
struct Typed<'a, T: Serialize> {
    #[serde(rename = "type")]
    type_name: TypeName,
    #[serde(flatten)]
    keywords: &'a T,
}

fn typed<S: Serializer, T: Serialize>(
    serializer: S,
    name: &'static str,
    nullable: bool,
    keywords: &T,
) -> Result<S::Ok, S::Error> {
    Typed {
        type_name: TypeName { name, nullable },
        keywords,
    }
    .serialize(serializer)
}

/// `{"oneOf": [...]}`.
#[derive(Serialize)]
struct OneOf<'a> {
    #[serde(rename = "oneOf")]
    schemas: &'a [Schema],
}

/// `{"anyOf": [...]}`.
#[derive(Serialize)]
struct AnyOf<'a> {
    #[serde(rename = "anyOf")]
    schemas: &'a [Schema],
}

/// `{"const": value}`.
#[derive(Serialize)]
struct Const {
    #[serde(rename = "const")]
    value: Constant,
}

/// No keywords beside `type`.
#[derive(Serialize)]
struct NoKeywords {}

impl Serialize for Schema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            Schema::String(s) => typed(serializer, "string", s.nullable, s),
            Schema::Integer(s) => typed(serializer, "integer", s.nullable, s),
            Schema::Number => typed(serializer, "number", false, &NoKeywords {}),
            Schema::BoundedNumber(s) => typed(serializer, "number", false, s),
            Schema::Boolean(s) => typed(serializer, "boolean", false, s),
            Schema::Object(s) => typed(serializer, "object", s.nullable, s),
            Schema::Array(s) => typed(serializer, "array", false, s),
            Schema::Ref(s) => s.serialize(serializer),
            Schema::OneOf(schemas) => OneOf { schemas }.serialize(serializer),
            Schema::Const(value) => Const { value: *value }.serialize(serializer),
            Schema::AnyOf(schemas) => AnyOf { schemas }.serialize(serializer),
            Schema::Any => NoKeywords {}.serialize(serializer),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keywords_are_written_as_json_schema_spells_them() {
        let schema: Schema = object()
            .nullable()
            .closed()
            .required(&["a"])
            .property("a", string().min_length(1).max_length(2).nullable())
            .property("b", array(reference("Link")).max_items(3).unique())
            .property("c", integer().range(-1, 5).default_value(2))
            .into();
        assert_eq!(
            serde_json::to_value(&schema).unwrap(),
            json!({"type": ["object", "null"], "additionalProperties": false, "required": ["a"],
                   "properties": {
                       "a": {"type": ["string", "null"], "minLength": 1, "maxLength": 2},
                       "b": {"type": "array", "items": {"$ref": "#/components/schemas/Link"},
                             "maxItems": 3, "uniqueItems": true},
                       "c": {"type": "integer", "minimum": -1, "maximum": 5, "default": 2}}})
        );
        assert_eq!(
            serde_json::to_value(Schema::Const(Constant::Flag(true))).unwrap(),
            json!({"const": true})
        );
    }
}
