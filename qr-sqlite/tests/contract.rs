//! The shared storage contract suite, run against a fresh SQLite file per check.

use qr_sqlite::SqliteStore;

fn fresh() -> (tempfile::TempDir, SqliteStore) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let store = SqliteStore::open(dir.path().join("qr.db")).expect("open a new database");
    (dir, store)
}

qr_domain::contract_suite!(fresh);
