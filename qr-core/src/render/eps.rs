//! EPS output: Encapsulated PostScript of the print size, the code as filled paths with one-letter procedures, gradients as Level 3 shadings.
//!
//! PostScript has no transparency: translucent colours are composited over white paper (a
//! fully transparent background is simply not painted), and a logo over the background.

use std::io::Write as _;

use super::art::path::Transform;
use super::art::{Art, Layer, Paint, number};
use super::print::{
    EPS_CAPSULE_PROCEDURES, EPS_DOT_PROCEDURE, EPS_ROW_PROCEDURE, EPS_RUN_PROCEDURE,
    push_capsules_eps, push_dots_eps, push_outline, push_path, push_rgb, push_runs_eps,
    push_shading_dictionary,
};
use crate::options::{Color, Dpi, PrintSize};

/// Writes `art` as an EPS document `print_size` wide; a logo is resampled at `dpi`.
pub(crate) fn encode(art: &Art<'_>, print_size: PrintSize, dpi: Dpi) -> Vec<u8> {
    let page = print_size.points();
    let points_per_pixel = page / f64::from(art.size);
    let layers = art.layers(true);
    let shaded = layers.iter().any(|l| !matches!(l.paint, Paint::Solid(_)));
    let has_runs = layers.iter().any(|l| !l.runs.is_empty());
    let has_dots = layers.iter().any(|l| !l.dots.modules.is_empty());
    let has_capsules = layers.iter().any(|l| !l.capsules.is_empty());
    let mut body: Vec<u8> = Vec::with_capacity(4096);
    let paper = Color::WHITE;
    let opaque = |c: Color| c.over(paper);
    let k = points_per_pixel as f32;
    body.extend_from_slice(b"gsave 0");
    number::push_word(&mut body, page as f32);
    body.extend_from_slice(b" translate");
    number::push_word(&mut body, k);
    number::push_word(&mut body, -k);
    body.extend_from_slice(b" scale\n");
    if art.background.a != 0 {
        push_rgb(&mut body, opaque(art.background));
        let s = art.size as f32;
        body.extend_from_slice(b" r 0 0 m");
        for (x, y) in [(s, 0.0), (s, s), (0.0, s)] {
            number::push_word(&mut body, x);
            number::push_word(&mut body, y);
            body.extend_from_slice(b" l");
        }
        body.extend_from_slice(b" h f\n");
    }
    for layer in &layers {
        body.extend_from_slice(b"gsave");
        push_transform(&mut body, &layer.transform);
        match layer.paint {
            Paint::Solid(color) => {
                push_rgb(&mut body, opaque(color));
                body.extend_from_slice(b" r\n");
                push_shape(&mut body, layer);
                body.extend_from_slice(if layer.even_odd { b"F" } else { b"f" });
            }
            paint => {
                push_shape(&mut body, layer);
                body.extend_from_slice(if layer.even_odd {
                    b"eoclip newpath\n"
                } else {
                    b"clip newpath\n"
                });
                push_shading(&mut body, &paint, &layer.transform, opaque);
            }
        }
        body.extend_from_slice(b" grestore\n");
    }
    #[cfg(feature = "logo")]
    if let Some((logo, placement)) = &art.logo {
        let size = (
            f64::from(placement.width) * points_per_pixel,
            f64::from(placement.height) * points_per_pixel,
        );
        let image = super::print::resample_logo(logo, size, dpi);
        if image.width > 0 {
            body.extend_from_slice(b"gsave");
            for value in [placement.x, placement.y + placement.height] {
                number::push_word(&mut body, value);
            }
            body.extend_from_slice(b" translate");
            number::push_word(&mut body, placement.width);
            number::push_word(&mut body, -placement.height);
            let (w, h) = (image.width, image.height);
            let _ = write!(
                body,
                " scale /DeviceRGB setcolorspace\n<</ImageType 1/Width {w}/Height {h}/BitsPerComponent 8/Decode[0 1 0 1 0 1]/ImageMatrix[{w} 0 0 -{h} 0 {h}]/DataSource currentfile/ASCIIHexDecode filter>>image\n"
            );
            // The logo over the background it covers (white paper when that is transparent).
            let under = opaque(art.background);
            for (i, (rgb, &alpha)) in image.rgb.chunks_exact(3).zip(&image.alpha).enumerate() {
                let pixel = Color {
                    r: rgb[0],
                    g: rgb[1],
                    b: rgb[2],
                    a: alpha,
                }
                .over(under);
                let _ = write!(body, "{:02x}{:02x}{:02x}", pixel.r, pixel.g, pixel.b);
                if i % 24 == 23 {
                    body.push(b'\n');
                }
            }
            body.extend_from_slice(b">\ngrestore\n");
        }
    }
    #[cfg(not(feature = "logo"))]
    let _ = dpi;
    body.extend_from_slice(b"grestore\n");

    let box_side = page.ceil() as u32;
    let mut eps: Vec<u8> = Vec::with_capacity(body.len() + 512);
    let _ = write!(
        eps,
        "%!PS-Adobe-3.0 EPSF-3.0\n%%Creator: qr-core\n%%BoundingBox: 0 0 {box_side} {box_side}\n%%HiResBoundingBox: 0 0 {page:.3} {page:.3}\n%%LanguageLevel: {}\n%%Pages: 1\n%%EndComments\n%%BeginProlog\n/m/moveto load def/l/lineto load def/c/curveto load def/h/closepath load def/f/fill load def/F/eofill load def/r/setrgbcolor load def\n{row}{runs}{dots}{capsules}%%EndProlog\n%%Page: 1 1\n",
        if shaded { 3 } else { 2 },
        row = if has_runs || has_dots {
            EPS_ROW_PROCEDURE
        } else {
            ""
        },
        runs = if has_runs { EPS_RUN_PROCEDURE } else { "" },
        dots = if has_dots { EPS_DOT_PROCEDURE } else { "" },
        capsules = if has_capsules {
            EPS_CAPSULE_PROCEDURES
        } else {
            ""
        },
    );
    eps.extend_from_slice(&body);
    eps.extend_from_slice(b"showpage\n%%EOF\n");
    eps
}

/// Appends the path of `layer`: its general path, figures, runs and discs.
fn push_shape(out: &mut Vec<u8>, layer: &Layer) {
    push_path(out, &layer.path, layer.whole_units);
    push_outline(out, &layer.outline);
    push_runs_eps(out, &layer.runs);
    push_dots_eps(out, &layer.dots);
    push_capsules_eps(out, &layer.capsules);
}

/// Appends `transform` as a `concat` (nothing for the identity).
fn push_transform(out: &mut Vec<u8>, t: &Transform) {
    if *t == Transform::IDENTITY {
        return;
    }
    out.extend_from_slice(b" [");
    for value in [t.sx, 0.0, 0.0, t.sy, t.tx, t.ty] {
        number::push_exact_word(out, value);
    }
    out.extend_from_slice(b"] concat\n");
}

/// Appends a Level 3 `shfill` of `paint` in the user space of `transform`.
fn push_shading(
    out: &mut Vec<u8>,
    paint: &Paint,
    transform: &Transform,
    opaque: impl Fn(Color) -> Color,
) {
    push_shading_dictionary(out, paint, transform, opaque);
    out.extend_from_slice(b"shfill");
}
