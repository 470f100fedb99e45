//! `Database`: the store the composition roots run on, SQLite or PostgreSQL, implementing `Store` by delegation.

use std::collections::HashSet;

use qr_domain::accounts::config_change::ConfigChanges;

use qr_domain::scans::scan::{NewScan, ScanFate};
use qr_domain::{AccountId, ReadTx, Store, StoreError, WriteTx};
use qr_postgres::PgStore;
use qr_sqlite::SqliteStore;
use thiserror::Error;

use crate::location::Location;

/// An open database of either engine.
// One per process, behind an `Arc`: the size of the larger variant (PostgreSQL's connection
// settings and pool) costs nothing, and boxing it would add a pointer to every call.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum Database {
    /// An SQLite file: one server per file (plus any number of CLI processes).
    Sqlite(SqliteStore),
    /// A PostgreSQL database: any number of servers.
    Postgres(PgStore),
}

/// The storage engine of a [`Database`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    /// SQLite, embedded.
    Sqlite,
    /// PostgreSQL, a server.
    Postgres,
}

/// Why a database could not be opened.
#[derive(Debug, Error)]
pub enum OpenError {
    /// The SQLite file could not be opened or was refused.
    #[error(transparent)]
    Sqlite(#[from] qr_sqlite::OpenError),
    /// The PostgreSQL database could not be reached or was refused.
    #[error(transparent)]
    Postgres(#[from] qr_postgres::OpenError),
}

impl Database {
    /// Opens (creating an SQLite file if missing) and migrates the database at `location`.
    /// Must not be called from an async task (PostgreSQL's client blocks).
    pub fn open(location: &Location) -> Result<Database, OpenError> {
        Ok(match location {
            Location::Sqlite(path) => Database::Sqlite(SqliteStore::open(path)?),
            Location::Postgres(url) => Database::Postgres(PgStore::open(url)?),
        })
    }

    /// The engine.
    pub fn engine(&self) -> Engine {
        match self {
            Database::Sqlite(_) => Engine::Sqlite,
            Database::Postgres(_) => Engine::Postgres,
        }
    }

    /// Most store operations worth running at once: SQLite's read connections, or the size of
    /// PostgreSQL's connection pool.
    pub fn concurrency(&self) -> usize {
        match self {
            Database::Sqlite(_) => qr_sqlite::READ_CONNECTIONS,
            Database::Postgres(_) => qr_postgres::POOL_SIZE,
        }
    }

    /// The schema version this build gives the database (after `open`, the database's own).
    pub fn schema_version(&self) -> i64 {
        match self {
            Database::Sqlite(_) => qr_sqlite::SCHEMA_VERSION,
            Database::Postgres(_) => i64::from(qr_postgres::SCHEMA_VERSION),
        }
    }

    /// The sizes on disk of an SQLite database file and of its write-ahead log, in bytes (a
    /// missing log counts 0); `None` for PostgreSQL, whose server reports its own sizes.
    pub fn disk_usage(&self) -> Option<DiskUsage> {
        let Database::Sqlite(store) = self else {
            return None;
        };
        let size = |path: &std::path::Path| std::fs::metadata(path).map_or(0, |m| m.len());
        let mut wal = store.path().as_os_str().to_owned();
        wal.push("-wal");
        Some(DiskUsage {
            database_bytes: size(store.path()),
            wal_bytes: size(std::path::Path::new(&wal)),
        })
    }

    /// Caps an SQLite file's size (see [`SqliteStore::limit_size`]); `None` for PostgreSQL,
    /// whose space its operator manages.
    pub fn limit_size(&self, bytes: u64) -> Option<Result<u64, StoreError>> {
        match self {
            Database::Sqlite(store) => Some(store.limit_size(bytes)),
            Database::Postgres(_) => None,
        }
    }
}

/// What an SQLite database takes on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiskUsage {
    /// The database file.
    pub database_bytes: u64,
    /// Its write-ahead log (`-wal`), which checkpoints move into the file.
    pub wal_bytes: u64,
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Sqlite => "SQLite",
            Engine::Postgres => "PostgreSQL",
        })
    }
}

impl Store for Database {
    fn read<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&dyn ReadTx) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            Database::Sqlite(store) => store.read(f),
            Database::Postgres(store) => store.read(f),
        }
    }

    fn write<T, E: From<StoreError>>(
        &self,
        f: impl FnOnce(&mut dyn WriteTx) -> Result<T, E>,
    ) -> Result<T, E> {
        match self {
            Database::Sqlite(store) => store.write(f),
            Database::Postgres(store) => store.write(f),
        }
    }

    fn record_scans(&self, scans: &[NewScan]) -> Result<Vec<ScanFate>, StoreError> {
        match self {
            Database::Sqlite(store) => store.record_scans(scans),
            Database::Postgres(store) => store.record_scans(scans),
        }
    }

    fn record_scans_with_events(
        &self,
        scans: &[NewScan],
        subscribed: &HashSet<AccountId>,
    ) -> Result<Vec<ScanFate>, StoreError> {
        match self {
            Database::Sqlite(store) => store.record_scans_with_events(scans, subscribed),
            Database::Postgres(store) => store.record_scans_with_events(scans, subscribed),
        }
    }

    fn config_version(&self) -> Result<u64, StoreError> {
        match self {
            Database::Sqlite(store) => store.config_version(),
            Database::Postgres(store) => store.config_version(),
        }
    }

    fn config_changes(&self, since: u64) -> Result<ConfigChanges, StoreError> {
        match self {
            Database::Sqlite(store) => store.config_changes(since),
            Database::Postgres(store) => store.config_changes(since),
        }
    }

    fn is_read_only(&self) -> bool {
        match self {
            Database::Sqlite(store) => store.is_read_only(),
            Database::Postgres(store) => store.is_read_only(),
        }
    }
}
