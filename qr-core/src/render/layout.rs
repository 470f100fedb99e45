//! Pixel geometry: a whole number of pixels per module, leftover pixels shared out as extra quiet zone.

use crate::error::RenderError;

/// Where the modules of a code fall in an image of exact size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Layout {
    /// The image's width and height in pixels.
    pub(crate) size: u32,
    /// Modules per side of the symbol, quiet zone excluded.
    pub(crate) modules: u32,
    /// Pixels per module side.
    pub(crate) module_pixels: u32,
    /// Pixels from the image's left (and top) edge to the symbol's first module.
    pub(crate) offset: u32,
}

impl Layout {
    /// Lays out `modules` modules plus `margin` modules of quiet zone on each side in `size` pixels.
    ///
    /// Modules get the largest whole number of pixels that fits; the remaining pixels are split
    /// between the two sides (the odd pixel, if any, on the right and bottom).
    pub(crate) fn new(size: u32, modules: u32, margin: u32) -> Result<Layout, RenderError> {
        let total = modules + 2 * margin;
        let module_pixels = size / total;
        if module_pixels == 0 {
            return Err(RenderError::SizeTooSmall {
                size,
                modules: total,
                minimum: total,
            });
        }
        let leftover = size - module_pixels * total;
        Ok(Layout {
            size,
            modules,
            module_pixels,
            offset: margin * module_pixels + leftover / 2,
        })
    }

    /// The symbol's width in pixels.
    #[cfg(any(test, feature = "logo"))]
    pub(crate) fn symbol_pixels(&self) -> u32 {
        self.modules * self.module_pixels
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftover_pixels_become_quiet_zone() {
        fn check(size: u32, modules: u32, margin: u32, expected: (u32, u32)) {
            let layout = Layout::new(size, modules, margin).expect("fits");
            assert_eq!(
                (layout.module_pixels, layout.offset),
                expected,
                "{size} {modules} {margin}"
            );
            assert!(layout.offset + layout.symbol_pixels() <= size);
        }
        check(300, 29, 4, (8, 34));
        check(296, 29, 4, (8, 32));
        check(50, 21, 0, (2, 4));
        check(2000, 177, 10, (10, 115));
        check(37, 29, 4, (1, 4));
    }

    #[test]
    fn too_small_names_the_minimum() {
        assert_eq!(
            Layout::new(50, 177, 4),
            Err(RenderError::SizeTooSmall {
                size: 50,
                modules: 185,
                minimum: 185
            })
        );
    }
}
