//! Contract checks of links' campaign fields: the stored tags, options and custom codes, listing with filters and cursors, scans with their variant and rule, and the service's rules on top (plans, codes, gates, passwords, rules, variants, UTM).

use crate::accounts::caller::Caller;
use crate::accounts::plan::Plan;
use crate::contract::{DESKTOP, PHONE, link_for, scan, service, setup, t, visit};
use crate::dashboard::password::{Password, PasswordHash};
use crate::error::StoreError;
use crate::links::campaign::{
    FieldError, FieldRule, LinkField, LinkOptions, Options, Tag, UtmPart,
};
use crate::links::link::{LinkError, LinkUpdate, RuleInput, VariantInput};
use crate::links::listing::{LinkListQuery, LinkQuery};
use crate::links::shortcode::ShortCode;
use crate::scans::analytics::AnalyticsQuery;
use crate::scans::geo::GeoHint;
use crate::service::{
    LINK_PASSWORD_BURST, Landing, Opening, PasswordPrompt, PreparedScan, ScanOutcome,
};
use crate::store::Store;
use chrono::Duration;
use std::collections::{BTreeMap, BTreeSet};

const IPHONE: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1";

/// The fields `set` gives, on top of `base`, through the typed setters.
fn fields_on(
    mut base: LinkUpdate,
    set: impl FnOnce(&mut LinkUpdate) -> Result<(), FieldError>,
) -> LinkUpdate {
    set(&mut base).expect("valid fields");
    base
}

/// An update of the fields `set` gives.
fn fields(set: impl FnOnce(&mut LinkUpdate) -> Result<(), FieldError>) -> LinkUpdate {
    fields_on(LinkUpdate::default(), set)
}

/// The rule "on a phone, to https://m.example".
fn mobile_rule() -> [RuleInput<'static>; 1] {
    [RuleInput {
        device: Some("mobile"),
        target_url: "https://m.example",
        ..RuleInput::default()
    }]
}

fn opening(ip: &str, ua: &str) -> Opening {
    Opening {
        visit: visit(ip, ua),
        record: true,
        ..Opening::default()
    }
}

fn redirect_target(landing: &Landing) -> &str {
    match landing {
        Landing::Redirect { target, .. } => target,
        other => panic!("expected a redirect, got {other:?}"),
    }
}

/// Tags, options (the password's hash included) and custom codes are stored and read back; a
/// custom code is found without regard to case and is unique by its key; changing a link's
/// code tombstones the old one, and a taken code is refused.
pub fn links_keep_tags_options_and_custom_codes<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let mut l = link_for(a.id, "2024-01-02T00:00:00Z");
    l.short_code = ShortCode::custom("Spring-Sale").unwrap();
    l.tags = vec![Tag::parse("spring").unwrap(), Tag::parse("print").unwrap()];
    let hash = PasswordHash::of(&Password::unchecked("letmein")).unwrap();
    let mut options = LinkOptions::from_stored(
        r#"{"maxScans":5,"disabled":true,"forwardQuery":true,"utm":{"source":"poster"},
            "rules":[{"when":{"os":"ios","language":"de"},"targetUrl":"https://apps.example/"},
                     {"when":{"os":"android"},"targetUrl":"brandapp://product/42?ref=Poster"},
                     {"when":{"device":"mobile"},"targetUrl":"tel:+49-(30)-123%20456"}],
            "variants":[{"targetUrl":"https://a.example/","weight":1},{"targetUrl":"https://b.example/","weight":3}],
            "validFrom":"2024-01-01T00:00:00.000001Z","expiredUrl":"https://over.example/"}"#,
    )
    .unwrap();
    options.password = Some(hash);
    // App targets are kept as written, but for their scheme's case.
    assert_eq!(
        options.rules[1].target_url.as_str(),
        "brandapp://product/42?ref=Poster"
    );
    assert_eq!(
        options.rules[2].target_url.as_str(),
        "tel:+49-(30)-123%20456"
    );
    l.options = Options::new(options);
    store.write(|tx| tx.insert_link(&l)).unwrap();
    assert_eq!(
        store.read(|tx| tx.link(a.id, l.id)).unwrap(),
        Some(l.clone())
    );
    let presented = ShortCode::presented("spring-SALE").unwrap();
    assert_eq!(
        store.read(|tx| tx.link_by_code(None, &presented)).unwrap(),
        Some(l.clone())
    );
    assert!(store.read(|tx| tx.code_taken(None, &presented)).unwrap());
    let mut clash = link_for(a.id, "2024-01-03T00:00:00Z");
    clash.short_code = ShortCode::custom("SPRING-sale").unwrap();
    assert!(matches!(
        store.write(|tx| tx.insert_link(&clash)),
        Err(StoreError::Conflict(_))
    ));
    store
        .write(|tx| tx.insert_link(&link_for(a.id, "2024-01-03T00:00:00Z")))
        .unwrap();
    // A new code, tags cleared, options cleared: the old code is never issued again.
    let mut changed = l.clone();
    changed.short_code = ShortCode::custom("summer").unwrap();
    changed.tags = Vec::new();
    changed.options = Options::default();
    changed.updated_at = t("2024-01-04T00:00:00Z");
    assert!(store.write(|tx| tx.update_link(&changed)).unwrap());
    assert_eq!(
        store.read(|tx| tx.link(a.id, l.id)).unwrap(),
        Some(changed.clone())
    );
    assert_eq!(
        store.read(|tx| tx.link_by_code(None, &presented)).unwrap(),
        None
    );
    assert!(store.read(|tx| tx.code_taken(None, &presented)).unwrap());
    assert_eq!(
        store
            .read(|tx| tx.link_by_code(None, &ShortCode::presented("SUMMER").unwrap()))
            .unwrap()
            .map(|l| l.id),
        Some(l.id)
    );
    // The same code in another case is the same code: allowed, and shown as written.
    let mut recased = changed.clone();
    recased.short_code = ShortCode::custom("Summer").unwrap();
    assert!(store.write(|tx| tx.update_link(&recased)).unwrap());
    assert_eq!(
        store
            .read(|tx| tx.link(a.id, l.id))
            .unwrap()
            .map(|l| l.short_code.to_string()),
        Some("Summer".to_owned())
    );
    let mut onto_tombstone = recased.clone();
    onto_tombstone.short_code = ShortCode::custom("spring-sale").unwrap();
    assert!(matches!(
        store.write(|tx| tx.update_link(&onto_tombstone)),
        Err(StoreError::Conflict(_))
    ));
}

