//! Structured append as the CLI offers it (`qr generate --structured N|auto`): one message over up to 16 codes of one size, each rendered with the service's checks.
//!
//! `auto` takes as few codes as hold the message with each code at most version 10 (57 modules,
//! comfortable for phone cameras); a number N takes the smallest codes that carry the message
//! in at most N codes. Every code is checked as a single image is (bounds, contrast, the
//! style's pixels per module) and drawn with the same options. `verify` and logos are refused:
//! rqrr stops at the structured append header, and a logo's version rules do not apply to a
//! sequence whose version is fixed by the split.

use std::str::FromStr;

use qr_core::{EncodeError, QrCode, RenderOptions, Version};

use crate::code::Code;
use crate::error::{GenerateError, ImageError, ParameterError};

/// How to split a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Split {
    /// As few codes as hold it, each at most version [`AUTO_MAX_VERSION`].
    Auto,
    /// The smallest codes that hold it in at most this many (1 to 16).
    AtMost(u8),
}

/// The largest version `auto` uses: 57 modules a side.
pub const AUTO_MAX_VERSION: u8 = 10;

impl FromStr for Split {
    type Err = String;

    /// `auto`, or a count from 1 to 16.
    fn from_str(text: &str) -> Result<Split, String> {
        if text.eq_ignore_ascii_case("auto") {
            return Ok(Split::Auto);
        }
        match text.parse::<u8>() {
            Ok(n @ 1..=16) => Ok(Split::AtMost(n)),
            _ => Err(format!(
                "invalid count {text:?}: give auto or a number of codes from 1 to 16"
            )),
        }
    }
}

fn not_available(parameter: &'static str, reason: &'static str) -> GenerateError {
    ParameterError::NotAvailable {
        parameter,
        with: "structured append",
        reason,
    }
    .into()
}

/// The codes of `code`'s data split as `split` says, each rendered with its options, in
/// sequence order (its bounds hold for every [`Code`]; contrast and each code's pixels per
/// module are checked here).
pub fn render_structured(code: &Code, split: Split) -> Result<Vec<Vec<u8>>, GenerateError> {
    let options = code.options();
    if code.verify() {
        return Err(not_available(
            "verify",
            "the built-in decoder reads no structured append header; check the codes with ZXing",
        ));
    }
    if options.logo.is_some() {
        return Err(not_available(
            "logo",
            "the codes' version is set by the split, so a logo cannot be given room",
        ));
    }
    crate::scan::check_contrast(options)?;
    let codes = encode(code.data(), options, split)?;
    codes
        .iter()
        .map(|qr| {
            crate::scan::check_geometry(qr, options)?;
            Ok(qr_core::render_code(qr, options).map_err(ImageError::from)?)
        })
        .collect()
}

/// The sequence: for `auto`, versions 1 to 10; for N, the smallest largest version whose
/// sequence has at most N codes.
fn encode(data: &str, options: &RenderOptions, split: Split) -> Result<Vec<QrCode>, ImageError> {
    let base = options.encode_options();
    let with_max = |max: u8| {
        let version = Version::new(max).expect("1 to 40");
        QrCode::encode_structured(data.as_bytes(), &base.with_max_version(version))
    };
    let too_long = |e: EncodeError| match e {
        EncodeError::SequenceTooLong {
            level, max_version, ..
        } => ImageError::SequenceTooLong {
            level,
            max_version: max_version.number(),
        },
        other => ImageError::Encoding(other.to_string()),
    };
    match split {
        Split::Auto => with_max(AUTO_MAX_VERSION).map_err(too_long),
        Split::AtMost(n) => {
            for max in 1..=40 {
                if let Ok(codes) = with_max(max)
                    && codes.len() <= usize::from(n)
                {
                    return Ok(codes);
                }
            }
            // Even codes of version 40: more than N of them, or 16 do not hold the data.
            match with_max(40) {
                Ok(_) => Err(ImageError::TooManyCodes { count: n }),
                Err(e) => Err(too_long(e)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_parse() {
        assert_eq!("auto".parse(), Ok(Split::Auto));
        assert_eq!("16".parse(), Ok(Split::AtMost(16)));
        assert!("0".parse::<Split>().is_err());
        assert!("17".parse::<Split>().is_err());
    }

    #[test]
    fn a_count_gives_at_most_that_many_codes_of_the_smallest_size() {
        let text = "x".repeat(600);
        let options = RenderOptions::default();
        for n in [2, 3, 5] {
            let codes = encode(&text, &options, Split::AtMost(n)).unwrap();
            assert!(codes.len() <= usize::from(n), "{n}: {}", codes.len());
            // One version smaller would need more codes.
            let smaller = codes[0].version().number() - 1;
            let base = options
                .encode_options()
                .with_max_version(Version::new(smaller).unwrap());
            let more = QrCode::encode_structured(text.as_bytes(), &base).map_or(17, |c| c.len());
            assert!(more > usize::from(n));
        }
        let auto = encode(&text, &options, Split::Auto).unwrap();
        assert!(
            auto.iter()
                .all(|c| c.version().number() <= AUTO_MAX_VERSION)
        );
        assert_eq!(auto.len(), 3);
    }

    #[test]
    fn refusals_name_the_parameter() {
        let options = RenderOptions::default();
        let verified = Code::new("x", options.clone(), crate::Symbol::Qr, true).unwrap();
        let error = render_structured(&verified, Split::Auto).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("Invalid verify for structured append: ")
        );
        let error = encode(&"x".repeat(2900), &options, Split::AtMost(1)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "Data too long for 1 codes: more codes are needed; raise the count or use auto"
        );
    }
}
