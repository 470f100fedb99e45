//! The storage traits of API keys: an account's keys, found by id or by the hash of their secret.

use chrono::{DateTime, Utc};

use crate::accounts::key::{ApiKey, KeyHash};
use crate::error::StoreError;
use crate::ids::{AccountId, KeyId};

/// Key reads, available in every transaction.
pub trait KeyReads {
    /// The key with this id.
    fn key(&self, id: KeyId) -> Result<Option<ApiKey>, StoreError>;
    /// The key whose current secret has this hash.
    fn key_by_hash(&self, hash: &KeyHash) -> Result<Option<ApiKey>, StoreError>;
    /// The keys of an account, oldest first.
    fn keys_of(&self, account: AccountId) -> Result<Vec<ApiKey>, StoreError>;
}

/// Key writes, available in write transactions.
pub trait KeyWrites {
    /// Adds a key.
    fn insert_key(&mut self, key: &ApiKey) -> Result<(), StoreError>;
    /// Replaces a key's hash, display prefix, last four characters, name and settings; `false` if
    /// there is no such key.
    fn update_key(&mut self, key: &ApiKey) -> Result<bool, StoreError>;
    /// Removes a key; `false` if there is no such key.
    fn delete_key(&mut self, id: KeyId) -> Result<bool, StoreError>;
    /// Records last-use times (a later time never moves backwards).
    fn touch_keys(&mut self, used: &[(KeyId, DateTime<Utc>)]) -> Result<(), StoreError>;
}
