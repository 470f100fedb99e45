//! Micro QR images: a [`MicroQrCode`] as a plain PNG or SVG at an exact size (square modules, one colour, no logo, frame or style).
//!
//! Micro QR symbols are 11 to 17 modules wide; readers locate them by their one finder pattern
//! and need a quiet zone of 2 modules (ISO/IEC 18004 section 6.3.8), which callers pass as the
//! options' margin. The PNG is 1-bit with a two-entry palette (and tRNS when a colour has alpha),
//! compressed by the crate's scanline deflate; the SVG is one filled path of module runs.

use super::RenderOptions;
use super::layout::Layout;
use crate::error::RenderError;
use crate::micro::MicroQrCode;
use crate::options::{Format, FrameStyle, ModuleStyle, SvgMode};

/// Renders `code` in `options.format` (PNG or SVG) at `options.size` pixels with
/// `options.margin` modules of quiet zone (the standard asks for at least 2), dark modules in
/// `options.color` on `options.background`; a PNG carries `options.dpi` as its pHYs chunk.
///
/// Micro QR symbols are drawn plain: a module or finder style, finder colour, gradient, frame,
/// outline SVG, logo, or a PDF or EPS format is refused with [`RenderError::NotForMicro`]
/// naming the option.
///
/// ```
/// use qr_core::{EcLevel, Format, Margin, MicroQrCode, RenderOptions, render_micro};
///
/// let code = MicroQrCode::encode(b"12345", EcLevel::L)?;
/// let options = RenderOptions::default().with_margin(Margin::new(2));
/// let png = render_micro(&code, &options)?;
/// assert!(png.starts_with(b"\x89PNG"));
/// let svg = render_micro(&code, &options.with_format(Format::Svg))?;
/// assert!(svg.starts_with(b"<svg"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn render_micro(code: &MicroQrCode, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    if let Some(option) = unsupported_option(options) {
        return Err(RenderError::NotForMicro { option });
    }
    let layout = Layout::new(
        options.size.pixels(),
        code.size() as u32,
        u32::from(options.margin.modules()),
    )?;
    match options.format {
        #[cfg(feature = "png")]
        Format::Png => {
            let png = png(code, &layout, options);
            Ok(match options.dpi {
                Some(dpi) => super::png::with_resolution(png, dpi),
                None => png,
            })
        }
        #[cfg(feature = "svg")]
        Format::Svg => Ok(svg(code, &layout, options).into_bytes()),
        format => Err(RenderError::FormatNotEnabled { format }),
    }
}

/// The first option a Micro QR image cannot honour, by its name in [`RenderOptions`].
fn unsupported_option(options: &RenderOptions) -> Option<&'static str> {
    #[cfg(feature = "logo")]
    if options.logo.is_some() {
        return Some("logo");
    }
    if options.style != ModuleStyle::Square {
        return Some("style");
    }
    if options.finder_style != crate::options::FinderStyle::Square {
        return Some("finder_style");
    }
    if options.finder_color.is_some() {
        return Some("finder_color");
    }
    if options.gradient.is_some() {
        return Some("gradient");
    }
    if options.frame.style != FrameStyle::None {
        return Some("frame");
    }
    if options.svg_mode != SvgMode::Compact {
        return Some("svg_mode");
    }
    if options.format.is_print() {
        return Some("format");
    }
    None
}

/// The 1-bit PNG: palette index 0 is the background, 1 the dark modules.
#[cfg(feature = "png")]
fn png(code: &MicroQrCode, layout: &Layout, options: &RenderOptions) -> Vec<u8> {
    let size = layout.size as usize;
    let stride = 1 + size.div_ceil(8);
    let (s, offset) = (layout.module_pixels as usize, layout.offset as usize);
    let mut raw = vec![0u8; stride * size];
    for my in 0..code.size() {
        let mut row = vec![0u8; stride];
        for mx in (0..code.size()).filter(|&mx| code.is_dark(mx, my)) {
            for px in offset + mx * s..offset + (mx + 1) * s {
                row[1 + px / 8] |= 0x80 >> (px % 8);
            }
        }
        for py in offset + my * s..offset + (my + 1) * s {
            raw[py * stride..(py + 1) * stride].copy_from_slice(&row);
        }
    }
    let (color, background) = (options.color, options.background);
    let mut png = Vec::with_capacity(raw.len() / 8 + 100);
    png.extend_from_slice(b"\x89PNG\r\n\x1a\n");
    let mut header = [0u8; 13];
    header[0..4].copy_from_slice(&layout.size.to_be_bytes());
    header[4..8].copy_from_slice(&layout.size.to_be_bytes());
    header[8] = 1; // Bit depth.
    header[9] = 3; // Indexed colour.
    super::png::chunk(&mut png, b"IHDR", &header);
    let palette = [
        background.r,
        background.g,
        background.b,
        color.r,
        color.g,
        color.b,
    ];
    super::png::chunk(&mut png, b"PLTE", &palette);
    if !(color.is_opaque() && background.is_opaque()) {
        super::png::chunk(&mut png, b"tRNS", &[background.a, color.a]);
    }
    let compressed = crate::deflate::zlib_compress(&raw, stride);
    super::png::chunk(&mut png, b"IDAT", &compressed);
    super::png::chunk(&mut png, b"IEND", &[]);
    png
}

