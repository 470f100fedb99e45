//! Where a domain's DNS stands, decided from what the resolver answered: the TXT record's verdict, whether its addresses lead to the service, and how a check changes a domain's verification.

use chrono::{DateTime, Utc};

use crate::domains::dns::{DnsFailure, DnsResolver, HostRecords};
use crate::domains::domain::{
    CheckOutcome, CheckRecord, Domain, Routing, TXT_PREFIX, VerificationToken, next_check,
};

/// What the TXT records of `_qr-verify.<domain>` say about `token`.
pub fn txt_outcome(
    answer: Result<Vec<String>, DnsFailure>,
    token: &VerificationToken,
) -> CheckOutcome {
    match answer {
        Ok(records) => {
            let expected = token.txt_value();
            if records.iter().any(|r| r.trim() == expected) {
                CheckOutcome::Verified
            } else if records.iter().any(|r| r.trim().starts_with(TXT_PREFIX)) {
                CheckOutcome::WrongValue
            } else {
                CheckOutcome::NoRecord
            }
        }
        Err(DnsFailure::NxDomain) => CheckOutcome::NxDomain,
        Err(DnsFailure::Timeout) => CheckOutcome::Timeout,
        Err(DnsFailure::Failed(reason)) => CheckOutcome::Failed { reason },
    }
}

/// Whether the domain's records lead to the service's: a CNAME in its chain names the expected
/// host, or it shares an address with it.
pub fn routing(
    domain: Result<HostRecords, DnsFailure>,
    expected_host: &str,
    expected: Result<HostRecords, DnsFailure>,
) -> Routing {
    let found = match domain {
        Ok(found) => found,
        Err(e) => {
            return Routing::Unknown {
                reason: e.to_string(),
            };
        }
    };
    let expected_host = expected_host.trim_end_matches('.').to_ascii_lowercase();
    let by_name = found.cnames.contains(&expected_host);
    let by_address =
        expected.is_ok_and(|e| found.addresses.iter().any(|a| e.addresses.contains(a)));
    if by_name || by_address {
        return Routing::PointsAtService;
    }
    if found.cnames.is_empty() && found.addresses.is_empty() {
        return Routing::NoAddress;
    }
    Routing::PointsElsewhere {
        found: found
            .cnames
            .iter()
            .cloned()
            .chain(found.addresses.iter().map(ToString::to_string))
            .collect(),
    }
}

/// Looks up the domain's TXT record (and, when `target` names the host it should point at, its
/// address records), and returns the domain as the check leaves it. Only a definite answer
/// (no record, another value, NXDOMAIN) makes a verified domain failing: a timeout or a server
/// failure says nothing about the record, so it changes only the latest check.
pub fn check(
    resolver: &dyn DnsResolver,
    target: Option<&str>,
    mut domain: Domain,
    now: DateTime<Utc>,
) -> Domain {
    let outcome = txt_outcome(
        resolver.txt(&domain.name.verification_name()),
        &domain.token,
    );
    let verification = &mut domain.verification;
    match outcome {
        CheckOutcome::Verified => {
            verification.verified_at.get_or_insert(now);
            verification.failing_since = None;
        }
        CheckOutcome::NoRecord | CheckOutcome::WrongValue | CheckOutcome::NxDomain => {
            if verification.verified_at.is_some() && verification.failing_since.is_none() {
                verification.failing_since = Some(now);
            }
        }
        CheckOutcome::Timeout | CheckOutcome::Failed { .. } => {}
    }
    verification.last_check = Some(CheckRecord { at: now, outcome });
    verification.routing = target.map(|target| {
        routing(
            resolver.host(domain.name.as_str()),
            target,
            resolver.host(target),
        )
    });
    domain.verification.next_check_at = next_check(&domain, now);
    domain
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> VerificationToken {
        VerificationToken::from_stored("abc".to_owned())
    }

    #[test]
    fn the_txt_answer_decides_the_outcome() {
        let ok = |records: &[&str]| Ok(records.iter().map(|r| (*r).to_owned()).collect());
        assert_eq!(
            txt_outcome(ok(&["qr-verify=abc"]), &token()),
            CheckOutcome::Verified
        );
        assert_eq!(
            txt_outcome(ok(&["v=spf1 -all", " qr-verify=abc "]), &token()),
            CheckOutcome::Verified
        );
        assert_eq!(
            txt_outcome(ok(&["qr-verify=xyz"]), &token()),
            CheckOutcome::WrongValue
        );
        assert_eq!(
            txt_outcome(ok(&["v=spf1 -all"]), &token()),
            CheckOutcome::NoRecord
        );
        assert_eq!(txt_outcome(ok(&[]), &token()), CheckOutcome::NoRecord);
        assert_eq!(
            txt_outcome(Err(DnsFailure::NxDomain), &token()),
            CheckOutcome::NxDomain
        );
        assert_eq!(
            txt_outcome(Err(DnsFailure::Timeout), &token()),
            CheckOutcome::Timeout
        );
    }

    #[test]
    fn routing_follows_cnames_and_shared_addresses() {
        let service = Ok(HostRecords {
            cnames: vec![],
            addresses: vec!["192.0.2.10".parse().unwrap()],
        });
        let by_cname = Ok(HostRecords {
            cnames: vec!["qr.example".to_owned()],
            addresses: vec!["192.0.2.10".parse().unwrap()],
        });
        assert_eq!(
            routing(by_cname, "QR.example.", service.clone()),
            Routing::PointsAtService
        );
        let by_address = Ok(HostRecords {
            cnames: vec![],
            addresses: vec!["192.0.2.10".parse().unwrap()],
        });
        assert_eq!(
            routing(by_address, "qr.example", service.clone()),
            Routing::PointsAtService
        );
        let elsewhere = Ok(HostRecords {
            cnames: vec!["other.example".to_owned()],
            addresses: vec!["198.51.100.1".parse().unwrap()],
        });
        assert_eq!(
            routing(elsewhere, "qr.example", service.clone()),
            Routing::PointsElsewhere {
                found: vec!["other.example".to_owned(), "198.51.100.1".to_owned()]
            }
        );
        assert_eq!(
            routing(Ok(HostRecords::default()), "qr.example", service.clone()),
            Routing::NoAddress
        );
        assert!(matches!(
            routing(Err(DnsFailure::NxDomain), "qr.example", service),
            Routing::Unknown { .. }
        ));
    }
}
