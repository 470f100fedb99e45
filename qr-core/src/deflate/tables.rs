//! The deflate format's limits and code tables (RFC 1951 section 3.2.5): match lengths, distances and code lengths.

/// The shortest match deflate can express.
pub(super) const MIN_MATCH: usize = 3;
/// The longest match one deflate length code can express.
pub(super) const MAX_MATCH: usize = 258;
/// The largest distance deflate can express.
pub(super) const WINDOW: usize = 32768;
/// The number of literal/length symbols (256 literals, end of block, 29 length codes).
pub(super) const LITLEN_SYMBOLS: usize = 286;
/// The number of distance symbols.
pub(super) const DIST_SYMBOLS: usize = 30;
/// The number of code-length symbols.
pub(super) const CLEN_SYMBOLS: usize = 19;
/// The end-of-block symbol.
pub(super) const END_OF_BLOCK: usize = 256;
/// The longest Huffman code allowed for literal/length and distance symbols.
pub(super) const MAX_CODE_BITS: u8 = 15;
/// The longest Huffman code allowed for code-length symbols.
pub(super) const MAX_CLEN_BITS: u8 = 7;
/// The largest number of bytes in one stored block.
pub(super) const MAX_STORED: usize = 65535;

/// The first length of each deflate length code.
pub(super) const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
/// The number of extra bits of each deflate length code.
pub(super) const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
/// The first distance of each deflate distance code.
pub(super) const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
/// The number of extra bits of each deflate distance code.
pub(super) const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order in which the code lengths of the code-length code are written.
pub(super) const CLEN_ORDER: [usize; CLEN_SYMBOLS] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];
/// The number of extra bits of each code-length symbol.
pub(super) const CLEN_EXTRA: [u8; CLEN_SYMBOLS] =
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7];

/// The length code (0..29) of every match length from 0 to 258 (entries below 3 are unused).
pub(super) const LENGTH_CODE: [u8; MAX_MATCH + 1] = length_code_table();

/// Builds [`LENGTH_CODE`].
pub(super) const fn length_code_table() -> [u8; MAX_MATCH + 1] {
    let mut table = [0u8; MAX_MATCH + 1];
    let mut code = 0;
    while code < 28 {
        let base = LENGTH_BASE[code] as usize;
        let count = 1usize << LENGTH_EXTRA[code];
        let mut offset = 0;
        while offset < count {
            table[base + offset] = code as u8;
            offset += 1;
        }
        code += 1;
    }
    // Length 258 has a code of its own, although code 27 could also express it.
    table[MAX_MATCH] = 28;
    table
}

/// Computes the distance code (0..30) of a distance from 1 to 32768.
pub(super) const fn compute_dist_code(dist: usize) -> u8 {
    if dist <= 4 {
        dist.saturating_sub(1) as u8
    } else {
        let x = (dist - 1) as u32;
        let log = 31 - x.leading_zeros();
        (2 * log + ((x >> (log - 1)) & 1)) as u8
    }
}

/// The distance code of every distance from 1 to 256 (at `dist - 1`), then of every distance
/// above 256 by `(dist - 1) >> 7` (at `256 + ((dist - 1) >> 7)`): codes 16 and up cover whole
/// blocks of 128 distances.
pub(super) const DIST_CODE: [u8; 512] = dist_code_table();

/// Builds [`DIST_CODE`].
pub(super) const fn dist_code_table() -> [u8; 512] {
    let mut table = [0u8; 512];
    let mut index = 0;
    while index < 256 {
        table[index] = compute_dist_code(index + 1);
        table[256 + index] = compute_dist_code((index << 7) + 1);
        index += 1;
    }
    table
}

/// Returns the distance code (0..30) of a distance from 1 to 32768.
#[inline]
pub(super) fn dist_code(dist: usize) -> usize {
    let x = dist.saturating_sub(1);
    let index = if x < 256 { x } else { 256 + (x >> 7) };
    usize::from(DIST_CODE.get(index).copied().unwrap_or(29))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_codes_match_their_bases() {
        for dist in 1..=WINDOW {
            let code = dist_code(dist);
            assert_eq!(code, usize::from(compute_dist_code(dist)), "{dist}");
            let base = usize::from(DIST_BASE[code]);
            assert!(
                base <= dist && dist < base + (1 << DIST_EXTRA[code]),
                "{dist}"
            );
        }
    }
}
