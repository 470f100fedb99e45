//! PostgreSQL's domains beyond the shared contract, as SQLite's: a deleted domain's (or account's) orphan rows leave the database through the foreign keys, daily counts are kept for exactly 90 days before the latest visit, `next_check_at` follows every update, and settings come back whole.

use chrono::{DateTime, NaiveDate, Utc};
use postgres::{Client, NoTls};
use qr_domain::domains::domain::{
    AppFile, Domain, DomainSettings, Verification, VerificationToken,
};
use qr_domain::domains::name::DomainName;
use qr_domain::domains::orphan::OrphanVisit;
use qr_domain::scans::scan::Device;
use qr_domain::{Account, AccountId, DomainId, Email, Plan, Store, StoreError};
use qr_postgres::PgStore;
use qr_test_support::servers::postgres::PgCluster;

const SUITE: &str = "the PostgreSQL domains tests";

fn t(s: &str) -> DateTime<Utc> {
    s.parse().expect("test timestamps are valid")
}

fn day(s: &str) -> NaiveDate {
    s.parse().expect("test dates are valid")
}

fn account(store: &PgStore) -> AccountId {
    let id = AccountId::random();
    let email = Email::parse(&format!("owner-{id}@example.com")).unwrap();
    let a = Account::new(id, email, Plan::Pro, t("2026-01-01T00:00:00Z"));
    store.write(|tx| tx.insert_account(&a)).unwrap();
    id
}

fn domain(account: AccountId, name: &str) -> Domain {
    Domain {
        id: DomainId::random(),
        account_id: account,
        name: DomainName::parse_any(name).unwrap(),
        token: VerificationToken::random().unwrap(),
        created_at: t("2026-01-01T00:00:00Z"),
        verification: Verification::default(),
        settings: DomainSettings::default(),
    }
}

fn visit(store: &PgStore, d: DomainId, at: &str) {
    let v = OrphanVisit::new("/MISPRINT", t(at), None, Device::Unknown);
    store.write(|tx| tx.record_orphan_visit(d, &v)).unwrap();
}

/// Rows of `table` in the database, read past the store.
fn rows(conn: &mut Client, table: &str) -> i64 {
    conn.query_one(&format!("SELECT count(*) FROM {table}"), &[])
        .unwrap()
        .get(0)
}

/// A store on a new database, and the database's URL.
fn fresh() -> Option<(PgStore, String)> {
    let url = PgCluster::shared(SUITE)?.create_database();
    Some((PgStore::open(&url).unwrap(), url))
}

#[test]
fn orphan_rows_go_with_their_domain_and_account() {
    let Some((store, url)) = fresh() else {
        return;
    };
    let a = account(&store);
    let (one, two) = (domain(a, "one.brand.test"), domain(a, "two.brand.test"));
    for d in [&one, &two] {
        store.write(|tx| tx.insert_domain(d)).unwrap();
        visit(&store, d.id, "2026-02-01T10:00:00Z");
        visit(&store, d.id, "2026-02-02T10:00:00Z");
    }
    let mut conn = Client::connect(&url, NoTls).unwrap();
    assert_eq!(
        (
            rows(&mut conn, "orphan_days"),
            rows(&mut conn, "orphan_visits")
        ),
        (4, 4)
    );

    assert!(store.write(|tx| tx.delete_domain(a, one.id)).unwrap());
    assert_eq!(
        (
            rows(&mut conn, "orphan_days"),
            rows(&mut conn, "orphan_visits")
        ),
        (2, 2)
    );
    let report = store
        .read(|tx| tx.orphan_visits(one.id, day("2026-01-01")))
        .unwrap();
    assert_eq!(report, Default::default());
    // A visit arriving for the deleted domain is dropped, not an error.
    visit(&store, one.id, "2026-02-03T10:00:00Z");
    assert_eq!(rows(&mut conn, "orphan_visits"), 2);

    assert!(store.write(|tx| tx.delete_account(a)).unwrap());
    assert_eq!(rows(&mut conn, "domains"), 0);
    assert_eq!(
        (
            rows(&mut conn, "orphan_days"),
            rows(&mut conn, "orphan_visits")
        ),
        (0, 0)
    );
}

#[test]
fn daily_counts_are_kept_ninety_days_before_the_latest_visit() {
    let Some((store, _)) = fresh() else {
        return;
    };
    let a = account(&store);
    let d = domain(a, "go.brand.test");
    store.write(|tx| tx.insert_domain(&d)).unwrap();
    visit(&store, d.id, "2026-01-01T23:59:59Z");
    visit(&store, d.id, "2026-01-02T00:00:00Z");
    visit(&store, d.id, "2026-01-02T12:00:00Z");
    let days = || {
        store
            .read(|tx| tx.orphan_visits(d.id, day("2025-01-01")))
            .unwrap()
            .daily
            .iter()
            .map(|d| (d.date.to_string(), d.visits))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        days(),
        [("2026-01-01".to_owned(), 1), ("2026-01-02".to_owned(), 2)]
    );
    // 2026-04-01 is 90 days after 2026-01-01: that day stays, the next visit's day drops it.
    visit(&store, d.id, "2026-04-01T08:00:00Z");
    assert_eq!(days().len(), 3);
    visit(&store, d.id, "2026-04-02T08:00:00Z");
    assert_eq!(
        days(),
        [
            ("2026-01-02".to_owned(), 2),
            ("2026-04-01".to_owned(), 1),
            ("2026-04-02".to_owned(), 1)
        ]
    );
    let since = store
        .read(|tx| tx.orphan_visits(d.id, day("2026-04-01")))
        .unwrap();
    assert_eq!(since.daily.len(), 2);
    assert_eq!(
        since.recent.len(),
        5,
        "every visit is among the latest kept"
    );
}

#[test]
fn updates_move_the_check_time_and_keep_settings_whole() {
    let Some((store, _)) = fresh() else {
        return;
    };
    let (a, b) = (account(&store), account(&store));
    let mut d = domain(a, "go.brand.test");
    d.verification.next_check_at = Some(t("2026-01-01T00:01:00Z"));
    store.write(|tx| tx.insert_domain(&d)).unwrap();
    let due = |at: &str| {
        store
            .read(|tx| tx.domains_due(t(at), 10))
            .unwrap()
            .iter()
            .map(|d| d.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(due("2026-01-01T00:01:00Z"), [d.id]);

    d.verification.next_check_at = None;
    d.settings.apple_app_site_association =
        Some(AppFile::apple(r#"{"applinks":{"details":[]}}"#).unwrap());
    d.settings.assetlinks = Some(AppFile::android("[]").unwrap());
    assert!(store.write(|tx| tx.update_domain(&d)).unwrap());
    assert_eq!(due("2027-01-01T00:00:00Z"), []);
    assert_eq!(
        store.read(|tx| tx.domain(a, d.id)).unwrap(),
        Some(d.clone())
    );
    d.verification.next_check_at = Some(t("2026-01-01T02:00:00Z"));
    assert!(store.write(|tx| tx.update_domain(&d)).unwrap());
    assert_eq!(due("2026-01-01T01:59:59Z"), []);
    assert_eq!(due("2026-01-01T02:00:00Z"), [d.id]);

    let taken = domain(b, "go.brand.test");
    match store.write(|tx| tx.insert_domain(&taken)) {
        Err(StoreError::Conflict(m)) => assert_eq!(m, "domain go.brand.test is already registered"),
        other => panic!("a taken name must conflict, got {other:?}"),
    }
}
