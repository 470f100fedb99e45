//! Whether an IP address is publicly routable, and if not, why: the one classification behind every address the service itself connects to (logo URLs, webhook endpoints), so a customer cannot make the server reach its own loopback, the operator's private network or a cloud metadata service.

use std::fmt;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Why an address is not public: what a refusal names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NonPublic {
    /// `0.0.0.0/8` ("this network") or `::`.
    Unspecified,
    /// `127.0.0.0/8` or `::1`.
    Loopback,
    /// RFC 1918 (`10/8`, `172.16/12`, `192.168/16`) or IPv6 unique local (`fc00::/7`).
    Private,
    /// `100.64.0.0/10`, the carrier-grade NAT space (RFC 6598): inside a provider's network.
    SharedAddressSpace,
    /// `169.254.0.0/16` or `fe80::/10`.
    LinkLocal,
    /// A cloud's instance metadata service, which hands out credentials to whoever asks from
    /// the machine: `169.254.169.254` (AWS, GCP, Azure, OpenStack), `169.254.170.2` (AWS ECS),
    /// `fd00:ec2::254` (AWS over IPv6) and `100.100.100.200` (Alibaba Cloud).
    CloudMetadata,
    /// `224.0.0.0/4` or `ff00::/8`.
    Multicast,
    /// `192.0.2/24`, `198.51.100/24`, `203.0.113/24` or `2001:db8::/32`: examples, never hosts.
    Documentation,
    /// Reserved for protocols, benchmarking or the future (`192.0.0/24`, `192.88.99/24`,
    /// `198.18/15`, `240/4`, broadcast, Teredo `2001::/32`, and IPv6 outside `2000::/3`).
    Reserved,
}

impl NonPublic {
    /// Why `ip` is not public, or `None` when it is. IPv6 forms that carry an IPv4 address
    /// (mapped `::ffff:a.b.c.d`, compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`)
    /// are judged by that IPv4 address, so `::ffff:127.0.0.1` is loopback.
    pub fn of(ip: IpAddr) -> Option<NonPublic> {
        match ip {
            IpAddr::V4(v4) => of_v4(v4),
            IpAddr::V6(v6) => of_v6(v6),
        }
    }

    /// The words a refusal uses: "a loopback address", …
    pub fn describe(self) -> &'static str {
        match self {
            NonPublic::Unspecified => "an unspecified address",
            NonPublic::Loopback => "a loopback address",
            NonPublic::Private => "a private address",
            NonPublic::SharedAddressSpace => "a carrier-grade NAT (shared) address",
            NonPublic::LinkLocal => "a link-local address",
            NonPublic::CloudMetadata => "a cloud metadata address",
            NonPublic::Multicast => "a multicast address",
            NonPublic::Documentation => "a documentation address",
            NonPublic::Reserved => "a reserved address",
        }
    }
}

impl fmt::Display for NonPublic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.describe())
    }
}

/// Whether an address is publicly routable ([`NonPublic::of`] finds no reason against it).
pub fn is_public(ip: IpAddr) -> bool {
    NonPublic::of(ip).is_none()
}

/// The metadata services' IPv4 addresses (see [`NonPublic::CloudMetadata`]).
const METADATA_V4: [Ipv4Addr; 3] = [
    Ipv4Addr::new(169, 254, 169, 254),
    Ipv4Addr::new(169, 254, 170, 2),
    Ipv4Addr::new(100, 100, 100, 200),
];

/// AWS's metadata service over IPv6, `fd00:ec2::254`.
const METADATA_V6: Ipv6Addr = Ipv6Addr::new(0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254);

fn of_v4(ip: Ipv4Addr) -> Option<NonPublic> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        _ if METADATA_V4.contains(&ip) => NonPublic::CloudMetadata,
        (0, _, _) => NonPublic::Unspecified,
        (127, _, _) => NonPublic::Loopback,
        (10, _, _) | (192, 168, _) => NonPublic::Private,
        (172, 16..=31, _) => NonPublic::Private,
        (100, 64..=127, _) => NonPublic::SharedAddressSpace,
        (169, 254, _) => NonPublic::LinkLocal,
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => NonPublic::Documentation,
        (192, 0, 0) | (192, 88, 99) | (198, 18..=19, _) => NonPublic::Reserved,
        (224..=239, _, _) => NonPublic::Multicast,
        (240.., _, _) => NonPublic::Reserved,
        _ => return None,
    })
}

