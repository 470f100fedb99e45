//! The rules an ID token's claims must meet once its signature is verified (OpenID Connect Core 1.0 §3.1.3.7), and the identity that comes out: a verified e-mail address in one of the workspace's domains.

use chrono::{DateTime, Duration, Utc};
use thiserror::Error;

use super::attempt::Nonce;
use super::settings::{ClientId, EmailDomains};
use crate::accounts::account::Email;
use crate::random;

/// How far the provider's clock may be from ours: 60 s either way, as most OpenID client
/// libraries allow; servers kept by NTP are within a second, a minute covers a poorly kept one
/// without making an expired token usable for long.
pub const CLOCK_LEEWAY: Duration = Duration::seconds(60);

/// The claims of an ID token whose signature the adapter verified, not yet checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdTokenClaims {
    /// `iss`.
    pub issuer: String,
    /// `aud`: one value or several.
    pub audiences: Vec<String>,
    /// `azp`, the party the token was issued to.
    pub authorized_party: Option<String>,
    /// `sub`, the person's identifier at the provider (stable, unlike the e-mail address).
    pub subject: String,
    /// `exp`.
    pub expires_at: DateTime<Utc>,
    /// `iat`.
    pub issued_at: DateTime<Utc>,
    /// `nonce`.
    pub nonce: Option<String>,
    /// `email`.
    pub email: Option<String>,
    /// `email_verified`.
    pub email_verified: Option<bool>,
}

/// What the claims must say.
#[derive(Debug, Clone, Copy)]
pub struct ClaimExpectations<'a> {
    /// The provider's issuer as its metadata spells it.
    pub issuer: &'a str,
    /// This service's client id.
    pub client_id: &'a ClientId,
    /// The attempt's nonce.
    pub nonce: &'a Nonce,
    /// The time of the check.
    pub now: DateTime<Utc>,
}

/// A person the provider vouched for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifiedIdentity {
    /// The provider's issuer.
    pub issuer: String,
    /// The person's identifier there: with the issuer, what a user should be linked by.
    pub subject: String,
    /// Their e-mail address, verified by the provider and in an allowed domain.
    pub email: Email,
}

/// Why genuine claims were refused; `Display` is the message a person sees.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ClaimError {
    /// `iss` is not the provider.
    #[error("the ID token was issued by {found:?}, not by the configured provider {expected:?}")]
    WrongIssuer {
        /// The provider's issuer.
        expected: String,
        /// The token's `iss`.
        found: String,
    },
    /// `aud` does not name this service's client id.
    #[error("the ID token was issued to another application (its audience is not {client_id:?})")]
    WrongAudience {
        /// This service's client id.
        client_id: String,
    },
    /// Several audiences and no `azp` naming which one it was issued to.
    #[error("the ID token has several audiences and no authorized party (azp)")]
    AuthorizedPartyMissing,
    /// `azp` names another client.
    #[error("the ID token was issued to another application (azp {found:?})")]
    AuthorizedPartyMismatch {
        /// The token's `azp`.
        found: String,
    },
    /// `exp` is more than [`CLOCK_LEEWAY`] past.
    #[error("the ID token expired at {at}")]
    Expired {
        /// Its `exp`.
        at: DateTime<Utc>,
    },
    /// `iat` is more than [`CLOCK_LEEWAY`] ahead.
    #[error("the ID token was issued in the future ({at}); check the server's clock")]
    IssuedInFuture {
        /// Its `iat`.
        at: DateTime<Utc>,
    },
    /// `nonce` is missing or not this attempt's: a token of another sign-in.
    #[error("the ID token does not belong to this sign-in (nonce mismatch); start again")]
    NonceMismatch,
    /// `sub` is empty.
    #[error("the ID token names no subject")]
    SubjectMissing,
    /// No `email` claim.
    #[error("the identity provider sent no e-mail address; it must release the email scope")]
    EmailMissing,
    /// `email` is not an address.
    #[error("the identity provider sent an invalid e-mail address")]
    EmailInvalid,
    /// `email_verified` is not `true`.
    #[error("the identity provider has not verified the e-mail address {email}")]
    EmailUnverified {
        /// The address.
        email: String,
    },
    /// The address's domain is not one of the workspace's.
    #[error("{email} is not in one of this workspace's e-mail domains")]
    DomainNotAllowed {
        /// The address.
        email: String,
    },
}

