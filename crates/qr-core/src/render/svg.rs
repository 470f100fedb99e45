//! SVG output: one stroked path of merged module runs, rows or columns, whichever is shorter.

use std::fmt::Write as _;

use crate::encode::QrCode;
use crate::options::Color;
use crate::render::layout::Layout;
use crate::render::logo::{ClearedArea, Logo, LogoPlacement};

/// Writes the code as an SVG document of exactly `layout.size` pixels.
///
/// The dark modules are one `<path>`: a single unit-width stroke that snakes through every module
/// line (rows or columns, whichever is shorter), its `stroke-dasharray` listing the lengths of the
/// alternating dark and light runs met on the way. Every length and position is a small integer, so
/// renderers compute the dashes exactly, and the turns between lines fall in the quiet zone, inside
/// gaps, so no line join is ever drawn. The background is one rectangle (left out when fully
/// transparent). A logo is embedded as a data URI over its cleared area.
pub(crate) fn encode(
    code: &QrCode,
    layout: &Layout,
    color: Color,
    background: Color,
    logo: Option<(&Logo, &LogoPlacement)>,
) -> String {
    let cleared = logo.map(|(_, placement)| &placement.cleared);
    let by_rows = SnakePath::new(code, cleared, Direction::Rows);
    let by_columns = SnakePath::new(code, cleared, Direction::Columns);
    let path = if by_columns.len() < by_rows.len() {
        by_columns
    } else {
        by_rows
    };
    let size = layout.size;
    let mut svg = String::with_capacity(path.len() + 400);
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg"{xlink} width="{size}" height="{size}" viewBox="0 0 {size} {size}" shape-rendering="crispEdges">"#,
        xlink = if logo.is_some() {
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
    if let Some((logo, placement)) = logo {
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

#[derive(Clone, Copy, PartialEq, Eq)]
enum Direction {
    Rows,
    Columns,
}

/// One stroke through all module lines and the dash pattern that draws exactly the dark modules.
struct SnakePath {
    /// The path data, in module coordinates.
    data: String,
    /// The dash lengths, alternating dark and light, starting with dark.
    dashes: String,
    has_dark: bool,
}

impl SnakePath {
    /// Walks line 0 forwards from the first module, then each next line in the opposite direction,
    /// one unit into the quiet zone past each end, stepping one unit to the next line in between.
    fn new(code: &QrCode, cleared: Option<&ClearedArea>, direction: Direction) -> SnakePath {
        let n = code.size();
        let dark = |along: usize, line: usize| {
            let (x, y) = match direction {
                Direction::Rows => (along, line),
                Direction::Columns => (line, along),
            };
            code.is_dark(x, y) && !cleared.is_some_and(|area| area.contains(x, y))
        };
        let (along_command, step_command) = match direction {
            Direction::Rows => ('h', 'v'),
            Direction::Columns => ('v', 'h'),
        };
        let mut data = String::with_capacity(n * 8);
        data.push_str(match direction {
            Direction::Rows => "M0 .5",
            Direction::Columns => "M.5 0",
        });
        let mut runs = RunList::default();
        for line in 0..n {
            let forwards = line % 2 == 0;
            if line == 0 {
                let _ = write!(data, "{along_command}{}", n + 1);
            } else {
                let sign = if forwards { "" } else { "-" };
                let _ = write!(data, "{step_command}1{along_command}{sign}{}", n + 2);
                // The unit of quiet zone before the line, and the step onto it.
                runs.push(false, 2);
            }
            for i in 0..n {
                let along = if forwards { i } else { n - 1 - i };
                runs.push(dark(along, line), 1);
            }
            // The unit of quiet zone after the line.
            runs.push(false, 1);
        }
        SnakePath {
            data,
            has_dark: runs.has_dark,
            dashes: runs.finish(),
        }
    }

    fn len(&self) -> usize {
        self.data.len() + self.dashes.len()
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
        self.has_dark |= dark;
        if !self.started {
            self.started = true;
            if !dark {
                // A dash array starts with a dash: an empty one when the path starts light.
                self.text.push('0');
            }
            self.current_dark = dark;
            self.current_length = length;
            return;
        }
        if dark == self.current_dark {
            self.current_length += length;
        } else {
            self.flush();
            self.current_dark = dark;
            self.current_length = length;
        }
    }

    fn flush(&mut self) {
        if !self.text.is_empty() {
            self.text.push(' ');
        }
        let _ = write!(self.text, "{}", self.current_length);
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
fn push_color(svg: &mut String, color: Color, attribute: &str) {
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
