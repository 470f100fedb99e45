//! A code the service will make ([`Code`]): data and render options validated once, by [`GenerateParams::parse`](crate::GenerateParams::parse) or [`Code::new`], so rendering does not check them again.
//!
//! Its fields are private: a `Code` holds at most 2,953 characters of data and options within
//! the service's bounds ([`crate::bounds`]), and a Micro QR code only what Micro QR codes can be
//! ([`crate::symbol::check_micro`]). The only changes it allows keep that true: a logo (refused
//! for Micro QR), and PNG instead of a print format for a preview.

use qr_core::{FinderStyle, Format, Frame, Logo, ModuleStyle, PrintSize, RenderOptions, SvgMode};

use crate::bounds::{self, MAX_DATA_CHARS};
use crate::error::{GenerateError, ParameterError};
use crate::symbol::{self, Symbol};

/// A code to render: its data, render options, symbol and whether to verify it, all within the
/// service's rules.
#[derive(Debug, Clone, PartialEq)]
pub struct Code {
    data: String,
    options: RenderOptions,
    symbol: Symbol,
    verify: bool,
}

impl Code {
    /// Checks a code built by hand (not parsed): the data's length, the options' bounds and
    /// what a Micro QR code can be.
    pub fn new(
        data: &str,
        options: RenderOptions,
        symbol: Symbol,
        verify: bool,
    ) -> Result<Code, GenerateError> {
        check_data_length(data)?;
        bounds::check_options(&options)?;
        if symbol == Symbol::Micro {
            symbol::check_micro(&options, verify)?;
            if options.logo.is_some() {
                return Err(symbol::logo_refused());
            }
        }
        Ok(Code {
            data: data.to_owned(),
            options,
            symbol,
            verify,
        })
    }

    /// A code [`GenerateParams::parse`](crate::GenerateParams::parse) has checked, parameter by
    /// parameter, with the same rules as [`Code::new`].
    pub(crate) fn parsed(
        data: String,
        options: RenderOptions,
        symbol: Symbol,
        verify: bool,
    ) -> Code {
        Code {
            data,
            options,
            symbol,
            verify,
        }
    }

    /// The data to encode.
    pub fn data(&self) -> &str {
        &self.data
    }

    /// The render options (read-only: changing them could step past the bounds).
    pub fn options(&self) -> &RenderOptions {
        &self.options
    }

    /// The image format.
    pub fn format(&self) -> Format {
        self.options.format
    }

    /// A regular or a Micro QR code.
    pub fn symbol(&self) -> Symbol {
        self.symbol
    }

    /// Whether the finished image is decoded before it is given out (`verify=true`).
    pub fn verify(&self) -> bool {
        self.verify
    }

    /// The code with `logo` in its centre; a Micro QR code has too little error correction to
    /// carry one.
    pub fn with_logo(mut self, logo: Logo) -> Result<Code, GenerateError> {
        if self.symbol == Symbol::Micro {
            return Err(symbol::logo_refused());
        }
        self.options.logo = Some(logo);
        Ok(self)
    }

    /// The code as an image a page shows: PDF and EPS become PNG (an `<img>` shows neither).
    pub fn shown_in_a_page(mut self) -> Code {
        if self.options.format.is_print() {
            self.options.format = Format::Png;
        }
        self
    }

    /// Whether the code is plain: a regular QR code of square modules in one colour, as PNG or
    /// SVG, without logo, frame, print settings or verification; only size, colours, level,
    /// margin and the (unused) logo size may differ from the defaults. Such a code renders in
    /// well under 100 µs at 512 pixels.
    pub fn is_plain(&self) -> bool {
        let o = &self.options;
        self.symbol == Symbol::Qr
            && !self.verify
            && matches!(o.format, Format::Png | Format::Svg)
            && o.logo.is_none()
            && o.style == ModuleStyle::default()
            && o.finder_style == FinderStyle::default()
            && o.finder_color.is_none()
            && o.gradient.is_none()
            && o.frame == Frame::default()
            && o.svg_mode == SvgMode::default()
            && o.print_size == PrintSize::default()
            && o.dpi.is_none()
    }
}

/// Refuses data of more than [`MAX_DATA_CHARS`] characters.
pub(crate) fn check_data_length(data: &str) -> Result<(), ParameterError> {
    let count = data.chars().count();
    if count > MAX_DATA_CHARS {
        return Err(ParameterError::TooManyCharacters {
            count,
            max: MAX_DATA_CHARS,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::GenerateParams;

    fn parse(pairs: &[(&str, &str)]) -> Code {
        GenerateParams::from_pairs(pairs.iter().copied())
            .parse()
            .expect("valid parameters")
    }

    #[test]
    fn hand_built_codes_are_checked() {
        let data = "é".repeat(2954);
        assert_eq!(
            Code::new(&data, RenderOptions::default(), Symbol::Qr, false),
            Err(GenerateError::Parameter(
                ParameterError::TooManyCharacters {
                    count: 2954,
                    max: 2953
                }
            ))
        );
        let wide = RenderOptions::default().with_margin(qr_core::Margin::new(11));
        assert_eq!(
            Code::new("x", wide, Symbol::Qr, false)
                .unwrap_err()
                .to_string(),
            "Invalid margin"
        );
        let dots = RenderOptions::default().with_style(ModuleStyle::Dots);
        assert!(Code::new("1", dots, Symbol::Micro, false).is_err());
    }

    #[test]
    fn plain_codes_are_told_apart() {
        assert!(parse(&[("data", "x")]).is_plain());
        assert!(
            parse(&[
                ("data", "x"),
                ("size", "512"),
                ("format", "svg"),
                ("color", "123456"),
                ("errorCorrection", "Q"),
                ("margin", "2"),
                ("logoSize", "25"),
            ])
            .is_plain()
        );
        for styled in [
            ("format", "pdf"),
            ("style", "dots"),
            ("finderColor", "000000"),
            ("frame", "box"),
            ("frameText", "HI"),
            ("svgMode", "outline"),
            ("printSize", "60"),
            ("dpi", "300"),
            ("verify", "true"),
            ("symbol", "micro"),
        ] {
            assert!(!parse(&[("data", "1"), styled]).is_plain(), "{styled:?}");
        }
    }

    #[test]
    fn a_micro_code_takes_no_logo_and_previews_become_png() {
        let fixture = include_bytes!("../../qr-core/tests/fixtures/logo.png");
        let logo = qr_core::Logo::decode(fixture.to_vec()).expect("the fixture is a PNG");
        let code = parse(&[("data", "1"), ("symbol", "micro")]);
        assert_eq!(code.with_logo(logo.clone()), Err(symbol::logo_refused()));
        let regular = parse(&[("data", "1")])
            .with_logo(logo)
            .expect("a QR code takes a logo");
        assert!(regular.options().logo.is_some() && !regular.is_plain());
        let pdf = parse(&[("data", "x"), ("format", "pdf")]).shown_in_a_page();
        assert_eq!(pdf.format(), Format::Png);
    }
}
