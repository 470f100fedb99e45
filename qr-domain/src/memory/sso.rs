//! The in-memory store's single sign-on: settings by workspace, attempts by state, and identity links by issuer and subject (a link whose user is gone reads as none, as SQL's cascade deletes it).

use chrono::{DateTime, Utc};

use super::Data;
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};
use crate::sso::store::{SsoReads, SsoWrites, StoredSsoSettings};
use crate::sso::{SsoAttempt, StateToken};

impl SsoReads for Data {
    fn sso_settings(&self, account: AccountId) -> Result<Option<StoredSsoSettings>, StoreError> {
        Ok(self.sso_settings.get(&account).cloned())
    }

    fn sso_settings_for_domain(&self, domain: &str) -> Result<Vec<StoredSsoSettings>, StoreError> {
        let mut found: Vec<StoredSsoSettings> = self
            .sso_settings
            .values()
            .filter(|s| s.enabled && s.settings.allowed_domains.iter().any(|d| d == domain))
            .cloned()
            .collect();
        found.sort_by_key(|s| s.account_id);
        Ok(found)
    }

    fn sso_identity(&self, issuer: &str, subject: &str) -> Result<Option<UserId>, StoreError> {
        Ok(self
            .sso_identities
            .get(&(issuer.to_owned(), subject.to_owned()))
            .copied()
            .filter(|user| self.users.contains_key(user)))
    }
}

impl SsoWrites for Data {
    fn put_sso_settings(&mut self, settings: &StoredSsoSettings) -> Result<(), StoreError> {
        self.require_account(settings.account_id)?;
        self.sso_settings
            .insert(settings.account_id, settings.clone());
        Ok(())
    }

    fn insert_sso_attempt(
        &mut self,
        attempt: &SsoAttempt,
        expired_before: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.require_account(attempt.workspace())?;
        self.sso_attempts
            .retain(|_, a| a.created() >= expired_before);
        self.sso_attempts
            .insert(attempt.state().as_str().to_owned(), attempt.clone());
        Ok(())
    }

    fn take_sso_attempt(&mut self, state: &StateToken) -> Result<Option<SsoAttempt>, StoreError> {
        Ok(self.sso_attempts.remove(state.as_str()))
    }

    fn link_sso_identity(
        &mut self,
        issuer: &str,
        subject: &str,
        user: UserId,
        _at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.require_user(user)?;
        let key = (issuer.to_owned(), subject.to_owned());
        if let Some(linked) = self.sso_identities.get(&key)
            && self.users.contains_key(linked)
        {
            return Err(StoreError::Conflict(format!(
                "the identity {subject} of {issuer} is linked to user {linked}"
            )));
        }
        self.sso_identities.insert(key, user);
        Ok(())
    }
}

/// Removes a deleted workspace's settings and attempts.
pub(super) fn forget_account(data: &mut Data, account: AccountId) {
    data.sso_settings.remove(&account);
    data.sso_attempts.retain(|_, a| a.workspace() != account);
}
