//! Rendering options with the core's real bounds: size, format, colours, margin and logo size.

use std::fmt;
use std::str::FromStr;

/// The image's width and height in pixels: 1 to 8,192.
///
/// Any size that gives every module at least one pixel renders; a smaller one is refused by
/// rendering with [`RenderError::SizeTooSmall`](crate::RenderError::SizeTooSmall), which names
/// the smallest size that works. The upper bound keeps the memory of one image bounded: a plain
/// PNG of 8,192 pixels holds 8 MiB of 1-bit scanlines, and with a logo the RGBA canvas it is
/// drawn on takes 256 MiB. SVG output scales without loss to any print size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Size(u32);

impl Size {
    /// The smallest size: one pixel (only useful to learn the minimum from the error).
    pub const MIN: u32 = 1;
    /// The largest size (see the type's documentation for why).
    pub const MAX: u32 = 8192;
    /// The default size: 300 pixels.
    pub const DEFAULT: Size = Size(300);

    /// Returns `pixels` as a size, or [`OptionError::Size`] when it is outside 1..=8192.
    pub const fn new(pixels: u32) -> Result<Size, OptionError> {
        if pixels >= Size::MIN && pixels <= Size::MAX {
            Ok(Size(pixels))
        } else {
            Err(OptionError::Size(pixels))
        }
    }

    /// The size in pixels.
    pub const fn pixels(self) -> u32 {
        self.0
    }
}

impl Default for Size {
    fn default() -> Self {
        Size::DEFAULT
    }
}

impl TryFrom<u32> for Size {
    type Error = OptionError;

    fn try_from(pixels: u32) -> Result<Size, OptionError> {
        Size::new(pixels)
    }
}

/// The quiet zone around the code, in modules: any `u8`.
///
/// ISO/IEC 18004 asks for four modules; readers often cope with less. Every module of the
/// margin needs a pixel too, so a wide margin raises the smallest size that renders.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Margin(u8);

impl Margin {
    /// The default margin: four modules, as ISO/IEC 18004 asks.
    pub const DEFAULT: Margin = Margin(4);

    /// A margin of `modules` modules on each side.
    pub const fn new(modules: u8) -> Margin {
        Margin(modules)
    }

    /// The margin in modules.
    pub const fn modules(self) -> u8 {
        self.0
    }
}

impl Default for Margin {
    fn default() -> Self {
        Margin::DEFAULT
    }
}

impl From<u8> for Margin {
    fn from(modules: u8) -> Margin {
        Margin::new(modules)
    }
}

/// The logo's width as a percentage of the code's width (quiet zone excluded): 1 to 100.
///
/// Whether a logo of a given size leaves the code readable depends on the data: rendering raises
/// the version until the modules under the logo and its padding make up at most three quarters of
/// what each error-correction block can restore, and refuses with
/// [`RenderError::LogoDoesNotFit`](crate::RenderError::LogoDoesNotFit) when no version can. About
/// 30% is the most that short data carries.
#[cfg(feature = "logo")]
#[cfg_attr(docsrs, doc(cfg(feature = "logo")))]
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LogoSize(u8);

#[cfg(feature = "logo")]
impl LogoSize {
    /// The smallest logo size.
    pub const MIN: u8 = 1;
    /// The largest logo size: the whole width of the code.
    pub const MAX: u8 = 100;
    /// The default logo size: 20 percent.
    pub const DEFAULT: LogoSize = LogoSize(20);

    /// Returns `percent` as a logo size, or [`OptionError::LogoSize`] when it is outside 1..=100.
    pub const fn new(percent: u8) -> Result<LogoSize, OptionError> {
        if percent >= LogoSize::MIN && percent <= LogoSize::MAX {
            Ok(LogoSize(percent))
        } else {
            Err(OptionError::LogoSize(percent))
        }
    }

    /// The percentage.
    pub const fn percent(self) -> u8 {
        self.0
    }
}

#[cfg(feature = "logo")]
impl Default for LogoSize {
    fn default() -> Self {
        LogoSize::DEFAULT
    }
}

#[cfg(feature = "logo")]
impl TryFrom<u8> for LogoSize {
    type Error = OptionError;

    fn try_from(percent: u8) -> Result<LogoSize, OptionError> {
        LogoSize::new(percent)
    }
}

/// The image format.
///
/// Both variants always exist; writing one needs its cargo feature (`png`, `svg`, both on by
/// default). Without it, rendering answers
/// [`RenderError::FormatNotEnabled`](crate::RenderError::FormatNotEnabled), and
/// [`Format::is_enabled`] tells beforehand.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// A PNG image (the default).
    #[default]
    Png,
    /// An SVG document.
    Svg,
}

impl Format {
    /// The media type of the format.
    pub const fn content_type(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Svg => "image/svg+xml",
        }
    }

    /// Whether this build of qr-core can write the format: its cargo feature is on.
    pub const fn is_enabled(self) -> bool {
        match self {
            Format::Png => cfg!(feature = "png"),
            Format::Svg => cfg!(feature = "svg"),
        }
    }

    /// The file name extension of the format, without the dot.
    pub const fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
        }
    }
}

impl FromStr for Format {
    type Err = OptionError;

    /// Parses `png` or `svg`, case-insensitive.
    fn from_str(text: &str) -> Result<Format, OptionError> {
        if text.eq_ignore_ascii_case("png") {
            Ok(Format::Png)
        } else if text.eq_ignore_ascii_case("svg") {
            Ok(Format::Svg)
        } else {
            Err(OptionError::Format(text.to_owned()))
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.extension())
    }
}

