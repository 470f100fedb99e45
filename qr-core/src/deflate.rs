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

/// How hard the search for matches works.
#[derive(Clone, Copy, Debug)]
struct Effort {
    /// The most hash-chain entries visited at one position.
    depth: usize,
    /// A match at least this long is taken as is: the parser skips the positions it covers, and
    /// the hash chain is not searched at a position that already has one.
    nice: usize,
}

/// The shortest match deflate can express.
const MIN_MATCH: usize = 3;
/// The longest match one deflate length code can express.
const MAX_MATCH: usize = 258;
/// The largest distance deflate can express.
const WINDOW: usize = 32768;
/// The number of literal/length symbols (256 literals, end of block, 29 length codes).
const LITLEN_SYMBOLS: usize = 286;
/// The number of distance symbols.
const DIST_SYMBOLS: usize = 30;
/// The number of code-length symbols.
const CLEN_SYMBOLS: usize = 19;
/// The end-of-block symbol.
const END_OF_BLOCK: usize = 256;
/// The longest Huffman code allowed for literal/length and distance symbols.
const MAX_CODE_BITS: u8 = 15;
/// The longest Huffman code allowed for code-length symbols.
const MAX_CLEN_BITS: u8 = 7;
/// The largest number of bytes in one stored block.
const MAX_STORED: usize = 65535;
/// The modulus of Adler-32.
const ADLER_MOD: u32 = 65521;
/// The most bytes that can be summed before the Adler-32 sums must be reduced to stay within `u32`.
const ADLER_CHUNK: usize = 5552;

/// Shorter versions of a match are tried up to this length, and only where they end at a position
/// whose own longest match reaches past the full match; longer lengths are only tried in full.
const SHORT_LENGTHS: usize = 64;
/// How hard the search works on data whose segments hold at least [`SMALL_INPUT`] bytes.
const FULL_EFFORT: Effort = Effort {
    depth: 16,
    nice: 128,
};
/// How hard the search works on data whose segments hold fewer bytes than [`SMALL_INPUT`]:
/// small images are searched more lightly, for speed.
const SMALL_EFFORT: Effort = Effort {
    depth: 4,
    nice: 128,
};
/// See [`SMALL_EFFORT`].
const SMALL_INPUT: usize = 4096;
/// How hard the search works on data whose segments hold fewer bytes than [`TINY_INPUT`], the
/// common case of an image of a few hundred pixels with a small code. A shallow chain finds
/// nearly every useful match there, and a match of a few dozen bytes is nearly always a run of
/// rows best taken whole.
const TINY_EFFORT: Effort = Effort { depth: 2, nice: 32 };
/// See [`TINY_EFFORT`].
const TINY_INPUT: usize = 2048;
/// The number of bytes at the start of the data whose histogram guesses the first literal costs.
const SAMPLE: usize = 4096;
/// The number of bytes in the chain key of a position outside runs.
const KEY_LEN: usize = 4;
/// Selects the first [`KEY_LEN`] bytes of a little-endian word.
const KEY_MASK: u64 = u64::MAX >> (64 - 8 * KEY_LEN);
/// Data whose sample has at most this many distinct byte values (a filter byte and two pixel
/// bytes, say) gets a quick first pass to correct the greedy estimate of the symbol costs.
const TINY_ALPHABET: usize = 3;
/// Data whose sample has more distinct byte values than this also gets a parse that starts
/// from flat literal prices.
const VARIED_ALPHABET: usize = 32;
/// The cost of an unreachable position, larger than the cost of any real parse.
const UNREACHABLE: u32 = u32::MAX;

/// The first length of each deflate length code.
const LENGTH_BASE: [u16; 29] = [
    3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131,
    163, 195, 227, 258,
];
/// The number of extra bits of each deflate length code.
const LENGTH_EXTRA: [u8; 29] = [
    0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0,
];
/// The first distance of each deflate distance code.
const DIST_BASE: [u16; 30] = [
    1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537,
    2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577,
];
/// The number of extra bits of each deflate distance code.
const DIST_EXTRA: [u8; 30] = [
    0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13,
    13,
];
/// The order in which the code lengths of the code-length code are written.
const CLEN_ORDER: [usize; CLEN_SYMBOLS] = [
    16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15,
];
/// The number of extra bits of each code-length symbol.
const CLEN_EXTRA: [u8; CLEN_SYMBOLS] = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 3, 7];

/// The length code (0..29) of every match length from 0 to 258 (entries below 3 are unused).
const LENGTH_CODE: [u8; MAX_MATCH + 1] = length_code_table();

/// Builds [`LENGTH_CODE`].
const fn length_code_table() -> [u8; MAX_MATCH + 1] {
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
const fn compute_dist_code(dist: usize) -> u8 {
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
const DIST_CODE: [u8; 512] = dist_code_table();

/// Builds [`DIST_CODE`].
const fn dist_code_table() -> [u8; 512] {
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
fn dist_code(dist: usize) -> usize {
    let x = dist.saturating_sub(1);
    let index = if x < 256 { x } else { 256 + (x >> 7) };
    usize::from(DIST_CODE.get(index).copied().unwrap_or(29))
}

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
    let mut writer = BitWriter::with_capacity(data.len() / 16 + 64);
    // CMF: deflate with a 32 KiB window; FLG: maximum compression, no dictionary, check bits.
    writer.write_bytes(&[0x78, 0xDA]);
    if data.is_empty() {
        // A final fixed-Huffman block holding only the end-of-block code.
        writer.write_bits(0b011, 3);
        writer.write_bits(0, 7);
    } else {
        let (tokens, plan) = layout.parse();
        plan.write(&mut writer, data, &tokens);
    }
    let mut out = writer.finish();
    out.extend_from_slice(&layout.adler32().to_be_bytes());
    out
}

/// One LZ77 token: a literal byte or a match of at most 258 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Token {
    /// The literal byte when `dist` is 0, otherwise the match length (3..=258).
    len: u16,
    /// The match distance (1..=32768), or 0 for a literal.
    dist: u16,
}

/// A maximal run of rows that each differ from the row above, and the copies that follow it.
#[derive(Clone, Copy, Debug)]
struct Segment {
    /// The position of the first byte of the segment.
    start: usize,
    /// The position just past the last byte of the segment, where its copies start.
    end: usize,
    /// The number of bytes in the copies of the segment's last row that follow `end`.
    copy_len: usize,
    /// The index of the node of `start`; the segment owns the nodes of `start..=end`.
    base: usize,
}

/// The input cut into segments and copies, with the per-position facts the parser needs.
///
/// The parser works on *nodes*: one for every position of every segment, plus one for each
/// segment's `end` (the start of its copies, or the end of the data for the last segment).
struct Layout<'a> {
    /// The whole input.
    data: &'a [u8],
    /// The row length used to detect copies (equal to the input length when rows are not used).
    stride: usize,
    /// The distance to the row above when it can be a match distance, otherwise 0.
    row_dist: usize,
    /// The segments, in order; the last one ends at the end of the data and has no copies.
    segments: Vec<Segment>,
    /// For each node, the length of the match at distance `row_dist` from its position, which for
    /// a node at or just before copies runs through the copies into the next segment.
    row_run: Vec<u32>,
    /// For each node, the length of the match at distance 1 from its position, within its segment.
    byte_run: Vec<u32>,
}

impl<'a> Layout<'a> {
    /// Cuts `data` into segments of rows of `stride` bytes; `stride` divides the length.
    fn new(data: &'a [u8], stride: usize) -> Self {
        let n = data.len();
        let row_dist = if stride < n && stride <= WINDOW {
            stride
        } else {
            0
        };
        let mut segments = Vec::new();
        // Copies are only worth detecting when a whole row is at least one minimal match long.
        if row_dist >= MIN_MATCH {
            let mut start = 0;
            let mut end = stride;
            let mut copy_len = 0;
            let mut above = data.get(..stride).unwrap_or_default();
            for (index, row) in data.chunks_exact(stride).enumerate().skip(1) {
                if row == above {
                    copy_len += stride;
                } else {
                    let row_start = index * stride;
                    if copy_len == 0 {
                        end = row_start + stride;
                    } else {
                        segments.push(Segment {
                            start,
                            end,
                            copy_len,
                            base: 0,
                        });
                        start = row_start;
                        end = row_start + stride;
                        copy_len = 0;
                    }
                }
                above = row;
            }
            segments.push(Segment {
                start,
                end,
                copy_len,
                base: 0,
            });
            if copy_len > 0 {
                segments.push(Segment {
                    start: n,
                    end: n,
                    copy_len: 0,
                    base: 0,
                });
            }
        } else {
            segments.push(Segment {
                start: 0,
                end: n,
                copy_len: 0,
                base: 0,
            });
        }
        let mut nodes = 0;
        for segment in &mut segments {
            segment.base = nodes;
            nodes += segment.end - segment.start + 1;
        }

        let mut row_run = vec![0u32; nodes];
        let mut byte_run = vec![0u32; nodes];
        let mut next_start_run = 0u32;
        let mut next_start_byte_run = 0u32;
        for segment in segments.iter().rev() {
            let count = segment.end - segment.start;
            let (Some(rows), Some(bytes), Some(seg_data)) = (
                row_run.get_mut(segment.base..=segment.base + count),
                byte_run.get_mut(segment.base..=segment.base + count),
                data.get(segment.start..segment.end),
            ) else {
                continue;
            };
            let row_len = if segment.copy_len > 0 {
                next_start_run.saturating_add(segment.copy_len as u32)
            } else {
                0
            };
            // When the copied row is one repeated byte, the run of that byte goes on through the
            // copies into the next segment.
            let last_row = seg_data
                .get(count.saturating_sub(stride)..)
                .unwrap_or_default();
            let uniform = last_row
                .split_first()
                .is_some_and(|(first, rest)| rest.iter().all(|byte| byte == first));
            let byte_len = if segment.copy_len > 0 && uniform {
                next_start_byte_run.saturating_add(segment.copy_len as u32)
            } else {
                0
            };
            if row_dist > 0 {
                let above =
                    segment.start.max(row_dist) - row_dist..segment.end.saturating_sub(row_dist);
                fill_runs(rows, seg_data, data.get(above).unwrap_or_default(), row_len);
            } else {
                fill_runs(rows, seg_data, &[], row_len);
            }
            let before = segment.start.max(1) - 1..segment.end.saturating_sub(1);
            fill_runs(
                bytes,
                seg_data,
                data.get(before).unwrap_or_default(),
                byte_len,
            );
            next_start_run = rows.first().copied().unwrap_or(0);
            next_start_byte_run = bytes.first().copied().unwrap_or(0);
        }

        Layout {
            data,
            stride,
            row_dist,
            segments,
            row_run,
            byte_run,
        }
    }

