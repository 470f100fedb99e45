//! A customer's domain: its name, the token its owner publishes in DNS, where verification stands (pending, verified, failing, with the reason and the next background check), and its settings (root and not-found addresses, app association files, the app schemes its links' rules may target).

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use crate::domains::name::DomainName;
use crate::ids::{AccountId, DomainId};
use crate::links::campaign::{AppScheme, DomainUnusable};
use crate::links::link::TargetUrl;
use crate::random::{self, RandomError};

/// How long a verified domain whose record disappeared keeps accepting new links: long enough
/// for a DNS change gone wrong to be noticed and fixed (a week of hourly checks), short enough
/// that a domain its owner gave up stops growing.
pub const FAILING_GRACE: Duration = Duration::days(7);
/// Characters of a verification token: 26 Crockford base32 characters are 130 random bits.
pub const TOKEN_CHARS: usize = 26;
/// What the TXT record's value starts with, before the token.
pub const TXT_PREFIX: &str = "qr-verify=";

/// A domain of an account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Domain {
    /// Its id.
    pub id: DomainId,
    /// The owning account.
    pub account_id: AccountId,
    /// The name, in its ASCII form.
    pub name: DomainName,
    /// The random token the TXT record must hold (published in DNS, so not a secret).
    pub token: VerificationToken,
    /// When it was added.
    pub created_at: DateTime<Utc>,
    /// Where verification stands.
    pub verification: Verification,
    /// Its settings.
    pub settings: DomainSettings,
}

/// A verification token: [`TOKEN_CHARS`] Crockford base32 characters.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(transparent)]
pub struct VerificationToken(String);

impl VerificationToken {
    /// A fresh token from the OS CSPRNG.
    pub fn random() -> Result<Self, RandomError> {
        const CROCKFORD: &[u8; 32] = b"0123456789abcdefghjkmnpqrstvwxyz";
        let raw: [u8; TOKEN_CHARS] = random::bytes()?;
        Ok(Self(
            raw.iter()
                .map(|b| char::from(CROCKFORD[usize::from(b & 31)]))
                .collect(),
        ))
    }

    /// A token read back from storage.
    pub fn from_stored(text: String) -> Self {
        Self(text)
    }

    /// The token.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The TXT record's value: `qr-verify=<token>`.
    pub fn txt_value(&self) -> String {
        format!("{TXT_PREFIX}{}", self.0)
    }
}

/// The state of a domain's ownership proof.
#[derive(Debug, Clone, PartialEq, Eq, Copy, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DomainStatus {
    /// Never verified yet.
    Pending,
    /// The record was found at the last check.
    Verified,
    /// Verified once, but the record was missing at the last check.
    Failing,
}

/// What one look at the TXT record found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "camelCase")]
pub enum CheckOutcome {
    /// A TXT record holds the token.
    Verified,
    /// The name exists but has no TXT record starting with `qr-verify=`.
    NoRecord,
    /// A `qr-verify=` record exists with another token.
    WrongValue,
    /// `_qr-verify.<domain>` does not exist.
    NxDomain,
    /// The nameserver did not answer in time.
    Timeout,
    /// Another DNS failure, described.
    Failed {
        /// What went wrong.
        reason: String,
    },
}

impl CheckOutcome {
    /// The sentence shown beside a failing or pending domain.
    pub fn reason(&self, record_name: &str, value: &str) -> Option<String> {
        match self {
            CheckOutcome::Verified => None,
            CheckOutcome::NoRecord => Some(format!(
                "no TXT record at {record_name}: create one with the value {value}"
            )),
            CheckOutcome::WrongValue => Some(format!(
                "the TXT record at {record_name} holds another value: set it to {value}"
            )),
            CheckOutcome::NxDomain => Some(format!(
                "{record_name} does not exist (NXDOMAIN): create a TXT record there with the value {value}"
            )),
            CheckOutcome::Timeout => Some(
                "the domain's DNS servers did not answer in time; it will be checked again"
                    .to_owned(),
            ),
            CheckOutcome::Failed { reason } => Some(format!("the DNS lookup failed: {reason}")),
        }
    }
}

/// One check of the TXT record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckRecord {
    /// When it ran.
    pub at: DateTime<Utc>,
    /// What it found.
    pub outcome: CheckOutcome,
}

/// Whether the domain's address records lead to the service.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "camelCase")]
pub enum Routing {
    /// A CNAME in its chain names the expected host, or its addresses are among the expected
    /// host's.
    PointsAtService,
    /// It resolves, elsewhere: what it resolves to, for the customer to compare.
    PointsElsewhere {
        /// The CNAME targets and addresses found.
        found: Vec<String>,
    },
    /// It has no address records.
    NoAddress,
    /// The lookup failed (NXDOMAIN, a timeout, ...), described.
    Unknown {
        /// What went wrong.
        reason: String,
    },
}

