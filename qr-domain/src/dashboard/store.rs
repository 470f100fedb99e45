//! The storage traits of the dashboard's credentials: sessions, one-time tokens, users' second factors and the workspaces that require one.

use chrono::{DateTime, Utc};

use crate::dashboard::session::{Session, SessionHash};
use crate::dashboard::token::{OneTimeToken, TokenHash};
use crate::dashboard::two_factor::TwoFactor;
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};

/// Credential reads, available in every transaction.
pub trait CredentialReads {
    /// The session with this hash, expired or not (the service decides).
    fn session(&self, hash: &SessionHash) -> Result<Option<Session>, StoreError>;
    /// The sessions of a user, oldest first.
    fn sessions_of(&self, user: UserId) -> Result<Vec<Session>, StoreError>;
    /// The user's second factor, confirmed or pending.
    fn two_factor(&self, user: UserId) -> Result<Option<TwoFactor>, StoreError>;
    /// Whether the workspace requires its members to have a second factor.
    fn two_factor_required(&self, account: AccountId) -> Result<bool, StoreError>;
}

/// Credential writes, available in write transactions.
pub trait CredentialWrites {
    /// Stores a one-time token, replacing any token of the same user and purpose (only the
    /// newest link works). The user must exist ([`StoreError::Conflict`] otherwise).
    fn insert_token(&mut self, token: &OneTimeToken) -> Result<(), StoreError>;
    /// Removes and returns the token with this hash (single use), expired or not.
    fn take_token(&mut self, hash: &TokenHash) -> Result<Option<OneTimeToken>, StoreError>;
    /// Adds a session, or replaces the one with the same hash (its last-seen time and the
    /// workspace it shows). The user, and the workspace when one is named, must exist
    /// ([`StoreError::Conflict`] otherwise).
    fn save_session(&mut self, session: &Session) -> Result<(), StoreError>;
    /// Removes one session; `false` if there is none with this hash.
    fn delete_session(&mut self, hash: &SessionHash) -> Result<bool, StoreError>;
    /// Removes every session of a user but `keep`; returns how many.
    fn delete_sessions_of(
        &mut self,
        user: UserId,
        keep: Option<&SessionHash>,
    ) -> Result<u64, StoreError>;
    /// Stores the user's second factor in place of any earlier one. The user must exist
    /// ([`StoreError::Conflict`] otherwise); deleting the user deletes it.
    fn put_two_factor(&mut self, factor: &TwoFactor) -> Result<(), StoreError>;
    /// Deletes the user's second factor; `false` if there was none.
    fn delete_two_factor(&mut self, user: UserId) -> Result<bool, StoreError>;
    /// Marks the workspace as requiring a second factor of its members, from `at` (kept if it
    /// already does). The workspace must exist ([`StoreError::Conflict`] otherwise); deleting it
    /// deletes the mark.
    fn require_two_factor(
        &mut self,
        account: AccountId,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Removes the mark; `false` if the workspace did not require a second factor.
    fn stop_requiring_two_factor(&mut self, account: AccountId) -> Result<bool, StoreError>;
    /// Deletes tokens that expired before `now`, and sessions last seen before `seen_before` or
    /// created before `created_before`; returns how many records went.
    fn prune_credentials(
        &mut self,
        now: DateTime<Utc>,
        seen_before: DateTime<Utc>,
        created_before: DateTime<Utc>,
    ) -> Result<u64, StoreError>;
}
