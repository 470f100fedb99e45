//! The DNS client against a real nameserver (dnsmasq on loopback, from qr-test-support): TXT records, NXDOMAIN, timeouts, CNAME chains, AAAA, TCP fallback, and answers that change while the client runs.
//!
//! Each test starts its own dnsmasq; without dnsmasq the tests print `skipped:` and pass, unless
//! `QR_REQUIRE_SUITES` is set.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, UdpSocket};
use std::time::{Duration, Instant};

use qr_dns::{DnsClient, QueryTimeout};
use qr_domain::domains::dns::{DnsFailure, DnsResolver, HostRecords};
use qr_test_support::servers::dnsmasq::{DnsZone, DnsmasqServer, SILENT_DOMAIN};

const SUITE: &str = "qr-dns resolver";

const EDGE_V4: Ipv4Addr = Ipv4Addr::new(192, 0, 2, 7);
const EDGE_V6: Ipv6Addr = Ipv6Addr::new(0x2001, 0xdb8, 0, 0, 0, 0, 0, 7);

/// A zone like a customer's: the verification record, an alias chain to the service's edge
/// (which has A and AAAA), and a name with only AAAA.
fn zone() -> DnsZone {
    DnsZone::new()
        .txt("_qr-verify.brand.test", &["qr-verify=3f9a1c"])
        .cname("go.brand.test", "cdn.brand.test")
        .cname("cdn.brand.test", "edge.service.test")
        .a("edge.service.test", EDGE_V4)
        .aaaa("edge.service.test", EDGE_V6)
        .aaaa("v6.brand.test", EDGE_V6)
}

/// A client of `server` with a per-try timeout of 1 s (the tests' answers take milliseconds).
fn client(server: &DnsmasqServer) -> DnsClient {
    client_of(server.address())
}

fn client_of(address: SocketAddr) -> DnsClient {
    let timeout = QueryTimeout::new(Duration::from_secs(1)).expect("1 s is in range");
    DnsClient::nameserver(address, timeout).expect("the client builds")
}

fn sorted(mut texts: Vec<String>) -> Vec<String> {
    texts.sort();
    texts
}

#[test]
fn txt_records_are_found_each_with_its_character_strings_joined() {
    let long = ["a".repeat(255), "b".repeat(255), "tail".to_owned()];
    let zone = zone()
        .txt("long.brand.test", &[&long[0], &long[1], &long[2]])
        .txt("two.brand.test", &["v=spf1 -all"])
        .txt("two.brand.test", &["first, ", "second"]);
    let Some(server) = DnsmasqServer::start(SUITE, &zone) else {
        return;
    };
    let dns = client(&server);

    assert_eq!(
        dns.txt("_qr-verify.brand.test"),
        Ok(vec!["qr-verify=3f9a1c".to_owned()])
    );
    assert_eq!(dns.txt("long.brand.test"), Ok(vec![long.concat()]));
    assert_eq!(
        dns.txt("two.brand.test").map(sorted),
        Ok(vec!["first, second".to_owned(), "v=spf1 -all".to_owned()])
    );
    // A final dot and upper case name the same records.
    assert_eq!(
        dns.txt("_QR-Verify.Brand.test."),
        Ok(vec!["qr-verify=3f9a1c".to_owned()])
    );
}

#[test]
fn an_existing_name_without_txt_records_is_an_empty_answer() {
    let Some(server) = DnsmasqServer::start(SUITE, &zone()) else {
        return;
    };
    let dns = client(&server);
    // A name with address records only, and a parent of zone names (it exists, empty).
    assert_eq!(dns.txt("edge.service.test"), Ok(vec![]));
    assert_eq!(dns.txt("brand.test"), Ok(vec![]));
    // Through a CNAME to a name without TXT records.
    assert_eq!(dns.txt("go.brand.test"), Ok(vec![]));
}

#[test]
fn a_name_that_does_not_exist_is_nxdomain() {
    let Some(server) = DnsmasqServer::start(SUITE, &zone()) else {
        return;
    };
    let dns = client(&server);
    assert_eq!(dns.txt("missing.brand.test"), Err(DnsFailure::NxDomain));
    assert_eq!(dns.host("missing.brand.test"), Err(DnsFailure::NxDomain));
    assert_eq!(
        dns.txt("_qr-verify.other.example"),
        Err(DnsFailure::NxDomain)
    );
}

