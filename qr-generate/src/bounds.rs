//! The service's bounds on a code: sizes of 50 to 2,000 pixels, margins of 0 to 10 modules, logos of 5 to 30 % and data of at most 2,953 characters.
//!
//! qr-core renders anything a QR code can hold at any size up to 8,192 pixels; these narrower
//! limits are the service's promise (the spec's parameter table), so they live here, with the
//! parsing of their text values and the messages the CLI shows after the API's.

use qr_core::{Color, Dpi, GradientAngle, LogoSize, Margin, PrintSize, RenderOptions, Size};
use thiserror::Error;

/// The most characters of data the service accepts (the byte capacity of version 40 at level L).
pub const MAX_DATA_CHARS: usize = 2953;
/// The smallest image size in pixels.
pub const MIN_SIZE: u32 = 50;
/// The largest image size in pixels.
pub const MAX_SIZE: u32 = 2000;
/// The widest quiet zone in modules.
pub const MAX_MARGIN: u8 = 10;
/// The smallest logo size in percent of the code's width.
pub const MIN_LOGO_SIZE: u8 = 5;
/// The largest logo size in percent: the logo and its padding then hide about an eighth of the
/// modules, within what level H restores with room to spare for a worn print.
pub const MAX_LOGO_SIZE: u8 = 30;

/// The smallest printed size in millimetres: below 10 mm a code of a few dozen modules has
/// modules under a third of a millimetre, less than office printers and phone cameras resolve.
pub const MIN_PRINT_SIZE: u16 = 10;
/// The largest printed size in millimetres (a poster).
pub const MAX_PRINT_SIZE: u16 = 1000;
/// The lowest resolution: 72 dpi, the traditional screen resolution.
pub const MIN_DPI: u32 = 72;
/// The highest resolution: 2,400 dpi, beyond what print shops image.
pub const MAX_DPI: u32 = 2400;

/// Why a size, margin or logo size is not one the service accepts.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BoundsError {
    /// A size outside 50..=2000.
    #[error("invalid size {0}: it must be from {MIN_SIZE} to {MAX_SIZE} pixels")]
    Size(i64),
    /// A size that is not a whole number.
    #[error(
        "invalid size {0:?}: it must be a whole number of pixels from {MIN_SIZE} to {MAX_SIZE}"
    )]
    SizeText(String),
    /// A margin outside 0..=10.
    #[error("invalid margin {0}: it must be from 0 to {MAX_MARGIN} modules")]
    Margin(i64),
    /// A margin that is not a whole number.
    #[error("invalid margin {0:?}: it must be a whole number of modules from 0 to {MAX_MARGIN}")]
    MarginText(String),
    /// A logo size outside 5..=30.
    #[error(
        "invalid logo size {0}: it must be from {MIN_LOGO_SIZE} to {MAX_LOGO_SIZE} percent of the code's width"
    )]
    LogoSize(i64),
    /// A logo size that is not a whole number.
    #[error(
        "invalid logo size {0:?}: it must be a whole percentage from {MIN_LOGO_SIZE} to {MAX_LOGO_SIZE}"
    )]
    LogoSizeText(String),
    /// A print size outside 10..=1000.
    #[error(
        "invalid print size {0}: it must be from {MIN_PRINT_SIZE} to {MAX_PRINT_SIZE} millimetres"
    )]
    PrintSize(i64),
    /// A print size that is not a whole number.
    #[error(
        "invalid print size {0:?}: it must be a whole number of millimetres from {MIN_PRINT_SIZE} to {MAX_PRINT_SIZE}"
    )]
    PrintSizeText(String),
    /// A resolution outside 72..=2400.
    #[error("invalid resolution {0}: it must be from {MIN_DPI} to {MAX_DPI} dots per inch")]
    Dpi(i64),
    /// A resolution that is not a whole number.
    #[error(
        "invalid resolution {0:?}: it must be a whole number of dots per inch from {MIN_DPI} to {MAX_DPI}"
    )]
    DpiText(String),
    /// A gradient angle that is not a whole number from 0 to 359.
    #[error("invalid gradient angle {0:?}: it must be a whole number of degrees from 0 to 359")]
    GradientAngle(String),
    /// A colour that is not hex.
    #[error("invalid color {0:?}: use hex digits without '#', as RRGGBB, RGB or RRGGBBAA")]
    Colour(String),
    /// A gradient without its end colour.
    #[error("color2 is required with a gradient: the gradient runs from color to color2")]
    Color2Required,
    /// A flag that is neither true nor false.
    #[error("invalid flag {0:?}: it must be true or false")]
    Flag(String),
}

