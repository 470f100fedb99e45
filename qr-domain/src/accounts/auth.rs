//! API keys and the request path: key administration, authentication (cached), authorization, admission and usage.

use std::net::IpAddr;
use std::sync::Arc;

use chrono::{Datelike, NaiveDate};

use thiserror::Error;

use crate::accounts::access::{AccessError, AccessRequest, Endpoint, KeySettings, check_access};
use crate::accounts::account::{Account, AccountStatus};
use crate::accounts::key::{
    ApiKey, ApiKeySecret, DEFAULT_KEY_NAME, KeyFormatError, KeyMode, parse_key_name,
};
use crate::accounts::limits::{Admission, RateLimitStatus, Rejection, UsageReport};
use crate::accounts::plan::{Feature, PlanLimits};
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::{AccountId, KeyId};
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

/// Why authentication failed (HTTP 401 "Invalid API key").
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum AuthError {
    /// No key was presented.
    #[error("Invalid API key")]
    Missing,
    /// The client's address failed too often lately; its unknown keys are refused unchecked
    /// for this many seconds (HTTP 401 with `Retry-After`). Keys this server already knows
    /// as valid still pass.
    #[error("Invalid API key")]
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
    /// A key with its account.
    Known(Arc<AuthContext>),
    /// No key has this hash: repeated attempts with a wrong key need no lookup either.
    Unknown,
}

