//! The designer's form, built from the generate parameters the API documents (its OpenAPI document), so every parameter the API offers has a control without a change here.
//!
//! A parameter becomes: a text area (`data`), a number field (an integer with bounds), a select
//! (a string enum), a colour picker (a string whose pattern is the API's colour pattern), a
//! checkbox (a boolean), a file field (`logo`: the API fetches a URL, the dashboard takes an
//! upload) or a text field (any other string or decimal). The values are sent under the API's
//! names, so `qr_generate::GenerateParams` reads them exactly as the API does. A choice without
//! a default (`gradient`, `type`: the code of `data`) gets a first, empty choice; a content field carries the types that use it
//! (the document's `x-content-types`), which the page's script uses to show only the selected
//! type's fields, and its example as a placeholder. A colour without a default (`finderColor`
//! and `frameColor` follow `color`, `color2` is only read with `gradient`) gets a box beside its
//! picker, because a picker always holds a colour: while it is ticked the colour is not sent.

use serde_json::Value;

use crate::request::Fields;

/// The API's parameter that is a logo URL; the designer takes an upload instead.
pub(crate) const LOGO: &str = "logo";

/// The form name of the boxes "leave this colour to its default", one value per ticked box (the
/// colour's parameter name: `default=finderColor`), as a group of checkboxes sends them. No API
/// parameter has this name (a test checks), so it cannot shadow one.
pub(crate) const DEFAULT: &str = "default";

/// One control of the designer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// The API's parameter name, used as the form field's name.
    pub(crate) name: String,
    /// The label: the API's description.
    pub(crate) label: String,
    /// What kind of control.
    pub(crate) kind: Kind,
    /// The API's default, as text ("" when none).
    pub(crate) default: String,
    /// The content types whose field this is (empty for the other parameters).
    pub(crate) types: Vec<String>,
    /// A placeholder: the API's example of a content field ("" for the other parameters).
    pub(crate) placeholder: String,
}

/// The kind of control a parameter gets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Multi-line text with a maximum length.
    Data { max: u64 },
    /// A whole number within bounds.
    Number { min: i64, max: i64 },
    /// One of a list.
    Choice(Vec<String>),
    /// A colour (hex without `#` on the wire); `unset` is the label of its "default" box when the
    /// API has no default value for it ("Same as color"), `None` when it has one.
    Colour { unset: Option<String> },
    /// On or off.
    Toggle,
    /// An image upload (the logo).
    Upload,
    /// Free text.
    Text { max: u64 },
}

/// The fields of the generate parameters, in the API's order.
pub(crate) fn fields(parameters: &[Value]) -> Vec<Field> {
    parameters.iter().filter_map(field).collect()
}