    /// Returns the number of parser nodes.
    fn node_count(&self) -> usize {
        self.segments
            .last()
            .map_or(0, |last| last.base + last.end - last.start + 1)
    }

    /// Returns the Adler-32 checksum of the data, summing each run of copies from its row's sums.
    fn adler32(&self) -> u32 {
        let mut adler = Adler32::new();
        for segment in &self.segments {
            if let Some(bytes) = self.data.get(segment.start..segment.end) {
                adler.update(bytes);
            }
            if segment.copy_len > 0 && self.stride > 0 {
                let row = self
                    .data
                    .get(segment.end.saturating_sub(self.stride)..segment.end)
                    .unwrap_or_default();
                let mut row_sums = Adler32 { a: 0, b: 0 };
                row_sums.update(row);
                adler.append_copies(row.len(), row_sums, segment.copy_len / self.stride);
            }
        }
        adler.value()
    }

    /// Returns the byte histogram of the first [`SAMPLE`] bytes of the data, counting each run
    /// of copies from its row.
    fn sample_histogram(&self) -> [u32; 256] {
        let mut histogram = [0u32; 256];
        let mut left = SAMPLE;
        for segment in &self.segments {
            let bytes = self
                .data
                .get(segment.start..segment.end)
                .unwrap_or_default();
            for &byte in bytes.iter().take(left) {
                histogram[usize::from(byte)] += 1;
            }
            left = left.saturating_sub(bytes.len());
            if segment.copy_len > 0 && left > 0 {
                let row = self
                    .data
                    .get(segment.end.saturating_sub(self.stride)..segment.end)
                    .unwrap_or_default();
                let copied = segment.copy_len.min(left);
                let (full, rest) = (copied / row.len().max(1), copied % row.len().max(1));
                for (index, &byte) in row.iter().enumerate() {
                    histogram[usize::from(byte)] += (full + usize::from(index < rest)) as u32;
                }
                left -= copied;
            }
            if left == 0 {
                break;
            }
        }
        histogram
    }

    /// Finds a cheap parse of the data into tokens by repeated shortest-path searches, and the
    /// codes to write it with.
    ///
    /// The first pass is priced by a guess. For data with a varied alphabet, a second series of
    /// passes starts from a guess that favours matches more, and the smaller result is kept.
    fn parse(&self) -> (Vec<Token>, BlockPlan) {
        let mut search = Search::new(self);
        let histogram = self.sample_histogram();
        let alphabet = histogram.iter().filter(|&&count| count > 0).count();
        let tiny = alphabet <= TINY_ALPHABET;
        let mut best = search.refine(self, CostModel::initial(&histogram, false), tiny);
        let mut best_plan = BlockPlan::new(&best);
        if alphabet > VARIED_ALPHABET {
            let other = search.refine(self, CostModel::initial(&histogram, true), tiny);
            let other_plan = BlockPlan::new(&other);
            if other_plan.bits() < best_plan.bits() {
                best = other;
                best_plan = other_plan;
            }
        }
        (best, best_plan)
    }
}

/// Fills `runs`, one entry per byte of `bytes` and one past them set to `tail`, with the length of
/// the match of each position against the bytes `earlier`, which end where `bytes` end (the first
/// positions have no earlier byte if `earlier` is shorter): how many bytes from there on equal
/// their earlier byte, counting `tail` more past the end if all of them do.
fn fill_runs(runs: &mut [u32], bytes: &[u8], earlier: &[u8], tail: u32) {
    let Some((last, runs)) = runs.split_last_mut() else {
        return;
    };
    *last = tail;
    let skip = bytes.len().saturating_sub(earlier.len());
    let (without, with) = runs.split_at_mut(skip.min(runs.len()));
    without.fill(0);
    let mut run = tail;
    let pairs = with.iter_mut().zip(bytes.get(skip..).unwrap_or_default());
    for ((slot, &byte), &other) in pairs.zip(earlier).rev() {
        run = if byte == other {
            run.saturating_add(1)
        } else {
            0
        };
        *slot = run;
    }
}

/// The running Adler-32 sums.
#[derive(Clone, Copy)]
struct Adler32 {
    /// The sum of the bytes plus one, modulo 65521.
    a: u32,
    /// The sum of the successive values of `a`, modulo 65521.
    b: u32,
}

impl Adler32 {
    /// Returns the sums of the empty input.
    fn new() -> Self {
        Adler32 { a: 1, b: 0 }
    }

    /// Adds `bytes` to the sums.
    fn update(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(ADLER_CHUNK) {
            let (mut a, mut b) = (self.a, self.b);
            for &byte in chunk {
                a += u32::from(byte);
                b += a;
            }
            self.a = a % ADLER_MOD;
            self.b = b % ADLER_MOD;
        }
    }

    /// Adds `copies` copies of a block of `len` bytes whose own sums, started from zero, are
    /// `block`.
    ///
    /// Each copy adds `block.a` to `a`, and `len` times the `a` before it plus `block.b` to `b`;
    /// over `copies` copies that makes `copies * len * a + len * block.a * copies * (copies - 1)
    /// / 2 + copies * block.b`.
    fn append_copies(&mut self, len: usize, block: Adler32, copies: usize) {
        let modulus = u64::from(ADLER_MOD);
        let len = len as u64 % modulus;
        let copies = copies as u64;
        let pairs = (copies / 2 % modulus) * ((copies.saturating_sub(1)) % modulus) % modulus;
        let pairs = if copies.is_multiple_of(2) {
            pairs
        } else {
            // copies * (copies - 1) / 2 with copies odd: copies * ((copies - 1) / 2).
            (copies % modulus) * ((copies.saturating_sub(1) / 2) % modulus) % modulus
        };
        let copies = copies % modulus;
        let (a, block_a, block_b) = (u64::from(self.a), u64::from(block.a), u64::from(block.b));
        let b = u64::from(self.b)
            + copies * len % modulus * a % modulus
            + len * block_a % modulus * pairs % modulus
            + copies * block_b % modulus;
        self.a = ((a + copies * block_a) % modulus) as u32;
        self.b = (b % modulus) as u32;
    }

    /// Returns the checksum.
    fn value(&self) -> u32 {
        (self.b << 16) | self.a
    }
}

/// The unit of costs: 1/16 bit.
const COST_SCALE: u32 = 16;

/// The price, in units of 1/[`COST_SCALE`] bit, of every literal, match length and distance.
struct CostModel {
    /// The cost of each literal byte.
    literal: [u32; 256],
    /// The cost of each match length from 0 to 258, extra bits included (entries below 3 unused).
    length: [u32; MAX_MATCH + 1],
    /// The cost of each distance code, extra bits included.
    distance: [u32; DIST_SYMBOLS],
}

impl CostModel {
    /// Returns a first guess: literals priced by their frequency in `histogram` (of a sample of
    /// the data) or, if `flat`, at 8 bits each, and lengths and distances by the fixed code.
    fn initial(histogram: &[u32; 256], flat: bool) -> Self {
        let mut literal = [8 * COST_SCALE; 256];
        if !flat {
            literal.copy_from_slice(&entropy_costs(histogram));
        }
        let mut litlen = [0u32; LITLEN_SYMBOLS];
        for (symbol, cost) in litlen.iter_mut().enumerate() {
            *cost = COST_SCALE * if symbol < 280 { 7 } else { 8 };
        }
        let mut model = CostModel {
            literal,
            length: [0; MAX_MATCH + 1],
            distance: [0; DIST_SYMBOLS],
        };
        model.set_match_costs(&litlen, &[5 * COST_SCALE; DIST_SYMBOLS]);
        model
    }

