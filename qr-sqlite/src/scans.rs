//! Scans in SQL: writing scan batches (scans, visitors, daily rollups and link counts in the caller's transaction), salts, statistics from the rollups or the scans, pruning, and reading the configuration version.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use qr_domain::ids::ScanId;
use qr_domain::scans::analytics::{DayCount, StatsRows};
use qr_domain::scans::breakdown::{Breakdowns, DIMENSIONS, Dimension, Facets};
use qr_domain::scans::scan::{NewScan, ScanFate, ScanRecord};
use qr_domain::store::{ScanReads, ScanWrites};
use qr_domain::{AccountId, LinkId, StoreError};
use rusqlite::{Connection, OptionalExtension, Params, params};

use crate::error::store_err;
use crate::tx::{SqlTx, corrupt, count, day, day_num, get, micros, signed, time};

/// Stores a batch of scans in the caller's transaction: scans, visitors, rollups and link counts.
/// A capped scan is kept while its link's count, with the batch's scans kept before it, is
/// below its cap: the transaction holds SQLite's only write lock, so the count read here is
/// the one the batch adds to. Links without a capped scan in the batch are not read: their
/// count's update says whether they still exist.
pub(crate) fn insert_scans(
    conn: &Connection,
    scans: &[NewScan],
) -> Result<Vec<ScanFate>, StoreError> {
    let capped: HashSet<LinkId> = scans
        .iter()
        .filter(|s| s.max_scans.is_some())
        .map(|s| s.link_id)
        .collect();
    // The count before the batch of each link with a capped scan (`None`: the link is gone).
    let mut before: HashMap<LinkId, Option<u64>> = HashMap::new();
    if !capped.is_empty() {
        let mut read = conn
            .prepare_cached("SELECT scan_count FROM links WHERE id = ?1")
            .map_err(store_err)?;
        for link in &capped {
            let found: Option<i64> = read
                .query_row([&link.as_uuid().as_bytes()[..]], |r| r.get(0))
                .optional()
                .map_err(store_err)?;
            before.insert(*link, found.map(count));
        }
    }
    // Each scan's fate when decided here (`None`: to be stored if its link exists), and the
    // scans each link keeps.
    let mut kept: HashMap<LinkId, u64> = HashMap::new();
    let mut fates: Vec<Option<ScanFate>> = Vec::with_capacity(scans.len());
    for s in scans {
        let added = kept.entry(s.link_id).or_default();
        match before.get(&s.link_id) {
            Some(None) => {
                fates.push(Some(ScanFate::LinkGone));
                continue;
            }
            Some(Some(n)) if s.max_scans.is_some_and(|cap| n + *added >= cap) => {
                fates.push(Some(ScanFate::OverCap));
                continue;
            }
            _ => {}
        }
        *added += 1;
        fates.push(None);
    }
    let mut gone: HashSet<LinkId> = HashSet::new();
    {
        let mut bump = conn
            .prepare_cached("UPDATE links SET scan_count = scan_count + ?2 WHERE id = ?1")
            .map_err(store_err)?;
        for (link, n) in &kept {
            let changed = bump
                .execute(params![&link.as_uuid().as_bytes()[..], signed(*n)])
                .map_err(store_err)?;
            if changed == 0 {
                gone.insert(*link);
            }
        }
    }
    let mut insert = conn
        .prepare_cached(
            "INSERT INTO scans (link_id, at, day, visitor, country, city, device, browser, os, referrer,
                                variant, rule)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12)",
        )
        .map_err(store_err)?;
    let mut visitor = conn
        .prepare_cached(
            "INSERT OR IGNORE INTO visitors (link_id, day, visitor) VALUES (?1, ?2, ?3)",
        )
        .map_err(store_err)?;
    let mut daily: HashMap<(LinkId, i64), (i64, i64)> = HashMap::new();
    let mut dims: HashMap<(LinkId, i64, i16, Cow<'_, str>), i64> = HashMap::new();
    let mut out = Vec::with_capacity(scans.len());
    for (s, fate) in scans.iter().zip(fates) {
        if let Some(fate) = fate {
            out.push(fate);
            continue;
        }
        if gone.contains(&s.link_id) {
            out.push(ScanFate::LinkGone);
            continue;
        }
        let id_bytes = s.link_id.as_uuid().into_bytes();
        let id = &id_bytes[..];
        let d = day_num(s.day());
        insert
            .execute(params![
                id,
                micros(s.at),
                d,
                &s.visitor[..],
                s.country,
                s.city,
                s.device.as_str(),
                s.browser,
                s.os,
                s.referrer,
                s.variant,
                s.rule
            ])
            .map_err(store_err)?;
        out.push(ScanFate::Stored(ScanId(conn.last_insert_rowid())));
        let new_visitor = visitor
            .execute(params![id, d, &s.visitor[..]])
            .map_err(store_err)?
            > 0;
        let slot = daily.entry((s.link_id, d)).or_default();
        slot.0 += 1;
        slot.1 += i64::from(new_visitor);
        for dim in Dimension::ALL {
            if let Some(value) = dim.value_of(s) {
                *dims.entry((s.link_id, d, dim.code(), value)).or_default() += 1;
            }
        }
    }
    let mut up_daily = conn
        .prepare_cached(
            "INSERT INTO daily (link_id, day, scans, uniques) VALUES (?1, ?2, ?3, ?4)
             ON CONFLICT (link_id, day) DO UPDATE SET scans = scans + excluded.scans, uniques = uniques + excluded.uniques",
        )
        .map_err(store_err)?;
    for ((link, d), (n, u)) in daily {
        up_daily
            .execute(params![&link.as_uuid().as_bytes()[..], d, n, u])
            .map_err(store_err)?;
    }
    let mut up_dims = conn
        .prepare_cached(
            "INSERT INTO daily_dims (link_id, day, dim, value, scans) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (link_id, day, dim, value) DO UPDATE SET scans = scans + excluded.scans",
        )
        .map_err(store_err)?;
    for ((link, d, dim, value), n) in dims {
        up_dims
            .execute(params![
                &link.as_uuid().as_bytes()[..],
                d,
                dim,
                value.as_ref(),
                n
            ])
            .map_err(store_err)?;
    }
    Ok(out)
}