fn of_v6(ip: Ipv6Addr) -> Option<NonPublic> {
    let s = ip.segments();
    let embedded = |hi: usize| {
        Ipv4Addr::new(
            (s[hi] >> 8) as u8,
            s[hi] as u8,
            (s[hi + 1] >> 8) as u8,
            s[hi + 1] as u8,
        )
    };
    if let Some(v4) = ip.to_ipv4_mapped() {
        return of_v4(v4);
    }
    if ip.is_unspecified() {
        return Some(NonPublic::Unspecified);
    }
    if ip.is_loopback() {
        return Some(NonPublic::Loopback);
    }
    if ip == METADATA_V6 {
        return Some(NonPublic::CloudMetadata);
    }
    // IPv4-compatible (::a.b.c.d, deprecated) and the NAT64 prefix 64:ff9b::/96.
    if s[..6] == [0; 6] || s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return of_v4(embedded(6));
    }
    // 6to4 (2002::/16) carries an IPv4 address in its next 32 bits.
    if s[0] == 0x2002 {
        return of_v4(embedded(1));
    }
    Some(match s[0] {
        0xfe80..=0xfebf => NonPublic::LinkLocal,
        0xfc00..=0xfdff => NonPublic::Private,
        0xff00.. => NonPublic::Multicast,
        0x2001 if s[1] == 0xdb8 => NonPublic::Documentation,
        // Teredo tunnels (2001::/32) reach whatever address the relay maps them to.
        0x2001 if s[1] == 0 => NonPublic::Reserved,
        // Global unicast is 2000::/3; everything else is unassigned or special.
        0x2000..=0x3fff => return None,
        _ => NonPublic::Reserved,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(ip: &str) -> Option<NonPublic> {
        NonPublic::of(ip.parse().unwrap())
    }

    #[test]
    fn every_non_public_range_is_named() {
        use NonPublic::*;
        for (ip, expected) in [
            ("0.0.0.0", Unspecified),
            ("0.1.2.3", Unspecified),
            ("::", Unspecified),
            ("127.0.0.1", Loopback),
            ("127.255.0.9", Loopback),
            ("::1", Loopback),
            ("::ffff:127.0.0.1", Loopback),
            ("::127.0.0.1", Loopback),
            ("10.0.0.1", Private),
            ("172.16.5.4", Private),
            ("172.31.255.255", Private),
            ("192.168.1.1", Private),
            ("::ffff:10.0.0.1", Private),
            ("64:ff9b::a00:1", Private),
            ("2002:a00:1::", Private),
            ("fc00::1", Private),
            ("fd12::1", Private),
            ("100.64.0.1", SharedAddressSpace),
            ("100.127.255.255", SharedAddressSpace),
            ("169.254.1.1", LinkLocal),
            ("fe80::1", LinkLocal),
            ("febf::1", LinkLocal),
            ("169.254.169.254", CloudMetadata),
            ("::ffff:169.254.169.254", CloudMetadata),
            ("169.254.170.2", CloudMetadata),
            ("100.100.100.200", CloudMetadata),
            ("fd00:ec2::254", CloudMetadata),
            ("224.0.0.1", Multicast),
            ("239.1.1.1", Multicast),
            ("ff02::1", Multicast),
            ("192.0.2.7", Documentation),
            ("198.51.100.7", Documentation),
            ("203.0.113.7", Documentation),
            ("2001:db8::1", Documentation),
            ("192.0.0.8", Reserved),
            ("192.88.99.1", Reserved),
            ("198.18.0.1", Reserved),
            ("240.0.0.1", Reserved),
            ("255.255.255.255", Reserved),
            ("2001::1", Reserved),
            ("4000::1", Reserved),
        ] {
            assert_eq!(class(ip), Some(expected), "{ip}");
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn public_addresses_pass_next_to_their_ranges() {
        for ip in [
            "93.184.216.34",
            "8.8.8.8",
            "1.1.1.1",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.0.1",
            "172.32.0.1",
            "169.253.1.1",
            "198.20.0.1",
            "223.255.255.255",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "2002:808:808::",
            "2001:4860::8888",
        ] {
            assert_eq!(class(ip), None, "{ip}");
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn refusals_read_as_sentences() {
        assert_eq!(NonPublic::Loopback.to_string(), "a loopback address");
        assert_eq!(
            NonPublic::CloudMetadata.to_string(),
            "a cloud metadata address"
        );
    }
}
