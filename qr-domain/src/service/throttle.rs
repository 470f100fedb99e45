//! Throttles of failures and attempts (GCRA): failed API keys per client address, failed dashboard logins per address and per account, sign-up and e-mail requests per address, and wrong link passwords per link and address.

use std::hash::Hash;
use std::net::{IpAddr, Ipv6Addr};

use chrono::{DateTime, Utc};

use super::cache::BoundedCache;
use crate::accounts::access::canonical;
use crate::accounts::limit_state::{Gcra, gcra};
use crate::accounts::limits::whole_seconds;
use crate::ids::LinkId;

/// Failed authentications one address may make at once before its failures are answered 429.
pub const AUTH_FAILURE_BURST: i64 = 20;
/// Then one more failure is answered 401 every 3 s (20 a minute), the others 429 with the wait:
/// a client with a typo in its key sees its 401s long before this, and a misbehaving client
/// is told to back off. Only failures are slowed: a valid key is looked up and served from any
/// address, throttled or not. Guessing needs no throttle (a key has about 190 random bits);
/// a wrong key costs one indexed lookup, and its repeats none (the answer is cached).
const AUTH_FAILURE_INTERVAL_MICROS: i64 = 3_000_000;
/// Most addresses tracked; beyond it the throttle starts over (16 bytes + 8 each: 2.4 MB).
const THROTTLE_CACHE_MAX: usize = 100_000;

/// Failed dashboard logins one address may make at once, then one every 6 s (10 a minute).
pub const LOGIN_ADDRESS_BURST: i64 = 10;
const LOGIN_ADDRESS_INTERVAL_MICROS: i64 = 6_000_000;
/// Failed logins to one account at once, then one a minute: a guesser gets 1,440 tries a day
/// however many addresses it has, while the owner, after a few typos, waits a minute.
pub const LOGIN_ACCOUNT_BURST: i64 = 5;
const LOGIN_ACCOUNT_INTERVAL_MICROS: i64 = 60_000_000;
/// Sign-ups and e-mail requests (reset, new verification link) one address may make at once,
/// then one every 30 s: each costs a password hash or an e-mail.
pub const FORM_ADDRESS_BURST: i64 = 10;
const FORM_ADDRESS_INTERVAL_MICROS: i64 = 30_000_000;

/// Passkey logins one address may begin at once, then one every 2 s (30 a minute): each keeps a
/// ceremony for five minutes before anyone is known, so this bounds what one address can make
/// the store keep (at most 180 rows) while a person retrying a dismissed prompt never waits.
pub const PASSKEY_START_BURST: i64 = 30;
const PASSKEY_START_INTERVAL_MICROS: i64 = 2_000_000;

/// Wrong passwords of one link from one address at once, then one every 12 s (5 a minute):
/// a visitor with a typo or two never waits, a guesser gets 7,200 tries a day per address.
pub const LINK_PASSWORD_BURST: i64 = 5;
const LINK_PASSWORD_INTERVAL_MICROS: i64 = 12_000_000;

/// Where failures are counted: an IPv4 address, an IPv6 /64 (one customer's network; a single
/// host can pick any address in it), or "unknown" for requests whose address could not be read.
type Bucket = Option<IpAddr>;

/// GCRA state per key: the theoretical arrival time of the next event, in microseconds.
pub(crate) struct Throttle<K> {
    tats: BoundedCache<K, i64>,
    limiter: Gcra,
}

impl<K: Eq + Hash> Throttle<K> {
    fn new(interval_micros: i64, burst: i64) -> Self {
        Self {
            tats: BoundedCache::new(THROTTLE_CACHE_MAX),
            limiter: Gcra {
                interval: interval_micros,
                burst,
            },
        }
    }

    /// Seconds `key` must wait, if it is throttled now.
    pub(crate) fn throttled(&self, key: &K, now: DateTime<Utc>) -> Option<u64> {
        let now = now.timestamp_micros();
        let tat = self.tats.get(key)?;
        gcra(Some(tat), now, self.limiter).err().map(whole_seconds)
    }

    /// Counts an event; the seconds to wait when `key` is now throttled.
    pub(crate) fn count(&self, key: K, now: DateTime<Utc>) -> Option<u64> {
        let now = now.timestamp_micros();
        self.tats.update(key, |tat| {
            match gcra(tat.copied(), now, self.limiter) {
                Ok(next) => (next, None),
                // Over the budget: the state stays, so waiting is what ends the throttle.
                Err(wait) => (tat.copied().unwrap_or(now), Some(whole_seconds(wait))),
            }
        })
    }
}

/// Failed API keys per client address.
pub(crate) struct AuthThrottle(Throttle<Bucket>);

