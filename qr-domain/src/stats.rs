//! Counters and histograms of the service's own work (the scan writer, the in-memory caches) as plain atomics, read by whatever exports them (qr-http's `/metrics`); no exporter dependency here.
//!
//! Every update is one or two relaxed atomic additions, so the redirect and key paths pay a few
//! nanoseconds for them and never a lock.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicI64, AtomicU64, Ordering};

/// A histogram of whole-number observations (microseconds, items) with fixed upper bounds.
///
/// Observations are counted in the first bucket whose bound is at least the value, or in the
/// overflow bucket.
#[derive(Debug)]
pub struct Histogram {
    bounds: &'static [u64],
    /// One count per bound, then the overflow bucket.
    counts: Box<[AtomicU64]>,
    sum: AtomicU64,
}

/// A histogram's state at one moment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistogramSnapshot {
    /// `(upper bound, observations above the previous bound and at most this one)`, ascending;
    /// the overflow bucket is `count` minus their sum.
    pub buckets: Vec<(u64, u64)>,
    /// Every observation, the overflow bucket included.
    pub count: u64,
    /// The sum of every observation.
    pub sum: u64,
}

impl Histogram {
    /// An empty histogram over ascending `bounds`.
    pub fn new(bounds: &'static [u64]) -> Self {
        Self {
            bounds,
            counts: (0..=bounds.len()).map(|_| AtomicU64::new(0)).collect(),
            sum: AtomicU64::new(0),
        }
    }

    /// Counts one observation.
    pub fn observe(&self, value: u64) {
        let bucket = self.bounds.partition_point(|&bound| bound < value);
        self.counts[bucket].fetch_add(1, Ordering::Relaxed);
        self.sum.fetch_add(value, Ordering::Relaxed);
    }

    /// The counts per bucket, the total and the sum (each read on its own, so a snapshot taken
    /// during observations may be off by the ones in flight).
    pub fn snapshot(&self) -> HistogramSnapshot {
        let buckets: Vec<(u64, u64)> = self
            .bounds
            .iter()
            .zip(self.counts.iter())
            .map(|(bound, count)| (*bound, count.load(Ordering::Relaxed)))
            .collect();
        let overflow = self.counts[self.bounds.len()].load(Ordering::Relaxed);
        HistogramSnapshot {
            count: buckets.iter().map(|(_, n)| n).sum::<u64>() + overflow,
            buckets,
            sum: self.sum.load(Ordering::Relaxed),
        }
    }
}

/// Hits and misses of one cache.
#[derive(Debug, Default)]
pub struct CacheCounter {
    hits: AtomicU64,
    misses: AtomicU64,
}

impl CacheCounter {
    /// Counts a lookup that found (`true`) or missed its entry, and passes `found` through.
    pub fn record<T>(&self, found: Option<T>) -> Option<T> {
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Lookups that found their entry.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    /// Lookups that did not.
    pub fn misses(&self) -> u64 {
        self.misses.load(Ordering::Relaxed)
    }
}

/// Upper bounds of the group-commit latency histogram, in microseconds (100 µs to 5 s: an
/// SQLite commit with fsync takes about 1 ms, a PostgreSQL one a few).
pub const COMMIT_MICROS_BOUNDS: &[u64] = &[
    100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000, 100_000, 250_000, 500_000,
    1_000_000, 2_500_000, 5_000_000,
];

/// Upper bounds of the batch-size histogram, in scans (1 to the writer's 4,096).
pub const BATCH_SIZE_BOUNDS: &[u64] = &[1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1_024, 2_048, 4_096];

/// What the scan writer did.
#[derive(Debug)]
pub struct WriterStats {
    /// Scans queued and not yet taken by the writer.
    queued: AtomicI64,
    /// Scans committed with an id (skipped ones, whose link was deleted, are not counted).
    recorded: AtomicU64,
    /// Scans whose batch failed to commit.
    failed: AtomicU64,
    /// Scans per committed batch.
    batch_sizes: Histogram,
    /// Time of each `record_scans` call, in microseconds.
    commit_micros: Histogram,
    /// Whether the writer thread runs.
    alive: AtomicBool,
}

impl Default for WriterStats {
    fn default() -> Self {
        Self {
            queued: AtomicI64::new(0),
            recorded: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            batch_sizes: Histogram::new(BATCH_SIZE_BOUNDS),
            commit_micros: Histogram::new(COMMIT_MICROS_BOUNDS),
            alive: AtomicBool::new(false),
        }
    }
}

impl WriterStats {
    pub(crate) fn queued(&self) {
        self.queued.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn taken(&self, scans: usize) {
        self.queued.fetch_sub(scans as i64, Ordering::Relaxed);
    }

    pub(crate) fn committed(&self, scans: usize, recorded: u64, micros: u64) {
        self.batch_sizes.observe(scans as u64);
        self.commit_micros.observe(micros);
        self.recorded.fetch_add(recorded, Ordering::Relaxed);
    }

    pub(crate) fn failed(&self, scans: usize, micros: u64) {
        self.batch_sizes.observe(scans as u64);
        self.commit_micros.observe(micros);
        self.failed.fetch_add(scans as u64, Ordering::Relaxed);
    }

    pub(crate) fn set_alive(&self, alive: bool) {
        self.alive.store(alive, Ordering::Relaxed);
    }

    /// Scans waiting for the writer.
    pub fn queue_depth(&self) -> u64 {
        self.queued.load(Ordering::Relaxed).max(0) as u64
    }

    /// Scans committed.
    pub fn recorded(&self) -> u64 {
        self.recorded.load(Ordering::Relaxed)
    }

    /// Scans whose batch failed.
    pub fn failed_scans(&self) -> u64 {
        self.failed.load(Ordering::Relaxed)
    }

    /// Scans per batch.
    pub fn batch_sizes(&self) -> HistogramSnapshot {
        self.batch_sizes.snapshot()
    }

    /// Time per batch commit, in microseconds.
    pub fn commit_micros(&self) -> HistogramSnapshot {
        self.commit_micros.snapshot()
    }

    /// Whether the writer thread is running (it stops only at shutdown or if a callback panics).
    pub fn alive(&self) -> bool {
        self.alive.load(Ordering::Relaxed)
    }
}

/// The service's counters: the scan writer and the caches of keys, links and rollups.
#[derive(Debug, Default)]
pub struct ServiceStats {
    /// The group-commit scan writer (shared with its thread).
    pub writer: Arc<WriterStats>,
    /// Key lookups of keyed requests (`authenticate_cached`).
    pub keys: CacheCounter,
    /// Link lookups of redirects (`cached_link`).
    pub links: CacheCounter,
    /// Settled rollups of analytics.
    pub rollups: CacheCounter,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_counts_cumulatively() {
        static BOUNDS: &[u64] = &[1, 10, 100];
        let h = Histogram::new(BOUNDS);
        for v in [0, 1, 2, 10, 11, 1000] {
            h.observe(v);
        }
        let s = h.snapshot();
        assert_eq!(s.buckets, vec![(1, 2), (10, 2), (100, 1)]);
        assert_eq!(s.count, 6);
        assert_eq!(s.sum, 1024);
    }

    #[test]
    fn cache_counter_passes_the_lookup_through() {
        let c = CacheCounter::default();
        assert_eq!(c.record(Some(3)), Some(3));
        assert_eq!(c.record::<u8>(None), None);
        assert_eq!((c.hits(), c.misses()), (1, 1));
    }
}
