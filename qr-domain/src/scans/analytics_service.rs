//! Analytics of a link: the window after retention, rollups for whole days (settled ones from memory), raw scans for partial days.

use chrono::{DateTime, Days, NaiveDate, Utc};

use crate::accounts::account::Account;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::LinkId;
use crate::links::link::Link;
use crate::scans::analytics::{
    AnalyticsError, AnalyticsQuery, AnalyticsReport, LinkSummary, StatsRows, summarize,
};
use crate::service::Service;
use crate::store::{ReadTx, Store};

impl<S: Store, C: Clock> Service<S, C> {
    /// Analytics of one of the account's links; another account's link is "not found".
    pub fn analytics(
        &self,
        account: &Account,
        id: LinkId,
        query: &AnalyticsQuery,
    ) -> Result<AnalyticsReport, AnalyticsError> {
        let now = self.clock.now();
        self.store.read(|tx| {
            let (link, window) = link_window(tx, account, id, query, now)?;
            let mut parts = Vec::new();
            let mut recent = Vec::new();
            if let Some(w) = &window {
                let possible = crate::scans::analytics::Window {
                    from: link.created_at,
                    to: now,
                };
                let plan = w.plan_within(&possible);
                if let Some((first, last)) = plan.full_days {
                    // Days before yesterday take no more scans, so their rollup is kept in
                    // memory; yesterday (scans committed just after midnight) is always read.
                    let settled = now.date_naive().checked_sub_days(Days::new(2));
                    match settled.filter(|s| first <= *s) {
                        Some(settled) => {
                            let upto = last.min(settled);
                            parts.push(self.settled_rollup(tx, link.id, first, upto)?);
                            if let Some(next) = upto.succ_opt().filter(|n| *n <= last) {
                                parts.push(tx.rollup_stats(link.id, next, last)?);
                            }
                        }
                        None => parts.push(tx.rollup_stats(link.id, first, last)?),
                    }
                }
                for p in plan.partial.iter().flatten() {
                    parts.push(tx.raw_stats(link.id, p.from, p.to)?);
                }
                recent = tx.recent_scans(link.id, w.from, w.to, u32::from(query.limit.get()))?;
            }
            Ok(AnalyticsReport {
                link: LinkSummary::of(&link),
                analytics: summarize(
                    window.as_ref(),
                    parts,
                    link.options.get().is_some_and(|o| !o.variants.is_empty()),
                ),
                recent_scans: recent,
            })
        })
    }

    /// The rollup of days that can no longer change, from memory when read before.
    fn settled_rollup(
        &self,
        tx: &dyn ReadTx,
        link: LinkId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<StatsRows, StoreError> {
        let key = (link, first, last);
        if let Some(rows) = self.stats.rollups.record(self.rollups.get(&key)) {
            return Ok(rows);
        }
        let mut rows = tx.rollup_stats(link, first, last)?;
        // One row per value instead of one per day and value: each later request clones
        // and adds up what is kept here.
        rows.breakdowns = rows.breakdowns.compacted();
        self.rollups.insert(key, rows.clone());
        Ok(rows)
    }
}

/// One of the account's links (another account's is "not found") and the window `query` asks
/// of it after the plan's retention (read from the store: the plan may have changed since the
/// caller's account was read), `None` when nothing of the range is retained.
pub(crate) fn link_window(
    tx: &dyn ReadTx,
    account: &Account,
    id: LinkId,
    query: &AnalyticsQuery,
    now: DateTime<Utc>,
) -> Result<(Link, Option<crate::scans::analytics::Window>), AnalyticsError> {
    let link = tx
        .link(account.id, id)?
        .ok_or(AnalyticsError::LinkNotFound)?;
    let retention = tx
        .account(account.id)?
        .unwrap_or_else(|| account.clone())
        .limits()
        .retention;
    let window = query.window(now, &link, retention);
    Ok((link, window))
}
