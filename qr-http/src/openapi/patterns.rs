//! The regular expressions the document states for text the server trims, dates it reads with chrono, and cursors: written to accept exactly what the domain's parsers accept, in the syntax ECMA-262, Python's `re` and Rust's `regex` share (no `\s` or `\d`, which mean more in Python than in Rust).

/// The characters `str::trim` removes (Unicode `White_Space`), as the body of a character class.
/// Python's `\s` also matches U+001C to U+001F, which Rust keeps (and calls control characters),
/// so the class is spelled out.
macro_rules! spaces {
    () => {
        r"\t\n\x0B\f\r \x85\xA0\u1680\u2000-\u200A\u2028\u2029\u202F\u205F\u3000"
    };
}

/// The characters `char::is_control` finds (Unicode `Cc`), as the body of a character class.
macro_rules! controls {
    () => {
        r"\x00-\x1F\x7F-\x9F"
    };
}

/// A calendar date `YYYY-MM-DD` that exists: 30-day months end on the 30th, February on the
/// 28th, or the 29th in a leap year (divisible by 4, and by 400 at a century).
macro_rules! calendar_date {
    () => {
        concat!(
            "(?:[0-9]{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12][0-9]|3[01])",
            "|(?:0[469]|11)-(?:0[1-9]|[12][0-9]|30)|02-(?:0[1-9]|1[0-9]|2[0-8]))",
            "|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:0[48]|[2468][048]|[13579][26])00)-02-29)"
        )
    };
}

/// `HH:MM` of a day (00:00 to 23:59).
macro_rules! hours_minutes {
    () => {
        "(?:[01][0-9]|2[0-3]):[0-5][0-9]"
    };
}

/// `:SS` and an optional fraction of up to 9 digits (nanoseconds, chrono's precision).
macro_rules! seconds {
    () => {
        r":[0-5][0-9](?:\.[0-9]{1,9})?"
    };
}

/// Spaces the server trims around a value: any number of them.
const SPACES: &str = concat!("[", spaces!(), "]*");

/// A date or date-time of `startDate` and `endDate` (`parse_instant` of qr-domain's
/// `scans::analytics`): `YYYY-MM-DD`; or `THH:MM`; or `THH:MM:SS` with an optional fraction and
/// an optional offset (`Z` or `±HH:MM`; RFC 3339 needs the seconds for an offset).
pub(super) const ANALYTICS_DATE: &str = concat!(
    "^",
    "[",
    spaces!(),
    "]*",
    calendar_date!(),
    "(?:T",
    hours_minutes!(),
    "(?:",
    seconds!(),
    "(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])?)?)?",
    "[",
    spaces!(),
    "]*$"
);

/// An RFC 3339 instant in UTC (`Z` or `±00:00`), as a link's `validFrom` and `validUntil` take
/// it (`instant` of qr-domain's link campaign rules).
pub(super) const UTC_INSTANT: &str = concat!(
    "^",
    "[",
    spaces!(),
    "]*",
    calendar_date!(),
    "T",
    hours_minutes!(),
    seconds!(),
    "(?:Z|[+-]00:00)",
    "[",
    spaces!(),
    "]*$"
);

/// The cursor of a links page (`LinkCursor::parse` of qr-domain): microseconds since 1970 (18
/// digits at most, which chrono can represent), `.`, and the link id's 32 hex digits; empty
/// for none.
pub(super) const LINK_CURSOR: &str = concat!(
    "^(?:[",
    spaces!(),
    "]*[+-]?[0-9]{1,18}\\.[0-9A-Fa-f]{32}[",
    spaces!(),
    "]*)?$"
);

/// Text of 1 to `max_chars` characters once trimmed, without control characters (a link's
/// name, a tag, a UTM value): the length is in the pattern because `maxLength` would count the
/// spaces the server trims.
pub(super) fn trimmed_text(max_chars: usize) -> String {
    let edge = concat!("[^", spaces!(), controls!(), "]");
    let inner = concat!("[^", controls!(), "]");
    let between = max_chars.saturating_sub(2);
    format!("^{SPACES}{edge}(?:{inner}{{0,{between}}}{edge})?{SPACES}$")
}

/// [`trimmed_text`], or nothing but spaces (a filter that then filters nothing).
pub(super) fn trimmed_text_or_blank(max_chars: usize) -> String {
    let edge = concat!("[^", spaces!(), controls!(), "]");
    let inner = concat!("[^", controls!(), "]");
    let between = max_chars.saturating_sub(2);
    format!("^{SPACES}(?:{edge}(?:{inner}{{0,{between}}}{edge})?{SPACES})?$")
}

/// Any text of at most `max_chars` characters once trimmed (control characters allowed).
pub(super) fn trimmed_any(max_chars: usize) -> String {
    let edge = concat!("[^", spaces!(), "]");
    let between = max_chars.saturating_sub(2);
    format!(r"^{SPACES}(?:{edge}(?:[\s\S]{{0,{between}}}{edge})?{SPACES})?$")
}

/// A webhook endpoint as sent: http or https without a fragment, spaces around trimmed.
pub(super) const WEBHOOK_URL: &str = concat!(
    "^[",
    spaces!(),
    "]*[Hh][Tt][Tt][Pp][Ss]?://[^#",
    spaces!(),
    "]+[",
    spaces!(),
    "]*$"
);

/// A rule's country as sent: two letters, spaces around trimmed.
pub(super) const COUNTRY: &str = concat!("^[", spaces!(), "]*[A-Za-z]{2}[", spaces!(), "]*$");

/// Text without control characters (a link password, which is not trimmed).
pub(super) const NO_CONTROLS: &str = concat!("^[^", controls!(), "]*$");

/// A chosen short code as sent: 3 to 64 letters, digits, `-` and `_`, spaces around trimmed.
pub(super) const CUSTOM_CODE: &str =
    concat!("^[", spaces!(), "]*[A-Za-z0-9_-]{3,64}[", spaces!(), "]*$");

/// An http or https URL as sent, spaces around trimmed (the server then checks it is absolute,
/// with a host, without credentials).
pub(super) const HTTP_URL: &str = concat!(
    "^[",
    spaces!(),
    "]*[Hh][Tt][Tt][Pp][Ss]?://[^",
    spaces!(),
    "]+[",
    spaces!(),
    "]*$"
);

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `text` matches `pattern`, by a JSON Schema validator.
    fn matches(pattern: &str, text: &str) -> bool {
        jsonschema::is_valid(
            &serde_json::json!({"pattern": pattern}),
            &serde_json::json!(text),
        )
    }

    #[test]
    fn dates_are_calendar_dates() {
        for ok in [
            "2024-02-29",
            "2000-02-29",
            "2023-12-31",
            "0000-01-01",
            "2024-04-30",
        ] {
            assert!(matches(ANALYTICS_DATE, ok), "{ok}");
        }
        for bad in [
            "2023-02-29",
            "1900-02-29",
            "2024-04-31",
            "2024-13-01",
            "8877-21-95",
        ] {
            assert!(!matches(ANALYTICS_DATE, bad), "{bad}");
        }
    }

    #[test]
    fn trimmed_text_counts_the_characters_between_the_spaces() {
        let tag = trimmed_text(5);
        assert!(matches(&tag, "  abcde \t"));
        assert!(matches(&tag, "a"));
        assert!(matches(&tag, "a b"));
        assert!(!matches(&tag, "abcdef"));
        assert!(!matches(&tag, "   "));
        assert!(!matches(&tag, "a\u{1}b"));
        assert!(matches(&trimmed_text_or_blank(5), "  "));
    }
}
