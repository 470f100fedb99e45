//! The one table of generate parameters ([`PARAMETERS`]): name, label, description, control, bounds, default, example, what it applies to and its CLI flag, read by the query parser, the OpenAPI document, the CLI's help and the dashboard designer.
//!
//! Adding a parameter is one entry in `table.rs` plus its rendering code (a field of
//! [`GenerateParams`](crate::GenerateParams) read in [`GenerateParams::parse`](crate::GenerateParams::parse)
//! and the option it sets in qr-core): the API document, the designer's form and `qr generate
//! --help` list it from this entry, and tests check all three do. The content types' fields
//! (`ssid`, `phone`, …) are a table of their own, [`crate::content::CONTENT_TYPES`];
//! [`crate::content::field_parameters`] gives them once each, with the types that use them.

use qr_core::{FinderStyle, Format, FrameStyle, GradientKind, ModuleStyle, SvgMode};

/// A colour as the service parses it: RGB, RRGGBB or RRGGBBAA hex without `#`.
pub const COLOUR_PATTERN: &str = "^([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})$";
/// A frame text as qr-core's font draws it: printable ASCII and Latin-1.
pub const FRAME_TEXT_PATTERN: &str = "^[\\x20-\\x7E\\xA0-\\xFF]*$";
/// A logo URL as the server fetches it: http or https.
pub const LOGO_URL_PATTERN: &str = "^[Hh][Tt][Tt][Pp][Ss]?://";
/// The longest logo URL, in characters (the longest URL browsers and proxies reliably pass on).
pub const MAX_LOGO_URL_CHARS: usize = 2048;

/// One generate parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Parameter {
    /// The API name (`errorCorrection`), also the designer's form field name.
    pub name: &'static str,
    /// The designer's label ("Foreground colour").
    pub label: &'static str,
    /// The API's description (the OpenAPI parameter's `description`).
    pub description: &'static str,
    /// A note on the value's schema (the OpenAPI schema's `description`), when it has one.
    pub schema_note: Option<&'static str>,
    /// Whether every request must give it (none does: `data` is required unless `type` is
    /// given, which [`crate::GenerateParams::payload`] decides).
    pub required: bool,
    /// The kind of value and control, with its bounds.
    pub control: Control,
    /// The default as text (`"300"`, `"png"`, `"false"`), `None` when the parameter has none
    /// (its absence means something: no gradient, the frame's colour follows `color`).
    pub default: Option<&'static str>,
    /// An example value as text, typed by [`Parameter::control`] (a number for
    /// [`Control::Number`], `true`/`false` for [`Control::Toggle`]).
    pub example: Option<&'static str>,
    /// What the parameter applies to.
    pub applies: Applies,
    /// How `qr generate` spells it, with its help.
    pub cli: Cli,
    /// Who reads it from a request.
    pub reader: Reader,
}

/// The kind of value a parameter takes, which decides its control in the designer and its
/// schema in the API document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Control {
    /// The content: multi-line text of 1 to `max_chars` characters (a string, `minLength` 1).
    Data {
        /// The most characters accepted.
        max_chars: usize,
    },
    /// A whole number from `min` to `max` (an integer).
    Number {
        /// The smallest value.
        min: i64,
        /// The largest value.
        max: i64,
    },
    /// One of a list, case-insensitive (a string `enum`).
    Choice(Choices),
    /// The content type's name ([`crate::content::CONTENT_TYPES`], a string `enum`).
    ContentType,
    /// A colour, hex without `#` ([`COLOUR_PATTERN`]).
    Colour {
        /// For a colour without a default: what its absence means, as the label of the
        /// designer's "leave it to its default" box ("Same as color"); `None` when the colour
        /// has a default.
        unset: Option<&'static str>,
    },
    /// `true` or `false` (a boolean).
    Toggle,
    /// An image: the API takes a URL of at most `max_url_chars` characters matching
    /// `url_pattern`, the designer an upload, the CLI a file.
    Upload {
        /// The longest URL.
        max_url_chars: usize,
        /// The URL's pattern.
        url_pattern: &'static str,
    },
    /// Free text of at most `max_chars` characters matching `pattern`.
    Text {
        /// The most characters accepted.
        max_chars: usize,
        /// The characters allowed, as a regular expression.
        pattern: &'static str,
    },
}

/// Where a choice's values come from: qr-core's option enums name their own values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Choices {
    /// The image formats (`png`, `svg`, `pdf`, `eps`).
    Formats,
    /// The error correction levels (`L`, `M`, `Q`, `H`).
    Levels,
    /// The module shapes.
    ModuleStyles,
    /// The finder shapes.
    FinderStyles,
    /// The gradient kinds.
    GradientKinds,
    /// The frame styles.
    FrameStyles,
    /// The SVG drawing modes.
    SvgModes,
    /// The symbol kinds (`qr`, `micro`).
    Symbols,
}

