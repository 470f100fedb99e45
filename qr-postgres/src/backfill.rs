//! Schema version 6's backfill: the scans already stored counted into the rollups' new
//! breakdowns (OS, referrer, city, variant, rule).

use std::collections::HashMap;

use chrono::NaiveDate;
use postgres::Transaction;
use qr_domain::scans::breakdown::{Dimension, Facets};
use uuid::Uuid;

/// Counts every stored scan into the added dimensions' daily rows.
///
/// The server groups the scans by every field a breakdown reads, and a portal hands the groups
/// over 10,000 at a time in (link, day) order, so one link-day's distinct values are in memory
/// at a time whatever the number of scans; each link-day's counts go back in one statement.
pub(crate) fn breakdowns(tx: &mut Transaction<'_>) -> Result<(), postgres::Error> {
    let read = tx.prepare(
        "SELECT link_id, day, country, city, os, referrer, variant, rule, count(*) FROM scans
         GROUP BY link_id, day, country, city, os, referrer, variant, rule
         ORDER BY link_id, day",
    )?;
    let write = tx.prepare(
        "INSERT INTO daily_dims (link_id, day, dim, value, scans)
         SELECT $1::uuid, $2::date, * FROM unnest($3::smallint[], $4::text[], $5::bigint[])
         ON CONFLICT (link_id, day, dim, value) DO UPDATE SET scans = daily_dims.scans + excluded.scans",
    )?;
    let portal = tx.bind(&read, &[])?;
    let mut current: Option<(Uuid, NaiveDate)> = None;
    let mut counts: HashMap<(i16, String), i64> = HashMap::new();
    loop {
        let rows = tx.query_portal(&portal, 10_000)?;
        let done = rows.is_empty();
        for r in rows {
            let key: (Uuid, NaiveDate) = (r.try_get(0)?, r.try_get(1)?);
            if let Some(done) = current.take_if(|c| *c != key) {
                flush(tx, &write, Some(done), &mut counts)?;
            }
            current = Some(key);
            // Indexes out of a u8's range were never written; such a row counts under none.
            let index = |v: Option<i16>| v.and_then(|v| u8::try_from(v).ok());
            let facets = Facets {
                country: r.try_get(2)?,
                city: r.try_get(3)?,
                device: "",
                browser: "",
                os: r.try_get(4)?,
                referrer: r.try_get(5)?,
                variant: index(r.try_get(6)?),
                rule: index(r.try_get(7)?),
            };
            let n: i64 = r.try_get(8)?;
            for dim in Dimension::LATER {
                if let Some(value) = facets.value(dim) {
                    *counts.entry((dim.code(), value.into_owned())).or_default() += n;
                }
            }
        }
        if done {
            break;
        }
    }
    flush(tx, &write, current, &mut counts)
}

/// Writes one link-day's counts.
fn flush(
    tx: &mut Transaction<'_>,
    write: &postgres::Statement,
    key: Option<(Uuid, NaiveDate)>,
    counts: &mut HashMap<(i16, String), i64>,
) -> Result<(), postgres::Error> {
    let Some((link, day)) = key else {
        return Ok(());
    };
    let (mut dims, mut values, mut ns) = (Vec::new(), Vec::new(), Vec::new());
    for ((dim, value), n) in counts.drain() {
        dims.push(dim);
        values.push(value);
        ns.push(n);
    }
    tx.execute(write, &[&link, &day, &dims, &values, &ns])?;
    Ok(())
}
