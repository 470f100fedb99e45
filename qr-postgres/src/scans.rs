//! Scans in SQL: batches split by link across the scan connections, each part one statement (array parameters, data-modifying `WITH` clauses) in its own transaction, the daily rollups updated by the same statement; salts, statistics from the rollups or the scans, and pruning.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, NaiveDate, Utc};
use qr_domain::StoreError;
use qr_domain::ids::{AccountId, LinkId, ScanId};
use qr_domain::scans::analytics::{DayCount, StatsRows};
use qr_domain::scans::breakdown::{Breakdowns, DIMENSIONS, Dimension, Facets};
use qr_domain::scans::scan::{NewScan, ScanFate, ScanRecord};
use qr_domain::store::{ScanReads, ScanWrites};
use uuid::Uuid;

use crate::pool::Conn;
use crate::tx::{PgTx, corrupt, count, get};
use crate::writers::{self, link_scan_count};

/// The whole batch in one statement, so a batch costs one round trip between `BEGIN` and
/// `COMMIT` whatever its size. The counts are added up here, the server only applies them:
/// - `live` takes `FOR KEY SHARE` on the batch's links: batches never conflict on it, and a
///   link's deletion waits for the batches holding it, while a link deleted before is absent:
///   its scans and counts are skipped;
/// - `kept` gives each remaining scan an id from the sequence (materialised: drawn once);
/// - the scans go in, then the batch's distinct visitors (`ON CONFLICT DO NOTHING RETURNING`
///   yields those new to their link and day: the uniques), in (link, day, visitor) order, so two
///   batches meeting the same new visitors wait for each other in one order, never in a cycle;
/// - the daily rollups with those uniques, the per-dimension rollups and each link's count go
///   to the rows of this connection's writer number (`$26`, `writers.rs`), which no other
///   transaction updates meanwhile;
/// - the result maps each input position (`ord`, from 1) to its scan id.
const INSERT_BATCH: &str = r"
WITH live AS (
    SELECT id FROM links WHERE id = ANY($22::uuid[]) FOR KEY SHARE
),
kept AS MATERIALIZED (
    SELECT nextval('scans_id_seq') AS id, u.*
    FROM unnest($1::uuid[], $2::timestamptz[], $3::date[], $4::bytea[], $5::text[],
                $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $24::smallint[],
                $25::smallint[])
        WITH ORDINALITY AS u(link_id, at, day, visitor, country, city, device, browser, os,
                             referrer, variant, rule, ord)
    WHERE u.link_id IN (SELECT id FROM live)
),
inserted AS (
    INSERT INTO scans (id, link_id, at, day, visitor, country, city, device, browser, os, referrer,
                       variant, rule)
    SELECT id, link_id, at, day, visitor, country, city, device, browser, os, referrer, variant,
           rule
    FROM kept
),
new_visitors AS (
    INSERT INTO visitors (link_id, day, visitor)
    SELECT * FROM unnest($11::uuid[], $12::date[], $13::bytea[]) AS v(link_id, day, visitor)
    WHERE v.link_id IN (SELECT id FROM live)
    ON CONFLICT DO NOTHING
    RETURNING link_id, day
),
days AS (
    INSERT INTO daily (link_id, day, writer, scans, uniques)
    SELECT d.link_id, d.day, $26, d.n, coalesce(v.n, 0)
    FROM unnest($14::uuid[], $15::date[], $16::bigint[]) AS d(link_id, day, n)
    LEFT JOIN (SELECT link_id, day, count(*) AS n FROM new_visitors GROUP BY link_id, day) AS v
        USING (link_id, day)
    WHERE d.link_id IN (SELECT id FROM live)
    ON CONFLICT (link_id, day, writer) DO UPDATE
    SET scans = daily.scans + excluded.scans, uniques = daily.uniques + excluded.uniques
),
dims AS (
    INSERT INTO daily_dims (link_id, day, dim, value, writer, scans)
    SELECT m.link_id, m.day, m.dim, m.value, $26, m.n
    FROM unnest($17::uuid[], $18::date[], $19::smallint[], $20::text[], $21::bigint[])
        AS m(link_id, day, dim, value, n)
    WHERE m.link_id IN (SELECT id FROM live)
    ON CONFLICT (link_id, day, dim, value, writer) DO UPDATE
    SET scans = daily_dims.scans + excluded.scans
),
counted AS (
    INSERT INTO scan_counts (link_id, writer, scans)
    SELECT c.id, $26, c.n FROM unnest($22::uuid[], $23::bigint[]) AS c(id, n)
    WHERE c.id IN (SELECT id FROM live)
    ON CONFLICT (link_id, writer) DO UPDATE SET scans = scan_counts.scans + excluded.scans
)
SELECT ord, id FROM kept
";