    /// Returns the costs of symbols with the given frequencies, by their entropy.
    fn from_frequencies(litlen_freq: &[u32], dist_freq: &[u32]) -> Self {
        let litlen = entropy_costs(litlen_freq);
        let mut literal = [0u32; 256];
        literal.copy_from_slice(litlen.get(..256).unwrap_or(&[0; 256]));
        let mut model = CostModel {
            literal,
            length: [0; MAX_MATCH + 1],
            distance: [0; DIST_SYMBOLS],
        };
        model.set_match_costs(&litlen, &entropy_costs(dist_freq));
        model
    }

    /// Fills the length and distance tables from the costs of the symbols.
    fn set_match_costs(&mut self, litlen: &[u32], dist: &[u32]) {
        let lengths = self.length.iter_mut().zip(&LENGTH_CODE).skip(MIN_MATCH);
        for (cost, &code) in lengths {
            let code = usize::from(code);
            let symbol = litlen.get(257 + code).copied().unwrap_or(15 * COST_SCALE);
            *cost = symbol + COST_SCALE * u32::from(LENGTH_EXTRA[code]);
        }
        for (code, cost) in self.distance.iter_mut().enumerate() {
            let symbol = dist.get(code).copied().unwrap_or(15 * COST_SCALE);
            *cost = symbol + COST_SCALE * u32::from(DIST_EXTRA[code]);
        }
    }

    /// Returns the model that prices every symbol at the lower of its costs in `self` and
    /// `other`.
    fn cheapest(mut self, other: &CostModel) -> Self {
        let pairs = (self.literal.iter_mut().zip(&other.literal))
            .chain(self.length.iter_mut().zip(&other.length))
            .chain(self.distance.iter_mut().zip(&other.distance));
        for (cost, &other) in pairs {
            *cost = (*cost).min(other);
        }
        self
    }

    /// Returns the cost of a match of any length of at least 3, split into pieces of at most 258
    /// that each pay `dist_cost` for their distance.
    fn long_match(&self, len: usize, dist_cost: u32) -> u32 {
        if len <= MAX_MATCH {
            return self.length[len.max(MIN_MATCH)] + dist_cost;
        }
        let pieces = (len / MAX_MATCH) as u32;
        let rest = len % MAX_MATCH;
        let full = self.length[MAX_MATCH] + dist_cost;
        match rest {
            0 => pieces * full,
            1 | 2 => {
                (pieces - 1) * full
                    + self.length[MAX_MATCH + rest - MIN_MATCH]
                    + self.length[MIN_MATCH]
                    + 2 * dist_cost
            }
            _ => pieces * full + self.length[rest] + dist_cost,
        }
    }

    /// Returns the cost of the distance code of `dist`, extra bits included.
    fn distance(&self, dist: usize) -> u32 {
        self.distance[dist_code(dist)]
    }
}

/// Returns the cost of each symbol, in units of 1/[`COST_SCALE`] bit, from its frequency:
/// -log2 of its probability, at least 1 bit. An unused symbol costs 2 bits more than a symbol
/// used once, so the parser only picks it up when it saves a lot.
fn entropy_costs(freqs: &[u32]) -> Vec<u32> {
    let total = f64::from(freqs.iter().sum::<u32>().max(1));
    let scale = f64::from(COST_SCALE);
    let unused = ((total.log2() + 2.0) * scale) as u32;
    freqs
        .iter()
        .map(|&freq| {
            if freq == 0 {
                unused
            } else {
                (((total / f64::from(freq)).log2() * scale) as u32).max(COST_SCALE)
            }
        })
        .collect()
}

/// One match candidate of a node.
#[derive(Clone, Copy, Debug, Default)]
struct Candidate {
    /// The match length (at least 3, possibly more than 258), marked [`CONTINUED`] when the
    /// previous position has the same match one byte longer.
    len: u32,
    /// The match distance.
    dist: u16,
    /// The distance code of `dist`.
    code: u8,
}

impl Candidate {
    /// Returns a candidate of `len` bytes (with its flags) at distance `dist`.
    #[inline]
    fn new(len: u32, dist: usize) -> Self {
        Candidate {
            len,
            dist: dist as u16,
            code: dist_code(dist) as u8,
        }
    }
}

/// The match candidates of every node, found once and shared by all passes.
///
/// The candidates of a node are the match at distance 1, the match at the row distance, and the
/// matches from the hash chain that are longer than both, by increasing distance and length.
struct Candidates {
    /// For each node, the index of its first candidate in `list`; one extra entry ends the last.
    first: Vec<u32>,
    /// The candidates of all nodes.
    list: Vec<Candidate>,
    /// For each node, the position just past its longest candidate (its own position if none).
    reach: Vec<u32>,
    /// The length from which a match is taken as is (see [`Effort::nice`]).
    nice: usize,
}

/// Marks a position without a chain key.
const NO_HASH: u32 = u32::MAX;

impl Candidates {
    /// Returns the candidates of `node`.
    fn of(&self, node: usize) -> &[Candidate] {
        let start = self.first.get(node).copied().unwrap_or(0) as usize;
        let end = self.first.get(node + 1).copied().unwrap_or(0) as usize;
        self.list.get(start..end).unwrap_or_default()
    }

    /// Finds the candidates of every segment position of `layout`.
    ///
    /// Kept out of line: inlined into [`zlib_compress`], its loop runs short of registers.
    #[inline(never)]
    fn find(layout: &Layout<'_>) -> Self {
        let data = layout.data;
        let n = data.len();
        let nodes = layout.node_count();
        let row_dist = layout.row_dist;
        let hash_bits = (usize::BITS - nodes.leading_zeros()).clamp(8, 15);
        let effort = if nodes < TINY_INPUT {
            TINY_EFFORT
        } else if nodes < SMALL_INPUT {
            SMALL_EFFORT
        } else {
            FULL_EFFORT
        };
        let mut chain = HashChain::new(hash_bits, nodes, effort.depth);
        let runs = RunDistances::new(row_dist);
        // Both arrays are filled node by node, in order, and the list mostly holds two or fewer
        // candidates a node: nothing needs zeroing, and the list rarely grows.
        let mut first = Vec::with_capacity(nodes + 1);
        let mut list = Vec::with_capacity(2 * nodes + 16);
        let mut reach = Vec::with_capacity(nodes);
        for segment in &layout.segments {
            let count = segment.end - segment.start;
            let nodes_of = segment.base..segment.base + count + 1;
            let byte_run = layout.byte_run.get(nodes_of.clone()).unwrap_or_default();
            let row_run = layout.row_run.get(nodes_of).unwrap_or_default();
            for offset in 0..count {
                let pos = segment.start + offset;
                first.push(list.len() as u32);
                let hash = chain.hash(data, pos, run_inside(byte_run, offset));
                let mut longest = runs.push(byte_run, row_run, offset, &mut list);
                // Hash-chain matches may run on into the copies after the segment.
                let limit = (n - pos).min(MAX_MATCH);
                if (longest as usize) < effort.nice && (longest as usize) < limit {
                    longest = chain.search(data, pos, hash, limit, longest, row_dist, &mut list);
                }
                chain.insert(hash, pos);
                reach.push((pos as u32).saturating_add(longest));
            }
            // The end node only has the matches that run through the copies.
            first.push(list.len() as u32);
            let longest = if segment.copy_len > 0 {
                runs.push(byte_run, row_run, count, &mut list)
            } else {
                0
            };
            reach.push((segment.end as u32).saturating_add(longest));
            if segment.copy_len > 0 {
                // Later rows see the copies through their last row, the nearest occurrence: the
                // entries of the segment's last row (the latest ones) move there.
                let row = layout.stride.min(count);
                let from = segment.end - row;
                let shift = segment.copy_len as u32;
                for entry in chain.entries.iter_mut().rev() {
                    if (entry.0 as usize) < from {
                        break;
                    }
                    entry.0 += shift;
                }
            }
        }
        first.push(list.len() as u32);
        Candidates {
            first,
            list,
            reach,
            nice: effort.nice,
        }
    }
}

/// Returns the number of bytes left in the run of equal bytes that the position at `offset` lies
/// inside of, or 0 if the position starts a run (differs from the byte before it); `byte_run`
/// holds the matches at distance 1 of the nodes of its segment.
#[inline]
fn run_inside(byte_run: &[u32], offset: usize) -> usize {
    match byte_run.get(offset..offset + 2) {
        Some(&[run, next]) if run > 0 => 1 + next as usize,
        _ => 0,
    }
}

/// Marks a candidate that continues a candidate of the previous position: same distance, same end.
const CONTINUED: u32 = 1 << 31;

/// The distances of the matches known without a search: 1 and the row distance, with their codes.
struct RunDistances {
    /// The row distance, or 0 (or 1) when the rows give no match distance of their own.
    row_dist: usize,
    /// The distance code of `row_dist`.
    row_code: u8,
}

impl RunDistances {
    /// Returns the distances for rows `row_dist` apart.
    fn new(row_dist: usize) -> Self {
        RunDistances {
            row_dist,
            row_code: dist_code(row_dist.max(1)) as u8,
        }
    }

