//! The in-memory store adapter, for tests and for embedding without a database file.
//!
//! A write transaction works on a copy of the state and swaps it in on success, so a
//! failing closure leaves nothing behind. Scans, rollups and visitor sets sit behind
//! `Arc`s so that copy stays cheap; scan batches are applied in place under the lock.

mod accounts;
mod audit;
mod credentials;
mod designs;
mod domains;
mod idempotency;
mod invitations;
mod keys;
mod links;
mod passkeys;
mod scans;
mod sso;
mod users;
mod webhooks;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use chrono::{DateTime, NaiveDate, Utc};

use crate::accounts::account::{Account, PlanRequest};
use crate::accounts::config_change::{ChangeLog, ConfigChange, ConfigChanges};
use crate::accounts::invitations::Invitation;
use crate::accounts::key::ApiKey;
use crate::accounts::limits::UsageMonth;
use crate::accounts::user::{Membership, User};
use crate::dashboard::session::{Session, SessionHash};
use crate::dashboard::token::{OneTimeToken, TokenHash};
use crate::dashboard::two_factor::TwoFactor;
use crate::designs::design::Design;
use crate::domains::domain::Domain;
use crate::error::StoreError;
use crate::ids::{AccountId, DesignId, DomainId, InvitationId, KeyId, LinkId, ScanId, UserId};
use crate::links::bulk::{IdempotencyKey, IdempotencyRecord};
use crate::links::link::Link;
use crate::passkeys::ceremony::Ceremony;
use crate::passkeys::credential::{CredentialId, Passkey};
use crate::scans::breakdown::DIMENSIONS;
use crate::scans::scan::{Device, NewScan, ScanFate};
use crate::store::{ReadTx, Store, WriteTx};
use crate::webhooks::outbox::OutboxEvent;
use crate::webhooks::webhook::{Webhook, WebhookId};

/// A store that keeps everything in memory.
#[derive(Debug, Default)]
pub struct MemoryStore {
    data: Mutex<Data>,
}

#[derive(Debug, Clone, Default)]
struct Data {
    accounts: HashMap<AccountId, Account>,
    users: HashMap<UserId, User>,
    /// User ids by [`crate::accounts::account::Email::lookup_key`]: the unique index on login
    /// addresses.
    user_emails: HashMap<String, UserId>,
    memberships: BTreeMap<(AccountId, UserId), Membership>,
    invitations: BTreeMap<InvitationId, Invitation>,
    keys: HashMap<KeyId, ApiKey>,
    links: HashMap<LinkId, Link>,
    /// Link ids by [`crate::links::shortcode::scoped_key`]: codes are unique per domain.
    codes: HashMap<String, LinkId>,
    /// The scoped keys of codes no longer in use, never issued again where they were.
    tombstones: HashSet<String>,
    usage: HashMap<(AccountId, UsageMonth), u64>,
    salts: BTreeMap<NaiveDate, [u8; 32]>,
    visitors: Arc<HashSet<(LinkId, NaiveDate, [u8; 16])>>,
    scans: HashMap<LinkId, Arc<Vec<StoredScan>>>,
    rollups: HashMap<LinkId, Arc<BTreeMap<NaiveDate, DayRollup>>>,
    tokens: HashMap<TokenHash, OneTimeToken>,
    sessions: HashMap<SessionHash, Session>,
    two_factors: HashMap<UserId, TwoFactor>,
    /// Workspaces requiring their members to have a second factor, with since when.
    two_factor_required: HashMap<AccountId, DateTime<Utc>>,
    /// Passkeys by credential id (unique across users).
    passkeys: BTreeMap<CredentialId, Passkey>,
    /// Passkey ceremonies in flight.
    passkey_ceremonies: HashMap<TokenHash, Ceremony>,
    plan_requests: HashMap<AccountId, PlanRequest>,
    daily_usage: BTreeMap<(AccountId, NaiveDate), u64>,
    webhooks: HashMap<WebhookId, Webhook>,
    /// Outbox rows in write order.
    outbox: Arc<Vec<OutboxEvent>>,
    /// Quota thresholds reached: (account, month, percent).
    thresholds: HashSet<(AccountId, UsageMonth, u8)>,
    idempotency: HashMap<(AccountId, IdempotencyKey), IdempotencyRecord>,
    domains: HashMap<DomainId, Domain>,
    orphans: HashMap<DomainId, domains::Orphans>,
    designs: HashMap<DesignId, Design>,
    /// Audit log entries in append order.
    audit: Arc<Vec<crate::audit::entry::AuditEntry>>,
    /// The last audit entry id assigned.
    next_audit: i64,
    /// Single sign-on settings by workspace.
    sso_settings: HashMap<AccountId, crate::sso::store::StoredSsoSettings>,
    /// Sign-in attempts in progress by state.
    sso_attempts: HashMap<String, crate::sso::SsoAttempt>,
    /// The user each (issuer, subject) signs in as.
    sso_identities: HashMap<(String, String), UserId>,
    next_scan: i64,
    config_version: u64,
    /// Whether the transaction changed what moves the configuration version.
    config_changed: bool,
    /// The account and key changes of the transaction, recorded in `config_log` at its commit.
    pending_changes: Vec<ConfigChange>,
    /// The latest account and key changes (behind an `Arc`: every write transaction copies
    /// `Data`, and only those changing accounts or keys change the log).
    config_log: Arc<ChangeLog>,
}

