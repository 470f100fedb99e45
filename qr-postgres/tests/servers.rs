//! Several servers on one database: a key change, a disabled account and a new role reach every other server within 100 ms (LISTEN/NOTIFY) and drop only that key's or account's cached entries there, a throttled address gets its valid keys from every server after a change, scan batches of several servers on the same links neither deadlock nor lose a count, a link capped at 1,000 visited through three servers records exactly 1,000, and servers opening a new database together migrate it once.

use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Barrier, Mutex, MutexGuard, PoisonError, mpsc};
use std::time::{Duration, Instant};

use qr_domain::accounts::caller::Caller;
use qr_domain::chrono::Utc;
use qr_domain::links::link::LinkUpdate;
use qr_domain::scans::scan::{Device, NewScan, ScanFate};
use qr_domain::scans::writer::ScanAck;
use qr_domain::scans::writer::ScanWriter;
use qr_domain::service::{Actor, AuthError, Opening, Recording, Visit, VisitOutcome};
use qr_domain::{
    Account, AccountId, AccountStatus, KeyMode, Link, LinkId, LinkName, NoGeoLocator, Plan,
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
    // Other customers' keys, in B's memory before the changes: none of them changes.
    let bystanders: Vec<String> = (0..100)
        .map(|i| {
            let other = a
                .create_account(&format!("bystander{i}@example.com"), Plan::Free)
                .unwrap();
            let (_, secret) = a.create_key(other.id, KeyMode::Live).unwrap();
            secret.expose_secret().to_owned()
        })
        .collect();
    let settled = Instant::now();
    for bystander in &bystanders {
        while !matches!(b.authenticate_cached(Some(bystander), None), Some(Ok(_))) {
            b.authenticate(Some(bystander), None).unwrap();
            assert!(
                settled.elapsed() < Duration::from_secs(2),
                "B never settled"
            );
        }
    }
    let mut delays = Vec::new();
    let mut from_start = Vec::new();
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
        let started = Instant::now();
        let (_, new) = a.regenerate_key(key.id).unwrap();
        // The change took effect at its commit, just before `regenerate_key` returned: the
        // delay is measured from here. (From before the transaction, the figure also holds the
        // transaction's own round trips, which a loaded machine stretches by tens of ms.)
        let committed = Instant::now();
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
        delays.push(committed.elapsed());
        from_start.push(started.elapsed());
        assert_eq!(
            b.authenticate(Some(&old), client).unwrap_err(),
            AuthError::Unknown
        );
        // Only the changed key's entry went: every other customer's key is still answered
        // from B's memory, without a lookup.
        for (n, bystander) in bystanders.iter().enumerate() {
            assert!(
                matches!(b.authenticate_cached(Some(bystander), None), Some(Ok(_))),
                "change {i}: B dropped bystander {n}'s key"
            );
        }
        b.authenticate(Some(new.expose_secret()), client).unwrap();
        secret = new;
    }
    let summary = |delays: &mut Vec<Duration>| {
        delays.sort();
        (delays[delays.len() / 2], delays[delays.len() - 1])
    };
    let (median, worst) = summary(&mut delays);
    let (start_median, start_worst) = summary(&mut from_start);
    eprintln!(
        "key change (from its commit) until the other server refuses the old key: median {:.2} ms, worst {:.2} ms over {} changes (from the start of its transaction: median {:.2} ms, worst {:.2} ms)",
        median.as_secs_f64() * 1e3,
        worst.as_secs_f64() * 1e3,
        delays.len(),
        start_median.as_secs_f64() * 1e3,
        start_worst.as_secs_f64() * 1e3,
    );
    assert!(worst < Duration::from_millis(100), "worst {worst:?}");
}

