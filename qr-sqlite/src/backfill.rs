//! Schema version 6's backfill: the scans already stored counted into the rollups' new
//! breakdowns (OS, referrer, city, variant, rule), one link-day at a time.

use std::collections::HashMap;
use std::path::Path;

use qr_domain::scans::breakdown::{Dimension, Facets};
use rusqlite::{Connection, params};

use crate::error::OpenError;

/// Counts every stored scan into the added dimensions' daily rows.
///
/// The scans come grouped by every field a breakdown reads, in (link, day) order, so the
/// counts of one link-day are written when the next begins: memory holds one link-day's
/// distinct values, whatever the number of scans (the seeder's 1,000,000-scan link has about
/// 2,700 scans and a few dozen values a day).
pub(crate) fn breakdowns(conn: &Connection, path: &Path) -> Result<(), OpenError> {
    let err = |e| OpenError::from_sqlite(path, e);
    let mut read = conn
        .prepare(
            "SELECT link_id, day, country, city, os, referrer, variant, rule, count(*) FROM scans
             GROUP BY link_id, day, country, city, os, referrer, variant, rule
             ORDER BY link_id, day",
        )
        .map_err(err)?;
    let mut write = conn
        .prepare(
            "INSERT INTO daily_dims (link_id, day, dim, value, scans) VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (link_id, day, dim, value) DO UPDATE SET scans = scans + excluded.scans",
        )
        .map_err(err)?;
    let mut rows = read.query([]).map_err(err)?;
    let mut current: Option<(Vec<u8>, i64)> = None;
    let mut counts: HashMap<(i16, String), i64> = HashMap::new();
    let mut flush = |key: &(Vec<u8>, i64), counts: &mut HashMap<(i16, String), i64>| {
        for ((dim, value), n) in counts.drain() {
            write.execute(params![&key.0, key.1, dim, value, n])?;
        }
        Ok::<(), rusqlite::Error>(())
    };
    while let Some(r) = rows.next().map_err(err)? {
        let key: (Vec<u8>, i64) = (r.get(0).map_err(err)?, r.get(1).map_err(err)?);
        if let Some(done) = current.take_if(|c| *c != key) {
            flush(&done, &mut counts).map_err(err)?;
        }
        current = Some(key);
        let (country, city, os): (String, String, String) = (
            r.get(2).map_err(err)?,
            r.get(3).map_err(err)?,
            r.get(4).map_err(err)?,
        );
        let referrer: Option<String> = r.get(5).map_err(err)?;
        // Indexes out of a u8's range were never written; such a row counts under none.
        let index = |i: usize| -> Result<Option<u8>, OpenError> {
            Ok(r.get::<_, Option<i64>>(i)
                .map_err(err)?
                .and_then(|v| u8::try_from(v).ok()))
        };
        let facets = Facets {
            country: &country,
            city: &city,
            device: "",
            browser: "",
            os: &os,
            referrer: referrer.as_deref(),
            variant: index(6)?,
            rule: index(7)?,
        };
        let n: i64 = r.get(8).map_err(err)?;
        for dim in Dimension::LATER {
            if let Some(value) = facets.value(dim) {
                *counts.entry((dim.code(), value.into_owned())).or_default() += n;
            }
        }
    }
    if let Some(done) = current {
        flush(&done, &mut counts).map_err(err)?;
    }
    Ok(())
}
