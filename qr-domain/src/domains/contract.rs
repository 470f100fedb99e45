//! Contract checks of domains: records by id, name and due time with tenant isolation, codes unique per domain, orphan visits bounded, and the service's rules (plan counts, verification by DNS, links on a domain, removal, several servers).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use chrono::Duration;

use crate::accounts::caller::Caller;
use crate::accounts::plan::Plan;
use crate::clock::TestClock;
use crate::contract::{link_for, setup, t};
use crate::domains::dns::{DnsFailure, DnsResolver, HostRecords};
use crate::domains::domain::{
    CheckOutcome, Domain, DomainSettings, DomainStatus, Routing, Verification, VerificationToken,
};
use crate::domains::name::DomainName;
use crate::domains::orphan::{ORPHAN_VISITS_KEPT, OrphanVisit};
use crate::domains::service::{DomainConfig, DomainError, DomainUpdate};
use crate::ids::{AccountId, DomainId};
use crate::links::campaign::{AppScheme, DomainUnusable, FieldRule, RuleTarget};
use crate::links::link::RuleInput;
use crate::links::link::{LinkError, LinkUpdate, TargetUrl};
use crate::links::shortcode::ShortCode;
use crate::scans::geo::NoGeoLocator;
use crate::scans::scan::Device;
use crate::service::{Resolution, Service};
use crate::store::Store;

fn name(text: &str) -> DomainName {
    DomainName::parse_any(text).expect("valid name")
}

fn domain_for(account: AccountId, text: &str) -> Domain {
    Domain {
        id: DomainId::random(),
        account_id: account,
        name: name(text),
        token: VerificationToken::random().expect("rng"),
        created_at: t("2024-01-01T00:00:00Z"),
        verification: Verification::default(),
        settings: DomainSettings::default(),
    }
}

/// A zone held in memory: the DNS answers the service's checks get in these checks (the
/// resolver itself is tested against a real DNS server in `qr-dns` and `qr-http`).
#[derive(Default)]
struct Zone {
    txt: Mutex<HashMap<String, Result<Vec<String>, DnsFailure>>>,
}

impl Zone {
    fn set_txt(&self, name: &str, answer: Result<Vec<String>, DnsFailure>) {
        self.txt
            .lock()
            .expect("zone lock")
            .insert(name.to_owned(), answer);
    }
}

impl DnsResolver for Zone {
    fn txt(&self, name: &str) -> Result<Vec<String>, DnsFailure> {
        self.txt
            .lock()
            .expect("zone lock")
            .get(name)
            .cloned()
            .unwrap_or(Err(DnsFailure::NxDomain))
    }

    fn host(&self, name: &str) -> Result<HostRecords, DnsFailure> {
        match name {
            "qr.example" | "go.brand.test" => Ok(HostRecords {
                cnames: vec![],
                addresses: vec!["192.0.2.10".parse().expect("address")],
            }),
            _ => Err(DnsFailure::NxDomain),
        }
    }
}

fn domain_service<S: Store>(
    store: Arc<S>,
    zone: &Arc<Zone>,
    clock: &TestClock,
) -> Service<S, TestClock> {
    Service::new(store, clock.clone(), Arc::new(NoGeoLocator))
        .expect("service starts")
        .with_domains(DomainConfig {
            service_host: "qr.example".to_owned(),
            target: None,
            resolver: Some(Arc::clone(zone) as Arc<dyn DnsResolver>),
        })
}

