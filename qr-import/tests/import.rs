//! Imports on the domain's in-memory store: every code that can be kept is created with its target, name, tags and creation time; the others are refused with their reasons; a dry run writes nothing; a second run finds the links already imported; a code taken by another account is refused.

use std::sync::Arc;

use qr_domain::accounts::caller::Caller;
use qr_domain::memory::MemoryStore;
use qr_domain::service::{BulkCaller, Resolution};
use qr_domain::{Account, NoGeoLocator, Plan, Service, TestClock};
use qr_import::{DomainChoice, ImportReport, ItemOutcome, Source, import};

type Svc = Service<MemoryStore, TestClock>;

fn service() -> Svc {
    let clock = TestClock::new("2025-06-01T12:00:00Z".parse().unwrap());
    Service::new(Arc::new(MemoryStore::new()), clock, Arc::new(NoGeoLocator)).unwrap()
}

fn file(name: &str) -> String {
    let path = format!("{}/testdata/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap()
}

fn refusals(report: &ImportReport) -> Vec<(String, String)> {
    report
        .items
        .iter()
        .filter_map(|i| match &i.outcome {
            ItemOutcome::Refused(reason) => Some((i.shown.clone(), reason.clone())),
            _ => None,
        })
        .collect()
}

fn import_file(svc: &Svc, account: &Account, source: Source, name: &str) -> ImportReport {
    let records = source.read(&file(name)).unwrap();
    import::run(
        svc,
        account,
        &Caller::operator(account.id),
        &records,
        &DomainChoice::KeepEach,
        BulkCaller::Operator,
    )
    .unwrap()
}

#[test]
fn every_keepable_code_resolves_with_its_fields() {
    let svc = service();
    let account = svc.create_account("brand@example.com", Plan::Pro).unwrap();
    let report = import_file(&svc, &account, Source::Bitly, "bitly.csv");
    assert!(!report.dry_run);
    assert_eq!(report.created(), 5);
    assert_eq!(
        refusals(&report),
        [(
            "go.brand.example/flyer.2012".to_owned(),
            "invalid shortCode: it must be 3 to 64 characters of letters A-Z, digits, - and _"
                .to_owned()
        )]
    );
    let Resolution::Live(link) = svc.resolve(None, "3xYz9Ab").unwrap() else {
        panic!("3xYz9Ab does not resolve");
    };
    assert_eq!(link.short_code.as_str(), "3xYz9Ab");
    assert_eq!(link.account_id, account.id);
    assert_eq!(link.name.as_str(), "Spring catalogue 2021");
    assert_eq!(
        link.target_url.as_str(),
        "https://shop.example.com/spring?utm_source=print"
    );
    let tags: Vec<&str> = link.tags.iter().map(|t| t.as_str()).collect();
    assert_eq!(tags, ["print", "spring"]);
    // The creation time is Bitly's; the import is the last change.
    assert_eq!(link.created_at.to_rfc3339(), "2021-03-04T09:15:27+00:00");
    assert_eq!(link.updated_at.to_rfc3339(), "2025-06-01T12:00:00+00:00");
    for code in ["menu-card", "2Kq7MnP", "3fGh8Jk", "1Qw"] {
        assert!(
            matches!(svc.resolve(None, code).unwrap(), Resolution::Live(_)),
            "{code}"
        );
    }
    let Resolution::Live(untitled) = svc.resolve(None, "3fGh8Jk").unwrap() else {
        unreachable!()
    };
    assert_eq!(untitled.name.as_str(), "bit.ly/3fGh8Jk");

    // The same file again: nothing created twice, nothing refused but what was.
    let again = import_file(&svc, &account, Source::Bitly, "bitly.csv");
    assert_eq!((again.created(), again.already_imported()), (0, 5));
    assert_eq!(refusals(&again).len(), 1);
    assert_eq!(svc.count_links(account.id).unwrap(), 5);
}

#[test]
fn a_dry_run_writes_nothing_and_tells_every_refusal() {
    let svc = service();
    let account = svc.create_account("brand@example.com", Plan::Pro).unwrap();
    let records = Source::Kutt.read(&file("kutt-links.json")).unwrap();
    let report = import::dry_run(&svc, &account, &records, &DomainChoice::KeepEach).unwrap();
    assert!(report.dry_run);
    assert_eq!(report.created(), 2);
    assert_eq!(
        refusals(&report),
        [(
            "kutt.example/dashboard".to_owned(),
            "invalid shortCode: \"dashboard\" is reserved; choose another code".to_owned()
        )]
    );
    let ItemOutcome::WouldCreate(first) = &report.items[0].outcome else {
        panic!("{:?}", report.items[0]);
    };
    assert_eq!(first.name.as_ref().unwrap().as_str(), "Conference badge");
    assert_eq!(svc.count_links(account.id).unwrap(), 0);
    assert!(matches!(
        svc.resolve(None, "conf24").unwrap(),
        Resolution::Unknown
    ));

    // The plan's rules, told before writing: Free has no custom codes.
    let free = svc.create_account("free@example.com", Plan::Free).unwrap();
    let report = import::dry_run(&svc, &free, &records, &DomainChoice::KeepEach).unwrap();
    assert_eq!(report.created(), 0);
    assert_eq!(refusals(&report)[0].1, "shortCode requires Starter plan");
    // And the write says the same.
    let written = import::run(
        &svc,
        &free,
        &Caller::operator(free.id),
        &records,
        &DomainChoice::KeepEach,
        BulkCaller::Operator,
    )
    .unwrap();
    assert_eq!(refusals(&written)[0].1, "shortCode requires Starter plan");
    assert_eq!(svc.count_links(free.id).unwrap(), 0);
}

#[test]
fn codes_taken_elsewhere_or_twice_in_the_file_are_refused() {
    let svc = service();
    let other = svc.create_account("other@example.com", Plan::Pro).unwrap();
    import_file(&svc, &other, Source::Yourls, "yourls_url.csv");
    let account = svc.create_account("brand@example.com", Plan::Pro).unwrap();
    let text = "keyword,url,title\npromo-card,https://e.com/a,A\nfresh,https://e.com/b,B\nFRESH,https://e.com/c,C\n";
    let records = Source::Yourls.read(text).unwrap();
    let report = import::run(
        &svc,
        &account,
        &Caller::operator(account.id),
        &records,
        &DomainChoice::KeepEach,
        BulkCaller::Operator,
    )
    .unwrap();
    assert_eq!(
        refusals(&report),
        [
            (
                "promo-card".to_owned(),
                "shortCode promo-card is already taken; choose another".to_owned()
            ),
            (
                "FRESH".to_owned(),
                "its code FRESH is also record 2's; a code names one link on the service's own address"
                    .to_owned()
            ),
        ]
    );
    assert_eq!(report.created(), 1);
    // The other account's link is untouched.
    let Resolution::Live(link) = svc.resolve(None, "promo-card").unwrap() else {
        unreachable!()
    };
    assert_eq!(link.account_id, other.id);
    // A time in the future is the creation instant: a link is never created in the future.
    let future = Source::Yourls
        .read("keyword,url,timestamp\nlater,https://e.com/l,2099-01-01 00:00:00\n")
        .unwrap();
    import::run(
        &svc,
        &account,
        &Caller::operator(account.id),
        &future,
        &DomainChoice::KeepEach,
        BulkCaller::Operator,
    )
    .unwrap();
    let Resolution::Live(later) = svc.resolve(None, "later").unwrap() else {
        unreachable!()
    };
    assert_eq!(later.created_at.to_rfc3339(), "2025-06-01T12:00:00+00:00");
}

#[test]
fn every_format_imports_into_one_account() {
    let svc = service();
    let account = svc.create_account("brand@example.com", Plan::Pro).unwrap();
    let cases = [
        (Source::Bitly, "bitly.csv", 5, 1),
        (Source::Rebrandly, "rebrandly.csv", 2, 1),
        (Source::Shlink, "shlink-list.txt", 2, 1),
        (Source::Shlink, "shlink-page.json", 2, 1),
        (Source::Yourls, "yourls-stats.json", 2, 1),
        (Source::Yourls, "yourls_url.csv", 1, 1),
        (Source::Kutt, "kutt-links.json", 2, 1),
    ];
    for (source, name, created, refused) in cases {
        let report = import_file(&svc, &account, source, name);
        assert_eq!(
            (report.created(), report.refused()),
            (created, refused),
            "{name}: {:?}",
            refusals(&report)
        );
        for item in &report.items {
            if let ItemOutcome::Created(link) = &item.outcome {
                assert!(
                    matches!(
                        svc.resolve(None, link.short_code.as_str()).unwrap(),
                        Resolution::Live(_)
                    ),
                    "{name}: {}",
                    item.shown
                );
            }
        }
    }
}
