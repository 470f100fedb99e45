//! Scans in SQL: batches split by link across the scan connections, each part one statement (array parameters, data-modifying `WITH` clauses) in its own transaction, the daily rollups updated by the same statement; salts, statistics from the rollups or the scans, and pruning.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, NaiveDate, Utc};
use qr_domain::StoreError;
use qr_domain::ids::{AccountId, LinkId, ScanId};
use qr_domain::scans::analytics::{DayCount, StatsRows};
use qr_domain::scans::breakdown::{Breakdowns, DIMENSIONS, Dimension, Facets};
use qr_domain::scans::scan::{NewScan, ScanRecord};
use qr_domain::store::{ScanReads, ScanWrites};
use uuid::Uuid;

use crate::pool::Conn;
use crate::tx::{PgTx, corrupt, count, get};

/// The whole batch in one statement, so a batch costs one round trip between `BEGIN` and
/// `COMMIT` whatever its size. The counts are added up here, the server only applies them:
/// - `live` locks the batch's links in id order (`FOR NO KEY UPDATE`), so two servers' batches
///   never wait for each other in a cycle, and a link deleted meanwhile is absent: its scans and
///   counts are skipped. A link's rollup rows are only written under its lock, so no two
///   batches race on them;
/// - `kept` gives each remaining scan an id from the sequence (materialised: drawn once);
/// - the scans go in, then the batch's distinct visitors (`ON CONFLICT DO NOTHING RETURNING`
///   yields those new to their link and day: the uniques), the daily rollups with those uniques,
///   the per-dimension rollups, and each link's count;
/// - the result maps each input position (`ord`, from 1) to its scan id.
const INSERT_BATCH: &str = r"
WITH live AS (
    SELECT id FROM links WHERE id = ANY($22::uuid[]) ORDER BY id FOR NO KEY UPDATE
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
    INSERT INTO daily (link_id, day, scans, uniques)
    SELECT d.link_id, d.day, d.n, coalesce(v.n, 0)
    FROM unnest($14::uuid[], $15::date[], $16::bigint[]) AS d(link_id, day, n)
    LEFT JOIN (SELECT link_id, day, count(*) AS n FROM new_visitors GROUP BY link_id, day) AS v
        USING (link_id, day)
    WHERE d.link_id IN (SELECT id FROM live)
    ON CONFLICT (link_id, day) DO UPDATE
    SET scans = daily.scans + excluded.scans, uniques = daily.uniques + excluded.uniques
),
dims AS (
    INSERT INTO daily_dims (link_id, day, dim, value, scans)
    SELECT * FROM unnest($17::uuid[], $18::date[], $19::smallint[], $20::text[], $21::bigint[])
        AS m(link_id, day, dim, value, n)
    WHERE m.link_id IN (SELECT id FROM live)
    ON CONFLICT (link_id, day, dim, value) DO UPDATE SET scans = daily_dims.scans + excluded.scans
),
counted AS (
    UPDATE links SET scan_count = links.scan_count + c.n
    FROM unnest($22::uuid[], $23::bigint[]) AS c(id, n)
    WHERE links.id = c.id
)
SELECT ord, id FROM kept
";

/// Splits a batch into at most `parts` groups of positions, a link's scans all in one group (so
/// no two groups ever wait for the same link's lock), the groups as even as the links allow
/// (largest link first, each to the smallest group). Batches under `split_from` scans stay
/// whole: a small batch gains less from a second backend than it costs in a thread and a
/// second commit. Each group lists its positions in batch order; empty groups are left out.
pub(crate) fn split(scans: &[NewScan], parts: usize, split_from: usize) -> Vec<Vec<usize>> {
    if parts <= 1 || scans.len() < split_from {
        return vec![(0..scans.len()).collect()];
    }
    let mut by_link: HashMap<LinkId, Vec<usize>> = HashMap::new();
    for (i, s) in scans.iter().enumerate() {
        by_link.entry(s.link_id).or_default().push(i);
    }
    let mut links: Vec<Vec<usize>> = by_link.into_values().collect();
    links.sort_unstable_by_key(|positions| std::cmp::Reverse(positions.len()));
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); parts];
    for positions in links {
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
pub(crate) fn insert_scans(
    conn: &mut Conn,
    scans: &[&NewScan],
) -> Result<Vec<Option<ScanId>>, StoreError> {
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
            "SELECT day, scans, uniques FROM daily WHERE link_id = $1 AND day BETWEEN $2 AND $3",
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
        // One pass over the range's scans, counted by the server in two groupings: per day
        // (GROUPING 0) and per combination of the fields breakdowns read (GROUPING 1), whose
        // values (a referrer's host, `CC/City`) the domain derives here.
        let rows = self.all(
            "SELECT GROUPING(day), day, country, city, device, browser, os, referrer, variant, rule,
                    count(*), count(DISTINCT visitor)
             FROM scans WHERE link_id = $1 AND at BETWEEN $2 AND $3
             GROUP BY GROUPING SETS ((day), (country, city, device, browser, os, referrer, variant, rule))",
            &[&link.as_uuid(), &from, &to],
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
        self.all(
            "SELECT id, at, country, city, device, browser, os, referrer, variant, rule FROM scans
             WHERE link_id = $1 AND at BETWEEN $2 AND $3 ORDER BY at DESC, id DESC LIMIT $4",
            &[&link.as_uuid(), &from, &to, &i64::from(limit)],
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

    /// Scans of each link, interleaved as visits arrive.
    fn scans_of(links: &[(LinkId, usize)]) -> Vec<NewScan> {
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
            })
            .collect()
    }

    #[test]
    fn a_split_keeps_each_link_in_one_group_covers_every_scan_and_balances() {
        let links: Vec<LinkId> = (0..5).map(|_| LinkId::random()).collect();
        let scans = scans_of(&[
            (links[0], 400),
            (links[1], 300),
            (links[2], 200),
            (links[3], 100),
            (links[4], 100),
        ]);
        let groups = split(&scans, 2, 512);
        assert_eq!(groups.len(), 2);
        let sizes: Vec<usize> = groups.iter().map(Vec::len).collect();
        assert_eq!(sizes.iter().sum::<usize>(), 1_100);
        assert!(sizes.iter().all(|n| (500..=600).contains(n)), "{sizes:?}");
        let mut seen = vec![false; scans.len()];
        for g in &groups {
            assert!(g.windows(2).all(|w| w[0] < w[1]), "batch order kept");
            for &i in g {
                assert!(!seen[i], "position {i} in two groups");
                seen[i] = true;
            }
            let own: BTreeSet<LinkId> = g.iter().map(|&i| scans[i].link_id).collect();
            for other in groups.iter().filter(|o| *o != g) {
                assert!(other.iter().all(|&i| !own.contains(&scans[i].link_id)));
            }
        }
        assert!(seen.iter().all(|s| *s));
    }

    #[test]
    fn small_batches_and_single_links_are_not_split() {
        let (a, b) = (LinkId::random(), LinkId::random());
        assert_eq!(split(&scans_of(&[(a, 10), (b, 10)]), 2, 512).len(), 1);
        assert_eq!(split(&scans_of(&[(a, 1_000)]), 2, 512).len(), 1);
        assert_eq!(split(&scans_of(&[(a, 600), (b, 600)]), 1, 512).len(), 1);
        assert_eq!(split(&scans_of(&[(a, 600), (b, 600)]), 2, 512).len(), 2);
    }
}
