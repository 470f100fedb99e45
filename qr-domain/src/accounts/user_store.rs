//! The storage traits of users and their memberships of workspaces.

use crate::accounts::account::Email;
use crate::accounts::user::{Membership, User};
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};

/// User reads, available in every transaction.
pub trait UserReads {
    /// The user with this id.
    fn user(&self, id: UserId) -> Result<Option<User>, StoreError>;
    /// The user with this login address, compared by [`Email::lookup_key`].
    fn user_by_email(&self, email: &Email) -> Result<Option<User>, StoreError>;
    /// All users, oldest first.
    fn users(&self) -> Result<Vec<User>, StoreError>;
    /// The membership of `user` in `account`, if they belong to it.
    fn membership(
        &self,
        account: AccountId,
        user: UserId,
    ) -> Result<Option<Membership>, StoreError>;
    /// The workspaces a user belongs to, oldest membership first.
    fn memberships_of_user(&self, user: UserId) -> Result<Vec<Membership>, StoreError>;
    /// The members of a workspace, oldest first.
    fn members_of(&self, account: AccountId) -> Result<Vec<Membership>, StoreError>;
}

/// User writes, available in write transactions.
pub trait UserWrites {
    /// Adds a user. A login address another user has is a [`StoreError::Conflict`].
    fn insert_user(&mut self, user: &User) -> Result<(), StoreError>;
    /// Replaces a user's address, password hash, verification time and role; `false` if there
    /// is no such user. An address another user has is a [`StoreError::Conflict`].
    fn update_user(&mut self, user: &User) -> Result<bool, StoreError>;
    /// Deletes a user with their memberships, sessions and tokens; `false` if there is none.
    fn delete_user(&mut self, user: UserId) -> Result<bool, StoreError>;
    /// Adds a membership or changes its role. The user and the workspace must exist
    /// ([`StoreError::Conflict`] otherwise).
    fn put_membership(&mut self, membership: &Membership) -> Result<(), StoreError>;
    /// Removes a membership; `false` if there was none.
    fn delete_membership(&mut self, account: AccountId, user: UserId) -> Result<bool, StoreError>;
}
