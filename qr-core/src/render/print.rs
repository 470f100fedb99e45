//! What the PDF and EPS writers share: path operators in the PostScript form, colours as fractions, and the logo resampled for print.

use super::art::number;
use super::art::path::{Cubic, Path};
use crate::options::Color;

/// Appends `path` as PostScript/PDF path operators (`m`, `l`, `c`, `h`; EPS defines them).
pub(crate) fn push_path(out: &mut String, path: &Path) {
    path.for_each_cubic(|step| match step {
        Cubic::Move(p) => {
            number::push_word(out, p.x);
            number::push_word(out, p.y);
            out.push_str(" m");
        }
        Cubic::Line(p) => {
            number::push_word(out, p.x);
            number::push_word(out, p.y);
            out.push_str(" l");
        }
        Cubic::Curve(a, b, p) => {
            for value in [a.x, a.y, b.x, b.y, p.x, p.y] {
                number::push_word(out, value);
            }
            out.push_str(" c");
        }
        Cubic::Close => out.push_str(" h\n"),
    });
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
