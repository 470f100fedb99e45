//! Rendering: a module matrix to PNG, SVG, PDF, EPS or terminal text at an exact size, plain or styled, with an optional logo and frame.
//!
//! The plain image (square modules and finders, one colour, no frame, compact SVG) has writers
//! of its own (`png`, `svg`) that keep their exact bytes. Everything else is built as `art`
//! (shapes and paints, in `compose`) and written by `styled_png`, `styled_svg`, `pdf` or `eps`;
//! `sheet` writes many codes' art on label sheets through the PDF writer's page machinery.

// The art and its writers exist when a writer can use them: styled PNG or SVG, or any PDF or EPS.
#[cfg(any(
    all(feature = "style", any(feature = "png", feature = "svg")),
    feature = "pdf",
    feature = "eps"
))]
mod art;
#[cfg(feature = "logo")]
mod cleared;
#[cfg(any(
    all(feature = "style", any(feature = "png", feature = "svg")),
    feature = "pdf",
    feature = "eps"
))]
mod compose;
#[cfg(all(feature = "png", feature = "logo"))]
mod composite;
#[cfg(any(feature = "png", feature = "svg", feature = "pdf", feature = "eps"))]
mod drawing;
#[cfg(feature = "eps")]
mod eps;
#[cfg(all(
    feature = "frame",
    any(feature = "png", feature = "svg", feature = "pdf", feature = "eps")
))]
mod font;
#[cfg(all(
    feature = "frame",
    any(feature = "png", feature = "svg", feature = "pdf", feature = "eps")
))]
mod frame;
#[cfg(any(feature = "png", feature = "svg", feature = "pdf", feature = "eps"))]
mod layout;
#[cfg(feature = "logo")]
mod logo;
#[cfg(any(feature = "png", feature = "svg"))]
mod micro;
#[cfg(feature = "pdf")]
mod pdf;
#[cfg(feature = "png")]
mod png;
#[cfg(any(feature = "pdf", feature = "eps"))]
mod print;
#[cfg(all(feature = "style", feature = "png"))]
mod raster;
#[cfg(all(feature = "pdf", feature = "frame"))]
mod sheet;
#[cfg(all(feature = "style", feature = "png"))]
mod styled_png;
#[cfg(all(feature = "style", feature = "svg"))]
mod styled_svg;
#[cfg(feature = "svg")]
mod svg;
mod terminal;

#[cfg(feature = "logo")]
pub use logo::Logo;
#[cfg(any(feature = "png", feature = "svg"))]
pub use micro::render_micro;
#[cfg(all(feature = "pdf", feature = "frame"))]
pub use sheet::{CropMarks, SheetError, SheetGrid, SheetLabel, render_sheet};
pub use terminal::render_terminal;

use crate::encode::{EncodeOptions, QrCode};
use crate::error::RenderError;
#[cfg(feature = "logo")]
use crate::options::LogoSize;
use crate::options::{
    Color, Dpi, FinderStyle, Format, Frame, FrameStyle, Gradient, Margin, ModuleStyle, PrintSize,
    Size, SvgMode,
};
use crate::version::EcLevel;
#[cfg(feature = "logo")]
use crate::version::Version;
#[cfg(any(feature = "png", feature = "svg"))]
use drawing::Drawing;
#[cfg(any(feature = "png", feature = "svg"))]
use layout::Layout;

/// Whether rendering `options` writes the art (anything but the plain PNG or compact SVG).
fn is_styled(options: &RenderOptions) -> bool {
    options.style != ModuleStyle::Square
        || options.finder_style != FinderStyle::Square
        || options.finder_color.is_some()
        || options.gradient.is_some()
        || options.frame.style != FrameStyle::None
        || options.svg_mode != SvgMode::Compact
        || options.format.is_print()
}

