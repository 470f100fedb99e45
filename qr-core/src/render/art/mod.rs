//! The styled image as geometry, shared by every writer: the symbol's modules and finders in their shapes and paints, a frame, and the logo's place.
//!
//! The vector writers (SVG, PDF, EPS) turn it into paths; the PNG writer rasterises the same
//! shapes, one tile per distinct module shape, so every format draws the same image.

pub(crate) mod contour;
pub(crate) mod number;
pub(crate) mod outline;
pub(crate) mod path;
pub(crate) mod shapes;

use outline::{Capsule, Dots, Outline, UNIT};
use path::{Path, Point, Transform};
use shapes::{Corner, Family, Neighbours};

use super::layout::Layout;
use crate::grid::WORDS;
use crate::options::{Color, FinderStyle, Gradient, GradientKind, ModuleStyle};

/// How an area is filled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Paint {
    Solid(Color),
    /// From `from` at `start` to `to` at `end` (image pixels), constant beyond both ends.
    Linear {
        start: Point,
        end: Point,
        from: Color,
        to: Color,
    },
    /// From `from` at `center` to `to` at `radius` pixels and beyond.
    Radial {
        center: Point,
        radius: f32,
        from: Color,
        to: Color,
    },
}

impl Paint {
    /// The colours the paint takes (both ends of a gradient).
    #[cfg(any(feature = "png", feature = "pdf"))]
    pub(crate) fn colors(&self) -> [Color; 2] {
        match *self {
            Paint::Solid(color) => [color; 2],
            Paint::Linear { from, to, .. } | Paint::Radial { from, to, .. } => [from, to],
        }
    }

    /// The gradient of `color` to `gradient.to` over the square of `side` pixels at (`x`, `y`).
    pub(crate) fn gradient(color: Color, gradient: &Gradient, x: f32, y: f32, side: f32) -> Paint {
        let half = side / 2.0;
        let center = Point::new(x + half, y + half);
        match gradient.kind {
            GradientKind::Radial => Paint::Radial {
                center,
                radius: half * std::f32::consts::SQRT_2,
                from: color,
                to: gradient.to,
            },
            _ => {
                let angle = f32::from(gradient.angle.degrees()).to_radians();
                let (sin, cos) = angle.sin_cos();
                // Far enough along the direction that the square's corners are at 0 and 1.
                let extent = half * (cos.abs() + sin.abs());
                Paint::Linear {
                    start: Point::new(center.x - cos * extent, center.y - sin * extent),
                    end: Point::new(center.x + cos * extent, center.y + sin * extent),
                    from: color,
                    to: gradient.to,
                }
            }
        }
    }
}

/// One filled path of the image.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Layer {
    pub(crate) paint: Paint,
    /// Places the path's coordinates in image pixels.
    pub(crate) transform: Transform,
    pub(crate) path: Path,
    /// Horizontal runs of square modules filled with the path (the print writers' short form of
    /// square modules; empty for the other writers and styles).
    pub(crate) runs: Vec<Run>,
    /// Figures in whole thousandths filled with the path: the styled modules' outline, the
    /// connected style's capsules, the alignment patterns' squares.
    pub(crate) outline: Outline,
    /// Discs of half a module filled with the path: the dots style's modules and the connected
    /// style's lone ones.
    pub(crate) dots: Dots,
    /// The connected style's runs, filled with the path.
    pub(crate) capsules: Vec<Capsule>,
    /// Filled with the even-odd rule (text knocked out of a banner) instead of nonzero.
    pub(crate) even_odd: bool,
    /// The path's coordinates are written as whole numbers: a frame with a text is in the
    /// font's units, 2,048 to the em, where half a unit is 0.008 pixels of a 300 px image
    /// and 1.3 µm of a 50 mm print (the cubics PDF and EPS make of the glyphs' quadratic
    /// curves would otherwise carry three decimals each).
    pub(crate) whole_units: bool,
    /// A line of text whose glyphs end the path, from this segment on: a writer may draw its
    /// glyphs from their own cached form instead of the path's copy.
    #[cfg(feature = "frame")]
    pub(crate) text: Option<(usize, super::font::TextLine)>,
}

impl Layer {
    /// A layer of `path` alone, filled with the nonzero rule.
    pub(crate) fn new(paint: Paint, transform: Transform, path: Path) -> Layer {
        Layer {
            paint,
            transform,
            path,
            runs: Vec::new(),
            outline: Outline::default(),
            dots: Dots::default(),
            capsules: Vec::new(),
            even_odd: false,
            whole_units: false,
            #[cfg(feature = "frame")]
            text: None,
        }
    }

