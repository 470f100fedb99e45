//! The typed errors of encoding, option parsing and rendering.

use crate::encode::Capacity;
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
