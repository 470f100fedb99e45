//! Micro QR symbols M1 to M4 (ISO/IEC 18004 sections 6 and 7, the Micro QR parts): one finder, short headers, one Reed-Solomon block, four masks chosen by the edge sum rule.

use std::fmt;

use crate::bit_writer::{BitWriter, MsbFirst};
use crate::bits::write_payload;
use crate::capacity::Capacity;
use crate::ec::block_ecc;
use crate::error::EncodeError;
use crate::grid::BitGrid;
use crate::segment::{Mode, Segment, alphanumeric_value, optimal_segments_with};
use crate::version::{EcLevel, Mask};

/// A Micro QR version, M1 to M4: version `n` has `2n + 9` modules per side (11 to 17).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MicroVersion(u8);

impl MicroVersion {
    /// The four versions, smallest first.
    pub const ALL: [MicroVersion; 4] = [
        MicroVersion(1),
        MicroVersion(2),
        MicroVersion(3),
        MicroVersion(4),
    ];

    /// Returns version M`number`, or `None` when `number` is outside 1..=4.
    pub const fn new(number: u8) -> Option<MicroVersion> {
        if number >= 1 && number <= 4 {
            Some(MicroVersion(number))
        } else {
            None
        }
    }

    /// The number after the M, 1 to 4.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// Modules per side, 11 to 17.
    pub const fn size(self) -> usize {
        2 * self.0 as usize + 9
    }

    /// The symbol's data bits and error-correction codewords at `level`, or `None` when the
    /// version has no such level (table 7: M1 detection only, given as L here; M2 and M3 L and M;
    /// M4 L, M and Q).
    const fn spec(self, level: EcLevel) -> Option<(usize, usize)> {
        match (self.0, level) {
            (1, EcLevel::L) => Some((20, 2)),
            (2, EcLevel::L) => Some((40, 5)),
            (2, EcLevel::M) => Some((32, 6)),
            (3, EcLevel::L) => Some((84, 6)),
            (3, EcLevel::M) => Some((68, 8)),
            (4, EcLevel::L) => Some((128, 8)),
            (4, EcLevel::M) => Some((112, 10)),
            (4, EcLevel::Q) => Some((80, 14)),
            _ => None,
        }
    }

    /// The symbol number of the format information (table 13): 0 for M1, then M2-L, M2-M, M3-L,
    /// M3-M, M4-L, M4-M, M4-Q as 1 to 7.
    const fn symbol_number(self, level: EcLevel) -> u32 {
        let offset = match level {
            EcLevel::L => 0,
            EcLevel::M => 1,
            _ => 2,
        };
        match self.0 {
            1 => 0,
            2 => 1 + offset,
            3 => 3 + offset,
            _ => 5 + offset,
        }
    }

    /// The mode indicator's width: 0 bits in M1 (numeric only) to 3 in M4.
    const fn indicator_bits(self) -> u32 {
        self.0 as u32 - 1
    }

    /// The character count field's width for `mode`, or `None` when this version cannot hold
    /// the mode (table 3).
    const fn count_bits(self, mode: Mode) -> Option<u32> {
        let v = self.0 as usize - 1;
        let widths: [u32; 4] = match mode {
            Mode::Numeric => [3, 4, 5, 6],
            Mode::Alphanumeric => [0, 3, 4, 5],
            Mode::Byte => [0, 0, 4, 5],
            Mode::Kanji => [0, 0, 3, 4],
        };
        if widths[v] == 0 {
            None
        } else {
            Some(widths[v])
        }
    }

    /// The mode indicator value (table 2): numeric 0, alphanumeric 1, byte 2, Kanji 3.
    const fn indicator(mode: Mode) -> u32 {
        match mode {
            Mode::Numeric => 0,
            Mode::Alphanumeric => 1,
            Mode::Byte => 2,
            Mode::Kanji => 3,
        }
    }
}

impl fmt::Display for MicroVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "M{}", self.0)
    }
}

/// One of the four Micro QR data masks, 0 to 3 (the regular masks 1, 4, 6 and 7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct MicroMask(u8);

impl MicroMask {
    /// Returns the mask `number`, or `None` when it is outside 0..=3.
    pub const fn new(number: u8) -> Option<MicroMask> {
        if number <= 3 {
            Some(MicroMask(number))
        } else {
            None
        }
    }

    /// The mask number, 0 to 3.
    pub const fn number(self) -> u8 {
        self.0
    }

