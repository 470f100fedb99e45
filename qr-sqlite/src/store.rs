//! `SqliteStore`: opening, connection setup, and the `Store` implementation.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use qr_domain::accounts::config_change::ConfigChanges;

use qr_domain::scans::scan::{NewScan, ScanFate};
use qr_domain::{AccountId, ReadTx, Store, StoreError, WriteTx};
use rusqlite::{Connection, OpenFlags, TransactionBehavior};

use crate::config_changes;
use crate::error::{OpenError, store_err};
use crate::scans;
use crate::schema;
use crate::tx::SqlTx;
use crate::webhooks;

/// How long a statement waits for another process's lock before failing with `Busy`.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// Read connections kept open: reads (redirect lookups, link lists, analytics) run on up to this
/// many connections at once, beside the writer.
pub const READ_CONNECTIONS: usize = 4;

/// The SQLite store: one writing connection, a few read-only ones, and one read-only connection
/// that only watches for changes (so the per-request cache check never waits behind a long read).
pub struct SqliteStore {
    path: PathBuf,
    read_only: bool,
    // Fields drop in order: the read connections close first, so the writer is the last
    // connection and checkpoints the write-ahead log into the database file on close.
    readers: Vec<Mutex<Connection>>,
    next_reader: AtomicUsize,
    watcher: Mutex<Watcher>,
    writer: Mutex<Connection>,
}

struct Watcher {
    conn: Connection,
    data_version: Option<i64>,
    config_version: u64,
}