/// Checks verified claims against what the attempt expects and the workspace allows, in the
/// order OpenID Connect Core §3.1.3.7 lists: issuer, audience, authorized party, expiry, issue
/// time, nonce; then the person: a subject, and an e-mail address the provider verified
/// (`email_verified` must be `true`, since an unverified address is anyone's claim) in an
/// allowed domain.
pub fn check_claims(
    claims: &IdTokenClaims,
    expected: &ClaimExpectations<'_>,
    allowed: &EmailDomains,
) -> Result<VerifiedIdentity, ClaimError> {
    if claims.issuer != expected.issuer {
        return Err(ClaimError::WrongIssuer {
            expected: expected.issuer.to_owned(),
            found: claims.issuer.clone(),
        });
    }
    let client_id = expected.client_id.as_str();
    if !claims.audiences.iter().any(|aud| aud == client_id) {
        return Err(ClaimError::WrongAudience {
            client_id: client_id.to_owned(),
        });
    }
    match claims.authorized_party.as_deref() {
        Some(azp) if azp != client_id => {
            return Err(ClaimError::AuthorizedPartyMismatch {
                found: azp.to_owned(),
            });
        }
        None if claims.audiences.len() > 1 => return Err(ClaimError::AuthorizedPartyMissing),
        _ => {}
    }
    if expected.now > claims.expires_at + CLOCK_LEEWAY {
        return Err(ClaimError::Expired {
            at: claims.expires_at,
        });
    }
    if claims.issued_at > expected.now + CLOCK_LEEWAY {
        return Err(ClaimError::IssuedInFuture {
            at: claims.issued_at,
        });
    }
    let nonce_matches = claims.nonce.as_deref().is_some_and(|nonce| {
        random::constant_time_eq(nonce.as_bytes(), expected.nonce.as_str().as_bytes())
    });
    if !nonce_matches {
        return Err(ClaimError::NonceMismatch);
    }
    if claims.subject.trim().is_empty() {
        return Err(ClaimError::SubjectMissing);
    }
    let raw_email = claims.email.as_deref().ok_or(ClaimError::EmailMissing)?;
    let email = Email::parse(raw_email).map_err(|_| ClaimError::EmailInvalid)?;
    if claims.email_verified != Some(true) {
        return Err(ClaimError::EmailUnverified {
            email: email.as_str().to_owned(),
        });
    }
    if !allowed.allows(email.as_str()) {
        return Err(ClaimError::DomainNotAllowed {
            email: email.as_str().to_owned(),
        });
    }
    Ok(VerifiedIdentity {
        issuer: claims.issuer.clone(),
        subject: claims.subject.clone(),
        email,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ISSUER: &str = "https://id.example";
    const NONCE: &str = "n0nce-n0nce-n0nce-n0nce-n0nce-n0nce-n0nce-n0";

    fn at(seconds: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + seconds, 0).unwrap()
    }

    fn claims() -> IdTokenClaims {
        IdTokenClaims {
            issuer: ISSUER.to_owned(),
            audiences: vec!["qr-app".to_owned()],
            authorized_party: None,
            subject: "248289761001".to_owned(),
            expires_at: at(300),
            issued_at: at(0),
            nonce: Some(NONCE.to_owned()),
            email: Some("jane@example.com".to_owned()),
            email_verified: Some(true),
        }
    }

    fn check(claims: &IdTokenClaims, now: DateTime<Utc>) -> Result<VerifiedIdentity, ClaimError> {
        let client_id = ClientId::parse("qr-app").unwrap();
        let nonce = Nonce::from_stored(NONCE).unwrap();
        let expected = ClaimExpectations {
            issuer: ISSUER,
            client_id: &client_id,
            nonce: &nonce,
            now,
        };
        check_claims(
            claims,
            &expected,
            &EmailDomains::parse_list("example.com").unwrap(),
        )
    }

    /// `claims()` changed by `change`, checked at `at(10)`.
    fn refusal(change: impl FnOnce(&mut IdTokenClaims)) -> ClaimError {
        let mut claims = claims();
        change(&mut claims);
        check(&claims, at(10)).unwrap_err()
    }

    #[test]
    fn good_claims_give_the_identity() {
        let identity = check(&claims(), at(10)).unwrap();
        assert_eq!(identity.issuer, ISSUER);
        assert_eq!(identity.subject, "248289761001");
        assert_eq!(identity.email.as_str(), "jane@example.com");
    }

    #[test]
    fn the_issuer_must_be_the_provider() {
        assert_eq!(
            refusal(|c| c.issuer = "https://id.example/".to_owned()),
            ClaimError::WrongIssuer {
                expected: ISSUER.to_owned(),
                found: "https://id.example/".to_owned()
            }
        );
    }

    #[test]
    fn the_audience_must_name_the_client() {
        let wrong = ClaimError::WrongAudience {
            client_id: "qr-app".to_owned(),
        };
        assert_eq!(
            refusal(|c| c.audiences = vec!["other-app".to_owned()]),
            wrong
        );
        assert_eq!(refusal(|c| c.audiences.clear()), wrong);
        assert_eq!(
            refusal(|c| c.audiences = vec!["qr-app-2".to_owned()]),
            wrong
        );
    }

    #[test]
    fn several_audiences_need_an_azp_naming_the_client() {
        let both = || vec!["qr-app".to_owned(), "api.example".to_owned()];
        assert_eq!(
            refusal(|c| c.audiences = both()),
            ClaimError::AuthorizedPartyMissing
        );
        assert_eq!(
            refusal(|c| {
                c.audiences = both();
                c.authorized_party = Some("api.example".to_owned());
            }),
            ClaimError::AuthorizedPartyMismatch {
                found: "api.example".to_owned()
            }
        );
        let mut accepted = claims();
        accepted.audiences = both();
        accepted.authorized_party = Some("qr-app".to_owned());
        assert!(check(&accepted, at(10)).is_ok());
        // One audience: an azp, when present, must still be the client.
        assert!(matches!(
            refusal(|c| c.authorized_party = Some("other".to_owned())),
            ClaimError::AuthorizedPartyMismatch { .. }
        ));
    }

    #[test]
    fn expiry_and_issue_time_allow_sixty_seconds_of_clock_skew() {
        assert!(check(&claims(), at(360)).is_ok());
        assert_eq!(
            check(&claims(), at(361)).unwrap_err(),
            ClaimError::Expired { at: at(300) }
        );
        assert!(check(&claims(), at(-60)).is_ok());
        assert_eq!(
            check(&claims(), at(-61)).unwrap_err(),
            ClaimError::IssuedInFuture { at: at(0) }
        );
    }

    #[test]
    fn the_nonce_must_be_the_attempts() {
        assert_eq!(refusal(|c| c.nonce = None), ClaimError::NonceMismatch);
        assert_eq!(
            refusal(|c| c.nonce = Some(format!("{NONCE}x"))),
            ClaimError::NonceMismatch
        );
        assert_eq!(
            refusal(|c| c.nonce = Some(String::new())),
            ClaimError::NonceMismatch
        );
    }

    #[test]
    fn the_person_needs_a_subject_and_a_verified_address_in_an_allowed_domain() {
        assert_eq!(
            refusal(|c| c.subject = " ".to_owned()),
            ClaimError::SubjectMissing
        );
        assert_eq!(refusal(|c| c.email = None), ClaimError::EmailMissing);
        assert_eq!(
            refusal(|c| c.email = Some("not an address".to_owned())),
            ClaimError::EmailInvalid
        );
        let unverified = ClaimError::EmailUnverified {
            email: "jane@example.com".to_owned(),
        };
        assert_eq!(refusal(|c| c.email_verified = None), unverified);
        assert_eq!(refusal(|c| c.email_verified = Some(false)), unverified);
        assert_eq!(
            refusal(|c| c.email = Some("jane@example.org".to_owned())),
            ClaimError::DomainNotAllowed {
                email: "jane@example.org".to_owned()
            }
        );
        assert!(matches!(
            refusal(|c| c.email = Some("jane@mail.example.com".to_owned())),
            ClaimError::DomainNotAllowed { .. }
        ));
    }

    #[test]
    fn messages_say_what_went_wrong() {
        assert!(ClaimError::NonceMismatch.to_string().contains("nonce"));
        assert!(
            ClaimError::WrongAudience {
                client_id: "qr-app".to_owned()
            }
            .to_string()
            .contains("another application")
        );
    }
}