/// `pixels` as a size, if the service accepts it.
pub fn size(pixels: i64) -> Result<Size, BoundsError> {
    u32::try_from(pixels)
        .ok()
        .filter(|p| (MIN_SIZE..=MAX_SIZE).contains(p))
        .and_then(|p| Size::new(p).ok())
        .ok_or(BoundsError::Size(pixels))
}

/// `modules` as a margin, if the service accepts it.
pub fn margin(modules: i64) -> Result<Margin, BoundsError> {
    u8::try_from(modules)
        .ok()
        .filter(|&m| m <= MAX_MARGIN)
        .map(Margin::new)
        .ok_or(BoundsError::Margin(modules))
}

/// `percent` as a logo size, if the service accepts it.
pub fn logo_size(percent: i64) -> Result<LogoSize, BoundsError> {
    u8::try_from(percent)
        .ok()
        .filter(|p| (MIN_LOGO_SIZE..=MAX_LOGO_SIZE).contains(p))
        .and_then(|p| LogoSize::new(p).ok())
        .ok_or(BoundsError::LogoSize(percent))
}

/// Parses a size parameter: a whole number of pixels in the service's range.
pub fn parse_size(text: &str) -> Result<Size, BoundsError> {
    let value = parse_integer(text).ok_or_else(|| BoundsError::SizeText(text.to_owned()))?;
    size(value)
}

/// Parses a margin parameter: a whole number of modules in the service's range.
pub fn parse_margin(text: &str) -> Result<Margin, BoundsError> {
    let value = parse_integer(text).ok_or_else(|| BoundsError::MarginText(text.to_owned()))?;
    margin(value)
}

/// Parses a logoSize parameter: a whole percentage in the service's range.
pub fn parse_logo_size(text: &str) -> Result<LogoSize, BoundsError> {
    let value = parse_integer(text).ok_or_else(|| BoundsError::LogoSizeText(text.to_owned()))?;
    logo_size(value)
}

/// Parses a printSize parameter: whole millimetres in the service's range.
pub fn parse_print_size(text: &str) -> Result<PrintSize, BoundsError> {
    let value = parse_integer(text).ok_or_else(|| BoundsError::PrintSizeText(text.to_owned()))?;
    print_size(value)
}

/// `millimetres` as a print size, if the service accepts it.
pub fn print_size(millimetres: i64) -> Result<PrintSize, BoundsError> {
    u16::try_from(millimetres)
        .ok()
        .filter(|m| (MIN_PRINT_SIZE..=MAX_PRINT_SIZE).contains(m))
        .and_then(|m| PrintSize::new(m).ok())
        .ok_or(BoundsError::PrintSize(millimetres))
}

/// Parses a dpi parameter: whole dots per inch in the service's range.
pub fn parse_dpi(text: &str) -> Result<Dpi, BoundsError> {
    let value = parse_integer(text).ok_or_else(|| BoundsError::DpiText(text.to_owned()))?;
    dpi(value)
}

/// `dots` per inch as a resolution, if the service accepts it.
pub fn dpi(dots: i64) -> Result<Dpi, BoundsError> {
    u32::try_from(dots)
        .ok()
        .filter(|d| (MIN_DPI..=MAX_DPI).contains(d))
        .and_then(|d| Dpi::new(d).ok())
        .ok_or(BoundsError::Dpi(dots))
}

/// Parses a gradientAngle parameter: whole degrees from 0 to 359.
pub fn parse_gradient_angle(text: &str) -> Result<GradientAngle, BoundsError> {
    parse_integer(text)
        .and_then(|degrees| u16::try_from(degrees).ok())
        .and_then(|degrees| GradientAngle::new(degrees).ok())
        .ok_or_else(|| BoundsError::GradientAngle(text.to_owned()))
}

/// Parses a colour parameter (RGB, RRGGBB or RRGGBBAA hex).
pub fn parse_colour(text: &str) -> Result<Color, BoundsError> {
    Color::parse_hex(text).map_err(|_| BoundsError::Colour(text.to_owned()))
}

