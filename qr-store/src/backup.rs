//! `qr backup` and `qr restore` for SQLite: a consistent copy of a live database with `VACUUM INTO` (one read transaction, so a running server keeps writing beside it), and the checks a copy must pass (integrity, application id, schema version, row counts) before it replaces a database that no process has open.

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, OpenFlags};
use thiserror::Error;

use crate::Location;

/// How long the backup waits for a lock (a checkpoint of the server's log takes milliseconds).
const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

/// What a database file holds, as `qr backup` and `qr restore` print it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inspection {
    /// The first line of `PRAGMA integrity_check`: `ok` for a sound file.
    pub integrity: String,
    /// `PRAGMA application_id`: [`qr_sqlite::APPLICATION_ID`] for this platform's databases.
    pub application_id: i32,
    /// `PRAGMA user_version`: the schema version.
    pub schema_version: i64,
    /// Rows per table, in the order of `qr db copy`'s table list.
    pub counts: Vec<(&'static str, u64)>,
}

/// Why a backup or a restore was refused or failed.
#[derive(Debug, Error)]
pub enum BackupError {
    /// PostgreSQL has its own tools.
    #[error(
        "qr backup and qr restore copy SQLite files; for PostgreSQL use its own tools, which take a consistent snapshot of a live database: pg_dump --format=custom --file=qr.dump 'URL', and pg_restore --clean --if-exists --dbname='URL' qr.dump into a database no server is using"
    )]
    Postgres,
    /// The output exists already.
    #[error("{0} exists: choose a new file name (a backup never overwrites a file)")]
    OutputExists(PathBuf),
    /// The source or the backup file is missing.
    #[error("no database at {0}")]
    Missing(PathBuf),
    /// The file is not one of this platform's databases, or is damaged.
    #[error("{path} cannot be used: {reason}")]
    Refused {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The database to replace exists and `--force` was not given.
    #[error("{0} exists: restore with --force to replace it (its current contents are lost)")]
    TargetExists(PathBuf),
    /// A process has the database to replace open.
    #[error(
        "{0} is open in another process (a running qr serve?): stop it first; replacing the file under a running server would lose every write it makes afterwards"
    )]
    InUse(PathBuf),
    /// SQLite failed.
    #[error("{path}: {source}")]
    Sqlite {
        /// The file.
        path: PathBuf,
        /// SQLite's error.
        #[source]
        source: rusqlite::Error,
    },
    /// The file system failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
}

fn sqlite_err(path: &Path) -> impl Fn(rusqlite::Error) -> BackupError + '_ {
    move |source| BackupError::Sqlite {
        path: path.to_owned(),
        source,
    }
}

fn io_err(path: &Path) -> impl Fn(std::io::Error) -> BackupError + '_ {
    move |source| BackupError::Io {
        path: path.to_owned(),
        source,
    }
}

/// The SQLite file of `location`, or the refusal for PostgreSQL.
fn sqlite_path(location: &Location) -> Result<&Path, BackupError> {
    match location {
        Location::Sqlite(path) => Ok(path),
        Location::Postgres(_) => Err(BackupError::Postgres),
    }
}

/// Copies the database at `source` into the new file `out`, consistently, while servers and
/// commands keep using it: every transaction committed before the copy's read transaction began
/// is in the copy, none after. The copy is written beside `out` and renamed into place once
/// complete, then inspected.
pub fn backup(source: &Location, out: &Path) -> Result<Inspection, BackupError> {
    let source = sqlite_path(source)?;
    if out.exists() {
        return Err(BackupError::OutputExists(out.to_owned()));
    }
    let conn = open_read_only(source)?;
    check_ours(&conn, source)?;
    let partial = with_suffix(out, ".partial");
    // A partial file of an earlier, interrupted run.
    let _ = std::fs::remove_file(&partial);
    let target = partial.to_str().ok_or_else(|| BackupError::Refused {
        path: out.to_owned(),
        reason: "the backup's path must be valid UTF-8".to_owned(),
    })?;
    conn.execute("VACUUM INTO ?1", [target])
        .map_err(sqlite_err(source))?;
    drop(conn);
    sync(&partial)?;
    std::fs::rename(&partial, out).map_err(io_err(out))?;
    inspect(out)
}

/// Opens `path` and reports its integrity, identity, schema version and row counts.
pub fn inspect(path: &Path) -> Result<Inspection, BackupError> {
    let conn = open_read_only(path)?;
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .map_err(sqlite_err(path))?;
    let application_id: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(sqlite_err(path))?;
    let schema_version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(sqlite_err(path))?;
    let mut counts = Vec::new();
    for table in crate::copy::table_names() {
        let exists: bool = conn
            .query_row(
                "SELECT count(*) > 0 FROM sqlite_schema WHERE type = 'table' AND name = ?1",
                [table],
                |r| r.get(0),
            )
            .map_err(sqlite_err(path))?;
        if exists {
            let n: i64 = conn
                .query_row(&format!("SELECT count(*) FROM \"{table}\""), [], |r| {
                    r.get(0)
                })
                .map_err(sqlite_err(path))?;
            counts.push((table, u64::try_from(n).unwrap_or(0)));
        }
    }
    Ok(Inspection {
        integrity,
        application_id,
        schema_version,
        counts,
    })
}

