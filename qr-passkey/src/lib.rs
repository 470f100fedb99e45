//! WebAuthn adapter of qr-domain's passkey seam: webauthn-rs makes the challenges and verifies the authenticator's answers for the relying party the service's base URL names.
//!
//! What crosses the seam is text: the options the page hands to `navigator.credentials`
//! (WebAuthn Level 3's JSON forms, base64url without padding), the browser's answer (the
//! credential's `toJSON()`), and two records the store keeps without reading them: a ceremony's
//! state (tagged by kind so an answer to one kind never finishes another) and a
//! passkey's credential (webauthn-rs's `Passkey`: public key, algorithm, counter, flags).
#![forbid(unsafe_code)]

use std::fmt;

use qr_domain::passkeys::{
    AuthenticatorResponse, CeremonyState, Challenge, ChallengeOptions, Claimed, CredentialId,
    Passkey, PasskeyData, PasskeyUser, PasskeyVerifier, VerifiedCredential, VerifierError,
};
use serde::{Deserialize, Serialize};
use url::{Host, Url};
use webauthn_rs::prelude::{
    DiscoverableAuthentication, DiscoverableKey, Passkey as WebauthnPasskey, PasskeyAuthentication,
    PasskeyRegistration, PublicKeyCredential, RegisterPublicKeyCredential, Webauthn,
    WebauthnBuilder,
};
use webauthn_rs_proto::ResidentKeyRequirement;

/// The name authenticators show beside the account (WebAuthn's `rp.name`).
pub const RELYING_PARTY_NAME: &str = "QR Platform";

/// The WebAuthn relying party of one service address.
pub struct WebauthnVerifier {
    webauthn: Webauthn,
}

/// Why the base URL cannot be a relying party.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RelyingPartyError {
    /// Not an absolute `http(s)` URL.
    NotAUrl(String),
    /// An IP address: browsers offer passkeys only to origins with a domain name (a relying
    /// party id is a domain, WebAuthn Level 3 §5.1.3), so none would ever be made.
    NoDomainName(String),
    /// webauthn-rs refused the relying party (`http` on a name other than `localhost`, which
    /// browsers also refuse).
    Refused(String),
}

impl fmt::Display for RelyingPartyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RelyingPartyError::NotAUrl(u) => write!(f, "{u} is not an http(s) URL"),
            RelyingPartyError::NoDomainName(u) => write!(
                f,
                "{u} has no domain name; browsers offer passkeys only on a domain name (localhost included)"
            ),
            RelyingPartyError::Refused(e) => write!(f, "the relying party is refused: {e}"),
        }
    }
}

impl std::error::Error for RelyingPartyError {}

/// A ceremony's state as the store keeps it, tagged by kind.
#[derive(Serialize, Deserialize)]
enum State {
    Register(PasskeyRegistration),
    Authenticate(PasskeyAuthentication),
    Discoverable(DiscoverableAuthentication),
}

/// A registration answer as the page posts it (the credential's `toJSON()`).
fn registration(
    response: &AuthenticatorResponse,
) -> Result<RegisterPublicKeyCredential, VerifierError> {
    serde_json::from_str(response.as_str()).map_err(|e| VerifierError::Malformed(e.to_string()))
}

/// An authentication answer as the page posts it.
fn assertion(response: &AuthenticatorResponse) -> Result<PublicKeyCredential, VerifierError> {
    serde_json::from_str(response.as_str()).map_err(|e| VerifierError::Malformed(e.to_string()))
}

/// A stored credential record back as webauthn-rs's passkey; a record this crate did not write
/// is the server's fault, not the user's.
fn credential(passkey: &Passkey) -> Result<WebauthnPasskey, VerifierError> {
    serde_json::from_str(passkey.data.as_str())
        .map_err(|e| VerifierError::Internal(format!("a stored passkey does not read back: {e}")))
}

fn record(passkey: &WebauthnPasskey) -> Result<PasskeyData, VerifierError> {
    serde_json::to_string(passkey)
        .map(PasskeyData::new)
        .map_err(|e| VerifierError::Internal(e.to_string()))
}

fn keep(state: State) -> Result<CeremonyState, VerifierError> {
    serde_json::to_string(&state)
        .map(CeremonyState::new)
        .map_err(|e| VerifierError::Internal(e.to_string()))
}

fn read_state(state: &CeremonyState) -> Result<State, VerifierError> {
    serde_json::from_str(state.as_str())
        .map_err(|e| VerifierError::Internal(format!("a ceremony's state does not read back: {e}")))
}

/// The `publicKey` member of a challenge, as the page hands it to the browser.
fn options<T: Serialize>(public_key: &T) -> Result<ChallengeOptions, VerifierError> {
    serde_json::to_string(public_key)
        .map(ChallengeOptions::new)
        .map_err(|e| VerifierError::Internal(e.to_string()))
}

fn credential_id(bytes: &[u8]) -> Result<CredentialId, VerifierError> {
    CredentialId::new(bytes.to_vec()).map_err(|e| VerifierError::Malformed(e.to_string()))
}

impl WebauthnVerifier {
    /// The relying party of the service at `base_url`: its host is the relying party id, and its
    /// origin (scheme, host and port) the only origin accepted.
    pub fn for_base_url(base_url: &str) -> Result<Self, RelyingPartyError> {
        let url = Url::parse(base_url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| RelyingPartyError::NotAUrl(base_url.to_owned()))?;
        let rp_id = match url.host() {
            Some(Host::Domain(name)) => name.to_owned(),
            _ => return Err(RelyingPartyError::NoDomainName(base_url.to_owned())),
        };
        let origin = Url::parse(&url.origin().ascii_serialization())
            .map_err(|e| RelyingPartyError::NotAUrl(e.to_string()))?;
        let webauthn = WebauthnBuilder::new(&rp_id, &origin)
            .and_then(|b| b.rp_name(RELYING_PARTY_NAME).build())
            .map_err(|e| RelyingPartyError::Refused(e.to_string()))?;
        Ok(Self { webauthn })
    }
}

