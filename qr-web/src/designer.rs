//! The designer's form, built from qr-generate's table of generate parameters (`qr_generate::PARAMETERS`) and its content types' fields, so every parameter the API offers has a control without a change here.
//!
//! A parameter becomes what its table entry's control is: a text area (`data`), a number field
//! (with its bounds), a select (a choice), a colour picker, a checkbox (a toggle), a file field
//! (`logo`: the API fetches a URL, the dashboard takes an upload) or a text field. The values are
//! sent under the API's names, so `qr_generate::GenerateParams` reads them exactly as the API
//! does. A choice without a default (`gradient`, `type`: the code of `data`) gets a first, empty
//! choice; a content field carries the types that use it, which the page's script uses to show
//! only the selected type's fields, and its example as a placeholder. A colour without a default
//! (`finderColor` and `frameColor` follow `color`, `color2` is only read with `gradient`) gets a
//! box beside its picker, because a picker always holds a colour: while it is ticked the colour
//! is not sent.

use qr_generate::bounds::MAX_DATA_CHARS;
use qr_generate::content::{FieldKind, FieldParameter, field_parameters};
use qr_generate::parameters::{self as table, Choices, Control, PARAMETERS, Parameter};

use crate::request::Fields;

/// The API's parameter that is a logo URL; the designer takes an upload instead (the table's
/// [`Control::Upload`], a test checks).
pub(crate) const LOGO: &str = "logo";

/// The form name of the boxes "leave this colour to its default", one value per ticked box (the
/// colour's parameter name: `default=finderColor`), as a group of checkboxes sends them. No API
/// parameter has this name (a test checks), so it cannot shadow one.
pub(crate) const DEFAULT: &str = "default";

/// The form name of the link picker (`link=<id>`: the content is that link's short URL). No API
/// parameter has this name (a test checks).
pub(crate) const LINK: &str = "link";

/// The form name of the preset buttons (`preset=rounded`). No API parameter has this name.
pub(crate) const PRESET: &str = "preset";

/// The form name of the download buttons (`download=svg`: the format of the file), apart from
/// `format` (the preview's), so one form offers every format. No API parameter has this name.
pub(crate) const DOWNLOAD: &str = "download";

/// The form name of the name a design is saved under (`/dashboard/design/save`). No API
/// parameter has this name.
pub(crate) const DESIGN_NAME: &str = "designName";

/// The form name of the box "make it the default design". No API parameter has this name.
pub(crate) const DESIGN_DEFAULT: &str = "designDefault";

/// One group of the designer's controls, in the order people decide: what the code holds, how
/// it looks, then what file comes out.
pub(crate) struct Section {
    /// The element id of its fieldset (`section-shape`).
    pub(crate) id: &'static str,
    /// Its legend.
    pub(crate) title: &'static str,
    /// Its parameters, in the order drawn (each of the table's parameters in exactly one
    /// section, a test checks; the content types' fields go with `type`).
    pub(crate) parameters: &'static [&'static Parameter],
    /// Whether it starts folded (a `<details>`): the output settings most people leave alone.
    pub(crate) folded: bool,
}

/// The designer's sections.
pub(crate) const SECTIONS: &[Section] = &[
    Section {
        id: "content",
        title: "Content",
        parameters: &[&table::DATA, &table::CONTENT_TYPE],
        folded: false,
    },
    Section {
        id: "shape",
        title: "Shape",
        parameters: &[&table::STYLE, &table::FINDER_STYLE],
        folded: false,
    },
    Section {
        id: "colours",
        title: "Colours",
        parameters: &[
            &table::COLOR,
            &table::BACKGROUND,
            &table::FINDER_COLOR,
            &table::GRADIENT,
            &table::COLOR2,
            &table::GRADIENT_ANGLE,
        ],
        folded: false,
    },
    Section {
        id: "frame",
        title: "Frame",
        parameters: &[&table::FRAME, &table::FRAME_TEXT, &table::FRAME_COLOR],
        folded: false,
    },
    Section {
        id: "logo",
        title: "Logo",
        parameters: &[&table::LOGO, &table::LOGO_SIZE],
        folded: false,
    },
    Section {
        id: "output",
        title: "Size, format and error correction",
        parameters: &[
            &table::SIZE,
            &table::FORMAT,
            &table::ERROR_CORRECTION,
            &table::MARGIN,
            &table::SVG_MODE,
            &table::PRINT_SIZE,
            &table::DPI,
            &table::SYMBOL,
            &table::VERIFY,
        ],
        folded: true,
    },
];

