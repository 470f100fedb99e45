//! API keys in SQL: lookups by id, by hash or by account, and writing a key's secret hash, names, settings, creator and last use (adding, changing or removing a key marks the configuration as changed).

use chrono::{DateTime, Utc};
use postgres::Row;
use qr_domain::accounts::config_change::ConfigChange;
use qr_domain::accounts::key::{KeyCreator, KeyHash};
use qr_domain::store::{KeyReads, KeyWrites};
use qr_domain::{AccountId, ApiKey, KeyId, KeyMode, StoreError};
use uuid::Uuid;

use crate::tx::{PgTx, corrupt, get, json, to_json};

const KEY_COLS: &str = "id, account_id, mode, hash, display_prefix, created_at, last_used_at, settings, name, last_four, created_by";

fn key_from(r: &Row) -> Result<ApiKey, StoreError> {
    let hash: &[u8] = get(r, 3, "hash")?;
    Ok(ApiKey {
        id: KeyId::from_uuid(get(r, 0, "id")?),
        account_id: AccountId::from_uuid(get(r, 1, "account_id")?),
        mode: KeyMode::parse(get(r, 2, "mode")?).ok_or_else(|| corrupt("mode"))?,
        hash: KeyHash(hash.try_into().map_err(|_| corrupt("hash"))?),
        display_prefix: get(r, 4, "display_prefix")?,
        created_at: get(r, 5, "created_at")?,
        last_used_at: get(r, 6, "last_used_at")?,
        settings: json(get(r, 7, "settings")?, "key settings")?,
        name: get(r, 8, "name")?,
        last_four: get(r, 9, "last_four")?,
        created_by: get::<Option<&str>>(r, 10, "created_by")?
            .map(|t| KeyCreator::from_stored(t).ok_or_else(|| corrupt("created_by")))
            .transpose()?,
    })
}

impl KeyReads for PgTx<'_> {
    fn key(&self, id: KeyId) -> Result<Option<ApiKey>, StoreError> {
        let sql = format!("SELECT {KEY_COLS} FROM api_keys WHERE id = $1");
        self.one(&sql, &[&id.as_uuid()], key_from)
    }

    fn key_by_hash(&self, hash: &KeyHash) -> Result<Option<ApiKey>, StoreError> {
        let sql = format!("SELECT {KEY_COLS} FROM api_keys WHERE hash = $1");
        self.one(&sql, &[&&hash.0[..]], key_from)
    }

    fn keys_of(&self, account: AccountId) -> Result<Vec<ApiKey>, StoreError> {
        let sql = format!(
            "SELECT {KEY_COLS} FROM api_keys WHERE account_id = $1 ORDER BY created_at, id"
        );
        self.all(&sql, &[&account.as_uuid()], key_from)
    }
}

impl KeyWrites for PgTx<'_> {
    fn insert_key(&mut self, k: &ApiKey) -> Result<(), StoreError> {
        self.config_write_of(ConfigChange::Key {
            id: k.id,
            hash: k.hash,
        });
        self.exec(
            "INSERT INTO api_keys (id, account_id, mode, hash, display_prefix, created_at, last_used_at, settings, name, last_four, created_by)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            &[
                &k.id.as_uuid(),
                &k.account_id.as_uuid(),
                &k.mode.as_str(),
                &&k.hash.0[..],
                &k.display_prefix,
                &k.created_at,
                &k.last_used_at,
                &to_json(&k.settings)?,
                &k.name,
                &k.last_four,
                &k.created_by.map(KeyCreator::as_stored),
            ],
        )?;
        Ok(())
    }

    fn update_key(&mut self, k: &ApiKey) -> Result<bool, StoreError> {
        self.config_write_of(ConfigChange::Key {
            id: k.id,
            hash: k.hash,
        });
        let n = self.exec(
            "UPDATE api_keys SET hash = $2, display_prefix = $3, settings = $4, name = $5, last_four = $6
             WHERE id = $1",
            &[
                &k.id.as_uuid(),
                &&k.hash.0[..],
                &k.display_prefix,
                &to_json(&k.settings)?,
                &k.name,
                &k.last_four,
            ],
        )?;
        Ok(n > 0)
    }

    fn delete_key(&mut self, id: KeyId) -> Result<bool, StoreError> {
        self.config_write();
        let removed = self.one(
            "DELETE FROM api_keys WHERE id = $1 RETURNING hash",
            &[&id.as_uuid()],
            |r| {
                let hash: Vec<u8> = get(r, 0, "hash")?;
                Ok(KeyHash(hash.try_into().map_err(|_| corrupt("hash"))?))
            },
        )?;
        if let Some(hash) = removed {
            self.changes
                .borrow_mut()
                .push(ConfigChange::Key { id, hash });
        }
        Ok(removed.is_some())
    }

    fn touch_keys(&mut self, used: &[(KeyId, DateTime<Utc>)]) -> Result<(), StoreError> {
        if used.is_empty() {
            return Ok(());
        }
        let (ids, times): (Vec<Uuid>, Vec<DateTime<Utc>>) =
            used.iter().map(|(id, at)| (id.as_uuid(), *at)).unzip();
        self.exec(
            "UPDATE api_keys SET last_used_at = greatest(coalesce(last_used_at, u.at), u.at)
             FROM unnest($1::uuid[], $2::timestamptz[]) AS u(id, at) WHERE api_keys.id = u.id",
            &[&ids, &times],
        )?;
        Ok(())
    }
}

/// Version 15: who made each key (`KeyCreator::as_stored`; NULL for keys made before).
pub(crate) const V15_KEY_CREATORS: &str = "ALTER TABLE api_keys ADD COLUMN created_by TEXT;";
