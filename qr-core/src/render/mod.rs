//! Rendering: a module matrix to PNG, SVG or terminal text at an exact pixel size, with an optional logo.

mod layout;
mod logo;
mod png;
mod svg;
mod terminal;

use tiny_skia::{FilterQuality, Pixmap, PixmapPaint, Transform};

pub use layout::Layout;
pub use logo::{Logo, MAX_LOGO_DIMENSION};
pub use terminal::render_terminal;

use crate::encode::{EncodeOptions, QrCode};
use crate::error::RenderError;
use crate::options::{Color, Format, LogoSize, Margin, Size};
use crate::version::EcLevel;
use crate::version::Version;
use logo::{LogoPlacement, logo_fits, min_version_for_logo};

/// The most characters of data the service accepts (the byte capacity of version 40 at level L).
pub const MAX_DATA_CHARS: usize = 2953;

/// Everything that shapes an image, with the service's defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct RenderOptions {
    /// Width and height in pixels (default 300).
    pub size: Size,
    /// PNG or SVG (default PNG).
    pub format: Format,
    /// The colour of dark modules (default black).
    pub color: Color,
    /// The colour of light modules and the quiet zone (default white).
    pub background: Color,
    /// The lowest error-correction level (default M); a logo raises it to H.
    pub ec_level: EcLevel,
    /// The quiet zone in modules (default 4).
    pub margin: Margin,
    /// A logo to place in the centre.
    pub logo: Option<Logo>,
    /// The logo's width as a percentage of the code's width (default 20).
    pub logo_size: LogoSize,
}

impl Default for RenderOptions {
    fn default() -> Self {
        RenderOptions {
            size: Size::default(),
            format: Format::default(),
            color: Color::BLACK,
            background: Color::WHITE,
            ec_level: EcLevel::M,
            margin: Margin::default(),
            logo: None,
            logo_size: LogoSize::default(),
        }
    }
}

impl RenderOptions {
    /// The encoding options these rendering options call for.
    ///
    /// A logo hides modules, so it asks for level H and for a version large enough that the
    /// cleared centre stays clear of the finder patterns.
    pub fn encode_options(&self) -> EncodeOptions {
        let mut options = EncodeOptions::new(self.ec_level);
        if self.logo.is_some() {
            options.level = EcLevel::H;
            options.min_version = min_version_for_logo(self.logo_size);
        }
        options
    }
}

/// Encodes `data` and renders it: the image's bytes in `options.format`.
///
/// Data of more than [`MAX_DATA_CHARS`] characters is refused, as is data that does not fit at
/// the level, and a size too small to give every module a pixel.
pub fn render(data: &str, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    let count = data.chars().count();
    if count > MAX_DATA_CHARS {
        return Err(RenderError::TooManyCharacters {
            count,
            max: MAX_DATA_CHARS,
        });
    }
    let mut encode_options = options.encode_options();
    loop {
        let code = QrCode::encode_with(data.as_bytes(), &encode_options)?;
        if options.logo.is_none() || logo_fits(&code, options.logo_size) {
            return render_code(&code, options);
        }
        // The logo hides too much of this version: the same data in a larger one spreads its
        // codewords over more modules, so the logo covers fewer of each block.
        encode_options.min_version =
            Version::new(code.version().number() + 1).ok_or(RenderError::LogoDoesNotFit {
                percent: options.logo_size.percent(),
            })?;
    }
}

/// Renders an already encoded `code` with `options` (its level and logo version rules are the
/// caller's business here).
pub fn render_code(code: &QrCode, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    let layout = Layout::new(
        options.size.pixels(),
        code.size() as u32,
        u32::from(options.margin.modules()),
    )?;
    let logo = options
        .logo
        .as_ref()
        .map(|logo| (logo, LogoPlacement::new(&layout, logo, options.logo_size)));
    match (options.format, logo) {
        (Format::Svg, logo) => Ok(svg::encode(
            code,
            &layout,
            options.color,
            options.background,
            logo.as_ref().map(|(logo, placement)| (*logo, placement)),
        )
        .into_bytes()),
        (Format::Png, None) => Ok(png::encode(
            code,
            &layout,
            options.color,
            options.background,
            None,
        )),
        (Format::Png, Some((logo, placement))) => {
            composite_png(code, &layout, options, logo, &placement)
        }
    }
}

/// Renders an RGBA PNG with the logo drawn over its cleared area.
fn composite_png(
    code: &QrCode,
    layout: &Layout,
    options: &RenderOptions,
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
    let background = premultiplied(options.background);
    let dark = premultiplied(options.color);
    let s = layout.module_pixels as usize;
    let offset = layout.offset as usize;
    let width = size as usize;
    {
        let data = pixmap.data_mut();
        for pixel in data.chunks_exact_mut(4) {
            pixel.copy_from_slice(&background);
        }
        for my in 0..code.size() {
            for mx in 0..code.size() {
                if !code.is_dark(mx, my) || placement.cleared.contains(mx, my) {
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
