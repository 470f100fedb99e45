//! `PgStore`: opening, the `Store` implementation, and closing connections off async threads.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use postgres::Config;
use qr_domain::accounts::config_change::ConfigChanges;

use qr_domain::scans::scan::{NewScan, ScanFate};
use qr_domain::{AccountId, ReadTx, Store, StoreError, WriteTx};

use crate::error::{OpenError, redact};
use crate::listener::{ConfigVersion, Listener, OwnChanges};
use crate::partitions;
use crate::pool::{Conn, Pool, Pooled};
use crate::scans;
use crate::schema;
use crate::tx::PgTx;
use crate::webhooks;

/// Connections for reads and configuration writes: at most this many statements of one server
/// run at once (scan batches and the change listener have a connection each besides). Eight
/// keeps a 2-core server's blocking threads busy while each waits a network round trip, and
/// three servers stay far below PostgreSQL's default `max_connections` of 100.
pub const POOL_SIZE: usize = 8;

/// Connections for scan batches. A batch of at least 512 scans (`SPLIT_FROM`) is split by link
/// across them, each part its own transaction on its own PostgreSQL backend, so one server's
/// scans are not capped by one backend's core: a batch's time is spent inside PostgreSQL
/// (about 80% of the CPU in the storage bench), one row at a time, per scan, visitor and rollup.
pub const SCAN_CONNECTIONS: usize = 2;

/// The smallest batch that is split: below it (a server under ordinary load commits a few
/// scans per batch) a second thread and commit cost more than the second backend saves.
const SPLIT_FROM: usize = 512;

/// How long opening a connection may take before the database counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// The advisory lock every write transaction takes: writes that read before they write (the
/// plan's link limit, a free short code, e-mail uniqueness) run one at a time across every
/// server, as on SQLite's single writer. Scan batches do not take it: they lock their links.
const WRITE_LOCK: i64 = 0x5152_504C_0002;

/// The PostgreSQL store: a pool of connections, [`SCAN_CONNECTIONS`] for scan batches, and a
/// thread that listens for configuration changes.
pub struct PgStore {
    url: String,
    config: Config,
    pool: Pool,
    scans: Vec<Mutex<Option<Conn>>>,
    version: Arc<ConfigVersion>,
    listener: Option<Listener>,
}