    /// Whether the mask inverts the module at column `x`, row `y` (table 10: Micro QR mask `n`
    /// is the regular mask 1, 4, 6 or 7).
    fn inverts(self, x: usize, y: usize) -> bool {
        let regular = [1, 4, 6, 7][usize::from(self.0)];
        Mask::new(regular).is_some_and(|mask| mask.inverts(x, y))
    }
}

/// How to encode a Micro QR symbol: the lowest level, level boosting and an optional fixed mask.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct MicroOptions {
    /// The lowest acceptable level: L (M1 to M4; M1 only detects errors), M (M2 to M4) or Q (M4).
    pub level: EcLevel,
    /// Raise the level as far as the data still fits in the chosen version (on by default).
    pub boost_level: bool,
    /// A fixed mask, or `None` for the one the edge sum rule prefers.
    pub mask: Option<MicroMask>,
}

impl MicroOptions {
    /// Options for `level` with level boosting and the automatic mask.
    pub const fn new(level: EcLevel) -> MicroOptions {
        MicroOptions {
            level,
            boost_level: true,
            mask: None,
        }
    }

    /// These options with level boosting on or off.
    #[must_use]
    pub const fn with_boost_level(mut self, boost_level: bool) -> MicroOptions {
        self.boost_level = boost_level;
        self
    }

    /// These options with the fixed `mask`.
    #[must_use]
    pub const fn with_mask(mut self, mask: MicroMask) -> MicroOptions {
        self.mask = Some(mask);
        self
    }
}

/// An encoded Micro QR symbol: its modules and the parameters it was built with. It needs a
/// quiet zone of 2 modules (against 4 for regular symbols).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MicroQrCode {
    version: MicroVersion,
    level: EcLevel,
    mask: MicroMask,
    segments: Vec<Segment>,
    modules: BitGrid,
}

impl MicroQrCode {
    /// Encodes `data` at `level` or higher in the smallest Micro QR version that holds it.
    pub fn encode(data: &[u8], level: EcLevel) -> Result<MicroQrCode, EncodeError> {
        MicroQrCode::encode_with(data, &MicroOptions::new(level))
    }

    /// Encodes `data` with explicit options.
    pub fn encode_with(data: &[u8], options: &MicroOptions) -> Result<MicroQrCode, EncodeError> {
        let mut level = options.level;
        if level == EcLevel::H {
            return Err(EncodeError::MicroLevel { level });
        }
        let chosen = MicroVersion::ALL.into_iter().find_map(|version| {
            let (data_bits, _) = version.spec(level)?;
            let (segments, bits) = micro_segments(data, version);
            (bits <= data_bits).then_some((version, segments, bits))
        });
        let Some((version, segments, bits)) = chosen else {
            return Err(micro_too_long(data, level));
        };
        if options.boost_level {
            for higher in [EcLevel::M, EcLevel::Q] {
                if higher > level && version.spec(higher).is_some_and(|(d, _)| bits <= d) {
                    level = higher;
                }
            }
        }
        let Some((data_bits, ec_count)) = version.spec(level) else {
            return Err(EncodeError::MicroLevel { level });
        };
        let data_words = data_codewords(data, &segments, version, data_bits);
        let ecc = block_ecc(&data_words, ec_count);
        // The bit stream placed in the symbol: exactly `data_bits` data bits (the 4-bit last
        // codeword of M1 and M3 gives its high nibble), then the error-correction codewords.
        let mut stream: Vec<bool> = (0..data_bits)
            .map(|i| (data_words[i / 8] >> (7 - i % 8)) & 1 == 1)
            .collect();
        stream.extend(
            ecc.iter()
                .flat_map(|&byte| (0..8).rev().map(move |i| (byte >> i) & 1 == 1)),
        );
        let (modules, mask) = build(version, level, &stream, options.mask);
        Ok(MicroQrCode {
            version,
            level,
            mask,
            segments,
            modules,
        })
    }

    /// The symbol's version.
    pub fn version(&self) -> MicroVersion {
        self.version
    }

    /// The error-correction level (L for M1, whose two codewords only detect errors).
    pub fn ec_level(&self) -> EcLevel {
        self.level
    }

    /// The data mask used.
    pub fn mask(&self) -> MicroMask {
        self.mask
    }

    /// The segments the data was split into, in order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The number of modules per side, without quiet zone.
    pub fn size(&self) -> usize {
        self.modules.size()
    }

    /// Whether the module at column `x`, row `y` is dark; positions outside the symbol are light.
    pub fn is_dark(&self, x: usize, y: usize) -> bool {
        x < self.size() && y < self.size() && self.modules.get(x, y)
    }

