//! The static files (one stylesheet, one script), compiled in and served under names that carry their content hash.

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

const FILES: [Asset; 2] = [
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
];

/// Each file's served name: `app.<first 10 hex digits of its SHA-256>.css`.
fn names() -> &'static [String; 2] {
    static NAMES: OnceLock<[String; 2]> = OnceLock::new();
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
    }
}