impl SqliteStore {
    /// Opens (creating if missing) and migrates the database at `path`.
    ///
    /// Refuses, without writing to the file, a file that is not an SQLite database, a
    /// database of another application, and a database from a newer schema version.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, OpenError> {
        let path = path.as_ref();
        // Switching a new file to WAL and migrating it need locks that SQLite's busy handler does
        // not always wait for, so another process opening the same file at the same moment (a
        // server and a CLI started together) can make one attempt fail with "busy"; retry the
        // whole open until the busy timeout has passed.
        let started = std::time::Instant::now();
        loop {
            match SqliteStore::open_once(path) {
                Err(OpenError::Sqlite {
                    source: rusqlite::Error::SqliteFailure(failure, _),
                    ..
                }) if matches!(
                    failure.code,
                    rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked
                ) && started.elapsed() < BUSY_TIMEOUT =>
                {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) if on_read_only_file_system(path) => {
                    return SqliteStore::open_read_only(path).map_err(|ro| match ro {
                        // A read-only file that is not usable either way: report the first error.
                        OpenError::Sqlite { .. } => e,
                        other => other,
                    });
                }
                result => return result,
            }
        }
    }

    /// Opens an existing database on a read-only file system, for reading only: every write
    /// then fails with [`StoreError::ReadOnly`]. The schema must be current, since it cannot be
    /// migrated. [`SqliteStore::open`] falls back to this by itself.
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Self, OpenError> {
        let path = path.as_ref().to_owned();
        let err = |e| OpenError::from_sqlite(&path, e);
        // Nothing can change a file on a read-only mount, so SQLite may skip the WAL index
        // (the -shm file), which could not be created there.
        let mut uri = String::from("file:");
        for &byte in path.as_os_str().as_encoded_bytes() {
            match byte {
                b'%' | b'?' | b'#' => uri.push_str(&format!("%{byte:02X}")),
                _ => uri.push(char::from(byte)),
            }
        }
        uri.push_str("?immutable=1");
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_URI
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let open = || -> Result<Connection, OpenError> {
            let conn = Connection::open_with_flags(&uri, flags).map_err(err)?;
            conn.pragma_update(None, "foreign_keys", true)
                .map_err(err)?;
            Ok(conn)
        };
        let mut wal = path.clone().into_os_string();
        wal.push("-wal");
        if std::fs::metadata(&wal).is_ok_and(|m| m.len() > 0) {
            // Immutable mode would ignore the log and with it the last committed writes.
            return Err(OpenError::ReadOnlyWithLog { path });
        }
        let writer = open()?;
        let version = schema::check(&writer, &path)?;
        if version != schema::SCHEMA_VERSION {
            return Err(OpenError::ReadOnlyOutdated {
                path,
                found: version,
                supported: schema::SCHEMA_VERSION,
            });
        }
        Self::assemble(path.clone(), true, writer, open)
    }

    fn open_once(path: &Path) -> Result<Self, OpenError> {
        create_private(path);
        let path = path.to_owned();
        let err = |e| OpenError::from_sqlite(&path, e);
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE
            | OpenFlags::SQLITE_OPEN_CREATE
            | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let mut writer = Connection::open_with_flags(&path, flags).map_err(err)?;
        writer.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
        // Everything up to here only reads, so a refused file stays untouched.
        let version = schema::check(&writer, &path)?;
        let mode: String = writer
            .query_row("PRAGMA journal_mode = WAL", [], |r| r.get(0))
            .map_err(err)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(OpenError::Sqlite {
                path: path.clone(),
                source: rusqlite::Error::InvalidParameterName(format!(
                    "journal_mode stayed {mode}"
                )),
            });
        }
        // FULL makes every commit durable at the price of one fsync, paid once per scan batch.
        writer
            .pragma_update(None, "synchronous", "FULL")
            .map_err(err)?;
        writer
            .pragma_update(None, "foreign_keys", true)
            .map_err(err)?;
        schema::migrate(&mut writer, version, &path)?;
        let open_reader = || -> Result<Connection, OpenError> {
            let reader = Connection::open_with_flags(
                &path,
                OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            )
            .map_err(err)?;
            reader.busy_timeout(BUSY_TIMEOUT).map_err(err)?;
            reader
                .pragma_update(None, "foreign_keys", true)
                .map_err(err)?;
            Ok(reader)
        };
        Self::assemble(path.clone(), false, writer, open_reader)
    }

    /// Completes a store around its `writer`: opens the read connections and the watcher with
    /// `open_reader`.
    fn assemble(
        path: PathBuf,
        read_only: bool,
        writer: Connection,
        open_reader: impl Fn() -> Result<Connection, OpenError>,
    ) -> Result<Self, OpenError> {
        let readers = (0..READ_CONNECTIONS)
            .map(|_| open_reader().map(Mutex::new))
            .collect::<Result<_, _>>()?;
        let watcher = Mutex::new(Watcher::new(open_reader()?));
        Ok(Self {
            path,
            read_only,
            readers,
            next_reader: AtomicUsize::new(0),
            watcher,
            writer: Mutex::new(writer),
        })
    }

    /// The database file's path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Caps the database file at about `bytes` (rounded down to whole pages, never below the
    /// current size) and returns the cap in force, in bytes. Once the cap is reached, writes
    /// fail with [`StoreError::Full`] exactly as on a full disk, and reads keep working. The
    /// write-ahead log, which checkpoints keep short, is not counted.
    pub fn limit_size(&self, bytes: u64) -> Result<u64, StoreError> {
        let w = self.writer();
        let page_size: i64 = w
            .query_row("PRAGMA page_size", [], |row| row.get(0))
            .map_err(store_err)?;
        let page_size = u64::try_from(page_size.max(1)).unwrap_or(4096);
        let pages = i64::try_from((bytes / page_size).max(1)).unwrap_or(i64::MAX);
        let in_force: i64 = w
            .query_row(&format!("PRAGMA max_page_count = {pages}"), [], |row| {
                row.get(0)
            })
            .map_err(store_err)?;
        Ok(u64::try_from(in_force)
            .unwrap_or(0)
            .saturating_mul(page_size))
    }

    /// SQLite's `PRAGMA data_version` on the read connection: it changes whenever another
    /// connection (this process's writer or another process) commits.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        let w = self.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        w.conn
            .query_row("PRAGMA data_version", [], |row| row.get(0))
            .map_err(store_err)
    }

    /// One scan batch in one transaction, with the subscribed accounts' webhook events.
    fn scan_batch(
        &self,
        scans: &[NewScan],
        subscribed: Option<&HashSet<AccountId>>,
    ) -> Result<Vec<ScanFate>, StoreError> {
        if self.read_only {
            return Err(StoreError::ReadOnly);
        }
        let mut w = self.writer();
        let tx = w
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(store_err)?;
        let ids = scans::insert_scans(&tx, scans)?;
        if let Some(subscribed) = subscribed {
            webhooks::scan_events(&tx, scans, &ids, subscribed)?;
        }
        tx.commit().map_err(store_err)?;
        Ok(ids)
    }

    fn writer(&self) -> MutexGuard<'_, Connection> {
        self.writer.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A free read connection if there is one, else the next one in turn (waiting for it).
    fn reader(&self) -> MutexGuard<'_, Connection> {
        let n = self.readers.len();
        let start = self.next_reader.fetch_add(1, Ordering::Relaxed);
        for i in 0..n {
            match self.readers[(start + i) % n].try_lock() {
                Ok(guard) => return guard,
                Err(std::sync::TryLockError::Poisoned(p)) => return p.into_inner(),
                Err(std::sync::TryLockError::WouldBlock) => {}
            }
        }
        self.readers[start % n]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

