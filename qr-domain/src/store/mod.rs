//! The storage traits every adapter implements: read and write transactions as closures, plus scan batches.
//!
//! Tenant isolation is part of the contract: every link query takes the owning
//! account, and a link of another account is simply absent. So is uniqueness: an
//! e-mail address, a key hash and a short code (live or tombstoned) each belong to one record.
//!
//! The transactions' methods come in one read trait and one write trait per aggregate, each in
//! that aggregate's folder (`accounts/store.rs`, `accounts/user_store.rs`, `accounts/invitation_store.rs` and `accounts/key_store.rs`, `links/store.rs` and
//! `links/idempotency_store.rs`, `scans/store.rs`, `dashboard/store.rs` for credentials,
//! `webhooks/store.rs`, `domains/store.rs`, `designs/store.rs`, `audit/store.rs`, `sso/store.rs`) and re-exported here, and each adapter implements them in the file that
//! holds that aggregate's storage; [`ReadTx`] and [`WriteTx`] gather them, so callers name those
//! two alone.

use std::collections::HashSet;

use crate::accounts::config_change::ConfigChanges;
use crate::error::StoreError;
use crate::ids::AccountId;
use crate::scans::scan::{NewScan, ScanFate};

pub use crate::accounts::invitation_store::{InvitationReads, InvitationWrites};
pub use crate::accounts::key_store::{KeyReads, KeyWrites};
pub use crate::accounts::store::{AccountReads, AccountWrites};
pub use crate::accounts::user_store::{UserReads, UserWrites};
pub use crate::audit::store::{AuditReads, AuditWrites};
pub use crate::dashboard::store::{CredentialReads, CredentialWrites};
pub use crate::designs::store::{DesignReads, DesignWrites};
pub use crate::domains::store::{DomainReads, DomainWrites};
pub use crate::links::idempotency_store::{IdempotencyReads, IdempotencyWrites};
pub use crate::links::store::{LinkReads, LinkWrites};
pub use crate::passkeys::store::{PasskeyReads, PasskeyWrites};
pub use crate::scans::store::{ScanReads, ScanWrites};
pub use crate::sso::store::{SsoReads, SsoWrites};
pub use crate::webhooks::store::{WebhookReads, WebhookWrites};

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
    /// the visitor set and each link's scan count, and says what became of each scan, in
    /// order. A scan whose link no longer exists is skipped ([`ScanFate::LinkGone`]). A scan with
    /// a cap ([`NewScan::max_scans`]) is kept only while its link has recorded fewer scans than
    /// the cap, counting every committed scan of every writer and the batch's own earlier ones
    /// ([`ScanFate::OverCap`] otherwise); the check and the count are atomic with the insert.
    /// When this returns `Ok`, the batch is committed.
    fn record_scans(&self, scans: &[NewScan]) -> Result<Vec<ScanFate>, StoreError>;

    /// [`Store::record_scans`], and in the same transaction, for every stored scan whose link
    /// belongs to an account in `subscribed`, the event [`crate::webhooks::outbox::scan_event`] in the
    /// outbox of that account's webhooks that want `scan.recorded` (as
    /// [`WebhookWrites::enqueue_webhook_event`] writes it). Only called with a non-empty set, so
    /// the scans of every other account cost nothing more.
    fn record_scans_with_events(
        &self,
        scans: &[NewScan],
        subscribed: &HashSet<AccountId>,
    ) -> Result<Vec<ScanFate>, StoreError>;

    /// A number that changes whenever accounts or keys change, in this process or in any other
    /// process sharing the same storage. Caches of keys and accounts compare it on every request.
    fn config_version(&self) -> Result<u64, StoreError>;

    /// The account and key changes after configuration version `since`, in this process or in
    /// any other sharing the storage, so caches of keys drop just the entries they concern.
    /// [`ConfigChanges::Unknown`] when the store cannot tell (then everything cached may be
    /// stale); `since` newer than the current version is such a case.
    fn config_changes(&self, since: u64) -> Result<ConfigChanges, StoreError>;

    /// Whether the store was opened for reading only, so that every write fails with
    /// [`StoreError::ReadOnly`]. Stores that can always write keep the default, `false`.
    fn is_read_only(&self) -> bool {
        false
    }
}

/// Reads available in every transaction: those of every aggregate. Implemented by every type
/// that implements the aggregates' read traits, so a store implements those and passes its
/// transaction as `&dyn ReadTx`.
pub trait ReadTx:
    AccountReads
    + UserReads
    + InvitationReads
    + KeyReads
    + LinkReads
    + ScanReads
    + CredentialReads
    + WebhookReads
    + IdempotencyReads
    + DomainReads
    + DesignReads
    + AuditReads
    + SsoReads
    + PasskeyReads
{
}

impl<T> ReadTx for T where
    T: ?Sized
        + AccountReads
        + UserReads
        + InvitationReads
        + KeyReads
        + LinkReads
        + ScanReads
        + CredentialReads
        + WebhookReads
        + IdempotencyReads
        + DomainReads
        + DesignReads
        + AuditReads
        + SsoReads
        + PasskeyReads
{
}

/// Writes, available in write transactions: those of every aggregate, beside its reads.
/// Implemented by every type that implements the aggregates' read and write traits.
pub trait WriteTx:
    ReadTx
    + AccountWrites
    + UserWrites
    + InvitationWrites
    + KeyWrites
    + LinkWrites
    + ScanWrites
    + CredentialWrites
    + WebhookWrites
    + IdempotencyWrites
    + DomainWrites
    + DesignWrites
    + AuditWrites
    + SsoWrites
    + PasskeyWrites
{
}

impl<T> WriteTx for T where
    T: ?Sized
        + ReadTx
        + AccountWrites
        + UserWrites
        + InvitationWrites
        + KeyWrites
        + LinkWrites
        + ScanWrites
        + CredentialWrites
        + WebhookWrites
        + IdempotencyWrites
        + DomainWrites
        + DesignWrites
        + AuditWrites
        + SsoWrites
        + PasskeyWrites
{
}