/// Domains roundtrip with their verification and settings, are found by name whoever owns
/// them, are isolated per account, unique by name, and go with their account.
pub fn domains_roundtrip_and_isolation<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let b = setup(&store, Plan::Pro);
    let mut d = domain_for(a.id, "go.brand.test");
    let other = domain_for(a.id, "a.brand.test");
    store.write(|tx| tx.insert_domain(&d)).unwrap();
    store.write(|tx| tx.insert_domain(&other)).unwrap();
    assert_eq!(
        store.read(|tx| tx.domain(a.id, d.id)).unwrap(),
        Some(d.clone())
    );
    assert_eq!(store.read(|tx| tx.domain(b.id, d.id)).unwrap(), None);
    assert_eq!(
        store.read(|tx| tx.domain_by_name(&d.name)).unwrap(),
        Some(d.clone())
    );
    let names: Vec<String> = store
        .read(|tx| tx.domains_of(a.id))
        .unwrap()
        .iter()
        .map(|d| d.name.to_string())
        .collect();
    assert_eq!(names, ["a.brand.test", "go.brand.test"]);
    assert_eq!(store.read(|tx| tx.count_domains(a.id)).unwrap(), 2);
    assert_eq!(store.read(|tx| tx.domains_of(b.id)).unwrap(), vec![]);
    let taken = domain_for(b.id, "go.brand.test");
    assert!(store.write(|tx| tx.insert_domain(&taken)).is_err());

    d.verification.verified_at = Some(t("2024-01-02T00:00:00Z"));
    d.verification.last_check = Some(crate::domains::domain::CheckRecord {
        at: t("2024-01-02T00:00:00Z"),
        outcome: CheckOutcome::Verified,
    });
    d.verification.routing = Some(Routing::PointsElsewhere {
        found: vec!["198.51.100.1".to_owned()],
    });
    d.verification.next_check_at = Some(t("2024-01-02T01:00:00Z"));
    d.settings.root_url = Some(TargetUrl::parse("https://brand.test/").unwrap());
    d.settings.app_schemes = AppScheme::parse_list(&["brandapp", "com.brand.app"]).unwrap();
    assert!(store.write(|tx| tx.update_domain(&d)).unwrap());
    assert_eq!(
        store.read(|tx| tx.domain(a.id, d.id)).unwrap(),
        Some(d.clone())
    );
    let mut stolen = d.clone();
    stolen.account_id = b.id;
    assert!(!store.write(|tx| tx.update_domain(&stolen)).unwrap());
    assert!(!store.write(|tx| tx.delete_domain(b.id, d.id)).unwrap());
    assert!(store.write(|tx| tx.delete_domain(a.id, other.id)).unwrap());
    assert_eq!(store.read(|tx| tx.count_domains(a.id)).unwrap(), 1);
    assert!(store.write(|tx| tx.delete_account(a.id)).unwrap());
    assert_eq!(store.read(|tx| tx.domain_by_name(&d.name)).unwrap(), None);
}

