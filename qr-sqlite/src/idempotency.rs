//! Idempotency records of bulk link requests in SQL (schema version 7): one row per account and key hash, with the request's fingerprint and the domain's answer, deleted with the account and pruned once expired.

use chrono::{DateTime, Utc};
use qr_domain::links::bulk::{IdempotencyKey, IdempotencyRecord};
use qr_domain::store::{IdempotencyReads, IdempotencyWrites};
use qr_domain::{AccountId, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, get, micros, time, uuid};

/// Version 7's table. The primary key is the lookup (account, key hash); the expiry index
/// serves the hourly prune.
pub(crate) const V7_IDEMPOTENCY: &str = r"
CREATE TABLE idempotency_keys (
    account_id BLOB NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    key_hash BLOB NOT NULL,
    fingerprint BLOB NOT NULL,
    answer TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL,
    PRIMARY KEY (account_id, key_hash)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys(expires_at);
";

fn hash32(v: &[u8], what: &str) -> Result<[u8; 32], StoreError> {
    v.try_into().map_err(|_| corrupt(what))
}

fn record_from(r: &Row<'_>) -> Result<IdempotencyRecord, StoreError> {
    Ok(IdempotencyRecord {
        account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        key: IdempotencyKey::from_hash(hash32(&get::<Vec<u8>>(r, 1)?, "idempotency key")?),
        fingerprint: hash32(&get::<Vec<u8>>(r, 2)?, "idempotency fingerprint")?,
        answer: get(r, 3)?,
        created_at: time(get(r, 4)?)?,
        expires_at: time(get(r, 5)?)?,
    })
}

impl IdempotencyReads for SqlTx<'_> {
    fn idempotency_record(
        &self,
        account: AccountId,
        key: &IdempotencyKey,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        self.one(
            "SELECT account_id, key_hash, fingerprint, answer, created_at, expires_at
             FROM idempotency_keys WHERE account_id = ?1 AND key_hash = ?2",
            params![&account.as_uuid().into_bytes()[..], &key.hash()[..]],
            record_from,
        )
    }
}

impl IdempotencyWrites for SqlTx<'_> {
    fn put_idempotency_record(&mut self, r: &IdempotencyRecord) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO idempotency_keys
                 (account_id, key_hash, fingerprint, answer, created_at, expires_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)
             ON CONFLICT (account_id, key_hash) DO UPDATE SET fingerprint = excluded.fingerprint,
                 answer = excluded.answer, created_at = excluded.created_at,
                 expires_at = excluded.expires_at",
            params![
                &r.account_id.as_uuid().into_bytes()[..],
                &r.key.hash()[..],
                &r.fingerprint[..],
                r.answer,
                micros(r.created_at),
                micros(r.expires_at)
            ],
        )?;
        Ok(())
    }

    fn prune_idempotency_records(&mut self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        Ok(self.exec(
            "DELETE FROM idempotency_keys WHERE expires_at <= ?1",
            [micros(now)],
        )? as u64)
    }
}
