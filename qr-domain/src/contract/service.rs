//! Contract checks of the service rules over a store: quotas and rates, keys, links, scans, analytics, caches and accounts.

use std::sync::Arc;

use chrono::Duration;

use crate::accounts::access::{AccessError, AccessRequest, Endpoint, IpRule, KeySettings};
use crate::accounts::account::Email;
use crate::accounts::key::{ApiKeySecret, KeyMode};
use crate::accounts::limits::LimitKind;
use crate::accounts::plan::{EnterpriseOverrides, Feature, Limit, PerSecond, Plan};
use crate::clock::TestClock;
use crate::links::link::{LinkError, LinkUpdate, parse_link_id};
use crate::links::shortcode::ShortCode;
use crate::scans::analytics::{AnalyticsError, AnalyticsQuery, QueryError};
use crate::scans::geo::NoGeoLocator;
use crate::scans::scan::Device;
use crate::service::{
    AUTH_FAILURE_BURST, AdminError, AuthError, MAX_SCANS_PER_VISITOR_MINUTE, Resolution,
    ScanOutcome, Service, Skip,
};
use crate::store::Store;

use super::{DESKTOP, PHONE, query, service, t, until_changes_heard, visit};

/// The monthly quota counts per UTC month and resets on the 1st at 00:00 UTC.
pub fn service_month_rollover_resets_quota<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-01-31T23:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let (_, secret) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let ctx = svc
        .authenticate(Some(secret.expose_secret()), None)
        .unwrap();
    for i in 0..1_000 {
        clock.advance(Duration::milliseconds(500));
        let ok = svc
            .admit(&ctx, false)
            .unwrap_or_else(|r| panic!("request {i} rejected: {r:?}"));
        assert_eq!(ok.status.remaining, Limit::Max(999 - i));
    }
    clock.set(t("2024-01-31T23:59:59.250Z"));
    let r = svc.admit(&ctx, false).unwrap_err();
    assert_eq!(r.kind, LimitKind::MonthlyQuota);
    assert_eq!(r.retry_after_secs, 1);
    assert_eq!(r.status.reset, t("2024-02-01T00:00:00Z"));
    clock.set(t("2024-01-31T22:59:59Z"));
    assert_eq!(svc.admit(&ctx, false).unwrap_err().retry_after_secs, 3601);
    assert_eq!(
        svc.usage(&ctx).usage.current,
        1_000,
        "rejections are not counted"
    );
    clock.set(t("2024-02-01T00:00:00Z"));
    let ok = svc.admit(&ctx, false).unwrap();
    assert_eq!(ok.status.remaining, Limit::Max(999));
    assert_eq!(ok.status.reset, t("2024-03-01T00:00:00Z"));
    assert_eq!(svc.usage(&ctx).usage.current, 1);
}

/// Per-second GCRA per key (burst of one second), batch requests per minute per account.
pub fn service_rate_limit_edges<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-03-10T12:00:00Z");
    let free = svc.create_account("f@example.com", Plan::Free).unwrap();
    let (k1, s1) = svc.create_key(free.id, KeyMode::Live).unwrap();
    let (_, s2) = svc.create_key(free.id, KeyMode::Test).unwrap();
    let c1 = svc.authenticate(Some(s1.expose_secret()), None).unwrap();
    let c2 = svc.authenticate(Some(s2.expose_secret()), None).unwrap();
    assert!(svc.admit(&c1, false).is_ok());
    assert!(svc.admit(&c1, false).is_ok());
    let r = svc.admit(&c1, false).unwrap_err();
    assert_eq!((r.kind, r.retry_after_secs), (LimitKind::PerSecond, 1));
    assert!(svc.admit(&c2, false).is_ok(), "the rate is per key");
    clock.advance(Duration::milliseconds(499));
    assert!(svc.admit(&c1, false).is_err());
    clock.advance(Duration::milliseconds(1));
    assert!(svc.admit(&c1, false).is_ok());
    assert_eq!(svc.usage(&c1).usage.current, 4);
    // A key's own lower rate applies.
    let mut settings = KeySettings {
        rate_per_second: Some(PerSecond::new(1).unwrap()),
        ..Default::default()
    };
    svc.update_key_settings(k1.id, settings.clone()).unwrap();
    clock.advance(Duration::seconds(10));
    let c1 = svc.authenticate(Some(s1.expose_secret()), None).unwrap();
    assert!(svc.admit(&c1, false).is_ok());
    assert_eq!(
        svc.admit(&c1, false).unwrap_err().kind,
        LimitKind::PerSecond
    );
    settings.rate_per_second = Some(PerSecond::new(3).unwrap());
    assert!(
        svc.update_key_settings(k1.id, settings).is_err(),
        "above the plan's rate"
    );
    // Batch: Pro allows 10 per minute per account.
    let pro = svc.create_account("p@example.com", Plan::Pro).unwrap();
    let (_, sp) = svc.create_key(pro.id, KeyMode::Live).unwrap();
    let cp = svc.authenticate(Some(sp.expose_secret()), None).unwrap();
    for _ in 0..10 {
        assert!(svc.admit(&cp, true).is_ok());
    }
    let r = svc.admit(&cp, true).unwrap_err();
    assert_eq!((r.kind, r.retry_after_secs), (LimitKind::BatchPerMinute, 6));
    assert!(
        svc.admit(&cp, false).is_ok(),
        "other requests are not batch-limited"
    );
    clock.advance(Duration::seconds(6));
    assert!(svc.admit(&cp, true).is_ok());
    assert!(svc.admit(&cp, true).is_err());
}

