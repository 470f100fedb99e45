//! One code from request parameters: raw string parameters to render options, and render failures to the API's messages.
//!
//! Both the HTTP server (`GET /api/generate`) and the CLI (`qr generate`) call
//! [`GenerateParams::parse`] and then [`render`], so they accept the same
//! values and report the same messages. The `Display` of every
//! [`GenerateError`] is exactly the message of the API's error body.

use qr_core::{
    Capacity, Color, EcLevel, EncodeError, FinderStyle, Format, FrameStyle, FrameText, Gradient,
    GradientAngle, GradientKind, ModuleStyle, OptionError, RenderError, RenderOptions, SvgMode,
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
    /// `style`: module shape, one of qr-core's `ModuleStyle` names (default square).
    pub style: Option<String>,
    /// `finderStyle`: finder shape, square, rounded or circle (default square).
    pub finder_style: Option<String>,
    /// `finderColor`: the finders' colour, hex (default: the modules' paint).
    pub finder_color: Option<String>,
    /// `gradient`: linear or radial, from `color` to `color2` (default none).
    pub gradient: Option<String>,
    /// `color2`: the gradient's end colour, hex (required with `gradient`).
    pub color2: Option<String>,
    /// `gradientAngle`: a linear gradient's direction, 0 to 359 degrees (default 0).
    pub gradient_angle: Option<String>,
    /// `frame`: none, box, banner-bottom or banner-top (default none).
    pub frame: Option<String>,
    /// `frameText`: the frame's text, at most 32 characters (default none).
    pub frame_text: Option<String>,
    /// `frameColor`: the frame's colour, hex (default `color`).
    pub frame_color: Option<String>,
    /// `svgMode`: compact or outline (default compact).
    pub svg_mode: Option<String>,
    /// `printSize`: PDF and EPS width in millimetres, 10 to 1000 (default 50).
    pub print_size: Option<String>,
    /// `dpi`: resolution, 72 to 2400 (PNG pHYs; logos in PDF and EPS, default 300).
    pub dpi: Option<String>,
    /// `verify`: true to decode the finished image before answering (default false).
    pub verify: Option<String>,
}

