//! The parameters of `GET /api/generate` in one table: each setting's schema, description and example, then `type` and the content fields from qr-generate's content table, and the whole example requests.

use std::collections::BTreeMap;

use qr_generate::bounds::{
    MAX_DATA_CHARS, MAX_DPI, MAX_LOGO_SIZE, MAX_MARGIN, MAX_PRINT_SIZE, MAX_SIZE, MIN_DPI,
    MIN_LOGO_SIZE, MIN_PRINT_SIZE, MIN_SIZE,
};
use qr_generate::content::{CONTENT_TYPES, ContentField, FieldKind};

use super::super::json_schema::{
    Format, Schema, StringSchema, boolean, integer, one_of_strings, string,
};
use super::super::model::{Example, ExampleRequest, Parameter};

/// A colour as the server parses it: RGB, RRGGBB or RRGGBBAA hex without `#`.
const COLOUR_PATTERN: &str = "^([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$";
/// A frame text: printable ASCII and Latin-1, the characters of the compiled-in font.
const FRAME_TEXT_PATTERN: &str = "^[\\x20-\\x7E\\xA0-\\xFF]*$";
/// A UTC date and time as the content fields take it: `YYYY-MM-DDTHH:MM[:SS]Z`.
const UTC_TIME_PATTERN: &str = r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2})?[Zz]$";
/// The longest logo URL.
const MAX_LOGO_URL_CHARS: usize = 2048;

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

fn setting(
    name: &'static str,
    schema: impl Into<Schema>,
    description: &'static str,
    example: Option<Example>,
) -> Setting {
    Setting {
        name,
        schema: schema.into(),
        description,
        example,
    }
}

/// A colour parameter: hex without `#`.
fn colour() -> StringSchema {
    string().pattern(COLOUR_PATTERN)
}

/// The names of a qr-core option enum, for a JSON Schema `enum`.
fn names<T: std::fmt::Display>(values: &[T]) -> StringSchema {
    one_of_strings(values.iter().map(ToString::to_string))
}

/// The generate settings in the API's order, with their schemas, descriptions and examples: the
/// one place the designer's form, the parameters and the batch schemas take them from.
pub(in super::super) fn settings() -> Vec<Setting> {
    use Example::{Flag, Integer, Text};
    vec![
        setting(
            "data",
            string().min_length(1).max_length(MAX_DATA_CHARS),
            "Content to encode (at most 2,953 characters); required unless type is given, and not with type",
            Some(Text("https://example.com")),
        ),
        setting(
            "size",
            integer().range(MIN_SIZE, MAX_SIZE).default_value(300),
            "Image width and height in pixels",
            Some(Integer(300)),
        ),
        setting(
            "format",
            one_of_strings(["png", "svg", "pdf", "eps"])
                .default_value("png")
                .describe("Case-insensitive; pdf and eps are print documents of printSize"),
            "Image format",
            Some(Text("png")),
        ),
        setting(
            "color",
            colour().default_value("000000"),
            "Foreground colour, hex RGB, RRGGBB or RRGGBBAA without #",
            Some(Text("1a237e")),
        ),
        setting(
            "background",
            colour().default_value("ffffff"),
            "Background colour, hex without #",
            Some(Text("ffffff")),
        ),
        setting(
            "errorCorrection",
            one_of_strings(["L", "M", "Q", "H"])
                .default_value("M")
                .describe("Case-insensitive"),
            "Error correction level",
            Some(Text("Q")),
        ),
        setting(
            "margin",
            integer().range(0, MAX_MARGIN).default_value(4),
            "Quiet zone in modules",
            Some(Integer(4)),
        ),
        setting(
            "logo",
            string()
                .format(Format::Uri)
                .max_length(MAX_LOGO_URL_CHARS)
                .pattern("^[Hh][Tt][Tt][Pp][Ss]?://"),
            "URL of a PNG or JPEG logo on a public host (Pro plan)",
            None,
        ),
        setting(
            "logoSize",
            integer().range(MIN_LOGO_SIZE, MAX_LOGO_SIZE).default_value(20),
            "Logo width in percent of the code",
            Some(Integer(20)),
        ),
        setting(
            "style",
            names(qr_core::ModuleStyle::ALL)
                .default_value("square")
                .describe("Case-insensitive; square is the plain image"),
            "Shape of the data modules; connected merges neighbours into smooth runs",
            Some(Text("rounded")),
        ),
        setting(
            "finderStyle",
            names(qr_core::FinderStyle::ALL).default_value("square"),
            "Shape of the three finder patterns",
            Some(Text("rounded")),
        ),
        setting(
            "finderColor",
            colour(),
            "Colour of the finder patterns, hex without # (default: the modules' paint)",
            Some(Text("1a237e")),
        ),
        setting(
            "gradient",
            names(qr_core::GradientKind::ALL).describe("From color to color2 (which it requires)"),
            "Gradient over the dark modules from color to color2",
            Some(Text("linear")),
        ),
        setting(
            "color2",
            colour(),
            "End colour of the gradient, hex without # (required with gradient)",
            Some(Text("6a1b9a")),
        ),
        setting(
            "gradientAngle",
            integer().range(0, 359).default_value(0),
            "Direction of a linear gradient in degrees: 0 left to right, 90 top to bottom",
            Some(Integer(45)),
        ),
        setting(
            "frame",
            names(qr_core::FrameStyle::ALL).default_value("none"),
            "A frame around the code; the image keeps its size",
            Some(Text("banner-bottom")),
        ),
        setting(
            "frameText",
            string()
                .max_length(qr_core::FrameText::MAX_CHARS)
                .pattern(FRAME_TEXT_PATTERN),
            "Text in the frame (printable ASCII and Latin-1, drawn as outlines)",
            Some(Text("SCAN ME")),
        ),
        setting(
            "frameColor",
            colour(),
            "Colour of the frame, hex without # (default: color)",
            Some(Text("1a237e")),
        ),
        setting(
            "svgMode",
            names(qr_core::SvgMode::ALL).default_value("compact"),
            "SVG only: outline draws filled outlines only (no strokes or dashes), for cutters and plotters",
            Some(Text("outline")),
        ),
        setting(
            "printSize",
            integer()
                .range(MIN_PRINT_SIZE, MAX_PRINT_SIZE)
                .default_value(50),
            "PDF and EPS only: printed width and height in millimetres",
            Some(Integer(50)),
        ),
        setting(
            "dpi",
            integer().range(MIN_DPI, MAX_DPI),
            "PNG: resolution written as the pHYs chunk; PDF and EPS: resolution of the logo (default 300)",
            Some(Integer(300)),
        ),
        setting(
            "verify",
            boolean().default_value(false),
            "Decode the finished image before answering; 422 with the reason if it does not scan",
            Some(Flag(true)),
        ),
        setting(
            "symbol",
            one_of_strings(["qr", "micro"]).default_value("qr").describe(
                "Case-insensitive; micro is a Micro QR code (M1 to M4, at most 35 digits, 21 letters or 15 bytes) with a 2-module quiet zone, drawn plain as PNG or SVG",
            ),
            "Symbol kind (qr, or micro for a Micro QR code: plain PNG or SVG, level L, M or Q, no logo or verify)",
            Some(Text("qr")),
        ),
    ]
}

