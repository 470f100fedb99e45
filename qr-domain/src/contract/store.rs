//! Contract checks of the store as a whole: transactions roll back, tenants stay apart across
//! aggregates, changes made by another process are seen, counters survive a restart, and the health
//! check answers.

use super::{account, query, service, t};
use crate::accounts::caller::Caller;
use crate::accounts::key::{ApiKeySecret, KeyMode};
use crate::accounts::plan::Plan;
use crate::clock::TestClock;
use crate::error::StoreError;
use crate::links::link::{LinkError, LinkUpdate, parse_link_id};
use crate::scans::analytics::AnalyticsError;
use crate::scans::geo::NoGeoLocator;
use crate::service::{AuthError, Service};
use crate::store::Store;
use std::sync::Arc;

/// A closure returning `Err` leaves no trace of its writes.
pub fn write_rolls_back_on_error<S: Store>(store: S) {
    let a = account(Plan::Free);
    let result: Result<(), StoreError> = store.write(|tx| {
        tx.insert_account(&a)?;
        Err(StoreError::Conflict("abort".into()))
    });
    assert!(result.is_err());
    assert_eq!(store.read(|tx| tx.account(a.id)).unwrap(), None);
}

/// Another account's link is "not found" for get, update, delete and analytics.
pub fn service_cross_account_isolation<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-03-10T12:00:00Z");
    let a = svc.create_account("a@example.com", Plan::Free).unwrap();
    let b = svc.create_account("b@example.com", Plan::Free).unwrap();
    let l = svc
        .create_link(&Caller::operator(a.id), "Mine", "https://example.com")
        .unwrap();
    let id = l.id;
    assert_eq!(svc.link(b.id, id), Err(LinkError::NotFound));
    let upd = LinkUpdate::parse(Some("x"), None).unwrap();
    assert_eq!(
        svc.update_link(&Caller::operator(b.id), id, &upd),
        Err(LinkError::NotFound)
    );
    assert_eq!(
        svc.delete_link(&Caller::operator(b.id), id),
        Err(LinkError::NotFound)
    );
    assert_eq!(
        svc.analytics(&b, id, &query(None, None, None)),
        Err(AnalyticsError::LinkNotFound)
    );
    assert_eq!(parse_link_id("not-a-uuid"), Err(LinkError::NotFound));
    assert!(svc.links(b.id).unwrap().is_empty());
    assert_eq!(svc.link(a.id, id).unwrap(), l);
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

/// A writable store answers the health check and takes writes.
pub fn service_store_health<S: Store>(store: S) {
    let (svc, _clock) = service(store, "2024-05-01T10:00:00Z");
    assert!(!svc.read_only());
    assert_eq!(svc.check_store(), Ok(()));
}
