//! The storage traits of idempotency records: the stored answers of bulk requests, per account and key.

use chrono::{DateTime, Utc};

use crate::error::StoreError;
use crate::ids::AccountId;
use crate::links::bulk::{IdempotencyKey, IdempotencyRecord};

/// Idempotency reads, available in every transaction.
pub trait IdempotencyReads {
    /// The stored answer of `account`'s idempotency key, expired or not (the service decides);
    /// another account's record with the same key is absent.
    fn idempotency_record(
        &self,
        account: AccountId,
        key: &IdempotencyKey,
    ) -> Result<Option<IdempotencyRecord>, StoreError>;
}

/// Idempotency writes, available in write transactions.
pub trait IdempotencyWrites {
    /// Stores an idempotency record, replacing the account's record of the same key (an
    /// expired one: the service never replaces a live one). The account must exist
    /// ([`StoreError::Conflict`] otherwise); deleting the account deletes its records.
    fn put_idempotency_record(&mut self, record: &IdempotencyRecord) -> Result<(), StoreError>;
    /// Deletes idempotency records that expired at or before `now`; returns how many.
    fn prune_idempotency_records(&mut self, now: DateTime<Utc>) -> Result<u64, StoreError>;
}
