//! The server's metrics: counted with atomics on the request path (one slot per route and status, precreated, so no lookup and no lock per request), and written in the Prometheus text format with prometheus-client when `/metrics` is scraped, together with the domain's counters and the database's size.

use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric, NoLabelSet};
use prometheus_client::metrics::MetricType;
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;
use prometheus_client::registry::Registry;
use qr_domain::LimitKind;
use qr_domain::stats::{Histogram, HistogramSnapshot, ServiceStats};
use qr_store::DiskUsage;

use crate::routes::{ROUTES, RouteSpec};

/// Routes outside the route table, labelled after its rows.
const OTHER_ROUTES: [&str; 9] = [
    "/livez",
    "/readyz",
    "/metrics",
    "/",
    "/dashboard/*",
    "/static/*",
    // A path that matched nothing (answered 404).
    "unmatched",
    "/domains/tls-check",
    // Any request on a customer's domain (its codes, root and app files).
    "customer domain",
];

/// The statuses the server answers with, each with its own slot; anything else counts as
/// `other`.
const STATUSES: [u16; 18] = [
    200, 201, 204, 302, 304, 400, 401, 403, 404, 405, 408, 410, 413, 422, 429, 500, 503, 0,
];
/// The label of each slot of [`STATUSES`].
const STATUS_LABELS: [&str; 18] = [
    "200", "201", "204", "302", "304", "400", "401", "403", "404", "405", "408", "410", "413",
    "422", "429", "500", "503", "other",
];

/// Upper bounds of the request latency histograms, in microseconds (100 µs to 10 s: a cached
/// redirect takes tens of microseconds, a batch of 1,000 images seconds).
const LATENCY_MICROS: &[u64] = &[
    100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 5_000_000, 10_000_000,
];

/// How a logo fetch ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LogoOutcome {
    /// Served from the cache.
    Cached,
    /// Downloaded and decoded.
    Fetched,
    /// Refused before connecting: invalid URL or scheme, or a non-public address.
    Refused,
    /// The host did not answer well: resolution, connection, status, redirects, timeout.
    Failed,
    /// Too large, not an image, or undecodable.
    Invalid,
}

const LOGO_LABELS: [&str; 5] = ["cached", "fetched", "refused", "failed", "invalid"];
const LIMIT_LABELS: [&str; 3] = ["monthly", "per_second", "batch_per_minute"];

/// Where a request went, for its metrics and its access-log line: a row of the route table or
/// one of the other routes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RouteId(usize);

impl RouteId {
    pub(crate) const LIVEZ: RouteId = RouteId(ROUTES.len());
    pub(crate) const READYZ: RouteId = RouteId(ROUTES.len() + 1);
    pub(crate) const METRICS: RouteId = RouteId(ROUTES.len() + 2);
    pub(crate) const ROOT: RouteId = RouteId(ROUTES.len() + 3);
    pub(crate) const DASHBOARD: RouteId = RouteId(ROUTES.len() + 4);
    pub(crate) const STATIC: RouteId = RouteId(ROUTES.len() + 5);
    pub(crate) const UNMATCHED: RouteId = RouteId(ROUTES.len() + 6);
    pub(crate) const TLS_CHECK: RouteId = RouteId(ROUTES.len() + 7);
    pub(crate) const CUSTOMER_DOMAIN: RouteId = RouteId(ROUTES.len() + 8);
    const COUNT: usize = ROUTES.len() + OTHER_ROUTES.len();

    /// The row of the route table `spec` is (each kind has one row).
    pub(crate) fn of(spec: &RouteSpec) -> RouteId {
        RouteId(
            ROUTES
                .iter()
                .position(|r| r.kind == spec.kind)
                .unwrap_or(Self::UNMATCHED.0),
        )
    }

    /// The dashboard's group of a path it owns.
    pub(crate) fn of_dashboard(path: &str) -> RouteId {
        if path == "/" {
            Self::ROOT
        } else if path.starts_with("/static/") {
            Self::STATIC
        } else {
            Self::DASHBOARD
        }
    }

