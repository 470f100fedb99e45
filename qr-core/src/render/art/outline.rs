//! The module layer's closed figures in whole thousandths of a module: straight sides between turns, each turn rounded by its radius, which every vector writer draws without floating point.
//!
//! The traced outline of the outlined styles, the capsules of the connected style and the
//! alignment patterns' squares are all figures of this kind. Keeping them as integers lets the
//! SVG writer print relative steps and the PDF and EPS writers absolute coordinates straight
//! from the turns: building them as `Path`s of `f32` points and converting every coordinate
//! back cost a rounded SVG about 100 thousand instructions of its 568 thousand.

#[cfg(test)]
use super::path::Path;

/// The four directions of a side, y pointing down, numbered clockwise (east, south, west, north).
pub(crate) const STEPS: [(i32, i32); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];

/// Thousandths per module: the unit of every coordinate here.
pub(crate) const UNIT: i32 = 1000;

/// A turn of a figure at vertex (`x`, `y`), arriving in direction `incoming` and leaving in
/// direction `outgoing` (indices of [`STEPS`]); a right turn (clockwise, y down) may be rounded
/// by `radius`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Turn {
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) incoming: u8,
    pub(crate) outgoing: u8,
    pub(crate) radius: i32,
}

/// A step of an outline, in thousandths: what the writers print.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// Starts a figure at the point.
    Move(i32, i32),
    /// A straight side to the point.
    Line(i32, i32),
    /// A clockwise (y down) quarter circle of `radius` to (`x`, `y`), leaving in direction
    /// `outgoing` and arriving from direction `incoming` (so a writer can place the control
    /// points of a cubic without a square root).
    Arc {
        x: i32,
        y: i32,
        radius: i32,
        incoming: u8,
        outgoing: u8,
    },
    /// Closes the figure back to its start.
    Close,
}

/// Closed figures, each a run of turns, filled with the nonzero rule.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Outline {
    pub(crate) turns: Vec<Turn>,
    /// Where each figure's turns end in `turns`.
    pub(crate) ends: Vec<u32>,
}

impl Outline {
    pub(crate) fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Ends the figure whose turns were pushed since the last one (nothing if none were).
    pub(crate) fn close(&mut self) {
        let end = self.turns.len() as u32;
        if self.ends.last().copied().unwrap_or(0) != end {
            self.ends.push(end);
        }
    }

    #[cfg(any(feature = "pdf", test))]
    /// Appends a clockwise rectangle from (`x`, `y`), `w` by `h`, every corner rounded by
    /// `radius` (at most half the shorter side).
    pub(crate) fn rounded_rect(&mut self, (x, y): (i32, i32), (w, h): (i32, i32), radius: i32) {
        let corners = [(x, y, 3), (x + w, y, 0), (x + w, y + h, 1), (x, y + h, 2)];
        for (cx, cy, incoming) in corners {
            self.turns.push(Turn {
                x: cx,
                y: cy,
                incoming,
                outgoing: (incoming + 1) % 4,
                radius,
            });
        }
        self.close();
    }

    /// Visits the figures as steps: each starts at its first turn's exit point and visits the
    /// turns after it and then the first again, each adding the side to its entry point (left
    /// out when empty) and its arc, and a close.
    ///
    /// Starting after the first turn's arc keeps the arcs of a figure's ends together: a
    /// capsule, whose four corners begin at its top-left, ends in the two quarter arcs of its
    /// left end, which the SVG writer joins into one half circle.
    pub(crate) fn for_each(&self, mut visit: impl FnMut(Step)) {
        let mut start = 0usize;
        for &end in &self.ends {
            let figure = &self.turns[start..end as usize];
            start = end as usize;
            let Some((first, rest)) = figure.split_first() else {
                continue;
            };
            let (ox, oy) = STEPS[usize::from(first.outgoing)];
            let mut at = (first.x + ox * first.radius, first.y + oy * first.radius);
            visit(Step::Move(at.0, at.1));
            let count = figure.len();
            for (i, turn) in rest.iter().chain(std::iter::once(first)).enumerate() {
                let (ix, iy) = STEPS[usize::from(turn.incoming)];
                let entry = (turn.x - ix * turn.radius, turn.y - iy * turn.radius);
                // A square last corner is the figure's start: the close draws its side.
                let closing = i + 1 == count && turn.radius == 0;
                if entry != at && !closing {
                    visit(Step::Line(entry.0, entry.1));
                }
                at = entry;
                if turn.radius > 0 {
                    let (ox, oy) = STEPS[usize::from(turn.outgoing)];
                    at = (turn.x + ox * turn.radius, turn.y + oy * turn.radius);
                    visit(Step::Arc {
                        x: at.0,
                        y: at.1,
                        radius: turn.radius,
                        incoming: turn.incoming,
                        outgoing: turn.outgoing,
                    });
                }
            }
            visit(Step::Close);
        }
    }

