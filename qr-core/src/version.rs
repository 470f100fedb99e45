//! Range-checked spec quantities (version, error-correction level, mask) and the ISO/IEC 18004 capacity tables.

use std::fmt;

/// A QR code version, 1 to 40: version `v` has `17 + 4v` modules per side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(u8);

impl Version {
    /// The smallest version.
    pub const MIN: Version = Version(1);
    /// The largest version.
    pub const MAX: Version = Version(40);

    /// Returns the version `number`, or `None` when it is outside 1..=40.
    pub const fn new(number: u8) -> Option<Version> {
        if number >= 1 && number <= 40 {
            Some(Version(number))
        } else {
            None
        }
    }

    /// The version number, 1 to 40.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// The number of modules per side, 21 to 177.
    pub const fn size(self) -> usize {
        17 + 4 * self.0 as usize
    }

    /// Which of the three character-count width groups (1-9, 10-26, 27-40) this version is in.
    pub(crate) const fn group(self) -> usize {
        match self.0 {
            1..=9 => 0,
            10..=26 => 1,
            _ => 2,
        }
    }

    /// The number of modules available for data and error-correction bits (remainder bits included).
    pub(crate) const fn raw_data_modules(self) -> usize {
        let v = self.0 as usize;
        let mut result = (16 * v + 128) * v + 64;
        if v >= 2 {
            let alignment_count = v / 7 + 2;
            result -= (25 * alignment_count - 10) * alignment_count - 55;
            if v >= 7 {
                result -= 36;
            }
        }
        result
    }

    /// The number of 8-bit data codewords (error correction excluded) at `level`.
    pub(crate) const fn data_codewords(self, level: EcLevel) -> usize {
        let l = level.table_index();
        let v = self.0 as usize;
        self.raw_data_modules() / 8
            - ECC_CODEWORDS_PER_BLOCK[l][v] as usize * ERROR_CORRECTION_BLOCKS[l][v] as usize
    }

    /// The centre coordinates of the alignment patterns along one axis, ascending.
    pub(crate) fn alignment_positions(self) -> Vec<usize> {
        let v = self.0 as usize;
        if v == 1 {
            return Vec::new();
        }
        let count = v / 7 + 2;
        let step = (v * 8 + count * 3 + 5) / (count * 4 - 4) * 2;
        // The last pattern sits 7 modules from the far edge; the others step back from it,
        // except the first, which is always on the timing pattern at 6.
        let last = self.size() - 7;
        (0..count)
            .map(|i| {
                if i == 0 {
                    6
                } else {
                    last - (count - 1 - i) * step
                }
            })
            .collect()
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// The error-correction level: how much of the code can be damaged and still be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum EcLevel {
    /// About 7% of codewords can be restored.
    L,
    /// About 15% of codewords can be restored (the service's default).
    M,
    /// About 25% of codewords can be restored.
    Q,
    /// About 30% of codewords can be restored; advised with a logo.
    H,
}

impl EcLevel {
    /// All levels, from the least to the most robust.
    pub const ALL: [EcLevel; 4] = [EcLevel::L, EcLevel::M, EcLevel::Q, EcLevel::H];

    /// Parses `L`, `M`, `Q` or `H` (case-insensitive).
    pub fn parse(text: &str) -> Option<EcLevel> {
        match text {
            "L" | "l" => Some(EcLevel::L),
            "M" | "m" => Some(EcLevel::M),
            "Q" | "q" => Some(EcLevel::Q),
            "H" | "h" => Some(EcLevel::H),
            _ => None,
        }
    }

    /// The level's letter.
    pub const fn letter(self) -> char {
        match self {
            EcLevel::L => 'L',
            EcLevel::M => 'M',
            EcLevel::Q => 'Q',
            EcLevel::H => 'H',
        }
    }

    /// The two bits this level has in the format information.
    pub(crate) const fn format_bits(self) -> u32 {
        match self {
            EcLevel::L => 1,
            EcLevel::M => 0,
            EcLevel::Q => 3,
            EcLevel::H => 2,
        }
    }

    const fn table_index(self) -> usize {
        self as usize
    }

