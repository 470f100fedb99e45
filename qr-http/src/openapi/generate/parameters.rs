//! The parameters of `GET /api/generate`, read from qr-generate's parameter table (each setting's schema from its control, bounds and default, its description and example) and content table (`type` and the content fields), and the whole example requests.

use std::collections::BTreeMap;

use qr_generate::bounds::MAX_DATA_CHARS;
use qr_generate::content::{CONTENT_TYPES, FieldKind, FieldParameter};
use qr_generate::parameters::{COLOUR_PATTERN, Control, PARAMETERS, Parameter as Generate};

use super::super::json_schema::{
    Format, Schema, StringSchema, boolean, integer, one_of_strings, string,
};
use super::super::model::{Example, ExampleRequest, Parameter};

/// A UTC date and time as the content fields take it: `YYYY-MM-DDTHH:MM[:SS]Z`.
const UTC_TIME_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2})?[Zz]$";

/// One generate setting (`data` and the render parameters, which batch items and defaults take
/// too).
pub(in super::super) struct Setting {
    /// The parameter (and batch member) name.
    pub name: &'static str,
    /// What the server accepts.
    pub schema: Schema,
    /// What the setting does.
    pub description: &'static str,
    /// A value the tests send.
    pub example: Option<Example>,
}

/// A colour parameter: hex without `#`.
fn colour() -> StringSchema {
    string().pattern(COLOUR_PATTERN)
}

/// The JSON Schema of a parameter of qr-generate's table, from its control, bounds, default and
/// schema note. A default that is not a number (or not a boolean) where the control takes one
/// is a broken table entry: qr-generate's tests parse every default with the API's parser.
fn schema(parameter: &Generate) -> Schema {
    let default = parameter.default;
    let note = parameter.schema_note;
    match parameter.control {
        Control::Data { max_chars } => string().min_length(1).max_length(max_chars).into(),
        Control::Number { min, max } => {
            let mut schema = integer().range(min, max);
            if let Some(value) = default.and_then(|d| d.parse::<i64>().ok()) {
                schema = schema.default_value(value);
            }
            match note {
                Some(note) => schema.describe(note).into(),
                None => schema.into(),
            }
        }
        Control::Choice(_) | Control::ContentType => {
            strings(one_of_strings(parameter.choices()), default, note)
        }
        Control::Colour { .. } => strings(colour(), default, note),
        Control::Toggle => {
            let mut schema = boolean();
            if let Some(value) = default.and_then(|d| d.parse::<bool>().ok()) {
                schema = schema.default_value(value);
            }
            match note {
                Some(note) => schema.describe(note).into(),
                None => schema.into(),
            }
        }
        Control::Upload {
            max_url_chars,
            url_pattern,
        } => strings(
            string()
                .format(Format::Uri)
                .max_length(max_url_chars)
                .pattern(url_pattern),
            default,
            note,
        ),
        Control::Text { max_chars, pattern } => strings(
            string().max_length(max_chars).pattern(pattern),
            default,
            note,
        ),
    }
}

/// A string schema with the parameter's default and note, when it has them.
fn strings(
    mut schema: StringSchema,
    default: Option<&'static str>,
    note: Option<&'static str>,
) -> Schema {
    if let Some(value) = default {
        schema = schema.default_value(value);
    }
    if let Some(note) = note {
        schema = schema.describe(note);
    }
    schema.into()
}

/// A parameter's example, typed by its control (a number for numbers, a boolean for toggles).
fn example(parameter: &Generate) -> Option<Example> {
    let text = parameter.example?;
    Some(match parameter.control {
        Control::Number { .. } => Example::Integer(text.parse().ok()?),
        Control::Toggle => Example::Flag(text.parse().ok()?),
        _ => Example::Text(text),
    })
}

