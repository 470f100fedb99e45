//! What the PDF and EPS writers share: path operators in the PostScript form, colours as fractions, and the logo resampled for print.

use std::io::Write as _;

#[cfg(feature = "pdf")]
use super::art::outline::CAPSULE_RADIUS;
#[cfg(feature = "eps")]
use super::art::outline::Dots;
use super::art::outline::{Capsule, Outline, STEPS, Step};
use super::art::path::{Cubic, Path, Transform};
use super::art::{Paint, Run, number};
use crate::options::Color;

/// Appends `path` as PDF and PostScript path operators (`m`, `l`, `c`, `h`; EPS defines them)
/// in absolute coordinates, whole numbers if `whole` (see `Layer::whole_units`).
///
/// The operators are written as bytes and handed over once: checking each number's UTF-8
/// cost a rounded PDF 175 thousand instructions, more than formatting it.
pub(crate) fn push_path(out: &mut Vec<u8>, path: &Path, whole: bool) {
    if path.is_empty() {
        return;
    }
    out.reserve(path.segments.len() * 40 + 16);
    let bytes = out;
    if !matches!(bytes.last(), None | Some(b' ' | b'\n' | b'[')) {
        bytes.push(b' ');
    }
    let mut words = number::Words::new();
    let put = |words: &mut number::Words, points: &[f32]| {
        for &value in points {
            words.number(number::thousandths_in(value, whole));
        }
    };
    path.for_each_cubic(|step| {
        words.clear();
        match step {
            Cubic::Move(p) => {
                put(&mut words, &[p.x, p.y]);
                words.text(b" m");
            }
            Cubic::Line(p) => {
                put(&mut words, &[p.x, p.y]);
                words.text(b" l");
            }
            Cubic::Curve(a, b, p) => {
                put(&mut words, &[a.x, a.y, b.x, b.y, p.x, p.y]);
                words.text(b" c");
            }
            Cubic::Close => words.text(b" h\n"),
        }
        // Every number follows a space, but a figure's first after its line break.
        words.append_to(bytes);
    });
}

/// Kappa, the distance of a cubic's control points from its ends that draws a quarter circle
/// of radius 1 (within 0.03 % of the radius).
const KAPPA: f64 = 0.552_284_749_8;

/// Kappa times `radius` (thousandths), rounded to hundredths of a module: control points then
/// have two decimals (`.28` for a half module's 0.276), a byte less in four of a curve's six
/// numbers, which the content stream's coding and formatting pay for by the byte. The curve
/// moves by at most 0.002 module (0.4 % of a half module's radius at its middle): 2.5 µm at
/// 50 mm, a thousandth of a millimetre per 20 mm of print.
fn handle(radius: i32) -> i32 {
    ((f64::from(radius) * KAPPA / 10.0).round() * 10.0) as i32
}

/// Appends the figures of `outline` as PDF and PostScript path operators in absolute
/// coordinates, straight from its whole thousandths (no floating point but kappa's product
/// per radius): each quarter arc's control points lie kappa times the radius along the sides
/// it leaves and joins.
pub(crate) fn push_outline(out: &mut Vec<u8>, outline: &Outline) {
    if outline.is_empty() {
        return;
    }
    out.reserve(outline.turns.len() * 48 + 16);
    let bytes = out;
    if !matches!(bytes.last(), None | Some(b' ' | b'\n' | b'[')) {
        bytes.push(b' ');
    }
    let (mut x0, mut y0) = (0, 0);
    // Kappa times the last radius (radii repeat: one multiplication per new radius).
    let mut handle = (0, 0);
    // One buffer for every step (clearing it is a length; a new one is 192 zeroed bytes).
    let mut words = number::Words::new();
    outline.for_each(|step| {
        // Every number follows a space, but a figure's first after its line break.
        words.clear();
        match step {
            Step::Move(x, y) => {
                words.number(i64::from(x));
                words.number(i64::from(y));
                words.text(b" m");
                (x0, y0) = (x, y);
            }
            Step::Line(x, y) => {
                words.number(i64::from(x));
                words.number(i64::from(y));
                words.text(b" l");
                (x0, y0) = (x, y);
            }
            Step::Arc {
                x,
                y,
                radius,
                incoming,
                outgoing,
            } => {
                if handle.0 != radius {
                    handle = (radius, self::handle(radius));
                }
                let k = handle.1;
                let (ix, iy) = STEPS[usize::from(incoming)];
                let (ox, oy) = STEPS[usize::from(outgoing)];
                for value in [x0 + ix * k, y0 + iy * k, x - ox * k, y - oy * k, x, y] {
                    words.number(i64::from(value));
                }
                words.text(b" c");
                (x0, y0) = (x, y);
            }
            Step::Close => words.text(b" h\n"),
        }
        words.append_to(bytes);
    });
}

