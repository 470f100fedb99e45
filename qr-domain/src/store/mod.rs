//! The storage traits every adapter implements: read and write transactions as closures, plus scan batches.
//!
//! Tenant isolation is part of the contract: every link query takes the owning
//! account, and a link of another account is simply absent. So is uniqueness: an
//! e-mail address, a key hash and a short code (live or tombstoned) each belong to one record.

mod credentials;
mod idempotency;
mod keys;
mod links;
mod scans;
mod webhooks;

use std::collections::HashSet;

use chrono::{DateTime, NaiveDate, Utc};

use crate::account::{Account, Email, PlanRequest};
use crate::error::StoreError;
use crate::ids::{AccountId, KeyId, LinkId, ScanId};
use crate::limits::UsageMonth;
use crate::scan::NewScan;

pub use credentials::{CredentialReads, CredentialWrites};
pub use idempotency::{IdempotencyReads, IdempotencyWrites};
pub use keys::{KeyReads, KeyWrites};
pub use links::{LinkReads, LinkWrites};
pub use scans::{ScanReads, ScanWrites};
pub use webhooks::{WebhookReads, WebhookWrites};

/// A storage backend.
pub trait Store: Send + Sync + 'static {
    /// Runs `f` in a read-only transaction with a consistent snapshot.
    fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn ReadTx) -> Result<T, E>,
    ) -> Result<T, E>;

    /// Runs `f` in a write transaction: committed if `f` returns `Ok`, rolled back entirely if it returns `Err`.
    fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut dyn WriteTx) -> Result<T, E>,
    ) -> Result<T, E>;

    /// Stores a batch of scans in one transaction: inserts the scans, updates the daily rollups,
    /// the visitor set and each link's scan count. A scan whose link no longer exists is skipped
    /// (`None`); the others get their ids. When this returns `Ok`, the batch is committed.
    fn record_scans(&self, scans: &[NewScan]) -> Result<Vec<Option<ScanId>>, StoreError>;

    /// [`Store::record_scans`], and in the same transaction, for every stored scan whose link
    /// belongs to an account in `subscribed`, the event [`crate::webhook::scan_event`] in the
    /// outbox of that account's webhooks that want `scan.recorded` (as
    /// [`WebhookWrites::enqueue_webhook_event`] writes it). Only called with a non-empty set, so
    /// the scans of every other account cost nothing more.
    fn record_scans_with_events(
        &self,
        scans: &[NewScan],
        subscribed: &HashSet<AccountId>,
    ) -> Result<Vec<Option<ScanId>>, StoreError>;

    /// A number that changes whenever accounts or keys change, in this process or in any other
    /// process sharing the same storage. Caches of keys and accounts compare it on every request.
    fn config_version(&self) -> Result<u64, StoreError>;

    /// Whether the store was opened for reading only, so that every write fails with
    /// [`StoreError::ReadOnly`]. Stores that can always write keep the default, `false`.
    fn is_read_only(&self) -> bool {
        false
    }
}

/// Reads available in every transaction.
pub trait ReadTx: KeyReads + LinkReads + ScanReads + CredentialReads + WebhookReads + IdempotencyReads {
    /// The account with this id.
    fn account(&self, id: AccountId) -> Result<Option<Account>, StoreError>;
    /// All accounts, oldest first.
    fn accounts(&self) -> Result<Vec<Account>, StoreError>;
    /// The account with this e-mail address, compared by [`Email::lookup_key`].
    fn account_by_email(&self, email: &Email) -> Result<Option<Account>, StoreError>;
    /// The persisted usage counts of a month.
    fn usage(&self, month: UsageMonth) -> Result<Vec<(AccountId, u64)>, StoreError>;
    /// Every pending plan request, oldest first.
    fn plan_requests(&self) -> Result<Vec<PlanRequest>, StoreError>;
    /// An account's persisted API requests per UTC day over `first..=last`, days without
    /// requests left out, ascending.
    fn daily_usage(
        &self,
        account: AccountId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<Vec<(NaiveDate, u64)>, StoreError>;
}

/// Writes, available in write transactions.
pub trait WriteTx: ReadTx + KeyWrites + LinkWrites + ScanWrites + CredentialWrites + WebhookWrites + IdempotencyWrites {
    /// Adds an account. An e-mail address another account has (compared by
    /// [`Email::lookup_key`]) is a [`StoreError::Conflict`].
    fn insert_account(&mut self, account: &Account) -> Result<(), StoreError>;
    /// Replaces an account's e-mail, plan, overrides, password hash, verification time, status and
    /// role (everything but its id and creation time); `false` if there is no such account.
    /// An e-mail address another account has is a [`StoreError::Conflict`].
    fn update_account(&mut self, account: &Account) -> Result<bool, StoreError>;
    /// Stores usage counts of a month; a stored count is never lowered.
    fn save_usage(
        &mut self,
        month: UsageMonth,
        counts: &[(AccountId, u64)],
    ) -> Result<(), StoreError>;
    /// Stores an account's pending plan request, replacing an earlier one. The account must exist
    /// ([`StoreError::Conflict`] otherwise).
    fn put_plan_request(&mut self, request: &PlanRequest) -> Result<(), StoreError>;
    /// Removes an account's pending plan request; `false` if there was none.
    fn delete_plan_request(&mut self, account: AccountId) -> Result<bool, StoreError>;
    /// Adds API requests to the accounts' counts of a UTC day (counts of deleted accounts are
    /// dropped).
    fn add_daily_usage(
        &mut self,
        day: NaiveDate,
        added: &[(AccountId, u64)],
    ) -> Result<(), StoreError>;
    /// Deletes an account and everything it owns: keys, links (their short codes tombstoned)
    /// with their scans, rollups and visitors, usage and daily usage, sessions, tokens, its plan
    /// request, and its webhooks with their outbox events and quota thresholds; `false` if
    /// there is no such account.
    fn delete_account(&mut self, account: AccountId) -> Result<bool, StoreError>;
}
