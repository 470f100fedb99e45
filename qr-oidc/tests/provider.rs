//! Single sign-on against a real, certified OpenID provider (oidc-provider on Node, started by each test): the whole flow from the authorization URL to a verified identity, and each refusal (wrong audience, expired token, replayed code, nonce and state mismatch, tampered signature, non-public provider address, unverified e-mail).

use std::time::Duration;

use qr_domain::AccountId;
use qr_domain::chrono::{DateTime, Utc};
use qr_domain::sso::{
    Callback, CallbackOutcome, ClaimError, ClaimExpectations, IdentityProvider, IssuerAddresses,
    IssuerUrl, ProviderError, ProviderMetadata, RedirectUri, SignatureError, SsoAttempt, SsoError,
    SsoSettings, SsoSettingsInput, TokenEndpointAuth, check_claims,
};
use qr_oidc::{OidcClient, OidcConfig, RawIdToken};
use qr_test_support::servers::oidc::{
    OidcAccount, OidcClient as TestClient, OidcProviderConfig, OidcProviderServer,
};

const SUITE: &str = "qr-oidc's provider tests";
const REDIRECT: &str = "http://127.0.0.1:9/dashboard/sso/callback";

fn client(id: &str, algorithm: &str) -> TestClient {
    TestClient {
        client_id: id.to_owned(),
        client_secret: format!("{id}-secret: with spaces & symbols"),
        redirect_uris: vec![REDIRECT.to_owned()],
        id_token_algorithm: algorithm.to_owned(),
    }
}

fn account(sub: &str, email: &str, verified: bool) -> OidcAccount {
    OidcAccount {
        sub: sub.to_owned(),
        email: Some(email.to_owned()),
        email_verified: Some(verified),
    }
}

/// A provider with clients `app` (RS256) and `es-app` (ES256) and `other` (RS256), and the
/// accounts jane (verified, example.com), mallory (unverified) and olga (example.org).
fn provider_with(ttl: Duration, auth_methods: &[&str]) -> Option<OidcProviderServer> {
    OidcProviderServer::start(
        SUITE,
        &OidcProviderConfig {
            clients: vec![
                client("app", "RS256"),
                client("es-app", "ES256"),
                client("other", "RS256"),
            ],
            accounts: vec![
                account("jane", "jane@example.com", true),
                account("mallory", "mallory@example.com", false),
                account("olga", "olga@example.org", true),
            ],
            id_token_ttl: ttl,
            client_auth_methods: auth_methods.iter().map(|m| (*m).to_owned()).collect(),
        },
    )
}

fn provider() -> Option<OidcProviderServer> {
    provider_with(
        Duration::from_secs(3600),
        &["client_secret_basic", "client_secret_post"],
    )
}

fn settings(provider: &OidcProviderServer, client_id: &str) -> SsoSettings {
    SsoSettings::parse(
        SsoSettingsInput {
            issuer: &provider.issuer(),
            client_id,
            client_secret: &format!("{client_id}-secret: with spaces & symbols"),
            allowed_domains: "example.com",
            default_role: "member",
        },
        IssuerAddresses::Any,
    )
    .expect("valid settings")
}

fn oidc() -> OidcClient {
    OidcClient::new(OidcConfig {
        addresses: IssuerAddresses::Any,
        ..OidcConfig::default()
    })
    .expect("the client starts")
}

fn redirect_uri() -> RedirectUri {
    RedirectUri::parse(REDIRECT).unwrap()
}

/// One sign-in up to the callback: discovery, a new attempt, the provider's login as `login`,
/// and the callback's query read.
struct SignedIn {
    metadata: ProviderMetadata,
    attempt: SsoAttempt,
    callback: Callback,
}

