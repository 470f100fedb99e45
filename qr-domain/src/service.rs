//! The service: every rule of issue 3 behind one type that the HTTP server and the CLI embed.
//!
//! Request path, in the order the HTTP layer should call it:
//! [`Service::authenticate`] (401), [`Service::authorize`] (403),
//! [`Service::admit`] (429; counts the request). Persistence of counters is
//! driven by [`Service::flush`], called by a [`Flusher`] thread every second
//! and once more at shutdown.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration as StdDuration, Instant};

use chrono::{DateTime, Days, NaiveDate, Utc};
use thiserror::Error;

use crate::access::{
    AccessError, AccessRequest, Endpoint, KeySettings, SettingsError, check_access,
};
use crate::account::{Account, Email, EmailError};
use crate::analytics::{
    AnalyticsError, AnalyticsQuery, AnalyticsReport, LinkSummary, StatsRows, retention_first_day,
    summarize,
};
use crate::clock::Clock;
use crate::error::StoreError;
use crate::geo::{GeoHint, GeoLocator, Location};
use crate::ids::{AccountId, KeyId, LinkId, ScanId};
use crate::key::{ApiKey, ApiKeySecret, KeyFormatError, KeyGenError, KeyHash, KeyMode};
use crate::limits::{Admission, Meter, RateLimitStatus, Rejection, UsageMonth, UsageReport};
use crate::link::{Link, LinkError, LinkName, LinkUpdate, TargetUrl};
use crate::plan::{EnterpriseOverrides, Limit, Plan, PlanError, PlanLimits};
use crate::random::{self, RandomError};
use crate::scan::{NewScan, UserAgentInfo, classify_user_agent, clean_referrer, visitor_id};
use crate::shortcode::ShortCode;
use crate::store::{ReadTx, Store};
use crate::writer::{Queued, ScanAck, ScanWriter};

/// The service over a store `S` and a clock `C`.
pub struct Service<S: Store, C: Clock> {
    store: Arc<S>,
    clock: C,
    geo: Arc<dyn GeoLocator>,
    meter: Meter,
    cache: Mutex<AuthCache>,
    links: Mutex<LinkCache>,
    rollups: Mutex<HashMap<(LinkId, NaiveDate, NaiveDate), StatsRows>>,
    salts: Mutex<Vec<(NaiveDate, [u8; 32])>>,
    writer: ScanWriter,
}

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

