//! The in-memory store's audit log: entries in append order behind an `Arc` (every write transaction copies the store's data), ids counted from 1.

use std::sync::Arc;

use chrono::{DateTime, Utc};

use super::Data;
use crate::audit::entry::{AuditEntry, AuditId, NewAuditEntry};
use crate::audit::query::AuditQuery;
use crate::audit::store::{AuditReads, AuditWrites};
use crate::error::StoreError;
use crate::ids::AccountId;

impl AuditReads for Data {
    fn audit_entries(
        &self,
        account: AccountId,
        query: &AuditQuery,
    ) -> Result<Vec<AuditEntry>, StoreError> {
        Ok(self
            .audit
            .iter()
            .rev()
            .filter(|e| e.entry.account_id == account && query.matches(e))
            .take(query.limit as usize)
            .cloned()
            .collect())
    }
}

impl AuditWrites for Data {
    fn append_audit(&mut self, entry: &NewAuditEntry) -> Result<AuditId, StoreError> {
        self.next_audit += 1;
        let id = AuditId(self.next_audit);
        Arc::make_mut(&mut self.audit).push(AuditEntry {
            id,
            entry: entry.clone(),
        });
        Ok(id)
    }

    fn prune_audit(
        &mut self,
        account: AccountId,
        before: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let old = |e: &AuditEntry| e.entry.account_id == account && e.entry.at < before;
        let gone = self.audit.iter().filter(|e| old(e)).count();
        if gone > 0 {
            Arc::make_mut(&mut self.audit).retain(|e| !old(e));
        }
        Ok(gone as u64)
    }
}

/// Removes the entries of a deleted workspace.
pub(super) fn forget_account(data: &mut Data, account: AccountId) {
    if data.audit.iter().any(|e| e.entry.account_id == account) {
        Arc::make_mut(&mut data.audit).retain(|e| e.entry.account_id != account);
    }
}
