//! SVG output: one stroked path of merged module runs, rows or columns, whichever is shorter.

use std::fmt::Write as _;

use super::drawing::Drawing;
use super::layout::Layout;
use crate::options::Color;
use crate::runs::{for_each_run, reversed};

/// Writes the drawing as an SVG document of exactly `layout.size` pixels.
///
/// The dark modules are one `<path>`: a single unit-width stroke that snakes through every row,
/// its `stroke-dasharray` listing the lengths of the
/// alternating dark and light runs met on the way. Every length and position is a small integer, so
/// renderers compute the dashes exactly, and the turns between lines fall in the quiet zone, inside
/// gaps, so no line join is ever drawn. The background is one rectangle (left out when fully
/// transparent). A logo is embedded as a data URI over its cleared area.
pub(crate) fn encode(
    drawing: &Drawing<'_>,
    layout: &Layout,
    color: Color,
    background: Color,
) -> String {
    let path = SnakePath::new(drawing);
    let size = layout.size;
    let mut svg = String::with_capacity(path.data.len() + path.dashes.len() + 400);
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg"{xlink} width="{size}" height="{size}" viewBox="0 0 {size} {size}" shape-rendering="crispEdges">"#,
        xlink = if drawing.has_logo() {
            r#" xmlns:xlink="http://www.w3.org/1999/xlink""#
        } else {
            ""
        }
    );
    if background.a != 0 {
        svg.push_str(r#"<path fill=""#);
        push_color(&mut svg, background, "fill");
        let _ = write!(svg, r#" d="M0 0h{size}v{size}H0z"/>"#);
    }
    if path.has_dark && color.a != 0 {
        let s = layout.module_pixels;
        let o = layout.offset;
        svg.push_str(r#"<path fill="none" stroke=""#);
        push_color(&mut svg, color, "stroke");
        let _ = write!(
            svg,
            r#" stroke-dasharray="{}" transform="matrix({s},0,0,{s},{o},{o})" d="{}"/>"#,
            path.dashes, path.data
        );
    }
    #[cfg(feature = "logo")]
    if let Some((logo, placement)) = drawing.logo() {
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

/// One stroke through all module rows and the dash pattern that draws exactly the dark modules.
struct SnakePath {
    /// The path data, in module coordinates.
    data: String,
    /// The dash lengths, alternating dark and light, starting with dark.
    dashes: String,
    has_dark: bool,
}

impl SnakePath {
    /// Walks row 0 rightwards from the first module, then each next row in the opposite direction,
    /// one unit into the quiet zone past each end, stepping down one unit in between.
    fn new(drawing: &Drawing<'_>) -> SnakePath {
        let n = drawing.size();
        let mut data = String::with_capacity(n * 7 + 8);
        data.push_str("M0 .5h");
        push_number(&mut data, n + 1);
        let mut runs = RunList {
            text: String::with_capacity(n * n / 2),
            ..RunList::default()
        };
        for y in 0..n {
            let mut row = drawing.row(y);
            let forwards = y % 2 == 0;
            if y > 0 {
                data.push_str(if forwards { "v1h" } else { "v1h-" });
                push_number(&mut data, n + 2);
                // The unit of quiet zone before the row, and the step onto it.
                runs.push(false, 2);
            }
            if !forwards {
                row = reversed(&row, n);
            }
            for_each_run(&row, n, |dark, length| runs.push(dark, length));
            // The unit of quiet zone after the row.
            runs.push(false, 1);
        }
        SnakePath {
            data,
            has_dark: runs.has_dark,
            dashes: runs.finish(),
        }
    }
}

/// Appends the decimal digits of `value`.
fn push_number(out: &mut String, mut value: usize) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for &digit in &digits[i..] {
        out.push(char::from(digit));
    }
}

/// Lengths of alternating dark and light runs, written as a dash array.
#[derive(Default)]
struct RunList {
    text: String,
    current_dark: bool,
    current_length: usize,
    started: bool,
    has_dark: bool,
}

impl RunList {
    fn push(&mut self, dark: bool, length: usize) {
        if length == 0 {
            return;
        }
        self.has_dark |= dark;
        if !self.started {
            self.started = true;
            if !dark {
                // A dash array starts with a dash: an empty one when the path starts light.
                self.text.push('0');
            }
        } else if dark == self.current_dark {
            self.current_length += length;
            return;
        } else {
            self.flush();
        }
        self.current_dark = dark;
        self.current_length = length;
    }

    fn flush(&mut self) {
        if !self.text.is_empty() {
            self.text.push(' ');
        }
        push_number(&mut self.text, self.current_length);
    }

    /// The dash array, always of even length so that it never repeats with dark and light swapped.
    fn finish(mut self) -> String {
        self.flush();
        if self.current_dark {
            // The path ends in quiet zone, so this cannot happen; keep the array even regardless.
            self.text.push_str(" 1");
        }
        self.text
    }
}

/// Writes `"#rgb"` or `"#rrggbb"`, closing the attribute, plus an opacity attribute when the colour
/// is translucent (`"fill"` gives `fill-opacity`).
pub(crate) fn push_color(svg: &mut String, color: Color, attribute: &str) {
    let short = [color.r, color.g, color.b].iter().all(|c| c % 17 == 0);
    if short {
        let _ = write!(
            svg,
            "#{:x}{:x}{:x}\"",
            color.r / 17,
            color.g / 17,
            color.b / 17
        );
    } else {
        let _ = write!(svg, "#{:02x}{:02x}{:02x}\"", color.r, color.g, color.b);
    }
    if !color.is_opaque() {
        let opacity = f64::from(color.a) / 255.0;
        let _ = write!(svg, r#" {attribute}-opacity="{opacity:.3}""#);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_in_decimal() {
        let mut numbers = String::new();
        for value in [0, 7, 10, 2000] {
            push_number(&mut numbers, value);
            numbers.push(',');
        }
        assert_eq!(numbers, "0,7,10,2000,");
    }
}
