//! The crate's one bit writer: fields packed into bytes most significant bit first (QR data) or least significant bit first (deflate).

use std::marker::PhantomData;

/// The order in which a [`BitWriter`] packs the bits of its fields into bytes.
pub(crate) trait BitOrder {
    /// Whether fields go in from their most significant bit and bytes fill from their top bit.
    const MSB_FIRST: bool;
}

/// The QR data bit stream (ISO/IEC 18004 section 7.4): each field from its most significant bit,
/// each byte filled from its most significant bit.
pub(crate) enum MsbFirst {}

impl BitOrder for MsbFirst {
    const MSB_FIRST: bool = true;
}

/// Deflate (RFC 1951 section 3.1.1): each field from its least significant bit (Huffman codes are
/// handed over bit-reversed), each byte filled from its least significant bit.
#[cfg(any(feature = "png", feature = "pdf"))]
pub(crate) enum LsbFirst {}

#[cfg(any(feature = "png", feature = "pdf"))]
impl BitOrder for LsbFirst {
    const MSB_FIRST: bool = false;
}

/// Appends bit fields to a byte vector in the bit order `O`.
pub(crate) struct BitWriter<O> {
    /// The bytes written so far.
    out: Vec<u8>,
    /// Bits not yet written to `out`: right-aligned when most significant first, otherwise
    /// least significant first.
    acc: u64,
    /// The number of valid bits in `acc` (below 32 between calls).
    count: u32,
    order: PhantomData<O>,
}

impl<O: BitOrder> BitWriter<O> {
    /// Returns an empty writer with room for `capacity` bytes.
    pub(crate) fn with_capacity(capacity: usize) -> Self {
        BitWriter {
            out: Vec::with_capacity(capacity),
            acc: 0,
            count: 0,
            order: PhantomData,
        }
    }

    /// The number of bits written so far.
    pub(crate) fn bit_len(&self) -> usize {
        self.out.len() * 8 + self.count as usize
    }

    /// Writes the low `count` bits of `bits` (`count` at most 32). Least significant first, the
    /// bits above `count` must be zero; most significant first, they are ignored.
    #[inline]
    pub(crate) fn write_bits(&mut self, bits: u32, count: u32) {
        if O::MSB_FIRST {
            let field = u64::from(bits) & ((1u64 << count) - 1);
            self.acc = (self.acc << count) | field;
            self.count += count;
            if self.count >= 32 {
                self.count -= 32;
                let word = (self.acc >> self.count) as u32;
                self.out.extend_from_slice(&word.to_be_bytes());
                self.acc &= (1u64 << self.count) - 1;
            }
        } else {
            self.acc |= u64::from(bits) << self.count;
            self.count += count;
            if self.count >= 32 {
                self.out.extend_from_slice(&(self.acc as u32).to_le_bytes());
                self.acc >>= 32;
                self.count -= 32;
            }
        }
    }

    /// Pads to a byte boundary with zero bits.
    pub(crate) fn align(&mut self) {
        if O::MSB_FIRST {
            while self.count >= 8 {
                self.count -= 8;
                self.out.push((self.acc >> self.count) as u8);
            }
            if self.count > 0 {
                self.out.push((self.acc << (8 - self.count)) as u8);
            }
            self.count = 0;
        } else {
            while self.count > 0 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.count = self.count.saturating_sub(8);
            }
        }
        self.acc = 0;
    }

    /// Writes whole bytes, after padding to a byte boundary.
    #[cfg(any(feature = "png", feature = "pdf"))]
    pub(crate) fn write_bytes(&mut self, bytes: &[u8]) {
        self.align();
        self.out.extend_from_slice(bytes);
    }

    /// Pads to a byte boundary and returns the bytes.
    pub(crate) fn finish(mut self) -> Vec<u8> {
        self.align();
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn most_significant_first_fills_bytes_from_the_top() {
        let mut writer = BitWriter::<MsbFirst>::with_capacity(8);
        writer.write_bits(0b0100, 4);
        writer.write_bits(0xFFFF_FFFF, 3);
        writer.write_bits(0x1_2345, 17);
        writer.write_bits(0, 0);
        writer.write_bits(0b1011_0011_1000_1111_0000_1111_0101_0110, 32);
        assert_eq!(writer.bit_len(), 56);
        writer.write_bits(0b101, 3);
        assert_eq!(
            writer.finish(),
            [0x4F, 0x23, 0x45, 0xB3, 0x8F, 0x0F, 0x56, 0xA0]
        );
    }

    #[cfg(any(feature = "png", feature = "pdf"))]
    #[test]
    fn least_significant_first_fills_bytes_from_the_bottom() {
        let mut writer = BitWriter::<LsbFirst>::with_capacity(8);
        writer.write_bits(0b011, 3);
        writer.write_bits(0b10101, 5);
        writer.write_bits(0x1234_5678, 32);
        writer.write_bits(0b1, 1);
        assert_eq!(writer.bit_len(), 41);
        writer.write_bytes(&[0xAA]);
        assert_eq!(writer.finish(), [0xAB, 0x78, 0x56, 0x34, 0x12, 0x01, 0xAA]);
    }
}
