//! One sign-in attempt: the state, nonce and PKCE verifier drawn for it, the authorization URL that sends the browser to the provider, and the completion that turns the provider's answer into a verified identity, once, within 10 minutes.

use std::fmt;

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest as _, Sha256};
use url::Url;

use super::SsoError;
use super::callback::{Callback, CallbackOutcome};
use super::claims::{ClaimExpectations, VerifiedIdentity, check_claims};
use super::encoding::{base64url, is_base64url};
use super::provider::{IdentityProvider, ProviderError, ProviderMetadata, ProviderStep};
use super::settings::{ClientId, RedirectUri, SsoSettings};
use crate::ids::AccountId;
use crate::random::{self, RandomError};

/// How long an attempt may take from the redirect to the provider until the callback: 10
/// minutes, enough for a person to find a password or a security key, short enough that a
/// leaked state is soon worthless.
pub const ATTEMPT_LIFETIME: Duration = Duration::minutes(10);

/// Random bytes behind each state, nonce and verifier: 32 (256 bits), which base64url writes in
/// 43 characters, RFC 7636 §4.1's shortest verifier.
const SECRET_BYTES: usize = 32;

/// A fresh 256-bit random value in base64url.
fn random_token() -> Result<String, RandomError> {
    Ok(base64url(&random::bytes::<SECRET_BYTES>()?))
}

/// Whether `text` could be a stored token: 43 to 128 base64url characters (RFC 7636 §4.1's
/// bounds, used for all three).
fn well_formed(text: &str) -> bool {
    (43..=128).contains(&text.len()) && is_base64url(text)
}

/// The `state` parameter: ties the provider's answer to the browser that started the attempt
/// (the caller keeps the attempt server side, found by this value or a cookie).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct StateToken(String);

/// The `nonce` parameter: ties the ID token to this attempt, so a token from another sign-in
/// cannot be replayed into it.
#[derive(Clone, PartialEq, Eq)]
pub struct Nonce(String);

/// The PKCE code verifier (RFC 7636): sent only with the token request, so a stolen code is
/// useless to anyone who lacks it. Secret until then; `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct PkceVerifier(String);

macro_rules! token_type {
    ($name:ident, $what:literal) => {
        impl $name {
            /// A value read back from storage; `None` unless 43 to 128 base64url characters.
            pub fn from_stored(text: &str) -> Option<Self> {
                well_formed(text).then(|| Self(text.to_owned()))
            }

            #[doc = concat!("The ", $what, " as sent to the provider.")]
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }
    };
}
token_type!(StateToken, "state");
token_type!(Nonce, "nonce");
token_type!(PkceVerifier, "verifier");

impl fmt::Debug for StateToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StateToken({})", self.0)
    }
}

impl fmt::Debug for Nonce {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Nonce(<redacted>)")
    }
}

impl fmt::Debug for PkceVerifier {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("PkceVerifier(<redacted>)")
    }
}

impl PkceVerifier {
    /// The S256 code challenge: base64url(SHA-256(verifier)) (RFC 7636 §4.2). The `plain`
    /// method is never used: it would send the verifier itself through the browser.
    pub fn s256_challenge(&self) -> String {
        base64url(&Sha256::digest(self.0.as_bytes()))
    }
}

/// A sign-in in progress for one workspace. Consumed by [`SsoAttempt::complete`], so one attempt
/// completes at most once; the caller's storage must take it out as it reads it (single use
/// across processes too).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SsoAttempt {
    workspace: AccountId,
    state: StateToken,
    nonce: Nonce,
    verifier: PkceVerifier,
    created: DateTime<Utc>,
}

impl SsoAttempt {
    /// A new attempt for `workspace` started at `now`: state, nonce and verifier drawn from the
    /// operating system's CSPRNG.
    pub fn begin(workspace: AccountId, now: DateTime<Utc>) -> Result<Self, RandomError> {
        Ok(Self {
            workspace,
            state: StateToken(random_token()?),
            nonce: Nonce(random_token()?),
            verifier: PkceVerifier(random_token()?),
            created: now,
        })
    }

    /// An attempt read back from storage.
    pub fn restore(
        workspace: AccountId,
        state: StateToken,
        nonce: Nonce,
        verifier: PkceVerifier,
        created: DateTime<Utc>,
    ) -> Self {
        Self {
            workspace,
            state,
            nonce,
            verifier,
            created,
        }
    }

    /// The workspace signed in to.
    pub fn workspace(&self) -> AccountId {
        self.workspace
    }

    /// The state.
    pub fn state(&self) -> &StateToken {
        &self.state
    }

    /// The nonce.
    pub fn nonce(&self) -> &Nonce {
        &self.nonce
    }

