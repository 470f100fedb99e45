//! One code from request parameters: raw string parameters checked once into a [`Code`], and its rendering with the API's messages.
//!
//! Both the HTTP server (`GET /api/generate`) and the CLI (`qr generate`) call
//! [`GenerateParams::parse`] and then [`render`], so they accept the same
//! values and report the same messages. The names, bounds and messages are those of the table
//! [`crate::parameters::PARAMETERS`]; the `Display` of every [`GenerateError`] is exactly the
//! message of the API's error body.

use std::collections::BTreeMap;

use qr_core::{
    Color, EcLevel, FinderStyle, Format, FrameStyle, FrameText, Gradient, GradientAngle,
    GradientKind, ModuleStyle, RenderOptions, SvgMode,
};

use crate::bounds::{self, BoundsError};
pub use crate::code::Code;
use crate::code::check_data_length;
pub use crate::error::{GenerateError, ImageError, InvalidValue, ParameterError, PayloadError};
use crate::parameters::{self as table, Parameter};
use crate::symbol::Symbol;

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
    /// `symbol`: `qr` (default) or `micro` (Micro QR, M1 to M4).
    pub symbol: Option<String>,
    /// `type`: a content type ([`crate::content::CONTENT_TYPES`]) whose fields build the data,
    /// instead of `data`.
    pub content_type: Option<String>,
    /// The content type's fields by their API names (`ssid`, `password`, …).
    pub content: BTreeMap<String, String>,
}

