//! Idempotency records of bulk link requests in SQL (schema version 7, as SQLite's version 7): one row per account and key hash, with the request's fingerprint and the domain's answer, deleted with the account and pruned once expired.

use chrono::{DateTime, Utc};
use postgres::Row;
use qr_domain::links::bulk::{IdempotencyKey, IdempotencyRecord};
use qr_domain::store::{IdempotencyReads, IdempotencyWrites};
use qr_domain::{AccountId, StoreError};

use crate::tx::{PgTx, corrupt, get};

/// Version 7's table: the primary key is the lookup, the expiry index serves the hourly prune.
pub(crate) const V7_IDEMPOTENCY: &str = r"
CREATE TABLE idempotency_keys (
    account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
    key_hash bytea NOT NULL,
    fingerprint bytea NOT NULL,
    answer text NOT NULL,
    created_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (account_id, key_hash)
);
CREATE INDEX idempotency_keys_by_expiry ON idempotency_keys (expires_at);
";

fn hash32(v: &[u8], what: &str) -> Result<[u8; 32], StoreError> {
    v.try_into().map_err(|_| corrupt(what))
}

fn record_from(r: &Row) -> Result<IdempotencyRecord, StoreError> {
    Ok(IdempotencyRecord {
        account_id: AccountId::from_uuid(get(r, 0, "account_id")?),
        key: IdempotencyKey::from_hash(hash32(get(r, 1, "key_hash")?, "idempotency key")?),
        fingerprint: hash32(get(r, 2, "fingerprint")?, "idempotency fingerprint")?,
        answer: get(r, 3, "answer")?,
        created_at: get(r, 4, "created_at")?,
        expires_at: get(r, 5, "expires_at")?,
    })
}

impl IdempotencyReads for PgTx<'_> {
    fn idempotency_record(
        &self,
        account: AccountId,
        key: &IdempotencyKey,
    ) -> Result<Option<IdempotencyRecord>, StoreError> {
        self.one(
            "SELECT account_id, key_hash, fingerprint, answer, created_at, expires_at
             FROM idempotency_keys WHERE account_id = $1 AND key_hash = $2",
            &[&account.as_uuid(), &&key.hash()[..]],
            record_from,
        )
    }
}

impl IdempotencyWrites for PgTx<'_> {
    fn put_idempotency_record(&mut self, r: &IdempotencyRecord) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO idempotency_keys
                 (account_id, key_hash, fingerprint, answer, created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6)
             ON CONFLICT (account_id, key_hash) DO UPDATE SET fingerprint = excluded.fingerprint,
                 answer = excluded.answer, created_at = excluded.created_at,
                 expires_at = excluded.expires_at",
            &[
                &r.account_id.as_uuid(),
                &&r.key.hash()[..],
                &&r.fingerprint[..],
                &r.answer,
                &r.created_at,
                &r.expires_at,
            ],
        )?;
        Ok(())
    }

    fn prune_idempotency_records(&mut self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        self.exec(
            "DELETE FROM idempotency_keys WHERE expires_at <= $1",
            &[&now],
        )
    }
}
