//! A saved design: its name, its look, its uploaded logo (the image bytes and media type, checked as fetched logos are), whether it is the account's default, and its times.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::designs::look::Look;
use crate::ids::{AccountId, DesignId};

/// Most characters of a design name, after trimming (a name is a label in a list, not a text).
pub const MAX_DESIGN_NAME_CHARS: usize = 100;
/// Most designs an account holds, on every plan: a design is a few hundred bytes plus a logo
/// of at most [`MAX_LOGO_BYTES`], so 100 bound an account's designs to about 100 MiB, and a
/// brand with more than 100 looks is better served by generate's parameters.
pub const MAX_DESIGNS: u64 = 100;
/// Largest logo upload, in bytes: the logo fetcher's default bound (`--max-logo-bytes`).
pub const MAX_LOGO_BYTES: usize = 1024 * 1024;

/// A design of an account.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Design {
    /// Its id.
    pub id: DesignId,
    /// The owning account.
    pub account_id: AccountId,
    /// Its name.
    pub name: DesignName,
    /// Its generate parameters.
    pub look: Look,
    /// Its logo, stored with it.
    pub logo: Option<DesignLogo>,
    /// Whether it is the account's default (at most one is).
    pub is_default: bool,
    /// When it was created.
    pub created_at: DateTime<Utc>,
    /// When it was last changed.
    pub updated_at: DateTime<Utc>,
}

/// A design name: 1 to [`MAX_DESIGN_NAME_CHARS`] characters after trimming, no control
/// characters. Names need not be unique: designs are named by id.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct DesignName(String);

/// Why a design name was refused; each `Display` is the API's message.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DesignNameError {
    /// Empty after trimming.
    #[error("Invalid name: it must not be empty")]
    Empty,
    /// Longer than [`MAX_DESIGN_NAME_CHARS`].
    #[error("Invalid name: at most {MAX_DESIGN_NAME_CHARS} characters allowed")]
    TooLong,
    /// A control character.
    #[error("Invalid name: control characters are not allowed")]
    Control,
}

impl DesignName {
    /// Checks a name as typed.
    pub fn parse(raw: &str) -> Result<Self, DesignNameError> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(DesignNameError::Empty);
        }
        if name.chars().count() > MAX_DESIGN_NAME_CHARS {
            return Err(DesignNameError::TooLong);
        }
        if name.chars().any(char::is_control) {
            return Err(DesignNameError::Control);
        }
        Ok(Self(name.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl TryFrom<String> for DesignName {
    type Error = DesignNameError;

    fn try_from(value: String) -> Result<Self, Self::Error> {
        Self::parse(&value)
    }
}

impl From<DesignName> for String {
    fn from(name: DesignName) -> String {
        name.0
    }
}

impl std::fmt::Display for DesignName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The image types a logo may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogoType {
    /// `image/png`.
    Png,
    /// `image/jpeg`.
    Jpeg,
}

impl LogoType {
    /// The media type.
    pub fn media_type(self) -> &'static str {
        match self {
            LogoType::Png => "image/png",
            LogoType::Jpeg => "image/jpeg",
        }
    }

    /// The type a media type names (`image/png`, `image/jpeg` or `image/jpg`, any case).
    pub fn from_media_type(text: &str) -> Option<Self> {
        match text.trim().to_ascii_lowercase().as_str() {
            "image/png" => Some(LogoType::Png),
            "image/jpeg" | "image/jpg" => Some(LogoType::Jpeg),
            _ => None,
        }
    }
}

/// Why an uploaded logo was refused; the messages are the logo fetcher's.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LogoError {
    /// More than [`MAX_LOGO_BYTES`].
    #[error("Logo too large: at most {MAX_LOGO_BYTES} bytes allowed")]
    TooLarge,
    /// Neither PNG nor JPEG (by its signature), or a media type other than theirs.
    #[error("Logo must be a PNG or JPEG image")]
    NotAnImage,
    /// The declared media type is not the image's.
    #[error("Invalid logo: the image is {actual}, not {declared}")]
    TypeMismatch {
        /// What the upload said.
        declared: String,
        /// What the bytes are.
        actual: &'static str,
    },
    /// Undecodable, or wider or taller than qr-core accepts.
    #[error("Invalid logo: {0}")]
    Decode(String),
}

