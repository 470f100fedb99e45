//! Frame options: a border or banner around the code, with a short text such as "SCAN ME".

use std::fmt;

use super::style::named_enum;
use super::{Color, OptionError};

named_enum!(
    /// The kind of frame drawn around the code (needs the `frame` feature, except `None`).
    ///
    /// The image keeps its size: the frame takes its room from the code.
    FrameStyle, FrameStyle, {
        /// No frame: the plain image.
        #[default]
        None => "none",
        /// A border around the quiet zone, the text (if any) under the code in the frame colour.
        Box => "box",
        /// A border with a filled banner under the code, the text knocked out of it.
        BannerBottom => "banner-bottom",
        /// A border with a filled banner above the code, the text knocked out of it.
        BannerTop => "banner-top",
    }
);

/// A frame: its kind, its text and its colour.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Frame {
    /// The kind of frame.
    pub style: FrameStyle,
    /// The text drawn in the frame (may be empty).
    pub text: FrameText,
    /// The frame's colour; `None` uses the foreground colour.
    pub color: Option<Color>,
}

impl Frame {
    /// A frame of `style` without text, in the foreground colour.
    pub fn new(style: FrameStyle) -> Frame {
        Frame {
            style,
            ..Frame::default()
        }
    }

    /// This frame with `text`.
    #[must_use]
    pub fn with_text(mut self, text: FrameText) -> Frame {
        self.text = text;
        self
    }

    /// This frame in `color`.
    #[must_use]
    pub fn with_color(mut self, color: Color) -> Frame {
        self.color = Some(color);
        self
    }
}

/// A frame's text: at most 32 characters of printable ASCII or Latin-1 (U+0020 to U+007E and
/// U+00A0 to U+00FF), the characters of the font compiled into the crate.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct FrameText(String);

impl FrameText {
    /// The most characters a frame text may have.
    pub const MAX_CHARS: usize = 32;

    /// Returns `text` as a frame text, or [`OptionError::FrameText`] when it is too long or has
    /// a character the font does not draw.
    pub fn new(text: &str) -> Result<FrameText, OptionError> {
        let count = text.chars().count();
        if count > FrameText::MAX_CHARS {
            return Err(OptionError::FrameText(format!(
                "it has {count} characters, at most {} are allowed",
                FrameText::MAX_CHARS
            )));
        }
        if let Some(c) = text.chars().find(|&c| !FrameText::is_drawn(c)) {
            return Err(OptionError::FrameText(format!(
                "the character {c:?} (U+{:04X}) is not in the font: use printable ASCII or Latin-1 letters",
                u32::from(c)
            )));
        }
        Ok(FrameText(text.to_owned()))
    }

    /// Whether the compiled-in font draws `c`.
    pub const fn is_drawn(c: char) -> bool {
        matches!(c, ' '..='~' | '\u{A0}'..='\u{FF}')
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether the text is empty or only spaces (nothing is drawn).
    pub fn is_blank(&self) -> bool {
        self.0.chars().all(|c| c == ' ' || c == '\u{A0}')
    }
}

impl fmt::Display for FrameText {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_texts_are_bounded_to_the_fonts_characters() {
        assert_eq!(
            FrameText::new("SCAN ME").map(|t| t.to_string()),
            Ok("SCAN ME".into())
        );
        assert!(FrameText::new("Scannez-moi ! é").is_ok());
        assert!(FrameText::new(&"x".repeat(32)).is_ok());
        assert!(matches!(
            FrameText::new(&"x".repeat(33)),
            Err(OptionError::FrameText(_))
        ));
        assert!(matches!(
            FrameText::new("扫我"),
            Err(OptionError::FrameText(_))
        ));
        assert!(matches!(
            FrameText::new("a\nb"),
            Err(OptionError::FrameText(_))
        ));
        assert!(FrameText::new("  ").expect("spaces").is_blank());
        assert_eq!("banner-top".parse(), Ok(FrameStyle::BannerTop));
    }
}
