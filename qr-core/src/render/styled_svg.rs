//! SVG output of a styled image (and of any image in outline mode): filled paths only, one per paint, gradients as SVG gradients.

use std::fmt::Write as _;

use super::art::path::{Path, Point, Segment, Transform};
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
                number::push(&mut svg, value);
            }
            svg.push_str(r#")""#);
        }
        svg.push_str(r#" d=""#);
        push_path(&mut svg, &layer.path);
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

/// Appends the path data of `path` in relative commands: coordinates as thousandths of the
/// path's unit (module units for the symbol), moves, lines and arcs as steps from the previous
/// point, lines along an axis as `h`/`v`, two quarter arcs that make a half circle as one arc,
/// and no separator the syntax does not need (`.5.5`, `1-1`).
///
/// Relative steps are small repeated numbers (`a.5.5 0 0 1 .5.5`), where absolute coordinates
/// grow with the symbol: the dots SVG of the benchmark's code fell from 32,709 to 13,000 bytes,
/// and its writing time with it. Steps are computed between rounded points, so rounding never
/// accumulates along a figure.
pub(crate) fn push_path(svg: &mut String, path: &Path) {
    let mut out = PathData {
        bytes: Vec::with_capacity(path.segments.len() * 8),
        after_number: false,
        number_has_point: false,
    };
    let rounded = |p: Point| (number::thousandths(p.x), number::thousandths(p.y));
    // The point reached (exact and rounded) and the figure's start.
    let mut exact = Point::new(0.0, 0.0);
    let mut current = (0, 0);
    let mut start = (current, exact);
    let mut segments = path.segments.iter().peekable();
    let mut first = true;
    while let Some(segment) = segments.next() {
        match *segment {
            Segment::Move(p) => {
                let to = rounded(p);
                // After a close the current point is the figure's start: moves are steps from there.
                out.command(if first { 'M' } else { 'm' });
                out.number(to.0 - current.0);
                out.number(to.1 - current.1);
                (current, exact, first) = (to, p, false);
                start = (current, exact);
            }
            Segment::Line(p) => {
                let to = rounded(p);
                let (dx, dy) = (to.0 - current.0, to.1 - current.1);
                match (dx, dy) {
                    (0, 0) => {}
                    (_, 0) => {
                        out.command('h');
                        out.number(dx);
                    }
                    (0, _) => {
                        out.command('v');
                        out.number(dy);
                    }
                    _ => {
                        out.command('l');
                        out.number(dx);
                        out.number(dy);
                    }
                }
                (current, exact) = (to, p);
            }
            Segment::Arc {
                to,
                center,
                clockwise,
            } => {
                let mut end = to;
                // A quarter arc on to the point opposite its start, around the same centre and
                // in the same direction, completes a half circle: one SVG arc draws both.
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
                let radius = ((exact.x - center.x).powi(2) + (exact.y - center.y).powi(2)).sqrt();
                let to = rounded(end);
                out.command('a');
                out.radii(number::thousandths(radius));
                out.flags(if clockwise { "0 0 1" } else { "0 0 0" });
                out.number(to.0 - current.0);
                out.number(to.1 - current.1);
                (current, exact) = (to, end);
            }
            #[cfg(feature = "frame")]
            Segment::Quad { control, to: end } => {
                let (control, to) = (rounded(control), rounded(end));
                out.command('q');
                out.number(control.0 - current.0);
                out.number(control.1 - current.1);
                out.number(to.0 - current.0);
                out.number(to.1 - current.1);
                (current, exact) = (to, end);
            }
            Segment::Close => {
                out.command('z');
                (current, exact) = start;
            }
        }
    }
    // Commands, digits, points and signs only.
    svg.push_str(std::str::from_utf8(&out.bytes).unwrap_or_default());
}

/// Path data being written: commands and numbers with only the separators SVG needs, as
/// bytes (one UTF-8 check at the end instead of one per number).
struct PathData {
    bytes: Vec<u8>,
    /// Whether the last thing written was a number (the next needs a separator unless its
    /// sign or point starts a new one).
    after_number: bool,
    /// Whether that number had a decimal point (a second point then starts a new number).
    number_has_point: bool,
}

impl PathData {
    fn command(&mut self, letter: char) {
        self.bytes.push(letter as u8);
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
    fn number(&mut self, thousandths: i64) {
        let mut buffer = [0u8; 24];
        let text = number::format_thousandths(thousandths, &mut buffer);
        self.push(text);
    }

    /// Appends the equal radii of a circular arc, formatted once.
    fn radii(&mut self, thousandths: i64) {
        let mut buffer = [0u8; 24];
        let text = number::format_thousandths(thousandths, &mut buffer);
        self.push(text);
        self.push(text);
    }

    /// Appends the formatted number `text`, separated from the previous one if it must be.
    fn push(&mut self, text: &[u8]) {
        let has_point = text.contains(&b'.');
        let starts_new = match text.first() {
            Some(b'-') => true,
            Some(b'.') => self.number_has_point,
            _ => false,
        };
        if self.after_number && !starts_new {
            self.bytes.push(b' ');
        }
        self.after_number = true;
        self.number_has_point = has_point;
        self.bytes.extend_from_slice(text);
    }
}
