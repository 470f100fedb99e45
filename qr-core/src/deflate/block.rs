//! Block writing: the choice between a dynamic, fixed or stored block by exact size, its header, and the tokens in the chosen code.

use super::huffman::{canonical_codes, huffman_lengths};
use super::tables::{
    CLEN_EXTRA, CLEN_ORDER, CLEN_SYMBOLS, DIST_EXTRA, DIST_SYMBOLS, LENGTH_EXTRA, LITLEN_SYMBOLS,
    MAX_CLEN_BITS, MAX_CODE_BITS, MAX_STORED,
};
// The token writer of the optimal parse (PNG); the fast parse writes its own.
#[cfg(feature = "png")]
use super::tables::{
    DIST_BASE, END_OF_BLOCK, LENGTH_BASE, LENGTH_CODE, MAX_MATCH, MIN_MATCH, dist_code,
};
#[cfg(feature = "png")]
use super::token::Token;
use crate::bit_writer::{BitWriter, LsbFirst};

/// Counts the literal/length and distance symbols of `tokens`, plus one end-of-block symbol.
#[cfg(feature = "png")]
pub(super) fn symbol_frequencies(tokens: &[Token]) -> ([u32; LITLEN_SYMBOLS], [u32; DIST_SYMBOLS]) {
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

/// The header of a dynamic-Huffman block: the code lengths of both codes, run-length coded.
pub(super) struct DynamicHeader {
    /// The number of literal/length code lengths written (257..=286).
    pub(super) hlit: usize,
    /// The number of distance code lengths written (1..=30).
    pub(super) hdist: usize,
    /// The number of code-length code lengths written (4..=19).
    pub(super) hclen: usize,
    /// The run-length coded code lengths, as (code-length symbol, extra bits value).
    pub(super) runs: Vec<(u8, u8)>,
    /// The code lengths of the code-length code.
    pub(super) clen_lengths: Vec<u8>,
    /// The size of the header in bits, block type bits excluded.
    pub(super) bits: u64,
}

impl DynamicHeader {
    /// Builds the header for the given literal/length and distance code lengths.
    pub(super) fn new(litlen_lengths: &[u8], dist_lengths: &[u8]) -> Self {
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
    pub(super) fn write(&self, writer: &mut BitWriter<LsbFirst>) {
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
pub(super) fn run_length_code(lengths: &[u8]) -> Vec<(u8, u8)> {
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
pub(super) fn data_bits(
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
pub(super) fn fixed_lengths() -> (Vec<u8>, Vec<u8>) {
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
pub(super) struct BlockPlan {
    /// The literal/length code lengths of the dynamic code.
    pub(super) litlen_lengths: Vec<u8>,
    /// The distance code lengths of the dynamic code.
    pub(super) dist_lengths: Vec<u8>,
    /// The header of the dynamic code.
    pub(super) header: DynamicHeader,
    /// The size in bits of the block with the dynamic code.
    pub(super) dynamic_bits: u64,
    /// The size in bits of the block with the fixed code.
    pub(super) fixed_bits: u64,
}

impl BlockPlan {
    /// Chooses the codes for `tokens` (the optimal parse's blocks).
    #[cfg(feature = "png")]
    pub(super) fn new(tokens: &[Token]) -> Self {
        let (litlen_freq, dist_freq) = symbol_frequencies(tokens);
        Self::from_frequencies(&litlen_freq, &dist_freq)
    }

    /// Chooses the codes for symbols counted as `litlen_freq` (end of block included) and
    /// `dist_freq`.
    pub(super) fn from_frequencies(litlen_freq: &[u32], dist_freq: &[u32]) -> Self {
        let litlen_lengths = huffman_lengths(litlen_freq, MAX_CODE_BITS);
        let mut dist_lengths = huffman_lengths(dist_freq, MAX_CODE_BITS);
        if dist_lengths.iter().all(|&len| len == 0) {
            // Some decoders want at least one distance code even if none is used.
            dist_lengths[0] = 1;
        }
        let header = DynamicHeader::new(&litlen_lengths, &dist_lengths);
        let dynamic_bits =
            3 + header.bits + data_bits(litlen_freq, dist_freq, &litlen_lengths, &dist_lengths);
        let (fixed_litlen, fixed_dist) = fixed_lengths();
        let fixed_bits = 3 + data_bits(litlen_freq, dist_freq, &fixed_litlen, &fixed_dist);
        BlockPlan {
            litlen_lengths,
            dist_lengths,
            header,
            dynamic_bits,
            fixed_bits,
        }
    }

    /// Returns the size in bits of the block with the better of the two codes.
    #[cfg(feature = "png")]
    pub(super) fn bits(&self) -> u64 {
        self.dynamic_bits.min(self.fixed_bits)
    }

    /// Writes `tokens` (which encode `data`) as one final block of the smallest type.
    #[cfg(feature = "png")]
    pub(super) fn write(&self, writer: &mut BitWriter<LsbFirst>, data: &[u8], tokens: &[Token]) {
        self.write_with(writer, data, |writer, litlen, dist| {
            write_tokens(writer, tokens, litlen, dist);
        });
    }

    /// Writes one final block of the smallest type for `data`: stored, or the block header
    /// and then `write_tokens` with the chosen literal/length and distance code lengths.
    pub(super) fn write_with(
        &self,
        writer: &mut BitWriter<LsbFirst>,
        data: &[u8],
        write_tokens: impl FnOnce(&mut BitWriter<LsbFirst>, &[u8], &[u8]),
    ) {
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
            write_tokens(writer, &fixed_litlen, &fixed_dist);
        } else {
            writer.write_bits(0b101, 3);
            self.header.write(writer);
            write_tokens(writer, &self.litlen_lengths, &self.dist_lengths);
        }
    }
}

/// Writes `data` as stored blocks, the last one final.
pub(super) fn write_stored(writer: &mut BitWriter<LsbFirst>, data: &[u8]) {
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
#[cfg(feature = "png")]
pub(super) fn write_tokens(
    writer: &mut BitWriter<LsbFirst>,
    tokens: &[Token],
    litlen_lengths: &[u8],
    dist_lengths: &[u8],
) {
    let litlen_codes = canonical_codes(litlen_lengths);
    let dist_codes = canonical_codes(dist_lengths);
    let code = symbol_code;
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

/// The code of `symbol` (bit-reversed, from `codes`) and its length, as `write_bits` takes
/// them; (0, 0) for a symbol outside the code.
#[inline]
pub(super) fn symbol_code(codes: &[u16], lengths: &[u8], symbol: usize) -> (u32, u32) {
    (
        u32::from(codes.get(symbol).copied().unwrap_or(0)),
        u32::from(lengths.get(symbol).copied().unwrap_or(0)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
