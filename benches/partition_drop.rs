//! Retention on PostgreSQL: a day of scans deleted by row against its partition dropped, wall time and WAL bytes of each (docs/benchmarks.md, "Retention: dropping a day against deleting it").
//!
//! Run: `cargo bench -p qr-benches --bench partition_drop` (10 million scans a day), or with
//! `-- ROWS` for another count. A throwaway cluster with PostgreSQL's durable defaults (fsync,
//! full-page writes) is started on a Unix socket; the program prints one table and exits, it is
//! not a criterion benchmark (one run of each costs minutes).
//!
//! Two days are filled alike, server-side (`generate_series`), with the schema the store
//! migrates to; a checkpoint precedes each measurement, as the days retention removes were
//! written long before it (so every page changed is logged whole once, as in production).
//! Deleting is the statement `prune_scans` runs (an account's scans before a day), followed by
//! the `VACUUM` that makes the space reusable; dropping is `qr_drop_scan_days_before`, what
//! `drop_scan_days_before` runs (its count of the day's scans included, measured alone first).
//! Last, the read of a link's recent scans with a year of day partitions, as the store runs it
//! and naming its day.

use std::time::{Duration, Instant};

use postgres::{Client, NoTls};
use qr_domain::chrono::{DateTime, Days, NaiveDate, Utc};
use qr_postgres::{DayTable, PgStore, create_day_partitions};
use qr_test_support::servers::postgres::{Durability, PgCluster};

/// The scans of one day: the viral code (20 million a minute at its peak) fills a
/// day's partition with at least this many.
const DEFAULT_ROWS: u64 = 10_000_000;

/// The links the day's scans are spread over, all of one account.
const LINKS: u32 = 1_000;

const ACCOUNT: &str = "00000000-0000-4000-8000-000000000001";

/// What one way of removing a day cost.
struct Cost {
    wall: Duration,
    wal_bytes: i64,
}

fn main() {
    let rows: u64 = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with('-'))
        .and_then(|a| a.parse().ok())
        .unwrap_or(DEFAULT_ROWS);
    let Some(cluster) = PgCluster::start("the partition drop measurement", Durability::Durable)
    else {
        return;
    };
    let url = cluster.create_database();
    drop(PgStore::open(&url).expect("migrate a new database"));
    let mut client = Client::connect(&url, NoTls).expect("connect");
    setup(&mut client);
    // The first day is dropped, the second deleted: each removes its own day only (the drop
    // takes the days before its cutoff, the delete those before its own).
    let (dropped_day, deleted_day) = ("2024-05-01", "2024-05-02");
    for day in [dropped_day, deleted_day] {
        let started = Instant::now();
        fill(&mut client, day, rows);
        println!(
            "filled {day} with {rows} scans in {:.1} s",
            started.elapsed().as_secs_f64()
        );
    }
    let size: String = client
        .query_one(
            "SELECT pg_size_pretty(pg_total_relation_size('scans_20240501'))",
            &[],
        )
        .expect("size")
        .get(0);
    println!("one day's partition with its indexes: {size}");

    let count = measure(&mut client, |c| {
        c.query_one("SELECT count(*) FROM scans_20240501", &[])
            .expect("count");
    });
    let drop_day = measure(&mut client, |c| {
        let n: i64 = c
            .query_one("SELECT qr_drop_scan_days_before('2024-05-02', '{}')", &[])
            .expect("drop")
            .get(0);
        assert_eq!(u64::try_from(n).ok(), Some(rows), "the day's scans counted");
    });
    let delete = measure(&mut client, |c| {
        let n = c
            .execute(
                "DELETE FROM scans WHERE day < $2::text::date
                 AND link_id IN (SELECT id FROM links WHERE account_id = $1::text::uuid)",
                &[&ACCOUNT, &"2024-05-03"],
            )
            .expect("delete");
        assert_eq!(n, rows, "every scan of the day deleted");
    });
    let vacuum = measure(&mut client, |c| {
        c.batch_execute("VACUUM scans_20240502").expect("vacuum");
    });
    let create = measure(&mut client, |c| {
        create_day_partitions(c, DayTable::Scans, &["2024-05-10".parse().expect("day")])
            .expect("create a partition");
    });
    let few = read_cost(&mut client, ANY_DAY);
    let year: Vec<NaiveDate> = (0..365)
        .filter_map(|d| {
            "2023-05-01"
                .parse::<NaiveDate>()
                .ok()?
                .checked_add_days(Days::new(d))
        })
        .collect();
    create_day_partitions(&mut client, DayTable::Scans, &year).expect("a year of partitions");
    let many = read_cost(&mut client, ANY_DAY);
    let many_one_day = read_cost(&mut client, ONE_DAY);
    client
        .batch_execute("SET plan_cache_mode = force_custom_plan")
        .expect("custom plans");
    let many_one_day_custom = read_cost(&mut client, ONE_DAY);
    println!("| way | wall time | WAL bytes |");
    println!("| --- | ---: | ---: |");
    for (way, cost) in [
        ("DELETE (prune_scans)", &delete),
        ("VACUUM after the DELETE", &vacuum),
        ("count the day's scans alone (cold)", &count),
        ("drop the partition (count again + DROP)", &drop_day),
        ("create a day's partition (LIKE + ATTACH)", &create),
    ] {
        println!(
            "| {way} | {:.3} s | {} |",
            cost.wall.as_secs_f64(),
            cost.wal_bytes
        );
    }
    let partitions: i64 = client
        .query_one(
            "SELECT count(*) FROM pg_inherits WHERE inhparent = 'scans'::regclass",
            &[],
        )
        .expect("partitions")
        .get(0);
    println!("partitions of scans at the end, default included: {partitions}");
    for (partitions, (time, locks)) in [
        ("the days ahead", few),
        ("365 more", many),
        ("365 more, the read naming its day", many_one_day),
        (
            "365 more, the read naming its day, plan_cache_mode = force_custom_plan",
            many_one_day_custom,
        ),
    ] {
        println!(
            "a link's recent scans with {partitions}: {:.3} ms a read, {locks} locks held",
            time.as_secs_f64() * 1e3
        );
    }
}

