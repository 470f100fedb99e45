//! The data bit stream: segments to mode headers, counts and payload, then terminator and padding codewords.

use crate::bit_writer::{BitWriter, MsbFirst};
use crate::eci::Eci;
use crate::kanji::kanji_value;
use crate::segment::{Mode, Segment, alphanumeric_value};
use crate::structured::StructuredAppend;

/// Builds the `capacity` data codewords for `segments` of `data` in version group `group`, after
/// the structured append header of `sequence` and the header of `eci`, when there are.
///
/// The caller has checked that the headers and segments fit in `capacity` bytes.
pub(crate) fn data_codewords(
    data: &[u8],
    segments: &[Segment],
    group: usize,
    capacity: usize,
    (sequence, eci): (Option<StructuredAppend>, Option<Eci>),
) -> Vec<u8> {
    let mut writer = BitWriter::<MsbFirst>::with_capacity(capacity);
    if let Some(sequence) = sequence {
        // Section 8: mode 0011, the symbol's position and the total less one in 4 bits each,
        // then the parity byte, before anything else in the symbol.
        writer.write_bits(0b0011, 4);
        writer.write_bits(u32::from(sequence.position()), 4);
        writer.write_bits(u32::from(sequence.total() - 1), 4);
        writer.write_bits(u32::from(sequence.parity()), 8);
    }
    if let Some(eci) = eci {
        // Mode indicator 0111, then the designator in one byte (its top bit 0: below 128).
        writer.write_bits(0b0111, 4);
        writer.write_bits(eci.designator(), 8);
    }
    for segment in segments {
        let bytes = &data[segment.start..segment.end];
        writer.write_bits(segment.mode.indicator(), 4);
        writer.write_bits(
            segment.characters() as u32,
            segment.mode.count_bits(group) as u32,
        );
        write_payload(&mut writer, segment.mode, bytes);
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

/// Writes the payload bits of `bytes` in `mode` (no header): digits in groups of three, 10 bits
/// each (7 or 4 for the last), alphanumeric pairs in 11 bits (6 for a last single), bytes in 8
/// bits, Shift JIS pairs in 13 bits.
pub(crate) fn write_payload(writer: &mut BitWriter<MsbFirst>, mode: Mode, bytes: &[u8]) {
    match mode {
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
        Mode::Kanji => {
            for pair in bytes.chunks_exact(2) {
                writer.write_bits(kanji_value(pair[0], pair[1]), 13);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eci_header_precedes_the_segments() {
        // ISO/IEC 18004 section 7.4.3: 0111, designator 26 in 8 bits (00011010), then the byte
        // segment 0100, count 00000001 and 'a' (01100001), terminator 0000.
        let segments = [Segment {
            mode: Mode::Byte,
            start: 0,
            end: 1,
        }];
        let words = data_codewords(b"a", &segments, 0, 5, (None, Some(Eci::Utf8)));
        // 0111 0001 | 1010 0100 | 0000 0001 | 0110 0001 | 0000 0000
        assert_eq!(words, [0x71, 0xA4, 0x01, 0x61, 0x00]);
    }

    #[test]
    fn structured_append_header_comes_first() {
        // Section 8: 0011, position 1 (0001), total 3 less one (0010), parity 0x57 (01010111),
        // then the byte segment 0100 00000001 01100001 and the terminator.
        let segments = [Segment {
            mode: Mode::Byte,
            start: 0,
            end: 1,
        }];
        let sequence = StructuredAppend::new(1, 3, 0x57);
        let words = data_codewords(b"a", &segments, 0, 6, (Some(sequence), None));
        // 0011 0001 | 0010 0101 | 0111 0100 | 0000 0001 | 0110 0001 | 0000 0000
        assert_eq!(words, [0x31, 0x25, 0x74, 0x01, 0x61, 0x00]);
    }

    #[test]
    fn kanji_segment_packs_13_bits_a_character() {
        // Section 7.4.6's example: 点茗 as 1000, count 00000010, 0x0D9F and 0x1AAA in 13 bits.
        let segments = [Segment {
            mode: Mode::Kanji,
            start: 0,
            end: 4,
        }];
        let words = data_codewords(&[0x93, 0x5F, 0xE4, 0xAA], &segments, 0, 6, (None, None));
        // 1000 0000 | 0010 0110 | 1100 1111 | 1110 1010 | 1010 10 + terminator 00 | 00 + zero bits
        assert_eq!(words, [0x80, 0x26, 0xCF, 0xEA, 0xA8, 0x00]);
    }
}
