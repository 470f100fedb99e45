//! Why a code could not be generated: [`GenerateError`], whose `Display` is the API's message, the parameter each error is about, and the conversions from qr-core's and the bounds' errors.

use qr_core::content::ContentError;
use qr_core::{Capacity, EcLevel, EncodeError, OptionError, RenderError};
use thiserror::Error;

use crate::bounds::BoundsError;

/// Why a code could not be generated; `Display` is the API's error message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GenerateError {
    /// `data` is missing or empty.
    #[error("data parameter required")]
    MissingData,
    /// Both `data` and `type` are given.
    #[error("data and type cannot be combined: send data, or type with its fields")]
    TypeWithData,
    /// `type` names no content type.
    #[error("Invalid type: expected one of {}", crate::content::type_names())]
    ContentType(String),
    /// A required field of the content type is missing or empty.
    #[error("{field} parameter required for type={content_type}")]
    MissingField {
        /// The field's API name.
        field: &'static str,
        /// The content type.
        content_type: &'static str,
    },
    /// A content field does not have its shape (a number, a date, one of a few values).
    #[error("Invalid {field}: expected {expected}")]
    InvalidField {
        /// The field's API name.
        field: &'static str,
        /// What it must look like.
        expected: &'static str,
    },
    /// A content field refused by the payload's rules (`qr_core::content`).
    #[error("Invalid {field}: {error}")]
    Content {
        /// The field's API name.
        field: &'static str,
        /// The rule it breaks.
        error: ContentError,
    },
    /// `symbol` is not qr or micro.
    #[error("Invalid symbol: expected qr or micro")]
    Symbol(String),
    /// A parameter the kind of code asked for cannot honour (`symbol=micro`, structured
    /// append).
    #[error("Invalid {parameter} for {with}: {reason}")]
    NotAvailable {
        /// The parameter's API name.
        parameter: &'static str,
        /// The kind of code (`symbol=micro`, `structured append`).
        with: &'static str,
        /// Why, and what is possible.
        reason: &'static str,
    },
    /// The data does not fit in 16 structured append codes of the largest version allowed.
    #[error(
        "Data too long for 16 codes of version {max_version} at error correction level {level}: use shorter data, a lower level, or a count (larger codes)"
    )]
    SequenceTooLong {
        /// The level used.
        level: EcLevel,
        /// The largest version allowed.
        max_version: u8,
    },
    /// The data needs more structured append codes than the count asked for.
    #[error("Data too long for {count} codes: more codes are needed; raise the count or use auto")]
    TooManyCodes {
        /// The count asked for.
        count: u8,
    },
    /// The data does not fit in a Micro QR code (M4) at the level used.
    #[error(
        "Data too long for a Micro QR code at error correction level {level}: at most {capacity} fit; use symbol=qr"
    )]
    MicroDataTooLong {
        /// The level used.
        level: EcLevel,
        /// The most that fits in M4 at that level.
        capacity: Capacity,
    },
    /// `size` is not a whole number from 50 to 2000.
    #[error("Invalid size")]
    Size(#[source] BoundsError),
    /// `format` is not png or svg.
    #[error("Invalid format")]
    Format(#[source] OptionError),
    /// `color` is not RGB, RRGGBB or RRGGBBAA hex.
    #[error("Invalid color")]
    Color(#[source] OptionError),
    /// `background` is not RGB, RRGGBB or RRGGBBAA hex.
    #[error("Invalid background")]
    Background(#[source] OptionError),
    /// `errorCorrection` is not L, M, Q or H.
    #[error("Invalid errorCorrection")]
    ErrorCorrection(String),
    /// `margin` is not a whole number from 0 to 10.
    #[error("Invalid margin")]
    Margin(#[source] BoundsError),
    /// `logoSize` is not a whole number from 5 to 30.
    #[error("Invalid logoSize")]
    LogoSize(#[source] BoundsError),
    /// `style` is not a module style.
    #[error("Invalid style")]
    Style(#[source] OptionError),
    /// `finderStyle` is not a finder style.
    #[error("Invalid finderStyle")]
    FinderStyle(#[source] OptionError),
    /// `finderColor` is not hex.
    #[error("Invalid finderColor")]
    FinderColor(#[source] OptionError),
    /// `gradient` is not linear or radial.
    #[error("Invalid gradient")]
    Gradient(#[source] OptionError),
    /// `color2` is not hex, or missing with a gradient.
    #[error("Invalid color2")]
    Color2(#[source] BoundsError),
    /// `gradientAngle` is not a whole number from 0 to 359.
    #[error("Invalid gradientAngle")]
    GradientAngle(#[source] BoundsError),
    /// `frame` is not a frame style.
    #[error("Invalid frame")]
    Frame(#[source] OptionError),
    /// `frameText` is too long or has a character the font lacks.
    #[error("Invalid frameText")]
    FrameText(#[source] OptionError),
    /// `frameColor` is not hex.
    #[error("Invalid frameColor")]
    FrameColor(#[source] OptionError),
    /// `svgMode` is not compact or outline.
    #[error("Invalid svgMode")]
    SvgMode(#[source] OptionError),
    /// `printSize` is not a whole number from 10 to 1000.
    #[error("Invalid printSize")]
    PrintSize(#[source] BoundsError),
    /// `dpi` is not a whole number from 72 to 2400.
    #[error("Invalid dpi")]
    Dpi(#[source] BoundsError),
    /// `verify` is not true or false.
    #[error("Invalid verify")]
    Verify(#[source] BoundsError),
    /// A colour is too close to the background to scan.
    #[error(
        "Contrast too low: {parameter} on the background is {ratio}:1, at least {minimum}:1 is needed for the code to scan"
    )]
    LowContrast {
        /// The parameter whose colour is too light or too dark (`color`, `color2`, `gradient`
        /// for a colour in between, `finderColor`).
        parameter: &'static str,
        /// The WCAG contrast ratio found.
        ratio: crate::scan::Ratio,
        /// The smallest ratio accepted.
        minimum: crate::scan::Ratio,
    },
    /// A style's shapes would be too small to read at this size.
    #[error(
        "Size too small for this style: {pixels} pixels per module, at least {minimum} are needed; use a size of at least {size}"
    )]
    StyleTooThin {
        /// Pixels per module at the requested size.
        pixels: u32,
        /// The fewest pixels per module accepted for the style.
        minimum: u32,
        /// The smallest image size that gives the style enough pixels.
        size: u32,
    },
    /// `verify=true` and the finished image did not decode to the data (answered with 422).
    #[error("Image not readable: {0}")]
    Unreadable(String),
    /// The data has more characters than the service accepts.
    #[error("Data too long: {count} characters, at most {max} allowed")]
    TooManyCharacters {
        /// Characters given.
        count: usize,
        /// Characters allowed.
        max: usize,
    },
    /// The data does not fit in the largest code at the level used.
    #[error("Data too long for error correction level {level}: at most {capacity} fit")]
    DataTooLong {
        /// The level used (H when a logo is placed).
        level: EcLevel,
        /// The most that fits at that level.
        capacity: Capacity,
    },
    /// The size gives some module less than one pixel.
    #[error("Size too small for this code: use a size of at least {minimum}")]
    SizeTooSmall {
        /// The smallest size that works for this data and margin.
        minimum: u32,
    },
    /// The logo would hide more than error correction restores.
    #[error(
        "Logo too large for this code: a logoSize of {percent} hides too much; use a smaller logoSize or shorter data"
    )]
    LogoDoesNotFit {
        /// The logo size asked for.
        percent: u8,
    },
    /// The image encoder failed (a bug, reported rather than hidden).
    #[error("Image encoding failed: {0}")]
    Encoding(String),
}

impl GenerateError {
    /// The API name of the parameter this error is about (`data` for the data's own errors and
    /// failures that are no parameter's).
    pub fn parameter(&self) -> &'static str {
        match self {
            GenerateError::Size(_) | GenerateError::SizeTooSmall { .. } => "size",
            GenerateError::Format(_) => "format",
            GenerateError::Color(_) => "color",
            GenerateError::Background(_) => "background",
            GenerateError::ErrorCorrection(_) => "errorCorrection",
            GenerateError::Margin(_) => "margin",
            GenerateError::LogoSize(_) | GenerateError::LogoDoesNotFit { .. } => "logoSize",
            GenerateError::Style(_) | GenerateError::StyleTooThin { .. } => "style",
            GenerateError::FinderStyle(_) => "finderStyle",
            GenerateError::FinderColor(_) => "finderColor",
            GenerateError::Gradient(_) => "gradient",
            GenerateError::Color2(_) => "color2",
            GenerateError::GradientAngle(_) => "gradientAngle",
            GenerateError::Frame(_) => "frame",
            GenerateError::FrameText(_) => "frameText",
            GenerateError::FrameColor(_) => "frameColor",
            GenerateError::SvgMode(_) => "svgMode",
            GenerateError::PrintSize(_) => "printSize",
            GenerateError::Dpi(_) => "dpi",
            GenerateError::Verify(_) => "verify",
            GenerateError::Symbol(_) => "symbol",
            GenerateError::NotAvailable { parameter, .. } => parameter,
            GenerateError::TypeWithData | GenerateError::ContentType(_) => "type",
            GenerateError::MissingField { field, .. }
            | GenerateError::InvalidField { field, .. }
            | GenerateError::Content { field, .. } => field,
            GenerateError::LowContrast { parameter, .. } => parameter,
            GenerateError::MissingData
            | GenerateError::Unreadable(_)
            | GenerateError::TooManyCharacters { .. }
            | GenerateError::DataTooLong { .. }
            | GenerateError::MicroDataTooLong { .. }
            | GenerateError::SequenceTooLong { .. }
            | GenerateError::TooManyCodes { .. }
            | GenerateError::Encoding(_) => "data",
        }
    }
}

impl From<RenderError> for GenerateError {
    fn from(e: RenderError) -> Self {
        match e {
            RenderError::Encode(EncodeError::DataTooLong {
                level, capacity, ..
            }) => GenerateError::DataTooLong { level, capacity },
            RenderError::Encode(EncodeError::MicroDataTooLong {
                level, capacity, ..
            }) => GenerateError::MicroDataTooLong { level, capacity },
            RenderError::Encode(other) => GenerateError::Encoding(other.to_string()),
            RenderError::SizeTooSmall { minimum, .. } => GenerateError::SizeTooSmall { minimum },
            RenderError::LogoDoesNotFit { percent } => GenerateError::LogoDoesNotFit { percent },
            RenderError::PngEncoding(message) => GenerateError::Encoding(message),
            // A format compiled out of qr-core, or a refusal added after this match was written:
            // neither is the caller's fault.
            other => GenerateError::Encoding(other.to_string()),
        }
    }
}

impl From<BoundsError> for GenerateError {
    /// The error of the parameter the bound belongs to.
    fn from(e: BoundsError) -> Self {
        match e {
            BoundsError::Size(_) | BoundsError::SizeText(_) => GenerateError::Size(e),
            BoundsError::Margin(_) | BoundsError::MarginText(_) => GenerateError::Margin(e),
            BoundsError::LogoSize(_) | BoundsError::LogoSizeText(_) => GenerateError::LogoSize(e),
            BoundsError::PrintSize(_) | BoundsError::PrintSizeText(_) => {
                GenerateError::PrintSize(e)
            }
            BoundsError::Dpi(_) | BoundsError::DpiText(_) => GenerateError::Dpi(e),
            BoundsError::GradientAngle(_) => GenerateError::GradientAngle(e),
            BoundsError::Colour(_) | BoundsError::Color2Required => GenerateError::Color2(e),
            BoundsError::Flag(_) => GenerateError::Verify(e),
        }
    }
}
