//! Scan batches: one transaction per batch with array parameters (one statement per table), the daily rollups updated in the same transaction.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use qr_domain::StoreError;
use qr_domain::ids::ScanId;
use qr_domain::scan::NewScan;
use uuid::Uuid;

use crate::pool::Conn;
use crate::tx::{DIM_BROWSER, DIM_COUNTRY, DIM_DEVICE, get};

/// Stores `scans` in the open transaction on `conn`: scans, visitors, rollups and link counts.
///
/// The links of the batch are locked first, in id order, so two servers' batches never wait
/// for each other in a cycle, and a link deleted meanwhile is seen as gone (its scans skipped).
/// Rollup rows of a link are only written under that lock, so no two batches race on them.
pub(crate) fn insert_scans(
    conn: &mut Conn,
    scans: &[NewScan],
) -> Result<Vec<Option<ScanId>>, StoreError> {
    let wanted: Vec<Uuid> = scans
        .iter()
        .map(|s| s.link_id.as_uuid())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let live: HashSet<Uuid> = conn
        .query(
            "SELECT id FROM links WHERE id = ANY($1) ORDER BY id FOR NO KEY UPDATE",
            &[&wanted],
        )?
        .iter()
        .map(|r| get::<Uuid>(r, 0, "id"))
        .collect::<Result<_, _>>()?;
    let kept: Vec<&NewScan> = scans
        .iter()
        .filter(|s| live.contains(&s.link_id.as_uuid()))
        .collect();
    if kept.is_empty() {
        return Ok(vec![None; scans.len()]);
    }
    let n = i64::try_from(kept.len()).unwrap_or(i64::MAX);
    let ids: Vec<i64> = conn
        .query(
            "SELECT nextval('scans_id_seq') FROM generate_series(1, $1::bigint)",
            &[&n],
        )?
        .iter()
        .map(|r| get::<i64>(r, 0, "id"))
        .collect::<Result<_, _>>()?;
    let column = |f: &dyn Fn(&NewScan) -> String| kept.iter().map(|s| f(s)).collect::<Vec<_>>();
    let links: Vec<Uuid> = kept.iter().map(|s| s.link_id.as_uuid()).collect();
    let ats: Vec<DateTime<Utc>> = kept.iter().map(|s| s.at).collect();
    let days: Vec<NaiveDate> = kept.iter().map(|s| s.day()).collect();
    let visitors: Vec<&[u8]> = kept.iter().map(|s| &s.visitor[..]).collect();
    let referrers: Vec<Option<&str>> = kept.iter().map(|s| s.referrer.as_deref()).collect();
    conn.execute(
        "INSERT INTO scans (id, link_id, at, day, visitor, country, city, device, browser, os, referrer)
         SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::timestamptz[], $4::date[], $5::bytea[],
                              $6::text[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])",
        &[
            &ids,
            &links,
            &ats,
            &days,
            &visitors,
            &column(&|s| s.country.clone()),
            &column(&|s| s.city.clone()),
            &column(&|s| s.device.as_str().to_owned()),
            &column(&|s| s.browser.clone()),
            &column(&|s| s.os.clone()),
            &referrers,
        ],
    )?;

    // Visitors new to their link and day count as uniques.
    let distinct: BTreeSet<(Uuid, NaiveDate, [u8; 16])> = kept
        .iter()
        .map(|s| (s.link_id.as_uuid(), s.day(), s.visitor))
        .collect();
    let (v_links, v_days, v_ids) = unzip3(distinct.iter().map(|(l, d, v)| (*l, *d, &v[..])));
    let mut daily: BTreeMap<(Uuid, NaiveDate), (i64, i64)> = BTreeMap::new();
    for row in conn.query(
        "INSERT INTO visitors (link_id, day, visitor)
         SELECT * FROM unnest($1::uuid[], $2::date[], $3::bytea[])
         ON CONFLICT DO NOTHING RETURNING link_id, day",
        &[&v_links, &v_days, &v_ids],
    )? {
        let key = (get(&row, 0, "link_id")?, get(&row, 1, "day")?);
        daily.entry(key).or_default().1 += 1;
    }
    let mut dims: BTreeMap<(Uuid, NaiveDate, i16, &str), i64> = BTreeMap::new();
    for s in &kept {
        let (link, day) = (s.link_id.as_uuid(), s.day());
        daily.entry((link, day)).or_default().0 += 1;
        for (dim, value) in [
            (DIM_COUNTRY, s.country.as_str()),
            (DIM_DEVICE, s.device.as_str()),
            (DIM_BROWSER, s.browser.as_str()),
        ] {
            *dims.entry((link, day, dim, value)).or_default() += 1;
        }
    }
    let (d_links, d_days, d_counts) = unzip3(daily.iter().map(|((l, d), c)| (*l, *d, *c)));
    let (d_scans, d_uniques): (Vec<i64>, Vec<i64>) = d_counts.into_iter().unzip();
    conn.execute(
        "INSERT INTO daily (link_id, day, scans, uniques)
         SELECT * FROM unnest($1::uuid[], $2::date[], $3::bigint[], $4::bigint[])
         ON CONFLICT (link_id, day) DO UPDATE
         SET scans = daily.scans + excluded.scans, uniques = daily.uniques + excluded.uniques",
        &[&d_links, &d_days, &d_scans, &d_uniques],
    )?;
    let mut m_links = Vec::with_capacity(dims.len());
    let mut m_days = Vec::with_capacity(dims.len());
    let mut m_dims = Vec::with_capacity(dims.len());
    let mut m_values = Vec::with_capacity(dims.len());
    let mut m_counts = Vec::with_capacity(dims.len());
    for ((link, day, dim, value), n) in &dims {
        m_links.push(*link);
        m_days.push(*day);
        m_dims.push(*dim);
        m_values.push(*value);
        m_counts.push(*n);
    }
    conn.execute(
        "INSERT INTO daily_dims (link_id, day, dim, value, scans)
         SELECT * FROM unnest($1::uuid[], $2::date[], $3::smallint[], $4::text[], $5::bigint[])
         ON CONFLICT (link_id, day, dim, value) DO UPDATE SET scans = daily_dims.scans + excluded.scans",
        &[&m_links, &m_days, &m_dims, &m_values, &m_counts],
    )?;
    let mut per_link: BTreeMap<Uuid, i64> = BTreeMap::new();
    for s in &kept {
        *per_link.entry(s.link_id.as_uuid()).or_default() += 1;
    }
    let (c_links, c_counts): (Vec<Uuid>, Vec<i64>) = per_link.into_iter().unzip();
    conn.execute(
        "UPDATE links SET scan_count = links.scan_count + u.n
         FROM unnest($1::uuid[], $2::bigint[]) AS u(id, n) WHERE links.id = u.id",
        &[&c_links, &c_counts],
    )?;

    let mut next = ids.into_iter();
    Ok(scans
        .iter()
        .map(|s| {
            live.contains(&s.link_id.as_uuid())
                .then(|| next.next().map(ScanId))
                .flatten()
        })
        .collect())
}

fn unzip3<A, B, C>(items: impl Iterator<Item = (A, B, C)>) -> (Vec<A>, Vec<B>, Vec<C>) {
    let mut out = (Vec::new(), Vec::new(), Vec::new());
    for (a, b, c) in items {
        out.0.push(a);
        out.1.push(b);
        out.2.push(c);
    }
    out
}