/// The SVG: a background rectangle (left out when fully transparent) and one filled path with a
/// rectangle per horizontal run of dark modules, in module units scaled by a transform.
#[cfg(feature = "svg")]
fn svg(code: &MicroQrCode, layout: &Layout, options: &RenderOptions) -> String {
    use std::fmt::Write as _;

    let size = layout.size;
    let mut svg = format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{size}" height="{size}" viewBox="0 0 {size} {size}" shape-rendering="crispEdges">"#
    );
    if options.background.a != 0 {
        svg.push_str(r#"<path fill=""#);
        super::svg::push_color(&mut svg, options.background, "fill");
        let _ = write!(svg, r#" d="M0 0h{size}v{size}H0z"/>"#);
    }
    let mut data = String::new();
    for y in 0..code.size() {
        let mut x = 0;
        while x < code.size() {
            if !code.is_dark(x, y) {
                x += 1;
                continue;
            }
            let start = x;
            while x < code.size() && code.is_dark(x, y) {
                x += 1;
            }
            let _ = write!(data, "M{start} {y}h{}v1H{start}z", x - start);
        }
    }
    if !data.is_empty() && options.color.a != 0 {
        let (s, o) = (layout.module_pixels, layout.offset);
        svg.push_str(r#"<path fill=""#);
        super::svg::push_color(&mut svg, options.color, "fill");
        let _ = write!(
            svg,
            r#" transform="matrix({s},0,0,{s},{o},{o})" d="{data}"/>"#
        );
    }
    svg.push_str("</svg>");
    svg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::options::{Margin, Size};
    use crate::{EcLevel, Gradient, GradientKind};

    fn code() -> MicroQrCode {
        MicroQrCode::encode(b"01234567", EcLevel::L).expect("fits M2")
    }

    #[test]
    #[cfg(feature = "svg")]
    fn the_layout_gives_whole_pixels_and_a_centred_symbol() {
        // M2 is 13 modules; with a 2-module quiet zone, 17 modules in 100 px are 5 px each and
        // 15 px left over, 7 on the left and top.
        let options = RenderOptions::default()
            .with_size(Size::new(100).expect("valid"))
            .with_margin(Margin::new(2))
            .with_format(Format::Svg);
        let svg = String::from_utf8(render_micro(&code(), &options).expect("renders")).unwrap();
        assert!(svg.contains(r#"width="100" height="100""#), "{svg}");
        assert!(svg.contains("matrix(5,0,0,5,17,17)"), "{svg}");
    }

    #[test]
    fn styles_and_print_formats_are_refused_by_name() {
        let plain = RenderOptions::default();
        let cases = [
            (plain.clone().with_style(ModuleStyle::Dots), "style"),
            (
                plain
                    .clone()
                    .with_gradient(Gradient::new(GradientKind::Linear, crate::Color::WHITE)),
                "gradient",
            ),
            (plain.clone().with_svg_mode(SvgMode::Outline), "svg_mode"),
            (plain.clone().with_format(Format::Pdf), "format"),
        ];
        for (options, option) in cases {
            assert_eq!(
                render_micro(&code(), &options),
                Err(RenderError::NotForMicro { option })
            );
        }
    }

    #[test]
    fn too_small_an_image_names_the_minimum() {
        let options = RenderOptions::default()
            .with_size(Size::new(16).expect("valid"))
            .with_margin(Margin::new(2));
        assert_eq!(
            render_micro(&code(), &options),
            Err(RenderError::SizeTooSmall {
                size: 16,
                modules: 17,
                minimum: 17
            })
        );
    }
}
