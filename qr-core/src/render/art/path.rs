//! Paths of lines, quarter-circle arcs and quadratic curves, with the affine maps that place them.

/// A point in a path's own coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Point {
    pub(crate) x: f32,
    pub(crate) y: f32,
}

impl Point {
    pub(crate) const fn new(x: f32, y: f32) -> Point {
        Point { x, y }
    }
}

/// One step of a path.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Segment {
    /// Starts a new closed figure at the point.
    Move(Point),
    /// A straight line to the point.
    Line(Point),
    /// A circular arc of at most a quarter turn to `to`, around `center`; `clockwise` as seen with
    /// y pointing down (the direction of increasing angle).
    Arc {
        to: Point,
        center: Point,
        clockwise: bool,
    },
    /// A quadratic Bézier curve through control point `control` to `to` (font outlines).
    #[cfg(feature = "frame")]
    Quad { control: Point, to: Point },
    /// Closes the figure back to its start.
    Close,
}

/// A filled path: any number of closed figures, filled with the nonzero rule.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Path {
    pub(crate) segments: Vec<Segment>,
}

impl Path {
    pub(crate) fn move_to(&mut self, x: f32, y: f32) {
        self.segments.push(Segment::Move(Point::new(x, y)));
    }

    /// A line to (`x`, `y`), left out when the figure is already there: the shapes join their
    /// corners with lines that are often empty (two of the four of a circle), and each cost the
    /// vector writers a command and every writer a segment to visit.
    pub(crate) fn line_to(&mut self, x: f32, y: f32) {
        let to = Point::new(x, y);
        let at = match self.segments.last() {
            Some(Segment::Move(p) | Segment::Line(p) | Segment::Arc { to: p, .. }) => Some(*p),
            #[cfg(feature = "frame")]
            Some(Segment::Quad { to: p, .. }) => Some(*p),
            _ => None,
        };
        if at != Some(to) {
            self.segments.push(Segment::Line(to));
        }
    }

    pub(crate) fn arc_to(&mut self, to: Point, center: Point, clockwise: bool) {
        self.segments.push(Segment::Arc {
            to,
            center,
            clockwise,
        });
    }

    #[cfg(feature = "frame")]
    pub(crate) fn quad_to(&mut self, control: Point, to: Point) {
        self.segments.push(Segment::Quad { control, to });
    }

    pub(crate) fn close(&mut self) {
        self.segments.push(Segment::Close);
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.segments.is_empty()
    }

    /// An axis-aligned rectangle, clockwise (y down).
    pub(crate) fn rect(&mut self, x: f32, y: f32, w: f32, h: f32) {
        self.move_to(x, y);
        self.line_to(x + w, y);
        self.line_to(x + w, y + h);
        self.line_to(x, y + h);
        self.close();
    }

    /// A rectangle with corner radii `[top-left, top-right, bottom-right, bottom-left]`, each at
    /// most the shorter side (two radii on one side must not add up to more than that side),
    /// clockwise (y down), or anticlockwise when `reverse` (to cut a hole).
    pub(crate) fn rounded_rect(
        &mut self,
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        radii: [f32; 4],
        reverse: bool,
    ) {
        let [tl, tr, br, bl] = radii;
        // The figure as corners in clockwise order: the corner point, and the unit directions of
        // the edge arriving and leaving.
        let corners = [
            (Point::new(x, y), tl, (0.0, -1.0), (1.0, 0.0)),
            (Point::new(x + w, y), tr, (1.0, 0.0), (0.0, 1.0)),
            (Point::new(x + w, y + h), br, (0.0, 1.0), (-1.0, 0.0)),
            (Point::new(x, y + h), bl, (-1.0, 0.0), (0.0, -1.0)),
        ];
        let order: [usize; 4] = if reverse { [0, 3, 2, 1] } else { [0, 1, 2, 3] };
        for (step, &i) in order.iter().enumerate() {
            let (corner, r, mut incoming, mut outgoing) = corners[i];
            if reverse {
                (incoming, outgoing) = ((-outgoing.0, -outgoing.1), (-incoming.0, -incoming.1));
            }
            let entry = Point::new(corner.x - incoming.0 * r, corner.y - incoming.1 * r);
            if step == 0 {
                self.move_to(entry.x, entry.y);
            } else {
                self.line_to(entry.x, entry.y);
            }
            if r > 0.0 {
                let exit = Point::new(corner.x + outgoing.0 * r, corner.y + outgoing.1 * r);
                let center = Point::new(entry.x + outgoing.0 * r, entry.y + outgoing.1 * r);
                self.arc_to(exit, center, !reverse);
            }
        }
        self.close();
    }

    /// A circle, clockwise (y down), or anticlockwise when `reverse`. Only the PNG module tiles
    /// draw circles; the path tests use it with any feature.
    #[cfg(any(feature = "png", test))]
    pub(crate) fn circle(&mut self, cx: f32, cy: f32, r: f32, reverse: bool) {
        let d = 2.0 * r;
        self.rounded_rect(cx - r, cy - r, d, d, [r; 4], reverse);
    }