    /// Appends to `list` the matches of the node at `offset` in its segment at distance 1 and at
    /// the row distance, and returns the longest length. A match is marked [`CONTINUED`] when the
    /// previous position in the segment had the same match one byte longer.
    #[inline]
    fn push(
        &self,
        byte_run: &[u32],
        row_run: &[u32],
        offset: usize,
        list: &mut Vec<Candidate>,
    ) -> u32 {
        let mut longest = 0;
        let mut push = |run: &[u32], dist: usize, code: u8| {
            let len = run.get(offset).copied().unwrap_or(0);
            if len as usize >= MIN_MATCH {
                let continued = offset
                    .checked_sub(1)
                    .and_then(|previous| run.get(previous))
                    .is_some_and(|&previous| previous as usize > MIN_MATCH);
                let flags = if continued { CONTINUED } else { 0 };
                list.push(Candidate {
                    len: len | flags,
                    dist: dist as u16,
                    code,
                });
                longest = longest.max(len);
            }
        };
        push(byte_run, 1, 0);
        if self.row_dist > 1 {
            push(row_run, self.row_dist, self.row_code);
        }
        longest
    }
}

/// A hash chain over the keys of positions (see [`HashChain::hash`]), holding positions in
/// increasing order.
struct HashChain {
    /// The number of bits of a hash.
    bits: u32,
    /// The most chain entries visited by one search.
    depth: usize,
    /// For each hash of a chain key, the index in `entries` of the most recent position.
    head: Vec<u32>,
    /// The inserted positions, each with the index of the previous entry with the same hash.
    entries: Vec<(u32, u32)>,
}

/// Marks the end of a hash chain.
const NO_ENTRY: u32 = u32::MAX;

/// Returns the little-endian word of the 8 bytes of `data` at `at` (fewer at the end, padded with
/// zeros) and the number of bytes read.
#[inline]
fn load(data: &[u8], at: usize) -> (u64, usize) {
    if let Some(bytes) = data.get(at..at + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(bytes);
        return (u64::from_le_bytes(word), 8);
    }
    let available = data.get(at..).unwrap_or_default();
    let word = available
        .iter()
        .rev()
        .fold(0u64, |word, &byte| word << 8 | u64::from(byte));
    (word, available.len())
}

impl HashChain {
    /// Returns an empty chain with `1 << bits` heads, room for `capacity` positions and searches
    /// of `depth` entries.
    fn new(bits: u32, capacity: usize, depth: usize) -> Self {
        HashChain {
            bits,
            depth,
            head: vec![NO_ENTRY; 1 << bits],
            entries: Vec::with_capacity(capacity),
        }
    }

    /// Returns the chain key hash of `pos`, which lies inside a run of equal bytes with `run`
    /// bytes left (0 if `pos` starts a run), or [`NO_HASH`] if fewer than [`KEY_LEN`] bytes are
    /// left.
    ///
    /// The key of a position inside a long run is the byte, the length of the rest of the run
    /// and the bytes after it, so that the chain only holds runs that end at the same offset, the
    /// only ones that can match past the run (the match at distance 1 covers the run itself).
    /// A position that starts a run keeps the plain key, so it finds the starts of earlier runs.
    #[inline]
    fn hash(&self, data: &[u8], pos: usize, run: usize) -> u32 {
        let (word, len) = load(data, pos);
        if len < KEY_LEN {
            return NO_HASH;
        }
        let key = if run >= KEY_LEN {
            let (after, _) = load(data, pos + run);
            let run_key = (run.min(0xFFFF) as u64) << 8;
            (1 << 63) | (after & 0xFF_FFFF) << 24 | run_key | (word & 0xFF)
        } else {
            word & KEY_MASK
        };
        (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - self.bits)) as u32
    }

    /// Adds `pos`, whose hash is `hash`, to its chain.
    #[inline]
    fn insert(&mut self, hash: u32, pos: usize) {
        if let Some(head) = self.head.get_mut(hash as usize) {
            let entry = self.entries.len() as u32;
            self.entries.push((pos as u32, *head));
            *head = entry;
        }
    }

    /// Appends to `out` the matches for `pos` (whose hash is `hash`) found on its chain that are
    /// longer than `longest` and every match before them, and returns the longest length.
    /// Distances 1 and `row_dist` are skipped, as they are known, and a match may not run past
    /// `limit` bytes.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn search(
        &self,
        data: &[u8],
        pos: usize,
        hash: u32,
        limit: usize,
        longest: u32,
        row_dist: usize,
        out: &mut Vec<Candidate>,
    ) -> u32 {
        let mut longest = longest as usize;
        let Some(here) = data.get(pos..pos + limit) else {
            return longest as u32;
        };
        let entries = &self.entries[..];
        let mut entry = self.head.get(hash as usize).copied().unwrap_or(NO_ENTRY);
        for _ in 0..self.depth {
            let Some(&(candidate, next)) = entries.get(entry as usize) else {
                break;
            };
            entry = next;
            let candidate = candidate as usize;
            let dist = pos.wrapping_sub(candidate);
            if dist > WINDOW {
                break;
            }
            if dist == 1 || dist == row_dist {
                continue;
            }
            // A candidate that differs at the byte just past the longest match cannot beat it.
            let Some(there) = data.get(candidate..candidate + limit) else {
                continue;
            };
            if let (Some(a), Some(b)) = (here.get(longest), there.get(longest))
                && a != b
            {
                continue;
            }
            let len = common_prefix(here, there);
            if len > longest && len >= MIN_MATCH {
                longest = len;
                out.push(Candidate::new(len as u32, dist));
                if len >= limit {
                    break;
                }
            }
        }
        longest as u32
    }
}

/// Returns the length of the common prefix of `x` and `y`.
#[inline]
fn common_prefix(x: &[u8], y: &[u8]) -> usize {
    let end = x.len().min(y.len());
    let (x, y) = (
        x.get(..end).unwrap_or_default(),
        y.get(..end).unwrap_or_default(),
    );
    let mut len = 0;
    while let (Some(word_x), Some(word_y)) = (x.get(len..len + 8), y.get(len..len + 8)) {
        let mut bytes_x = [0u8; 8];
        let mut bytes_y = [0u8; 8];
        bytes_x.copy_from_slice(word_x);
        bytes_y.copy_from_slice(word_y);
        let diff = u64::from_le_bytes(bytes_x) ^ u64::from_le_bytes(bytes_y);
        if diff != 0 {
            return len + (diff.trailing_zeros() / 8) as usize;
        }
        len += 8;
    }
    while let (Some(byte_x), Some(byte_y)) = (x.get(len), y.get(len)) {
        if byte_x != byte_y {
            break;
        }
        len += 1;
    }
    len
}

/// The best known way of reaching one node.
#[derive(Clone, Copy)]
struct Arrival {
    /// The cost of the cheapest known path to the node.
    cost: u32,
    /// The node this path comes from.
    from: u32,
    /// The literal byte (when `dist` is 0) or the match length of the last step of the path.
    len: u32,
    /// The length of a match at the row distance that follows the last step, or 0 for none.
    then: u32,
    /// The match distance of the last step, or 0 for a literal.
    dist: u16,
}

/// The arrival of a node no path reaches yet.
const NO_ARRIVAL: Arrival = Arrival {
    cost: UNREACHABLE,
    from: 0,
    len: 0,
    then: 0,
    dist: 0,
};

/// Lowers the cost of reaching `node` to `cost`, by a step of `len` and `dist` (followed by a
/// match of `then` bytes at the row distance) from `from`, if that is cheaper than the best known
/// way.
#[inline(always)]
fn relax(arrivals: &mut [Arrival], node: usize, cost: u32, from: usize, len: u32, dist: u16) {
    relax_then(arrivals, node, cost, from, (len, dist), 0);
}

/// Like [`relax`], for a step made of the match `(len, dist)` followed by a match of `then`
/// bytes at the row distance.
#[inline(always)]
fn relax_then(
    arrivals: &mut [Arrival],
    node: usize,
    cost: u32,
    from: usize,
    (len, dist): (u32, u16),
    then: u32,
) {
    if let Some(arrival) = arrivals.get_mut(node)
        && cost < arrival.cost
    {
        *arrival = Arrival {
            cost,
            from: from as u32,
            len,
            then,
            dist,
        };
    }
}

/// What the search needs to know about one segment and the next to place the end of a match.
struct SegmentView {
    /// The position of the first byte of the segment.
    start: usize,
    /// The number of bytes of the segment.
    count: usize,
    /// The node of the segment's first position.
    base: usize,
    /// The first position, last position and first node of the next segment (an empty range if
    /// there is none).
    next: (usize, usize, usize),
    /// The length of the match at the row distance from the start of the copies.
    end_run: usize,
    /// The cost of the row distance.
    row_dist_cost: u32,
}

impl SegmentView {
    /// Returns the view of segment `index` of `layout`.
    fn new(layout: &Layout<'_>, index: usize, row_dist_cost: u32) -> Self {
        let segment = layout.segments.get(index).copied().unwrap_or(Segment {
            start: 0,
            end: 0,
            copy_len: 0,
            base: 0,
        });
        let count = segment.end - segment.start;
        SegmentView {
            start: segment.start,
            count,
            base: segment.base,
            next: layout
                .segments
                .get(index + 1)
                .map_or((usize::MAX, 0, 0), |next| (next.start, next.end, next.base)),
            end_run: layout
                .row_run
                .get(segment.base + count)
                .copied()
                .unwrap_or(0) as usize,
            row_dist_cost,
        }
    }

