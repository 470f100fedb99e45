//! The names of the files inside a batch archive: safe on every file system and unzip tool, unique, and never longer than a file system allows.

use std::collections::HashSet;

use qr_core::Format;
use unicode_normalization::UnicodeNormalization;

/// The longest file name stem kept from a given name, in characters (the extension is added after).
pub const MAX_STEM_CHARS: usize = 100;
/// The longest archive member name, in UTF-8 bytes: what ext4, APFS and NTFS take (255).
pub const MAX_NAME_BYTES: usize = 255;
/// The longest stem, in bytes: room is kept for a duplicate's `-NNNN`, the four-letter
/// extension, and the `_` a Windows device name gets in front.
const MAX_STEM_BYTES: usize = MAX_NAME_BYTES - "-10000.png".len() - "_".len();

/// Cleans a given file name into a safe stem (no extension): the name is put in Unicode NFC
/// (so that `e\u{301}té` and `été`, which macOS treats as one name, are one name here too),
/// path separators and characters that file systems refuse become `_`, control characters are
/// dropped, runs of dots become one dot, leading and trailing dots and spaces go, an existing
/// `.png`/`.svg`/`.pdf`/`.eps` is removed, the stem is cut to [`MAX_STEM_CHARS`] characters and to what
/// leaves the whole name within [`MAX_NAME_BYTES`], and a Windows device name gets a `_` in
/// front. `None` when nothing is left.
pub fn sanitize_stem(name: &str) -> Option<String> {
    let mut cleaned = String::with_capacity(name.len());
    for c in name.nfc() {
        match c {
            c if c.is_control() => {}
            '/' | '\\' | ':' | '<' | '>' | '"' | '|' | '?' | '*' => cleaned.push('_'),
            '.' if cleaned.ends_with('.') => {}
            c => cleaned.push(c),
        }
    }
    let mut stem = cleaned.trim_matches(|c: char| c == '.' || c.is_whitespace());
    for ext in [".png", ".svg", ".pdf", ".eps"] {
        if stem.len() > ext.len()
            && stem.is_char_boundary(stem.len() - ext.len())
            && stem[stem.len() - ext.len()..].eq_ignore_ascii_case(ext)
        {
            stem = &stem[..stem.len() - ext.len()];
            break;
        }
    }
    let mut stem: String = stem
        .trim_matches(|c: char| c == '.' || c.is_whitespace())
        .chars()
        .take(MAX_STEM_CHARS)
        .collect();
    if stem.len() > MAX_STEM_BYTES {
        let mut end = MAX_STEM_BYTES;
        while !stem.is_char_boundary(end) {
            end -= 1;
        }
        stem.truncate(end);
    }
    let stem = stem.trim_end_matches(|c: char| c == '.' || c.is_whitespace());
    if stem.is_empty() {
        return None;
    }
    // Windows opens a device, not a file, for these names (with any extension).
    let base = stem.split('.').next().unwrap_or(stem).trim_end();
    Some(if is_windows_device(base) {
        format!("_{stem}")
    } else {
        stem.to_owned()
    })
}

/// Whether Windows reserves `base` for a device: CON, PRN, AUX, NUL, and COM or LPT followed
/// by a digit 0 to 9 or a superscript ¹, ² or ³, in any case.
fn is_windows_device(base: &str) -> bool {
    let upper = base.to_uppercase();
    if ["CON", "PRN", "AUX", "NUL"].contains(&upper.as_str()) {
        return true;
    }
    let Some(rest) = upper
        .strip_prefix("COM")
        .or_else(|| upper.strip_prefix("LPT"))
    else {
        return false;
    };
    let mut chars = rest.chars();
    matches!(
        (chars.next(), chars.next()),
        (Some('0'..='9' | '¹' | '²' | '³'), None)
    )
}

/// `stem.ext`, or `stem-2.ext`, `stem-3.ext`, ... when taken (compared case-insensitively).
pub(crate) fn unique_name(stem: &str, format: Format, taken: &mut HashSet<String>) -> String {
    let ext = format.extension();
    let mut name = format!("{stem}.{ext}");
    let mut n = 1u32;
    while !taken.insert(name.to_lowercase()) {
        n += 1;
        name = format!("{stem}-{n}.{ext}");
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_controls_and_dots_are_cleaned() {
        assert_eq!(
            sanitize_stem("../../etc/passwd").as_deref(),
            Some("_._etc_passwd")
        );
        assert_eq!(sanitize_stem("..").as_deref(), None);
        assert_eq!(sanitize_stem("a\u{0}b\nc.PNG").as_deref(), Some("abc"));
        assert_eq!(sanitize_stem("C:\\x\\y.svg").as_deref(), Some("C__x_y"));
        assert_eq!(
            sanitize_stem("  report..final.  ").as_deref(),
            Some("report.final")
        );
        assert_eq!(
            sanitize_stem(&"n".repeat(300)).map(|s| s.len()),
            Some(MAX_STEM_CHARS)
        );
    }

    #[test]
    fn every_windows_device_name_is_prefixed() {
        for device in ["CON", "PRN", "AUX", "NUL"] {
            assert_eq!(sanitize_stem(device), Some(format!("_{device}")));
            assert_eq!(
                sanitize_stem(&device.to_lowercase()),
                Some(format!("_{}", device.to_lowercase()))
            );
        }
        for port in ["COM", "LPT", "com", "Lpt"] {
            for n in [
                '0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '¹', '²', '³',
            ] {
                let name = format!("{port}{n}");
                assert_eq!(sanitize_stem(&name), Some(format!("_{name}")), "{name}");
                assert_eq!(
                    sanitize_stem(&format!("{name}.report")),
                    Some(format!("_{name}.report"))
                );
            }
        }
        for ordinary in ["console", "COM10", "LPT", "comma", "LPT⁴", "NULL"] {
            assert_eq!(
                sanitize_stem(ordinary).as_deref(),
                Some(ordinary),
                "{ordinary}"
            );
        }
    }

    #[test]
    fn names_fit_in_255_bytes_with_their_extension_and_suffix() {
        let emoji = sanitize_stem(&"😀".repeat(200)).unwrap();
        assert!(emoji.len() <= MAX_STEM_BYTES, "{}", emoji.len());
        assert!(emoji.chars().all(|c| c == '😀'));
        let mut taken = HashSet::new();
        let first = unique_name(&emoji, Format::Png, &mut taken);
        let second = unique_name(&emoji, Format::Png, &mut taken);
        assert!(first.len() <= MAX_NAME_BYTES && second.len() <= MAX_NAME_BYTES);
        assert_ne!(first, second);
        // Long multi-byte names are cut on a character boundary.
        let accents = sanitize_stem(&"é".repeat(100)).unwrap();
        assert!(accents.len() <= MAX_STEM_BYTES);
        assert!(accents.chars().all(|c| c == 'é'));
    }

    #[test]
    fn names_are_unicode_nfc_so_equivalent_spellings_collide() {
        let decomposed = sanitize_stem("e\u{301}te\u{301}").unwrap();
        let composed = sanitize_stem("été").unwrap();
        assert_eq!(decomposed, composed);
        let mut taken = HashSet::new();
        assert_eq!(unique_name(&decomposed, Format::Png, &mut taken), "été.png");
        assert_eq!(unique_name(&composed, Format::Png, &mut taken), "été-2.png");
    }
}