/// The section a field belongs to (a content field: `type`'s).
pub(crate) fn section_of(field: &Field) -> &'static Section {
    let owner = if field.types.is_empty() {
        field.name.as_str()
    } else {
        table::CONTENT_TYPE.name
    };
    SECTIONS
        .iter()
        .find(|s| s.parameters.iter().any(|p| p.name == owner))
        .unwrap_or(&SECTIONS[0])
}

/// A starting point: a few look parameters set together. Choosing one resets the other look
/// parameters (shape, colours, frame) to their defaults and keeps the content, logo and output.
pub(crate) struct Preset {
    /// The value of its button (`preset=rounded`) and the name of its picture.
    pub(crate) id: &'static str,
    /// What people read.
    pub(crate) label: &'static str,
    /// The parameters it sets, by API name, as the API spells the values.
    pub(crate) values: &'static [(&'static str, &'static str)],
}

/// The presets, each drawn from these values by the swatch route. Every value is one the API
/// accepts and every preset scans in the four decoders at the swatch's size (tests check).
pub(crate) const PRESETS: &[Preset] = &[
    Preset {
        id: "classic",
        label: "Classic",
        values: &[],
    },
    Preset {
        id: "rounded",
        label: "Rounded",
        values: &[("style", "rounded"), ("finderStyle", "rounded")],
    },
    Preset {
        id: "dots",
        label: "Dots",
        values: &[("style", "dots"), ("finderStyle", "circle")],
    },
    Preset {
        id: "navy",
        label: "Navy and red",
        values: &[
            ("style", "classy"),
            ("color", "1a237e"),
            ("finderColor", "c62828"),
        ],
    },
    Preset {
        id: "sunset",
        label: "Sunset gradient",
        values: &[
            ("style", "classy-rounded"),
            ("finderStyle", "rounded"),
            ("color", "bf360c"),
            ("gradient", "linear"),
            ("color2", "6a1b9a"),
            ("gradientAngle", "45"),
        ],
    },
    Preset {
        id: "scan-me",
        label: "Framed: Scan me",
        values: &[
            ("style", "rounded"),
            ("frame", "banner-bottom"),
            ("frameText", "SCAN ME"),
        ],
    },
];

/// The look parameters a preset resets: those of the shape, colour and frame sections.
pub(crate) fn preset_parameters() -> impl Iterator<Item = &'static Parameter> {
    SECTIONS
        .iter()
        .filter(|s| matches!(s.id, "shape" | "colours" | "frame"))
        .flat_map(|s| s.parameters.iter().copied())
}

/// Whether a parameter's choices are shown as pictures of the code (each value drawn by the
/// swatch route) rather than words: the module shapes, finder shapes and frames.
pub(crate) fn pictured(parameter: &Parameter) -> bool {
    matches!(
        parameter.control,
        Control::Choice(Choices::ModuleStyles | Choices::FinderStyles | Choices::FrameStyles)
    )
}

/// One control of the designer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Field {
    /// The API's parameter name, used as the form field's name.
    pub(crate) name: String,
    /// The label: the table's (a content field's help up to its first stop).
    pub(crate) label: String,
    /// What kind of control.
    pub(crate) kind: Kind,
    /// The table's default, as text ("" when none).
    pub(crate) default: String,
    /// The content types whose field this is (empty for the other parameters).
    pub(crate) types: Vec<String>,
    /// A placeholder: the example of a content field ("" for the other parameters).
    pub(crate) placeholder: String,
    /// Whether its choices are pictures ([`pictured`]).
    pub(crate) pictured: bool,
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

/// The longest value of a text field the table gives no bound (a number or date of a content
/// type): 2,048 characters, the longest URL browsers and proxies reliably pass on, far more than
/// any such value needs.
const UNBOUNDED_TEXT_MAX: u64 = 2048;

/// The fields of the generate parameters, in the table's order, the content types' fields after
/// `type`.
pub(crate) fn fields() -> Vec<Field> {
    let mut fields = Vec::new();
    for parameter in PARAMETERS {
        fields.push(setting(parameter));
        if matches!(parameter.control, Control::ContentType) {
            fields.extend(field_parameters().iter().map(content_field));
        }
    }
    fields
}

/// The name of the parameter that picks a content type (`type`), whose choice decides which
/// fields the form shows.
pub(crate) fn content_type_name() -> Option<&'static str> {
    PARAMETERS
        .iter()
        .find(|p| matches!(p.control, Control::ContentType))
        .map(|p| p.name)
}

