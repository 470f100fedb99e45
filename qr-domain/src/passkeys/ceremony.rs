//! One passkey ceremony in flight: the challenge the browser was given, kept server side (single use, five minutes) with what it is for and whose it is, named by a random token the browser sends back and stored only as its SHA-256.

use std::fmt;

use chrono::{DateTime, Duration, Utc};

use crate::dashboard::token::{TokenHash, TokenSecret};
use crate::ids::UserId;
use crate::random::RandomError;

/// How long a ceremony waits for the browser: the authenticator's prompt (WebAuthn's
/// recommended timeout is 5 minutes with user verification) and a little more.
pub const CEREMONY_LIFETIME: Duration = Duration::minutes(5);

/// What a ceremony is for; one kind never finishes another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CeremonyPurpose {
    /// A logged-in user adds a passkey.
    Register,
    /// A login whose password was right finishes with a passkey (the second factor).
    SecondFactor,
    /// A login with a passkey alone, instead of the password: the browser offers the passkeys
    /// it holds for the service, so no user is known before it answers.
    Login,
}

impl CeremonyPurpose {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            CeremonyPurpose::Register => "register",
            CeremonyPurpose::SecondFactor => "second_factor",
            CeremonyPurpose::Login => "login",
        }
    }

    /// Parses a stored name.
    pub fn parse(s: &str) -> Option<Self> {
        [
            CeremonyPurpose::Register,
            CeremonyPurpose::SecondFactor,
            CeremonyPurpose::Login,
        ]
        .into_iter()
        .find(|p| p.as_str() == s)
    }
}

/// The verifier's state of a ceremony (its challenge and what it accepts), in the verifier's
/// own serialization: kept by the store, read only by the verifier that wrote it. It must stay
/// on the server, so a browser cannot answer a challenge of its own making.
#[derive(Clone, PartialEq, Eq)]
pub struct CeremonyState(String);

impl CeremonyState {
    /// Wraps what a verifier wrote (or a store read back).
    pub fn new(serialized: String) -> Self {
        Self(serialized)
    }

    /// The serialization.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for CeremonyState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CeremonyState({} bytes)", self.0.len())
    }
}

/// A stored ceremony.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ceremony {
    /// The hash of the token the browser holds.
    pub hash: TokenHash,
    /// What it is for.
    pub purpose: CeremonyPurpose,
    /// The user registering or finishing a login; `None` for a passkey login, where the
    /// passkey names the user. A named user must exist; deleting them deletes it.
    pub user_id: Option<UserId>,
    /// The verifier's state.
    pub state: CeremonyState,
    /// When it began.
    pub created_at: DateTime<Utc>,
    /// When it stops working.
    pub expires_at: DateTime<Utc>,
}

/// The token naming a ceremony, as the page holds it between asking for the challenge and
/// sending the answer: 64 hex digits. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct CeremonyToken(TokenSecret);

impl CeremonyToken {
    /// A new token.
    pub(crate) fn generate() -> Result<Self, RandomError> {
        TokenSecret::generate().map(Self)
    }

    /// A token as a form presents it; `None` when it cannot be one.
    pub fn parse(raw: &str) -> Option<Self> {
        TokenSecret::parse(raw).map(Self)
    }

    /// The stored form.
    pub fn hash(&self) -> TokenHash {
        self.0.hash()
    }

    /// The token, for the page.
    pub fn expose(&self) -> &str {
        self.0.expose()
    }
}

impl fmt::Debug for CeremonyToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("CeremonyToken(…)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn purposes_round_trip_and_tokens_hide() {
        for p in [
            CeremonyPurpose::Register,
            CeremonyPurpose::SecondFactor,
            CeremonyPurpose::Login,
        ] {
            assert_eq!(CeremonyPurpose::parse(p.as_str()), Some(p));
        }
        assert_eq!(CeremonyPurpose::parse("other"), None);
        let t = CeremonyToken::generate().unwrap();
        assert_eq!(CeremonyToken::parse(t.expose()), Some(t.clone()));
        assert_eq!(format!("{t:?}"), "CeremonyToken(…)");
        assert_eq!(
            format!("{:?}", CeremonyState::new("{}".into())),
            "CeremonyState(2 bytes)"
        );
    }
}