    /// Whether the layer draws nothing.
    pub(crate) fn is_empty(&self) -> bool {
        self.path.is_empty()
            && self.runs.is_empty()
            && self.outline.is_empty()
            && self.dots.modules.is_empty()
            && self.capsules.is_empty()
    }
}

/// A horizontal run of `length` square modules from module (`x`, `y`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Run {
    pub(crate) x: u32,
    pub(crate) y: u32,
    pub(crate) length: u32,
}

/// The symbol as drawn: its modules (finders and the logo's area left out) in a style, and its
/// three finder patterns, placed at whole pixels.
pub(crate) struct Symbol {
    /// Modules per side.
    pub(crate) n: usize,
    /// The modules drawn in the module style, row by row.
    rows: Vec<[u64; WORDS]>,
    /// The dark modules of the alignment patterns, drawn as squares whatever the style.
    ///
    /// Readers of the quirc family (rqrr) take the first dark area of half a module to two
    /// modules found spiralling out from where they expect an alignment pattern as its centre,
    /// and map the far corner of the grid from it. Styled alignment patterns, whose shapes touch
    /// their neighbours differently, made classy-rounded codes of versions 2 and up fail 4 times
    /// in 300 at 7 pixels per module; square ones, once.
    squares: Vec<[u64; WORDS]>,
    pub(crate) style: ModuleStyle,
    pub(crate) finder_style: FinderStyle,
    /// Pixels per module side.
    pub(crate) module_pixels: u32,
    /// The image position of the symbol's top-left module, in pixels.
    pub(crate) origin: (u32, u32),
    pub(crate) module_paint: Paint,
    pub(crate) finder_paint: Paint,
}

impl Symbol {
    /// The symbol of `rows` (the modules as drawn, a logo's area already cleared) laid out by
    /// `layout` at `origin`.
    pub(crate) fn new(
        rows: Vec<[u64; WORDS]>,
        layout: &Layout,
        origin: (u32, u32),
        (style, finder_style): (ModuleStyle, FinderStyle),
        (module_paint, finder_paint): (Paint, Paint),
    ) -> Symbol {
        let n = layout.modules as usize;
        let mut rows = rows;
        // The finder patterns are drawn as shapes of their own.
        for (fx, fy) in finder_origins(n) {
            for row in rows.iter_mut().skip(fy).take(7) {
                for x in fx..fx + 7 {
                    row[x / 64] &= !(1u64 << (x % 64));
                }
            }
        }
        let mut squares = vec![[0u64; WORDS]; n];
        for (ax, ay) in alignment_origins(n) {
            for (row, square_row) in rows.iter_mut().zip(squares.iter_mut()).skip(ay).take(5) {
                for x in ax..ax + 5 {
                    let bit = 1u64 << (x % 64);
                    square_row[x / 64] |= row[x / 64] & bit;
                    row[x / 64] &= !bit;
                }
            }
        }
        Symbol {
            n,
            rows,
            squares,
            style,
            finder_style,
            module_pixels: layout.module_pixels,
            origin,
            module_paint,
            finder_paint,
        }
    }

    /// Whether the module at (`x`, `y`) is drawn in the module style; outside is light.
    #[cfg(all(feature = "style", feature = "png"))]
    pub(crate) fn is_dark(&self, x: i64, y: i64) -> bool {
        x >= 0
            && y >= 0
            && (x as usize) < self.n
            && (y as usize) < self.n
            && self.rows[y as usize][x as usize / 64] >> (x % 64) & 1 == 1
    }

    /// Whether the module at (`x`, `y`) is a dark module of an alignment pattern (drawn square).
    #[cfg(all(feature = "style", feature = "png"))]
    pub(crate) fn is_square(&self, x: usize, y: usize) -> bool {
        self.squares[y][x / 64] >> (x % 64) & 1 == 1
    }

    pub(crate) fn neighbours(&self, x: usize, y: usize) -> Neighbours {
        // Straight from the rows' bits (four `is_dark` calls with their signed bounds checks
        // cost 110 instructions a module, 37 thousand for a rounded SVG's corners).
        let bit = |row: Option<&[u64; WORDS]>, x: usize| {
            x < self.n && row.is_some_and(|row| row[x / 64] >> (x % 64) & 1 == 1)
        };
        let here = self.rows.get(y);
        Neighbours {
            up: y.checked_sub(1).is_some_and(|up| bit(self.rows.get(up), x)),
            right: bit(here, x + 1),
            down: bit(self.rows.get(y + 1), x),
            left: x.checked_sub(1).is_some_and(|left| bit(here, left)),
        }
    }

