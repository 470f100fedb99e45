//! Imports onto customers' domains on the domain's in-memory store: each record lands on its own source domain when the account has it (compared as domain names), else on the service's own address, or every record on the one domain asked for; a domain that takes no new links refuses its records (or the whole import, when asked for), and codes are unique per domain, in the file and in the store.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use qr_domain::accounts::caller::Caller;
use qr_domain::domains::dns::{DnsFailure, DnsResolver, HostRecords};
use qr_domain::domains::name::DomainName;
use qr_domain::domains::service::DomainConfig;
use qr_domain::memory::MemoryStore;
use qr_domain::service::{BulkCaller, Resolution};
use qr_domain::{Account, NoGeoLocator, Plan, Service, TestClock};
use qr_import::{DomainChoice, ImportError, ImportReport, ItemOutcome, Source, import};

type Svc = Service<MemoryStore, TestClock>;

/// The domain the tests verify.
const BRAND: &str = "go.brand.test";
/// The message of a link put on a domain never verified (the domain's `FieldRule`).
const PENDING: &str = "invalid domain: the domain is not verified yet; create its TXT record and check it (POST /api/domains/check)";

/// TXT records held in memory: the checks' DNS answers (the resolver itself is tested against
/// a real DNS server in qr-dns and qr-http).
#[derive(Default)]
struct Zone {
    txt: Mutex<HashMap<String, Vec<String>>>,
}

impl DnsResolver for Zone {
    fn txt(&self, name: &str) -> Result<Vec<String>, DnsFailure> {
        self.txt
            .lock()
            .unwrap()
            .get(name)
            .cloned()
            .ok_or(DnsFailure::NxDomain)
    }

    fn host(&self, _name: &str) -> Result<HostRecords, DnsFailure> {
        Err(DnsFailure::NxDomain)
    }
}

struct World {
    svc: Svc,
    zone: Arc<Zone>,
}

impl World {
    fn new() -> Self {
        let zone = Arc::new(Zone::default());
        let clock = TestClock::new("2025-06-01T12:00:00Z".parse().unwrap());
        let svc = Service::new(Arc::new(MemoryStore::new()), clock, Arc::new(NoGeoLocator))
            .unwrap()
            .with_domains(DomainConfig {
                service_host: "qr.example".to_owned(),
                target: None,
                resolver: Some(Arc::clone(&zone) as Arc<dyn DnsResolver>),
            });
        Self { svc, zone }
    }

    /// Adds `name` to the account, verified through its TXT record.
    fn verified(&self, account: &Account, name: &str) {
        let domain = self
            .svc
            .add_domain(&Caller::operator(account.id), name)
            .unwrap();
        self.zone.txt.lock().unwrap().insert(
            domain.name.verification_name(),
            vec![domain.token.txt_value()],
        );
        let checked = self
            .svc
            .check_domain(&Caller::operator(account.id), domain.id)
            .unwrap();
        assert!(checked.accepts_links(self.svc.now()), "{name} verified");
    }

    fn import(
        &self,
        account: &Account,
        source: Source,
        text: &str,
        choice: &DomainChoice,
    ) -> ImportReport {
        let records = source.read(text).unwrap();
        import::run(
            &self.svc,
            account,
            &Caller::operator(account.id),
            &records,
            choice,
            BulkCaller::Operator,
        )
        .unwrap()
    }

    /// The link at `domain`/`code`, which must resolve.
    fn live(&self, domain: Option<&str>, code: &str) -> qr_domain::Link {
        let domain = domain.map(name);
        match self.svc.resolve(domain.as_ref(), code).unwrap() {
            Resolution::Live(link) => link,
            other => panic!("{domain:?}/{code}: {other:?}"),
        }
    }
}

fn name(text: &str) -> DomainName {
    DomainName::parse_any(text).unwrap()
}

fn file(name: &str) -> String {
    let path = format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap()
}

