//! The data bit stream: segments to mode headers, counts and payload, then terminator and padding codewords.

use crate::bit_writer::{BitWriter, MsbFirst};
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
    let mut writer = BitWriter::<MsbFirst>::with_capacity(capacity);
    for segment in segments {
        let bytes = &data[segment.start..segment.end];
        writer.write_bits(segment.mode.indicator(), 4);
        writer.write_bits(bytes.len() as u32, segment.mode.count_bits(group) as u32);
        match segment.mode {
            Mode::Numeric => {
                for chunk in bytes.chunks(3) {
                    let value = chunk
                        .iter()
                        .fold(0u32, |acc, &digit| acc * 10 + u32::from(digit - b'0'));
                    writer.write_bits(value, chunk.len() as u32 * 3 + 1);
                }
            }
            Mode::Alphanumeric => {
                for chunk in bytes.chunks(2) {
                    let value = chunk.iter().fold(0u32, |acc, &b| {
                        acc * 45 + u32::from(alphanumeric_value(b).unwrap_or(0))
                    });
                    writer.write_bits(value, chunk.len() as u32 * 5 + 1);
                }
            }
            Mode::Byte => {
                for &byte in bytes {
                    writer.write_bits(u32::from(byte), 8);
                }
            }
        }
    }
    // Terminator of up to four zero bits, then zero bits up to a byte boundary.
    let capacity_bits = capacity * 8;
    let terminator = (capacity_bits - writer.bit_len()).min(4);
    writer.write_bits(0, terminator as u32);
    // `finish` pads with zero bits up to a byte boundary.
    let mut bytes = writer.finish();
    // Alternating pad codewords fill the rest.
    let mut pad = [0xEC, 0x11].into_iter().cycle();
    while bytes.len() < capacity {
        bytes.push(pad.next().unwrap_or(0xEC));
    }
    bytes
}
