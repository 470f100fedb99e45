//! Reed-Solomon error correction over GF(256) and the interleaving of blocks into the final codeword sequence.

use crate::version::{EcLevel, Version};

/// Splits `data` into the blocks of `version` at `level`, appends each block's error-correction
/// codewords and interleaves them in the order the symbol stores them.
pub(crate) fn add_error_correction(data: &[u8], version: Version, level: EcLevel) -> Vec<u8> {
    let (ecc_len, block_count) = level.blocks(version);
    let raw_codewords = version.raw_data_modules() / 8;
    let short_blocks = block_count - raw_codewords % block_count;
    let short_data_len = raw_codewords / block_count - ecc_len;

    let generator = &GENERATORS[ecc_len];
    let mut ecc = vec![0u8; ecc_len * block_count];
    let mut starts = Vec::with_capacity(block_count + 1);
    let mut offset = 0;
    for block in 0..block_count {
        starts.push(offset);
        let len = short_data_len + usize::from(block >= short_blocks);
        let end = (offset + len).min(data.len());
        remainder(
            &data[offset.min(end)..end],
            &generator[..ecc_len],
            &mut ecc[block * ecc_len..(block + 1) * ecc_len],
        );
        offset += len;
    }
    starts.push(offset);

    let mut result = Vec::with_capacity(raw_codewords);
    for i in 0..=short_data_len {
        for block in 0..block_count {
            let position = starts[block] + i;
            if position < starts[block + 1]
                && let Some(&byte) = data.get(position)
            {
                result.push(byte);
            }
        }
    }
    for i in 0..ecc_len {
        for block in 0..block_count {
            result.push(ecc[block * ecc_len + i]);
        }
    }
    result
}

/// For each codeword of the interleaved sequence of `version` at `level`, the block it belongs to,
/// and the number of error-correction codewords per block.
#[cfg(feature = "logo")]
pub(crate) fn codeword_blocks(version: Version, level: EcLevel) -> (Vec<u8>, usize) {
    let (ecc_len, block_count) = level.blocks(version);
    let raw_codewords = version.raw_data_modules() / 8;
    let short_blocks = block_count - raw_codewords % block_count;
    let short_data_len = raw_codewords / block_count - ecc_len;
    let mut blocks = Vec::with_capacity(raw_codewords);
    for i in 0..=short_data_len {
        for block in 0..block_count {
            let len = short_data_len + usize::from(block >= short_blocks);
            if i < len {
                blocks.push(block as u8);
            }
        }
    }
    for _ in 0..ecc_len {
        blocks.extend((0..block_count).map(|block| block as u8));
    }
    (blocks, ecc_len)
}

/// The `count` Reed-Solomon error-correction codewords of one block of `data` (Micro QR symbols
/// have a single block).
pub(crate) fn block_ecc(data: &[u8], count: usize) -> Vec<u8> {
    let mut out = vec![0u8; count];
    remainder(data, &GENERATORS[count][..count], &mut out);
    out
}

/// Writes into `out` the remainder of `data` times x^n divided by the generator, whose non-leading
/// coefficients are given as logarithms in `generator_logs`.
fn remainder(data: &[u8], generator_logs: &[u8], out: &mut [u8]) {
    out.fill(0);
    let n = out.len();
    for &byte in data {
        let factor = byte ^ out[0];
        out.copy_within(1.., 0);
        out[n - 1] = 0;
        if factor != 0 {
            let log_factor = usize::from(LOG[usize::from(factor)]);
            for (slot, &log_g) in out.iter_mut().zip(generator_logs) {
                *slot ^= EXP[log_factor + usize::from(log_g)];
            }
        }
    }
}

/// Powers of the generator element 2 of GF(256) modulo x^8 + x^4 + x^3 + x^2 + 1, twice over so
/// that a sum of two logarithms needs no reduction.
const EXP: [u8; 512] = {
    let mut table = [0u8; 512];
    let mut value: u32 = 1;
    let mut i = 0;
    while i < 512 {
        table[i] = value as u8;
        value <<= 1;
        if value & 0x100 != 0 {
            value ^= 0x11D;
        }
        i += 1;
    }
    table
};

/// Discrete logarithms in GF(256); index 0 is unused.
const LOG: [u8; 256] = {
    let mut table = [0u8; 256];
    let mut i = 0;
    while i < 255 {
        table[EXP[i] as usize] = i as u8;
        i += 1;
    }
    table
};

/// For each degree up to 30, the generator polynomial prod (x - 2^i) for i < degree, without its
/// leading 1, its coefficients stored as logarithms (every coefficient is non-zero).
const GENERATORS: [[u8; 30]; 31] = {
    let mut table = [[0u8; 30]; 31];
    let mut degree = 1;
    while degree <= 30 {
        // Coefficients, highest power first, leading 1 included.
        let mut poly = [0u8; 31];
        poly[0] = 1;
        let mut root = 0;
        while root < degree {
            // Multiply by (x - 2^root): each coefficient becomes c[j] + c[j-1] * 2^root.
            let mut j = root + 1;
            while j >= 1 {
                let previous = poly[j - 1];
                let product = if previous == 0 {
                    0
                } else {
                    EXP[LOG[previous as usize] as usize + root]
                };
                poly[j] ^= product;
                j -= 1;
            }
            root += 1;
        }
        let mut k = 0;
        while k < degree {
            table[degree][k] = LOG[poly[k + 1] as usize];
            k += 1;
        }
        degree += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn remainder_matches_a_known_codeword() {
        // Version 1-M "01234567" example from ISO/IEC 18004 Annex I: 16 data codewords, 10 EC codewords.
        let data = [
            0x10, 0x20, 0x0C, 0x56, 0x61, 0x80, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11, 0xEC, 0x11,
            0xEC, 0x11,
        ];
        let mut out = [0u8; 10];
        remainder(&data, &GENERATORS[10][..10], &mut out);
        assert_eq!(
            out,
            [0xA5, 0x24, 0xD4, 0xC1, 0xED, 0x36, 0xC7, 0x87, 0x2C, 0x55]
        );
    }
}
