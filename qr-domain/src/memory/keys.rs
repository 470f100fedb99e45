//! The in-memory store's API keys.

use chrono::{DateTime, Utc};

use super::{Data, oldest_first};
use crate::accounts::config_change::ConfigChange;
use crate::accounts::key::{ApiKey, KeyHash};
use crate::error::StoreError;
use crate::ids::{AccountId, KeyId};
use crate::store::{KeyReads, KeyWrites};

impl KeyReads for Data {
    fn key(&self, id: KeyId) -> Result<Option<ApiKey>, StoreError> {
        Ok(self.keys.get(&id).cloned())
    }

    fn key_by_hash(&self, hash: &KeyHash) -> Result<Option<ApiKey>, StoreError> {
        Ok(self.keys.values().find(|k| k.hash == *hash).cloned())
    }

    fn keys_of(&self, account: AccountId) -> Result<Vec<ApiKey>, StoreError> {
        let keys = self
            .keys
            .values()
            .filter(|k| k.account_id == account)
            .cloned()
            .collect();
        Ok(oldest_first(keys, |k| (k.created_at, k.id.as_uuid())))
    }
}

impl KeyWrites for Data {
    fn insert_key(&mut self, key: &ApiKey) -> Result<(), StoreError> {
        if !self.accounts.contains_key(&key.account_id) {
            return Err(StoreError::Conflict(format!(
                "account {} does not exist",
                key.account_id
            )));
        }
        if self.keys.contains_key(&key.id) || self.keys.values().any(|k| k.hash == key.hash) {
            return Err(StoreError::Conflict(format!("key {} exists", key.id)));
        }
        self.keys.insert(key.id, key.clone());
        self.config_changed_by(ConfigChange::Key {
            id: key.id,
            hash: key.hash,
        });
        Ok(())
    }

    fn update_key(&mut self, key: &ApiKey) -> Result<bool, StoreError> {
        if self
            .keys
            .values()
            .any(|k| k.hash == key.hash && k.id != key.id)
        {
            return Err(StoreError::Conflict("key hash in use".to_owned()));
        }
        let Some(slot) = self.keys.get_mut(&key.id) else {
            return Ok(false);
        };
        slot.hash = key.hash;
        slot.display_prefix = key.display_prefix.clone();
        slot.last_four = key.last_four.clone();
        slot.name = key.name.clone();
        slot.settings = key.settings.clone();
        self.config_changed_by(ConfigChange::Key {
            id: key.id,
            hash: key.hash,
        });
        Ok(true)
    }

    fn delete_key(&mut self, id: KeyId) -> Result<bool, StoreError> {
        let Some(removed) = self.keys.remove(&id) else {
            return Ok(false);
        };
        self.config_changed_by(ConfigChange::Key {
            id,
            hash: removed.hash,
        });
        Ok(true)
    }

    fn touch_keys(&mut self, used: &[(KeyId, DateTime<Utc>)]) -> Result<(), StoreError> {
        for (id, at) in used {
            if let Some(k) = self.keys.get_mut(id) {
                k.last_used_at = Some(k.last_used_at.map_or(*at, |old| old.max(*at)));
            }
        }
        Ok(())
    }
}