/// The cargo feature a styled option needs, if this build lacks it.
fn missing_feature(options: &RenderOptions) -> Option<&'static str> {
    let styled = options.style != ModuleStyle::Square
        || options.finder_style != FinderStyle::Square
        || options.finder_color.is_some()
        || options.gradient.is_some()
        || (options.svg_mode != SvgMode::Compact && options.format == Format::Svg);
    if styled && !cfg!(feature = "style") {
        return Some("style");
    }
    if options.frame.style != FrameStyle::None && !cfg!(feature = "frame") {
        return Some("frame");
    }
    None
}

/// Everything that shapes an image: build it from the defaults with the `with_` methods.
///
/// The defaults are a 300-pixel PNG, black on white, level M and a four-module margin.
///
/// ```
/// use qr_core::{Color, EcLevel, Format, Margin, RenderOptions, Size};
///
/// let options = RenderOptions::default()
///     .with_format(Format::Svg)
///     .with_size(Size::new(512)?)
///     .with_color(Color::rgb(0x1a, 0x23, 0x7e))
///     .with_ec_level(EcLevel::Q)
///     .with_margin(Margin::new(2));
/// assert_eq!(options.size.pixels(), 512);
/// # Ok::<(), qr_core::OptionError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
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
    /// A logo to place in the centre (default none).
    #[cfg(feature = "logo")]
    #[cfg_attr(docsrs, doc(cfg(feature = "logo")))]
    pub logo: Option<Logo>,
    /// The logo's width as a percentage of the code's width (default 20).
    #[cfg(feature = "logo")]
    #[cfg_attr(docsrs, doc(cfg(feature = "logo")))]
    pub logo_size: LogoSize,
    /// The shape of the data modules (default square; others need the `style` feature).
    pub style: ModuleStyle,
    /// The shape of the finder patterns (default square; others need the `style` feature).
    pub finder_style: FinderStyle,
    /// The finder patterns' colour (default: the modules' paint, gradient included).
    pub finder_color: Option<Color>,
    /// A gradient over the dark modules from `color` (default none; needs the `style` feature).
    pub gradient: Option<Gradient>,
    /// A frame around the code (default none; needs the `frame` feature).
    pub frame: Frame,
    /// How SVG output draws square modules (default compact).
    pub svg_mode: SvgMode,
    /// The printed size of PDF and EPS documents (default 50 mm).
    pub print_size: PrintSize,
    /// The resolution: a PNG's pHYs chunk, and a logo's resolution in PDF and EPS (default:
    /// no pHYs chunk, logos at 300 dpi).
    pub dpi: Option<Dpi>,
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
            #[cfg(feature = "logo")]
            logo: None,
            #[cfg(feature = "logo")]
            logo_size: LogoSize::default(),
            style: ModuleStyle::default(),
            finder_style: FinderStyle::default(),
            finder_color: None,
            gradient: None,
            frame: Frame::default(),
            svg_mode: SvgMode::default(),
            print_size: PrintSize::default(),
            dpi: None,
        }
    }
}

impl RenderOptions {
    /// These options with the image `size`.
    #[must_use]
    pub fn with_size(mut self, size: Size) -> Self {
        self.size = size;
        self
    }

    /// These options with the image `format`.
    #[must_use]
    pub fn with_format(mut self, format: Format) -> Self {
        self.format = format;
        self
    }

    /// These options with dark modules in `color`.
    #[must_use]
    pub fn with_color(mut self, color: Color) -> Self {
        self.color = color;
        self
    }

    /// These options with light modules and the quiet zone in `background`.
    #[must_use]
    pub fn with_background(mut self, background: Color) -> Self {
        self.background = background;
        self
    }

    /// These options with `level` as the lowest error-correction level.
    #[must_use]
    pub fn with_ec_level(mut self, level: EcLevel) -> Self {
        self.ec_level = level;
        self
    }

    /// These options with a quiet zone of `margin`.
    #[must_use]
    pub fn with_margin(mut self, margin: Margin) -> Self {
        self.margin = margin;
        self
    }