    /// Module units to image pixels.
    pub(crate) fn transform(&self) -> Transform {
        let s = self.module_pixels as f32;
        Transform::new(s, s, self.origin.0 as f32, self.origin.1 as f32)
    }

    /// The top-left modules of the three finder patterns.
    pub(crate) fn finders(&self) -> [(usize, usize); 3] {
        finder_origins(self.n)
    }

    /// The modules as the vector writers fill them, in module units: figures and discs.
    pub(crate) fn module_figures(&self) -> (Outline, Dots, Vec<Capsule>) {
        // At most four turns and one disc per dark module: sized once, never grown.
        let dark: usize = self
            .rows
            .iter()
            .flatten()
            .map(|w| w.count_ones() as usize)
            .sum();
        let mut outline = Outline {
            turns: Vec::with_capacity(4 * dark + 64),
            ends: Vec::with_capacity(dark + 16),
        };
        let mut dots = Dots::default();
        let mut capsules = Vec::new();
        if shapes::family(self.style) != Family::Outlined {
            dots.modules.reserve(dark);
        }
        match shapes::family(self.style) {
            Family::Outlined => {
                // Every corner's radius by its module's neighbours (4 bits) and the corner, in
                // thousandths, worked out once: 64 entries, against a match and a count of
                // free corners at each of about a thousand turns.
                let radii: [i32; 64] = std::array::from_fn(|i| {
                    let neighbours = Neighbours::from_index(i >> 2);
                    let radius = shapes::corner_radius(self.style, neighbours, Corner::ALL[i & 3]);
                    (radius * UNIT as f32) as i32
                });
                contour::trace_rows(&mut outline, &self.rows, |x, y, corner| {
                    radii[self.neighbours(x, y).index() << 2 | corner as usize]
                });
            }
            Family::Dots => {
                for (y, row) in self.rows.iter().enumerate() {
                    for (w, &word) in row.iter().enumerate() {
                        let mut bits = word;
                        while bits != 0 {
                            let x = w * 64 + bits.trailing_zeros() as usize;
                            bits &= bits - 1;
                            dots.modules.push((x as u32, y as u32));
                        }
                    }
                }
            }
            Family::Connected => {
                shapes::connected_runs(&mut capsules, &mut dots, &self.rows);
            }
        }
        contour::trace_rows(&mut outline, &self.squares, |_, _, _| 0);
        (outline, dots, capsules)
    }

    /// The three finder patterns in module units.
    pub(crate) fn finder_path(&self) -> Path {
        let mut path = Path::default();
        for (x, y) in self.finders() {
            shapes::finder(&mut path, self.finder_style, x as f32, y as f32);
        }
        path
    }

    /// The symbol as vector layers: the modules, and the finders (one layer when they share a paint).
    ///
    /// With `runs`, square modules (and square finders) come as [`Run`]s instead of an outline:
    /// PDF and EPS write a run in a few bytes, where the outline of the same modules takes a
    /// coordinate pair per corner and a trace over the whole grid.
    pub(crate) fn layers(&self, runs: bool) -> Vec<Layer> {
        let as_runs = runs && self.style == ModuleStyle::Square;
        let shared = self.finder_paint == self.module_paint;
        let finders_as_runs = as_runs && shared && self.finder_style == FinderStyle::Square;
        let mut modules = Layer::new(self.module_paint, self.transform(), Path::default());
        if as_runs {
            modules.runs = self.runs(finders_as_runs);
        } else {
            (modules.outline, modules.dots, modules.capsules) = self.module_figures();
        }
        let finders = if finders_as_runs {
            Path::default()
        } else {
            self.finder_path()
        };
        if shared {
            modules.path = finders;
            return vec![modules];
        }
        let mut layers = Vec::with_capacity(2);
        if !modules.is_empty() {
            layers.push(modules);
        }
        layers.push(Layer::new(self.finder_paint, self.transform(), finders));
        layers
    }

