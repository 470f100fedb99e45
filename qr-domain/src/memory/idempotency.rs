//! The in-memory store's idempotency records of bulk requests (the trait methods of `memory.rs` delegate here).

use chrono::{DateTime, Utc};

use super::Data;
use crate::bulk::{IdempotencyKey, IdempotencyRecord};
use crate::error::StoreError;
use crate::ids::AccountId;

pub(super) fn get(d: &Data, account: AccountId, key: &IdempotencyKey) -> Option<IdempotencyRecord> {
    d.idempotency.get(&(account, *key)).cloned()
}

pub(super) fn put(d: &mut Data, record: &IdempotencyRecord) -> Result<(), StoreError> {
    d.require_account(record.account_id)?;
    d.idempotency
        .insert((record.account_id, record.key), record.clone());
    Ok(())
}

pub(super) fn prune(d: &mut Data, now: DateTime<Utc>) -> u64 {
    let before = d.idempotency.len();
    d.idempotency.retain(|_, r| r.expires_at > now);
    (before - d.idempotency.len()) as u64
}

pub(super) fn forget_account(d: &mut Data, account: AccountId) {
    d.idempotency.retain(|(a, _), _| *a != account);
}
