//! The in-memory store's idempotency records of bulk requests.

use chrono::{DateTime, Utc};

use super::Data;
use crate::error::StoreError;
use crate::ids::AccountId;
use crate::links::bulk::{IdempotencyKey, IdempotencyRecord};
use crate::store::{IdempotencyReads, IdempotencyWrites};

impl IdempotencyReads for Data {
    fn idempotency_record(
        &self,
        account: AccountId,
        key: &IdempotencyKey,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        Ok(self.idempotency.get(&(account, *key)).cloned())
    }
}

impl IdempotencyWrites for Data {
    fn put_idempotency_record(&mut self, record: &IdempotencyRecord) -> Result<(), StoreError> {
        self.require_account(record.account_id)?;
        self.idempotency
            .insert((record.account_id, record.key), record.clone());
        Ok(())
    }

    fn prune_idempotency_records(&mut self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let before = self.idempotency.len();
        self.idempotency.retain(|_, r| r.expires_at > now);
        Ok((before - self.idempotency.len()) as u64)
    }
}

/// Removes the records of a deleted account.
pub(super) fn forget_account(d: &mut Data, account: AccountId) {
    d.idempotency.retain(|(a, _), _| *a != account);
}