    /// The PKCE verifier (for storage; it leaves the service only in the token request).
    pub fn verifier(&self) -> &PkceVerifier {
        &self.verifier
    }

    /// When it started.
    pub fn created(&self) -> DateTime<Utc> {
        self.created
    }

    /// When it stops being accepted.
    pub fn expires_at(&self) -> DateTime<Utc> {
        self.created + ATTEMPT_LIFETIME
    }

    /// Where to send the browser: the provider's authorization endpoint with `response_type=code`,
    /// `scope=openid email`, the client id, the redirect URI, the state, the nonce and the S256
    /// challenge (parameters the endpoint URL already carries are kept). Metadata from
    /// [`ProviderMetadata::from_discovery`] always has a valid endpoint; one built otherwise
    /// with an invalid URL is refused rather than trusted.
    pub fn authorization_url(
        &self,
        metadata: &ProviderMetadata,
        client_id: &ClientId,
        redirect_uri: &RedirectUri,
    ) -> Result<String, ProviderError> {
        let mut url =
            Url::parse(&metadata.authorization_endpoint).map_err(|_| ProviderError::Invalid {
                step: ProviderStep::Discovery,
                detail: "authorization_endpoint is not a URL".to_owned(),
            })?;
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("scope", "openid email")
            .append_pair("client_id", client_id.as_str())
            .append_pair("redirect_uri", redirect_uri.as_str())
            .append_pair("state", self.state.as_str())
            .append_pair("nonce", self.nonce.as_str())
            .append_pair("code_challenge", &self.verifier.s256_challenge())
            .append_pair("code_challenge_method", "S256");
        Ok(url.into())
    }

    /// Refuses a callback whose `state` is not this attempt's (compared in constant time). The
    /// caller usually finds the attempt by the state, so this matters where it is found another
    /// way (a cookie naming it); [`SsoAttempt::complete`] checks it either way.
    pub fn check_state(&self, received: &str) -> Result<(), SsoError> {
        if random::constant_time_eq(self.state.0.as_bytes(), received.as_bytes()) {
            Ok(())
        } else {
            Err(SsoError::StateMismatch)
        }
    }

    /// Refuses an attempt older than [`ATTEMPT_LIFETIME`] at `now`.
    pub fn check_fresh(&self, now: DateTime<Utc>) -> Result<(), SsoError> {
        if now > self.expires_at() {
            Err(SsoError::AttemptExpired)
        } else {
            Ok(())
        }
    }

