//! Base64url without padding (RFC 4648 §5), the alphabet of PKCE verifiers and challenges, states and nonces.
//!
//! Only encoding is needed here (random bytes to text, a SHA-256 digest to a challenge), so the
//! domain keeps these few lines instead of a dependency; decoding ID tokens is the adapter's.

/// The 64 characters of RFC 4648's URL and file name safe alphabet.
const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// `bytes` in base64url without `=` padding: 4 characters per 3 bytes, 43 for 32 bytes.
pub(crate) fn base64url(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let sextets = [
            b[0] >> 2,
            (b[0] & 3) << 4 | b[1] >> 4,
            (b[1] & 15) << 2 | b[2] >> 6,
            b[2] & 63,
        ];
        // 1 byte makes 2 characters, 2 bytes 3, 3 bytes 4.
        for &s in &sextets[..=chunk.len()] {
            out.push(char::from(ALPHABET[usize::from(s)]));
        }
    }
    out
}

/// Whether `text` is made only of base64url characters.
pub(crate) fn is_base64url(text: &str) -> bool {
    text.bytes().all(|b| ALPHABET.contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_4648_test_vectors_without_padding() {
        // RFC 4648 §10, padding dropped.
        for (input, expected) in [
            ("", ""),
            ("f", "Zg"),
            ("fo", "Zm8"),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg"),
            ("fooba", "Zm9vYmE"),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(base64url(input.as_bytes()), expected, "{input:?}");
        }
    }

    #[test]
    fn the_url_safe_characters_replace_plus_and_slash() {
        assert_eq!(base64url(&[0xfb, 0xff, 0xbf]), "-_-_");
        assert!(is_base64url("-_azAZ09"));
        assert!(!is_base64url("a+b") && !is_base64url("a/b") && !is_base64url("ab=="));
    }
}