impl PgStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`, or a
    /// Unix socket directory as the host), checks and migrates its schema, and starts listening
    /// for configuration changes.
    ///
    /// Refuses, without writing to it, a database holding other tables and one migrated by a
    /// newer version. Must not be called from an async task (the client blocks).
    pub fn open(url: &str) -> Result<Self, OpenError> {
        let shown = redact(url);
        let mut config: Config =
            url.parse()
                .map_err(|e: postgres::Error| OpenError::InvalidUrl {
                    url: shown.clone(),
                    message: e.to_string(),
                })?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("qr");
        }
        // A server that vanished without closing the connection is noticed within a minute.
        config.keepalives_idle(Duration::from_secs(30));
        let mut first = Conn::connect(&config).map_err(|source| OpenError::Connect {
            url: shown.clone(),
            source,
        })?;
        // Everything up to here only reads, so a refused database stays untouched.
        let version = schema::check(first.client(), &shown)?;
        schema::migrate(first.client(), version, &shown)?;
        // Today's partitions and the next days', so the first scans land in their day's.
        partitions::create_ahead(first.client(), chrono::Utc::now().date_naive()).map_err(
            |source| OpenError::Postgres {
                url: shown.clone(),
                doing: "creating the coming days' partitions",
                source,
            },
        )?;
        let config_version = Arc::new(ConfigVersion::default());
        let listener =
            Listener::start(config.clone(), Arc::clone(&config_version)).map_err(|source| {
                OpenError::Connect {
                    url: shown.clone(),
                    source,
                }
            })?;
        let store = PgStore {
            url: shown,
            pool: Pool::new(config.clone(), POOL_SIZE),
            config,
            scans: (0..SCAN_CONNECTIONS).map(|_| Mutex::new(None)).collect(),
            version: config_version,
            listener: Some(listener),
        };
        close_off_thread(vec![first]);
        Ok(store)
    }

    /// The database's URL, without its password.
    pub fn url(&self) -> &str {
        &self.url
    }
}

impl Store for PgStore {
    fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn ReadTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut conn = self.pool.get()?;
        conn.begin(
            "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
            self.pool.config(),
        )?;
        let result = f(&PgTx::new(&mut conn));
        match result {
            Ok(value) => {
                conn.commit()?;
                Ok(value)
            }
            Err(e) => {
                conn.rollback();
                Err(e)
            }
        }
    }

    fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut dyn WriteTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut conn = self.pool.get()?;
        conn.begin(
            &format!("BEGIN; SELECT pg_advisory_xact_lock({WRITE_LOCK})"),
            self.pool.config(),
        )?;
        let result = {
            let mut tx = PgTx::new(&mut conn);
            f(&mut tx).and_then(|value| {
                // The triggers moved the version in this transaction: read it, so this server
                // refuses an old key at once, without waiting for its own notifications.
                let changed = tx
                    .config_changed
                    .get()
                    .then(|| tx.config_version())
                    .transpose()?
                    .map(|version| OwnChanges {
                        after: tx.version_before.get(),
                        version,
                        changes: tx.changes.take(),
                    });
                Ok((value, changed))
            })
        };
        match result {
            Ok((value, changed)) => {
                conn.commit()?;
                if let Some(own) = changed {
                    self.version.wrote(own);
                }
                Ok(value)
            }
            Err(e) => {
                conn.rollback();
                Err(e)
            }
        }
    }

    /// Each part of a split batch commits on its own: if one part fails after another
    /// committed, the whole batch reports the failure though some of its scans are stored, as
    /// when a commit's answer is lost on the way back. An acknowledged scan is always committed.
    fn record_scans(&self, scans: &[NewScan]) -> Result<Vec<ScanFate>, StoreError> {
        self.scan_batch(scans, None)
    }

    /// As [`Store::record_scans`]; each part writes its own scans' webhook events in its
    /// transaction, so an event is committed exactly when its scan is.
    fn record_scans_with_events(
        &self,
        scans: &[NewScan],
        subscribed: &HashSet<AccountId>,
    ) -> Result<Vec<ScanFate>, StoreError> {
        self.scan_batch(scans, Some(subscribed))
    }

    /// The version the listener last saw (or this server last wrote): an atomic read. While the
    /// listener is reconnecting, changes made elsewhere could go unseen, so this fails with
    /// [`StoreError::Unreachable`] and keys are not served from memory.
    fn config_version(&self) -> Result<u64, StoreError> {
        self.version.get()
    }

    /// From the changes the listener heard of (and this server wrote), kept in memory: no
    /// network either. Fails like [`Store::config_version`] while the listener reconnects.
    fn config_changes(&self, since: u64) -> Result<ConfigChanges, StoreError> {
        self.version.changes_since(since)
    }
}

impl PgStore {
    /// A scan batch split across the scan connections, with the subscribed accounts' events.
    fn scan_batch(
        &self,
        scans: &[NewScan],
        subscribed: Option<&HashSet<AccountId>>,
    ) -> Result<Vec<ScanFate>, StoreError> {
        let parts = scans::split(scans, self.scans.len(), SPLIT_FROM);
        let results: Vec<Result<Vec<ScanFate>, StoreError>> = std::thread::scope(|s| {
            let others: Vec<_> = parts
                .iter()
                .enumerate()
                .skip(1)
                .map(|(slot, positions)| {
                    s.spawn(move || self.record_part(slot, scans, positions, subscribed))
                })
                .collect();
            // A batch left whole goes to whichever scan connection is free: callers recording
            // at once (tests, tools) then run on both, as the parts of a split batch do.
            let whole = parts.len() == 1;
            let first = parts.first().map_or(Ok(Vec::new()), |p| {
                let connection = if whole {
                    self.free_scan_connection()
                } else {
                    0
                };
                self.record_part(connection, scans, p, subscribed)
            });
            std::iter::once(first)
                .chain(others.into_iter().map(|h| {
                    h.join().unwrap_or_else(|_| {
                        Err(StoreError::Backend("a scan batch thread panicked".into()))
                    })
                }))
                .collect()
        });
        let mut fates = vec![ScanFate::LinkGone; scans.len()];
        for (positions, result) in parts.iter().zip(results) {
            for (&i, fate) in positions.iter().zip(result?) {
                fates[i] = fate;
            }
        }
        Ok(fates)
    }

    /// The first scan connection not in use, else the first.
    fn free_scan_connection(&self) -> usize {
        self.scans
            .iter()
            .position(|c| c.try_lock().is_ok())
            .unwrap_or(0)
    }

    /// Stores the scans at `positions` of `scans` in one transaction on scan connection `slot`.
    fn record_part(
        &self,
        slot: usize,
        scans: &[NewScan],
        positions: &[usize],
        subscribed: Option<&HashSet<AccountId>>,
    ) -> Result<Vec<ScanFate>, StoreError> {
        let part: Vec<&NewScan> = positions.iter().filter_map(|&i| scans.get(i)).collect();
        let slot = self.scans[slot]
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let mut conn = Pooled::ready(slot, &self.config)?;
        conn.begin("BEGIN", &self.config)?;
        let stored = scans::insert_scans(&mut conn, &part).and_then(|ids| {
            if let Some(subscribed) = subscribed {
                webhooks::scan_events(&mut conn, &part, &ids, subscribed)?;
            }
            Ok(ids)
        });
        match stored {
            Ok(ids) => {
                conn.commit()?;
                Ok(ids)
            }
            Err(e) => {
                conn.rollback();
                Err(e)
            }
        }
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        drop(self.listener.take());
        let mut conns = self.pool.drain();
        conns.extend(
            self.scans
                .iter()
                .filter_map(|slot| slot.lock().unwrap_or_else(PoisonError::into_inner).take()),
        );
        close_off_thread(conns);
    }
}

/// Closes connections on a thread of their own: the client blocks on its own runtime when
/// closing, which would panic on an async worker thread (where the last `Arc` of a server's
/// store may be dropped).
fn close_off_thread(conns: Vec<Conn>) {
    if conns.is_empty() {
        return;
    }
    let closer = std::thread::Builder::new()
        .name("qr-pg-close".to_owned())
        .spawn(move || drop(conns));
    if let Ok(closer) = closer {
        // Closing sends one message per connection; waiting keeps a test's database free of
        // sessions once its store is gone.
        let _ = closer.join();
    }
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}
