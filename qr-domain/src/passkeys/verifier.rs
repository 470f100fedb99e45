//! The seam to WebAuthn's cryptography: the trait an adapter implements (challenges for the browser, and the verification of what the authenticator answered), and the values crossing it.
//!
//! The cut, as with single sign-on's provider: the adapter (`qr-passkey`) builds the options the
//! browser's `navigator.credentials` call takes and checks the authenticator's answer (the
//! challenge, the origin and relying party, user presence and verification, the signature and
//! its counter, WebAuthn Level 3 §7). Which passkey may sign in whom, and what a ceremony may
//! finish, are decided here in the domain ([`crate::Service`]'s passkey methods).

use std::fmt;

use thiserror::Error;

use super::ceremony::CeremonyState;
use super::credential::{CredentialId, Passkey, PasskeyData};
use crate::ids::UserId;

/// The largest answer from the browser accepted: a registration's attestation object with a
/// certificate chain stays well under 16 KiB; four times that bounds the parser's work.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024;

/// What the service needs from a WebAuthn implementation. Every method is pure computation over
/// its arguments (no I/O): the ceremony's state comes back from the store.
pub trait PasskeyVerifier: Send + Sync + fmt::Debug {
    /// A registration challenge for `user`, excluding the credentials they already have (an
    /// authenticator holding one of them declines instead of making a second). User verification
    /// is required, and a discoverable credential preferred, so the passkey can sign in alone.
    fn start_registration(
        &self,
        user: &PasskeyUser<'_>,
        registered: &[Passkey],
    ) -> Result<Challenge, VerifierError>;

    /// Verifies the authenticator's answer to a registration challenge: the new credential.
    fn finish_registration(
        &self,
        state: &CeremonyState,
        response: &AuthenticatorResponse,
    ) -> Result<VerifiedCredential, VerifierError>;

    /// A challenge that any of `passkeys` (one user's) may answer: a login's second step.
    fn start_authentication(&self, passkeys: &[Passkey]) -> Result<Challenge, VerifierError>;

    /// A challenge any discoverable passkey of this service may answer: a login without a
    /// password, where the answer names the credential and the user.
    fn start_discoverable_authentication(&self) -> Result<Challenge, VerifierError>;

    /// Which credential, and which user handle, an authentication answer claims to come from,
    /// before anything is verified: the caller looks the passkey up with it.
    fn claimed_by(&self, response: &AuthenticatorResponse) -> Result<Claimed, VerifierError>;

    /// Verifies an answer to either authentication challenge against the candidate passkeys:
    /// the passkey that signed, with its record updated (the signature counter).
    fn finish_authentication(
        &self,
        state: &CeremonyState,
        response: &AuthenticatorResponse,
        passkeys: &[Passkey],
    ) -> Result<VerifiedCredential, VerifierError>;
}

/// The user a passkey is made for, as the authenticator shows and keeps it.
#[derive(Debug, Clone, Copy)]
pub struct PasskeyUser<'a> {
    /// The user handle the authenticator stores (WebAuthn's `user.id`): the user's id, a random
    /// UUID that says nothing about the person.
    pub id: UserId,
    /// The account's name in the authenticator's list: the login address.
    pub name: &'a str,
}

/// A challenge for the browser and the state to keep until its answer.
#[derive(Debug, Clone)]
pub struct Challenge {
    /// What the page hands to `navigator.credentials.create()` or `.get()`.
    pub options: ChallengeOptions,
    /// What the verifier needs back to check the answer.
    pub state: CeremonyState,
}

/// The options of a challenge as JSON (WebAuthn Level 3's `PublicKeyCredentialCreationOptionsJSON`
/// or `…RequestOptionsJSON`, under `publicKey`), which the page passes on to the browser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChallengeOptions(String);

impl ChallengeOptions {
    /// Wraps the JSON a verifier wrote.
    pub fn new(json: String) -> Self {
        Self(json)
    }

    /// The JSON.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The browser's answer to a challenge (the `PublicKeyCredential`'s `toJSON()`), as the form
/// posted it, at most [`MAX_RESPONSE_BYTES`]; the verifier parses it.
#[derive(Clone, PartialEq, Eq)]
pub struct AuthenticatorResponse(String);

/// Why a posted answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ResponseError {
    /// Nothing was posted (the page's script did not run, or the prompt was dismissed).
    #[error("the browser sent no passkey; use a browser with passkeys and JavaScript on")]
    Missing,
    /// Over the bound.
    #[error("the passkey answer is larger than 64 KiB")]
    TooLarge,
}

impl AuthenticatorResponse {
    /// Bounds a posted answer.
    pub fn parse(raw: &str) -> Result<Self, ResponseError> {
        let raw = raw.trim();
        if raw.is_empty() {
            return Err(ResponseError::Missing);
        }
        if raw.len() > MAX_RESPONSE_BYTES {
            return Err(ResponseError::TooLarge);
        }
        Ok(Self(raw.to_owned()))
    }

    /// The answer.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for AuthenticatorResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "AuthenticatorResponse({} bytes)", self.0.len())
    }
}

/// Who an authentication answer claims to be from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Claimed {
    /// The credential that answered.
    pub credential_id: CredentialId,
    /// The user handle the authenticator returned (discoverable credentials return it); it must
    /// be the passkey owner's id.
    pub user_handle: Option<Vec<u8>>,
}

/// A credential the verifier accepted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedCredential {
    /// Its id.
    pub credential_id: CredentialId,
    /// Its record, to store (new, or with the counter moved on).
    pub data: PasskeyData,
}

/// Why the verifier refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum VerifierError {
    /// The answer is not a WebAuthn answer (not JSON of the expected shape, bad encodings).
    #[error("the passkey answer is malformed: {0}")]
    Malformed(String),
    /// The answer did not verify (another challenge or origin, no user verification, a bad
    /// signature, a counter gone backwards, a credential not among the candidates).
    #[error("the passkey answer did not verify: {0}")]
    Refused(String),
    /// The verifier could not make a challenge or read a state it wrote (a bug or a version
    /// change between servers).
    #[error("the passkey verifier failed: {0}")]
    Internal(String),
}