/// The API names of every parameter [`GenerateParams::parse`] reads, in the order they are
/// validated: the settings of [`crate::parameters::PARAMETERS`].
pub const PARAMETER_NAMES: [&str; 22] = crate::parameters::SETTING_NAMES;

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
            let name = name.as_ref();
            if let Some(slot) = params.slot(name) {
                if slot.is_none() {
                    *slot = Some(value.into());
                }
            } else if crate::content::is_field_name(name) {
                params
                    .content
                    .entry(name.to_owned())
                    .or_insert_with(|| value.into());
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

    /// The parameters given, as `(API name, value)` in the API's order (content fields and
    /// `type` not included).
    pub fn given(&self) -> impl Iterator<Item = (&str, &str)> {
        PARAMETER_NAMES
            .iter()
            .zip(self.values())
            .filter_map(|(&name, value)| Some((name as &str, value?)))
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
            "symbol" => &mut self.symbol,
            "type" => &mut self.content_type,
            _ => return None,
        })
    }

    /// Every value in the order of [`PARAMETER_NAMES`].
    fn values(&self) -> [Option<&str>; 22] {
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
            &self.symbol,
        ]
        .map(|value| value.as_deref())
    }

    /// `verify` read as a flag (absent is false).
    pub fn verify(&self) -> Result<bool, GenerateError> {
        match self.verify.as_deref() {
            None => Ok(false),
            Some(text) => bounds::parse_flag(text).map_err(|e| invalid(&table::VERIFY, e)),
        }
    }

    /// `symbol` read (absent is a regular QR code).
    pub fn symbol(&self) -> Result<Symbol, GenerateError> {
        match self.symbol.as_deref() {
            None => Ok(Symbol::Qr),
            Some(text) => text
                .parse()
                .map_err(|_| ParameterError::Symbol(text.to_owned()).into()),
        }
    }

    /// The data: `data`, or the payload `type` and its fields build; an empty value counts as
    /// not given, and giving both is [`crate::error::ParameterError::TypeWithData`].
    pub fn payload(&self) -> Result<String, GenerateError> {
        fn given(value: &Option<String>) -> Option<&str> {
            value.as_deref().filter(|v| !v.is_empty())
        }
        match (given(&self.data), given(&self.content_type)) {
            (Some(_), Some(_)) => Err(ParameterError::TypeWithData.into()),
            (Some(data), None) => Ok(data.to_owned()),
            (None, Some(name)) => {
                let kind = crate::content::content_type(name)
                    .ok_or_else(|| PayloadError::ContentType(name.to_owned()))?;
                Ok(crate::content::build(kind, |field| {
                    self.content.get(field).map(String::as_str)
                })?)
            }
            (None, None) => Err(ParameterError::MissingData.into()),
        }
    }

    /// Validates every parameter, in the order of [`PARAMETER_NAMES`], into a [`Code`]: the
    /// data (`data`, or built from `type` and its fields) with its render options (without a
    /// logo), `verify` and `symbol`; a Micro QR code gets its 2-module quiet zone unless
    /// `margin` is given. The first invalid parameter is reported.
    pub fn parse(&self) -> Result<Code, GenerateError> {
        let data = self.payload()?;
        check_data_length(&data)?;
        let mut options = RenderOptions::default();
        if let Some(s) = &self.size {
            options.size = bounds::parse_size(s).map_err(|e| invalid(&table::SIZE, e))?;
        }
        if let Some(s) = &self.format {
            options.format = s
                .parse::<Format>()
                .map_err(|e| invalid(&table::FORMAT, e))?;
        }
        if let Some(s) = &self.color {
            options.color = Color::parse_hex(s).map_err(|e| invalid(&table::COLOR, e))?;
        }
        if let Some(s) = &self.background {
            options.background = Color::parse_hex(s).map_err(|e| invalid(&table::BACKGROUND, e))?;
        }
        if let Some(s) = &self.error_correction {
            // The level's name is the whole message: no source.
            options.ec_level = EcLevel::parse(s).ok_or(ParameterError::Invalid {
                parameter: &table::ERROR_CORRECTION,
                reason: None,
            })?;
        }
        if let Some(s) = &self.margin {
            options.margin = bounds::parse_margin(s).map_err(|e| invalid(&table::MARGIN, e))?;
        }
        if let Some(s) = &self.logo_size {
            options.logo_size =
                bounds::parse_logo_size(s).map_err(|e| invalid(&table::LOGO_SIZE, e))?;
        }
        if let Some(s) = &self.style {
            options.style = s
                .parse::<ModuleStyle>()
                .map_err(|e| invalid(&table::STYLE, e))?;
        }
        if let Some(s) = &self.finder_style {
            options.finder_style = s
                .parse::<FinderStyle>()
                .map_err(|e| invalid(&table::FINDER_STYLE, e))?;
        }
        if let Some(s) = &self.finder_color {
            options.finder_color =
                Some(Color::parse_hex(s).map_err(|e| invalid(&table::FINDER_COLOR, e))?);
        }
        if let Some(s) = &self.gradient {
            let kind = s
                .parse::<GradientKind>()
                .map_err(|e| invalid(&table::GRADIENT, e))?;
            let to = match &self.color2 {
                Some(c) => bounds::parse_colour(c).map_err(|e| invalid(&table::COLOR2, e))?,
                None => return Err(invalid(&table::COLOR2, BoundsError::Color2Required)),
            };
            let angle = match &self.gradient_angle {
                Some(a) => bounds::parse_gradient_angle(a)
                    .map_err(|e| invalid(&table::GRADIENT_ANGLE, e))?,
                None => GradientAngle::default(),
            };
            options.gradient = Some(Gradient::new(kind, to).with_angle(angle));
        } else {
            // Without a gradient these two are unused, but still checked: a typo should not pass.
            if let Some(c) = &self.color2 {
                bounds::parse_colour(c).map_err(|e| invalid(&table::COLOR2, e))?;
            }
            if let Some(a) = &self.gradient_angle {
                bounds::parse_gradient_angle(a).map_err(|e| invalid(&table::GRADIENT_ANGLE, e))?;
            }
        }
        if let Some(s) = &self.frame {
            options.frame.style = s
                .parse::<FrameStyle>()
                .map_err(|e| invalid(&table::FRAME, e))?;
        }
        if let Some(s) = &self.frame_text {
            options.frame.text = FrameText::new(s).map_err(|e| invalid(&table::FRAME_TEXT, e))?;
        }
        if let Some(s) = &self.frame_color {
            options.frame.color =
                Some(Color::parse_hex(s).map_err(|e| invalid(&table::FRAME_COLOR, e))?);
        }
        if let Some(s) = &self.svg_mode {
            options.svg_mode = s
                .parse::<SvgMode>()
                .map_err(|e| invalid(&table::SVG_MODE, e))?;
        }
        if let Some(s) = &self.print_size {
            options.print_size =
                bounds::parse_print_size(s).map_err(|e| invalid(&table::PRINT_SIZE, e))?;
        }
        if let Some(s) = &self.dpi {
            options.dpi = Some(bounds::parse_dpi(s).map_err(|e| invalid(&table::DPI, e))?);
        }
        let verify = self.verify()?;
        let symbol = self.symbol()?;
        if symbol == Symbol::Micro {
            crate::symbol::check_micro(&options, verify)?;
            if self.margin.is_none() {
                options.margin = crate::symbol::MICRO_QUIET_ZONE;
            }
        }
        Ok(Code::parsed(data, options, symbol, verify))
    }
}