/// Appends `runs` as PDF rectangles, `x y length 1 re` each, a line per row of modules.
#[cfg(feature = "pdf")]
pub(crate) fn push_runs_pdf(out: &mut Vec<u8>, runs: &[Run]) {
    if runs.is_empty() {
        return;
    }
    out.reserve(runs.len() * 14 + 1);
    let bytes = out;
    if !matches!(bytes.last(), None | Some(b' ' | b'\n' | b'[')) {
        bytes.push(b' ');
    }
    let mut row = None;
    for run in runs {
        if row.is_some_and(|y| y != run.y) {
            bytes.push(b'\n');
        }
        row = Some(run.y);
        for value in [run.x, run.y, run.length] {
            number::put_word_int(bytes, value);
        }
        bytes.extend_from_slice(b" 1 re");
    }
    bytes.push(b'\n');
}

/// The EPS procedure that starts module row `y` (`y R`) for [`EPS_RUN_PROCEDURE`] and
/// [`EPS_DOT_PROCEDURE`].
#[cfg(feature = "eps")]
pub(crate) const EPS_ROW_PROCEDURE: &str = "/R{/Y exch def/X 0 def}bind def";

/// The EPS procedure `runs` are written with, after `y R`: `gap length P` adds the rectangle
/// of a run `gap` modules after the end of the previous one in the row.
#[cfg(feature = "eps")]
pub(crate) const EPS_RUN_PROCEDURE: &str = "/P{exch X add dup Y moveto 1 index add/X exch def dup 0 rlineto 0 1 rlineto neg 0 rlineto closepath}bind def\n";

/// Appends `runs` with the procedures of [`EPS_ROW_PROCEDURE`] and [`EPS_RUN_PROCEDURE`]: about 5 bytes a run, where an
/// outline takes a coordinate pair per corner.
#[cfg(feature = "eps")]
pub(crate) fn push_runs_eps(out: &mut Vec<u8>, runs: &[Run]) {
    if runs.is_empty() {
        return;
    }
    out.reserve(runs.len() * 6 + 1);
    let bytes = out;
    if !matches!(bytes.last(), None | Some(b' ' | b'\n' | b'[')) {
        bytes.push(b' ');
    }
    let (mut row, mut end, mut line_start) = (None, 0, bytes.len());
    for run in runs {
        if row != Some(run.y) {
            if row.is_some() {
                bytes.push(b'\n');
                line_start = bytes.len();
            }
            row = Some(run.y);
            end = 0;
            number::put_word_int(bytes, run.y);
            bytes.extend_from_slice(b" R");
        } else if bytes.len() - line_start > 200 {
            // DSC keeps lines under 255 characters.
            bytes.push(b'\n');
            line_start = bytes.len();
        }
        number::put_word_int(bytes, run.x - end);
        number::put_word_int(bytes, run.length);
        bytes.extend_from_slice(b" P");
        end = run.x + run.length;
    }
    bytes.push(b'\n');
}

