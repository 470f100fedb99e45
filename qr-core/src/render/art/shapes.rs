//! The shapes of the styles: each module's corner radii from its neighbours, the connected runs, the dots and the finder patterns, in module units.

use super::outline::{CAPSULE_RADIUS, Capsule, Dots, UNIT};
use super::path::Path;
use crate::grid::WORDS;
use crate::options::{FinderStyle, ModuleStyle};
use crate::runs::for_each_run;

/// Which of a module's four neighbours are dark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Neighbours {
    pub(crate) up: bool,
    pub(crate) right: bool,
    pub(crate) down: bool,
    pub(crate) left: bool,
}

impl Neighbours {
    /// The four neighbours as a number from 0 to 15 (a tile cache index).
    pub(crate) fn index(self) -> usize {
        usize::from(self.up)
            | usize::from(self.right) << 1
            | usize::from(self.down) << 2
            | usize::from(self.left) << 3
    }

    /// The neighbours of [`Neighbours::index`] `index`.
    pub(crate) fn from_index(index: usize) -> Neighbours {
        Neighbours {
            up: index & 1 != 0,
            right: index & 2 != 0,
            down: index & 4 != 0,
            left: index & 8 != 0,
        }
    }

    /// Whether a corner has no dark neighbour on either of its two sides.
    fn free(self, corner: Corner) -> bool {
        match corner {
            Corner::TopLeft => !self.up && !self.left,
            Corner::TopRight => !self.up && !self.right,
            Corner::BottomRight => !self.down && !self.right,
            Corner::BottomLeft => !self.down && !self.left,
        }
    }
}

/// A corner of a module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Corner {
    TopLeft,
    TopRight,
    BottomRight,
    BottomLeft,
}

impl Corner {
    pub(crate) const ALL: [Corner; 4] = [
        Corner::TopLeft,
        Corner::TopRight,
        Corner::BottomRight,
        Corner::BottomLeft,
    ];
}

/// How a style draws the modules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Family {
    /// Squares whose free corners may be rounded: the outline of the dark area is traced.
    Outlined,
    /// One circle per module.
    Dots,
    /// Runs of modules as capsules four fifths wide.
    Connected,
}

/// The half-width of a connected run, and the inset that leaves.
const CONNECTED_HALF_WIDTH: f32 = 0.4;
#[cfg(feature = "png")]
const CONNECTED_INSET: f32 = 0.5 - CONNECTED_HALF_WIDTH;
/// The radius of a connected-style module with no dark neighbour: a whole module's disc.
///
/// An alignment pattern's centre is such a module, and readers of the quirc family (rqrr)
/// accept an alignment pattern only when its centre's dark area is at least half a module's.
/// A disc four fifths wide covers 0.50 of a module before anti-aliasing, below that once
/// binarised: at 5 px per module rqrr took a data module for the alignment pattern and read
/// none of the version 3 codes of the failing case. A whole disc covers 0.79.
const CONNECTED_LONE_RADIUS: f32 = 0.5;
// Lone modules are drawn as the dots style's discs.
const _: () = assert!(CONNECTED_LONE_RADIUS == 0.5);

pub(crate) fn family(style: ModuleStyle) -> Family {
    match style {
        ModuleStyle::Dots => Family::Dots,
        ModuleStyle::Connected => Family::Connected,
        _ => Family::Outlined,
    }
}

/// The larger radius of `ClassyRounded`, in modules: three quarters, not a whole module.
///
/// Classy-rounded rounds the end of every run, so its big corners are everywhere; with a whole
/// module, the arc passes 0.29 module from the module's centre, and rqrr, whose grid can drift
/// by half a module at the far corner, failed on 5 of about 3,000 codes from 4 to 10 pixels per
/// module. With three quarters the arc is 0.40 module from the centre and none of 2,000 failed.
const CLASSY_ROUNDED_RADIUS: f32 = 0.75;

/// The radius, in modules, of a dark module's `corner` with `neighbours` (0 for a square corner).
///
/// Only free corners (no dark neighbour on either side) are rounded, so the shapes of
/// neighbouring modules always meet along whole sides. The rules are those of the styles'
/// names in qr-code-styling, so designs carry over.
pub(crate) fn corner_radius(style: ModuleStyle, neighbours: Neighbours, corner: Corner) -> f32 {
    if !neighbours.free(corner) {
        return 0.0;
    }
    let free_count = Corner::ALL.iter().filter(|&&c| neighbours.free(c)).count();
    let diagonal = matches!(corner, Corner::TopLeft | Corner::BottomRight);
    let both_diagonals = neighbours.free(Corner::TopLeft) && neighbours.free(Corner::BottomRight);
    match style {
        ModuleStyle::Rounded => 0.5,
        ModuleStyle::ExtraRounded if free_count == 1 => 1.0,
        ModuleStyle::ExtraRounded => 0.5,
        ModuleStyle::Classy if diagonal => 0.5,
        ModuleStyle::ClassyRounded if diagonal && both_diagonals => 0.5,
        ModuleStyle::ClassyRounded if diagonal => CLASSY_ROUNDED_RADIUS,
        _ => 0.0,
    }
}