/// The control of a parameter of the table.
fn setting(p: &Parameter) -> Field {
    let default = p.default.unwrap_or_default().to_owned();
    let kind = match p.control {
        Control::Data { max_chars } => Kind::Data {
            max: max_chars as u64,
        },
        Control::Number { min, max } => Kind::Number { min, max },
        Control::Choice(_) | Control::ContentType => Kind::Choice(with_none(p.choices(), &default)),
        Control::Colour { unset } => Kind::Colour {
            unset: unset.map(str::to_owned),
        },
        Control::Toggle => Kind::Toggle,
        Control::Upload { .. } => Kind::Upload,
        Control::Text { max_chars, .. } => Kind::Text {
            max: max_chars as u64,
        },
    };
    Field {
        name: p.name.to_owned(),
        label: p.label.to_owned(),
        kind,
        default,
        types: Vec::new(),
        placeholder: String::new(),
        pictured: pictured(p),
    }
}

/// The control of a content field, shown for the types that use it.
fn content_field(p: &FieldParameter) -> Field {
    let (kind, default) = match p.first().kind {
        FieldKind::Text | FieldKind::Multiline => (
            Kind::Text {
                max: MAX_DATA_CHARS as u64,
            },
            "",
        ),
        FieldKind::Choice(values) => (Kind::Choice(with_none(values.to_vec(), "")), ""),
        FieldKind::Flag => (Kind::Toggle, "false"),
        FieldKind::Number | FieldKind::DateTime => (
            Kind::Text {
                max: UNBOUNDED_TEXT_MAX,
            },
            "",
        ),
    };
    Field {
        name: p.name.to_owned(),
        label: p.label().to_owned(),
        // A flag's example is the box's state, not text to show.
        placeholder: match kind {
            Kind::Toggle => String::new(),
            _ => p.example().unwrap_or_default().to_owned(),
        },
        kind,
        default: default.to_owned(),
        types: p.types().into_iter().map(str::to_owned).collect(),
        pictured: false,
    }
}

/// A choice's values, after an empty first one when the parameter has no default (no
/// gradient, no type: the code of `data`), so it may be left out.
fn with_none(values: Vec<&'static str>, default: &str) -> Vec<String> {
    default
        .is_empty()
        .then(String::new)
        .into_iter()
        .chain(values.into_iter().map(str::to_owned))
        .collect()
}