impl fmt::Debug for WebauthnVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebauthnVerifier").finish_non_exhaustive()
    }
}

impl PasskeyVerifier for WebauthnVerifier {
    fn start_registration(
        &self,
        user: &PasskeyUser<'_>,
        registered: &[Passkey],
    ) -> Result<Challenge, VerifierError> {
        let exclude = registered
            .iter()
            .map(|p| credential(p).map(|c| c.cred_id().clone()))
            .collect::<Result<Vec<_>, _>>()?;
        let (mut ccr, state) = self
            .webauthn
            .start_passkey_registration(user.id.as_uuid(), user.name, user.name, Some(exclude))
            .map_err(|e| VerifierError::Internal(e.to_string()))?;
        // webauthn-rs asks for a non-discoverable credential ("discouraged", for security keys
        // with little storage); a passkey that signs in without a typed address must be
        // discoverable, so it is asked for where the authenticator can keep one. Whether it did
        // does not change what is verified.
        if let Some(selection) = ccr.public_key.authenticator_selection.as_mut() {
            selection.resident_key = Some(ResidentKeyRequirement::Preferred);
        }
        Ok(Challenge {
            options: options(&ccr.public_key)?,
            state: keep(State::Register(state))?,
        })
    }

    fn finish_registration(
        &self,
        state: &CeremonyState,
        response: &AuthenticatorResponse,
    ) -> Result<VerifiedCredential, VerifierError> {
        let State::Register(state) = read_state(state)? else {
            return Err(VerifierError::Refused("not a registration".to_owned()));
        };
        let answer = registration(response)?;
        let passkey = self
            .webauthn
            .finish_passkey_registration(&answer, &state)
            .map_err(|e| VerifierError::Refused(e.to_string()))?;
        Ok(VerifiedCredential {
            credential_id: credential_id(passkey.cred_id().as_ref())?,
            data: record(&passkey)?,
        })
    }

    fn start_authentication(&self, passkeys: &[Passkey]) -> Result<Challenge, VerifierError> {
        let credentials = passkeys
            .iter()
            .map(credential)
            .collect::<Result<Vec<_>, _>>()?;
        let (rcr, state) = self
            .webauthn
            .start_passkey_authentication(&credentials)
            .map_err(|e| VerifierError::Internal(e.to_string()))?;
        Ok(Challenge {
            options: options(&rcr.public_key)?,
            state: keep(State::Authenticate(state))?,
        })
    }

    fn start_discoverable_authentication(&self) -> Result<Challenge, VerifierError> {
        let (rcr, state) = self
            .webauthn
            .start_discoverable_authentication()
            .map_err(|e| VerifierError::Internal(e.to_string()))?;
        // `rcr.mediation` says "conditional" (autofill); the page asks on a button instead, which
        // the same options serve.
        Ok(Challenge {
            options: options(&rcr.public_key)?,
            state: keep(State::Discoverable(state))?,
        })
    }

    fn claimed_by(&self, response: &AuthenticatorResponse) -> Result<Claimed, VerifierError> {
        let answer = assertion(response)?;
        Ok(Claimed {
            credential_id: credential_id(answer.get_credential_id())?,
            user_handle: answer.get_user_unique_id().map(<[u8]>::to_vec),
        })
    }

    fn finish_authentication(
        &self,
        state: &CeremonyState,
        response: &AuthenticatorResponse,
        passkeys: &[Passkey],
    ) -> Result<VerifiedCredential, VerifierError> {
        let answer = assertion(response)?;
        let mut credentials = passkeys
            .iter()
            .map(credential)
            .collect::<Result<Vec<_>, _>>()?;
        let result = match read_state(state)? {
            State::Authenticate(state) => {
                self.webauthn.finish_passkey_authentication(&answer, &state)
            }
            State::Discoverable(state) => {
                // The `_v2` successor takes webauthn-rs's `Credential`, public only under its
                // `danger-credential-internals` feature; this one runs the same verification
                // (`authenticate_credential`) over the candidates as `DiscoverableKey`s.
                let keys: Vec<DiscoverableKey> =
                    credentials.iter().map(DiscoverableKey::from).collect();
                #[allow(deprecated)]
                let result = self
                    .webauthn
                    .finish_discoverable_authentication(&answer, state, &keys);
                result
            }
            State::Register(_) => {
                return Err(VerifierError::Refused("not an authentication".to_owned()));
            }
        }
        .map_err(|e| VerifierError::Refused(e.to_string()))?;
        let used = credentials
            .iter_mut()
            .find(|c| c.cred_id() == result.cred_id())
            .ok_or_else(|| VerifierError::Refused("not one of the candidates".to_owned()))?;
        // The counter moves on (or stays 0 for authenticators without one); a counter that went
        // backwards was already refused by the verification above.
        used.update_credential(&result);
        Ok(VerifiedCredential {
            credential_id: credential_id(used.cred_id().as_ref())?,
            data: record(used)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_relying_party_is_the_base_urls_domain() {
        assert!(WebauthnVerifier::for_base_url("https://qr.example.com").is_ok());
        assert!(WebauthnVerifier::for_base_url("http://localhost:8080").is_ok());
        assert!(matches!(
            WebauthnVerifier::for_base_url("http://127.0.0.1:8080"),
            Err(RelyingPartyError::NoDomainName(_))
        ));
        assert!(matches!(
            WebauthnVerifier::for_base_url("ftp://qr.example.com"),
            Err(RelyingPartyError::NotAUrl(_))
        ));
    }
}