/// The API names of every parameter, in the order they are validated.
pub const PARAMETER_NAMES: [&str; 21] = [
    "data",
    "size",
    "format",
    "color",
    "background",
    "errorCorrection",
    "margin",
    "logoSize",
    "style",
    "finderStyle",
    "finderColor",
    "gradient",
    "color2",
    "gradientAngle",
    "frame",
    "frameText",
    "frameColor",
    "svgMode",
    "printSize",
    "dpi",
    "verify",
];

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
    /// `style` is not a module style.
    #[error("Invalid style")]
    Style(#[source] OptionError),
    /// `finderStyle` is not a finder style.
    #[error("Invalid finderStyle")]
    FinderStyle(#[source] OptionError),
    /// `finderColor` is not hex.
    #[error("Invalid finderColor")]
    FinderColor(#[source] OptionError),
    /// `gradient` is not linear or radial.
    #[error("Invalid gradient")]
    Gradient(#[source] OptionError),
    /// `color2` is not hex, or missing with a gradient.
    #[error("Invalid color2")]
    Color2(#[source] BoundsError),
    /// `gradientAngle` is not a whole number from 0 to 359.
    #[error("Invalid gradientAngle")]
    GradientAngle(#[source] BoundsError),
    /// `frame` is not a frame style.
    #[error("Invalid frame")]
    Frame(#[source] OptionError),
    /// `frameText` is too long or has a character the font lacks.
    #[error("Invalid frameText")]
    FrameText(#[source] OptionError),
    /// `frameColor` is not hex.
    #[error("Invalid frameColor")]
    FrameColor(#[source] OptionError),
    /// `svgMode` is not compact or outline.
    #[error("Invalid svgMode")]
    SvgMode(#[source] OptionError),
    /// `printSize` is not a whole number from 10 to 1000.
    #[error("Invalid printSize")]
    PrintSize(#[source] BoundsError),
    /// `dpi` is not a whole number from 72 to 2400.
    #[error("Invalid dpi")]
    Dpi(#[source] BoundsError),
    /// `verify` is not true or false.
    #[error("Invalid verify")]
    Verify(#[source] BoundsError),
    /// A colour is too close to the background to scan.
    #[error(
        "Contrast too low: {parameter} on the background is {ratio}:1, at least {minimum}:1 is needed for the code to scan"
    )]
    LowContrast {
        /// The parameter whose colour is too light or too dark (`color`, `color2`, `gradient`
        /// for a colour in between, `finderColor`).
        parameter: &'static str,
        /// The WCAG contrast ratio found.
        ratio: crate::scan::Ratio,
        /// The smallest ratio accepted.
        minimum: crate::scan::Ratio,
    },
    /// A style's shapes would be too small to read at this size.
    #[error(
        "Size too small for this style: {pixels} pixels per module, at least {minimum} are needed; use a size of at least {size}"
    )]
    StyleTooThin {
        /// Pixels per module at the requested size.
        pixels: u32,
        /// The fewest pixels per module accepted for the style.
        minimum: u32,
        /// The smallest image size that gives the style enough pixels.
        size: u32,
    },
    /// `verify=true` and the finished image did not decode to the data (answered with 422).
    #[error("Image not readable: {0}")]
    Unreadable(String),
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
    /// Collects the parameters from `(name, value)` pairs with the API's names
    /// ([`PARAMETER_NAMES`]).
    ///
    /// The first occurrence of a name wins; unknown names are ignored.
    pub fn from_pairs<K, V>(pairs: impl IntoIterator<Item = (K, V)>) -> Self
    where
        K: AsRef<str>,
        V: Into<String>,
    {
        let mut params = Self::default();
        for (name, value) in pairs {
            if let Some(slot) = params.slot(name.as_ref())
                && slot.is_none()
            {
                *slot = Some(value.into());
            }
        }
        params
    }

    /// The value of the parameter named `name` (an API name), `None` when not given or unknown.
    pub fn get(&self, name: &str) -> Option<&str> {
        PARAMETER_NAMES
            .iter()
            .position(|&n| n == name)
            .and_then(|index| self.values()[index])
    }

    /// The slot of the parameter named `name` (an API name), `None` for an unknown name.
    pub fn slot(&mut self, name: &str) -> Option<&mut Option<String>> {
        Some(match name {
            "data" => &mut self.data,
            "size" => &mut self.size,
            "format" => &mut self.format,
            "color" => &mut self.color,
            "background" => &mut self.background,
            "errorCorrection" => &mut self.error_correction,
            "margin" => &mut self.margin,
            "logoSize" => &mut self.logo_size,
            "style" => &mut self.style,
            "finderStyle" => &mut self.finder_style,
            "finderColor" => &mut self.finder_color,
            "gradient" => &mut self.gradient,
            "color2" => &mut self.color2,
            "gradientAngle" => &mut self.gradient_angle,
            "frame" => &mut self.frame,
            "frameText" => &mut self.frame_text,
            "frameColor" => &mut self.frame_color,
            "svgMode" => &mut self.svg_mode,
            "printSize" => &mut self.print_size,
            "dpi" => &mut self.dpi,
            "verify" => &mut self.verify,
            _ => return None,
        })
    }

    /// Every value in the order of [`PARAMETER_NAMES`].
    fn values(&self) -> [Option<&str>; 21] {
        [
            &self.data,
            &self.size,
            &self.format,
            &self.color,
            &self.background,
            &self.error_correction,
            &self.margin,
            &self.logo_size,
            &self.style,
            &self.finder_style,
            &self.finder_color,
            &self.gradient,
            &self.color2,
            &self.gradient_angle,
            &self.frame,
            &self.frame_text,
            &self.frame_color,
            &self.svg_mode,
            &self.print_size,
            &self.dpi,
            &self.verify,
        ]
        .map(|value| value.as_deref())
    }

    /// `verify` read as a flag (absent is false).
    pub fn verify(&self) -> Result<bool, GenerateError> {
        match self.verify.as_deref() {
            None => Ok(false),
            Some(text) => bounds::parse_flag(text).map_err(GenerateError::Verify),
        }
    }

    /// Validates every parameter, in the order of [`PARAMETER_NAMES`], and returns the data
    /// with its render options (without a logo; `verify` is read by [`GenerateParams::verify`]).
    /// The first invalid parameter is reported.
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
        if let Some(s) = &self.style {
            options.style = s.parse::<ModuleStyle>().map_err(GenerateError::Style)?;
        }
        if let Some(s) = &self.finder_style {
            options.finder_style = s
                .parse::<FinderStyle>()
                .map_err(GenerateError::FinderStyle)?;
        }
        if let Some(s) = &self.finder_color {
            options.finder_color = Some(Color::parse_hex(s).map_err(GenerateError::FinderColor)?);
        }
        if let Some(s) = &self.gradient {
            let kind = s.parse::<GradientKind>().map_err(GenerateError::Gradient)?;
            let to = match &self.color2 {
                Some(c) => bounds::parse_colour(c).map_err(GenerateError::Color2)?,
                None => return Err(GenerateError::Color2(BoundsError::Color2Required)),
            };
            let angle = match &self.gradient_angle {
                Some(a) => bounds::parse_gradient_angle(a).map_err(GenerateError::GradientAngle)?,
                None => GradientAngle::default(),
            };
            options.gradient = Some(Gradient::new(kind, to).with_angle(angle));
        } else {
            // Without a gradient these two are unused, but still checked: a typo should not pass.
            if let Some(c) = &self.color2 {
                bounds::parse_colour(c).map_err(GenerateError::Color2)?;
            }
            if let Some(a) = &self.gradient_angle {
                bounds::parse_gradient_angle(a).map_err(GenerateError::GradientAngle)?;
            }
        }
        if let Some(s) = &self.frame {
            options.frame.style = s.parse::<FrameStyle>().map_err(GenerateError::Frame)?;
        }
        if let Some(s) = &self.frame_text {
            options.frame.text = FrameText::new(s).map_err(GenerateError::FrameText)?;
        }
        if let Some(s) = &self.frame_color {
            options.frame.color = Some(Color::parse_hex(s).map_err(GenerateError::FrameColor)?);
        }
        if let Some(s) = &self.svg_mode {
            options.svg_mode = s.parse::<SvgMode>().map_err(GenerateError::SvgMode)?;
        }
        if let Some(s) = &self.print_size {
            options.print_size = bounds::parse_print_size(s).map_err(GenerateError::PrintSize)?;
        }
        if let Some(s) = &self.dpi {
            options.dpi = Some(bounds::parse_dpi(s).map_err(GenerateError::Dpi)?);
        }
        self.verify()?;
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
            BoundsError::PrintSize(_) | BoundsError::PrintSizeText(_) => {
                GenerateError::PrintSize(e)
            }
            BoundsError::Dpi(_) | BoundsError::DpiText(_) => GenerateError::Dpi(e),
            BoundsError::GradientAngle(_) => GenerateError::GradientAngle(e),
            BoundsError::Colour(_) | BoundsError::Color2Required => GenerateError::Color2(e),
            BoundsError::Flag(_) => GenerateError::Verify(e),
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
    crate::scan::check_contrast(options)?;
    let code = qr_core::encode(data, options)?;
    crate::scan::check_geometry(&code, options)?;
    qr_core::render_code(&code, options).map_err(GenerateError::from)
}

/// [`render`], then, when `verify`, the finished image decoded back: an image that does not
/// give back `data` is refused with [`GenerateError::Unreadable`].
pub fn render_checked(
    data: &str,
    options: &RenderOptions,
    verify: bool,
) -> Result<Vec<u8>, GenerateError> {
    let image = render(data, options)?;
    if verify {
        crate::scan::verify(data, options, &image)?;
    }
    Ok(image)
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