    /// The error-correction codewords per block and the number of blocks at `version`.
    pub(crate) const fn blocks(self, version: Version) -> (usize, usize) {
        let l = self.table_index();
        let v = version.0 as usize;
        (
            ECC_CODEWORDS_PER_BLOCK[l][v] as usize,
            ERROR_CORRECTION_BLOCKS[l][v] as usize,
        )
    }
}

impl fmt::Display for EcLevel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.letter())
    }
}

/// One of the eight data mask patterns, 0 to 7.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Mask(u8);

impl Mask {
    /// Returns the mask `number`, or `None` when it is outside 0..=7.
    pub const fn new(number: u8) -> Option<Mask> {
        if number <= 7 {
            Some(Mask(number))
        } else {
            None
        }
    }

    /// The mask number, 0 to 7.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// All eight masks in order.
    pub(crate) const ALL: [Mask; 8] = [
        Mask(0),
        Mask(1),
        Mask(2),
        Mask(3),
        Mask(4),
        Mask(5),
        Mask(6),
        Mask(7),
    ];

    /// Whether this mask inverts the module at column `x`, row `y`.
    // The conditions are written as ISO/IEC 18004 table 10 states them, "(i + j) mod 2 = 0".
    #[allow(clippy::manual_is_multiple_of)]
    pub(crate) const fn inverts(self, x: usize, y: usize) -> bool {
        match self.0 {
            0 => (x + y) % 2 == 0,
            1 => y % 2 == 0,
            2 => x % 3 == 0,
            3 => (x + y) % 3 == 0,
            4 => (x / 3 + y / 2) % 2 == 0,
            5 => x * y % 2 + x * y % 3 == 0,
            6 => (x * y % 2 + x * y % 3) % 2 == 0,
            _ => ((x + y) % 2 + x * y % 3) % 2 == 0,
        }
    }
}

impl fmt::Display for Mask {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.0)
    }
}

/// Error-correction codewords per block, indexed by level (L, M, Q, H) then version (index 0 unused).
const ECC_CODEWORDS_PER_BLOCK: [[u8; 41]; 4] = [
    [
        0, 7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28,
        30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
    ],
    [
        0, 10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28,
        28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28,
    ],
    [
        0, 13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30,
        30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
    ],
    [
        0, 17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24,
        30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30,
    ],
];

/// Error-correction blocks, indexed by level (L, M, Q, H) then version (index 0 unused).
const ERROR_CORRECTION_BLOCKS: [[u8; 41]; 4] = [
    [
        0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13,
        14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25,
    ],
    [
        0, 1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21,
        23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49,
    ],
    [
        0, 1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29,
        34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68,
    ],
    [
        0, 1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32,
        35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81,
    ],
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_capacity_of_version_40_low_is_2953() {
        let v40 = Version::MAX;
        // 4 bits of mode and 16 bits of count leave 2,953 whole bytes.
        assert_eq!((v40.data_codewords(EcLevel::L) * 8 - 20) / 8, 2953);
    }

    #[test]
    fn data_codewords_match_the_standard() {
        fn check(version: u8, level: EcLevel, expected: usize) {
            let v = Version::new(version).expect("valid version");
            assert_eq!(
                v.data_codewords(level),
                expected,
                "version {version} {level}"
            );
        }
        check(1, EcLevel::L, 19);
        check(1, EcLevel::H, 9);
        check(3, EcLevel::M, 44);
        check(10, EcLevel::Q, 154);
        check(40, EcLevel::L, 2956);
        check(40, EcLevel::H, 1276);
    }

    #[test]
    fn alignment_positions_match_the_standard() {
        fn check(version: u8, expected: &[usize]) {
            let v = Version::new(version).expect("valid version");
            assert_eq!(v.alignment_positions(), expected, "version {version}");
        }
        check(1, &[]);
        check(2, &[6, 18]);
        check(7, &[6, 22, 38]);
        check(32, &[6, 34, 60, 86, 112, 138]);
        check(40, &[6, 30, 58, 86, 114, 142, 170]);
    }

    #[test]
    fn newtypes_reject_out_of_range_numbers() {
        assert!(Version::new(0).is_none());
        assert!(Version::new(41).is_none());
        assert!(Mask::new(8).is_none());
        assert_eq!(Version::new(40).map(Version::size), Some(177));
    }
}