/// The usage object and header figures; unlimited shows as -1.
pub fn service_usage_and_unlimited_headers<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let e = svc
        .create_account("e@example.com", Plan::Enterprise)
        .unwrap();
    let (_, s) = svc.create_key(e.id, KeyMode::Live).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    let ok = svc.admit(&ctx, false).unwrap();
    assert_eq!(
        ok.status.header_values(),
        ("-1".to_owned(), "-1".to_owned(), "1711929600".to_owned())
    );
    let json = serde_json::to_value(svc.usage(&ctx)).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"plan": "enterprise", "usage": {"current": 1, "limit": -1, "resetDate": "2024-04-01T00:00:00Z"}})
    );
    let f = svc.create_account("f@example.com", Plan::Free).unwrap();
    let (_, s) = svc.create_key(f.id, KeyMode::Live).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    assert_eq!(svc.rate_limit_status(&ctx).header_values().0, "1000");
    assert_eq!(svc.usage_of(f.id).unwrap().usage.limit, 1000);
}

/// The plan's link limit counts existing links and is a distinct error.
pub fn service_plan_link_limits<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            svc.create_link(&a, &format!("L{i}"), "https://example.com")
                .unwrap()
                .id,
        );
    }
    let err = svc
        .create_link(&a, "L5", "https://example.com")
        .unwrap_err();
    assert_eq!(
        err,
        LinkError::LimitReached {
            plan: "free".into(),
            limit: 5
        }
    );
    svc.delete_link(a.id, ids[0]).unwrap();
    assert!(svc.create_link(&a, "L5", "https://example.com").is_ok());
    let a = svc.set_plan(a.id, Plan::Enterprise).unwrap();
    let a = svc
        .set_overrides(
            a.id,
            EnterpriseOverrides {
                links: Some(6),
                ..Default::default()
            },
        )
        .unwrap();
    assert!(svc.create_link(&a, "L6", "https://example.com").is_ok());
    assert!(matches!(
        svc.create_link(&a, "L7", "https://example.com"),
        Err(LinkError::LimitReached { limit: 6, .. })
    ));
    assert!(matches!(
        svc.create_link(&a, " ", "https://example.com"),
        Err(LinkError::Name(_))
    ));
    assert!(matches!(
        svc.create_link(&a, "x", "ftp://example.com"),
        Err(LinkError::TargetUrl(_))
    ));
}

/// Regeneration: same key id, settings and usage; the old secret is dead at once.
pub fn service_key_regeneration<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Starter).unwrap();
    let (k, old) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let mut settings = KeySettings::default();
    settings.disabled_endpoints.insert(Endpoint::Batch);
    svc.update_key_settings(k.id, settings.clone()).unwrap();
    let ctx = svc.authenticate(Some(old.expose_secret()), None).unwrap();
    svc.admit(&ctx, false).unwrap();
    let (k2, new) = svc.regenerate_key(k.id).unwrap();
    assert_eq!(k2.id, k.id);
    assert_ne!(old.expose_secret(), new.expose_secret());
    assert_eq!(
        svc.authenticate(Some(old.expose_secret()), None)
            .unwrap_err(),
        AuthError::Unknown
    );
    let ctx = svc.authenticate(Some(new.expose_secret()), None).unwrap();
    assert_eq!(ctx.key.id, k.id);
    assert_eq!(ctx.key.settings, settings);
    assert_eq!(svc.usage(&ctx).usage.current, 1);
    assert!(matches!(
        svc.authenticate(Some("qrapi_live_short"), None),
        Err(AuthError::Malformed(_))
    ));
}