impl Store for SqliteStore {
    fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn ReadTx) -> Result<T, E>,
    ) -> Result<T, E> {
        let mut r = self.reader();
        let tx = r
            .transaction_with_behavior(TransactionBehavior::Deferred)
            .map_err(store_err)?;
        let value = f(&SqlTx { conn: &tx })?;
        tx.commit().map_err(store_err)?;
        Ok(value)
    }

    fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut dyn WriteTx) -> Result<T, E>,
    ) -> Result<T, E> {
        if self.read_only {
            return Err(StoreError::ReadOnly.into());
        }
        let mut w = self.writer();
        let tx = w
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(store_err)?;
        let value = f(&mut SqlTx { conn: &tx })?;
        tx.commit().map_err(store_err)?;
        Ok(value)
    }

    fn record_scans(&self, scans: &[NewScan]) -> Result<Vec<ScanFate>, StoreError> {
        self.scan_batch(scans, None)
    }

    fn record_scans_with_events(
        &self,
        scans: &[NewScan],
        subscribed: &HashSet<AccountId>,
    ) -> Result<Vec<ScanFate>, StoreError> {
        self.scan_batch(scans, Some(subscribed))
    }

    /// Whether the database was opened read-only (see [`SqliteStore::open_read_only`]).
    fn is_read_only(&self) -> bool {
        self.read_only
    }

    fn config_version(&self) -> Result<u64, StoreError> {
        let mut r = self.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        // Checked on every request: the statement is prepared once.
        let dv: i64 = r
            .conn
            .prepare_cached("PRAGMA data_version")
            .and_then(|mut stmt| stmt.query_row([], |row| row.get(0)))
            .map_err(store_err)?;
        if r.data_version != Some(dv) {
            r.config_version = scans::config_version(&r.conn)?;
            r.data_version = Some(dv);
        }
        Ok(r.config_version)
    }

    fn config_changes(&self, since: u64) -> Result<ConfigChanges, StoreError> {
        let r = self.watcher.lock().unwrap_or_else(PoisonError::into_inner);
        config_changes::changes_since(&r.conn, since)
    }
}

impl Watcher {
    fn new(conn: Connection) -> Self {
        Self {
            conn,
            data_version: None,
            config_version: 0,
        }
    }
}

/// Whether `path` is an existing file that cannot be opened for writing because its file system
/// is mounted read-only.
fn on_read_only_file_system(path: &Path) -> bool {
    match std::fs::OpenOptions::new().write(true).open(path) {
        Ok(_) => false,
        Err(e) => e.kind() == std::io::ErrorKind::ReadOnlyFilesystem,
    }
}

impl std::fmt::Debug for SqliteStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SqliteStore")
            .field("path", &self.path)
            .field("read_only", &self.read_only)
            .finish_non_exhaustive()
    }
}

/// Creates a new database file readable and writable by its owner only (0600), whatever the
/// umask: it holds e-mail addresses, key hashes, link targets and analytics. SQLite gives the
/// `-wal` and `-shm` files it creates beside it the database file's permissions. An existing
/// file keeps its permissions (`docs/api.md` says how to tighten an older one).
fn create_private(path: &Path) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // Fails when the file exists (nothing to do) or cannot be made (SQLite then reports why).
        let _ = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(path);
    }
    #[cfg(not(unix))]
    let _ = path;
}
