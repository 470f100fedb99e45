//! One-time recovery codes for a lost second factor: ten codes of 50 random bits each, shown once, stored only as SHA-256 hashes and each accepted once.
//!
//! A code is ten characters of Crockford's base32 (digits and lower-case letters without
//! `i`, `l`, `o` and `u`), shown as `xxxxx-xxxxx`. What a person types is normalised first:
//! case, spaces and dashes do not matter, and `o`, `i` and `l` read as `0`, `1` and `1`, the
//! characters they are mistaken for. No storage here: the caller keeps the
//! [`RecoveryCodeHashes`] and stores them again after [`RecoveryCodeHashes::redeem`], which
//! takes the used code's hash out.
//!
//! Plain SHA-256 is enough, as for API keys: a code is random (2^50 possibilities, not a
//! password a dictionary finds), it is a second factor asked for after the password, and a
//! login attempt is throttled long before a guess could succeed.

use std::fmt;

use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::random::{self, RandomError, constant_time_eq};

/// How many codes a set holds.
pub const RECOVERY_CODES: usize = 10;

/// Characters of a code (without its dash): 10 × 5 bits = 50 random bits.
const CODE_CHARS: usize = 10;

/// Crockford's base32 alphabet, lower case: no `i`, `l`, `o` (mistaken for `1` and `0`) and no
/// `u`. 32 symbols, so one random byte's low 5 bits pick one without bias.
const ALPHABET: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";

/// A recovery code as shown once (`xxxxx-xxxxx`). Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct RecoveryCode(String);

/// The SHA-256 of a code's ten characters: what is stored.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct RecoveryCodeHash(pub [u8; 32]);

/// A user's unused recovery codes, as hashes.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecoveryCodeHashes(Vec<RecoveryCodeHash>);

/// Why typed text is no recovery code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum RecoveryCodeError {
    /// Not ten characters of the codes' alphabet once spaces and dashes are taken out.
    #[error("a recovery code is 10 letters and digits, like 7k2mq-x9c4d")]
    Malformed,
}

impl RecoveryCode {
    /// A new set of codes from the operating system's CSPRNG, to show once.
    pub fn generate_set() -> Result<Vec<RecoveryCode>, RandomError> {
        (0..RECOVERY_CODES).map(|_| Self::generate()).collect()
    }

    fn generate() -> Result<Self, RandomError> {
        let bytes: [u8; CODE_CHARS] = random::bytes()?;
        let chars: String = bytes
            .iter()
            .map(|b| char::from(ALPHABET[usize::from(b & 31)]))
            .collect();
        Ok(Self::from_chars(&chars))
    }

    /// Reads what a person typed: case, spaces and dashes ignored, `o`, `i`, `l` read as `0`,
    /// `1`, `1`.
    pub fn parse(typed: &str) -> Result<Self, RecoveryCodeError> {
        let chars: String = typed
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '-')
            .map(|c| match c.to_ascii_lowercase() {
                'o' => '0',
                'i' | 'l' => '1',
                c => c,
            })
            .collect();
        if chars.len() != CODE_CHARS || !chars.bytes().all(|b| ALPHABET.contains(&b)) {
            return Err(RecoveryCodeError::Malformed);
        }
        Ok(Self::from_chars(&chars))
    }

    /// The code from its ten characters, dashed in the middle.
    fn from_chars(chars: &str) -> Self {
        let (first, second) = chars.split_at(CODE_CHARS / 2);
        Self(format!("{first}-{second}"))
    }

    /// The code as shown (`xxxxx-xxxxx`): for the page that shows the set once.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }

    /// The hash to store: of the ten characters without the dash.
    pub fn hash(&self) -> RecoveryCodeHash {
        let chars: String = self.0.chars().filter(|c| *c != '-').collect();
        RecoveryCodeHash(Sha256::digest(chars.as_bytes()).into())
    }
}

impl RecoveryCodeHashes {
    /// The hashes of a new set, to store in place of any earlier set.
    pub fn of(codes: &[RecoveryCode]) -> Self {
        Self(codes.iter().map(RecoveryCode::hash).collect())
    }

    /// Stored hashes, read back.
    pub fn from_stored(hashes: Vec<RecoveryCodeHash>) -> Self {
        Self(hashes)
    }

    /// The hashes to store.
    pub fn stored(&self) -> &[RecoveryCodeHash] {
        &self.0
    }

