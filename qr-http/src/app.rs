//! The application state every request shares: the service, the two work queues, and the server's settings.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, Utc};
use hyper::HeaderMap;
use qr_domain::Clock;
use tokio::sync::{Notify, Semaphore};

use crate::bootstrap::{AppService, AppWeb};
use crate::client_ip::TrustedProxies;
use crate::config::Limits;
use crate::error::ApiError;
use crate::logo::LogoFetcher;
use crate::metrics::Metrics;
use crate::ops::MetricsToken;
use crate::request_id::RequestIds;

/// A clock behind an `Arc<dyn Clock>`, so tests can inject a [`qr_domain::TestClock`].
#[derive(Clone)]
pub struct SharedClock(Arc<dyn Clock>);

/// The application: routing, the request pipeline and the endpoints. Cheap to clone.
#[derive(Clone)]
pub struct App {
    inner: Arc<Inner>,
}

struct Inner {
    service: Arc<AppService>,
    /// The dashboard, mounted at `/`, `/dashboard…` and `/static/…`.
    web: Arc<AppWeb>,
    /// Permits for short blocking work (store access); waiting requests queue in order.
    store_permits: Arc<Semaphore>,
    /// Permits for long CPU-bound work (large images, batches), one per core.
    heavy_permits: Arc<Semaphore>,
    base_url: String,
    proxies: TrustedProxies,
    limits: Limits,
    logos: LogoFetcher,
    metrics: Metrics,
    metrics_token: Option<MetricsToken>,
    request_ids: RequestIds,
    /// The database, for its size on disk in metrics.
    store: Arc<qr_store::Database>,
    /// Woken (one waiter per freed place) each time the scan writer takes scans out of its
    /// full queue: redirects waiting for room wait here, holding no thread or store permit.
    scan_queue_room: Arc<ScanQueueRoom>,
}

/// The redirects waiting for room in the scan writer's full queue, and what wakes them.
pub(crate) struct ScanQueueRoom {
    notify: Notify,
    /// Counted before a waiter registers, so a wake is never lost: one that comes before the
    /// registration leaves a permit the registration takes.
    waiting: AtomicUsize,
}

impl ScanQueueRoom {
    /// On the writer thread, after each batch it takes: wakes at most one waiter per freed
    /// place, and costs one atomic read when nobody waits (every batch of ordinary traffic).
    fn freed(&self, places: usize) {
        for _ in 0..places.min(self.waiting.load(Ordering::Acquire)) {
            self.notify.notify_one();
        }
    }

    /// Counts the caller as waiting until the returned guard is dropped (the visit queued, or
    /// its client gone).
    pub(crate) fn wait(&self) -> RoomWaiter<'_> {
        self.waiting.fetch_add(1, Ordering::AcqRel);
        RoomWaiter(self)
    }
}

/// A redirect counted as waiting for room; [`RoomWaiter::notified`] is what it waits on.
pub(crate) struct RoomWaiter<'a>(&'a ScanQueueRoom);

impl RoomWaiter<'_> {
    /// The next wake-up.
    pub(crate) fn notified(&self) -> tokio::sync::futures::Notified<'_> {
        self.0.notify.notified()
    }
}

impl Drop for RoomWaiter<'_> {
    fn drop(&mut self) {
        self.0.waiting.fetch_sub(1, Ordering::AcqRel);
    }
}

/// What [`App::new`] is built from; the bootstrap fills it in.
pub(crate) struct AppParts {
    pub(crate) service: Arc<AppService>,
    pub(crate) web: Arc<AppWeb>,
    /// Most store operations running at once (the store's read connections).
    pub(crate) store_concurrency: usize,
    pub(crate) base_url: String,
    pub(crate) proxies: TrustedProxies,
    pub(crate) limits: Limits,
    pub(crate) logos: LogoFetcher,
    /// Whether requests are counted for `/metrics` (a metrics address or token is configured).
    pub(crate) metrics_enabled: bool,
    pub(crate) metrics_token: Option<MetricsToken>,
    pub(crate) store: Arc<qr_store::Database>,
}

impl SharedClock {
    /// Wraps a clock.
    pub fn new(clock: Arc<dyn Clock>) -> Self {
        Self(clock)
    }

    /// The system clock.
    pub fn system() -> Self {
        Self(Arc::new(qr_domain::SystemClock))
    }
}

impl Clock for SharedClock {
    fn now(&self) -> DateTime<Utc> {
        self.0.now()
    }
}

impl std::fmt::Debug for SharedClock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("SharedClock").field(&self.0.now()).finish()
    }
}

