//! The typed errors of encoding, logo decoding and rendering (option errors live beside the options).

use crate::capacity::Capacity;
use crate::options::Format;
use crate::version::{EcLevel, Version};

/// Why data could not be encoded.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
    /// The data does not fit in a Micro QR symbol (M4 at most) at the requested level.
    #[error(
        "data too long for a Micro QR symbol at level {level}: it is {length}, and at most {capacity} fit; use a regular QR code, a lower level or shorter data"
    )]
    MicroDataTooLong {
        /// The requested level.
        level: EcLevel,
        /// The most that fits in M4 at that level, in the unit of the data.
        capacity: Capacity,
        /// The size of the data in the same unit.
        length: Capacity,
    },
    /// Micro QR symbols have no level H.
    #[error("Micro QR symbols have no error correction level {level}; use L, M or Q")]
    MicroLevel {
        /// The requested level.
        level: EcLevel,
    },
    /// The data does not fit in 16 structured append symbols of the largest allowed version.
    #[error(
        "data too long for 16 structured append symbols of version {max_version} at level {level}: it is {length} bytes; allow a larger version, use a lower level or shorter data"
    )]
    SequenceTooLong {
        /// The requested level.
        level: EcLevel,
        /// The largest version allowed for each symbol.
        max_version: Version,
        /// The data's length in bytes.
        length: usize,
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

/// Why a logo image was rejected.
#[cfg(feature = "logo")]
#[cfg_attr(docsrs, doc(cfg(feature = "logo")))]
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
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
#[non_exhaustive]
pub enum RenderError {
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
    #[cfg(feature = "logo")]
    #[cfg_attr(docsrs, doc(cfg(feature = "logo")))]
    #[error(
        "a logo of {percent}% hides more of this code than error correction can restore; use a smaller logo size or shorter data"
    )]
    LogoDoesNotFit {
        /// The requested logo size.
        percent: u8,
    },
    /// The PNG encoder of a logo composite failed (it works in memory, so this signals a bug,
    /// reported rather than hidden).
    #[cfg(all(feature = "png", feature = "logo"))]
    #[cfg_attr(docsrs, doc(cfg(all(feature = "png", feature = "logo"))))]
    #[error("PNG encoding failed: {0}")]
    PngEncoding(String),
    /// A style or frame was asked for whose cargo feature (`style` or `frame`) is off in this
    /// build of qr-core.
    #[error("the {feature} option is not compiled in: enable the `{feature}` feature of qr-core")]
    FeatureNotEnabled {
        /// The feature that is off.
        feature: &'static str,
    },
    /// The format's cargo feature is off in this build of qr-core (see [`Format::is_enabled`]).
    #[error("{format} output is not compiled in: enable the `{format}` feature of qr-core")]
    FormatNotEnabled {
        /// The format asked for.
        format: Format,
    },
    /// A Micro QR symbol was asked for with an option its plain drawing does not offer
    /// ([`render_micro`](crate::render_micro)).
    #[error(
        "Micro QR codes are drawn plain (square modules, one colour, PNG or SVG): the {option} option is not available for them"
    )]
    NotForMicro {
        /// The option, by its field name in `RenderOptions`.
        option: &'static str,
    },
}
