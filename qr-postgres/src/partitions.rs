//! Scans and visitors partitioned by day: the migration step that converts them (the step after
//! the scan counts' slots), the server-side functions that create a day's partitions and drop
//! whole days, and the statements the store runs them with.
//!
//! Each day `D` of `scans` and of `visitors` has its own partition, `scans_YYYYMMDD` and
//! `visitors_YYYYMMDD`, holding the days `D..D+1`. Retention then drops a day's partition
//! instead of deleting its rows: a day of 10 million scans goes with 110 KB of WAL instead of
//! 2.8 GB (the delete and its vacuum), in 12x less time (docs/benchmarks.md, "Retention:
//! dropping a day against deleting it").
//!
//! - Partitions are created ahead, today through [`DAYS_AHEAD`] days on, when a server opens
//!   the database and from every pruning run (`prepare_scan_days`). Creating one is `CREATE
//!   TABLE … (LIKE …)` then `ATTACH PARTITION`, which takes only a `SHARE UPDATE EXCLUSIVE` lock
//!   on the parent, so scan batches (`ROW EXCLUSIVE`) and reads go on meanwhile; `CREATE TABLE …
//!   PARTITION OF` would take `ACCESS EXCLUSIVE` and stop them. Servers racing to create a day
//!   serialise on an advisory lock and the later finds the day there.
//! - Each table has a `DEFAULT` partition, so a scan of a day without partition (maintenance
//!   stopped for days, a clock far off) is stored all the same. Its rows are read and pruned
//!   like any other, by row; creating their day's partition later moves them into it.
//! - Dropping a day needs an `ACCESS EXCLUSIVE` lock on the parent for the instant of the drop,
//!   which waits for the statements in flight on it; every such wait is bounded by
//!   [`LOCK_TIMEOUT`], after which the day is left for the next run (scans) or its rows are
//!   deleted instead (visitor ids, which must go).

use chrono::NaiveDate;
use postgres::{GenericClient, Transaction};

/// How many days after today the server creates partitions of when it opens the database.
/// Pruning, hourly, creates the same days with the domain's own horizon (three days too).
pub(crate) const DAYS_AHEAD: u64 = 3;

/// The advisory lock creating a partition takes, so servers racing to create one day create it
/// once. Its number follows the migration lock (…0001) and the write lock (…0002).
const PARTITION_LOCK: i64 = 0x5152_504C_0003;

/// The longest a partition's creation or drop waits for a lock. A waiting `ACCESS EXCLUSIVE`
/// request queues every later statement on the table behind it, scan batches included, so the
/// wait is the stall it may cause: one second, against scan batches of a few milliseconds.
const LOCK_TIMEOUT: &str = "1s";

/// A table partitioned by day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DayTable {
    /// `scans`: one row per recorded scan.
    Scans,
    /// `visitors`: one row per link, day and visitor id, kept two days.
    Visitors,
}

impl DayTable {
    /// The parent table's name.
    pub fn name(self) -> &'static str {
        match self {
            DayTable::Scans => "scans",
            DayTable::Visitors => "visitors",
        }
    }
}

/// Creates the partitions of `days` in `table` that do not exist yet (moving any rows of those
/// days out of the default partition), in the caller's transaction.
pub fn create_day_partitions(
    client: &mut impl GenericClient,
    table: DayTable,
    days: &[NaiveDate],
) -> Result<(), postgres::Error> {
    client.execute(
        "SELECT qr_create_day_partition($1, d) FROM unnest($2::date[]) AS d",
        &[&table.name(), &days],
    )?;
    Ok(())
}

/// Creates both tables' partitions of `first..=last` (`$1`, `$2`).
pub(crate) const CREATE_DAYS: &str = "
SELECT qr_create_day_partition(t, d::date)
FROM unnest(ARRAY['scans', 'visitors']) AS t,
     generate_series($1::date, $2::date, interval '1 day') AS d";

/// Drops the scans of days before `$1` without scans of the accounts `$2`; answers the count.
pub(crate) const DROP_SCAN_DAYS: &str = "SELECT qr_drop_scan_days_before($1, $2)";

/// Drops the visitor ids of days before `$1`.
pub(crate) const DROP_VISITOR_DAYS: &str = "SELECT qr_drop_visitor_days_before($1)";

/// Creates the partitions of today through [`DAYS_AHEAD`] days on, when a server opens.
pub(crate) fn create_ahead(
    client: &mut postgres::Client,
    today: NaiveDate,
) -> Result<(), postgres::Error> {
    let last = today
        .checked_add_days(chrono::Days::new(DAYS_AHEAD))
        .unwrap_or(today);
    client.execute(CREATE_DAYS, &[&today, &last])?;
    Ok(())
}

