//! Maintenance: persisting counters (`flush` and the `Flusher` thread), pruning expired scans, the store's health, shutdown.

use std::sync::Arc;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::JoinHandle;
use std::time::Duration;

use chrono::Days;

use super::Service;
use crate::clock::Clock;
use crate::dashboard::session::{SESSION_ABSOLUTE, SESSION_IDLE};
use crate::error::StoreError;
use crate::scans::analytics::retention_first_day;
use crate::store::Store;

/// How many days after today [`Service::prune`] prepares the scan storage of: pruning runs
/// hourly, so three days outlast 72 failed or missed runs before a day's scans arrive
/// unprepared (PostgreSQL then keeps them in its default partition, still counted and read).
const SCAN_DAYS_AHEAD: u64 = 3;

/// What a pruning run removed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PruneReport {
    /// Scans deleted because they are older than their account's retention.
    pub scans_deleted: u64,
    /// Expired one-time tokens and passkey ceremonies, and ended sessions, deleted.
    pub credentials_deleted: u64,
    /// Delivered and failed webhook events past their listing time deleted.
    pub webhook_events_deleted: u64,
    /// Expired idempotency records of bulk requests deleted (kept 24 hours).
    pub idempotency_deleted: u64,
    /// Audit log entries older than their workspace's retention deleted.
    pub audit_deleted: u64,
}

/// Why [`Service::check_ready`] says the service cannot take writes.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotReady {
    /// The scan writer thread has stopped (after shutdown began, or a panic).
    #[error("the scan writer has stopped")]
    WriterStopped,
    /// The store refused the write transaction.
    #[error("the database cannot take writes: {0}")]
    Store(StoreError),
}

/// A background thread that calls [`Service::flush`] periodically and once more when stopped.
pub struct Flusher {
    stop: Option<mpsc::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

impl<S: Store, C: Clock> Service<S, C> {
    /// Persists usage counters and key last-use times changed since the last flush. Call at
    /// least once a second (see [`Flusher`]) and at shutdown.
    pub fn flush(&self) -> Result<(), StoreError> {
        let dirty = self.meter.take_dirty(self.clock.now());
        if dirty.usage.is_empty() && dirty.last_used.is_empty() && dirty.daily.is_empty() {
            return Ok(());
        }
        let mut reached = Vec::new();
        // Read before the transaction: a store may not be read from inside its own write.
        let subscribed = self.usage_subscribed();
        let result = self.store.write(|tx| {
            reached.clear();
            for (month, counts) in &dirty.usage {
                tx.save_usage(*month, counts)?;
                self.usage_threshold_events(tx, &subscribed, *month, counts, &mut reached)?;
            }
            for (day, counts) in &dirty.daily {
                tx.add_daily_usage(*day, counts)?;
            }
            tx.touch_keys(&dirty.last_used)
        });
        if result.is_err() {
            self.meter.restore_dirty(dirty);
        } else {
            self.thresholds_recorded(reached);
        }
        result
    }

    /// Prepares the coming days' scan storage, deletes scans older than each account's
    /// retention, destroys stale visitor salts, deletes expired tokens and ended sessions, and
    /// deletes audit log entries past their workspace's retention.
    /// Run it periodically (hourly is plenty); analytics never report expired scans, and ended
    /// sessions and tokens never work, either way.
    ///
    /// Scans go in two steps. First the days no account may still read, whole
    /// ([`crate::store::ScanWrites::drop_scan_days_before`]): those before the first day the
    /// longest limited retention reads, sparing days with scans of an account whose retention
    /// is unlimited. Then each account's scans and rollups past its own retention, row by row,
    /// inside the days some longer retention still keeps.
    pub fn prune(&self) -> Result<PruneReport, StoreError> {
        let now = self.clock.now();
        let today = now.date_naive();
        let mut report = PruneReport::default();
        let ahead = today
            .checked_add_days(Days::new(SCAN_DAYS_AHEAD))
            .unwrap_or(today);
        self.store.write(|tx| tx.prepare_scan_days(today, ahead))?;
        let mut limited = Vec::new();
        let mut unlimited = Vec::new();
        for account in self.accounts()? {
            match retention_first_day(today, account.limits().retention) {
                Some(first) => limited.push((account.id, first)),
                None => unlimited.push(account.id),
            }
        }
        if let Some(readable_from) = limited.iter().map(|(_, first)| *first).min() {
            report.scans_deleted += self
                .store
                .write(|tx| tx.drop_scan_days_before(readable_from, &unlimited))?;
        }
        for (account, first) in limited {
            report.scans_deleted += self.store.write(|tx| tx.prune_scans(account, first))?;
        }
        let keep_from = today.checked_sub_days(Days::new(1)).unwrap_or(today);
        self.store
            .write(|tx| tx.forget_visitors_before(keep_from))?;
        report.credentials_deleted = self
            .store
            .write(|tx| tx.prune_credentials(now, now - SESSION_IDLE, now - SESSION_ABSOLUTE))?;
        report.credentials_deleted += self.store.write(|tx| tx.prune_ceremonies(now))?;
        report.webhook_events_deleted = self.prune_webhook_events()?;
        report.idempotency_deleted = self.store.write(|tx| tx.prune_idempotency_records(now))?;
        report.audit_deleted = self.prune_audit_logs()?;
        Ok(report)
    }

    /// Checks that the store answers (for health checks) by reading its configuration version.
    pub fn check_store(&self) -> Result<(), StoreError> {
        self.store.config_version().map(drop)
    }

    /// Whether the store refuses every write (a database on a read-only file system): reads
    /// work, scans cannot be recorded.
    pub fn read_only(&self) -> bool {
        self.store.is_read_only()
    }

    /// Whether the service can take writes now (for readiness probes): the scan writer runs,
    /// the store was not opened read-only, and a write transaction can be begun and committed
    /// (on SQLite that takes the write lock; on PostgreSQL a round trip to the server).
    pub fn check_ready(&self) -> Result<(), NotReady> {
        if !self.stats.writer.alive() {
            return Err(NotReady::WriterStopped);
        }
        if self.store.is_read_only() {
            return Err(NotReady::Store(StoreError::ReadOnly));
        }
        self.store
            .write(|_| Ok::<(), StoreError>(()))
            .map_err(NotReady::Store)
    }

    /// Commits queued scans, stops the writer and flushes the counters.
    pub fn shutdown(&self) -> Result<(), StoreError> {
        self.writer.shutdown();
        self.flush()
    }
}

impl Flusher {
    /// Starts a thread calling `service.flush()` every `period`, and once more on [`Flusher::stop`].
    /// Flush errors are retried at the next tick (the counters stay dirty).
    pub fn spawn<S: Store, C: Clock>(
        service: Arc<Service<S, C>>,
        period: Duration,
    ) -> std::io::Result<Self> {
        let (stop, stopped) = mpsc::channel::<()>();
        let thread = std::thread::Builder::new()
            .name("qr-usage-flusher".to_owned())
            .spawn(move || {
                loop {
                    let done =
                        !matches!(stopped.recv_timeout(period), Err(RecvTimeoutError::Timeout));
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