#[test]
fn a_server_that_never_answers_times_out_within_twice_the_timeout() {
    let Some(server) = DnsmasqServer::start(SUITE, &zone()) else {
        return;
    };
    let dns = client(&server);
    let bound = dns.timeout().per_call();
    assert_eq!(bound, Duration::from_secs(2), "two tries of 1 s");
    let silent = format!("_qr-verify.{SILENT_DOMAIN}");

    let started = Instant::now();
    assert_eq!(dns.txt(&silent), Err(DnsFailure::Timeout));
    let txt_took = started.elapsed();

    let started = Instant::now();
    assert_eq!(dns.host(&silent), Err(DnsFailure::Timeout));
    let host_took = started.elapsed();

    for took in [txt_took, host_took] {
        // It waited for the nameserver (a try at least), and gave up at the bound (2.0 s here;
        // a scheduling margin of 500 ms for a loaded machine, less than a third try's 1 s).
        assert!(
            took >= dns.timeout().per_try() && took <= bound + Duration::from_millis(500),
            "took {took:?}, bound {bound:?}"
        );
    }
    // The server itself still answers at once.
    assert_eq!(
        dns.txt("_qr-verify.brand.test"),
        Ok(vec!["qr-verify=3f9a1c".to_owned()])
    );
}

#[test]
fn a_nameserver_that_is_not_running_fails_within_the_bound() {
    // A port nobody listens on: the socket is bound (so the port stays unused) and dropped.
    let address = UdpSocket::bind((Ipv4Addr::LOCALHOST, 0))
        .and_then(|socket| socket.local_addr())
        .expect("a loopback port");
    let dns = client_of(address);
    let started = Instant::now();
    let answer = dns.txt("_qr-verify.brand.test");
    let took = started.elapsed();
    assert!(
        matches!(answer, Err(DnsFailure::Timeout | DnsFailure::Failed(_))),
        "{answer:?}"
    );
    assert!(
        took <= dns.timeout().per_call() + Duration::from_millis(500),
        "took {took:?}"
    );
}

#[test]
fn host_follows_the_cname_chain_to_the_a_and_aaaa_records() {
    let Some(server) = DnsmasqServer::start(SUITE, &zone()) else {
        return;
    };
    let dns = client(&server);
    let mut answer = dns.host("go.brand.test").expect("an answer");
    answer.addresses.sort();
    assert_eq!(
        answer,
        HostRecords {
            cnames: vec!["cdn.brand.test".to_owned(), "edge.service.test".to_owned()],
            addresses: vec![IpAddr::V4(EDGE_V4), IpAddr::V6(EDGE_V6)],
        }
    );
    // The end of the chain has its own records, and no CNAME.
    let mut edge = dns.host("edge.service.test").expect("an answer");
    edge.addresses.sort();
    assert_eq!(edge.cnames, Vec::<String>::new());
    assert_eq!(
        edge.addresses,
        vec![IpAddr::V4(EDGE_V4), IpAddr::V6(EDGE_V6)]
    );
}

#[test]
fn host_reports_aaaa_alone_and_names_without_addresses() {
    let zone = zone().cname("dangling.brand.test", "nowhere.test");
    let Some(server) = DnsmasqServer::start(SUITE, &zone) else {
        return;
    };
    let dns = client(&server);
    assert_eq!(
        dns.host("v6.brand.test"),
        Ok(HostRecords {
            cnames: vec![],
            addresses: vec![IpAddr::V6(EDGE_V6)],
        })
    );
    // A name with a TXT record only exists, without addresses.
    assert_eq!(
        dns.host("_qr-verify.brand.test"),
        Ok(HostRecords::default())
    );
    // A CNAME to a name that does not exist: the customer sees where it points.
    assert_eq!(
        dns.host("dangling.brand.test"),
        Ok(HostRecords {
            cnames: vec!["nowhere.test".to_owned()],
            addresses: vec![],
        })
    );
}

