//! The storage traits of single sign-on: a workspace's settings, the sign-in attempts in progress (taken out as they are read, so each completes once across every server), and the links from a provider's subject to a user.

use chrono::{DateTime, Utc};

use super::attempt::{SsoAttempt, StateToken};
use super::settings::{IssuerAddresses, SsoSettings, SsoSettingsInput};
use crate::error::StoreError;
use crate::ids::{AccountId, UserId};

/// A workspace's stored single sign-on configuration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredSsoSettings {
    /// The workspace.
    pub account_id: AccountId,
    /// Whether people may sign in with it; disabling keeps the fields (the secret included) so
    /// turning it back on needs no new secret.
    pub enabled: bool,
    /// The validated fields.
    pub settings: SsoSettings,
    /// When they were last saved.
    pub updated_at: DateTime<Utc>,
}

impl StoredSsoSettings {
    /// The allowed e-mail domains as stored: separated by single spaces, in order.
    pub fn domains_text(&self) -> String {
        self.settings
            .allowed_domains
            .iter()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Settings read back from a store's columns. They were validated when saved; the issuer
    /// is re-read without the address rule (the operator may have changed it since, and the
    /// client checks addresses again before connecting). A column no longer valid is
    /// [`StoreError::Corrupt`].
    pub fn from_columns(
        account_id: AccountId,
        enabled: bool,
        input: SsoSettingsInput<'_>,
        updated_at: DateTime<Utc>,
    ) -> Result<Self, StoreError> {
        let settings = SsoSettings::parse(input, IssuerAddresses::Any)
            .map_err(|e| StoreError::Corrupt(format!("single sign-on settings: {e}")))?;
        Ok(Self {
            account_id,
            enabled,
            settings,
            updated_at,
        })
    }
}

/// Single sign-on reads, available in every transaction.
pub trait SsoReads {
    /// The workspace's settings, enabled or not.
    fn sso_settings(&self, account: AccountId) -> Result<Option<StoredSsoSettings>, StoreError>;
    /// The enabled settings whose allowed e-mail domains hold `domain` (ASCII, lower case),
    /// oldest workspace id first.
    fn sso_settings_for_domain(&self, domain: &str) -> Result<Vec<StoredSsoSettings>, StoreError>;
    /// The user a provider's subject is linked to.
    fn sso_identity(&self, issuer: &str, subject: &str) -> Result<Option<UserId>, StoreError>;
}

/// Single sign-on writes, available in write transactions.
pub trait SsoWrites {
    /// Adds or replaces the workspace's settings (the workspace must exist:
    /// [`StoreError::Conflict`] otherwise).
    fn put_sso_settings(&mut self, settings: &StoredSsoSettings) -> Result<(), StoreError>;
    /// Keeps an attempt until it is taken; attempts begun before `expired_before` are deleted
    /// at the same time (none outlives its 10 minutes by more than the next attempt).
    fn insert_sso_attempt(
        &mut self,
        attempt: &SsoAttempt,
        expired_before: DateTime<Utc>,
    ) -> Result<(), StoreError>;
    /// Deletes the attempt with this state and returns it; `None` if there is none (never
    /// begun, already taken, or pruned). Two transactions taking the same state at once: one
    /// gets it, the other `None`.
    fn take_sso_attempt(&mut self, state: &StateToken) -> Result<Option<SsoAttempt>, StoreError>;
    /// Links a provider's subject to a user (the user must exist: [`StoreError::Conflict`]
    /// otherwise; a subject already linked is a conflict too). Deleting the user removes it.
    fn link_sso_identity(
        &mut self,
        issuer: &str,
        subject: &str,
        user: UserId,
        at: DateTime<Utc>,
    ) -> Result<(), StoreError>;
}
