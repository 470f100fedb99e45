//! Several servers on one database: a key change, a disabled account and a new role reach every other server within 100 ms (LISTEN/NOTIFY), scan batches of several servers on the same links neither deadlock nor lose a count, and servers opening a new database together migrate it once.

use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::{Duration, Instant};

use qr_domain::chrono::Utc;
use qr_domain::scans::scan::{Device, NewScan};
use qr_domain::scans::writer::ScanWriter;
use qr_domain::service::{Actor, AuthError};
use qr_domain::{
    Account, AccountId, AccountStatus, KeyMode, Link, LinkId, LinkName, NoGeoLocator, Plan, Role,
    Service, ShortCode, Store, SystemClock, TargetUrl,
};
use qr_postgres::{PgStore, SCHEMA_VERSION};
use qr_test_support::servers::postgres::PgCluster;

const SUITE: &str = "the PostgreSQL multi-server suite";

/// Held by the tests that measure how fast a change travels and by those that load the cluster
/// (scan batches of three servers, migrations racing), so no measurement runs under another
/// test's load (the test harness runs a file's tests side by side).
static TIMING: Mutex<()> = Mutex::new(());

fn timing() -> MutexGuard<'static, ()> {
    TIMING.lock().unwrap_or_else(PoisonError::into_inner)
}

fn service(url: &str) -> Service<PgStore, SystemClock> {
    Service::new(
        Arc::new(PgStore::open(url).unwrap()),
        SystemClock,
        Arc::new(NoGeoLocator),
    )
    .unwrap()
}

#[test]
fn a_regenerated_key_is_refused_by_every_other_server_within_100_ms() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let _alone = timing();
    let url = cluster.create_database();
    let (a, b) = (service(&url), service(&url));
    let account = a.create_account("owner@example.com", Plan::Pro).unwrap();
    let (key, mut secret) = a.create_key(account.id, KeyMode::Live).unwrap();
    let mut delays = Vec::new();
    for i in 0..50u8 {
        // Each change is checked from an address of its own: the old key's refusals count as
        // failed authentications, and 50 from one address would throttle it after 20.
        let client = Some(IpAddr::from([192, 0, 2, i]));
        let old = secret.expose_secret().to_owned();
        // Server B knows the key and answers from memory (once it has heard of the previous
        // change, which may still be on its way).
        let settled = Instant::now();
        while !matches!(b.authenticate_cached(Some(&old), client), Some(Ok(_))) {
            b.authenticate(Some(&old), client).unwrap();
            assert!(
                settled.elapsed() < Duration::from_secs(1),
                "B never settled"
            );
        }
        // Measured from before the change starts: an upper bound on the time from its commit.
        let started = Instant::now();
        let (_, new) = a.regenerate_key(key.id).unwrap();
        // Server A, which made the change, refuses the old secret at once.
        assert_eq!(
            a.authenticate_cached(Some(&old), client).map(|r| r.err()),
            None
        );
        assert_eq!(
            a.authenticate(Some(&old), client).unwrap_err(),
            AuthError::Unknown
        );
        while matches!(b.authenticate_cached(Some(&old), client), Some(Ok(_))) {
            assert!(
                started.elapsed() < Duration::from_secs(1),
                "server B kept the old key"
            );
            std::thread::sleep(Duration::from_micros(100));
        }
        delays.push(started.elapsed());
        assert_eq!(
            b.authenticate(Some(&old), client).unwrap_err(),
            AuthError::Unknown
        );
        b.authenticate(Some(new.expose_secret()), client).unwrap();
        secret = new;
    }
    delays.sort();
    let (median, worst) = (delays[delays.len() / 2], delays[delays.len() - 1]);
    eprintln!(
        "key change (from the start of its transaction) until the other server refuses the old key: median {:.2} ms, worst {:.2} ms over {} changes",
        median.as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3,
        delays.len()
    );
    assert!(worst < Duration::from_millis(100), "worst {worst:?}");
}