    /// Relaxes the arrival at the end of the match `(len, dist)` whose distance costs
    /// `dist_cost`, from the node at `offset` in the segment reached at cost `here`; returns the
    /// node at the end of the match if it has one.
    ///
    /// A match that ends inside the copies is either cut at their start, or followed by the
    /// match at the row distance from its end.
    #[inline(always)]
    fn relax(
        &self,
        arrivals: &mut [Arrival],
        costs: &CostModel,
        here: u32,
        offset: usize,
        (len, dist, dist_cost): (usize, u16, u32),
    ) -> Option<usize> {
        let node = self.base + offset;
        let room = self.count - offset;
        if len <= room && len <= MAX_MATCH {
            let cost = here + costs.length[len] + dist_cost;
            relax(arrivals, node + len, cost, node, len as u32, dist);
            return Some(node + len);
        }
        self.relax_far(arrivals, costs, here, offset, (len, dist, dist_cost))
    }

    /// [`SegmentView::relax`] for a match longer than 258 or than the rest of the segment.
    #[inline(never)]
    fn relax_far(
        &self,
        arrivals: &mut [Arrival],
        costs: &CostModel,
        here: u32,
        offset: usize,
        (len, dist, dist_cost): (usize, u16, u32),
    ) -> Option<usize> {
        let node = self.base + offset;
        let room = self.count - offset;
        let end = self.start + offset + len;
        let (next_start, next_end, next_base) = self.next;
        let target = if len <= room {
            Some(node + len)
        } else if (next_start..=next_end).contains(&end) {
            Some(next_base + end - next_start)
        } else {
            None
        };
        if let Some(target) = target {
            let cost = here.saturating_add(costs.long_match(len, dist_cost));
            relax(arrivals, target, cost, node, len as u32, dist);
        } else if end < next_start {
            if room >= MIN_MATCH {
                let cost = here.saturating_add(costs.long_match(room, dist_cost));
                relax(arrivals, node + room, cost, node, room as u32, dist);
            }
            let rest = (self.end_run + self.start + self.count).saturating_sub(end);
            let after = end + rest;
            if rest >= MIN_MATCH && (next_start..=next_end).contains(&after) {
                let cost = here.saturating_add(
                    costs.long_match(len, dist_cost) + costs.long_match(rest, self.row_dist_cost),
                );
                let step = (len as u32, dist);
                relax_then(
                    arrivals,
                    next_base + after - next_start,
                    cost,
                    node,
                    step,
                    rest as u32,
                );
            }
        }
        target
    }
}

/// The state of the shortest-path search, kept between passes.
///
/// Each pass prices the tokens by the frequencies of the previous pass.
struct Search {
    /// The match candidates of every node.
    candidates: Candidates,
    /// The best known arrival at every node.
    arrivals: Vec<Arrival>,
}

impl Search {
    /// Finds the candidates and allocates the search state for `layout`.
    fn new(layout: &Layout<'_>) -> Self {
        Search {
            candidates: Candidates::find(layout),
            arrivals: vec![NO_ARRIVAL; layout.node_count()],
        }
    }

    /// Finds a cheap parse, starting from the guess `initial`, and returns its tokens.
    ///
    /// A greedy parse (the longest candidate everywhere) gives a first idea of the symbol
    /// frequencies; where the guess finds a symbol cheaper than that (a literal the greedy parse
    /// hardly uses, say), the guess wins, so the search keeps it in play. For a `tiny` alphabet a
    /// quick pass that takes every match in full is priced by that, and the full pass by the
    /// frequencies of its result; otherwise the full pass is priced by it directly.
    fn refine(&mut self, layout: &Layout<'_>, initial: CostModel, tiny: bool) -> Vec<Token> {
        let mut costs = initial.cheapest(&self.greedy(layout).costs());
        if tiny {
            self.run(layout, &costs, false);
            let mut frequencies = Frequencies::new();
            self.walk(layout.row_dist, |len, dist| frequencies.add(len, dist));
            costs = frequencies.costs();
        }
        self.run(layout, &costs, true);
        self.tokens(layout)
    }

    /// Returns the symbol frequencies of a greedy parse: the longest candidate everywhere.
    fn greedy(&self, layout: &Layout<'_>) -> Frequencies {
        let mut frequencies = Frequencies::new();
        let segments = &layout.segments;
        let (mut index, mut offset) = (0usize, 0usize);
        while let Some(segment) = segments.get(index) {
            let count = segment.end - segment.start;
            let (next_start, next_end) = segments
                .get(index + 1)
                .map_or((usize::MAX, 0), |next| (next.start, next.end));
            let node = segment.base + offset;
            let pos = segment.start + offset;
            let room = count - offset;
            let end_run = layout
                .row_run
                .get(segment.base + count)
                .copied()
                .unwrap_or(0) as usize;
            // The longest step: its length, its distance, the length of the match at the row
            // distance that follows it (or 0), whether it ends in the next segment, and the offset
            // it ends at there or in this segment.
            let mut best = (0usize, 0u16, 0usize, false, 0usize);
            for candidate in self.candidates.of(node) {
                let len = (candidate.len & !CONTINUED) as usize;
                if len <= best.0 {
                    continue;
                }
                let end = pos + len;
                if len <= room {
                    best = (len, candidate.dist, 0, false, offset + len);
                } else if (next_start..=next_end).contains(&end) {
                    best = (len, candidate.dist, 0, true, end - next_start);
                } else if end < next_start {
                    let rest = (end_run + segment.end).saturating_sub(end);
                    if rest >= MIN_MATCH && (next_start..=next_end).contains(&(end + rest)) {
                        best = (len, candidate.dist, rest, true, end + rest - next_start);
                    } else if room >= MIN_MATCH && room > best.0 {
                        best = (room, candidate.dist, 0, false, count);
                    }
                }
            }
            if best.0 >= MIN_MATCH {
                frequencies.add(best.0 as u32, best.1);
                if best.2 > 0 {
                    frequencies.add(best.2 as u32, layout.row_dist as u16);
                }
                if best.3 {
                    index += 1;
                }
                offset = best.4;
            } else if let Some(&byte) = layout.data.get(pos).filter(|_| room > 0) {
                frequencies.add(u32::from(byte), 0);
                offset += 1;
            } else {
                break;
            }
        }
        frequencies
    }

    /// Runs one shortest-path pass priced by `costs`. With `shorts`, shorter versions of the
    /// matches are tried too (see [`SHORT_LENGTHS`]); without, every match is only taken in full,
    /// which is enough for a first estimate of the symbol frequencies.
    fn run(&mut self, layout: &Layout<'_>, costs: &CostModel, shorts: bool) {
        let Candidates {
            first,
            list,
            reach,
            nice,
        } = &self.candidates;
        let nice = *nice;
        let arrivals = &mut self.arrivals[..];
        for arrival in arrivals.iter_mut() {
            arrival.cost = UNREACHABLE;
        }
        if let Some(first) = arrivals.first_mut() {
            first.cost = 0;
        }
        let row_dist_cost = costs.distance(layout.row_dist.max(1));
        // Nodes below this one lie inside a long match that was taken as is.
        let mut skip_to = 0;
        for (index, segment) in layout.segments.iter().enumerate() {
            let view = SegmentView::new(layout, index, row_dist_cost);
            let count = segment.end - segment.start;
            let bytes = layout
                .data
                .get(segment.start..segment.end)
                .unwrap_or_default();
            let firsts = first
                .get(segment.base..segment.base + count + 2)
                .unwrap_or_default();
            let reaches = reach
                .get(segment.base..=segment.base + count)
                .unwrap_or_default();
            for (offset, bounds) in firsts.windows(2).enumerate() {
                let node = segment.base + offset;
                let Some(&Arrival { cost: here, .. }) = arrivals.get(node) else {
                    break;
                };
                if here == UNREACHABLE || node < skip_to {
                    continue;
                }
                if let Some(&byte) = bytes.get(offset) {
                    let cost = here.saturating_add(costs.literal[usize::from(byte)]);
                    relax(arrivals, node + 1, cost, node, u32::from(byte), 0);
                }
                let own = list
                    .get(bounds[0] as usize..bounds[1] as usize)
                    .unwrap_or_default();
                let mut longest = (0usize, 0usize);
                if !shorts {
                    for candidate in own {
                        let len = (candidate.len & !CONTINUED) as usize;
                        let dist_cost = costs.distance[usize::from(candidate.code)];
                        let step = (len, candidate.dist, dist_cost);
                        let target = view.relax(arrivals, costs, here, offset, step);
                        if len > longest.0 {
                            longest = (len, target.unwrap_or(0));
                        }
                    }
                } else {
                    // The candidates come by increasing distance, which mostly costs more: each
                    // offers a cheapest way only to the lengths the ones before it do not reach.
                    let room = count - offset;
                    let mut covered = MIN_MATCH - 1;
                    for candidate in own {
                        let len = (candidate.len & !CONTINUED) as usize;
                        if len <= covered {
                            continue;
                        }
                        let dist = candidate.dist;
                        let dist_cost = costs.distance[usize::from(candidate.code)];
                        // A shorter match is only worth ending where a match reaching past the
                        // end of this one starts; a continued match leaves that to the match it
                        // continues.
                        if candidate.len & CONTINUED == 0 {
                            let end = (segment.start + offset + len) as u32;
                            let short_end = len.min(SHORT_LENGTHS + 1).min(room + 1);
                            let ends = reaches.get(offset..offset + short_end).unwrap_or_default();
                            for (short, &short_reach) in ends.iter().enumerate().skip(covered + 1) {
                                if short_reach > end {
                                    let cost = here + costs.length[short] + dist_cost;
                                    relax(arrivals, node + short, cost, node, short as u32, dist);
                                }
                            }
                        }
                        let step = (len, dist, dist_cost);
                        let target = view.relax(arrivals, costs, here, offset, step);
                        if len > longest.0 {
                            longest = (len, target.unwrap_or(0));
                        }
                        covered = len;
                    }
                }
                if longest.0 >= nice {
                    skip_to = longest.1;
                }
            }
        }
    }