    /// Completes the attempt with the provider's answer: its age, the state and the `iss`
    /// parameter (RFC 9207, against mix-up attacks) are checked first, then `provider` redeems
    /// the code with the verifier and checks the ID token's signature, and the claims are
    /// checked against the provider's issuer, the client id, this attempt's nonce and `now`.
    pub fn complete(
        self,
        callback: &Callback,
        provider: &dyn IdentityProvider,
        metadata: &ProviderMetadata,
        settings: &SsoSettings,
        redirect_uri: &RedirectUri,
        now: DateTime<Utc>,
    ) -> Result<VerifiedIdentity, SsoError> {
        self.check_fresh(now)?;
        self.check_state(&callback.state)?;
        callback.check_issuer(metadata)?;
        let code = match &callback.outcome {
            CallbackOutcome::Code(code) => code,
            CallbackOutcome::Denied { error, description } => {
                return Err(SsoError::Denied {
                    error: error.clone(),
                    description: description.clone(),
                });
            }
        };
        let claims =
            provider.exchange_code(metadata, settings, code, &self.verifier, redirect_uri)?;
        let expected = ClaimExpectations {
            issuer: &metadata.issuer,
            client_id: &settings.client_id,
            nonce: &self.nonce,
            now,
        };
        Ok(check_claims(&claims, &expected, &settings.allowed_domains)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sso::{AuthorizationCode, IdTokenClaims};

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap()
    }

    #[test]
    fn rfc_7636_s256_test_vector() {
        // RFC 7636 Appendix B: the 32 octets, their base64url verifier, and its challenge.
        let octets = [
            116, 24, 223, 180, 151, 153, 224, 37, 79, 250, 96, 125, 216, 173, 187, 186, 22, 212,
            37, 77, 105, 214, 191, 240, 91, 88, 5, 88, 83, 132, 141, 121,
        ];
        assert_eq!(
            base64url(&octets),
            "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
        );
        let verifier = PkceVerifier::from_stored(&base64url(&octets)).unwrap();
        assert_eq!(
            verifier.s256_challenge(),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn attempts_draw_distinct_43_character_tokens() {
        let a = SsoAttempt::begin(AccountId::random(), at(0)).unwrap();
        let b = SsoAttempt::begin(AccountId::random(), at(0)).unwrap();
        for token in [a.state.as_str(), a.nonce.as_str(), a.verifier.as_str()] {
            assert_eq!(token.len(), 43);
            assert!(is_base64url(token));
        }
        assert_ne!(a.state, b.state);
        assert_ne!(a.state.as_str(), a.nonce.as_str());
        assert_ne!(a.nonce.as_str(), a.verifier.as_str());
        assert_eq!(a.verifier.s256_challenge().len(), 43);
    }

    #[test]
    fn stored_tokens_must_be_well_formed() {
        assert!(StateToken::from_stored(&"a".repeat(42)).is_none());
        assert!(StateToken::from_stored(&"a".repeat(129)).is_none());
        assert!(Nonce::from_stored(&format!("{}=", "a".repeat(43))).is_none());
        assert!(PkceVerifier::from_stored(&"a".repeat(128)).is_some());
    }

    #[test]
    fn the_state_must_match_exactly() {
        let attempt = SsoAttempt::begin(AccountId::random(), at(0)).unwrap();
        let state = attempt.state().as_str().to_owned();
        assert_eq!(attempt.check_state(&state), Ok(()));
        assert_eq!(
            attempt.check_state(&state[1..]),
            Err(SsoError::StateMismatch)
        );
        assert_eq!(attempt.check_state(""), Err(SsoError::StateMismatch));
        let mut flipped = state.clone().into_bytes();
        flipped[0] = if flipped[0] == b'A' { b'B' } else { b'A' };
        assert_eq!(
            attempt.check_state(&String::from_utf8(flipped).unwrap()),
            Err(SsoError::StateMismatch)
        );
    }

    #[test]
    fn an_attempt_lasts_ten_minutes() {
        let attempt = SsoAttempt::begin(AccountId::random(), at(0)).unwrap();
        assert_eq!(attempt.expires_at(), at(600));
        assert_eq!(attempt.check_fresh(at(600)), Ok(()));
        assert_eq!(attempt.check_fresh(at(601)), Err(SsoError::AttemptExpired));
    }

    #[test]
    fn secrets_stay_out_of_debug() {
        let attempt = SsoAttempt::begin(AccountId::random(), at(0)).unwrap();
        let shown = format!("{attempt:?}");
        assert!(!shown.contains(attempt.nonce.as_str()));
        assert!(!shown.contains(attempt.verifier.as_str()));
    }

    #[test]
    fn the_authorization_url_carries_every_parameter() {
        let attempt = SsoAttempt::begin(AccountId::random(), at(0)).unwrap();
        let metadata = ProviderMetadata::for_tests(
            "https://id.example",
            "https://id.example/authorize?tenant=7",
        );
        let url = attempt
            .authorization_url(
                &metadata,
                &ClientId::parse("qr app").unwrap(),
                &RedirectUri::parse("https://qr.example/sso/callback").unwrap(),
            )
            .unwrap();
        let parsed = Url::parse(&url).unwrap();
        assert_eq!(parsed.path(), "/authorize");
        let pairs: Vec<(String, String)> = parsed.query_pairs().into_owned().collect();
        let get = |name: &str| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.as_str())
                .unwrap_or_default()
        };
        assert_eq!(get("tenant"), "7");
        assert_eq!(get("response_type"), "code");
        assert_eq!(get("scope"), "openid email");
        assert_eq!(get("client_id"), "qr app");
        assert_eq!(get("redirect_uri"), "https://qr.example/sso/callback");
        assert_eq!(get("state"), attempt.state().as_str());
        assert_eq!(get("nonce"), attempt.nonce().as_str());
        assert_eq!(get("code_challenge"), attempt.verifier().s256_challenge());
        assert_eq!(get("code_challenge_method"), "S256");
        assert!(!url.contains(attempt.verifier().as_str()));
    }

    /// A provider that answers `claims` and counts its exchanges.
    struct FakeProvider {
        claims: IdTokenClaims,
        exchanges: std::sync::atomic::AtomicUsize,
    }

    impl IdentityProvider for FakeProvider {
        fn discover(&self, _: &super::super::IssuerUrl) -> Result<ProviderMetadata, ProviderError> {
            Ok(ProviderMetadata::for_tests(
                "https://id.example",
                "https://id.example/authorize",
            ))
        }

        fn exchange_code(
            &self,
            _: &ProviderMetadata,
            _: &SsoSettings,
            _: &AuthorizationCode,
            _: &PkceVerifier,
            _: &RedirectUri,
        ) -> Result<IdTokenClaims, ProviderError> {
            self.exchanges
                .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            Ok(self.claims.clone())
        }
    }

    fn settings() -> SsoSettings {
        SsoSettings::parse(
            super::super::SsoSettingsInput {
                issuer: "https://id.example",
                client_id: "qr-app",
                client_secret: "secret",
                allowed_domains: "example.com",
                default_role: "viewer",
            },
            super::super::IssuerAddresses::PublicOnly,
        )
        .unwrap()
    }

    /// An attempt begun at `at(0)`, a provider vouching for jane with its nonce, and a
    /// callback carrying `query` (the attempt's state when `state` is `None`).
    fn setup(state: Option<&str>, extra: &[(&str, &str)]) -> (SsoAttempt, FakeProvider, Callback) {
        let attempt = SsoAttempt::begin(AccountId::random(), at(0)).unwrap();
        let provider = FakeProvider {
            claims: IdTokenClaims {
                issuer: "https://id.example".to_owned(),
                audiences: vec!["qr-app".to_owned()],
                authorized_party: None,
                subject: "jane-1".to_owned(),
                expires_at: at(300),
                issued_at: at(0),
                nonce: Some(attempt.nonce().as_str().to_owned()),
                email: Some("jane@example.com".to_owned()),
                email_verified: Some(true),
            },
            exchanges: std::sync::atomic::AtomicUsize::new(0),
        };
        let state = state.unwrap_or(attempt.state().as_str()).to_owned();
        let mut pairs = vec![("state", state.as_str())];
        pairs.extend_from_slice(extra);
        let callback = Callback::from_query_pairs(pairs).unwrap();
        (attempt, provider, callback)
    }

    fn complete(
        attempt: SsoAttempt,
        provider: &FakeProvider,
        callback: &Callback,
        now: DateTime<Utc>,
    ) -> Result<VerifiedIdentity, SsoError> {
        let metadata =
            ProviderMetadata::for_tests("https://id.example", "https://id.example/authorize");
        let redirect = RedirectUri::parse("https://qr.example/sso/callback").unwrap();
        attempt.complete(callback, provider, &metadata, &settings(), &redirect, now)
    }

    #[test]
    fn completion_gives_the_identity_once_every_check_passes() {
        let (attempt, provider, callback) = setup(None, &[("code", "c")]);
        let identity = complete(attempt, &provider, &callback, at(5)).unwrap();
        assert_eq!(identity.email.as_str(), "jane@example.com");
        assert_eq!(
            provider.exchanges.load(std::sync::atomic::Ordering::SeqCst),
            1
        );
    }

    /// A callback's state (`None`: the attempt's), its other parameters, the time of completion
    /// and the refusal expected.
    type Case<'a> = (
        Option<&'a str>,
        &'a [(&'a str, &'a str)],
        DateTime<Utc>,
        SsoError,
    );

