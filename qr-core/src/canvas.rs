//! The module matrix: function patterns, zigzag placement of codewords, masking and format/version information.

use crate::grid::{BitGrid, WORDS};
use crate::penalty;
use crate::version::{EcLevel, Mask, Version};

/// Builds the final module matrix of a symbol: `codewords` (data and error correction, interleaved)
/// placed in `version`, with `mask`, or with the mask of lowest penalty when `mask` is `None`.
pub(crate) fn build(
    version: Version,
    level: EcLevel,
    codewords: &[u8],
    mask: Option<Mask>,
) -> (BitGrid, Mask) {
    let mut canvas = Canvas::new(version);
    canvas.draw_function_patterns();
    canvas.place_codewords(codewords);
    let mask = mask.unwrap_or_else(|| canvas.best_mask(level));
    let (mut rows, mut columns) = canvas.masked(mask);
    draw_format_bits(&mut rows, &mut columns, level, mask);
    (rows, mask)
}

/// For each module (index `y * size + x`), the index of the codeword whose bit it holds in the
/// interleaved sequence, or `None` for function modules and remainder bits.
#[cfg(feature = "logo")]
pub(crate) fn codeword_map(version: Version) -> Vec<Option<u16>> {
    let mut canvas = Canvas::new(version);
    canvas.draw_function_patterns();
    let size = canvas.size;
    let codewords = version.raw_data_modules() / 8;
    let mut map = vec![None; size * size];
    canvas.walk_data_modules(|bit, x, y| {
        if bit / 8 < codewords {
            map[y * size + x] = Some((bit / 8) as u16);
        }
    });
    map
}

/// The matrix under construction, kept both by rows and by columns so that penalties of either
/// direction are computed with the same word-wise line scan.
struct Canvas {
    version: Version,
    size: usize,
    rows: BitGrid,
    columns: BitGrid,
    /// Function modules by rows and by columns; bits at and beyond `size` are set, so that
    /// `!function` selects exactly the data modules.
    function_rows: BitGrid,
    function_columns: BitGrid,
}

impl Canvas {
    fn new(version: Version) -> Canvas {
        let size = version.size();
        let mut function_rows = BitGrid::new(size);
        // Every bit at or beyond `size` in each line is marked as a function module.
        let beyond: [u64; WORDS] = std::array::from_fn(|k| {
            let start = k * 64;
            if size <= start {
                u64::MAX
            } else if size >= start + 64 {
                0
            } else {
                !((1u64 << (size - start)) - 1)
            }
        });
        function_rows.fill_lines(&beyond);
        let function_columns = function_rows.clone();
        Canvas {
            version,
            size,
            rows: BitGrid::new(size),
            columns: BitGrid::new(size),
            function_rows,
            function_columns,
        }
    }

    fn set_function(&mut self, x: usize, y: usize, dark: bool) {
        self.rows.set(x, y, dark);
        self.columns.set(y, x, dark);
        self.function_rows.set(x, y, true);
        self.function_columns.set(y, x, true);
    }

    fn draw_function_patterns(&mut self) {
        let size = self.size;
        for i in 0..size {
            self.set_function(6, i, i % 2 == 0);
            self.set_function(i, 6, i % 2 == 0);
        }
        self.draw_finder(3, 3);
        self.draw_finder(size - 4, 3);
        self.draw_finder(3, size - 4);

        let positions = self.version.alignment_positions();
        let last = positions.len().saturating_sub(1);
        for (i, &x) in positions.iter().enumerate() {
            for (j, &y) in positions.iter().enumerate() {
                let on_finder = (i == 0 && (j == 0 || j == last)) || (i == last && j == 0);
                if !on_finder {
                    for dy in 0..5usize {
                        for dx in 0..5usize {
                            let distance = dx.abs_diff(2).max(dy.abs_diff(2));
                            self.set_function(x + dx - 2, y + dy - 2, distance != 1);
                        }
                    }
                }
            }
        }

        // Reserve the format areas (their bits depend on the mask and are drawn later) and the dark module.
        for (x, y) in format_positions(size).into_iter().flatten() {
            self.set_function(x, y, false);
        }
        self.set_function(8, size - 8, true);

        if self.version.number() >= 7 {
            let bits = version_bits(self.version);
            for i in 0..18 {
                let dark = (bits >> i) & 1 == 1;
                let a = size - 11 + i % 3;
                let b = i / 3;
                self.set_function(a, b, dark);
                self.set_function(b, a, dark);
            }
        }
    }

