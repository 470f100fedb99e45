//! Short codes: 8 characters of upper-case Crockford base32 drawn from the CSPRNG, or a custom code chosen by the link's owner, each with the case-insensitive key that makes it unique.

use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::domains::name::DomainName;
use crate::random::{self, RandomError};

/// Number of characters in a generated short code.
pub const SHORT_CODE_LEN: usize = 8;
/// The fewest characters of a custom code.
pub const MIN_CUSTOM_CODE_CHARS: usize = 3;
/// The most characters of any code (a custom one; presented codes longer than this name no link).
pub const MAX_CODE_CHARS: usize = 64;
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// What separates a customer's domain from a code in the forms stores keep (`go.brand.com/SUMMER`):
/// no code and no domain name contains it.
const DOMAIN_SEPARATOR: char = '/';

/// The key that makes `code` unique where it lives, and that stores look it up by: the code's
/// [`ShortCode::key`] on the service's own address, `<domain>/<key>` on a customer's domain.
/// Tombstones are kept in the same form, so a code deleted on one domain stays free on another.
pub fn scoped_key(domain: Option<&DomainName>, code: &ShortCode) -> String {
    scoped(domain, code.key())
}

/// The code as stores keep it beside its key: its text on the service's own address,
/// `<domain>/<text>` on a customer's domain (the short-code column was made unique across all
/// links by the first schema, which SQLite cannot change without rebuilding the links table).
pub fn scoped_text(domain: Option<&DomainName>, code: &ShortCode) -> String {
    scoped(domain, code.as_str())
}

fn scoped(domain: Option<&DomainName>, part: &str) -> String {
    match domain {
        None => part.to_owned(),
        Some(domain) => format!("{domain}{DOMAIN_SEPARATOR}{part}"),
    }
}

/// Splits what [`scoped_text`] wrote back into the domain (if any) and the code's text.
pub fn split_scoped(stored: &str) -> (Option<&str>, &str) {
    match stored.rsplit_once(DOMAIN_SEPARATOR) {
        Some((domain, text)) => (Some(domain), text),
        None => (None, stored),
    }
}

/// Words a custom code may not be (compared without regard to case): the server's own paths and
/// words a visitor would take for the service's pages.
pub const RESERVED_CODES: &[&str] = &[
    "admin",
    "api",
    "app",
    "dashboard",
    "docs",
    "health",
    "help",
    "login",
    "logout",
    "openapi",
    "r",
    "settings",
    "signup",
    "static",
    "unlock",
    "www",
];

/// A short code: its text as shown in the short URL, and its key, the form that makes codes
/// unique and that lookups use. Two codes are equal when their keys are.
///
/// The key is the text in upper case; a code of 8 characters that are all Crockford base32
/// (with `O` read as `0`, `I` and `L` as `1`) is keyed by its canonical Crockford form, so a
/// generated code typed with look-alikes still finds its link. Both are kept inline (no heap),
/// so the type stays `Copy` like the generated codes it started as.
#[derive(Clone, Copy, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ShortCode {
    text: [u8; MAX_CODE_CHARS],
    key: [u8; MAX_CODE_CHARS],
    len: u8,
}

/// Why a string is not a short code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ShortCodeError {
    /// Not exactly 8 characters (a presented generated code).
    #[error("a short code has exactly 8 characters")]
    Length,
    /// A character outside Crockford base32 (U is not part of it).
    #[error("a short code uses only the characters 0-9 and A-Z without U")]
    Alphabet,
    /// A custom code outside 3 to 64 characters, or with a character other than letters, digits,
    /// `-` and `_`.
    #[error("it must be 3 to 64 characters of letters A-Z, digits, - and _")]
    Custom,
    /// A custom code that is one of [`RESERVED_CODES`].
    #[error("{0:?} is reserved; choose another code")]
    Reserved(&'static str),
}

fn is_code_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

/// The Crockford value of a presented character (upper case, look-alikes read as digits).
fn crockford(b: u8) -> Option<u8> {
    let c = match b.to_ascii_uppercase() {
        b'O' => b'0',
        b'I' | b'L' => b'1',
        c => c,
    };
    CROCKFORD.contains(&c).then_some(c)
}

