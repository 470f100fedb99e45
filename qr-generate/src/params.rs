//! One code from request parameters: raw string parameters to render options, and render failures to the API's messages.
//!
//! Both the HTTP server (`GET /api/generate`) and the CLI (`qr generate`) call
//! [`GenerateParams::parse`] and then [`render`], so they accept the same
//! values and report the same messages. The `Display` of every
//! [`GenerateError`] is exactly the message of the API's error body.

use qr_core::{
    Capacity, Color, EcLevel, EncodeError, Format, OptionError, RenderError, RenderOptions,
};
use thiserror::Error;

use crate::bounds::{self, BoundsError, MAX_DATA_CHARS};

/// The raw parameters of one code, as strings, with the spec's names in the comments.
///
/// `None` means "not given" and takes the spec's default. The logo itself is not a
/// parameter here: the caller fetches or reads it and sets [`RenderOptions::logo`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GenerateParams {
    /// `data`: the content to encode (required, at most 2,953 characters).
    pub data: Option<String>,
    /// `size`: pixels, 50 to 2000 (default 300).
    pub size: Option<String>,
    /// `format`: `png` or `svg`, case-insensitive (default png).
    pub format: Option<String>,
    /// `color`: foreground hex without `#` (default 000000).
    pub color: Option<String>,
    /// `background`: background hex without `#` (default ffffff).
    pub background: Option<String>,
    /// `errorCorrection`: L, M, Q or H (default M).
    pub error_correction: Option<String>,
    /// `margin`: quiet zone in modules, 0 to 10 (default 4).
    pub margin: Option<String>,
    /// `logoSize`: logo width in percent of the code, 5 to 30 (default 20).
    pub logo_size: Option<String>,
}