    fn draw_finder(&mut self, cx: usize, cy: usize) {
        for dy in 0..9usize {
            for dx in 0..9usize {
                let (Some(x), Some(y)) = ((cx + dx).checked_sub(4), (cy + dy).checked_sub(4))
                else {
                    continue;
                };
                if x < self.size && y < self.size {
                    let distance = dx.abs_diff(4).max(dy.abs_diff(4));
                    self.set_function(x, y, distance != 2 && distance != 4);
                }
            }
        }
    }

    /// Places the codeword bits in the two-column zigzag, skipping function modules.
    fn place_codewords(&mut self, codewords: &[u8]) {
        let total_bits = codewords.len() * 8;
        let mut dark_modules = Vec::with_capacity(total_bits / 2);
        self.walk_data_modules(|bit, x, y| {
            // Remainder bits past the codewords stay light.
            if bit < total_bits && (codewords[bit / 8] >> (7 - bit % 8)) & 1 == 1 {
                dark_modules.push((x, y));
            }
        });
        for (x, y) in dark_modules {
            self.rows.set(x, y, true);
            self.columns.set(y, x, true);
        }
    }

    /// Calls `visit(bit, x, y)` for every data module in placement order: two-column strips from
    /// the right, alternately upwards and downwards, skipping the vertical timing pattern.
    fn walk_data_modules(&self, mut visit: impl FnMut(usize, usize, usize)) {
        let size = self.size;
        let mut bit = 0;
        let mut right = size - 1;
        loop {
            if right == 6 {
                right = 5;
            }
            let upward = (right + 1) & 2 == 0;
            for vertical in 0..size {
                let y = if upward {
                    size - 1 - vertical
                } else {
                    vertical
                };
                for x in [right, right - 1] {
                    if !self.function_rows.get(x, y) {
                        visit(bit, x, y);
                        bit += 1;
                    }
                }
            }
            if right < 2 {
                break;
            }
            right -= 2;
        }
    }

    /// The rows and columns with `mask` applied to the data modules.
    fn masked(&self, mask: Mask) -> (BitGrid, BitGrid) {
        let mut rows = BitGrid::new(0);
        let mut columns = BitGrid::new(0);
        self.masked_into(mask, &mut rows, &mut columns);
        (rows, columns)
    }

    /// Writes the rows and columns with `mask` applied to the data modules into `rows` and
    /// `columns`, reusing their storage.
    fn masked_into(&self, mask: Mask, rows: &mut BitGrid, columns: &mut BitGrid) {
        let m = mask.number() as usize;
        rows.set_masked(&self.rows, &self.function_rows, &ROW_PATTERNS[m]);
        columns.set_masked(&self.columns, &self.function_columns, &COLUMN_PATTERNS[m]);
    }

    /// The first mask with the lowest penalty score, the rule qrcodegen and ISO/IEC 18004 follow.
    fn best_mask(&self, level: EcLevel) -> Mask {
        let mut best = (u32::MAX, Mask::ALL[0]);
        let mut rows = BitGrid::new(0);
        let mut columns = BitGrid::new(0);
        for mask in Mask::ALL {
            self.masked_into(mask, &mut rows, &mut columns);
            draw_format_bits(&mut rows, &mut columns, level, mask);
            if let Some(score) = penalty::score(&rows, &columns, best.0)
                && score < best.0
            {
                best = (score, mask);
            }
        }
        best.1
    }
}

