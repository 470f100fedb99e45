//! The audit log's `Service` methods: reading a workspace's log (owners and admins; never a key), the retention run, and the one function every write method appends through.

use chrono::{DateTime, Utc};

use crate::accounts::caller::Caller;
use crate::accounts::permissions::Operation;
use crate::audit::entry::{AuditAction, AuditObject, Change, NewAuditEntry};
use crate::audit::query::{AuditCursor, AuditError, AuditPage, AuditQuery};
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::AccountId;
use crate::scans::analytics::{day_start, retention_first_day};
use crate::service::Service;
use crate::store::{Store, WriteTx};

/// Appends what `caller` did, inside the write transaction `tx` that makes the change, so the
/// change and its entry commit or roll back together.
pub(crate) fn record(
    tx: &mut dyn WriteTx,
    caller: &Caller,
    at: DateTime<Utc>,
    action: AuditAction,
    object: AuditObject,
    changes: Vec<Change>,
) -> Result<(), StoreError> {
    tx.append_audit(&NewAuditEntry::by(caller, at, action, object, changes))
        .map(drop)
}

impl<S: Store, C: Clock> Service<S, C> {
    /// One page of the caller's workspace's log, newest first, under the query's filters and
    /// never older than the plan's retention (as analytics), with the cursor of the next page.
    /// Only members allowed [`Operation::ReadAudit`] (owners and admins) may; a key never.
    pub fn audit_log(&self, caller: &Caller, query: &AuditQuery) -> Result<AuditPage, AuditError> {
        caller.require(Operation::ReadAudit)?;
        let mut query = query.clone();
        let size = query.limit as usize;
        // One more than the page tells whether there is a next page.
        query.limit = query.limit.saturating_add(1);
        let mut entries = self.store.read(|tx| {
            if let Some(start) = self.audit_start(tx.account(caller.account)?.as_ref()) {
                query.since = Some(query.since.map_or(start, |s| s.max(start)));
            }
            tx.audit_entries(caller.account, &query)
        })?;
        let next = if entries.len() > size {
            entries.truncate(size);
            entries.last().map(|e| AuditCursor(e.id))
        } else {
            None
        };
        Ok(AuditPage { entries, next })
    }

    /// The first instant a workspace's log keeps: the first day of its plan's retention, as
    /// analytics (`None`: unlimited, or the workspace is gone).
    fn audit_start(
        &self,
        account: Option<&crate::accounts::account::Account>,
    ) -> Option<DateTime<Utc>> {
        let account = account?;
        retention_first_day(self.clock.now().date_naive(), account.limits().retention)
            .map(day_start)
    }

    /// Deletes every workspace's entries older than its plan's retention (run by
    /// [`Service::prune`]); returns how many went.
    pub(crate) fn prune_audit_logs(&self) -> Result<u64, StoreError> {
        let mut deleted = 0;
        let accounts: Vec<(AccountId, DateTime<Utc>)> = self
            .accounts()?
            .iter()
            .filter_map(|a| self.audit_start(Some(a)).map(|start| (a.id, start)))
            .collect();
        for (account, start) in accounts {
            deleted += self.store.write(|tx| tx.prune_audit(account, start))?;
        }
        Ok(deleted)
    }
}