/// Parses a flag: `true` or `false`, case-insensitive.
pub fn parse_flag(text: &str) -> Result<bool, BoundsError> {
    if text.eq_ignore_ascii_case("true") {
        Ok(true)
    } else if text.eq_ignore_ascii_case("false") {
        Ok(false)
    } else {
        Err(BoundsError::Flag(text.to_owned()))
    }
}

/// Checks render options built by hand (not by parsing) against the service's bounds.
pub fn check_options(options: &RenderOptions) -> Result<(), BoundsError> {
    size(i64::from(options.size.pixels()))?;
    margin(i64::from(options.margin.modules()))?;
    logo_size(i64::from(options.logo_size.percent()))?;
    print_size(i64::from(options.print_size.millimetres()))?;
    if let Some(resolution) = options.dpi {
        dpi(i64::from(resolution.dots_per_inch()))?;
    }
    Ok(())
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
    fn bounded_numbers_parse_or_say_why_not() {
        fn size(text: &str) -> Result<u32, BoundsError> {
            parse_size(text).map(Size::pixels)
        }
        assert_eq!(size("50"), Ok(50));
        assert_eq!(size("2000"), Ok(2000));
        assert_eq!(size("49"), Err(BoundsError::Size(49)));
        assert_eq!(size("2001"), Err(BoundsError::Size(2001)));
        assert_eq!(size("-5"), Err(BoundsError::Size(-5)));
        assert_eq!(size("3e2"), Err(BoundsError::SizeText("3e2".into())));
        assert_eq!(
            size("99999999999"),
            Err(BoundsError::SizeText("99999999999".into()))
        );
        assert_eq!(parse_margin("0").map(Margin::modules), Ok(0));
        assert_eq!(parse_margin("10").map(Margin::modules), Ok(10));
        assert_eq!(parse_margin("11"), Err(BoundsError::Margin(11)));
        assert_eq!(parse_margin("x"), Err(BoundsError::MarginText("x".into())));
        assert_eq!(parse_logo_size("5").map(LogoSize::percent), Ok(5));
        assert_eq!(parse_logo_size("31"), Err(BoundsError::LogoSize(31)));
        assert_eq!(parse_logo_size("4"), Err(BoundsError::LogoSize(4)));
    }

    #[test]
    fn option_bounds_are_typed_errors() {
        assert_eq!(super::size(49), Err(BoundsError::Size(49)));
        assert_eq!(super::size(2001), Err(BoundsError::Size(2001)));
        assert_eq!(margin(11), Err(BoundsError::Margin(11)));
        assert_eq!(logo_size(4), Err(BoundsError::LogoSize(4)));
        assert_eq!(logo_size(31), Err(BoundsError::LogoSize(31)));
        assert!(super::size(50).is_ok() && super::size(2000).is_ok());
        assert!(margin(0).is_ok() && margin(10).is_ok());
    }

    #[test]
    fn error_messages_help_the_caller() {
        assert_eq!(
            BoundsError::Size(20).to_string(),
            "invalid size 20: it must be from 50 to 2000 pixels"
        );
        assert_eq!(
            BoundsError::SizeText("3e2".into()).to_string(),
            "invalid size \"3e2\": it must be a whole number of pixels from 50 to 2000"
        );
        assert_eq!(
            BoundsError::Margin(11).to_string(),
            "invalid margin 11: it must be from 0 to 10 modules"
        );
        assert_eq!(
            BoundsError::MarginText("x".into()).to_string(),
            "invalid margin \"x\": it must be a whole number of modules from 0 to 10"
        );
        assert_eq!(
            BoundsError::LogoSize(31).to_string(),
            "invalid logo size 31: it must be from 5 to 30 percent of the code's width"
        );
        assert_eq!(
            BoundsError::LogoSizeText("big".into()).to_string(),
            "invalid logo size \"big\": it must be a whole percentage from 5 to 30"
        );
    }

    #[test]
    fn hand_built_options_are_checked_too() {
        let options = RenderOptions::default();
        assert_eq!(check_options(&options), Ok(()));
        let large = options
            .clone()
            .with_size(Size::new(2400).expect("a size qr-core accepts"));
        assert_eq!(check_options(&large), Err(BoundsError::Size(2400)));
        let wide = options.clone().with_margin(Margin::new(11));
        assert_eq!(check_options(&wide), Err(BoundsError::Margin(11)));
        let logo = options.with_logo_size(LogoSize::new(40).expect("a percentage"));
        assert_eq!(check_options(&logo), Err(BoundsError::LogoSize(40)));
    }
}
