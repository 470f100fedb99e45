//! Why a code could not be generated, split by job: [`ParameterError`] (a request parameter), [`PayloadError`] (a content type's fields), [`ImageError`] (encoding, drawing and verifying), and [`GenerateError`], any of them; every `Display` is the API's message.

use qr_core::content::ContentError;
use qr_core::{Capacity, EcLevel, EncodeError, OptionError, RenderError};
use thiserror::Error;

use crate::bounds::BoundsError;
use crate::parameters::{self, Parameter};

/// Why a code could not be generated; `Display` is the API's error message (the job's own).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GenerateError {
    /// A request parameter is missing, malformed or out of bounds.
    #[error(transparent)]
    Parameter(#[from] ParameterError),
    /// A content type or one of its fields is refused.
    #[error(transparent)]
    Payload(#[from] PayloadError),
    /// The code could not be encoded, drawn or read back.
    #[error(transparent)]
    Image(#[from] ImageError),
}

/// A request parameter the service refuses.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParameterError {
    /// `data` is missing or empty.
    #[error("data parameter required")]
    MissingData,
    /// Both `data` and `type` are given.
    #[error("data and type cannot be combined: send data, or type with its fields")]
    TypeWithData,
    /// The data has more characters than the service accepts.
    #[error("Data too long: {count} characters, at most {max} allowed")]
    TooManyCharacters {
        /// Characters given.
        count: usize,
        /// Characters allowed.
        max: usize,
    },
    /// `symbol` is not qr or micro.
    #[error("Invalid symbol: expected qr or micro")]
    Symbol(String),
    /// A parameter's value is not one the table allows (`Invalid size`); the reason, when
    /// there is more to say than the parameter's name, is the source.
    #[error("Invalid {}", parameter.name)]
    Invalid {
        /// The parameter's entry in [`parameters::PARAMETERS`].
        parameter: &'static Parameter,
        /// What is wrong with the value (`None` when the name says it all: `errorCorrection`).
        #[source]
        reason: Option<InvalidValue>,
    },
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
}

/// What is wrong with a parameter's value: a bound of the service, or a value qr-core does not
/// know.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InvalidValue {
    /// Outside the service's bounds, or not a number or flag.
    #[error(transparent)]
    Bounds(#[from] BoundsError),
    /// Not a value qr-core takes (a style, a colour, a frame text).
    #[error(transparent)]
    Option(#[from] OptionError),
}

/// A content type or field refused (`type=wifi` and the others).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PayloadError {
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
}

/// A code that could not be encoded, drawn or read back.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ImageError {
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
            GenerateError::Parameter(e) => e.parameter(),
            GenerateError::Payload(e) => e.parameter(),
            GenerateError::Image(e) => e.parameter(),
        }
    }
}

impl ParameterError {
    /// The API name of the parameter this error is about.
    pub fn parameter(&self) -> &'static str {
        match self {
            ParameterError::MissingData | ParameterError::TooManyCharacters { .. } => "data",
            ParameterError::TypeWithData => "type",
            ParameterError::Symbol(_) => "symbol",
            ParameterError::Invalid { parameter, .. } => parameter.name,
            ParameterError::NotAvailable { parameter, .. } => parameter,
        }
    }

    /// `parameter`'s value is refused for `reason`.
    pub fn invalid(parameter: &'static Parameter, reason: impl Into<InvalidValue>) -> Self {
        ParameterError::Invalid {
            parameter,
            reason: Some(reason.into()),
        }
    }
}

impl PayloadError {
    /// The API name of the parameter this error is about (`type`, or the field's).
    pub fn parameter(&self) -> &'static str {
        match self {
            PayloadError::ContentType(_) => "type",
            PayloadError::MissingField { field, .. }
            | PayloadError::InvalidField { field, .. }
            | PayloadError::Content { field, .. } => field,
        }
    }
}

impl ImageError {
    /// The API name of the parameter this error is about (`data` for failures that are no
    /// parameter's).
    pub fn parameter(&self) -> &'static str {
        match self {
            ImageError::SizeTooSmall { .. } => "size",
            ImageError::LogoDoesNotFit { .. } => "logoSize",
            ImageError::StyleTooThin { .. } => "style",
            ImageError::LowContrast { parameter, .. } => parameter,
            ImageError::Unreadable(_)
            | ImageError::DataTooLong { .. }
            | ImageError::MicroDataTooLong { .. }
            | ImageError::SequenceTooLong { .. }
            | ImageError::TooManyCodes { .. }
            | ImageError::Encoding(_) => "data",
        }
    }
}

impl From<RenderError> for ImageError {
    fn from(e: RenderError) -> Self {
        match e {
            RenderError::Encode(EncodeError::DataTooLong {
                level, capacity, ..
            }) => ImageError::DataTooLong { level, capacity },
            RenderError::Encode(EncodeError::MicroDataTooLong {
                level, capacity, ..
            }) => ImageError::MicroDataTooLong { level, capacity },
            RenderError::Encode(other) => ImageError::Encoding(other.to_string()),
            RenderError::SizeTooSmall { minimum, .. } => ImageError::SizeTooSmall { minimum },
            RenderError::LogoDoesNotFit { percent } => ImageError::LogoDoesNotFit { percent },
            RenderError::PngEncoding(message) => ImageError::Encoding(message),
            // A format compiled out of qr-core, or a refusal added after this match was written:
            // neither is the caller's fault.
            other => ImageError::Encoding(other.to_string()),
        }
    }
}

impl From<RenderError> for GenerateError {
    fn from(e: RenderError) -> Self {
        GenerateError::Image(e.into())
    }
}

impl From<BoundsError> for ParameterError {
    /// The error of the parameter the bound belongs to.
    fn from(e: BoundsError) -> Self {
        let parameter = match e {
            BoundsError::Size(_) | BoundsError::SizeText(_) => &parameters::SIZE,
            BoundsError::Margin(_) | BoundsError::MarginText(_) => &parameters::MARGIN,
            BoundsError::LogoSize(_) | BoundsError::LogoSizeText(_) => &parameters::LOGO_SIZE,
            BoundsError::PrintSize(_) | BoundsError::PrintSizeText(_) => &parameters::PRINT_SIZE,
            BoundsError::Dpi(_) | BoundsError::DpiText(_) => &parameters::DPI,
            BoundsError::GradientAngle(_) => &parameters::GRADIENT_ANGLE,
            BoundsError::Colour(_) | BoundsError::Color2Required => &parameters::COLOR2,
            BoundsError::Flag(_) => &parameters::VERIFY,
        };
        ParameterError::invalid(parameter, e)
    }
}

impl From<BoundsError> for GenerateError {
    /// The error of the parameter the bound belongs to.
    fn from(e: BoundsError) -> Self {
        GenerateError::Parameter(e.into())
    }
}
