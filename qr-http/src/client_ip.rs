//! The client's address: the socket peer, or behind a trusted proxy the right-most untrusted `X-Forwarded-For` entry.

use std::net::{IpAddr, SocketAddr};

use hyper::HeaderMap;
use qr_domain::accounts::access::{IpRule, canonical};

/// Most `X-Forwarded-For` entries examined (a longer chain is cut at the left).
const MAX_HOPS: usize = 32;

/// The configured trusted proxies.
#[derive(Debug, Clone, Default)]
pub(crate) struct TrustedProxies(Vec<IpRule>);

impl TrustedProxies {
    /// Parses CIDRs or single addresses.
    pub(crate) fn parse(rules: &[String]) -> Result<Self, String> {
        rules
            .iter()
            .flat_map(|r| r.split(','))
            .map(str::trim)
            .filter(|r| !r.is_empty())
            .map(|r| IpRule::parse(r).map_err(|e| format!("trusted proxy: {e}")))
            .collect::<Result<Vec<_>, _>>()
            .map(Self)
    }

    /// Whether `ip` is a trusted proxy.
    pub(crate) fn trusts(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|rule| rule.contains(ip))
    }

    /// The client address of a request from `peer`.
    ///
    /// Only when the peer is a trusted proxy is `X-Forwarded-For` read (all its header lines,
    /// in order): the right-most entry that is not itself a trusted proxy is the client; when
    /// every entry is trusted, the left-most is. A malformed entry on the way makes the
    /// address unknown (`None`), which an IP allowlist refuses.
    pub(crate) fn client_ip(&self, peer: SocketAddr, headers: &HeaderMap) -> Option<IpAddr> {
        let peer_ip = canonical(peer.ip());
        if !self.trusts(peer_ip) {
            return Some(peer_ip);
        }
        let mut entries: Vec<&str> = Vec::new();
        for value in headers.get_all("x-forwarded-for") {
            let Ok(text) = value.to_str() else {
                return None;
            };
            entries.extend(text.split(',').map(str::trim));
        }
        if entries.is_empty() {
            return Some(peer_ip);
        }
        let start = entries.len().saturating_sub(MAX_HOPS);
        let mut leftmost = None;
        for entry in entries[start..].iter().rev() {
            let ip = canonical(parse_entry(entry)?);
            if !self.trusts(ip) {
                return Some(ip);
            }
            leftmost = Some(ip);
        }
        leftmost
    }
}

/// An address, optionally with a port (`1.2.3.4:80`, `[2001:db8::1]:80`).
fn parse_entry(entry: &str) -> Option<IpAddr> {
    entry
        .parse::<IpAddr>()
        .ok()
        .or_else(|| entry.parse::<SocketAddr>().ok().map(|s| s.ip()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    fn client(trusted: &[&str], peer: &str, xff: &[&str]) -> Option<IpAddr> {
        let proxies =
            TrustedProxies::parse(&trusted.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                .unwrap();
        let mut headers = HeaderMap::new();
        for v in xff {
            headers.append("x-forwarded-for", HeaderValue::from_str(v).unwrap());
        }
        proxies.client_ip(SocketAddr::new(ip(peer), 1234), &headers)
    }

    #[test]
    fn forwarded_for_is_read_only_from_trusted_proxies() {
        assert_eq!(
            client(&[], "203.0.113.9", &["1.2.3.4"]),
            Some(ip("203.0.113.9"))
        );
        assert_eq!(
            client(&["10.0.0.0/8"], "10.0.0.1", &[]),
            Some(ip("10.0.0.1"))
        );
        assert_eq!(
            client(&["10.0.0.0/8"], "10.0.0.1", &["6.6.6.6, 1.2.3.4, 10.0.0.7"]),
            Some(ip("1.2.3.4"))
        );
        assert_eq!(
            client(&["10.0.0.0/8"], "10.0.0.1", &["6.6.6.6", "1.2.3.4:555"]),
            Some(ip("1.2.3.4"))
        );
        assert_eq!(
            client(&["10.0.0.0/8"], "10.0.0.1", &["10.1.1.1, 10.2.2.2"]),
            Some(ip("10.1.1.1"))
        );
        assert_eq!(
            client(&["10.0.0.0/8"], "10.0.0.1", &["1.2.3.4, junk"]),
            None
        );
        assert_eq!(
            client(&["127.0.0.1"], "::ffff:127.0.0.1", &["[2001:db8::1]:80"]),
            Some(ip("2001:db8::1"))
        );
        assert!(TrustedProxies::parse(&["not-a-cidr".to_owned()]).is_err());
    }
}
