//! SVG output of a styled image (and of any image in outline mode): filled paths only, one per paint, gradients as SVG gradients.

use std::fmt::Write as _;

use super::art::outline::{CAPSULE_RADIUS, Capsule, Dots, Outline, Step};
use super::art::path::{Point, Segment, Transform};
use super::art::{Art, Layer, Paint, number};
use super::svg::push_color;

/// Writes `art` as an SVG document of exactly `art.size` pixels.
pub(crate) fn encode(art: &Art<'_>) -> String {
    let size = art.size;
    let layers = art.layers(false);
    let mut svg = String::with_capacity(8192);
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg"{xlink} width="{size}" height="{size}" viewBox="0 0 {size} {size}">"#,
        xlink = if art.has_logo() {
            r#" xmlns:xlink="http://www.w3.org/1999/xlink""#
        } else {
            ""
        }
    );
    let gradients: Vec<usize> = (0..layers.len())
        .filter(|&i| !matches!(layers[i].paint, Paint::Solid(_)))
        .collect();
    if !gradients.is_empty() {
        svg.push_str("<defs>");
        for &i in &gradients {
            push_gradient(&mut svg, i, &layers[i]);
        }
        svg.push_str("</defs>");
    }
    if art.background.a != 0 {
        svg.push_str(r#"<path fill=""#);
        push_color(&mut svg, art.background, "fill");
        let _ = write!(svg, r#" d="M0 0h{size}v{size}H0z"/>"#);
    }
    for (i, layer) in layers.iter().enumerate() {
        match layer.paint {
            Paint::Solid(color) if color.a == 0 => continue,
            Paint::Solid(color) => {
                svg.push_str(r#"<path fill=""#);
                push_color(&mut svg, color, "fill");
            }
            _ => {
                let _ = write!(svg, r#"<path fill="url(#g{i})""#);
            }
        }
        if layer.even_odd {
            svg.push_str(r#" fill-rule="evenodd""#);
        }
        if layer.transform != Transform::IDENTITY {
            let t = layer.transform;
            svg.push_str(r#" transform="matrix("#);
            for value in [t.sx, 0.0, 0.0, t.sy, t.tx, t.ty] {
                number::push_exact(&mut svg, value);
            }
            svg.push_str(r#")""#);
        }
        svg.push_str(r#" d=""#);
        let capacity = 12 * layer.outline.turns.len()
            + 48 * layer.capsules.len()
            + DISC.len() * layer.dots.modules.len()
            + 12 * layer.path.segments.len();
        let mut data = PathData::new(&mut svg, capacity);
        data.outline(&layer.outline);
        data.dots(&layer.dots);
        data.capsules(&layer.capsules);
        #[cfg(feature = "frame")]
        if let Some((start, text)) = &layer.text {
            data.path(&layer.path.segments[..*start], layer.whole_units);
            data.glyphs(text);
        } else {
            data.path(&layer.path.segments, layer.whole_units);
        }
        #[cfg(not(feature = "frame"))]
        data.path(&layer.path.segments, layer.whole_units);
        data.finish();
        svg.push_str(r#""/>"#);
    }
    #[cfg(feature = "logo")]
    if let Some((logo, placement)) = &art.logo {
        let _ = write!(
            svg,
            r#"<image x="{}" y="{}" width="{}" height="{}" xlink:href="data:{};base64,{}"/>"#,
            placement.x,
            placement.y,
            placement.width,
            placement.height,
            logo.media_type(),
            logo.base64()
        );
    }
    svg.push_str("</svg>");
    svg
}

/// A gradient element with id `g{index}`, in the user space of `layer` (its transform applied).
fn push_gradient(svg: &mut String, index: usize, layer: &Layer) {
    let local = |p| layer.transform.invert(p);
    let stops = |svg: &mut String, from, to| {
        for (offset, color) in [("0", from), ("1", to)] {
            let _ = write!(svg, r#"<stop offset="{offset}" stop-color=""#);
            push_color(svg, color, "stop");
            svg.push_str("/>");
        }
    };
    match layer.paint {
        Paint::Linear {
            start,
            end,
            from,
            to,
        } => {
            let (a, b) = (local(start), local(end));
            let _ = write!(
                svg,
                r#"<linearGradient id="g{index}" gradientUnits="userSpaceOnUse""#
            );
            for (name, value) in [("x1", a.x), ("y1", a.y), ("x2", b.x), ("y2", b.y)] {
                let _ = write!(svg, r#" {name}=""#);
                number::push(svg, value);
                svg.push('"');
            }
            svg.push('>');
            stops(svg, from, to);
            svg.push_str("</linearGradient>");
        }
        Paint::Radial {
            center,
            radius,
            from,
            to,
        } => {
            let c = local(center);
            let r = radius / layer.transform.scale();
            let _ = write!(
                svg,
                r#"<radialGradient id="g{index}" gradientUnits="userSpaceOnUse""#
            );
            for (name, value) in [("cx", c.x), ("cy", c.y), ("r", r)] {
                let _ = write!(svg, r#" {name}=""#);
                number::push(svg, value);
                svg.push('"');
            }
            svg.push('>');
            stops(svg, from, to);
            svg.push_str("</radialGradient>");
        }
        Paint::Solid(_) => {}
    }
}

/// Path data being written in relative commands: coordinates as thousandths of the path's
/// unit (module units for the symbol), moves, lines and arcs as steps from the previous point,
/// lines along an axis as `h`/`v`, two quarter arcs that make a half circle as one arc, and no
/// separator the syntax does not need (`.5.5`, `1-1`).
///
/// Relative steps are small repeated numbers (`a.5.5 0 0 1 .5.5`), where absolute coordinates
/// grow with the symbol: the dots SVG of the benchmark's code fell from 32,709 to 13,000 bytes,
/// and its writing time with it. Steps are computed between rounded points, so rounding never
/// accumulates along a figure. Written as bytes, checked as UTF-8 once at the end.
struct PathData<'a> {
    svg: &'a mut String,
    bytes: Vec<u8>,
    /// Whether the last thing written was a number (the next needs a separator unless its
    /// sign or point starts a new one).
    after_number: bool,
    /// Whether that number had a decimal point (a second point then starts a new number).
    number_has_point: bool,
    /// The point reached and the current figure's start, in thousandths.
    current: (i64, i64),
    start: (i64, i64),
    /// Whether nothing was drawn yet (the first move is absolute).
    first: bool,
    /// Whether the path being written is in whole units (a frame's text in font units): its
    /// numbers are whole, so they come from the table of whole numbers first.
    whole: bool,
    /// A quarter arc held back in case the next one completes a half circle with it: its end
    /// and radius, in thousandths, and the direction it leaves in.
    pending: Option<(i64, i64, i64, u8)>,
    /// The radius, direction and text (radii and flags) of the last arc written.
    arc_prefix: (i64, bool, Vec<u8>),
    /// The whole text of the outlines' arcs by radius and kind (see [`PathData::cached_arc`]),
    /// with whether its last number has a point.
    arc_texts: Vec<(i64, [Option<ArcText>; 8])>,
}

/// An arc's whole text (at most 32 bytes: `a.5.5 0 0 1 .5.5` is 15; longer ones are written
/// each time), its length, and whether its last number has a decimal point.
type ArcText = ([u8; 32], u8, bool);

/// Each disc of a dots layer after its move: two half circles from its left end.
const DISC: &[u8] = b"a.5.5 0 0 1 1 0a.5.5 0 0 1-1 0z";

/// The half circles of the capsules' ends (radius [`CAPSULE_RADIUS`]): down round the right
/// end, up round the left, left round the bottom, right round the top (then the close).
const CAPSULE_DOWN: &[u8] = b"a.4.4 0 0 1 0 .8";
const CAPSULE_UP: &[u8] = b"a.4.4 0 0 1 0-.8z";
const CAPSULE_LEFT: &[u8] = b"a.4.4 0 0 1-.8 0";
const CAPSULE_RIGHT: &[u8] = b"a.4.4 0 0 1 .8 0z";

impl<'a> PathData<'a> {
    /// A writer into `svg` for path data of about `capacity` bytes.
    fn new(svg: &'a mut String, capacity: usize) -> PathData<'a> {
        svg.reserve(capacity + 64);
        PathData {
            svg,
            bytes: Vec::with_capacity(capacity + 64),
            after_number: false,
            number_has_point: false,
            current: (0, 0),
            start: (0, 0),
            first: true,
            whole: false,
            pending: None,
            arc_prefix: (0, false, Vec::new()),
            arc_texts: Vec::new(),
        }
    }

    /// Hands the bytes over to the document.
    fn finish(mut self) {
        self.flush_arc();
        // Commands, digits, points and signs only.
        self.svg
            .push_str(std::str::from_utf8(&self.bytes).unwrap_or_default());
    }

    fn move_to(&mut self, to: (i64, i64)) {
        self.flush_arc();
        // After a close the current point is the figure's start: moves are steps from there.
        self.command(if self.first { b'M' } else { b'm' });
        self.number(to.0 - self.current.0);
        self.number(to.1 - self.current.1);
        self.first = false;
        self.current = to;
        self.start = to;
    }

    fn line_to(&mut self, to: (i64, i64)) {
        self.flush_arc();
        let (dx, dy) = (to.0 - self.current.0, to.1 - self.current.1);
        match (dx, dy) {
            (0, 0) => {}
            (_, 0) => {
                self.command(b'h');
                self.number(dx);
            }
            (0, _) => {
                self.command(b'v');
                self.number(dy);
            }
            _ => {
                self.command(b'l');
                self.number(dx);
                self.number(dy);
            }
        }
        self.current = to;
    }

    /// A clockwise arc of `radius` to `to` (a half circle when `to` is opposite the current point).
    fn arc_to(&mut self, to: (i64, i64), radius: i64, clockwise: bool) {
        self.command(b'a');
        let (cached, cached_clockwise, ref text) = self.arc_prefix;
        if (cached, cached_clockwise) == (radius, clockwise) && !text.is_empty() {
            // The radii and flags of the previous arc, copied (the outlines' arcs share a
            // radius or two).
            self.bytes.extend_from_slice(text);
            self.after_number = true;
            self.number_has_point = false;
        } else {
            let start = self.bytes.len();
            self.radii(radius);
            self.flags(if clockwise { "0 0 1" } else { "0 0 0" });
            self.arc_prefix = (radius, clockwise, self.bytes[start..].to_vec());
        }
        self.number(to.0 - self.current.0);
        self.number(to.1 - self.current.1);
        self.current = to;
    }

    /// A clockwise quarter arc of `radius` to `to`, arriving in direction `incoming` and
    /// leaving in `outgoing`, held back until the next step shows whether it is the first half
    /// of a half circle.
    fn quarter_arc(&mut self, to: (i64, i64), radius: i64, (incoming, outgoing): (u8, u8)) {
        match self.pending.take() {
            // A quarter arc of the same radius that goes on in the direction the held one
            // leaves in shares its centre: the two are one half circle. (A square turn between
            // two arcs that leaves no side, as extra-rounded draws, must not be merged.)
            Some((_, _, r, leaves)) if r == radius && leaves == incoming => {
                // A half circle's step is twice the radius along the first arc's exit.
                self.cached_arc(to, radius, 4 + usize::from(leaves))
            }
            Some((x, y, r, leaves)) => {
                self.cached_arc((x, y), r, usize::from((leaves + 3) % 4));
                self.pending = Some((to.0, to.1, radius, outgoing));
            }
            None => self.pending = Some((to.0, to.1, radius, outgoing)),
        }
    }

    fn flush_arc(&mut self) {
        if let Some((x, y, r, leaves)) = self.pending.take() {
            self.cached_arc((x, y), r, usize::from((leaves + 3) % 4));
        }
    }

    /// A clockwise arc of an outline to `to`: a quarter arriving in direction `kind` (0 to 3),
    /// or a half circle leaving in direction `kind - 4`. Its step depends only on the radius
    /// and the kind, so its whole text is written once per radius and kind and copied after
    /// (formatting the radii, flags and step of each arc cost about 100 instructions).
    fn cached_arc(&mut self, to: (i64, i64), radius: i64, kind: usize) {
        let slot = match self.arc_texts.iter().position(|(r, _)| *r == radius) {
            Some(slot) => slot,
            None => {
                self.arc_texts.push((radius, Default::default()));
                self.arc_texts.len() - 1
            }
        };
        if let Some((text, len, point)) = self.arc_texts[slot].1[kind] {
            // 32 bytes copied whole and the rest cut off: a copy of a known size is two
            // vector stores, one of the text's own length a call to `memmove`.
            let end = self.bytes.len() + usize::from(len);
            self.bytes.extend_from_slice(&text);
            self.bytes.truncate(end);
            self.after_number = true;
            self.number_has_point = point;
            self.current = to;
            return;
        }
        let start = self.bytes.len();
        self.arc_to(to, radius, true);
        let written = &self.bytes[start..];
        if written.len() <= 32 {
            let mut text = [0u8; 32];
            text[..written.len()].copy_from_slice(written);
            self.arc_texts[slot].1[kind] = Some((text, written.len() as u8, self.number_has_point));
        }
    }

    fn close(&mut self) {
        self.flush_arc();
        self.command(b'z');
        self.current = self.start;
    }

    /// The figures of `outline`, straight from its turns.
    fn outline(&mut self, outline: &Outline) {
        outline.for_each(|step| match step {
            Step::Move(x, y) => self.move_to((i64::from(x), i64::from(y))),
            Step::Line(x, y) => self.line_to((i64::from(x), i64::from(y))),
            Step::Arc {
                x,
                y,
                radius,
                incoming,
                outgoing,
            } => self.quarter_arc(
                (i64::from(x), i64::from(y)),
                i64::from(radius),
                (incoming, outgoing),
            ),
            Step::Close => self.close(),
        });
    }

    /// The discs of `dots`: a move to each one's left end, then the same two half circles.
    fn dots(&mut self, dots: &Dots) {
        for &(x, y) in &dots.modules {
            self.move_to((i64::from(x) * 1000, i64::from(y) * 1000 + 500));
            self.bytes.extend_from_slice(DISC);
            self.after_number = false;
        }
    }

    /// The capsules of the connected style: a move to the start of a long side, the side, a
    /// half circle, the other side and the half circle back, from constant text but for the
    /// sides' length.
    fn capsules(&mut self, capsules: &[Capsule]) {
        for capsule in capsules {
            let ((x0, y0), (x1, y1)) = capsule.ends();
            let span = i64::from(x1 - x0 + y1 - y0);
            let (x0, y0, r) = (i64::from(x0), i64::from(y0), i64::from(CAPSULE_RADIUS));
            let (start, side, there, back) = if capsule.vertical {
                ((x0 + r, y0), b'v', CAPSULE_LEFT, CAPSULE_RIGHT)
            } else {
                ((x0, y0 - r), b'h', CAPSULE_DOWN, CAPSULE_UP)
            };
            self.move_to(start);
            self.command(side);
            self.number(span);
            self.bytes.extend_from_slice(there);
            self.command(side);
            self.number(-span);
            self.bytes.extend_from_slice(back);
            self.after_number = false;
        }
    }

    /// The glyphs of `text` (in whole font units): a move to each glyph's first point, then
    /// its steps as written the first time the glyph was drawn (relative, so the same wherever
    /// it stands): a frame's "SCAN ME" is about 250 segments, which cost a framed SVG a fifth of
    /// its time to write each time.
    #[cfg(feature = "frame")]
    fn glyphs(&mut self, text: &super::font::TextLine) {
        self.flush_arc();
        for &(glyph, pen) in &text.glyphs {
            let Some((Segment::Move(first), rest)) = glyph.segments().split_first() else {
                // A space has no outline.
                continue;
            };
            let first = (
                number::whole_thousandths(first.x),
                number::whole_thousandths(first.y),
            );
            let origin = i64::from(pen) * 1000;
            self.move_to((origin + first.0, first.1));
            let (steps, end) = glyph.svg(|_| {
                let mut scratch = String::new();
                let mut glyph_data = PathData::new(&mut scratch, rest.len() * 12);
                (glyph_data.current, glyph_data.start, glyph_data.first) = (first, first, false);
                glyph_data.path(rest, true);
                glyph_data.flush_arc();
                (std::mem::take(&mut glyph_data.bytes), glyph_data.current)
            });
            self.bytes.extend_from_slice(steps);
            self.after_number = steps.last().is_some_and(u8::is_ascii_digit);
            self.number_has_point = false;
            self.current = (origin + end.0, end.1);
            self.start = self.current;
        }
    }

    /// The figures of general `segments` (finders, frames, text), in whole units if `whole`.
    fn path(&mut self, segments: &[Segment], whole: bool) {
        self.flush_arc();
        self.whole = whole;
        let rounded = |p: Point| {
            if whole {
                (
                    number::whole_thousandths(p.x),
                    number::whole_thousandths(p.y),
                )
            } else {
                (number::thousandths(p.x), number::thousandths(p.y))
            }
        };
        let unrounded = |(x, y): (i64, i64)| Point::new(x as f32 / 1000.0, y as f32 / 1000.0);
        // The exact point reached and the figure's start.
        let mut exact = unrounded(self.current);
        let mut exact_start = unrounded(self.start);
        let mut segments = segments.iter().peekable();
        while let Some(segment) = segments.next() {
            match *segment {
                Segment::Move(p) => {
                    self.move_to(rounded(p));
                    exact = p;
                    exact_start = p;
                }
                Segment::Line(p) => {
                    self.line_to(rounded(p));
                    exact = p;
                }
                Segment::Arc {
                    to,
                    center,
                    clockwise,
                } => {
                    let mut end = to;
                    // A quarter arc on to the point opposite its start, around the same centre
                    // and in the same direction, completes a half circle: one SVG arc draws both.
                    let opposite = Point::new(2.0 * center.x - exact.x, 2.0 * center.y - exact.y);
                    if let Some(&&Segment::Arc {
                        to: next,
                        center: next_center,
                        clockwise: next_clockwise,
                    }) = segments.peek()
                        && next_center == center
                        && next_clockwise == clockwise
                        && (next.x - opposite.x).abs() + (next.y - opposite.y).abs() < 1e-4
                    {
                        end = next;
                        segments.next();
                    }
                    let radius =
                        ((exact.x - center.x).powi(2) + (exact.y - center.y).powi(2)).sqrt();
                    self.arc_to(rounded(end), number::thousandths(radius), clockwise);
                    exact = end;
                }
                #[cfg(feature = "frame")]
                Segment::Quad { control, to: end } => {
                    let (control, to) = (rounded(control), rounded(end));
                    self.command(b'q');
                    self.number(control.0 - self.current.0);
                    self.number(control.1 - self.current.1);
                    self.number(to.0 - self.current.0);
                    self.number(to.1 - self.current.1);
                    self.current = to;
                    exact = end;
                }
                Segment::Close => {
                    self.close();
                    exact = exact_start;
                }
            }
        }
        self.whole = false;
    }

    fn command(&mut self, letter: u8) {
        self.bytes.push(letter);
        self.after_number = false;
    }

    /// The arc's rotation and flags, always `0`/`1` digits.
    fn flags(&mut self, flags: &str) {
        self.bytes.push(b' ');
        self.bytes.extend_from_slice(flags.as_bytes());
        self.after_number = true;
        self.number_has_point = false;
    }

    /// Appends `thousandths` / 1000.
    #[inline]
    fn number(&mut self, thousandths: i64) {
        if self.whole && self.whole_number(thousandths) {
            return;
        }
        match number::tenths(thousandths) {
            Some(written) => self.push_written(written),
            None => self.format_number(thousandths),
        }
    }

    /// Appends a whole number below a million in magnitude from the tables (a text's steps in
    /// font units); `false` for any other number.
    fn whole_number(&mut self, thousandths: i64) -> bool {
        if thousandths % 1000 != 0 || thousandths.unsigned_abs() >= 1_000_000_000 {
            return false;
        }
        // A whole number starts with a digit or its sign, never a point.
        if self.after_number && thousandths >= 0 {
            self.bytes.push(b' ');
        }
        self.after_number = true;
        self.number_has_point = false;
        number::put_thousandths(&mut self.bytes, thousandths);
        true
    }

    /// [`PathData::number`] of a number the table does not hold (kept out of line: its buffer
    /// and formatting made every number's call cost 90 instructions).
    #[inline(never)]
    fn format_number(&mut self, thousandths: i64) {
        if self.whole_number(thousandths) {
            return;
        }
        let mut buffer = [0u8; 24];
        let text = number::format_thousandths(thousandths, &mut buffer);
        self.push(text, text.contains(&b'.'));
    }

    /// Appends the equal radii of a circular arc, formatted once.
    fn radii(&mut self, thousandths: i64) {
        if let Some(written) = number::tenths(thousandths) {
            self.push_written(written);
            return self.push_written(written);
        }
        let mut buffer = [0u8; 24];
        let text = number::format_thousandths(thousandths, &mut buffer);
        let point = text.contains(&b'.');
        self.push(text, point);
        self.push(text, point);
    }

    /// Appends a number written ahead of time: its eight bytes copied whole (a fixed-size copy
    /// is a store, where a slice of its length is a call), the rest cut off.
    #[inline]
    fn push_written(&mut self, written: &number::Written) {
        self.separate(written.bytes[0], written.point);
        let end = self.bytes.len() + usize::from(written.len);
        self.bytes.extend_from_slice(&written.bytes);
        self.bytes.truncate(end);
    }

    /// Appends the formatted number `text` (with a decimal point if `point`), separated from
    /// the previous one if it must be.
    fn push(&mut self, text: &[u8], point: bool) {
        self.separate(text.first().copied().unwrap_or(b'0'), point);
        self.bytes.extend_from_slice(text);
    }

    /// Writes the separator a number starting with `first` needs after what came before.
    #[inline]
    fn separate(&mut self, first: u8, point: bool) {
        let starts_new = match first {
            b'-' => true,
            b'.' => self.number_has_point,
            _ => false,
        };
        if self.after_number && !starts_new {
            self.bytes.push(b' ');
        }
        self.after_number = true;
        self.number_has_point = point;
    }
}