/// Another account's link is "not found" for get, update, delete and analytics.
pub fn service_cross_account_isolation<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let b = svc.create_account("b@example.com", Plan::Free).unwrap();
    let l = svc.create_link(&a, "Mine", "https://example.com").unwrap();
    let id = l.id;
    assert_eq!(svc.link(b.id, id), Err(LinkError::NotFound));
    let upd = LinkUpdate::parse(Some("x"), None).unwrap();
    assert_eq!(svc.update_link(b.id, id, &upd), Err(LinkError::NotFound));
    assert_eq!(svc.delete_link(b.id, id), Err(LinkError::NotFound));
    assert_eq!(
        svc.analytics(&b, id, &query(None, None, None)),
        Err(AnalyticsError::LinkNotFound)
    );
    assert_eq!(parse_link_id("not-a-uuid"), Err(LinkError::NotFound));
    assert!(svc.links(b.id).unwrap().is_empty());
    assert_eq!(svc.link(a.id, id).unwrap(), l);
}

/// Bots are redirected but not counted.
pub fn service_bot_exclusion<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc.create_link(&a, "L", "https://example.com").unwrap();
    let bot = visit(
        "66.249.66.1",
        "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)",
    );
    assert_eq!(
        svc.record_scan(&l, &bot).unwrap(),
        ScanOutcome::Skipped(Skip::Bot)
    );
    assert!(matches!(
        svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap(),
        ScanOutcome::Recorded(_)
    ));
    let l = svc.link(a.id, l.id).unwrap();
    assert_eq!(l.scan_count, 1);
    let report = svc.analytics(&a, l.id, &query(None, None, None)).unwrap();
    assert_eq!(report.analytics.total_scans, 1);
    assert_eq!(
        report.recent_scans[0].referrer.as_deref(),
        Some("https://social.example/post")
    );
    assert_eq!(report.recent_scans[0].device, Device::Mobile);
}

/// Repeated failed authentication from one address is answered with a wait past its budget;
/// valid keys from that address are always served, known or not.
pub fn service_failed_authentication_is_throttled<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let (_, secret) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let attacker: Option<std::net::IpAddr> = Some("203.0.113.66".parse().unwrap());
    let neighbour: Option<std::net::IpAddr> = Some("203.0.113.67".parse().unwrap());
    // The key is known to this service before the attack.
    assert!(
        svc.authenticate(Some(secret.expose_secret()), attacker)
            .is_ok()
    );
    let wrong = "qrapi_live_00000000000000000000000000000000";
    for attempt in 0..AUTH_FAILURE_BURST {
        let e = svc.authenticate(Some(wrong), attacker).unwrap_err();
        assert_eq!(e, AuthError::Unknown, "attempt {attempt}");
    }
    // Over the budget: failures get a wait, missing and malformed keys too. An unseen key is
    // still looked up (the cache cannot answer it), and refused with the wait if wrong.
    let throttled = |e: AuthError| {
        matches!(
            e,
            AuthError::Throttled {
                retry_after_secs: 1..=3
            }
        )
    };
    assert!(throttled(
        svc.authenticate(Some(wrong), attacker).unwrap_err()
    ));
    assert!(throttled(svc.authenticate(None, attacker).unwrap_err()));
    let unseen = "qrapi_live_11111111111111111111111111111111";
    assert!(svc.authenticate_cached(Some(unseen), attacker).is_none());
    assert!(throttled(
        svc.authenticate(Some(unseen), attacker).unwrap_err()
    ));
    assert!(throttled(
        svc.authenticate_cached(Some(unseen), attacker)
            .unwrap()
            .unwrap_err()
    ));
    // Valid keys from the same address are served: a known one, and one never seen before.
    assert!(
        svc.authenticate(Some(secret.expose_secret()), attacker)
            .is_ok()
    );
    assert!(
        svc.authenticate_cached(Some(secret.expose_secret()), attacker)
            .unwrap()
            .is_ok()
    );
    let (_, fresh) = svc.create_key(a.id, KeyMode::Live).unwrap();
    assert!(
        svc.authenticate_cached(Some(fresh.expose_secret()), attacker)
            .is_none()
    );
    assert!(
        svc.authenticate(Some(fresh.expose_secret()), attacker)
            .is_ok()
    );
    // Another address is not affected.
    assert_eq!(
        svc.authenticate(Some(wrong), neighbour).unwrap_err(),
        AuthError::Unknown
    );
    // Successes do not end the wait for failures; waiting lets one more attempt through.
    assert!(throttled(
        svc.authenticate(Some(wrong), attacker).unwrap_err()
    ));
    clock.advance(Duration::seconds(3));
    assert_eq!(
        svc.authenticate(Some(wrong), attacker).unwrap_err(),
        AuthError::Unknown
    );
}