    /// These options with `logo` in the centre.
    #[cfg(feature = "logo")]
    #[cfg_attr(docsrs, doc(cfg(feature = "logo")))]
    #[must_use]
    pub fn with_logo(mut self, logo: Logo) -> Self {
        self.logo = Some(logo);
        self
    }

    /// These options with the logo `logo_size` wide.
    #[cfg(feature = "logo")]
    #[cfg_attr(docsrs, doc(cfg(feature = "logo")))]
    #[must_use]
    pub fn with_logo_size(mut self, logo_size: LogoSize) -> Self {
        self.logo_size = logo_size;
        self
    }

    /// These options with modules of `style`.
    #[must_use]
    pub fn with_style(mut self, style: ModuleStyle) -> Self {
        self.style = style;
        self
    }

    /// These options with finder patterns of `finder_style`.
    #[must_use]
    pub fn with_finder_style(mut self, finder_style: FinderStyle) -> Self {
        self.finder_style = finder_style;
        self
    }

    /// These options with finder patterns in `color`.
    #[must_use]
    pub fn with_finder_color(mut self, color: Color) -> Self {
        self.finder_color = Some(color);
        self
    }

    /// These options with the dark modules painted with `gradient`.
    #[must_use]
    pub fn with_gradient(mut self, gradient: Gradient) -> Self {
        self.gradient = Some(gradient);
        self
    }

    /// These options with `frame` around the code.
    #[must_use]
    pub fn with_frame(mut self, frame: Frame) -> Self {
        self.frame = frame;
        self
    }

    /// These options with SVG output in `mode`.
    #[must_use]
    pub fn with_svg_mode(mut self, mode: SvgMode) -> Self {
        self.svg_mode = mode;
        self
    }

    /// These options with PDF and EPS documents `print_size` wide.
    #[must_use]
    pub fn with_print_size(mut self, print_size: PrintSize) -> Self {
        self.print_size = print_size;
        self
    }

    /// These options with the resolution `dpi`.
    #[must_use]
    pub fn with_dpi(mut self, dpi: Dpi) -> Self {
        self.dpi = Some(dpi);
        self
    }

    /// The encoding options these rendering options call for.
    ///
    /// A logo hides modules, so it asks for level H and for a version large enough that the
    /// cleared centre stays clear of the finder patterns.
    pub fn encode_options(&self) -> EncodeOptions {
        let options = EncodeOptions::new(self.ec_level);
        #[cfg(feature = "logo")]
        if self.logo.is_some() {
            return options
                .with_level(EcLevel::H)
                .with_min_version(cleared::min_version_for_logo(self.logo_size));
        }
        options
    }
}

/// Encodes `data` and renders it: the image's bytes in `options.format`.
///
/// Data that does not fit at the level is refused, as is a size too small to give every module
/// a pixel. With a logo, the version rises until the logo leaves the code readable.
///
/// ```
/// # #[cfg(feature = "svg")] {
/// use qr_core::{Format, RenderOptions, render};
///
/// let svg = render("https://example.com", &RenderOptions::default().with_format(Format::Svg))?;
/// assert!(svg.starts_with(b"<svg"));
/// # }
/// # Ok::<(), qr_core::RenderError>(())
/// ```
pub fn render(data: &str, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    check_enabled(options)?;
    let code = encode(data, options)?;
    render_code(&code, options)
}

/// Refuses options whose format or style this build of qr-core cannot draw.
fn check_enabled(options: &RenderOptions) -> Result<(), RenderError> {
    if !options.format.is_enabled() {
        return Err(RenderError::FormatNotEnabled {
            format: options.format,
        });
    }
    match missing_feature(options) {
        Some(feature) => Err(RenderError::FeatureNotEnabled { feature }),
        None => Ok(()),
    }
}

