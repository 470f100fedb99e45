//! From a code and options to the styled image's art: the frame's plan, the code's layout in the room it leaves, the logo's place and the paints.

use super::RenderOptions;
use super::art::{self, Art, Symbol};
use super::drawing::Drawing;
use super::layout::Layout;
use crate::encode::QrCode;
use crate::error::RenderError;

/// The square the code and its quiet zone take: x, y and side in pixels (the whole image
/// without a frame).
pub(crate) fn code_area(options: &RenderOptions, size: u32) -> (u32, u32, u32) {
    #[cfg(feature = "frame")]
    {
        super::frame::FramePlan::new(size, &options.frame).area
    }
    #[cfg(not(feature = "frame"))]
    {
        let _ = options;
        (0, 0, size)
    }
}

/// Lays `code` out in the room `options` leave it, naming the smallest image size that works
/// when the code does not fit.
pub(crate) fn layout(
    code: &QrCode,
    options: &RenderOptions,
) -> Result<(Layout, (u32, u32)), RenderError> {
    let size = options.size.pixels();
    let (x, y, side) = code_area(options, size);
    let total = code.size() as u32 + 2 * u32::from(options.margin.modules());
    match Layout::new(
        side,
        code.size() as u32,
        u32::from(options.margin.modules()),
    ) {
        Ok(layout) => Ok((layout, (x + layout.offset, y + layout.offset))),
        Err(_) => {
            // The smallest image whose code area gives every module a pixel.
            let minimum = (size..=crate::options::Size::MAX)
                .find(|&s| code_area(options, s).2 >= total)
                .unwrap_or(crate::options::Size::MAX);
            Err(RenderError::SizeTooSmall {
                size,
                modules: total,
                minimum,
            })
        }
    }
}

/// The art of `code` drawn with `options`.
pub(crate) fn art<'a>(
    code: &'a QrCode,
    options: &'a RenderOptions,
) -> Result<Art<'a>, RenderError> {
    let size = options.size.pixels();
    let (layout, origin) = layout(code, options)?;
    let area = code_area(options, size);
    let (area_x, area_y, _) = area;
    #[cfg(feature = "logo")]
    let (drawing, logo) = match &options.logo {
        Some(logo) => {
            let drawing = Drawing::with_logo(code, logo, &layout, options.logo_size);
            let logo = drawing.logo().map(|(logo, placement)| {
                let mut placement = *placement;
                placement.x += area_x as f32;
                placement.y += area_y as f32;
                (logo, placement)
            });
            (drawing, logo)
        }
        None => (Drawing::new(code), None),
    };
    #[cfg(not(feature = "logo"))]
    let (drawing, logo) = {
        let _ = (area_x, area_y);
        (Drawing::new(code), std::marker::PhantomData)
    };
    let paints = art::paints(
        options.color,
        options.gradient.as_ref(),
        options.finder_color,
        &layout,
        origin,
    );
    let symbol = Symbol::new(
        art::drawn_rows(&drawing),
        &layout,
        origin,
        (options.style, options.finder_style),
        paints,
    );
    #[cfg(feature = "frame")]
    let frame = super::frame::FramePlan::new(size, &options.frame).layer(
        size,
        &options.frame,
        options.frame.color.unwrap_or(options.color),
    );
    #[cfg(not(feature = "frame"))]
    let frame = None;
    Ok(Art {
        size,
        background: options.background,
        symbol,
        frame,
        #[cfg(all(feature = "style", feature = "png"))]
        code_area: area,
        logo,
    })
}