#[test]
fn an_answer_too_large_for_udp_comes_over_tcp() {
    // Eight records of 400 bytes: 3.2 KB, past the 1232-byte UDP payload both sides offer, so
    // dnsmasq truncates the UDP answer and the client asks again over TCP.
    let records: Vec<String> = (0..8).map(|i| format!("{i}").repeat(400)).collect();
    let mut zone = zone();
    for record in &records {
        zone = zone.txt("big.brand.test", &[&record[..200], &record[200..]]);
    }
    let Some(server) = DnsmasqServer::start(SUITE, &zone) else {
        return;
    };
    let dns = client(&server);
    assert_eq!(dns.txt("big.brand.test").map(sorted), Ok(records));
}

#[test]
fn a_record_changed_while_running_is_seen_by_the_next_question() {
    let Some(server) = DnsmasqServer::start(SUITE, &zone()) else {
        return;
    };
    let dns = client(&server);
    assert_eq!(
        dns.txt("_qr-verify.brand.test"),
        Ok(vec!["qr-verify=3f9a1c".to_owned()])
    );
    assert_eq!(dns.txt("_qr-verify.new.test"), Err(DnsFailure::NxDomain));
    let edge = |dns: &DnsClient| dns.host("go.brand.test").map(|h| h.addresses);

    // Records served with a 300 s time to live change: a cache would answer the old ones.
    let changed = zone()
        .without("_qr-verify.brand.test")
        .txt("_qr-verify.brand.test", &["qr-verify=77e0b2"])
        .txt("_qr-verify.new.test", &["qr-verify=5d1f00"])
        .without("edge.service.test")
        .a("edge.service.test", Ipv4Addr::new(192, 0, 2, 8));
    server.serve(&changed);
    assert_eq!(
        dns.txt("_qr-verify.brand.test"),
        Ok(vec!["qr-verify=77e0b2".to_owned()])
    );
    // The customer who just created the record sees it, although it was NXDOMAIN a moment ago.
    assert_eq!(
        dns.txt("_qr-verify.new.test"),
        Ok(vec!["qr-verify=5d1f00".to_owned()])
    );
    assert_eq!(
        edge(&dns),
        Ok(vec![IpAddr::V4(Ipv4Addr::new(192, 0, 2, 8))])
    );

    // A removed record is gone at once.
    server.serve(&changed.without("_qr-verify.brand.test"));
    assert_eq!(dns.txt("_qr-verify.brand.test"), Err(DnsFailure::NxDomain));
}

#[test]
fn the_client_works_from_a_runtimes_blocking_pool_and_drops_on_an_async_worker() {
    let Some(server) = DnsmasqServer::start(SUITE, &zone()) else {
        return;
    };
    let dns = client(&server);
    let caller = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let answer = caller.block_on(async move {
        let answer = tokio::task::spawn_blocking({
            let dns = std::sync::Arc::new(dns);
            move || (dns.txt("_qr-verify.brand.test"), dns)
        })
        .await
        .expect("the blocking task ends");
        // Dropped on an async worker, as a service's state is at the end of a tokio test.
        drop(answer.1);
        answer.0
    });
    assert_eq!(answer, Ok(vec!["qr-verify=3f9a1c".to_owned()]));
}

#[test]
fn the_system_configuration_builds_a_client() {
    // /etc/resolv.conf names at least one nameserver on any machine that runs these tests;
    // querying it would need the network, so only the construction is checked.
    let dns = DnsClient::system(QueryTimeout::default()).expect("the system's configuration");
    assert!(format!("{dns:?}").contains("system"), "{dns:?}");
    assert_eq!(dns.timeout().per_try(), Duration::from_secs(5));
}

#[test]
fn query_timeouts_are_bounded() {
    assert_eq!(QueryTimeout::default().per_call(), Duration::from_secs(10));
    assert!(QueryTimeout::new(Duration::ZERO).is_none());
    assert!(QueryTimeout::new(Duration::from_millis(9)).is_none());
    assert!(QueryTimeout::new(Duration::from_secs(61)).is_none());
    assert!(QueryTimeout::new(Duration::from_secs(60)).is_some());
}
