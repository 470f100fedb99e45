//! The service: every rule of the platform behind one type that the HTTP server, the CLI and embedders use.
//!
//! Request path, in the order the HTTP layer should call it:
//! [`Service::authenticate`] (401), [`Service::authorize`] (403),
//! [`Service::admit`] (429; counts the request). Persistence of counters is
//! driven by [`Service::flush`], called by a [`Flusher`] thread every second
//! and once more at shutdown.
//!
//! The methods are grouped by seam, one file each: `accounts`, `auth` (keys and the
//! request path), `links` (links and short-code resolution), `scans`, `analytics` and
//! `maintenance` (flush, prune, shutdown, the [`Flusher`]), `opening` (visits to links with
//! campaign settings: gates, password, rules and variants), `visits` (a visit to a short code
//! as one use case: a redirect or a page, from memory when it can); for the dashboard, `customers`
//! (sign-up, e-mailed tokens, passwords, e-mail changes, deletion), `sessions` (login and
//! sessions) and `admin` (roles, plan requests, disabling). `cache` holds the one cache type
//! behind the in-memory caches, `throttle` the GCRA throttles of failures and attempts.

mod accounts;
mod admin;
mod analytics;
mod auth;
mod bulk;
mod cache;
mod customers;
mod export;
mod links;
mod maintenance;
mod opening;
mod scan_export;
mod scans;
mod sessions;
mod throttle;
mod visits;
pub(crate) mod webhooks;

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, NaiveDate, Utc};

use crate::accounts::account::SignupPolicy;
use crate::accounts::key::KeyHash;
use crate::accounts::limit_state::{LimitState, MemoryLimits};
use crate::accounts::limits::{Meter, UsageMonth};
use crate::clock::Clock;
use crate::error::StoreError;
use crate::ids::LinkId;
use crate::links::link::Link;
use crate::links::shortcode::ShortCode;
use crate::scans::analytics::StatsRows;
use crate::scans::geo::GeoLocator;
use crate::scans::writer::ScanWriter;
use crate::stats::ServiceStats;
use crate::store::Store;

pub use accounts::AdminError;
pub use admin::{AccountSummary, Actor};
pub use auth::{AuthContext, AuthError};
pub use bulk::BulkCaller;
pub use customers::{AccountError, PlanChange, SignUp};
pub use links::{LINK_CACHE_TTL, LinkPage, Resolution};
pub use maintenance::{Flusher, NotReady, PruneReport};
pub use opening::{Landing, Opening, PasswordPrompt};
pub use scan_export::{ScanExport, ScanPager};
pub use scans::{MAX_SCANS_PER_VISITOR_MINUTE, PreparedScan, ScanError, ScanOutcome, Skip, Visit};
pub use sessions::{LoginError, SessionContext};
pub use throttle::{
    AUTH_FAILURE_BURST, FORM_ADDRESS_BURST, LINK_PASSWORD_BURST, LOGIN_ACCOUNT_BURST,
    LOGIN_ADDRESS_BURST,
};
pub use visits::{InMemoryVisit, PageKind, Recording, VisitFacts, VisitOutcome};
pub use webhooks::{Delivery, USAGE_THRESHOLDS, WebhookSettings};

use auth::CachedKey;
use cache::BoundedCache;
use throttle::{AuthThrottle, DashboardThrottles, LinkPasswordThrottle};
use webhooks::WebhookState;

/// Most keys kept in memory; beyond it the key cache starts over.
const KEY_CACHE_MAX: usize = 100_000;
/// Most links kept in the redirect cache; beyond it the cache starts over.
const LINK_CACHE_MAX: usize = 100_000;
/// Most settled rollups kept for analytics; beyond it the cache starts over.
const ROLLUP_CACHE_MAX: usize = 256;
/// Most visitor salts kept: only today's and yesterday's are in use.
const SALT_CACHE_MAX: usize = 8;
/// Most visitors whose scans of the current minute are counted; beyond it the count starts over
/// (100,000 entries of 40 bytes: 4 MB).
const VISITOR_CACHE_MAX: usize = 100_000;

