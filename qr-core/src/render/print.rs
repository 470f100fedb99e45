//! What the PDF and EPS writers share: path operators in the PostScript form, colours as fractions, and the logo resampled for print.

use std::fmt::Write as _;

use super::art::path::{Cubic, Path, Transform};
use super::art::{Paint, Run, number};
use crate::options::Color;

/// Appends `path` as PDF and PostScript path operators (`m`, `l`, `c`, `h`; EPS defines them)
/// in absolute coordinates.
///
/// The operators are written as bytes and handed over once: checking each number's UTF-8
/// cost a rounded PDF 175 thousand instructions, more than formatting it.
pub(crate) fn push_path(out: &mut String, path: &Path) {
    let mut bytes = Vec::with_capacity(path.segments.len() * 24);
    let last = out.as_bytes().last().copied();
    let word = |bytes: &mut Vec<u8>, value: f32| {
        let before = bytes.last().copied().or(last);
        number::put_word(bytes, before, number::thousandths(value));
    };
    path.for_each_cubic(|step| match step {
        Cubic::Move(p) => {
            word(&mut bytes, p.x);
            word(&mut bytes, p.y);
            bytes.extend_from_slice(b" m");
        }
        Cubic::Line(p) => {
            word(&mut bytes, p.x);
            word(&mut bytes, p.y);
            bytes.extend_from_slice(b" l");
        }
        Cubic::Curve(a, b, p) => {
            for value in [a.x, a.y, b.x, b.y, p.x, p.y] {
                word(&mut bytes, value);
            }
            bytes.extend_from_slice(b" c");
        }
        Cubic::Close => bytes.extend_from_slice(b" h\n"),
    });
    number::push_ascii(out, &bytes);
}

/// Appends `runs` as PDF rectangles, `x y length 1 re` each, a line per row of modules.
#[cfg(feature = "pdf")]
pub(crate) fn push_runs_pdf(out: &mut String, runs: &[Run]) {
    let mut bytes = Vec::with_capacity(runs.len() * 14 + 1);
    if !matches!(out.as_bytes().last(), None | Some(b' ' | b'\n' | b'[')) {
        bytes.push(b' ');
    }
    let mut row = None;
    for run in runs {
        if row.is_some_and(|y| y != run.y) {
            bytes.push(b'\n');
        }
        row = Some(run.y);
        for value in [run.x, run.y, run.length] {
            number::put_word_int(&mut bytes, value);
        }
        bytes.extend_from_slice(b" 1 re");
    }
    bytes.push(b'\n');
    number::push_ascii(out, &bytes);
}

/// The EPS procedures `runs` are written with: `y R` starts module row `y`, and `gap length P`
/// adds the rectangle of a run `gap` modules after the end of the previous one in the row.
#[cfg(feature = "eps")]
pub(crate) const EPS_RUN_PROCEDURES: &str = "/R{/Y exch def/X 0 def}bind def/P{exch X add dup Y moveto 1 index add/X exch def dup 0 rlineto 0 1 rlineto neg 0 rlineto closepath}bind def\n";

/// Appends `runs` with the procedures of [`EPS_RUN_PROCEDURES`]: about 5 bytes a run, where an
/// outline takes a coordinate pair per corner.
#[cfg(feature = "eps")]
pub(crate) fn push_runs_eps(out: &mut String, runs: &[Run]) {
    let mut bytes = Vec::with_capacity(runs.len() * 6 + 1);
    if !matches!(out.as_bytes().last(), None | Some(b' ' | b'\n' | b'[')) {
        bytes.push(b' ');
    }
    let (mut row, mut end, mut line_start) = (None, 0, 0);
    for run in runs {
        if row != Some(run.y) {
            if row.is_some() {
                bytes.push(b'\n');
                line_start = bytes.len();
            }
            row = Some(run.y);
            end = 0;
            number::put_word_int(&mut bytes, run.y);
            bytes.extend_from_slice(b" R");
        } else if bytes.len() - line_start > 200 {
            // DSC keeps lines under 255 characters.
            bytes.push(b'\n');
            line_start = bytes.len();
        }
        number::put_word_int(&mut bytes, run.x - end);
        number::put_word_int(&mut bytes, run.length);
        bytes.extend_from_slice(b" P");
        end = run.x + run.length;
    }
    bytes.push(b'\n');
    number::push_ascii(out, &bytes);
}