/// A stored variant or rule index.
fn small(v: Option<i64>) -> Result<Option<u8>, StoreError> {
    v.map(|n| u8::try_from(n).map_err(|_| corrupt("variant or rule")))
        .transpose()
}

impl SqlTx<'_> {
    fn breakdown(&self, sql: &str, params: impl Params + Copy) -> Result<Breakdowns, StoreError> {
        // Equal values are added up by `summarize`, so the query needs no GROUP BY (and no sort).
        let mut stmt = self.conn.prepare_cached(sql).map_err(store_err)?;
        let mut rows = stmt.query(params).map_err(store_err)?;
        let mut out = Breakdowns::default();
        while let Some(r) = rows.next().map_err(store_err)? {
            // A dimension a newer build added is not this build's to report.
            let Some(dim) = Dimension::from_code(get(r, 0)?) else {
                continue;
            };
            let value = r.get_ref(1).map_err(store_err)?;
            let text = value.as_str().map_err(|_| corrupt("dimension value"))?;
            out.push(dim, text.to_owned(), count(get(r, 2)?));
        }
        Ok(out)
    }
}

impl ScanReads for SqlTx<'_> {
    fn salt(&self, d: NaiveDate) -> Result<Option<[u8; 32]>, StoreError> {
        self.one("SELECT salt FROM salts WHERE day = ?1", [day_num(d)], |r| {
            get::<Vec<u8>>(r, 0)?
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
        let id_bytes = link.as_uuid().into_bytes();
        let id = &id_bytes[..];
        let (a, b) = (day_num(first), day_num(last));
        let days = self.all(
            "SELECT day, scans, uniques FROM daily WHERE link_id = ?1 AND day BETWEEN ?2 AND ?3",
            params![id, a, b],
            |r| {
                Ok(DayCount {
                    day: day(get(r, 0)?)?,
                    scans: count(get(r, 1)?),
                    uniques: count(get(r, 2)?),
                })
            },
        )?;
        // Rows come in primary-key order without a sort; `summarize` adds up equal values.
        let breakdowns = self.breakdown(
            "SELECT dim, value, scans FROM daily_dims WHERE link_id = ?1 AND day BETWEEN ?2 AND ?3",
            params![id, a, b],
        )?;
        Ok(StatsRows { days, breakdowns })
    }

    fn raw_stats(
        &self,
        link: LinkId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<StatsRows, StoreError> {
        let id_bytes = link.as_uuid().into_bytes();
        let id = &id_bytes[..];
        let (a, b) = (micros(from), micros(to));
        // One pass over the range's index entries, counted here (GROUP BY sorts per dimension).
        let mut stmt = self
            .conn
            .prepare_cached(
                "SELECT day, visitor, country, city, device, browser, os, referrer, variant, rule
                 FROM scans WHERE link_id = ?1 AND at BETWEEN ?2 AND ?3",
            )
            .map_err(store_err)?;
        let mut rows = stmt.query(params![id, a, b]).map_err(store_err)?;
        let mut days: HashMap<i64, (u64, HashSet<Vec<u8>>)> = HashMap::new();
        let mut sums: [HashMap<String, u64>; DIMENSIONS] = Default::default();
        while let Some(r) = rows.next().map_err(store_err)? {
            let slot = days.entry(get(r, 0)?).or_default();
            slot.0 += 1;
            slot.1.insert(get(r, 1)?);
            let text = |i: usize| -> Result<&str, StoreError> {
                r.get_ref(i)
                    .map_err(store_err)?
                    .as_str()
                    .map_err(|_| corrupt("scan dimension"))
            };
            let referrer: Option<String> = get(r, 7)?;
            let index = |i: usize| -> Result<Option<u8>, StoreError> {
                get::<Option<i64>>(r, i)?
                    .map(|v| u8::try_from(v).map_err(|_| corrupt("scan variant or rule")))
                    .transpose()
            };
            let facets = Facets {
                country: text(2)?,
                city: text(3)?,
                device: text(4)?,
                browser: text(5)?,
                os: text(6)?,
                referrer: referrer.as_deref(),
                variant: index(8)?,
                rule: index(9)?,
            };
            for dim in Dimension::ALL {
                if let Some(value) = facets.value(dim) {
                    let map = &mut sums[dim as usize];
                    match map.get_mut(value.as_ref()) {
                        Some(n) => *n += 1,
                        None => {
                            map.insert(value.into_owned(), 1);
                        }
                    }
                }
            }
        }
        let days = days
            .into_iter()
            .map(|(d, (scans, visitors))| {
                Ok(DayCount {
                    day: day(d)?,
                    scans,
                    uniques: u64::try_from(visitors.len()).unwrap_or(u64::MAX),
                })
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        let mut breakdowns = Breakdowns::default();
        for (dim, map) in Dimension::ALL.into_iter().zip(sums) {
            for (value, n) in map {
                breakdowns.push(dim, value, n);
            }
        }
        Ok(StatsRows { days, breakdowns })
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
             WHERE link_id = ?1 AND at BETWEEN ?2 AND ?3 ORDER BY at DESC, id DESC LIMIT ?4",
            params![
                &link.as_uuid().as_bytes()[..],
                micros(from),
                micros(to),
                i64::from(limit)
            ],
            |r| {
                Ok(ScanRecord {
                    id: ScanId(get(r, 0)?),
                    timestamp: time(get(r, 1)?)?,
                    country: get(r, 2)?,
                    city: get(r, 3)?,
                    device: get::<String>(r, 4)?
                        .parse()
                        .map_err(|_| corrupt("device"))?,
                    browser: get(r, 5)?,
                    os: get(r, 6)?,
                    referrer: get(r, 7)?,
                    variant: small(get(r, 8)?)?,
                    rule: small(get(r, 9)?)?,
                })
            },
        )
    }
}

impl ScanWrites for SqlTx<'_> {
    fn put_salt(&mut self, d: NaiveDate, salt: [u8; 32]) -> Result<[u8; 32], StoreError> {
        self.exec(
            "INSERT OR IGNORE INTO salts (day, salt) VALUES (?1, ?2)",
            params![day_num(d), &salt[..]],
        )?;
        self.salt(d)?
            .ok_or_else(|| StoreError::Backend("salt vanished after insert".into()))
    }

    fn forget_visitors_before(&mut self, d: NaiveDate) -> Result<(), StoreError> {
        self.exec("DELETE FROM salts WHERE day < ?1", [day_num(d)])?;
        self.exec("DELETE FROM visitors WHERE day < ?1", [day_num(d)])?;
        Ok(())
    }

    fn prune_scans(&mut self, account: AccountId, d: NaiveDate) -> Result<u64, StoreError> {
        let links = self.all(
            "SELECT id FROM links WHERE account_id = ?1",
            [&account.as_uuid().as_bytes()[..]],
            |r| get::<Vec<u8>>(r, 0),
        )?;
        let mut removed = 0;
        for id in links {
            removed += self.exec(
                "DELETE FROM scans WHERE link_id = ?1 AND day < ?2",
                params![id, day_num(d)],
            )?;
            self.exec(
                "DELETE FROM daily WHERE link_id = ?1 AND day < ?2",
                params![id, day_num(d)],
            )?;
            self.exec(
                "DELETE FROM daily_dims WHERE link_id = ?1 AND day < ?2",
                params![id, day_num(d)],
            )?;
        }
        Ok(removed as u64)
    }

    /// One table holds every day: nothing to prepare.
    fn prepare_scan_days(&mut self, _first: NaiveDate, _last: NaiveDate) -> Result<(), StoreError> {
        Ok(())
    }

    /// Deletes nothing: in one table a day's scans cost their rows to delete wherever it is
    /// done, and finding the days no kept account uses would read every scan (no index on
    /// `day`) under the database's one write lock, hourly. `prune_scans`, which the service
    /// calls next for every account, deletes these rows through each link's index instead.
    fn drop_scan_days_before(
        &mut self,
        _day: NaiveDate,
        _keep: &[AccountId],
    ) -> Result<u64, StoreError> {
        Ok(0)
    }
}

/// Reads the configuration version counter.
pub(crate) fn config_version(conn: &Connection) -> Result<u64, StoreError> {
    let v: Option<i64> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = 'config_version'")
        .and_then(|mut stmt| stmt.query_row([], |r| r.get(0)).optional())
        .map_err(store_err)?;
    Ok(count(v.unwrap_or(0)))
}