/// `list_links` filters by search text (name, target or code, ASCII case ignored) and tag,
/// lists newest first with the id breaking ties, and pages from a cursor without skipping or
/// repeating a link.
pub fn links_are_listed_with_filters_and_cursors<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let b = setup(&store, Plan::Pro);
    let mut links = Vec::new();
    for i in 0..7 {
        // Two links share each creation time, so the id orders them.
        let mut l = link_for(a.id, &format!("2024-01-0{}T00:00:00Z", 1 + i / 2));
        l.name = crate::links::link::LinkName::parse(&format!("Flyer {i}")).unwrap();
        if i % 2 == 0 {
            l.tags = vec![Tag::parse("even").unwrap()];
        }
        store.write(|tx| tx.insert_link(&l)).unwrap();
        links.push(l);
    }
    let mut other = link_for(b.id, "2024-01-09T00:00:00Z");
    other.tags = vec![Tag::parse("even").unwrap()];
    store.write(|tx| tx.insert_link(&other)).unwrap();
    links.sort_by_key(|l| std::cmp::Reverse((l.created_at, l.id.as_uuid())));
    let query = |search: Option<&str>, tag: Option<&str>, limit: u32| LinkQuery {
        search: search.map(str::to_owned),
        tag: tag.map(|t| Tag::parse(t).unwrap()),
        after: None,
        limit,
    };
    let ids = |v: Vec<crate::links::link::Link>| v.into_iter().map(|l| l.id).collect::<Vec<_>>();
    let all = store
        .read(|tx| tx.list_links(a.id, &query(None, None, 100)))
        .unwrap();
    assert_eq!(ids(all), links.iter().map(|l| l.id).collect::<Vec<_>>());
    let even = store
        .read(|tx| tx.list_links(a.id, &query(None, Some("even"), 100)))
        .unwrap();
    assert_eq!(even.len(), 4);
    assert!(even.iter().all(|l| l.account_id == a.id));
    let found = store
        .read(|tx| tx.list_links(a.id, &query(Some("flyer 3"), None, 100)))
        .unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].name.as_str(), "Flyer 3");
    let code = links[2].short_code.as_str().to_ascii_lowercase();
    let by_code = store
        .read(|tx| tx.list_links(a.id, &query(Some(&code), None, 100)))
        .unwrap();
    assert_eq!(ids(by_code), vec![links[2].id]);
    let by_target = store
        .read(|tx| tx.list_links(a.id, &query(Some("example.com"), Some("even"), 2)))
        .unwrap();
    assert_eq!(by_target.len(), 2);
    // Pages of 3 from cursors, through the service's parameters.
    let (svc, _clock) = service(store, "2024-02-01T00:00:00Z");
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let q = LinkListQuery::parse(None, None, Some("3"), cursor.as_deref()).unwrap();
        let page = svc.list_links(a.id, &q).unwrap();
        assert!(page.links.len() <= 3);
        seen.extend(page.links.iter().map(|l| l.id));
        match page.next_cursor {
            Some(c) => cursor = Some(c.to_string()),
            None => break,
        }
    }
    assert_eq!(seen, links.iter().map(|l| l.id).collect::<Vec<_>>());
    let whole = svc
        .list_links(a.id, &LinkListQuery::parse(None, None, None, None).unwrap())
        .unwrap();
    assert_eq!((whole.links.len(), whole.next_cursor), (7, None));
}