    /// Calls `step` with the (length, distance) of every step of the cheapest path to the last
    /// node, from the last to the first, a distance of 0 marking a literal (whose byte is the
    /// length), and a length possibly more than 258. Returns false if no path reaches the end.
    fn walk(&self, row_dist: usize, mut step: impl FnMut(u32, u16)) -> bool {
        let last = self.arrivals.len().saturating_sub(1);
        if self
            .arrivals
            .get(last)
            .is_none_or(|arrival| arrival.cost == UNREACHABLE)
        {
            return false;
        }
        let mut node = last;
        while node > 0 {
            let Some(arrival) = self.arrivals.get(node) else {
                break;
            };
            if arrival.then > 0 {
                step(arrival.then, row_dist as u16);
            }
            step(arrival.len, arrival.dist);
            // Every step moves forward, so this walk ends.
            node = (arrival.from as usize).min(node - 1);
        }
        true
    }

    /// Returns the tokens of the cheapest path to the last node, or literals if there is none.
    fn tokens(&self, layout: &Layout<'_>) -> Vec<Token> {
        let mut tokens = Vec::with_capacity(layout.node_count() / 2);
        let reached = self.walk(layout.row_dist, |len, dist| {
            for_each_piece(len, dist, |len, dist| tokens.push(Token { len, dist }));
        });
        if !reached {
            return layout
                .data
                .iter()
                .map(|&byte| Token {
                    len: u16::from(byte),
                    dist: 0,
                })
                .collect();
        }
        // The pieces of each match came in reverse order too, and they are all equal but the
        // last (see `for_each_piece`), so reversing the whole list puts everything in order.
        tokens.reverse();
        tokens
    }
}

/// Calls `piece` with the tokens of a step of the path: a literal (`dist` 0), or a match of
/// `len` bytes cut into pieces of at most 258, last piece first.
#[inline]
fn for_each_piece(len: u32, dist: u16, mut piece: impl FnMut(u16, u16)) {
    if dist == 0 || len as usize <= MAX_MATCH {
        piece(len as u16, dist);
        return;
    }
    // Pieces of 258, then what is left, except that the last piece may not be shorter than 3.
    let len = len as usize;
    let mut full = len / MAX_MATCH;
    let mut rest = len % MAX_MATCH;
    if rest > 0 && rest < MIN_MATCH {
        full -= 1;
        // The piece before the last gives up bytes so that the last has 3.
        piece(MIN_MATCH as u16, dist);
        piece((MAX_MATCH + rest - MIN_MATCH) as u16, dist);
        rest = 0;
    }
    if rest > 0 {
        piece(rest as u16, dist);
    }
    for _ in 0..full {
        piece(MAX_MATCH as u16, dist);
    }
}

/// The symbol frequencies of a parse.
struct Frequencies {
    /// The frequency of each literal/length symbol.
    litlen: [u32; LITLEN_SYMBOLS],
    /// The frequency of each distance symbol.
    dist: [u32; DIST_SYMBOLS],
}

impl Frequencies {
    /// Returns the frequencies of an empty parse: one end-of-block symbol.
    fn new() -> Self {
        let mut litlen = [0u32; LITLEN_SYMBOLS];
        litlen[END_OF_BLOCK] = 1;
        Frequencies {
            litlen,
            dist: [0; DIST_SYMBOLS],
        }
    }

    /// Counts a step of the path (see [`Search::walk`]).
    #[inline]
    fn add(&mut self, len: u32, dist: u16) {
        for_each_piece(len, dist, |len, dist| self.add_token(Token { len, dist }));
    }

    /// Counts one token.
    #[inline]
    fn add_token(&mut self, token: Token) {
        if token.dist == 0 {
            self.litlen[usize::from(token.len & 0xFF)] += 1;
        } else {
            let len = usize::from(token.len).min(MAX_MATCH);
            self.litlen[257 + usize::from(LENGTH_CODE[len])] += 1;
            self.dist[dist_code(usize::from(token.dist))] += 1;
        }
    }

    /// Returns the costs of the symbols, by their entropy.
    fn costs(&self) -> CostModel {
        CostModel::from_frequencies(&self.litlen, &self.dist)
    }
}

/// Counts the literal/length and distance symbols of `tokens`, plus one end-of-block symbol.
fn symbol_frequencies(tokens: &[Token]) -> ([u32; LITLEN_SYMBOLS], [u32; DIST_SYMBOLS]) {
    let mut litlen = [0u32; LITLEN_SYMBOLS];
    let mut dist = [0u32; DIST_SYMBOLS];
    for token in tokens {
        if token.dist == 0 {
            litlen[usize::from(token.len & 0xFF)] += 1;
        } else {
            let len = usize::from(token.len).min(MAX_MATCH);
            litlen[257 + usize::from(LENGTH_CODE[len])] += 1;
            dist[dist_code(usize::from(token.dist))] += 1;
        }
    }
    litlen[END_OF_BLOCK] += 1;
    (litlen, dist)
}

/// Returns Huffman code lengths of at most `limit` bits for `freqs` (0 for unused symbols).
///
/// A single used symbol gets a 1-bit code. The lengths are optimal when the plain Huffman code
/// fits the limit, and come from package-merge (optimal too) when it does not.
fn huffman_lengths(freqs: &[u32], limit: u8) -> Vec<u8> {
    let mut lengths = vec![0u8; freqs.len()];
    let mut leaves: Vec<(u32, u16)> = freqs
        .iter()
        .enumerate()
        .filter(|&(_, &freq)| freq > 0)
        .map(|(symbol, &freq)| (freq, symbol as u16))
        .collect();
    if leaves.len() <= 1 {
        for &(_, symbol) in &leaves {
            if let Some(len) = lengths.get_mut(usize::from(symbol)) {
                *len = 1;
            }
        }
        return lengths;
    }
    leaves.sort_unstable();
    let count = leaves.len();
    // Two-queue Huffman: leaves come sorted, and the merged nodes are created in sorted order.
    let mut weight: Vec<u64> = leaves.iter().map(|&(freq, _)| u64::from(freq)).collect();
    let mut parent = vec![0usize; 2 * count - 1];
    let (mut next_leaf, mut next_inner) = (0, count);
    for new_node in count..2 * count - 1 {
        let mut pick = || {
            let leaf = weight.get(next_leaf).copied().filter(|_| next_leaf < count);
            let inner = weight
                .get(next_inner)
                .copied()
                .filter(|_| next_inner < new_node);
            match (leaf, inner) {
                (Some(leaf_weight), Some(inner_weight)) if inner_weight < leaf_weight => {
                    next_inner += 1;
                    next_inner - 1
                }
                (Some(_), _) => {
                    next_leaf += 1;
                    next_leaf - 1
                }
                _ => {
                    next_inner += 1;
                    next_inner - 1
                }
            }
        };
        let first = pick();
        let second = pick();
        let sum =
            weight.get(first).copied().unwrap_or(0) + weight.get(second).copied().unwrap_or(0);
        weight.push(sum);
        if let Some(slot) = parent.get_mut(first) {
            *slot = new_node;
        }
        if let Some(slot) = parent.get_mut(second) {
            *slot = new_node;
        }
    }
    // Parents come after their children, so depths can be filled from the root down.
    let mut depth = vec![0u8; 2 * count - 1];
    for node in (0..2 * count - 2).rev() {
        let up = parent
            .get(node)
            .and_then(|&up| depth.get(up))
            .copied()
            .unwrap_or(0);
        if let Some(slot) = depth.get_mut(node) {
            *slot = up.saturating_add(1);
        }
    }
    let longest = depth.iter().take(count).copied().max().unwrap_or(0);
    let leaf_lengths = if longest > limit {
        package_merge(&leaves, limit)
    } else {
        depth.truncate(count);
        depth
    };
    for (&(_, symbol), &len) in leaves.iter().zip(&leaf_lengths) {
        if let Some(slot) = lengths.get_mut(usize::from(symbol)) {
            *slot = len;
        }
    }
    lengths
}