/// The service over a store `S` and a clock `C`.
pub struct Service<S: Store, C: Clock> {
    store: Arc<S>,
    clock: C,
    geo: Arc<dyn GeoLocator>,
    meter: Meter,
    /// Key lookups by secret hash, valid while the store's config version is unchanged.
    keys: BoundedCache<KeyHash, CachedKey>,
    /// Live links by short code for the redirect fast path, with when they were read.
    links: BoundedCache<ShortCode, (Link, Instant)>,
    /// Rollups of days that take no more scans, by link and day range.
    rollups: BoundedCache<(LinkId, NaiveDate, NaiveDate), StatsRows>,
    /// Visitor salts by UTC day.
    salts: BoundedCache<NaiveDate, [u8; 32]>,
    /// Scans counted this minute by visitor hash (which includes the link): (minute, count).
    visitors: BoundedCache<[u8; 16], (i64, u32)>,
    /// Failed authentications per client address.
    auth_failures: AuthThrottle,
    /// Failed logins, sign-ups and e-mail requests of the dashboard.
    dashboard: DashboardThrottles,
    /// Wrong link passwords per link and client address.
    link_passwords: LinkPasswordThrottle,
    /// The operator's sign-up settings.
    policy: SignupPolicy,
    /// Webhook settings, the subscribed accounts and what this process already sent.
    webhooks: WebhookState,
    writer: ScanWriter,
    /// Counters of the writer and the caches, for metrics.
    stats: ServiceStats,
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Builds the service with rate limits and counters in this process's memory: loads this
    /// month's usage counters and starts the scan writer.
    pub fn new(store: Arc<S>, clock: C, geo: Arc<dyn GeoLocator>) -> Result<Self, StoreError> {
        Self::with_limit_state(store, clock, geo, Arc::new(MemoryLimits::new()))
    }

    /// [`Service::new`] with the limiters' and counters' state in `limits`, for example a state
    /// several servers share so that a key's rate and an account's quota hold across them.
    pub fn with_limit_state(
        store: Arc<S>,
        clock: C,
        geo: Arc<dyn GeoLocator>,
        limits: Arc<dyn LimitState>,
    ) -> Result<Self, StoreError> {
        let month = UsageMonth::of(clock.now());
        let meter = Meter::with_state(limits);
        let counts = store.read(|tx| tx.usage(month))?;
        meter.load(month, &counts);
        let stats = ServiceStats::default();
        let webhooks = WebhookState::default();
        let subscriptions = Arc::clone(&webhooks.subscriptions);
        let writer = ScanWriter::spawn_with_events(
            Arc::clone(&store),
            Arc::clone(&stats.writer),
            subscriptions,
        )
        .map_err(|e| StoreError::Backend(format!("cannot start the scan writer thread: {e}")))?;
        Ok(Self {
            store,
            clock,
            geo,
            meter,
            keys: BoundedCache::new(KEY_CACHE_MAX),
            links: BoundedCache::new(LINK_CACHE_MAX),
            rollups: BoundedCache::new(ROLLUP_CACHE_MAX),
            salts: BoundedCache::new(SALT_CACHE_MAX),
            visitors: BoundedCache::new(VISITOR_CACHE_MAX),
            auth_failures: AuthThrottle::new(),
            dashboard: DashboardThrottles::new(),
            link_passwords: LinkPasswordThrottle::new(),
            policy: SignupPolicy::default(),
            webhooks,
            writer,
            stats,
        })
    }

    /// The service with the operator's sign-up settings (the default: open, Free only).
    pub fn with_signup_policy(mut self, policy: SignupPolicy) -> Self {
        self.policy = policy;
        self
    }

    /// The operator's sign-up settings.
    pub fn signup_policy(&self) -> &SignupPolicy {
        &self.policy
    }

    /// Counters of the scan writer and of the key, link and rollup caches, for metrics.
    pub fn stats(&self) -> &ServiceStats {
        &self.stats
    }

    /// The current time of the service's clock.
    pub fn now(&self) -> DateTime<Utc> {
        self.clock.now()
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