/// Where the ownership proof of a domain stands.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Verification {
    /// When it was first verified; never cleared, so its printed codes keep redirecting.
    pub verified_at: Option<DateTime<Utc>>,
    /// Since when a verified domain's record has been missing (`None` while it is found).
    pub failing_since: Option<DateTime<Utc>>,
    /// The latest check.
    pub last_check: Option<CheckRecord>,
    /// When the background checker looks next (`None`: only when asked).
    pub next_check_at: Option<DateTime<Utc>>,
    /// Where its address records lead, as of the latest check.
    pub routing: Option<Routing>,
}

impl Domain {
    /// Pending, verified or failing.
    pub fn status(&self) -> DomainStatus {
        match (
            self.verification.verified_at,
            self.verification.failing_since,
        ) {
            (None, _) => DomainStatus::Pending,
            (Some(_), None) => DomainStatus::Verified,
            (Some(_), Some(_)) => DomainStatus::Failing,
        }
    }

    /// Whether new links may be put on it at `now`: verified, or failing for less than
    /// [`FAILING_GRACE`].
    pub fn accepts_links(&self, now: DateTime<Utc>) -> bool {
        match self.status() {
            DomainStatus::Pending => false,
            DomainStatus::Verified => true,
            DomainStatus::Failing => self
                .verification
                .failing_since
                .is_some_and(|since| now < since + FAILING_GRACE),
        }
    }

    /// Why new links cannot be put on it at `now`, or `None` when they can: never verified, or
    /// its record missing for longer than [`FAILING_GRACE`]. (An unknown name is the caller's
    /// [`DomainUnusable::Unknown`].)
    pub fn refuses_links(&self, now: DateTime<Utc>) -> Option<DomainUnusable> {
        if self.accepts_links(now) {
            None
        } else if self.status() == DomainStatus::Pending {
            Some(DomainUnusable::Pending)
        } else {
            Some(DomainUnusable::Failing)
        }
    }

    /// Whether requests for it are served (its codes redirect, its root and files answer, a
    /// TLS certificate may be issued): once verified, for as long as it exists, because a
    /// printed code never silently dies.
    pub fn serves_requests(&self) -> bool {
        self.verification.verified_at.is_some()
    }

    /// The reason shown for a pending or failing domain (none when verified).
    pub fn reason(&self) -> Option<String> {
        let check = self.verification.last_check.as_ref()?;
        check
            .outcome
            .reason(&self.name.verification_name(), &self.token.txt_value())
    }
}

/// A domain's settings, changed by `PUT /api/domains`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DomainSettings {
    /// Where `https://<domain>/` redirects (else a neutral page).
    pub root_url: Option<TargetUrl>,
    /// Where unknown codes redirect (else a neutral 404 page).
    pub not_found_url: Option<TargetUrl>,
    /// `/.well-known/apple-app-site-association`, validated JSON.
    pub apple_app_site_association: Option<AppFile>,
    /// `/.well-known/assetlinks.json`, validated JSON.
    pub assetlinks: Option<AppFile>,
    /// The custom schemes its links' rules may target (`brandapp` for `brandapp://…`), at most
    /// [`crate::links::campaign::target::MAX_APP_SCHEMES`]; absent from settings stored before
    /// it existed, which read as none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub app_schemes: Vec<AppScheme>,
}

/// The most bytes of an app association file: Apple's CDN refuses files over 128 KB.
pub const MAX_APP_FILE_BYTES: usize = 128 * 1024;

/// An app association file's JSON text, checked to be a JSON document of the expected shape
/// (an object for Apple's, an array for Android's) and at most [`MAX_APP_FILE_BYTES`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct AppFile(String);

impl AppFile {
    /// Apple's `apple-app-site-association`: a JSON object.
    pub fn apple(text: &str) -> Result<Self, AppFileError> {
        Self::check(text, serde_json::Value::is_object, "a JSON object")
    }

    /// Android's `assetlinks.json`: a JSON array of statements.
    pub fn android(text: &str) -> Result<Self, AppFileError> {
        Self::check(text, serde_json::Value::is_array, "a JSON array")
    }