/// Replaces the database at `target` with the backup `input` after checking the backup
/// (integrity `ok`, this platform's application id, a schema version this build can open).
/// An existing `target` is replaced only with `force`, and never while a process has it open.
/// A backup of an older schema is migrated when a server or command next opens it.
pub fn restore(input: &Path, target: &Location, force: bool) -> Result<Inspection, BackupError> {
    let target = sqlite_path(target)?;
    let report = inspect(input)?;
    let refuse = |reason: String| BackupError::Refused {
        path: input.to_owned(),
        reason,
    };
    if report.integrity != "ok" {
        return Err(refuse(format!(
            "integrity check failed: {}",
            report.integrity
        )));
    }
    if report.application_id != qr_sqlite::APPLICATION_ID {
        return Err(refuse(format!(
            "application id {:#x} is not this platform's ({:#x})",
            report.application_id,
            qr_sqlite::APPLICATION_ID
        )));
    }
    if !(1..=qr_sqlite::SCHEMA_VERSION).contains(&report.schema_version) {
        return Err(refuse(format!(
            "schema version {} is not one this build opens (1 to {})",
            report.schema_version,
            qr_sqlite::SCHEMA_VERSION
        )));
    }
    // Held until the new file is in place, so no server opens the old one meanwhile.
    let _lock = if target.exists() {
        if !force {
            return Err(BackupError::TargetExists(target.to_owned()));
        }
        Some(lock_exclusively(target)?)
    } else {
        None
    };
    let staged = with_suffix(target, ".restoring");
    let _ = std::fs::remove_file(&staged);
    std::fs::copy(input, &staged).map_err(io_err(&staged))?;
    sync(&staged)?;
    // The old database's log and index would be read as the new file's: remove them.
    for suffix in ["-wal", "-shm"] {
        let stale = with_suffix(target, suffix);
        match std::fs::remove_file(&stale) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(io_err(&stale)(e)),
        }
    }
    std::fs::rename(&staged, target).map_err(io_err(target))?;
    inspect(target)
}

/// A connection holding the exclusive lock of `path`, or `InUse` when another connection (a
/// server keeps its connections open) holds any lock on it.
fn lock_exclusively(path: &Path) -> Result<Connection, BackupError> {
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sqlite_err(path))?;
    let busy = |e: &rusqlite::Error| {
        matches!(e, rusqlite::Error::SqliteFailure(f, _)
            if matches!(f.code, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked))
    };
    conn.busy_timeout(Duration::from_millis(200))
        .map_err(sqlite_err(path))?;
    // In exclusive locking mode the first read takes the file's exclusive lock and keeps it;
    // an open connection of another process (a WAL reader holds a shared lock) prevents that.
    let locked = conn
        .pragma_update(None, "locking_mode", "EXCLUSIVE")
        .and_then(|()| {
            conn.execute_batch("BEGIN EXCLUSIVE; SELECT count(*) FROM sqlite_schema; COMMIT;")
        });
    match locked {
        Ok(()) => Ok(conn),
        Err(e) if busy(&e) => Err(BackupError::InUse(path.to_owned())),
        Err(e) => Err(sqlite_err(path)(e)),
    }
}

fn open_read_only(path: &Path) -> Result<Connection, BackupError> {
    if !path.exists() {
        return Err(BackupError::Missing(path.to_owned()));
    }
    let conn = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(sqlite_err(path))?;
    conn.busy_timeout(BUSY_TIMEOUT).map_err(sqlite_err(path))?;
    Ok(conn)
}

/// Refuses a file that is not one of this platform's databases before copying it.
fn check_ours(conn: &Connection, path: &Path) -> Result<(), BackupError> {
    let application_id: i32 = conn
        .query_row("PRAGMA application_id", [], |r| r.get(0))
        .map_err(sqlite_err(path))?;
    if application_id != qr_sqlite::APPLICATION_ID {
        return Err(BackupError::Refused {
            path: path.to_owned(),
            reason: "it is not a QR platform database".to_owned(),
        });
    }
    Ok(())
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// Flushes a written file to the disk before it is renamed into place.
fn sync(path: &Path) -> Result<(), BackupError> {
    std::fs::File::open(path)
        .and_then(|f| f.sync_all())
        .map_err(io_err(path))
}
