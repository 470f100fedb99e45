//! What an image shows: the code's modules, and with the `logo` feature a logo over a cleared centre.

#[cfg(feature = "logo")]
use super::cleared::ClearedArea;
#[cfg(feature = "logo")]
use super::layout::Layout;
#[cfg(feature = "logo")]
use super::logo::Logo;
use crate::encode::QrCode;
use crate::grid::WORDS;
#[cfg(feature = "logo")]
use crate::options::LogoSize;

/// The modules of a code as the image draws them, and the logo over them if there is one.
pub(crate) struct Drawing<'a> {
    code: &'a QrCode,
    #[cfg(feature = "logo")]
    logo: Option<(&'a Logo, LogoPlacement)>,
}

impl<'a> Drawing<'a> {
    /// The code's modules as they are.
    pub(crate) fn new(code: &'a QrCode) -> Drawing<'a> {
        Drawing {
            code,
            #[cfg(feature = "logo")]
            logo: None,
        }
    }

    /// The code's modules with `logo` placed over them at `percent` of the symbol's width.
    #[cfg(feature = "logo")]
    pub(crate) fn with_logo(
        code: &'a QrCode,
        logo: &'a Logo,
        layout: &Layout,
        percent: LogoSize,
    ) -> Drawing<'a> {
        Drawing {
            code,
            logo: Some((logo, LogoPlacement::new(layout, logo, percent))),
        }
    }

    /// The number of modules per side, without quiet zone.
    pub(crate) fn size(&self) -> usize {
        self.code.size()
    }

    /// Row `y` as bits (module `x` at bit `x % 64` of word `x / 64`), the modules under the logo
    /// made light.
    #[inline]
    pub(crate) fn row(&self, y: usize) -> [u64; WORDS] {
        let mut words = [0u64; WORDS];
        words.copy_from_slice(self.code.row_words(y));
        #[cfg(feature = "logo")]
        if let Some((_, placement)) = &self.logo {
            placement.cleared.clear_row(&mut words, y);
        }
        words
    }

    /// Whether the module at column `x`, row `y` is drawn dark.
    #[cfg(all(feature = "png", feature = "logo"))]
    pub(crate) fn is_dark(&self, x: usize, y: usize) -> bool {
        self.code.is_dark(x, y)
            && !self
                .logo
                .as_ref()
                .is_some_and(|(_, placement)| placement.cleared.contains(x, y))
    }

    /// Whether a logo is drawn.
    #[cfg(all(feature = "svg", feature = "logo"))]
    pub(crate) fn has_logo(&self) -> bool {
        self.logo.is_some()
    }

    /// Whether a logo is drawn: never without the `logo` feature.
    #[cfg(all(feature = "svg", not(feature = "logo")))]
    pub(crate) fn has_logo(&self) -> bool {
        false
    }

    /// The logo and where it goes, if there is one.
    #[cfg(feature = "logo")]
    pub(crate) fn logo(&self) -> Option<(&'a Logo, &LogoPlacement)> {
        self.logo
            .as_ref()
            .map(|(logo, placement)| (*logo, placement))
    }
}

/// Where a logo goes: its cleared modules and its box in image pixels.
#[cfg(feature = "logo")]
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct LogoPlacement {
    pub(crate) cleared: ClearedArea,
    pub(crate) x: f32,
    pub(crate) y: f32,
    pub(crate) width: f32,
    pub(crate) height: f32,
}

#[cfg(feature = "logo")]
impl LogoPlacement {
    /// Places `logo` at `percent` of the symbol's width, centred, keeping its aspect ratio.
    fn new(layout: &Layout, logo: &Logo, percent: LogoSize) -> LogoPlacement {
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