/// An sRGB colour with straight (not premultiplied) alpha.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Color {
    /// Red, 0 to 255.
    pub r: u8,
    /// Green, 0 to 255.
    pub g: u8,
    /// Blue, 0 to 255.
    pub b: u8,
    /// Opacity, 0 (transparent) to 255 (opaque).
    pub a: u8,
}

impl Color {
    /// Opaque black, the default foreground.
    pub const BLACK: Color = Color::rgb(0, 0, 0);
    /// Opaque white, the default background.
    pub const WHITE: Color = Color::rgb(255, 255, 255);

    /// An opaque colour.
    pub const fn rgb(r: u8, g: u8, b: u8) -> Color {
        Color { r, g, b, a: 255 }
    }

    /// Parses hexadecimal `RRGGBB`, `RGB` or `RRGGBBAA` without `#`, case-insensitive.
    pub fn parse_hex(text: &str) -> Result<Color, OptionError> {
        let invalid = || OptionError::Color(text.to_owned());
        let digits: Vec<u8> = text
            .bytes()
            .map(|c| (c as char).to_digit(16).map(|d| d as u8))
            .collect::<Option<_>>()
            .ok_or_else(invalid)?;
        let pair = |i: usize| digits[i] << 4 | digits[i + 1];
        match digits.len() {
            3 => Ok(Color::rgb(digits[0] * 17, digits[1] * 17, digits[2] * 17)),
            6 => Ok(Color::rgb(pair(0), pair(2), pair(4))),
            8 => Ok(Color {
                a: pair(6),
                ..Color::rgb(pair(0), pair(2), pair(4))
            }),
            _ => Err(invalid()),
        }
    }

    /// Whether the colour is fully opaque.
    pub const fn is_opaque(self) -> bool {
        self.a == 255
    }
}

impl From<Color> for [u8; 4] {
    /// The colour as `[r, g, b, a]`, straight alpha.
    fn from(color: Color) -> [u8; 4] {
        [color.r, color.g, color.b, color.a]
    }
}

impl FromStr for Color {
    type Err = OptionError;

    fn from_str(text: &str) -> Result<Color, OptionError> {
        Color::parse_hex(text)
    }
}

impl fmt::Display for Color {
    /// Formats as lower-case `rrggbb`, or `rrggbbaa` when not opaque.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:02x}{:02x}{:02x}", self.r, self.g, self.b)?;
        if !self.is_opaque() {
            write!(f, "{:02x}", self.a)?;
        }
        Ok(())
    }
}

/// Why an option value was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionError {
    /// A size outside 1..=8192 pixels (see [`Size`]).
    #[error("invalid size {0}: it must be from {min} to {max} pixels", min = Size::MIN, max = Size::MAX)]
    Size(u32),
    /// A logo size outside 1..=100 percent (see [`LogoSize`]).
    #[cfg(feature = "logo")]
    #[cfg_attr(docsrs, doc(cfg(feature = "logo")))]
    #[error("invalid logo size {0}: it must be from {min} to {max} percent of the code's width", min = LogoSize::MIN, max = LogoSize::MAX)]
    LogoSize(u8),
    /// A format other than png or svg.
    #[error("invalid format {0:?}: it must be png or svg")]
    Format(String),
    /// A colour that is not RRGGBB, RGB or RRGGBBAA hex.
    #[error("invalid color {0:?}: use hex digits without '#', as RRGGBB, RGB or RRGGBBAA")]
    Color(String),
    /// An error-correction level other than L, M, Q or H.
    #[error("invalid error correction level {0:?}: it must be L, M, Q or H")]
    EcLevel(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_parse_in_three_forms() {
        fn check(text: &str, expected: Option<(u8, u8, u8, u8)>) {
            let parsed = Color::parse_hex(text).ok().map(|c| (c.r, c.g, c.b, c.a));
            assert_eq!(parsed, expected, "{text:?}");
        }
        check("000000", Some((0, 0, 0, 255)));
        check("FFffFF", Some((255, 255, 255, 255)));
        check("f0a", Some((255, 0, 170, 255)));
        check("11223344", Some((0x11, 0x22, 0x33, 0x44)));
        check("ffffff00", Some((255, 255, 255, 0)));
        check("#000000", None);
        check("", None);
        check("12345", None);
        check("1234567", None);
        check("123456789", None);
        check("gggggg", None);
        check("ééé", None);
        check(" 000000", None);
    }

    #[test]
    fn formats_parse_case_insensitively() {
        assert_eq!("SVG".parse::<Format>(), Ok(Format::Svg));
        assert_eq!("png".parse::<Format>(), Ok(Format::Png));
        assert_eq!(
            "gif".parse::<Format>(),
            Err(OptionError::Format("gif".into()))
        );
    }

    #[test]
    fn sizes_have_the_cores_bounds() {
        assert_eq!(Size::new(0), Err(OptionError::Size(0)));
        assert_eq!(Size::new(1).map(Size::pixels), Ok(1));
        assert_eq!(Size::new(8192).map(Size::pixels), Ok(8192));
        assert_eq!(Size::try_from(8193), Err(OptionError::Size(8193)));
        assert_eq!(Margin::from(255).modules(), 255);
    }

    #[cfg(feature = "logo")]
    #[test]
    fn logo_sizes_are_percentages() {
        assert_eq!(LogoSize::new(0), Err(OptionError::LogoSize(0)));
        assert_eq!(LogoSize::new(100).map(LogoSize::percent), Ok(100));
        assert_eq!(LogoSize::try_from(101), Err(OptionError::LogoSize(101)));
    }
}