/// Scans keep the variant and the rule they went to.
pub fn scans_keep_their_variant_and_rule<S: Store>(store: S) {
    let a = setup(&store, Plan::Pro);
    let l = link_for(a.id, "2024-01-01T00:00:00Z");
    store.write(|tx| tx.insert_link(&l)).unwrap();
    let mut first = scan(
        l.id,
        "2024-01-02T00:00:00Z",
        1,
        "DE",
        crate::scans::scan::Device::Mobile,
        "Chrome",
    );
    first.variant = Some(1);
    let mut second = scan(
        l.id,
        "2024-01-02T00:00:01Z",
        2,
        "DE",
        crate::scans::scan::Device::Mobile,
        "Chrome",
    );
    second.rule = Some(4);
    let third = scan(
        l.id,
        "2024-01-02T00:00:02Z",
        3,
        "DE",
        crate::scans::scan::Device::Mobile,
        "Chrome",
    );
    store.record_scans(&[first, second, third]).unwrap();
    let recent = store
        .read(|tx| {
            tx.recent_scans(
                l.id,
                t("2024-01-02T00:00:00Z"),
                t("2024-01-03T00:00:00Z"),
                10,
            )
        })
        .unwrap();
    let picks: Vec<(Option<u8>, Option<u8>)> = recent.iter().map(|r| (r.variant, r.rule)).collect();
    assert_eq!(picks, vec![(None, None), (None, Some(4)), (Some(1), None)]);
}