impl AuthThrottle {
    pub(crate) fn new() -> Self {
        Self(Throttle::new(
            AUTH_FAILURE_INTERVAL_MICROS,
            AUTH_FAILURE_BURST,
        ))
    }

    /// Counts a failure; the seconds to wait when the address is now throttled.
    pub(crate) fn fail(&self, client: Option<IpAddr>, now: DateTime<Utc>) -> Option<u64> {
        self.0.count(bucket(client), now)
    }
}

/// Failed dashboard logins per client address and per account (by e-mail lookup key, so an
/// address without an account is throttled like one with), sign-up and e-mail requests per
/// address, and passkey logins begun per address.
pub(crate) struct DashboardThrottles {
    pub(crate) login_address: Throttle<Bucket>,
    pub(crate) login_account: Throttle<String>,
    pub(crate) forms: Throttle<Bucket>,
    pub(crate) passkey_starts: Throttle<Bucket>,
}

impl DashboardThrottles {
    pub(crate) fn new() -> Self {
        Self {
            login_address: Throttle::new(LOGIN_ADDRESS_INTERVAL_MICROS, LOGIN_ADDRESS_BURST),
            login_account: Throttle::new(LOGIN_ACCOUNT_INTERVAL_MICROS, LOGIN_ACCOUNT_BURST),
            forms: Throttle::new(FORM_ADDRESS_INTERVAL_MICROS, FORM_ADDRESS_BURST),
            passkey_starts: Throttle::new(PASSKEY_START_INTERVAL_MICROS, PASSKEY_START_BURST),
        }
    }
}

/// Wrong link passwords per link and client address.
pub(crate) struct LinkPasswordThrottle(Throttle<(LinkId, Bucket)>);

impl LinkPasswordThrottle {
    pub(crate) fn new() -> Self {
        Self(Throttle::new(
            LINK_PASSWORD_INTERVAL_MICROS,
            LINK_PASSWORD_BURST,
        ))
    }

    /// Seconds the address must wait before trying this link's password again, if any.
    pub(crate) fn throttled(
        &self,
        link: LinkId,
        client: Option<IpAddr>,
        now: DateTime<Utc>,
    ) -> Option<u64> {
        self.0.throttled(&(link, bucket(client)), now)
    }

    /// Counts a wrong password; the seconds to wait when the address is now throttled.
    pub(crate) fn fail(
        &self,
        link: LinkId,
        client: Option<IpAddr>,
        now: DateTime<Utc>,
    ) -> Option<u64> {
        self.0.count((link, bucket(client)), now)
    }
}

/// The bucket a client address counts in.
pub(crate) fn bucket(client: Option<IpAddr>) -> Bucket {
    client.map(canonical).map(|ip| match ip {
        IpAddr::V6(v6) => {
            let s = v6.segments();
            IpAddr::V6(Ipv6Addr::new(s[0], s[1], s[2], s[3], 0, 0, 0, 0))
        }
        v4 => v4,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::Duration;

    fn at(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    #[test]
    fn a_burst_then_one_failure_every_three_seconds() {
        let throttle = AuthThrottle::new();
        let now = at("2024-05-01T00:00:00Z");
        let a = Some("192.0.2.1".parse().unwrap());
        let b = Some("192.0.2.2".parse().unwrap());
        for _ in 0..AUTH_FAILURE_BURST {
            assert_eq!(throttle.fail(a, now), None);
        }
        assert_eq!(throttle.fail(a, now), Some(3));
        assert_eq!(
            throttle.fail(a, now),
            Some(3),
            "a refused failure moves nothing"
        );
        assert_eq!(throttle.fail(b, now), None);
        assert_eq!(throttle.fail(a, now + Duration::seconds(3)), None);
        assert!(throttle.fail(a, now + Duration::seconds(3)).is_some());
    }

    #[test]
    fn an_ipv6_network_is_one_bucket() {
        let throttle = AuthThrottle::new();
        let now = at("2024-05-01T00:00:00Z");
        for i in 0..AUTH_FAILURE_BURST {
            let ip = format!("2001:db8:1:2::{:x}", i + 1).parse().unwrap();
            assert_eq!(throttle.fail(Some(ip), now), None);
        }
        assert!(
            throttle
                .fail(Some("2001:db8:1:2:ffff::1".parse().unwrap()), now)
                .is_some()
        );
        assert!(
            throttle
                .fail(Some("2001:db8:1:3::1".parse().unwrap()), now)
                .is_none()
        );
        // IPv4 written as IPv6 is the IPv4 address.
        let v4 = Some("198.51.100.7".parse().unwrap());
        for _ in 0..AUTH_FAILURE_BURST {
            assert_eq!(throttle.fail(v4, now), None);
        }
        assert!(
            throttle
                .fail(Some("::ffff:198.51.100.7".parse().unwrap()), now)
                .is_some()
        );
    }
}
