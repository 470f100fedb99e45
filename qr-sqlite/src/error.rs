//! Errors of opening a database, and the mapping of SQLite errors to `StoreError`.

use std::path::PathBuf;

use qr_domain::StoreError;
use rusqlite::ErrorCode;
use thiserror::Error;

/// Why a database file could not be opened. Nothing is written to a refused file.
#[derive(Debug, Error)]
pub enum OpenError {
    /// The file exists but is not an SQLite database.
    #[error(
        "{path} is not an SQLite database; pass the path of a qr-platform database or a new file name"
    )]
    NotADatabase {
        /// The path given.
        path: PathBuf,
    },
    /// The file is an SQLite database of another application.
    #[error(
        "{path} is an SQLite database of another application (it has tables but no qr-platform schema)"
    )]
    ForeignDatabase {
        /// The path given.
        path: PathBuf,
    },
    /// The schema is newer than this build understands.
    #[error(
        "{path} has schema version {found}, newer than the {supported} this build supports; upgrade the software instead of downgrading the database"
    )]
    NewerSchema {
        /// The path given.
        path: PathBuf,
        /// The file's schema version.
        found: i64,
        /// The newest version this build knows.
        supported: i64,
    },
    /// The file is on a read-only file system and its schema is older than this build's, so it
    /// cannot be migrated.
    #[error(
        "{path} is read-only and has schema version {found}, older than the {supported} this build needs; open it once on a writable file system to migrate it"
    )]
    ReadOnlyOutdated {
        /// The path given.
        path: PathBuf,
        /// The file's schema version.
        found: i64,
        /// The version this build needs.
        supported: i64,
    },
    /// The file is on a read-only file system with a write-ahead log that still holds commits
    /// (the last writer did not close cleanly), which a read-only open would ignore.
    #[error(
        "{path} is read-only but its write-ahead log still holds committed data; open it once on a writable file system so the log is applied"
    )]
    ReadOnlyWithLog {
        /// The path given.
        path: PathBuf,
    },
    /// Accounts share an e-mail address, which schema version 2 keeps unique; the file was
    /// left as it was.
    #[error(
        "{path} holds accounts that share an e-mail address (compared without regard to case): {}. This version keeps e-mail addresses unique, and nothing was changed: give all but one account of each address another address, for example with sqlite3 {path} \"UPDATE accounts SET email = 'new@example.com' WHERE id = X'{}'\", then open the database again",
        list_shared(.shared),
        example_id(.shared)
    )]
    SharedEmails {
        /// The path given.
        path: PathBuf,
        /// Each shared address with its accounts, oldest first.
        shared: Vec<SharedEmail>,
    },
    /// The database is damaged.
    #[error("{path} is corrupt: {message}; restore it from a backup")]
    Corrupt {
        /// The path given.
        path: PathBuf,
        /// SQLite's message.
        message: String,
    },
    /// Any other SQLite failure (permissions, missing directory, full disk, ...).
    #[error("cannot open {path}: {source}")]
    Sqlite {
        /// The path given.
        path: PathBuf,
        /// The SQLite error.
        #[source]
        source: rusqlite::Error,
    },
}

/// An e-mail address several accounts of an existing database share.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SharedEmail {
    /// The address as the oldest of its accounts has it.
    pub email: String,
    /// The ids of the accounts, oldest first.
    pub accounts: Vec<String>,
}

fn list_shared(shared: &[SharedEmail]) -> String {
    shared
        .iter()
        .map(|s| format!("{} (accounts {})", s.email, s.accounts.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

/// The second account of the first shared address, in SQLite's blob notation.
fn example_id(shared: &[SharedEmail]) -> String {
    shared
        .first()
        .and_then(|s| s.accounts.get(1))
        .map_or_else(String::new, |id| id.replace('-', ""))
}

impl OpenError {
    pub(crate) fn from_sqlite(path: &std::path::Path, e: rusqlite::Error) -> Self {
        match e.sqlite_error_code() {
            Some(ErrorCode::NotADatabase) => OpenError::NotADatabase {
                path: path.to_owned(),
            },
            Some(ErrorCode::DatabaseCorrupt) => OpenError::Corrupt {
                path: path.to_owned(),
                message: e.to_string(),
            },
            _ => OpenError::Sqlite {
                path: path.to_owned(),
                source: e,
            },
        }
    }
}

/// Maps an SQLite error to the adapter-independent storage error.
pub(crate) fn store_err(e: rusqlite::Error) -> StoreError {
    match e.sqlite_error_code() {
        Some(ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked) => StoreError::Busy,
        Some(ErrorCode::ConstraintViolation) => StoreError::Conflict(e.to_string()),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase) => {
            StoreError::Corrupt(e.to_string())
        }
        Some(ErrorCode::DiskFull) => StoreError::Full,
        Some(ErrorCode::ReadOnly) => StoreError::ReadOnly,
        Some(ErrorCode::SystemIoFailure | ErrorCode::CannotOpen) => StoreError::Io(e.to_string()),
        _ => StoreError::Backend(e.to_string()),
    }
}
