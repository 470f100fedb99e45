//! The in-memory store's users and their memberships of workspaces; deleting a user deletes their memberships, sessions, tokens and second factor.

use super::{Data, oldest_first};
use crate::accounts::account::Email;
use crate::accounts::user::{Membership, User};
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};
use crate::store::{UserReads, UserWrites};

impl Data {
    /// Records `user`'s login address as theirs, unless another user has it.
    fn claim_user_email(&mut self, user: &User) -> Result<(), StoreError> {
        let key = user.email.lookup_key();
        match self.user_emails.get(&key) {
            Some(owner) if *owner != user.id => Err(StoreError::Conflict(format!(
                "the e-mail address {} belongs to user {owner}",
                user.email
            ))),
            _ => {
                self.user_emails.insert(key, user.id);
                Ok(())
            }
        }
    }
}

impl UserReads for Data {
    fn user(&self, id: UserId) -> Result<Option<User>, StoreError> {
        Ok(self.users.get(&id).cloned())
    }

    fn user_by_email(&self, email: &Email) -> Result<Option<User>, StoreError> {
        Ok(self
            .user_emails
            .get(&email.lookup_key())
            .and_then(|id| self.users.get(id))
            .cloned())
    }

    fn users(&self) -> Result<Vec<User>, StoreError> {
        Ok(oldest_first(self.users.values().cloned().collect(), |u| {
            (u.created_at, u.id.as_uuid())
        }))
    }

    fn membership(
        &self,
        account: AccountId,
        user: UserId,
    ) -> Result<Option<Membership>, StoreError> {
        Ok(self.memberships.get(&(account, user)).copied())
    }

    fn memberships_of_user(&self, user: UserId) -> Result<Vec<Membership>, StoreError> {
        let mut v: Vec<Membership> = self
            .memberships
            .values()
            .filter(|m| m.user_id == user)
            .copied()
            .collect();
        v.sort_by_key(|m| (m.created_at, m.account_id));
        Ok(v)
    }

    fn members_of(&self, account: AccountId) -> Result<Vec<Membership>, StoreError> {
        let mut v: Vec<Membership> = self
            .memberships
            .range((account, UserId::from_uuid(uuid::Uuid::nil()))..)
            .take_while(|((a, _), _)| *a == account)
            .map(|(_, m)| *m)
            .collect();
        v.sort_by_key(|m| (m.created_at, m.user_id));
        Ok(v)
    }
}

impl UserWrites for Data {
    fn insert_user(&mut self, user: &User) -> Result<(), StoreError> {
        if self.users.contains_key(&user.id) {
            return Err(StoreError::Conflict(format!("user {} exists", user.id)));
        }
        self.claim_user_email(user)?;
        self.users.insert(user.id, user.clone());
        Ok(())
    }

    fn update_user(&mut self, user: &User) -> Result<bool, StoreError> {
        let Some(old) = self.users.get(&user.id).map(|u| u.email.lookup_key()) else {
            return Ok(false);
        };
        self.claim_user_email(user)?;
        if old != user.email.lookup_key() {
            self.user_emails.remove(&old);
        }
        if let Some(slot) = self.users.get_mut(&user.id) {
            *slot = User {
                id: slot.id,
                created_at: slot.created_at,
                ..user.clone()
            };
        }
        Ok(true)
    }

    fn delete_user(&mut self, user: UserId) -> Result<bool, StoreError> {
        let Some(removed) = self.users.remove(&user) else {
            return Ok(false);
        };
        self.user_emails.remove(&removed.email.lookup_key());
        self.memberships.retain(|(_, u), _| *u != user);
        self.sessions.retain(|_, s| s.user_id != user);
        self.tokens.retain(|_, t| t.user_id != user);
        self.two_factors.remove(&user);
        self.passkeys.retain(|_, p| p.user_id != user);
        self.passkey_ceremonies
            .retain(|_, c| c.user_id != Some(user));
        Ok(true)
    }

    fn put_membership(&mut self, membership: &Membership) -> Result<(), StoreError> {
        self.require_user(membership.user_id)?;
        self.require_account(membership.account_id)?;
        let key = (membership.account_id, membership.user_id);
        let created_at = self
            .memberships
            .get(&key)
            .map_or(membership.created_at, |m| m.created_at);
        self.memberships.insert(
            key,
            Membership {
                created_at,
                ..*membership
            },
        );
        Ok(())
    }

    fn delete_membership(&mut self, account: AccountId, user: UserId) -> Result<bool, StoreError> {
        Ok(self.memberships.remove(&(account, user)).is_some())
    }
}