/// Waits (at most 1 s from `started`) until `store` sees a configuration version other than
/// `before`; returns the time since `started`.
fn until_changed(store: &PgStore, before: u64, started: Instant) -> Duration {
    while store.config_version().unwrap() == before {
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "the other server never heard of the change"
        );
        std::thread::sleep(Duration::from_micros(100));
    }
    started.elapsed()
}

#[test]
fn a_disabled_account_and_a_new_role_reach_every_other_server_within_100_ms() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let _alone = timing();
    let url = cluster.create_database();
    let store_b = Arc::new(PgStore::open(&url).unwrap());
    let a = service(&url);
    let b = Service::new(Arc::clone(&store_b), SystemClock, Arc::new(NoGeoLocator)).unwrap();
    let account = a.create_account("customer@example.com", Plan::Pro).unwrap();
    let (_, secret) = a.create_key(account.id, KeyMode::Live).unwrap();
    let key = Some(secret.expose_secret());
    let client = Some(IpAddr::from([192, 0, 2, 1]));
    // B answers from memory once it has heard of the key's creation: an account change must
    // reach it through the database.
    let settled = Instant::now();
    while !matches!(b.authenticate_cached(key, client), Some(Ok(_))) {
        b.authenticate(key, client).unwrap();
        assert!(
            settled.elapsed() < Duration::from_secs(1),
            "B never settled"
        );
    }
    let mut delays = Vec::new();
    let mut change = |f: &dyn Fn()| {
        let before = store_b.config_version().unwrap();
        // Measured from before the change starts: an upper bound on the time from its commit.
        let started = Instant::now();
        f();
        delays.push(until_changed(&store_b, before, started));
    };

    change(&|| {
        drop(
            a.set_role(Actor::Operator, account.id, Role::Admin)
                .unwrap(),
        )
    });
    assert_eq!(
        b.authenticate(key, client).unwrap().account.role,
        Role::Admin
    );
    change(&|| {
        drop(
            a.set_status(Actor::Operator, account.id, AccountStatus::Disabled)
                .unwrap(),
        );
    });
    assert_eq!(
        b.authenticate(key, client).unwrap_err(),
        AuthError::Unknown,
        "a disabled account's key fails like a revoked one"
    );
    change(&|| {
        drop(
            a.set_status(Actor::Operator, account.id, AccountStatus::Active)
                .unwrap(),
        );
    });
    assert_eq!(
        b.authenticate(key, client).unwrap().account.status,
        AccountStatus::Active
    );
    eprintln!(
        "account changes (role, disabled, enabled) heard by the other server after {:?}",
        delays
    );
    for delay in delays {
        assert!(delay < Duration::from_millis(100), "{delay:?}");
    }
}

fn setup_links(store: &PgStore, n: usize) -> Vec<LinkId> {
    let account = Account::new(
        AccountId::random(),
        qr_domain::Email::parse("scans@example.com").unwrap(),
        Plan::Enterprise,
        Utc::now(),
    );
    let ids: Vec<LinkId> = (0..n).map(|_| LinkId::random()).collect();
    store
        .write(|tx| {
            tx.insert_account(&account)?;
            for id in &ids {
                tx.insert_link(&Link {
                    id: *id,
                    account_id: account.id,
                    name: LinkName::parse("hot").unwrap(),
                    short_code: ShortCode::generate().unwrap(),
                    target_url: TargetUrl::parse("https://example.com/").unwrap(),
                    scan_count: 0,
                    created_at: Utc::now(),
                    updated_at: Utc::now(),
                    tags: Vec::new(),
                    options: Default::default(),
                })?;
            }
            Ok::<_, qr_domain::StoreError>(())
        })
        .unwrap();
    ids
}

