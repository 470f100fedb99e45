//! Print options: the printed size of PDF and EPS documents and the resolution of rasters.

use super::OptionError;

/// The printed width and height of a PDF or EPS document in whole millimetres: 1 to 5,000.
///
/// 5,000 mm stays inside the 14,400-point page limit of PDF readers (5,080 mm).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PrintSize(u16);

impl PrintSize {
    /// The smallest print size.
    pub const MIN: u16 = 1;
    /// The largest print size.
    pub const MAX: u16 = 5000;
    /// The default: 50 mm, a common size for a code on a flyer or a label.
    pub const DEFAULT: PrintSize = PrintSize(50);

    /// Returns `millimetres` as a print size, or [`OptionError::PrintSize`] outside 1..=5000.
    pub const fn new(millimetres: u16) -> Result<PrintSize, OptionError> {
        if millimetres >= PrintSize::MIN && millimetres <= PrintSize::MAX {
            Ok(PrintSize(millimetres))
        } else {
            Err(OptionError::PrintSize(millimetres))
        }
    }

    /// The size in millimetres.
    pub const fn millimetres(self) -> u16 {
        self.0
    }

    /// The size in PostScript points (1/72 inch).
    pub fn points(self) -> f64 {
        f64::from(self.0) * 72.0 / 25.4
    }
}

impl Default for PrintSize {
    fn default() -> Self {
        PrintSize::DEFAULT
    }
}

/// A resolution in dots per inch: 1 to 100,000.
///
/// In a PNG it is written as the pHYs chunk (the pixels stay as many); in PDF and EPS it is the
/// resolution a logo is resampled to at the printed size.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Dpi(u32);

impl Dpi {
    /// The smallest resolution.
    pub const MIN: u32 = 1;
    /// The largest resolution.
    pub const MAX: u32 = 100_000;
    /// The resolution of logos in PDF and EPS when none is given: 300 dpi, the usual print
    /// resolution.
    pub const PRINT_DEFAULT: Dpi = Dpi(300);

    /// Returns `dots` per inch, or [`OptionError::Dpi`] outside 1..=100000.
    pub const fn new(dots: u32) -> Result<Dpi, OptionError> {
        if dots >= Dpi::MIN && dots <= Dpi::MAX {
            Ok(Dpi(dots))
        } else {
            Err(OptionError::Dpi(dots))
        }
    }

    /// Dots per inch.
    pub const fn dots_per_inch(self) -> u32 {
        self.0
    }

    /// Dots per metre, rounded, as the PNG pHYs chunk stores it.
    pub const fn dots_per_metre(self) -> u32 {
        ((self.0 as u64 * 10_000 + 127) / 254) as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_sizes_and_resolutions_are_bounded() {
        assert_eq!(PrintSize::new(0), Err(OptionError::PrintSize(0)));
        assert_eq!(PrintSize::new(5001), Err(OptionError::PrintSize(5001)));
        assert!((PrintSize::new(254).expect("valid").points() - 720.0).abs() < 1e-9);
        assert_eq!(Dpi::new(0), Err(OptionError::Dpi(0)));
        assert_eq!(Dpi::new(300).map(Dpi::dots_per_metre), Ok(11_811));
        assert_eq!(Dpi::new(72).map(Dpi::dots_per_metre), Ok(2_835));
    }
}
