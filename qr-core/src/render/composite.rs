//! PNG output with a logo: the modules drawn on an RGBA canvas, the logo scaled over them with tiny-skia.

use tiny_skia::{FilterQuality, Pixmap, PixmapPaint, Transform};

use super::drawing::{Drawing, LogoPlacement};
use super::layout::Layout;
use super::logo::Logo;
use crate::error::RenderError;
use crate::options::Color;

/// Renders an RGBA PNG of `drawing` with `logo` drawn over its cleared area.
pub(crate) fn encode(
    drawing: &Drawing<'_>,
    layout: &Layout,
    (color, background): (Color, Color),
    logo: &Logo,
    placement: &LogoPlacement,
) -> Result<Vec<u8>, RenderError> {
    let size = layout.size;
    let mut pixmap = Pixmap::new(size, size).ok_or(RenderError::SizeTooSmall {
        size,
        modules: layout.modules,
        minimum: layout.modules,
    })?;
    let premultiplied = |c: Color| {
        let scale = |v: u8| ((u16::from(v) * u16::from(c.a) + 127) / 255) as u8;
        [scale(c.r), scale(c.g), scale(c.b), c.a]
    };
    let background = premultiplied(background);
    let dark = premultiplied(color);
    let s = layout.module_pixels as usize;
    let offset = layout.offset as usize;
    let width = size as usize;
    {
        let data = pixmap.data_mut();
        for pixel in data.chunks_exact_mut(4) {
            pixel.copy_from_slice(&background);
        }
        for my in 0..drawing.size() {
            for mx in 0..drawing.size() {
                if !drawing.is_dark(mx, my) {
                    continue;
                }
                for py in offset + my * s..offset + (my + 1) * s {
                    let row = py * width;
                    for px in offset + mx * s..offset + (mx + 1) * s {
                        data[(row + px) * 4..(row + px + 1) * 4].copy_from_slice(&dark);
                    }
                }
            }
        }
    }
    finish(pixmap, logo, placement)
}

/// Renders an RGBA PNG of premultiplied `pixels` (a styled image of `size` pixels) with `logo`
/// drawn over its cleared area.
#[cfg(feature = "style")]
pub(crate) fn encode_pixels(
    size: u32,
    pixels: Vec<[u8; 4]>,
    logo: &Logo,
    placement: &LogoPlacement,
) -> Result<Vec<u8>, RenderError> {
    let bytes: Vec<u8> = pixels.into_iter().flatten().collect();
    let pixmap = tiny_skia::IntSize::from_wh(size, size)
        .and_then(|area| Pixmap::from_vec(bytes, area))
        .ok_or_else(|| RenderError::PngEncoding("the image has no pixels".into()))?;
    finish(pixmap, logo, placement)
}

/// Draws `logo` over `pixmap` at `placement` and encodes the result.
fn finish(
    mut pixmap: Pixmap,
    logo: &Logo,
    placement: &LogoPlacement,
) -> Result<Vec<u8>, RenderError> {
    let source = logo.pixmap();
    let transform = Transform::from_row(
        placement.width / source.width() as f32,
        0.0,
        0.0,
        placement.height / source.height() as f32,
        placement.x,
        placement.y,
    );
    let paint = PixmapPaint {
        quality: FilterQuality::Bicubic,
        ..PixmapPaint::default()
    };
    pixmap.draw_pixmap(0, 0, source.as_ref(), &paint, transform, None);
    pixmap
        .encode_png()
        .map_err(|error| RenderError::PngEncoding(error.to_string()))
}