impl ShortCode {
    /// Builds a code from checked bytes (`is_code_byte`, 1 to 64 of them).
    fn build(text_bytes: &[u8]) -> Self {
        let mut text = [0u8; MAX_CODE_CHARS];
        let mut key = [0u8; MAX_CODE_CHARS];
        text[..text_bytes.len()].copy_from_slice(text_bytes);
        let canonical = text_bytes.len() == SHORT_CODE_LEN
            && text_bytes.iter().all(|b| crockford(*b).is_some());
        for (slot, b) in key.iter_mut().zip(text_bytes) {
            *slot = if canonical {
                crockford(*b).unwrap_or(*b)
            } else {
                b.to_ascii_uppercase()
            };
        }
        Self {
            text,
            key,
            // At most 64 bytes, checked by every caller.
            len: u8::try_from(text_bytes.len()).unwrap_or(0),
        }
    }

    /// Draws a random code (40 bits) from the OS CSPRNG.
    pub fn generate() -> Result<Self, RandomError> {
        let bytes: [u8; 5] = random::bytes()?;
        let mut bits = bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b));
        let mut out = [0u8; SHORT_CODE_LEN];
        for slot in out.iter_mut().rev() {
            // The mask keeps the index below 32, so the cast cannot truncate.
            *slot = CROCKFORD[(bits & 31) as usize];
            bits >>= 5;
        }
        Ok(Self::build(&out))
    }

    /// Parses a generated code as presented: lower case is accepted, and O reads as 0, I and L
    /// read as 1; the text is the canonical form.
    pub fn parse(raw: &str) -> Result<Self, ShortCodeError> {
        let raw = raw.trim();
        if raw.chars().count() != SHORT_CODE_LEN {
            return Err(ShortCodeError::Length);
        }
        let mut out = [0u8; SHORT_CODE_LEN];
        for (slot, c) in out.iter_mut().zip(raw.bytes()) {
            *slot = crockford(c).ok_or(ShortCodeError::Alphabet)?;
        }
        Ok(Self::build(&out))
    }

    /// A code as presented in a short URL, generated or custom: 1 to 64 letters, digits, `-`
    /// and `_` (anything else names no link). Generated codes come back canonical.
    pub fn presented(raw: &str) -> Result<Self, ShortCodeError> {
        if let Ok(code) = Self::parse(raw) {
            return Ok(code);
        }
        Self::stored(raw)
    }

    /// A code as a store holds it: its text kept as it is.
    pub fn stored(raw: &str) -> Result<Self, ShortCodeError> {
        let bytes = raw.as_bytes();
        if bytes.is_empty()
            || bytes.len() > MAX_CODE_CHARS
            || !bytes.iter().all(|b| is_code_byte(*b))
        {
            return Err(ShortCodeError::Custom);
        }
        Ok(Self::build(bytes))
    }

    /// A custom code chosen by a link's owner: 3 to 64 letters, digits, `-` and `_`, not a
    /// reserved word; its text is kept as written (trimmed).
    pub fn custom(raw: &str) -> Result<Self, ShortCodeError> {
        let raw = raw.trim();
        if raw.len() < MIN_CUSTOM_CODE_CHARS {
            return Err(ShortCodeError::Custom);
        }
        let code = Self::stored(raw)?;
        if let Some(word) = RESERVED_CODES.iter().find(|w| w.eq_ignore_ascii_case(raw)) {
            return Err(ShortCodeError::Reserved(word));
        }
        Ok(code)
    }

    /// The code as text, as the short URL shows it.
    pub fn as_str(&self) -> &str {
        // Every byte is ASCII (checked on construction), so this never fails.
        std::str::from_utf8(&self.text[..usize::from(self.len)]).unwrap_or("")
    }

    /// The key that makes the code unique and that stores look codes up by.
    pub fn key(&self) -> &str {
        std::str::from_utf8(&self.key[..usize::from(self.len)]).unwrap_or("")
    }

    fn key_bytes(&self) -> &[u8] {
        &self.key[..usize::from(self.len)]
    }
}