    /// The modules as rows of booleans (`true` is dark), top row first.
    pub fn to_rows(&self) -> Vec<Vec<bool>> {
        (0..self.size())
            .map(|y| (0..self.size()).map(|x| self.modules.get(x, y)).collect())
            .collect()
    }
}

/// The shortest segmentation of `data` in `version`, with the version's own header widths and
/// modes (Kanji is not offered: it needs Shift JIS input).
fn micro_segments(data: &[u8], version: MicroVersion) -> (Vec<Segment>, usize) {
    optimal_segments_with(data, |mode| {
        let count = version.count_bits(mode)?;
        (mode != Mode::Kanji).then_some(version.indicator_bits() + count)
    })
}

/// The error for data that fits no Micro QR version at `level`: the capacity of the largest
/// version with that level, in the unit of the data.
fn micro_too_long(data: &[u8], level: EcLevel) -> EncodeError {
    let version = MicroVersion(4);
    let (data_bits, _) = version.spec(level).unwrap_or((0, 0));
    let all_digits = data.iter().all(u8::is_ascii_digit);
    let all_alphanumeric = data.iter().all(|&b| alphanumeric_value(b).is_some());
    let (mode, wrap): (Mode, fn(usize) -> Capacity) = if all_digits {
        (Mode::Numeric, Capacity::Digits)
    } else if all_alphanumeric {
        (Mode::Alphanumeric, Capacity::Alphanumeric)
    } else {
        (Mode::Byte, Capacity::Bytes)
    };
    let header = version.indicator_bits() + version.count_bits(mode).unwrap_or(0);
    let bits = data_bits.saturating_sub(header as usize);
    let capacity = match mode {
        Mode::Numeric => bits / 10 * 3 + [0, 0, 0, 0, 1, 1, 1, 2, 2, 2][bits % 10],
        Mode::Alphanumeric => bits / 11 * 2 + usize::from(bits % 11 >= 6),
        _ => bits / 8,
    };
    EncodeError::MicroDataTooLong {
        level,
        capacity: wrap(capacity),
        length: wrap(data.len()),
    }
}

/// The data codewords: segments, terminator (3, 5, 7 or 9 zero bits), zero bits to a codeword
/// boundary, then pad codewords 0xEC and 0x11 and, in M1 and M3, a last 4-bit codeword of zeros
/// (section 7.4.10). The 4-bit codeword is the high nibble of the last byte.
fn data_codewords(
    data: &[u8],
    segments: &[Segment],
    version: MicroVersion,
    data_bits: usize,
) -> Vec<u8> {
    let mut writer = BitWriter::<MsbFirst>::with_capacity(data_bits.div_ceil(8));
    for segment in segments {
        let indicator_bits = version.indicator_bits();
        if indicator_bits > 0 {
            writer.write_bits(MicroVersion::indicator(segment.mode), indicator_bits);
        }
        let count_bits = version.count_bits(segment.mode).unwrap_or(0);
        writer.write_bits(segment.characters() as u32, count_bits);
        write_payload(&mut writer, segment.mode, &data[segment.start..segment.end]);
    }
    let terminator = 2 * usize::from(version.0) + 1;
    let terminator = terminator.min(data_bits - writer.bit_len());
    writer.write_bits(0, terminator as u32);
    let mut bytes = writer.finish();
    let mut pad = [0xEC, 0x11].into_iter().cycle();
    while bytes.len() < data_bits / 8 {
        bytes.push(pad.next().unwrap_or(0xEC));
    }
    if bytes.len() < data_bits.div_ceil(8) {
        bytes.push(0);
    }
    bytes
}

