//! API keys in SQL: lookups by id, by hash or by account, and writing a key's secret hash, names, settings, creator and last use.

use chrono::{DateTime, Utc};
use qr_domain::accounts::key::{KeyCreator, KeyHash};
use qr_domain::store::{KeyReads, KeyWrites};
use qr_domain::{AccountId, ApiKey, KeyId, KeyMode, StoreError};
use rusqlite::{Row, params};

use crate::tx::{SqlTx, corrupt, get, json, micros, time, to_json, uuid};

const KEY_COLS: &str = "id, account_id, mode, hash, display_prefix, created_at, last_used_at, settings, name, last_four, created_by";

fn key_from(r: &Row<'_>) -> Result<ApiKey, StoreError> {
    let hash: Vec<u8> = get(r, 3)?;
    Ok(ApiKey {
        id: KeyId::from_uuid(uuid(&get::<Vec<u8>>(r, 0)?)?),
        account_id: AccountId::from_uuid(uuid(&get::<Vec<u8>>(r, 1)?)?),
        mode: KeyMode::parse(&get::<String>(r, 2)?).ok_or_else(|| corrupt("mode"))?,
        hash: KeyHash(hash.try_into().map_err(|_| corrupt("hash"))?),
        display_prefix: get(r, 4)?,
        created_at: time(get(r, 5)?)?,
        last_used_at: get::<Option<i64>>(r, 6)?.map(time).transpose()?,
        settings: json(&get::<String>(r, 7)?, "key settings")?,
        name: get(r, 8)?,
        last_four: get(r, 9)?,
        created_by: get::<Option<String>>(r, 10)?
            .map(|t| KeyCreator::from_stored(&t).ok_or_else(|| corrupt("created_by")))
            .transpose()?,
    })
}

impl KeyReads for SqlTx<'_> {
    fn key(&self, id: KeyId) -> Result<Option<ApiKey>, StoreError> {
        let sql = format!("SELECT {KEY_COLS} FROM api_keys WHERE id = ?1");
        self.one(&sql, [&id.as_uuid().as_bytes()[..]], key_from)
    }

    fn key_by_hash(&self, hash: &KeyHash) -> Result<Option<ApiKey>, StoreError> {
        let sql = format!("SELECT {KEY_COLS} FROM api_keys WHERE hash = ?1");
        self.one(&sql, [&hash.0[..]], key_from)
    }

    fn keys_of(&self, account: AccountId) -> Result<Vec<ApiKey>, StoreError> {
        let sql = format!(
            "SELECT {KEY_COLS} FROM api_keys WHERE account_id = ?1 ORDER BY created_at, id"
        );
        self.all(&sql, [&account.as_uuid().as_bytes()[..]], key_from)
    }
}

impl KeyWrites for SqlTx<'_> {
    fn insert_key(&mut self, k: &ApiKey) -> Result<(), StoreError> {
        self.exec(
            "INSERT INTO api_keys (id, account_id, mode, hash, display_prefix, created_at, last_used_at, settings, name, last_four, created_by)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
            params![
                &k.id.as_uuid().as_bytes()[..],
                &k.account_id.as_uuid().as_bytes()[..],
                k.mode.as_str(),
                &k.hash.0[..],
                k.display_prefix,
                micros(k.created_at),
                k.last_used_at.map(micros),
                to_json(&k.settings)?,
                k.name,
                k.last_four,
                k.created_by.map(KeyCreator::as_stored)
            ],
        )?;
        Ok(())
    }

    fn update_key(&mut self, k: &ApiKey) -> Result<bool, StoreError> {
        let n = self.exec(
            "UPDATE api_keys SET hash = ?2, display_prefix = ?3, settings = ?4, name = ?5, last_four = ?6 WHERE id = ?1",
            params![
                &k.id.as_uuid().as_bytes()[..],
                &k.hash.0[..],
                k.display_prefix,
                to_json(&k.settings)?,
                k.name,
                k.last_four
            ],
        )?;
        Ok(n > 0)
    }

    fn delete_key(&mut self, id: KeyId) -> Result<bool, StoreError> {
        Ok(self.exec(
            "DELETE FROM api_keys WHERE id = ?1",
            [&id.as_uuid().as_bytes()[..]],
        )? > 0)
    }

    fn touch_keys(&mut self, used: &[(KeyId, DateTime<Utc>)]) -> Result<(), StoreError> {
        for (id, at) in used {
            self.exec(
                "UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, ?2), ?2) WHERE id = ?1",
                params![&id.as_uuid().as_bytes()[..], micros(*at)],
            )?;
        }
        Ok(())
    }
}

/// Version 13: who made each key (`KeyCreator::as_stored`; NULL for keys made before).
pub(crate) const V13_KEY_CREATORS: &str = "ALTER TABLE api_keys ADD COLUMN created_by TEXT;";
