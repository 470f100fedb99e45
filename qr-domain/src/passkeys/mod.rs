//! Passkeys (WebAuthn): a user's registered credentials, the ceremonies in flight, the seam a WebAuthn implementation fills, and the rules of registering one and signing in with one, alone or as a login's second step.
//!
//! A ceremony (WebAuthn Level 3 §1.3) has two halves: the service makes a challenge, keeps it
//! server side ([`Ceremony`], single use, [`CEREMONY_LIFETIME`]) and gives the browser its
//! options; the browser's authenticator answers, and the service has the verifier check the
//! answer against the kept state before anything is stored or a session opened. The
//! cryptography is the adapter's ([`PasskeyVerifier`]); which passkey signs in whom is here.

pub mod ceremony;
#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;
pub mod credential;
mod service;
pub mod store;
pub mod verifier;

pub use ceremony::{CEREMONY_LIFETIME, Ceremony, CeremonyPurpose, CeremonyState, CeremonyToken};
pub use credential::{
    CredentialId, CredentialIdError, MAX_PASSKEYS_PER_USER, Passkey, PasskeyData, PasskeyName,
    PasskeyNameError,
};
pub use service::PasskeyError;
pub use verifier::{
    AuthenticatorResponse, Challenge, ChallengeOptions, Claimed, MAX_RESPONSE_BYTES, PasskeyUser,
    PasskeyVerifier, ResponseError, VerifiedCredential, VerifierError,
};