    fn check(
        text: &str,
        shape: fn(&serde_json::Value) -> bool,
        expected: &'static str,
    ) -> Result<Self, AppFileError> {
        if text.len() > MAX_APP_FILE_BYTES {
            return Err(AppFileError::TooLarge);
        }
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| AppFileError::NotJson(e.to_string()))?;
        if !shape(&value) {
            return Err(AppFileError::WrongShape(expected));
        }
        Ok(Self(text.to_owned()))
    }

    /// The JSON text as served.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why an app association file is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AppFileError {
    /// Over [`MAX_APP_FILE_BYTES`].
    #[error("an app association file has at most 131072 bytes")]
    TooLarge,
    /// Not JSON.
    #[error("an app association file must be JSON: {0}")]
    NotJson(String),
    /// JSON of another shape.
    #[error("this app association file must be {0}")]
    WrongShape(&'static str),
}

/// The background checker's schedule: every minute in the first hour after the domain was
/// added (people create the record while the page is open), then hourly; a domain never
/// verified is given up a week after it was added (checked again only when asked), a verified
/// one is checked hourly for as long as it exists, so a record that disappears is noticed.
pub fn next_check(domain: &Domain, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let age = now - domain.created_at;
    if domain.verification.verified_at.is_none() && age >= Duration::days(7) {
        return None;
    }
    if domain.verification.verified_at.is_none() && age < Duration::hours(1) {
        return Some(now + Duration::minutes(1));
    }
    Some(now + Duration::hours(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn domain(created_at: DateTime<Utc>) -> Domain {
        Domain {
            id: DomainId::random(),
            account_id: AccountId::random(),
            name: DomainName::parse_any("go.brand.test").unwrap(),
            token: VerificationToken::random().unwrap(),
            created_at,
            verification: Verification::default(),
            settings: DomainSettings::default(),
        }
    }

    #[test]
    fn tokens_are_long_random_and_lower_case() {
        let token = VerificationToken::random().unwrap();
        assert_eq!(token.as_str().len(), TOKEN_CHARS);
        assert!(
            token
                .as_str()
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase())
        );
        assert_ne!(token, VerificationToken::random().unwrap());
        assert!(token.txt_value().starts_with("qr-verify="));
    }

    #[test]
    fn a_failing_domain_accepts_links_for_seven_days_and_serves_forever() {
        let t0 = "2026-01-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap();
        let mut d = domain(t0);
        assert_eq!(d.status(), DomainStatus::Pending);
        assert!(!d.accepts_links(t0) && !d.serves_requests());
        assert_eq!(d.refuses_links(t0), Some(DomainUnusable::Pending));
        d.verification.verified_at = Some(t0);
        assert_eq!(d.status(), DomainStatus::Verified);
        assert!(d.accepts_links(t0) && d.serves_requests());
        assert_eq!(d.refuses_links(t0), None);
        d.verification.failing_since = Some(t0);
        assert_eq!(d.status(), DomainStatus::Failing);
        assert!(d.accepts_links(t0 + Duration::days(7) - Duration::seconds(1)));
        assert_eq!(
            d.refuses_links(t0 + Duration::days(7) - Duration::seconds(1)),
            None
        );
        assert!(!d.accepts_links(t0 + Duration::days(7)));
        assert_eq!(
            d.refuses_links(t0 + Duration::days(7)),
            Some(DomainUnusable::Failing)
        );
        assert!(d.serves_requests());
    }

    #[test]
    fn checks_run_every_minute_then_hourly_and_pending_ones_stop_after_a_week() {
        let t0 = "2026-01-01T00:00:00Z".parse::<DateTime<Utc>>().unwrap();
        let mut d = domain(t0);
        let at = |m: i64| t0 + Duration::minutes(m);
        assert_eq!(next_check(&d, at(10)), Some(at(11)));
        assert_eq!(next_check(&d, at(60)), Some(at(120)));
        assert_eq!(next_check(&d, t0 + Duration::days(7)), None);
        d.verification.verified_at = Some(at(5));
        assert_eq!(next_check(&d, at(10)), Some(at(70)));
        assert_eq!(
            next_check(&d, t0 + Duration::days(30)),
            Some(t0 + Duration::days(30) + Duration::hours(1))
        );
    }

    #[test]
    fn app_files_are_bounded_json_of_their_shape() {
        assert!(AppFile::apple(r#"{"applinks":{"details":[]}}"#).is_ok());
        assert_eq!(
            AppFile::apple("[]"),
            Err(AppFileError::WrongShape("a JSON object"))
        );
        assert!(AppFile::android(r#"[{"relation":[],"target":{}}]"#).is_ok());
        assert!(matches!(
            AppFile::android("{"),
            Err(AppFileError::NotJson(_))
        ));
        let big = format!("[\"{}\"]", "a".repeat(MAX_APP_FILE_BYTES));
        assert_eq!(AppFile::android(&big), Err(AppFileError::TooLarge));
    }
}