/// The generate settings in the API's order (every parameter of qr-generate's table but `type`,
/// which with the content fields is documented from the content table), with their schemas,
/// descriptions and examples: the parameters and the batch schemas take them from here.
pub(in super::super) fn settings() -> Vec<Setting> {
    PARAMETERS
        .iter()
        .filter(|p| !matches!(p.control, Control::ContentType))
        .map(|p| Setting {
            name: p.name,
            schema: schema(p),
            description: p.description,
            example: example(p),
        })
        .collect()
}

/// The query parameters of `GET /api/generate` as documented: `data`, then `type` and the
/// content fields, then the render settings.
pub(in super::super) fn parameters() -> Vec<Parameter> {
    let mut parameters: Vec<Parameter> = settings()
        .into_iter()
        .map(|s| {
            let parameter = Parameter {
                example: s.example,
                ..Parameter::query(s.name, s.schema, s.description)
            };
            // `data` or `type` says what the code holds, never both (400): a rule between
            // parameters, stated on both for clients.
            if s.name == "data" {
                parameter.excludes(vec![qr_generate::parameters::CONTENT_TYPE.name])
            } else {
                parameter
            }
        })
        .collect();
    parameters.splice(1..1, content_parameters());
    parameters
}

/// The schema of `type`: the content types' names (aliases are accepted too).
pub(in super::super) fn content_type_schema() -> Schema {
    schema(&qr_generate::parameters::CONTENT_TYPE)
}

/// The schema of a content field, from qr-generate's table.
pub(in super::super) fn content_field_schema(kind: FieldKind) -> Schema {
    match kind {
        FieldKind::Text | FieldKind::Multiline => string().max_length(MAX_DATA_CHARS).into(),
        FieldKind::Choice(values) => one_of_strings(values.iter().copied())
            .describe("Case-insensitive")
            .into(),
        FieldKind::Flag => boolean().default_value(false).into(),
        FieldKind::Number => Schema::Number,
        FieldKind::DateTime => string().pattern(UTC_TIME_PATTERN).into(),
    }
}

/// `type` and every content field, each field once with the types that use it.
fn content_parameters() -> Vec<Parameter> {
    let kind = &qr_generate::parameters::CONTENT_TYPE;
    let mut parameters = vec![
        Parameter::query(kind.name, content_type_schema(), kind.full_description())
            .excludes(vec!["data"]),
    ];
    parameters.extend(
        qr_generate::content::field_parameters()
            .iter()
            .map(content_field_parameter),
    );
    parameters
}

/// The parameter of a content field: its wordings with the types that use them and those that
/// require it (qr-generate's [`FieldParameter::description`]).
fn content_field_parameter(field: &FieldParameter) -> Parameter {
    // The first type's kind decides the schema: every type giving the field one name gives it
    // one kind.
    let kind = field.first().kind;
    let example = field.example().map(|e| match kind {
        FieldKind::Flag => Example::Flag(e == "true"),
        _ => Example::Text(e),
    });
    let required_by = field.required_by();
    Parameter {
        example,
        content_types: Some(field.types()),
        required_for_types: (!required_by.is_empty()).then_some(required_by),
        ..Parameter::query(field.name, content_field_schema(kind), field.description())
    }
}

/// The example requests of `GET /api/generate` beyond its parameters' examples: one per content
/// type (its fields' examples) and a Micro QR code. Tests replay each and decode the image.
pub(in super::super) fn example_requests() -> Vec<ExampleRequest> {
    let mut requests: Vec<ExampleRequest> = CONTENT_TYPES
        .iter()
        .map(|t| {
            let mut query = BTreeMap::from([("type", t.name)]);
            for field in t.fields.iter().filter(|f| !f.example.is_empty()) {
                query.insert(field.name, field.example);
            }
            ExampleRequest {
                summary: t.summary,
                query,
            }
        })
        .collect();
    requests.push(ExampleRequest {
        summary: "A Micro QR code (M2) as SVG",
        query: BTreeMap::from([("data", "01234567"), ("symbol", "micro"), ("format", "svg")]),
    });
    requests
}