/// Appends the shape of one dark module at (`x`, `y`) with `neighbours`: the same shape the
/// traced outline gives it, so rasters built from these tiles and vector outlines agree.
#[cfg(feature = "png")]
pub(crate) fn module_shape(
    path: &mut Path,
    style: ModuleStyle,
    neighbours: Neighbours,
    x: f32,
    y: f32,
) {
    match family(style) {
        Family::Dots => path.circle(x + 0.5, y + 0.5, 0.5, false),
        Family::Outlined => {
            let radii = Corner::ALL.map(|c| corner_radius(style, neighbours, c));
            path.rounded_rect(x, y, 1.0, 1.0, radii, false);
        }
        Family::Connected => {
            let (w, i, r) = (
                2.0 * CONNECTED_HALF_WIDTH,
                CONNECTED_INSET,
                CONNECTED_HALF_WIDTH,
            );
            let horizontal = neighbours.left || neighbours.right;
            let vertical = neighbours.up || neighbours.down;
            if !horizontal && !vertical {
                path.circle(x + 0.5, y + 0.5, CONNECTED_LONE_RADIUS, false);
                return;
            }
            if horizontal {
                let x0 = if neighbours.left { 0.0 } else { i };
                let x1 = if neighbours.right { 1.0 } else { 1.0 - i };
                let (left, right) = (
                    if neighbours.left { 0.0 } else { r },
                    if neighbours.right { 0.0 } else { r },
                );
                path.rounded_rect(x + x0, y + i, x1 - x0, w, [left, right, right, left], false);
            }
            if vertical {
                let y0 = if neighbours.up { 0.0 } else { i };
                let y1 = if neighbours.down { 1.0 } else { 1.0 - i };
                let (top, bottom) = (
                    if neighbours.up { 0.0 } else { r },
                    if neighbours.down { 0.0 } else { r },
                );
                path.rounded_rect(x + i, y + y0, w, y1 - y0, [top, top, bottom, bottom], false);
            }
        }
    }
}

/// Appends the connected runs of a whole symbol, given as rows of bits: a capsule for every
/// horizontal and vertical run of two or more dark modules, a whole module's disc for a module in
/// neither (overlaps fill once under the nonzero rule, so there is no seam between modules).
///
/// Runs are read from whole words (the columns from the rows transposed once): asking each
/// module of the grid twice whether it is dark cost a connected SVG 80 thousand instructions.
pub(crate) fn connected_runs(capsules: &mut Vec<Capsule>, dots: &mut Dots, rows: &[[u64; WORDS]]) {
    // The capsules' radius is the style's half width.
    const _: () = assert!(CAPSULE_RADIUS == (CONNECTED_HALF_WIDTH * UNIT as f32) as i32);
    let n = rows.len();
    let set = |line: &mut [u64; WORDS], k: usize| line[k / 64] |= 1 << (k % 64);
    let mut columns = vec![[0u64; WORDS]; n];
    for (y, row) in rows.iter().enumerate() {
        for (word, &bits) in row.iter().enumerate() {
            let mut bits = bits;
            while bits != 0 {
                let x = word * 64 + bits.trailing_zeros() as usize;
                bits &= bits - 1;
                set(&mut columns[x], y);
            }
        }
    }
    // The modules in a run, row by row.
    let mut in_run = vec![[0u64; WORDS]; n];
    for (transposed, lines) in [(false, rows), (true, columns.as_slice())] {
        for (line, bits) in lines.iter().enumerate() {
            let mut k = 0;
            for_each_run(bits, n, |dark, length| {
                if dark && length >= 2 {
                    for j in k..k + length {
                        if transposed {
                            set(&mut in_run[j], line);
                        } else {
                            set(&mut in_run[line], j);
                        }
                    }
                    let (along, across) = (k as u32, line as u32);
                    capsules.push(Capsule {
                        x: if transposed { across } else { along },
                        y: if transposed { along } else { across },
                        length: length as u32,
                        vertical: transposed,
                    });
                }
                k += length;
            });
        }
    }
    for (y, (row, run)) in rows.iter().zip(&in_run).enumerate() {
        for (word, (&bits, &run)) in row.iter().zip(run).enumerate() {
            let mut lone = bits & !run;
            while lone != 0 {
                let x = word * 64 + lone.trailing_zeros() as usize;
                lone &= lone - 1;
                dots.modules.push((x as u32, y as u32));
            }
        }
    }
}

