//! The in-memory store's invitations to workspaces: one per workspace and address, found by id, token hash or address; they go with their workspace.

use super::{Data, oldest_first};
use crate::accounts::account::Email;
use crate::accounts::invitations::Invitation;
use crate::dashboard::token::TokenHash;
use crate::error::StoreError;
use crate::ids::{AccountId, InvitationId};
use crate::store::{InvitationReads, InvitationWrites};

impl InvitationReads for Data {
    fn invitation(
        &self,
        account: AccountId,
        id: InvitationId,
    ) -> Result<Option<Invitation>, StoreError> {
        Ok(self
            .invitations
            .get(&id)
            .filter(|i| i.account_id == account)
            .cloned())
    }

    fn invitation_by_token(&self, hash: &TokenHash) -> Result<Option<Invitation>, StoreError> {
        Ok(self
            .invitations
            .values()
            .find(|i| i.token_hash == *hash)
            .cloned())
    }

    fn invitation_to(
        &self,
        account: AccountId,
        email: &Email,
    ) -> Result<Option<Invitation>, StoreError> {
        let key = email.lookup_key();
        Ok(self
            .invitations
            .values()
            .find(|i| i.account_id == account && i.email.lookup_key() == key)
            .cloned())
    }

    fn invitations_of(&self, account: AccountId) -> Result<Vec<Invitation>, StoreError> {
        let mine = self
            .invitations
            .values()
            .filter(|i| i.account_id == account)
            .cloned()
            .collect();
        Ok(oldest_first(mine, |i| (i.created_at, i.id.as_uuid())))
    }
}

impl InvitationWrites for Data {
    fn put_invitation(&mut self, invitation: &Invitation) -> Result<(), StoreError> {
        self.require_account(invitation.account_id)?;
        let key = invitation.email.lookup_key();
        if let Some(other) = self.invitations.values().find(|i| {
            i.id != invitation.id
                && ((i.account_id == invitation.account_id && i.email.lookup_key() == key)
                    || i.token_hash == invitation.token_hash)
        }) {
            return Err(StoreError::Conflict(format!(
                "invitation {} has this address or token",
                other.id
            )));
        }
        // A resend changes the role, token and expiry; the workspace, address and first
        // sending stay.
        let stored = match self.invitations.get(&invitation.id) {
            Some(old) => Invitation {
                role: invitation.role,
                token_hash: invitation.token_hash,
                expires_at: invitation.expires_at,
                ..old.clone()
            },
            None => invitation.clone(),
        };
        self.invitations.insert(invitation.id, stored);
        Ok(())
    }

    fn delete_invitation(
        &mut self,
        account: AccountId,
        id: InvitationId,
    ) -> Result<bool, StoreError> {
        if self.invitation(account, id)?.is_none() {
            return Ok(false);
        }
        Ok(self.invitations.remove(&id).is_some())
    }
}