/// The PDF form every disc of a dots layer paints: a disc of half a module in the square from
/// (0, 0) to (1, 1), filled in the colour of the moment it is painted.
#[cfg(feature = "pdf")]
pub(crate) const PDF_DISC_FORM: &str =
    "0 .5 m 0 .224 .224 0 .5 0 c .776 0 1 .224 1 .5 c 1 .776 .776 1 .5 1 c .224 1 0 .776 0 .5 c f";

/// The PDF form of a capsule's end: a disc of [`CAPSULE_RADIUS`] in the square from (0, 0) to
/// (0.8, 0.8).
#[cfg(feature = "pdf")]
pub(crate) const PDF_END_FORM: &str = "0 .4 m 0 .179 .179 0 .4 0 c .621 0 .8 .179 .8 .4 c .8 .621 .621 .8 .4 .8 c .179 .8 0 .621 0 .4 c f";

/// Appends the capsules' straight middles as rectangles, `x y w h re` from the first end's
/// centre to the last one's, [`CAPSULE_RADIUS`] either side; their ends are discs painted with
/// [`push_forms_pdf`] (see [`capsule_ends`]).
#[cfg(feature = "pdf")]
pub(crate) fn push_capsule_middles_pdf(out: &mut Vec<u8>, capsules: &[Capsule]) {
    if capsules.is_empty() {
        return;
    }
    out.reserve(capsules.len() * 24 + 1);
    let bytes = out;
    if !matches!(bytes.last(), None | Some(b' ' | b'\n' | b'[')) {
        bytes.push(b' ');
    }
    let r = CAPSULE_RADIUS;
    for capsule in capsules {
        let ((x0, y0), (x1, y1)) = capsule.ends();
        for value in [x0 - (y1 - y0).signum() * r, y0 - (x1 - x0).signum() * r] {
            number::put_thousandths(bytes, i64::from(value));
            bytes.push(b' ');
        }
        let (w, h) = if capsule.vertical {
            (2 * r, y1 - y0)
        } else {
            (x1 - x0, 2 * r)
        };
        number::put_thousandths(bytes, i64::from(w));
        bytes.push(b' ');
        number::put_thousandths(bytes, i64::from(h));
        bytes.extend_from_slice(b" re\n");
    }
}

/// Where the discs of the capsules' ends go: the corner of each end's form, in thousandths.
#[cfg(feature = "pdf")]
pub(crate) fn capsule_ends(capsules: &[Capsule]) -> impl Iterator<Item = (i64, i64)> + '_ {
    let r = i64::from(CAPSULE_RADIUS);
    capsules.iter().flat_map(move |capsule| {
        let (a, b) = capsule.ends();
        [a, b].map(|(x, y)| (i64::from(x) - r, i64::from(y) - r))
    })
}

