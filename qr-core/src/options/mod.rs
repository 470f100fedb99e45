//! Rendering options with the core's real bounds: size, format, colours, margin and logo size, plus the appearance, frame and print options of their own modules.

mod frame;
mod print;
mod style;

pub use frame::{Frame, FrameStyle, FrameText};
pub use print::{Dpi, PrintSize};
pub use style::{FinderStyle, Gradient, GradientAngle, GradientKind, ModuleStyle, SvgMode};

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
/// Every variant always exists; writing one needs its cargo feature (`png`, `svg`, `pdf`,
/// `eps`, all on by default). Without it, rendering answers
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
    /// A one-page vector PDF document of [`PrintSize`].
    Pdf,
    /// An Encapsulated PostScript document of [`PrintSize`].
    Eps,
}

impl Format {
    /// Every format, in documentation order.
    pub const ALL: &'static [Format] = &[Format::Png, Format::Svg, Format::Pdf, Format::Eps];

    /// The media type of the format.
    pub const fn content_type(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Svg => "image/svg+xml",
            Format::Pdf => "application/pdf",
            Format::Eps => "application/postscript",
        }
    }

    /// Whether this build of qr-core can write the format: its cargo feature is on.
    pub const fn is_enabled(self) -> bool {
        match self {
            Format::Png => cfg!(feature = "png"),
            Format::Svg => cfg!(feature = "svg"),
            Format::Pdf => cfg!(feature = "pdf"),
            Format::Eps => cfg!(feature = "eps"),
        }
    }

    /// The file name extension of the format, without the dot.
    pub const fn extension(self) -> &'static str {
        match self {
            Format::Png => "png",
            Format::Svg => "svg",
            Format::Pdf => "pdf",
            Format::Eps => "eps",
        }
    }

    /// Whether the format is a print document measured in millimetres (PDF and EPS).
    pub const fn is_print(self) -> bool {
        matches!(self, Format::Pdf | Format::Eps)
    }
}

impl FromStr for Format {
    type Err = OptionError;