/// Plans: each field names the plan it needs (clearing never needs one); custom codes are
/// refused when taken or tombstoned; a validity must end after it starts; fields come back.
pub fn service_campaign_fields_follow_the_plans<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let free = svc.create_account("free@example.com", Plan::Free).unwrap();
    let starter = svc
        .create_account("starter@example.com", Plan::Starter)
        .unwrap();
    let pro = svc.create_account("pro@example.com", Plan::Pro).unwrap();
    let with = |set: &dyn Fn(&mut LinkUpdate) -> Result<(), FieldError>| {
        let base = LinkUpdate::parse(Some("L"), Some("https://example.com")).unwrap();
        fields_on(base, set)
    };
    let needs = |r: Result<crate::links::link::Link, LinkError>| match r {
        Err(e @ LinkError::PlanRequired { .. }) => e.to_string(),
        other => panic!("expected a plan refusal, got {other:?}"),
    };
    // Free: tags, pausing, UTM and query forwarding.
    let l = svc
        .create_link_with(
            &Caller::operator(free.id),
            with(&|u| {
                u.set_tags(&["a"])?;
                u.set_disabled(true);
                u.set_utm(Some(&[(UtmPart::Source, "x")]))?;
                u.set_forward_query(true);
                Ok(())
            }),
        )
        .unwrap();
    assert_eq!(l.tags, vec![Tag::parse("a").unwrap()]);
    assert!(l.options.get().unwrap().disabled);
    assert_eq!(
        needs(svc.create_link_with(
            &Caller::operator(free.id),
            with(&|u| u.set_short_code("mine"))
        )),
        "shortCode requires Starter plan"
    );
    assert_eq!(
        needs(svc.create_link_with(
            &Caller::operator(free.id),
            with(&|u| u.set_max_scans(Some(3)))
        )),
        "maxScans requires Starter plan"
    );
    assert_eq!(
        needs(svc.create_link_with(
            &Caller::operator(starter.id),
            with(&|u| u.set_password(Some("open sesame")))
        )),
        "password requires Pro plan"
    );
    assert_eq!(
        needs(svc.create_link_with(
            &Caller::operator(starter.id),
            with(&|u| u.set_rules(&mobile_rule()))
        )),
        "rules requires Pro plan"
    );
    assert_eq!(
        needs(svc.update_link(
            &Caller::operator(free.id),
            l.id,
            &with(&|u| {
                u.set_valid_until(Some(t("2030-01-01T00:00:00Z")));
                Ok(())
            })
        )),
        "validUntil requires Starter plan"
    );
    // Clearing needs no plan.
    let cleared = svc
        .update_link(
            &Caller::operator(free.id),
            l.id,
            &fields(|u| {
                u.set_rules(&[])?;
                u.set_valid_until(None);
                u.set_disabled(false);
                Ok(())
            }),
        )
        .unwrap();
    assert!(!cleared.options.or_default().disabled);
    // Codes.
    let mine = svc
        .create_link_with(
            &Caller::operator(starter.id),
            with(&|u| {
                u.set_short_code("Spring-Sale")?;
                u.set_max_scans(Some(10))
            }),
        )
        .unwrap();
    assert_eq!(mine.short_code.as_str(), "Spring-Sale");
    assert!(matches!(
        svc.create_link_with(
            &Caller::operator(pro.id),
            with(&|u| u.set_short_code("spring-sale"))
        ),
        Err(LinkError::CodeTaken(_))
    ));
    svc.delete_link(&Caller::operator(starter.id), mine.id)
        .unwrap();
    assert!(matches!(
        svc.create_link_with(
            &Caller::operator(pro.id),
            with(&|u| u.set_short_code("SPRING-SALE"))
        ),
        Err(LinkError::CodeTaken(_))
    ));
    let generated = svc
        .create_link(&Caller::operator(pro.id), "G", "https://example.com")
        .unwrap();
    assert!(matches!(
        svc.create_link_with(
            &Caller::operator(pro.id),
            with(&|u| u.set_short_code(&generated.short_code.as_str().to_lowercase()))
        ),
        Err(LinkError::CodeTaken(_))
    ));
    let moved = svc
        .update_link(
            &Caller::operator(pro.id),
            generated.id,
            &fields(|u| u.set_short_code("moved")),
        )
        .unwrap();
    assert_eq!(moved.short_code.as_str(), "moved");
    assert_eq!(
        svc.resolve(None, generated.short_code.as_str()).unwrap(),
        crate::service::Resolution::Gone
    );
    assert_eq!(
        svc.create_link_with(
            &Caller::operator(pro.id),
            with(&|u| {
                u.set_valid_from(Some(t("2024-06-01T00:00:00Z")));
                u.set_valid_until(Some(t("2024-06-01T00:00:00Z")));
                Ok(())
            })
        )
        .unwrap_err(),
        LinkError::Field(FieldError::new(
            LinkField::ValidUntil,
            FieldRule::UntilNotAfterFrom
        ))
    );
    let full = svc
        .create_link_with(
            &Caller::operator(pro.id),
            with(&|u| {
                u.set_password(Some("open sesame"))?;
                u.set_rules(&mobile_rule())?;
                u.set_variants(&[
                    VariantInput {
                        target_url: "https://a.example",
                        weight: Some(1),
                    },
                    VariantInput {
                        target_url: "https://b.example",
                        weight: Some(1),
                    },
                ])
            }),
        )
        .unwrap();
    let back = svc.link(pro.id, full.id).unwrap();
    assert_eq!(back, full);
    let o = back.options.get().unwrap();
    assert!(o.password.as_ref().unwrap().verify("open sesame"));
    assert_eq!((o.rules.len(), o.variants.len()), (1, 2));
    // The password can be removed.
    let open = svc
        .update_link(
            &Caller::operator(pro.id),
            full.id,
            &fields(|u| u.set_password(None)),
        )
        .unwrap();
    assert!(open.options.get().unwrap().password.is_none());
}

