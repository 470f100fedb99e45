//! One-time tokens sent by e-mail (address verification, password reset, e-mail change): random, single use, 24 hours, bound to a user and a purpose, stored only as their SHA-256.

use std::fmt;

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};

use crate::accounts::account::Email;
use crate::ids::UserId;
use crate::random::{self, RandomError};

/// How long an e-mailed link works.
pub const TOKEN_LIFETIME: Duration = Duration::hours(24);

/// What a token may be used for; a token of one purpose never does another's job.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TokenPurpose {
    /// Confirms the address a user signed up with.
    Verify,
    /// Lets the holder choose a new password (and so proves the address too).
    Reset,
    /// Confirms a new address before the user moves to it.
    EmailChange,
    /// A login whose password was right, waiting for the second factor (never e-mailed: a
    /// cookie of the browser that typed the password holds it, for five minutes).
    SecondFactor,
}

/// The token as sent in a link: 64 hex digits. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenSecret(String);

/// The SHA-256 of a token: the only form in which it is stored.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TokenHash(pub [u8; 32]);

/// A stored token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OneTimeToken {
    /// The hash of the secret.
    pub hash: TokenHash,
    /// The user it acts on.
    pub user_id: UserId,
    /// What it is for.
    pub purpose: TokenPurpose,
    /// The address an [`TokenPurpose::EmailChange`] token moves the user to.
    pub new_email: Option<Email>,
    /// When it was issued.
    pub created_at: DateTime<Utc>,
    /// When it stops working.
    pub expires_at: DateTime<Utc>,
}

impl TokenPurpose {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            TokenPurpose::Verify => "verify",
            TokenPurpose::Reset => "reset",
            TokenPurpose::EmailChange => "email_change",
            TokenPurpose::SecondFactor => "second_factor",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        [
            TokenPurpose::Verify,
            TokenPurpose::Reset,
            TokenPurpose::EmailChange,
            TokenPurpose::SecondFactor,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }
}

impl TokenSecret {
    /// A new secret.
    pub fn generate() -> Result<Self, RandomError> {
        random::hex_secret().map(Self)
    }

    /// A token as a link presents it; `None` when it cannot be one (no lookup is made then).
    pub fn parse(raw: &str) -> Option<Self> {
        let raw = raw.trim();
        (raw.len() == 64 && raw.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| Self(raw.to_owned()))
    }

    /// The stored form.
    pub fn hash(&self) -> TokenHash {
        TokenHash(Sha256::digest(self.0.as_bytes()).into())
    }

    /// The secret, for the e-mailed link.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for TokenSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TokenSecret(…)")
    }
}

impl fmt::Debug for TokenHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TokenHash({}…)", random::hex(&self.0[..4]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_parse_hash_and_hide() {
        let t = TokenSecret::generate().unwrap();
        assert_eq!(TokenSecret::parse(t.expose()), Some(t.clone()));
        assert_eq!(TokenSecret::parse("abc"), None);
        assert_ne!(t.hash(), TokenSecret::generate().unwrap().hash());
        assert_eq!(format!("{t:?}"), "TokenSecret(…)");
        for p in [
            TokenPurpose::Verify,
            TokenPurpose::Reset,
            TokenPurpose::EmailChange,
            TokenPurpose::SecondFactor,
        ] {
            assert_eq!(TokenPurpose::parse(p.as_str()), Some(p));
        }
    }
}
