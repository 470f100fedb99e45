//! The in-memory store's scans: batches (each scan, its rollups, visitor set and scan count
//! applied in place under the store's lock; `Store::record_scans` of `memory.rs` calls here),
//! salts, statistics from the rollups or the scans, and pruning.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::sync::Arc;

use chrono::{DateTime, NaiveDate, Utc};

use super::{Data, StoredScan, webhooks};
use crate::error::StoreError;
use crate::ids::{AccountId, LinkId, ScanId};
use crate::scans::analytics::{DayCount, StatsRows};
use crate::scans::breakdown::{Dimension, Facets};
use crate::scans::scan::{NewScan, ScanFate, ScanRecord};
use crate::store::{ScanReads, ScanWrites};
use crate::webhooks::outbox::scan_event;

impl Data {
    /// Applies a scan batch in place; with `subscribed`, writes the `scan.recorded` events of
    /// those accounts' scans too.
    pub(super) fn record_scans(
        &mut self,
        scans: &[NewScan],
        subscribed: Option<&HashSet<AccountId>>,
    ) -> Vec<ScanFate> {
        let d = self;
        let mut out = Vec::with_capacity(scans.len());
        for scan in scans {
            let Some(link) = d.links.get_mut(&scan.link_id) else {
                out.push(ScanFate::LinkGone);
                continue;
            };
            if scan.max_scans.is_some_and(|cap| link.scan_count >= cap) {
                out.push(ScanFate::OverCap);
                continue;
            }
            link.scan_count += 1;
            let account = link.account_id;
            d.next_scan += 1;
            let id = ScanId(d.next_scan);
            let day = scan.day();
            let new_visitor =
                Arc::make_mut(&mut d.visitors).insert((scan.link_id, day, scan.visitor));
            let rollups = Arc::make_mut(d.rollups.entry(scan.link_id).or_default());
            let r = rollups.entry(day).or_default();
            r.scans += 1;
            r.uniques += u64::from(new_visitor);
            for dim in Dimension::ALL {
                if let Some(value) = dim.value_of(scan) {
                    *r.dims[dim as usize].entry(value.into_owned()).or_default() += 1;
                }
            }
            Arc::make_mut(d.scans.entry(scan.link_id).or_default()).push(StoredScan {
                id,
                at: scan.at,
                visitor: scan.visitor,
                country: scan.country.clone(),
                city: scan.city.clone(),
                device: scan.device,
                browser: scan.browser.clone(),
                os: scan.os.clone(),
                referrer: scan.referrer.clone(),
                variant: scan.variant,
                rule: scan.rule,
            });
            if subscribed.is_some_and(|s| s.contains(&account)) {
                webhooks::enqueue(d, account, &scan_event(scan, id));
            }
            out.push(ScanFate::Stored(id));
        }
        out
    }
}

impl ScanReads for Data {
    fn salt(&self, day: NaiveDate) -> Result<Option<[u8; 32]>, StoreError> {
        Ok(self.salts.get(&day).copied())
    }

