//! `symbol=micro`: Micro QR codes (M1 to M4) as the service offers them: which parameters they take, their 2-module quiet zone, and their rendering with the service's checks.
//!
//! A Micro QR code is drawn plain (square modules, one colour, PNG or SVG): qr-core's
//! `render_micro` refuses the rest, and [`check_micro`] refuses it first with the parameter's
//! API name. `verify=true` is refused too: rqrr, the decoder `verify` uses, reads no Micro QR.

use std::str::FromStr;

use qr_core::{
    EcLevel, EncodeError, FinderStyle, FrameStyle, Margin, MicroOptions, MicroQrCode, ModuleStyle,
    RenderError, RenderOptions, SvgMode,
};

use crate::code::Code;
use crate::error::{GenerateError, ImageError, ParameterError};

/// Which kind of symbol to make.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Symbol {
    /// A regular QR code, versions 1 to 40 (`symbol=qr`, the default).
    #[default]
    Qr,
    /// A Micro QR code, M1 to M4 (`symbol=micro`): at most 35 digits, 21 letters or 15 bytes.
    Micro,
}

impl FromStr for Symbol {
    type Err = ();

    /// `qr` or `micro`, case-insensitive.
    fn from_str(text: &str) -> Result<Symbol, ()> {
        if text.eq_ignore_ascii_case("qr") {
            Ok(Symbol::Qr)
        } else if text.eq_ignore_ascii_case("micro") {
            Ok(Symbol::Micro)
        } else {
            Err(())
        }
    }
}

/// The quiet zone a Micro QR code gets when `margin` is not given: 2 modules, the minimum of
/// ISO/IEC 18004 section 6.3.8 (regular codes need 4).
pub const MICRO_QUIET_ZONE: Margin = Margin::new(2);

/// Refuses what a Micro QR code cannot be: a style, finder style or colour, gradient, frame,
/// outline SVG, PDF or EPS, level H, or `verify`.
pub fn check_micro(options: &RenderOptions, verify: bool) -> Result<(), ParameterError> {
    let refuse = |parameter, reason| {
        Err(ParameterError::NotAvailable {
            parameter,
            with: "symbol=micro",
            reason,
        })
    };
    const PLAIN: &str = "Micro QR codes are drawn plain (square modules, one colour)";
    if options.format.is_print() {
        return refuse("format", "Micro QR codes are written as png or svg");
    }
    if options.ec_level == EcLevel::H {
        return refuse("errorCorrection", "Micro QR codes have levels L, M and Q");
    }
    if options.style != ModuleStyle::Square {
        return refuse("style", PLAIN);
    }
    if options.finder_style != FinderStyle::Square {
        return refuse("finderStyle", PLAIN);
    }
    if options.finder_color.is_some() {
        return refuse("finderColor", PLAIN);
    }
    if options.gradient.is_some() {
        return refuse("gradient", PLAIN);
    }
    if options.frame.style != FrameStyle::None {
        return refuse("frame", PLAIN);
    }
    if options.svg_mode != SvgMode::Compact {
        return refuse("svgMode", PLAIN);
    }
    if verify {
        return refuse(
            "verify",
            "the built-in decoder reads no Micro QR; test the code with ZXing or a phone",
        );
    }
    Ok(())
}

/// The refusal of a logo on a Micro QR code (the logo is fetched or read by the adapters, so
/// they check this before fetching).
pub fn logo_refused() -> GenerateError {
    ParameterError::NotAvailable {
        parameter: "logo",
        with: "symbol=micro",
        reason: "a Micro QR code has too little error correction to carry a logo",
    }
    .into()
}

/// Encodes the code's data as the smallest Micro QR code at its level (raised when it fits)
/// and draws it, after the check the image needs: colour contrast (the bounds and
/// [`check_micro`] hold for every [`Code`]).
pub(crate) fn render_micro(code: &Code) -> Result<Vec<u8>, GenerateError> {
    let options = code.options();
    crate::scan::check_contrast(options)?;
    let micro =
        MicroQrCode::encode_with(code.data().as_bytes(), &MicroOptions::new(options.ec_level))
            .map_err(|e| match e {
                EncodeError::MicroDataTooLong {
                    level, capacity, ..
                } => ImageError::MicroDataTooLong { level, capacity },
                other => ImageError::Encoding(other.to_string()),
            })?;
    let image = qr_core::render_micro(&micro, options).map_err(|e| match e {
        RenderError::SizeTooSmall { minimum, .. } => ImageError::SizeTooSmall { minimum },
        other => ImageError::Encoding(other.to_string()),
    })?;
    Ok(image)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GenerateParams;
    use qr_core::Format;

    fn parse(pairs: &[(&str, &str)]) -> Result<(String, RenderOptions), String> {
        GenerateParams::from_pairs(pairs.iter().copied())
            .parse()
            .map(|code| (code.data().to_owned(), code.options().clone()))
            .map_err(|e| e.to_string())
    }

    #[test]
    fn micro_gets_a_two_module_quiet_zone_unless_margin_is_given() {
        let (_, options) = parse(&[("data", "1"), ("symbol", "MICRO")]).unwrap();
        assert_eq!(options.margin, Margin::new(2));
        let (_, options) = parse(&[("data", "1"), ("symbol", "micro"), ("margin", "3")]).unwrap();
        assert_eq!(options.margin, Margin::new(3));
        let (_, options) = parse(&[("data", "1"), ("symbol", "qr")]).unwrap();
        assert_eq!(options.margin, Margin::default());
    }

    #[test]
    fn what_micro_cannot_do_is_refused_by_parameter() {
        let refused =
            |pair: (&str, &str)| parse(&[("data", "1"), ("symbol", "micro"), pair]).unwrap_err();
        assert_eq!(
            refused(("style", "dots")),
            "Invalid style for symbol=micro: Micro QR codes are drawn plain (square modules, one colour)"
        );
        assert_eq!(
            refused(("format", "pdf")),
            "Invalid format for symbol=micro: Micro QR codes are written as png or svg"
        );
        assert_eq!(
            refused(("errorCorrection", "H")),
            "Invalid errorCorrection for symbol=micro: Micro QR codes have levels L, M and Q"
        );
        assert!(refused(("verify", "true")).starts_with("Invalid verify for symbol=micro: "));
        assert_eq!(
            parse(&[("data", "1"), ("symbol", "nano")]).unwrap_err(),
            "Invalid symbol: expected qr or micro"
        );
    }

    #[test]
    fn too_much_data_names_the_capacity() {
        let micro = |data: &str, options: RenderOptions| {
            render_micro(&Code::new(data, options, Symbol::Micro, false).unwrap())
        };
        let (data, options) = parse(&[("data", &"9".repeat(36)), ("symbol", "micro")]).unwrap();
        let error = micro(&data, options.clone()).unwrap_err().to_string();
        assert!(
            error.starts_with("Data too long for a Micro QR code at error correction level M: at most 30 digits fit"),
            "{error}"
        );
        let format = Format::Svg;
        let svg = micro("12345", options.with_format(format)).unwrap();
        assert!(svg.starts_with(b"<svg"));
    }
}
