//! Which modules a logo hides (a padded square in the centre), and whether the code stays readable without them.

use crate::canvas;
use crate::ec;
use crate::encode::QrCode;
use crate::options::LogoSize;
use crate::version::Version;

/// A square of modules drawn light under the logo: rows and columns `start..end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct ClearedArea {
    start: usize,
    end: usize,
}

impl ClearedArea {
    /// Whether the module at (`x`, `y`) is cleared.
    #[cfg(feature = "png")]
    pub(crate) fn contains(&self, x: usize, y: usize) -> bool {
        (self.start..self.end).contains(&x) && (self.start..self.end).contains(&y)
    }

    /// Clears the bits of row `y` (module x at bit x % 64 of word x / 64) that fall in the square.
    #[cfg(any(feature = "png", feature = "svg"))]
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
    pub(crate) fn for_symbol(modules: usize, percent: u8) -> ClearedArea {
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
}
