//! API keys and the request path: key administration, authentication (cached), authorization, admission and usage.

use std::collections::HashSet;
use std::net::IpAddr;
use std::sync::Arc;

use chrono::{Datelike, NaiveDate};

use thiserror::Error;

use crate::accounts::access::{AccessError, AccessRequest, Endpoint, KeySettings, check_access};
use crate::accounts::account::{Account, AccountStatus};
use crate::accounts::caller::{Actor, Caller};
use crate::accounts::config_change::{ConfigChange, ConfigChanges};
use crate::accounts::key::{
    ApiKey, ApiKeySecret, DEFAULT_KEY_NAME, KeyCreator, KeyFormatError, KeyHash, KeyMode,
    parse_key_name,
};
use crate::accounts::limits::{Admission, RateLimitStatus, Rejection, UsageReport};
use crate::accounts::permissions::{Operation, ScopeSet};
use crate::accounts::plan::{Feature, PlanLimits};
use crate::accounts::user::User;
use crate::audit::entry::{AuditAction, AuditObject, ObjectKind};
use crate::audit::service::record;
use crate::audit::summary;
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::{AccountId, KeyId};
use crate::service::cache::{Stale, Staleness};
use crate::service::{AdminError, Service};
use crate::store::Store;

/// An authenticated caller: the key and its account as of the last configuration change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthContext {
    /// The key used.
    pub key: ApiKey,
    /// The key's account.
    pub account: Account,
}

