//! Rendering options with the service's meaning and bounds: size, format, colours, margin and logo size.

use std::fmt;
use std::str::FromStr;

use crate::error::OptionError;

/// The image's width and height in pixels, 50 to 2000.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Size(u32);

impl Size {
    /// The smallest size.
    pub const MIN: u32 = 50;
    /// The largest size.
    pub const MAX: u32 = 2000;
    /// The default size.
    pub const DEFAULT: Size = Size(300);

    /// Returns `pixels` as a size, or an error when it is outside 50..=2000.
    pub fn new(pixels: u32) -> Result<Size, OptionError> {
        if (Size::MIN..=Size::MAX).contains(&pixels) {
            Ok(Size(pixels))
        } else {
            Err(OptionError::Size(i64::from(pixels)))
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

impl FromStr for Size {
    type Err = OptionError;

    fn from_str(text: &str) -> Result<Size, OptionError> {
        let value = parse_integer(text).ok_or_else(|| OptionError::SizeText(text.to_owned()))?;
        u32::try_from(value)
            .map_err(|_| OptionError::Size(value))
            .and_then(Size::new)
    }
}

/// The quiet zone around the code in modules, 0 to 10.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Margin(u8);

impl Margin {
    /// The largest margin.
    pub const MAX: u8 = 10;
    /// The default margin: four modules, as ISO/IEC 18004 asks.
    pub const DEFAULT: Margin = Margin(4);

    /// Returns `modules` as a margin, or an error when it is above 10.
    pub fn new(modules: u8) -> Result<Margin, OptionError> {
        if modules <= Margin::MAX {
            Ok(Margin(modules))
        } else {
            Err(OptionError::Margin(i64::from(modules)))
        }
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

impl FromStr for Margin {
    type Err = OptionError;

    fn from_str(text: &str) -> Result<Margin, OptionError> {
        let value = parse_integer(text).ok_or_else(|| OptionError::MarginText(text.to_owned()))?;
        u8::try_from(value)
            .map_err(|_| OptionError::Margin(value))
            .and_then(Margin::new)
    }
}

/// The logo's width as a percentage of the code's width (quiet zone excluded), 5 to 30.
///
/// Thirty percent is the most that stays readable: the logo and its padding then hide about an
/// eighth of the modules, within what level H restores with room to spare for a worn print.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LogoSize(u8);

impl LogoSize {
    /// The smallest logo size.
    pub const MIN: u8 = 5;
    /// The largest logo size.
    pub const MAX: u8 = 30;
    /// The default logo size.
    pub const DEFAULT: LogoSize = LogoSize(20);

    /// Returns `percent` as a logo size, or an error when it is outside 5..=30.
    pub fn new(percent: u8) -> Result<LogoSize, OptionError> {
        if (LogoSize::MIN..=LogoSize::MAX).contains(&percent) {
            Ok(LogoSize(percent))
        } else {
            Err(OptionError::LogoSize(i64::from(percent)))
        }
    }

    /// The percentage.
    pub const fn percent(self) -> u8 {
        self.0
    }
}

impl Default for LogoSize {
    fn default() -> Self {
        LogoSize::DEFAULT
    }
}

impl FromStr for LogoSize {
    type Err = OptionError;

    fn from_str(text: &str) -> Result<LogoSize, OptionError> {
        let value =
            parse_integer(text).ok_or_else(|| OptionError::LogoSizeText(text.to_owned()))?;
        u8::try_from(value)
            .map_err(|_| OptionError::LogoSize(value))
            .and_then(LogoSize::new)
    }
}

/// The image format.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
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

/// Parses a decimal integer of at most 9 digits with an optional sign; anything else is `None`.
fn parse_integer(text: &str) -> Option<i64> {
    let digits = text.strip_prefix(['+', '-']).unwrap_or(text);
    if digits.is_empty() || digits.len() > 9 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
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
    fn bounded_numbers_parse_or_say_why_not() {
        fn size(text: &str) -> Result<u32, OptionError> {
            text.parse::<Size>().map(Size::pixels)
        }
        assert_eq!(size("50"), Ok(50));
        assert_eq!(size("2000"), Ok(2000));
        assert_eq!(size("49"), Err(OptionError::Size(49)));
        assert_eq!(size("2001"), Err(OptionError::Size(2001)));
        assert_eq!(size("-5"), Err(OptionError::Size(-5)));
        assert_eq!(size("3e2"), Err(OptionError::SizeText("3e2".into())));
        assert_eq!(
            size("99999999999"),
            Err(OptionError::SizeText("99999999999".into()))
        );
        assert_eq!("0".parse::<Margin>().map(Margin::modules), Ok(0));
        assert_eq!("10".parse::<Margin>().map(Margin::modules), Ok(10));
        assert_eq!("11".parse::<Margin>(), Err(OptionError::Margin(11)));
        assert_eq!(
            "x".parse::<Margin>(),
            Err(OptionError::MarginText("x".into()))
        );
        assert_eq!("5".parse::<LogoSize>().map(LogoSize::percent), Ok(5));
        assert_eq!("31".parse::<LogoSize>(), Err(OptionError::LogoSize(31)));
        assert_eq!("4".parse::<LogoSize>(), Err(OptionError::LogoSize(4)));
        assert_eq!("SVG".parse::<Format>(), Ok(Format::Svg));
        assert_eq!(
            "gif".parse::<Format>(),
            Err(OptionError::Format("gif".into()))
        );
    }
}