/// Each record's short URL as printed, where it lands, and its outcome's kind or reason.
fn placed(report: &ImportReport) -> Vec<(String, String, String)> {
    report
        .items
        .iter()
        .map(|item| {
            let lands = item
                .lands_on
                .as_ref()
                .map_or("service".to_owned(), DomainName::to_string);
            let outcome = match &item.outcome {
                ItemOutcome::Created(_) => "created".to_owned(),
                ItemOutcome::WouldCreate(_) => "would create".to_owned(),
                ItemOutcome::AlreadyImported(_) => "already".to_owned(),
                ItemOutcome::Refused(reason) => reason.clone(),
            };
            (item.shown.clone(), lands, outcome)
        })
        .collect()
}

fn row(shown: &str, lands: &str, outcome: &str) -> (String, String, String) {
    (shown.to_owned(), lands.to_owned(), outcome.to_owned())
}

#[test]
fn each_record_lands_on_its_own_domain_when_the_account_has_it() {
    let w = World::new();
    let account = w
        .svc
        .create_account("brand@example.com", Plan::Pro)
        .unwrap();
    w.verified(&account, BRAND);
    let text = file("brand-bitly.csv");

    // The dry run tells where each record would land, writing nothing.
    let records = Source::Bitly.read(&text).unwrap();
    let dry = import::dry_run(&w.svc, &account, &records, &DomainChoice::KeepEach).unwrap();
    assert_eq!(
        placed(&dry),
        [
            row("go.brand.test/AbC12", BRAND, "would create"),
            row("bit.ly/4Hk2Lm9", "service", "would create"),
            row("go.brand.test/spring-menu", BRAND, "would create"),
        ]
    );
    let ItemOutcome::WouldCreate(update) = &dry.items[0].outcome else {
        unreachable!()
    };
    assert_eq!(update.domain, Some(Some(name(BRAND))));
    assert_eq!(w.svc.count_links(account.id).unwrap(), 0);

    let report = w.import(&account, Source::Bitly, &text, &DomainChoice::KeepEach);
    assert_eq!(
        placed(&report)[0],
        row("go.brand.test/AbC12", BRAND, "created")
    );
    assert_eq!(report.created(), 3);
    let on_domain = w.live(Some(BRAND), "AbC12");
    assert_eq!(on_domain.target_url.as_str(), "https://brand.example/menu");
    assert_eq!(
        on_domain.short_url("https://qr.example"),
        "https://go.brand.test/AbC12"
    );
    // Not on the service's own address: a code lives where it was printed.
    assert!(matches!(
        w.svc.resolve(None, "AbC12").unwrap(),
        Resolution::Unknown
    ));
    assert_eq!(w.live(None, "4Hk2Lm9").domain, None);
    assert_eq!(w.live(Some(BRAND), "spring-menu").account_id, account.id);

    // Every format of the brand's files lands on the domain.
    for (source, name) in [
        (Source::Rebrandly, "brand-rebrandly.csv"),
        (Source::Shlink, "brand-shlink.json"),
        (Source::Yourls, "brand-yourls.json"),
        (Source::Kutt, "brand-kutt.json"),
    ] {
        let report = w.import(&account, source, &file(name), &DomainChoice::KeepEach);
        assert_eq!((report.created(), report.refused()), (2, 0), "{name}");
        for item in &report.items {
            assert_eq!(item.lands_on.as_ref().map(|d| d.as_str()), Some(BRAND));
            let ItemOutcome::Created(link) = &item.outcome else {
                panic!("{name}: {item:?}")
            };
            assert_eq!(w.live(Some(BRAND), link.short_code.as_str()).id, link.id);
        }
    }
}

