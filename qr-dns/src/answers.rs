//! hickory's lookups turned into the seam's answers: TXT records joined, the CNAME chain followed and reported, A and AAAA collected, and its errors mapped to `DnsFailure` (NXDOMAIN, timeout, or a described failure).

use std::io;

use hickory_resolver::TokioResolver;
use hickory_resolver::net::{DnsError, NetError, NoRecords};
use hickory_resolver::proto::op::ResponseCode;
use hickory_resolver::proto::rr::rdata::{A, AAAA, CNAME, TXT};
use hickory_resolver::proto::rr::{Name, RData, Record, RecordType};
use qr_domain::domains::dns::{DnsFailure, HostRecords};

/// The most CNAME hops followed: hickory's own limit (8), which RFC 1034 §3.6.2's "chains
/// should be short" leaves to resolvers; a loop ends here too.
const MAX_CNAME_HOPS: usize = 8;

/// `name` (ASCII, with or without its final dot) as an absolute DNS name, so the system's
/// `search` list never turns `brand.com` into `brand.com.corp.internal`.
pub(crate) fn absolute_name(name: &str) -> Result<Name, DnsFailure> {
    let absolute = if name.ends_with('.') {
        name.to_owned()
    } else {
        format!("{name}.")
    };
    match Name::from_ascii(&absolute) {
        Ok(parsed) if !name.is_empty() && !parsed.is_root() => Ok(parsed),
        _ => Err(DnsFailure::Failed(format!(
            "{name:?} is not a valid DNS name"
        ))),
    }
}

/// The TXT records of `name`, each record's character-strings joined into one text.
pub(crate) async fn txt(resolver: &TokioResolver, name: Name) -> Result<Vec<String>, DnsFailure> {
    match resolver.lookup(name, RecordType::TXT).await {
        Ok(lookup) => Ok(lookup
            .answers()
            .iter()
            .filter_map(|record| match &record.data {
                RData::TXT(text) => Some(joined(text)),
                _ => None,
            })
            .collect()),
        Err(error) => negative(error).and_then(|negative| match negative {
            Negative::NoData => Ok(Vec::new()),
            Negative::NxDomain => Err(DnsFailure::NxDomain),
        }),
    }
}

/// One TXT record's character-strings joined without separator (RFC 7208 §3.3), bytes that are
/// not UTF-8 replaced (a verification token is ASCII, so it cannot match by accident).
fn joined(text: &TXT) -> String {
    let bytes: Vec<u8> = text
        .txt_data
        .iter()
        .flat_map(|s| s.iter().copied())
        .collect();
    String::from_utf8_lossy(&bytes).into_owned()
}

/// The CNAME chain from `name` and the A and AAAA addresses at its end.
///
/// The A and AAAA questions go out together; their answers carry the chain. When neither has an
/// address, the chain is walked with CNAME questions, so a CNAME to a name without addresses
/// (or to a name that does not exist) is still reported: the customer sees where it points.
pub(crate) async fn host(resolver: &TokioResolver, name: Name) -> Result<HostRecords, DnsFailure> {
    let (v4, v6) = tokio::join!(
        resolver.lookup(name.clone(), RecordType::A),
        resolver.lookup(name.clone(), RecordType::AAAA),
    );
    let mut records = Vec::new();
    for answer in [v4, v6] {
        match answer {
            Ok(lookup) => records.extend(lookup.answers().iter().cloned()),
            // No records of this type, or no such name: the walk below tells which when
            // neither question found an address. Any other failure fails the call, as half an
            // answer would misreport where the domain points.
            Err(error) => {
                negative(error)?;
            }
        }
    }
    let addresses: Vec<_> = records
        .iter()
        .filter_map(|record| match record.data {
            RData::A(A(v4)) => Some(v4.into()),
            RData::AAAA(AAAA(v6)) => Some(v6.into()),
            _ => None,
        })
        .collect();
    if addresses.is_empty() {
        return walk_cnames(resolver, name).await;
    }
    Ok(HostRecords {
        cnames: chain(&name, &records),
        addresses,
    })
}

/// Follows the CNAME records of `records` from `name`, as lower-case names without final dot.
fn chain(name: &Name, records: &[Record]) -> Vec<String> {
    let mut chain = Vec::new();
    let mut current = name.clone();
    while chain.len() < MAX_CNAME_HOPS {
        let Some(target) = records.iter().find_map(|record| match &record.data {
            RData::CNAME(CNAME(target)) if record.name == current => Some(target.clone()),
            _ => None,
        }) else {
            break;
        };
        chain.push(text(&target));
        current = target;
    }
    chain
}

