//! Single sign-on with OpenID Connect: a workspace's provider settings, one sign-in attempt (state, nonce, PKCE), the rules an ID token's claims must meet, and the seam an adapter implements to talk to the provider.
//!
//! The flow (OpenID Connect Core 1.0 §3.1, the authorization code flow, with PKCE, RFC 7636):
//!
//! 1. [`SsoAttempt::begin`] draws a state, a nonce and a PKCE verifier; the caller keeps the
//!    attempt (server side, single use, [`ATTEMPT_LIFETIME`]) and sends the browser to
//!    [`SsoAttempt::authorization_url`], built from the provider's metadata that
//!    [`IdentityProvider::discover`] read.
//! 2. The provider sends the browser back with `code` and `state`; the adapter reads the query
//!    into a [`Callback`].
//! 3. [`SsoAttempt::complete`] checks the attempt's age, the state and the `iss` parameter,
//!    has the adapter redeem the code ([`IdentityProvider::exchange_code`]: the token request,
//!    then the ID token's signature against the provider's published keys), and checks the
//!    claims ([`check_claims`]: issuer, audience, `azp`, expiry, issue time, nonce, a verified
//!    e-mail address in an allowed domain). What comes out is a [`VerifiedIdentity`].
//!
//! The cut: everything that needs the network or cryptography (discovery, the key set, the token
//! request, signature verification) is the adapter's (`qr-oidc`); every rule about what is
//! accepted is here, so another adapter cannot loosen them.

mod attempt;
mod callback;
mod claims;
mod encoding;
mod provider;
mod service;
mod settings;
pub mod store;

#[cfg(any(test, feature = "contract-tests"))]
pub mod contract;

pub use attempt::{ATTEMPT_LIFETIME, Nonce, PkceVerifier, SsoAttempt, StateToken};
pub use callback::{AuthorizationCode, Callback, CallbackError, CallbackOutcome};
pub use claims::{
    CLOCK_LEEWAY, ClaimError, ClaimExpectations, IdTokenClaims, VerifiedIdentity, check_claims,
};
pub use provider::{
    DiscoveryDocument, IdentityProvider, ProviderError, ProviderMetadata, ProviderStep,
    SignatureError, TokenEndpointAuth,
};
pub use service::{
    SsoEnvironment, SsoLogin, SsoLoginError, SsoSettingsChangeError, SsoStart, SsoTarget,
};
pub use settings::{
    ClientId, ClientSecret, DefaultRole, EmailDomains, IssuerAddresses, IssuerUrl,
    MAX_EMAIL_DOMAINS, RedirectUri, SsoSettings, SsoSettingsError, SsoSettingsInput,
};

use thiserror::Error;

/// Why a sign-in did not end in a verified identity; `Display` is the message a person sees.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SsoError {
    /// The attempt is older than [`ATTEMPT_LIFETIME`].
    #[error("the sign-in took longer than 10 minutes; start again")]
    AttemptExpired,
    /// The `state` the provider sent back is not the attempt's: a forged or crossed callback.
    #[error("the sign-in response does not belong to this sign-in (state mismatch); start again")]
    StateMismatch,
    /// The callback's query was not a valid authorization response.
    #[error(transparent)]
    Callback(#[from] CallbackError),
    /// The provider said no (`error=access_denied` and the like).
    #[error("the identity provider refused the sign-in: {error}{}", describe(.description))]
    Denied {
        /// The OAuth error code.
        error: String,
        /// The provider's explanation, if any (control characters removed).
        description: Option<String>,
    },
    /// The provider could not be reached or answered wrongly.
    #[error(transparent)]
    Provider(#[from] ProviderError),
    /// The ID token was genuine but its claims are not acceptable.
    #[error(transparent)]
    Claims(#[from] ClaimError),
}

/// `: <description>` when there is one.
fn describe(description: &Option<String>) -> String {
    description
        .as_deref()
        .map_or_else(String::new, |d| format!(": {d}"))
}