impl Choices {
    /// The values, in documentation order.
    pub fn names(self) -> Vec<&'static str> {
        fn names<T: Copy>(all: &[T], name: fn(T) -> &'static str) -> Vec<&'static str> {
            all.iter().map(|&v| name(v)).collect()
        }
        match self {
            Choices::Formats => names(Format::ALL, Format::extension),
            // EcLevel names itself with a `char`; a test keeps these equal to its letters.
            Choices::Levels => vec!["L", "M", "Q", "H"],
            Choices::ModuleStyles => names(ModuleStyle::ALL, ModuleStyle::name),
            Choices::FinderStyles => names(FinderStyle::ALL, FinderStyle::name),
            Choices::GradientKinds => names(GradientKind::ALL, GradientKind::name),
            Choices::FrameStyles => names(FrameStyle::ALL, FrameStyle::name),
            Choices::SvgModes => names(SvgMode::ALL, SvgMode::name),
            Choices::Symbols => vec!["qr", "micro"],
        }
    }
}

/// What a parameter applies to: the formats it changes and whether a Micro QR code takes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applies {
    /// The formats whose output it changes.
    pub formats: &'static [Format],
    /// Whether `symbol=micro` accepts it ([`crate::symbol::check_micro`] refuses the rest when
    /// given a value other than the default).
    pub micro: bool,
}

/// How `qr generate` spells a parameter.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cli {
    /// The positional argument `name` (`DATA`), with its help.
    Positional {
        /// The value name in the usage line.
        name: &'static str,
        /// The help line.
        help: &'static str,
    },
    /// The long flag `--flag`, with its help.
    Flag {
        /// The flag without its dashes.
        flag: &'static str,
        /// The help line.
        help: &'static str,
    },
    /// The content subcommands (`qr generate wifi …`), one per content type.
    Subcommands,
}

/// Who reads a parameter from a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reader {
    /// [`crate::GenerateParams::parse`], as a setting ([`crate::params::PARAMETER_NAMES`]).
    Setting,
    /// [`crate::GenerateParams::payload`], with the content type's fields.
    ContentType,
    /// The adapter, which fetches (API), takes the upload (designer) or reads the file (CLI).
    Logo,
}

impl Parameter {
    /// The CLI's help line for the parameter (`None` for the content subcommands, which carry
    /// their own).
    pub const fn cli_help(&self) -> Option<&'static str> {
        match self.cli {
            Cli::Positional { help, .. } | Cli::Flag { help, .. } => Some(help),
            Cli::Subcommands => None,
        }
    }

    /// The API's message for a value of this parameter the service refuses: `Invalid size`.
    pub fn invalid_message(&self) -> String {
        format!("Invalid {}", self.name)
    }

    /// The description with what only the content table knows: for `type`, each type's
    /// summary after it.
    pub fn full_description(&self) -> String {
        match self.control {
            Control::ContentType => {
                let summaries: Vec<String> = crate::content::CONTENT_TYPES
                    .iter()
                    .map(|t| format!("{}: {}", t.name, t.summary.trim_end_matches('.')))
                    .collect();
                format!("{}: {}", self.description, summaries.join("; "))
            }
            _ => self.description.to_owned(),
        }
    }

    /// The values of a choice (the content types' names for `type`), in documentation order;
    /// empty for the other controls.
    pub fn choices(&self) -> Vec<&'static str> {
        match self.control {
            Control::Choice(choices) => choices.names(),
            Control::ContentType => crate::content::CONTENT_TYPES
                .iter()
                .map(|t| t.name)
                .collect(),
            _ => Vec::new(),
        }
    }
}

/// The parameter called `name` (an API name).
pub fn parameter(name: &str) -> Option<&'static Parameter> {
    PARAMETERS.iter().find(|p| p.name == name)
}

mod table;

pub use table::*;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_settings_are_the_parsed_ones() {
        for (i, p) in PARAMETERS.iter().enumerate() {
            assert!(
                PARAMETERS[i + 1..].iter().all(|q| q.name != p.name),
                "{} twice",
                p.name
            );
            assert!(
                !crate::content::is_field_name(p.name),
                "{} is a content field too",
                p.name
            );
        }
        assert_eq!(SETTING_NAMES.len(), 22);
        assert_eq!(SETTING_NAMES[0], "data");
        assert!(!SETTING_NAMES.contains(&"logo") && !SETTING_NAMES.contains(&"type"));
    }

    #[test]
    fn defaults_and_examples_are_values_the_parser_accepts() {
        for p in PARAMETERS.iter().filter(|p| p.reader == Reader::Setting) {
            for value in [p.default, p.example].into_iter().flatten() {
                // The first occurrence wins: the value tried, then data, and the end colour a
                // gradient needs.
                let params = crate::GenerateParams::from_pairs([
                    (p.name, value),
                    ("data", "x"),
                    ("color2", "6a1b9a"),
                ]);
                let parsed = params.parse();
                assert!(parsed.is_ok(), "{}={value}: {parsed:?}", p.name);
            }
        }
    }

    #[test]
    fn the_levels_are_qr_cores() {
        let letters: Vec<String> = qr_core::EcLevel::ALL
            .iter()
            .map(|l| l.letter().to_string())
            .collect();
        assert_eq!(Choices::Levels.names(), letters);
    }

    #[test]
    fn the_messages_name_the_parameter() {
        let size = parameter("size").expect("size is in the table");
        assert_eq!(size.invalid_message(), "Invalid size");
        assert_eq!(
            size.cli_help().map(|h| h.contains("50 to 2000")),
            Some(true)
        );
    }
}
