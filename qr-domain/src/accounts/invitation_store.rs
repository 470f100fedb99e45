//! The storage traits of invitations to workspaces: pending invitations by workspace, id, token hash and invited address.

use crate::accounts::account::Email;
use crate::accounts::invitations::Invitation;
use crate::dashboard::token::TokenHash;
use crate::error::StoreError;
use crate::ids::{AccountId, InvitationId};

/// Invitation reads, available in every transaction.
pub trait InvitationReads {
    /// The invitation `id` of `account` (another workspace's is absent).
    fn invitation(
        &self,
        account: AccountId,
        id: InvitationId,
    ) -> Result<Option<Invitation>, StoreError>;
    /// The invitation whose current token has this hash, expired or not (the service decides).
    fn invitation_by_token(&self, hash: &TokenHash) -> Result<Option<Invitation>, StoreError>;
    /// The invitation of `account` to this address, compared by [`Email::lookup_key`].
    fn invitation_to(
        &self,
        account: AccountId,
        email: &Email,
    ) -> Result<Option<Invitation>, StoreError>;
    /// The invitations of a workspace, oldest first.
    fn invitations_of(&self, account: AccountId) -> Result<Vec<Invitation>, StoreError>;
}

/// Invitation writes, available in write transactions.
pub trait InvitationWrites {
    /// Adds an invitation, or changes the role, token and expiry of the one with its id (a
    /// resend; its workspace, address and creation time stay).
    /// The workspace must exist, and one workspace invites an address once
    /// ([`StoreError::Conflict`] otherwise).
    fn put_invitation(&mut self, invitation: &Invitation) -> Result<(), StoreError>;
    /// Removes an invitation of `account`; `false` if there is none.
    fn delete_invitation(
        &mut self,
        account: AccountId,
        id: InvitationId,
    ) -> Result<bool, StoreError>;
}
