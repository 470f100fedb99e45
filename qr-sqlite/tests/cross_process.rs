//! Two stores on one file stand for the HTTP server and the CLI: changes made by one
//! take effect on the other's next request.

use std::sync::Arc;

use qr_domain::accounts::caller::Caller;
use qr_domain::service::Resolution;
use qr_domain::{KeyMode, LinkUpdate, NoGeoLocator, Plan, Service, Store, SystemClock};
use qr_sqlite::SqliteStore;

#[test]
fn changes_by_another_process_apply_on_the_next_request() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.db");
    let server_store = Arc::new(SqliteStore::open(&path).unwrap());
    let server = Service::new(
        Arc::clone(&server_store),
        SystemClock,
        Arc::new(NoGeoLocator),
    )
    .unwrap();
    let cli = Service::new(
        Arc::new(SqliteStore::open(&path).unwrap()),
        SystemClock,
        Arc::new(NoGeoLocator),
    )
    .unwrap();

    let account = cli.create_account("owner@example.com", Plan::Free).unwrap();
    let (key, old) = cli.create_key(account.id, KeyMode::Live).unwrap();
    let ctx = server
        .authenticate(Some(old.expose_secret()), None)
        .unwrap();
    assert_eq!(ctx.account.plan, Plan::Free);

    cli.set_plan(account.id, Plan::Pro).unwrap();
    assert_eq!(
        server
            .authenticate(Some(old.expose_secret()), None)
            .unwrap()
            .account
            .plan,
        Plan::Pro
    );

    let (_, new) = cli.regenerate_key(key.id).unwrap();
    assert!(
        server
            .authenticate(Some(old.expose_secret()), None)
            .is_err(),
        "the old secret is dead at once"
    );
    assert_eq!(
        server
            .authenticate(Some(new.expose_secret()), None)
            .unwrap()
            .key
            .id,
        key.id
    );

    let link = server
        .create_link(
            &Caller::operator(ctx.account.id),
            "Poster",
            "https://example.com/a",
        )
        .unwrap();
    let update = LinkUpdate::parse(None, Some("https://example.com/b")).unwrap();
    cli.update_link(&Caller::operator(account.id), link.id, &update)
        .unwrap();
    let Resolution::Live(resolved) = server.resolve(None, link.short_code.as_str()).unwrap() else {
        panic!("the link is live");
    };
    assert_eq!(resolved.target_url.as_str(), "https://example.com/b");

    // Scans written by the server's writer do not invalidate key caches.
    let before = server_store.config_version().unwrap();
    server.record_scan(&resolved, &Default::default()).unwrap();
    assert_eq!(server_store.config_version().unwrap(), before);
    assert!(server_store.data_version().is_ok());
}