    /// The dark modules as horizontal runs, row by row: the styled modules, the alignment
    /// patterns and, with `finders`, the finder patterns as ISO/IEC 18004 draws them.
    fn runs(&self, finders: bool) -> Vec<Run> {
        let mut runs = Vec::with_capacity(self.n * 8);
        for y in 0..self.n {
            let mut words = [0u64; WORDS];
            for (word, (row, squares)) in words
                .iter_mut()
                .zip(self.rows[y].iter().zip(&self.squares[y]))
            {
                *word = row | squares;
            }
            if finders {
                for (fx, fy) in self.finders() {
                    if !(fy..fy + 7).contains(&y) {
                        continue;
                    }
                    // The finder's rows, bit dx for module fx + dx: the outer ring's edge, its
                    // sides around the light ring, and the centre's rows.
                    let pattern: u8 = match (y - fy).abs_diff(3) {
                        3 => 0b111_1111,
                        2 => 0b100_0001,
                        _ => 0b101_1101,
                    };
                    for dx in (0..7).filter(|dx| pattern >> dx & 1 == 1) {
                        let x = fx + dx;
                        words[x / 64] |= 1 << (x % 64);
                    }
                }
            }
            let dark = |x: usize| words[x / 64] >> (x % 64) & 1 == 1;
            let mut x = 0;
            while x < self.n {
                if !dark(x) {
                    x += 1;
                    continue;
                }
                let start = x;
                while x < self.n && dark(x) {
                    x += 1;
                }
                runs.push(Run {
                    x: start as u32,
                    y: y as u32,
                    length: (x - start) as u32,
                });
            }
        }
        runs
    }
}

/// The top-left modules of the finder patterns of a symbol of `n` modules.
fn finder_origins(n: usize) -> [(usize, usize); 3] {
    [(0, 0), (n - 7, 0), (0, n - 7)]
}

/// The top-left modules of the alignment patterns of a symbol of `n` modules (none on version 1).
fn alignment_origins(n: usize) -> Vec<(usize, usize)> {
    let Some(version) = u8::try_from((n.saturating_sub(17)) / 4)
        .ok()
        .and_then(crate::version::Version::new)
    else {
        return Vec::new();
    };
    let centres = version.alignment_positions();
    let last = centres.len().saturating_sub(1);
    let mut origins = Vec::with_capacity(centres.len() * centres.len());
    for (i, &x) in centres.iter().enumerate() {
        for (j, &y) in centres.iter().enumerate() {
            // The three corners the finder patterns take have no alignment pattern.
            let on_finder = (i == 0 && (j == 0 || j == last)) || (i == last && j == 0);
            if !on_finder {
                origins.push((x - 2, y - 2));
            }
        }
    }
    origins
}

/// A styled image: the background, the symbol, a frame and a logo.
pub(crate) struct Art<'a> {
    /// The image's width and height in pixels.
    pub(crate) size: u32,
    pub(crate) background: Color,
    pub(crate) symbol: Symbol,
    /// The frame, with its text, in image pixels.
    pub(crate) frame: Option<Layer>,
    /// The square (x, y, side in pixels) of the code and its quiet zone, which the frame leaves
    /// empty (the whole image without a frame).
    #[cfg(all(feature = "style", feature = "png"))]
    pub(crate) code_area: (u32, u32, u32),
    #[cfg(feature = "logo")]
    pub(crate) logo: Option<(&'a super::logo::Logo, super::drawing::LogoPlacement)>,
    /// Without logos, nothing borrows from the options.
    #[cfg(not(feature = "logo"))]
    pub(crate) logo: std::marker::PhantomData<&'a ()>,
}

impl Art<'_> {
    /// Whether a logo is drawn over the art.
    #[cfg(feature = "svg")]
    pub(crate) fn has_logo(&self) -> bool {
        #[cfg(feature = "logo")]
        return self.logo.is_some();
        #[cfg(not(feature = "logo"))]
        false
    }

    /// Every vector layer, bottom to top (the background and the logo excepted); with `runs`,
    /// square modules as runs (see [`Symbol::layers`]).
    pub(crate) fn layers(&self, runs: bool) -> Vec<Layer> {
        let mut layers = self.symbol.layers(runs);
        layers.extend(self.frame.clone());
        layers
    }
}

/// The modules of `code` as drawn (a logo's area cleared), row by row.
pub(crate) fn drawn_rows(drawing: &super::drawing::Drawing<'_>) -> Vec<[u64; WORDS]> {
    (0..drawing.size()).map(|y| drawing.row(y)).collect()
}

/// The default paints of a symbol: the foreground or its gradient over the symbol, and the
/// finders' colour (the module paint unless one is given).
pub(crate) fn paints(
    color: Color,
    gradient: Option<&Gradient>,
    finder_color: Option<Color>,
    layout: &Layout,
    origin: (u32, u32),
) -> (Paint, Paint) {
    let side = (layout.modules * layout.module_pixels) as f32;
    let module = match gradient {
        Some(g) => Paint::gradient(color, g, origin.0 as f32, origin.1 as f32, side),
        None => Paint::Solid(color),
    };
    (module, finder_color.map_or(module, Paint::Solid))
}
