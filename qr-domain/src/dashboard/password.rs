//! Dashboard passwords: what a new password must be (10 to 1,024 characters, not among the 19,640 most common) and its Argon2id hash.
//!
//! Hashing and verifying cost about 20 to 40 ms of one core and 19 MiB of memory each (OWASP's
//! Argon2id parameters), so adapters call them off their async threads.

use std::collections::HashSet;
use std::fmt;
use std::sync::OnceLock;

use argon2::password_hash::phc::PasswordHash as Phc;
use argon2::password_hash::{PasswordHasher, PasswordVerifier};
use argon2::{Algorithm, Argon2, Params, Version};
use thiserror::Error;

/// The fewest characters a new password may have (NIST SP 800-63B asks for at least 8; 10 keeps
/// most of the common-password list out by length alone).
pub const MIN_PASSWORD_CHARS: usize = 10;
/// The most bytes a password may have: enough for any passphrase, and a bound on the work a
/// request can ask of the hash.
pub const MAX_PASSWORD_BYTES: usize = 1024;
/// OWASP's Argon2id parameters: 19 MiB of memory, 2 passes, 1 lane.
const MEMORY_KIB: u32 = 19 * 1024;
const PASSES: u32 = 2;
const LANES: u32 = 1;

/// The common-password list (Django's, see `data/COMMON-PASSWORDS-LICENSE`), gzip-compressed.
const COMMON_GZ: &[u8] = include_bytes!("../../data/common-passwords.txt.gz");

/// A password as typed. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct Password(String);

/// A stored password: the Argon2id PHC string (`$argon2id$v=19$m=19456,t=2,p=1$salt$hash`).
/// Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordHash(String);

/// Why a new password was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PasswordError {
    /// Fewer than [`MIN_PASSWORD_CHARS`] characters.
    #[error("the password must have at least {MIN_PASSWORD_CHARS} characters")]
    TooShort,
    /// More than [`MAX_PASSWORD_BYTES`] bytes.
    #[error("the password must have at most {MAX_PASSWORD_BYTES} bytes")]
    TooLong,
    /// Among the most common passwords (compared in lower case).
    #[error("this password is among the most common ones; choose another")]
    Common,
}

/// Hashing failed (the OS random number generator, or a stored hash that is not a PHC string).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("password hashing failed: {0}")]
pub struct HashError(String);

impl Password {
    /// A new password, checked against the rules.
    pub fn new(raw: &str) -> Result<Self, PasswordError> {
        if raw.len() > MAX_PASSWORD_BYTES {
            return Err(PasswordError::TooLong);
        }
        if raw.chars().count() < MIN_PASSWORD_CHARS {
            return Err(PasswordError::TooShort);
        }
        if is_common(raw) {
            return Err(PasswordError::Common);
        }
        Ok(Self(raw.to_owned()))
    }

    /// A password without the account rules: a link's password, whose own bounds
    /// (`campaign::MIN_LINK_PASSWORD_CHARS` to `MAX_LINK_PASSWORD_CHARS`) are checked where it is read.
    pub(crate) fn unchecked(raw: &str) -> Self {
        Self(raw.to_owned())
    }

    /// The password as typed.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Password {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Password(…)")
    }
}

fn hasher() -> Argon2<'static> {
    // The parameters are constants within Argon2's bounds, so building them cannot fail.
    let params = Params::new(MEMORY_KIB, PASSES, LANES, None).unwrap_or(Params::DEFAULT);
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

impl PasswordHash {
    /// Hashes a new password with a random salt.
    pub fn of(password: &Password) -> Result<Self, HashError> {
        hasher()
            .hash_password(password.0.as_bytes())
            .map(|phc| Self(phc.to_string()))
            .map_err(|e| HashError(e.to_string()))
    }

    /// A hash as stored; refused when it is not a PHC string.
    pub fn parse(stored: &str) -> Result<Self, HashError> {
        Phc::new(stored)
            .map(|_| Self(stored.to_owned()))
            .map_err(|e| HashError(e.to_string()))
    }