/// Why a code could not be generated; `Display` is the API's error message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum GenerateError {
    /// `data` is missing or empty.
    #[error("data parameter required")]
    MissingData,
    /// `size` is not a whole number from 50 to 2000.
    #[error("Invalid size")]
    Size(#[source] BoundsError),
    /// `format` is not png or svg.
    #[error("Invalid format")]
    Format(#[source] OptionError),
    /// `color` is not RGB, RRGGBB or RRGGBBAA hex.
    #[error("Invalid color")]
    Color(#[source] OptionError),
    /// `background` is not RGB, RRGGBB or RRGGBBAA hex.
    #[error("Invalid background")]
    Background(#[source] OptionError),
    /// `errorCorrection` is not L, M, Q or H.
    #[error("Invalid errorCorrection")]
    ErrorCorrection(String),
    /// `margin` is not a whole number from 0 to 10.
    #[error("Invalid margin")]
    Margin(#[source] BoundsError),
    /// `logoSize` is not a whole number from 5 to 30.
    #[error("Invalid logoSize")]
    LogoSize(#[source] BoundsError),
    /// The data has more characters than the service accepts.
    #[error("Data too long: {count} characters, at most {max} allowed")]
    TooManyCharacters {
        /// Characters given.
        count: usize,
        /// Characters allowed.
        max: usize,
    },
    /// The data does not fit in the largest code at the level used.
    #[error("Data too long for error correction level {level}: at most {capacity} fit")]
    DataTooLong {
        /// The level used (H when a logo is placed).
        level: EcLevel,
        /// The most that fits at that level.
        capacity: Capacity,
    },
    /// The size gives some module less than one pixel.
    #[error("Size too small for this code: use a size of at least {minimum}")]
    SizeTooSmall {
        /// The smallest size that works for this data and margin.
        minimum: u32,
    },
    /// The logo would hide more than error correction restores.
    #[error(
        "Logo too large for this code: a logoSize of {percent} hides too much; use a smaller logoSize or shorter data"
    )]
    LogoDoesNotFit {
        /// The logo size asked for.
        percent: u8,
    },
    /// The image encoder failed (a bug, reported rather than hidden).
    #[error("Image encoding failed: {0}")]
    Encoding(String),
}

impl GenerateParams {
    /// Collects the parameters from `(name, value)` pairs with the API's names (`data`, `size`,
    /// `format`, `color`, `background`, `errorCorrection`, `margin`, `logoSize`).
    ///
    /// The first occurrence of a name wins; unknown names are ignored.
    pub fn from_pairs<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: AsRef<str>,
        V: Into<String>,
    {
        let mut params = Self::default();
        for (name, value) in pairs {
            let slot = match name.as_ref() {
                "data" => &mut params.data,
                "size" => &mut params.size,
                "format" => &mut params.format,
                "color" => &mut params.color,
                "background" => &mut params.background,
                "errorCorrection" => &mut params.error_correction,
                "margin" => &mut params.margin,
                "logoSize" => &mut params.logo_size,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(value.into());
            }
        }
        params
    }

    /// Validates every parameter, in the order data, size, format, color, background,
    /// errorCorrection, margin, logoSize, and returns the data with its render options
    /// (without a logo). The first invalid parameter is reported.
    pub fn parse(&self) -> Result<(String, RenderOptions), GenerateError> {
        let data = match self.data.as_deref() {
            Some(d) if !d.is_empty() => d.to_owned(),
            _ => return Err(GenerateError::MissingData),
        };
        check_data_length(&data)?;
        let mut options = RenderOptions::default();
        if let Some(s) = &self.size {
            options.size = bounds::parse_size(s).map_err(GenerateError::Size)?;
        }
        if let Some(s) = &self.format {
            options.format = s.parse::<Format>().map_err(GenerateError::Format)?;
        }
        if let Some(s) = &self.color {
            options.color = Color::parse_hex(s).map_err(GenerateError::Color)?;
        }
        if let Some(s) = &self.background {
            options.background = Color::parse_hex(s).map_err(GenerateError::Background)?;
        }
        if let Some(s) = &self.error_correction {
            options.ec_level =
                EcLevel::parse(s).ok_or_else(|| GenerateError::ErrorCorrection(s.clone()))?;
        }
        if let Some(s) = &self.margin {
            options.margin = bounds::parse_margin(s).map_err(GenerateError::Margin)?;
        }
        if let Some(s) = &self.logo_size {
            options.logo_size = bounds::parse_logo_size(s).map_err(GenerateError::LogoSize)?;
        }
        Ok((data, options))
    }
}

impl From<RenderError> for GenerateError {
    fn from(e: RenderError) -> Self {
        match e {
            RenderError::Encode(EncodeError::DataTooLong {
                level, capacity, ..
            }) => GenerateError::DataTooLong { level, capacity },
            RenderError::Encode(other) => GenerateError::Encoding(other.to_string()),
            RenderError::SizeTooSmall { minimum, .. } => GenerateError::SizeTooSmall { minimum },
            RenderError::LogoDoesNotFit { percent } => GenerateError::LogoDoesNotFit { percent },
            RenderError::PngEncoding(message) => GenerateError::Encoding(message),
            // A format compiled out of qr-core, or a refusal added after this match was written:
            // neither is the caller's fault.
            other => GenerateError::Encoding(other.to_string()),
        }
    }
}

impl From<BoundsError> for GenerateError {
    /// The error of the parameter the bound belongs to.
    fn from(e: BoundsError) -> Self {
        match e {
            BoundsError::Size(_) | BoundsError::SizeText(_) => GenerateError::Size(e),
            BoundsError::Margin(_) | BoundsError::MarginText(_) => GenerateError::Margin(e),
            BoundsError::LogoSize(_) | BoundsError::LogoSizeText(_) => GenerateError::LogoSize(e),
        }
    }
}

/// Refuses data of more than [`MAX_DATA_CHARS`] characters.
fn check_data_length(data: &str) -> Result<(), GenerateError> {
    let count = data.chars().count();
    if count > MAX_DATA_CHARS {
        return Err(GenerateError::TooManyCharacters {
            count,
            max: MAX_DATA_CHARS,
        });
    }
    Ok(())
}

/// Renders `data` with `options`, reporting failures with the API's messages.
///
/// The service's bounds are checked here as well as in [`GenerateParams::parse`], so options
/// built or changed by hand cannot step past them.
pub fn render(data: &str, options: &RenderOptions) -> Result<Vec<u8>, GenerateError> {
    check_data_length(data)?;
    bounds::check_options(options)?;
    qr_core::render(data, options).map_err(GenerateError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params(pairs: &[(&str, &str)]) -> GenerateParams {
        GenerateParams::from_pairs(pairs.iter().copied())
    }

    fn message(pairs: &[(&str, &str)]) -> String {
        match params(pairs).parse() {
            Ok(_) => "ok".to_owned(),
            Err(e) => e.to_string(),
        }
    }

    #[test]
    fn defaults_are_the_specs() {
        let (data, options) = params(&[("data", "hello")]).parse().unwrap();
        assert_eq!(data, "hello");
        assert_eq!(options, RenderOptions::default());
        assert_eq!(options.size.pixels(), 300);
        assert_eq!(options.ec_level, EcLevel::M);
    }

    #[test]
    fn every_parameter_is_read() {
        let (_, o) = params(&[
            ("data", "x"),
            ("size", "512"),
            ("format", "SVG"),
            ("color", "ff0000"),
            ("background", "0f0"),
            ("errorCorrection", "h"),
            ("margin", "0"),
            ("logoSize", "25"),
            ("unknown", "ignored"),
            ("size", "9999"),
        ])
        .parse()
        .unwrap();
        assert_eq!(o.size.pixels(), 512);
        assert_eq!(o.format, Format::Svg);
        assert_eq!(o.color, Color::rgb(255, 0, 0));
        assert_eq!(o.background, Color::rgb(0, 255, 0));
        assert_eq!(o.ec_level, EcLevel::H);
        assert_eq!(o.margin.modules(), 0);
        assert_eq!(o.logo_size.percent(), 25);
    }

    #[test]
    fn messages_are_the_apis() {
        assert_eq!(message(&[]), "data parameter required");
        assert_eq!(message(&[("data", "")]), "data parameter required");
        assert_eq!(message(&[("data", "x"), ("size", "49")]), "Invalid size");
        assert_eq!(message(&[("data", "x"), ("size", "2001")]), "Invalid size");
        assert_eq!(message(&[("data", "x"), ("size", "abc")]), "Invalid size");
        assert_eq!(
            message(&[("data", "x"), ("format", "gif")]),
            "Invalid format"
        );
        assert_eq!(
            message(&[("data", "x"), ("color", "#000")]),
            "Invalid color"
        );
        assert_eq!(
            message(&[("data", "x"), ("background", "zzzzzz")]),
            "Invalid background"
        );
        assert_eq!(
            message(&[("data", "x"), ("errorCorrection", "X")]),
            "Invalid errorCorrection"
        );
        assert_eq!(
            message(&[("data", "x"), ("margin", "11")]),
            "Invalid margin"
        );
        assert_eq!(
            message(&[("data", "x"), ("logoSize", "31")]),
            "Invalid logoSize"
        );
        assert_eq!(
            message(&[("data", &"a".repeat(2954))]),
            "Data too long: 2954 characters, at most 2953 allowed"
        );
    }

    #[test]
    fn too_many_characters_is_refused_before_encoding() {
        let data = "é".repeat(2954);
        assert_eq!(
            render(&data, &RenderOptions::default()),
            Err(GenerateError::TooManyCharacters {
                count: 2954,
                max: 2953
            })
        );
    }

    #[test]
    fn out_of_bounds_parameters_name_their_bound() {
        let detail = |pairs: &[(&str, &str)]| {
            let error = params(pairs).parse().unwrap_err();
            let source = std::error::Error::source(&error).map(ToString::to_string);
            (error.to_string(), source.unwrap_or_default())
        };
        assert_eq!(
            detail(&[("data", "x"), ("size", "49")]),
            (
                "Invalid size".into(),
                "invalid size 49: it must be from 50 to 2000 pixels".into()
            )
        );
        assert_eq!(
            detail(&[("data", "x"), ("margin", "11")]),
            (
                "Invalid margin".into(),
                "invalid margin 11: it must be from 0 to 10 modules".into()
            )
        );
        assert_eq!(
            detail(&[("data", "x"), ("logoSize", "4")]),
            (
                "Invalid logoSize".into(),
                "invalid logo size 4: it must be from 5 to 30 percent of the code's width".into()
            )
        );
    }

    #[test]
    fn render_errors_get_clear_messages() {
        let (data, mut options) = params(&[("data", &"é".repeat(2000))]).parse().unwrap();
        let e = render(&data, &options).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Data too long for error correction level M: at most 2331 bytes fit"
        );
        options.ec_level = EcLevel::L;
        options.size = bounds::size(50).unwrap();
        let e = render("a".repeat(500).as_str(), &options).unwrap_err();
        assert!(
            matches!(e, GenerateError::SizeTooSmall { minimum } if minimum > 50),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .starts_with("Size too small for this code: use a size of at least ")
        );
    }

    #[test]
    fn rendering_works() {
        let (data, options) = params(&[("data", "hello"), ("format", "svg")])
            .parse()
            .unwrap();
        let svg = render(&data, &options).unwrap();
        assert!(svg.starts_with(b"<svg") || svg.starts_with(b"<?xml"));
    }
}