/// The refusal of `parameter`'s value, for `reason`.
fn invalid(parameter: &'static Parameter, reason: impl Into<InvalidValue>) -> GenerateError {
    ParameterError::invalid(parameter, reason).into()
}

/// Renders `code`, reporting failures with the API's messages: a regular QR code after the
/// checks the image itself needs (colour contrast, the style's pixels per module), then, when
/// it asks for `verify`, decoded back (an image that does not give back the data is refused
/// with [`ImageError::Unreadable`]); a Micro QR code as `symbol::render_micro` draws it.
///
/// The parameters' bounds are not checked again: a [`Code`] cannot step past them.
pub fn render(code: &Code) -> Result<Vec<u8>, GenerateError> {
    if code.symbol() == Symbol::Micro {
        return crate::symbol::render_micro(code);
    }
    let (data, options) = (code.data(), code.options());
    crate::scan::check_contrast(options)?;
    let qr = qr_core::encode(data, options).map_err(ImageError::from)?;
    crate::scan::check_geometry(&qr, options)?;
    let image = qr_core::render_code(&qr, options).map_err(ImageError::from)?;
    if code.verify() {
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
        let code = params(&[("data", "hello")]).parse().unwrap();
        let (data, options) = (code.data(), code.options().clone());
        assert_eq!(data, "hello");
        assert_eq!(options, RenderOptions::default());
        assert_eq!(options.size.pixels(), 300);
        assert_eq!(options.ec_level, EcLevel::M);
    }

    #[test]
    fn every_parameter_is_read() {
        let code = params(&[
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
        let o = code.options();
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
            params(&[("data", &data)]).parse(),
            Err(GenerateError::Parameter(
                ParameterError::TooManyCharacters {
                    count: 2954,
                    max: 2953
                }
            ))
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
        let code = params(&[("data", &"é".repeat(2000))]).parse().unwrap();
        let e = render(&code).unwrap_err();
        assert_eq!(
            e.to_string(),
            "Data too long for error correction level M: at most 2331 bytes fit"
        );
        let mut options = code.options().clone();
        options.ec_level = EcLevel::L;
        options.size = bounds::size(50).unwrap();
        let small = Code::new("a".repeat(500).as_str(), options, Symbol::Qr, false).unwrap();
        let e = render(&small).unwrap_err();
        assert!(
            matches!(e, GenerateError::Image(ImageError::SizeTooSmall { minimum }) if minimum > 50),
            "{e:?}"
        );
        assert!(
            e.to_string()
                .starts_with("Size too small for this code: use a size of at least ")
        );
    }

    #[test]
    fn rendering_works() {
        let code = params(&[("data", "hello"), ("format", "svg")])
            .parse()
            .unwrap();
        let svg = render(&code).unwrap();
        assert!(svg.starts_with(b"<svg") || svg.starts_with(b"<?xml"));
    }
}
