//! Storage benchmarks: scan write throughput with group commit, and analytics cost at 10k vs 1M scans, on SQLite and on PostgreSQL; on PostgreSQL, 8 writers on one link against 8 on their own links.
//!
//! Run: `cargo bench -p qr-benches --bench storage`. SQLite uses files in a temporary
//! directory with the production settings (WAL, synchronous=FULL); PostgreSQL a throwaway
//! cluster with its durable defaults (fsync=on, synchronous_commit=on) on a Unix socket,
//! started by the benchmark (skipped with a note when PostgreSQL is not installed).

use std::hint::black_box;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use qr_domain::chrono::{DateTime, Duration, Utc};
use qr_domain::links::link::{Link, LinkName, TargetUrl};
use qr_domain::scans::scan::{Device, NewScan, ScanFate};
use qr_domain::scans::writer::ScanWriter;
use qr_domain::{
    Account, AccountId, AnalyticsQuery, LinkId, NoGeoLocator, Plan, Service, ShortCode, Store,
    TestClock,
};
use qr_postgres::PgStore;
use qr_sqlite::SqliteStore;
use qr_test_support::servers::postgres::{Durability, PgCluster};

const COUNTRIES: [&str; 8] = ["GB", "US", "DE", "FR", "SE", "CN", "JP", "XX"];
const BROWSERS: [&str; 5] = ["Chrome", "Safari", "Firefox", "Edge", "Samsung Internet"];
const DEVICES: [Device; 3] = [Device::Mobile, Device::Desktop, Device::Tablet];
const DAYS: i64 = 90;

fn start() -> DateTime<Utc> {
    DateTime::from_timestamp(1_714_521_600, 0).unwrap_or_default() // 2024-05-01T00:00:00Z
}

/// The i-th of `total` scans of `link`, spread evenly over `DAYS` days with fixed cardinalities.
fn scan(link: LinkId, i: u64, total: u64) -> NewScan {
    let span = DAYS * 86_400_000_000;
    let offset = i64::try_from(i).unwrap_or(0) * (span / i64::try_from(total.max(1)).unwrap_or(1));
    let mut visitor = [0u8; 16];
    visitor[..8].copy_from_slice(&(i % 5_000).to_le_bytes());
    let k = usize::try_from(i).unwrap_or(0);
    NewScan {
        link_id: link,
        at: start() + Duration::microseconds(offset),
        visitor,
        country: COUNTRIES[k % COUNTRIES.len()].to_owned(),
        city: "Unknown".to_owned(),
        device: DEVICES[k % DEVICES.len()],
        browser: BROWSERS[k % BROWSERS.len()].to_owned(),
        os: "Android".to_owned(),
        referrer: Some("https://news.example/article".to_owned()),
        variant: None,
        rule: None,
        max_scans: None,
    }
}

fn setup<S: Store>(store: &S, links: usize) -> (Account, Vec<LinkId>) {
    let account = Account::new(
        AccountId::random(),
        qr_domain::Email::parse("bench@example.com").expect("valid e-mail"),
        Plan::Enterprise,
        start(),
    );
    let ids: Vec<LinkId> = (0..links).map(|_| LinkId::random()).collect();
    store
        .write(|tx| {
            tx.insert_account(&account)?;
            for id in &ids {
                tx.insert_link(&Link {
                    id: *id,
                    account_id: account.id,
                    name: LinkName::parse("bench").expect("valid name"),
                    short_code: ShortCode::generate().expect("rng"),
                    domain: None,
                    design: None,
                    target_url: TargetUrl::parse("https://example.com/").expect("valid url"),
                    scan_count: 0,
                    created_at: start(),
                    updated_at: start(),
                    tags: Vec::new(),
                    options: Default::default(),
                })?;
            }
            Ok::<_, qr_domain::StoreError>(())
        })
        .expect("setup");
    (account, ids)
}

/// Many concurrent visits, each acknowledged only after its commit: what the redirect handler does.
fn write_throughput_on<S: Store>(c: &mut Criterion, engine: &str, store: Arc<S>) {
    const N: u64 = 20_000;
    let (_, links) = setup(&*store, 100);
    let writer = ScanWriter::spawn(Arc::clone(&store)).expect("writer thread");
    let mut group = c.benchmark_group("scan_writes");
    group.throughput(Throughput::Elements(N));
    group.sample_size(10);
    group.bench_function(format!("group_commit_20k_acknowledged/{engine}"), |b| {
        b.iter_batched(
            || {
                (0..N)
                    .map(|i| scan(links[(i % 100) as usize], i, N))
                    .collect::<Vec<_>>()
            },
            |scans| {
                let acked = Arc::new(AtomicUsize::new(0));
                let (done, wait) = mpsc::channel();
                for s in scans {
                    let acked = Arc::clone(&acked);
                    let done = done.clone();
                    writer
                        .submit(
                            s,
                            Box::new(move |r| {
                                assert!(matches!(r, Ok(ScanFate::Stored(_))), "scan committed");
                                if acked.fetch_add(1, Ordering::Relaxed) + 1 == N as usize {
                                    let _ = done.send(());
                                }
                            }),
                        )
                        .expect("writer running");
                }
                wait.recv().expect("all acknowledged");
            },
            criterion::BatchSize::PerIteration,
        );
    });
    group.finish();
}