fn sign_in(
    provider: &OidcProviderServer,
    oidc: &OidcClient,
    settings: &SsoSettings,
    login: &str,
) -> SignedIn {
    let metadata = oidc.discover(&settings.issuer).expect("discovery");
    let attempt = SsoAttempt::begin(AccountId::random(), Utc::now()).unwrap();
    let url = attempt
        .authorization_url(&metadata, &settings.client_id, &redirect_uri())
        .unwrap();
    let landed = provider
        .sign_in(&url, login)
        .unwrap_or_else(|e| panic!("{e}\n{}", provider.log()));
    assert!(landed.starts_with(REDIRECT), "{landed}");
    let query = landed.split_once('?').map_or("", |(_, q)| q);
    let pairs: Vec<(String, String)> = url::form_urlencoded::parse(query.as_bytes())
        .into_owned()
        .collect();
    let callback = Callback::from_query_pairs(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .expect("an authorization response");
    SignedIn {
        metadata,
        attempt,
        callback,
    }
}

fn code(callback: &Callback) -> &qr_domain::sso::AuthorizationCode {
    match &callback.outcome {
        CallbackOutcome::Code(code) => code,
        other => panic!("a code, not {other:?}"),
    }
}

fn complete(
    signed_in: SignedIn,
    oidc: &OidcClient,
    settings: &SsoSettings,
    now: DateTime<Utc>,
) -> Result<qr_domain::sso::VerifiedIdentity, SsoError> {
    signed_in.attempt.complete(
        &signed_in.callback,
        oidc,
        &signed_in.metadata,
        settings,
        &redirect_uri(),
        now,
    )
}

#[test]
fn discovery_reads_the_providers_metadata() {
    let Some(provider) = provider() else { return };
    let settings = settings(&provider, "app");
    let metadata = oidc().discover(&settings.issuer).unwrap();
    assert_eq!(metadata.issuer, provider.issuer());
    assert_eq!(
        metadata.token_endpoint,
        format!("{}/token", provider.issuer())
    );
    assert_eq!(metadata.token_auth, TokenEndpointAuth::ClientSecretBasic);
    assert!(metadata.sends_issuer_in_response);
    assert!(metadata.signing_algorithms.iter().any(|a| a == "ES256"));
}

#[test]
fn a_full_sign_in_gives_the_verified_identity_rs256_and_es256() {
    let Some(provider) = provider() else { return };
    let oidc = oidc();
    for client_id in ["app", "es-app"] {
        let settings = settings(&provider, client_id);
        let signed_in = sign_in(&provider, &oidc, &settings, "jane@example.com");
        assert_eq!(
            signed_in.callback.state,
            signed_in.attempt.state().as_str(),
            "the provider echoes the state"
        );
        let identity = complete(signed_in, &oidc, &settings, Utc::now())
            .unwrap_or_else(|e| panic!("{client_id}: {e}\n{}", provider.log()));
        assert_eq!(identity.issuer, provider.issuer());
        assert_eq!(identity.subject, "jane");
        assert_eq!(identity.email.as_str(), "jane@example.com");
    }
}

#[test]
fn client_secret_post_is_used_when_the_provider_takes_only_that() {
    let Some(provider) = provider_with(Duration::from_secs(3600), &["client_secret_post"]) else {
        return;
    };
    let oidc = oidc();
    let settings = settings(&provider, "app");
    let signed_in = sign_in(&provider, &oidc, &settings, "jane");
    assert_eq!(
        signed_in.metadata.token_auth,
        TokenEndpointAuth::ClientSecretPost
    );
    let identity = complete(signed_in, &oidc, &settings, Utc::now()).unwrap();
    assert_eq!(identity.email.as_str(), "jane@example.com");
}

#[test]
fn a_token_issued_to_another_client_is_refused() {
    let Some(provider) = provider() else { return };
    let oidc = oidc();
    // A genuine token, issued to `other`…
    let other = settings(&provider, "other");
    let signed_in = sign_in(&provider, &oidc, &other, "jane@example.com");
    let token = oidc
        .redeem_code(
            &signed_in.metadata,
            &other,
            code(&signed_in.callback),
            signed_in.attempt.verifier(),
            &redirect_uri(),
        )
        .unwrap();
    let claims = oidc.verify_id_token(&signed_in.metadata, &token).unwrap();
    assert_eq!(claims.audiences, ["other"]);
    // …presented to `app`.
    let app = settings(&provider, "app");
    let expected = ClaimExpectations {
        issuer: &signed_in.metadata.issuer,
        client_id: &app.client_id,
        nonce: signed_in.attempt.nonce(),
        now: Utc::now(),
    };
    assert_eq!(
        check_claims(&claims, &expected, &app.allowed_domains),
        Err(ClaimError::WrongAudience {
            client_id: "app".to_owned()
        })
    );
    // And `app` cannot redeem `other`'s code either: the provider refuses it.
    let signed_in = sign_in(&provider, &oidc, &other, "jane@example.com");
    let refused = complete(signed_in, &oidc, &app, Utc::now()).unwrap_err();
    assert!(
        matches!(
            refused,
            SsoError::Provider(ProviderError::CodeRejected { .. })
        ),
        "{refused:?}"
    );
}

#[test]
fn an_expired_token_is_refused() {
    // Tokens valid for 5 s; checked 90 s later, past the 60 s leeway.
    let Some(provider) = provider_with(Duration::from_secs(5), &["client_secret_basic"]) else {
        return;
    };
    let oidc = oidc();
    let settings = settings(&provider, "app");
    let signed_in = sign_in(&provider, &oidc, &settings, "jane@example.com");
    let later = Utc::now() + qr_domain::chrono::Duration::seconds(90);
    let refused = complete(signed_in, &oidc, &settings, later).unwrap_err();
    assert!(
        matches!(refused, SsoError::Claims(ClaimError::Expired { .. })),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("expired"));
    // The same lifetime checked now is fine: the refusal is the token's age.
    let signed_in = sign_in(&provider, &oidc, &settings, "jane@example.com");
    assert!(complete(signed_in, &oidc, &settings, Utc::now()).is_ok());
}

#[test]
fn a_replayed_code_is_refused_by_the_provider() {
    let Some(provider) = provider() else { return };
    let oidc = oidc();
    let settings = settings(&provider, "app");
    let signed_in = sign_in(&provider, &oidc, &settings, "jane@example.com");
    let code = code(&signed_in.callback).clone();
    let verifier = signed_in.attempt.verifier().clone();
    complete(signed_in, &oidc, &settings, Utc::now()).expect("the first use");
    let replay = oidc
        .exchange_code(
            &oidc.discover(&settings.issuer).unwrap(),
            &settings,
            &code,
            &verifier,
            &redirect_uri(),
        )
        .unwrap_err();
    let ProviderError::CodeRejected { error, .. } = &replay else {
        panic!("a rejected code, not {replay:?}");
    };
    assert_eq!(error, "invalid_grant");
    assert!(replay.to_string().contains("used already"), "{replay}");
}

#[test]
fn a_code_without_its_verifier_is_refused() {
    let Some(provider) = provider() else { return };
    let oidc = oidc();
    let settings = settings(&provider, "app");
    let signed_in = sign_in(&provider, &oidc, &settings, "jane@example.com");
    let stranger = SsoAttempt::begin(AccountId::random(), Utc::now()).unwrap();
    let refused = oidc
        .redeem_code(
            &signed_in.metadata,
            &settings,
            code(&signed_in.callback),
            stranger.verifier(),
            &redirect_uri(),
        )
        .unwrap_err();
    assert!(
        matches!(refused, ProviderError::CodeRejected { .. }),
        "{refused:?}"
    );
}

#[test]
fn a_token_of_another_sign_in_fails_the_nonce_check() {
    let Some(provider) = provider() else { return };
    let oidc = oidc();
    let settings = settings(&provider, "app");
    let signed_in = sign_in(&provider, &oidc, &settings, "jane@example.com");
    // The same state and verifier, but this attempt's nonce is another one.
    let other = SsoAttempt::begin(AccountId::random(), Utc::now()).unwrap();
    let attempt = &signed_in.attempt;
    let swapped = SsoAttempt::restore(
        attempt.workspace(),
        attempt.state().clone(),
        other.nonce().clone(),
        attempt.verifier().clone(),
        attempt.created(),
    );
    let refused = complete(
        SignedIn {
            attempt: swapped,
            ..signed_in
        },
        &oidc,
        &settings,
        Utc::now(),
    )
    .unwrap_err();
    assert_eq!(refused, SsoError::Claims(ClaimError::NonceMismatch));
}

#[test]
fn a_callback_with_another_state_is_refused_before_the_code_is_spent() {
    let Some(provider) = provider() else { return };
    let oidc = oidc();
    let settings = settings(&provider, "app");
    let mut signed_in = sign_in(&provider, &oidc, &settings, "jane@example.com");
    let genuine = signed_in.callback.state.clone();
    assert_eq!(signed_in.attempt.check_state(&genuine), Ok(()));
    signed_in.callback.state = format!("{genuine}x");
    assert_eq!(
        signed_in.attempt.check_state(&signed_in.callback.state),
        Err(SsoError::StateMismatch)
    );
    let code = code(&signed_in.callback).clone();
    let verifier = signed_in.attempt.verifier().clone();
    let metadata = signed_in.metadata.clone();
    assert_eq!(
        complete(signed_in, &oidc, &settings, Utc::now()),
        Err(SsoError::StateMismatch)
    );
    // The code was never sent: it still redeems.
    assert!(
        oidc.exchange_code(&metadata, &settings, &code, &verifier, &redirect_uri())
            .is_ok()
    );
}

#[test]
fn an_expired_attempt_is_refused() {
    let Some(provider) = provider() else { return };
    let oidc = oidc();
    let settings = settings(&provider, "app");
    let signed_in = sign_in(&provider, &oidc, &settings, "jane@example.com");
    let later = Utc::now() + qr_domain::chrono::Duration::minutes(11);
    assert_eq!(
        complete(signed_in, &oidc, &settings, later),
        Err(SsoError::AttemptExpired)
    );
}

#[test]
fn tampered_tokens_are_refused() {
    let Some(provider) = provider() else { return };
    let oidc = oidc();
    for client_id in ["app", "es-app"] {
        let settings = settings(&provider, client_id);
        let signed_in = sign_in(&provider, &oidc, &settings, "jane@example.com");
        let token = oidc
            .redeem_code(
                &signed_in.metadata,
                &settings,
                code(&signed_in.callback),
                signed_in.attempt.verifier(),
                &redirect_uri(),
            )
            .unwrap();
        let metadata = &signed_in.metadata;
        assert!(oidc.verify_id_token(metadata, &token).is_ok());
        let parts: Vec<&str> = token.as_str().split('.').collect();
        let verify = |header: &str, payload: &str, signature: &str| {
            let forged = RawIdToken::new(format!("{header}.{payload}.{signature}")).unwrap();
            oidc.verify_id_token(metadata, &forged).unwrap_err()
        };
        // One signature character changed.
        let mut signature = parts[2].to_owned().into_bytes();
        signature[10] = if signature[10] == b'A' { b'B' } else { b'A' };
        let signature = String::from_utf8(signature).unwrap();
        assert_eq!(
            verify(parts[0], parts[1], &signature),
            ProviderError::Signature(SignatureError::Invalid),
            "{client_id}"
        );
        // Another e-mail address in the payload, the signature kept.
        let payload = b64(&decode(parts[1]).replace("jane@example.com", "boss@example.com"));
        assert_eq!(
            verify(parts[0], &payload, parts[2]),
            ProviderError::Signature(SignatureError::Invalid)
        );
        // Unsigned (`alg: none`), and HMAC keyed with the client secret.
        for alg in ["none", "HS256"] {
            let header = b64(&format!(r#"{{"alg":"{alg}","typ":"JWT"}}"#));
            assert_eq!(
                verify(&header, parts[1], ""),
                ProviderError::Signature(SignatureError::AlgorithmNotAccepted(alg.to_owned()))
            );
        }
        // A key id the provider never published.
        let header = b64(&decode(parts[0]).replace("-1\"", "-9\""));
        assert!(matches!(
            verify(&header, parts[1], parts[2]),
            ProviderError::Signature(SignatureError::UnknownKey(Some(_)))
        ));
    }
}

#[test]
fn an_unverified_or_foreign_address_is_refused() {
    let Some(provider) = provider() else { return };
    let oidc = oidc();
    let settings = settings(&provider, "app");
    let signed_in = sign_in(&provider, &oidc, &settings, "mallory@example.com");
    assert_eq!(
        complete(signed_in, &oidc, &settings, Utc::now()),
        Err(SsoError::Claims(ClaimError::EmailUnverified {
            email: "mallory@example.com".to_owned()
        }))
    );
    let signed_in = sign_in(&provider, &oidc, &settings, "olga@example.org");
    assert_eq!(
        complete(signed_in, &oidc, &settings, Utc::now()),
        Err(SsoError::Claims(ClaimError::DomainNotAllowed {
            email: "olga@example.org".to_owned()
        }))
    );
}

#[test]
fn a_provider_on_a_non_public_address_is_not_contacted_by_default() {
    let Some(provider) = provider() else { return };
    let public_only = OidcClient::new(OidcConfig::default()).unwrap();
    let issuer = IssuerUrl::parse(&provider.issuer(), IssuerAddresses::Any).unwrap();
    let refused = public_only.discover(&issuer).unwrap_err();
    assert!(
        matches!(refused, ProviderError::AddressNotAllowed { .. }),
        "{refused:?}"
    );
    assert!(refused.to_string().contains("loopback"), "{refused}");
}

#[test]
fn an_issuer_the_provider_does_not_claim_is_refused() {
    let Some(provider) = provider() else { return };
    let other_spelling = provider.issuer().replace("127.0.0.1", "localhost");
    let issuer = IssuerUrl::parse(&other_spelling, IssuerAddresses::Any).unwrap();
    let refused = oidc().discover(&issuer).unwrap_err();
    assert!(
        matches!(refused, ProviderError::IssuerMismatch { .. }),
        "{refused:?}"
    );
}

/// Base64url without padding.
fn b64(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

/// A base64url part decoded to text.
fn decode(part: &str) -> String {
    use base64::Engine as _;
    String::from_utf8(
        base64::engine::general_purpose::URL_SAFE_NO_PAD
            .decode(part)
            .unwrap(),
    )
    .unwrap()
}