/// The corner radius, in modules, of the circle finder's hole (5 modules wide): the roundest
/// that readers of the ZXing family accept.
///
/// ZXing's readers check a finder along its diagonals for the ratio 1:1:3:1:1 as well. A round
/// hole (radius 2.5) leaves 1.73 modules of dark ring on the diagonal instead of 1, and rxing
/// (the Java reader's port) found no code at 5 pixels per module and half of them at 6; a
/// radius r leaves 1 + 0.29 r. Measured over the 7 module styles at 4, 5, 6, 8 and 10 pixels per
/// module, 8 codes each, PNG and SVG (560 images): 2.0 failed 3 of 56 images in rxing at 8 and
/// 10 pixels, 1.75 none in any of the four decoders.
const CIRCLE_HOLE_RADIUS: f32 = 1.75;

/// The corner radius, in modules, of the circle finder's centre (3 modules wide).
///
/// ZXing-C++ fits a square to the centre's edge to place the finder: a disc (radius 1.5) made
/// every circle-finder code unreadable to ZXingReader 1.4 at 4, 6, 8 and 10 pixels per module;
/// 1.25 failed 3 to 14 of 112 images at 4 pixels, 1.0 none.
const CIRCLE_CENTRE_RADIUS: f32 = 1.0;

/// Appends a finder pattern whose 7 x 7 modules start at (`x`, `y`): the frame (a ring) and the centre.
///
/// The ring's outer edge is square in every style. Readers of the quirc family (rqrr, the
/// service's oracle) place a finder by the four extreme points of its ring and map the whole
/// grid from them: an outer corner rounded by only a quarter of a module moves those points by
/// over a pixel at 5 to 7 pixels per module, and a rounding of 2 modules or a circle (whose
/// extreme points are a rotated diamond) made every code unreadable at every size from 3 to 8
/// pixels per module. The styles shape the inside of the ring and the centre instead, within
/// what readers of the ZXing family accept ([`CIRCLE_HOLE_RADIUS`], [`CIRCLE_CENTRE_RADIUS`]).
pub(crate) fn finder(path: &mut Path, style: FinderStyle, x: f32, y: f32) {
    match style {
        FinderStyle::Circle => {
            path.rect(x, y, 7.0, 7.0);
            path.rounded_rect(x + 1.0, y + 1.0, 5.0, 5.0, [CIRCLE_HOLE_RADIUS; 4], true);
            path.rounded_rect(x + 2.0, y + 2.0, 3.0, 3.0, [CIRCLE_CENTRE_RADIUS; 4], false);
        }
        FinderStyle::Rounded => {
            path.rect(x, y, 7.0, 7.0);
            path.rounded_rect(x + 1.0, y + 1.0, 5.0, 5.0, [1.5; 4], true);
            path.rounded_rect(x + 2.0, y + 2.0, 3.0, 3.0, [1.0; 4], false);
        }
        _ => {
            path.rect(x, y, 7.0, 7.0);
            path.rounded_rect(x + 1.0, y + 1.0, 5.0, 5.0, [0.0; 4], true);
            path.rect(x + 2.0, y + 2.0, 3.0, 3.0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(up: bool, right: bool, down: bool, left: bool) -> Neighbours {
        Neighbours {
            up,
            right,
            down,
            left,
        }
    }

    #[test]
    fn radii_follow_the_free_corners() {
        use Corner::*;
        let lone = Neighbours::default();
        for style in [ModuleStyle::Rounded, ModuleStyle::ExtraRounded] {
            assert!(
                Corner::ALL
                    .iter()
                    .all(|&c| corner_radius(style, lone, c) == 0.5),
                "{style}"
            );
        }
        let elbow = n(true, false, false, true);
        assert_eq!(
            corner_radius(ModuleStyle::ExtraRounded, elbow, BottomRight),
            1.0
        );
        assert_eq!(corner_radius(ModuleStyle::Rounded, elbow, BottomRight), 0.5);
        assert_eq!(corner_radius(ModuleStyle::Rounded, elbow, TopLeft), 0.0);
        assert_eq!(corner_radius(ModuleStyle::Classy, lone, TopRight), 0.0);
        assert_eq!(corner_radius(ModuleStyle::Classy, lone, BottomRight), 0.5);
        assert_eq!(
            corner_radius(ModuleStyle::ClassyRounded, lone, TopLeft),
            0.5
        );
        assert_eq!(
            corner_radius(
                ModuleStyle::ClassyRounded,
                n(false, true, false, false),
                TopLeft
            ),
            0.75
        );
        assert_eq!(corner_radius(ModuleStyle::Square, lone, TopLeft), 0.0);
    }

    #[test]
    #[cfg(feature = "png")]
    fn every_neighbour_pattern_has_its_own_tile() {
        for i in 0..16 {
            assert_eq!(Neighbours::from_index(i).index(), i);
        }
        assert_eq!(n(false, false, false, false).index(), 0);
        assert_eq!(n(true, true, true, true).index(), 15);
        assert_eq!(n(false, true, false, true).index(), 10);
    }
}
