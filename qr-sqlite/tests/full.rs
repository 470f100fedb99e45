//! A full database: writes fail with `StoreError::Full`, reads and stored data stay intact, and
//! writes work again once space returns. The size cap stands in for a full disk (SQLite reports
//! both as `SQLITE_FULL`); `benches/faults/disk.py` does the same on a real full filesystem.

use std::sync::Arc;

use qr_domain::accounts::caller::Caller;
use qr_domain::links::link::LinkError;
use qr_domain::service::Resolution;
use qr_domain::{NoGeoLocator, Plan, Service, Store, StoreError, SystemClock};
use qr_sqlite::SqliteStore;
use rusqlite::Connection;

#[test]
fn a_full_database_refuses_writes_keeps_reads_and_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("qr.db");
    let store = Arc::new(SqliteStore::open(&path).unwrap());
    let service = Service::new(Arc::clone(&store), SystemClock, Arc::new(NoGeoLocator)).unwrap();
    let account = service
        .create_account("full@example.com", Plan::Enterprise)
        .unwrap();
    let size = std::fs::metadata(&path).unwrap().len();
    let cap = store.limit_size(size + 16 * 1024).unwrap();
    assert!(cap >= size, "the cap never cuts below the current size");

    let mut stored = Vec::new();
    let refusal = loop {
        let name = format!("link {} {}", stored.len(), "x".repeat(80));
        match service.create_link(
            &Caller::operator(account.id),
            &name,
            "https://example.com/a/long/enough/path",
        ) {
            Ok(link) => stored.push(link),
            Err(e) => break e,
        }
        assert!(stored.len() < 10_000, "the cap was never reached");
    };
    assert_eq!(refusal, LinkError::Store(StoreError::Full));
    assert!(StoreError::Full.is_unavailable());
    assert!(!stored.is_empty());

    // Everything acknowledged before the disk filled up is still there and readable.
    let listed = service.links(account.id).unwrap();
    assert_eq!(listed.len(), stored.len());
    for link in &stored {
        assert_eq!(
            service.resolve(None, link.short_code.as_str()).unwrap(),
            Resolution::Live(link.clone())
        );
    }

    // Space returns: the same write now succeeds.
    store.limit_size(u64::MAX / 2).unwrap();
    let after = service
        .create_link(
            &Caller::operator(account.id),
            "after",
            "https://example.com/after",
        )
        .unwrap();
    assert_eq!(service.links(account.id).unwrap().len(), stored.len() + 1);
    assert!(matches!(
        service.resolve(None, after.short_code.as_str()).unwrap(),
        Resolution::Live(_)
    ));
    drop(service);
    drop(store);

    let conn = Connection::open(&path).unwrap();
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
}

#[test]
fn a_read_only_database_serves_reads_and_refuses_writes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("qr.db");
    let (account, link) = {
        let store = Arc::new(SqliteStore::open(&path).unwrap());
        let service = Service::new(store, SystemClock, Arc::new(NoGeoLocator)).unwrap();
        let account = service.create_account("ro@example.com", Plan::Pro).unwrap();
        let link = service
            .create_link(
                &Caller::operator(account.id),
                "kept",
                "https://example.com/kept",
            )
            .unwrap();
        service.shutdown().unwrap();
        (account, link)
    };
    let before = std::fs::read(&path).unwrap();

    let store = Arc::new(SqliteStore::open_read_only(&path).unwrap());
    assert!(store.is_read_only());
    let service = Service::new(Arc::clone(&store), SystemClock, Arc::new(NoGeoLocator)).unwrap();
    assert_eq!(
        service.resolve(None, link.short_code.as_str()).unwrap(),
        Resolution::Live(link.clone())
    );
    assert_eq!(service.links(account.id).unwrap(), vec![link]);
    assert_eq!(
        service.create_link(
            &Caller::operator(account.id),
            "new",
            "https://example.com/new"
        ),
        Err(LinkError::Store(StoreError::ReadOnly))
    );
    assert!(StoreError::ReadOnly.is_unavailable());
    drop(service);
    drop(store);
    assert_eq!(
        std::fs::read(&path).unwrap(),
        before,
        "a read-only store never writes"
    );
}