/// Whether a form leaves a colour to its API default: the colour has a "default" box and the box
/// is ticked, or the form holds no value for it (a client that sent only some fields).
pub(crate) fn follows_default(field: &Field, form: &Fields) -> bool {
    matches!(field.kind, Kind::Colour { unset: Some(_) })
        && (form.all(DEFAULT).contains(&field.name.as_str())
            || form.get(&field.name).is_none_or(str::is_empty))
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

    fn field(name: &str) -> Field {
        fields()
            .into_iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("no field {name}"))
    }

    #[test]
    fn every_control_kind_is_used() {
        let data = field("data");
        assert_eq!(data.kind, Kind::Data { max: 2953 });
        assert_eq!(data.label, "Content to encode");
        assert_eq!(field("logo").label, "Logo image");
        let size = field("size");
        assert_eq!(size.kind, Kind::Number { min: 50, max: 2000 });
        assert_eq!(size.default, "300");
        assert_eq!(
            field("format").kind,
            Kind::Choice(vec!["png".into(), "svg".into(), "pdf".into(), "eps".into()])
        );
        assert_eq!(
            field("gradient").kind,
            Kind::Choice(vec![String::new(), "linear".into(), "radial".into()]),
            "no default: an empty choice first"
        );
        assert_eq!(
            field("color").kind,
            Kind::Colour { unset: None },
            "color has a default"
        );
        assert_eq!(field("logo").kind, Kind::Upload);
        assert_eq!(field("verify").kind, Kind::Toggle);
        assert_eq!(field("frameText").kind, Kind::Text { max: 32 });
    }

    #[test]
    fn every_table_entry_and_content_field_is_in_the_form() {
        let names: Vec<String> = fields().into_iter().map(|f| f.name).collect();
        for parameter in PARAMETERS {
            assert!(
                names.iter().any(|n| n == parameter.name),
                "{}",
                parameter.name
            );
        }
        for name in qr_generate::content::field_names() {
            assert!(names.iter().any(|n| n == name), "{name}");
        }
        assert_eq!(&names[..2], ["data", "type"], "type follows data");
        assert_eq!(names[2], "ssid", "the content fields follow type");
    }

    #[test]
    fn content_fields_carry_their_types_and_example() {
        let kind = field("type");
        assert!(
            matches!(&kind.kind, Kind::Choice(values) if values[0].is_empty() && values[1] == "wifi")
        );
        assert!(kind.types.is_empty());
        let phone = field("phone");
        assert_eq!(phone.label, "Mobile number");
        assert_eq!(phone.types, ["vcard", "mecard", "sms", "tel"]);
        assert_eq!(phone.placeholder, "+1 555 0100");
        let latitude = field("latitude");
        assert_eq!(latitude.label, "Latitude in degrees");
        assert_eq!(latitude.kind, Kind::Text { max: 2048 });
        let hidden = field("hidden");
        assert_eq!(
            (hidden.kind, hidden.default),
            (Kind::Toggle, "false".into())
        );
        assert!(hidden.placeholder.is_empty());
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
            pictured: false,
        };
        assert_eq!(api_value(Some(&colour), "#1a237e"), "1a237e");
        assert_eq!(api_value(None, "#keep"), "#keep");
    }

    #[test]
    fn colours_without_a_default_get_a_default_box() {
        let unset = |name: &str| match field(name).kind {
            Kind::Colour { unset } => unset,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            unset("finderColor").as_deref(),
            Some("Same as the modules' paint")
        );
        assert_eq!(unset("frameColor").as_deref(), Some("Same as color"));
        assert_eq!(unset("color2").as_deref(), Some("Not set"));
        let frame = field("frameColor");
        assert_eq!(frame.label, "Colour of the frame");
        // Ticked, or no value at all: the default; a value with the box cleared: the value.
        let form = |pairs: &[(&str, &str)]| Fields::from_pairs(pairs);
        assert!(follows_default(
            &frame,
            &form(&[("frameColor", "#ff0000"), (DEFAULT, "frameColor")])
        ));
        assert!(follows_default(&frame, &form(&[("color", "#ff0000")])));
        assert!(follows_default(&frame, &form(&[("frameColor", "")])));
        assert!(!follows_default(
            &frame,
            &form(&[("frameColor", "#ff0000"), (DEFAULT, "color2")])
        ));
        assert!(
            !follows_default(&field("color"), &form(&[(DEFAULT, "color")])),
            "a colour with a default has no box to tick"
        );
    }

    #[test]
    fn the_designers_own_names_shadow_no_api_parameter() {
        for own in [DEFAULT, LINK, PRESET, DOWNLOAD, DESIGN_NAME, DESIGN_DEFAULT] {
            assert!(PARAMETERS.iter().all(|p| p.name != own), "{own}");
            for kind in qr_generate::content::CONTENT_TYPES {
                assert!(
                    kind.fields.iter().all(|f| f.name != own),
                    "{own} in {}",
                    kind.name
                );
            }
        }
    }

    #[test]
    fn every_parameter_is_in_exactly_one_section() {
        for parameter in PARAMETERS {
            let homes: Vec<&str> = SECTIONS
                .iter()
                .filter(|s| s.parameters.iter().any(|p| p.name == parameter.name))
                .map(|s| s.id)
                .collect();
            assert_eq!(homes.len(), 1, "{}: {homes:?}", parameter.name);
        }
        assert_eq!(section_of(&field("ssid")).id, "content");
        assert_eq!(section_of(&field("finderStyle")).id, "shape");
        assert!(field("style").pictured && field("frame").pictured);
        assert!(!field("gradient").pictured && !field("format").pictured);
    }

    #[test]
    fn presets_set_only_look_parameters_with_values_the_api_accepts() {
        let looks: Vec<&str> = preset_parameters().map(|p| p.name).collect();
        for preset in PRESETS {
            let mut pairs = vec![("data".to_owned(), "https://example.com".to_owned())];
            for (name, value) in preset.values {
                assert!(looks.contains(name), "{}: {name}", preset.id);
                pairs.push(((*name).to_owned(), (*value).to_owned()));
            }
            qr_generate::GenerateParams::from_pairs(pairs)
                .parse()
                .unwrap_or_else(|e| panic!("{}: {e}", preset.id));
        }
    }

    #[test]
    fn the_logo_is_the_tables_upload() {
        let logo = qr_generate::parameters::parameter(LOGO).expect("logo is a parameter");
        assert!(matches!(logo.control, Control::Upload { .. }));
    }
}
