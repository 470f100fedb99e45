//! How much data fits, in the unit that suits the data: digits, alphanumeric characters or bytes.

use crate::segment::{Mode, alphanumeric_value};
use crate::version::{EcLevel, Version};

/// How much data the largest allowed version holds at a level, in the unit that fits the data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Capacity {
    /// Decimal digits, for data made only of digits.
    Digits(usize),
    /// Alphanumeric characters, for data made only of the 45 alphanumeric characters.
    Alphanumeric(usize),
    /// Bytes, for any other data (UTF-8 text counts its encoded bytes).
    Bytes(usize),
    /// Kanji characters, for text encoded in Kanji mode.
    Kanji(usize),
}

impl Capacity {
    /// What fits of data like `data` in `version` at `level` after `reserved` header bits (an
    /// ECI), counted in Kanji characters when `kanji`.
    pub(crate) fn for_data(
        data: &[u8],
        version: Version,
        level: EcLevel,
        reserved: usize,
        kanji: bool,
    ) -> Capacity {
        let available = (version.data_codewords(level) * 8).saturating_sub(reserved);
        let mode = if kanji {
            Mode::Kanji
        } else {
            Capacity::mode_of(data)
        };
        let bits = available.saturating_sub(4 + mode.count_bits(version.group()));
        match mode {
            Mode::Numeric => {
                Capacity::Digits(bits / 10 * 3 + [0, 0, 0, 0, 1, 1, 1, 2, 2, 2][bits % 10])
            }
            Mode::Alphanumeric => {
                Capacity::Alphanumeric(bits / 11 * 2 + usize::from(bits % 11 >= 6))
            }
            Mode::Kanji => Capacity::Kanji(bits / 13),
            _ => Capacity::Bytes(bits / 8),
        }
    }

    /// The length of `data` in the unit [`Capacity::for_data`] uses (`data` is the Shift JIS
    /// bytes when `kanji`).
    pub(crate) fn length_of(data: &[u8], kanji: bool) -> Capacity {
        if kanji {
            return Capacity::Kanji(data.len() / 2);
        }
        match Capacity::mode_of(data) {
            Mode::Numeric => Capacity::Digits(data.len()),
            Mode::Alphanumeric => Capacity::Alphanumeric(data.len()),
            _ => Capacity::Bytes(data.len()),
        }
    }

    fn mode_of(data: &[u8]) -> Mode {
        if data.iter().all(u8::is_ascii_digit) {
            Mode::Numeric
        } else if data.iter().all(|&b| alphanumeric_value(b).is_some()) {
            Mode::Alphanumeric
        } else {
            Mode::Byte
        }
    }
}

impl std::fmt::Display for Capacity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Capacity::Digits(n) => write!(f, "{n} digits"),
            Capacity::Alphanumeric(n) => write!(f, "{n} alphanumeric characters"),
            Capacity::Bytes(n) => write!(f, "{n} bytes"),
            Capacity::Kanji(n) => write!(f, "{n} Kanji characters"),
        }
    }
}