    /// Visits the path as cubic Béziers and lines (the form PDF and PostScript draw): `visit`
    /// receives every step with its points already converted.
    pub(crate) fn for_each_cubic(&self, mut visit: impl FnMut(Cubic)) {
        let mut current = Point::new(0.0, 0.0);
        for segment in &self.segments {
            match *segment {
                Segment::Move(p) => {
                    visit(Cubic::Move(p));
                    current = p;
                }
                Segment::Line(p) => {
                    visit(Cubic::Line(p));
                    current = p;
                }
                Segment::Arc {
                    to,
                    center,
                    clockwise,
                } => {
                    let (c1, c2) = arc_controls(current, to, center, clockwise);
                    visit(Cubic::Curve(c1, c2, to));
                    current = to;
                }
                #[cfg(feature = "frame")]
                Segment::Quad { control, to } => {
                    let c1 = Point::new(
                        current.x + 2.0 / 3.0 * (control.x - current.x),
                        current.y + 2.0 / 3.0 * (control.y - current.y),
                    );
                    let c2 = Point::new(
                        to.x + 2.0 / 3.0 * (control.x - to.x),
                        to.y + 2.0 / 3.0 * (control.y - to.y),
                    );
                    visit(Cubic::Curve(c1, c2, to));
                    current = to;
                }
                Segment::Close => visit(Cubic::Close),
            }
        }
    }

    /// Visits the path as straight lines, curves flattened to within `tolerance` after `map`
    /// (which places the path's points in pixels): `line(from, to)` for every line, figures closed.
    #[cfg(any(all(feature = "style", feature = "png"), test))]
    pub(crate) fn flatten(
        &self,
        map: &Transform,
        tolerance: f32,
        mut line: impl FnMut(Point, Point),
    ) {
        let mut start = Point::new(0.0, 0.0);
        let mut current = start;
        let scale = map.scale();
        for segment in &self.segments {
            match *segment {
                Segment::Move(p) => {
                    if current != start {
                        line(map.apply(current), map.apply(start));
                    }
                    start = p;
                    current = p;
                }
                Segment::Line(p) => {
                    line(map.apply(current), map.apply(p));
                    current = p;
                }
                Segment::Arc {
                    to,
                    center,
                    clockwise,
                } => {
                    let radius = distance(current, center);
                    let a0 = (current.y - center.y).atan2(current.x - center.x);
                    let sweep = sweep_angle(current, to, center, clockwise);
                    let pixels = radius * scale;
                    let step = 2.0
                        * (1.0 - tolerance / pixels.max(tolerance))
                            .clamp(-1.0, 1.0)
                            .acos();
                    let count = ((sweep.abs() / step.max(1e-3)).ceil() as usize).clamp(1, 64);
                    let mut previous = current;
                    for k in 1..=count {
                        let point = if k == count {
                            to
                        } else {
                            let angle = a0 + sweep * k as f32 / count as f32;
                            Point::new(
                                center.x + radius * angle.cos(),
                                center.y + radius * angle.sin(),
                            )
                        };
                        line(map.apply(previous), map.apply(point));
                        previous = point;
                    }
                    current = to;
                }
                #[cfg(feature = "frame")]
                Segment::Quad { control, to } => {
                    let (p0, p1, p2) = (map.apply(current), map.apply(control), map.apply(to));
                    let deviation =
                        ((p0.x - 2.0 * p1.x + p2.x).abs() + (p0.y - 2.0 * p1.y + p2.y).abs()) / 4.0;
                    let count = ((deviation / tolerance).sqrt().ceil() as usize).clamp(1, 32);
                    let mut previous = p0;
                    for k in 1..=count {
                        let t = k as f32 / count as f32;
                        let u = 1.0 - t;
                        let point = Point::new(
                            u * u * p0.x + 2.0 * u * t * p1.x + t * t * p2.x,
                            u * u * p0.y + 2.0 * u * t * p1.y + t * t * p2.y,
                        );
                        line(previous, point);
                        previous = point;
                    }
                    current = to;
                }
                Segment::Close => {
                    if current != start {
                        line(map.apply(current), map.apply(start));
                    }
                    current = start;
                }
            }
        }
        if current != start {
            line(map.apply(current), map.apply(start));
        }
    }
}

/// A step of a path in the cubic form of PDF and PostScript.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Cubic {
    Move(Point),
    Line(Point),
    Curve(Point, Point, Point),
    Close,
}

/// A scale (possibly flipping y) and a translation: `(x, y)` maps to `(sx x + tx, sy y + ty)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Transform {
    pub(crate) sx: f32,
    pub(crate) sy: f32,
    pub(crate) tx: f32,
    pub(crate) ty: f32,
}

impl Transform {
    pub(crate) const IDENTITY: Transform = Transform::new(1.0, 1.0, 0.0, 0.0);

    pub(crate) const fn new(sx: f32, sy: f32, tx: f32, ty: f32) -> Transform {
        Transform { sx, sy, tx, ty }
    }

