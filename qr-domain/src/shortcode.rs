//! Short codes: 8 characters of upper-case Crockford base32, drawn from the CSPRNG.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::random::{self, RandomError};

/// Number of characters in a short code.
pub const SHORT_CODE_LEN: usize = 8;
const CROCKFORD: &[u8; 32] = b"0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/// A canonical short code (upper case, aliases resolved), for example `7KQ2M9XD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct ShortCode([u8; SHORT_CODE_LEN]);

/// Why a string is not a short code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum ShortCodeError {
    /// Not exactly 8 characters.
    #[error("a short code has exactly 8 characters")]
    Length,
    /// A character outside Crockford base32 (U is not part of it).
    #[error("a short code uses only the characters 0-9 and A-Z without U")]
    Alphabet,
}

impl ShortCode {
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
        Ok(Self(out))
    }

    /// Parses a presented code: lower case is accepted, and O reads as 0, I and L read as 1.
    pub fn parse(raw: &str) -> Result<Self, ShortCodeError> {
        let raw = raw.trim();
        if raw.chars().count() != SHORT_CODE_LEN {
            return Err(ShortCodeError::Length);
        }
        let mut out = [0u8; SHORT_CODE_LEN];
        for (slot, c) in out.iter_mut().zip(raw.bytes()) {
            let c = match c.to_ascii_uppercase() {
                b'O' => b'0',
                b'I' | b'L' => b'1',
                c => c,
            };
            if !CROCKFORD.contains(&c) {
                return Err(ShortCodeError::Alphabet);
            }
            *slot = c;
        }
        Ok(Self(out))
    }

    /// The code as text.
    pub fn as_str(&self) -> &str {
        // Every byte comes from the ASCII alphabet, so this never fails; the fallback is unreachable.
        std::str::from_utf8(&self.0).unwrap_or("")
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
        Self::parse(&s)
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
            assert_eq!(ShortCode::parse(c.as_str()).unwrap(), c);
            assert!(c.as_str().bytes().all(|b| CROCKFORD.contains(&b)));
        }
    }

    proptest::proptest! {
        #[test]
        fn parse_never_panics(s in "\\PC{0,12}") {
            let _ = ShortCode::parse(&s);
        }
    }
}