    /// The route's template (`/r/{shortCode}`, `/dashboard/*`), never a raw path.
    pub(crate) fn template(self) -> &'static str {
        match ROUTES.get(self.0) {
            Some(spec) => spec.path,
            None => OTHER_ROUTES[self.0 - ROUTES.len()],
        }
    }
}

/// The counters of the request path.
#[derive(Debug)]
pub(crate) struct Metrics {
    /// Whether requests are counted (a metrics address or token is configured).
    enabled: bool,
    /// Requests by route (outer) and status slot (inner).
    requests: Box<[[AtomicU64; STATUSES.len()]]>,
    /// Request latency by route, in microseconds.
    latency: Box<[Histogram]>,
    /// 429s by the limit that refused.
    limited: [AtomicU64; 3],
    /// Logo fetches by outcome.
    logos: [AtomicU64; 5],
    /// Connections open now.
    connections: AtomicI64,
}

impl Metrics {
    /// Counters for the route table; `enabled` false makes recording a no-op.
    pub(crate) fn new(enabled: bool) -> Self {
        Self {
            enabled,
            requests: (0..RouteId::COUNT)
                .map(|_| std::array::from_fn(|_| AtomicU64::new(0)))
                .collect(),
            latency: (0..RouteId::COUNT)
                .map(|_| Histogram::new(LATENCY_MICROS))
                .collect(),
            limited: std::array::from_fn(|_| AtomicU64::new(0)),
            logos: std::array::from_fn(|_| AtomicU64::new(0)),
            connections: AtomicI64::new(0),
        }
    }

    /// Counts one answered request.
    pub(crate) fn request(&self, route: RouteId, status: u16, elapsed: Duration) {
        if !self.enabled {
            return;
        }
        let slot = STATUSES
            .iter()
            .position(|&s| s == status)
            .unwrap_or(STATUSES.len() - 1);
        self.requests[route.0][slot].fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        self.latency[route.0].observe(micros);
    }