    #[cfg(any(all(feature = "style", feature = "png"), test))]
    pub(crate) fn apply(&self, p: Point) -> Point {
        Point::new(self.sx * p.x + self.tx, self.sy * p.y + self.ty)
    }

    /// The inverse map of a point (the transform never has a zero scale).
    pub(crate) fn invert(&self, p: Point) -> Point {
        Point::new((p.x - self.tx) / self.sx, (p.y - self.ty) / self.sy)
    }

    /// How much the transform enlarges lengths.
    pub(crate) fn scale(&self) -> f32 {
        self.sx.abs().max(self.sy.abs())
    }
}

#[cfg(any(all(feature = "style", feature = "png"), test))]
fn distance(a: Point, b: Point) -> f32 {
    ((a.x - b.x).powi(2) + (a.y - b.y).powi(2)).sqrt()
}

/// The signed angle swept from `from` to `to` around `center` in the arc's direction.
fn sweep_angle(from: Point, to: Point, center: Point, clockwise: bool) -> f32 {
    use std::f32::consts::TAU;
    let a0 = (from.y - center.y).atan2(from.x - center.x);
    let a1 = (to.y - center.y).atan2(to.x - center.x);
    let mut sweep = a1 - a0;
    if clockwise {
        while sweep <= 0.0 {
            sweep += TAU;
        }
        while sweep > TAU {
            sweep -= TAU;
        }
    } else {
        while sweep >= 0.0 {
            sweep -= TAU;
        }
        while sweep < -TAU {
            sweep += TAU;
        }
    }
    sweep
}

/// The control points of the cubic that draws the arc from `from` to `to` around `center`
/// (at most a quarter turn, where the cubic is within 0.03 % of the radius).
fn arc_controls(from: Point, to: Point, center: Point, clockwise: bool) -> (Point, Point) {
    let (u, v) = (
        Point::new(from.x - center.x, from.y - center.y),
        Point::new(to.x - center.x, to.y - center.y),
    );
    // Every arc of the styles is an exact quarter turn: its tangents are the radius vectors
    // of the other end, scaled by kappa, with no angle computed (two atan2 and a tan cost a
    // rounded PDF 60 thousand instructions).
    let radius2 = u.x * u.x + u.y * u.y;
    if (u.x * v.x + u.y * v.y).abs() <= 1e-6 * radius2
        && (v.x * v.x + v.y * v.y - radius2).abs() <= 1e-6 * radius2
    {
        // Which of the two quarter arcs between the points: clockwise (y down) turns u to v
        // with a positive cross product.
        let turn = u.x * v.y - u.y * v.x;
        if (turn > 0.0) == clockwise {
            const KAPPA: f32 = 0.552_284_8;
            return (
                Point::new(from.x + KAPPA * v.x, from.y + KAPPA * v.y),
                Point::new(to.x + KAPPA * u.x, to.y + KAPPA * u.y),
            );
        }
    }
    let sweep = sweep_angle(from, to, center, clockwise);
    let k = 4.0 / 3.0 * (sweep / 4.0).tan();
    // The tangent at a point is the radius vector turned a quarter in the arc's direction.
    let c1 = Point::new(
        from.x - k * (from.y - center.y),
        from.y + k * (from.x - center.x),
    );
    let c2 = Point::new(to.x + k * (to.y - center.y), to.y - k * (to.x - center.x));
    (c1, c2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quarter_arc_becomes_the_classic_cubic() {
        let mut path = Path::default();
        path.move_to(1.0, 0.0);
        path.arc_to(Point::new(0.0, 1.0), Point::new(0.0, 0.0), true);
        let mut steps = Vec::new();
        path.for_each_cubic(|c| steps.push(c));
        let Cubic::Curve(c1, c2, end) = steps[1] else {
            panic!("{steps:?}");
        };
        let kappa = 0.552_284_8;
        assert!(
            (c1.x - 1.0).abs() < 1e-5 && (c1.y - kappa).abs() < 1e-5,
            "{c1:?}"
        );
        assert!(
            (c2.x - kappa).abs() < 1e-5 && (c2.y - 1.0).abs() < 1e-5,
            "{c2:?}"
        );
        assert_eq!(end, Point::new(0.0, 1.0));
    }

    #[test]
    fn flattened_circles_close_and_keep_their_area() {
        let mut path = Path::default();
        path.circle(10.0, 10.0, 5.0, false);
        let mut area = 0.0;
        path.flatten(&Transform::IDENTITY, 0.05, |a, b| {
            area += a.x * b.y - b.x * a.y
        });
        let expected = std::f32::consts::PI * 25.0;
        assert!((area / 2.0 - expected).abs() < 0.02 * expected, "{area}");
        let mut hole = Path::default();
        hole.circle(10.0, 10.0, 5.0, true);
        let mut reversed = 0.0;
        hole.flatten(&Transform::IDENTITY, 0.05, |a, b| {
            reversed += a.x * b.y - b.x * a.y
        });
        assert!((reversed + area).abs() < 0.5, "{reversed} {area}");
    }
}
