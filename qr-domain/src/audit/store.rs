//! The storage traits of the audit log: append, read a workspace's entries newest first under a query, and delete past retention. No trait changes an entry.

use chrono::{DateTime, Utc};

use crate::audit::entry::{AuditEntry, AuditId, NewAuditEntry};
use crate::audit::query::AuditQuery;
use crate::error::StoreError;
use crate::ids::AccountId;

/// Audit reads, available in every transaction.
pub trait AuditReads {
    /// The workspace's entries passing every filter of `query` and older than its cursor,
    /// highest id first, at most `query.limit`. Another workspace's entries never appear.
    fn audit_entries(
        &self,
        account: AccountId,
        query: &AuditQuery,
    ) -> Result<Vec<AuditEntry>, StoreError>;
}

/// Audit writes, available in write transactions. Append-only: an entry is never changed; it
/// is deleted only by retention ([`AuditWrites::prune_audit`]) or with its workspace (the
/// account's deletion takes its entries). Deleting the objects it names leaves it.
pub trait AuditWrites {
    /// Appends an entry; its id is higher than every id the store assigned before.
    fn append_audit(&mut self, entry: &NewAuditEntry) -> Result<AuditId, StoreError>;
    /// Deletes the workspace's entries older than `before`; returns how many.
    fn prune_audit(&mut self, account: AccountId, before: DateTime<Utc>)
    -> Result<u64, StoreError>;
}