    /// Counts a 429 by its limit.
    pub(crate) fn limited(&self, kind: LimitKind) {
        if !self.enabled {
            return;
        }
        let slot = match kind {
            LimitKind::MonthlyQuota => 0,
            LimitKind::PerSecond => 1,
            LimitKind::BatchPerMinute => 2,
        };
        self.limited[slot].fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a logo fetch by its outcome.
    pub(crate) fn logo(&self, outcome: LogoOutcome) {
        if !self.enabled {
            return;
        }
        self.logos[outcome as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a connection opened (`true`) or closed.
    pub(crate) fn connection(&self, opened: bool) {
        let step = if opened { 1 } else { -1 };
        self.connections.fetch_add(step, Ordering::Relaxed);
    }
}

/// Everything a scrape reads, gathered on the blocking pool (file sizes are system calls).
#[derive(Debug)]
pub(crate) struct Scrape<'a> {
    pub(crate) metrics: &'a Metrics,
    pub(crate) service: &'a ServiceStats,
    pub(crate) disk: Option<DiskUsage>,
    pub(crate) engine: &'static str,
}

impl Scrape<'_> {
    /// The Prometheus text exposition (format 0.0.4).
    pub(crate) fn render(self) -> String {
        // prometheus-client's collectors must be 'static: copy what is read into an owned one.
        let mut registry = Registry::default();
        registry.register_collector(Box::new(Snapshot::take(&self)));
        let mut out = String::with_capacity(16 * 1024);
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::prometheus_text::encode(&mut out, &registry);
        out
    }
}

/// The values of one scrape.
#[derive(Debug)]
struct Snapshot {
    requests: Vec<(&'static str, &'static str, u64)>,
    latency: Vec<(&'static str, HistogramSnapshot)>,
    limited: [u64; 3],
    logos: [u64; 5],
    connections: i64,
    scans_recorded: u64,
    scans_failed: u64,
    queue_depth: u64,
    batch_sizes: HistogramSnapshot,
    commit_micros: HistogramSnapshot,
    writer_alive: bool,
    caches: [(&'static str, u64, u64); 3],
    disk: Option<DiskUsage>,
    engine: &'static str,
}

impl Snapshot {
    fn take(scrape: &Scrape<'_>) -> Snapshot {
        let m = scrape.metrics;
        let mut requests = Vec::new();
        let mut latency = Vec::new();
        for route in 0..RouteId::COUNT {
            let template = RouteId(route).template();
            for (slot, counter) in m.requests[route].iter().enumerate() {
                let n = counter.load(Ordering::Relaxed);
                if n > 0 {
                    requests.push((template, STATUS_LABELS[slot], n));
                }
            }
            let histogram = m.latency[route].snapshot();
            if histogram.count > 0 {
                latency.push((template, histogram));
            }
        }
        let s = scrape.service;
        Snapshot {
            requests,
            latency,
            limited: m.limited.each_ref().map(|c| c.load(Ordering::Relaxed)),
            logos: m.logos.each_ref().map(|c| c.load(Ordering::Relaxed)),
            connections: m.connections.load(Ordering::Relaxed),
            scans_recorded: s.writer.recorded(),
            scans_failed: s.writer.failed_scans(),
            queue_depth: s.writer.queue_depth(),
            batch_sizes: s.writer.batch_sizes(),
            commit_micros: s.writer.commit_micros(),
            writer_alive: s.writer.alive(),
            caches: [
                ("keys", s.keys.hits(), s.keys.misses()),
                ("links", s.links.hits(), s.links.misses()),
                ("rollups", s.rollups.hits(), s.rollups.misses()),
            ],
            disk: scrape.disk,
            engine: scrape.engine,
        }
    }
}

/// Writes one metric family without labels.
fn single(
    encoder: &mut DescriptorEncoder<'_>,
    name: &str,
    help: &str,
    metric: &impl EncodeMetric,
) -> Result<(), std::fmt::Error> {
    metric.encode(encoder.encode_descriptor(name, help, None, metric.metric_type())?)
}

/// Writes a histogram of microseconds (`divisor` 1e6, in seconds) or of counts (`divisor` 1).
/// Dividing, not multiplying by 1e-6, keeps the bounds exact decimals (`0.0001`, not
/// `9.999999999999999e-05`).
fn histogram(
    mut metric: prometheus_client::encoding::MetricEncoder<'_>,
    snapshot: &HistogramSnapshot,
    divisor: f64,
) -> Result<(), std::fmt::Error> {
    let buckets: Vec<(f64, u64)> = snapshot
        .buckets
        .iter()
        .map(|&(bound, n)| (bound as f64 / divisor, n))
        .collect();
    metric.encode_histogram::<NoLabelSet>(
        snapshot.sum as f64 / divisor,
        snapshot.count,
        &buckets,
        None,
    )
}

impl Collector for Snapshot {
    fn encode(&self, mut encoder: DescriptorEncoder<'_>) -> Result<(), std::fmt::Error> {
        let mut family = encoder.encode_descriptor(
            "qr_http_requests",
            "HTTP requests answered, by route template and status.",
            None,
            MetricType::Counter,
        )?;
        for (route, status, n) in &self.requests {
            let labels = [("route", *route), ("status", *status)];
            ConstCounter::new(*n).encode(family.encode_family(&labels)?)?;
        }
        let mut family = encoder.encode_descriptor(
            "qr_http_request_duration_seconds",
            "Time from the request head to the response, by route template.",
            None,
            MetricType::Histogram,
        )?;
        for (route, snapshot) in &self.latency {
            let labels = [("route", *route)];
            histogram(family.encode_family(&labels)?, snapshot, 1e6)?;
        }
        let mut family = encoder.encode_descriptor(
            "qr_rate_limited",
            "Requests refused with 429, by the limit that refused them.",
            None,
            MetricType::Counter,
        )?;
        for (reason, n) in LIMIT_LABELS.iter().zip(self.limited) {
            ConstCounter::new(n).encode(family.encode_family(&[("reason", *reason)])?)?;
        }
        let mut family = encoder.encode_descriptor(
            "qr_logo_fetches",
            "Logo fetches of generate requests, by outcome.",
            None,
            MetricType::Counter,
        )?;
        for (outcome, n) in LOGO_LABELS.iter().zip(self.logos) {
            ConstCounter::new(n).encode(family.encode_family(&[("outcome", *outcome)])?)?;
        }
        single(
            &mut encoder,
            "qr_http_open_connections",
            "Client connections open now.",
            &ConstGauge::new(self.connections),
        )?;
        single(
            &mut encoder,
            "qr_scans_recorded",
            "Scans committed by the group-commit writer.",
            &ConstCounter::new(self.scans_recorded),
        )?;
        single(
            &mut encoder,
            "qr_scans_failed",
            "Scans whose group commit failed (the visitor was still redirected).",
            &ConstCounter::new(self.scans_failed),
        )?;
        single(
            &mut encoder,
            "qr_scan_queue_depth",
            "Scans queued for the writer and not yet taken.",
            &ConstGauge::new(self.queue_depth as i64),
        )?;
        single(
            &mut encoder,
            "qr_scan_writer_up",
            "1 while the scan writer thread runs.",
            &ConstGauge::new(i64::from(self.writer_alive)),
        )?;
        let family = encoder.encode_descriptor(
            "qr_scan_batch_size",
            "Scans per group commit.",
            None,
            MetricType::Histogram,
        )?;
        histogram(family, &self.batch_sizes, 1.0)?;
        let family = encoder.encode_descriptor(
            "qr_scan_commit_duration_seconds",
            "Time of each group commit of scans.",
            None,
            MetricType::Histogram,
        )?;
        histogram(family, &self.commit_micros, 1e6)?;
        for (name, help, pick) in [
            (
                "qr_cache_hits",
                "Lookups answered from memory, by cache.",
                0usize,
            ),
            (
                "qr_cache_misses",
                "Lookups that had to read the database, by cache.",
                1,
            ),
        ] {
            let mut family = encoder.encode_descriptor(name, help, None, MetricType::Counter)?;
            for (cache, hits, misses) in &self.caches {
                let n = if pick == 0 { *hits } else { *misses };
                ConstCounter::new(n).encode(family.encode_family(&[("cache", *cache)])?)?;
            }
        }
        if let Some(disk) = self.disk {
            single(
                &mut encoder,
                "qr_database_size_bytes",
                "Size of the SQLite database file.",
                &ConstGauge::new(i64::try_from(disk.database_bytes).unwrap_or(i64::MAX)),
            )?;
            single(
                &mut encoder,
                "qr_database_wal_size_bytes",
                "Size of the SQLite write-ahead log.",
                &ConstGauge::new(i64::try_from(disk.wal_bytes).unwrap_or(i64::MAX)),
            )?;
        }
        let mut family = encoder.encode_descriptor(
            "qr_build",
            "The server's version and database engine.",
            None,
            MetricType::Info,
        )?;
        family.encode_info(&[
            ("version", env!("CARGO_PKG_VERSION")),
            ("engine", self.engine),
        ])?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn route_ids_cover_the_table_and_the_other_routes() {
        for (i, spec) in ROUTES.iter().enumerate() {
            assert_eq!(RouteId::of(spec), RouteId(i));
            assert_eq!(RouteId(i).template(), spec.path);
        }
        assert_eq!(RouteId::LIVEZ.template(), "/livez");
        assert_eq!(RouteId::UNMATCHED.template(), "unmatched");
        assert_eq!(RouteId::of_dashboard("/"), RouteId::ROOT);
        assert_eq!(RouteId::of_dashboard("/static/app.css"), RouteId::STATIC);
        assert_eq!(
            RouteId::of_dashboard("/dashboard/links/x"),
            RouteId::DASHBOARD
        );
        assert_eq!(STATUSES.len(), STATUS_LABELS.len());
    }
}
