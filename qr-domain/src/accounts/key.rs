//! API keys: the secret format, its hash, and the stored key record (its settings live in `access`).

use std::fmt;
use std::str::FromStr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::accounts::access::KeySettings;
use crate::accounts::permissions::Grant;
use crate::ids::{AccountId, KeyId, UserId};
use crate::random::{self, RandomError};

/// The prefix of every live key.
pub const LIVE_PREFIX: &str = "qrapi_live_";
/// The prefix of every test key.
pub const TEST_PREFIX: &str = "qrapi_test_";
/// Number of random characters after the prefix.
pub const SECRET_CHARS: usize = 32;
/// Number of secret characters kept in the display prefix, and at the end in `last_four`.
const DISPLAY_CHARS: usize = 4;
/// Longest key name, in characters.
pub const MAX_KEY_NAME_CHARS: usize = 100;
const ALPHABET: &[u8; 62] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/// Whether a key is a live or a test key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyMode {
    /// A `qrapi_live_` key.
    Live,
    /// A `qrapi_test_` key.
    Test,
}

/// A full API key secret. Its `Debug` and `Display` never show the secret.
#[derive(Clone, PartialEq, Eq)]
pub struct ApiKeySecret(String);

/// The SHA-256 of a key secret: the only form in which a secret is stored.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct KeyHash(pub [u8; 32]);

/// Why a string is not a well-formed API key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Error)]
pub enum KeyFormatError {
    /// The key does not start with `qrapi_live_` or `qrapi_test_`.
    #[error("an API key starts with qrapi_live_ or qrapi_test_")]
    Prefix,
    /// The part after the prefix is not 32 characters long.
    #[error("an API key has exactly 32 characters after its prefix")]
    Length,
    /// The part after the prefix has a character outside A-Z, a-z, 0-9.
    #[error("an API key contains only letters and digits after its prefix")]
    Alphabet,
}

/// Why a key name was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum KeyNameError {
    /// Blank after trimming.
    #[error("the key name is empty")]
    Empty,
    /// Longer than [`MAX_KEY_NAME_CHARS`].
    #[error("the key name is longer than {MAX_KEY_NAME_CHARS} characters")]
    TooLong,
    /// Contains a control character.
    #[error("the key name contains a control character")]
    Control,
}

/// A key's name as its owner typed it, trimmed: 1 to 100 characters, no control characters.
pub fn parse_key_name(raw: &str) -> Result<String, KeyNameError> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(KeyNameError::Empty);
    }
    if name.chars().count() > MAX_KEY_NAME_CHARS {
        return Err(KeyNameError::TooLong);
    }
    if name.chars().any(char::is_control) {
        return Err(KeyNameError::Control);
    }
    Ok(name.to_owned())
}

/// The name of keys made without one (the operator's `qr keys create`, keys made before names).
pub const DEFAULT_KEY_NAME: &str = "Default key";

/// Errors while creating a key secret.
#[derive(Debug, Clone, Error)]
pub enum KeyGenError {
    /// The OS random number generator failed.
    #[error(transparent)]
    Random(#[from] RandomError),
}

/// A stored API key (never the secret itself).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiKey {
    /// The key's id, stable across regeneration.
    pub id: KeyId,
    /// The owning account.
    pub account_id: AccountId,
    /// Live or test.
    pub mode: KeyMode,
    /// SHA-256 of the current secret.
    pub hash: KeyHash,
    /// The prefix plus the first four secret characters, for recognising the key (for example `qrapi_live_AbC1`).
    pub display_prefix: String,
    /// The last four secret characters, shown beside the prefix (empty for keys made before
    /// they were kept).
    pub last_four: String,
    /// A name its owner chose, for telling keys apart.
    pub name: String,
    /// When the key was created.
    pub created_at: DateTime<Utc>,
    /// When the key last passed authentication (persisted in the background, so up to about a second behind).
    pub last_used_at: Option<DateTime<Utc>>,
    /// The key's restrictions.
    pub settings: KeySettings,
    /// Who made the key; `None` for keys made before this was kept.
    pub created_by: Option<KeyCreator>,
}