    /// Appends the outline to `path` in module units (the tests' form).
    #[cfg(test)]
    pub(crate) fn append_to(&self, path: &mut Path) {
        use super::path::Point;
        let unit = UNIT as f32;
        let point = |x: i32, y: i32| Point::new(x as f32 / unit, y as f32 / unit);
        self.for_each(|step| match step {
            Step::Move(x, y) => path.move_to(x as f32 / unit, y as f32 / unit),
            Step::Line(x, y) => path.line_to(x as f32 / unit, y as f32 / unit),
            Step::Arc {
                x,
                y,
                radius,
                incoming,
                ..
            } => {
                // The centre is the exit point moved back against the incoming direction.
                let (ix, iy) = STEPS[usize::from(incoming)];
                path.arc_to(point(x, y), point(x - ix * radius, y - iy * radius), true);
            }
            Step::Close => path.close(),
        });
    }
}

/// Dark modules drawn as discs of half a module around their centres, as whole module
/// coordinates: every disc is the same figure, which PDF paints from one form and EPS from one
/// procedure.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Dots {
    /// The modules' (x, y), row by row.
    pub(crate) modules: Vec<(u32, u32)>,
}

impl Dots {
    /// Appends the disc of module (`x`, `y`) as an outline figure (PDF draws gradient discs so).
    #[cfg(any(feature = "pdf", test))]
    pub(crate) fn disc(outline: &mut Outline, x: u32, y: u32) {
        let (x, y) = (x as i32 * UNIT, y as i32 * UNIT);
        outline.rounded_rect((x, y), (UNIT, UNIT), UNIT / 2);
    }
}

/// The half width, in thousandths, of the connected style's capsules (four fifths of a module wide).
pub(crate) const CAPSULE_RADIUS: i32 = 400;

/// A run of `length` dark modules (two or more) from module (`x`, `y`), rightwards or
/// downwards: the connected style draws it as a capsule, a rectangle from the first module's
/// centre to the last one's, [`CAPSULE_RADIUS`] either side, closed by a half disc at each end.
///
/// Every capsule is the same figure but for its length, so the SVG writer prints it from
/// constant text, EPS from a procedure, and PDF as a rectangle and two copies of one disc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Capsule {
    pub(crate) x: u32,
    pub(crate) y: u32,
    pub(crate) length: u32,
    pub(crate) vertical: bool,
}

impl Capsule {
    /// The centres of the first and last modules, in thousandths.
    pub(crate) fn ends(&self) -> ((i32, i32), (i32, i32)) {
        let (x, y) = (
            self.x as i32 * UNIT + UNIT / 2,
            self.y as i32 * UNIT + UNIT / 2,
        );
        let span = (self.length as i32 - 1) * UNIT;
        if self.vertical {
            ((x, y), (x, y + span))
        } else {
            ((x, y), (x + span, y))
        }
    }

    /// Appends the capsule as a figure: a rectangle with every corner rounded by half its width.
    #[cfg(feature = "pdf")]
    pub(crate) fn append_to(&self, outline: &mut Outline) {
        let ((x0, y0), (x1, y1)) = self.ends();
        let r = CAPSULE_RADIUS;
        outline.rounded_rect((x0 - r, y0 - r), (x1 - x0 + 2 * r, y1 - y0 + 2 * r), r);
    }
}

#[cfg(test)]
mod tests {
    use super::super::path::{Point, Segment};
    use super::*;

    #[test]
    fn a_disc_is_four_quarter_arcs_around_the_module_centre() {
        let mut outline = Outline::default();
        Dots::disc(&mut outline, 2, 3);
        let mut steps = Vec::new();
        outline.for_each(|s| steps.push(s));
        assert_eq!(steps[0], Step::Move(2500, 3000));
        assert_eq!(steps.len(), 6, "{steps:?}");
        assert!(
            matches!(
                steps[1],
                Step::Arc {
                    x: 3000,
                    y: 3500,
                    radius: 500,
                    ..
                }
            ),
            "{steps:?}"
        );
        let mut path = Path::default();
        outline.append_to(&mut path);
        assert_eq!(
            path.segments[1],
            Segment::Arc {
                to: Point::new(3.0, 3.5),
                center: Point::new(2.5, 3.5),
                clockwise: true
            }
        );
    }

    #[test]
    fn square_corners_are_lines_only() {
        let mut outline = Outline::default();
        outline.rounded_rect((0, 0), (2000, 1000), 0);
        let mut steps = Vec::new();
        outline.for_each(|s| steps.push(s));
        assert_eq!(
            steps,
            [
                Step::Move(0, 0),
                Step::Line(2000, 0),
                Step::Line(2000, 1000),
                Step::Line(0, 1000),
                Step::Close
            ]
        );
    }
}
