//! The encoding pipeline: choose segments and version, build codewords, place them, pick the mask.

use crate::bits::data_codewords;
use crate::canvas;
use crate::capacity::Capacity;
use crate::ec::add_error_correction;
use crate::eci::Eci;
use crate::error::EncodeError;
use crate::grid::BitGrid;
use crate::segment::{Mode, Segment, bit_length, optimal_segments};
use crate::structured::StructuredAppend;
use crate::version::{EcLevel, Mask, Version};

/// How to encode: the error-correction level and the constraints on version and mask.
///
/// Start from [`EncodeOptions::new`] and narrow it with the `with_` methods:
///
/// ```
/// use qr_core::{EcLevel, EncodeOptions, Mask, QrCode, Version};
///
/// let options = EncodeOptions::new(EcLevel::Q)
///     .with_min_version(Version::new(5).expect("1 to 40"))
///     .with_mask(Mask::new(3).expect("0 to 7"));
/// let code = QrCode::encode_with(b"HELLO", &options)?;
/// assert_eq!((code.version().number(), code.mask().number()), (5, 3));
/// # Ok::<(), qr_core::EncodeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// The lowest acceptable error-correction level.
    pub level: EcLevel,
    /// Raise the level as far as the data still fits in the chosen version (on by default).
    pub boost_level: bool,
    /// The smallest version to use.
    pub min_version: Version,
    /// The largest version to use.
    pub max_version: Version,
    /// A fixed mask, or `None` to choose the one with the lowest penalty score.
    pub mask: Option<Mask>,
    /// An ECI designator written before the data (`None` by default: readers assume UTF-8 for
    /// byte mode today, and the header costs 12 bits).
    pub eci: Option<Eci>,
    /// Encode UTF-8 text made only of Shift JIS double-byte characters in Kanji mode, 13 bits a
    /// character, when that is shorter (off by default: a reader then returns the text through
    /// Shift JIS, which some readers' callers do not expect).
    #[cfg(feature = "kanji")]
    #[cfg_attr(docsrs, doc(cfg(feature = "kanji")))]
    pub kanji: bool,
}

impl EncodeOptions {
    /// Options for `level` with every default: level boosting on, any version, automatic mask.
    pub const fn new(level: EcLevel) -> EncodeOptions {
        EncodeOptions {
            level,
            boost_level: true,
            min_version: Version::MIN,
            max_version: Version::MAX,
            mask: None,
            eci: None,
            #[cfg(feature = "kanji")]
            kanji: false,
        }
    }

    /// These options with `level` as the lowest acceptable level.
    #[must_use]
    pub const fn with_level(mut self, level: EcLevel) -> EncodeOptions {
        self.level = level;
        self
    }

    /// These options with level boosting on or off.
    #[must_use]
    pub const fn with_boost_level(mut self, boost_level: bool) -> EncodeOptions {
        self.boost_level = boost_level;
        self
    }

    /// These options with `version` as the smallest version to use.
    #[must_use]
    pub const fn with_min_version(mut self, version: Version) -> EncodeOptions {
        self.min_version = version;
        self
    }

    /// These options with `version` as the largest version to use.
    #[must_use]
    pub const fn with_max_version(mut self, version: Version) -> EncodeOptions {
        self.max_version = version;
        self
    }

    /// These options with the fixed `mask` instead of the one with the lowest penalty.
    #[must_use]
    pub const fn with_mask(mut self, mask: Mask) -> EncodeOptions {
        self.mask = Some(mask);
        self
    }

    /// These options with the ECI designator `eci` before the data; its 12 bits count in the
    /// choice of version.
    #[must_use]
    pub const fn with_eci(mut self, eci: Eci) -> EncodeOptions {
        self.eci = Some(eci);
        self
    }

    /// These options with Kanji mode on or off (see [`EncodeOptions::kanji`]).
    #[cfg(feature = "kanji")]
    #[cfg_attr(docsrs, doc(cfg(feature = "kanji")))]
    #[must_use]
    pub const fn with_kanji(mut self, kanji: bool) -> EncodeOptions {
        self.kanji = kanji;
        self
    }
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions::new(EcLevel::M)
    }
}

/// An encoded QR code symbol: its modules and the parameters it was built with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QrCode {
    version: Version,
    level: EcLevel,
    mask: Mask,
    eci: Option<Eci>,
    sequence: Option<StructuredAppend>,
    segments: Vec<Segment>,
    modules: BitGrid,
}

impl QrCode {
    /// Encodes UTF-8 `text` at `level` or higher, in the smallest version that fits.
    pub fn encode_text(text: &str, level: EcLevel) -> Result<QrCode, EncodeError> {
        QrCode::encode_with(text.as_bytes(), &EncodeOptions::new(level))
    }

    /// Encodes arbitrary `data` at `level` or higher, in the smallest version that fits.
    pub fn encode_bytes(data: &[u8], level: EcLevel) -> Result<QrCode, EncodeError> {
        QrCode::encode_with(data, &EncodeOptions::new(level))
    }

    /// Encodes `data` with explicit options.
    ///
    /// The data is split into numeric, alphanumeric and byte segments so that the bit stream is as
    /// short as possible, which gives the smallest version; then the level is raised while the
    /// data still fits in that version (when `boost_level` is set).
    pub fn encode_with(data: &[u8], options: &EncodeOptions) -> Result<QrCode, EncodeError> {
        QrCode::encode_in_sequence(data, options, None)
    }