/// Paused, not yet active, expired (by time and by scans, with and without expiredUrl) links
/// answer without a scan; the password form, a wrong password, its throttle and the right one
/// (recorded once); rules by device, OS, country and language; sticky variants recorded with
/// each scan; UTM and the forwarded query without duplicates.
pub fn service_campaign_visits<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let create = |set: &dyn Fn(&mut LinkUpdate) -> Result<(), FieldError>| {
        let base =
            LinkUpdate::parse(Some("L"), Some("https://example.com/landing?ref=qr")).unwrap();
        svc.create_link_with(&Caller::operator(a.id), fields_on(base, set))
            .unwrap()
    };
    let phone = opening("192.0.2.1", PHONE);
    let paused = create(&|u| {
        u.set_disabled(true);
        Ok(())
    });
    assert_eq!(svc.open(&paused, &phone).unwrap(), Landing::Paused);
    assert_eq!(svc.open_in_memory(&paused, &phone), Some(Landing::Paused));
    let later = create(&|u| {
        u.set_valid_from(Some(t("2024-05-02T00:00:00Z")));
        Ok(())
    });
    assert_eq!(svc.open(&later, &phone).unwrap(), Landing::NotYetActive);
    let over = create(&|u| {
        u.set_valid_until(Some(t("2024-05-01T10:00:00Z")));
        u.set_expired_url(Some("https://over.example"))
    });
    assert_eq!(
        svc.open(&over, &phone).unwrap(),
        Landing::Expired {
            expired_url: Some("https://over.example/".into())
        }
    );
    // Two scans allowed, then the expired page.
    let capped = create(&|u| u.set_max_scans(Some(2)));
    for ip in ["192.0.2.10", "192.0.2.11"] {
        let landing = svc
            .open(&svc.link(a.id, capped.id).unwrap(), &opening(ip, PHONE))
            .unwrap();
        let Landing::Redirect {
            scan: Some(scan), ..
        } = landing
        else {
            panic!("expected a recorded redirect");
        };
        assert!(matches!(
            svc.record_prepared(scan).unwrap(),
            ScanOutcome::Recorded(_)
        ));
    }
    assert_eq!(
        svc.open(&svc.link(a.id, capped.id).unwrap(), &phone)
            .unwrap(),
        Landing::Expired { expired_url: None }
    );
    // Passwords: the form, wrong ones up to the throttle, then the right one redirects once.
    let locked = create(&|u| u.set_password(Some("open sesame")));
    assert_eq!(
        svc.open_in_memory(&locked, &phone),
        Some(Landing::Password(PasswordPrompt::Ask))
    );
    let attempt = |ip: &str, password: &str| {
        let mut o = opening(ip, PHONE);
        o.password = Some(password.to_owned());
        assert_eq!(
            svc.open_in_memory(&locked, &o),
            None,
            "verified off the async thread"
        );
        svc.open(&locked, &o).unwrap()
    };
    for _ in 0..LINK_PASSWORD_BURST {
        assert_eq!(
            attempt("192.0.2.20", "guess"),
            Landing::Password(PasswordPrompt::Wrong)
        );
    }
    assert!(
        matches!(
            attempt("192.0.2.20", "open sesame"),
            Landing::Password(PasswordPrompt::Throttled(_))
        ),
        "throttled whatever the password"
    );
    let Landing::Redirect {
        target,
        scan: Some(PreparedScan::Record(scan)),
        ..
    } = attempt("192.0.2.21", "open sesame")
    else {
        panic!("the right password redirects and records");
    };
    assert_eq!(target, "https://example.com/landing?ref=qr");
    svc.record_prepared(PreparedScan::Record(scan)).unwrap();
    assert_eq!(svc.link(a.id, locked.id).unwrap().scan_count, 1);
    clock.advance(Duration::seconds(13));
    assert!(matches!(
        attempt("192.0.2.20", "open sesame"),
        Landing::Redirect { .. }
    ));
    // Rules.
    let ruled = create(&|u| {
        u.set_rules(&[
            RuleInput {
                os: Some("ios"),
                target_url: "https://apps.apple.example/",
                ..RuleInput::default()
            },
            RuleInput {
                device: Some("mobile"),
                language: Some("de"),
                target_url: "https://de.example/",
                ..RuleInput::default()
            },
            RuleInput {
                country: Some("FR"),
                target_url: "https://fr.example/",
                ..RuleInput::default()
            },
        ])
    });
    let route = |o: &Opening| match svc.open(&ruled, o).unwrap() {
        Landing::Redirect {
            target,
            scan: Some(PreparedScan::Record(s)),
            ..
        } => {
            let rule = s.rule;
            svc.record_prepared(PreparedScan::Record(s)).unwrap();
            (target, rule)
        }
        other => panic!("unexpected {other:?}"),
    };
    assert_eq!(
        route(&opening("192.0.2.30", IPHONE)),
        ("https://apps.apple.example/".into(), Some(0))
    );
    let mut german = opening("192.0.2.31", PHONE);
    german.accept_language = Some("de-AT,de;q=0.9,en;q=0.5".into());
    assert_eq!(route(&german), ("https://de.example/".into(), Some(1)));
    let mut french = opening("192.0.2.32", DESKTOP);
    french.visit.hint = GeoHint {
        country: Some("fr".into()),
        city: None,
    };
    assert_eq!(route(&french), ("https://fr.example/".into(), Some(2)));
    assert_eq!(
        route(&opening("192.0.2.33", DESKTOP)),
        ("https://example.com/landing?ref=qr".into(), None)
    );
    // The analytics count the scans each rule decided (the fourth went to the link's target).
    let report = svc
        .analytics(&a, ruled.id, &AnalyticsQuery::default())
        .unwrap()
        .analytics;
    let by_rule: Vec<(u8, u64)> = report
        .scans_by_rule
        .iter()
        .map(|r| (r.rule, r.scans))
        .collect();
    assert_eq!(by_rule, [(0, 1), (1, 1), (2, 1)]);
    assert_eq!(report.total_scans, 4);
    assert_eq!(
        report.scans_by_variant, None,
        "no variants, no variant breakdown"
    );
    // Variants: sticky for a visitor, both used, recorded; HEAD-like visits record nothing.
    let split = create(&|u| {
        u.set_variants(&[
            VariantInput {
                target_url: "https://a.example/",
                weight: Some(1),
            },
            VariantInput {
                target_url: "https://b.example/",
                weight: Some(1),
            },
        ])
    });
    let mut chosen = BTreeSet::new();
    let mut per_variant: BTreeMap<u8, u64> = BTreeMap::new();
    for i in 0..40 {
        let o = opening(&format!("198.51.100.{i}"), PHONE);
        let first = svc.open(&split, &o).unwrap();
        let again = svc.open_in_memory(&split, &o).unwrap();
        let (
            Landing::Redirect {
                target: t1,
                scan: Some(PreparedScan::Record(s)),
                ..
            },
            Landing::Redirect { target: t2, .. },
        ) = (first, again)
        else {
            panic!("variants redirect");
        };
        assert_eq!(t1, t2, "sticky for the visitor");
        let expected = if s.variant == Some(0) {
            "https://a.example/"
        } else {
            "https://b.example/"
        };
        assert_eq!(t1, expected);
        *per_variant.entry(s.variant.unwrap()).or_default() += 1;
        svc.record_prepared(PreparedScan::Record(s)).unwrap();
        chosen.insert(t1);
    }
    assert_eq!(chosen.len(), 2, "both variants are used");
    let report = svc
        .analytics(&a, split.id, &AnalyticsQuery::default())
        .unwrap()
        .analytics;
    let mut by_variant: Vec<(u8, u64)> = report
        .scans_by_variant
        .expect("a split link has a variant breakdown")
        .iter()
        .map(|v| (v.variant, v.scans))
        .collect();
    by_variant.sort();
    assert_eq!(by_variant, per_variant.into_iter().collect::<Vec<_>>());
    assert!(report.scans_by_rule.is_empty());
    let head = Opening {
        record: false,
        ..opening("198.51.100.1", PHONE)
    };
    assert!(matches!(
        svc.open(&split, &head).unwrap(),
        Landing::Redirect { scan: None, .. }
    ));
    // UTM and the scan's query, never twice.
    let tagged = create(&|u| {
        u.set_utm(Some(&[
            (UtmPart::Source, "poster"),
            (UtmPart::Campaign, "spring"),
        ]))?;
        u.set_forward_query(true);
        Ok(())
    });
    let mut o = opening("192.0.2.40", PHONE);
    o.query = Some("ref=scan&utm_campaign=other&table=7".into());
    assert_eq!(
        redirect_target(&svc.open(&tagged, &o).unwrap()),
        "https://example.com/landing?ref=qr&utm_source=poster&utm_campaign=spring&table=7"
    );
    // A link without settings redirects as before and ignores the query.
    let plain = svc
        .create_link(&Caller::operator(a.id), "P", "https://example.com/p")
        .unwrap();
    assert_eq!(
        redirect_target(&svc.open(&plain, &o).unwrap()),
        "https://example.com/p"
    );
}
