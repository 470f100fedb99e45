//! Scan writers' own counter rows: each scan connection holds a writer number (a session advisory lock) and adds its batches to rollup and count rows of that number, so batches of one link on different connections and servers never update the same row.
//!
//! Before schema version 11 every batch locked its links' rows through its commit, because the
//! link's count and its rollups for the day were rows every batch updated: all batches on one
//! link, from every server, ran one after another (3 servers recorded 3,069 redirects/s on one
//! link against 1 server's 7,046). Now a row of `daily`, `daily_dims` and `scan_counts` belongs
//! to one writer number, and only one connection at a time holds a number, so a batch waits on
//! no other batch's commit; readers add a link's rows up (a few per link and day: one per
//! connection that wrote it). Batches take `FOR KEY SHARE` on their links, which other batches
//! do not conflict with, to keep a link deleted meanwhile free of scans.

use qr_domain::StoreError;

use crate::pool::Conn;

/// Version 11: the writer number in the rollups' keys (0 for rows written before, or copied),
/// and the links' counts per writer (`links.scan_count` keeps what was counted before; a link's
/// count is its `scan_count` plus its rows here).
pub(crate) const V11_WRITER_ROWS: &str = r"
ALTER TABLE daily ADD COLUMN writer smallint NOT NULL DEFAULT 0;
ALTER TABLE daily DROP CONSTRAINT daily_pkey;
ALTER TABLE daily ADD PRIMARY KEY (link_id, day, writer);
ALTER TABLE daily_dims ADD COLUMN writer smallint NOT NULL DEFAULT 0;
ALTER TABLE daily_dims DROP CONSTRAINT daily_dims_pkey;
ALTER TABLE daily_dims ADD PRIMARY KEY (link_id, day, dim, value, writer);
CREATE TABLE scan_counts (
    link_id uuid NOT NULL,
    writer smallint NOT NULL,
    scans bigint NOT NULL,
    PRIMARY KEY (link_id, writer)
);
";

/// A link's count, as an SQL expression over a row of `links`: what was counted before version
/// 11 plus every writer's row (a macro, so statements can `concat!` it).
macro_rules! link_scan_count {
    () => {
        "(links.scan_count + coalesce((SELECT sum(c.scans) FROM scan_counts AS c WHERE c.link_id = links.id), 0))::bigint"
    };
}
pub(crate) use link_scan_count;

/// The first key of the advisory locks that hold writer numbers (the second is the number); a
/// two-key lock never collides with the one-key locks of `schema.rs` and `store.rs`.
const WRITER_LOCKS: i32 = 0x5152_5057;

/// Writer numbers tried when a connection takes one: two scan connections per server, so 1,024
/// serves 512 servers. Numbers are reused once their connection ends, so rows per link and day
/// stay at most the number of connections that ever wrote them at once.
const MAX_WRITERS: i16 = 1_024;

/// The connection's writer number, taking the lowest free one on its first batch. The lock is
/// the session's: it ends with the connection (a crash included), and a new connection takes a
/// number again.
pub(crate) fn writer_number(conn: &mut Conn) -> Result<i16, StoreError> {
    if let Some(n) = conn.writer {
        return Ok(n);
    }
    for n in 1..=MAX_WRITERS {
        let taken = conn.query(
            "SELECT pg_try_advisory_lock($1, $2)",
            &[&WRITER_LOCKS, &i32::from(n)],
        )?;
        if taken.first().is_some_and(|r| r.get::<_, bool>(0)) {
            conn.writer = Some(n);
            return Ok(n);
        }
    }
    Err(StoreError::Backend(format!(
        "all {MAX_WRITERS} scan writer numbers are held by open connections"
    )))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use postgres::{Client, NoTls};
    use qr_domain::chrono::{NaiveDate, TimeZone, Utc};
    use qr_domain::scans::scan::{Device, NewScan, ScanFate};
    use qr_domain::{AccountId, LinkId, Store};
    use qr_test_support::servers::postgres::PgCluster;

    use crate::PgStore;
    use crate::schema::apply_up_to;

    /// A database of version 10 with a counted link: after the migration its count and rollups
    /// carry on from the old rows (writer 0), and a new batch adds to them.
    #[test]
    fn version_11_keeps_the_counts_and_rollups_of_version_10() {
        let Some(cluster) = PgCluster::shared("the PostgreSQL schema migrations") else {
            return;
        };
        let url = cluster.create_database();
        let mut client = Client::connect(&url, NoTls).unwrap();
        apply_up_to(&mut client, 10, &url).unwrap();
        client
            .batch_execute(
                "INSERT INTO accounts (id, email, plan, overrides, created_at)
                 VALUES ('00000000-0000-4000-8000-000000000001', 'a@example.com', 'free', '{}', now());
                 INSERT INTO links (id, account_id, name, short_code, code_key, target_url, scan_count, created_at, updated_at)
                 VALUES ('00000000-0000-4000-8000-000000000002', '00000000-0000-4000-8000-000000000001',
                         'L', 'ABCDEFGH', 'ABCDEFGH', 'https://example.com/', 5, now(), now());
                 INSERT INTO daily (link_id, day, scans, uniques)
                 VALUES ('00000000-0000-4000-8000-000000000002', '2024-05-01', 5, 3);
                 INSERT INTO daily_dims (link_id, day, dim, value, scans)
                 VALUES ('00000000-0000-4000-8000-000000000002', '2024-05-01', 0, 'GB', 5);",
            )
            .unwrap();
        drop(client);
        let store = Arc::new(PgStore::open(&url).unwrap());
        let link = LinkId::from_uuid("00000000-0000-4000-8000-000000000002".parse().unwrap());
        let account = AccountId::from_uuid("00000000-0000-4000-8000-000000000001".parse().unwrap());
        let scans: Vec<NewScan> = (0..2u8)
            .map(|v| NewScan {
                link_id: link,
                at: Utc.with_ymd_and_hms(2024, 5, 1, 12, 0, 0).unwrap(),
                visitor: [v; 16],
                country: "GB".into(),
                city: "Unknown".into(),
                device: Device::Mobile,
                browser: "Chrome".into(),
                os: "Android".into(),
                referrer: None,
                variant: None,
                rule: None,
                max_scans: Some(7),
            })
            .collect();
        let fates = store.record_scans(&scans).unwrap();
        assert!(fates.iter().all(|f| f.id().is_some()), "{fates:?}");
        let day = NaiveDate::from_ymd_opt(2024, 5, 1).unwrap();
        let (count, stats) = store
            .read(|tx| {
                let count = tx.link(account, link)?.map(|l| l.scan_count);
                Ok::<_, qr_domain::StoreError>((count, tx.rollup_stats(link, day, day)?))
            })
            .unwrap();
        assert_eq!(count, Some(7));
        let days: Vec<_> = stats.days.iter().map(|d| (d.scans, d.uniques)).collect();
        assert_eq!(days, vec![(7, 5)]);
        assert_eq!(
            stats
                .breakdowns
                .totals(qr_domain::scans::breakdown::Dimension::Country),
            vec![("GB".to_owned(), 7)]
        );
        // The cap counts the old rows too: the link has 7 of 7.
        let over = store.record_scans(&scans[..1]).unwrap();
        assert_eq!(over, vec![ScanFate::OverCap]);
    }
}
