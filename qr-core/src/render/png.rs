//! PNG output: a 1-bit image (grey or a two-entry palette with tRNS) compressed by our scanline deflate.

use super::drawing::Drawing;
use super::layout::Layout;
use crate::deflate::zlib_compress;
use crate::options::Color;
use crate::runs::for_each_run;

/// Encodes the drawing as a 1-bit PNG: dark modules in `color`, everything else in `background`.
///
/// Modules under a logo are drawn light (the logo itself needs an RGBA image). Black on white becomes a greyscale image (no
/// palette needed); any other pair a two-entry palette, with a tRNS chunk when either colour has
/// alpha.
pub(crate) fn encode(
    drawing: &Drawing<'_>,
    layout: &Layout,
    color: Color,
    background: Color,
) -> Vec<u8> {
    let palette = Palette::choose(color, background);
    let size = layout.size as usize;
    let stride = 1 + size.div_ceil(8);
    let s = layout.module_pixels as usize;
    let offset = layout.offset as usize;
    // Dark modules are stored as 0 and light as 1 when `dark_bit` is 0: every pixel byte is
    // inverted, the filter byte and the unused bits at the end of the row left at 0.
    let unused_bits = stride * 8 - 8 - size;
    let last_mask = !((1u16 << unused_bits) - 1) as u8;
    let finish = |row: &mut [u8]| {
        if palette.dark_bit == 0 {
            for byte in row.iter_mut().skip(1) {
                *byte = !*byte;
            }
            if let Some(last) = row.last_mut() {
                *last &= last_mask;
            }
        }
    };
    let mut light = vec![0u8; stride];
    finish(&mut light);
    let mut raw = Vec::with_capacity(stride * size);
    let top = offset.min(size);
    for _ in 0..top {
        raw.extend_from_slice(&light);
    }
    let mut row = vec![0u8; stride];
    for my in 0..drawing.size() {
        row.fill(0);
        let words = drawing.row(my);
        let mut x = 0;
        for_each_run(&words, drawing.size(), |dark, length| {
            if dark {
                fill_bits(&mut row[1..], offset + x * s, offset + (x + length) * s);
            }
            x += length;
        });
        finish(&mut row);
        for _ in 0..s {
            raw.extend_from_slice(&row);
        }
    }
    raw.truncate(stride * size);
    while raw.len() < stride * size {
        raw.extend_from_slice(&light);
    }
    let compressed = zlib_compress(&raw, stride);

    let mut png = Vec::with_capacity(compressed.len() + 80);
    png.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut header = [0u8; 13];
    header[0..4].copy_from_slice(&layout.size.to_be_bytes());
    header[4..8].copy_from_slice(&layout.size.to_be_bytes());
    header[8] = 1; // Bit depth.
    header[9] = palette.color_type;
    chunk(&mut png, b"IHDR", &header);
    if let Some(entries) = &palette.entries {
        chunk(&mut png, b"PLTE", entries);
    }
    if let Some(alpha) = &palette.alpha {
        chunk(&mut png, b"tRNS", alpha);
    }
    chunk(&mut png, b"IDAT", &compressed);
    chunk(&mut png, b"IEND", &[]);
    png
}

/// How the two colours are stored.
struct Palette {
    color_type: u8,
    /// The pixel value of dark modules.
    dark_bit: u8,
    entries: Option<Vec<u8>>,
    alpha: Option<Vec<u8>>,
}

impl Palette {
    fn choose(color: Color, background: Color) -> Palette {
        if color == Color::BLACK && background == Color::WHITE {
            return Palette {
                color_type: 0,
                dark_bit: 0,
                entries: None,
                alpha: None,
            };
        }
        if color == Color::WHITE && background == Color::BLACK {
            return Palette {
                color_type: 0,
                dark_bit: 1,
                entries: None,
                alpha: None,
            };
        }
        // Index 0 is the background, so the quiet zone is all zero bits.
        let entries = vec![
            background.r,
            background.g,
            background.b,
            color.r,
            color.g,
            color.b,
        ];
        let alpha = if background.is_opaque() && color.is_opaque() {
            None
        } else if color.is_opaque() {
            Some(vec![background.a])
        } else {
            Some(vec![background.a, color.a])
        };
        Palette {
            color_type: 3,
            dark_bit: 1,
            entries: Some(entries),
            alpha,
        }
    }
}

/// Sets bits `start..end` of a most-significant-bit-first bit row.
fn fill_bits(row: &mut [u8], start: usize, end: usize) {
    if start >= end {
        return;
    }
    let (first, last) = (start / 8, (end - 1) / 8);
    let head = 0xFFu8 >> (start % 8);
    let tail = 0xFFu8 << (7 - (end - 1) % 8);
    if first == last {
        row[first] |= head & tail;
        return;
    }
    row[first] |= head;
    for byte in &mut row[first + 1..last] {
        *byte = 0xFF;
    }
    row[last] |= tail;
}

/// The PNG signature and an IHDR chunk for a square image of `size` pixels (the styled writer's;
/// the plain one writes its header in place).
#[cfg(feature = "style")]
pub(crate) fn signature(size: u32, depth: u8, color_type: u8) -> Vec<u8> {
    let mut png = Vec::with_capacity(1024);
    png.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut header = [0u8; 13];
    header[0..4].copy_from_slice(&size.to_be_bytes());
    header[4..8].copy_from_slice(&size.to_be_bytes());
    header[8] = depth;
    header[9] = color_type;
    chunk(&mut png, b"IHDR", &header);
    png
}

/// `png` with a pHYs chunk of `dpi` (in dots per metre, as the chunk stores it) right after
/// its IHDR chunk, where the specification wants it (before IDAT).
pub(crate) fn with_resolution(png: Vec<u8>, dpi: crate::options::Dpi) -> Vec<u8> {
    // The signature (8 bytes) and the IHDR chunk (4 + 4 + 13 + 4 bytes) come first in every PNG.
    const AFTER_IHDR: usize = 33;
    let Some((head, tail)) = png.split_at_checked(AFTER_IHDR) else {
        return png;
    };
    let per_metre = dpi.dots_per_metre().to_be_bytes();
    let mut data = [0u8; 9];
    data[0..4].copy_from_slice(&per_metre);
    data[4..8].copy_from_slice(&per_metre);
    data[8] = 1; // The unit is the metre.
    let mut out = Vec::with_capacity(png.len() + 21);
    out.extend_from_slice(head);
    chunk(&mut out, b"pHYs", &data);
    out.extend_from_slice(tail);
    out
}

/// Appends a PNG chunk: length, type, data and the CRC of type and data.
pub(crate) fn chunk(png: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    png.extend_from_slice(&(data.len() as u32).to_be_bytes());
    png.extend_from_slice(kind);
    png.extend_from_slice(data);
    let mut crc = crc32fast::Hasher::new();
    crc.update(kind);
    crc.update(data);
    png.extend_from_slice(&crc.finalize().to_be_bytes());
}

#[cfg(test)]
mod tests {
    use super::fill_bits;

    #[test]
    fn fill_bits_sets_exactly_the_range() {
        fn check(start: usize, end: usize, expected: [u8; 3]) {
            let mut row = [0u8; 3];
            fill_bits(&mut row, start, end);
            assert_eq!(row, expected, "{start}..{end}");
        }
        check(0, 0, [0, 0, 0]);
        check(0, 1, [0x80, 0, 0]);
        check(2, 6, [0x3C, 0, 0]);
        check(6, 10, [0x03, 0xC0, 0]);
        check(0, 24, [0xFF, 0xFF, 0xFF]);
        check(7, 17, [0x01, 0xFF, 0x80]);
    }
}
