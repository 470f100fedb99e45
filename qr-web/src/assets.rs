//! The static files (one stylesheet, one script, the icon), compiled in and served under names that carry their content hash, and the icon at `/favicon.ico` too.

use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// A file served under `/static/`.
pub(crate) struct Asset {
    /// The name without the hash, for example `app.css`.
    stem: &'static str,
    /// Its media type.
    pub(crate) content_type: &'static str,
    /// Its bytes.
    pub(crate) bytes: &'static [u8],
}

const FILES: [Asset; 3] = [
    Asset {
        stem: "app.css",
        content_type: "text/css; charset=utf-8",
        bytes: include_bytes!("../static/app.css"),
    },
    Asset {
        stem: "app.js",
        content_type: "text/javascript; charset=utf-8",
        bytes: include_bytes!("../static/app.js"),
    },
    Asset {
        stem: "favicon.svg",
        content_type: "image/svg+xml",
        bytes: include_bytes!("../static/favicon.svg"),
    },
];

/// The icon browsers ask for at `/favicon.ico` by themselves (a page's `<link rel="icon">` aside):
/// the same mark as `favicon.svg`, as 16 and 32 px PNGs in an ICO container, which every browser
/// and feed reader reads.
pub(crate) const FAVICON_ICO: Asset = Asset {
    stem: "favicon.ico",
    content_type: "image/x-icon",
    bytes: include_bytes!("../static/favicon.ico"),
};

/// Each file's served name: `app.<first 10 hex digits of its SHA-256>.css`.
fn names() -> &'static [String; 3] {
    static NAMES: OnceLock<[String; 3]> = OnceLock::new();
    NAMES.get_or_init(|| {
        FILES.each_ref().map(|a| {
            let digest = Sha256::digest(a.bytes);
            let hex: String = digest[..5].iter().map(|b| format!("{b:02x}")).collect();
            let (base, ext) = a.stem.rsplit_once('.').unwrap_or((a.stem, ""));
            format!("{base}.{hex}.{ext}")
        })
    })
}

/// The path of the stylesheet.
pub(crate) fn css_path() -> String {
    format!("/static/{}", names()[0])
}

/// The path of the script.
pub(crate) fn js_path() -> String {
    format!("/static/{}", names()[1])
}

/// The path of the icon (SVG).
pub(crate) fn icon_path() -> String {
    format!("/static/{}", names()[2])
}

/// The file served as `/static/<name>`; only the hashed names exist.
pub(crate) fn find(name: &str) -> Option<&'static Asset> {
    names().iter().position(|n| n == name).map(|i| &FILES[i])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_carry_the_content_hash() {
        let css = css_path();
        assert!(
            css.starts_with("/static/app.") && css.ends_with(".css"),
            "{css}"
        );
        let name = css.trim_start_matches("/static/");
        assert_eq!(find(name).unwrap().content_type, "text/css; charset=utf-8");
        assert!(find("app.css").is_none(), "unhashed names are not served");
        assert!(find(js_path().trim_start_matches("/static/")).is_some());
        let icon = find(icon_path().trim_start_matches("/static/")).unwrap();
        assert_eq!(icon.content_type, "image/svg+xml");
    }

    /// The ICO holds a 16 and a 32 px PNG (RFC-less but stable format: a 6-byte header, one
    /// 16-byte entry per image, then the images).
    #[test]
    fn the_ico_holds_png_icons_of_16_and_32_pixels() {
        let ico = FAVICON_ICO.bytes;
        assert_eq!(&ico[..4], &[0, 0, 1, 0], "an icon resource");
        let count = usize::from(u16::from_le_bytes([ico[4], ico[5]]));
        let sizes: Vec<u8> = (0..count).map(|i| ico[6 + 16 * i]).collect();
        assert_eq!(sizes, [16, 32]);
        for i in 0..count {
            let entry = &ico[6 + 16 * i..6 + 16 * (i + 1)];
            let offset = u32::from_le_bytes(entry[12..16].try_into().unwrap()) as usize;
            assert_eq!(&ico[offset..offset + 8], b"\x89PNG\r\n\x1a\n");
        }
    }
}
