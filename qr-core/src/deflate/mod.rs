//! A zlib compressor specialised for PNG scanlines of QR codes: long runs of identical rows and a tiny byte alphabet.
//!
//! The input is cut into rows of `stride` bytes. A row identical to the row above is a *copy*; a
//! maximal run of rows that each differ from the row above is a *segment*, and every segment is
//! followed by the (possibly empty) run of copies of its last row. Copies are never searched: they
//! are covered by one long match at distance `stride`, which may start inside the tail of the
//! segment before them and end inside the head of the segment after them. Only the bytes of the
//! segments are parsed, by a shortest-path search (dynamic programming) over their positions with
//! match candidates at distance 1, at distance `stride` and from a short hash chain (in which the
//! last row of a segment stands for its last copy, the nearest occurrence of those bytes).
//!
//! The search is priced by the symbol frequencies of a greedy parse (the longest candidate
//! everywhere), except where a first guess from the byte histogram is cheaper. For a tiny alphabet
//! (a filter byte and two pixel values, where literals cost about a bit and a greedy parse
//! misjudges them badly) a quick pass, which takes every match in full, corrects those prices
//! before the full pass. The result is written as one deflate block (dynamic, fixed or stored,
//! whichever is smallest), with length-limited Huffman codes, and the Adler-32 checksum of the
//! copies is derived from the checksum of their row instead of being recomputed byte by byte.

// The fast deflate of the styled images and PDF sums with simd-adler32 instead.
#[cfg(feature = "png")]
mod adler32;
mod block;
// The optimal parse is the plain PNG's; the styled images and PDF use only the greedy one.
#[cfg(feature = "png")]
mod cost;
#[cfg(any(feature = "style", feature = "pdf"))]
mod greedy;
mod huffman;
#[cfg(feature = "png")]
mod layout;
#[cfg(feature = "png")]
mod matches;
#[cfg(feature = "png")]
mod parse;
mod tables;
#[cfg(feature = "pdf")]
mod text;
mod token;

#[cfg(feature = "png")]
use crate::bit_writer::{BitWriter, LsbFirst};
#[cfg(feature = "png")]
use block::BlockPlan;
#[cfg(feature = "png")]
use cost::CostModel;
#[cfg(any(feature = "style", feature = "pdf"))]
pub(crate) use greedy::zlib_compress_fast;
#[cfg(feature = "png")]
use layout::Layout;
#[cfg(feature = "png")]
use parse::Search;
#[cfg(feature = "pdf")]
pub(crate) use text::{zlib_compress_literals, zlib_compress_text};
#[cfg(feature = "png")]
use token::Token;

/// Data whose sample has at most this many distinct byte values (a filter byte and two pixel
/// bytes, say) gets a quick first pass to correct the greedy estimate of the symbol costs.
#[cfg(feature = "png")]
const TINY_ALPHABET: usize = 3;
/// Data whose sample has more distinct byte values than this also gets a parse that starts
/// from flat literal prices.
#[cfg(feature = "png")]
const VARIED_ALPHABET: usize = 32;

#[cfg(feature = "png")]
/// Compresses `data` into a complete zlib stream (2-byte header, deflate blocks, Adler-32).
///
/// `stride` is the length in bytes of one filtered PNG scanline, filter byte included, so that
/// `data.len()` is a multiple of `stride` (it may also be called with stride = data.len() for arbitrary data).
/// The output is deterministic: the same input gives the same bytes.
pub(crate) fn zlib_compress(data: &[u8], stride: usize) -> Vec<u8> {
    let stride = if stride == 0 || !data.len().is_multiple_of(stride) {
        data.len()
    } else {
        stride
    };
    let layout = Layout::new(data, stride);
    let mut writer = BitWriter::<LsbFirst>::with_capacity(data.len() / 16 + 64);
    // CMF: deflate with a 32 KiB window; FLG: maximum compression, no dictionary, check bits.
    writer.write_bytes(&[0x78, 0xDA]);
    if data.is_empty() {
        // A final fixed-Huffman block holding only the end-of-block code.
        writer.write_bits(0b011, 3);
        writer.write_bits(0, 7);
    } else {
        let (tokens, plan) = best_parse(&layout);
        plan.write(&mut writer, data, &tokens);
    }
    let mut out = writer.finish();
    out.extend_from_slice(&layout.adler32().to_be_bytes());
    out
}

#[cfg(feature = "png")]
/// Finds a cheap parse of the data of `layout` into tokens by repeated shortest-path searches,
/// and the codes to write it with.
///
/// The first pass is priced by a guess. For data with a varied alphabet, a second series of
/// passes starts from a guess that favours matches more, and the smaller result is kept.
fn best_parse(layout: &Layout<'_>) -> (Vec<Token>, BlockPlan) {
    let mut search = Search::new(layout);
    let histogram = layout.sample_histogram();
    let alphabet = histogram.iter().filter(|&&count| count > 0).count();
    let tiny = alphabet <= TINY_ALPHABET;
    let mut best = search.refine(layout, CostModel::initial(&histogram, false), tiny);
    let mut best_plan = BlockPlan::new(&best);
    if alphabet > VARIED_ALPHABET {
        let other = search.refine(layout, CostModel::initial(&histogram, true), tiny);
        let other_plan = BlockPlan::new(&other);
        if other_plan.bits() < best_plan.bits() {
            best = other;
            best_plan = other_plan;
        }
    }
    (best, best_plan)
}

