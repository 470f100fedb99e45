//! Logos: PNG or JPEG bytes decoded into pixels, with their dimensions bounded before any pixel is decoded.

use std::sync::Arc;

#[cfg(feature = "svg")]
use base64::Engine as _;
use tiny_skia::{IntSize, Pixmap};

use crate::error::LogoError;

/// A decoded logo image, cheap to clone.
///
/// ```
/// use qr_core::{Logo, LogoError};
///
/// assert_eq!(Logo::decode(b"GIF89a".to_vec()).err(), Some(LogoError::UnsupportedFormat));
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "logo")))]
#[derive(Clone)]
pub struct Logo {
    inner: Arc<LogoInner>,
}

struct LogoInner {
    bytes: Vec<u8>,
    kind: LogoKind,
    pixmap: Pixmap,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LogoKind {
    Png,
    Jpeg,
}

impl std::fmt::Debug for Logo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Logo")
            .field("kind", &self.inner.kind)
            .field("width", &self.width())
            .field("height", &self.height())
            .field("bytes", &self.inner.bytes.len())
            .finish()
    }
}

impl PartialEq for Logo {
    fn eq(&self, other: &Logo) -> bool {
        self.inner.bytes == other.inner.bytes
    }
}

impl Logo {
    /// The largest logo width and height accepted, in pixels; larger images are refused before
    /// decoding (an RGBA bitmap of 4,096 x 4,096 pixels already takes 64 MiB).
    pub const MAX_DIMENSION: u32 = 4096;

    /// Decodes PNG or JPEG `bytes`, recognised by their signature.
    ///
    /// Images wider or taller than [`Logo::MAX_DIMENSION`] are refused from their header, before any
    /// pixel is decoded, so a small file cannot expand into a huge bitmap.
    pub fn decode(bytes: Vec<u8>) -> Result<Logo, LogoError> {
        let (kind, pixmap) = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
            (LogoKind::Png, decode_png(&bytes)?)
        } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
            (LogoKind::Jpeg, decode_jpeg(&bytes)?)
        } else {
            return Err(LogoError::UnsupportedFormat);
        };
        Ok(Logo {
            inner: Arc::new(LogoInner {
                bytes,
                kind,
                pixmap,
            }),
        })
    }

    /// The image's width in pixels.
    pub fn width(&self) -> u32 {
        self.inner.pixmap.width()
    }

    /// The image's height in pixels.
    pub fn height(&self) -> u32 {
        self.inner.pixmap.height()
    }

    /// The media type of the original bytes.
    pub fn media_type(&self) -> &'static str {
        match self.inner.kind {
            LogoKind::Png => "image/png",
            LogoKind::Jpeg => "image/jpeg",
        }
    }

    /// The original bytes in standard base64, for a data URI.
    #[cfg(feature = "svg")]
    pub(crate) fn base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.inner.bytes)
    }

    /// The decoded pixels, premultiplied RGBA.
    #[cfg(feature = "png")]
    pub(crate) fn pixmap(&self) -> &Pixmap {
        &self.inner.pixmap
    }
}

fn decode_png(bytes: &[u8]) -> Result<Pixmap, LogoError> {
    // IHDR is always the first chunk: width and height are big-endian at bytes 16..24.
    let dimension = |at: usize| {
        bytes
            .get(at..at + 4)
            .and_then(|b| b.try_into().ok())
            .map(u32::from_be_bytes)
    };
    let (Some(width), Some(height)) = (dimension(16), dimension(20)) else {
        return Err(LogoError::Decode("the PNG header is truncated".into()));
    };
    check_dimensions(width, height)?;
    Pixmap::decode_png(bytes).map_err(|error| LogoError::Decode(error.to_string()))
}

fn decode_jpeg(bytes: &[u8]) -> Result<Pixmap, LogoError> {
    // The decoder's own limits are opened to the format's maximum: our check below, made on the
    // header before any pixel is decoded, is the one that answers.
    let options = zune_core::options::DecoderOptions::default()
        .set_max_width(usize::from(u16::MAX))
        .set_max_height(usize::from(u16::MAX))
        .jpeg_set_out_colorspace(zune_core::colorspace::ColorSpace::RGBA);
    let mut decoder = zune_jpeg::JpegDecoder::new_with_options(bytes, options);
    let decode_error =
        |error: zune_jpeg::errors::DecodeErrors| LogoError::Decode(format!("{error:?}"));
    decoder.decode_headers().map_err(decode_error)?;
    let info = decoder
        .info()
        .ok_or_else(|| LogoError::Decode("the JPEG header has no dimensions".into()))?;
    let (width, height) = (u32::from(info.width), u32::from(info.height));
    check_dimensions(width, height)?;
    let pixels = decoder.decode().map_err(decode_error)?;
    let size = IntSize::from_wh(width, height)
        .ok_or_else(|| LogoError::Decode("the JPEG has no pixels".into()))?;
    // JPEG has no alpha, so straight and premultiplied pixels are the same.
    Pixmap::from_vec(pixels, size)
        .ok_or_else(|| LogoError::Decode("the JPEG decoded to an unexpected pixel count".into()))
}

fn check_dimensions(width: u32, height: u32) -> Result<(), LogoError> {
    if width == 0 || height == 0 {
        return Err(LogoError::Decode("the image has no pixels".into()));
    }
    if width > Logo::MAX_DIMENSION || height > Logo::MAX_DIMENSION {
        return Err(LogoError::TooLarge {
            width,
            height,
            max: Logo::MAX_DIMENSION,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_images_and_huge_images_are_refused() {
        assert_eq!(
            Logo::decode(b"GIF89a".to_vec()).err(),
            Some(LogoError::UnsupportedFormat)
        );
        assert_eq!(
            Logo::decode(Vec::new()).err(),
            Some(LogoError::UnsupportedFormat)
        );
        let mut huge = b"\x89PNG\r\n\x1a\n\0\0\0\x0dIHDR".to_vec();
        huge.extend_from_slice(&100_000u32.to_be_bytes());
        huge.extend_from_slice(&10u32.to_be_bytes());
        huge.extend_from_slice(&[8, 6, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(
            Logo::decode(huge).err(),
            Some(LogoError::TooLarge {
                width: 100_000,
                height: 10,
                max: Logo::MAX_DIMENSION
            })
        );
        assert!(matches!(
            Logo::decode(b"\x89PNG\r\n\x1a\n".to_vec()),
            Err(LogoError::Decode(_))
        ));
        assert!(matches!(
            Logo::decode(vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 0]),
            Err(LogoError::Decode(_))
        ));
    }
}
