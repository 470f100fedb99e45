//! Structured append (ISO/IEC 18004 section 8): one message split over up to 16 symbols, each starting with its position, the total and the message's parity byte.

use crate::eci::Eci;
use crate::encode::{EncodeOptions, QrCode};
use crate::error::EncodeError;
use crate::segment::optimal_segments;
use crate::version::Version;

/// The structured append header of one symbol of a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StructuredAppend {
    position: u8,
    total: u8,
    parity: u8,
}

impl StructuredAppend {
    /// The most symbols a sequence may have (the total is a 4-bit field).
    pub const MAX_SYMBOLS: usize = 16;

    /// The header's bits: mode 0011, position and total in 4 bits each, parity in 8.
    pub(crate) const HEADER_BITS: usize = 20;

    /// The header of symbol `position` (from 0) of `total` (1 to 16) with `parity`.
    pub(crate) const fn new(position: u8, total: u8, parity: u8) -> StructuredAppend {
        StructuredAppend {
            position,
            total,
            parity,
        }
    }

    /// The symbol's position in the sequence, from 0.
    pub fn position(self) -> u8 {
        self.position
    }

    /// The number of symbols in the sequence, 1 to 16.
    pub fn total(self) -> u8 {
        self.total
    }

    /// The parity byte: the XOR of every byte of the whole message, the same in every symbol,
    /// so a reader can tell that symbols belong together.
    pub fn parity(self) -> u8 {
        self.parity
    }
}

impl QrCode {
    /// Splits `data` over as few symbols as hold it, at most 16, each of one version no larger
    /// than `options.max_version`, with the structured append header (section 8).
    ///
    /// The message is cut into parts of about equal length (between UTF-8 characters when the
    /// data is UTF-8 text, so every part is text on its own); every symbol has the smallest
    /// version in the options' range that holds the largest part, so all print at one size.
    /// Kanji mode is not used: the parity is that of the bytes given. An ECI in the options is
    /// written in every symbol, after the header.
    ///
    /// ```
    /// use qr_core::{EcLevel, EncodeOptions, QrCode, Version};
    ///
    /// let options = EncodeOptions::new(EcLevel::M).with_max_version(Version::new(2).expect("1 to 40"));
    /// let codes = QrCode::encode_structured(&[b'x'; 60], &options)?;
    /// assert_eq!(codes.len(), 3);
    /// let header = codes[1].structured_append().expect("in a sequence");
    /// assert_eq!((header.position(), header.total(), header.parity()), (1, 3, 0));
    /// # Ok::<(), qr_core::EncodeError>(())
    /// ```
    pub fn encode_structured(
        data: &[u8],
        options: &EncodeOptions,
    ) -> Result<Vec<QrCode>, EncodeError> {
        if options.min_version > options.max_version {
            return Err(EncodeError::VersionRange {
                min: options.min_version,
                max: options.max_version,
            });
        }
        #[allow(unused_mut)]
        let mut options = *options;
        #[cfg(feature = "kanji")]
        {
            options.kanji = false;
        }
        let parity = data.iter().fold(0, |acc, &byte| acc ^ byte);
        let header_bits = StructuredAppend::HEADER_BITS + options.eci.map_or(0, Eci::header_bits);
        for total in 1..=StructuredAppend::MAX_SYMBOLS {
            let parts = split(data, total);
            // The bits of each part in each of the three count-width groups, computed once.
            let bits: Vec<[usize; 3]> = parts
                .iter()
                .map(|part| std::array::from_fn(|group| optimal_segments(part, group).1))
                .collect();
            let fitting = (options.min_version.number()..=options.max_version.number())
                .filter_map(Version::new)
                .find(|version| {
                    let capacity = version.data_codewords(options.level) * 8;
                    bits.iter()
                        .all(|b| b[version.group()] + header_bits <= capacity)
                });
            if let Some(version) = fitting {
                let options = options.with_min_version(version).with_max_version(version);
                return parts
                    .iter()
                    .enumerate()
                    .map(|(position, part)| {
                        let sequence = StructuredAppend::new(position as u8, total as u8, parity);
                        QrCode::encode_in_sequence(part, &options, Some(sequence))
                    })
                    .collect();
            }
        }
        Err(EncodeError::SequenceTooLong {
            level: options.level,
            max_version: options.max_version,
            length: data.len(),
        })
    }
}

/// `data` cut into `total` parts of about equal length, each cut moved forward to a character
/// boundary when the data is UTF-8 text.
fn split(data: &[u8], total: usize) -> Vec<&[u8]> {
    let text = std::str::from_utf8(data).ok();
    let mut cuts = vec![0];
    for k in 1..total {
        let mut cut = (data.len() * k / total).max(cuts[k - 1]);
        if let Some(text) = text {
            while !text.is_char_boundary(cut) {
                cut += 1;
            }
        }
        cuts.push(cut);
    }
    cuts.push(data.len());
    cuts.windows(2).map(|w| &data[w[0]..w[1]]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_cover_the_data_and_keep_characters_whole() {
        let text = "ééééé";
        let parts = split(text.as_bytes(), 3);
        assert_eq!(parts.len(), 3);
        assert_eq!(parts.concat(), text.as_bytes());
        assert!(parts.iter().all(|p| std::str::from_utf8(p).is_ok()));
        let bytes = [0xC3u8; 10];
        assert_eq!(
            split(&bytes, 4).iter().map(|p| p.len()).collect::<Vec<_>>(),
            [2, 3, 2, 3]
        );
    }
}