/// The CNAME chain from `name` asked hop by hop, with no addresses: the answer when neither A
/// nor AAAA exists at the chain's end. NXDOMAIN for `name` itself is `NxDomain`; further down
/// the chain it ends the walk (a dangling CNAME is reported as such).
async fn walk_cnames(resolver: &TokioResolver, name: Name) -> Result<HostRecords, DnsFailure> {
    let mut cnames = Vec::new();
    let mut current = name;
    while cnames.len() < MAX_CNAME_HOPS {
        let target = match resolver.lookup(current.clone(), RecordType::CNAME).await {
            Ok(lookup) => lookup
                .answers()
                .iter()
                .find_map(|record| match &record.data {
                    RData::CNAME(CNAME(target)) if record.name == current => Some(target.clone()),
                    _ => None,
                }),
            Err(error) => match negative(error)? {
                Negative::NxDomain if cnames.is_empty() => return Err(DnsFailure::NxDomain),
                Negative::NxDomain | Negative::NoData => None,
            },
        };
        let Some(target) = target else { break };
        cnames.push(text(&target));
        current = target;
    }
    Ok(HostRecords {
        cnames,
        addresses: Vec::new(),
    })
}

/// A name as the seam reports it: lower-case A-labels, no final dot.
fn text(name: &Name) -> String {
    let ascii = name.to_lowercase().to_ascii();
    ascii.strip_suffix('.').unwrap_or(&ascii).to_owned()
}

/// An answer without records of the type asked: the name exists without them (NODATA), or it
/// does not exist at all (NXDOMAIN).
enum Negative {
    NoData,
    NxDomain,
}

/// A lookup's error as a negative answer, or as the failure it is.
fn negative(error: NetError) -> Result<Negative, DnsFailure> {
    match error {
        NetError::Dns(DnsError::NoRecordsFound(NoRecords {
            response_code: ResponseCode::NXDomain,
            ..
        })) => Ok(Negative::NxDomain),
        NetError::Dns(DnsError::NoRecordsFound(_)) => Ok(Negative::NoData),
        other => Err(failure(other)),
    }
}

/// A failure described for the customer: hickory's text names no secret (there is none in a
/// DNS question), but the common cases get plain words.
fn failure(error: NetError) -> DnsFailure {
    match error {
        NetError::Timeout => DnsFailure::Timeout,
        NetError::Io(io) if io.kind() == io::ErrorKind::TimedOut => DnsFailure::Timeout,
        NetError::Dns(DnsError::ResponseCode(code)) => {
            DnsFailure::Failed(format!("the DNS server answered {code}"))
        }
        NetError::NoConnections => DnsFailure::Failed("no DNS server could be reached".to_owned()),
        NetError::Io(io) => {
            DnsFailure::Failed(format!("the DNS server could not be reached: {io}"))
        }
        other => DnsFailure::Failed(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_asked_absolute_and_reported_lower_case_without_final_dot() {
        let name = absolute_name("Go.Brand.TEST").expect("a valid name");
        assert!(name.is_fqdn());
        assert_eq!(text(&name), "go.brand.test");
        assert_eq!(absolute_name("go.brand.test."), Ok(name));
    }

    #[test]
    fn names_dns_cannot_carry_fail_without_a_question() {
        for invalid in ["", ".", "a..b", &"a".repeat(64), &"abc.".repeat(64)] {
            assert!(
                matches!(absolute_name(invalid), Err(DnsFailure::Failed(_))),
                "{invalid:?}"
            );
        }
    }

    #[test]
    fn a_chain_is_followed_from_the_name_in_order_and_stops_at_a_loop_bound() {
        let name = |n: &str| Name::from_ascii(n).expect("a name");
        let cname = |from: &str, to: &str| {
            Record::from_rdata(name(from), 300, RData::CNAME(CNAME(name(to))))
        };
        // Listed out of order, with an unrelated alias.
        let records = [
            cname("b.test.", "C.test."),
            cname("other.test.", "x.test."),
            cname("a.test.", "b.test."),
        ];
        assert_eq!(chain(&name("a.test."), &records), ["b.test", "c.test"]);
        assert_eq!(chain(&name("c.test."), &records), Vec::<String>::new());

        let looped = [cname("a.test.", "b.test."), cname("b.test.", "a.test.")];
        assert_eq!(chain(&name("a.test."), &looped).len(), MAX_CNAME_HOPS);
    }
}
