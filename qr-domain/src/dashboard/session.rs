//! Dashboard sessions: the random secret a browser holds, the hash that is stored, the CSRF token derived from the secret, and the idle and absolute lifetimes.

use std::fmt;

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};

use crate::ids::{AccountId, UserId};
use crate::random::{self, RandomError};

/// A session ends after this long without a request (a working day and then some).
pub const SESSION_IDLE: Duration = Duration::hours(12);
/// A session ends this long after the login, however active it is.
pub const SESSION_ABSOLUTE: Duration = Duration::days(7);
/// A session's last-seen time is written at most this often, so page views rarely write.
pub const SESSION_TOUCH_INTERVAL: Duration = Duration::minutes(5);
/// Longest user-agent label kept for a session, in characters.
const MAX_LABEL_CHARS: usize = 60;

/// The secret in a session cookie: 64 hex digits from the OS CSPRNG. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct SessionSecret(String);

/// The SHA-256 of a session secret: the only form in which it is stored.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SessionHash(pub [u8; 32]);

/// A stored session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    /// The hash of the cookie's secret.
    pub hash: SessionHash,
    /// Whose session it is.
    pub user_id: UserId,
    /// The workspace the session shows (the switcher changes it); `None` once that workspace
    /// is gone, and then the user's first workspace is shown.
    pub account_id: Option<AccountId>,
    /// When the user logged in.
    pub created_at: DateTime<Utc>,
    /// The last request seen (written at most every [`SESSION_TOUCH_INTERVAL`]).
    pub last_seen_at: DateTime<Utc>,
    /// A short label of the browser, such as `Firefox on Linux`.
    pub user_agent: String,
}

impl SessionSecret {
    /// A new secret.
    pub fn generate() -> Result<Self, RandomError> {
        random::hex_secret().map(Self)
    }

    /// A secret as a cookie presents it; `None` when it cannot be one (no lookup is made then).
    pub fn parse(raw: &str) -> Option<Self> {
        (raw.len() == 64 && raw.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f')))
            .then(|| Self(raw.to_owned()))
    }

    /// The stored form.
    pub fn hash(&self) -> SessionHash {
        SessionHash(Sha256::digest(self.0.as_bytes()).into())
    }

    /// The session's CSRF token: derived from the secret (so nothing more is stored), and not
    /// the stored hash (so a copy of the database does not give it away). 32 hex digits.
    pub fn csrf_token(&self) -> String {
        csrf_of(&self.0)
    }

    /// Whether a form's token is this session's, compared in constant time.
    pub fn check_csrf(&self, presented: &str) -> bool {
        random::constant_time_eq(self.csrf_token().as_bytes(), presented.as_bytes())
    }

    /// The secret, for the cookie.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

/// The CSRF token bound to any browser secret (a session's, or an anonymous form cookie's).
pub fn csrf_of(secret: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"qr-platform csrf\0");
    h.update(secret.as_bytes());
    random::hex(&h.finalize()[..16])
}

impl fmt::Debug for SessionSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("SessionSecret(…)")
    }
}

impl fmt::Debug for SessionHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "SessionHash({}…)", random::hex(&self.0[..4]))
    }
}

impl Session {
    /// Whether the session has ended by `now` (idle too long, or older than the absolute limit).
    pub fn expired(&self, now: DateTime<Utc>) -> bool {
        now - self.last_seen_at >= SESSION_IDLE || now - self.created_at >= SESSION_ABSOLUTE
    }

    /// Whether the last-seen time is old enough to be written again.
    pub fn needs_touch(&self, now: DateTime<Utc>) -> bool {
        now - self.last_seen_at >= SESSION_TOUCH_INTERVAL
    }
}

/// A short label of a browser for the session list: `Chrome on Android`, or `Unknown browser`.
pub fn user_agent_label(user_agent: Option<&str>) -> String {
    let info = crate::scans::scan::classify_user_agent(user_agent);
    let known = |s: &str| s != crate::scans::scan::UNKNOWN;
    let label = match (known(&info.browser), known(&info.os)) {
        (true, true) => format!("{} on {}", info.browser, info.os),
        (true, false) => info.browser,
        _ => "Unknown browser".to_owned(),
    };
    label.chars().take(MAX_LABEL_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_hash_and_derive_a_csrf_token() {
        let s = SessionSecret::generate().unwrap();
        assert_eq!(SessionSecret::parse(s.expose()), Some(s.clone()));
        assert_eq!(SessionSecret::parse("short"), None);
        assert_eq!(SessionSecret::parse(&s.expose().to_uppercase()), None);
        let csrf = s.csrf_token();
        assert_eq!(csrf.len(), 32);
        assert!(s.check_csrf(&csrf));
        assert!(!s.check_csrf(""));
        assert!(!s.check_csrf(&SessionSecret::generate().unwrap().csrf_token()));
        assert_ne!(random::hex(&s.hash().0)[..32], csrf, "not the stored hash");
        assert_eq!(format!("{s:?}"), "SessionSecret(…)");
    }

    #[test]
    fn lifetimes() {
        let t0: DateTime<Utc> = "2024-05-01T08:00:00Z".parse().unwrap();
        let mut s = Session {
            hash: SessionHash([0; 32]),
            user_id: UserId::random(),
            account_id: Some(AccountId::random()),
            created_at: t0,
            last_seen_at: t0,
            user_agent: String::new(),
        };
        assert!(!s.expired(t0 + Duration::hours(11)));
        assert!(s.expired(t0 + SESSION_IDLE));
        s.last_seen_at = t0 + Duration::days(6) + Duration::hours(23);
        assert!(!s.expired(s.last_seen_at));
        assert!(s.expired(t0 + SESSION_ABSOLUTE), "absolute limit");
        assert!(!s.needs_touch(s.last_seen_at + Duration::minutes(4)));
        assert!(s.needs_touch(s.last_seen_at + Duration::minutes(5)));
    }

    #[test]
    fn user_agent_labels() {
        let firefox = "Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0";
        assert_eq!(user_agent_label(Some(firefox)), "Firefox on Linux");
        assert_eq!(user_agent_label(None), "Unknown browser");
        assert_eq!(user_agent_label(Some("???")), "Unknown browser");
    }
}
