//! The in-memory store's scan batches: each scan, its rollups, visitor set and scan count
//! applied in place under the store's lock (`Store::record_scans` of `memory.rs` calls here).

use std::collections::HashSet;
use std::sync::Arc;

use super::{Data, StoredScan, webhooks};
use crate::breakdown::{Dimension, Facets};
use crate::ids::{AccountId, ScanId};
use crate::scan::NewScan;
use crate::webhook::scan_event;

impl Data {
    /// Applies a scan batch in place; with `subscribed`, writes the `scan.recorded` events of
    /// those accounts' scans too.
    pub(super) fn record_scans(
        &mut self,
        scans: &[NewScan],
        subscribed: Option<&HashSet<AccountId>>,
    ) -> Vec<Option<ScanId>> {
        let d = self;
        let mut out = Vec::with_capacity(scans.len());
        for scan in scans {
            let Some(link) = d.links.get_mut(&scan.link_id) else {
                out.push(None);
                continue;
            };
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
            out.push(Some(id));
        }
        out
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