/// An outside security run's sequence: one address (an office behind NAT) sends a few dozen
/// wrong keys, then another account's key is regenerated and its plan changed, then clients at
/// that address present valid keys, known to the server before or not, and retry them. Every
/// one is served; the address's further wrong keys get the wait.
pub fn service_valid_keys_pass_a_throttled_address_after_changes<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let office: Option<std::net::IpAddr> = Some("198.51.100.20".parse().unwrap());
    let mut clients = Vec::new();
    for i in 0..6 {
        let account = svc
            .create_account(&format!("client{i}@example.com"), Plan::Pro)
            .unwrap();
        clients.push(svc.create_key(account.id, KeyMode::Live).unwrap().1);
    }
    // Half of them were served before the failures began.
    for secret in &clients[..3] {
        svc.authenticate(Some(secret.expose_secret()), office)
            .unwrap();
    }
    let wrong = "qrapi_live_00000000000000000000000000000000";
    for _ in 0..3 * AUTH_FAILURE_BURST {
        assert!(svc.authenticate(Some(wrong), office).is_err());
    }
    let other = svc.create_account("other@example.com", Plan::Free).unwrap();
    let (other_key, _) = svc.create_key(other.id, KeyMode::Live).unwrap();
    svc.regenerate_key(other_key.id).unwrap();
    svc.set_plan(other.id, Plan::Starter).unwrap();
    for attempt in 0..3 {
        for (i, secret) in clients.iter().enumerate() {
            let served = svc.authenticate(Some(secret.expose_secret()), office);
            assert!(served.is_ok(), "client {i}, attempt {attempt}: {served:?}");
        }
    }
    assert!(matches!(
        svc.authenticate(Some(wrong), office),
        Err(AuthError::Throttled { .. })
    ));
}

/// A change of one account or key drops only its own cached entries: every other account's
/// keys stay in memory (answered without a lookup), on the service that made the changes and
/// on another sharing the store that only hears of them; the changed ones are read again.
pub fn service_key_cache_keeps_other_accounts_keys<S: Store>(store: S) {
    let store = Arc::new(store);
    let clock = TestClock::new(t("2024-05-01T10:00:00Z"));
    let here = Service::new(Arc::clone(&store), clock.clone(), Arc::new(NoGeoLocator)).unwrap();
    let elsewhere = Service::new(Arc::clone(&store), clock, Arc::new(NoGeoLocator)).unwrap();
    let mut kept = Vec::new();
    for i in 0..10 {
        let account = here
            .create_account(&format!("kept{i}@example.com"), Plan::Pro)
            .unwrap();
        for _ in 0..10 {
            kept.push(here.create_key(account.id, KeyMode::Live).unwrap().1);
        }
    }
    let changed = here
        .create_account("changed@example.com", Plan::Free)
        .unwrap();
    let (_, changed_a) = here.create_key(changed.id, KeyMode::Live).unwrap();
    let (_, changed_b) = here.create_key(changed.id, KeyMode::Live).unwrap();
    let other = here
        .create_account("other@example.com", Plan::Free)
        .unwrap();
    let (regenerated, old_secret) = here.create_key(other.id, KeyMode::Live).unwrap();
    let (revoked, revoked_secret) = here.create_key(other.id, KeyMode::Live).unwrap();
    until_changes_heard(&*store);
    let everyone: Vec<&ApiKeySecret> = kept
        .iter()
        .chain([&changed_a, &changed_b, &old_secret, &revoked_secret])
        .collect();
    for svc in [&here, &elsewhere] {
        for secret in &everyone {
            svc.authenticate(Some(secret.expose_secret()), None)
                .unwrap();
        }
    }

    let (_, new_secret) = here.regenerate_key(regenerated.id).unwrap();
    here.set_plan(changed.id, Plan::Pro).unwrap();
    here.delete_key(revoked.id).unwrap();
    let newcomer = here.create_account("new@example.com", Plan::Free).unwrap();
    here.create_key(newcomer.id, KeyMode::Live).unwrap();
    until_changes_heard(&*store);

    for (name, svc) in [("here", &here), ("elsewhere", &elsewhere)] {
        for (i, secret) in kept.iter().enumerate() {
            assert!(
                matches!(
                    svc.authenticate_cached(Some(secret.expose_secret()), None),
                    Some(Ok(_))
                ),
                "{name}: kept key {i} was dropped"
            );
        }
        for secret in [&changed_a, &changed_b, &old_secret, &revoked_secret] {
            assert!(
                svc.authenticate_cached(Some(secret.expose_secret()), None)
                    .is_none(),
                "{name}: a changed key is read again"
            );
        }
        for secret in [&changed_a, &changed_b] {
            let ctx = svc
                .authenticate(Some(secret.expose_secret()), None)
                .unwrap();
            assert_eq!(ctx.account.plan, Plan::Pro, "{name}");
        }
        for secret in [&old_secret, &revoked_secret] {
            assert_eq!(
                svc.authenticate(Some(secret.expose_secret()), None)
                    .unwrap_err(),
                AuthError::Unknown,
                "{name}"
            );
        }
        assert_eq!(
            svc.authenticate(Some(new_secret.expose_secret()), None)
                .unwrap()
                .key
                .id,
            regenerated.id
        );
    }
}

