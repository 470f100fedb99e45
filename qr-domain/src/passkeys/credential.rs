//! A registered passkey as the service keeps it: the authenticator's credential id, the user it signs in, the name the user gave it, and the verifier's record of its public key and signature counter.

use std::fmt;

use chrono::{DateTime, Utc};
use thiserror::Error;

use crate::ids::UserId;
use crate::random;

/// The longest credential id WebAuthn allows (Level 3, §5.1: "at most 1023 bytes").
pub const MAX_CREDENTIAL_ID_BYTES: usize = 1023;

/// The most characters of a passkey's name: a device's name ("Work laptop", "Phone") fits in a
/// table cell with room to spare.
pub const MAX_PASSKEY_NAME_CHARS: usize = 64;

/// The most passkeys one user may register: a phone, a laptop, a desktop and a few security keys,
/// and a bound on what one login has to offer the browser.
pub const MAX_PASSKEYS_PER_USER: usize = 10;

/// The credential id an authenticator chose for a passkey: 1 to 1023 bytes, unique across the
/// service (the store refuses a second passkey with the same id).
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CredentialId(Vec<u8>);

/// Why bytes are not a credential id.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("a passkey's credential id is 1 to 1023 bytes")]
pub struct CredentialIdError;

impl CredentialId {
    /// A credential id from its bytes.
    pub fn new(bytes: Vec<u8>) -> Result<Self, CredentialIdError> {
        if bytes.is_empty() || bytes.len() > MAX_CREDENTIAL_ID_BYTES {
            return Err(CredentialIdError);
        }
        Ok(Self(bytes))
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The bytes in lowercase hex: how forms name a passkey.
    pub fn to_hex(&self) -> String {
        random::hex(&self.0)
    }

    /// A credential id a form names in hex; `None` when it cannot be one.
    pub fn from_hex(raw: &str) -> Option<Self> {
        let raw = raw.trim();
        if !raw.len().is_multiple_of(2) || raw.len() > 2 * MAX_CREDENTIAL_ID_BYTES {
            return None;
        }
        let bytes = (0..raw.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(raw.get(i..i + 2)?, 16).ok())
            .collect::<Option<Vec<u8>>>()?;
        Self::new(bytes).ok()
    }
}

impl fmt::Debug for CredentialId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = &self.0[..self.0.len().min(8)];
        write!(f, "CredentialId({}…)", random::hex(shown))
    }
}

/// The name a user gave a passkey, trimmed: 1 to [`MAX_PASSKEY_NAME_CHARS`] characters, no
/// control characters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PasskeyName(String);

/// Why a name was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PasskeyNameError {
    /// Nothing but spaces.
    #[error("give the passkey a name, such as the device it is on")]
    Empty,
    /// Over the bound.
    #[error("a passkey's name is at most 64 characters")]
    TooLong,
    /// A control character (a line break, a tab).
    #[error("a passkey's name cannot contain control characters")]
    Control,
}

impl PasskeyName {
    /// Checks a typed name.
    pub fn parse(raw: &str) -> Result<Self, PasskeyNameError> {
        let name = raw.trim();
        if name.is_empty() {
            return Err(PasskeyNameError::Empty);
        }
        if name.chars().count() > MAX_PASSKEY_NAME_CHARS {
            return Err(PasskeyNameError::TooLong);
        }
        if name.chars().any(char::is_control) {
            return Err(PasskeyNameError::Control);
        }
        Ok(Self(name.to_owned()))
    }

    /// The name.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The verifier's record of a credential (its public key, algorithm, signature counter and
/// flags), in the verifier's own serialization. The domain keeps and hands it back without
/// reading it: only the verifier that wrote it interprets it ([`super::PasskeyVerifier`]). It
/// holds no secret (a public key), so it is stored as it is.
#[derive(Clone, PartialEq, Eq)]
pub struct PasskeyData(String);

impl PasskeyData {
    /// Wraps what a verifier wrote (or a store read back).
    pub fn new(serialized: String) -> Self {
        Self(serialized)
    }

    /// The serialization, for the verifier and the store.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for PasskeyData {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PasskeyData({} bytes)", self.0.len())
    }
}

/// A registered passkey.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passkey {
    /// The authenticator's id of the credential.
    pub credential_id: CredentialId,
    /// Whose it is: the user it signs in.
    pub user_id: UserId,
    /// The name the user gave it.
    pub name: PasskeyName,
    /// The verifier's record of the credential.
    pub data: PasskeyData,
    /// When it was registered.
    pub created_at: DateTime<Utc>,
    /// When it last signed in (or finished a login's second step); `None` before its first use.
    pub last_used_at: Option<DateTime<Utc>>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credential_ids_are_bounded_and_round_trip_through_hex() {
        assert_eq!(CredentialId::new(vec![]), Err(CredentialIdError));
        assert_eq!(
            CredentialId::new(vec![0; MAX_CREDENTIAL_ID_BYTES + 1]),
            Err(CredentialIdError)
        );
        let id = CredentialId::new(vec![0x00, 0xab, 0xff]).unwrap();
        assert_eq!(id.to_hex(), "00abff");
        assert_eq!(CredentialId::from_hex("00abff"), Some(id.clone()));
        assert_eq!(CredentialId::from_hex(" 00ABFF "), Some(id));
        for bad in [
            "",
            "0",
            "zz",
            "é1",
            &"00".repeat(MAX_CREDENTIAL_ID_BYTES + 1),
        ] {
            assert_eq!(CredentialId::from_hex(bad), None, "{bad:?}");
        }
        assert_eq!(
            format!("{:?}", CredentialId::new(vec![1; 32]).unwrap()),
            "CredentialId(0101010101010101…)"
        );
    }

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(PasskeyName::parse("  Laptop ").unwrap().as_str(), "Laptop");
        assert_eq!(PasskeyName::parse("   "), Err(PasskeyNameError::Empty));
        assert_eq!(
            PasskeyName::parse(&"é".repeat(MAX_PASSKEY_NAME_CHARS)).map(|n| n.as_str().len()),
            Ok(2 * MAX_PASSKEY_NAME_CHARS)
        );
        assert_eq!(
            PasskeyName::parse(&"a".repeat(MAX_PASSKEY_NAME_CHARS + 1)),
            Err(PasskeyNameError::TooLong)
        );
        assert_eq!(PasskeyName::parse("a\nb"), Err(PasskeyNameError::Control));
    }
}
