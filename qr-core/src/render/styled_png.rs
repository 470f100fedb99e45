//! PNG output of a styled image: the art rasterised with one cached tile per module shape, then written as palette or truecolour.
//!
//! A module's shape depends only on its style and its four neighbours, and modules sit on whole
//! pixels, so each of the (at most 16) shapes is rasterised once and copied; the finder pattern
//! is rasterised once for all three. Pixels are recorded as indices: 0 for the background and,
//! for each paint, its coverage in levels. Without gradients the indices are the image (a
//! palette of the mixes); with one, each pixel's colour is computed from its paint and coverage.

use super::art::path::{Path, Transform};
use super::art::{Art, Paint, shapes};
use super::png::{chunk, signature};
use super::raster::rasterize;
use crate::deflate::zlib_compress_fast;
use crate::options::Color;

/// An image as palette indices: 0 the background, then `levels` coverage steps per paint.
struct Indexed {
    size: usize,
    pixels: Vec<u8>,
    paints: Vec<Paint>,
    levels: usize,
}

impl Indexed {
    /// The index of coverage `coverage` (1 to 255) of paint `paint`.
    fn lut(&self, paint: usize) -> [u8; 256] {
        let mut lut = [0u8; 256];
        for (coverage, entry) in lut.iter_mut().enumerate().skip(1) {
            let level = (coverage * self.levels).div_ceil(255);
            *entry = (1 + paint * self.levels + level - 1) as u8;
        }
        lut
    }

    /// Writes the `tile` (coverage of `width` x `height`) of `paint` at (`x`, `y`); pixels it
    /// does not cover keep their index.
    fn blit(&mut self, tile: &[u8], width: usize, (x, y): (usize, usize), lut: &[u8; 256]) {
        for (row, line) in tile.chunks_exact(width).enumerate() {
            let Some(start) = (y + row).checked_mul(self.size).map(|s| s + x) else {
                continue;
            };
            let Some(target) = self.pixels.get_mut(start..start + width) else {
                continue;
            };
            for (pixel, &coverage) in target.iter_mut().zip(line) {
                if coverage != 0 {
                    *pixel = lut[usize::from(coverage)];
                }
            }
        }
    }

    /// The paint and the coverage (0 to 1) of index `index`; `None` for the background.
    fn decode(&self, index: u8) -> Option<(usize, f32)> {
        let i = usize::from(index).checked_sub(1)?;
        Some((
            i / self.levels,
            ((i % self.levels) + 1) as f32 / self.levels as f32,
        ))
    }
}

/// Rasterises `art` into palette indices.
fn index(art: &Art<'_>) -> Indexed {
    let symbol = &art.symbol;
    let mut paints = vec![symbol.module_paint];
    if symbol.finder_paint != symbol.module_paint {
        paints.push(symbol.finder_paint);
    }
    if let Some(frame) = &art.frame {
        paints.push(frame.paint);
    }
    // Few paints fit 4-bit pixels with 15 levels; more take bytes with 63 levels each.
    let levels = if paints.len() == 1 { 15 } else { 63 };
    let size = art.size as usize;
    let mut image = Indexed {
        size,
        pixels: vec![0; size * size],
        paints,
        levels,
    };
    let s = symbol.module_pixels as usize;
    let (ox, oy) = (symbol.origin.0 as usize, symbol.origin.1 as usize);
    let tile_transform = Transform::new(s as f32, s as f32, 0.0, 0.0);
    let module_lut = image.lut(0);
    let mut tiles: [Option<Vec<u8>>; 16] = Default::default();
    let square = vec![255u8; s * s];
    for y in 0..symbol.n {
        for x in 0..symbol.n {
            if symbol.is_square(x, y) {
                image.blit(&square, s, (ox + x * s, oy + y * s), &module_lut);
                continue;
            }
            if !symbol.is_dark(x as i64, y as i64) {
                continue;
            }
            let neighbours = symbol.neighbours(x, y);
            let tile = tiles[neighbours.index()].get_or_insert_with(|| {
                let mut path = Path::default();
                shapes::module_shape(&mut path, symbol.style, neighbours, 0.0, 0.0);
                rasterize(&path, &tile_transform, s, s, false)
            });
            image.blit(tile, s, (ox + x * s, oy + y * s), &module_lut);
        }
    }
    let mut finder = Path::default();
    shapes::finder(&mut finder, symbol.finder_style, 0.0, 0.0);
    let finder_tile = rasterize(&finder, &tile_transform, 7 * s, 7 * s, false);
    let finder_lut = image.lut(usize::from(symbol.finder_paint != symbol.module_paint));
    for (fx, fy) in symbol.finders() {
        image.blit(&finder_tile, 7 * s, (ox + fx * s, oy + fy * s), &finder_lut);
    }
    if let Some(frame) = &art.frame {
        let coverage = rasterize(&frame.path, &frame.transform, size, size, frame.even_odd);
        let lut = image.lut(image.paints.len() - 1);
        image.blit(&coverage, size, (0, 0), &lut);
    }
    image
}