/// One visitor's replays of a link count at most `MAX_SCANS_PER_VISITOR_MINUTE` times a minute.
pub fn service_visitor_scan_budget<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-03-10T12:00:10Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc.create_link(&a, "L", "https://example.com").unwrap();
    let replay = visit("192.0.2.9", PHONE);
    let mut recorded = 0;
    for _ in 0..MAX_SCANS_PER_VISITOR_MINUTE + 5 {
        match svc.record_scan(&l, &replay).unwrap() {
            ScanOutcome::Recorded(_) => recorded += 1,
            other => assert_eq!(other, ScanOutcome::Skipped(Skip::Repeat)),
        }
    }
    assert_eq!(recorded, MAX_SCANS_PER_VISITOR_MINUTE);
    // Another visitor, and another link of the same visitor, have budgets of their own.
    assert!(matches!(
        svc.record_scan(&l, &visit("192.0.2.10", PHONE)).unwrap(),
        ScanOutcome::Recorded(_)
    ));
    let other = svc.create_link(&a, "M", "https://example.org").unwrap();
    assert!(matches!(
        svc.record_scan(&other, &replay).unwrap(),
        ScanOutcome::Recorded(_)
    ));
    // The next minute counts again.
    clock.advance(Duration::seconds(60));
    assert!(matches!(
        svc.record_scan(&l, &replay).unwrap(),
        ScanOutcome::Recorded(_)
    ));
    let l = svc.link(a.id, l.id).unwrap();
    assert_eq!(l.scan_count, u64::from(MAX_SCANS_PER_VISITOR_MINUTE) + 2);
}

/// uniqueScans counts distinct (day, visitor) pairs.
pub fn service_unique_counting<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-03-10T08:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc.create_link(&a, "L", "https://example.com").unwrap();
    let other = svc.create_link(&a, "M", "https://example.com").unwrap();
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    svc.record_scan(&l, &visit("192.0.2.1", DESKTOP)).unwrap();
    svc.record_scan(&l, &visit("192.0.2.2", PHONE)).unwrap();
    svc.record_scan(&other, &visit("192.0.2.1", PHONE)).unwrap();
    clock.advance(Duration::days(1));
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    let r = svc.analytics(&a, l.id, &query(None, None, None)).unwrap();
    assert_eq!((r.analytics.total_scans, r.analytics.unique_scans), (5, 4));
    let r = svc
        .analytics(
            &a,
            l.id,
            &query(Some("2024-03-10T09:00:00Z"), Some("2024-03-10"), None),
        )
        .unwrap();
    assert_eq!((r.analytics.total_scans, r.analytics.unique_scans), (0, 0));
    let r = svc
        .analytics(
            &a,
            l.id,
            &query(Some("2024-03-10T07:00:00Z"), Some("2024-03-10"), None),
        )
        .unwrap();
    assert_eq!((r.analytics.total_scans, r.analytics.unique_scans), (4, 3));
}

/// Scans older than the plan's retention are neither reported nor kept.
pub fn service_retention<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-01-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc.create_link(&a, "L", "https://example.com").unwrap();
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    clock.set(t("2024-01-30T10:00:00Z"));
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    let id = l.id;
    let r = svc.analytics(&a, id, &query(None, None, None)).unwrap();
    assert_eq!(
        r.analytics.total_scans, 2,
        "day 30 of 30 still includes Jan 1"
    );
    assert_eq!(r.analytics.scans_by_day.len(), 30);
    clock.set(t("2024-01-31T00:00:00Z"));
    let r = svc
        .analytics(&a, id, &query(Some("2023-12-01"), None, None))
        .unwrap();
    assert_eq!(r.analytics.total_scans, 1);
    assert_eq!(
        r.analytics.scans_by_day.first().map(|d| d.date.as_str()),
        Some("2024-01-02")
    );
    assert_eq!(r.recent_scans.len(), 1);
    let gone = svc
        .analytics(&a, id, &query(Some("2023-12-01"), Some("2023-12-31"), None))
        .unwrap();
    assert_eq!(gone.analytics.total_scans, 0);
    assert!(gone.analytics.scans_by_day.is_empty());
    assert_eq!(svc.prune().unwrap().scans_deleted, 1);
    assert_eq!(
        svc.link(a.id, id).unwrap().scan_count,
        2,
        "pruning never lowers scanCount"
    );
    // Upgrading widens the window only for scans still kept.
    let a = svc.set_plan(a.id, Plan::Pro).unwrap();
    let r = svc.analytics(&a, id, &query(None, None, None)).unwrap();
    assert_eq!(r.analytics.total_scans, 1);
}