/// Analytics of a link with 10,000 scans versus one with 1,000,000, same days and cardinalities.
fn analytics_scaling_on<S: Store>(c: &mut Criterion, engine: &str, store: Arc<S>) {
    let (account, links) = setup(&*store, 2);
    for (link, total) in [(links[0], 10_000u64), (links[1], 1_000_000u64)] {
        let mut i = 0;
        while i < total {
            let batch: Vec<NewScan> = (i..(i + 10_000).min(total))
                .map(|k| scan(link, k, total))
                .collect();
            store.record_scans(&batch).expect("populate");
            i += 10_000;
        }
    }
    let clock = TestClock::new(start() + Duration::days(DAYS - 1) + Duration::hours(12));
    let svc = Service::new(Arc::clone(&store), clock, Arc::new(NoGeoLocator)).expect("service");
    let mut group = c.benchmark_group("analytics");
    let query = AnalyticsQuery::default();
    for (link, label) in [(links[0], "10k_scans"), (links[1], "1M_scans")] {
        let report = svc.analytics(&account, link, &query).expect("analytics");
        assert_eq!(report.analytics.scans_by_day.len(), DAYS as usize);
        group.bench_with_input(
            BenchmarkId::new(format!("default_window/{engine}"), label),
            &link,
            |b, id| {
                b.iter(|| black_box(svc.analytics(&account, *id, &query).expect("analytics")));
            },
        );
    }
    group.finish();
}

/// Writers at once (as many servers' scan writers), each with its own store and the same
/// batches, all on one link (a viral code) against each on its own link: the same work per
/// batch, so the ratio of the two is the time batches spend waiting for each other.
const WRITERS: usize = 8;
const WRITER_BATCHES: usize = 10;
const WRITER_BATCH: usize = 64;

/// The batches of writer `w`, on `link`: one day's scans, every visitor new (a spike's crowd).
fn writer_batches(w: usize, link: LinkId) -> Vec<Vec<NewScan>> {
    (0..WRITER_BATCHES)
        .map(|b| {
            (0..WRITER_BATCH)
                .map(|i| {
                    let n = ((w * WRITER_BATCHES + b) * WRITER_BATCH + i) as u64;
                    let mut scan = scan(link, n, u64::MAX);
                    scan.visitor[8..].copy_from_slice(&n.to_le_bytes());
                    scan.at = start() + Duration::hours(12);
                    scan
                })
                .collect()
        })
        .collect()
}

fn concurrent_writers(c: &mut Criterion) {
    let Some(cluster) = cluster() else {
        return;
    };
    let url = cluster.create_database();
    let stores: Vec<Arc<PgStore>> = (0..WRITERS)
        .map(|_| Arc::new(PgStore::open(&url).expect("open")))
        .collect();
    let (_, links) = setup(&*stores[0], WRITERS);
    let mut group = c.benchmark_group("concurrent_writers");
    group.throughput(Throughput::Elements(
        (WRITERS * WRITER_BATCHES * WRITER_BATCH) as u64,
    ));
    group.sample_size(10);
    for (case, one_link) in [("own_links", false), ("one_link", true)] {
        let batches: Vec<Vec<Vec<NewScan>>> = (0..WRITERS)
            .map(|w| writer_batches(w, if one_link { links[0] } else { links[w] }))
            .collect();
        group.bench_function(format!("{WRITERS}_writers/{case}/postgres"), |b| {
            b.iter(|| {
                std::thread::scope(|s| {
                    for (store, batches) in stores.iter().zip(&batches) {
                        s.spawn(move || {
                            for batch in batches {
                                let fates = store.record_scans(batch).expect("batch stored");
                                assert!(fates.iter().all(|f| f.id().is_some()));
                            }
                        });
                    }
                });
            });
        });
    }
    group.finish();
}

fn sqlite(dir: &tempfile::TempDir, name: &str) -> Arc<SqliteStore> {
    Arc::new(SqliteStore::open(dir.path().join(name)).expect("open"))
}

/// The durable cluster shared by the PostgreSQL cases, if PostgreSQL is installed.
fn cluster() -> Option<&'static PgCluster> {
    static CLUSTER: std::sync::OnceLock<Option<PgCluster>> = std::sync::OnceLock::new();
    CLUSTER
        .get_or_init(|| PgCluster::start("the PostgreSQL storage benchmarks", Durability::Durable))
        .as_ref()
}

fn postgres() -> Option<Arc<PgStore>> {
    let cluster = cluster()?;
    Some(Arc::new(
        PgStore::open(&cluster.create_database()).expect("open"),
    ))
}

fn write_throughput(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    write_throughput_on(c, "sqlite", sqlite(&dir, "bench.db"));
    if let Some(store) = postgres() {
        write_throughput_on(c, "postgres", store);
    }
}

fn analytics_scaling(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("temp dir");
    analytics_scaling_on(c, "sqlite", sqlite(&dir, "analytics.db"));
    if let Some(store) = postgres() {
        analytics_scaling_on(c, "postgres", store);
    }
}

criterion_group!(
    benches,
    write_throughput,
    analytics_scaling,
    concurrent_writers
);
criterion_main!(benches);