/// `paint` at `coverage` (0 to 1) over `background`.
fn mix(paint: Color, coverage: f32, background: Color) -> Color {
    if coverage >= 1.0 && paint.is_opaque() {
        return paint;
    }
    let alpha = (f32::from(paint.a) * coverage).round() as u8;
    Color { a: alpha, ..paint }.over(background)
}

/// Encodes `art` (without its logo) as a PNG file.
pub(crate) fn encode(art: &Art<'_>) -> Vec<u8> {
    let image = index(art);
    let solid = image.paints.iter().all(|p| matches!(p, Paint::Solid(_)));
    if solid {
        palette_png(&image, art.background)
    } else {
        truecolor_png(&image, art.background)
    }
}

/// The styled image as premultiplied RGBA pixels, for compositing a logo over it.
#[cfg(feature = "logo")]
pub(crate) fn rgba(art: &Art<'_>) -> Vec<[u8; 4]> {
    let image = index(art);
    let size = image.size;
    image
        .pixels
        .iter()
        .enumerate()
        .map(|(i, &index)| {
            let color = pixel_color(&image, index, (i % size, i / size), art.background);
            let scale = |v: u8| ((u16::from(v) * u16::from(color.a) + 127) / 255) as u8;
            [scale(color.r), scale(color.g), scale(color.b), color.a]
        })
        .collect()
}

fn pixel_color(image: &Indexed, index: u8, (x, y): (usize, usize), background: Color) -> Color {
    match image.decode(index) {
        None => background,
        Some((paint, coverage)) => {
            let color = image.paints[paint].at(x as f32 + 0.5, y as f32 + 0.5);
            mix(color, coverage, background)
        }
    }
}

/// A palette PNG: 4-bit indices for one paint, 8-bit for more.
fn palette_png(image: &Indexed, background: Color) -> Vec<u8> {
    let entries = 1 + image.paints.len() * image.levels;
    let mut palette = Vec::with_capacity(entries);
    palette.push(background);
    for paint in &image.paints {
        let color = paint.colors()[0];
        for level in 1..=image.levels {
            palette.push(mix(color, level as f32 / image.levels as f32, background));
        }
    }
    let depth: u8 = if entries <= 16 { 4 } else { 8 };
    let size = image.size;
    let row_bytes = if depth == 4 { size.div_ceil(2) } else { size };
    let stride = row_bytes + 1;
    let mut raw = Vec::with_capacity(stride * size);
    for line in image.pixels.chunks_exact(size) {
        raw.push(0);
        if depth == 4 {
            let pairs = line.chunks_exact(2);
            let odd = pairs.remainder().first().map(|&last| last << 4);
            raw.extend(pairs.map(|pair| pair[0] << 4 | pair[1]));
            raw.extend(odd);
        } else {
            raw.extend_from_slice(line);
        }
    }
    let mut plte = Vec::with_capacity(palette.len() * 3);
    let mut trns = Vec::with_capacity(palette.len());
    for color in &palette {
        plte.extend_from_slice(&[color.r, color.g, color.b]);
        trns.push(color.a);
    }
    while trns.last() == Some(&255) {
        trns.pop();
    }
    let mut png = signature(size as u32, depth, 3);
    chunk(&mut png, b"PLTE", &plte);
    if !trns.is_empty() {
        chunk(&mut png, b"tRNS", &trns);
    }
    chunk(&mut png, b"IDAT", &zlib_compress_fast(&raw, stride));
    chunk(&mut png, b"IEND", &[]);
    png
}

/// A truecolour PNG (RGB, or RGBA when a colour has alpha) for gradients.
fn truecolor_png(image: &Indexed, background: Color) -> Vec<u8> {
    let opaque = background.is_opaque()
        && image
            .paints
            .iter()
            .all(|p| p.colors().iter().all(|c| c.is_opaque()));
    let channels = if opaque { 3 } else { 4 };
    let size = image.size;
    let stride = size * channels + 1;
    let mut raw = Vec::with_capacity(stride * size);
    for (y, line) in image.pixels.chunks_exact(size).enumerate() {
        raw.push(0);
        for (x, &index) in line.iter().enumerate() {
            let color = pixel_color(image, index, (x, y), background);
            raw.extend_from_slice(&[color.r, color.g, color.b, color.a][..channels]);
        }
    }
    let mut png = signature(size as u32, 8, if opaque { 2 } else { 6 });
    chunk(&mut png, b"IDAT", &zlib_compress_fast(&raw, stride));
    chunk(&mut png, b"IEND", &[]);
    png
}