/// Returns optimal code lengths of at most `limit` bits for `leaves` (sorted by increasing
/// frequency, at least two, at most `1 << limit`), by the package-merge algorithm.
fn package_merge(leaves: &[(u32, u16)], limit: u8) -> Vec<u8> {
    let count = leaves.len();
    // Items are leaves (indices below `count`) or packages of two earlier items.
    let mut weight: Vec<u64> = leaves.iter().map(|&(freq, _)| u64::from(freq)).collect();
    let mut children: Vec<(u32, u32)> = vec![(0, 0); count];
    let mut list: Vec<u32> = (0..count as u32).collect();
    for _ in 1..limit {
        let mut packages = Vec::with_capacity(list.len() / 2);
        for pair in list.chunks_exact(2) {
            let sum = pair
                .iter()
                .map(|&item| weight.get(item as usize).copied().unwrap_or(0))
                .sum();
            packages.push(weight.len() as u32);
            weight.push(sum);
            children.push((pair[0], pair[1]));
        }
        // Merge the leaves with the packages by weight, leaves first on ties.
        let mut merged = Vec::with_capacity(count + packages.len());
        let (mut leaf, mut package) = (0usize, 0usize);
        while leaf < count || package < packages.len() {
            let leaf_weight = weight.get(leaf).copied().filter(|_| leaf < count);
            let package_item = packages.get(package).copied();
            let package_weight = package_item.and_then(|item| weight.get(item as usize).copied());
            match (leaf_weight, package_weight) {
                (Some(lw), Some(pw)) if pw < lw => {
                    merged.push(package_item.unwrap_or(0));
                    package += 1;
                }
                (Some(_), _) => {
                    merged.push(leaf as u32);
                    leaf += 1;
                }
                (None, _) => {
                    merged.push(package_item.unwrap_or(0));
                    package += 1;
                }
            }
        }
        list = merged;
    }
    // A leaf's code length is the number of times it occurs in the first 2n - 2 items.
    let mut lengths = vec![0u8; count];
    let mut stack: Vec<u32> = list.iter().take(2 * count - 2).copied().collect();
    while let Some(item) = stack.pop() {
        let item = item as usize;
        if item < count {
            if let Some(len) = lengths.get_mut(item) {
                *len += 1;
            }
        } else if let Some(&(left, right)) = children.get(item) {
            stack.push(left);
            stack.push(right);
        }
    }
    lengths
}

/// Returns the canonical codes of `lengths`, bit-reversed so they can be written least
/// significant bit first.
fn canonical_codes(lengths: &[u8]) -> Vec<u16> {
    let mut count = [0u16; 16];
    for &len in lengths {
        if let Some(slot) = count.get_mut(usize::from(len)) {
            *slot += 1;
        }
    }
    count[0] = 0;
    let mut next = [0u16; 16];
    let mut code = 0u16;
    for bits in 1..16 {
        code = (code + count[bits - 1]) << 1;
        next[bits] = code;
    }
    lengths
        .iter()
        .map(|&len| {
            let Some(slot) = next.get_mut(usize::from(len)).filter(|_| len > 0) else {
                return 0;
            };
            let code = *slot;
            *slot += 1;
            code.reverse_bits() >> (16 - u32::from(len))
        })
        .collect()
}

/// The header of a dynamic-Huffman block: the code lengths of both codes, run-length coded.
struct DynamicHeader {
    /// The number of literal/length code lengths written (257..=286).
    hlit: usize,
    /// The number of distance code lengths written (1..=30).
    hdist: usize,
    /// The number of code-length code lengths written (4..=19).
    hclen: usize,
    /// The run-length coded code lengths, as (code-length symbol, extra bits value).
    runs: Vec<(u8, u8)>,
    /// The code lengths of the code-length code.
    clen_lengths: Vec<u8>,
    /// The size of the header in bits, block type bits excluded.
    bits: u64,
}

impl DynamicHeader {
    /// Builds the header for the given literal/length and distance code lengths.
    fn new(litlen_lengths: &[u8], dist_lengths: &[u8]) -> Self {
        let hlit = litlen_lengths
            .iter()
            .rposition(|&len| len > 0)
            .map_or(257, |last| (last + 1).max(257));
        let hdist = dist_lengths
            .iter()
            .rposition(|&len| len > 0)
            .map_or(1, |last| last + 1);
        let mut all = Vec::with_capacity(hlit + hdist);
        all.extend_from_slice(litlen_lengths.get(..hlit).unwrap_or(litlen_lengths));
        all.extend_from_slice(dist_lengths.get(..hdist).unwrap_or(dist_lengths));
        let runs = run_length_code(&all);
        let mut freqs = [0u32; CLEN_SYMBOLS];
        for &(symbol, _) in &runs {
            if let Some(freq) = freqs.get_mut(usize::from(symbol)) {
                *freq += 1;
            }
        }
        let mut clen_lengths = huffman_lengths(&freqs, MAX_CLEN_BITS);
        // Decoders reject an incomplete code-length code, so a lone symbol gets a partner.
        if clen_lengths.iter().filter(|&&len| len > 0).count() == 1 {
            let partner = CLEN_ORDER
                .iter()
                .find(|&&symbol| clen_lengths.get(symbol) == Some(&0));
            if let Some(slot) = partner.and_then(|&symbol| clen_lengths.get_mut(symbol)) {
                *slot = 1;
            }
        }
        let hclen = CLEN_ORDER
            .iter()
            .rposition(|&symbol| clen_lengths.get(symbol).is_some_and(|&len| len > 0))
            .map_or(4, |last| (last + 1).max(4));
        let mut bits = 5 + 5 + 4 + 3 * hclen as u64;
        for &(symbol, _) in &runs {
            let symbol = usize::from(symbol);
            bits += u64::from(clen_lengths.get(symbol).copied().unwrap_or(0))
                + u64::from(CLEN_EXTRA.get(symbol).copied().unwrap_or(0));
        }
        DynamicHeader {
            hlit,
            hdist,
            hclen,
            runs,
            clen_lengths,
            bits,
        }
    }

    /// Writes the header (after the block type bits).
    fn write(&self, writer: &mut BitWriter) {
        writer.write_bits((self.hlit - 257) as u32, 5);
        writer.write_bits((self.hdist - 1) as u32, 5);
        writer.write_bits((self.hclen - 4) as u32, 4);
        for &symbol in CLEN_ORDER.iter().take(self.hclen) {
            writer.write_bits(
                u32::from(self.clen_lengths.get(symbol).copied().unwrap_or(0)),
                3,
            );
        }
        let codes = canonical_codes(&self.clen_lengths);
        for &(symbol, extra) in &self.runs {
            let symbol = usize::from(symbol);
            let len = self.clen_lengths.get(symbol).copied().unwrap_or(0);
            writer.write_bits(
                u32::from(codes.get(symbol).copied().unwrap_or(0)),
                u32::from(len),
            );
            let extra_bits = CLEN_EXTRA.get(symbol).copied().unwrap_or(0);
            if extra_bits > 0 {
                writer.write_bits(u32::from(extra), u32::from(extra_bits));
            }
        }
    }
}

/// Run-length codes a sequence of code lengths with the code-length symbols 0..=18.
fn run_length_code(lengths: &[u8]) -> Vec<(u8, u8)> {
    let mut runs = Vec::with_capacity(lengths.len() / 2);
    let mut index = 0;
    while let Some(&len) = lengths.get(index) {
        let mut run = lengths
            .get(index..)
            .unwrap_or_default()
            .iter()
            .take_while(|&&other| other == len)
            .count();
        index += run;
        if len == 0 {
            while run >= 11 {
                let take = run.min(138);
                runs.push((18, (take - 11) as u8));
                run -= take;
            }
            if run >= 3 {
                runs.push((17, (run - 3) as u8));
                run = 0;
            }
        } else {
            runs.push((len, 0));
            run -= 1;
            while run >= 3 {
                let take = run.min(6);
                runs.push((16, (take - 3) as u8));
                run -= take;
            }
        }
        for _ in 0..run {
            runs.push((len, 0));
        }
    }
    runs
}

/// Returns the bits needed to encode symbols with the given frequencies and code lengths, extra
/// bits included.
fn data_bits(
    litlen_freq: &[u32],
    dist_freq: &[u32],
    litlen_lengths: &[u8],
    dist_lengths: &[u8],
) -> u64 {
    let mut bits = 0u64;
    for (symbol, (&freq, &len)) in litlen_freq.iter().zip(litlen_lengths).enumerate() {
        let extra = symbol
            .checked_sub(257)
            .and_then(|code| LENGTH_EXTRA.get(code))
            .copied()
            .unwrap_or(0);
        bits += u64::from(freq) * (u64::from(len) + u64::from(extra));
    }
    for ((&freq, &len), &extra) in dist_freq.iter().zip(dist_lengths).zip(&DIST_EXTRA) {
        bits += u64::from(freq) * (u64::from(len) + u64::from(extra));
    }
    bits
}

/// Returns the code lengths of the fixed Huffman code: literal/length, then distance.
///
/// The code covers 288 literal/length symbols and 32 distance symbols, two of each never used
/// but needed for the canonical codes to come out right.
fn fixed_lengths() -> (Vec<u8>, Vec<u8>) {
    let litlen = (0..LITLEN_SYMBOLS + 2)
        .map(|symbol| match symbol {
            0..=143 => 8,
            144..=255 => 9,
            256..=279 => 7,
            _ => 8,
        })
        .collect();
    (litlen, vec![5; DIST_SYMBOLS + 2])
}

