//! A fast zlib compressor for the styled images and print documents: a greedy parse with three match candidates, written with the same block coder.
//!
//! The optimal parse of `zlib_compress` pays off on plain PNG scanlines, where nearly every row
//! is a copy and only a few hundred bytes are parsed; a styled image changes most of its rows
//! and a PDF content stream has no rows at all, and there its cost grows to milliseconds. Here
//! each position tries the previous byte, the row above and the last position with the same
//! three bytes, takes the longest match whole, and moves on: a few nanoseconds a byte.

use super::block::{BlockPlan, symbol_code};
use super::huffman::canonical_codes;
use super::tables::{
    DIST_BASE, DIST_EXTRA, DIST_SYMBOLS, END_OF_BLOCK, LENGTH_BASE, LENGTH_CODE, LENGTH_EXTRA,
    LITLEN_SYMBOLS, MAX_MATCH, MIN_MATCH, WINDOW, dist_code,
};
use super::token::Token;
use crate::bit_writer::{BitWriter, LsbFirst};

/// Bits of the hash of three bytes (8,192 slots: enough for the few kilobytes of text and the
/// short alphabets of images compressed here).
const HASH_BITS: u32 = 13;

/// Compresses `data` (rows of `stride` bytes, or any bytes with `stride` 0) into a zlib stream.
pub(crate) fn zlib_compress_fast(data: &[u8], stride: usize) -> Vec<u8> {
    let mut writer = BitWriter::<LsbFirst>::with_capacity(data.len() / 4 + 64);
    // CMF: deflate with a 32 KiB window; FLG: fastest compression, no dictionary, check bits.
    writer.write_bytes(&[0x78, 0x01]);
    let parse = Parse::new(data, stride);
    BlockPlan::from_frequencies(&parse.litlen, &parse.dist).write_with(
        &mut writer,
        data,
        |writer, litlen, dist| write_tokens(writer, &parse.tokens, litlen, dist),
    );
    let mut out = writer.finish();
    let mut adler = simd_adler32::Adler32::new();
    adler.write(data);
    out.extend_from_slice(&adler.finish().to_be_bytes());
    out
}

/// The greedy parse of some data: its tokens and the counts of their symbols.
struct Parse {
    tokens: Vec<Token>,
    /// Literal/length symbol counts, the end of block included.
    litlen: [u32; LITLEN_SYMBOLS],
    dist: [u32; DIST_SYMBOLS],
}

