//! Deflate for PDF content streams: literals only, Huffman-coded with the stream's own code or with one made once per process for curves' coordinates.
//!
//! Absolute coordinates repeat too little for matches to pay (the greedy parse found 10 % fewer
//! bytes in five times the time). Counting each stream's bytes, building its code and writing
//! its header cost a rounded code's PDF a tenth of its time, for codes that hardly change from
//! one stream of curves to the next (digits, spaces and points are nine tenths of each): the
//! shared code ([`zlib_compress_text`]) gives every byte a code, a rare one 11 to 13 bits,
//! and writes such streams 12 to 20 % larger than their own code would
//! ([`zlib_compress_literals`], which the square style's rectangles keep).

use std::sync::OnceLock;

use super::block::{BlockPlan, DynamicHeader, symbol_code};
use super::huffman::{canonical_codes, huffman_lengths};
use super::tables::{DIST_SYMBOLS, END_OF_BLOCK, LITLEN_SYMBOLS, MAX_CODE_BITS};
use crate::bit_writer::{BitWriter, LsbFirst};

/// Weights of the bytes of content streams of curves, per mille: the mean shares in the
/// streams of the benchmark's rounded, connected, gradient and framed codes
/// (`qr_benches::style_cases`). Every other byte weighs one. Against each stream's own code
/// these cost 11 to 20 % more bytes (entropy estimate: rounded 5,325 -> 5,960, connected
/// 4,564 -> 5,491).
const WEIGHTS: [(u8, u32); 24] = [
    (b' ', 292),
    (b'2', 120),
    (b'1', 118),
    (b'.', 82),
    (b'5', 54),
    (b'8', 46),
    (b'0', 42),
    (b'7', 38),
    (b'c', 29),
    (b'l', 22),
    (b'6', 22),
    (b'3', 19),
    (b'9', 19),
    (b'4', 18),
    (b'\n', 16),
    (b'm', 12),
    (b'D', 9),
    (b'/', 8),
    (b'o', 8),
    (b'E', 8),
    (b'-', 4),
    (b'r', 4),
    (b'e', 4),
    (b'h', 4),
];

/// The code: its block header, and each literal's bits and length (the end of block last).
struct TextCode {
    header: DynamicHeader,
    literals: [(u64, u32); END_OF_BLOCK + 1],
}

static CODE: OnceLock<TextCode> = OnceLock::new();

fn code() -> &'static TextCode {
    CODE.get_or_init(|| {
        let mut weights = [1u32; LITLEN_SYMBOLS];
        for (byte, weight) in WEIGHTS {
            weights[usize::from(byte)] = weight;
        }
        // No lengths or distances: only the literals and the end of block get codes.
        weights[END_OF_BLOCK + 1..].fill(0);
        let litlen_lengths = huffman_lengths(&weights, MAX_CODE_BITS);
        let mut dist_lengths = vec![0u8; DIST_SYMBOLS];
        // Some decoders want at least one distance code even if none is used.
        dist_lengths[0] = 1;
        let codes = canonical_codes(&litlen_lengths);
        let mut literals = [(0u64, 0u32); END_OF_BLOCK + 1];
        for (symbol, entry) in literals.iter_mut().enumerate() {
            let (bits, count) = symbol_code(&codes, &litlen_lengths, symbol);
            *entry = (u64::from(bits), count);
        }
        TextCode {
            header: DynamicHeader::new(&litlen_lengths, &dist_lengths),
            literals,
        }
    })
}

/// Compresses `data` into a zlib stream: one final dynamic block of literals with the shared
/// code of curves' coordinates, a table lookup a byte.
pub(crate) fn zlib_compress_text(data: &[u8]) -> Vec<u8> {
    let code = code();
    let mut writer = BitWriter::<LsbFirst>::with_capacity(data.len() / 2 + 128);
    // CMF: deflate with a 32 KiB window; FLG: fastest compression, no dictionary, check bits.
    writer.write_bytes(&[0x78, 0x01]);
    // Final block, dynamic codes.
    writer.write_bits(0b101, 3);
    code.header.write(&mut writer);
    write_literals(&mut writer, data, &code.literals);
    finish(writer, data)
}

