//! The service: every rule of the platform behind one type that the HTTP server, the CLI and embedders use.
//!
//! Request path, in the order the HTTP layer should call it:
//! [`Service::authenticate`] (401), [`Service::authorize`] (403),
//! [`Service::admit`] (429; counts the request). Persistence of counters is
//! driven by [`Service::flush`], called by a [`Flusher`] thread every second
//! and once more at shutdown.
//!
//! The methods are grouped by seam, one file each, in the folder of the aggregate they serve:
//! `accounts/service.rs`, `accounts/auth.rs` (keys and the request path) and `accounts/admin.rs`
//! (roles, plan requests, disabling); `links/service.rs` (links and short-code resolution),
//! `links/bulk_service.rs`, `links/opening.rs` (visits to links with campaign settings: gates,
//! password, rules and variants) and `links/visits.rs` (a visit to a short code as one use case:
//! a redirect or a page, from memory when it can); `scans/service.rs`,
//! `scans/analytics_service.rs` and `scans/scan_export.rs`; `webhooks/service.rs`; and for the
//! dashboard, `dashboard/customers.rs` (sign-up, e-mailed tokens, passwords, e-mail changes,
//! deletion) and `dashboard/sessions.rs` (login and sessions). Here stay `maintenance` (flush,
//! prune, shutdown, the [`Flusher`]), `export`, `cache` (the one cache type behind the
//! in-memory caches) and `throttle` (the GCRA throttles of failures and attempts).

pub(crate) mod cache;
mod export;
mod maintenance;
pub(crate) mod throttle;

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, NaiveDate, Utc};

use crate::accounts::account::SignupPolicy;
use crate::accounts::key::KeyHash;
use crate::accounts::limit_state::{LimitState, MemoryLimits};
use crate::accounts::limits::{Meter, UsageMonth};
use crate::clock::Clock;
use crate::designs::link_code::{LINK_CODE_CACHE_MAX, LOGO_CACHE_MAX, LinkCodeEntry, LogoKey};
use crate::domains::service::{DomainConfig, DomainState};
use crate::error::StoreError;
use crate::ids::{AccountId, LinkId};
use crate::links::link::Link;
use crate::links::service::CodeAddress;
use crate::scans::analytics::StatsRows;
use crate::scans::geo::GeoLocator;
use crate::scans::writer::ScanWriter;
use crate::stats::ServiceStats;
use crate::store::Store;

pub use crate::accounts::admin::{AccountSummary, Actor};
pub use crate::accounts::auth::{AuthContext, AuthError};
pub use crate::accounts::service::AdminError;
pub use crate::dashboard::customers::{AccountError, PlanChange, SignUp};
pub use crate::dashboard::sessions::{LoginError, SessionContext};
pub use crate::links::bulk_service::BulkCaller;
pub use crate::links::opening::{CapAnswer, Landing, Opening, PasswordPrompt};
pub use crate::links::service::{LINK_CACHE_TTL, LinkPage, Resolution};
pub use crate::links::visits::{
    InMemoryVisit, PageKind, PendingScan, Recording, VisitFacts, VisitOutcome,
};
pub use crate::scans::scan_export::{ScanExport, ScanPager};
pub use crate::scans::service::{
    MAX_SCANS_PER_VISITOR_MINUTE, PreparedScan, ScanError, ScanOutcome, Skip, Visit,
};
pub use crate::webhooks::service::{Delivery, USAGE_THRESHOLDS, WebhookSettings};
pub use maintenance::{Flusher, NotReady, PruneReport};
pub use throttle::{
    AUTH_FAILURE_BURST, FORM_ADDRESS_BURST, LINK_PASSWORD_BURST, LOGIN_ACCOUNT_BURST,
    LOGIN_ADDRESS_BURST,
};

use crate::accounts::auth::CachedKey;
use crate::webhooks::service::WebhookState;
use cache::BoundedCache;
use throttle::{AuthThrottle, DashboardThrottles, LinkPasswordThrottle};

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
    pub(crate) store: Arc<S>,
    pub(crate) clock: C,
    pub(crate) geo: Arc<dyn GeoLocator>,
    pub(crate) meter: Meter,
    /// Key lookups by secret hash, valid while the store's config version is unchanged.
    pub(crate) keys: BoundedCache<KeyHash, CachedKey>,
    /// Live links by short code for the redirect fast path, with when they were read.
    pub(crate) links: BoundedCache<CodeAddress, (Link, Instant)>,
    /// Rollups of days that take no more scans, by link and day range.
    pub(crate) rollups: BoundedCache<(LinkId, NaiveDate, NaiveDate), StatsRows>,
    /// Visitor salts by UTC day.
    pub(crate) salts: BoundedCache<NaiveDate, [u8; 32]>,
    /// Scans counted this minute by visitor hash (which includes the link): (minute, count).
    pub(crate) visitors: BoundedCache<[u8; 16], (i64, u32)>,
    /// Failed authentications per client address.
    pub(crate) auth_failures: AuthThrottle,
    /// Failed logins, sign-ups and e-mail requests of the dashboard.
    pub(crate) dashboard: DashboardThrottles,
    /// Wrong link passwords per link and client address.
    pub(crate) link_passwords: LinkPasswordThrottle,
    /// The operator's sign-up settings.
    pub(crate) policy: SignupPolicy,
    /// Webhook settings, the subscribed accounts and what this process already sent.
    pub(crate) webhooks: WebhookState,
    pub(crate) writer: ScanWriter,
    /// Counters of the writer and the caches, for metrics.
    pub(crate) stats: ServiceStats,
    /// Domain settings and the domains of request hosts.
    pub(crate) domains: DomainState,
    /// Designs' logos decoded for drawing, by design and content.
    pub(crate) logos: BoundedCache<LogoKey, qr_core::Logo>,
    /// Links with the design their code is drawn in, by account and link, with when they were
    /// read (`GET /api/links/qr` without a store read).
    pub(crate) link_codes: BoundedCache<(AccountId, LinkId), LinkCodeEntry>,
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
            domains: DomainState::new(DomainConfig::default()),
            logos: BoundedCache::new(LOGO_CACHE_MAX),
            link_codes: BoundedCache::new(LINK_CODE_CACHE_MAX),
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