impl Parse {
    /// At each position the longest of three candidate matches, or a literal; symbols are
    /// counted as they are found (a second pass over the tokens cost as much as the parse).
    fn new(data: &[u8], stride: usize) -> Parse {
        let mut table = vec![u32::MAX; 1 << HASH_BITS];
        let mut parse = Parse {
            // Rows repeat, so tokens are far fewer than bytes (a 90 kB gradient image: about
            // 2,600); a quarter of the bytes reserved 90 kB the heap then had to give back.
            tokens: Vec::with_capacity(data.len() / 32 + 64),
            litlen: [0; LITLEN_SYMBOLS],
            dist: [0; DIST_SYMBOLS],
        };
        let n = data.len();
        let mut i = 0;
        while i < n {
            let mut best = (0, 0);
            if i + MIN_MATCH <= n {
                let key = three_bytes(data, i);
                let slot = (key.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize;
                let previous = table[slot];
                table[slot] = i as u32;
                let hashed = if previous == u32::MAX {
                    0
                } else {
                    i - previous as usize
                };
                for dist in [1, stride, hashed] {
                    // Only a candidate whose first three bytes agree, and that agrees on the
                    // byte where the best so far ends (or it cannot be longer), is measured:
                    // the full comparison of up to 258 bytes is most of the parse's cost.
                    if dist == 0
                        || dist > i
                        || dist > WINDOW
                        || three_bytes(data, i - dist) != key
                        || best.0 == MAX_MATCH
                        || (best.0 > 0 && data.get(i + best.0) != data.get(i - dist + best.0))
                    {
                        continue;
                    }
                    let len = match_length(data, i, dist);
                    if len > best.0 {
                        best = (len, dist);
                    }
                }
            }
            if best.0 >= MIN_MATCH {
                parse.tokens.push(Token {
                    len: best.0 as u16,
                    dist: best.1 as u16,
                });
                parse.litlen[257 + usize::from(LENGTH_CODE[best.0])] += 1;
                parse.dist[dist_code(best.1)] += 1;
                i += best.0;
            } else {
                parse.tokens.push(Token {
                    len: u16::from(data[i]),
                    dist: 0,
                });
                parse.litlen[usize::from(data[i])] += 1;
                i += 1;
            }
        }
        parse.litlen[END_OF_BLOCK] += 1;
        parse
    }
}

/// The three bytes at `i` as a number (`i + 3` at most the length).
#[inline]
fn three_bytes(data: &[u8], i: usize) -> u32 {
    match data.get(i..i + 4) {
        Some(&[a, b, c, _]) => u32::from_le_bytes([a, b, c, 0]),
        _ => u32::from(data[i]) | u32::from(data[i + 1]) << 8 | u32::from(data[i + 2]) << 16,
    }
}

/// Writes `tokens` and the end-of-block symbol with the code `litlen_lengths` and
/// `dist_lengths`: each token's code and extra bits come from tables made once per block, so a
/// literal is one lookup and one write and a match two (the general writer looks up the code,
/// the length and the extra bits of each symbol separately, 85 instructions a token).
fn write_tokens(
    writer: &mut BitWriter<LsbFirst>,
    tokens: &[Token],
    litlen_lengths: &[u8],
    dist_lengths: &[u8],
) {
    let litlen_codes = canonical_codes(litlen_lengths);
    let dist_codes = canonical_codes(dist_lengths);
    let code = symbol_code;
    // Literals and the end of block: (bits, count).
    let mut literals = [(0u32, 0u32); END_OF_BLOCK + 1];
    for (symbol, entry) in literals.iter_mut().enumerate() {
        *entry = code(&litlen_codes, litlen_lengths, symbol);
    }
    // Match lengths: the length symbol's code with the extra bits above it.
    let mut lengths = [(0u32, 0u32); MAX_MATCH + 1];
    for (len, entry) in lengths.iter_mut().enumerate().skip(MIN_MATCH) {
        let length_code = usize::from(LENGTH_CODE[len]);
        let (bits, count) = code(&litlen_codes, litlen_lengths, 257 + length_code);
        let extra = (len - usize::from(LENGTH_BASE[length_code])) as u32;
        *entry = (
            bits | extra << count,
            count + u32::from(LENGTH_EXTRA[length_code]),
        );
    }
    // Distance codes: (bits, count, base, extra count).
    let mut distances = [(0u32, 0u32, 0u32, 0u32); DIST_SYMBOLS];
    for (symbol, entry) in distances.iter_mut().enumerate() {
        let (bits, count) = code(&dist_codes, dist_lengths, symbol);
        *entry = (
            bits,
            count,
            u32::from(DIST_BASE[symbol]),
            u32::from(DIST_EXTRA[symbol]),
        );
    }
    for token in tokens {
        if token.dist == 0 {
            let (bits, count) = literals[usize::from(token.len & 0xFF)];
            writer.write_bits(bits, count);
            continue;
        }
        let (bits, count) = lengths[usize::from(token.len).min(MAX_MATCH)];
        writer.write_bits(bits, count);
        let dist = u32::from(token.dist);
        let (bits, count, base, extra) = distances[dist_code(dist as usize)];
        writer.write_bits(bits | (dist - base) << count, count + extra);
    }
    let (bits, count) = literals[END_OF_BLOCK];
    writer.write_bits(bits, count);
}

/// How many bytes from `i` repeat those `dist` bytes before, at most 258.
fn match_length(data: &[u8], i: usize, dist: usize) -> usize {
    let limit = (data.len() - i).min(MAX_MATCH);
    let (ahead, behind) = (&data[i..i + limit], &data[i - dist..i - dist + limit]);
    // Eight bytes at a time: the first differing byte is the lowest set byte of the XOR.
    let mut length = 0;
    for (a, b) in ahead.chunks_exact(8).zip(behind.chunks_exact(8)) {
        let word = |bytes: &[u8]| u64::from_le_bytes(bytes.try_into().unwrap_or([0; 8]));
        let difference = word(a) ^ word(b);
        if difference != 0 {
            return length + (difference.trailing_zeros() / 8) as usize;
        }
        length += 8;
    }
    length
        + ahead[length..]
            .iter()
            .zip(&behind[length..])
            .take_while(|(a, b)| a == b)
            .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn inflate(stream: &[u8]) -> Vec<u8> {
        miniz_oxide::inflate::decompress_to_vec_zlib(stream).expect("a valid zlib stream")
    }

    #[test]
    fn text_and_rows_round_trip_smaller() {
        let text = "0 0 m 7 0 l 7 7 l 0 7 l h\n".repeat(100);
        let stream = zlib_compress_fast(text.as_bytes(), 0);
        assert_eq!(inflate(&stream), text.as_bytes());
        assert!(stream.len() < text.len() / 10, "{}", stream.len());
        let rows: Vec<u8> = (0..300 * 151)
            .map(|i| {
                if i % 151 == 0 {
                    0
                } else {
                    (i / 3000 % 7) as u8
                }
            })
            .collect();
        assert_eq!(inflate(&zlib_compress_fast(&rows, 151)), rows);
        assert_eq!(inflate(&zlib_compress_fast(&[], 0)), Vec::<u8>::new());
    }

    proptest! {
        #[test]
        fn any_bytes_round_trip(data in proptest::collection::vec(0u8..4, 0..3000), stride in 0usize..200) {
            prop_assert_eq!(inflate(&zlib_compress_fast(&data, stride)), data);
        }
    }
}
