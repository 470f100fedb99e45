//! The in-memory store's passkeys and passkey ceremonies.

use chrono::{DateTime, Utc};

use super::Data;
use crate::dashboard::token::TokenHash;
use crate::error::StoreError;
use crate::ids::UserId;
use crate::passkeys::ceremony::Ceremony;
use crate::passkeys::credential::{CredentialId, Passkey, PasskeyData};
use crate::store::{PasskeyReads, PasskeyWrites};

impl PasskeyReads for Data {
    fn passkeys_of(&self, user: UserId) -> Result<Vec<Passkey>, StoreError> {
        let mut v: Vec<Passkey> = self
            .passkeys
            .values()
            .filter(|p| p.user_id == user)
            .cloned()
            .collect();
        v.sort_by(|a, b| (a.created_at, &a.credential_id).cmp(&(b.created_at, &b.credential_id)));
        Ok(v)
    }

    fn passkey(&self, id: &CredentialId) -> Result<Option<Passkey>, StoreError> {
        Ok(self.passkeys.get(id).cloned())
    }
}

impl PasskeyWrites for Data {
    fn insert_passkey(&mut self, passkey: &Passkey) -> Result<(), StoreError> {
        self.require_user(passkey.user_id)?;
        if self.passkeys.contains_key(&passkey.credential_id) {
            return Err(StoreError::Conflict(
                "a passkey with this credential id exists".to_owned(),
            ));
        }
        self.passkeys
            .insert(passkey.credential_id.clone(), passkey.clone());
        Ok(())
    }

    fn record_passkey_use(
        &mut self,
        id: &CredentialId,
        data: &PasskeyData,
        at: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        Ok(match self.passkeys.get_mut(id) {
            Some(p) => {
                p.data = data.clone();
                p.last_used_at = Some(at);
                true
            }
            None => false,
        })
    }

    fn delete_passkey(&mut self, user: UserId, id: &CredentialId) -> Result<bool, StoreError> {
        if self.passkeys.get(id).is_some_and(|p| p.user_id == user) {
            self.passkeys.remove(id);
            return Ok(true);
        }
        Ok(false)
    }

    fn insert_ceremony(&mut self, ceremony: &Ceremony) -> Result<(), StoreError> {
        if let Some(user) = ceremony.user_id {
            self.require_user(user)?;
        }
        self.passkey_ceremonies
            .insert(ceremony.hash, ceremony.clone());
        Ok(())
    }

    fn take_ceremony(&mut self, hash: &TokenHash) -> Result<Option<Ceremony>, StoreError> {
        Ok(self.passkey_ceremonies.remove(hash))
    }

    fn prune_ceremonies(&mut self, now: DateTime<Utc>) -> Result<u64, StoreError> {
        let before = self.passkey_ceremonies.len();
        self.passkey_ceremonies.retain(|_, c| c.expires_at >= now);
        Ok((before - self.passkey_ceremonies.len()) as u64)
    }
}