/// Who made a key. A user is kept by id: the dashboard shows their current address, or that
/// they are no longer a user; the key itself outlives them (issue 26: a member's removal does
/// not break the workspace's keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum KeyCreator {
    /// A person in the dashboard.
    User(UserId),
    /// The operator's `qr` command (or the server's bootstrap key).
    Operator,
}

impl KeyCreator {
    /// The stored text: `operator`, or `user:` and the user's id.
    pub fn as_stored(self) -> String {
        match self {
            KeyCreator::Operator => "operator".to_owned(),
            KeyCreator::User(id) => format!("user:{id}"),
        }
    }

    /// Reads [`KeyCreator::as_stored`]'s text back; `None` for anything else.
    pub fn from_stored(text: &str) -> Option<Self> {
        match text {
            "operator" => Some(KeyCreator::Operator),
            _ => text
                .strip_prefix("user:")
                .and_then(|id| id.parse().ok())
                .map(KeyCreator::User),
        }
    }
}

impl ApiKey {
    /// What the key may do: its scopes, or full access when it has none.
    pub fn grant(&self) -> Grant {
        match &self.settings.scopes {
            Some(scopes) => Grant::ScopedKey(scopes.clone()),
            None => Grant::FullKey,
        }
    }
}

impl ApiKeySecret {
    /// Draws a new secret of the given mode from the OS CSPRNG.
    pub fn generate(mode: KeyMode) -> Result<Self, KeyGenError> {
        let mut out = String::with_capacity(LIVE_PREFIX.len() + SECRET_CHARS);
        out.push_str(mode.prefix());
        let mut produced = 0;
        while produced < SECRET_CHARS {
            let buf: [u8; 64] = random::bytes()?;
            // Rejection sampling keeps every character equally likely: 248 = 4 * 62.
            for b in buf.into_iter().filter(|b| *b < 248) {
                if produced == SECRET_CHARS {
                    break;
                }
                out.push(char::from(ALPHABET[usize::from(b % 62)]));
                produced += 1;
            }
        }
        Ok(Self(out))
    }

    /// Checks the format of a presented key; no lookup happens for a malformed key.
    pub fn parse(raw: &str) -> Result<Self, KeyFormatError> {
        let rest = raw
            .strip_prefix(LIVE_PREFIX)
            .or_else(|| raw.strip_prefix(TEST_PREFIX))
            .ok_or(KeyFormatError::Prefix)?;
        if !rest.bytes().all(|b| b.is_ascii_alphanumeric()) {
            return Err(KeyFormatError::Alphabet);
        }
        if rest.len() != SECRET_CHARS {
            return Err(KeyFormatError::Length);
        }
        Ok(Self(raw.to_owned()))
    }

    /// The mode the prefix says.
    pub fn mode(&self) -> KeyMode {
        if self.0.starts_with(LIVE_PREFIX) {
            KeyMode::Live
        } else {
            KeyMode::Test
        }
    }

    /// The SHA-256 of the secret.
    pub fn hash(&self) -> KeyHash {
        KeyHash(Sha256::digest(self.0.as_bytes()).into())
    }

    /// The display prefix: the mode prefix and the first four secret characters.
    pub fn display_prefix(&self) -> String {
        self.0
            .chars()
            .take(LIVE_PREFIX.len() + DISPLAY_CHARS)
            .collect()
    }

    /// The last four secret characters.
    pub fn last_four(&self) -> String {
        let n = self.0.chars().count();
        self.0
            .chars()
            .skip(n.saturating_sub(DISPLAY_CHARS))
            .collect()
    }

    /// The secret itself, to show once to its owner.
    pub fn expose_secret(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for ApiKeySecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ApiKeySecret({}…)", self.display_prefix())
    }
}