/// A design's logo: PNG or JPEG bytes that decode, at most [`MAX_LOGO_BYTES`].
#[derive(Clone, PartialEq, Eq)]
pub struct DesignLogo {
    kind: LogoType,
    bytes: Vec<u8>,
}

impl std::fmt::Debug for DesignLogo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DesignLogo")
            .field("media_type", &self.kind.media_type())
            .field("bytes", &self.bytes.len())
            .finish()
    }
}

impl DesignLogo {
    /// Checks an upload as the logo fetcher checks a fetched logo: at most [`MAX_LOGO_BYTES`],
    /// a PNG or JPEG signature, the declared media type (when given) the image's, and an image
    /// qr-core decodes within its dimensions.
    pub fn upload(declared: Option<&str>, bytes: Vec<u8>) -> Result<Self, LogoError> {
        if bytes.len() > MAX_LOGO_BYTES {
            return Err(LogoError::TooLarge);
        }
        // Decoded from a copy: qr-core keeps its bytes private, and the design stores the upload.
        let logo = qr_core::Logo::decode(bytes.clone()).map_err(|e| match e {
            qr_core::LogoError::UnsupportedFormat => LogoError::NotAnImage,
            other => LogoError::Decode(other.to_string()),
        })?;
        let kind = LogoType::from_media_type(logo.media_type()).ok_or(LogoError::NotAnImage)?;
        if let Some(declared) = declared {
            let said = LogoType::from_media_type(declared).ok_or(LogoError::NotAnImage)?;
            if said != kind {
                return Err(LogoError::TypeMismatch {
                    declared: declared.chars().take(100).collect(),
                    actual: kind.media_type(),
                });
            }
        }
        Ok(Self { kind, bytes })
    }

    /// A logo read back from storage (checked when it was stored).
    pub fn from_stored(kind: LogoType, bytes: Vec<u8>) -> Self {
        Self { kind, bytes }
    }

    /// Its type.
    pub fn kind(&self) -> LogoType {
        self.kind
    }

    /// The image's bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The image decoded for rendering.
    pub fn decode(&self) -> Result<qr_core::Logo, LogoError> {
        qr_core::Logo::decode(self.bytes.clone()).map_err(|e| LogoError::Decode(e.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1x1 PNG.
    pub(crate) const PIXEL_PNG: &[u8] = &[
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44,
        0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x06, 0x00, 0x00, 0x00, 0x1F,
        0x15, 0xC4, 0x89, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8,
        0xCF, 0xC0, 0xF0, 0x1F, 0x00, 0x05, 0x00, 0x01, 0xFF, 0x89, 0x99, 0x3D, 0x1D, 0x00, 0x00,
        0x00, 0x00, 0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82,
    ];

    #[test]
    fn names_are_bounded() {
        assert_eq!(DesignName::parse("  Brand ").unwrap().as_str(), "Brand");
        assert_eq!(DesignName::parse(" "), Err(DesignNameError::Empty));
        assert!(DesignName::parse(&"é".repeat(100)).is_ok());
        assert_eq!(
            DesignName::parse(&"é".repeat(101)),
            Err(DesignNameError::TooLong)
        );
        assert_eq!(DesignName::parse("a\nb"), Err(DesignNameError::Control));
    }

    #[test]
    fn logos_are_checked_as_fetched_ones() {
        let logo = DesignLogo::upload(Some("image/png"), PIXEL_PNG.to_vec()).unwrap();
        assert_eq!(logo.kind(), LogoType::Png);
        assert!(logo.decode().is_ok());
        assert_eq!(
            DesignLogo::upload(None, b"GIF89a".to_vec()),
            Err(LogoError::NotAnImage)
        );
        assert_eq!(
            DesignLogo::upload(Some("image/jpeg"), PIXEL_PNG.to_vec())
                .unwrap_err()
                .to_string(),
            "Invalid logo: the image is image/png, not image/jpeg"
        );
        assert_eq!(
            DesignLogo::upload(Some("image/gif"), PIXEL_PNG.to_vec()),
            Err(LogoError::NotAnImage)
        );
        let mut big = PIXEL_PNG.to_vec();
        big.resize(MAX_LOGO_BYTES + 1, 0);
        assert_eq!(DesignLogo::upload(None, big), Err(LogoError::TooLarge));
        let mut broken = PIXEL_PNG.to_vec();
        broken.truncate(20);
        assert!(matches!(
            DesignLogo::upload(None, broken),
            Err(LogoError::Decode(_))
        ));
    }
}