/// The functions, in PL/pgSQL: a day's partition made and moved into, days dropped. They run
/// on the server because each is a loop of statements naming tables (partitions) that
/// parameters cannot name, and because an exception block is how one statement waiting too
/// long for its lock is skipped without losing the caller's transaction.
fn functions() -> String {
    format!(
        r#"
CREATE FUNCTION qr_create_day_partition(parent text, d date) RETURNS boolean
LANGUAGE plpgsql SET lock_timeout = '{LOCK_TIMEOUT}' AS $$
DECLARE
    part text := parent || '_' || to_char(d, 'YYYYMMDD');
BEGIN
    IF parent NOT IN ('scans', 'visitors') THEN
        RAISE EXCEPTION 'no day partitions of %', parent;
    END IF;
    BEGIN
        PERFORM pg_advisory_xact_lock({PARTITION_LOCK});
        IF to_regclass(quote_ident(part)) IS NOT NULL THEN
            RETURN false;
        END IF;
        EXECUTE format('CREATE TABLE %I (LIKE %I INCLUDING DEFAULTS)', part, parent);
        EXECUTE format(
            'WITH moved AS (DELETE FROM %I WHERE day = %L RETURNING *) INSERT INTO %I SELECT * FROM moved',
            parent || '_default', d, part);
        EXECUTE format('ALTER TABLE %I ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)',
            parent, part, d, d + 1);
    EXCEPTION WHEN lock_not_available THEN
        -- Readers held the default partition past the timeout: the next run creates the day,
        -- and its scans meanwhile go to the default partition.
        RETURN false;
    END;
    RETURN true;
END
$$;

CREATE FUNCTION qr_drop_scan_days_before(cutoff date, keep uuid[]) RETURNS bigint
LANGUAGE plpgsql SET lock_timeout = '{LOCK_TIMEOUT}' AS $$
DECLARE
    part text;
    kept boolean;
    n bigint;
    dropped bigint := 0;
BEGIN
    FOR part IN
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'scans'::regclass
          AND c.relname ~ '^scans_[0-9]{{8}}$'
          AND c.relname COLLATE "C" < ('scans_' || to_char(cutoff, 'YYYYMMDD')) COLLATE "C"
        ORDER BY c.relname
    LOOP
        EXECUTE format(
            'SELECT EXISTS (SELECT 1 FROM %I WHERE link_id IN (SELECT id FROM links WHERE account_id = ANY($1)))',
            part) INTO kept USING keep;
        CONTINUE WHEN kept;
        BEGIN
            EXECUTE format('SELECT count(*) FROM %I', part) INTO n;
            EXECUTE format('DROP TABLE %I', part);
            dropped := dropped + n;
        EXCEPTION WHEN lock_not_available THEN
            -- A long statement held the table past the timeout: the next run drops the day.
            NULL;
        END;
    END LOOP;
    WITH gone AS (
        DELETE FROM scans_default s
        WHERE s.day < cutoff AND NOT EXISTS (
            SELECT 1 FROM scans_default k JOIN links l ON l.id = k.link_id
            WHERE k.day = s.day AND l.account_id = ANY(keep))
        RETURNING 1)
    SELECT count(*) INTO n FROM gone;
    RETURN dropped + n;
END
$$;

CREATE FUNCTION qr_drop_visitor_days_before(cutoff date) RETURNS void
LANGUAGE plpgsql SET lock_timeout = '{LOCK_TIMEOUT}' AS $$
DECLARE
    part text;
BEGIN
    FOR part IN
        SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
        WHERE i.inhparent = 'visitors'::regclass
          AND c.relname ~ '^visitors_[0-9]{{8}}$'
          AND c.relname COLLATE "C" < ('visitors_' || to_char(cutoff, 'YYYYMMDD')) COLLATE "C"
    LOOP
        BEGIN
            EXECUTE format('DROP TABLE %I', part);
        EXCEPTION WHEN lock_not_available THEN
            -- The ids must go now: by row, and the empty table at the next call.
            EXECUTE format('DELETE FROM %I', part);
        END;
    END LOOP;
    DELETE FROM visitors_default WHERE day < cutoff;
END
$$;
"#
    )
}