/// The background checker finds the domains due, earliest first, at most the limit.
pub fn domains_are_due_in_order<S: Store>(store: S) {
    let a = setup(&store, Plan::Enterprise);
    let mut ids = Vec::new();
    for (i, at) in [
        Some("2024-01-01T00:03:00Z"),
        Some("2024-01-01T00:01:00Z"),
        None,
        Some("2024-01-01T00:02:00Z"),
        Some("2024-01-01T09:00:00Z"),
    ]
    .into_iter()
    .enumerate()
    {
        let mut d = domain_for(a.id, &format!("d{i}.brand.test"));
        d.verification.next_check_at = at.map(t);
        store.write(|tx| tx.insert_domain(&d)).unwrap();
        ids.push(d.id);
    }
    let due = |limit| {
        store
            .read(|tx| tx.domains_due(t("2024-01-01T00:03:00Z"), limit))
            .unwrap()
            .iter()
            .map(|d| d.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(due(10), [ids[1], ids[3], ids[0]]);
    assert_eq!(due(2), [ids[1], ids[3]]);
}

/// The same code lives on the service's address and on two domains, each found only where
/// it lives; a code deleted or moved stays tombstoned where it was and only there.
pub fn codes_are_unique_per_domain<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    for text in ["go.brand.test", "shop.brand.test"] {
        store
            .write(|tx| tx.insert_domain(&domain_for(a.id, text)))
            .unwrap();
    }
    let code = ShortCode::custom("SUMMER").unwrap();
    let go = name("go.brand.test");
    let shop = name("shop.brand.test");
    let mut base = link_for(a.id, "2024-01-02T00:00:00Z");
    base.short_code = code;
    let mut on_go = link_for(a.id, "2024-01-02T00:00:01Z");
    on_go.short_code = code;
    on_go.domain = Some(go.clone());
    store.write(|tx| tx.insert_link(&base)).unwrap();
    store.write(|tx| tx.insert_link(&on_go)).unwrap();
    let again = {
        let mut l = link_for(a.id, "2024-01-02T00:00:02Z");
        l.short_code = code;
        l.domain = Some(go.clone());
        l
    };
    assert!(store.write(|tx| tx.insert_link(&again)).is_err());
    let found = |domain: Option<&DomainName>| {
        store
            .read(|tx| tx.link_by_code(domain, &ShortCode::presented("summer").unwrap()))
            .unwrap()
            .map(|l| l.id)
    };
    assert_eq!(found(None), Some(base.id));
    assert_eq!(found(Some(&go)), Some(on_go.id));
    assert_eq!(found(Some(&shop)), None);
    assert_eq!(
        store
            .read(|tx| tx.link(a.id, on_go.id))
            .unwrap()
            .unwrap()
            .domain,
        Some(go.clone())
    );
    assert_eq!(store.read(|tx| tx.count_domain_links(&go)).unwrap(), 1);
    assert_eq!(store.read(|tx| tx.count_domain_links(&shop)).unwrap(), 0);

    // Moving the link to another domain tombstones the code where it was.
    let mut moved = on_go.clone();
    moved.domain = Some(shop.clone());
    assert!(store.write(|tx| tx.update_link(&moved)).unwrap());
    assert_eq!(found(Some(&go)), None);
    assert_eq!(found(Some(&shop)), Some(on_go.id));
    assert!(store.read(|tx| tx.code_taken(Some(&go), &code)).unwrap());
    assert_eq!(store.read(|tx| tx.count_domain_links(&go)).unwrap(), 0);
    // Deleting it tombstones it on its domain alone.
    assert!(store.write(|tx| tx.delete_link(a.id, on_go.id)).unwrap());
    assert!(store.read(|tx| tx.code_taken(Some(&shop), &code)).unwrap());
    assert_eq!(found(None), Some(base.id));
    let third = name("third.brand.test");
    assert!(!store.read(|tx| tx.code_taken(Some(&third), &code)).unwrap());
}

/// Orphan visits are counted per day and the latest [`ORPHAN_VISITS_KEPT`] kept, newest
/// first; an unknown domain's visit is ignored.
pub fn orphan_visits_are_counted_and_bounded<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let d = domain_for(a.id, "go.brand.test");
    store.write(|tx| tx.insert_domain(&d)).unwrap();
    let start = t("2024-03-01T10:00:00Z");
    let total = ORPHAN_VISITS_KEPT + 5;
    for i in 0..total {
        let at = start + Duration::minutes(i64::try_from(i).unwrap() * 30);
        let visit = OrphanVisit::new(
            &format!("/MISPRINT{i}"),
            at,
            Some("DE".to_owned()),
            Device::Mobile,
        );
        store
            .write(|tx| tx.record_orphan_visit(d.id, &visit))
            .unwrap();
    }
    store
        .write(|tx| {
            tx.record_orphan_visit(
                DomainId::random(),
                &OrphanVisit::new("/x", start, None, Device::Desktop),
            )
        })
        .unwrap();
    let report = store
        .read(|tx| tx.orphan_visits(d.id, start.date_naive()))
        .unwrap();
    assert_eq!(report.recent.len(), ORPHAN_VISITS_KEPT);
    assert_eq!(report.recent[0].path, format!("/MISPRINT{}", total - 1));
    assert_eq!(report.recent[0].country.as_deref(), Some("DE"));
    assert_eq!(report.recent[0].device, Device::Mobile);
    assert_eq!(report.recent.last().unwrap().path, "/MISPRINT5");
    let counted: u64 = report.daily.iter().map(|d| d.visits).sum();
    assert_eq!(counted, total as u64);
    assert!(report.daily.windows(2).all(|w| w[0].date < w[1].date));
    assert_eq!(report.daily[0].date, start.date_naive());
    // Days older than the kept span are dropped when a later visit arrives.
    let late = start + Duration::days(200);
    store
        .write(|tx| {
            tx.record_orphan_visit(
                d.id,
                &OrphanVisit::new("/late", late, None, Device::Desktop),
            )
        })
        .unwrap();
    let report = store
        .read(|tx| tx.orphan_visits(d.id, start.date_naive()))
        .unwrap();
    assert_eq!(report.daily.len(), 1);
    assert_eq!(report.daily[0].date, late.date_naive());
}

