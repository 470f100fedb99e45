//! Kanji mode (ISO/IEC 18004 section 7.4.6): text made only of Shift JIS double-byte characters, 13 bits each instead of the 16 to 32 of byte mode.

#[cfg(feature = "kanji")]
/// The Shift JIS bytes of `data` when it is UTF-8 text made only of characters Kanji mode can
/// carry (double-byte codes 0x8140 to 0x9FFC and 0xE040 to 0xEBBF, the JIS X 0208 range), else
/// `None`.
pub(crate) fn shift_jis_kanji(data: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(data).ok()?;
    if text.is_empty() {
        return None;
    }
    // encoding_rs holds the JIS X 0208 table; an unmappable character is reported, not guessed.
    let (bytes, _, unmappable) = encoding_rs::SHIFT_JIS.encode(text);
    if unmappable || bytes.len() != 2 * text.chars().count() {
        return None;
    }
    let in_range = bytes.chunks_exact(2).all(|pair| {
        let code = u16::from_be_bytes([pair[0], pair[1]]);
        (0x8140..=0x9FFC).contains(&code) || (0xE040..=0xEBBF).contains(&code)
    });
    in_range.then(|| bytes.into_owned())
}

/// The 13-bit value of the double-byte code `high`, `low` (section 7.4.6): subtract 0x8140 (or
/// 0xC140 above 0x9FFC), then high byte times 0xC0 plus low byte.
pub(crate) fn kanji_value(high: u8, low: u8) -> u32 {
    let code = u32::from(u16::from_be_bytes([high, low]));
    let offset = if code <= 0x9FFC { 0x8140 } else { 0xC140 };
    let reduced = code - offset;
    (reduced >> 8) * 0xC0 + (reduced & 0xFF)
}

#[cfg(all(test, feature = "kanji"))]
mod tests {
    use super::*;

    #[test]
    fn values_match_the_standards_examples() {
        // Section 7.4.6: 点 is 0x935F -> 0xD9F; 茗 is 0xE4AA -> 0x1AAA.
        assert_eq!(
            shift_jis_kanji("点茗".as_bytes()),
            Some(vec![0x93, 0x5F, 0xE4, 0xAA])
        );
        assert_eq!(kanji_value(0x93, 0x5F), 0xD9F);
        assert_eq!(kanji_value(0xE4, 0xAA), 0x1AAA);
    }

    #[test]
    fn only_all_double_byte_text_qualifies() {
        assert!(shift_jis_kanji("東京タワー".as_bytes()).is_some());
        assert_eq!(shift_jis_kanji("東京 tower".as_bytes()), None);
        assert_eq!(
            shift_jis_kanji("ｶﾀｶﾅ".as_bytes()),
            None,
            "half-width katakana are single bytes"
        );
        assert_eq!(shift_jis_kanji("한국".as_bytes()), None, "not in Shift JIS");
        assert_eq!(shift_jis_kanji(b""), None);
        assert_eq!(shift_jis_kanji(&[0x93, 0x5F]), None, "not UTF-8");
    }
}