#[test]
fn a_throttled_address_gets_its_valid_keys_from_every_server_after_a_change() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let url = cluster.create_database();
    let (a, b) = (service(&url), service(&url));
    let office = Some(IpAddr::from([198, 51, 100, 20]));
    let elsewhere = Some(IpAddr::from([198, 51, 100, 99]));
    let owner = a.create_account("office@example.com", Plan::Pro).unwrap();
    let (key, old) = a.create_key(owner.id, KeyMode::Live).unwrap();
    let (_, colleague) = a.create_key(owner.id, KeyMode::Live).unwrap();
    let other = a.create_account("other@example.com", Plan::Free).unwrap();
    let (other_key, _) = a.create_key(other.id, KeyMode::Live).unwrap();
    // A misconfigured client at the office fails a few dozen times on each server.
    let wrong = "qrapi_live_00000000000000000000000000000000";
    for svc in [&a, &b] {
        for _ in 0..60 {
            assert!(svc.authenticate(Some(wrong), office).is_err());
        }
        assert!(matches!(
            svc.authenticate(Some(wrong), office),
            Err(AuthError::Throttled { .. })
        ));
    }
    // Another account's key and plan change, and the office's own key is regenerated.
    a.regenerate_key(other_key.id).unwrap();
    a.set_plan(other.id, Plan::Starter).unwrap();
    let (_, new) = a.regenerate_key(key.id).unwrap();
    // Once B has heard of the regeneration (asked from another address) ...
    let started = Instant::now();
    while b.authenticate(Some(old.expose_secret()), elsewhere).is_ok() {
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "B never heard of the regeneration"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    // ... the office's valid keys are served by both servers, retried too.
    for svc in [&a, &b] {
        for _ in 0..3 {
            for secret in [&new, &colleague] {
                let served = svc.authenticate(Some(secret.expose_secret()), office);
                assert_eq!(served.map(|ctx| ctx.key.account_id), Ok(owner.id));
            }
        }
        assert!(matches!(
            svc.authenticate(Some(old.expose_secret()), office),
            Err(AuthError::Throttled { .. })
        ));
    }
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
        f();
        // Measured from the commit, just before `f` returned (as for a regenerated key).
        let committed = Instant::now();
        delays.push(until_changed(&store_b, before, committed));
    };

    change(&|| drop(a.set_plan(account.id, Plan::Pro).unwrap()));
    assert_eq!(b.authenticate(key, client).unwrap().account.plan, Plan::Pro);
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
                    domain: None,
                    design: None,
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
                max_scans: None,
            };
            let acked = Arc::clone(&acked);
            let done = done.clone();
            writer
                .submit(
                    scan,
                    Box::new(move |result| {
                        assert!(matches!(result, Ok(ScanFate::Stored(_))), "{result:?}");
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

/// The race of a "first 1,000 scanners" campaign: 8 clients visit one link capped at 1,000
/// through 3 servers, 1,600 visits from 1,600 addresses. Each server lets a visit through while
/// its copy of the link counts fewer than 1,000 (its own scans only, until it rereads the link),
/// so about 3,000 would pass the servers' gates; the store decides each capped scan under the
/// link's lock, so exactly 1,000 are redirected to the target and recorded, and every other
/// visitor gets the expired answer.
#[test]
fn eight_clients_over_three_servers_never_pass_a_cap_of_1000() {
    let Some(cluster) = PgCluster::shared(SUITE) else {
        return;
    };
    let _alone = timing();
    let url = cluster.create_database();
    let servers: Vec<Service<PgStore, SystemClock>> = (0..3).map(|_| service(&url)).collect();
    let owner = servers[0]
        .create_account("race@example.com", Plan::Pro)
        .unwrap();
    let mut update = LinkUpdate::parse(Some("Coupon"), Some("https://example.com/coupon")).unwrap();
    update.set_max_scans(Some(1_000)).unwrap();
    update
        .set_expired_url(Some("https://example.com/gone"))
        .unwrap();
    let link = servers[0]
        .create_link_with(&Caller::operator(owner.id), update)
        .unwrap();
    let code = link.short_code.to_string();
    const CLIENTS: usize = 8;
    const VISITS: usize = 200;
    let start = Barrier::new(CLIENTS);
    let (redirected, expired): (Vec<usize>, Vec<usize>) = std::thread::scope(|s| {
        let clients: Vec<_> = (0..CLIENTS)
            .map(|client| {
                let (servers, code, start) = (&servers, &code, &start);
                s.spawn(move || {
                    start.wait();
                    let (mut redirected, mut expired) = (0, 0);
                    for visit in 0..VISITS {
                        let n = client * VISITS + visit;
                        let opening = Opening {
                            visit: Visit {
                                ip: Some(IpAddr::from([10, 1, (n / 250) as u8, (n % 250) as u8])),
                                user_agent: Some(PHONE.to_owned()),
                                ..Visit::default()
                            },
                            record: true,
                            ..Opening::default()
                        };
                        let outcome = servers[n % servers.len()]
                            .visit(None, code, &opening, ack)
                            .unwrap();
                        match outcome {
                            VisitOutcome::Redirect {
                                target,
                                scan: Recording::Queued(commit),
                                capped,
                            } => match commit.recv().unwrap().unwrap() {
                                ScanFate::Stored(_) => {
                                    assert_eq!(target, "https://example.com/coupon");
                                    redirected += 1;
                                }
                                ScanFate::OverCap => {
                                    let answer = capped.expect("a capped link's answer").outcome::<()>();
                                    assert!(matches!(answer, VisitOutcome::ExpiredUrl(u) if u == "https://example.com/gone"));
                                    expired += 1;
                                }
                                ScanFate::LinkGone => panic!("the link is not deleted"),
                            },
                            VisitOutcome::ExpiredUrl(url) => {
                                assert_eq!(url, "https://example.com/gone");
                                expired += 1;
                            }
                            other => panic!("unexpected outcome {other:?}"),
                        }
                    }
                    (redirected, expired)
                })
            })
            .collect();
        clients.into_iter().map(|c| c.join().unwrap()).unzip()
    });
    let (redirected, expired): (usize, usize) = (redirected.iter().sum(), expired.iter().sum());
    assert_eq!(redirected + expired, CLIENTS * VISITS);
    assert_eq!(redirected, 1_000, "exactly the cap is redirected");
    let stored = servers[1].link(owner.id, link.id).unwrap();
    assert_eq!(stored.scan_count, 1_000);
}

const PHONE: &str = "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36";

/// A writer callback and the receiver of its commit.
fn ack() -> (
    ScanAck,
    mpsc::Receiver<Result<ScanFate, qr_domain::StoreError>>,
) {
    let (tx, rx) = mpsc::channel();
    let ack: ScanAck = Box::new(move |result| {
        let _ = tx.send(result);
    });
    (ack, rx)
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