/// Locks the capped links of a batch against each other's batches (in id order, so two
/// batches never wait in a cycle); held to the commit. Only batches with a capped scan take it.
const LOCK_CAPPED: &str =
    "SELECT id FROM links WHERE id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE";

/// The counts of the capped links, read after [`LOCK_CAPPED`] in a statement of its own: under
/// `READ COMMITTED` its snapshot is taken after the lock was granted, so it sees every scan of
/// the batches that held the lock before.
const CAPPED_COUNTS: &str = concat!(
    "SELECT id, ",
    link_scan_count!(),
    " FROM links WHERE id = ANY($1::uuid[])"
);

/// Splits a batch into at most `parts` groups of positions, as even as they can be: the scans
/// of a capped link stay in one group (its cap is decided under its link's lock, which two
/// groups would wait on each other for), every other scan goes to the smallest group, so one
/// hot link's scans are spread over the backends too (each group writes its own writer's
/// rows). Batches under `split_from` scans stay whole: a small batch gains less from a second
/// backend than it costs in a thread and a second commit. Each group lists its positions in
/// batch order; empty groups are left out.
pub(crate) fn split(scans: &[NewScan], parts: usize, split_from: usize) -> Vec<Vec<usize>> {
    if parts <= 1 || scans.len() < split_from {
        return vec![(0..scans.len()).collect()];
    }
    let mut capped: HashMap<LinkId, Vec<usize>> = HashMap::new();
    let mut units: Vec<Vec<usize>> = Vec::new();
    for (i, s) in scans.iter().enumerate() {
        if s.max_scans.is_some() {
            capped.entry(s.link_id).or_default().push(i);
        } else {
            units.push(vec![i]);
        }
    }
    let mut capped: Vec<Vec<usize>> = capped.into_values().collect();
    capped.sort_unstable_by_key(|positions| std::cmp::Reverse(positions.len()));
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); parts];
    for positions in capped.into_iter().chain(units) {
        if let Some(smallest) = groups.iter_mut().min_by_key(|g| g.len()) {
            smallest.extend(positions);
        }
    }
    groups.retain(|g| !g.is_empty());
    for g in &mut groups {
        g.sort_unstable();
    }
    groups
}

/// Stores `scans` in the open transaction on `conn`: scans, visitors, rollups and link counts.
/// Capped scans are decided first: their links locked, their counts read, and each kept while
/// its link's count with the batch's kept scans before it is below its cap.
pub(crate) fn insert_scans(
    conn: &mut Conn,
    scans: &[&NewScan],
) -> Result<Vec<ScanFate>, StoreError> {
    let writer = writers::writer_number(conn)?;
    let over = over_cap(conn, scans)?;
    let stored: Vec<&NewScan> = scans
        .iter()
        .zip(&over)
        .filter(|(_, over)| !**over)
        .map(|(s, _)| *s)
        .collect();
    let ids = insert_uncapped(conn, &stored, writer)?;
    let mut ids = ids.into_iter();
    Ok(over
        .iter()
        .map(|&over| {
            if over {
                return ScanFate::OverCap;
            }
            match ids.next().flatten() {
                Some(id) => ScanFate::Stored(id),
                None => ScanFate::LinkGone,
            }
        })
        .collect())
}