/// The migration step: `scans` and `visitors` become tables partitioned by day, their rows
/// moved into one partition per day they hold.
///
/// Each old table is renamed and stripped of its indexes (reading it whole needs none), the
/// partitioned table is made `LIKE` it (the same columns in the same order, so rows move with
/// `SELECT *`), the rows are inserted through the parent (which routes them), and the indexes
/// are built once at the end, faster than maintained row by row. The scan ids stay, and so does
/// the sequence `scans_id_seq` the batch statement draws from: the old identity sequence
/// belongs to the old column and goes with it, so a plain sequence of that name takes over at
/// the same point. A partitioned table's primary key must hold the partition key, so the scans'
/// is `(day, id)` (the ids stay unique, drawn from the sequence).
pub(crate) fn partition_scans_and_visitors(
    tx: &mut Transaction<'_>,
) -> Result<(), postgres::Error> {
    tx.batch_execute(&functions())?;
    tx.batch_execute(
        "
ALTER TABLE scans RENAME TO scans_unpartitioned;
ALTER TABLE scans_unpartitioned DROP CONSTRAINT scans_pkey;
DROP INDEX scans_by_link_time;
ALTER SEQUENCE scans_id_seq RENAME TO scans_unpartitioned_id_seq;
CREATE TABLE scans (LIKE scans_unpartitioned) PARTITION BY RANGE (day);
CREATE SEQUENCE scans_id_seq OWNED BY scans.id;
SELECT setval('scans_id_seq', last_value, is_called) FROM scans_unpartitioned_id_seq;
ALTER TABLE scans ALTER COLUMN id SET DEFAULT nextval('scans_id_seq');
CREATE TABLE scans_default PARTITION OF scans DEFAULT;

ALTER TABLE visitors RENAME TO visitors_unpartitioned;
ALTER TABLE visitors_unpartitioned DROP CONSTRAINT visitors_pkey;
CREATE TABLE visitors (LIKE visitors_unpartitioned) PARTITION BY RANGE (day);
CREATE TABLE visitors_default PARTITION OF visitors DEFAULT;
",
    )?;
    for table in [DayTable::Scans, DayTable::Visitors] {
        let name = table.name();
        let days: Vec<NaiveDate> = tx
            .query(
                &format!("SELECT DISTINCT day FROM {name}_unpartitioned"),
                &[],
            )?
            .iter()
            .map(|r| r.get(0))
            .collect();
        create_day_partitions(tx, table, &days)?;
        tx.batch_execute(&format!(
            "INSERT INTO {name} SELECT * FROM {name}_unpartitioned; DROP TABLE {name}_unpartitioned;"
        ))?;
    }
    tx.batch_execute(
        "
ALTER TABLE scans ADD PRIMARY KEY (day, id);
CREATE INDEX scans_by_link_time ON scans (link_id, at, id);
ALTER TABLE visitors ADD PRIMARY KEY (link_id, day, visitor);
",
    )
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::{Duration, Instant};

    use chrono::{DateTime, NaiveDate, Utc};
    use postgres::{Client, NoTls};
    use qr_domain::links::link::{Link, LinkName, TargetUrl};
    use qr_domain::scans::scan::{Device, NewScan};
    use qr_domain::{
        Account, AccountId, Email, LinkId, NoGeoLocator, Plan, Service, ShortCode, Store, TestClock,
    };
    use qr_test_support::servers::postgres::PgCluster;
    use uuid::Uuid;

    use crate::PgStore;

    const SUITE: &str = "the PostgreSQL day partitions";

    fn t(s: &str) -> DateTime<Utc> {
        s.parse().unwrap()
    }

    fn day(s: &str) -> NaiveDate {
        s.parse().unwrap()
    }

    /// An account of `plan` with one link, in `store`.
    fn account_with_link(store: &PgStore, plan: Plan) -> LinkId {
        let id = AccountId::random();
        let account = Account::new(
            id,
            Email::parse(&format!("{id}@example.com")).unwrap(),
            plan,
            t("2024-01-01T00:00:00Z"),
        );
        let link = Link {
            id: LinkId::random(),
            account_id: id,
            name: LinkName::parse("L").unwrap(),
            short_code: ShortCode::generate().unwrap(),
            domain: None,
            design: None,
            target_url: TargetUrl::parse("https://example.com/").unwrap(),
            scan_count: 0,
            created_at: t("2024-01-01T00:00:00Z"),
            updated_at: t("2024-01-01T00:00:00Z"),
            tags: Vec::new(),
            options: Default::default(),
        };
        store
            .write(|tx| {
                tx.insert_account(&account)?;
                tx.insert_link(&link)
            })
            .unwrap();
        link.id
    }

    fn scan(link: LinkId, at: &str) -> NewScan {
        NewScan {
            link_id: link,
            at: t(at),
            visitor: [7; 16],
            country: "GB".into(),
            city: "London".into(),
            device: Device::Mobile,
            browser: "Safari".into(),
            os: "iOS".into(),
            referrer: None,
            variant: None,
            rule: None,
            max_scans: None,
        }
    }

    /// The day partitions of `parent` there are, oldest first.
    fn partitions(client: &mut Client, parent: &str) -> Vec<String> {
        client
            .query(
                "SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
                 WHERE i.inhparent = $1::text::regclass AND c.relname !~ '_default$' ORDER BY 1",
                &[&parent],
            )
            .unwrap()
            .iter()
            .map(|r| r.get(0))
            .collect()
    }

    #[test]
    fn retention_drops_the_days_no_account_reads_and_keeps_the_others() {
        let Some(cluster) = PgCluster::shared(SUITE) else {
            return;
        };
        let url = cluster.create_database();
        let store = PgStore::open(&url).unwrap();
        let free = account_with_link(&store, Plan::Free);
        let unlimited = account_with_link(&store, Plan::Enterprise);
        store
            .write(|tx| tx.prepare_scan_days(day("2024-05-01"), day("2024-05-02")))
            .unwrap();
        store
            .record_scans(&[
                scan(free, "2024-05-01T08:00:00Z"),
                scan(free, "2024-05-01T09:00:00Z"),
                scan(free, "2024-05-02T08:00:00Z"),
                scan(unlimited, "2024-05-02T09:00:00Z"),
            ])
            .unwrap();
        let mut client = Client::connect(&url, NoTls).unwrap();
        assert!(partitions(&mut client, "scans").contains(&"scans_20240501".to_owned()));
        let store = Arc::new(store);
        let svc = Service::new(
            Arc::clone(&store),
            TestClock::new(t("2024-07-01T10:00:00Z")),
            Arc::new(NoGeoLocator),
        )
        .unwrap();
        assert_eq!(svc.prune().unwrap().scans_deleted, 3);
        let scans = partitions(&mut client, "scans");
        assert!(
            !scans.contains(&"scans_20240501".to_owned()),
            "the day only the Free account had is dropped: {scans:?}"
        );
        assert!(
            scans.contains(&"scans_20240502".to_owned()),
            "the day the Enterprise account still reads stays: {scans:?}"
        );
        let left: Vec<(Uuid, String)> = client
            .query("SELECT link_id, day::text FROM scans", &[])
            .unwrap()
            .iter()
            .map(|r| (r.get(0), r.get(1)))
            .collect();
        assert_eq!(left, vec![(unlimited.as_uuid(), "2024-05-02".to_owned())]);
        assert!(
            scans.contains(&"scans_20240704".to_owned()),
            "pruning created the days ahead: {scans:?}"
        );
        // Visitor ids are kept two days: the older days' partitions went with the prune.
        let visitors = partitions(&mut client, "visitors");
        assert_eq!(
            visitors.first().map(String::as_str),
            Some("visitors_20240701")
        );
    }

    #[test]
    fn a_drop_waiting_for_a_long_reader_gives_up_after_its_timeout_and_the_next_run_drops() {
        let Some(cluster) = PgCluster::shared(SUITE) else {
            return;
        };
        let url = cluster.create_database();
        let store = PgStore::open(&url).unwrap();
        let link = account_with_link(&store, Plan::Free);
        store
            .write(|tx| tx.prepare_scan_days(day("2024-05-01"), day("2024-05-01")))
            .unwrap();
        store
            .record_scans(&[scan(link, "2024-05-01T08:00:00Z")])
            .unwrap();
        let mut reader = Client::connect(&url, NoTls).unwrap();
        let mut long = reader.transaction().unwrap();
        long.execute("SELECT count(*) FROM scans", &[]).unwrap();
        let started = Instant::now();
        let dropped = store
            .write(|tx| tx.drop_scan_days_before(day("2024-06-01"), &[]))
            .unwrap();
        let waited = started.elapsed();
        assert_eq!(
            dropped, 0,
            "the day is left while the reader holds the table"
        );
        assert!(
            waited < Duration::from_secs(3),
            "the drop waits its timeout, not the reader: {waited:?}"
        );
        long.rollback().unwrap();
        let dropped = store
            .write(|tx| tx.drop_scan_days_before(day("2024-06-01"), &[]))
            .unwrap();
        assert_eq!(dropped, 1);
    }
}