#[test]
fn scan_batches_of_three_servers_on_the_same_links_all_commit() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let _alone = timing();
    let url = cluster.create_database();
    let stores: Vec<Arc<PgStore>> = (0..3)
        .map(|_| Arc::new(PgStore::open(&url).unwrap()))
        .collect();
    let links = setup_links(&stores[0], 8);
    let writers: Vec<ScanWriter> = stores
        .iter()
        .map(|s| ScanWriter::spawn(Arc::clone(s)).unwrap())
        .collect();
    const PER_SERVER: usize = 3_000;
    let acked = Arc::new(AtomicUsize::new(0));
    let (done, all_done) = mpsc::channel();
    for (w, writer) in writers.iter().enumerate() {
        for i in 0..PER_SERVER {
            // Each server visits the links in a different order, the pattern that deadlocks
            // when rows are locked in arrival order.
            let link = links[(i * (w + 1) + w) % links.len()];
            let scan = NewScan {
                link_id: link,
                at: Utc::now(),
                visitor: [u8::try_from(i % 250).unwrap(); 16],
                country: "GB".into(),
                city: "Unknown".into(),
                device: Device::Mobile,
                browser: "Chrome".into(),
                os: "Android".into(),
                referrer: None,
                variant: None,
                rule: None,
            };
            let acked = Arc::clone(&acked);
            let done = done.clone();
            writer
                .submit(
                    scan,
                    Box::new(move |result| {
                        assert!(matches!(result, Ok(Some(_))), "{result:?}");
                        if acked.fetch_add(1, Ordering::SeqCst) + 1 == 3 * PER_SERVER {
                            let _ = done.send(());
                        }
                    }),
                )
                .unwrap();
        }
    }
    all_done
        .recv_timeout(Duration::from_secs(60))
        .expect("every scan acknowledged");
    let total: u64 = stores[0]
        .read(|tx| {
            let mut total = 0;
            for id in &links {
                let stats = tx.rollup_stats(
                    *id,
                    Utc::now().date_naive().pred_opt().unwrap(),
                    Utc::now().date_naive(),
                )?;
                total += stats.days.iter().map(|d| d.scans).sum::<u64>();
            }
            Ok::<_, qr_domain::StoreError>(total)
        })
        .unwrap();
    assert_eq!(total, 3 * PER_SERVER as u64, "rollups count every scan");
}

#[test]
fn servers_opening_a_new_database_at_once_migrate_it_once() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let _alone = timing();
    for _ in 0..5 {
        let url = cluster.create_database();
        let barrier = Arc::new(Barrier::new(4));
        let openers: Vec<_> = (0..4)
            .map(|_| {
                let (url, barrier) = (url.clone(), Arc::clone(&barrier));
                std::thread::spawn(move || {
                    barrier.wait();
                    PgStore::open(&url).map(drop)
                })
            })
            .collect();
        for opener in openers {
            let result = opener.join().unwrap();
            assert!(result.is_ok(), "{result:?}");
        }
        let name = url.rsplit('/').next().unwrap();
        assert_eq!(
            cluster.psql(name, "SELECT version FROM qr_schema"),
            SCHEMA_VERSION.to_string()
        );
    }
}

#[test]
fn foreign_and_newer_databases_are_refused_untouched() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let url = cluster.create_database();
    let name = url.rsplit('/').next().unwrap().to_owned();
    cluster.psql(
        &name,
        "CREATE TABLE notes (body text); INSERT INTO notes VALUES ('keep me')",
    );
    let err = PgStore::open(&url).unwrap_err();
    assert!(
        matches!(err, qr_postgres::OpenError::ForeignDatabase { .. }),
        "{err}"
    );
    assert_eq!(
        cluster.psql(
            &name,
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public'"
        ),
        "1",
        "nothing was created"
    );

    let url = cluster.create_database();
    let name = url.rsplit('/').next().unwrap().to_owned();
    drop(PgStore::open(&url).unwrap());
    cluster.psql(
        &name,
        &format!("UPDATE qr_schema SET version = {}", SCHEMA_VERSION + 1),
    );
    let err = PgStore::open(&url).unwrap_err();
    assert!(
        matches!(err, qr_postgres::OpenError::NewerSchema { found, .. } if found == SCHEMA_VERSION + 1),
        "{err}"
    );
    assert!(!err.to_string().contains("postgres:***"));
}