/// The service's rules: plan counts, names, verification by the TXT record, links on a
/// verified domain only (the same code on two places), resolution per host, the failing
/// grace, settings, removal refused while links use a domain, and another server seeing it all.
pub fn service_domains_and_their_links<S: Store>(store: S) {
    let store = Arc::new(store);
    let zone = Arc::new(Zone::default());
    let clock = TestClock::new(t("2024-05-01T10:00:00Z"));
    let svc = domain_service(Arc::clone(&store), &zone, &clock);
    let elsewhere = domain_service(Arc::clone(&store), &zone, &clock);

    let free = svc.create_account("free@example.com", Plan::Free).unwrap();
    let err = svc
        .add_domain(&Caller::operator(free.id), "go.free.test")
        .unwrap_err();
    assert_eq!(err.to_string(), "Custom domains require Starter plan");
    let starter = svc
        .create_account("starter@example.com", Plan::Starter)
        .unwrap();
    let one = svc
        .add_domain(&Caller::operator(starter.id), "one.starter.test")
        .unwrap();
    let err = svc
        .add_domain(&Caller::operator(starter.id), "two.starter.test")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Domain limit reached: the Starter plan allows 1 domain; upgrade to Pro for more"
    );
    svc.delete_domain(&Caller::operator(starter.id), one.id)
        .unwrap();
    let a = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let b = svc.create_account("b@example.com", Plan::Pro).unwrap();
    assert!(matches!(
        svc.add_domain(&Caller::operator(a.id), "go.qr.example"),
        Err(DomainError::Name(_))
    ));
    assert!(matches!(
        svc.add_domain(&Caller::operator(a.id), "127.0.0.1"),
        Err(DomainError::Name(_))
    ));
    let d = svc
        .add_domain(&Caller::operator(a.id), "Go.Brand.Test")
        .unwrap();
    assert_eq!(d.name.as_str(), "go.brand.test");
    assert_eq!(d.status(), DomainStatus::Pending);
    assert_eq!(
        d.verification.next_check_at,
        Some(t("2024-05-01T10:01:00Z"))
    );
    let err = svc
        .add_domain(&Caller::operator(b.id), "go.brand.test")
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Domain go.brand.test is already registered"
    );
    assert!(matches!(svc.domain(b.id, d.id), Err(DomainError::NotFound)));

    // A link cannot go on a pending domain, nor on another account's.
    let on_domain = |code: &str| {
        let mut u = LinkUpdate::parse(Some("Flyer"), Some("https://brand.test/summer")).unwrap();
        u.set_domain("go.brand.test").unwrap();
        u.set_short_code(code).unwrap();
        u
    };
    let refused = |e: LinkError| match e {
        LinkError::Field(f) => match f.rule {
            FieldRule::DomainUnusable(why) => why,
            other => panic!("unexpected rule {other:?}"),
        },
        other => panic!("unexpected error {other:?}"),
    };
    assert_eq!(
        refused(
            svc.create_link_with(&Caller::operator(a.id), on_domain("SUMMER"))
                .unwrap_err()
        ),
        DomainUnusable::Pending
    );
    assert_eq!(
        refused(
            svc.create_link_with(&Caller::operator(b.id), on_domain("SUMMER"))
                .unwrap_err()
        ),
        DomainUnusable::Unknown
    );

    // Checks: the record missing, then of another value, then right.
    let record = d.name.verification_name();
    let checked = svc.check_domain(&Caller::operator(a.id), d.id).unwrap();
    assert_eq!(
        checked
            .verification
            .last_check
            .as_ref()
            .map(|c| c.outcome.clone()),
        Some(CheckOutcome::NxDomain)
    );
    assert!(
        checked
            .reason()
            .unwrap()
            .contains("_qr-verify.go.brand.test")
    );
    zone.set_txt(&record, Ok(vec!["qr-verify=wrong".to_owned()]));
    let checked = svc.check_domain(&Caller::operator(a.id), d.id).unwrap();
    assert_eq!(checked.status(), DomainStatus::Pending);
    assert!(checked.reason().unwrap().contains(&d.token.txt_value()));
    zone.set_txt(&record, Ok(vec![d.token.txt_value()]));
    clock.advance(Duration::minutes(1));
    assert_eq!(svc.check_due_domains().unwrap(), 1);
    let verified = svc.domain(a.id, d.id).unwrap();
    assert_eq!(verified.status(), DomainStatus::Verified);
    assert_eq!(
        verified.verification.routing,
        Some(Routing::PointsAtService)
    );
    assert!(matches!(
        svc.check_domain(&Caller::operator(b.id), d.id),
        Err(DomainError::NotFound)
    ));

    // The same code on the service's address and on the domain, each found only there.
    let base = {
        let mut u = LinkUpdate::parse(Some("Base"), Some("https://example.com/base")).unwrap();
        u.set_short_code("SUMMER").unwrap();
        svc.create_link_with(&Caller::operator(a.id), u).unwrap()
    };
    let link = svc
        .create_link_with(&Caller::operator(a.id), on_domain("SUMMER"))
        .unwrap();
    assert_eq!(link.domain.as_ref(), Some(&d.name));
    let live = |domain: Option<&DomainName>| match svc.resolve(domain, "summer").unwrap() {
        Resolution::Live(l) => Some(l.id),
        _ => None,
    };
    assert_eq!(live(None), Some(base.id));
    assert_eq!(live(Some(&d.name)), Some(link.id));
    assert_eq!(live(Some(&name("shop.brand.test"))), None);
    assert!(matches!(
        svc.create_link_with(&Caller::operator(a.id), on_domain("SUMMER")),
        Err(LinkError::CodeTaken(_))
    ));
    assert_eq!(
        svc.serving_domain("go.brand.test").unwrap().map(|d| d.id),
        Some(d.id)
    );
    assert_eq!(
        svc.serving_domain("GO.BRAND.TEST").unwrap().map(|d| d.id),
        Some(d.id)
    );
    assert_eq!(svc.serving_domain("nobody.test").unwrap(), None);
    assert_eq!(svc.serving_domain("not a host").unwrap(), None);

    // Settings, and removal refused while a link uses the domain.
    let mut update = DomainUpdate::default();
    update.set_root_url("https://brand.test/").unwrap();
    assert!(update.set_not_found_url("javascript:alert(1)").is_err());
    let changed = svc
        .update_domain(&Caller::operator(a.id), d.id, &update)
        .unwrap();
    assert_eq!(
        changed.settings.root_url.unwrap().as_str(),
        "https://brand.test/"
    );
    assert!(matches!(
        svc.update_domain(&Caller::operator(b.id), d.id, &update),
        Err(DomainError::NotFound)
    ));
    let err = svc
        .delete_domain(&Caller::operator(a.id), d.id)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "Domain go.brand.test is used by 1 link; move or delete them first"
    );

    // The record disappears: failing, still serving and taking links for 7 days, then
    // serving without taking new links; its codes keep resolving.
    zone.set_txt(&record, Ok(vec![]));
    clock.advance(Duration::hours(1));
    assert_eq!(svc.check_due_domains().unwrap(), 1);
    let failing = svc.domain(a.id, d.id).unwrap();
    assert_eq!(failing.status(), DomainStatus::Failing);
    svc.create_link_with(&Caller::operator(a.id), on_domain("AUTUMN"))
        .unwrap();
    clock.advance(Duration::days(7));
    assert_eq!(
        refused(
            svc.create_link_with(&Caller::operator(a.id), on_domain("WINTER"))
                .unwrap_err()
        ),
        DomainUnusable::Failing
    );
    assert_eq!(live(Some(&d.name)), Some(link.id));
    // A timeout says nothing about the record: the status stays.
    zone.set_txt(&record, Err(DnsFailure::Timeout));
    let timed_out = svc.check_domain(&Caller::operator(a.id), d.id).unwrap();
    assert_eq!(timed_out.status(), DomainStatus::Failing);
    zone.set_txt(&record, Ok(vec![d.token.txt_value()]));
    assert_eq!(
        svc.check_domain(&Caller::operator(a.id), d.id)
            .unwrap()
            .status(),
        DomainStatus::Verified
    );

    // Another server sees the domain within a second, and its removal likewise.
    assert_eq!(
        elsewhere
            .serving_domain("go.brand.test")
            .unwrap()
            .map(|x| x.id),
        Some(d.id)
    );
    for l in svc.links(a.id).unwrap() {
        svc.delete_link(&Caller::operator(a.id), l.id).unwrap();
    }
    svc.delete_domain(&Caller::operator(a.id), d.id).unwrap();
    assert_eq!(svc.serving_domain("go.brand.test").unwrap(), None);
    std::thread::sleep(std::time::Duration::from_millis(1_100));
    assert_eq!(elsewhere.serving_domain("go.brand.test").unwrap(), None);
    // Its codes stay tombstoned if the name comes back.
    let back = svc
        .add_domain(&Caller::operator(b.id), "go.brand.test")
        .unwrap();
    assert_eq!(back.account_id, b.id);
    assert!(
        store
            .read(|tx| tx.code_taken(Some(&back.name), &ShortCode::custom("SUMMER").unwrap()))
            .unwrap()
    );
}