/// Dense days, sorting, limits and partial-day edges.
pub fn service_analytics_window<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let l = svc.create_link(&a, "L", "https://example.com").unwrap();
    let id = l.id;
    svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
    svc.record_scan(&l, &visit("192.0.2.2", DESKTOP)).unwrap();
    clock.set(t("2024-05-03T18:00:00Z"));
    svc.record_scan(&l, &visit("192.0.2.3", DESKTOP)).unwrap();
    clock.set(t("2024-05-04T12:00:00Z"));
    let r = svc
        .analytics(&a, id, &query(None, None, Some("2")))
        .unwrap();
    let days: Vec<_> = r
        .analytics
        .scans_by_day
        .iter()
        .map(|d| (d.date.as_str(), d.scans))
        .collect();
    assert_eq!(
        days,
        vec![
            ("2024-05-01", 2),
            ("2024-05-02", 0),
            ("2024-05-03", 1),
            ("2024-05-04", 0)
        ]
    );
    let devices: Vec<_> = r
        .analytics
        .scans_by_device
        .iter()
        .map(|d| (d.device.as_str(), d.scans))
        .collect();
    assert_eq!(devices, vec![("desktop", 2), ("mobile", 1)]);
    let browsers: Vec<_> = r
        .analytics
        .scans_by_browser
        .iter()
        .map(|d| (d.browser.as_str(), d.scans))
        .collect();
    assert_eq!(browsers, vec![("Firefox", 2), ("Chrome", 1)]);
    assert_eq!(r.analytics.scans_by_country[0].country, "XX");
    assert_eq!(r.recent_scans.len(), 2);
    assert_eq!(r.recent_scans[0].timestamp, t("2024-05-03T18:00:00Z"));
    assert_eq!(r.link.scan_count, 3);
    let r = svc
        .analytics(
            &a,
            id,
            &query(
                Some("2024-05-01T10:00:00Z"),
                Some("2024-05-03T17:00:00Z"),
                None,
            ),
        )
        .unwrap();
    assert_eq!(r.analytics.total_scans, 2);
    assert_eq!(r.analytics.scans_by_day.len(), 3);
    let r = svc
        .analytics(&a, id, &query(Some("2024-05-02"), Some("2024-05-02"), None))
        .unwrap();
    assert_eq!(
        (r.analytics.total_scans, r.analytics.scans_by_day.len()),
        (0, 1)
    );
    // A start before the link existed is clamped to its creation day (an outside tester asked
    // for year 1 and got 739,943 zero-filled days); an end before it gives an empty window.
    let r = svc
        .analytics(&a, id, &query(Some("0001-01-01"), None, None))
        .unwrap();
    assert_eq!(r.analytics.scans_by_day.len(), 4);
    assert_eq!(r.analytics.scans_by_day[0].date, "2024-05-01");
    assert_eq!(r.analytics.total_scans, 3);
    let r = svc
        .analytics(&a, id, &query(Some("0001-01-01"), Some("2024-04-30"), None))
        .unwrap();
    assert_eq!(
        (r.analytics.total_scans, r.analytics.scans_by_day.len()),
        (0, 0)
    );
    assert_eq!(
        AnalyticsQuery::parse(Some("2024-05-03"), Some("2024-05-02"), None),
        Err(QueryError::StartAfterEnd)
    );
    assert!(matches!(
        AnalyticsQuery::parse(None, None, Some("0")),
        Err(QueryError::InvalidLimit(_))
    ));
    let json = serde_json::to_value(
        svc.analytics(&a, id, &query(None, None, Some("1")))
            .unwrap(),
    )
    .unwrap();
    for field in [
        "totalScans",
        "uniqueScans",
        "scansByDay",
        "scansByCountry",
        "scansByDevice",
        "scansByBrowser",
    ] {
        assert!(json["analytics"].get(field).is_some(), "{field}");
    }
    assert_eq!(json["link"]["shortCode"], l.short_code.to_string());
    assert!(json["recentScans"][0].get("referrer").is_some());
}

