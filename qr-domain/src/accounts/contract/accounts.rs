//! Contract checks of accounts: records and uniqueness, usage, the monthly quota, rate limits,
//! plans and their link limits.

use crate::accounts::access::KeySettings;
use crate::accounts::account::Email;
use crate::accounts::caller::Caller;
use crate::accounts::key::KeyMode;
use crate::accounts::limits::{LimitKind, UsageMonth};
use crate::accounts::plan::{EnterpriseOverrides, Limit, PerSecond, Plan};
use crate::contract::{account, service, setup, t};
use crate::links::link::LinkError;
use crate::service::AdminError;
use crate::store::Store;
use chrono::Duration;

/// Accounts are stored, listed oldest first and updated; updating a missing account reports `false`.
pub fn accounts_roundtrip<S: Store>(store: S) {
    let mut a = account(Plan::Free);
    let mut b = account(Plan::Pro);
    b.created_at = t("2024-02-01T00:00:00Z");
    store
        .write(|tx| {
            tx.insert_account(&b)?;
            tx.insert_account(&a)
        })
        .unwrap();
    assert_eq!(store.read(|tx| tx.account(a.id)).unwrap(), Some(a.clone()));
    assert_eq!(
        store.read(|tx| tx.accounts()).unwrap(),
        vec![a.clone(), b.clone()]
    );
    a.plan = Plan::Enterprise;
    a.overrides.links = Some(3);
    a.overrides.per_second = Some(PerSecond::new(7).unwrap());
    assert!(store.write(|tx| tx.update_account(&a)).unwrap());
    assert_eq!(store.read(|tx| tx.account(a.id)).unwrap(), Some(a.clone()));
    assert!(
        !store
            .write(|tx| tx.update_account(&account(Plan::Free)))
            .unwrap()
    );
    assert!(
        store.write(|tx| tx.insert_account(&a)).is_err(),
        "duplicate ids are refused"
    );
}

/// A workspace is found by its address without regard to ASCII case; several may share one
/// (a user may own several), and the lookup answers the oldest.
pub fn accounts_may_share_an_address<S: Store>(store: S) {
    let mut a = account(Plan::Free);
    a.email = Email::parse("Owner@Example.com").unwrap();
    store.write(|tx| tx.insert_account(&a)).unwrap();
    let found = |raw: &str| {
        store
            .read(|tx| tx.account_by_email(&Email::parse(raw).unwrap()))
            .unwrap()
    };
    assert_eq!(found("owner@example.COM"), Some(a.clone()));
    assert_eq!(found("other@example.com"), None);
    let mut twin = account(Plan::Pro);
    twin.email = Email::parse("OWNER@example.com").unwrap();
    twin.created_at = t("2024-03-01T00:00:00Z");
    store.write(|tx| tx.insert_account(&twin)).unwrap();
    assert_eq!(
        found("owner@example.com").map(|x| x.id),
        Some(a.id),
        "the oldest"
    );
    a.email = Email::parse("new@example.com").unwrap();
    assert!(store.write(|tx| tx.update_account(&a)).unwrap());
    assert_eq!(found("owner@example.com").map(|x| x.id), Some(twin.id));
    assert_eq!(found("NEW@example.com").map(|x| x.id), Some(a.id));
}

/// Saved usage counts only grow.
pub fn usage_is_never_lowered<S: Store>(store: S) {
    let a = setup(&store, Plan::Free);
    let may = UsageMonth::of(t("2024-05-10T00:00:00Z"));
    let june = UsageMonth::of(t("2024-06-10T00:00:00Z"));
    store.write(|tx| tx.save_usage(may, &[(a.id, 10)])).unwrap();
    store.write(|tx| tx.save_usage(may, &[(a.id, 4)])).unwrap();
    store.write(|tx| tx.save_usage(june, &[(a.id, 1)])).unwrap();
    assert_eq!(store.read(|tx| tx.usage(may)).unwrap(), vec![(a.id, 10)]);
    assert_eq!(store.read(|tx| tx.usage(june)).unwrap(), vec![(a.id, 1)]);
}

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
            svc.create_link(
                &Caller::operator(a.id),
                &format!("L{i}"),
                "https://example.com",
            )
            .unwrap()
            .id,
        );
    }
    let err = svc
        .create_link(&Caller::operator(a.id), "L5", "https://example.com")
        .unwrap_err();
    assert_eq!(
        err,
        LinkError::LimitReached {
            plan: "free".into(),
            limit: 5
        }
    );
    svc.delete_link(&Caller::operator(a.id), ids[0]).unwrap();
    assert!(
        svc.create_link(&Caller::operator(a.id), "L5", "https://example.com")
            .is_ok()
    );
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
    assert!(
        svc.create_link(&Caller::operator(a.id), "L6", "https://example.com")
            .is_ok()
    );
    assert!(matches!(
        svc.create_link(&Caller::operator(a.id), "L7", "https://example.com"),
        Err(LinkError::LimitReached { limit: 6, .. })
    ));
    assert!(matches!(
        svc.create_link(&Caller::operator(a.id), " ", "https://example.com"),
        Err(LinkError::Name(_))
    ));
    assert!(matches!(
        svc.create_link(&Caller::operator(a.id), "x", "ftp://example.com"),
        Err(LinkError::TargetUrl(_))
    ));
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
