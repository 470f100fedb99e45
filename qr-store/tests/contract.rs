//! The shared storage contract suite through `Database`, on SQLite: the delegation changes nothing.

use qr_store::{Database, Location};

fn fresh() -> (tempfile::TempDir, Database) {
    let dir = tempfile::tempdir().expect("temporary directory");
    let location = Location::Sqlite(dir.path().join("qr.db"));
    let database = Database::open(&location).expect("open a new database");
    (dir, database)
}

qr_domain::contract_suite!(fresh);