#[cfg(all(test, feature = "png"))]
mod tests {
    use super::adler32::Adler32;
    use super::*;
    use proptest::prelude::*;

    /// Inflates a zlib stream with an independent decoder.
    fn inflate(stream: &[u8]) -> Vec<u8> {
        miniz_oxide::inflate::decompress_to_vec_zlib(stream).expect("a valid zlib stream")
    }

    /// Compresses `data` and checks that it inflates back to `data`; returns the stream.
    fn round_trip(data: &[u8], stride: usize) -> Vec<u8> {
        let stream = zlib_compress(data, stride);
        assert_eq!(
            inflate(&stream),
            data,
            "stride {stride}, {} bytes",
            data.len()
        );
        assert_eq!(
            stream,
            zlib_compress(data, stride),
            "the output is deterministic"
        );
        stream
    }

    /// A tiny deterministic pseudo-random generator.
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn below(&mut self, bound: usize) -> usize {
            (self.next() % bound as u64) as usize
        }
    }

    /// Returns a pseudo-random `size` x `size` module matrix with the three finder patterns.
    fn modules(size: usize, random: &mut XorShift) -> Vec<Vec<bool>> {
        let mut matrix: Vec<Vec<bool>> = (0..size)
            .map(|_| (0..size).map(|_| random.next() & 1 == 1).collect())
            .collect();
        for (top, left) in [(0, 0), (0, size - 7), (size - 7, 0)] {
            for y in 0..7 {
                for x in 0..7 {
                    let ring = x.min(y).min(6 - x).min(6 - y);
                    matrix[top + y][left + x] = ring != 1;
                }
            }
        }
        matrix
    }

    /// Renders `matrix` as filtered 1-bit PNG scanlines (filter type 0) of a `width` x `width`
    /// image, `scale` pixels per module, the code starting at pixel (`offset`, `offset`).
    fn scanlines(
        matrix: &[Vec<bool>],
        width: usize,
        scale: usize,
        offset: usize,
    ) -> (Vec<u8>, usize) {
        let stride = 1 + width.div_ceil(8);
        let mut data = vec![0u8; stride * width];
        for y in offset..width {
            for x in offset..width {
                let (column, row) = ((x - offset) / scale, (y - offset) / scale);
                if matrix.get(row).and_then(|cells| cells.get(column)) == Some(&true) {
                    data[y * stride + 1 + x / 8] |= 0x80 >> (x % 8);
                }
            }
        }
        (data, stride)
    }

    /// Returns synthetic QR-like images at many sizes, scales, margins and offsets.
    fn synthetic_images() -> Vec<(String, Vec<u8>, usize)> {
        let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
        let mut images = Vec::new();
        for size in (21..=177).step_by(16) {
            let matrix = modules(size, &mut random);
            for scale in [1, 2, 3, 4, 5, 6, 8, 10, 12, 16, 24, 40] {
                let margin = random.below(5);
                let extra = random.below(8);
                let width = (size + 2 * margin) * scale + extra;
                if !(50..=1000).contains(&width) {
                    continue;
                }
                let offset = margin * scale + extra / 2;
                let (data, stride) = scanlines(&matrix, width, scale, offset);
                let name = format!("{size} modules, {scale} px, {width} px wide, offset {offset}");
                images.push((name, data, stride));
            }
        }
        images
    }

    #[test]
    fn synthetic_qr_images_round_trip() {
        for (name, data, stride) in synthetic_images() {
            let stream = zlib_compress(&data, stride);
            assert_eq!(inflate(&stream), data, "{name}");
        }
    }

    #[test]
    fn synthetic_qr_images_are_smaller_than_miniz_level_9() {
        let (mut ours, mut theirs) = (0, 0);
        for (name, data, stride) in synthetic_images() {
            let size = zlib_compress(&data, stride).len();
            let reference = miniz_oxide::deflate::compress_to_vec_zlib(&data, 9).len();
            // Huge modules leave almost nothing to gain beyond the copies, which both encode
            // alike, and codes of random noise at 1 pixel per module are nearly incompressible:
            // there the two may differ by a hair either way.
            assert!(
                size <= reference + reference / 100,
                "{name}: {size} > {reference}"
            );
            ours += size;
            theirs += reference;
        }
        assert!(ours * 100 <= theirs * 97, "in all: {ours} vs {theirs}");
    }

    #[test]
    fn reference_code_fits_the_png_budget() {
        // A version 3 code (29 x 29 modules), 8 pixels per module, in a 300 x 300 image with
        // the code starting at pixel 34, two pixels off the byte grid.
        let code = qrcodegen::QrCode::encode_text(
            "https://example.com/qr/0123456789",
            qrcodegen::QrCodeEcc::Medium,
        )
        .expect("the text fits");
        assert_eq!(code.size(), 29);
        let matrix: Vec<Vec<bool>> = (0..29)
            .map(|y| (0..29).map(|x| code.get_module(x, y)).collect())
            .collect();
        let (data, stride) = scanlines(&matrix, 300, 8, 34);
        let stream = round_trip(&data, stride);
        let reference = miniz_oxide::deflate::compress_to_vec_zlib(&data, 9).len();
        assert!(stream.len() <= 330, "{} bytes", stream.len());
        assert!(stream.len() < reference, "{} vs {reference}", stream.len());
    }

    #[test]
    fn edge_cases_round_trip() {
        round_trip(&[], 0);
        round_trip(&[], 1);
        round_trip(&[7], 1);
        round_trip(&[7], 0);
        round_trip(&[7], 5);
        round_trip(&[0; 1000], 1000);
        round_trip(&[0; 1000], 10);
        round_trip(&[0; 1000], 1);
        round_trip(&[0xFF; 1000], 8);
        round_trip(&[0xFF; 70_000], 70_000);
        round_trip(&[0; 300], 3);
        round_trip(&[1, 2, 3, 4, 5, 6], 2);
        round_trip(&[1, 2, 3, 4, 5, 6, 7], 3);
        round_trip(&[1, 2, 3, 4, 5, 6], 4);
        // Runs just past multiples of 258, where the last piece of a long match must not be
        // shorter than 3.
        for len in [257, 258, 259, 260, 261, 516, 517, 518, 519, 1000] {
            let mut data = vec![9u8];
            data.extend(std::iter::repeat_n(0u8, len));
            data.push(9);
            round_trip(&data, data.len());
            round_trip(&data, 1);
        }
    }

    #[test]
    fn long_copy_runs_and_far_repeats_round_trip() {
        let mut random = XorShift(12345);
        // A block of noise, 40 KiB of zeros, then the noise again: the repeat is out of reach.
        let noise: Vec<u8> = (0..5000).map(|_| random.next() as u8).collect();
        let mut data = noise.clone();
        data.extend(std::iter::repeat_n(0u8, 40 * 1024));
        data.extend_from_slice(&noise);
        round_trip(&data, data.len());
        // Rows of 251 bytes repeated far more than 258 bytes and 32 KiB at a time.
        let row: Vec<u8> = (0..251).map(|_| random.next() as u8 & 0x81).collect();
        let other: Vec<u8> = (0..251).map(|_| random.next() as u8 & 0x18).collect();
        let mut rows = Vec::new();
        for _ in 0..200 {
            rows.extend_from_slice(&row);
        }
        for _ in 0..3 {
            rows.extend_from_slice(&other);
        }
        for _ in 0..150 {
            rows.extend_from_slice(&row);
        }
        round_trip(&rows, 251);
        round_trip(&rows, 1);
        // A uniform row, copied, between uniform rows of another byte.
        let mut uniform = vec![0xFFu8; 50 * 40];
        uniform.extend(std::iter::repeat_n(0u8, 50 * 40));
        uniform.extend(std::iter::repeat_n(0xFFu8, 50 * 40));
        round_trip(&uniform, 50);
    }

    #[test]
    fn large_images_round_trip() {
        let mut random = XorShift(777);
        let matrix = modules(177, &mut random);
        for (width, scale, offset) in [(2000, 11, 28), (1990, 1, 3), (1800, 10, 0)] {
            let (data, stride) = scanlines(&matrix, width, scale, offset);
            round_trip(&data, stride);
        }
    }

    #[test]
    fn adler32_of_copies_matches_the_bytes() {
        let mut random = XorShift(99);
        let row: Vec<u8> = (0..300).map(|_| random.next() as u8).collect();
        let mut data = Vec::new();
        for _ in 0..500 {
            data.extend_from_slice(&row);
        }
        let mut direct = Adler32::new();
        direct.update(&data);
        assert_eq!(Layout::new(&data, 300).adler32(), direct.value());
        let mut known = Adler32::new();
        known.update(b"Wikipedia");
        assert_eq!(known.value(), 0x11E6_0398);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_round_trip(data in proptest::collection::vec(any::<u8>(), 0..3000), stride in 0usize..300) {
            let stream = zlib_compress(&data, stride);
            prop_assert_eq!(inflate(&stream), data);
        }

        #[test]
        fn repetitive_rows_round_trip(
            alphabet in proptest::collection::vec(any::<u8>(), 1..4),
            picks in proptest::collection::vec(any::<u16>(), 1..400),
            stride in 1usize..60,
            repeats in 1usize..12,
        ) {
            // Rows from a tiny alphabet, each repeated a few times, like scaled QR modules.
            let mut data = Vec::new();
            for row in picks.chunks(stride) {
                for _ in 0..repeats {
                    data.extend(row.iter().map(|&pick| alphabet[usize::from(pick) % alphabet.len()]));
                }
            }
            data.truncate(data.len() / stride * stride);
            let stream = zlib_compress(&data, stride);
            prop_assert_eq!(inflate(&stream), data);
        }
    }
}
