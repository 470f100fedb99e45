//! The throttle of failed authentication per client address: after a burst of 401s, an address's further unknown keys are refused without a lookup until it slows down.

use std::net::{IpAddr, Ipv6Addr};

use chrono::{DateTime, Utc};

use super::cache::BoundedCache;
use crate::access::canonical;
use crate::limit_state::{Gcra, gcra};
use crate::limits::whole_seconds;

/// Failed authentications one address may make at once before it is throttled.
pub const AUTH_FAILURE_BURST: i64 = 20;
/// Then one more failure is allowed every 3 s (20 a minute): a client with a typo in its key
/// sees its 401s long before this, and a script trying keys is slowed to a crawl.
const AUTH_FAILURE_INTERVAL_MICROS: i64 = 3_000_000;
const AUTH_FAILURE_LIMITER: Gcra = Gcra {
    interval: AUTH_FAILURE_INTERVAL_MICROS,
    burst: AUTH_FAILURE_BURST,
};
/// Most addresses tracked; beyond it the throttle starts over (16 bytes + 8 each: 2.4 MB).
const THROTTLE_CACHE_MAX: usize = 100_000;

/// Where failures are counted: an IPv4 address, an IPv6 /64 (one customer's network; a single
/// host can pick any address in it), or "unknown" for requests whose address could not be read.
type Bucket = Option<IpAddr>;

/// GCRA state per address: the theoretical arrival time of the next failure, in microseconds.
pub(super) struct AuthThrottle {
    tats: BoundedCache<Bucket, i64>,
}

impl AuthThrottle {
    pub(super) fn new() -> Self {
        Self {
            tats: BoundedCache::new(THROTTLE_CACHE_MAX),
        }
    }

    /// Seconds the address must wait, if it is throttled now.
    pub(super) fn throttled(&self, client: Option<IpAddr>, now: DateTime<Utc>) -> Option<u64> {
        let now = now.timestamp_micros();
        let tat = self.tats.get(&bucket(client))?;
        gcra(Some(tat), now, AUTH_FAILURE_LIMITER)
            .err()
            .map(whole_seconds)
    }

    /// Counts a failure; the seconds to wait when the address is now throttled.
    pub(super) fn fail(&self, client: Option<IpAddr>, now: DateTime<Utc>) -> Option<u64> {
        let now = now.timestamp_micros();
        self.tats.update(bucket(client), |tat| {
            match gcra(tat.copied(), now, AUTH_FAILURE_LIMITER) {
                Ok(next) => (next, None),
                // Over the budget: the state stays, so waiting is what ends the throttle.
                Err(wait) => (tat.copied().unwrap_or(now), Some(whole_seconds(wait))),
            }
        })
    }
}

fn bucket(client: Option<IpAddr>) -> Bucket {
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
        assert_eq!(throttle.throttled(a, now), Some(3));
        assert_eq!(throttle.fail(a, now), Some(3));
        assert_eq!(throttle.throttled(b, now), None);
        assert_eq!(throttle.throttled(a, now + Duration::seconds(3)), None);
        assert_eq!(throttle.fail(a, now + Duration::seconds(3)), None);
        assert!(throttle.throttled(a, now + Duration::seconds(3)).is_some());
    }

    #[test]
    fn an_ipv6_network_is_one_bucket() {
        let throttle = AuthThrottle::new();
        let now = at("2024-05-01T00:00:00Z");
        for i in 0..AUTH_FAILURE_BURST {
            let ip = format!("2001:db8:1:2::{:x}", i + 1).parse().unwrap();
            throttle.fail(Some(ip), now);
        }
        assert!(
            throttle
                .throttled(Some("2001:db8:1:2:ffff::1".parse().unwrap()), now)
                .is_some()
        );
        assert!(
            throttle
                .throttled(Some("2001:db8:1:3::1".parse().unwrap()), now)
                .is_none()
        );
        // IPv4 written as IPv6 is the IPv4 address.
        let v4 = Some("198.51.100.7".parse().unwrap());
        for _ in 0..AUTH_FAILURE_BURST {
            throttle.fail(v4, now);
        }
        assert!(
            throttle
                .throttled(Some("::ffff:198.51.100.7".parse().unwrap()), now)
                .is_some()
        );
    }
}
