//! PNG output of a styled image: the art rasterised with one cached tile per module shape, then written as palette or truecolour.
//!
//! A module's shape depends only on its style and its four neighbours, and modules sit on whole
//! pixels, so each of the (at most 16) shapes is rasterised once and copied; the finder pattern
//! is rasterised once for all three. Pixels are recorded as indices: 0 for the background and,
//! for each paint, its coverage in levels. Without gradients the indices are the image (a
//! palette of the mixes); with one, an opaque image takes a palette of the gradient's steps and
//! its edges' mixes, and only a translucent one (or too many paints) is written as truecolour.

use super::art::path::{Path, Transform};
use super::art::{Art, Paint, shapes};
use super::png::{chunk, signature};
use super::raster::{lines, rasterize, rasterize_window};
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

    /// Places `tile` (indices, rows of `width`) at (`x`, `y`), row by row.
    ///
    /// Every tile lands on pixels nothing else draws (module cells, the finders' squares and
    /// the frame's windows around the code area do not overlap), so its rows are copied whole;
    /// testing each pixel for coverage cost 4 instructions a pixel, 170 k for a 300 px code.
    fn place(&mut self, tile: &[u8], width: usize, (x, y): (usize, usize)) {
        for (row, line) in tile.chunks_exact(width).enumerate() {
            let start = (y + row) * self.size + x;
            if let Some(target) = self.pixels.get_mut(start..start + width) {
                target.copy_from_slice(line);
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

/// `coverage` (0 to 255 a pixel) as the indices of `lut`.
fn indices(mut coverage: Vec<u8>, lut: &[u8; 256]) -> Vec<u8> {
    for pixel in &mut coverage {
        *pixel = lut[usize::from(*pixel)];
    }
    coverage
}

/// Rasterises `art` into palette indices.
fn index(art: &Art<'_>) -> Indexed {
    let symbol = &art.symbol;
    let mut paints = vec![symbol.module_paint];
    if symbol.finder_paint != symbol.module_paint {
        paints.push(symbol.finder_paint);
    }
    // A frame in the code's colour (the default) shares its entries: one paint keeps 4-bit
    // pixels, half the bytes to deflate (a framed 300 px PNG 45 kB of rows instead of 90 kB).
    let frame_paint = art.frame.as_ref().map(|frame| {
        paints
            .iter()
            .position(|&p| p == frame.paint)
            .unwrap_or_else(|| {
                paints.push(frame.paint);
                paints.len() - 1
            })
    });
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
    let square = vec![module_lut[255]; s * s];
    for y in 0..symbol.n {
        for x in 0..symbol.n {
            if symbol.is_square(x, y) {
                image.place(&square, s, (ox + x * s, oy + y * s));
                continue;
            }
            if !symbol.is_dark(x as i64, y as i64) {
                continue;
            }
            let neighbours = symbol.neighbours(x, y);
            let tile = tiles[neighbours.index()].get_or_insert_with(|| {
                let mut path = Path::default();
                shapes::module_shape(&mut path, symbol.style, neighbours, 0.0, 0.0);
                indices(rasterize(&path, &tile_transform, s, s, false), &module_lut)
            });
            image.place(tile, s, (ox + x * s, oy + y * s));
        }
    }
    let mut finder = Path::default();
    shapes::finder(&mut finder, symbol.finder_style, 0.0, 0.0);
    let finder_lut = image.lut(usize::from(symbol.finder_paint != symbol.module_paint));
    let finder_tile = indices(
        rasterize(&finder, &tile_transform, 7 * s, 7 * s, false),
        &finder_lut,
    );
    for (fx, fy) in symbol.finders() {
        image.place(&finder_tile, 7 * s, (ox + fx * s, oy + fy * s));
    }
    if let (Some(frame), Some(paint)) = (&art.frame, frame_paint) {
        // Only around the code area: the frame leaves it empty, and rasterising the whole
        // image cost a framed 300 px PNG 2 of its 5.6 million instructions.
        let lut = image.lut(paint);
        let (ax, ay, side) = art.code_area;
        let (ax, ay, side) = (ax as usize, ay as usize, side as usize);
        let below = ay + side;
        let windows = [
            (0, 0, size, ay),
            (0, below, size, size.saturating_sub(below)),
            (0, ay, ax, side),
            (ax + side, ay, size.saturating_sub(ax + side), side),
        ];
        let lines = lines(&frame.path, &frame.transform);
        for (x, y, width, height) in windows {
            if width == 0 || height == 0 {
                continue;
            }
            let origin = (x as f32, y as f32);
            let coverage = rasterize_window(&lines, origin, width, height, frame.even_odd);
            image.place(&indices(coverage, &lut), width, (x, y));
        }
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

/// Steps a gradient is resolved into: one per 8-bit channel value between its ends.
const GRADIENT_STEPS: usize = 256;

/// The pixels of an [`Indexed`] image made ready for one pass: each paint's colour at 256 steps
/// along its gradient with the map from a pixel to its step, and each index's paint and weight.
///
/// Computing every pixel's colour from the paint (a float mix and a rounding per channel) and
/// compositing it in floating point cost about 150 instructions a pixel, 15 million for a 300 px
/// gradient; with the tables it is a multiply-add, a lookup and, at edges only, an integer blend.
struct Shader {
    /// Per paint, the colour at each step.
    colors: Vec<[Color; GRADIENT_STEPS]>,
    /// Per paint, how a pixel's centre maps to a step.
    gauges: Vec<Gauge>,
    /// Per index: the paint and its coverage as a weight of 255 (index 0 is the background).
    entries: Vec<(usize, u32)>,
    background: Color,
    /// Whether every colour and the background are opaque (integer blending applies).
    opaque: bool,
}

/// How a pixel's centre (`x`, `y`) maps to `t`, 0 to 1 along a paint.
#[derive(Clone, Copy)]
enum Gauge {
    Solid,
    /// `t = ax x + ay y + c`.
    Linear {
        ax: f32,
        ay: f32,
        c: f32,
    },
    /// `t` is the distance to (`cx`, `cy`) times `inverse` (one over the radius).
    Radial {
        cx: f32,
        cy: f32,
        inverse: f32,
    },
}

impl Shader {
    fn new(image: &Indexed, background: Color) -> Shader {
        let mut colors = Vec::with_capacity(image.paints.len());
        let mut gauges = Vec::with_capacity(image.paints.len());
        for paint in &image.paints {
            let [from, to] = paint.colors();
            let mut steps = [from; GRADIENT_STEPS];
            for (i, step) in steps.iter_mut().enumerate() {
                *step = from.mix(to, i as f32 / (GRADIENT_STEPS - 1) as f32);
            }
            colors.push(steps);
            gauges.push(match *paint {
                Paint::Solid(_) => Gauge::Solid,
                Paint::Linear { start, end, .. } => {
                    let (dx, dy) = (end.x - start.x, end.y - start.y);
                    let length2 = (dx * dx + dy * dy).max(1e-6);
                    Gauge::Linear {
                        ax: dx / length2,
                        ay: dy / length2,
                        c: -(start.x * dx + start.y * dy) / length2,
                    }
                }
                Paint::Radial { center, radius, .. } => Gauge::Radial {
                    cx: center.x,
                    cy: center.y,
                    inverse: 1.0 / radius.max(1e-6),
                },
            });
        }
        let entries = (0..=255u8)
            .map(|index| match image.decode(index) {
                None => (0, 0),
                Some((paint, coverage)) => (paint, (coverage * 255.0).round() as u32),
            })
            .collect();
        let opaque = background.is_opaque()
            && image
                .paints
                .iter()
                .all(|p| p.colors().iter().all(|c| c.is_opaque()));
        Shader {
            colors,
            gauges,
            entries,
            background,
            opaque,
        }
    }

    /// Where the pixel centre (`x`, `y`) falls along `paint`, clamped to 0 to 1.
    fn position(&self, paint: usize, x: f32, y: f32) -> f32 {
        self.position_unclamped(paint, x, y).clamp(0.0, 1.0)
    }

    /// Where the pixel centre (`x`, `y`) falls along `paint`, before clamping.
    fn position_unclamped(&self, paint: usize, x: f32, y: f32) -> f32 {
        match self.gauges[paint] {
            Gauge::Solid => 0.0,
            Gauge::Linear { ax, ay, c } => ax * x + ay * y + c,
            Gauge::Radial { cx, cy, inverse } => {
                ((x - cx) * (x - cx) + (y - cy) * (y - cy)).sqrt() * inverse
            }
        }
    }

    /// The colour of the pixel with `index` whose centre is at (`x`, `y`).
    fn color(&self, index: u8, x: f32, y: f32) -> Color {
        if index == 0 {
            return self.background;
        }
        let (paint, weight) = self.entries[usize::from(index)];
        let t = self.position(paint, x, y);
        // The cast saturates (below 0 is step 0); the minimum keeps 1 and beyond at the end.
        let step = ((t * (GRADIENT_STEPS - 1) as f32 + 0.5) as usize).min(GRADIENT_STEPS - 1);
        let color = self.colors[paint][step];
        if weight == 255 && color.is_opaque() {
            return color;
        }
        if !self.opaque {
            return mix(color, weight as f32 / 255.0, self.background);
        }
        let b = self.background;
        let blend = |c: u8, b: u8| {
            ((u32::from(c) * weight + u32::from(b) * (255 - weight) + 127) / 255) as u8
        };
        Color {
            r: blend(color.r, b.r),
            g: blend(color.g, b.g),
            b: blend(color.b, b.b),
            a: 255,
        }
    }
}

/// Encodes `art` (without its logo) as a PNG file.
pub(crate) fn encode(art: &Art<'_>) -> Vec<u8> {
    let image = index(art);
    let solid = image.paints.iter().all(|p| matches!(p, Paint::Solid(_)));
    if solid {
        return palette_png(image, art.background);
    }
    let shader = Shader::new(&image, art.background);
    gradient_palette_png(&image, &shader).unwrap_or_else(|| truecolor_png(&image, &shader))
}

/// The styled image as premultiplied RGBA pixels, for compositing a logo over it.
#[cfg(feature = "logo")]
pub(crate) fn rgba(art: &Art<'_>) -> Vec<[u8; 4]> {
    let image = index(art);
    let shader = Shader::new(&image, art.background);
    let size = image.size;
    image
        .pixels
        .iter()
        .enumerate()
        .map(|(i, &index)| {
            let (x, y) = ((i % size) as f32 + 0.5, (i / size) as f32 + 0.5);
            let color = shader.color(index, x, y);
            let scale = |v: u8| ((u16::from(v) * u16::from(color.a) + 127) / 255) as u8;
            [scale(color.r), scale(color.g), scale(color.b), color.a]
        })
        .collect()
}

/// A palette PNG: 4-bit indices for one paint, 8-bit for more. The index image is dropped
/// once its rows are packed, before they are compressed: with it the peak heap is over glibc's
/// 128 KiB trim threshold, the heap's top is given back after every image and the next one
/// faults its pages in again (10 to 40 µs of a 300 px styled PNG).
fn palette_png(image: Indexed, background: Color) -> Vec<u8> {
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
    let mut previous: &[u8] = &[];
    for line in image.pixels.chunks_exact(size) {
        if depth == 8 {
            raw.push(0);
            raw.extend_from_slice(line);
        } else if line == previous {
            // Rows repeat (the quiet zone, the middle of a row of modules): copy the packed
            // row above instead of packing again.
            raw.extend_from_within(raw.len() - stride..);
        } else {
            raw.push(0);
            pack_nibbles(line, &mut raw);
        }
        previous = line;
    }
    drop(image);
    palette_file(size, depth, &palette, &raw, stride)
}

/// Appends `line` (values below 16) as 4-bit pixels, two a byte, the first in the high half.
///
/// Eight pixels at a time in a 64-bit word (pairs become one byte in each 16-bit lane, then the
/// lanes are packed together): about 2 instructions a pixel where a byte at a time took 6,
/// 280 k of a framed 300 px PNG.
fn pack_nibbles(line: &[u8], raw: &mut Vec<u8>) {
    let words = line.chunks_exact(8);
    let rest = words.remainder();
    for word in words {
        let w = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
        // In each 16-bit lane (first pixel low, second high): first << 4 | second.
        let x = ((w << 4) & 0x00F0_00F0_00F0_00F0) | ((w >> 8) & 0x000F_000F_000F_000F);
        let x = (x | (x >> 8)) & 0x0000_FFFF_0000_FFFF;
        let x = (x | (x >> 16)) & 0xFFFF_FFFF;
        raw.extend_from_slice(&x.to_le_bytes()[..4]);
    }
    let pairs = rest.chunks_exact(2);
    let odd = pairs.remainder().first().map(|&last| last << 4);
    raw.extend(pairs.map(|pair| pair[0] << 4 | pair[1]));
    raw.extend(odd);
}

/// The PNG file of palette `palette` and filtered rows `raw` of `stride` bytes at `depth` bits.
fn palette_file(size: usize, depth: u8, palette: &[Color], raw: &[u8], stride: usize) -> Vec<u8> {
    let mut plte = Vec::with_capacity(palette.len() * 3);
    let mut trns = Vec::with_capacity(palette.len());
    for color in palette {
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
    chunk(&mut png, b"IDAT", &zlib_compress_fast(raw, stride));
    chunk(&mut png, b"IEND", &[]);
    png
}

/// Coverage levels and gradient steps of the anti-aliased edges of a palette gradient.
const EDGE_LEVELS: usize = 8;
const EDGE_STEPS: usize = 8;
/// Coverage levels of a solid paint beside a palette gradient.
const SOLID_LEVELS: usize = 15;

/// An 8-bit palette PNG of an opaque image with gradients, or `None` when its paints do not
/// fit 256 entries: the background; 15 coverage levels per solid paint; per gradient, 8 x 8
/// entries for its edges and every remaining entry (161 or more) for its fully covered pixels.
///
/// A truecolour image is three times the bytes to filter and compress, which with the colour
/// of every pixel cost a 300 px gradient about 10 million instructions (5 million and 37 %
/// fewer bytes this way). With 161 full-coverage steps each is at most 1/160 of the way between
/// the two colours (1.6 of a channel's 255), too little to show as bands; an edge pixel's
/// colour is within 1/14 of the way of its own (8 steps, rounded).
fn gradient_palette_png(image: &Indexed, shader: &Shader) -> Option<Vec<u8>> {
    if !shader.opaque {
        return None;
    }
    let gradients = image
        .paints
        .iter()
        .filter(|p| !matches!(p, Paint::Solid(_)))
        .count();
    let solids = image.paints.len() - gradients;
    let used = 1 + solids * SOLID_LEVELS + gradients * EDGE_LEVELS * EDGE_STEPS;
    let full = 256usize.checked_sub(used)?.checked_div(gradients)?;
    if full < 2 {
        return None;
    }
    let background = shader.background;
    let mut palette = vec![background];
    // Per paint: its first palette entry.
    let mut bases = Vec::with_capacity(image.paints.len());
    for (p, paint) in image.paints.iter().enumerate() {
        bases.push(palette.len());
        let at = |t: f32| shader.colors[p][(t * (GRADIENT_STEPS - 1) as f32).round() as usize];
        if matches!(paint, Paint::Solid(_)) {
            for level in 1..=SOLID_LEVELS {
                palette.push(mix(at(0.0), level as f32 / SOLID_LEVELS as f32, background));
            }
            continue;
        }
        for step in 0..full {
            palette.push(at(step as f32 / (full - 1) as f32));
        }
        for level in 1..=EDGE_LEVELS {
            for step in 0..EDGE_STEPS {
                let color = at(step as f32 / (EDGE_STEPS - 1) as f32);
                palette.push(mix(color, level as f32 / EDGE_LEVELS as f32, background));
            }
        }
    }
    // Row tables, `size` bytes each: table 0 is zeros (solid paints, the background), then per
    // gradient paint the step of a fully covered pixel and of an edge pixel at each column.
    let size = image.size;
    let mut tables = vec![0u8; size * (1 + 2 * image.paints.len())];
    // Per image index: its first palette entry and the row table that adds the gradient step,
    // so a pixel costs two lookups and an add. Working the level, the paint and the position
    // out for each pixel cost a 300 px gradient 1.2 million instructions.
    let mut entries = [(0u8, 0usize); 256];
    for (index, entry) in entries.iter_mut().enumerate().skip(1) {
        let (paint, weight) = shader.entries[index];
        let Some(&base) = bases.get(paint) else {
            continue;
        };
        let level = |levels: usize| (weight as usize * levels).div_ceil(255).max(1);
        *entry = if matches!(shader.gauges[paint], Gauge::Solid) {
            ((base + level(SOLID_LEVELS) - 1) as u8, 0)
        } else if weight == 255 {
            (base as u8, (1 + 2 * paint) * size)
        } else {
            (
                (base + full + (level(EDGE_LEVELS) - 1) * EDGE_STEPS) as u8,
                (2 + 2 * paint) * size,
            )
        };
    }
    // Linear gradients along x alone (the default angle, 0) give the same tables on every row,
    // and then a row of the same indices as the row above is the same row of the file.
    let across = shader.gauges.iter().all(|gauge| match *gauge {
        Gauge::Solid => true,
        Gauge::Linear { ay, .. } => ay == 0.0,
        Gauge::Radial { .. } => false,
    });
    let stride = size + 1;
    let mut raw = vec![0u8; stride * size];
    let mut previous: Option<&[u8]> = None;
    for (y, line) in image.pixels.chunks_exact(size).enumerate() {
        let start = y * stride + 1;
        if across && previous == Some(line) {
            raw.copy_within(start - stride..start - 1, start);
            continue;
        }
        if !across || previous.is_none() {
            fill_tables(shader, y as f32 + 0.5, (full, size), &mut tables);
        }
        previous = Some(line);
        let out = &mut raw[start..start + size];
        // Eight pixels at a time: the background, most of the image, is left at 0.
        for ((indices, pixels), x) in line
            .chunks(8)
            .zip(out.chunks_mut(8))
            .zip((0..size).step_by(8))
        {
            if indices.iter().all(|&index| index == 0) {
                continue;
            }
            for ((&index, pixel), x) in indices.iter().zip(pixels).zip(x..) {
                let (offset, table) = entries[usize::from(index)];
                *pixel = offset + tables.get(table + x).copied().unwrap_or(0);
            }
        }
    }
    Some(palette_file(size, 8, &palette, &raw, stride))
}

/// Fills the row tables of [`gradient_palette_png`] for the row whose pixel centres are at `cy`:
/// per gradient paint, the step (of `full`) of a fully covered pixel and the step (of
/// [`EDGE_STEPS`]) of an edge pixel at each of the `size` columns.
fn fill_tables(shader: &Shader, cy: f32, (full, size): (usize, usize), tables: &mut [u8]) {
    for (paint, gauge) in shader.gauges.iter().enumerate() {
        if matches!(gauge, Gauge::Solid) {
            continue;
        }
        let at = (1 + 2 * paint) * size;
        let Some((full_steps, edge_steps)) = tables
            .get_mut(at..at + 2 * size)
            .map(|both| both.split_at_mut(size))
        else {
            continue;
        };
        // A linear gradient's position along a row is its start plus a step per pixel.
        let start = shader.position_unclamped(paint, 0.5, cy);
        for (x, (full_step, edge_step)) in full_steps.iter_mut().zip(edge_steps).enumerate() {
            let t = match *gauge {
                Gauge::Linear { ax, .. } => (start + ax * x as f32).clamp(0.0, 1.0),
                _ => shader.position(paint, x as f32 + 0.5, cy),
            };
            *full_step = (t * (full - 1) as f32 + 0.5) as u8;
            *edge_step = (t * (EDGE_STEPS - 1) as f32 + 0.5) as u8;
        }
    }
}

/// A truecolour PNG (RGB, or RGBA when a colour has alpha) for gradients.
fn truecolor_png(image: &Indexed, shader: &Shader) -> Vec<u8> {
    let channels = if shader.opaque { 3 } else { 4 };
    let size = image.size;
    let stride = size * channels + 1;
    let mut raw = Vec::with_capacity(stride * size);
    for (y, line) in image.pixels.chunks_exact(size).enumerate() {
        raw.push(0);
        let cy = y as f32 + 0.5;
        for (x, &index) in line.iter().enumerate() {
            let color = shader.color(index, x as f32 + 0.5, cy);
            if shader.opaque {
                raw.extend_from_slice(&[color.r, color.g, color.b]);
            } else {
                raw.extend_from_slice(&[color.r, color.g, color.b, color.a]);
            }
        }
    }
    let mut png = signature(size as u32, 8, if shader.opaque { 2 } else { 6 });
    chunk(&mut png, b"IDAT", &zlib_compress_fast(&raw, stride));
    chunk(&mut png, b"IEND", &[]);
    png
}