fn draw_format_bits(rows: &mut BitGrid, columns: &mut BitGrid, level: EcLevel, mask: Mask) {
    let bits = FORMAT_BITS[level.format_bits() as usize][mask.number() as usize];
    for copy in format_positions(rows.size()) {
        for (i, (x, y)) in copy.into_iter().enumerate() {
            let dark = (bits >> i) & 1 == 1;
            rows.set(x, y, dark);
            columns.set(y, x, dark);
        }
    }
}

/// The (x, y) positions of format bits 0 to 14, for the copy around the top-left finder and the
/// copy split between the other two.
fn format_positions(size: usize) -> [[(usize, usize); 15]; 2] {
    let first = std::array::from_fn(|i| match i {
        0..=5 => (8, i),
        6 => (8, 7),
        7 => (8, 8),
        8 => (7, 8),
        _ => (14 - i, 8),
    });
    let second = std::array::from_fn(|i| {
        if i < 8 {
            (size - 1 - i, 8)
        } else {
            (8, size - 15 + i)
        }
    });
    [first, second]
}

/// The 18 version information bits: the version and its BCH(18, 6) remainder.
fn version_bits(version: Version) -> u32 {
    let v = u32::from(version.number());
    let mut remainder = v;
    for _ in 0..12 {
        remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25);
    }
    v << 12 | remainder
}

/// Format information for each level's two format bits and each mask: BCH(15, 5) code, XOR-masked.
const FORMAT_BITS: [[u32; 8]; 4] = {
    let mut table = [[0u32; 8]; 4];
    let mut level = 0;
    while level < 4 {
        let mut mask = 0;
        while mask < 8 {
            let data = (level << 3 | mask) as u32;
            let mut remainder = data;
            let mut i = 0;
            while i < 10 {
                remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537);
                i += 1;
            }
            table[level][mask] = (data << 10 | remainder) ^ 0x5412;
            mask += 1;
        }
        level += 1;
    }
    table
};

/// The modules each mask inverts on a row, by mask and row modulo 12 (every mask repeats with period 12).
const ROW_PATTERNS: [[[u64; WORDS]; 12]; 8] = mask_patterns(false);
/// The modules each mask inverts on a column, by mask and column modulo 12.
const COLUMN_PATTERNS: [[[u64; WORDS]; 12]; 8] = mask_patterns(true);

const fn mask_patterns(by_column: bool) -> [[[u64; WORDS]; 12]; 8] {
    let mut table = [[[0u64; WORDS]; 12]; 8];
    let mut m = 0;
    while m < 8 {
        let mask = Mask::ALL[m];
        let mut line = 0;
        while line < 12 {
            let mut i = 0;
            while i < WORDS * 64 {
                let inverts = if by_column {
                    mask.inverts(line, i)
                } else {
                    mask.inverts(i, line)
                };
                if inverts {
                    table[m][line][i / 64] |= 1u64 << (i % 64);
                }
                i += 1;
            }
            line += 1;
        }
        m += 1;
    }
    table
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_information_matches_the_standard() {
        // ISO/IEC 18004 Annex D: version 7 is 000111110010010100.
        let v7 = Version::new(7).expect("valid version");
        assert_eq!(version_bits(v7), 0b000111_110010010100);
    }

    #[test]
    fn format_information_matches_the_standard() {
        // Level M, mask 5 in Annex C: 100000011001110.
        assert_eq!(FORMAT_BITS[0][5], 0b100000011001110);
    }

    #[test]
    fn mask_patterns_repeat_every_twelve_lines() {
        for mask in Mask::ALL {
            for y in 0..40 {
                for x in 0..40 {
                    assert_eq!(mask.inverts(x, y), mask.inverts(x, y % 12));
                    assert_eq!(mask.inverts(x, y), mask.inverts(x % 12, y));
                }
            }
        }
    }
}
