//! Users: the people who log in (e-mail address, password, verification, the operator's role for them) and belong to workspaces through memberships.

use chrono::{DateTime, Utc};

use crate::accounts::account::{Email, Role};
use crate::accounts::permissions::MemberRole;
use crate::dashboard::password::PasswordHash;
use crate::ids::{AccountId, UserId};

/// A person who logs in to the dashboard. What they may do in a workspace is their
/// [`Membership`]'s role; what they may do to the service itself is their [`Role`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct User {
    /// The user's id (for users made from an account before workspaces, the account's id).
    pub id: UserId,
    /// The login address: one user per address, compared by [`Email::lookup_key`].
    pub email: Email,
    /// The dashboard password's hash; `None` until one is set (users the operator made).
    pub password_hash: Option<PasswordHash>,
    /// When the user proved the address (a verification or password-reset link), if ever.
    pub email_verified_at: Option<DateTime<Utc>>,
    /// What the user may do to the service: customer, admin of the admin pages, or its owner.
    pub role: Role,
    /// When the user was created.
    pub created_at: DateTime<Utc>,
}

/// A user's place in a workspace.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Membership {
    /// The workspace.
    pub account_id: AccountId,
    /// The member.
    pub user_id: UserId,
    /// What they may do there.
    pub role: MemberRole,
    /// When they joined.
    pub created_at: DateTime<Utc>,
}

impl User {
    /// A new customer without a password, not yet verified.
    pub fn new(id: UserId, email: Email, created_at: DateTime<Utc>) -> Self {
        Self {
            id,
            email,
            password_hash: None,
            email_verified_at: None,
            role: Role::Customer,
            created_at,
        }
    }

    /// Whether the user may use the admin pages.
    pub fn is_admin(&self) -> bool {
        self.role >= Role::Admin
    }

    /// Whether the address has been proved.
    pub fn is_verified(&self) -> bool {
        self.email_verified_at.is_some()
    }
}