/// Why authentication failed (HTTP 401 "Invalid API key", or 429 for an address over its
/// budget of failures).
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AuthError {
    /// No key was presented.
    #[error("Invalid API key")]
    Missing,
    /// The key is unknown and the client's address has presented unknown keys too
    /// often lately: its failures are answered with "wait this many seconds" (HTTP 429 with
    /// `retryAfter`) until it slows down. A valid key is never refused this way: every key
    /// presented is looked up (the answer for a wrong one is cached), whatever its address.
    #[error("Rate limit exceeded")]
    Throttled {
        /// Seconds to wait.
        retry_after_secs: u64,
    },
    /// The presented string is not a key of the documented format (no lookup was made).
    #[error("Invalid API key")]
    Malformed(KeyFormatError),
    /// No key has this secret (never existed, revoked, or regenerated since).
    #[error("Invalid API key")]
    Unknown,
    /// The store failed (HTTP 500/503, not 401).
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// What a lookup of a key hash found, as the key cache keeps it.
#[derive(Debug, Clone)]
pub(crate) enum CachedKey {
    /// A key with its account, whatever the account's status (a disabled account's key is
    /// refused when used, and kept under its account so enabling the account forgets it).
    Found(Arc<AuthContext>),
    /// No key has this hash: repeated attempts with a wrong key need no lookup either.
    Absent,
}

/// The cached keys a list of account and key changes made stale: those of a changed account,
/// a changed key's entry under its old secret, and any entry under a changed key's hash.
struct StaleKeys {
    accounts: HashSet<AccountId>,
    keys: HashSet<KeyId>,
    hashes: HashSet<KeyHash>,
}

impl StaleKeys {
    fn of(changes: &[ConfigChange]) -> Self {
        let mut stale = StaleKeys {
            accounts: HashSet::new(),
            keys: HashSet::new(),
            hashes: HashSet::new(),
        };
        for change in changes {
            match *change {
                ConfigChange::Account(id) => {
                    stale.accounts.insert(id);
                }
                ConfigChange::Key { id, hash } => {
                    stale.keys.insert(id);
                    stale.hashes.insert(hash);
                }
            }
        }
        stale
    }

    fn covers(&self, hash: &KeyHash, entry: &CachedKey) -> bool {
        self.hashes.contains(hash)
            || match entry {
                CachedKey::Found(ctx) => {
                    self.keys.contains(&ctx.key.id) || self.accounts.contains(&ctx.account.id)
                }
                CachedKey::Absent => false,
            }
    }
}

impl Staleness<KeyHash, CachedKey> for StaleKeys {
    fn is_stale(&mut self, hash: &KeyHash, entry: &CachedKey) -> bool {
        self.covers(hash, entry)
    }
}

impl AuthContext {
    /// The limits in force for the caller's account.
    pub fn limits(&self) -> PlanLimits {
        self.account.limits()
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Drops the cached keys that local account or key changes made stale, at once: the
    /// store's notice of them reaches this process's key cache too, but perhaps a moment later.
    /// Every other customer's cached keys stay.
    pub(crate) fn forget_cached(&self, changes: &[ConfigChange]) {
        let stale = StaleKeys::of(changes);
        self.keys.forget(|hash, entry| stale.covers(hash, entry));
    }

    /// [`Service::forget_cached`] for a change of one account.
    pub(crate) fn forget_cached_account(&self, account: AccountId) {
        self.forget_cached(&[ConfigChange::Account(account)]);
    }

    /// [`Service::forget_cached`] for a change of one key.
    fn forget_cached_key(&self, key: &ApiKey) {
        self.forget_cached(&[ConfigChange::Key {
            id: key.id,
            hash: key.hash,
        }]);
    }

    /// The key cache's answer to "what changed since `since`": the version the store's changes
    /// lead to and the entries they made stale.
    fn key_changes_since(&self, since: u64) -> Result<(u64, Stale<StaleKeys>), StoreError> {
        Ok(match self.store.config_changes(since)? {
            ConfigChanges::Listed { version, changes } if changes.is_empty() => {
                (version, Stale::None)
            }
            ConfigChanges::Listed { version, changes } => {
                (version, Stale::Those(StaleKeys::of(&changes)))
            }
            ConfigChanges::Unknown { version } => (version, Stale::All),
        })
    }

    // ----- Keys -----

    /// Creates a full-access key for an account, by the operator (`qr keys create`, the
    /// server's bootstrap key); the secret is returned once and only its hash is stored.
    pub fn create_key(
        &self,
        account: AccountId,
        mode: KeyMode,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        self.create_key_with_scopes(account, mode, None)
    }

    /// [`Service::create_key`] limited to `scopes` (`None`: full access). The key is stored
    /// with its scopes in the same write, so it never works beyond them, not even for a moment.
    pub fn create_key_with_scopes(
        &self,
        account: AccountId,
        mode: KeyMode,
        scopes: Option<ScopeSet>,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        let name = DEFAULT_KEY_NAME.to_owned();
        self.insert_key(
            &Caller::operator(account),
            name,
            mode,
            scopes,
            |_, _| Ok(()),
        )
    }

    /// Creates a key named `name` in the caller's workspace from the dashboard, limited to
    /// `scopes` (`None`: full access): a caller allowed [`Operation::WriteKeys`], whose own
    /// address is verified (the operator needs none), in an active workspace.
    pub fn create_own_key(
        &self,
        caller: &Caller,
        name: &str,
        mode: KeyMode,
        scopes: Option<ScopeSet>,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        let name = parse_key_name(name)?;
        self.insert_key(caller, name, mode, scopes, |account, acting| {
            if account.status != AccountStatus::Active {
                Err(AdminError::NotAllowed)
            } else if acting.is_some_and(|u| !u.is_verified()) {
                Err(AdminError::NotVerified)
            } else {
                Ok(())
            }
        })
    }

    /// Stores a new key by `caller` with its `key.created` audit entry. `allowed` sees the
    /// workspace and the acting user (`None`: not a person).
    fn insert_key(
        &self,
        caller: &Caller,
        name: String,
        mode: KeyMode,
        scopes: Option<ScopeSet>,
        allowed: impl FnOnce(&Account, Option<&User>) -> Result<(), AdminError>,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        caller.require(Operation::WriteKeys)?;
        let secret = ApiKeySecret::generate(mode)?;
        let created_by = match &caller.actor {
            Actor::User { id, .. } => Some(KeyCreator::User(*id)),
            Actor::Operator => Some(KeyCreator::Operator),
            // A key never holds WriteKeys; were it given, the log still names it.
            Actor::Key { .. } => None,
        };
        let now = self.clock.now();
        let key = ApiKey {
            id: KeyId::random(),
            account_id: caller.account,
            mode,
            hash: secret.hash(),
            display_prefix: secret.display_prefix(),
            last_four: secret.last_four(),
            name,
            created_at: now,
            last_used_at: None,
            settings: KeySettings {
                scopes,
                ..KeySettings::default()
            },
            created_by,
        };
        self.store.write(|tx| {
            let found = tx
                .account(caller.account)?
                .ok_or(AdminError::AccountNotFound(caller.account))?;
            let acting = match &caller.actor {
                Actor::User { id, .. } => tx.user(*id)?,
                Actor::Key { .. } | Actor::Operator => None,
            };
            allowed(&found, acting.as_ref())?;
            tx.insert_key(&key)?;
            record(
                tx,
                caller,
                now,
                AuditAction::KeyCreated,
                AuditObject::new(ObjectKind::Key, key.id),
                summary::key_created(&key),
            )?;
            Ok::<_, AdminError>(())
        })?;
        self.forget_cached_key(&key);
        Ok((key, secret))
    }

    /// One of the account's own keys; another account's key is "not found".
    pub fn own_key(&self, account: AccountId, id: KeyId) -> Result<ApiKey, AdminError> {
        self.store
            .read(|tx| tx.key(id))?
            .filter(|k| k.account_id == account)
            .ok_or(AdminError::KeyNotFound(id))
    }

    /// Gives one of the caller's workspace's keys a new secret (see [`Service::regenerate_key`]);
    /// another workspace's key is "not found".
    pub fn regenerate_own_key(
        &self,
        caller: &Caller,
        id: KeyId,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        caller.require(Operation::WriteKeys)?;
        let mode = self.own_key(caller.account, id)?.mode;
        let secret = ApiKeySecret::generate(mode)?;
        let key = self.change_key(caller, id, AuditAction::KeyRegenerated, |key| {
            key.hash = secret.hash();
            key.display_prefix = secret.display_prefix();
            key.last_four = secret.last_four();
            Ok(())
        })?;
        Ok((key, secret))
    }

    /// Replaces the settings of one of the caller's workspace's keys after checking them
    /// against its plan; another workspace's key is "not found".
    pub fn update_own_key_settings(
        &self,
        caller: &Caller,
        id: KeyId,
        settings: KeySettings,
    ) -> Result<ApiKey, AdminError> {
        caller.require(Operation::WriteKeys)?;
        let limits = self.account(caller.account)?.limits();
        settings.validate(&limits)?;
        self.change_key(caller, id, AuditAction::KeyUpdated, |key| {
            key.settings = settings;
            Ok(())
        })
    }

    /// Revokes one of the caller's workspace's keys; another workspace's key is "not found".
    pub fn revoke_own_key(&self, caller: &Caller, id: KeyId) -> Result<(), AdminError> {
        caller.require(Operation::WriteKeys)?;
        let now = self.clock.now();
        let key = self.store.write(|tx| {
            let key = tx
                .key(id)?
                .filter(|k| k.account_id == caller.account)
                .ok_or(AdminError::KeyNotFound(id))?;
            tx.delete_key(id)?;
            record(
                tx,
                caller,
                now,
                AuditAction::KeyRevoked,
                AuditObject::new(ObjectKind::Key, key.id),
                summary::key_revoked(&key),
            )?;
            Ok::<_, AdminError>(key)
        })?;
        self.forget_cached_key(&key);
        Ok(())
    }

    /// Changes one of the caller's workspace's keys with `change` and records `action` with
    /// the fields that differ, in one write.
    fn change_key(
        &self,
        caller: &Caller,
        id: KeyId,
        action: AuditAction,
        change: impl FnOnce(&mut ApiKey) -> Result<(), AdminError>,
    ) -> Result<ApiKey, AdminError> {
        let now = self.clock.now();
        let key = self.store.write(|tx| {
            let before = tx
                .key(id)?
                .filter(|k| k.account_id == caller.account)
                .ok_or(AdminError::KeyNotFound(id))?;
            let mut key = before.clone();
            change(&mut key)?;
            tx.update_key(&key)?;
            record(
                tx,
                caller,
                now,
                action,
                AuditObject::new(ObjectKind::Key, key.id),
                summary::key_updated(&before, &key),
            )?;
            Ok::<_, AdminError>(key)
        })?;
        self.forget_cached_key(&key);
        Ok(key)
    }

    /// The key with this id.
    pub fn key(&self, id: KeyId) -> Result<ApiKey, AdminError> {
        self.store
            .read(|tx| tx.key(id))?
            .ok_or(AdminError::KeyNotFound(id))
    }

    /// The keys of an account, oldest first.
    pub fn keys(&self, account: AccountId) -> Result<Vec<ApiKey>, StoreError> {
        self.store.read(|tx| tx.keys_of(account))
    }

    /// Gives a key a new secret by the operator; the old secret stops working at once, here
    /// and (via [`Store::config_changes`]) in every other process sharing the store.
    pub fn regenerate_key(&self, id: KeyId) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        let key = self.key(id)?;
        self.regenerate_own_key(&Caller::operator(key.account_id), id)
    }

    /// Replaces a key's settings by the operator after checking them against its account's
    /// plan.
    pub fn update_key_settings(
        &self,
        id: KeyId,
        settings: KeySettings,
    ) -> Result<ApiKey, AdminError> {
        let key = self.key(id)?;
        self.update_own_key_settings(&Caller::operator(key.account_id), id, settings)
    }

    /// Revokes a key by the operator.
    pub fn delete_key(&self, id: KeyId) -> Result<(), AdminError> {
        let key = self.key(id)?;
        self.revoke_own_key(&Caller::operator(key.account_id), id)
    }

    // ----- Request path -----

    /// Checks a presented key. A malformed key is rejected before any lookup; any other is
    /// looked up, whatever the client's address, so a valid key is always served. Keys are
    /// served from memory (and so are wrong keys' refusals) until [`Store::config_changes`]
    /// names a change of their key or account.
    ///
    /// A failure (missing, malformed or unknown key) counts against the client's address; past
    /// its budget it is [`AuthError::Throttled`] (429) instead of 401.
    pub fn authenticate(
        &self,
        presented: Option<&str>,
        client: Option<IpAddr>,
    ) -> Result<Arc<AuthContext>, AuthError> {
        let secret = Self::presented_secret(presented)?;
        let hash = secret.hash();
        let version = self.store.config_version()?;
        let (seen, cached) =
            self.keys
                .read_at_version(version, &hash, CachedKey::clone, |since| {
                    self.key_changes_since(since)
                })?;
        let found = match cached {
            Some(entry) => entry,
            None => {
                // One indexed lookup, its answer cached: the cost a wrong key can impose.
                let loaded = self.store.read(|tx| {
                    let Some(key) = tx.key_by_hash(&hash)? else {
                        return Ok::<_, StoreError>(CachedKey::Absent);
                    };
                    Ok(tx
                        .account(key.account_id)?
                        .map_or(CachedKey::Absent, |account| {
                            CachedKey::Found(Arc::new(AuthContext { key, account }))
                        }))
                })?;
                self.keys.insert_since(seen, hash, loaded.clone());
                loaded
            }
        };
        self.admit_known(found, client)
    }

    /// [`Service::authenticate`] for keys already in memory: `None` when answering would need a
    /// store lookup (an unseen key, from any address). Only checks the store's change counter
    /// (and, after a change, what changed), so it is cheap enough to call on an async worker
    /// thread.
    pub fn authenticate_cached(
        &self,
        presented: Option<&str>,
        client: Option<IpAddr>,
    ) -> Option<Result<Arc<AuthContext>, AuthError>> {
        let secret = match Self::presented_secret(presented) {
            Ok(secret) => secret,
            Err(e) => return Some(Err(e)),
        };
        let cached = self.store.config_version().and_then(|version| {
            self.keys
                .read_at_version(version, &secret.hash(), CachedKey::clone, |since| {
                    self.key_changes_since(since)
                })
        });
        match cached {
            Ok((_, cached)) => self
                .stats
                .keys
                .record(cached)
                .map(|found| self.admit_known(found, client)),
            Err(e) => Some(Err(e.into())),
        }
    }

    /// The presented key's secret. A missing or malformed key is refused (401) without being
    /// counted against the address: it costs no lookup, and the throttle only bounds the cost
    /// of lookups (so a client that forgot its key is never told to wait, and an API fuzzer's
    /// requests without credentials keep their 401).
    fn presented_secret(presented: Option<&str>) -> Result<ApiKeySecret, AuthError> {
        match presented.map(ApiKeySecret::parse) {
            Some(Ok(secret)) => Ok(secret),
            Some(Err(e)) => Err(AuthError::Malformed(e)),
            None => Err(AuthError::Missing),
        }
    }

    /// The caller of a looked-up key, noting the key's use; an unknown key, or one of an
    /// account that is not active (it fails like a revoked one), is refused.
    fn admit_known(
        &self,
        found: CachedKey,
        client: Option<IpAddr>,
    ) -> Result<Arc<AuthContext>, AuthError> {
        match found {
            CachedKey::Found(ctx) if ctx.account.status == AccountStatus::Active => {
                self.meter.touch(ctx.key.id, self.clock.now());
                Ok(ctx)
            }
            CachedKey::Found(_) | CachedKey::Absent => Err(self.failed(AuthError::Unknown, client)),
        }
    }

    /// Counts a failed authentication of `client`; once the address is over its budget the
    /// failure says how long to wait.
    fn failed(&self, error: AuthError, client: Option<IpAddr>) -> AuthError {
        match self.auth_failures.fail(client, self.clock.now()) {
            Some(retry_after_secs) => AuthError::Throttled { retry_after_secs },
            None => error,
        }
    }

    /// Applies the key's scopes to `operation` first (`None`: a request that needs no
    /// permission, such as the health check), then the key's restrictions and the plan's
    /// features (HTTP 403 on failure, each with the spec's message but the plan's).
    pub fn authorize(
        &self,
        ctx: &AuthContext,
        endpoint: Endpoint,
        operation: Option<Operation>,
        request: AccessRequest<'_>,
    ) -> Result<(), AccessError> {
        if let Some(operation) = operation {
            ctx.key.grant().require(operation)?;
        }
        check_access(&ctx.key.settings, &ctx.limits(), endpoint, request)
    }

    /// Applies the monthly quota, the batch rate (when `batch`) and the key's per-second rate,
    /// and counts the request if all pass. Never touches disk.
    pub fn admit(&self, ctx: &AuthContext, batch: bool) -> Result<Admission, Rejection> {
        let limits = ctx.limits();
        let rate = ctx.key.settings.effective_rate(&limits);
        self.meter.admit(
            self.clock.now(),
            ctx.key.id,
            ctx.account.id,
            &limits,
            rate,
            batch,
        )
    }

    /// The X-RateLimit-* figures without counting a request (for 401/403 responses and the like).
    pub fn rate_limit_status(&self, ctx: &AuthContext) -> RateLimitStatus {
        self.meter
            .status(self.clock.now(), ctx.account.id, &ctx.limits())
    }

    /// The usage object for the caller's account.
    pub fn usage(&self, ctx: &AuthContext) -> UsageReport {
        self.meter.report(
            self.clock.now(),
            ctx.account.id,
            ctx.account.plan,
            &ctx.limits(),
        )
    }

    /// API requests per UTC day of the current month up to today, every day included (zeros
    /// too): the stored counts plus what this process has not flushed yet.
    pub fn daily_requests(&self, account: AccountId) -> Result<Vec<(NaiveDate, u64)>, StoreError> {
        let today = self.clock.now().date_naive();
        let first = today.with_day(1).unwrap_or(today);
        let stored = self
            .store
            .read(|tx| tx.daily_usage(account, first, today))?;
        Ok(first
            .iter_days()
            .take_while(|d| *d <= today)
            .map(|day| {
                let saved = stored
                    .iter()
                    .find(|(d, _)| *d == day)
                    .map_or(0, |(_, n)| *n);
                let pending = if day == today {
                    self.meter.unflushed_daily(account, day)
                } else {
                    0
                };
                (day, saved + pending)
            })
            .collect())
    }

    /// Admits a dashboard preview or download for the account: the plan's per-second rate (at
    /// least 5 a second, 2 seconds' worth at once), never counted against the monthly quota
    /// (they are not API requests). `Err` holds the seconds to wait.
    pub fn admit_render(&self, account: &Account) -> Result<(), u64> {
        self.meter
            .admit_render(self.clock.now(), account.id, account.limits().per_second)
    }

    /// Refuses a dashboard render that uses a feature the account's plan lacks (a logo below
    /// Pro), as the API refuses it with 403.
    pub fn check_features(
        &self,
        account: &Account,
        features: &[Feature],
    ) -> Result<(), AccessError> {
        let limits = account.limits();
        match features.iter().find(|f| !limits.includes(**f)) {
            Some(missing) => Err(AccessError::FeatureNotInPlan(*missing)),
            None => Ok(()),
        }
    }

    /// The usage object of any account (for the CLI); counts from this process's memory.
    pub fn usage_of(&self, account: AccountId) -> Result<UsageReport, AdminError> {
        let account = self.account(account)?;
        Ok(self.meter.report(
            self.clock.now(),
            account.id,
            account.plan,
            &account.limits(),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::accounts::account::Email;
    use crate::accounts::plan::Plan;
    use crate::clock::TestClock;
    use crate::memory::MemoryStore;
    use crate::scans::geo::NoGeoLocator;

    const CACHED_KEYS: usize = 10_000;

    fn service(store: &Arc<MemoryStore>) -> Service<MemoryStore, TestClock> {
        let clock = TestClock::new("2024-05-01T10:00:00Z".parse().unwrap());
        Service::new(Arc::clone(store), clock, Arc::new(NoGeoLocator)).unwrap()
    }

    /// Another account's regeneration, made by another server sharing the store, leaves this
    /// server's 10,000 cached keys of other accounts in memory: each is answered without a
    /// lookup, and the cache's miss counter does not move.
    #[test]
    fn ten_thousand_cached_keys_survive_another_accounts_regeneration() {
        let store = Arc::new(MemoryStore::new());
        let server = service(&store);
        let other_server = service(&store);
        let now = server.now();
        // 100 customers with 100 keys each, written in one transaction.
        let mut secrets = Vec::with_capacity(CACHED_KEYS);
        let mut keys = Vec::with_capacity(CACHED_KEYS);
        let accounts: Vec<Account> = (0..CACHED_KEYS / 100)
            .map(|i| {
                let email = Email::parse(&format!("customer{i}@example.com")).unwrap();
                Account::new(AccountId::random(), email, Plan::Pro, now)
            })
            .collect();
        for account in &accounts {
            for _ in 0..100 {
                let secret = ApiKeySecret::generate(KeyMode::Live).unwrap();
                keys.push(ApiKey {
                    id: KeyId::random(),
                    account_id: account.id,
                    mode: KeyMode::Live,
                    hash: secret.hash(),
                    display_prefix: secret.display_prefix(),
                    last_four: secret.last_four(),
                    name: DEFAULT_KEY_NAME.to_owned(),
                    created_at: now,
                    last_used_at: None,
                    settings: KeySettings::default(),
                    created_by: None,
                });
                secrets.push(secret);
            }
        }
        store
            .write(|tx| {
                for account in &accounts {
                    tx.insert_account(account)?;
                }
                for key in &keys {
                    tx.insert_key(key)?;
                }
                Ok::<_, StoreError>(())
            })
            .unwrap();
        for secret in &secrets {
            server
                .authenticate(Some(secret.expose_secret()), None)
                .unwrap();
        }
        assert_eq!(server.keys.len(), CACHED_KEYS);

        let regenerated = other_server
            .create_account("regenerates@example.com", Plan::Free)
            .unwrap();
        let (key, _) = other_server
            .create_key(regenerated.id, KeyMode::Live)
            .unwrap();
        other_server.regenerate_key(key.id).unwrap();

        let misses = server.stats().keys.misses();
        for (i, secret) in secrets.iter().enumerate() {
            assert!(
                matches!(
                    server.authenticate_cached(Some(secret.expose_secret()), None),
                    Some(Ok(_))
                ),
                "key {i} was dropped"
            );
        }
        assert_eq!(server.stats().keys.misses(), misses);
        assert_eq!(server.keys.len(), CACHED_KEYS);
    }
}
