//! The typed errors of encoding, option parsing and rendering.

use crate::capacity::Capacity;
use crate::version::{EcLevel, Version};

/// Why data could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The data does not fit in the largest allowed version at the requested level.
    #[error(
        "data too long for error correction level {level}: it is {length}, and at most {capacity} fit; use a lower level or shorter data"
    )]
    DataTooLong {
        /// The requested level.
        level: EcLevel,
        /// The most that fits at that level, in the unit of the data.
        capacity: Capacity,
        /// The size of the data in the same unit.
        length: Capacity,
    },
    /// The minimum version is above the maximum.
    #[error("invalid version range: minimum {min} is above maximum {max}")]
    VersionRange {
        /// The requested minimum.
        min: Version,
        /// The requested maximum.
        max: Version,
    },
}

/// Why an option value was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum OptionError {
    /// A size outside 50..=2000.
    #[error("invalid size {0}: it must be from 50 to 2000 pixels")]
    Size(i64),
    /// A size that is not a whole number.
    #[error("invalid size {0:?}: it must be a whole number of pixels from 50 to 2000")]
    SizeText(String),
    /// A margin outside 0..=10.
    #[error("invalid margin {0}: it must be from 0 to 10 modules")]
    Margin(i64),
    /// A margin that is not a whole number.
    #[error("invalid margin {0:?}: it must be a whole number of modules from 0 to 10")]
    MarginText(String),
    /// A logo size outside 5..=30.
    #[error("invalid logo size {0}: it must be from 5 to 30 percent of the code's width")]
    LogoSize(i64),
    /// A logo size that is not a whole number.
    #[error("invalid logo size {0:?}: it must be a whole percentage from 5 to 30")]
    LogoSizeText(String),
    /// A format other than png or svg.
    #[error("invalid format {0:?}: it must be png or svg")]
    Format(String),
    /// A colour that is not RRGGBB, RGB or RRGGBBAA hex.
    #[error("invalid color {0:?}: use hex digits without '#', as RRGGBB, RGB or RRGGBBAA")]
    Color(String),
    /// An error-correction level other than L, M, Q or H.
    #[error("invalid error correction level {0:?}: it must be L, M, Q or H")]
    EcLevel(String),
}

/// Why a logo image was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LogoError {
    /// The bytes are neither PNG nor JPEG.
    #[error("logo is not a PNG or JPEG image")]
    UnsupportedFormat,
    /// The image is larger than allowed.
    #[error("logo is {width}x{height} pixels; at most {max}x{max} are allowed")]
    TooLarge {
        /// The image's width.
        width: u32,
        /// The image's height.
        height: u32,
        /// The largest allowed width and height.
        max: u32,
    },
    /// The image could not be decoded.
    #[error("logo could not be decoded: {0}")]
    Decode(String),
}

/// Why an image could not be rendered.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The data has more characters than the service accepts.
    #[error("data is {count} characters long; at most {max} are allowed")]
    TooManyCharacters {
        /// The number of characters given.
        count: usize,
        /// The largest number allowed.
        max: usize,
    },
    /// The data does not fit at the requested level.
    #[error(transparent)]
    Encode(#[from] EncodeError),
    /// The image is too small to give each module one pixel.
    #[error(
        "size {size} is too small for this code: it has {modules} modules per side with the margin, so the size must be at least {minimum}"
    )]
    SizeTooSmall {
        /// The requested size.
        size: u32,
        /// Modules per side, margins included.
        modules: u32,
        /// The smallest size that works.
        minimum: u32,
    },
    /// No version can carry this data with the logo and stay reliably readable.
    #[error(
        "a logo of {percent}% hides more of this code than error correction can restore; use a smaller logoSize or shorter data"
    )]
    LogoDoesNotFit {
        /// The requested logo size.
        percent: u8,
    },
    /// The PNG encoder failed (it works in memory, so this signals a bug, reported rather than hidden).
    #[error("PNG encoding failed: {0}")]
    PngEncoding(String),
}
