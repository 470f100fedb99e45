//! The storage traits of passkeys: the registered passkeys of users, and the ceremonies in flight (taken once).

use chrono::{DateTime, Utc};

use super::ceremony::Ceremony;
use super::credential::{CredentialId, Passkey, PasskeyData};
use crate::dashboard::token::TokenHash;
use crate::error::StoreError;
use crate::ids::UserId;

/// Passkey reads, available in every transaction.
pub trait PasskeyReads {
    /// The user's passkeys, oldest first (ties by credential id).
    fn passkeys_of(&self, user: UserId) -> Result<Vec<Passkey>, StoreError>;
    /// The passkey with this credential id, whoever's it is.
    fn passkey(&self, id: &CredentialId) -> Result<Option<Passkey>, StoreError>;
}

/// Passkey writes, available in write transactions.
pub trait PasskeyWrites {
    /// Adds a passkey. The user must exist and no passkey may have its credential id
    /// ([`StoreError::Conflict`] otherwise); deleting the user deletes it.
    fn insert_passkey(&mut self, passkey: &Passkey) -> Result<(), StoreError>;
    /// Stores the record and the time of a passkey's use (a login); `false` if there is no
    /// passkey with this id.
    fn record_passkey_use(
        &mut self,
        id: &CredentialId,
        data: &PasskeyData,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError>;
    /// Deletes the user's passkey with this id; `false` if the user has none with it (another
    /// user's passkey is never touched).
    fn delete_passkey(&mut self, user: UserId, id: &CredentialId) -> Result<bool, StoreError>;
    /// Keeps a ceremony. A named user must exist ([`StoreError::Conflict`] otherwise);
    /// deleting the user deletes it.
    fn insert_ceremony(&mut self, ceremony: &Ceremony) -> Result<(), StoreError>;
    /// Removes and returns the ceremony with this hash (single use, even across servers),
    /// expired or not.
    fn take_ceremony(&mut self, hash: &TokenHash) -> Result<Option<Ceremony>, StoreError>;
    /// Deletes the ceremonies that expired before `now`; returns how many.
    fn prune_ceremonies(&mut self, now: DateTime<Utc>) -> Result<u64, StoreError>;
}