    #[test]
    fn refusals_before_the_exchange_never_reach_the_provider() {
        let cases: [Case<'_>; 4] = [
            (
                Some("forged"),
                &[("code", "c")],
                at(5),
                SsoError::StateMismatch,
            ),
            (None, &[("code", "c")], at(601), SsoError::AttemptExpired),
            (
                None,
                &[("code", "c"), ("iss", "https://evil.example")],
                at(5),
                SsoError::Provider(ProviderError::IssuerMismatch {
                    expected: "https://id.example".to_owned(),
                    found: "https://evil.example".to_owned(),
                }),
            ),
            (
                None,
                &[("error", "access_denied"), ("error_description", "no")],
                at(5),
                SsoError::Denied {
                    error: "access_denied".to_owned(),
                    description: Some("no".to_owned()),
                },
            ),
        ];
        for (state, extra, now, expected) in cases {
            let (attempt, provider, callback) = setup(state, extra);
            assert_eq!(
                complete(attempt, &provider, &callback, now),
                Err(expected.clone())
            );
            assert_eq!(
                provider.exchanges.load(std::sync::atomic::Ordering::SeqCst),
                0,
                "{expected}"
            );
        }
        assert_eq!(
            SsoError::Denied {
                error: "access_denied".to_owned(),
                description: Some("no".to_owned())
            }
            .to_string(),
            "the identity provider refused the sign-in: access_denied: no"
        );
    }

    #[test]
    fn the_claims_are_checked_after_the_exchange() {
        let (attempt, mut provider, callback) = setup(None, &[("code", "c")]);
        provider.claims.email_verified = Some(false);
        assert!(matches!(
            complete(attempt, &provider, &callback, at(5)),
            Err(SsoError::Claims(
                super::super::ClaimError::EmailUnverified { .. }
            ))
        ));
    }
}
