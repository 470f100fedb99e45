//! An anti-aliasing rasteriser: the exact area each pixel takes of a path's interior, accumulated from signed edge contributions.
//!
//! Every line adds to each pixel cell it crosses the signed area between it and the cell's right
//! edge; a running sum along each row then gives the winding coverage of every pixel. It handles
//! lines only: curves are flattened to within a tenth of a pixel first.

use super::art::path::{Path, Point, Transform};

/// Flattening tolerance in pixels: curves stray at most this far from their chords.
const TOLERANCE: f32 = 0.1;

/// Signed coverage being accumulated for a `width` x `height` pixel area.
pub(crate) struct Coverage {
    width: usize,
    height: usize,
    cells: Vec<f32>,
    /// One bit per cell that a line added to: between two such cells the winding, and so the
    /// coverage, does not change.
    touched: Vec<u64>,
}

impl Coverage {
    pub(crate) fn new(width: usize, height: usize) -> Coverage {
        // One spare cell: a line's contribution past the last pixel of the last row.
        let cells = width * height + 1;
        Coverage {
            width,
            height,
            cells: vec![0.0; cells],
            touched: vec![0; cells.div_ceil(64)],
        }
    }

    /// Adds the interior of `path` placed by `transform` (in pixels of this area).
    pub(crate) fn fill(&mut self, path: &Path, transform: &Transform) {
        path.flatten(transform, TOLERANCE, |a, b| self.line(a, b));
    }

    /// Adds the signed area contributions of the line from `a` to `b`.
    fn line(&mut self, a: Point, b: Point) {
        let (w, h) = (self.width as f32, self.height as f32);
        // Points are kept inside the area, so every contribution lands in its own row.
        let clamp = |p: Point| Point::new(p.x.clamp(0.0, w), p.y.clamp(0.0, h));
        let (a, b) = (clamp(a), clamp(b));
        if (a.y - b.y).abs() <= f32::EPSILON {
            return;
        }
        let (direction, top, bottom) = if a.y < b.y { (1.0, a, b) } else { (-1.0, b, a) };
        let slope = (bottom.x - top.x) / (bottom.y - top.y);
        let mut x = top.x;
        let first_row = top.y as usize;
        let last_row = ceil(bottom.y).min(self.height);
        for row in first_row..last_row {
            let row_start = row * self.width;
            let dy = ((row + 1) as f32).min(bottom.y) - (row as f32).max(top.y);
            let x_next = x + slope * dy;
            let d = dy * direction;
            let (x0, x1) = if x < x_next { (x, x_next) } else { (x_next, x) };
            // Coordinates are clamped to 0 or more, so truncation is the floor.
            let x0i = x0 as usize;
            let x0_floor = x0i as f32;
            let x1i = ceil(x1);
            let x1_ceil = x1i as f32;
            if x1i <= x0i + 1 {
                let mid = 0.5 * (x + x_next) - x0_floor;
                self.add(row_start + x0i, d - d * mid);
                self.add(row_start + x0i + 1, d * mid);
            } else {
                let inverse = (x1 - x0).recip();
                let x0f = x0 - x0_floor;
                let a0 = 0.5 * inverse * (1.0 - x0f) * (1.0 - x0f);
                let x1f = x1 - x1_ceil + 1.0;
                let am = 0.5 * inverse * x1f * x1f;
                self.add(row_start + x0i, d * a0);
                if x1i == x0i + 2 {
                    self.add(row_start + x0i + 1, d * (1.0 - a0 - am));
                } else {
                    let a1 = inverse * (1.5 - x0f);
                    self.add(row_start + x0i + 1, d * (a1 - a0));
                    for xi in x0i + 2..x1i - 1 {
                        self.add(row_start + xi, d * inverse);
                    }
                    let a2 = a1 + (x1i - x0i - 3) as f32 * inverse;
                    self.add(row_start + x1i - 1, d * (1.0 - a2 - am));
                }
                self.add(row_start + x1i, d * am);
            }
            x = x_next;
        }
    }

    fn add(&mut self, index: usize, value: f32) {
        if let Some(cell) = self.cells.get_mut(index) {
            *cell += value;
            self.touched[index / 64] |= 1 << (index % 64);
        }
    }

    /// The coverage of every pixel, 0 to 255, row by row: nonzero winding, or even-odd.
    ///
    /// The winding at a pixel is the sum of every cell before it (a line at the right edge
    /// spills into the next row's first cell). Only the cells lines touched change it: the sum
    /// runs over those, and the pixels between two of them take the coverage of the first. A
    /// frame's windows are 38,000 pixels of which its border and text touch about a sixth, and
    /// summing all of them was one chain of dependent additions, a third of a framed PNG's time.
    pub(crate) fn finish(&mut self, even_odd: bool) -> Vec<u8> {
        let pixels = self.width * self.height;
        let coverage = |winding: f32| {
            if even_odd {
                // Windings are whole numbers plus a fraction at edges; the even-odd coverage
                // is the distance to the nearest even number, 0 to 1.
                let w = winding.abs();
                to_byte((w - 2.0 * round(w * 0.5)).abs().min(1.0))
            } else {
                to_byte(winding.abs().min(1.0))
            }
        };
        let mut out = vec![coverage(0.0); pixels];
        let (mut sum, mut from, mut byte) = (0.0f32, 0, coverage(0.0));
        for (w, &word) in self.touched.iter().enumerate() {
            let mut bits = word;
            while bits != 0 {
                let i = w * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                if i >= pixels {
                    break;
                }
                out[from..i].fill(byte);
                sum += self.cells[i];
                byte = coverage(sum);
                out[i] = byte;
                from = i + 1;
            }
        }
        out[from.min(pixels)..].fill(byte);
        out
    }
}