    /// How many codes are left.
    pub fn remaining(&self) -> usize {
        self.0.len()
    }

    /// Accepts a typed code once: when it is one of the unused codes its hash is taken out (the
    /// caller stores what is left) and the answer is `true`. Every stored hash is compared, in
    /// constant time, so the time taken does not say which code, if any, was close.
    pub fn redeem(&mut self, typed: &str) -> bool {
        let Ok(code) = RecoveryCode::parse(typed) else {
            return false;
        };
        let hash = code.hash();
        let mut matched = None;
        for (i, stored) in self.0.iter().enumerate() {
            if constant_time_eq(&stored.0, &hash.0) && matched.is_none() {
                matched = Some(i);
            }
        }
        matched.map(|i| self.0.remove(i)).is_some()
    }
}

impl fmt::Debug for RecoveryCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RecoveryCode(…)")
    }
}

impl fmt::Debug for RecoveryCodeHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RecoveryCodeHash({}…)", random::hex(&self.0[..4]))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;

    use super::*;

    #[test]
    fn a_set_is_ten_distinct_codes_of_fifty_bits() {
        let codes = RecoveryCode::generate_set().unwrap();
        assert_eq!(codes.len(), RECOVERY_CODES);
        let distinct: HashSet<&str> = codes.iter().map(RecoveryCode::expose_secret).collect();
        assert_eq!(distinct.len(), RECOVERY_CODES);
        for code in &codes {
            let text = code.expose_secret();
            assert_eq!(text.len(), 11, "{text}");
            assert_eq!(&text[5..6], "-");
            assert!(
                text.bytes()
                    .filter(|b| *b != b'-')
                    .all(|b| ALPHABET.contains(&b)),
                "{text}"
            );
            assert!(!text.contains(['i', 'l', 'o', 'u']), "{text}");
            assert_eq!(format!("{code:?}"), "RecoveryCode(…)");
        }
        // 32 symbols × 10 characters = 2^50 codes.
        assert_eq!(ALPHABET.len().pow(CODE_CHARS as u32), 1 << 50);
        let unique: HashSet<u8> = ALPHABET.iter().copied().collect();
        assert_eq!(unique.len(), 32);
    }

    #[test]
    fn typed_codes_are_normalised() {
        let code = RecoveryCode::parse("7k2mq-x9c4d").unwrap();
        for typed in [
            "7K2MQ-X9C4D",
            " 7k2mq x9c4d ",
            "7k2mqx9c4d",
            "7-k-2-m-q-x9c4d",
        ] {
            assert_eq!(RecoveryCode::parse(typed), Ok(code.clone()), "{typed:?}");
        }
        let ones = RecoveryCode::parse("10101-0abcd").unwrap();
        assert_eq!(RecoveryCode::parse("IOLOI-Oabcd"), Ok(ones.clone()));
        assert_eq!(
            ones.hash(),
            RecoveryCode::parse("lolol-oabcd").unwrap().hash()
        );
        for bad in [
            "",
            "7k2mq-x9c4",
            "7k2mq-x9c4dd",
            "7k2mq-x9c4u",
            "7k2mq_x9c4d",
            "７k2mq-x9c4d",
        ] {
            assert_eq!(
                RecoveryCode::parse(bad),
                Err(RecoveryCodeError::Malformed),
                "{bad:?}"
            );
        }
        // The hash is of the ten characters: SHA-256("7k2mqx9c4d").
        assert_eq!(
            random::hex(&code.hash().0),
            random::hex(&Sha256::digest(b"7k2mqx9c4d"))
        );
    }

    #[test]
    fn each_code_is_accepted_once() {
        let codes = RecoveryCode::generate_set().unwrap();
        let mut stored = RecoveryCodeHashes::of(&codes);
        assert_eq!(stored.remaining(), 10);
        let first = codes[0].expose_secret().to_uppercase().replace('-', " ");
        assert!(stored.redeem(&first));
        assert_eq!(stored.remaining(), 9);
        assert!(!stored.redeem(&first), "a used code is refused");
        assert!(!stored.redeem("not a code"));
        let mut reloaded = RecoveryCodeHashes::from_stored(stored.stored().to_vec());
        for code in &codes[1..] {
            assert!(reloaded.redeem(code.expose_secret()));
        }
        assert_eq!(reloaded.remaining(), 0);
        assert!(!format!("{:?}", stored).contains(codes[1].expose_secret()));
    }
}
