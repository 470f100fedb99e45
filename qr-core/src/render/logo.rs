//! Logos: decoding PNG or JPEG bytes with bounded dimensions, and placing them on a cleared centre area.

use std::sync::Arc;

use base64::Engine as _;
use tiny_skia::{IntSize, Pixmap};

use crate::encode::QrCode;
use crate::error::LogoError;
use crate::options::LogoSize;
use crate::render::layout::Layout;
use crate::version::Version;
use crate::{canvas, ec};

/// The largest logo width and height accepted, in pixels; larger images are refused before decoding.
pub const MAX_LOGO_DIMENSION: u32 = 4096;

/// A decoded logo image, cheap to clone.
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
    /// Decodes PNG or JPEG `bytes`, recognised by their signature.
    ///
    /// Images wider or taller than [`MAX_LOGO_DIMENSION`] are refused from their header, before any
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
    pub(crate) fn base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(&self.inner.bytes)
    }

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
    if width > MAX_LOGO_DIMENSION || height > MAX_LOGO_DIMENSION {
        return Err(LogoError::TooLarge {
            width,
            height,
            max: MAX_LOGO_DIMENSION,
        });
    }
    Ok(())
}

/// A square of modules drawn light under the logo: rows and columns `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClearedArea {
    start: usize,
    end: usize,
}

impl ClearedArea {
    /// Whether the module at (`x`, `y`) is cleared.
    pub(crate) fn contains(&self, x: usize, y: usize) -> bool {
        (self.start..self.end).contains(&x) && (self.start..self.end).contains(&y)
    }

    /// Clears the bits of row `y` (module x at bit x % 64 of word x / 64) that fall in the square.
    pub(crate) fn clear_row(&self, row: &mut [u64], y: usize) {
        if !(self.start..self.end).contains(&y) {
            return;
        }
        for x in self.start..self.end {
            if let Some(word) = row.get_mut(x / 64) {
                *word &= !(1u64 << (x % 64));
            }
        }
    }

    /// The cleared square for a logo of `percent` on a symbol of `modules` per side: the logo's
    /// width rounded up to whole modules, one module of padding on each side, centred.
    fn for_symbol(modules: usize, percent: u8) -> ClearedArea {
        let logo = (modules * usize::from(percent)).div_ceil(100);
        let mut side = logo + 2;
        // Same parity as the symbol, so the square sits exactly in the middle.
        if side % 2 != modules % 2 {
            side += 1;
        }
        let side = side.min(modules);
        let start = (modules - side) / 2;
        ClearedArea {
            start,
            end: start + side,
        }
    }

    /// Whether the square stays clear of the finder patterns, their separators and the format
    /// information (the eight modules nearest each finder corner, plus one).
    fn fits(&self, modules: usize) -> bool {
        self.start >= 9 && self.end + 9 <= modules
    }
}

/// Where a logo goes: its cleared modules and its box in image pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LogoPlacement {
    pub(crate) cleared: ClearedArea,
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) width: f32,
    pub(crate) height: f32,
}

impl LogoPlacement {
    /// Places `logo` at `percent` of the symbol's width, centred, keeping its aspect ratio.
    pub(crate) fn new(layout: &Layout, logo: &Logo, percent: LogoSize) -> LogoPlacement {
        let modules = layout.modules as usize;
        let cleared = ClearedArea::for_symbol(modules, percent.percent());
        let symbol = layout.symbol_pixels() as f32;
        let box_side = symbol * f32::from(percent.percent()) / 100.0;
        let (w, h) = (logo.width() as f32, logo.height() as f32);
        let scale = box_side / w.max(h);
        let (width, height) = (w * scale, h * scale);
        let centre = layout.offset as f32 + symbol / 2.0;
        LogoPlacement {
            cleared,
            x: centre - width / 2.0,
            y: centre - height / 2.0,
            width,
            height,
        }
    }
}

/// Whether a logo of `percent` leaves `code` safely readable: in every Reed-Solomon block, the
/// codewords the cleared area touches are at most three quarters of what the block can correct
/// (half its error-correction codewords), leaving the last quarter for real-world damage.
pub(crate) fn logo_fits(code: &QrCode, percent: LogoSize) -> bool {
    let version = code.version();
    let modules = version.size();
    let cleared = ClearedArea::for_symbol(modules, percent.percent());
    if !cleared.fits(modules) {
        return false;
    }
    let codewords = canvas::codeword_map(version);
    let (blocks, ecc_len) = ec::codeword_blocks(version, code.ec_level());
    let mut touched = vec![false; blocks.len()];
    for y in cleared.start..cleared.end {
        for x in cleared.start..cleared.end {
            if let Some(index) = codewords[y * modules + x] {
                touched[usize::from(index)] = true;
            }
        }
    }
    let block_count = blocks
        .iter()
        .map(|&b| usize::from(b) + 1)
        .max()
        .unwrap_or(0);
    let mut damaged = vec![0usize; block_count];
    for (index, &block) in blocks.iter().enumerate() {
        if touched[index] {
            damaged[usize::from(block)] += 1;
        }
    }
    let budget = ecc_len / 2 * 3 / 4;
    damaged.iter().all(|&count| count <= budget)
}

/// The smallest version whose cleared area for a logo of `percent` stays clear of the finders.
pub(crate) fn min_version_for_logo(percent: LogoSize) -> Version {
    (1..=40)
        .filter_map(Version::new)
        .find(|v| ClearedArea::for_symbol(v.size(), percent.percent()).fits(v.size()))
        .unwrap_or(Version::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cleared_area_is_centred_and_padded() {
        fn check(modules: usize, percent: u8, expected: (usize, usize)) {
            let area = ClearedArea::for_symbol(modules, percent);
            assert_eq!(
                (area.start, area.end),
                expected,
                "{modules} modules, {percent}%"
            );
            assert_eq!(area.start, modules - area.end, "centred");
        }
        check(25, 20, (9, 16));
        check(29, 30, (9, 20));
        check(177, 20, (69, 108));
        check(21, 5, (8, 13));
    }

    #[test]
    fn logo_pushes_the_version_up_until_it_fits() {
        fn check(percent: u8, expected: u8) {
            let size = LogoSize::new(percent).expect("valid logo size");
            assert_eq!(min_version_for_logo(size).number(), expected, "{percent}%");
        }
        check(5, 2);
        check(20, 2);
        check(30, 3);
    }

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
                max: MAX_LOGO_DIMENSION
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