fn field(p: &Value) -> Option<Field> {
    let name = p.get("name")?.as_str()?.to_owned();
    let schema = p.get("schema")?;
    let types: Vec<String> = p
        .get("x-content-types")
        .and_then(Value::as_array)
        .map(|kinds| {
            kinds
                .iter()
                .filter_map(|k| k.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    let description = p
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or(&name);
    // The description up to its first comma or parenthesis: "Foreground colour, hex …" is
    // labelled "Foreground colour"; a content field's ("type=vcard, mecard: Given name (…") is
    // read after its types, up to a colon or full stop too.
    let label = match description.split_once(": ") {
        Some((_, text)) if !types.is_empty() => text.split([',', '(', ':', '.']).next(),
        _ => description.split([',', '(']).next(),
    }
    .unwrap_or(&name)
    .trim()
    .to_owned();
    let default = match schema.get("default") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        Some(Value::Bool(b)) => b.to_string(),
        _ => String::new(),
    };
    let max_len = schema
        .get("maxLength")
        .and_then(Value::as_u64)
        .unwrap_or(2048);
    let kind = match schema.get("type").and_then(Value::as_str) {
        _ if name == LOGO => Kind::Upload,
        _ if name == "data" => Kind::Data { max: max_len },
        Some("integer") => Kind::Number {
            min: schema.get("minimum").and_then(Value::as_i64).unwrap_or(0),
            max: schema
                .get("maximum")
                .and_then(Value::as_i64)
                .unwrap_or(i64::MAX),
        },
        Some("boolean") => Kind::Toggle,
        Some("string") => match (schema.get("enum"), schema.get("pattern")) {
            (Some(Value::Array(values)), _) => Kind::Choice(
                // A parameter without a default may be left out (no gradient, no type: the
                // code of `data`): an empty first choice.
                default
                    .is_empty()
                    .then(String::new)
                    .into_iter()
                    .chain(values.iter().filter_map(|v| v.as_str().map(str::to_owned)))
                    .collect(),
            ),
            (_, Some(Value::String(pattern))) if is_colour(pattern) => Kind::Colour {
                unset: default.is_empty().then(|| unset_label(description)),
            },
            _ => Kind::Text { max: max_len },
        },
        _ => Kind::Text { max: max_len },
    };
    let placeholder = match p.get("example") {
        Some(Value::String(s)) if !types.is_empty() => s.clone(),
        _ => String::new(),
    };
    Some(Field {
        label: if kind == Kind::Upload {
            "Logo image".to_owned()
        } else {
            label
        },
        name,
        kind,
        default,
        types,
        placeholder,
    })
}

/// The label of a colour's "default" box: what the API's description says it defaults to
/// ("… (default: color)" is "Same as color"), else "Not set" (`color2` has no default; it is
/// required with a gradient and unused without).
fn unset_label(description: &str) -> String {
    description
        .split_once("(default: ")
        .and_then(|(_, rest)| rest.split_once(')'))
        .map_or_else(|| "Not set".to_owned(), |(to, _)| format!("Same as {to}"))
}

/// Whether a form leaves a colour to its API default: the colour has a "default" box and the box
/// is ticked, or the form holds no value for it (a client that sent only some fields).
pub(crate) fn follows_default(field: &Field, form: &Fields) -> bool {
    matches!(field.kind, Kind::Colour { unset: Some(_) })
        && (form.all(DEFAULT).contains(&field.name.as_str())
            || form.get(&field.name).is_none_or(str::is_empty))
}

/// Whether a pattern is the API's hex colour pattern (RGB, RRGGBB or RRGGBBAA without `#`).
fn is_colour(pattern: &str) -> bool {
    pattern.contains("[0-9A-Fa-f]{6}")
}

/// A colour picker's value (`#rrggbb`) for a field value in the API's form, or black.
pub(crate) fn picker_value(value: &str) -> String {
    let hex = value.trim_start_matches('#');
    let full = match hex.len() {
        3 => hex.chars().flat_map(|c| [c, c]).collect(),
        6 | 8 => hex[..6].to_owned(),
        _ => "000000".to_owned(),
    };
    if full.chars().all(|c| c.is_ascii_hexdigit()) {
        format!("#{}", full.to_ascii_lowercase())
    } else {
        "#000000".to_owned()
    }
}

/// A form value as the API wants it: colour pickers send `#rrggbb`, the API takes `rrggbb`.
pub(crate) fn api_value(field: Option<&Field>, value: &str) -> String {
    match field.map(|f| &f.kind) {
        Some(Kind::Colour { .. }) => value.trim_start_matches('#').to_owned(),
        _ => value.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_schema_kind_gets_a_control() {
        let params = vec![
            json!({"name": "data", "schema": {"type": "string", "maxLength": 2953}, "description": "Content (at most 2,953 characters)"}),
            json!({"name": "size", "schema": {"type": "integer", "minimum": 50, "maximum": 2000, "default": 300}}),
            json!({"name": "format", "schema": {"type": "string", "enum": ["png", "svg"], "default": "png"}}),
            json!({"name": "color", "schema": {"type": "string", "pattern": "^([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$", "default": "000000"}}),
            json!({"name": "logo", "schema": {"type": "string", "format": "uri"}}),
            json!({"name": "rounded", "schema": {"type": "boolean", "default": false}}),
            json!({"name": "caption", "schema": {"type": "string", "maxLength": 40}}),
            json!({"schema": {"type": "string"}}),
        ];
        let f = fields(&params);
        assert_eq!(f.len(), 7, "a parameter without a name is skipped");
        assert_eq!(f[0].kind, Kind::Data { max: 2953 });
        assert_eq!(f[0].label, "Content");
        assert_eq!(f[4].label, "Logo image");
        assert_eq!(f[1].kind, Kind::Number { min: 50, max: 2000 });
        assert_eq!(f[1].default, "300");
        assert_eq!(f[2].kind, Kind::Choice(vec!["png".into(), "svg".into()]));
        let gradient =
            json!({"name": "gradient", "schema": {"type": "string", "enum": ["linear"]}});
        assert_eq!(
            fields(&[gradient])[0].kind,
            Kind::Choice(vec![String::new(), "linear".into()]),
            "no default: an empty choice first"
        );
        assert_eq!(
            f[3].kind,
            Kind::Colour { unset: None },
            "color has a default"
        );
        assert_eq!(f[4].kind, Kind::Upload);
        assert_eq!(f[5].kind, Kind::Toggle);
        assert_eq!(f[6].kind, Kind::Text { max: 40 });
    }

    #[test]
    fn content_fields_carry_their_types_and_example() {
        let params = vec![
            json!({"name": "type", "schema": {"type": "string", "enum": ["wifi", "geo"]}, "description": "Builds the content"}),
            json!({"name": "phone", "schema": {"type": "string"}, "example": "+1 555 0100",
                   "x-content-types": ["vcard", "sms"],
                   "description": "type=vcard: Mobile number: + and 3 to 15 digits. type=sms: Recipient's number."}),
            json!({"name": "latitude", "schema": {"type": "number"}, "x-content-types": ["geo"],
                   "description": "type=geo: Latitude in degrees, -90 to 90."}),
        ];
        let f = fields(&params);
        assert_eq!(
            f[0].kind,
            Kind::Choice(vec![String::new(), "wifi".into(), "geo".into()])
        );
        assert!(f[0].types.is_empty());
        assert_eq!(f[1].label, "Mobile number");
        assert_eq!(f[1].types, ["vcard", "sms"]);
        assert_eq!(f[1].placeholder, "+1 555 0100");
        assert_eq!(f[2].label, "Latitude in degrees");
        assert_eq!(f[2].kind, Kind::Text { max: 2048 });
    }

    #[test]
    fn colours_convert_between_picker_and_api() {
        assert_eq!(picker_value("1A237E"), "#1a237e");
        assert_eq!(picker_value("f0a"), "#ff00aa");
        assert_eq!(picker_value("11223344"), "#112233");
        assert_eq!(picker_value("zz"), "#000000");
        let colour = Field {
            name: "color".into(),
            label: String::new(),
            kind: Kind::Colour { unset: None },
            default: String::new(),
            types: Vec::new(),
            placeholder: String::new(),
        };
        assert_eq!(api_value(Some(&colour), "#1a237e"), "1a237e");
        assert_eq!(api_value(None, "#keep"), "#keep");
    }

    #[test]
    fn colours_without_a_default_get_a_default_box() {
        let pattern = "^([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$";
        let params = vec![
            json!({"name": "finderColor", "schema": {"type": "string", "pattern": pattern},
                   "description": "Colour of the finder patterns, hex without # (default: the modules' paint)"}),
            json!({"name": "frameColor", "schema": {"type": "string", "pattern": pattern},
                   "description": "Colour of the frame, hex without # (default: color)"}),
            json!({"name": "color2", "schema": {"type": "string", "pattern": pattern},
                   "description": "End colour of the gradient, hex without # (required with gradient)"}),
        ];
        let f = fields(&params);
        let unset = |i: usize| match &f[i].kind {
            Kind::Colour { unset } => unset.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(unset(0).as_deref(), Some("Same as the modules' paint"));
        assert_eq!(unset(1).as_deref(), Some("Same as color"));
        assert_eq!(unset(2).as_deref(), Some("Not set"));
        assert_eq!(f[1].label, "Colour of the frame");
        // Ticked, or no value at all: the default; a value with the box cleared: the value.
        let form = |pairs: &[(&str, &str)]| Fields::from_pairs(pairs);
        let frame = &f[1];
        assert!(follows_default(
            frame,
            &form(&[("frameColor", "#ff0000"), (DEFAULT, "frameColor")])
        ));
        assert!(follows_default(frame, &form(&[("color", "#ff0000")])));
        assert!(follows_default(frame, &form(&[("frameColor", "")])));
        assert!(!follows_default(
            frame,
            &form(&[("frameColor", "#ff0000"), (DEFAULT, "color2")])
        ));
        let color = fields(&[
            json!({"name": "color", "schema": {"type": "string", "pattern": pattern, "default": "000000"}}),
        ]);
        assert!(
            !follows_default(&color[0], &form(&[(DEFAULT, "color")])),
            "a colour with a default has no box to tick"
        );
    }

    #[test]
    fn the_default_box_shadows_no_api_parameter() {
        assert!(!qr_generate::params::PARAMETER_NAMES.contains(&DEFAULT));
        for kind in qr_generate::content::CONTENT_TYPES {
            assert!(
                kind.fields.iter().all(|f| f.name != DEFAULT),
                "{}",
                kind.name
            );
        }
    }
}