/// The read of a link's recent scans as `recent_scans` runs it (no day named).
const ANY_DAY: &str = "SELECT id, at FROM scans WHERE link_id = $1 AND at BETWEEN $2 AND $3
     ORDER BY at DESC, id DESC LIMIT 100";

/// The same read naming the days of its range (`date` parameters), so partitions can be pruned.
const ONE_DAY: &str = "SELECT id, at FROM scans WHERE link_id = $1 AND at BETWEEN $2 AND $3
     AND day BETWEEN $4 AND $5 ORDER BY at DESC, id DESC LIMIT 100";

/// The read `sql` of a link's recent scans on a link without scans (what is measured is
/// planning and locking the partitions), over one day: its mean time over 50 runs after 10
/// (the plan cached, as on a pooled connection), and the relation locks its transaction holds.
fn read_cost(client: &mut Client, sql: &str) -> (Duration, i64) {
    let read = client.prepare(sql).expect("prepare");
    let day: NaiveDate = "2024-05-10".parse().expect("day");
    let link = qr_domain::LinkId::random().as_uuid();
    let (from, to) = (
        "2024-05-10T00:00:00Z"
            .parse::<DateTime<Utc>>()
            .expect("time"),
        "2024-05-10T23:59:59Z"
            .parse::<DateTime<Utc>>()
            .expect("time"),
    );
    let params: [&(dyn postgres::types::ToSql + Sync); 5] = [&link, &from, &to, &day, &day];
    for _ in 0..10 {
        client
            .query(&read, &params[..read.params().len()])
            .expect("read");
    }
    let started = Instant::now();
    for _ in 0..50 {
        client
            .query(&read, &params[..read.params().len()])
            .expect("read");
    }
    let time = started.elapsed() / 50;
    let mut tx = client.transaction().expect("begin");
    tx.query(&read, &params[..read.params().len()])
        .expect("read");
    let locks: i64 = tx
        .query_one(
            "SELECT count(*) FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'relation'",
            &[],
        )
        .expect("locks")
        .get(0);
    tx.rollback().expect("rollback");
    (time, locks)
}

/// One account with [`LINKS`] links.
fn setup(client: &mut Client) {
    client
        .batch_execute(&format!(
            "INSERT INTO accounts (id, email, plan, overrides, created_at)
             VALUES ('{ACCOUNT}', 'bench@example.com', 'enterprise', '{{}}', now());
             INSERT INTO links (id, account_id, name, short_code, code_key, target_url, created_at, updated_at)
             SELECT md5(i::text)::uuid, '{ACCOUNT}', 'L' || i, 'C' || i, 'C' || i,
                    'https://example.com/', now(), now()
             FROM generate_series(1, {LINKS}) AS i;"
        ))
        .expect("account and links");
}

/// `rows` scans on `day`, through its partition, as the batch statement writes them; then
/// vacuumed, as autovacuum does an insert-only table long before retention removes the day.
fn fill(client: &mut Client, day: &str, rows: u64) {
    let compact = day.replace('-', "");
    create_day_partitions(client, DayTable::Scans, &[day.parse().expect("day")])
        .expect("the day's partition");
    client
        .batch_execute(&format!(
            "INSERT INTO scans (id, link_id, at, day, visitor, country, city, device, browser, os,
                                referrer, variant, rule)
             SELECT nextval('scans_id_seq'), md5((i % {LINKS} + 1)::text)::uuid,
                    '{day}'::timestamptz + (i * 86399 / {rows}) * interval '1 second', '{day}',
                    decode(md5(i::text), 'hex'), (ARRAY['GB', 'US', 'DE', 'FR'])[(i % 4 + 1)::int],
                    'London', 'mobile', 'Chrome', 'Android',
                    CASE WHEN i % 3 = 0 THEN 'https://news.example/a' END, NULL, NULL
             FROM generate_series(1::bigint, {rows}) AS i"
        ))
        .expect("fill the day");
    // Alone: VACUUM runs outside a transaction block.
    client
        .batch_execute(&format!("VACUUM (ANALYZE) scans_{compact}"))
        .expect("vacuum the day");
}

/// The wall time and WAL written by `work`, after a checkpoint.
fn measure(client: &mut Client, work: impl FnOnce(&mut Client)) -> Cost {
    client.batch_execute("CHECKPOINT").expect("checkpoint");
    let lsn = |c: &mut Client| -> String {
        c.query_one("SELECT pg_current_wal_lsn()::text", &[])
            .expect("lsn")
            .get(0)
    };
    let before = lsn(client);
    let started = Instant::now();
    work(client);
    let wall = started.elapsed();
    let after = lsn(client);
    let wal_bytes: i64 = client
        .query_one(
            "SELECT pg_wal_lsn_diff($2::text::pg_lsn, $1::text::pg_lsn)::bigint",
            &[&before, &after],
        )
        .expect("lsn diff")
        .get(0);
    Cost { wall, wal_bytes }
}
