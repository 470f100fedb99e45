//! Exporting one link's scans (`GET /api/analytics/export`, `qr analytics export`): the
//! analytics window after retention, then keyset pages of the store's `recent_scans`, each page
//! read in a transaction of its own, so an export of any size holds one page in memory and no
//! transaction stays open while a slow client downloads.

use chrono::{DateTime, Utc};

use crate::accounts::account::Account;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::export::SCAN_PAGE;
use crate::ids::{LinkId, ScanId};
use crate::links::link::Link;
use crate::scans::analytics::{AnalyticsError, AnalyticsQuery, Window};
use crate::scans::analytics_service::link_window;
use crate::scans::scan::ScanRecord;
use crate::service::Service;
use crate::store::{ReadTx, Store};

/// Every scan of one link in a window, newest first (time, then id, both descending), read a
/// page at a time. Each page ends at the oldest instant of the previous one (inclusive) and
/// skips the scans of that instant already handed over, so no scan is handed over twice or
/// skipped, whatever happens between pages; when more than a page shares one instant, the page
/// grows until it gets past them.
#[derive(Debug, Clone)]
pub struct ScanPager {
    link: LinkId,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
    last: Option<(DateTime<Utc>, ScanId)>,
    done: bool,
}

impl ScanPager {
    /// The pages of `link`'s scans in `window`; none when nothing of it is retained.
    pub fn new(link: LinkId, window: Option<Window>) -> Self {
        match window {
            Some(w) => Self {
                link,
                from: w.from,
                to: w.to,
                last: None,
                done: false,
            },
            None => Self {
                link,
                from: DateTime::<Utc>::MIN_UTC,
                to: DateTime::<Utc>::MIN_UTC,
                last: None,
                done: true,
            },
        }
    }

    /// Whether every page has been handed over.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The next page, usually [`SCAN_PAGE`] scans (more only when that many share an instant);
    /// empty once every scan has been handed over.
    pub fn next_page(&mut self, tx: &dyn ReadTx) -> Result<Vec<ScanRecord>, StoreError> {
        let mut limit = SCAN_PAGE;
        while !self.done {
            let page = tx.recent_scans(self.link, self.from, self.to, limit)?;
            let full = page.len() == usize::try_from(limit).unwrap_or(usize::MAX);
            let last = self.last;
            let fresh: Vec<ScanRecord> = page
                .into_iter()
                .filter(|s| last.is_none_or(|(at, id)| s.timestamp < at || s.id < id))
                .collect();
            self.done = !full;
            if let Some(oldest) = fresh.last() {
                self.last = Some((oldest.timestamp, oldest.id));
                self.to = oldest.timestamp;
                return Ok(fresh);
            }
            // A whole page at one instant, all handed over already: ask for more at once.
            limit = limit.saturating_mul(2);
        }
        Ok(Vec::new())
    }
}

/// An export of one link's scans under way: the link as it was when the export began, and the
/// pages still to read.
#[derive(Debug, Clone)]
pub struct ScanExport {
    /// The link (its short code names the download).
    pub link: Link,
    /// The window exported, `None` when nothing of the range is retained.
    pub window: Option<Window>,
    pager: ScanPager,
}

impl ScanExport {
    /// Whether every scan has been handed over.
    pub fn is_done(&self) -> bool {
        self.pager.is_done()
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Begins exporting the scans of one of the account's links in `query`'s range, within the
    /// plan's retention (the window of `GET /api/analytics`); another account's link is "not
    /// found". Read the scans with [`Service::scan_export_page`].
    pub fn begin_scan_export(
        &self,
        account: &Account,
        id: LinkId,
        query: &AnalyticsQuery,
    ) -> Result<ScanExport, AnalyticsError> {
        let now = self.clock.now();
        self.store.read(|tx| {
            let (link, window) = link_window(tx, account, id, query, now)?;
            Ok(ScanExport {
                pager: ScanPager::new(link.id, window),
                window,
                link,
            })
        })
    }

    /// The next page of `export`, newest first, in a read transaction of its own; empty once
    /// every scan has been handed over.
    pub fn scan_export_page(&self, export: &mut ScanExport) -> Result<Vec<ScanRecord>, StoreError> {
        if export.pager.is_done() {
            return Ok(Vec::new());
        }
        self.store.read(|tx| export.pager.next_page(tx))
    }
}