/// Encodes `data` as [`render`] does before drawing: at the options' level, and with a logo in
/// a version large enough that the logo leaves the code readable.
///
/// With [`placement`] and [`render_code`] this splits [`render`] in three, for callers that
/// judge the geometry before drawing (a service's minimum pixels per module, say).
pub fn encode(data: &str, options: &RenderOptions) -> Result<QrCode, RenderError> {
    #[cfg(feature = "logo")]
    if options.logo.is_some() {
        return encode_with_logo(data, options);
    }
    Ok(QrCode::encode_with(
        data.as_bytes(),
        &options.encode_options(),
    )?)
}

/// Where the symbol of `code` falls in the image `options` describe (a frame takes its room).
///
/// ```
/// # #[cfg(feature = "png")] {
/// use qr_core::{RenderOptions, encode, placement};
///
/// let options = RenderOptions::default();
/// let code = encode("https://qr.example.com/r/7K3M9QXZ", &options)?;
/// let place = placement(&code, &options)?;
/// assert_eq!((place.modules, place.module_pixels), (29, 8));
/// # }
/// # Ok::<(), qr_core::RenderError>(())
/// ```
#[cfg(any(feature = "png", feature = "svg", feature = "pdf", feature = "eps"))]
pub fn placement(code: &QrCode, options: &RenderOptions) -> Result<Placement, RenderError> {
    #[cfg(any(
        all(feature = "style", any(feature = "png", feature = "svg")),
        feature = "pdf",
        feature = "eps"
    ))]
    let (layout, (x, y)) = compose::layout(code, options)?;
    #[cfg(not(any(
        all(feature = "style", any(feature = "png", feature = "svg")),
        feature = "pdf",
        feature = "eps"
    )))]
    let (layout, (x, y)) = {
        let layout = Layout::new(
            options.size.pixels(),
            code.size() as u32,
            u32::from(options.margin.modules()),
        )?;
        (layout, (layout.offset, layout.offset))
    };
    Ok(Placement {
        modules: layout.modules,
        module_pixels: layout.module_pixels,
        x,
        y,
    })
}

/// Where a symbol falls in an image, in pixels (see [`placement`]).
#[cfg(any(feature = "png", feature = "svg", feature = "pdf", feature = "eps"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Placement {
    /// Modules per side, quiet zone excluded.
    pub modules: u32,
    /// Pixels per module side.
    pub module_pixels: u32,
    /// The left edge of the symbol's first module.
    pub x: u32,
    /// The top edge of the symbol's first module.
    pub y: u32,
}

/// [`encode`] with a logo: the version rises until the logo leaves the code readable.
#[cfg(feature = "logo")]
fn encode_with_logo(data: &str, options: &RenderOptions) -> Result<QrCode, RenderError> {
    let mut encode_options = options.encode_options();
    loop {
        let code = QrCode::encode_with(data.as_bytes(), &encode_options)?;
        if cleared::logo_fits(&code, options.logo_size) {
            return Ok(code);
        }
        // The logo hides too much of this version: the same data in a larger one spreads its
        // codewords over more modules, so the logo covers fewer of each block.
        let larger =
            Version::new(code.version().number() + 1).ok_or(RenderError::LogoDoesNotFit {
                percent: options.logo_size.percent(),
            })?;
        encode_options = encode_options.with_min_version(larger);
    }
}

/// Renders an already encoded `code` with `options` (its level and logo version rules are the
/// caller's business here).
#[cfg_attr(
    not(any(feature = "png", feature = "svg", feature = "pdf", feature = "eps")),
    allow(unused_variables)
)]
pub fn render_code(code: &QrCode, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    check_enabled(options)?;
    #[cfg(any(
        all(feature = "style", any(feature = "png", feature = "svg")),
        feature = "pdf",
        feature = "eps"
    ))]
    if is_styled(options) {
        return render_art(code, options);
    }
    #[cfg(not(any(
        all(feature = "style", any(feature = "png", feature = "svg")),
        feature = "pdf",
        feature = "eps"
    )))]
    let _ = is_styled;
    match options.format {
        #[cfg(feature = "png")]
        Format::Png => {
            let png = render_plain_png(code, options)?;
            Ok(match options.dpi {
                Some(dpi) => png::with_resolution(png, dpi),
                None => png,
            })
        }
        #[cfg(feature = "svg")]
        Format::Svg => {
            let (layout, drawing) = prepare(code, options)?;
            Ok(svg::encode(&drawing, &layout, options.color, options.background).into_bytes())
        }
        #[allow(unreachable_patterns)]
        format => Err(RenderError::FormatNotEnabled { format }),
    }
}