    /// The PHC string, for storage.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether `presented` is the password (in constant time; the parameters come from the hash).
    pub fn verify(&self, presented: &str) -> bool {
        if presented.len() > MAX_PASSWORD_BYTES {
            return false;
        }
        Phc::new(&self.0)
            .is_ok_and(|phc| hasher().verify_password(presented.as_bytes(), &phc).is_ok())
    }
}

impl fmt::Debug for PasswordHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PasswordHash(…)")
    }
}

/// Spends the time of one verification without any account: login and sign-up call it when
/// there is no password to check, so their timing does not tell whether an address has an
/// account.
pub fn verify_nothing(presented: &str) {
    static DUMMY: OnceLock<Option<PasswordHash>> = OnceLock::new();
    let dummy = DUMMY.get_or_init(|| {
        Password::new("not a real password, only spends time")
            .ok()
            .and_then(|p| PasswordHash::of(&p).ok())
    });
    if let Some(hash) = dummy {
        let _ = hash.verify(presented);
    }
}

/// Whether `raw` (in lower case) is on the common-password list.
pub fn is_common(raw: &str) -> bool {
    common().contains(raw.to_lowercase().as_str())
}

/// How many passwords the common list holds.
pub fn common_count() -> usize {
    common().len()
}

fn common() -> &'static HashSet<String> {
    static LIST: OnceLock<HashSet<String>> = OnceLock::new();
    LIST.get_or_init(|| {
        let text = gunzip(COMMON_GZ).unwrap_or_default();
        String::from_utf8_lossy(&text)
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_owned)
            .collect()
    })
}

/// The content of a gzip member without optional header fields (as `gzip -n` writes it).
fn gunzip(gz: &[u8]) -> Option<Vec<u8>> {
    const HEADER: usize = 10;
    const TRAILER: usize = 8;
    let (header, rest) = gz.split_at_checked(HEADER)?;
    if header[..4] != [0x1f, 0x8b, 8, 0] || rest.len() < TRAILER {
        return None;
    }
    miniz_oxide::inflate::decompress_to_vec(&rest[..rest.len() - TRAILER]).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_common_list_is_loaded() {
        assert_eq!(common_count(), 19_640);
        assert!(is_common("password1"));
        assert!(is_common("PASSWORD1"), "compared in lower case");
        assert!(!is_common("correct horse battery staple"));
    }

    #[test]
    fn new_password_rules() {
        assert_eq!(Password::new("short"), Err(PasswordError::TooShort));
        assert_eq!(
            Password::new("ééééééééé").unwrap_err(),
            PasswordError::TooShort,
            "characters, not bytes"
        );
        assert_eq!(Password::new("1234567890"), Err(PasswordError::Common));
        assert_eq!(Password::new("qwertyuiop"), Err(PasswordError::Common));
        assert_eq!(
            Password::new(&"a".repeat(MAX_PASSWORD_BYTES + 1)),
            Err(PasswordError::TooLong)
        );
        assert!(Password::new("plum tree at dawn").is_ok());
        assert_eq!(
            format!("{:?}", Password::new("plum tree at dawn").unwrap()),
            "Password(…)"
        );
    }

    #[test]
    fn hashes_verify_and_are_salted() {
        let p = Password::new("plum tree at dawn").unwrap();
        let a = PasswordHash::of(&p).unwrap();
        let b = PasswordHash::of(&p).unwrap();
        assert_ne!(a, b, "a random salt each time");
        assert!(a.as_str().starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        assert!(a.verify("plum tree at dawn"));
        assert!(!a.verify("plum tree at dusk"));
        assert_eq!(PasswordHash::parse(a.as_str()).unwrap(), a);
        assert!(PasswordHash::parse("plain text").is_err());
        assert!(!format!("{a:?}").contains("argon2"));
    }
}
