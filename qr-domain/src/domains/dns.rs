//! What the domain needs from DNS to prove a customer owns a domain and to see where it points: TXT records and address records of a name, behind a trait so the resolver (hickory, in `qr-dns`) and its nameserver stay outside the rules.

use std::fmt;
use std::net::IpAddr;

/// Why a DNS question got no usable answer.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DnsFailure {
    /// The name does not exist (NXDOMAIN).
    NxDomain,
    /// No answer within the resolver's time limit (every nameserver tried).
    Timeout,
    /// Any other failure (SERVFAIL, REFUSED, a malformed answer, no nameserver reachable),
    /// described for the customer; never contains secrets.
    Failed(String),
}

impl fmt::Display for DnsFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DnsFailure::NxDomain => f.write_str("the name does not exist (NXDOMAIN)"),
            DnsFailure::Timeout => f.write_str("the DNS server did not answer in time"),
            DnsFailure::Failed(why) => write!(f, "the DNS lookup failed: {why}"),
        }
    }
}

/// Where a name points: the canonical names followed (in order, empty when the name has its
/// own address records) and the addresses at the end of the chain.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostRecords {
    /// The CNAME chain, each target lower-cased without its final dot.
    pub cnames: Vec<String>,
    /// The A and AAAA addresses.
    pub addresses: Vec<IpAddr>,
}

/// A DNS client. Names are given as ASCII (A-labels), without a final dot. Blocking: the
/// service calls it on its blocking pool or a background thread, never on an async worker.
pub trait DnsResolver: Send + Sync {
    /// The TXT records of `name`, each record's character strings joined (RFC 7208 §3.3's
    /// rule for long records). An existing name without TXT records is `Ok(vec![])`.
    fn txt(&self, name: &str) -> Result<Vec<String>, DnsFailure>;

    /// The CNAME chain and A/AAAA addresses of `name`. An existing name without address records
    /// is `Ok` with both lists empty.
    fn host(&self, name: &str) -> Result<HostRecords, DnsFailure>;
}