/// The plain PNG: 1-bit, or RGBA with a logo.
#[cfg(feature = "png")]
fn render_plain_png(code: &QrCode, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    let (layout, drawing) = prepare(code, options)?;
    #[cfg(feature = "logo")]
    if let Some((logo, placement)) = drawing.logo() {
        let colors = (options.color, options.background);
        return composite::encode(&drawing, &layout, colors, logo, placement);
    }
    Ok(png::encode(
        &drawing,
        &layout,
        options.color,
        options.background,
    ))
}

/// Draws the art of `code` in the options' format.
#[cfg(any(
    all(feature = "style", any(feature = "png", feature = "svg")),
    feature = "pdf",
    feature = "eps"
))]
fn render_art(code: &QrCode, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    let art = compose::art(code, options)?;
    match options.format {
        #[cfg(all(feature = "style", feature = "png"))]
        Format::Png => {
            #[cfg(feature = "logo")]
            if let Some((logo, placement)) = &art.logo {
                let pixels = styled_png::rgba(&art);
                let png = composite::encode_pixels(art.size, pixels, logo, placement)?;
                return Ok(match options.dpi {
                    Some(dpi) => png::with_resolution(png, dpi),
                    None => png,
                });
            }
            let png = styled_png::encode(&art);
            Ok(match options.dpi {
                Some(dpi) => png::with_resolution(png, dpi),
                None => png,
            })
        }
        #[cfg(all(feature = "style", feature = "svg"))]
        Format::Svg => Ok(styled_svg::encode(&art).into_bytes()),
        #[cfg(feature = "pdf")]
        Format::Pdf => Ok(pdf::encode(
            &art,
            options.print_size,
            options.dpi.unwrap_or(Dpi::PRINT_DEFAULT),
        )),
        #[cfg(feature = "eps")]
        Format::Eps => Ok(eps::encode(
            &art,
            options.print_size,
            options.dpi.unwrap_or(Dpi::PRINT_DEFAULT),
        )),
        #[allow(unreachable_patterns)]
        format => Err(RenderError::FormatNotEnabled { format }),
    }
}

/// Lays `code` out in the image and decides what it shows: the modules, and the logo if any.
#[cfg(any(feature = "png", feature = "svg"))]
fn prepare<'a>(
    code: &'a QrCode,
    options: &'a RenderOptions,
) -> Result<(Layout, Drawing<'a>), RenderError> {
    let layout = Layout::new(
        options.size.pixels(),
        code.size() as u32,
        u32::from(options.margin.modules()),
    )?;
    #[cfg(feature = "logo")]
    if let Some(logo) = &options.logo {
        let drawing = Drawing::with_logo(code, logo, &layout, options.logo_size);
        return Ok((layout, drawing));
    }
    Ok((layout, Drawing::new(code)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_format_without_its_feature_is_a_typed_error() {
        let code = QrCode::encode_text("HI", EcLevel::L).expect("fits");
        for &format in Format::ALL {
            let options = RenderOptions::default().with_format(format);
            let refused = Err(RenderError::FormatNotEnabled { format });
            for result in [render("HI", &options), render_code(&code, &options)] {
                if format.is_enabled() {
                    assert!(result.is_ok(), "{format}: {result:?}");
                } else {
                    assert_eq!(result, refused, "{format}");
                }
            }
        }
    }
}
