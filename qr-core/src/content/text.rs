//! Text rules shared by the payload formats: field checks, backslash escaping, percent-encoding and the 75-octet line folding of vCard and iCalendar.

use super::ContentError;

/// Checks that `value` is not empty and has no control character (a line break is allowed when
/// `multiline`), and returns it.
pub(crate) fn checked_text(
    field: &'static str,
    value: &str,
    multiline: bool,
) -> Result<String, ContentError> {
    if value.is_empty() {
        return Err(ContentError::Empty { field });
    }
    if let Some(character) = value
        .chars()
        .find(|&c| c.is_control() && !(multiline && (c == '\n' || c == '\r')))
    {
        return Err(ContentError::InvalidCharacter { field, character });
    }
    Ok(value.to_owned())
}

/// Checks that `value` has at most `max` characters.
pub(crate) fn at_most_chars(
    field: &'static str,
    value: &str,
    max: usize,
) -> Result<(), ContentError> {
    let length = value.chars().count();
    if length > max {
        return Err(ContentError::TooLong {
            field,
            max,
            length,
            unit: "characters",
        });
    }
    Ok(())
}

/// Writes `value` with a backslash before each of `specials` (and before the backslash itself).
pub(crate) fn escape_into(out: &mut String, value: &str, specials: &[char]) {
    for c in value.chars() {
        if c == '\\' || specials.contains(&c) {
            out.push('\\');
        }
        out.push(c);
    }
}

/// The characters the Wi-Fi and MeCard formats escape with a backslash (zxing's readers unescape
/// exactly these).
pub(crate) const MECARD_SPECIALS: [char; 4] = [';', ',', ':', '"'];

/// A TEXT value of vCard (RFC 6350 section 3.4) and iCalendar (RFC 5545 section 3.3.11): a
/// backslash before `\`, `;` and `,`, and each line break (CRLF, CR or LF) as `\n`.
pub(crate) fn escape_text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' | ';' | ',' => {
                out.push('\\');
                out.push(c);
            }
            '\r' => {
                chars.next_if_eq(&'\n');
                out.push_str("\\n");
            }
            '\n' => out.push_str("\\n"),
            _ => out.push(c),
        }
    }
    out
}

/// Percent-encodes every byte of `value` but the unreserved characters of RFC 3986
/// (`A-Z a-z 0-9 - . _ ~`), so the result is safe in any URI component.
pub(crate) fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for &byte in value.as_bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            out.push('%');
            out.push(char::from(HEX[usize::from(byte >> 4)]));
            out.push(char::from(HEX[usize::from(byte & 15)]));
        }
    }
    out
}

const HEX: &[u8; 16] = b"0123456789ABCDEF";

/// Content lines joined with CRLF (and a final CRLF), each folded so that no physical line is
/// longer than 75 octets: a continuation line starts with one space (RFC 6350 section 3.2,
/// RFC 5545 section 3.1), and a UTF-8 sequence is never split.
pub(crate) fn folded_lines(lines: &[String]) -> String {
    const LIMIT: usize = 75;
    let mut out = String::new();
    for line in lines {
        let mut rest = line.as_str();
        // The first physical line holds 75 octets, continuations 74 after their space.
        let mut room = LIMIT;
        loop {
            if rest.len() <= room {
                out.push_str(rest);
                break;
            }
            let mut cut = room;
            while !rest.is_char_boundary(cut) {
                cut -= 1;
            }
            out.push_str(&rest[..cut]);
            out.push_str("\r\n ");
            rest = &rest[cut..];
            room = LIMIT - 1;
        }
        out.push_str("\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folding_keeps_every_physical_line_within_75_octets() {
        let long = format!("NOTE:{}", "é".repeat(60));
        let folded = folded_lines(&[long.clone(), "END:X".to_owned()]);
        for physical in folded.split("\r\n") {
            assert!(
                physical.len() <= 75,
                "{physical:?} is {} octets",
                physical.len()
            );
        }
        // Unfolding (RFC 6350: remove each CRLF followed by one space) gives the line back.
        assert_eq!(folded.replace("\r\n ", ""), format!("{long}\r\nEND:X\r\n"));
        // "NOTE:" and 35 two-octet characters make 75 octets; the 36th starts the next line.
        assert!(folded.starts_with(&format!("NOTE:{}\r\n é", "é".repeat(35))));
    }

    #[test]
    fn text_escaping_follows_rfc_6350() {
        assert_eq!(escape_text("a\\b;c,d\r\ne\nf"), r"a\\b\;c\,d\ne\nf");
    }

    #[test]
    fn percent_encoding_keeps_only_unreserved_characters() {
        assert_eq!(
            percent_encode("Hi & bye?/é~"),
            "Hi%20%26%20bye%3F%2F%C3%A9~"
        );
    }
}