impl PartialEq for ShortCode {
    fn eq(&self, other: &Self) -> bool {
        self.key_bytes() == other.key_bytes()
    }
}

impl Eq for ShortCode {}

impl Hash for ShortCode {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.key_bytes().hash(state);
    }
}

impl PartialOrd for ShortCode {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for ShortCode {
    fn cmp(&self, other: &Self) -> Ordering {
        self.key_bytes().cmp(other.key_bytes())
    }
}

impl fmt::Debug for ShortCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ShortCode({:?})", self.as_str())
    }
}

impl fmt::Display for ShortCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for ShortCode {
    type Err = ShortCodeError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl TryFrom<String> for ShortCode {
    type Error = ShortCodeError;

    fn try_from(s: String) -> Result<Self, Self::Error> {
        Self::stored(&s)
    }
}

impl From<ShortCode> for String {
    fn from(c: ShortCode) -> String {
        c.as_str().to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(input: &str, expected: Result<&str, ShortCodeError>) {
        let got = ShortCode::parse(input).map(|c| c.to_string());
        assert_eq!(got.as_deref().map_err(|e| *e), expected, "{input:?}");
    }

    #[test]
    fn parse_cases() {
        check("7KQ2M9XD", Ok("7KQ2M9XD"));
        check("7kq2m9xd", Ok("7KQ2M9XD"));
        check("O0IiLl1A", Ok("0011111A"));
        check("ABCDEFGH", Ok("ABCDEFGH"));
        check("ABCDEFGU", Err(ShortCodeError::Alphabet));
        check("ABCD-FGH", Err(ShortCodeError::Alphabet));
        check("ABCDEFG", Err(ShortCodeError::Length));
        check("ABCDEFGHJ", Err(ShortCodeError::Length));
        check("ABCDEFGé", Err(ShortCodeError::Alphabet));
    }

    #[test]
    fn generated_codes_are_canonical() {
        for _ in 0..200 {
            let c = ShortCode::generate().unwrap();
            assert_eq!(c.as_str().len(), 8);
            assert_eq!(c.key(), c.as_str());
            assert_eq!(ShortCode::parse(c.as_str()).unwrap(), c);
            assert!(c.as_str().bytes().all(|b| CROCKFORD.contains(&b)));
        }
    }

    #[test]
    fn custom_codes_keep_their_text_and_compare_without_case() {
        let c = ShortCode::custom(" Spring-Sale_2025 ").unwrap();
        assert_eq!(c.as_str(), "Spring-Sale_2025");
        assert_eq!(c.key(), "SPRING-SALE_2025");
        assert_eq!(ShortCode::presented("spring-sale_2025").unwrap(), c);
        // Eight Crockford characters are keyed canonically, so look-alikes find the code.
        let c = ShortCode::custom("hello123").unwrap();
        assert_eq!((c.as_str(), c.key()), ("hello123", "HE110123"));
        assert_eq!(ShortCode::presented("HELLO123").unwrap(), c);
        assert_eq!(ShortCode::presented("he11o123").unwrap(), c);
        assert_eq!(ShortCode::custom("ab"), Err(ShortCodeError::Custom));
        assert_eq!(
            ShortCode::custom(&"a".repeat(65)),
            Err(ShortCodeError::Custom)
        );
        assert!(ShortCode::custom(&"a".repeat(64)).is_ok());
        assert_eq!(ShortCode::custom("a b c"), Err(ShortCodeError::Custom));
        assert_eq!(ShortCode::custom("a/b/c"), Err(ShortCodeError::Custom));
        assert_eq!(ShortCode::custom("café"), Err(ShortCodeError::Custom));
        assert_eq!(
            ShortCode::custom("Dashboard"),
            Err(ShortCodeError::Reserved("dashboard"))
        );
        assert_eq!(ShortCode::presented(""), Err(ShortCodeError::Custom));
        assert_eq!(
            ShortCode::stored("Spring-Sale").unwrap().as_str(),
            "Spring-Sale"
        );
    }

    proptest::proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,70}") {
            let _ = ShortCode::parse(&s);
            let _ = ShortCode::presented(&s);
            let _ = ShortCode::custom(&s);
        }
    }
}