/// The codes chosen for one deflate block of tokens, and its exact size.
struct BlockPlan {
    /// The literal/length code lengths of the dynamic code.
    litlen_lengths: Vec<u8>,
    /// The distance code lengths of the dynamic code.
    dist_lengths: Vec<u8>,
    /// The header of the dynamic code.
    header: DynamicHeader,
    /// The size in bits of the block with the dynamic code.
    dynamic_bits: u64,
    /// The size in bits of the block with the fixed code.
    fixed_bits: u64,
}

impl BlockPlan {
    /// Chooses the codes for `tokens`.
    fn new(tokens: &[Token]) -> Self {
        let (litlen_freq, dist_freq) = symbol_frequencies(tokens);
        let litlen_lengths = huffman_lengths(&litlen_freq, MAX_CODE_BITS);
        let mut dist_lengths = huffman_lengths(&dist_freq, MAX_CODE_BITS);
        if dist_lengths.iter().all(|&len| len == 0) {
            // Some decoders want at least one distance code even if none is used.
            dist_lengths[0] = 1;
        }
        let header = DynamicHeader::new(&litlen_lengths, &dist_lengths);
        let dynamic_bits =
            3 + header.bits + data_bits(&litlen_freq, &dist_freq, &litlen_lengths, &dist_lengths);
        let (fixed_litlen, fixed_dist) = fixed_lengths();
        let fixed_bits = 3 + data_bits(&litlen_freq, &dist_freq, &fixed_litlen, &fixed_dist);
        BlockPlan {
            litlen_lengths,
            dist_lengths,
            header,
            dynamic_bits,
            fixed_bits,
        }
    }

    /// Returns the size in bits of the block with the better of the two codes.
    fn bits(&self) -> u64 {
        self.dynamic_bits.min(self.fixed_bits)
    }

    /// Writes `tokens` (which encode `data`) as one final block of the smallest type.
    fn write(&self, writer: &mut BitWriter, data: &[u8], tokens: &[Token]) {
        // The writer is byte-aligned here; each stored block takes 3 bits padded to a byte,
        // 4 bytes of lengths and its data.
        let stored_blocks = data.len().div_ceil(MAX_STORED).max(1) as u64;
        let stored_bytes = 5 * stored_blocks + data.len() as u64;
        let dynamic_bytes = self.dynamic_bits.div_ceil(8);
        let fixed_bytes = self.fixed_bits.div_ceil(8);
        if stored_bytes < dynamic_bytes.min(fixed_bytes) {
            write_stored(writer, data);
        } else if fixed_bytes < dynamic_bytes {
            let (fixed_litlen, fixed_dist) = fixed_lengths();
            writer.write_bits(0b011, 3);
            write_tokens(writer, tokens, &fixed_litlen, &fixed_dist);
        } else {
            writer.write_bits(0b101, 3);
            self.header.write(writer);
            write_tokens(writer, tokens, &self.litlen_lengths, &self.dist_lengths);
        }
    }
}

/// Writes `data` as stored blocks, the last one final.
fn write_stored(writer: &mut BitWriter, data: &[u8]) {
    let mut chunks = data.chunks(MAX_STORED).peekable();
    if chunks.peek().is_none() {
        writer.write_bits(1, 3);
        writer.write_bytes(&[0, 0, 0xFF, 0xFF]);
    }
    while let Some(chunk) = chunks.next() {
        let last = chunks.peek().is_none();
        writer.write_bits(u32::from(last), 3);
        let len = chunk.len() as u16;
        writer.write_bytes(&len.to_le_bytes());
        writer.write_bytes(&(!len).to_le_bytes());
        writer.write_bytes(chunk);
    }
}

/// Writes `tokens` and the end-of-block symbol with the given code lengths.
fn write_tokens(
    writer: &mut BitWriter,
    tokens: &[Token],
    litlen_lengths: &[u8],
    dist_lengths: &[u8],
) {
    let litlen_codes = canonical_codes(litlen_lengths);
    let dist_codes = canonical_codes(dist_lengths);
    let code = |codes: &[u16], lengths: &[u8], symbol: usize| {
        (
            u32::from(codes.get(symbol).copied().unwrap_or(0)),
            u32::from(lengths.get(symbol).copied().unwrap_or(0)),
        )
    };
    for token in tokens {
        if token.dist == 0 {
            let (bits, count) = code(&litlen_codes, litlen_lengths, usize::from(token.len & 0xFF));
            writer.write_bits(bits, count);
            continue;
        }
        let len = usize::from(token.len).clamp(MIN_MATCH, MAX_MATCH);
        let len_code = usize::from(LENGTH_CODE[len]);
        let (bits, count) = code(&litlen_codes, litlen_lengths, 257 + len_code);
        writer.write_bits(bits, count);
        let extra = u32::from(LENGTH_EXTRA[len_code]);
        if extra > 0 {
            writer.write_bits((len - usize::from(LENGTH_BASE[len_code])) as u32, extra);
        }
        let dist = usize::from(token.dist);
        let dcode = dist_code(dist);
        let (bits, count) = code(&dist_codes, dist_lengths, dcode);
        writer.write_bits(bits, count);
        let extra = u32::from(DIST_EXTRA[dcode]);
        if extra > 0 {
            writer.write_bits((dist - usize::from(DIST_BASE[dcode])) as u32, extra);
        }
    }
    let (bits, count) = code(&litlen_codes, litlen_lengths, END_OF_BLOCK);
    writer.write_bits(bits, count);
}

/// Writes bits least significant first, as deflate requires.
struct BitWriter {
    /// The bytes written so far.
    out: Vec<u8>,
    /// Bits not yet written to `out`, least significant first.
    acc: u64,
    /// The number of valid bits in `acc`.
    count: u32,
}

impl BitWriter {
    /// Returns an empty writer with room for `capacity` bytes.
    fn with_capacity(capacity: usize) -> Self {
        BitWriter {
            out: Vec::with_capacity(capacity),
            acc: 0,
            count: 0,
        }
    }

    /// Writes the low `count` bits of `bits` (at most 32).
    fn write_bits(&mut self, bits: u32, count: u32) {
        self.acc |= u64::from(bits) << self.count;
        self.count += count;
        if self.count >= 32 {
            self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
            self.acc >>= 32;
            self.count -= 32;
        }
    }

    /// Pads to a byte boundary with zero bits.
    fn align(&mut self) {
        while self.count > 0 {
            self.out.push(self.acc as u8);
            self.acc >>= 8;
            self.count = self.count.saturating_sub(8);
        }
        self.acc = 0;
    }

    /// Writes whole bytes, after padding to a byte boundary.
    fn write_bytes(&mut self, bytes: &[u8]) {
        self.align();
        self.out.extend_from_slice(bytes);
    }

    /// Pads to a byte boundary and returns the bytes.
    fn finish(mut self) -> Vec<u8> {
        self.align();
        self.out
    }
}

#[cfg(test)]
mod tests {
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

    /// Checks that `lengths` describe a complete prefix code within `limit` bits.
    fn assert_complete(lengths: &[u8], limit: u8) {
        let used: Vec<u8> = lengths.iter().copied().filter(|&len| len > 0).collect();
        assert!(used.iter().all(|&len| len <= limit), "{lengths:?}");
        if used.len() > 1 {
            let kraft: u64 = used.iter().map(|&len| 1u64 << (limit - len)).sum();
            assert_eq!(kraft, 1u64 << limit, "{lengths:?}");
        }
    }

    #[test]
    fn huffman_lengths_respect_the_limit() {
        // Fibonacci frequencies give a plain Huffman code as deep as there are symbols.
        let mut fibonacci = vec![1u32, 1];
        while fibonacci.len() < 30 {
            let next = fibonacci[fibonacci.len() - 1] + fibonacci[fibonacci.len() - 2];
            fibonacci.push(next);
        }
        for limit in [7, 15] {
            let lengths = huffman_lengths(&fibonacci, limit);
            assert_complete(&lengths, limit);
            assert_eq!(lengths.iter().max(), Some(&limit));
        }
        // Package-merge is optimal: here it matches the plain Huffman code, which fits.
        let freqs = [5u32, 9, 12, 13, 16, 45];
        let merged = package_merge(&[(5, 0), (9, 1), (12, 2), (13, 3), (16, 4), (45, 5)], 15);
        assert_eq!(merged, huffman_lengths(&freqs, 15));
        assert_eq!(huffman_lengths(&[0, 3, 0], 15), vec![0, 1, 0]);
        assert_eq!(huffman_lengths(&[0, 0], 15), vec![0, 0]);
        assert_complete(&huffman_lengths(&[1; 286], 15), 15);
    }

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

    #[test]
    fn code_length_runs_cover_the_sequence() {
        let lengths: Vec<u8> = [
            vec![0u8; 140],
            vec![5; 9],
            vec![0; 12],
            vec![3; 2],
            vec![0; 4],
        ]
        .concat();
        let mut decoded: Vec<u8> = Vec::new();
        for (symbol, extra) in run_length_code(&lengths) {
            match symbol {
                16 => {
                    let last = *decoded.last().expect("a length to repeat");
                    decoded.extend(std::iter::repeat_n(last, 3 + usize::from(extra)));
                }
                17 => decoded.extend(std::iter::repeat_n(0, 3 + usize::from(extra))),
                18 => decoded.extend(std::iter::repeat_n(0, 11 + usize::from(extra))),
                len => decoded.push(len),
            }
        }
        assert_eq!(decoded, lengths);
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