#[derive(Debug, Clone)]
struct StoredScan {
    id: ScanId,
    at: DateTime<Utc>,
    visitor: [u8; 16],
    country: String,
    city: String,
    device: Device,
    browser: String,
    os: String,
    referrer: Option<String>,
    variant: Option<u8>,
    rule: Option<u8>,
}

#[derive(Debug, Clone, Default)]
struct DayRollup {
    scans: u64,
    uniques: u64,
    dims: [BTreeMap<String, u64>; DIMENSIONS],
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Data> {
        self.data.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl Store for MemoryStore {
    fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn ReadTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let guard = self.lock();
        f(&*guard)
    }

    fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut dyn WriteTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut guard = self.lock();
        let mut work = guard.clone();
        work.config_changed = false;
        work.pending_changes.clear();
        let value = f(&mut work)?;
        if work.config_changed {
            work.config_version += 1;
            work.config_changed = false;
            let changes = std::mem::take(&mut work.pending_changes);
            Arc::make_mut(&mut work.config_log).record(work.config_version, changes);
        }
        *guard = work;
        Ok(value)
    }

    fn record_scans(&self, scans: &[NewScan]) -> Result<Vec<ScanFate>, StoreError> {
        Ok(self.lock().record_scans(scans, None))
    }

    fn record_scans_with_events(
        &self,
        scans: &[NewScan],
        subscribed: &HashSet<AccountId>,
    ) -> Result<Vec<ScanFate>, StoreError> {
        Ok(self.lock().record_scans(scans, Some(subscribed)))
    }

    fn config_version(&self) -> Result<u64, StoreError> {
        Ok(self.lock().config_version)
    }

    fn config_changes(&self, since: u64) -> Result<ConfigChanges, StoreError> {
        Ok(self.lock().config_log.since(since))
    }
}

fn oldest_first<T>(mut v: Vec<T>, key: impl Fn(&T) -> (DateTime<Utc>, uuid::Uuid)) -> Vec<T> {
    v.sort_by_key(key);
    v
}

impl Data {
    /// Notes an account or key change of the transaction (it moves the configuration version).
    fn config_changed_by(&mut self, change: ConfigChange) {
        self.config_changed = true;
        self.pending_changes.push(change);
    }

    /// Refuses a record of a user who does not exist (the stores' foreign keys).
    fn require_user(&self, user: UserId) -> Result<(), StoreError> {
        if self.users.contains_key(&user) {
            Ok(())
        } else {
            Err(StoreError::Conflict(format!("user {user} does not exist")))
        }
    }

    /// Refuses a record of an account that does not exist (the stores' foreign keys).
    fn require_account(&self, account: AccountId) -> Result<(), StoreError> {
        if self.accounts.contains_key(&account) {
            Ok(())
        } else {
            Err(StoreError::Conflict(format!(
                "account {account} does not exist"
            )))
        }
    }
}

#[cfg(test)]
mod contract {
    crate::contract_suite!(|| ((), super::MemoryStore::new()));
}
