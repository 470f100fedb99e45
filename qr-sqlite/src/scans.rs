//! Writing scan batches (scans, visitors, daily rollups and link counts in the caller's transaction) and reading the configuration version.

use std::borrow::Cow;
use std::collections::HashMap;

use qr_domain::breakdown::Dimension;
use qr_domain::ids::ScanId;
use qr_domain::scan::NewScan;
use qr_domain::{LinkId, StoreError};
use rusqlite::{Connection, OptionalExtension, params};

use crate::error::store_err;
use crate::tx::{count, day_num, micros, signed};

/// Stores a batch of scans in the caller's transaction: scans, visitors, rollups and link counts.
pub(crate) fn insert_scans(
    conn: &Connection,
    scans: &[NewScan],
) -> Result<Vec<Option<ScanId>>, StoreError> {
    let mut per_link: HashMap<LinkId, (u64, bool)> = HashMap::new();
    for s in scans {
        per_link.entry(s.link_id).or_insert((0, false)).0 += 1;
    }
    {
        let mut bump = conn
            .prepare_cached("UPDATE links SET scan_count = scan_count + ?2 WHERE id = ?1")
            .map_err(store_err)?;
        for (link, (n, exists)) in &mut per_link {
            *exists = bump
                .execute(params![&link.as_uuid().as_bytes()[..], signed(*n)])
                .map_err(store_err)?
                > 0;
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
    for s in scans {
        if !per_link.get(&s.link_id).is_some_and(|(_, exists)| *exists) {
            out.push(None);
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
        out.push(Some(ScanId(conn.last_insert_rowid())));
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

/// Reads the configuration version counter.
pub(crate) fn config_version(conn: &Connection) -> Result<u64, StoreError> {
    let v: Option<i64> = conn
        .prepare_cached("SELECT value FROM meta WHERE key = 'config_version'")
        .and_then(|mut stmt| stmt.query_row([], |r| r.get(0)).optional())
        .map_err(store_err)?;
    Ok(count(v.unwrap_or(0)))
}
