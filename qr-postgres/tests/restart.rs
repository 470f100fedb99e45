//! PostgreSQL restarted under a running store: requests fail with `Unreachable` while it is down (and the key cache is not trusted), and everything works again once it is back, without reopening the store.

use std::sync::Arc;
use std::time::{Duration, Instant};

use qr_domain::accounts::caller::Caller;
use qr_domain::service::{AuthError, Resolution};
use qr_domain::{KeyMode, NoGeoLocator, Plan, Service, Store, StoreError, SystemClock};
use qr_postgres::PgStore;
use qr_test_support::servers::postgres::{Durability, PgCluster};

fn wait_for(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(15);
    while !ready() {
        assert!(Instant::now() < deadline, "{what} never happened");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_restarted_database_is_used_again_without_reopening() {
    let Some(cluster) = PgCluster::start("the PostgreSQL restart test", Durability::Durable) else {
        return;
    };
    let url = cluster.create_database();
    let store = Arc::new(PgStore::open(&url).unwrap());
    let svc = Service::new(Arc::clone(&store), SystemClock, Arc::new(NoGeoLocator)).unwrap();
    let account = svc.create_account("a@example.com", Plan::Pro).unwrap();
    let (key, secret) = svc.create_key(account.id, KeyMode::Live).unwrap();
    let link = svc
        .create_link(
            &Caller::operator(account.id),
            "Poster",
            "https://example.com/poster",
        )
        .unwrap();
    svc.authenticate(Some(secret.expose_secret()), None)
        .unwrap();
    assert!(matches!(
        svc.resolve(None, link.short_code.as_str()).unwrap(),
        Resolution::Live(_)
    ));

    cluster.stop();
    wait_for("the listener noticing", || store.config_version().is_err());
    assert!(matches!(
        svc.authenticate(Some(secret.expose_secret()), None),
        Err(AuthError::Store(StoreError::Unreachable(_)))
    ));
    assert!(matches!(
        svc.create_link(
            &Caller::operator(account.id),
            "During",
            "https://example.com/"
        ),
        Err(qr_domain::links::link::LinkError::Store(
            StoreError::Unreachable(_)
        ))
    ));
    // A link this service has read keeps redirecting from memory.
    assert_eq!(
        svc.resolve(None, link.short_code.as_str()).unwrap(),
        Resolution::Live(link.clone())
    );

    cluster.start_server();
    wait_for("the listener reconnecting", || {
        store.config_version().is_ok()
    });
    assert_eq!(
        svc.authenticate(Some(secret.expose_secret()), None)
            .unwrap()
            .key
            .id,
        key.id
    );
    let after = svc
        .create_link(
            &Caller::operator(account.id),
            "After",
            "https://example.com/after",
        )
        .unwrap();
    assert_eq!(svc.links(account.id).unwrap().len(), 2);
    assert!(matches!(
        svc.resolve(None, after.short_code.as_str()).unwrap(),
        Resolution::Live(_)
    ));
}