/// Which scans of the batch are over their link's cap (all `false` without capped scans, with
/// no statement run).
fn over_cap(conn: &mut Conn, scans: &[&NewScan]) -> Result<Vec<bool>, StoreError> {
    let capped: BTreeSet<Uuid> = scans
        .iter()
        .filter(|s| s.max_scans.is_some())
        .map(|s| s.link_id.as_uuid())
        .collect();
    if capped.is_empty() {
        return Ok(vec![false; scans.len()]);
    }
    let capped: Vec<Uuid> = capped.into_iter().collect();
    conn.query(LOCK_CAPPED, &[&capped])?;
    let mut counts: HashMap<LinkId, u64> = HashMap::new();
    for row in conn.query(CAPPED_COUNTS, &[&capped])? {
        counts.insert(
            LinkId::from_uuid(get(&row, 0, "id")?),
            count(get(&row, 1, "scan_count")?),
        );
    }
    // A deleted link is left to the insert, which skips it.
    Ok(scans
        .iter()
        .map(|s| {
            let Some(n) = counts.get_mut(&s.link_id) else {
                return false;
            };
            if s.max_scans.is_some_and(|cap| *n >= cap) {
                return true;
            }
            *n += 1;
            false
        })
        .collect())
}

/// Stores `scans`, none of them over a cap, with the rows of writer number `writer`: each
/// scan's id, or `None` when its link was deleted.
fn insert_uncapped(
    conn: &mut Conn,
    scans: &[&NewScan],
    writer: i16,
) -> Result<Vec<Option<ScanId>>, StoreError> {
    if scans.is_empty() {
        return Ok(Vec::new());
    }
    let column = |f: &dyn Fn(&NewScan) -> &str| scans.iter().map(|s| f(s)).collect::<Vec<&str>>();
    let links: Vec<Uuid> = scans.iter().map(|s| s.link_id.as_uuid()).collect();
    let ats: Vec<DateTime<Utc>> = scans.iter().map(|s| s.at).collect();
    let days: Vec<NaiveDate> = scans.iter().map(|s| s.day()).collect();
    let visitors: Vec<&[u8]> = scans.iter().map(|s| &s.visitor[..]).collect();
    let referrers: Vec<Option<&str>> = scans.iter().map(|s| s.referrer.as_deref()).collect();
    let variants: Vec<Option<i16>> = scans.iter().map(|s| s.variant.map(i16::from)).collect();
    let rules: Vec<Option<i16>> = scans.iter().map(|s| s.rule.map(i16::from)).collect();

    // The batch's distinct visitors per link and day, its scans per link and day, per
    // dimension value, and per link.
    let distinct: BTreeSet<(Uuid, NaiveDate, &[u8])> = scans
        .iter()
        .map(|s| (s.link_id.as_uuid(), s.day(), &s.visitor[..]))
        .collect();
    let mut daily: BTreeMap<(Uuid, NaiveDate), i64> = BTreeMap::new();
    let mut dims: BTreeMap<(Uuid, NaiveDate, i16, Cow<'_, str>), i64> = BTreeMap::new();
    let mut per_link: BTreeMap<Uuid, i64> = BTreeMap::new();
    for s in scans {
        let (link, day) = (s.link_id.as_uuid(), s.day());
        *daily.entry((link, day)).or_default() += 1;
        *per_link.entry(link).or_default() += 1;
        for dim in Dimension::ALL {
            if let Some(value) = dim.value_of(s) {
                *dims.entry((link, day, dim.code(), value)).or_default() += 1;
            }
        }
    }
    let v_links: Vec<Uuid> = distinct.iter().map(|v| v.0).collect();
    let v_days: Vec<NaiveDate> = distinct.iter().map(|v| v.1).collect();
    let v_ids: Vec<&[u8]> = distinct.iter().map(|v| v.2).collect();
    let d_links: Vec<Uuid> = daily.keys().map(|k| k.0).collect();
    let d_days: Vec<NaiveDate> = daily.keys().map(|k| k.1).collect();
    let d_counts: Vec<i64> = daily.values().copied().collect();
    let m_links: Vec<Uuid> = dims.keys().map(|k| k.0).collect();
    let m_days: Vec<NaiveDate> = dims.keys().map(|k| k.1).collect();
    let m_dims: Vec<i16> = dims.keys().map(|k| k.2).collect();
    let m_values: Vec<&str> = dims.keys().map(|k| k.3.as_ref()).collect();
    let m_counts: Vec<i64> = dims.values().copied().collect();
    let c_links: Vec<Uuid> = per_link.keys().copied().collect();
    let c_counts: Vec<i64> = per_link.values().copied().collect();

    let rows = conn.query(
        INSERT_BATCH,
        &[
            &links,
            &ats,
            &days,
            &visitors,
            &column(&|s| &s.country),
            &column(&|s| &s.city),
            &column(&|s| s.device.as_str()),
            &column(&|s| &s.browser),
            &column(&|s| &s.os),
            &referrers,
            &v_links,
            &v_days,
            &v_ids,
            &d_links,
            &d_days,
            &d_counts,
            &m_links,
            &m_days,
            &m_dims,
            &m_values,
            &m_counts,
            &c_links,
            &c_counts,
            &variants,
            &rules,
            &writer,
        ],
    )?;
    let mut ids = vec![None; scans.len()];
    for row in rows {
        let ord: i64 = get(&row, 0, "ord")?;
        let id: i64 = get(&row, 1, "id")?;
        let slot = usize::try_from(ord - 1)
            .ok()
            .and_then(|i| ids.get_mut(i))
            .ok_or_else(|| StoreError::Backend(format!("batch position {ord} out of range")))?;
        *slot = Some(ScanId(id));
    }
    Ok(ids)
}

/// A stored variant or rule index.
fn small(v: Option<i16>) -> Result<Option<u8>, StoreError> {
    v.map(|n| u8::try_from(n).map_err(|_| corrupt("variant or rule")))
        .transpose()
}

impl ScanReads for PgTx<'_> {
    fn salt(&self, day: NaiveDate) -> Result<Option<[u8; 32]>, StoreError> {
        self.one("SELECT salt FROM salts WHERE day = $1", &[&day], |r| {
            get::<&[u8]>(r, 0, "salt")?
                .try_into()
                .map_err(|_| corrupt("salt"))
        })
    }

    fn rollup_stats(
        &self,
        link: LinkId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<StatsRows, StoreError> {
        let id = link.as_uuid();
        let days = self.all(
            "SELECT day, sum(scans)::bigint, sum(uniques)::bigint FROM daily
             WHERE link_id = $1 AND day BETWEEN $2 AND $3 GROUP BY day",
            &[&id, &first, &last],
            |r| {
                Ok(DayCount {
                    day: get(r, 0, "day")?,
                    scans: count(get(r, 1, "scans")?),
                    uniques: count(get(r, 2, "uniques")?),
                })
            },
        )?;
        let rows = self.all(
            "SELECT dim, value, sum(scans)::bigint FROM daily_dims
             WHERE link_id = $1 AND day BETWEEN $2 AND $3 GROUP BY dim, value",
            &[&id, &first, &last],
            |r| {
                Ok((
                    get::<i16>(r, 0, "dim")?,
                    get::<String>(r, 1, "value")?,
                    count(get(r, 2, "scans")?),
                ))
            },
        )?;
        let mut breakdowns = Breakdowns::default();
        for (dim, value, n) in rows {
            // A dimension a newer build added is not this build's to report.
            if let Some(dim) = Dimension::from_code(dim.into()) {
                breakdowns.push(dim, value, n);
            }
        }
        Ok(StatsRows { days, breakdowns })
    }

    fn raw_stats(
        &self,
        link: LinkId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<StatsRows, StoreError> {
        // The day bounds repeat the time bounds (a scan's day is its UTC date) so PostgreSQL
        // reads only those days' partitions: a year of partitions costs a read that names no
        // day 10 ms and 746 locks against 0.23 ms and 5 (the partition_drop bench).
        // One pass over the range's scans, counted by the server in two groupings: per day
        // (GROUPING 0) and per combination of the fields breakdowns read (GROUPING 1), whose
        // values (a referrer's host, `CC/City`) the domain derives here.
        let rows = self.all(
            "SELECT GROUPING(day), day, country, city, device, browser, os, referrer, variant, rule,
                    count(*), count(DISTINCT visitor)
             FROM scans WHERE link_id = $1 AND at BETWEEN $2 AND $3 AND day BETWEEN $4 AND $5
             GROUP BY GROUPING SETS ((day), (country, city, device, browser, os, referrer, variant, rule))",
            &[&link.as_uuid(), &from, &to, &from.date_naive(), &to.date_naive()],
            |r| {
                let n = count(get(r, 10, "count")?);
                if get::<i32>(r, 0, "grouping")? == 0 {
                    let day = DayCount {
                        day: get(r, 1, "day")?,
                        scans: n,
                        uniques: count(get(r, 11, "uniques")?),
                    };
                    return Ok((Some(day), Vec::new(), n));
                }
                let facets = Facets {
                    country: get(r, 2, "country")?,
                    city: get(r, 3, "city")?,
                    device: get(r, 4, "device")?,
                    browser: get(r, 5, "browser")?,
                    os: get(r, 6, "os")?,
                    referrer: get(r, 7, "referrer")?,
                    variant: small(get(r, 8, "variant")?)?,
                    rule: small(get(r, 9, "rule")?)?,
                };
                let values = Dimension::ALL
                    .into_iter()
                    .filter_map(|dim| facets.value(dim).map(|v| (dim, v.into_owned())))
                    .collect();
                Ok((None, values, n))
            },
        )?;
        let mut out = StatsRows::default();
        let mut sums: [HashMap<String, u64>; DIMENSIONS] = Default::default();
        for (day, values, n) in rows {
            out.days.extend(day);
            for (dim, value) in values {
                *sums[dim as usize].entry(value).or_default() += n;
            }
        }
        for (dim, map) in Dimension::ALL.into_iter().zip(sums) {
            for (value, n) in map {
                out.breakdowns.push(dim, value, n);
            }
        }
        Ok(out)
    }

    fn recent_scans(
        &self,
        link: LinkId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ScanRecord>, StoreError> {
        // Day bounds as in `raw_stats`: only the range's partitions are read.
        self.all(
            "SELECT id, at, country, city, device, browser, os, referrer, variant, rule FROM scans
             WHERE link_id = $1 AND at BETWEEN $2 AND $3 AND day BETWEEN $5 AND $6
             ORDER BY at DESC, id DESC LIMIT $4",
            &[
                &link.as_uuid(),
                &from,
                &to,
                &i64::from(limit),
                &from.date_naive(),
                &to.date_naive(),
            ],
            |r| {
                Ok(ScanRecord {
                    id: ScanId(get(r, 0, "id")?),
                    timestamp: get(r, 1, "at")?,
                    country: get(r, 2, "country")?,
                    city: get(r, 3, "city")?,
                    device: get::<&str>(r, 4, "device")?
                        .parse()
                        .map_err(|_| corrupt("device"))?,
                    browser: get(r, 5, "browser")?,
                    os: get(r, 6, "os")?,
                    referrer: get(r, 7, "referrer")?,
                    variant: small(get(r, 8, "variant")?)?,
                    rule: small(get(r, 9, "rule")?)?,
                })
            },
        )
    }
}

impl ScanWrites for PgTx<'_> {
    fn put_salt(&mut self, day: NaiveDate, salt: [u8; 32]) -> Result<[u8; 32], StoreError> {
        self.exec(
            "INSERT INTO salts (day, salt) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            &[&day, &&salt[..]],
        )?;
        self.salt(day)?
            .ok_or_else(|| StoreError::Backend("salt vanished after insert".into()))
    }

    /// The visitor ids go with their days' partitions (rows of the default partition by row).
    fn forget_visitors_before(&mut self, day: NaiveDate) -> Result<(), StoreError> {
        self.exec("DELETE FROM salts WHERE day < $1", &[&day])?;
        self.exec(crate::partitions::DROP_VISITOR_DAYS, &[&day])?;
        Ok(())
    }

    fn prune_scans(&mut self, account: AccountId, day: NaiveDate) -> Result<u64, StoreError> {
        let removed = self.exec(
            "DELETE FROM scans WHERE day < $2 AND link_id IN (SELECT id FROM links WHERE account_id = $1)",
            &[&account.as_uuid(), &day],
        )?;
        for table in ["daily", "daily_dims"] {
            self.exec(
                &format!(
                    "DELETE FROM {table} WHERE day < $2 AND link_id IN (SELECT id FROM links WHERE account_id = $1)"
                ),
                &[&account.as_uuid(), &day],
            )?;
        }
        Ok(removed)
    }

    fn prepare_scan_days(&mut self, first: NaiveDate, last: NaiveDate) -> Result<(), StoreError> {
        self.exec(crate::partitions::CREATE_DAYS, &[&first, &last])?;
        Ok(())
    }

    /// Drops the days' partitions (and deletes such days' rows of the default partition).
    fn drop_scan_days_before(
        &mut self,
        day: NaiveDate,
        keep: &[AccountId],
    ) -> Result<u64, StoreError> {
        let keep: Vec<Uuid> = keep.iter().map(|a| a.as_uuid()).collect();
        let dropped = self.one(crate::partitions::DROP_SCAN_DAYS, &[&day, &keep], |r| {
            get::<i64>(r, 0, "dropped scans")
        })?;
        Ok(count(dropped.unwrap_or(0)))
    }
}

#[cfg(test)]
mod tests {
    use qr_domain::chrono::Utc;
    use qr_domain::scans::scan::Device;

    use super::*;

    /// Scans of each link, interleaved as visits arrive; `capped` links carry a cap.
    fn scans_of(links: &[(LinkId, usize)], capped: &[LinkId]) -> Vec<NewScan> {
        let most = links.iter().map(|(_, n)| *n).max().unwrap_or(0);
        (0..most)
            .flat_map(|round| links.iter().filter(move |(_, n)| round < *n))
            .map(|(link, _)| NewScan {
                link_id: *link,
                at: Utc::now(),
                visitor: [0; 16],
                country: "GB".into(),
                city: "Unknown".into(),
                device: Device::Mobile,
                browser: "Chrome".into(),
                os: "Android".into(),
                referrer: None,
                variant: None,
                rule: None,
                max_scans: capped.contains(link).then_some(1_000),
            })
            .collect()
    }

    #[test]
    fn a_split_keeps_each_capped_link_in_one_group_covers_every_scan_and_balances() {
        let links: Vec<LinkId> = (0..5).map(|_| LinkId::random()).collect();
        let capped = [links[0], links[3]];
        let scans = scans_of(
            &[
                (links[0], 400),
                (links[1], 300),
                (links[2], 200),
                (links[3], 100),
                (links[4], 100),
            ],
            &capped,
        );
        let groups = split(&scans, 2, 512);
        assert_eq!(groups.len(), 2);
        let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
        assert_eq!(sizes, vec![550, 550]);
        let mut seen = vec![false; scans.len()];
        for g in &groups {
            assert!(g.windows(2).all(|w| w[0] < w[1]), "batch order kept");
            for &i in g {
                assert!(!seen[i], "position {i} in two groups");
                seen[i] = true;
            }
        }
        assert!(seen.iter().all(|s| *s));
        for link in capped {
            let holding: Vec<usize> = (0..groups.len())
                .filter(|&g| groups[g].iter().any(|&i| scans[i].link_id == link))
                .collect();
            assert_eq!(holding.len(), 1, "a capped link's scans in one group");
        }
    }

    #[test]
    fn small_batches_stay_whole_and_one_hot_link_is_spread() {
        let (a, b) = (LinkId::random(), LinkId::random());
        assert_eq!(split(&scans_of(&[(a, 10), (b, 10)], &[]), 2, 512).len(), 1);
        assert_eq!(
            split(&scans_of(&[(a, 600), (b, 600)], &[]), 1, 512).len(),
            1
        );
        let hot = split(&scans_of(&[(a, 1_000)], &[]), 2, 512);
        assert_eq!(hot.iter().map(Vec::len).collect::<Vec<_>>(), vec![500, 500]);
        assert_eq!(split(&scans_of(&[(a, 1_000)], &[a]), 2, 512).len(), 1);
    }
}