/// Short codes resolve case-insensitively with Crockford aliases; a deleted code is gone, never
/// live again; a malformed or never issued code is unknown.
pub fn service_short_code_lookup<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let l = svc.create_link(&a, "L", "https://example.com").unwrap();
    let code = l.short_code.to_string();
    let aliased: String = code
        .chars()
        .map(|c| match c {
            '0' => 'o',
            '1' => 'l',
            c => c.to_ascii_lowercase(),
        })
        .collect();
    assert_eq!(svc.resolve(&aliased).unwrap(), Resolution::Live(l.clone()));
    assert_eq!(svc.resolve("not a code").unwrap(), Resolution::Unknown);
    let never_issued = ShortCode::generate().unwrap();
    assert_eq!(
        svc.resolve(never_issued.as_str()).unwrap(),
        Resolution::Unknown
    );
    svc.delete_link(a.id, l.id).unwrap();
    assert_eq!(svc.resolve(&code).unwrap(), Resolution::Gone);
    assert_eq!(svc.resolve(&aliased).unwrap(), Resolution::Gone);
    assert_eq!(
        svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap(),
        ScanOutcome::LinkGone
    );
}

/// Changes written straight to the store (as another process would) apply on the next request.
pub fn service_sees_changes_made_elsewhere<S: Store>(store: S) {
    let store = Arc::new(store);
    let clock = TestClock::new(t("2024-05-01T10:00:00Z"));
    let svc = Service::new(Arc::clone(&store), clock, Arc::new(NoGeoLocator)).unwrap();
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let (k, old) = svc.create_key(a.id, KeyMode::Live).unwrap();
    assert_eq!(
        svc.authenticate(Some(old.expose_secret()), None)
            .unwrap()
            .account
            .plan,
        Plan::Free
    );
    let mut changed = a.clone();
    changed.plan = Plan::Pro;
    store.write(|tx| tx.update_account(&changed)).unwrap();
    assert_eq!(
        svc.authenticate(Some(old.expose_secret()), None)
            .unwrap()
            .account
            .plan,
        Plan::Pro
    );
    let new = ApiKeySecret::generate(KeyMode::Live).unwrap();
    let mut k2 = k.clone();
    k2.hash = new.hash();
    store.write(|tx| tx.update_key(&k2)).unwrap();
    assert_eq!(
        svc.authenticate(Some(old.expose_secret()), None)
            .unwrap_err(),
        AuthError::Unknown
    );
    assert!(svc.authenticate(Some(new.expose_secret()), None).is_ok());
}

/// Usage counters are persisted by flush and reloaded by a new service.
pub fn service_counters_survive_restart<S: Store>(store: S) {
    let store = Arc::new(store);
    let clock = TestClock::new(t("2024-05-01T10:00:00Z"));
    let svc = Service::new(Arc::clone(&store), clock.clone(), Arc::new(NoGeoLocator)).unwrap();
    let a = svc.create_account("a@example.com", Plan::Starter).unwrap();
    let (k, s) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    for _ in 0..3 {
        svc.admit(&ctx, false).unwrap();
    }
    svc.flush().unwrap();
    svc.admit(&ctx, false).unwrap();
    drop(svc);
    let svc = Service::new(Arc::clone(&store), clock, Arc::new(NoGeoLocator)).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    assert_eq!(
        svc.usage(&ctx).usage.current,
        4,
        "shutdown flushes the last counts"
    );
    assert_eq!(
        svc.key(k.id).unwrap().last_used_at,
        Some(t("2024-05-01T10:00:00Z"))
    );
}

/// Key restrictions and plan features (batch, logo) give 403s.
pub fn service_access_rules<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let (k, s) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    let req = AccessRequest {
        client_ip: Some("203.0.113.9".parse().unwrap()),
        origin: Some("https://app.example.com"),
        features: &[],
    };
    assert!(svc.authorize(&ctx, Endpoint::Generate, req).is_ok());
    assert!(svc.authorize(&ctx, Endpoint::Batch, req).is_err());
    let logo = AccessRequest {
        features: &[Feature::Logo],
        ..req
    };
    assert_eq!(
        svc.authorize(&ctx, Endpoint::Generate, logo),
        Err(AccessError::FeatureNotInPlan(Feature::Logo))
    );
    let pro = svc.set_plan(a.id, Plan::Pro).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    assert_eq!(ctx.account, pro);
    assert!(svc.authorize(&ctx, Endpoint::Generate, logo).is_ok());
    let mut settings = KeySettings::default();
    settings
        .ip_allowlist
        .push(IpRule::parse("198.51.100.0/24").unwrap());
    svc.update_key_settings(k.id, settings).unwrap();
    let ctx = svc.authenticate(Some(s.expose_secret()), None).unwrap();
    assert!(svc.authorize(&ctx, Endpoint::Generate, req).is_err());
}

