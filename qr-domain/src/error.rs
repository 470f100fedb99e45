//! The storage error shared by every store adapter and the operations built on them.

use thiserror::Error;

/// A failure of the storage layer, independent of the adapter behind it.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum StoreError {
    /// The database stayed locked by another process for longer than the busy timeout.
    #[error("the database is busy (locked by another process); retry the operation")]
    Busy,
    /// The stored data violates an invariant (for example a malformed value in a column).
    #[error("stored data is corrupt: {0}")]
    Corrupt(String),
    /// A uniqueness rule of the store was violated (for example a duplicate id or short code).
    #[error("conflicting record: {0}")]
    Conflict(String),
    /// Any other failure reported by the storage backend.
    #[error("storage backend failure: {0}")]
    Backend(String),
    /// The disk holding the database, or the database's configured size limit, is full.
    /// Nothing of the failed operation was stored; reads still work.
    #[error(
        "the database is full (no disk space left, or its size limit reached); free space and retry"
    )]
    Full,
    /// The database cannot be written (a read-only mount or file). Reads still work.
    #[error("the database is read-only (read-only file or mount); make it writable and retry")]
    ReadOnly,
    /// The operating system reported an I/O error while reading or writing the database.
    #[error("the database's storage failed with an I/O error: {0}; check the disk and retry")]
    Io(String),
    /// The database server cannot be reached (stopped, restarting, or the network to it is
    /// down). Nothing of the failed operation was stored; it may succeed once the server is back.
    #[error("the database server cannot be reached ({0}); the operation was not done, retry later")]
    Unreachable(String),
    /// The background scan writer has stopped, so no scan can be recorded any more.
    #[error("the scan writer has shut down; scans can no longer be recorded")]
    WriterStopped,
}

impl StoreError {
    /// Whether the failure is the storage being unable to take writes for now (full disk,
    /// read-only mount, I/O error, database server unreachable): the operation may succeed
    /// later, and reads may still work.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            StoreError::Full
                | StoreError::ReadOnly
                | StoreError::Io(_)
                | StoreError::Unreachable(_)
        )
    }
}