#[test]
fn source_domains_compare_as_domain_names() {
    let w = World::new();
    let account = w
        .svc
        .create_account("brand@example.com", Plan::Pro)
        .unwrap();
    w.verified(&account, "bücher.example");
    w.verified(&account, BRAND);
    // Another case and the Unicode spelling name the account's domains; a domain the account
    // does not have, and an unreadable one, land on the service's own address.
    let text = r#"{"shortUrls": {"data": [
        {"shortCode": "upper", "longUrl": "https://e.com/1", "domain": "GO.Brand.TEST"},
        {"shortCode": "unicode", "longUrl": "https://e.com/2", "domain": "BÜCHER.example"},
        {"shortCode": "punycode", "longUrl": "https://e.com/3", "domain": "xn--bcher-kva.example"},
        {"shortCode": "elsewhere", "longUrl": "https://e.com/4", "domain": "shl.example"},
        {"shortCode": "odd", "longUrl": "https://e.com/5", "domain": "not a host:99"}
    ]}}"#;
    let report = w.import(&account, Source::Shlink, text, &DomainChoice::KeepEach);
    let lands: Vec<Option<&str>> = report
        .items
        .iter()
        .map(|i| i.lands_on.as_ref().map(|d| d.as_str()))
        .collect();
    assert_eq!(
        lands,
        [
            Some(BRAND),
            Some("xn--bcher-kva.example"),
            Some("xn--bcher-kva.example"),
            None,
            None
        ]
    );
    assert_eq!(report.created(), 5);
    assert_eq!(
        report.items[3].source_domain.as_deref(),
        Some("shl.example")
    );
    w.live(Some("bücher.example"), "punycode");
}

#[test]
fn a_domain_asked_for_takes_every_record_or_refuses_the_whole_import() {
    let w = World::new();
    let account = w
        .svc
        .create_account("brand@example.com", Plan::Pro)
        .unwrap();
    w.verified(&account, BRAND);
    w.svc
        .add_domain(&Caller::operator(account.id), "wait.brand.test")
        .unwrap();
    let other = w
        .svc
        .create_account("other@example.com", Plan::Pro)
        .unwrap();
    w.verified(&other, "theirs.test");
    let text = file("bitly.csv");
    let records = Source::Bitly.read(&text).unwrap();

    // A domain that is not this account's (unknown, or another's alike), or one not verified:
    // nothing is imported, in the domain layer's words.
    for (asked, message) in [
        (
            "nope.test",
            "nothing was imported: nope.test: Domain not found",
        ),
        (
            "theirs.test",
            "nothing was imported: theirs.test: Domain not found",
        ),
        (
            "wait.brand.test",
            "nothing was imported: wait.brand.test: the domain is not verified yet; create its TXT record and check it (POST /api/domains/check)",
        ),
    ] {
        let choice = DomainChoice::Every(name(asked));
        for result in [
            import::dry_run(&w.svc, &account, &records, &choice),
            import::run(
                &w.svc,
                &account,
                &Caller::operator(account.id),
                &records,
                &choice,
                BulkCaller::Operator,
            ),
        ] {
            match result {
                Err(e @ ImportError::Domain(_)) => assert_eq!(e.to_string(), message),
                other => panic!("{asked}: {other:?}"),
            }
        }
    }
    assert_eq!(w.svc.count_links(account.id).unwrap(), 0);

    // The brand's domain: every record goes there, bit.ly's too.
    let choice = DomainChoice::Every(name("Go.Brand.Test"));
    let report = w.import(&account, Source::Bitly, &text, &choice);
    assert!(report.items.iter().all(|i| i.lands_on == Some(name(BRAND))));
    assert_eq!((report.created(), report.refused()), (5, 1));
    assert_eq!(
        w.live(Some(BRAND), "3xYz9Ab").target_url.as_str(),
        "https://shop.example.com/spring?utm_source=print"
    );
}

