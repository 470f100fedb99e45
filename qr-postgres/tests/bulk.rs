//! The bulk target on PostgreSQL: 10,000 links in one bulk call (one write transaction) on a throwaway cluster; the time is printed for docs/benchmarks.md (`--nocapture`), not asserted.

use std::sync::Arc;

use qr_domain::accounts::caller::Caller;
use qr_domain::links::bulk::BulkRequest;
use qr_domain::service::BulkCaller;
use qr_domain::{LinkUpdate, NoGeoLocator, Plan, Service, SystemClock};
use qr_postgres::PgStore;
use qr_test_support::servers::postgres::PgCluster;

#[test]
fn ten_thousand_links_in_one_bulk_call() {
    let Some(cluster) = PgCluster::shared("the PostgreSQL bulk test") else {
        return;
    };
    let store = PgStore::open(&cluster.create_database()).expect("open a new database");
    let svc = Service::new(Arc::new(store), SystemClock, Arc::new(NoGeoLocator)).expect("service");
    let account = svc
        .create_account("bulk@example.com", Plan::Enterprise)
        .expect("account");
    let targets: Vec<String> = (0..10_000)
        .map(|i| format!("https://example.com/{i}"))
        .collect();
    let items = targets
        .iter()
        .enumerate()
        .map(|(i, target)| {
            Ok(LinkUpdate::parse(Some(&format!("Link {i}")), Some(target)).expect("valid"))
        })
        .collect();
    let started = std::time::Instant::now();
    let outcome = svc
        .create_links_bulk(
            &Caller::operator(account.id),
            BulkRequest {
                items,
                data: targets.clone(),
                fingerprint: [0; 32],
            },
            None,
            BulkCaller::Api,
        )
        .expect("bulk");
    let elapsed = started.elapsed();
    assert_eq!(outcome.created.len(), 10_000);
    assert!(outcome.failures.is_empty());
    assert_eq!(svc.count_links(account.id).expect("count"), 10_000);
    eprintln!(
        "bulk on PostgreSQL: 10,000 links in one call in {:.2} s",
        elapsed.as_secs_f64()
    );
}