impl AuthContext {
    /// The limits in force for the caller's account.
    pub fn limits(&self) -> PlanLimits {
        self.account.limits()
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Drops every cached key and account (done after each local configuration change).
    pub fn invalidate_cache(&self) {
        self.keys.forget(|_, _| true);
    }

    // ----- Keys -----

    /// Creates a key for an account; the secret is returned once and only its hash is stored.
    pub fn create_key(
        &self,
        account: AccountId,
        mode: KeyMode,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        self.insert_key(account, DEFAULT_KEY_NAME.to_owned(), mode, |_| Ok(()))
    }

    /// Creates a key named `name` for the account's owner in the dashboard: only once the
    /// address is verified, and only for an active account.
    pub fn create_own_key(
        &self,
        account: AccountId,
        name: &str,
        mode: KeyMode,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        let name = parse_key_name(name)?;
        self.insert_key(account, name, mode, |owner| {
            if owner.status != AccountStatus::Active {
                Err(AdminError::NotAllowed)
            } else if !owner.is_verified() {
                Err(AdminError::NotVerified)
            } else {
                Ok(())
            }
        })
    }

    fn insert_key(
        &self,
        account: AccountId,
        name: String,
        mode: KeyMode,
        allowed: impl FnOnce(&Account) -> Result<(), AdminError>,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        let secret = ApiKeySecret::generate(mode)?;
        let key = ApiKey {
            id: KeyId::random(),
            account_id: account,
            mode,
            hash: secret.hash(),
            display_prefix: secret.display_prefix(),
            last_four: secret.last_four(),
            name,
            created_at: self.clock.now(),
            last_used_at: None,
            settings: KeySettings::default(),
        };
        self.store.write(|tx| {
            let owner = tx
                .account(account)?
                .ok_or(AdminError::AccountNotFound(account))?;
            allowed(&owner)?;
            tx.insert_key(&key)?;
            Ok::<_, AdminError>(())
        })?;
        self.invalidate_cache();
        Ok((key, secret))
    }

    /// One of the account's own keys; another account's key is "not found".
    pub fn own_key(&self, account: AccountId, id: KeyId) -> Result<ApiKey, AdminError> {
        self.store
            .read(|tx| tx.key(id))?
            .filter(|k| k.account_id == account)
            .ok_or(AdminError::KeyNotFound(id))
    }

    /// [`Service::regenerate_key`] for one of the account's own keys.
    pub fn regenerate_own_key(
        &self,
        account: AccountId,
        id: KeyId,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        self.own_key(account, id)?;
        self.regenerate_key(id)
    }

    /// [`Service::update_key_settings`] for one of the account's own keys.
    pub fn update_own_key_settings(
        &self,
        account: AccountId,
        id: KeyId,
        settings: KeySettings,
    ) -> Result<ApiKey, AdminError> {
        self.own_key(account, id)?;
        self.update_key_settings(id, settings)
    }

    /// [`Service::delete_key`] for one of the account's own keys.
    pub fn revoke_own_key(&self, account: AccountId, id: KeyId) -> Result<(), AdminError> {
        self.own_key(account, id)?;
        self.delete_key(id)
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

    /// Gives a key a new secret; the old secret stops working at once, here and (via
    /// [`Store::config_version`]) in every other process sharing the store.
    pub fn regenerate_key(&self, id: KeyId) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        let key = self.key(id)?;
        let secret = ApiKeySecret::generate(key.mode)?;
        let key = self.store.write(|tx| {
            let mut key = tx.key(id)?.ok_or(AdminError::KeyNotFound(id))?;
            key.hash = secret.hash();
            key.display_prefix = secret.display_prefix();
            key.last_four = secret.last_four();
            tx.update_key(&key)?;
            Ok::<_, AdminError>(key)
        })?;
        self.invalidate_cache();
        Ok((key, secret))
    }

    /// Replaces a key's settings after checking them against its account's plan.
    pub fn update_key_settings(
        &self,
        id: KeyId,
        settings: KeySettings,
    ) -> Result<ApiKey, AdminError> {
        let key = self.store.write(|tx| {
            let mut key = tx.key(id)?.ok_or(AdminError::KeyNotFound(id))?;
            let account = tx
                .account(key.account_id)?
                .ok_or(AdminError::AccountNotFound(key.account_id))?;
            settings.validate(&account.limits())?;
            key.settings = settings;
            tx.update_key(&key)?;
            Ok::<_, AdminError>(key)
        })?;
        self.invalidate_cache();
        Ok(key)
    }

    /// Revokes a key.
    pub fn delete_key(&self, id: KeyId) -> Result<(), AdminError> {
        if !self.store.write(|tx| tx.delete_key(id))? {
            return Err(AdminError::KeyNotFound(id));
        }
        self.invalidate_cache();
        Ok(())
    }

    // ----- Request path -----

    /// Checks a presented key. A malformed key is rejected before any lookup. Known keys are
    /// served from memory while [`Store::config_version`] is unchanged.
    pub fn authenticate(
        &self,
        presented: Option<&str>,
        client: Option<IpAddr>,
    ) -> Result<Arc<AuthContext>, AuthError> {
        let secret = self.presented_secret(presented, client)?;
        let hash = secret.hash();
        let version = self.store.config_version()?;
        let (seen, cached) = self.keys.read_at_version(version, &hash, CachedKey::clone);
        let found = match cached {
            Some(entry) => entry,
            None => {
                if let Some(retry_after_secs) =
                    self.auth_failures.throttled(client, self.clock.now())
                {
                    return Err(AuthError::Throttled { retry_after_secs });
                }
                let loaded = self.store.read(|tx| {
                    let Some(key) = tx.key_by_hash(&hash)? else {
                        return Ok::<_, StoreError>(CachedKey::Unknown);
                    };
                    // A disabled account's keys fail like revoked ones.
                    Ok(tx
                        .account(key.account_id)?
                        .filter(|account| account.status == AccountStatus::Active)
                        .map_or(CachedKey::Unknown, |account| {
                            CachedKey::Known(Arc::new(AuthContext { key, account }))
                        }))
                })?;
                self.keys.insert_since(seen, hash, loaded.clone());
                loaded
            }
        };
        self.admit_known(found, client)
    }

    /// [`Service::authenticate`] for keys already in memory: `None` when answering would need a
    /// store lookup (an unseen key). Only checks the store's change counter, so it is cheap
    /// enough to call on an async worker thread.
    pub fn authenticate_cached(
        &self,
        presented: Option<&str>,
        client: Option<IpAddr>,
    ) -> Option<Result<Arc<AuthContext>, AuthError>> {
        let secret = match self.presented_secret(presented, client) {
            Ok(secret) => secret,
            Err(e) => return Some(Err(e)),
        };
        let version = match self.store.config_version() {
            Ok(version) => version,
            Err(e) => return Some(Err(e.into())),
        };
        let (_, cached) = self
            .keys
            .read_at_version(version, &secret.hash(), CachedKey::clone);
        match self.stats.keys.record(cached) {
            Some(found) => Some(self.admit_known(found, client)),
            // An unseen key from a throttled address is refused without the lookup.
            None => self
                .auth_failures
                .throttled(client, self.clock.now())
                .map(|retry_after_secs| Err(AuthError::Throttled { retry_after_secs })),
        }
    }

    /// The presented key's secret, counting a missing or malformed key as a failure.
    fn presented_secret(
        &self,
        presented: Option<&str>,
        client: Option<IpAddr>,
    ) -> Result<ApiKeySecret, AuthError> {
        let refused = match presented.map(ApiKeySecret::parse) {
            Some(Ok(secret)) => return Ok(secret),
            Some(Err(e)) => AuthError::Malformed(e),
            None => AuthError::Missing,
        };
        Err(self.failed(refused, client))
    }

    /// The caller of a looked-up key, noting the key's use; an unknown key is refused.
    fn admit_known(
        &self,
        found: CachedKey,
        client: Option<IpAddr>,
    ) -> Result<Arc<AuthContext>, AuthError> {
        match found {
            CachedKey::Known(ctx) => {
                self.meter.touch(ctx.key.id, self.clock.now());
                Ok(ctx)
            }
            CachedKey::Unknown => Err(self.failed(AuthError::Unknown, client)),
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

    /// Applies the key's restrictions and the plan's features (HTTP 403 on failure).
    pub fn authorize(
        &self,
        ctx: &AuthContext,
        endpoint: Endpoint,
        request: AccessRequest<'_>,
    ) -> Result<(), AccessError> {
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