impl App {
    pub(crate) fn new(parts: AppParts) -> App {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZeroUsize::get);
        let scan_queue_room = Arc::new(ScanQueueRoom {
            notify: Notify::new(),
            waiting: AtomicUsize::new(0),
        });
        let room = Arc::clone(&scan_queue_room);
        parts
            .service
            .on_scan_queue_room(move |places| room.freed(places));
        App {
            inner: Arc::new(Inner {
                service: parts.service,
                web: parts.web,
                store_permits: Arc::new(Semaphore::new(parts.store_concurrency)),
                heavy_permits: Arc::new(Semaphore::new(cores)),
                base_url: parts.base_url,
                proxies: parts.proxies,
                limits: parts.limits,
                logos: parts.logos,
                metrics: Metrics::new(parts.metrics_enabled),
                metrics_token: parts.metrics_token,
                request_ids: RequestIds::new(),
                store: parts.store,
                scan_queue_room,
            }),
        }
    }

    /// What redirects whose scan found the writer's queue full wait on (see
    /// `redirect::wait_for_room`).
    pub(crate) fn scan_queue_room(&self) -> &ScanQueueRoom {
        &self.inner.scan_queue_room
    }

    /// The service, for embedders and tests (accounts, keys, flushing).
    pub fn service(&self) -> &Arc<AppService> {
        &self.inner.service
    }

    /// The dashboard.
    pub(crate) fn web(&self) -> &Arc<AppWeb> {
        &self.inner.web
    }

    /// Whether the database was opened read-only (on a read-only file system): scans are not
    /// recorded and writes are answered 503.
    pub fn read_only(&self) -> bool {
        self.inner.service.read_only()
    }

    /// The public base URL.
    pub fn base_url(&self) -> &str {
        &self.inner.base_url
    }

    pub(crate) fn limits(&self) -> &Limits {
        &self.inner.limits
    }

    pub(crate) fn logos(&self) -> &LogoFetcher {
        &self.inner.logos
    }

    pub(crate) fn metrics(&self) -> &Metrics {
        &self.inner.metrics
    }

    pub(crate) fn metrics_token(&self) -> Option<&MetricsToken> {
        self.inner.metrics_token.as_ref()
    }

    pub(crate) fn request_ids(&self) -> &RequestIds {
        &self.inner.request_ids
    }

    /// The SQLite file's and its log's sizes (`None` on PostgreSQL).
    pub(crate) fn disk_usage(&self) -> Option<qr_store::DiskUsage> {
        self.inner.store.disk_usage()
    }

    /// The database engine's name, for metrics.
    pub(crate) fn engine(&self) -> &'static str {
        match self.inner.store.engine() {
            qr_store::Engine::Sqlite => "sqlite",
            qr_store::Engine::Postgres => "postgresql",
        }
    }

    /// The client's address: the peer, or what a trusted proxy says.
    pub(crate) fn client_ip(&self, peer: SocketAddr, headers: &HeaderMap) -> Option<IpAddr> {
        self.inner.proxies.client_ip(peer, headers)
    }

    /// Whether a connection's peer is a trusted reverse proxy.
    pub(crate) fn trusts_peer(&self, peer: IpAddr) -> bool {
        self.inner
            .proxies
            .trusts(qr_domain::accounts::access::canonical(peer))
    }

    /// Runs short blocking service work (store access) off the async worker threads. At most
    /// the store's read connections run at once and the others wait their turn in order: a few
    /// threads sharing the cores finish each request sooner than dozens time-slicing them, which
    /// keeps the slowest answers close to the typical one under load.
    pub(crate) async fn blocking<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        F: FnOnce(&AppService) -> T + Send + 'static,
        T: Send + 'static,
    {
        self.run_blocking(&self.inner.store_permits, f).await
    }

    /// Runs long CPU-bound work (large images, batches) off the async worker threads, one task
    /// per core at a time, without holding up store access.
    pub(crate) async fn blocking_heavy<T, F>(&self, f: F) -> Result<T, ApiError>
    where
        F: FnOnce(&AppService) -> T + Send + 'static,
        T: Send + 'static,
    {
        self.run_blocking(&self.inner.heavy_permits, f).await
    }

    async fn run_blocking<T, F>(&self, permits: &Arc<Semaphore>, f: F) -> Result<T, ApiError>
    where
        F: FnOnce(&AppService) -> T + Send + 'static,
        T: Send + 'static,
    {
        let permit = Arc::clone(permits)
            .acquire_owned()
            .await
            .map_err(|e| ApiError::Internal(format!("blocking permits closed: {e}")))?;
        let service = Arc::clone(&self.inner.service);
        // Log lines of the work carry the request's id like those of the async part.
        let span = tracing::Span::current();
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let _entered = span.enter();
            f(&service)
        })
        .await
        .map_err(|e| ApiError::Internal(format!("blocking task failed: {e}")))
    }
}

impl std::fmt::Debug for App {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("App")
            .field("base_url", &self.inner.base_url)
            .finish_non_exhaustive()
    }
}
