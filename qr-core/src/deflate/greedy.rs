//! A fast zlib compressor for the styled images and print documents: a greedy parse with three match candidates, written with the same block coder.
//!
//! The optimal parse of `zlib_compress` pays off on plain PNG scanlines, where nearly every row
//! is a copy and only a few hundred bytes are parsed; a styled image changes most of its rows
//! and a PDF content stream has no rows at all, and there its cost grows to milliseconds. Here
//! each position tries the previous byte, the row above and the last position with the same
//! three bytes, takes the longest match whole, and moves on: a few nanoseconds a byte.

use super::adler32::Adler32;
use super::block::BlockPlan;
use super::tables::{MAX_MATCH, MIN_MATCH, WINDOW};
use super::token::Token;
use crate::bit_writer::{BitWriter, LsbFirst};

/// Bits of the hash of three bytes (8,192 slots: enough for the few kilobytes of text and the
/// short alphabets of images compressed here).
const HASH_BITS: u32 = 13;

/// Compresses `data` (rows of `stride` bytes, or any bytes with `stride` 0) into a zlib stream.
pub(crate) fn zlib_compress_fast(data: &[u8], stride: usize) -> Vec<u8> {
    let mut writer = BitWriter::<LsbFirst>::with_capacity(data.len() / 8 + 64);
    // CMF: deflate with a 32 KiB window; FLG: fastest compression, no dictionary, check bits.
    writer.write_bytes(&[0x78, 0x01]);
    let tokens = tokens(data, stride);
    BlockPlan::new(&tokens).write(&mut writer, data, &tokens);
    let mut out = writer.finish();
    let mut adler = Adler32::new();
    adler.update(data);
    out.extend_from_slice(&adler.value().to_be_bytes());
    out
}

/// The greedy parse: at each position the longest of three candidate matches, or a literal.
fn tokens(data: &[u8], stride: usize) -> Vec<Token> {
    let mut table = vec![u32::MAX; 1 << HASH_BITS];
    let mut tokens = Vec::with_capacity(data.len() / 4 + 16);
    let mut i = 0;
    while i < data.len() {
        let mut best = (0, 0);
        if i + MIN_MATCH <= data.len() {
            let key =
                u32::from(data[i]) | u32::from(data[i + 1]) << 8 | u32::from(data[i + 2]) << 16;
            let slot = (key.wrapping_mul(0x9E37_79B1) >> (32 - HASH_BITS)) as usize;
            let previous = table[slot];
            table[slot] = i as u32;
            let hashed = if previous == u32::MAX {
                0
            } else {
                i - previous as usize
            };
            for dist in [1, stride, hashed] {
                if dist == 0 || dist > i || dist > WINDOW {
                    continue;
                }
                let len = match_length(data, i, dist);
                if len > best.0 {
                    best = (len, dist);
                }
            }
        }
        if best.0 >= MIN_MATCH {
            tokens.push(Token {
                len: best.0 as u16,
                dist: best.1 as u16,
            });
            i += best.0;
        } else {
            tokens.push(Token {
                len: u16::from(data[i]),
                dist: 0,
            });
            i += 1;
        }
    }
    tokens
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