/// Appends form XObjects painted at `places` (the forms' corners in thousandths, with the
/// form's name), each moved to by a `1 0 0 1 dx dy cm` step from the previous one: about 20
/// bytes a disc, where its four curves take 115, and the same bytes over and over, which the
/// content stream's compression takes almost whole. The discs never overlap one another (their
/// circles touch at most at a point) and those of capsule ends overlap only their own opaque
/// capsule, so painting each on its own draws the same image as one path.
#[cfg(feature = "pdf")]
pub(crate) fn push_forms_pdf(
    out: &mut Vec<u8>,
    places: impl Iterator<Item = (i64, i64, &'static str)>,
) {
    out.reserve(4096);
    let bytes = out;
    bytes.extend_from_slice(b" q\n");
    let (mut x0, mut y0) = (0i64, 0i64);
    for (x, y, name) in places {
        bytes.extend_from_slice(b"1 0 0 1 ");
        number::put_thousandths(bytes, x - x0);
        bytes.push(b' ');
        number::put_thousandths(bytes, y - y0);
        bytes.extend_from_slice(b" cm/");
        bytes.extend_from_slice(name.as_bytes());
        bytes.extend_from_slice(b" Do\n");
        (x0, y0) = (x, y);
    }
    bytes.push(b'Q');
}

/// The EPS procedure `dots` are written with, after `y R` (of [`EPS_ROW_PROCEDURE`]):
/// `gap D` adds the disc of the module `gap` modules after the previous disc of the row.
#[cfg(feature = "eps")]
pub(crate) const EPS_DOT_PROCEDURE: &str = "/D{X add dup 1 add/X exch def dup 1 add Y .5 add moveto .5 add Y .5 add .5 0 360 arc closepath}bind def\n";

/// The EPS procedures capsules are written with: `x0 y x1 H` a horizontal one between the
/// centres (`x0`, `y`) and (`x1`, `y`), `x y0 y1 V` a vertical one, both with arcs turning the
/// same way as every other figure (the nonzero rule fills where they cross).
#[cfg(feature = "eps")]
pub(crate) const EPS_CAPSULE_PROCEDURES: &str = "/H{/B exch def/C exch def/A exch def B C .4 sub moveto B C .4 -90 90 arc A C .4 90 270 arc closepath}bind def/V{/B exch def/A exch def/C exch def C .4 add B moveto C B .4 0 180 arc C A .4 180 360 arc closepath}bind def\n";

/// Appends `capsules` with the procedures of [`EPS_CAPSULE_PROCEDURES`].
#[cfg(feature = "eps")]
pub(crate) fn push_capsules_eps(out: &mut Vec<u8>, capsules: &[Capsule]) {
    if capsules.is_empty() {
        return;
    }
    out.reserve(capsules.len() * 16 + 1);
    let bytes = out;
    if !matches!(bytes.last(), None | Some(b' ' | b'\n' | b'[')) {
        bytes.push(b' ');
    }
    for (i, capsule) in capsules.iter().enumerate() {
        let ((x0, y0), (x1, y1)) = capsule.ends();
        let (values, name) = if capsule.vertical {
            ([x0, y0, y1], b" V")
        } else {
            ([x0, y0, x1], b" H")
        };
        for (k, value) in values.into_iter().enumerate() {
            if k > 0 {
                bytes.push(b' ');
            }
            number::put_thousandths(bytes, i64::from(value));
        }
        bytes.extend_from_slice(name);
        // A line every 12 capsules: DSC keeps lines under 255 characters.
        bytes.push(if i % 12 == 11 { b'\n' } else { b' ' });
    }
    bytes.push(b'\n');
}

/// Appends `dots` with the procedure of [`EPS_DOT_PROCEDURE`]: about 3 bytes a disc.
#[cfg(feature = "eps")]
pub(crate) fn push_dots_eps(out: &mut Vec<u8>, dots: &Dots) {
    if dots.modules.is_empty() {
        return;
    }
    out.reserve(dots.modules.len() * 4 + 1);
    let bytes = out;
    if !matches!(bytes.last(), None | Some(b' ' | b'\n' | b'[')) {
        bytes.push(b' ');
    }
    let (mut row, mut end, mut line_start) = (None, 0, bytes.len());
    for &(x, y) in &dots.modules {
        if row != Some(y) {
            if row.is_some() {
                bytes.push(b'\n');
                line_start = bytes.len();
            }
            row = Some(y);
            end = 0;
            number::put_word_int(bytes, y);
            bytes.extend_from_slice(b" R");
        } else if bytes.len() - line_start > 200 {
            // DSC keeps lines under 255 characters.
            bytes.push(b'\n');
            line_start = bytes.len();
        }
        number::put_word_int(bytes, x - end);
        bytes.extend_from_slice(b" D");
        end = x + 1;
    }
    bytes.push(b'\n');
}

/// Appends the RGB of `color` as three fractions of 1.
pub(crate) fn push_rgb(out: &mut Vec<u8>, color: Color) {
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
    out: &mut Vec<u8>,
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
    out.extend_from_slice(b"]/Extend[true true]/Function<</FunctionType 2/Domain[0 1]/C0[");
    push_rgb(out, color(from));
    out.extend_from_slice(b"]/C1[");
    push_rgb(out, color(to));
    out.extend_from_slice(b"]/N 1>>>>");
}