impl FromStr for ApiKeySecret {
    type Err = KeyFormatError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

impl KeyMode {
    /// The key prefix of this mode.
    pub fn prefix(self) -> &'static str {
        match self {
            KeyMode::Live => LIVE_PREFIX,
            KeyMode::Test => TEST_PREFIX,
        }
    }

    /// The mode's name as stored.
    pub fn as_str(self) -> &'static str {
        match self {
            KeyMode::Live => "live",
            KeyMode::Test => "test",
        }
    }

    /// Parses a stored mode name.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "live" => Some(KeyMode::Live),
            "test" => Some(KeyMode::Test),
            _ => None,
        }
    }
}

impl fmt::Debug for KeyHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "KeyHash(")?;
        for b in &self.0[..4] {
            write!(f, "{b:02x}")?;
        }
        write!(f, "…)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_creator_reads_back_from_its_stored_text() {
        let user = KeyCreator::User(UserId::random());
        assert_eq!(KeyCreator::from_stored(&user.as_stored()), Some(user));
        assert_eq!(
            KeyCreator::from_stored(&KeyCreator::Operator.as_stored()),
            Some(KeyCreator::Operator)
        );
        for bad in ["", "user:", "user:not-a-uuid", "Operator", "key:1"] {
            assert_eq!(KeyCreator::from_stored(bad), None, "{bad}");
        }
    }

    fn check(input: &str, expected: Result<KeyMode, KeyFormatError>) {
        assert_eq!(
            ApiKeySecret::parse(input).map(|k| k.mode()),
            expected,
            "{input:?}"
        );
    }

    #[test]
    fn key_format_cases() {
        let body = "A".repeat(32);
        check(&format!("qrapi_live_{body}"), Ok(KeyMode::Live));
        check(&format!("qrapi_test_{body}"), Ok(KeyMode::Test));
        check(&format!("qrapi_prod_{body}"), Err(KeyFormatError::Prefix));
        check(&format!("QRAPI_LIVE_{body}"), Err(KeyFormatError::Prefix));
        check(&format!(" qrapi_live_{body}"), Err(KeyFormatError::Prefix));
        check(
            &format!("qrapi_live_{}", "A".repeat(31)),
            Err(KeyFormatError::Length),
        );
        check(
            &format!("qrapi_live_{}", "A".repeat(33)),
            Err(KeyFormatError::Length),
        );
        check(
            &format!("qrapi_live_{}-", "A".repeat(31)),
            Err(KeyFormatError::Alphabet),
        );
        check(
            &format!("qrapi_live_{}é", "A".repeat(30)),
            Err(KeyFormatError::Alphabet),
        );
        check("", Err(KeyFormatError::Prefix));
    }

    #[test]
    fn generated_keys_are_well_formed_distinct_and_redacted() {
        let a = ApiKeySecret::generate(KeyMode::Live).unwrap();
        let b = ApiKeySecret::generate(KeyMode::Test).unwrap();
        assert_eq!(a.expose_secret().len(), 43);
        assert_eq!(ApiKeySecret::parse(a.expose_secret()).unwrap(), a);
        assert_eq!(b.mode(), KeyMode::Test);
        assert_ne!(
            a.hash(),
            ApiKeySecret::generate(KeyMode::Live).unwrap().hash()
        );
        let shown = format!("{a:?}");
        assert!(!shown.contains(&a.expose_secret()[15..]), "{shown}");
        assert_eq!(a.display_prefix().len(), 15);
        assert_eq!(a.last_four(), a.expose_secret()[39..]);
    }

    #[test]
    fn key_names() {
        assert_eq!(parse_key_name("  Server  "), Ok("Server".to_owned()));
        assert_eq!(parse_key_name(" "), Err(KeyNameError::Empty));
        assert_eq!(parse_key_name("a\tb"), Err(KeyNameError::Control));
        assert_eq!(parse_key_name(&"k".repeat(101)), Err(KeyNameError::TooLong));
    }
}