/// Adding 1.5 x 2^23 leaves no bits below the unit in an `f32`: the sum's low mantissa bits
/// are the value rounded to the nearest whole number (|v| < 2^22).
const ROUNDING: f32 = 12_582_912.0;

/// `v` rounded to a whole number, ties to even, with two additions: `f32::round` is a library
/// call on the baseline x86-64 (no SSE4.1) and a saturating cast to an integer costs a dozen
/// instructions; these vectorise.
#[inline]
fn round(v: f32) -> f32 {
    (v + ROUNDING) - ROUNDING
}

/// Coverage `c` (0 to 1) as 0 to 255, rounded, from the mantissa bits of `c x 255 + 2^23`
/// (the same add-and-read trick; 10 instructions a pixel fewer than `as u8`).
#[inline]
fn to_byte(c: f32) -> u8 {
    (c * 255.0 + 8_388_608.0).to_bits() as u8
}

/// The ceiling of `v` (0 or more) by conversions: `f32::ceil` and `floor` are library calls on
/// the baseline x86-64 (no SSE4.1), 60 k instructions of a framed 300 px PNG.
fn ceil(v: f32) -> usize {
    let whole = v as usize;
    if (whole as f32) < v { whole + 1 } else { whole }
}

/// The lines of `path` placed by `transform`, curves flattened: to rasterise one path in
/// several windows without flattening it again for each.
pub(crate) fn lines(path: &Path, transform: &Transform) -> Vec<(Point, Point)> {
    let mut lines = Vec::with_capacity(path.segments.len() * 2);
    path.flatten(transform, TOLERANCE, |a, b| lines.push((a, b)));
    lines
}

/// The coverage of `lines` moved by (-`x`, -`y`) in a `width` x `height` area: the window of
/// the image at (`x`, `y`).
pub(crate) fn rasterize_window(
    lines: &[(Point, Point)],
    (x, y): (f32, f32),
    width: usize,
    height: usize,
    even_odd: bool,
) -> Vec<u8> {
    let mut coverage = Coverage::new(width, height);
    let shift = |p: Point| Point::new(p.x - x, p.y - y);
    for &(a, b) in lines {
        coverage.line(shift(a), shift(b));
    }
    coverage.finish(even_odd)
}

/// The coverage of `path` placed by `transform` in a `width` x `height` area.
pub(crate) fn rasterize(
    path: &Path,
    transform: &Transform,
    width: usize,
    height: usize,
    even_odd: bool,
) -> Vec<u8> {
    let mut coverage = Coverage::new(width, height);
    coverage.fill(path, transform);
    coverage.finish(even_odd)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_on_pixel_edges_are_solid_and_half_pixels_are_half() {
        let mut path = Path::default();
        path.rect(1.0, 1.0, 2.0, 2.0);
        path.rect(3.5, 0.0, 1.0, 1.0);
        let pixels = rasterize(&path, &Transform::IDENTITY, 5, 4, false);
        let expected = [
            0, 0, 0, 128, 128, //
            0, 255, 255, 0, 0, //
            0, 255, 255, 0, 0, //
            0, 0, 0, 0, 0,
        ];
        assert_eq!(pixels, expected);
    }

    #[test]
    fn holes_and_even_odd_cut_out() {
        let mut ring = Path::default();
        ring.rect(0.0, 0.0, 4.0, 4.0);
        ring.rounded_rect(1.0, 1.0, 2.0, 2.0, [0.0; 4], true);
        let pixels = rasterize(&ring, &Transform::IDENTITY, 4, 4, false);
        assert_eq!(&pixels[4..8], &[255, 0, 0, 255]);
        let mut nested = Path::default();
        nested.rect(0.0, 0.0, 4.0, 4.0);
        nested.rect(1.0, 1.0, 2.0, 2.0);
        assert_eq!(
            &rasterize(&nested, &Transform::IDENTITY, 4, 4, true)[4..8],
            &[255, 0, 0, 255]
        );
        assert_eq!(
            &rasterize(&nested, &Transform::IDENTITY, 4, 4, false)[4..8],
            &[255; 4]
        );
        // Three nested squares: windings 1, 2 and 3 are covered, uncovered, covered; a half
        // pixel at winding 2.5 is half covered.
        let mut three = nested.clone();
        three.rect(1.5, 1.0, 1.0, 2.0);
        assert_eq!(
            &rasterize(&three, &Transform::IDENTITY, 4, 4, true)[4..8],
            &[255, 128, 128, 255]
        );
    }

    #[test]
    fn shapes_outside_the_area_do_not_panic() {
        let mut path = Path::default();
        path.circle(-5.0, 3.0, 20.0, false);
        let pixels = rasterize(&path, &Transform::new(3.0, -2.0, 100.0, -50.0), 3, 3, false);
        assert_eq!(pixels.len(), 9);
    }
}