/// A rule may open an app: `tel:` and its kin on any link, a custom scheme only on a domain
/// that declares it (refused, naming the scheme and where to declare it, on the service's own
/// address and on a domain without it); removing the scheme keeps the rules stored, which still
/// redirect, and only a new or changed rule, or a move to another domain, is checked again.
pub fn service_app_rules_follow_their_domain<S: Store>(store: S) {
    let store = Arc::new(store);
    let zone = Arc::new(Zone::default());
    let clock = TestClock::new(t("2024-05-01T10:00:00Z"));
    let svc = domain_service(Arc::clone(&store), &zone, &clock);
    let a = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let verified = |text: &str| {
        let d = svc.add_domain(&Caller::operator(a.id), text).unwrap();
        zone.set_txt(&d.name.verification_name(), Ok(vec![d.token.txt_value()]));
        svc.check_domain(&Caller::operator(a.id), d.id).unwrap()
    };
    let d = verified("go.brand.test");
    let other = verified("shop.brand.test");
    let rules = |targets: &[&'static str]| -> Vec<RuleInput<'static>> {
        targets
            .iter()
            .map(|target| RuleInput {
                device: Some("mobile"),
                target_url: target,
                ..RuleInput::default()
            })
            .collect()
    };
    let link_with = |domain: Option<&str>, code: &str, targets: &[&'static str]| {
        let mut u = LinkUpdate::parse(Some("App"), Some("https://brand.test/")).unwrap();
        if let Some(domain) = domain {
            u.set_domain(domain).unwrap();
        }
        u.set_short_code(code).unwrap();
        u.set_rules(&rules(targets)).unwrap();
        svc.create_link_with(&Caller::operator(a.id), u)
    };
    let message = |e: LinkError| e.to_string();

    // tel: and its kin on any link; a custom scheme nowhere undeclared.
    link_with(None, "CALL", &["tel:+4930123", "geo:52.52,13.405"]).unwrap();
    assert_eq!(
        message(
            link_with(None, "BRANDAPP", &["tel:+4930123", "brandapp://product/42"]).unwrap_err()
        ),
        "invalid rules[1].targetUrl: brandapp: is an app scheme, which only a link on a custom domain may use once the domain lists it in its appSchemes (PUT /api/domains); tel:, mailto:, sms: and geo: work on every link"
    );
    assert_eq!(
        message(
            link_with(
                Some("go.brand.test"),
                "BRANDAPP",
                &["brandapp://product/42"]
            )
            .unwrap_err()
        ),
        "invalid rules[0].targetUrl: brandapp: is not an app scheme of go.brand.test; add brandapp to the domain's appSchemes (PUT /api/domains) first"
    );
    let mut declare = DomainUpdate::default();
    declare.set_app_schemes(&["BrandApp"]).unwrap();
    let declared = svc
        .update_domain(&Caller::operator(a.id), d.id, &declare)
        .unwrap();
    assert_eq!(declared.settings.app_schemes[0].as_str(), "brandapp");
    let link = link_with(
        Some("go.brand.test"),
        "BRANDAPP",
        &["brandapp://product/42"],
    )
    .unwrap();
    let stored = svc.link(a.id, link.id).unwrap();
    assert_eq!(
        stored.options.get().map(|o| o.rules[0].target_url.clone()),
        Some(RuleTarget::parse("brandapp://product/42").unwrap())
    );

    // The scheme removed: the stored rule stays and an unrelated change passes; a new rule
    // with the scheme is refused, and so is a move to a domain without it.
    let mut remove = DomainUpdate::default();
    remove.clear(crate::domains::service::DomainSetting::AppSchemes);
    assert!(
        svc.update_domain(&Caller::operator(a.id), d.id, &remove)
            .unwrap()
            .settings
            .app_schemes
            .is_empty()
    );
    let rename = LinkUpdate::parse(Some("Renamed"), None).unwrap();
    let renamed = svc
        .update_link(&Caller::operator(a.id), link.id, &rename)
        .unwrap();
    assert_eq!(renamed.options, stored.options);
    let mut kept = LinkUpdate::default();
    kept.set_rules(&rules(&["tel:+4930123", "brandapp://product/42"]))
        .unwrap();
    svc.update_link(&Caller::operator(a.id), link.id, &kept)
        .unwrap();
    let mut added = LinkUpdate::default();
    added.set_rules(&rules(&["brandapp://product/43"])).unwrap();
    assert!(
        message(
            svc.update_link(&Caller::operator(a.id), link.id, &added)
                .unwrap_err()
        )
        .contains("brandapp: is not an app scheme of go.brand.test")
    );
    let mut moved = LinkUpdate::default();
    moved.set_domain("shop.brand.test").unwrap();
    assert!(
        message(
            svc.update_link(&Caller::operator(a.id), link.id, &moved)
                .unwrap_err()
        )
        .contains("brandapp: is not an app scheme of shop.brand.test")
    );
    let mut base = LinkUpdate::default();
    base.clear_domain();
    assert!(
        message(
            svc.update_link(&Caller::operator(a.id), link.id, &base)
                .unwrap_err()
        )
        .contains("brandapp: is an app scheme")
    );
    assert!(matches!(
        svc.resolve(Some(&d.name), "brandapp").unwrap(),
        Resolution::Live(l) if l.options == svc.link(a.id, link.id).unwrap().options
    ));
    // Another account's declaration is no declaration for this one.
    let mut declare_other = DomainUpdate::default();
    declare_other.set_app_schemes(&["shopapp"]).unwrap();
    svc.update_domain(&Caller::operator(a.id), other.id, &declare_other)
        .unwrap();
    let b = svc.create_account("b@example.com", Plan::Pro).unwrap();
    let mut theirs = LinkUpdate::parse(Some("B"), Some("https://b.example/")).unwrap();
    theirs.set_rules(&rules(&["shopapp://x"])).unwrap();
    assert!(
        svc.create_link_with(&Caller::operator(b.id), theirs)
            .is_err()
    );
}
