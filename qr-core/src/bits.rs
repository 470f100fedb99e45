//! The data bit stream: segments to mode headers, counts and payload, then terminator and padding codewords.

use crate::segment::{Mode, Segment, alphanumeric_value};

/// Builds the `capacity` data codewords for `segments` of `data` in version group `group`.
///
/// The caller has checked that the segments fit in `capacity` bytes.
pub(crate) fn data_codewords(
    data: &[u8],
    segments: &[Segment],
    group: usize,
    capacity: usize,
) -> Vec<u8> {
    let mut writer = BitWriter::with_capacity(capacity);
    for segment in segments {
        let bytes = &data[segment.start..segment.end];
        writer.push(segment.mode.indicator(), 4);
        writer.push(bytes.len() as u32, segment.mode.count_bits(group));
        match segment.mode {
            Mode::Numeric => {
                for chunk in bytes.chunks(3) {
                    let value = chunk
                        .iter()
                        .fold(0u32, |acc, &digit| acc * 10 + u32::from(digit - b'0'));
                    writer.push(value, chunk.len() * 3 + 1);
                }
            }
            Mode::Alphanumeric => {
                for chunk in bytes.chunks(2) {
                    let value = chunk.iter().fold(0u32, |acc, &b| {
                        acc * 45 + u32::from(alphanumeric_value(b).unwrap_or(0))
                    });
                    writer.push(value, chunk.len() * 5 + 1);
                }
            }
            Mode::Byte => {
                for &byte in bytes {
                    writer.push(u32::from(byte), 8);
                }
            }
        }
    }
    // Terminator of up to four zero bits, then zero bits up to a byte boundary.
    let capacity_bits = capacity * 8;
    let terminator = (capacity_bits - writer.len()).min(4);
    writer.push(0, terminator);
    let to_byte = (8 - writer.len() % 8) % 8;
    writer.push(0, to_byte);
    let mut bytes = writer.finish();
    // Alternating pad codewords fill the rest.
    let mut pad = [0xEC, 0x11].into_iter().cycle();
    while bytes.len() < capacity {
        bytes.push(pad.next().unwrap_or(0xEC));
    }
    bytes
}

/// Appends bit fields most significant bit first into bytes.
struct BitWriter {
    bytes: Vec<u8>,
    /// Bits not yet written out, right-aligned.
    pending: u64,
    pending_len: usize,
}

impl BitWriter {
    fn with_capacity(bytes: usize) -> BitWriter {
        BitWriter {
            bytes: Vec::with_capacity(bytes),
            pending: 0,
            pending_len: 0,
        }
    }

    /// The number of bits written so far.
    fn len(&self) -> usize {
        self.bytes.len() * 8 + self.pending_len
    }

    /// Appends the low `count` bits of `value` (count at most 16... 32).
    fn push(&mut self, value: u32, count: usize) {
        if count == 0 {
            return;
        }
        let value = u64::from(value) & ((1u64 << count) - 1);
        self.pending = (self.pending << count) | value;
        self.pending_len += count;
        while self.pending_len >= 8 {
            self.pending_len -= 8;
            self.bytes.push((self.pending >> self.pending_len) as u8);
        }
        self.pending &= (1u64 << self.pending_len) - 1;
    }

    fn finish(mut self) -> Vec<u8> {
        if self.pending_len > 0 {
            self.bytes
                .push((self.pending << (8 - self.pending_len)) as u8);
        }
        self.bytes
    }
}