#[test]
fn a_record_on_the_accounts_domain_that_takes_no_links_is_refused() {
    let w = World::new();
    let account = w
        .svc
        .create_account("brand@example.com", Plan::Pro)
        .unwrap();
    w.svc
        .add_domain(&Caller::operator(account.id), BRAND)
        .unwrap();
    let records = Source::Kutt.read(&file("brand-kutt.json")).unwrap();
    let dry = import::dry_run(&w.svc, &account, &records, &DomainChoice::KeepEach).unwrap();
    let report = import::run(
        &w.svc,
        &account,
        &Caller::operator(account.id),
        &records,
        &DomainChoice::KeepEach,
        BulkCaller::Operator,
    )
    .unwrap();
    for report in [&dry, &report] {
        assert_eq!(
            placed(report),
            [
                row("go.brand.test/conf-26", BRAND, PENDING),
                row("go.brand.test/Poster_C", BRAND, PENDING),
            ]
        );
    }
    assert_eq!(w.svc.count_links(account.id).unwrap(), 0);
}

#[test]
fn codes_are_unique_per_domain_in_the_file_and_in_the_store() {
    let w = World::new();
    let account = w
        .svc
        .create_account("brand@example.com", Plan::Pro)
        .unwrap();
    w.verified(&account, BRAND);
    // Another account holds `spring` on the service's own address.
    let other = w
        .svc
        .create_account("other@example.com", Plan::Pro)
        .unwrap();
    let theirs = "keyword,url\nspring,https://other.example/\n";
    w.import(&other, Source::Yourls, theirs, &DomainChoice::KeepEach);

    let text = r#"{"shortUrls": {"data": [
        {"shortCode": "spring", "longUrl": "https://brand.example/a", "domain": "go.brand.test"},
        {"shortCode": "spring", "longUrl": "https://brand.example/b", "domain": "shl.example"},
        {"shortCode": "Summer", "longUrl": "https://brand.example/c", "domain": "go.brand.test"},
        {"shortCode": "summer", "longUrl": "https://brand.example/d", "domain": "go.brand.test"},
        {"shortCode": "autumn", "longUrl": "https://brand.example/e", "domain": "shl.example"},
        {"shortCode": "autumn", "longUrl": "https://brand.example/f", "domain": "s.other.example"},
        {"shortCode": "autumn", "longUrl": "https://brand.example/g", "domain": "go.brand.test"}
    ]}}"#;
    let report = w.import(&account, Source::Shlink, text, &DomainChoice::KeepEach);
    assert_eq!(
        placed(&report),
        [
            // Taken on the service's own address by the other account, free on the domain.
            row("go.brand.test/spring", BRAND, "created"),
            row(
                "shl.example/spring",
                "service",
                "shortCode spring is already taken; choose another"
            ),
            row("go.brand.test/Summer", BRAND, "created"),
            row(
                "go.brand.test/summer",
                BRAND,
                "its code summer is also record 3's; a code names one link on go.brand.test"
            ),
            row("shl.example/autumn", "service", "created"),
            row(
                "s.other.example/autumn",
                "service",
                "its code autumn is also record 5's (printed on shl.example); both land on the service's own address, where a code names one link"
            ),
            row("go.brand.test/autumn", BRAND, "created"),
        ]
    );
    assert_eq!(
        w.live(Some(BRAND), "spring").target_url.as_str(),
        "https://brand.example/a"
    );
    assert_eq!(w.live(None, "spring").account_id, other.id);

    // Already imported means this account, this domain, this code and this target: the same
    // file again creates nothing; the code on another domain is another link.
    let again = w.import(&account, Source::Shlink, text, &DomainChoice::KeepEach);
    assert_eq!((again.created(), again.already_imported()), (0, 4));
    let moved = r#"{"shortUrls": {"data": [
        {"shortCode": "autumn", "longUrl": "https://brand.example/e", "domain": "go.brand.test"},
        {"shortCode": "Summer", "longUrl": "https://brand.example/c", "domain": "go.brand.test"}
    ]}}"#;
    let report = w.import(&account, Source::Shlink, moved, &DomainChoice::KeepEach);
    assert_eq!(
        placed(&report),
        [
            row(
                "go.brand.test/autumn",
                BRAND,
                "its code autumn is already your link \"go.brand.test/autumn\", which goes to https://brand.example/g"
            ),
            row("go.brand.test/Summer", BRAND, "already"),
        ]
    );
}