/// Appends the RGB of `color` as three fractions of 1.
pub(crate) fn push_rgb(out: &mut String, color: Color) {
    for channel in [color.r, color.g, color.b] {
        number::push_word(out, f32::from(channel) / 255.0);
    }
}

/// A logo resampled for print: straight RGB and alpha rows.
#[cfg(feature = "logo")]
pub(crate) struct PrintLogo {
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) rgb: Vec<u8>,
    pub(crate) alpha: Vec<u8>,
}

/// `logo` resampled to `width_points` x `height_points` at `dpi` (never more pixels than the
/// logo has: enlarging adds no detail), as straight RGB and alpha.
#[cfg(feature = "logo")]
pub(crate) fn resample_logo(
    logo: &super::logo::Logo,
    (width_points, height_points): (f64, f64),
    dpi: crate::options::Dpi,
) -> PrintLogo {
    use tiny_skia::{FilterQuality, Pixmap, PixmapPaint, Transform};
    let source = logo.pixmap();
    let inches = |points: f64| points / 72.0 * f64::from(dpi.dots_per_inch());
    let width = (inches(width_points).round() as u32).clamp(1, source.width());
    let height = (inches(height_points).round() as u32).clamp(1, source.height());
    let mut rgb = Vec::with_capacity((width * height * 3) as usize);
    let mut alpha = Vec::with_capacity((width * height) as usize);
    let Some(mut target) = Pixmap::new(width, height) else {
        return PrintLogo {
            width: 0,
            height: 0,
            rgb,
            alpha,
        };
    };
    let paint = PixmapPaint {
        quality: FilterQuality::Bicubic,
        ..PixmapPaint::default()
    };
    let transform = Transform::from_scale(
        width as f32 / source.width() as f32,
        height as f32 / source.height() as f32,
    );
    target.draw_pixmap(0, 0, source.as_ref(), &paint, transform, None);
    for pixel in target.pixels() {
        let straight = pixel.demultiply();
        rgb.extend_from_slice(&[straight.red(), straight.green(), straight.blue()]);
        alpha.push(straight.alpha());
    }
    PrintLogo {
        width,
        height,
        rgb,
        alpha,
    }
}

/// Appends the type 2 (axial) or 3 (radial) shading dictionary of `paint` in the user space of
/// `transform`, with `color` applied to both ends: PDF and PostScript Level 3 share its syntax.
pub(crate) fn push_shading_dictionary(
    out: &mut String,
    paint: &Paint,
    transform: &Transform,
    color: impl Fn(Color) -> Color,
) {
    let local = |p| transform.invert(p);
    let (kind, coords, from, to) = match *paint {
        Paint::Linear {
            start,
            end,
            from,
            to,
        } => {
            let (a, b) = (local(start), local(end));
            (2, vec![a.x, a.y, b.x, b.y], from, to)
        }
        Paint::Radial {
            center,
            radius,
            from,
            to,
        } => {
            let c = local(center);
            let r = radius / transform.scale();
            (3, vec![c.x, c.y, 0.0, c.x, c.y, r], from, to)
        }
        Paint::Solid(color) => (2, vec![0.0, 0.0, 1.0, 0.0], color, color),
    };
    let _ = write!(out, "<</ShadingType {kind}/ColorSpace/DeviceRGB/Coords[");
    for value in coords {
        number::push_word(out, value);
    }
    out.push_str("]/Extend[true true]/Function<</FunctionType 2/Domain[0 1]/C0[");
    push_rgb(out, color(from));
    out.push_str("]/C1[");
    push_rgb(out, color(to));
    out.push_str("]/N 1>>>>");
}