    /// Parses `png`, `svg`, `pdf` or `eps`, case-insensitive.
    fn from_str(text: &str) -> Result<Format, OptionError> {
        Format::ALL
            .iter()
            .copied()
            .find(|f| f.extension().eq_ignore_ascii_case(text))
            .ok_or_else(|| OptionError::Format(text.to_owned()))
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

    /// This colour composited over `below` (source over, straight alpha), as it shows on it.
    pub fn over(self, below: Color) -> Color {
        let (sa, ba) = (f64::from(self.a) / 255.0, f64::from(below.a) / 255.0);
        let alpha = sa + ba * (1.0 - sa);
        if alpha <= 0.0 {
            return Color { a: 0, ..self };
        }
        let channel = |s: u8, b: u8| {
            let value = (f64::from(s) * sa + f64::from(b) * ba * (1.0 - sa)) / alpha;
            value.round().clamp(0.0, 255.0) as u8
        };
        Color {
            r: channel(self.r, below.r),
            g: channel(self.g, below.g),
            b: channel(self.b, below.b),
            a: (alpha * 255.0).round() as u8,
        }
    }

    /// The colour at `t` (0 to 1) of the way from this colour to `to`, each channel interpolated
    /// in sRGB as SVG, PDF and PostScript gradients do.
    pub fn mix(self, to: Color, t: f32) -> Color {
        let t = t.clamp(0.0, 1.0);
        let channel =
            |a: u8, b: u8| (f32::from(a) + (f32::from(b) - f32::from(a)) * t).round() as u8;
        Color {
            r: channel(self.r, to.r),
            g: channel(self.g, to.g),
            b: channel(self.b, to.b),
            a: channel(self.a, to.a),
        }
    }

    /// The relative luminance of the colour's RGB (WCAG 2.x: linearised sRGB, weights 0.2126,
    /// 0.7152 and 0.0722), 0 for black to 1 for white; alpha is ignored (composite first).
    pub fn relative_luminance(self) -> f64 {
        let linear = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.04045 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        0.2126 * linear(self.r) + 0.7152 * linear(self.g) + 0.0722 * linear(self.b)
    }

    /// The WCAG 2.x contrast ratio of two colours' RGB, `(L1 + 0.05) / (L2 + 0.05)` with L1 the
    /// lighter: 1 (no contrast) to 21 (black and white).
    pub fn contrast_ratio(self, other: Color) -> f64 {
        let (a, b) = (self.relative_luminance(), other.relative_luminance());
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
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
    /// A format other than png, svg, pdf or eps.
    #[error("invalid format {0:?}: it must be png, svg, pdf or eps")]
    Format(String),
    /// A colour that is not RRGGBB, RGB or RRGGBBAA hex.
    #[error("invalid color {0:?}: use hex digits without '#', as RRGGBB, RGB or RRGGBBAA")]
    Color(String),
    /// An error-correction level other than L, M, Q or H.
    #[error("invalid error correction level {0:?}: it must be L, M, Q or H")]
    EcLevel(String),
    /// An unknown module style.
    #[error("invalid style {0:?}: it must be one of {list}", list = names(ModuleStyle::ALL))]
    ModuleStyle(String),
    /// An unknown finder style.
    #[error("invalid finder style {0:?}: it must be one of {list}", list = names(FinderStyle::ALL))]
    FinderStyle(String),
    /// An unknown gradient kind.
    #[error("invalid gradient {0:?}: it must be one of {list}", list = names(GradientKind::ALL))]
    GradientKind(String),
    /// A gradient angle of 360 degrees or more.
    #[error("invalid gradient angle {0}: it must be from 0 to 359 degrees")]
    GradientAngle(u16),
    /// An unknown frame style.
    #[error("invalid frame {0:?}: it must be one of {list}", list = names(FrameStyle::ALL))]
    FrameStyle(String),
    /// A frame text the font cannot draw or too long; the text says why.
    #[error("invalid frame text: {0}")]
    FrameText(String),
    /// An unknown SVG mode.
    #[error("invalid SVG mode {0:?}: it must be one of {list}", list = names(SvgMode::ALL))]
    SvgMode(String),
    /// A print size outside 1..=5000 millimetres.
    #[error("invalid print size {0}: it must be from {min} to {max} millimetres", min = PrintSize::MIN, max = PrintSize::MAX)]
    PrintSize(u16),
    /// A resolution outside 1..=100000 dots per inch.
    #[error("invalid resolution {0}: it must be from {min} to {max} dots per inch", min = Dpi::MIN, max = Dpi::MAX)]
    Dpi(u32),
}

/// The names of `values`, as "a, b or c".
fn names<T: fmt::Display>(values: &[T]) -> String {
    let names: Vec<String> = values.iter().map(ToString::to_string).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => names.concat(),
    }
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
    fn contrast_follows_wcag() {
        assert!((Color::BLACK.contrast_ratio(Color::WHITE) - 21.0).abs() < 1e-9);
        assert!((Color::WHITE.contrast_ratio(Color::WHITE) - 1.0).abs() < 1e-9);
        // #777777 on white is the classic 4.48:1.
        let grey = Color::rgb(0x77, 0x77, 0x77);
        assert!((grey.contrast_ratio(Color::WHITE) - 4.48).abs() < 0.01);
        let half = Color {
            a: 128,
            ..Color::BLACK
        }
        .over(Color::WHITE);
        assert_eq!(half, Color::rgb(127, 127, 127));
        assert_eq!(
            Color::BLACK.mix(Color::WHITE, 0.5),
            Color::rgb(128, 128, 128)
        );
    }

    #[test]
    fn formats_parse_case_insensitively() {
        assert_eq!("SVG".parse::<Format>(), Ok(Format::Svg));
        assert_eq!("png".parse::<Format>(), Ok(Format::Png));
        assert_eq!("PDF".parse::<Format>(), Ok(Format::Pdf));
        assert_eq!("eps".parse::<Format>(), Ok(Format::Eps));
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
