//! The log of account and key changes (schema version 8): triggers write one row per changed account or key with the configuration version it moved to, so every process sharing the file drops just the cached keys a change concerns.

use qr_domain::accounts::config_change::{ConfigChange, ConfigChanges};
use qr_domain::accounts::key::KeyHash;
use qr_domain::{AccountId, KeyId, StoreError};
use rusqlite::Connection;

use crate::error::store_err;
use crate::scans;
use crate::tx::{corrupt, get, uuid};

/// Versions the log keeps: each change deletes the rows this many versions older than itself.
/// A process is behind by the changes made since its last request (a few, or some thousands
/// when an account with thousands of keys is deleted); one further behind drops its whole key
/// cache once. Written as a number in [`V8_CONFIG_CHANGES`]'s triggers too.
pub(crate) const KEPT_VERSIONS: u64 = 4096;

/// Version 8: the change log, and the account and key triggers of version 1 replaced by ones
/// that also write it (each still moves the version by one per row). A key's row carries the
/// hash of its secret after the change (before it, for a deletion); an account's row its id.
/// Webhooks keep their version-1 style triggers: they change no cached key, so they move the
/// version without a row.
pub(crate) const V8_CONFIG_CHANGES: &str = r"
CREATE TABLE config_changes (
    version INTEGER PRIMARY KEY,
    account_id BLOB,
    key_id BLOB,
    key_hash BLOB
);
DROP TRIGGER accounts_insert;
DROP TRIGGER accounts_update;
DROP TRIGGER accounts_delete;
DROP TRIGGER api_keys_insert;
DROP TRIGGER api_keys_update;
DROP TRIGGER api_keys_delete;
CREATE TRIGGER accounts_insert AFTER INSERT ON accounts BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'config_version';
    INSERT INTO config_changes (version, account_id)
        SELECT value, NEW.id FROM meta WHERE key = 'config_version';
    DELETE FROM config_changes
        WHERE version <= (SELECT value FROM meta WHERE key = 'config_version') - 4096;
END;
CREATE TRIGGER accounts_update AFTER UPDATE ON accounts BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'config_version';
    INSERT INTO config_changes (version, account_id)
        SELECT value, NEW.id FROM meta WHERE key = 'config_version';
    DELETE FROM config_changes
        WHERE version <= (SELECT value FROM meta WHERE key = 'config_version') - 4096;
END;
CREATE TRIGGER accounts_delete AFTER DELETE ON accounts BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'config_version';
    INSERT INTO config_changes (version, account_id)
        SELECT value, OLD.id FROM meta WHERE key = 'config_version';
    DELETE FROM config_changes
        WHERE version <= (SELECT value FROM meta WHERE key = 'config_version') - 4096;
END;
CREATE TRIGGER api_keys_insert AFTER INSERT ON api_keys BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'config_version';
    INSERT INTO config_changes (version, key_id, key_hash)
        SELECT value, NEW.id, NEW.hash FROM meta WHERE key = 'config_version';
    DELETE FROM config_changes
        WHERE version <= (SELECT value FROM meta WHERE key = 'config_version') - 4096;
END;
CREATE TRIGGER api_keys_update AFTER UPDATE OF account_id, mode, hash, display_prefix, settings ON api_keys BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'config_version';
    INSERT INTO config_changes (version, key_id, key_hash)
        SELECT value, NEW.id, NEW.hash FROM meta WHERE key = 'config_version';
    DELETE FROM config_changes
        WHERE version <= (SELECT value FROM meta WHERE key = 'config_version') - 4096;
END;
CREATE TRIGGER api_keys_delete AFTER DELETE ON api_keys BEGIN
    UPDATE meta SET value = value + 1 WHERE key = 'config_version';
    INSERT INTO config_changes (version, key_id, key_hash)
        SELECT value, OLD.id, OLD.hash FROM meta WHERE key = 'config_version';
    DELETE FROM config_changes
        WHERE version <= (SELECT value FROM meta WHERE key = 'config_version') - 4096;
END;
";

/// The account and key changes after version `since`, read in one snapshot with the current
/// version.
pub(crate) fn changes_since(conn: &Connection, since: u64) -> Result<ConfigChanges, StoreError> {
    let snapshot = conn.unchecked_transaction().map_err(store_err)?;
    let version = scans::config_version(&snapshot)?;
    // Rows more than `KEPT_VERSIONS` behind the current version may be deleted.
    if since > version || version - since > KEPT_VERSIONS {
        return Ok(ConfigChanges::Unknown { version });
    }
    let mut statement = snapshot
        .prepare_cached(
            "SELECT account_id, key_id, key_hash FROM config_changes
             WHERE version > ?1 AND version <= ?2 ORDER BY version",
        )
        .map_err(store_err)?;
    let mut rows = statement
        .query([
            i64::try_from(since).unwrap_or(i64::MAX),
            i64::try_from(version).unwrap_or(i64::MAX),
        ])
        .map_err(store_err)?;
    let mut changes = Vec::new();
    while let Some(row) = rows.next().map_err(store_err)? {
        let account: Option<Vec<u8>> = get(row, 0)?;
        let key: Option<Vec<u8>> = get(row, 1)?;
        let hash: Option<Vec<u8>> = get(row, 2)?;
        changes.push(match (account, key, hash) {
            (_, Some(key), Some(hash)) => ConfigChange::Key {
                id: KeyId::from_uuid(uuid(&key)?),
                hash: KeyHash(hash.try_into().map_err(|_| corrupt("key_hash"))?),
            },
            (Some(account), None, None) => {
                ConfigChange::Account(AccountId::from_uuid(uuid(&account)?))
            }
            _ => return Err(corrupt("config_changes")),
        });
    }
    drop(rows);
    drop(statement);
    snapshot.commit().map_err(store_err)?;
    Ok(ConfigChanges::Listed { version, changes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_trigger_keeps_the_versions_the_reader_counts_on() {
        let pruned = format!("- {KEPT_VERSIONS};");
        assert_eq!(V8_CONFIG_CHANGES.matches(&pruned).count(), 6);
        assert_eq!(
            V8_CONFIG_CHANGES
                .matches("DELETE FROM config_changes")
                .count(),
            6
        );
    }
}
