//! The shared storage contract suite, run against a fresh database per check on a throwaway PostgreSQL cluster (skipped, with a note, where PostgreSQL is not installed).

use qr_postgres::PgStore;
use qr_test_support::servers::postgres::PgCluster;

fn fresh() -> Option<((), PgStore)> {
    let cluster = PgCluster::shared("the PostgreSQL contract suite")?;
    let store = PgStore::open(&cluster.create_database()).expect("open a new database");
    Some(((), store))
}

qr_domain::contract_suite!(optional fresh);
