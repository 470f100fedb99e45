//! Extended Channel Interpretation (ISO/IEC 18004 section 7.4.3): the designator that tells a reader which character set the byte-mode data is in.

use std::fmt;

/// An ECI designator written before the data, for readers that would otherwise guess the
/// character set of byte-mode data wrongly.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Eci {
    /// ECI 000026: the data is UTF-8.
    Utf8,
}

impl Eci {
    /// The assignment number (26 for UTF-8, from the AIM ECI register).
    pub const fn designator(self) -> u32 {
        match self {
            Eci::Utf8 => 26,
        }
    }

    /// The bits the ECI header takes: the 4-bit mode indicator 0111 and the designator, one byte
    /// for numbers below 128 (section 7.4.3.2, table 4).
    pub(crate) const fn header_bits(self) -> usize {
        4 + 8
    }
}

impl fmt::Display for Eci {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ECI {:06}", self.designator())
    }
}