/// Errors of account and key administration.
#[derive(Debug, Clone, Error)]
pub enum AdminError {
    /// The e-mail address is invalid.
    #[error(transparent)]
    Email(#[from] EmailError),
    /// A plan or limit value is invalid.
    #[error(transparent)]
    Plan(#[from] PlanError),
    /// Key settings the plan does not allow.
    #[error(transparent)]
    Settings(#[from] SettingsError),
    /// No account with this id.
    #[error("account {0} not found")]
    AccountNotFound(AccountId),
    /// No key with this id.
    #[error("API key {0} not found")]
    KeyNotFound(KeyId),
    /// Generating a secret failed.
    #[error(transparent)]
    KeyGen(#[from] KeyGenError),
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// Errors of scan recording.
#[derive(Debug, Clone, Error)]
pub enum ScanError {
    /// Drawing the daily salt failed.
    #[error(transparent)]
    Random(#[from] RandomError),
    /// The store or the writer failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// A visit to `/r/<shortCode>` as the HTTP layer sees it.
#[derive(Debug, Clone, Default)]
pub struct Visit {
    /// The client address (used in memory only, for geolocation and the visitor id).
    pub ip: Option<IpAddr>,
    /// The User-Agent header.
    pub user_agent: Option<String>,
    /// The Referer header.
    pub referer: Option<String>,
    /// Location hints from trusted proxies.
    pub hint: GeoHint,
}

/// What happened to a visit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanOutcome {
    /// The scan was committed.
    Recorded(ScanId),
    /// A bot or crawler: redirected but not counted.
    Bot,
    /// The link was deleted before the scan could be stored.
    LinkGone,
}

/// What a pruning run removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PruneReport {
    /// Scans deleted because they are older than their account's retention.
    pub scans_deleted: u64,
}

/// A background thread that calls [`Service::flush`] periodically and once more when stopped.
pub struct Flusher {
    stop: Option<std::sync::mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

#[derive(Default)]
struct AuthCache {
    version: Option<u64>,
    entries: HashMap<KeyHash, CachedKey>,
}

const AUTH_CACHE_MAX: usize = 100_000;

/// A cached key lookup: the caller, or `None` for a key that is known not to exist.
type CachedKey = Option<Arc<AuthContext>>;

/// Links by short code for [`Service::cached_link`], the redirect fast path.
#[derive(Default)]
struct LinkCache {
    /// Bumped by every local change of a link, so a read that raced with the change is not cached.
    generation: u64,
    entries: HashMap<ShortCode, (Link, Instant)>,
}

/// Most settled rollups kept for analytics; beyond it the cache starts over.
const ROLLUP_CACHE_MAX: usize = 256;
/// Most links kept in the redirect cache; beyond it the cache starts over.
const LINK_CACHE_MAX: usize = 100_000;
/// How long a cached link is used. Changes made through this service show at once; changes
/// made by another process (the CLI) show within this time.
pub const LINK_CACHE_TTL: StdDuration = StdDuration::from_secs(1);
const CODE_ATTEMPTS: usize = 16;

impl AuthContext {
    /// The limits in force for the caller's account.
    pub fn limits(&self) -> PlanLimits {
        self.account.limits()
    }
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Builds the service: loads this month's usage counters and starts the scan writer.
    pub fn new(store: Arc<S>, clock: C, geo: Arc<dyn GeoLocator>) -> Result<Self, StoreError> {
        let month = UsageMonth::of(clock.now());
        let meter = Meter::new();
        let counts = store.read(|tx| tx.usage(month))?;
        meter.load(month, &counts);
        let writer = ScanWriter::spawn(Arc::clone(&store)).map_err(|e| {
            StoreError::Backend(format!("cannot start the scan writer thread: {e}"))
        })?;
        Ok(Self {
            store,
            clock,
            geo,
            meter,
            cache: Mutex::new(AuthCache::default()),
            links: Mutex::new(LinkCache::default()),
            rollups: Mutex::new(HashMap::new()),
            salts: Mutex::new(Vec::new()),
            writer,
        })
    }

    /// The store.
    pub fn store(&self) -> &Arc<S> {
        &self.store
    }

    /// The current time of the service's clock.
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
    }

    fn cache(&self) -> MutexGuard<'_, AuthCache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drops every cached key and account (done after each local configuration change).
    pub fn invalidate_cache(&self) {
        let mut c = self.cache();
        c.entries.clear();
        c.version = None;
    }

    // ----- Accounts -----

    /// Creates an account.
    pub fn create_account(&self, email: &str, plan: Plan) -> Result<Account, AdminError> {
        let account = Account {
            id: AccountId::random(),
            email: Email::parse(email)?,
            plan,
            overrides: EnterpriseOverrides::default(),
            created_at: self.clock.now(),
        };
        self.store.write(|tx| tx.insert_account(&account))?;
        self.invalidate_cache();
        Ok(account)
    }

    /// The account with this id.
    pub fn account(&self, id: AccountId) -> Result<Account, AdminError> {
        self.store
            .read(|tx| tx.account(id))?
            .ok_or(AdminError::AccountNotFound(id))
    }

    /// All accounts, oldest first.
    pub fn accounts(&self) -> Result<Vec<Account>, StoreError> {
        self.store.read(|tx| tx.accounts())
    }

    fn change_account(
        &self,
        id: AccountId,
        change: impl FnOnce(&mut Account) -> Result<(), AdminError>,
    ) -> Result<Account, AdminError> {
        let account = self.store.write(|tx| {
            let mut account = tx.account(id)?.ok_or(AdminError::AccountNotFound(id))?;
            change(&mut account)?;
            tx.update_account(&account)?;
            Ok::<_, AdminError>(account)
        })?;
        self.invalidate_cache();
        Ok(account)
    }

    /// Changes an account's plan; takes effect on the next request.
    pub fn set_plan(&self, id: AccountId, plan: Plan) -> Result<Account, AdminError> {
        self.change_account(id, |a| {
            a.plan = plan;
            Ok(())
        })
    }

    /// Changes an account's e-mail address.
    pub fn set_email(&self, id: AccountId, email: &str) -> Result<Account, AdminError> {
        let email = Email::parse(email)?;
        self.change_account(id, |a| {
            a.email = email;
            Ok(())
        })
    }

    /// Sets the enterprise overrides of an account (they apply while it is on Enterprise).
    pub fn set_overrides(
        &self,
        id: AccountId,
        overrides: EnterpriseOverrides,
    ) -> Result<Account, AdminError> {
        overrides.validate()?;
        self.change_account(id, |a| {
            a.overrides = overrides;
            Ok(())
        })
    }

    // ----- Keys -----

    /// Creates a key for an account; the secret is returned once and only its hash is stored.
    pub fn create_key(
        &self,
        account: AccountId,
        mode: KeyMode,
    ) -> Result<(ApiKey, ApiKeySecret), AdminError> {
        let secret = ApiKeySecret::generate(mode)?;
        let key = ApiKey {
            id: KeyId::random(),
            account_id: account,
            mode,
            hash: secret.hash(),
            display_prefix: secret.display_prefix(),
            created_at: self.clock.now(),
            last_used_at: None,
            settings: KeySettings::default(),
        };
        self.store.write(|tx| {
            if tx.account(account)?.is_none() {
                return Err(AdminError::AccountNotFound(account));
            }
            tx.insert_key(&key)?;
            Ok(())
        })?;
        self.invalidate_cache();
        Ok((key, secret))
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
    pub fn authenticate(&self, presented: &str) -> Result<Arc<AuthContext>, AuthError> {
        let secret = ApiKeySecret::parse(presented).map_err(AuthError::Malformed)?;
        let hash = secret.hash();
        let (version, cached) = self.cached_entry(&hash)?;
        let found = match cached {
            Some(entry) => entry,
            None => {
                let loaded = self.store.read(|tx| {
                    let Some(key) = tx.key_by_hash(&hash)? else {
                        return Ok::<_, StoreError>(None);
                    };
                    Ok(tx
                        .account(key.account_id)?
                        .map(|account| Arc::new(AuthContext { key, account })))
                })?;
                let mut c = self.cache();
                if c.version == Some(version) {
                    if c.entries.len() >= AUTH_CACHE_MAX {
                        c.entries.clear();
                    }
                    c.entries.insert(hash, loaded.clone());
                }
                loaded
            }
        };
        let ctx = found.ok_or(AuthError::Unknown)?;
        self.meter.touch(ctx.key.id, self.clock.now());
        Ok(ctx)
    }

    /// [`Service::authenticate`] for keys already in memory: `None` when answering would need a
    /// store lookup (an unseen key). Only checks the store's change counter, so it is cheap
    /// enough to call on an async worker thread.
    pub fn authenticate_cached(
        &self,
        presented: &str,
    ) -> Option<Result<Arc<AuthContext>, AuthError>> {
        let secret = match ApiKeySecret::parse(presented) {
            Ok(secret) => secret,
            Err(e) => return Some(Err(AuthError::Malformed(e))),
        };
        let found = match self.cached_entry(&secret.hash()) {
            Ok((_, entry)) => entry?,
            Err(e) => return Some(Err(e.into())),
        };
        Some(match found {
            Some(ctx) => {
                self.meter.touch(ctx.key.id, self.clock.now());
                Ok(ctx)
            }
            None => Err(AuthError::Unknown),
        })
    }

    /// The store's config version and the cached entry of a key hash (`None`: never looked up
    /// since the last configuration change; `Some(None)`: looked up and unknown). A changed
    /// version empties the cache first.
    fn cached_entry(&self, hash: &KeyHash) -> Result<(u64, Option<CachedKey>), StoreError> {
        let version = self.store.config_version()?;
        let mut c = self.cache();
        if c.version != Some(version) {
            c.entries.clear();
            c.version = Some(version);
        }
        Ok((version, c.entries.get(hash).cloned()))
    }

    /// Applies the key's restrictions and the plan's feature rules (HTTP 403 on failure).
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

    // ----- Links -----

    /// Creates a link for `account`, enforcing the plan's link limit.
    pub fn create_link(
        &self,
        account: &Account,
        name: &str,
        target_url: &str,
    ) -> Result<Link, LinkError> {
        let name = LinkName::parse(name)?;
        let target_url = TargetUrl::parse(target_url)?;
        let now = self.clock.now();
        let limits = account.limits();
        let candidates = (0..CODE_ATTEMPTS)
            .map(|_| ShortCode::generate())
            .collect::<Result<Vec<_>, _>>()?;
        self.store.write(|tx| {
            let current = tx.account(account.id)?.ok_or(LinkError::NotFound)?;
            let limit = current.limits().links.min_with(limits.links);
            if let Limit::Max(max) = limit
                && tx.count_links(account.id)? >= max
            {
                return Err(LinkError::LimitReached {
                    plan: current.plan.to_string(),
                    limit: max,
                });
            }
            let mut code = None;
            for c in &candidates {
                if !tx.code_taken(c)? {
                    code = Some(*c);
                    break;
                }
            }
            let link = Link {
                id: LinkId::random(),
                account_id: account.id,
                name,
                short_code: code.ok_or(LinkError::CodeSpace)?,
                target_url,
                scan_count: 0,
                created_at: now,
                updated_at: now,
            };
            tx.insert_link(&link)?;
            Ok(link)
        })
    }

    /// One of the account's links. An unknown id, a malformed id and another account's id are all "not found".
    pub fn link(&self, account: AccountId, id: &str) -> Result<Link, LinkError> {
        let Ok(id) = id.parse::<LinkId>() else {
            return Err(LinkError::NotFound);
        };
        self.store
            .read(|tx| tx.link(account, id))?
            .ok_or(LinkError::NotFound)
    }

    /// The account's links, oldest first.
    pub fn links(&self, account: AccountId) -> Result<Vec<Link>, StoreError> {
        self.store.read(|tx| tx.links_of(account))
    }

    /// Changes the given fields; updatedAt is set whenever at least one field is given.
    /// An update without fields returns the link unchanged.
    pub fn update_link(
        &self,
        account: AccountId,
        id: &str,
        update: &LinkUpdate,
    ) -> Result<Link, LinkError> {
        let name = update.name.as_deref().map(LinkName::parse).transpose()?;
        let target = update
            .target_url
            .as_deref()
            .map(TargetUrl::parse)
            .transpose()?;
        let Ok(id) = id.parse::<LinkId>() else {
            return Err(LinkError::NotFound);
        };
        let now = self.clock.now();
        self.store
            .write(|tx| {
                let mut link = tx.link(account, id)?.ok_or(LinkError::NotFound)?;
                if name.is_none() && target.is_none() {
                    return Ok(link);
                }
                if let Some(n) = name {
                    link.name = n;
                }
                if let Some(t) = target {
                    link.target_url = t;
                }
                link.updated_at = now.max(link.created_at);
                if !tx.update_link(&link)? {
                    return Err(LinkError::NotFound);
                }
                Ok(link)
            })
            .inspect(|link| self.forget_link(|cached| cached.id == link.id))
    }

    /// Deletes a link with all its scans; its code is never issued again.
    pub fn delete_link(&self, account: AccountId, id: &str) -> Result<(), LinkError> {
        let Ok(id) = id.parse::<LinkId>() else {
            return Err(LinkError::NotFound);
        };
        let deleted = self.store.write(|tx| tx.delete_link(account, id))?;
        self.forget_link(|cached| cached.id == id);
        if deleted {
            Ok(())
        } else {
            Err(LinkError::NotFound)
        }
    }

    /// The live link of a presented short code (lower case and aliases accepted); `None` when
    /// the code is malformed, unknown or deleted. Always reads the store, and refreshes the
    /// redirect cache with what it read.
    pub fn resolve(&self, code: &str) -> Result<Option<Link>, StoreError> {
        let Ok(code) = ShortCode::parse(code) else {
            return Ok(None);
        };
        let generation = self.link_cache().generation;
        let link = self.store.read(|tx| tx.link_by_code(&code))?;
        let mut cache = self.link_cache();
        if cache.generation == generation {
            match &link {
                Some(found) => {
                    if cache.entries.len() >= LINK_CACHE_MAX {
                        cache.entries.clear();
                    }
                    cache.entries.insert(code, (found.clone(), Instant::now()));
                }
                None => {
                    cache.entries.remove(&code);
                }
            }
        }
        Ok(link)
    }

    /// The live link of a code from memory, if [`Service::resolve`] read it less than
    /// [`LINK_CACHE_TTL`] ago and it has not changed here since; never touches the store. Its
    /// `scan_count` may be behind.
    pub fn cached_link(&self, code: &str) -> Option<Link> {
        let code = ShortCode::parse(code).ok()?;
        let cache = self.link_cache();
        let (link, read_at) = cache.entries.get(&code)?;
        (read_at.elapsed() < LINK_CACHE_TTL).then(|| link.clone())
    }

    fn link_cache(&self) -> MutexGuard<'_, LinkCache> {
        self.links.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Drops the cached links matching `matches` after a local change.
    fn forget_link(&self, matches: impl Fn(&Link) -> bool) {
        let mut cache = self.link_cache();
        cache.generation += 1;
        cache.entries.retain(|_, (link, _)| !matches(link));
    }

    // ----- Scans -----

    /// Turns a visit into a storable scan, or `None` for bots.
    pub fn prepare_scan(&self, link: &Link, visit: &Visit) -> Result<Option<NewScan>, ScanError> {
        let ua = classify_user_agent(visit.user_agent.as_deref());
        if ua.is_bot {
            return Ok(None);
        }
        let at = self.clock.now();
        let salt = self.salt_for(at.date_naive())?;
        Ok(Some(self.build_scan(link, visit, ua, at, &salt)))
    }

    /// [`Service::prepare_scan`] without touching the store: `None` when the day's visitor salt
    /// is not in memory yet (the first scan of a day creates it with a write).
    pub fn prepare_scan_in_memory(&self, link: &Link, visit: &Visit) -> Option<Option<NewScan>> {
        let ua = classify_user_agent(visit.user_agent.as_deref());
        if ua.is_bot {
            return Some(None);
        }
        let at = self.clock.now();
        let day = at.date_naive();
        let salt = {
            let salts = self.salts.lock().unwrap_or_else(PoisonError::into_inner);
            salts.iter().find(|(d, _)| *d == day)?.1
        };
        Some(Some(self.build_scan(link, visit, ua, at, &salt)))
    }

    fn build_scan(
        &self,
        link: &Link,
        visit: &Visit,
        ua: UserAgentInfo,
        at: DateTime<Utc>,
        salt: &[u8; 32],
    ) -> NewScan {
        let location = visit
            .ip
            .map_or_else(Location::unknown, |ip| self.geo.locate(ip))
            .with_hint(&visit.hint);
        NewScan {
            link_id: link.id,
            at,
            visitor: visitor_id(salt, visit.ip, visit.user_agent.as_deref(), link.id),
            country: location.country,
            city: location.city,
            device: ua.device,
            browser: ua.browser,
            os: ua.os,
            referrer: clean_referrer(visit.referer.as_deref()),
        }
    }

    /// Records a visit and waits until it is committed (group commit with concurrent visits).
    pub fn record_scan(&self, link: &Link, visit: &Visit) -> Result<ScanOutcome, ScanError> {
        let Some(scan) = self.prepare_scan(link, visit)? else {
            return Ok(ScanOutcome::Bot);
        };
        Ok(match self.writer.record(scan)? {
            Some(id) => ScanOutcome::Recorded(id),
            None => ScanOutcome::LinkGone,
        })
    }

    /// Queues a prepared scan; `ack` runs after its commit (for async callers). Blocks while
    /// the writer's queue is full.
    pub fn submit_scan(&self, scan: NewScan, ack: ScanAck) -> Result<(), StoreError> {
        self.writer.submit(scan, ack)
    }

    /// Queues a prepared scan without blocking: hands it back when the writer's queue is full.
    pub fn try_submit_scan(&self, scan: NewScan, ack: ScanAck) -> Result<Queued, StoreError> {
        self.writer.try_submit(scan, ack)
    }

    /// The salt of `day`, creating it if needed; creating today's salt destroys salts and
    /// visitor ids older than yesterday.
    fn salt_for(&self, day: NaiveDate) -> Result<[u8; 32], ScanError> {
        let mut salts = self.salts.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((_, s)) = salts.iter().find(|(d, _)| *d == day) {
            return Ok(*s);
        }
        let candidate: [u8; 32] = random::bytes()?;
        let keep_from = day.checked_sub_days(Days::new(1)).unwrap_or(day);
        let salt = self.store.write(|tx| {
            let salt = tx.put_salt(day, candidate)?;
            tx.forget_visitors_before(keep_from)?;
            Ok::<_, StoreError>(salt)
        })?;
        salts.retain(|(d, _)| *d >= keep_from);
        salts.push((day, salt));
        Ok(salt)
    }

    // ----- Analytics -----

    /// Analytics of one of the account's links.
    pub fn analytics(
        &self,
        account: &Account,
        link_id: &str,
        start: Option<&str>,
        end: Option<&str>,
        limit: Option<&str>,
    ) -> Result<AnalyticsReport, AnalyticsError> {
        let query = AnalyticsQuery::parse(start, end, limit)?;
        let Ok(id) = link_id.parse::<LinkId>() else {
            return Err(AnalyticsError::LinkNotFound);
        };
        let now = self.clock.now();
        self.store.read(|tx| {
            let link = tx
                .link(account.id, id)?
                .ok_or(AnalyticsError::LinkNotFound)?;
            let retention = tx
                .account(account.id)?
                .unwrap_or_else(|| account.clone())
                .limits()
                .retention;
            let window = query.window(now, &link, retention);
            let mut parts = Vec::new();
            let mut recent = Vec::new();
            if let Some(w) = &window {
                let plan = w.plan();
                if let Some((first, last)) = plan.full_days {
                    // Days before yesterday take no more scans, so their rollup is kept in
                    // memory; yesterday (scans committed just after midnight) is always read.
                    let settled = now.date_naive().checked_sub_days(Days::new(2));
                    match settled.filter(|s| first <= *s) {
                        Some(settled) => {
                            let upto = last.min(settled);
                            parts.push(self.settled_rollup(tx, link.id, first, upto)?);
                            if let Some(next) = upto.succ_opt().filter(|n| *n <= last) {
                                parts.push(tx.rollup_stats(link.id, next, last)?);
                            }
                        }
                        None => parts.push(tx.rollup_stats(link.id, first, last)?),
                    }
                }
                for p in plan.partial.iter().flatten() {
                    parts.push(tx.raw_stats(link.id, p.from, p.to)?);
                }
                recent = tx.recent_scans(link.id, w.from, w.to, u32::from(query.limit.get()))?;
            }
            Ok(AnalyticsReport {
                link: LinkSummary::of(&link),
                analytics: summarize(window.as_ref(), parts),
                recent_scans: recent,
            })
        })
    }

    /// The rollup of days that can no longer change, from memory when read before.
    fn settled_rollup(
        &self,
        tx: &dyn ReadTx,
        link: LinkId,
        first: NaiveDate,
        last: NaiveDate,
    ) -> Result<StatsRows, StoreError> {
        let key = (link, first, last);
        if let Some(rows) = self.rollups().get(&key) {
            return Ok(rows.clone());
        }
        let rows = tx.rollup_stats(link, first, last)?;
        let mut cache = self.rollups();
        if cache.len() >= ROLLUP_CACHE_MAX {
            cache.clear();
        }
        cache.insert(key, rows.clone());
        Ok(rows)
    }

    fn rollups(&self) -> MutexGuard<'_, HashMap<(LinkId, NaiveDate, NaiveDate), StatsRows>> {
        self.rollups.lock().unwrap_or_else(PoisonError::into_inner)
    }

    // ----- Maintenance -----

    /// Persists usage counters and key last-use times changed since the last flush. Call at
    /// least once a second (see [`Flusher`]) and at shutdown.
    pub fn flush(&self) -> Result<(), StoreError> {
        let dirty = self.meter.take_dirty(self.clock.now());
        if dirty.usage.is_empty() && dirty.last_used.is_empty() {
            return Ok(());
        }
        let result = self.store.write(|tx| {
            for (month, counts) in &dirty.usage {
                tx.save_usage(*month, counts)?;
            }
            tx.touch_keys(&dirty.last_used)
        });
        if result.is_err() {
            self.meter.restore_dirty(dirty);
        }
        result
    }

    /// Deletes scans older than each account's retention and destroys stale visitor salts.
    /// Run it periodically (hourly is plenty); analytics never report expired scans either way.
    pub fn prune(&self) -> Result<PruneReport, StoreError> {
        let today = self.clock.now().date_naive();
        let mut report = PruneReport::default();
        for account in self.accounts()? {
            if let Some(first) = retention_first_day(today, account.limits().retention) {
                report.scans_deleted += self.store.write(|tx| tx.prune_scans(account.id, first))?;
            }
        }
        let keep_from = today.checked_sub_days(Days::new(1)).unwrap_or(today);
        self.store
            .write(|tx| tx.forget_visitors_before(keep_from))?;
        Ok(report)
    }

    /// Commits queued scans, stops the writer and flushes the counters.
    pub fn shutdown(&self) -> Result<(), StoreError> {
        self.writer.shutdown();
        self.flush()
    }
}

impl<S: Store, C: Clock> Drop for Service<S, C> {
    fn drop(&mut self) {
        // Errors cannot be reported from a destructor; callers wanting them call `shutdown` first.
        let _ = self.shutdown();
    }
}

impl<S: Store, C: Clock> std::fmt::Debug for Service<S, C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Service").finish_non_exhaustive()
    }
}

impl Flusher {
    /// Starts a thread calling `service.flush()` every `period`, and once more on [`Flusher::stop`].
    /// Flush errors are retried at the next tick (the counters stay dirty).
    pub fn spawn<S: Store, C: Clock>(
        service: Arc<Service<S, C>>,
        period: StdDuration,
    ) -> std::io::Result<Self> {
        let (stop, stopped) = std::sync::mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("qr-usage-flusher".to_owned())
            .spawn(move || {
                loop {
                    let done = !matches!(
                        stopped.recv_timeout(period),
                        Err(std::sync::mpsc::RecvTimeoutError::Timeout)
                    );
                    // A failed flush keeps its counters dirty; the next tick retries.
                    let _ = service.flush();
                    if done {
                        break;
                    }
                }
            })?;
        Ok(Self {
            stop: Some(stop),
            thread: Some(thread),
        })
    }

    /// Flushes one last time and ends the thread.
    pub fn stop(mut self) {
        self.stop_now();
    }

    fn stop_now(&mut self) {
        drop(self.stop.take());
        if let Some(t) = self.thread.take() {
            // The flusher thread does not panic; if it did, the panic was already reported.
            let _ = t.join();
        }
    }
}

impl Drop for Flusher {
    fn drop(&mut self) {
        self.stop_now();
    }
}

impl std::fmt::Debug for Flusher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Flusher").finish_non_exhaustive()
    }
}
