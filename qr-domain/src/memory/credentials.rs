//! The in-memory store's credentials: sessions, one-time tokens, second factors and the workspaces requiring one.

use chrono::{DateTime, Utc};

use super::Data;
use crate::dashboard::session::{Session, SessionHash};
use crate::dashboard::token::{OneTimeToken, TokenHash};
use crate::dashboard::two_factor::TwoFactor;
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};
use crate::store::{CredentialReads, CredentialWrites};

impl CredentialReads for Data {
    fn session(&self, hash: &SessionHash) -> Result<Option<Session>, StoreError> {
        Ok(self.sessions.get(hash).cloned())
    }

    fn sessions_of(&self, user: UserId) -> Result<Vec<Session>, StoreError> {
        let mut v: Vec<Session> = self
            .sessions
            .values()
            .filter(|s| s.user_id == user)
            .cloned()
            .collect();
        v.sort_by_key(|s| (s.created_at, s.hash));
        Ok(v)
    }

    fn two_factor(&self, user: UserId) -> Result<Option<TwoFactor>, StoreError> {
        Ok(self.two_factors.get(&user).cloned())
    }

    fn two_factor_required(&self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self.two_factor_required.contains_key(&account))
    }
}

impl CredentialWrites for Data {
    fn insert_token(&mut self, token: &OneTimeToken) -> Result<(), StoreError> {
        self.require_user(token.user_id)?;
        self.tokens
            .retain(|_, t| !(t.user_id == token.user_id && t.purpose == token.purpose));
        self.tokens.insert(token.hash, token.clone());
        Ok(())
    }

    fn take_token(&mut self, hash: &TokenHash) -> Result<Option<OneTimeToken>, StoreError> {
        Ok(self.tokens.remove(hash))
    }

    fn save_session(&mut self, session: &Session) -> Result<(), StoreError> {
        self.require_user(session.user_id)?;
        if let Some(account) = session.account_id {
            self.require_account(account)?;
        }
        self.sessions.insert(session.hash, session.clone());
        Ok(())
    }

    fn delete_session(&mut self, hash: &SessionHash) -> Result<bool, StoreError> {
        Ok(self.sessions.remove(hash).is_some())
    }

    fn delete_sessions_of(
        &mut self,
        user: UserId,
        keep: Option<&SessionHash>,
    ) -> Result<u64, StoreError> {
        let before = self.sessions.len();
        self.sessions
            .retain(|h, s| s.user_id != user || Some(h) == keep);
        Ok((before - self.sessions.len()) as u64)
    }

    fn put_two_factor(&mut self, factor: &TwoFactor) -> Result<(), StoreError> {
        self.require_user(factor.user_id)?;
        self.two_factors.insert(factor.user_id, factor.clone());
        Ok(())
    }

    fn delete_two_factor(&mut self, user: UserId) -> Result<bool, StoreError> {
        Ok(self.two_factors.remove(&user).is_some())
    }

    fn require_two_factor(
        &mut self,
        account: AccountId,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        self.require_account(account)?;
        self.two_factor_required.entry(account).or_insert(at);
        Ok(())
    }

    fn stop_requiring_two_factor(&mut self, account: AccountId) -> Result<bool, StoreError> {
        Ok(self.two_factor_required.remove(&account).is_some())
    }

    fn prune_credentials(
        &mut self,
        now: DateTime<Utc>,
        seen_before: DateTime<Utc>,
        created_before: DateTime<Utc>,
    ) -> Result<u64, StoreError> {
        let before = self.tokens.len() + self.sessions.len();
        self.tokens.retain(|_, t| t.expires_at >= now);
        self.sessions
            .retain(|_, s| s.last_seen_at >= seen_before && s.created_at >= created_before);
        Ok((before - self.tokens.len() - self.sessions.len()) as u64)
    }
}
