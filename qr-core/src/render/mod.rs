//! Rendering: a module matrix to PNG, SVG or terminal text at an exact pixel size, with an optional logo.

#[cfg(feature = "logo")]
mod cleared;
#[cfg(all(feature = "png", feature = "logo"))]
mod composite;
#[cfg(any(feature = "png", feature = "svg"))]
mod drawing;
#[cfg(any(feature = "png", feature = "svg"))]
mod layout;
#[cfg(feature = "logo")]
mod logo;
#[cfg(feature = "png")]
mod png;
#[cfg(feature = "svg")]
mod svg;
mod terminal;

#[cfg(feature = "logo")]
pub use logo::Logo;
pub use terminal::render_terminal;

use crate::encode::{EncodeOptions, QrCode};
use crate::error::RenderError;
#[cfg(feature = "logo")]
use crate::options::LogoSize;
use crate::options::{Color, Format, Margin, Size};
use crate::version::EcLevel;
#[cfg(feature = "logo")]
use crate::version::Version;
#[cfg(any(feature = "png", feature = "svg"))]
use drawing::Drawing;
#[cfg(any(feature = "png", feature = "svg"))]
use layout::Layout;

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
    if !options.format.is_enabled() {
        return Err(RenderError::FormatNotEnabled {
            format: options.format,
        });
    }
    #[cfg(feature = "logo")]
    if options.logo.is_some() {
        return render_with_logo(data, options);
    }
    let code = QrCode::encode_with(data.as_bytes(), &options.encode_options())?;
    render_code(&code, options)
}

/// [`render`] with a logo: the version rises until the logo leaves the code readable.
#[cfg(feature = "logo")]
fn render_with_logo(data: &str, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    let mut encode_options = options.encode_options();
    loop {
        let code = QrCode::encode_with(data.as_bytes(), &encode_options)?;
        if cleared::logo_fits(&code, options.logo_size) {
            return render_code(&code, options);
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
#[cfg_attr(not(any(feature = "png", feature = "svg")), allow(unused_variables))]
pub fn render_code(code: &QrCode, options: &RenderOptions) -> Result<Vec<u8>, RenderError> {
    match options.format {
        #[cfg(feature = "png")]
        Format::Png => {
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
        #[cfg(feature = "svg")]
        Format::Svg => {
            let (layout, drawing) = prepare(code, options)?;
            Ok(svg::encode(&drawing, &layout, options.color, options.background).into_bytes())
        }
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
        for format in [Format::Png, Format::Svg] {
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