/// Places `stream` in `version`, masks it (with `mask`, or the mask of highest edge score) and
/// draws the format information.
fn build(
    version: MicroVersion,
    level: EcLevel,
    stream: &[bool],
    mask: Option<MicroMask>,
) -> (BitGrid, MicroMask) {
    let size = version.size();
    let mut modules = BitGrid::new(size);
    let mut function = BitGrid::new(size);
    let mut set = |x: usize, y: usize, dark: bool| {
        modules.set(x, y, dark);
        function.set(x, y, true);
    };
    // The finder (7 x 7 around (3, 3)) and its separator along row 7 and column 7.
    for y in 0..8usize {
        for x in 0..8usize {
            let distance = x.abs_diff(3).max(y.abs_diff(3));
            set(x, y, distance != 2 && distance <= 3);
        }
    }
    // Timing patterns along the top row and the left column, dark on even positions.
    for i in 8..size {
        set(i, 0, i % 2 == 0);
        set(0, i, i % 2 == 0);
    }
    // Format information positions, drawn after masking.
    for (x, y) in FORMAT_POSITIONS {
        set(x, y, false);
    }
    // Two-column zigzag from the right edge, upwards first; column 0 is all function modules.
    let mut bits = stream.iter();
    let mut upward = true;
    let mut right = size - 1;
    loop {
        for vertical in 0..size {
            let y = if upward {
                size - 1 - vertical
            } else {
                vertical
            };
            for x in [right, right - 1] {
                if !function.get(x, y) {
                    modules.set(x, y, bits.next().copied().unwrap_or(false));
                }
            }
        }
        if right < 3 {
            break;
        }
        right -= 2;
        upward = !upward;
    }
    let masked = |mask: MicroMask| {
        let mut grid = modules.clone();
        for y in 0..size {
            for x in 0..size {
                if !function.get(x, y) && mask.inverts(x, y) {
                    grid.set(x, y, !grid.get(x, y));
                }
            }
        }
        grid
    };
    let mask = mask.unwrap_or_else(|| {
        // The highest score wins; ties go to the lowest mask number.
        (0..4u8)
            .filter_map(MicroMask::new)
            .map(|mask| (edge_score(&masked(mask)), mask))
            .fold(
                None,
                |best: Option<(u32, MicroMask)>, (score, mask)| match best {
                    Some((best_score, _)) if best_score >= score => best,
                    _ => Some((score, mask)),
                },
            )
            .map_or(MicroMask(0), |(_, mask)| mask)
    });
    let mut grid = masked(mask);
    let bits = format_bits(version.symbol_number(level), mask);
    for (i, (x, y)) in FORMAT_POSITIONS.into_iter().enumerate() {
        grid.set(x, y, (bits >> i) & 1 == 1);
    }
    (grid, mask)
}

/// The Micro QR mask score (section 7.8.3.2): SUM1 dark modules on the right edge and SUM2 on
/// the bottom edge (timing modules excluded); SUM1 x 16 + SUM2 when SUM1 <= SUM2, else
/// SUM2 x 16 + SUM1. Higher is better.
fn edge_score(grid: &BitGrid) -> u32 {
    let last = grid.size() - 1;
    let right = (1..=last).filter(|&y| grid.get(last, y)).count() as u32;
    let bottom = (1..=last).filter(|&x| grid.get(x, last)).count() as u32;
    if right <= bottom {
        right * 16 + bottom
    } else {
        bottom * 16 + right
    }
}

/// Format bit `i` (bit 0 least significant) goes to `FORMAT_POSITIONS[i]`: bits 0 to 6 up
/// column 8 from row 1, bits 7 to 14 along row 8 from column 8 back to column 1.
const FORMAT_POSITIONS: [(usize, usize); 15] = {
    let mut positions = [(0, 0); 15];
    let mut i = 0;
    while i < 15 {
        positions[i] = if i < 7 { (8, i + 1) } else { (15 - i, 8) };
        i += 1;
    }
    positions
};