/// Compresses `data` into a zlib stream of literals with a code of its own: a counting pass,
/// the code, and a table lookup a byte.
pub(crate) fn zlib_compress_literals(data: &[u8]) -> Vec<u8> {
    let mut writer = BitWriter::<LsbFirst>::with_capacity(data.len() / 2 + 64);
    writer.write_bytes(&[0x78, 0x01]);
    // Four counts side by side: one table's increments wait on each other whenever a byte
    // repeats (digits and spaces do), four cycles each.
    let mut counts = [[0u32; 256]; 4];
    let mut quads = data.chunks_exact(4);
    for quad in &mut quads {
        for (count, &byte) in counts.iter_mut().zip(quad) {
            count[usize::from(byte)] += 1;
        }
    }
    for &byte in quads.remainder() {
        counts[0][usize::from(byte)] += 1;
    }
    let mut litlen = [0u32; LITLEN_SYMBOLS];
    for (symbol, total) in litlen.iter_mut().enumerate().take(256) {
        *total = counts.iter().map(|count| count[symbol]).sum();
    }
    litlen[END_OF_BLOCK] += 1;
    let dist = [0u32; DIST_SYMBOLS];
    BlockPlan::from_frequencies(&litlen, &dist).write_with(
        &mut writer,
        data,
        |writer, litlen_lengths, _| {
            let codes = canonical_codes(litlen_lengths);
            let mut literals = [(0u64, 0u32); END_OF_BLOCK + 1];
            for (symbol, entry) in literals.iter_mut().enumerate() {
                let (bits, count) = symbol_code(&codes, litlen_lengths, symbol);
                *entry = (u64::from(bits), count);
            }
            write_literals(writer, data, &literals);
        },
    );
    finish(writer, data)
}

/// Writes `data` and the end of block with `literals` (each byte's code and length).
fn write_literals(
    writer: &mut BitWriter<LsbFirst>,
    data: &[u8],
    literals: &[(u64, u32); END_OF_BLOCK + 1],
) {
    // Codes gathered in a local word (a register) and handed to the writer 32 bits at a time:
    // the writer keeps its bits in memory, and a store and a load around every code made one
    // chain through the whole stream.
    let (mut acc, mut filled) = (0u64, 0u32);
    let mut pairs = data.chunks_exact(2);
    for pair in &mut pairs {
        // Two codes of at most 15 bits after fewer than 32 pending bits fit 64.
        let (a, a_count) = literals[usize::from(pair[0])];
        let (b, b_count) = literals[usize::from(pair[1])];
        acc |= (a | b << a_count) << filled;
        filled += a_count + b_count;
        if filled >= 32 {
            writer.write_bits(acc as u32, 32);
            acc >>= 32;
            filled -= 32;
        }
    }
    let last = pairs.remainder().iter().map(|&b| usize::from(b));
    for symbol in last.chain([END_OF_BLOCK]) {
        let (bits, count) = literals[symbol];
        acc |= bits << filled;
        filled += count;
        if filled >= 32 {
            writer.write_bits(acc as u32, 32);
            acc >>= 32;
            filled -= 32;
        }
    }
    writer.write_bits(acc as u32, filled);
}

/// The stream's end: the writer's bytes and the Adler-32 of `data`.
fn finish(writer: BitWriter<LsbFirst>, data: &[u8]) -> Vec<u8> {
    let mut out = writer.finish();
    let mut adler = simd_adler32::Adler32::new();
    adler.write(data);
    out.extend_from_slice(&adler.finish().to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_bytes_round_trip() {
        let mut data: Vec<u8> = (0..=255u8).collect();
        data.extend_from_slice(b"12.5 3 m 12.78 3 13 3.22 13 3.5 c h\n");
        for len in [0, 1, 2, 3, data.len()] {
            for compressed in [
                zlib_compress_text(&data[..len]),
                zlib_compress_literals(&data[..len]),
            ] {
                let back = miniz_oxide::inflate::decompress_to_vec_zlib(&compressed)
                    .expect("a valid zlib stream");
                assert_eq!(back, &data[..len]);
            }
        }
    }
}