/// The in-memory fast paths (redirect links, keys, settled rollups) answer like the store and
/// forget what this service changes.
pub fn service_caches_follow_changes<S: Store>(store: S) {
    let (svc, clock) = service(store, "2024-06-01T10:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let (key, secret) = svc.create_key(a.id, KeyMode::Live).unwrap();
    let l = svc.create_link(&a, "L", "https://example.com/one").unwrap();
    let code = l.short_code.to_string();

    // Links: cached by a lookup, forgotten by an update or a deletion here.
    assert_eq!(svc.cached_link(&code), None);
    assert_eq!(svc.resolve(&code).unwrap(), Resolution::Live(l.clone()));
    assert_eq!(svc.cached_link(&code).map(|x| x.id), Some(l.id));
    assert_eq!(svc.cached_link("not a code"), None);
    let update = LinkUpdate::parse(None, Some("https://example.com/two")).unwrap();
    svc.update_link(a.id, l.id, &update).unwrap();
    assert_eq!(svc.cached_link(&code), None);
    let Resolution::Live(resolved) = svc.resolve(&code).unwrap() else {
        panic!("the link is live");
    };
    assert_eq!(resolved.target_url.as_str(), "https://example.com/two");
    assert_eq!(
        svc.cached_link(&code).map(|x| x.target_url),
        Some(resolved.target_url)
    );

    // Keys: unseen keys need the store; a local regeneration forgets the old secret.
    let presented = secret.expose_secret().to_owned();
    assert!(svc.authenticate_cached(Some(&presented), None).is_none());
    assert!(matches!(
        svc.authenticate_cached(Some("qrapi_bad"), None),
        Some(Err(AuthError::Malformed(_)))
    ));
    assert_eq!(
        svc.authenticate(Some(&presented), None).unwrap().key.id,
        key.id
    );
    assert_eq!(
        svc.authenticate_cached(Some(&presented), None)
            .map(|r| r.map(|c| c.key.id)),
        Some(Ok(key.id))
    );
    svc.regenerate_key(key.id).unwrap();
    assert!(svc.authenticate(Some(&presented), None).is_err());
    assert!(matches!(
        svc.authenticate_cached(Some(&presented), None),
        Some(Err(AuthError::Unknown))
    ));

    // Settled rollups: a repeated query answers the same, and new scans still count.
    for _ in 0..4 {
        svc.record_scan(&l, &visit("192.0.2.1", PHONE)).unwrap();
        clock.advance(Duration::days(1));
    }
    let id = l.id;
    let first = svc.analytics(&a, id, &query(None, None, None)).unwrap();
    assert_eq!(first.analytics.total_scans, 4);
    assert_eq!(
        svc.analytics(&a, id, &query(None, None, None)).unwrap(),
        first
    );
    svc.record_scan(&l, &visit("192.0.2.2", DESKTOP)).unwrap();
    clock.advance(Duration::days(1));
    svc.record_scan(&l, &visit("192.0.2.3", PHONE)).unwrap();
    let later = svc.analytics(&a, id, &query(None, None, None)).unwrap();
    assert_eq!(later.analytics.total_scans, 6);
    assert_eq!(
        later
            .analytics
            .scans_by_day
            .iter()
            .map(|d| d.scans)
            .collect::<Vec<_>>(),
        vec![1, 1, 1, 1, 1, 1]
    );

    svc.delete_link(a.id, id).unwrap();
    assert_eq!(svc.cached_link(&code), None);
    assert_eq!(svc.resolve(&code).unwrap(), Resolution::Gone);
}

/// One account per e-mail address: creating or renaming onto a taken address is
/// `EmailTaken`, and lookups ignore ASCII case.
pub fn service_one_account_per_email<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    let a = svc.create_account("Ann@Example.com", Plan::Free).unwrap();
    let b = svc.create_account("bob@example.com", Plan::Free).unwrap();
    let lookup = |raw: &str| svc.account_by_email(&Email::parse(raw).unwrap()).unwrap();
    assert_eq!(lookup("ann@example.com"), Some(a.clone()));
    assert_eq!(lookup("nobody@example.com"), None);
    let taken = svc
        .create_account(" ANN@example.com ", Plan::Pro)
        .unwrap_err();
    assert!(
        matches!(&taken, AdminError::EmailTaken(e) if e.as_str() == "ANN@example.com"),
        "{taken:?}"
    );
    assert_eq!(
        taken.to_string(),
        "an account with the e-mail address ANN@example.com already exists"
    );
    assert_eq!(svc.accounts().unwrap().len(), 2, "nothing was created");
    assert!(matches!(
        svc.set_email(b.id, "ann@EXAMPLE.com"),
        Err(AdminError::EmailTaken(_))
    ));
    let renamed = svc.set_email(a.id, "ann@example.com").unwrap();
    assert_eq!(renamed.email.as_str(), "ann@example.com");
    assert_eq!(lookup("ANN@EXAMPLE.COM").map(|x| x.id), Some(a.id));
}

/// A writable store answers the health check and takes writes.
pub fn service_store_health<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    assert!(!svc.read_only());
    assert_eq!(svc.check_store(), Ok(()));
}