/// The 15 format bits: symbol number (3 bits) and mask (2 bits), their BCH(15, 5) remainder
/// (the generator of regular symbols), XOR 0x4445 (Micro QR's own mask, section 7.9.2).
fn format_bits(symbol_number: u32, mask: MicroMask) -> u32 {
    let data = symbol_number << 2 | u32::from(mask.0);
    let mut remainder = data;
    for _ in 0..10 {
        remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537);
    }
    (data << 10 | remainder) ^ 0x4445
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn format_information_matches_the_standard() {
        // Annex C, table C.2 (the Micro QR list zxing decodes with), by symbol number and mask.
        let expected = [
            0x4445, 0x4172, 0x4E2B, 0x4B1C, 0x55AE, 0x5099, 0x5FC0, 0x5AF7, 0x6793, 0x62A4, 0x6DFD,
            0x68CA, 0x7678, 0x734F, 0x7C16, 0x7921, 0x06DE, 0x03E9, 0x0CB0, 0x0987, 0x1735, 0x1202,
            0x1D5B, 0x186C, 0x2508, 0x203F, 0x2F66, 0x2A51, 0x34E3, 0x31D4, 0x3E8D, 0x3BBA,
        ];
        for (data, &bits) in expected.iter().enumerate() {
            let mask = MicroMask::new((data & 3) as u8).expect("0 to 3");
            assert_eq!(format_bits(data as u32 >> 2, mask), bits, "data {data:05b}");
        }
    }

    #[test]
    fn annex_example_01234567_in_m2_l() {
        // ISO/IEC 18004 Annex I.3: "01234567" in M2-L is 0 1000 0000001100 0101011001 1000011,
        // terminator 00000 and 000 to the boundary: 40 18 AC C3 00, then the five
        // error-correction codewords 86 0D 22 AE 30.
        let data = b"01234567";
        let version = MicroVersion(2);
        let (segments, bits) = micro_segments(data, version);
        assert_eq!(bits, 32);
        let words = data_codewords(data, &segments, version, 40);
        assert_eq!(words, [0x40, 0x18, 0xAC, 0xC3, 0x00]);
        assert_eq!(block_ecc(&words, 5), [0x86, 0x0D, 0x22, 0xAE, 0x30]);
        let options = MicroOptions::new(EcLevel::L).with_boost_level(false);
        let code = MicroQrCode::encode_with(data, &options).expect("fits");
        assert_eq!((code.version(), code.ec_level()), (version, EcLevel::L));
        // With boosting, the 32 bits also fit M2-M's 32.
        let boosted = MicroQrCode::encode(data, EcLevel::L).expect("fits");
        assert_eq!(boosted.ec_level(), EcLevel::M);
    }

    #[test]
    fn capacities_match_table_7() {
        // The largest input of each mode per version and level, and one more that does not fit.
        let cases: [(u8, EcLevel, u8, usize); 16] = [
            (1, EcLevel::L, b'1', 5),
            (2, EcLevel::L, b'1', 10),
            (2, EcLevel::M, b'1', 8),
            (3, EcLevel::L, b'1', 23),
            (3, EcLevel::M, b'1', 18),
            (4, EcLevel::L, b'1', 35),
            (4, EcLevel::M, b'1', 30),
            (4, EcLevel::Q, b'1', 21),
            (2, EcLevel::L, b'A', 6),
            (3, EcLevel::M, b'A', 11),
            (4, EcLevel::L, b'A', 21),
            (4, EcLevel::Q, b'A', 13),
            (3, EcLevel::L, b'a', 9),
            (3, EcLevel::M, b'a', 7),
            (4, EcLevel::M, b'a', 13),
            (4, EcLevel::Q, b'a', 9),
        ];
        for (number, level, byte, capacity) in cases {
            let version = MicroVersion(number);
            let (data_bits, _) = version.spec(level).expect("a valid pair");
            let fits = |n: usize| micro_segments(&vec![byte; n], version).1 <= data_bits;
            assert!(
                fits(capacity),
                "M{number}-{level} holds {capacity} of {byte}"
            );
            assert!(!fits(capacity + 1), "M{number}-{level} holds no more");
        }
    }

    #[test]
    fn symbol_layout_has_one_finder_and_two_timing_patterns() {
        let code = MicroQrCode::encode(b"12345", EcLevel::L).expect("fits");
        assert_eq!((code.version().number(), code.size()), (1, 11));
        for i in 0..7 {
            let ring = [(i, 0), (i, 6), (0, i), (6, i)];
            assert!(ring.iter().all(|&(x, y)| code.is_dark(x, y)), "finder ring");
            assert!(!code.is_dark(i, 7) && !code.is_dark(7, i), "separator");
        }
        for i in 8..11 {
            assert_eq!(code.is_dark(i, 0), i % 2 == 0, "top timing");
            assert_eq!(code.is_dark(0, i), i % 2 == 0, "left timing");
        }
    }

    #[test]
    fn levels_and_modes_are_restricted_by_version() {
        assert!(matches!(
            MicroQrCode::encode(b"1", EcLevel::H),
            Err(EncodeError::MicroLevel { .. })
        ));
        // Level M starts at M2, Q at M4; lower-case letters need byte mode, from M3.
        let m = MicroQrCode::encode(b"1", EcLevel::M).expect("fits");
        assert_eq!(m.version().number(), 2);
        let q = MicroQrCode::encode(b"1", EcLevel::Q).expect("fits");
        assert_eq!(q.version().number(), 4);
        let byte = MicroQrCode::encode(b"a", EcLevel::L).expect("fits");
        assert_eq!(byte.version().number(), 3);
        assert_eq!(
            MicroQrCode::encode(&[b'a'; 16], EcLevel::L)
                .expect_err("too long")
                .to_string(),
            "data too long for a Micro QR symbol at level L: it is 16 bytes, and at most 15 bytes fit; use a regular QR code, a lower level or shorter data"
        );
    }
}