    fn rollup_stats(
        &self,
        link: LinkId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<StatsRows, StoreError> {
        let mut rows = StatsRows::default();
        for (day, r) in self
            .rollups
            .get(&link)
            .iter()
            .flat_map(|d| d.range(first..=last))
        {
            rows.days.push(DayCount {
                day: *day,
                scans: r.scans,
                uniques: r.uniques,
            });
            for (dim, values) in Dimension::ALL.into_iter().zip(&r.dims) {
                for (value, n) in values {
                    rows.breakdowns.push(dim, value.clone(), *n);
                }
            }
        }
        Ok(rows)
    }

    fn raw_stats(
        &self,
        link: LinkId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
    ) -> Result<StatsRows, StoreError> {
        let mut days: BTreeMap<NaiveDate, (u64, HashSet<[u8; 16]>)> = BTreeMap::new();
        let mut rows = StatsRows::default();
        for s in self.scans.get(&link).iter().flat_map(|v| v.iter()) {
            if s.at < from || s.at > to {
                continue;
            }
            let d = days.entry(s.at.date_naive()).or_default();
            d.0 += 1;
            d.1.insert(s.visitor);
            let facets = s.facets();
            for dim in Dimension::ALL {
                if let Some(value) = facets.value(dim) {
                    rows.breakdowns.push(dim, value.into_owned(), 1);
                }
            }
        }
        rows.days = days
            .into_iter()
            .map(|(day, (scans, v))| DayCount {
                day,
                scans,
                uniques: v.len() as u64,
            })
            .collect();
        Ok(rows)
    }

    fn recent_scans(
        &self,
        link: LinkId,
        from: DateTime<Utc>,
        to: DateTime<Utc>,
        limit: u32,
    ) -> Result<Vec<ScanRecord>, StoreError> {
        let mut v: Vec<&StoredScan> = self
            .scans
            .get(&link)
            .iter()
            .flat_map(|v| v.iter())
            .filter(|s| s.at >= from && s.at <= to)
            .collect();
        v.sort_by(|a, b| b.at.cmp(&a.at).then(b.id.cmp(&a.id)));
        Ok(v.into_iter()
            .take(usize::try_from(limit).unwrap_or(usize::MAX))
            .map(|s| ScanRecord {
                id: s.id,
                timestamp: s.at,
                country: s.country.clone(),
                city: s.city.clone(),
                device: s.device,
                browser: s.browser.clone(),
                os: s.os.clone(),
                referrer: s.referrer.clone(),
                variant: s.variant,
                rule: s.rule,
            })
            .collect())
    }
}

impl ScanWrites for Data {
    fn put_salt(&mut self, day: NaiveDate, salt: [u8; 32]) -> Result<[u8; 32], StoreError> {
        Ok(*self.salts.entry(day).or_insert(salt))
    }

    fn forget_visitors_before(&mut self, day: NaiveDate) -> Result<(), StoreError> {
        self.salts = self.salts.split_off(&day);
        if self.visitors.iter().any(|(_, d, _)| *d < day) {
            Arc::make_mut(&mut self.visitors).retain(|(_, d, _)| *d >= day);
        }
        Ok(())
    }

    fn prune_scans(&mut self, account: AccountId, day: NaiveDate) -> Result<u64, StoreError> {
        let links: Vec<LinkId> = self
            .links
            .values()
            .filter(|l| l.account_id == account)
            .map(|l| l.id)
            .collect();
        let mut removed = 0u64;
        for id in links {
            if let Some(scans) = self.scans.get_mut(&id)
                && scans.iter().any(|s| s.at.date_naive() < day)
            {
                let v = Arc::make_mut(scans);
                let before = v.len();
                v.retain(|s| s.at.date_naive() >= day);
                removed += (before - v.len()) as u64;
            }
            if let Some(r) = self.rollups.get_mut(&id)
                && r.keys().next().is_some_and(|d| *d < day)
            {
                let kept = Arc::make_mut(r).split_off(&day);
                *Arc::make_mut(r) = kept;
            }
        }
        Ok(removed)
    }

    /// One map holds every day: nothing to prepare.
    fn prepare_scan_days(&mut self, _first: NaiveDate, _last: NaiveDate) -> Result<(), StoreError> {
        Ok(())
    }

    /// Deletes the days as PostgreSQL drops them, so the contract checks the same outcome.
    fn drop_scan_days_before(
        &mut self,
        day: NaiveDate,
        keep: &[AccountId],
    ) -> Result<u64, StoreError> {
        let kept: BTreeSet<NaiveDate> = self
            .scans
            .iter()
            .filter(|(link, _)| {
                self.links
                    .get(link)
                    .is_some_and(|l| keep.contains(&l.account_id))
            })
            .flat_map(|(_, scans)| scans.iter().map(|s| s.at.date_naive()))
            .filter(|d| *d < day)
            .collect();
        let gone = |d: NaiveDate| d < day && !kept.contains(&d);
        let mut removed = 0u64;
        for scans in self.scans.values_mut() {
            if scans.iter().any(|s| gone(s.at.date_naive())) {
                let v = Arc::make_mut(scans);
                let before = v.len();
                v.retain(|s| !gone(s.at.date_naive()));
                removed += (before - v.len()) as u64;
            }
        }
        Ok(removed)
    }
}

impl StoredScan {
    /// The fields the breakdowns read.
    pub(super) fn facets(&self) -> Facets<'_> {
        Facets {
            country: &self.country,
            city: &self.city,
            device: self.device.as_str(),
            browser: &self.browser,
            os: &self.os,
            referrer: self.referrer.as_deref(),
            variant: self.variant,
            rule: self.rule,
        }
    }
}