/// The query parameters of `GET /api/generate` as documented: `data`, then `type` and the
/// content fields, then the render settings.
pub(in super::super) fn parameters() -> Vec<Parameter> {
    let mut parameters: Vec<Parameter> = settings()
        .into_iter()
        .map(|s| Parameter {
            example: s.example,
            ..Parameter::query(s.name, s.schema, s.description)
        })
        .collect();
    parameters.splice(1..1, content_parameters());
    parameters
}

/// The schema of `type`: the content types' names (aliases are accepted too).
pub(in super::super) fn content_type_schema() -> Schema {
    one_of_strings(CONTENT_TYPES.iter().map(|t| t.name))
        .describe(
            "Case-insensitive; also mailto (email), phone (tel), calendar (event) and girocode (epc)",
        )
        .into()
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
    let summaries: Vec<String> = CONTENT_TYPES
        .iter()
        .map(|t| format!("{}: {}", t.name, t.summary.trim_end_matches('.')))
        .collect();
    let mut parameters = vec![Parameter::query(
        "type",
        content_type_schema(),
        format!(
            "Content type (builds the content from the type's fields instead of data; not with data): {}",
            summaries.join("; ")
        ),
    )];
    parameters.extend(
        qr_generate::content::field_names()
            .into_iter()
            .map(content_field_parameter),
    );
    parameters
}

/// The parameter of the content field `name`: one sentence per wording, with the types that use
/// it and those that require it.
fn content_field_parameter(name: &'static str) -> Parameter {
    let uses: Vec<(&'static str, &'static ContentField)> = CONTENT_TYPES
        .iter()
        .filter_map(|t| {
            t.fields
                .iter()
                .find(|f| f.name == name)
                .map(|f| (t.name, f))
        })
        .collect();
    let mut wordings: Vec<(Vec<&str>, &str)> = Vec::new();
    for (kind, field) in &uses {
        match wordings.iter_mut().find(|(_, help)| *help == field.help) {
            Some((kinds, _)) => kinds.push(kind),
            None => wordings.push((vec![kind], field.help)),
        }
    }
    let required: Vec<&str> = uses
        .iter()
        .filter(|(_, f)| f.required)
        .map(|(kind, _)| *kind)
        .collect();
    let mut description: Vec<String> = wordings
        .iter()
        .map(|(kinds, help)| format!("type={}: {help}", kinds.join(", ")))
        .collect();
    if !required.is_empty() {
        description.push(format!("Required for type={}.", required.join(", ")));
    }
    // The first type's kind decides the schema: every type giving the field one name gives it
    // one kind.
    let kind = uses.first().map_or(FieldKind::Text, |(_, f)| f.kind);
    let example = uses
        .iter()
        .map(|(_, f)| f.example)
        .find(|e| !e.is_empty())
        .map(|e| match kind {
            FieldKind::Flag => Example::Flag(e == "true"),
            _ => Example::Text(e),
        });
    Parameter {
        example,
        content_types: Some(uses.iter().map(|(kind, _)| *kind).collect()),
        ..Parameter::query(name, content_field_schema(kind), description.join(" "))
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