    /// [`QrCode::encode_with`], with the structured append header of `sequence` first when given
    /// (its 20 bits count in the choice of version).
    pub(crate) fn encode_in_sequence(
        data: &[u8],
        options: &EncodeOptions,
        sequence: Option<StructuredAppend>,
    ) -> Result<QrCode, EncodeError> {
        if options.min_version > options.max_version {
            return Err(EncodeError::VersionRange {
                min: options.min_version,
                max: options.max_version,
            });
        }
        // Kanji mode replaces the data by its Shift JIS bytes, one segment for the whole text.
        #[cfg(feature = "kanji")]
        let kanji = if options.kanji {
            crate::kanji::shift_jis_kanji(data)
        } else {
            None
        };
        #[cfg(not(feature = "kanji"))]
        let kanji: Option<Vec<u8>> = None;
        let payload = kanji.as_deref().unwrap_or(data);
        let header_bits = options.eci.map_or(0, Eci::header_bits)
            + sequence.map_or(0, |_| StructuredAppend::HEADER_BITS);
        let mut level = options.level;
        let mut chosen: Option<(Version, Vec<Segment>, usize)> = None;
        let mut group_cache: Option<(usize, Vec<Segment>, usize)> = None;
        for number in options.min_version.number()..=options.max_version.number() {
            let Some(version) = Version::new(number) else {
                break;
            };
            let group = version.group();
            if group_cache.as_ref().is_none_or(|(g, _, _)| *g != group) {
                group_cache = Some(segments_for(data, kanji.as_deref(), group));
            }
            if let Some((_, segments, bits)) = &group_cache
                && *bits + header_bits <= version.data_codewords(level) * 8
            {
                chosen = Some((version, segments.clone(), *bits + header_bits));
                break;
            }
        }
        let Some((version, segments, bits)) = chosen else {
            let in_kanji = group_cache
                .as_ref()
                .is_some_and(|(_, segments, _)| segments.iter().any(|s| s.mode == Mode::Kanji));
            let measured = if in_kanji { payload } else { data };
            return Err(EncodeError::DataTooLong {
                level,
                capacity: Capacity::for_data(
                    measured,
                    options.max_version,
                    level,
                    header_bits,
                    in_kanji,
                ),
                length: Capacity::length_of(measured, in_kanji),
            });
        };
        if options.boost_level {
            for higher in [EcLevel::M, EcLevel::Q, EcLevel::H] {
                if higher > level && bits <= version.data_codewords(higher) * 8 {
                    level = higher;
                }
            }
        }
        debug_assert_eq!(bits, header_bits + bit_length(&segments, version.group()));
        let encoded = if segments.iter().any(|s| s.mode == Mode::Kanji) {
            payload
        } else {
            data
        };
        let data_words = data_codewords(
            encoded,
            &segments,
            version.group(),
            version.data_codewords(level),
            (sequence, options.eci),
        );
        let codewords = add_error_correction(&data_words, version, level);
        let (modules, mask) = canvas::build(version, level, &codewords, options.mask);
        Ok(QrCode {
            version,
            level,
            mask,
            eci: options.eci,
            sequence,
            segments,
            modules,
        })
    }

    /// The symbol's version.
    pub fn version(&self) -> Version {
        self.version
    }

    /// The error-correction level used (possibly higher than the one asked for).
    pub fn ec_level(&self) -> EcLevel {
        self.level
    }

    /// The data mask used.
    pub fn mask(&self) -> Mask {
        self.mask
    }

    /// The number of modules per side, without quiet zone.
    pub fn size(&self) -> usize {
        self.modules.size()
    }

    /// Whether the module at column `x`, row `y` is dark; positions outside the symbol are light.
    pub fn is_dark(&self, x: usize, y: usize) -> bool {
        x < self.size() && y < self.size() && self.modules.get(x, y)
    }

    /// The ECI designator written before the data, if any.
    pub fn eci(&self) -> Option<Eci> {
        self.eci
    }

    /// The structured append header (position, total and parity) when the symbol is one of a
    /// sequence made by [`QrCode::encode_structured`].
    pub fn structured_append(&self) -> Option<StructuredAppend> {
        self.sequence
    }

    /// The segments the data was split into, in order.
    pub fn segments(&self) -> &[Segment] {
        &self.segments
    }

    /// The modules as rows of booleans (`true` is dark), top row first.
    pub fn to_rows(&self) -> Vec<Vec<bool>> {
        (0..self.size())
            .map(|y| (0..self.size()).map(|x| self.modules.get(x, y)).collect())
            .collect()
    }

    /// Row `y` as bits, module `x` at bit `x % 64` of word `x / 64` (three words cover version 40).
    #[cfg(any(feature = "png", feature = "svg", feature = "pdf", feature = "eps"))]
    pub(crate) fn row_words(&self, y: usize) -> &[u64] {
        self.modules.line(y)
    }
}

/// The shortest segmentation of `data` in version group `group` and its bit count: the mixed-mode
/// optimum, or one Kanji segment over `kanji` (the data's Shift JIS bytes) when that is shorter.
fn segments_for(data: &[u8], kanji: Option<&[u8]>, group: usize) -> (usize, Vec<Segment>, usize) {
    let (segments, bits) = optimal_segments(data, group);
    if let Some(bytes) = kanji {
        let segment = Segment {
            mode: Mode::Kanji,
            start: 0,
            end: bytes.len(),
        };
        let kanji_bits = bit_length(&[segment], group);
        if kanji_bits < bits {
            return (group, vec![segment], kanji_bits);
        }
    }
    (group, segments, bits)
}
