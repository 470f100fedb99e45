//! Exporting one account (data-protection requests): its own records only, read in one snapshot, scans streamed in pages.

use chrono::{DateTime, Utc};

use super::Service;
use crate::accounts::account::Role;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::export::{
    ExportError, ExportHeader, ExportSink, ExportedAccount, ExportedKey, ExportedMember,
    ExportedPlanRequest, ExportedSession, LinkAnalytics, SCAN_PAGE, retention_days,
};
use crate::ids::AccountId;
use crate::links::link::Link;
use crate::scans::analytics::{AnalyticsQuery, DayCount, Window};
use crate::scans::breakdown::Dimension;
use crate::scans::scan_export::ScanPager;
use crate::store::{ReadTx, Store};

impl<S: Store, C: Clock> Service<S, C> {
    /// Hands everything the account owns to `sink`: the account (no password hash), its
    /// members, its keys' metadata (no secret or hash), its owner's sessions (no secret), its API requests per day, its
    /// links, and per link the retained daily counts and scans. Only the account's own records
    /// are read (every link query is by the account), all in one read transaction, so the export
    /// is consistent; scans arrive in pages of [`SCAN_PAGE`].
    pub fn export_account(
        &self,
        account: AccountId,
        sink: &mut dyn ExportSink,
    ) -> Result<(), ExportError> {
        let now = self.clock.now();
        self.store.read(|tx| {
            let account = tx
                .account(account)?
                .ok_or(ExportError::AccountNotFound(account))?;
            let retention = account.limits().retention;
            let plan_request = tx
                .plan_requests()?
                .into_iter()
                .find(|r| r.account_id == account.id)
                .map(|r| ExportedPlanRequest {
                    plan: r.plan,
                    requested_at: r.created_at,
                });
            let owner = crate::accounts::admin::workspace_owner(tx, account.id)?;
            let mut members = Vec::new();
            for m in tx.members_of(account.id)? {
                if let Some(user) = tx.user(m.user_id)? {
                    members.push(ExportedMember {
                        email: user.email.to_string(),
                        role: m.role,
                        joined_at: m.created_at,
                    });
                }
            }
            sink.header(&ExportHeader {
                exported_at: now,
                has_password: owner.as_ref().is_some_and(|o| o.password_hash.is_some()),
                members,
                plan_request,
                retention_days: retention_days(retention),
                account: ExportedAccount {
                    account: account.clone(),
                    email_verified_at: owner.as_ref().and_then(|o| o.email_verified_at),
                    role: owner.as_ref().map_or(Role::Customer, |o| o.role),
                },
            })?;
            let keys: Vec<ExportedKey> = tx
                .keys_of(account.id)?
                .iter()
                .map(ExportedKey::of)
                .collect();
            sink.keys(&keys)?;
            let sessions: Vec<ExportedSession> = match &owner {
                Some(owner) => tx
                    .sessions_of(owner.id)?
                    .iter()
                    .map(ExportedSession::of)
                    .collect(),
                None => Vec::new(),
            };
            sink.sessions(&sessions)?;
            sink.usage(&tx.daily_usage(
                account.id,
                account.created_at.date_naive(),
                now.date_naive(),
            )?)?;
            let links = tx.links_of(account.id)?;
            sink.links(&links)?;
            for link in &links {
                let window = AnalyticsQuery::default().window(now, link, retention);
                let analytics = match &window {
                    Some(w) => Some(link_analytics(tx, link, w.from, w.to)?),
                    None => None,
                };
                sink.link_analytics(link, analytics.as_ref())?;
                sink.begin_scans(link)?;
                if let Some(w) = window {
                    stream_scans(tx, link, w, sink)?;
                }
                sink.end_scans()?;
            }
            sink.finish()?;
            Ok(())
        })
    }
}

/// The rollups of the retained days, days in order and zero days left out.
fn link_analytics(
    tx: &dyn ReadTx,
    link: &Link,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<LinkAnalytics, StoreError> {
    let (first, last) = (from.date_naive(), to.date_naive());
    let rows = tx.rollup_stats(link.id, first, last)?;
    let mut days: Vec<DayCount> = rows.days.into_iter().filter(|d| d.scans > 0).collect();
    days.sort_by_key(|d| d.day);
    let b = &rows.breakdowns;
    Ok(LinkAnalytics {
        first,
        last,
        days,
        countries: b.totals(Dimension::Country),
        devices: b.totals(Dimension::Device),
        browsers: b.totals(Dimension::Browser),
    })
}

/// Every scan of `link` in `window`, newest first, in pages of at most [`SCAN_PAGE`] (the
/// pager's keyset pages, all in the export's one transaction).
fn stream_scans(
    tx: &dyn ReadTx,
    link: &Link,
    window: Window,
    sink: &mut dyn ExportSink,
) -> Result<(), ExportError> {
    let mut pager = ScanPager::new(link.id, Some(window));
    loop {
        let page = pager.next_page(tx)?;
        if page.is_empty() {
            return Ok(());
        }
        for chunk in page.chunks(SCAN_PAGE as usize) {
            sink.scans(chunk)?;
        }
    }
}
